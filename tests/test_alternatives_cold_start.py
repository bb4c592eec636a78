"""The alternatives' first call in a new process: the kernels compiled ahead of time (numba.pycc) are loaded when an
AOT module built from this very source is present, so a fresh install never imports numba; otherwise numba is imported
only on the first kernel call. Each test runs the package in a subprocess (a copy of it where a module is built)."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mlxplain.alternatives import kernels

PACKAGE = Path(kernels.__file__).resolve().parents[1]  # the `mlxplain` folder

FIT = r"""
import json, sys
import numpy as np
import mlxplain.alternatives as alt
from mlxplain.alternatives import kernels
q = np.array(json.loads(sys.argv[1]))
out = {"numba_after_import": "numba" in sys.modules}
for search, agg in (("sequential", "sum"), ("simultaneous", "sum"), ("simultaneous", "min")):
    s = alt.AlternativeFeatureSelector(objective=q, k=5, n_alternatives=3, tau=0.8, search=search,
                                       aggregation=agg).fit()
    out[f"{search} {agg}"] = [[sorted(map(int, f)) for f in s.feature_sets_], list(s.statuses_),
                              [round(float(v), 12) for v in s.qualities_]]
out.update(backend=kernels.backend(), numba="numba" in sys.modules)
print(json.dumps(out))
"""


def run(code, *args, root=None, **env):
    "Run `code` in a new Python process (the package from `root`, if given); its last output line as JSON."
    env = {**os.environ, **env}
    if root is not None: env["PYTHONPATH"] = str(root)
    out = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=900,
                         cwd=root or None)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def breast_cancer_q():
    from sklearn.datasets import load_breast_cancer
    from sklearn.feature_selection import mutual_info_classif
    X, y = load_breast_cancer(return_X_y=True)
    return json.dumps(mutual_info_classif(X, y, random_state=0).tolist())


@pytest.fixture(scope="module")
def aot_root(tmp_path_factory):
    "A copy of the package with an AOT module for this CPU (built for the best level it runs; ~15-30 s)."
    root = tmp_path_factory.mktemp("aot")
    shutil.copytree(PACKAGE, root / "mlxplain", ignore=shutil.ignore_patterns("__pycache__", "_kernels_aot_*"))
    folder = root / "mlxplain" / "alternatives"
    ccs = [cc for cc in kernels.aot_compilers(str(folder)) if f"_{kernels._runnable_levels()[0]}_" in cc.name]
    if not ccs: pytest.skip("no ahead-of-time build here (numba.pycc or a C compiler missing)")
    ccs[0].compile()
    return root


def test_import_does_not_load_numba():
    "Importing the package (no AOT module in the way: MLXPLAIN_KERNELS=jit) leaves numba for the first kernel call."
    code = ("import sys, mlxplain.alternatives as alt; from mlxplain.alternatives import kernels; "
            "import json; a = 'numba' in sys.modules; kernels.backend(); print(json.dumps([a, 'numba' in sys.modules]))")
    assert run(code, MLXPLAIN_KERNELS="jit") == [False, True]


def test_aot_kernels_load_with_the_package_and_numba_stays_out(aot_root):
    """With an AOT module built from this source, importing the package loads it (as a compiled extension is loaded:
    the first fit pays no loading), and numba is never imported; a fit's first kernel call finds them loaded."""
    code = ("import sys, json, mlxplain.alternatives as alt; from mlxplain.alternatives import kernels; "
            "print(json.dumps([kernels._LOADED.get(''), 'numba' in sys.modules]))")
    name, numba = run(code, root=aot_root)
    assert name is not None and name.startswith("aot-") and not numba
    assert run(code, root=aot_root, MLXPLAIN_KERNELS="jit") == [None, False]  # the JIT stays lazy


def test_fresh_install_fits_without_numba_and_as_the_jit_does(aot_root, breast_cancer_q, tmp_path):
    "Empty numba cache, AOT module present: the three breast-cancer fits never import numba; same sets as the JIT."
    # (checked: the AOT module, every call's arguments checked against the signatures first)
    aot = run(FIT, breast_cancer_q, root=aot_root, NUMBA_CACHE_DIR=str(tmp_path), MLXPLAIN_KERNELS="checked")
    assert aot["backend"].startswith("aot-") and not aot["numba_after_import"] and not aot["numba"]
    # the JIT from the same copy and its in-tree numba cache, which the build must have left usable
    jit = run(FIT, breast_cancer_q, root=aot_root, NUMBA_CACHE_DIR="", MLXPLAIN_KERNELS="jit")
    assert jit["backend"] == "jit" and jit["numba"]
    for key in ("sequential sum", "simultaneous sum", "simultaneous min"):
        assert aot[key] == jit[key], key


def test_checked_mode_rejects_a_wrong_dtype(aot_root):
    "An AOT kernel does not check its arguments (an int32 array would corrupt memory): the checked mode does."
    code = ("import json, numpy as np; from mlxplain.alternatives import kernels\n"
            "try: kernels.compat_rows(np.zeros((2, 1), np.uint64), 0, np.zeros(2, np.int32)); print(json.dumps(''))\n"
            "except TypeError as e: print(json.dumps(str(e)))")
    msg = run(code, root=aot_root, MLXPLAIN_KERNELS="checked")
    assert "argument 2 must be a C-contiguous 1-D int64 array, got int32" in msg, msg


def test_stale_aot_module_is_never_loaded(aot_root, tmp_path):
    "A module built from other source (here: the source edited after the build) is ignored: the JIT serves."
    root = tmp_path / "stale"
    shutil.copytree(aot_root, root)
    with open(root / "mlxplain" / "alternatives" / "kernels.py", "a") as f: f.write("\n# edited after the build\n")
    code = "import json; from mlxplain.alternatives import kernels; print(json.dumps(kernels.backend()))"
    assert run(code, root=aot_root).startswith("aot-")
    assert run(code, root=root) == "jit"


def test_build_without_a_c_compiler_only_warns():
    "No C compiler: no AOT modules (a warning naming the fallback), so `pip install` still works."
    code = ("import json, warnings; from mlxplain.alternatives import kernels\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always'); ccs = kernels.aot_compilers()\n"
            "print(json.dumps([len(ccs), [str(x.message) for x in w]]))")
    n, messages = run(code, CC="/nonexistent/cc")
    assert n == 0 and any("compile on first use" in m for m in messages), messages


def test_kernels_use_none_of_the_slow_to_compile_numba_features():
    """Slice assignment (its shape check formats an error message: numba compiles its string machinery for it),
    ndarray reductions and copies, np.searchsorted/concatenate/sort: each costs seconds of JIT compilation on the
    first call of an install without AOT modules; the kernels use loops instead."""
    import inspect
    assert not slow_features(inspect.getsource(kernels))


def slow_features(src):
    "Where the kernels (functions decorated with @_kernel) of module source `src` use a slow-to-compile feature."
    import ast
    tree = ast.parse(src)
    kernel_defs = [n for n in tree.body if isinstance(n, ast.FunctionDef)
                   and any(getattr(d, "id", None) == "_kernel" for d in n.decorator_list)]
    assert len(kernel_defs) >= 18
    found = []
    for fn in kernel_defs:
        for node in ast.walk(fn):
            targets = node.targets if isinstance(node, ast.Assign) else []
            for t in targets:
                for e in (t.elts if isinstance(t, ast.Tuple) else [t]):
                    if isinstance(e, ast.Subscript) and isinstance(e.slice, ast.Slice):
                        found.append(f"{fn.name}: slice assignment")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                name = node.func.attr
                base = getattr(node.func.value, "id", None)
                if base == "np" and name in ("searchsorted", "concatenate", "sort", "argsort", "zeros_like"):
                    found.append(f"{fn.name}: np.{name}")
                elif base != "np" and name in ("min", "max", "copy", "sum"):
                    found.append(f"{fn.name}: .{name}()")
    return found


def test_warmup_fills_numbas_cache_for_an_install_without_aot(breast_cancer_q, tmp_path):
    "`python -m mlxplain.alternatives.kernels --warmup` (JIT backend): a later process's fits compile no kernel."
    env = {"NUMBA_CACHE_DIR": str(tmp_path), "MLXPLAIN_KERNELS": "jit"}
    out = subprocess.run([sys.executable, "-m", "mlxplain.alternatives.kernels", "--warmup"], capture_output=True,
                         text=True, timeout=900, env={**os.environ, **env})
    assert out.returncode == 0 and "kernels: jit" in out.stdout, out.stderr[-2000:]
    code = FIT.replace("print(json.dumps(out))", "out['compiled'] = {n: sum(getattr(kernels, n).stats.cache_misses."
                       "values()) for n in kernels.ENTRY}\nprint(json.dumps(out))")
    got = run(code, breast_cancer_q, **env)
    assert got["backend"] == "jit" and not any(got["compiled"].values()), got["compiled"]


@pytest.mark.slow
@pytest.mark.parametrize("compiler", [True, False])
def test_a_wheel_holds_the_aot_kernels_and_builds_without_a_compiler(tmp_path, compiler):
    """`pip wheel .` (setup.py's build_py) compiles the kernels into the wheel, tagged for its platform; without a C
    compiler the wheel is built all the same, without them and with a warning (the JIT serves). No build isolation:
    the environment's numba builds them (~1 min)."""
    import zipfile
    src = tmp_path / "src"
    shutil.copytree(PACKAGE.parent, src, ignore=shutil.ignore_patterns(
        ".venv", ".git", "_kernels_aot_*", "__pycache__", "build", "*.egg-info", "nbs", "_docs", "_proc", "demo_output"))
    env = {**os.environ, **({} if compiler else {"CC": "/nonexistent/cc"})}
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "--no-build-isolation", "-w",
                          str(tmp_path / "dist"), str(src)], env=env, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("mlxplain-*.whl")
    aot = [n for n in zipfile.ZipFile(wheel).namelist() if "/_kernels_aot_" in n]
    if compiler:
        assert "none-any" not in wheel.name and len(aot) == len(kernels.cpu_levels()), (wheel.name, aot)
        assert all(kernels.source_hash() in n for n in aot)
    else:
        assert aot == [] and "compile on first use" in out.stdout + out.stderr
