"""The benchmarks' guard for timed regions: none runs under a profiler, a tracer or tracemalloc, which slow the work
and skew the ratios. The benchmarks start those only in their own modes (profile tables, memory runs), untimed."""
import sys
import tracemalloc


def untraced():
    "Raise RuntimeError when a Python profiler or tracer, tracemalloc or (if torch is loaded) torch's profiler is on."
    torch = sys.modules.get("torch")
    on = [name for name, active in (
        ("a Python profiler (sys.setprofile, cProfile)", sys.getprofile() is not None),
        ("a tracer (sys.settrace: coverage, a debugger)", sys.gettrace() is not None),
        ("tracemalloc", tracemalloc.is_tracing()),
        ("torch's profiler", torch is not None and torch.autograd._profiler_enabled())) if active]
    if on: raise RuntimeError(f"a timed region would run under a profiler or tracemalloc: {', '.join(on)}")
