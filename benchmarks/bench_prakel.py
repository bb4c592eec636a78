"""PRAkEL timing: PRAkEL vs RAkEL with one fast base learner, GW's extra cost, and a model from operation counts.

Targets: PRAkEL ≤ 1.5× RAkEL training time with uniform weighting; GW's extra cost ≤ 20 %; time linear in K.
Part 4 (also `--quick`, < 1 min) is the comparison the chapter reads: CAL500 (N=502) and enron (one fit > 1 s), all
labels, F1 loss, k=3, M=⌈10K/k⌉, ridge α=10 through one shared SVD of X for both methods. Clock: CPU seconds
(process_time) of one thread (threadpoolctl), because the machine is shared; every method is warmed up once, then
the methods run interleaved and the minimum over repeats is kept, so a ratio comes from one run. The model adds up
the shared SVD and, per sub-problem, the ridge solver's products (UᵀC and V·G; PRAkEL also X·W, its in-sample
prediction), each product timed alone on its real shapes; nothing is fitted to the method timings. Memory: each
method fits once in its own subprocess and reports its peak RSS (full runs only).
Parts 1-3 (full runs): time vs K on CAL500, other peers at K=87, and yeast/enron/corel5k (1 rep).
Writes nbs/results/prakel/bench.json (`--quick`: bench_quick.json); `--out` to change.
Run: OMP_NUM_THREADS=1 nice -n 5 .venv/bin/python benchmarks/bench_prakel.py [--quick]
"""
import argparse, json, math, os, platform, resource, subprocess, sys, warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing_guard import clock  # noqa: E402  (every timed call goes through it: checked untraced, then clocked)
os.environ.setdefault("OMP_NUM_THREADS", "1")
import numpy as np
from threadpoolctl import threadpool_limits
from sklearn.linear_model import Ridge, RidgeClassifier
from sklearn.preprocessing import StandardScaler
from mlxplain.data import load
from mlxplain.prakel import PRAkEL, RAkEL, EPCC, CostRegressionClassifier
import mlxplain.prakel as pk

warnings.filterwarnings("ignore")

def best_of(f, reps=3):
    "Minimum CPU time (process_time) and wall time of `reps` calls (the minimum is the least disturbed by other jobs)."
    cpu, wall, _ = zip(*(clock(f) for _ in range(reps)))
    return min(cpu), min(wall)

# ---- PRAkEL / RAkEL and GW's extra cost on CAL500 and enron, with a model from operation counts -------------
SETS = ("CAL500", "enron")   # CAL500: N=502, one PRAkEL fit ~0.3 s; enron: N=1702, d=1001, one fit > 1 s


def load_xy(name):
    "Standardised dense float64 X and dense int8 Y of a staged data set (the union file)."
    d_ = load(name)
    X_ = d_.X.toarray() if hasattr(d_.X, "toarray") else np.asarray(d_.X)
    return StandardScaler().fit_transform(X_).astype(np.float64), d_.Y_dense


def method_fits(X, Y):
    "The three fits the ratios compare: one base learner (ridge, α=10, through the shared SVD) for all."
    base = CostRegressionClassifier(Ridge(alpha=10.0))
    return {"prakel": lambda: PRAkEL(loss="f1", k=3, base_estimator=base, random_state=0).fit(X, Y),
            "prakel_gw": lambda: PRAkEL(loss="f1", k=3, weighting="greedy", base_estimator=base,
                                        random_state=0).fit(X, Y),
            "rakel": lambda: RAkEL(k=3, base_estimator=RidgeClassifier(alpha=10.0), random_state=0).fit(X, Y)}


def time_methods(fits, reps):
    "Warm-up (every method once), then `reps` rounds, methods interleaved; min CPU seconds of each."
    for f in fits.values(): f()
    T = {m: [] for m in fits}
    for _ in range(reps):
        for m, f in fits.items(): T[m].append(clock(f)[0])
    return {m: min(v) for m, v in T.items()}


def min_time(f, reps=7):
    "Min CPU seconds of `reps` calls of f (after one untimed call)."
    f()
    return min(clock(f)[0] for _ in range(reps))


def op_model(X, Y, k=3, reps=7):
    """Fit time predicted from operation counts: the shared SVD plus, per sub-problem, the products of the ridge
    solver, each kernel timed alone on its real shapes. Nothing is fitted to the method timings."""
    N, d = X.shape
    K = Y.shape[1]
    M = math.ceil(10 * K / k)
    r = min(N, d)
    R = 2 ** k
    sets = pk.select_labelsets(K, k, M, np.random.RandomState(0))          # the labelsets both methods use
    Rm = np.array([len(np.unique(pk.encode_labelset(Y[:, S]))) for S in sets])   # RAkEL's classes per labelset
    Xc = X - X.mean(0)
    t_svd = min_time(lambda: np.linalg.svd(Xc, full_matrices=False), max(2, reps // 3))
    U, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    rng = np.random.default_rng(0)
    def products(c, predict):
        "The products of one sub-problem with c target columns: UᵀC, V·G and, for PRAkEL, X·W."
        C = np.asfortranarray(rng.random((N, c)))
        G = rng.random((r, c))
        W = rng.random((d, c))
        t = min_time(lambda: U.T @ C, reps) + min_time(lambda: Vt.T @ G, reps)
        return t + (min_time(lambda: X @ W, reps) if predict else 0.0)
    t_p = products(R, True)
    t_r = {c: products(c, False) for c in np.unique(Rm[Rm >= 2])}
    model_p = t_svd + M * t_p
    model_r = t_svd + sum(t_r[c] for c in Rm if c >= 2)
    flops_p = M * 2 * R * (N * r + d * r + N * d)                           # the products' flops
    flops_r = int(sum(2 * c * (N * r + d * r) for c in Rm if c >= 2))
    return dict(N=N, d=d, K=K, M=M, r=r, R=R, rakel_classes_mean=float(Rm.mean()),
                rakel_constant_labelsets=int((Rm < 2).sum()),
                flops_prakel=int(flops_p), flops_rakel=flops_r, flop_ratio_products=flops_p / flops_r,
                t_svd=t_svd, t_products_prakel=t_p, model_prakel=model_p, model_rakel=model_r,
                model_ratio=model_p / model_r)


def memory_run(name, method):
    """In a fresh process: the peak RSS (MiB) of the process, its growth during one fit of `method`, and the fit's own
    peak of traced allocations (tracemalloc, numpy's arrays included; this fit is not timed)."""
    import tracemalloc
    X, Y = load_xy(name)
    f = method_fits(X, Y)[method]
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    tracemalloc.start()
    try:
        with threadpool_limits(1): f()
        traced = tracemalloc.get_traced_memory()[1] / 2**20
    finally: tracemalloc.stop()  # never left on, should the fit fail
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(dict(peak_rss_mib=after, fit_extra_mib=after - before, fit_traced_peak_mib=traced)))


def memory_only(out):
    "Fill the memory column of an existing bench.json (a run of its own: memory never shares a timed run)."
    res = json.loads(Path(out).read_text())
    for row in res["sets"]:
        row["memory"] = memory_column(row["data"])
        print(row["data"], {k_: round(v["fit_traced_peak_mib"], 1) for k_, v in row["memory"].items()})
    res["memory_load_average"] = os.getloadavg()
    Path(out).write_text(json.dumps(res, indent=1))


def memory_column(name):
    "Each method in its own subprocess (one thread), reporting its own peak RSS."
    out = {}
    for m in ("prakel", "prakel_gw", "rakel"):
        p = subprocess.run([sys.executable, __file__, "--memory", name, m], capture_output=True, text=True,
                           env={**os.environ, "OMP_NUM_THREADS": "1"}, timeout=600)
        out[m] = json.loads(p.stdout.strip().splitlines()[-1])
    return out


def compare_sets(reps, quick):
    "Part 4: measured ratios next to the operation-count model, and (full runs) the memory column."
    rows = []
    for name in SETS:
        X, Y = load_xy(name)
        t = time_methods(method_fits(X, Y), reps)
        m = op_model(X, Y, reps=3 if quick else 7)
        row = dict(data=name, **{k_: m[k_] for k_ in ("N", "d", "K", "M")}, **t,
                   ratio=t["prakel"] / t["rakel"], gw_extra=t["prakel_gw"] / t["prakel"] - 1, model=m,
                   model_error=m["model_ratio"] / (t["prakel"] / t["rakel"]) - 1,
                   unmodelled_us_per_iteration={
                       "prakel": 1e6 * (t["prakel"] - m["model_prakel"]) / m["M"],
                       "rakel": 1e6 * (t["rakel"] - m["model_rakel"]) / m["M"]})
        if not quick: row["memory"] = memory_column(name)
        rows.append(row)
        print(f"   {name:7s} N={row['N']:5d} d={row['d']:5d} K={row['K']:4d} M={row['M']:4d}  PRAkEL {t['prakel']:.3f} s"
              f"  GW {t['prakel_gw']:.3f} s  RAkEL {t['rakel']:.3f} s  PRAkEL/RAkEL {row['ratio']:.2f}"
              f" (model {m['model_ratio']:.2f}, products' flops {m['flop_ratio_products']:.2f})"
              f"  GW extra {100 * row['gw_extra']:+.0f} %")
        if "memory" in row:
            print("           peak RSS MiB:", {k_: round(v["peak_rss_mib"]) for k_, v in row["memory"].items()})
    return rows

def main(out, reps, quick=False):
    if quick:
        res = dict(load_average_start=os.getloadavg(), clock="min CPU seconds (process_time), one thread", reps=1,
                   host=platform.node())
        print("4) PRAkEL / RAkEL and GW on CAL500 and enron (quick: 1 rep after the warm-up)")
        res["sets"] = compare_sets(1, True)
        res["load_average_end"] = os.getloadavg()
        out = Path(out)
        out.write_text(json.dumps(res, indent=1))
        print("wrote", out)
        return
    ds = load("CAL500")
    X = StandardScaler().fit_transform(ds.X).astype(np.float64); Y = ds.Y_dense
    order = np.argsort(-Y.sum(0))          # most frequent labels first, so every subset has non-trivial labels
    base = CostRegressionClassifier(Ridge(alpha=10.0))
    res = dict(load_average_start=os.getloadavg(), data="CAL500", N=int(X.shape[0]), d=int(X.shape[1]), K=int(Y.shape[1]), k=3, loss="f1", reps=reps,
               clock="min CPU seconds (process_time) over reps, one thread", host=platform.node())
    print(f"CAL500: N={X.shape[0]}, d={X.shape[1]}, K={Y.shape[1]}; k=3, M=⌈10K/k⌉, F1 loss, single thread, {reps} reps\n")
    print("1) training time vs K (uniform weighting)")
    rows = []
    generic = lambda f, Y: None   # decompose_loss stub: every cost through the generic O(N·K·2^k) path
    for K in (22, 44, 87, 174):
        Yk = Y[:, order[:K]]
        t = best_of(lambda: PRAkEL(loss="f1", k=3, base_estimator=base, random_state=0).fit(X, Yk), reps)[0]
        tr = best_of(lambda: RAkEL(k=3, base_estimator=RidgeClassifier(alpha=10.0), random_state=0).fit(X, Yk), reps)[0]
        keep = pk.decompose_loss; pk.decompose_loss = generic
        try: tg = best_of(lambda: PRAkEL(loss="f1", k=3, base_estimator=base, random_state=0).fit(X, Yk), reps)[0]
        finally: pk.decompose_loss = keep
        rows.append(dict(K=K, prakel=t, prakel_generic_costs=tg, rakel=tr))
        print(f"   K={K:4d}  PRAkEL {t:6.3f} s  (generic cost path {tg:6.3f} s)  RAkEL {tr:6.3f} s")
    Ks = np.array([r["K"] for r in rows], float)
    slope = {c: float(np.polyfit(np.log(Ks), np.log([r[c] for r in rows]), 1)[0]) for c in ("prakel", "prakel_generic_costs", "rakel")}
    print("   log-log slope of time vs K (1 = linear):", {c: round(s, 2) for c, s in slope.items()}, "\n")
    res["scaling"], res["slope"] = rows, slope

    K = 87; Yk = Y[:, order[:K]]
    print(f"2) methods with the same linear least-squares base learner, K={K}")
    fits = {
        "PRAkEL": lambda: PRAkEL(loss="f1", k=3, base_estimator=base, random_state=0).fit(X, Yk),
        "PRAkEL (sklearn Ridge per sub-problem)": lambda: PRAkEL(loss="f1", k=3, base_estimator=base, random_state=0, shared_solver=False).fit(X, Yk),
        "PRAkEL-GW": lambda: PRAkEL(loss="f1", k=3, weighting="greedy", base_estimator=base, random_state=0).fit(X, Yk),
        "PRAkEL-GW (sklearn Ridge per sub-problem)": lambda: PRAkEL(loss="f1", k=3, weighting="greedy", base_estimator=base, random_state=0, shared_solver=False).fit(X, Yk),
        "PRAkEL-SW": lambda: PRAkEL(loss="f1", k=3, weighting="simple", base_estimator=base, random_state=0).fit(X, Yk),
        "PRAkEL-OS (one-sided)": lambda: PRAkEL(loss="f1", k=3, base_estimator=CostRegressionClassifier(Ridge(alpha=10.0), one_sided=True), random_state=0).fit(X, Yk),
        "PRAkEL_t (n_jobs=1)": lambda: PRAkEL(loss="f1", k=3, reference="true", base_estimator=base, random_state=0).fit(X, Yk),
        "RAkEL": lambda: RAkEL(k=3, base_estimator=RidgeClassifier(alpha=10.0), random_state=0).fit(X, Yk),
        "RAkEL (sklearn RidgeClassifier per sub-problem)": lambda: RAkEL(k=3, base_estimator=RidgeClassifier(alpha=10.0), random_state=0, shared_solver=False).fit(X, Yk),
        "EPCC (5 chains, LogisticRegression)": lambda: EPCC(n_chains=5, random_state=0).fit(X, Yk),
    }
    try:
        from skmultilearn.ensemble import RakelO
        M = int(np.ceil(10 * K / 3))
        fits["RakelO (skmultilearn-ng, RidgeClassifier)"] = lambda: RakelO(
            base_classifier=RidgeClassifier(alpha=10.0), base_classifier_require_dense=[True, True],
            labelset_size=3, model_count=M).fit(X, Yk)
    except Exception as e:  # the peer is optional
        print("   (skmultilearn-ng RakelO unavailable:", e, ")")
    T = {}
    for name, f in fits.items():
        T[name] = best_of(f, reps)[0]; print(f"   {name:50s} {T[name]:7.3f} s")
    # workers only pay off when a sub-problem is not tiny: PRAkEL_t with a scikit-learn ridge fitted per sub-problem on
    # enron (d=1001, ~70 ms each; through the shared SVD sub-problems take ~0.1 ms and stay in-process, whatever n_jobs)
    de = load("enron"); Xe = StandardScaler().fit_transform(de.X.toarray() if hasattr(de.X, "toarray") else de.X); Ye = de.Y_dense
    pt = lambda j: PRAkEL(loss="f1", k=3, n_iterations=60, reference="true", base_estimator=base, random_state=0,
                          shared_solver=False, n_jobs=j).fit(Xe, Ye)
    pt(2)   # start the workers once (not timed)
    T["PRAkEL_t (enron, sklearn Ridge, M=60, n_jobs=2), wall"] = best_of(lambda: pt(2), 2)[1]
    T["PRAkEL_t (enron, sklearn Ridge, M=60, n_jobs=1), wall"] = best_of(lambda: pt(1), 2)[1]
    res["times_K87"] = T
    ratios = {
        "PRAkEL / RAkEL": T["PRAkEL"] / T["RAkEL"],
        "PRAkEL / RAkEL, both refitting sklearn ridge": T["PRAkEL (sklearn Ridge per sub-problem)"] / T["RAkEL (sklearn RidgeClassifier per sub-problem)"],
        "GW extra": T["PRAkEL-GW"] / T["PRAkEL"] - 1,
        "GW extra, sklearn ridge": T["PRAkEL-GW (sklearn Ridge per sub-problem)"] / T["PRAkEL (sklearn Ridge per sub-problem)"] - 1,
        "SW extra": T["PRAkEL-SW"] / T["PRAkEL"] - 1,
        "one-sided / least squares": T["PRAkEL-OS (one-sided)"] / T["PRAkEL"],
        "PRAkEL / EPCC": T["PRAkEL"] / T["EPCC (5 chains, LogisticRegression)"],
        "PRAkEL_t speed-up with 2 workers (wall, enron, sklearn ridge)": T["PRAkEL_t (enron, sklearn Ridge, M=60, n_jobs=1), wall"] / T["PRAkEL_t (enron, sklearn Ridge, M=60, n_jobs=2), wall"],
    }
    if "RakelO (skmultilearn-ng, RidgeClassifier)" in T:
        ratios["PRAkEL / RakelO (skmultilearn-ng)"] = T["PRAkEL"] / T["RakelO (skmultilearn-ng, RidgeClassifier)"]
        ratios["RAkEL / RakelO (skmultilearn-ng)"] = T["RAkEL"] / T["RakelO (skmultilearn-ng, RidgeClassifier)"]
    res["ratios"] = ratios

    print("\n3) larger data, every label, the shared SVD for both (1 rep; CAL500 above is overhead-bound at N=502)")
    big = []
    for name in ("yeast", "enron", "corel5k"):
        d_ = load(name); Xb = d_.X.toarray() if hasattr(d_.X, "toarray") else np.asarray(d_.X)
        Xb = StandardScaler().fit_transform(Xb); Yb = d_.Y_dense; N_, D_ = Xb.shape
        tb = {lab: best_of(lambda w=w: PRAkEL(loss="f1", k=3, weighting=w, base_estimator=base, random_state=0).fit(Xb, Yb), 1)[0]
              for lab, w in (("prakel", "uniform"), ("prakel_gw", "greedy"))}
        tb["rakel"] = best_of(lambda: RAkEL(k=3, base_estimator=RidgeClassifier(alpha=10.0), random_state=0).fit(Xb, Yb), 1)[0]
        # flop model: RAkEL's fit is Uᵀ T (N·r·2^k) and V(·) (d·r·2^k); PRAkEL adds the in-sample prediction X W (N·d·2^k)
        r_ = min(N_, D_); floor = 1 + N_ * D_ / (r_ * (N_ + D_))
        big.append(dict(data=name, N=N_, d=D_, K=int(Yb.shape[1]), **tb, ratio=tb["prakel"] / tb["rakel"],
                        gw_extra=tb["prakel_gw"] / tb["prakel"] - 1, flop_ratio=floor))
        b = big[-1]
        print(f"   {name:8s} N={N_:5d} d={D_:4d} K={b['K']:3d}  PRAkEL {b['prakel']:7.3f} s  GW {b['prakel_gw']:7.3f} s  RAkEL {b['rakel']:7.3f} s"
              f"  PRAkEL/RAkEL {b['ratio']:.2f} (flop model {floor:.2f})  GW extra {100 * b['gw_extra']:+.0f} %")
    res["larger"] = big
    print("\n4) PRAkEL / RAkEL and GW on CAL500 and enron, every label, next to the operation-count model")
    res["sets"] = compare_sets(reps, False)
    res["targets"] = {"PRAkEL / RAkEL": [1.5, ratios["PRAkEL / RAkEL"] <= 1.5],
                      "PRAkEL / RAkEL, sklearn ridge": [1.5, ratios["PRAkEL / RAkEL, both refitting sklearn ridge"] <= 1.5],
                      "GW extra": [0.2, ratios["GW extra"] <= 0.2],
                      "GW extra, sklearn ridge": [0.2, ratios["GW extra, sklearn ridge"] <= 0.2],
                      "slope": [1.0, slope["prakel"] <= 1.2]}
    res["targets_sets"] = {s_["data"]: {"PRAkEL / RAkEL": [1.5, s_["ratio"] <= 1.5], "GW extra": [0.2, s_["gw_extra"] <= 0.2]}
                           for s_ in res["sets"]}
    print("\n4) ratios on CAL500, K=87 (ours / peer)")
    for k_, v in ratios.items(): print(f"   {k_:45s} {v:6.3f}")
    print("   targets:", {k_: ("OK" if ok else "MISSED") for k_, (_, ok) in res["targets"].items()})
    res["load_average_end"] = os.getloadavg()
    print("load average at start / end:", res["load_average_start"], res["load_average_end"], "(2 CPUs; the worker speed-up needs an idle second core)")
    out = Path(out); out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=1)); print("wrote", out)

if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="part 4 only, 1 rep, no memory column (< 1 min)")
    ap.add_argument("--memory", nargs=2, metavar=("DATA", "METHOD"), help=argparse.SUPPRESS)   # internal
    ap.add_argument("--memory-only", action="store_true", help="refill the memory column of --out only")
    a = ap.parse_args()
    res_dir = Path(__file__).resolve().parents[1] / "nbs" / "results" / "prakel"
    out = a.out or str(res_dir / ("bench_quick.json" if a.quick else "bench.json"))
    if a.memory: memory_run(*a.memory)
    elif a.memory_only: memory_only(out)
    else:
        with threadpool_limits(1): main(out, a.reps, a.quick)
