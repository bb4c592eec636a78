"""The package's layers, checked on the exported source: foundation ← methods ← reproductions.

- foundation modules (data, metrics, learners, checks, experiments, plots, cli, the top level) import no
  method or reproduction module (the CLI and the top level reach chapters by name, at run time);
- method modules import only the foundation (and other method modules);
- no import circle among the package's modules;
- no module imports another module's private (`_name`) object, or reaches into one: a private attribute
  (`obj._name`) used on something other than `self`/`cls` must be defined in the module that uses it.

Every import statement counts, also those inside functions. `KNOWN` lists the violations that the layout
still has, each with the module pair; the test fails on any violation not listed *and* on a listed one that
has gone (so the list can only shrink).
"""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "mlxplain"
FOUNDATION = {"data", "metrics", "learners", "checks", "experiments", "plots", "cli", "__init__"}
METHODS = {"fals", "extended_plt", "prakel", "alternatives"}

# violations of the layout that remain (none: the set can only shrink, and is empty)
KNOWN = set()


def modules():
    "Module name (relative to the package, dotted) → parsed source, for every exported module."
    out = {}
    for p in PKG.rglob("*.py"):
        rel = p.relative_to(PKG).with_suffix("")
        if rel.name == "_modidx":
            continue
        name = ".".join(rel.parts)
        out[name[:-len(".__init__")] if name.endswith(".__init__") else name] = ast.parse(p.read_text())
    return out


def imports(name, tree, is_package=False):
    """(imported module, imported object or None) for every import of a package module in `tree`; `is_package`: the
    module is a package's `__init__`, against which its relative imports resolve."""
    pkg = name.split(".") if is_package else name.split(".")[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("mlxplain."):
                    yield a.name[len("mlxplain."):], None
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from .x import y / from . import x
                base = pkg[:len(pkg) - node.level + 1] if node.level > 1 else pkg
                mod = ".".join([*base, node.module] if node.module else base)
            elif node.module and (node.module == "mlxplain" or node.module.startswith("mlxplain.")):
                mod = node.module[len("mlxplain."):] if node.module != "mlxplain" else ""
            else:
                continue
            for a in node.names:
                yield (mod, a.name) if mod else (a.name, None)


def layer(mod):
    top = mod.split(".")[0]
    return "foundation" if top in FOUNDATION else "method" if top in METHODS else "reproduction"


def _private(attr):
    return attr.startswith("_") and not attr.startswith("__")


def private_attributes(tree):
    "(private names the module defines, private attributes it reads from objects other than self/cls)."
    defined, used = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and _private(node.name):
            defined.add(node.name)
        elif isinstance(node, ast.Attribute) and _private(node.attr):
            if isinstance(node.ctx, ast.Store):
                defined.add(node.attr)   # obj._x = ...: the module owns the attribute
            elif not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                used.add(node.attr)
    return defined, used


def violations(mods):
    graph, found = {m: set() for m in mods}, set()
    for name, tree in mods.items():
        defined, used = private_attributes(tree)
        for attr in sorted(used - defined):
            if any(attr in private_attributes(t)[0] for m, t in mods.items() if m != name):
                found.add(("private attribute", name, attr))
    for name, tree in mods.items():
        is_package = any(m.startswith(name + ".") for m in mods)   # experiments/__init__.py: `from .grid import ...`
        for mod, obj in imports(name, tree, is_package):
            if mod in mods and obj in mods:  # `from mlxplain import fals`: the object is a module
                mod, obj = obj, None
            elif obj and mod and f"{mod}.{obj}" in mods:   # `from . import grid` in a package: a module too
                mod, obj = f"{mod}.{obj}", None
            if mod not in mods or mod == name:
                continue
            graph[name].add(mod)
            if obj and obj.startswith("_") and not obj.startswith("__"):
                found.add(("private import", name, f"{mod}.{obj}"))
            have, need = layer(name), layer(mod)
            if have == "foundation" and need != "foundation":
                found.add(("foundation imports chapter", name, mod))
            if have == "method" and need == "reproduction":
                found.add(("method imports reproduction", name, mod))
    for a in graph:  # circles of any length, reported by the pair that closes them
        seen, todo = set(), list(graph[a])
        while todo:
            b = todo.pop()
            if b == a:
                break
            if b not in seen:
                seen.add(b)
                todo.extend(graph[b])
        else:
            continue
        for b in graph[a]:
            if a in reachable(graph, b):
                found.add(("circle", *sorted((a, b))))
    return found


def reachable(graph, start):
    seen, todo = set(), [start]
    while todo:
        for n in graph[todo.pop()] - seen:
            seen.add(n)
            todo.append(n)
    return seen


def test_layers_and_no_private_imports():
    found = violations(modules())
    assert found - KNOWN == set(), f"new violations of the layout: {sorted(found - KNOWN)}"
    assert KNOWN - found == set(), f"fixed, remove from KNOWN: {sorted(KNOWN - found)}"


@pytest.mark.parametrize("case", ["circle", "method->repro", "private", "private attribute", "package private",
                                  "package circle"])
def test_checker_catches_each_kind(case):
    "The checker itself: a made-up package with one violation of each kind is caught."
    src = {"data": "", "fals": "from .data import load\n", "fals_experiments": "from .fals import FALS\n"}
    if case == "circle":
        src["data"] = "from mlxplain.metrics import f\n"
        src["metrics"] = "from .data import g\n"
    elif case == "method->repro":
        src["fals"] += "def reproduce():\n    from mlxplain.fals_experiments import run\n"
    elif case == "private":
        src["fals_experiments"] += "from .fals import _train\n"
    elif case == "private attribute":
        src["fals"] += "class FALS:\n    def _train(self): self._w = 1\n"
        src["fals_experiments"] += "def run(m): return m._train()\n"
    elif case == "package private":   # a package's __init__ resolves `.grid` against itself, not its parent
        src["experiments"] = "from .grid import run_grid, _key\n"
        src["experiments.grid"] = "def run_grid(): pass\ndef _key(): pass\n"
    else:
        src["experiments"] = "from . import grid\n"
        src["experiments.grid"] = "from mlxplain.experiments import holm\n"   # through the package: a circle
    kinds = {v[0] for v in violations({k: ast.parse(v) for k, v in src.items()})}
    want = {"circle": "circle", "method->repro": "method imports reproduction", "private": "private import",
            "private attribute": "private attribute", "package private": "private import",
            "package circle": "circle"}[case]
    assert want in kinds, kinds


def reference_reproduce(out_dir=None, *, parts=None, quick=False, datasets=None, seeds=None, data_home=None,
                        n_jobs=1, scheduler=None) -> dict:
    "The one signature of every chapter's reproduction."


def test_every_reproduction_has_the_one_signature():
    import importlib
    import inspect
    names = sorted(p.stem for p in (PKG / "repro").glob("*.py") if p.stem != "__init__")
    for name in names:
        mod = importlib.import_module(f"mlxplain.repro.{name}")
        got, want = inspect.signature(mod.reproduce), inspect.signature(reference_reproduce)
        assert [(p.name, p.kind, p.default) for p in got.parameters.values()] == \
               [(p.name, p.kind, p.default) for p in want.parameters.values()], f"repro.{name}.reproduce{got}"
        for const in ("PARTS", "DEFAULT_PARTS", "DATASETS", "QUICK_DATASETS", "SEEDS"):
            assert hasattr(mod, const), f"repro.{name} has no {const}"
        assert set(mod.DEFAULT_PARTS) <= set(mod.PARTS), name


def _code_cells(nb_path):
    import json
    return ["".join(c["source"]) for c in json.loads(nb_path.read_text())["cells"] if c["cell_type"] == "code"]


def test_notebook_reproductions_never_write_the_committed_tables():
    "A notebook cell that calls reproduce/write_projection (Jupyter's Run All runs slow cells too) passes scratch_dir."
    import re
    calls = re.compile(r"^(?:\w+\s*=\s*)?(reproduce|write_projection)\((.*)", re.M)
    seen = 0
    for nb in sorted((ROOT / "nbs").glob("[1-9]*.ipynb")):              # the chapters' pages (runs pages too)
        for src in _code_cells(nb):
            if src.lstrip().startswith("#| export"): continue        # the definitions themselves
            for m in calls.finditer(src):
                if "test_fail(" in src.splitlines()[src[:m.start()].count("\n")]: continue
                seen += 1
                assert m.group(2).startswith(("scratch_dir(", "_tmp", "tmp", "d,", "d)", "Path(d)", "out")), \
                    f"{nb.name}: `{m.group(0)[:80]}` would rewrite nbs/results/: give it scratch_dir(...)"
    assert seen >= 5                                                  # the check looked at the real cells


def test_committed_meta_names_no_temporary_path():
    "No meta.json under nbs/results holds a path into a temporary folder (a run merged from /tmp, say)."
    import json, tempfile
    tmp = {tempfile.gettempdir(), "/tmp", "/var/tmp", "Temp"}
    metas = sorted((ROOT / "nbs" / "results").glob("**/meta.json"))
    assert metas
    def strings(o):
        if isinstance(o, dict): o = list(o.values()) + list(o.keys())
        if isinstance(o, list):
            for v in o: yield from strings(v)
        elif isinstance(o, str): yield o
    for m in metas:
        bad = [s for s in strings(json.loads(m.read_text())) if any(t in Path(s).parts or s.startswith(t) for t in tmp)
               or "/tmp/" in s]
        assert not bad, f"{m.relative_to(ROOT)}: {bad}"


def test_every_notebook_declares_its_kernel():
    "JupyterLab opens each notebook without asking for a kernel: nbdev_clean keeps `kernelspec` (its default list)."
    import json
    for nb in sorted((ROOT / "nbs").glob("*.ipynb")):
        spec = json.loads(nb.read_text())["metadata"].get("kernelspec", {})
        assert spec.get("name") == "python3" and spec.get("language") == "python", f"{nb.name}: {spec}"


def test_export_check_leaves_no_copy_behind(tmp_path):
    """`make test-export` compares against a copy of mlxplain/ in a fresh temporary folder and removes it, whether
    the check passes or fails. A stand-in `nbdev_export` keeps the live tree untouched (other tests read it)."""
    import os, shutil, subprocess
    if not shutil.which("make"):
        pytest.skip("make is not installed")
    old = Path("/tmp/mlxplain-export-check")               # where an earlier Makefile left its copy
    shutil.rmtree(old, ignore_errors=True)
    tmp, bin_ = tmp_path / "tmp", tmp_path / "bin"
    tmp.mkdir(), bin_.mkdir()
    for name, body in (("pass", "true"), ("fail", "exit 3")):   # an export that changes nothing / that fails
        stub = bin_ / "nbdev_export"
        stub.write_text(f"#!/bin/sh\n{body}\n")
        stub.chmod(0o755)
        r = subprocess.run(["make", "-s", "--no-print-directory", "-o", ".venv/.installed", "-o", "env",
                            "test-export", f"BIN={bin_}"], cwd=ROOT, env={**os.environ, "TMPDIR": str(tmp)},
                           capture_output=True, text=True, timeout=120)
        assert (r.returncode == 0) == (name == "pass"), r.stdout[-2000:] + r.stderr[-2000:]
        assert list(tmp.iterdir()) == [] and not old.exists(), name


MAX_MODULE_LINES = 1200


def _long_modules(pkg):
    "The modules of `pkg` over MAX_MODULE_LINES lines (nbdev's generated symbol index `_modidx.py` is not one)."
    return {str(p.relative_to(pkg)): n for p in sorted(pkg.rglob("*.py")) if p.name != "_modidx.py"
            and (n := len(p.read_text().splitlines())) > MAX_MODULE_LINES}


def test_no_module_over_1200_lines(tmp_path):
    """The package mirrors the book: a module is a page's code, and none runs past 1,200 lines (issue 43: alternatives.py
    had 2,682). A module one line too long is reported."""
    assert _long_modules(PKG) == {}
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "big.py").write_text("x = 1\n" * (MAX_MODULE_LINES + 1))
    (tmp_path / "_modidx.py").write_text("x = 1\n" * (MAX_MODULE_LINES + 1))
    assert _long_modules(tmp_path) == {"sub/big.py": MAX_MODULE_LINES + 1}
