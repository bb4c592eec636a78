"""PRAkEL timing: training time vs K on growing label subsets of CAL500, and PRAkEL vs RAkEL vs EPCC (ratios, one run).

Targets (issue 5): PRAkEL ≤ 1.5× RAkEL training time with uniform weighting; GW's extra cost ≤ 20%.
Peers: our RAkEL and scikit-multilearn-ng's RakelO with the same ridge base learner, EPCC (logistic regression).
Run: OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_prakel.py
"""
import os, time, warnings
os.environ.setdefault("OMP_NUM_THREADS", "1")
import numpy as np
from threadpoolctl import threadpool_limits
from sklearn.linear_model import Ridge, RidgeClassifier, LogisticRegression
from sklearn.preprocessing import StandardScaler
from mlxplain.data import load
from mlxplain.prakel import PRAkEL, RAkEL, EPCC, CostRegressionClassifier

warnings.filterwarnings("ignore")

def best_of(f, reps=3):
    "Minimum wall time of `reps` calls (less noise on a shared machine)."
    ts = []
    for _ in range(reps):
        t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
    return min(ts)

def main():
    ds = load("CAL500")
    X = StandardScaler().fit_transform(ds.X).astype(np.float64); Y = ds.Y_dense
    order = np.argsort(-Y.sum(0))          # most frequent labels first, so every subset has non-trivial labels
    base = CostRegressionClassifier(Ridge(alpha=10.0))
    print(f"CAL500: N={X.shape[0]}, d={X.shape[1]}, K={Y.shape[1]}; k=3, M=⌈10K/k⌉, F1 loss, single thread\n")
    print("1) training time vs K (PRAkEL, uniform weighting)")
    rows = []
    for K in (22, 44, 87, 174):
        Yk = Y[:, order[:K]]
        t = best_of(lambda: PRAkEL(loss="f1", k=3, base_estimator=base, random_state=0).fit(X, Yk), reps=2)
        rows.append((K, t)); print(f"   K={K:4d}  {t:7.2f} s   {1000 * t / K:6.1f} ms per label")
    Ks, ts = np.array(rows).T
    slope = np.polyfit(np.log(Ks), np.log(ts), 1)[0]
    print(f"   log-log slope of time vs K: {slope:.2f} (1 = linear)\n")

    K = 87; Yk = Y[:, order[:K]]
    print(f"2) methods with the same linear least-squares base learner, K={K}")
    fits = {
        "PRAkEL (uniform)": lambda: PRAkEL(loss="f1", k=3, base_estimator=base, random_state=0).fit(X, Yk),
        "PRAkEL (uniform, sklearn Ridge per sub-problem)": lambda: PRAkEL(loss="f1", k=3, base_estimator=base, random_state=0, shared_solver=False).fit(X, Yk),
        "PRAkEL-GW": lambda: PRAkEL(loss="f1", k=3, weighting="greedy", base_estimator=base, random_state=0).fit(X, Yk),
        "PRAkEL-GW (sklearn Ridge per sub-problem)": lambda: PRAkEL(loss="f1", k=3, weighting="greedy", base_estimator=base, random_state=0, shared_solver=False).fit(X, Yk),
        "PRAkEL-SW": lambda: PRAkEL(loss="f1", k=3, weighting="simple", base_estimator=base, random_state=0).fit(X, Yk),
        "PRAkEL_t (n_jobs=1)": lambda: PRAkEL(loss="f1", k=3, reference="true", base_estimator=base, random_state=0).fit(X, Yk),
        "PRAkEL_t (n_jobs=2)": lambda: PRAkEL(loss="f1", k=3, reference="true", base_estimator=base, random_state=0, n_jobs=2).fit(X, Yk),
        "RAkEL (ours, RidgeClassifier)": lambda: RAkEL(k=3, base_estimator=RidgeClassifier(alpha=10.0), random_state=0).fit(X, Yk),
        "RAkEL (ours, sklearn RidgeClassifier per sub-problem)": lambda: RAkEL(k=3, base_estimator=RidgeClassifier(alpha=10.0), random_state=0, shared_solver=False).fit(X, Yk),
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
        T[name] = best_of(f, reps=2); print(f"   {name:50s} {T[name]:7.2f} s")
    r = T["PRAkEL (uniform)"] / T["RAkEL (ours, RidgeClassifier)"]
    r2 = T["PRAkEL (uniform, sklearn Ridge per sub-problem)"] / T["RAkEL (ours, sklearn RidgeClassifier per sub-problem)"]
    print("\n3) ratios (ours / peer)")
    print(f"   PRAkEL / RAkEL (ours)            {r:5.2f}   target ≤ 1.5  {'OK' if r <= 1.5 else 'MISSED'}  (shared SVD)")
    print(f"   PRAkEL / RAkEL, both refitting   {r2:5.2f}   target ≤ 1.5  {'OK' if r2 <= 1.5 else 'MISSED'}  (sklearn Ridge / RidgeClassifier per sub-problem)")
    if "RakelO (skmultilearn-ng, RidgeClassifier)" in T:
        print(f"   PRAkEL / RakelO (skmultilearn-ng) {T['PRAkEL (uniform)'] / T['RakelO (skmultilearn-ng, RidgeClassifier)']:5.2f}")
        print(f"   RAkEL (ours) / RakelO            {T['RAkEL (ours, RidgeClassifier)'] / T['RakelO (skmultilearn-ng, RidgeClassifier)']:5.2f}")
    g = T["PRAkEL-GW"] / T["PRAkEL (uniform)"] - 1
    g2 = T["PRAkEL-GW (sklearn Ridge per sub-problem)"] / T["PRAkEL (uniform, sklearn Ridge per sub-problem)"] - 1
    print(f"   GW extra cost (shared SVD)       {100 * g:5.1f}%  target ≤ 20%  {'OK' if g <= 0.2 else 'MISSED'}")
    print(f"   GW extra cost (sklearn Ridge)    {100 * g2:5.1f}%  target ≤ 20%  {'OK' if g2 <= 0.2 else 'MISSED'}")
    print(f"   SW extra cost                    {100 * (T['PRAkEL-SW'] / T['PRAkEL (uniform)'] - 1):5.1f}%")
    print(f"   PRAkEL / EPCC                    {T['PRAkEL (uniform)'] / T['EPCC (5 chains, LogisticRegression)']:5.2f}")
    print(f"   PRAkEL_t parallel speed-up (2)   {T['PRAkEL_t (n_jobs=1)'] / T['PRAkEL_t (n_jobs=2)']:5.2f}")

if __name__ == "__main__":
    with threadpool_limits(1): main()
