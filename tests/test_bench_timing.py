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
