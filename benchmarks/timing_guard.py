"""The benchmarks' guard for timed regions: none runs under a profiler, a tracer or tracemalloc, which slow the work
and skew the ratios. The benchmarks start those only in their own modes (profile tables, memory runs), untimed."""
import sys
import time
import tracemalloc


def _monitoring_tools() -> list:
    """Tools registered with sys.monitoring (Python 3.12+), where cProfile, coverage and debuggers register instead
    of sys.setprofile / sys.settrace: there, sys.getprofile() stays None under cProfile."""
    mon = getattr(sys, "monitoring", None)
    if mon is None: return []
    ids = (("a profiler (sys.monitoring: cProfile)", mon.PROFILER_ID), ("a debugger (sys.monitoring)", mon.DEBUGGER_ID),
           ("coverage (sys.monitoring)", mon.COVERAGE_ID))
    return [f"{name}: {mon.get_tool(i)}" for name, i in ids if mon.get_tool(i) is not None]


def untraced():
    """Raise RuntimeError when a Python profiler or tracer (also through sys.monitoring), tracemalloc or (if torch is
    loaded) torch's profiler is on."""
    torch = sys.modules.get("torch")
    on = [name for name, active in (
        ("a Python profiler (sys.setprofile, cProfile)", sys.getprofile() is not None),
        ("a tracer (sys.settrace: coverage, a debugger)", sys.gettrace() is not None),
        ("tracemalloc", tracemalloc.is_tracing()),
        ("torch's profiler", torch is not None and torch.autograd._profiler_enabled())) if active]
    on += _monitoring_tools()
    if on: raise RuntimeError(f"a timed region would run under a profiler or tracemalloc: {', '.join(on)}")


def clock(fn):
    """(CPU seconds, wall seconds, result) of one call of fn: the guard is checked right before the clocks start, so
    no timed call runs under tracing that something before it (a warm-up, an earlier call) switched on."""
    untraced()
    c, w = time.process_time(), time.perf_counter()
    out = fn()
    return time.process_time() - c, time.perf_counter() - w, out
