"The benchmarks' timed regions refuse to run under a profiler or tracemalloc (their memory and profile modes)."
import importlib.util, sys, tracemalloc
from pathlib import Path
import pytest
import torch

BENCH = Path(__file__).parents[1] / "benchmarks"


def _load(name):
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    return mod


def _tracing_kinds(with_torch):
    "Context managers for every kind of tracing a benchmark's other modes start."
    from contextlib import contextmanager
    @contextmanager
    def malloc():
        tracemalloc.start()
        try: yield
        finally: tracemalloc.stop()
    @contextmanager
    def python():
        sys.setprofile(lambda *a: None)
        try: yield
        finally: sys.setprofile(None)
    @contextmanager
    def cprofile():
        import cProfile
        pr = cProfile.Profile()
        pr.enable()
        try: yield
        finally: pr.disable()
    @contextmanager
    def tracer():
        old = sys.gettrace()
        sys.settrace(lambda *a: None)
        try: yield
        finally: sys.settrace(old)
    kinds = {"tracemalloc": malloc, "sys.setprofile": python, "cProfile": cprofile, "sys.settrace": tracer}
    if with_torch:
        from torch.profiler import profile, ProfilerActivity
        kinds["torch.profiler"] = lambda: profile(activities=[ProfilerActivity.CPU])
    return kinds


@pytest.mark.parametrize("bench,timers", [
    ("bench_fals", ("_timed", "_fit_seconds")),
    ("bench_prakel", ("best_of", "min_time")),
])
def test_timed_regions_refuse_tracing(bench, timers):
    mod = _load(bench)
    for name in timers:
        mod.__dict__[name](lambda: None)                    # untraced: runs
        for kind, ctx in _tracing_kinds(bench == "bench_fals").items():
            with ctx():
                with pytest.raises(RuntimeError, match="profiler or tracemalloc"):
                    mod.__dict__[name](lambda: None)
    torch.set_num_threads(1)


def test_prakel_interleaved_timing_refuses_tracing():
    "time_methods (the ratios' clock: methods interleaved, min CPU seconds) refuses every kind of tracing too."
    mod = _load("bench_prakel")
    assert set(mod.time_methods({"a": lambda: None, "b": lambda: None}, 2)) == {"a", "b"}
    for kind, ctx in _tracing_kinds(False).items():
        with ctx():
            with pytest.raises(RuntimeError, match="profiler or tracemalloc"):
                mod.time_methods({"a": lambda: None}, 1)


def test_tracing_switched_on_before_a_timed_call_is_caught_at_that_call():
    """The guard stands right before each clock (timing_guard.clock), not once per timer: a call that leaves
    tracemalloc on (here the untimed warm-up of min_time and time_methods, then a timed call itself) makes the next
    timed call refuse instead of being timed under it."""
    mod = _load("bench_prakel")
    def starts_tracing():
        if not tracemalloc.is_tracing(): tracemalloc.start()
    for timer in (lambda f: mod.min_time(f, 2), lambda f: mod.time_methods({"a": f}, 2), lambda f: mod.best_of(f, 2)):
        try:
            with pytest.raises(RuntimeError, match="tracemalloc"): timer(starts_tracing)
        finally: tracemalloc.stop()
    fals = _load("bench_fals")
    try:
        with pytest.raises(RuntimeError, match="tracemalloc"):
            for _ in range(2): fals._timed(starts_tracing)
    finally: tracemalloc.stop()
    torch.set_num_threads(1)


def test_alternatives_timed_regions_refuse_tracing():
    """The alternatives benchmark's timed call of ours (and alfese's timed child), the CP-SAT floor and the heuristics'
    per-call timer refuse every kind of tracing too."""
    import numpy as np
    sys.path.insert(0, str(BENCH))
    mod = _load("bench_alternatives")
    p = {"kind": "linear", "q": np.linspace(1, 0.1, 12), "n": 12}
    timed = {"ours": lambda: mod.ours(p, 3, 0.5, 1, "sequential", "sum", "fast"),
             "cpsat_floor_ms": lambda: mod.cpsat_floor_ms(True, reps=2),
             "per_call_s": lambda: mod.per_call_s(lambda: None, 3)}
    assert timed["ours"]()[1] == "optimal" and timed["cpsat_floor_ms"]() > 0  # untraced: they run
    assert timed["per_call_s"]() >= 0
    for kind, ctx in _tracing_kinds(False).items():
        for name, call in timed.items():
            with ctx():
                with pytest.raises(RuntimeError, match="profiler or tracemalloc"):
                    call()


def test_guard_sees_tools_registered_with_sys_monitoring(monkeypatch):
    """From Python 3.12, cProfile, coverage and debuggers register with sys.monitoring and leave sys.getprofile() and
    sys.gettrace() at None: the guard asks sys.monitoring too (here a stand-in, as this interpreter may predate it)."""
    from types import SimpleNamespace
    sys.path.insert(0, str(BENCH))
    guard = _load("timing_guard")
    guard.untraced()
    for tool_id, name in ((2, "cProfile"), (1, "coverage"), (0, "pdb")):
        fake = SimpleNamespace(DEBUGGER_ID=0, COVERAGE_ID=1, PROFILER_ID=2,
                               get_tool=lambda i, t=tool_id, n=name: n if i == t else None)
        monkeypatch.setattr(sys, "monitoring", fake, raising=False)
        with pytest.raises(RuntimeError, match=name):
            guard.untraced()
    monkeypatch.setattr(sys, "monitoring", SimpleNamespace(DEBUGGER_ID=0, COVERAGE_ID=1, PROFILER_ID=2,
                                                           get_tool=lambda i: None), raising=False)
    guard.untraced()


def test_guard_sees_cprofile_on_a_python_with_sys_monitoring():
    "The same with a real cProfile, on a Python 3.12 or later where one is installed (skipped otherwise)."
    import shutil, subprocess
    found = [shutil.which(f"python3.{m}") for m in (14, 13, 12)]  # on PATH, or installed by pyenv
    found += sorted(Path.home().glob(".pyenv/versions/3.1[2-9]*/bin/python"), reverse=True)
    exe = next((str(p) for p in found if p and subprocess.run([str(p), "-c", "import sys; sys.monitoring"],
                                                              capture_output=True).returncode == 0), None)
    if exe is None: pytest.skip("no Python 3.12 or later found (on PATH or under ~/.pyenv)")
    code = ("import cProfile, timing_guard\n"
            "timing_guard.untraced()\n"
            "pr = cProfile.Profile(); pr.enable()\n"
            "try:\n    timing_guard.untraced(); print('missed')\n"
            "except RuntimeError as e: print('caught', e)\n"
            "finally: pr.disable()\n")
    out = subprocess.run([exe, "-c", code], capture_output=True, text=True, cwd=BENCH, timeout=60)
    assert out.stdout.startswith("caught") and "cProfile" in out.stdout, (out.stdout, out.stderr)


# Top-level functions that read a clock without the guard, and why that is safe (checked below where it can be)
_UNGUARDED = {("bench_alternatives", "profile_ours"): "the counters of a separate, untimed profiling run"}
# these read no clock themselves: every timed call goes through timing_guard.clock, which checks right before it starts
_CLOCKED = ("bench_fals", "bench_prakel")


def test_every_clock_in_the_benchmarks_that_trace_sits_behind_the_guard():
    """Read as source: the benchmarks that start tracemalloc or a profiler read no clock but through
    timing_guard.clock; in the alternatives benchmark every top-level function that reads a clock calls the guard, or
    is one of the listed exceptions; every function that starts tracemalloc or a profiler reads no clock and stops it
    in a `finally` (or leaves a `with`)."""
    import ast
    clocks = {"perf_counter", "process_time", "perf_counter_ns", "process_time_ns", "monotonic", "time"}
    def calls(node, test):
        return [n for n in ast.walk(node) if isinstance(n, ast.Call) and test(n.func)]
    is_clock = lambda f: (isinstance(f, ast.Attribute) and f.attr in clocks and isinstance(f.value, ast.Name)  # noqa: E731
                          and f.value.id == "time")
    is_guard = lambda f: isinstance(f, ast.Name) and f.id in ("untraced", "_untraced")  # noqa: E731
    # tracemalloc.start() and cProfile's enable() must be undone in a `finally`; torch's profiler is a `with`
    switch = lambda f: (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)  # noqa: E731
                        and (f.value.id, f.attr) in (("tracemalloc", "start"), ("pr", "enable")))
    undo = lambda f: isinstance(f, ast.Attribute) and f.attr in ("stop", "disable")  # noqa: E731
    starts = lambda f: switch(f) or (isinstance(f, ast.Name) and f.id == "tprofile")  # noqa: E731
    tracing_seen = 0
    for bench in ("bench_fals", "bench_prakel", "bench_alternatives"):
        tree = ast.parse((BENCH / f"{bench}.py").read_text())
        funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        for node in tree.body:
            if not calls(node, is_clock): continue
            assert isinstance(node, ast.FunctionDef), f"{bench}: a clock read outside any function (line {node.lineno})"
            assert bench not in _CLOCKED, f"{bench} reads a clock itself (line {node.lineno}): use timing_guard.clock"
            if (bench, node.name) in _UNGUARDED: continue
            assert calls(node, is_guard), f"{bench}.{node.name} reads a clock but never calls the guard"
        for name, fn in funcs.items():
            if not calls(fn, starts): continue
            tracing_seen += 1
            assert not calls(fn, is_clock), f"{bench}.{name} starts tracing and reads a clock"
            finals = [c for t in ast.walk(fn) if isinstance(t, ast.Try) for b in t.finalbody for c in calls(b, undo)]
            assert len(finals) >= len(calls(fn, switch)), f"{bench}.{name} may leave tracing on (no `finally`)"
            in_with = {id(w.context_expr) for t in ast.walk(fn) if isinstance(t, ast.With) for w in t.items}
            assert all(id(c) in in_with for c in calls(fn, lambda f: isinstance(f, ast.Name) and f.id == "tprofile")), \
                f"{bench}.{name}: torch's profiler outside a `with`"
    assert tracing_seen >= 2  # bench_prakel.memory_run and bench_fals.profile
    # the one timed caller of bench_fals._work times it through clock
    child = ast.parse((BENCH / "bench_fals.py").read_text())
    child = next(n for n in child.body if isinstance(n, ast.FunctionDef) and n.name == "child")
    (timed,) = calls(child, lambda f: isinstance(f, ast.Name) and f.id == "clock")
    assert calls(timed, lambda f: isinstance(f, ast.Name) and f.id == "_work")
