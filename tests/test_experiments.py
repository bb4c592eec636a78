"""The grid runner: caching across runs, parallel and distributed runs equal the serial one, a killed run
resumes to exactly the rows of an uninterrupted one, automatic code versions, one provenance record."""
import importlib
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest
from threadpoolctl import threadpool_info

from mlxplain.experiments import (auto_version, code_modules, code_version, expand_grid, read_meta, run_grid,
                                  usable_cores, write_meta)


def noisy_mean(n, seed):
    return {"mean": float(np.random.default_rng(seed).normal(size=n).mean())}


def test_parallel_equals_serial_and_is_seeded(tmp_path):
    g = {"n": [5, 50], "seed": [0, 1, 2]}
    a = run_grid(noisy_mean, g)
    b = run_grid(noisy_mean, g, n_jobs=2, cache=tmp_path / "c.csv")
    pd.testing.assert_frame_equal(a, b)


def slow_first(i):
    "Cells that finish in reverse order when run in parallel; two records each, the second with an extra column."
    time.sleep(0.02 * (6 - i))
    return [{"rec": 0, "sq": i * i}, {"rec": 1, "sq": -i, "extra": i}]


def test_rows_follow_the_grid_not_completion_order(tmp_path):
    g = {"i": list(range(6))}
    serial = run_grid(slow_first, g, cache=tmp_path / "s.csv")
    par = run_grid(slow_first, g, n_jobs=2, batch=1, cache=tmp_path / "p.csv")
    pd.testing.assert_frame_equal(par, serial)
    assert (tmp_path / "p.csv").read_text() == (tmp_path / "s.csv").read_text()
    assert list(serial["i"]) == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]


def boom(i):
    if i == 5: raise RuntimeError("cell 5 fails")
    return {"sq": i * i}


def test_failure_keeps_finished_cells_and_no_temp_files(tmp_path):
    cache = tmp_path / "r.csv"
    with pytest.raises(RuntimeError, match="cell 5"): run_grid(boom, {"i": range(8)}, cache=cache, batch=2)
    done = pd.read_csv(cache)
    assert sorted(done["i"]) == [0, 1, 2, 3, 4]          # every cell that finished before the failure
    assert [p.name for p in tmp_path.iterdir()] == ["r.csv"]
    # the rerun only computes what is missing (cell 5 now succeeds through a different function)
    calls = []
    def fixed(i):
        calls.append(i)
        return {"sq": i * i}
    df = run_grid(fixed, {"i": range(8)}, cache=cache, batch=2)
    assert sorted(calls) == [5, 6, 7] and list(df["sq"]) == [i * i for i in range(8)]


def test_expand_grid_rejects_garbage():
    with pytest.raises(TypeError): expand_grid([1])


# --- dask -------------------------------------------------------------------------------------------------
def blas_mean(n, seed):
    "A seeded result, plus the BLAS thread limit the cell ran under."
    return {"mean": float(np.random.default_rng(seed).normal(size=n).mean()),
            "threads": max((p["num_threads"] for p in threadpool_info()), default=1)}


def test_local_cluster_gives_the_serial_rows(tmp_path):
    g = {"n": [5, 50], "seed": [0, 1, 2]}
    env_before = {k: os.environ.get(k) for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
    serial = run_grid(blas_mean, g, cache=tmp_path / "serial.csv")
    dist = run_grid(blas_mean, g, n_jobs=2, scheduler="local", cache=tmp_path / "dist.csv", batch=1)
    pd.testing.assert_frame_equal(dist.drop(columns="threads"), serial.drop(columns="threads"))
    assert set(dist["threads"]) == {max(1, usable_cores() // 2)}          # no oversubscription on the workers
    cols = ["n", "seed", "mean", "_cell"]
    written = [pd.read_csv(tmp_path / f)[cols] for f in ("dist.csv", "serial.csv")]
    pd.testing.assert_frame_equal(*written)
    assert {k: os.environ.get(k) for k in env_before} == env_before   # this process's settings are untouched


def nested_calls(i):
    "A cell that asks joblib for 2 jobs inside (as an estimator's n_jobs=2 does): where did the inner calls run?"
    import threading
    from joblib import Parallel, delayed
    here = threading.get_ident()
    inner = Parallel(n_jobs=2)(delayed(threading.get_ident)() for _ in range(4))
    return {"inner_in_cell_thread": all(t == here for t in inner)}


def test_nested_joblib_calls_stay_in_the_cell(tmp_path):
    """A cell's own joblib calls run in the cell's thread on a worker with one core's share (through joblib's dask
    backend they became cluster tasks: cells then waited on each other and several ran at once on one worker)."""
    dist = run_grid(nested_calls, {"i": range(4)}, n_jobs=2, scheduler="local")
    assert dist["inner_in_cell_thread"].all()


def worker_malloc(i):
    return {"malloc_trim": os.environ.get("MALLOC_TRIM_THRESHOLD_", "unset")}


def test_local_workers_keep_glibc_malloc_settings():
    "The nanny's MALLOC_TRIM_THRESHOLD_ (which turns off glibc's adaptive mmap threshold) is not set on our workers."
    if "MALLOC_TRIM_THRESHOLD_" in os.environ:
        pytest.skip("this process sets MALLOC_TRIM_THRESHOLD_ itself")
    dist = run_grid(worker_malloc, {"i": range(2)}, n_jobs=2, scheduler="local")
    assert set(dist["malloc_trim"]) == {"unset"}


def test_existing_cluster_by_address():
    from distributed import LocalCluster
    g = {"n": [5, 50], "seed": [0, 1]}
    env = {"PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, env=env) as cl:
        dist = run_grid(blas_mean, g, scheduler=cl.scheduler_address)
    serial = run_grid(blas_mean, g)
    pd.testing.assert_frame_equal(dist.drop(columns="threads"), serial.drop(columns="threads"))
    assert set(dist["threads"]) == {max(1, usable_cores() // 2)}
    with pytest.raises(ValueError, match="scheduler='spark'"): run_grid(blas_mean, g, scheduler="spark")


# --- a killed run -----------------------------------------------------------------------------------------
SLOW_CELLS = """
import time
def cell(i):
    time.sleep(0.05)
    return [{"rec": r, "v": 10 * i + r} for r in range(2)]
"""


def _cells_in(cache):
    try: return pd.read_csv(cache)["_cell"].nunique()
    except (FileNotFoundError, pd.errors.EmptyDataError): return 0


def test_killed_run_resumes_to_exactly_the_rows_of_an_uninterrupted_run(tmp_path, monkeypatch):
    (tmp_path / "mx_slow_cells.py").write_text(SLOW_CELLS)
    cache, grid = tmp_path / "k.csv", {"i": list(range(30))}
    script = (f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n"
              "from mx_slow_cells import cell\nfrom mlxplain.experiments import run_grid\n"
              f"run_grid(cell, {grid!r}, cache={str(cache)!r}, batch=1, version='v1')\n")
    for stop_at in (4, 12):                                   # killed twice, at different points
        p = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.DEVNULL)
        deadline = time.time() + 25
        while _cells_in(cache) < stop_at and time.time() < deadline and p.poll() is None: time.sleep(0.005)
        p.send_signal(signal.SIGKILL)
        p.wait()
        assert stop_at <= _cells_in(cache) < 30
        # what a kill during a write leaves behind: the temporary file of the dead writer
        (tmp_path / f".k.csv.{p.pid}@{os.uname().nodename}.x1y2z3ab.tmp").write_text("n,se")
    monkeypatch.syspath_prepend(str(tmp_path))
    import mx_slow_cells
    cached, calls = _cells_in(cache), []
    def counted(i):
        calls.append(i)
        return mx_slow_cells.cell(i)
    resumed = run_grid(counted, grid, cache=cache, version="v1")
    full = run_grid(mx_slow_cells.cell, grid, cache=tmp_path / "full.csv", version="v1")
    assert len(calls) == 30 - cached                          # finished cells are not recomputed
    pd.testing.assert_frame_equal(resumed, full)              # none lost, none duplicated, same order
    pd.testing.assert_frame_equal(pd.read_csv(cache), pd.read_csv(tmp_path / "full.csv"))
    assert not pd.read_csv(cache).duplicated(["_cell", "rec"]).any()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []   # orphan removed
    sys.modules.pop("mx_slow_cells", None)


# --- automatic versions -----------------------------------------------------------------------------------
def test_auto_version_follows_a_changed_helper(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)    # a reload must compile the edited source
    monkeypatch.syspath_prepend(str(tmp_path))
    helper = tmp_path / "mx_helper_mod.py"
    helper.write_text("def helper(i):\n    return i + 1\n")
    (tmp_path / "mx_mid_mod.py").write_text("from mx_helper_mod import helper\n\ndef twice(i):\n"
                                            "    return 2 * helper(i)\n")
    (tmp_path / "mx_cell_mod.py").write_text("import mx_mid_mod\n\ndef cell(i):\n"
                                             "    return {'v': mx_mid_mod.twice(i)}\n")
    try:
        import mx_cell_mod, mx_helper_mod, mx_mid_mod
        assert {"mx_cell_mod", "mx_mid_mod", "mx_helper_mod"} <= set(code_modules(mx_cell_mod.cell))
        v1, hand_kept = auto_version(mx_cell_mod.cell), code_version(mx_cell_mod.cell)
        cache = tmp_path / "c.csv"
        assert list(run_grid(mx_cell_mod.cell, {"i": [0, 1, 2]}, cache=cache, version="auto")["v"]) == [2, 4, 6]
        helper.write_text("def helper(i):\n    # a comment changes nothing\n\n    return i + 1\n")
        assert auto_version(mx_cell_mod.cell) == v1
        helper.write_text("def helper(i):\n    return i + 2\n")
        for m in (mx_helper_mod, mx_mid_mod, mx_cell_mod): importlib.reload(m)
        v2 = auto_version(mx_cell_mod.cell)
        assert v2 != v1 and code_version(mx_cell_mod.cell) == hand_kept    # the hand-kept list misses it
        df = run_grid(mx_cell_mod.cell, {"i": [0, 1, 2]}, cache=cache, version="auto")
        assert list(df["v"]) == [4, 6, 8] and df.attrs["version"] == v2        # recomputed, not served stale
        assert set(pd.read_csv(cache, dtype=str)["_version"]) == {v2}
    finally:
        for m in ("mx_cell_mod", "mx_mid_mod", "mx_helper_mod"): sys.modules.pop(m, None)


def test_auto_version_follows_a_helper_behind_a_package_init(tmp_path, monkeypatch):
    """A cell that imports a name a package's `__init__` re-exports (as every chapter imports `mlxplain.experiments`)
    reaches the submodule that defines it: a change there recomputes the rows."""
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "mx_pkg").mkdir()
    (tmp_path / "mx_pkg" / "__init__.py").write_text("from .inner import *\nfrom . import inner\n")
    inner = tmp_path / "mx_pkg" / "inner.py"
    inner.write_text("__all__ = ['helper']\ndef helper(i):\n    return i + 1\n")
    (tmp_path / "mx_pkg_cell.py").write_text("from mx_pkg import helper\n\ndef cell(i):\n    return {'v': helper(i)}\n")
    try:
        import mx_pkg_cell
        assert {"mx_pkg", "mx_pkg.inner", "mx_pkg_cell"} <= set(code_modules(mx_pkg_cell.cell))
        v1 = auto_version(mx_pkg_cell.cell)
        inner.write_text("__all__ = ['helper']\ndef helper(i):\n    return i + 2\n")
        assert auto_version(mx_pkg_cell.cell) != v1
    finally:
        for m in ("mx_pkg_cell", "mx_pkg.inner", "mx_pkg"): sys.modules.pop(m, None)


def test_a_chapter_cell_reaches_every_module_of_the_experiments_package():
    "A reproduction imports `mlxplain.experiments`: its version covers the grid runner, provenance and claims modules."
    from mlxplain import experiments
    def cell(seed): return {"p": experiments.holm([0.01])[0]}
    mods = code_modules(cell)
    assert {"mlxplain.experiments", "mlxplain.experiments.grid", "mlxplain.experiments.provenance",
            "mlxplain.experiments.claims", "mlxplain.data", "mlxplain.checks"} <= set(mods), sorted(mods)


# every public name of mlxplain.experiments as one module held (before it became a package by concern)
FORMER_NAMES = ["META_FORMAT", "MAX_SEEDS", "CLAIMS_FORMAT", "CLAIM_TESTS", "CLAIM_DIRECTIONS", "VERDICTS",
                "CONFIRM_FILES", "expand_grid", "atomic_write_csv", "atomic_write_json", "CacheWarning", "read_cache",
                "run_grid", "code_version", "code_modules", "auto_version", "timer", "results_dir", "scratch_dir",
                "have_data", "write_meta", "read_meta", "row_provenance", "check_parts", "check_datasets",
                "check_seeds", "datasets_by_part", "holm", "check_claims", "claims_path", "read_claims",
                "held_out_sets", "resampled_split", "spearman_permutation", "evaluate_claims", "claim_span",
                "stated_claims", "check_stated_claims", "claims_markdown", "claims_summary", "confirm_part",
                "confirm_recomputed"]


def test_every_former_name_still_imports_from_the_package():
    "`from mlxplain.experiments import X` keeps working for every name the one module had, and `import *` gives them."
    ns = {}
    exec("from mlxplain.experiments import *", ns)
    assert [n for n in FORMER_NAMES if n not in ns] == []
    mods = [importlib.import_module(f"mlxplain.experiments.{m}") for m in ("grid", "provenance", "claims")]
    for n in FORMER_NAMES:   # each the object of exactly one of the package's modules
        assert len([m for m in mods if n in m.__all__ and getattr(m, n) is ns[n]]) == 1, n


def test_auto_version_of_a_chapter_cell_covers_the_foundation():
    from mlxplain import learners
    mods = code_modules(learners.BinaryRelevance.fit)
    assert {"mlxplain.learners"} <= set(mods) and not any(m.startswith(("numpy", "sklearn")) for m in mods)
    assert auto_version(learners.BinaryRelevance.fit) == auto_version(learners.LabelSpecificBR)


# --- provenance -------------------------------------------------------------------------------------------
def test_write_meta_read_meta_round_trip(tmp_path):
    t0 = time.time()
    m = write_meta(tmp_path / "fals", chapter="fals", seeds=range(3), design={"folds": 5, "k": [0.1, 0.2]},
                   datasets=["emotions", "yeast"], scheduler="local", n_jobs=4, started=t0 - 3.5, finished=t0,
                   code_version={"table3": "abc", "cv": "def"}, note="quick")
    back = read_meta(tmp_path / "fals")
    assert back == m == json.loads((tmp_path / "fals" / "meta.json").read_text())
    assert back["code_version"] == {"table3": "abc", "cv": "def"} and back["seeds"] == [0, 1, 2]
    assert {"train", "test"} <= set(back["datasets"]["yeast"])
    assert all(len(v["sha256"]) == 64 for v in back["datasets"]["emotions"].values())
    assert back["duration_s"] == pytest.approx(3.5, abs=1e-12) and back["started"].endswith("+00:00")
    assert back["host"]["cores"] >= 1 and "numpy" in back["host"]["libraries"]
    assert back["package"]["name"] == "mlxplain" and back["n_jobs"] == 4 and back["note"] == "quick"
    assert [p.name for p in (tmp_path / "fals").iterdir()] == ["meta.json"]
    (tmp_path / "fals" / "meta.json").write_text("{}")
    with pytest.raises(ValueError, match="format"): read_meta(tmp_path / "fals")


def test_run_label_names_the_call_that_computed_each_row(tmp_path):
    "With `run`, each row keeps its code version and the label of the call that computed it, not the latest call's."
    cache = tmp_path / "c.csv"
    plain = run_grid(noisy_mean, {"n": [5], "seed": [0, 1]}, cache=cache, version="v1")
    assert "_run" not in plain and "_version" not in plain and "_run" not in pd.read_csv(cache)   # no label asked
    first = run_grid(noisy_mean, {"n": [5], "seed": [0, 1, 2]}, cache=cache, version="v1", run="A")
    assert first["_run"].isna().tolist() == [True, True, False] and first["_run"].iloc[2] == "A"   # cached: unlabelled
    again = run_grid(noisy_mean, {"n": [5], "seed": [0, 1, 2, 3]}, cache=cache, version="v1", run="B")
    assert again["_run"].fillna("-").tolist() == ["-", "-", "A", "B"] and set(again["_version"]) == {"v1"}
    np.testing.assert_allclose(again["mean"], run_grid(noisy_mean, {"n": [5], "seed": [0, 1, 2, 3]})["mean"])
    redo = run_grid(noisy_mean, {"n": [5], "seed": [0, 1]}, cache=cache, version="v2", run="C")   # new code: recomputed
    assert redo["_run"].tolist() == ["C", "C"] and set(redo["_version"]) == {"v2"}


# --- a damaged cache ----------------------------------------------------------------------------------------
def two_records(i):
    "Two records per cell, the second with a column of its own: a cut between them leaves a cell half there."
    return [{"rec": 0, "v": float(np.random.default_rng(i).normal())}, {"rec": 1, "v": -i, "note": f"cell {i}"}]


def _uninterrupted(tmp_path, grid):
    full = run_grid(two_records, grid, cache=tmp_path / "full.csv", version="v1", run="A")
    return full, (tmp_path / "full.csv").read_bytes()


def _resume(cache, grid):
    "run_grid on a damaged cache: (result, the CacheWarnings it gave)."
    import warnings
    from mlxplain.experiments import CacheWarning
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        df = run_grid(two_records, grid, cache=cache, version="v1", run="A")
    return df, [x for x in w if issubclass(x.category, CacheWarning)]


def test_a_truncated_cache_is_recomputed_to_the_uninterrupted_rows(tmp_path):
    "A cache cut anywhere (mid-row, mid-cell, at a row's end) gives exactly the uninterrupted run's rows, with a warning."
    grid = {"i": list(range(12))}
    full, whole = _uninterrupted(tmp_path, grid)
    cache = tmp_path / "c.csv"
    header = whole.index(b"\n") + 1
    cuts = sorted({len(whole) // 2, header + 1, whole.rindex(b"\n", 0, -1) + 1, len(whole) - 3,
                   *range(header + 7, len(whole) - 3, len(whole) // 13)})
    for cut in cuts:
        cache.write_bytes(whole[:cut])
        df, warned = _resume(cache, grid)
        pd.testing.assert_frame_equal(df, full)                   # none lost, none half there, none duplicated
        assert cache.read_bytes() == whole, cut                   # the cache is whole again
        assert len(warned) == 1 and "cut short or damaged" in str(warned[0].message), cut
    cache.write_bytes(whole[:-1])                                 # only the last line end is gone: every row intact
    df, warned = _resume(cache, grid)
    pd.testing.assert_frame_equal(df, full)
    assert warned == []


def test_a_garbage_cache_is_recomputed_without_junk_columns(tmp_path):
    "Binary garbage, a foreign CSV, an edited value and a cache without checksums: recomputed, the same rows and columns."
    grid = {"i": list(range(6))}
    full, whole = _uninterrupted(tmp_path, grid)
    cache = tmp_path / "c.csv"
    legacy = pd.read_csv(tmp_path / "full.csv", dtype={"_version": str, "_run": str}).drop(columns=["_check"])
    for bad in (bytes(range(256)) * 8, b"junk,more\n1,2\n3,4\n", whole.replace(b",cell 3,", b",cell 9,"),
                legacy.to_csv(index=False).encode()):
        cache.write_bytes(bad)
        df, warned = _resume(cache, grid)
        pd.testing.assert_frame_equal(df, full)
        assert list(df.columns) == list(full.columns) and cache.read_bytes() == whole
        assert len(warned) == 1 and "computed again" in str(warned[0].message)


def test_an_intact_cache_is_trusted_silently(tmp_path):
    import warnings
    grid = {"i": list(range(4))}
    run_grid(two_records, grid, cache=tmp_path / "c.csv")
    calls = []
    def counted(i):
        calls.append(i)
        return two_records(i)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                            # any warning fails the test
        run_grid(counted, grid, cache=tmp_path / "c.csv")
    assert calls == []


# --- limits and rules that do not depend on the machine ------------------------------------------------------
def test_check_seeds_refuses_absurd_counts_without_listing_them():
    "A billion seeds are counted and refused, never listed (listing them grew to 19.8 GB in two minutes)."
    from mlxplain.experiments import check_seeds
    class Billion:   # counts a billion seeds; listing more than a few thousand of them fails the test at once
        def __len__(self): return 10**9
        def __iter__(self):
            yield from range(5001)
            raise AssertionError("check_seeds listed the seeds past its limit")
    def endless():   # the same without a length
        yield from Billion()
    with pytest.raises(ValueError, match=r"1,000,000,000 seeds given; at most 1,000"): check_seeds(Billion(), ())
    with pytest.raises(ValueError, match="more than 1,000 seeds"): check_seeds(endless(), ())
    with pytest.raises(ValueError, match=r"\[0, 4294967295\]"): check_seeds([2**32], ())   # numpy's seeds are 32-bit
    assert check_seeds([3, 1, 3], ()) == (3, 1) and check_seeds(range(1000), ()) == tuple(range(1000))


def test_held_out_sets_are_the_same_without_any_data(tmp_path, monkeypatch):
    "The rule reads the registry (names, kinds, sizes), so an empty data folder and cache give the claims files' sets."
    from mlxplain.experiments import held_out_sets, read_claims, results_dir
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("MLXPLAIN_DATA", str(tmp_path / "empty"))
    monkeypatch.setenv("MLXPLAIN_CACHE", str(tmp_path / "empty"))
    root = __import__("pathlib").Path(__file__).resolve().parents[1] / "nbs" / "results"
    for chapter in ("fals", "extended_plt", "prakel", "alternatives"):
        h = read_claims(root / chapter / "claims.json")["held_out"]
        assert held_out_sets(h["exclude"], **h["args"]) == h["sets"], chapter


def test_a_verdict_inconclusive_by_design_says_why():
    "One unit per held-out set, or one held-out set: inconclusive, and the reason says it is the design, not the data."
    from mlxplain.experiments import CLAIMS_FORMAT, claims_summary, evaluate_claims
    claims = {"format": CLAIMS_FORMAT, "chapter": "toy", "alpha": 0.05, "correction": "holm",
              "held_out": {"sets": ["h1", "h2", "h3"]}, "splits": list(range(12)),
              "claims": [dict(id="a-beats-b", sentence="A beats B.", statistic="mean", a="A", b="B", metric="m",
                              direction="greater", formed_on=["x"], test="wilcoxon")]}
    def frame(sets, units):
        return pd.DataFrame([dict(claim="a-beats-b", dataset=d, unit=u, side=s, value=v)
                             for d in sets for u in range(units) for s, v in (("a", 1.0 + u), ("b", 0.0))])
    one_unit = evaluate_claims(claims, frame(["h1", "h2", "h3"], 1))
    assert set(one_unit.verdict) == {"inconclusive"}
    assert one_unit.reason.tolist() == [f"{d}: n=1 unit, a wilcoxon test needs ≥ 6 to reach p < 0.05" for d in ("h1", "h2", "h3")]
    five = evaluate_claims(claims, frame(["h1", "h2", "h3"], 5))          # 2/2^5 = 0.0625: Wilcoxon cannot reach 0.05
    assert five.reason.str.contains("n=5 units, a wilcoxon test needs ≥ 6").all()
    one_set = evaluate_claims(claims, frame(["h1"], 12))
    assert one_set.verdict.tolist() == ["inconclusive"] and one_set.reason.tolist() == ["1 held-out set, a claim needs ≥ 3"]
    decided = evaluate_claims(claims, frame(["h1", "h2", "h3"], 12))
    assert set(decided.verdict) == {"replicated"} and decided.reason.isna().all()
    assert claims_summary(one_set) == ["a-beats-b: inconclusive (1 held-out set, a claim needs ≥ 3)"]


def test_meta_names_every_data_set_and_seed_its_tables_hold(tmp_path):
    "A call that reran a slice of a table that keeps earlier rows: meta.json's data sets and seeds cover all its rows."
    pd.DataFrame({"dataset": ["yeast", "yeast", "emotions", "scene"], "seed": [1, 2, 0, 0], "HL": [.1, .2, .3, .4]}
                 ).to_csv(tmp_path / "table3.csv", index=False)
    m = write_meta(tmp_path, chapter="fals", seeds=[0], datasets=["emotions"], files={"table3": ["table3.csv"]})
    assert list(m["datasets"]) == ["emotions", "yeast", "scene"] and m["seeds"] == [0, 1, 2]
    assert m["coverage"]["table3"] == {"file": "table3.csv", "rows": 4, "datasets": ["yeast", "emotions", "scene"],
                                       "seeds": [0, 1, 2]}
    assert read_meta(tmp_path)["coverage"] == m["coverage"]


def test_a_stopped_runs_cancelled_cells_raise_no_joblib_warning():
    "Closing a run's result generator with cells still in flight (what a stop does) warns nothing; joblib alone would."
    import time
    import warnings
    from mlxplain.experiments.grid import _close_quietly, _parallel
    from joblib import delayed
    def started():   # two slow tasks on two workers, one result taken: the other is still in flight
        g = _parallel(2)(delayed(time.sleep)(s) for s in (0.1, 3.0))
        next(g)
        return g
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        _close_quietly(started())
        assert not [w for w in seen if "tasks" in str(w.message)], [str(w.message) for w in seen]
        started().close()   # joblib's own close: the warning a stopped run used to print
        assert [w for w in seen if "cancelled" in str(w.message)]
