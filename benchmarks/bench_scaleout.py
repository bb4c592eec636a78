"""Scale-out: the same reproduction cells serially, on joblib's processes and on a dask LocalCluster, in one run.

The cells are PRAkEL's main part (`mlxplain.repro.prakel.run_split`: every method and loss on one split), by default
on emotions and yeast, splits 0-3 (8 cells, about 6 s each on this machine). Each engine runs the cells through
`run_grid` with no cache, and its time is the wall time of the whole call: the cluster's start and stop, the
workers' imports and the data loading inside every cell are part of what a user waits for. Before the timed runs
every data set is loaded once, so no engine pays a cold disk. The parallel efficiency of an engine with W workers
is T_serial / (W × T_engine); the results of all three must be identical (each cell is seeded by its split).
Target: LocalCluster of 2 workers ≥ 0.8 efficiency and within 10 % of joblib, on an idle machine.
Writes benchmarks' record to nbs/results/prakel/bench_scaleout.json (`--out` to change).
Run: nice -n 5 .venv/bin/python benchmarks/bench_scaleout.py [--datasets emotions,yeast] [--seeds 4] [--workers 2]
"""
import argparse, json, os, platform, time, warnings
from pathlib import Path

import pandas as pd

from mlxplain.data import load
from mlxplain.experiments import atomic_write_json, run_grid
from mlxplain.repro.prakel import run_split

warnings.filterwarnings("ignore")


def timed_grid(grid, **kw):
    "Wall seconds of one `run_grid(run_split, grid, **kw)` call (no cache), and its table."
    t = time.perf_counter()
    df = run_grid(run_split, grid, desc=kw.get("scheduler") or f"n_jobs={kw.get('n_jobs', 1)}", **kw)
    return time.perf_counter() - t, df.drop(columns=["seconds"], errors="ignore")   # fit times differ by engine


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--datasets", default="emotions,yeast")
    p.add_argument("--seeds", type=int, default=4, help="splits 0..SEEDS-1 of each data set")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "nbs/results/prakel/bench_scaleout.json"))
    a = p.parse_args(argv)
    names = [d.strip() for d in a.datasets.split(",") if d.strip()]
    grid = [dict(dataset=d, repeat=r) for r in range(a.seeds) for d in names]
    for d in names: load(d)                                  # warm the disk cache for every engine alike
    runs = {"serial": {}, "joblib": dict(n_jobs=a.workers), "dask_local": dict(n_jobs=a.workers, scheduler="local")}
    times, tables = {}, {}
    for name, kw in runs.items():
        times[name], tables[name] = timed_grid(grid, **kw)
        print(f"{name:<11} {times[name]:7.1f} s")
    same = {k: bool(tables[k].equals(tables["serial"])) for k in ("joblib", "dask_local")}
    eff = {k: times["serial"] / (a.workers * times[k]) for k in ("joblib", "dask_local")}
    print(f"\n{len(grid)} cells, {a.workers} workers, {os.cpu_count()} cores; load before: {os.getloadavg()[0]:.2f}")
    for k in ("joblib", "dask_local"):
        print(f"{k:<11} efficiency {eff[k]:.2f}  (serial / ({a.workers} × {k}))  same results as serial: {same[k]}")
    ratio = times["dask_local"] / times["joblib"]
    print(f"dask_local / joblib time: {ratio:.2f}  (target ≤ 1.10; efficiency target ≥ 0.80)")
    rec = dict(cells=len(grid), datasets=names, seeds=a.seeds, workers=a.workers, cores=os.cpu_count(),
               seconds=times, efficiency=eff, dask_over_joblib=ratio, identical=same,
               machine=platform.processor() or platform.machine(), when=time.strftime("%Y-%m-%d %H:%M:%S %Z"))
    atomic_write_json(rec, a.out)
    print(f"written to {a.out}")
    return 0 if all(same.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
