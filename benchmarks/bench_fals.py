"""Benchmark FALS against per-label random forests, LIFT and Captum-based scoring, in one run on the same data.

Usage: python benchmarks/bench_fals.py [--data bibtex] [--rf-labels N] [--captum-samples 500] [--trees 100] [--device cpu] [--out FILE]

`--out FILE` also writes the report to FILE, headed by the command line, the UTC time and the machine's load
average (the committed nbs/results/fals/bench_bibtex.txt is written this way; see its first line).

Data: the training split of `--data` from $MLXPLAIN_DATA (default bibtex: 4880 x 1836 sparse, 159 labels); with
`--data synthetic` (or when the staged data are missing) a sparse bibtex-shaped set from make_label_specific.
Each method runs in its own child process (fork) so that its peak resident memory (ru_maxrss) is its own; the
Python-heap peak (tracemalloc) is reported too. Times are wall seconds, single-threaded, after torch's start-up.
`--device cuda` fits FALS (both FALS rows) on the GPU; RF, LIFT and Captum stay on one CPU thread, so the ratios then
compare FALS on the GPU with the CPU peers (the paper's Table 4 has such a FALS_GPU column).
`--rf-labels N` times RF on the first N labels only and scales the time by C/N (printed as "extrapolated").
Captum scoring (Saliency, one backward pass per label) is compared with the closed form on the same
`--captum-samples` instances. Prints `ours / peer` ratios, the multiply-add counts of FALS's cost model (`tlp_costs`:
one epoch against exact scoring) and, untimed, how far `score_samples=0.1` lands from the exact scores of the same network.
"""
import argparse, datetime, multiprocessing as mp, os, platform, resource, shlex, sys, time, tracemalloc
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
import numpy as np
import torch

torch.set_num_threads(1)


def _load(name):
    from mlxplain.data import load_split, make_label_specific
    home = Path(os.environ.get("MLXPLAIN_DATA", "../shared/data"))
    if name != "synthetic" and (home / "multilabel").exists():
        tr, _ = load_split(name, data_home=home)
        return tr.X, tr.Y_dense, f"{name} train split"
    ds, _ = make_label_specific(n_samples=4880, n_features=1836, n_labels=159, n_relevant=10, sparse=True, random_state=0)
    return ds.X, ds.Y_dense, "synthetic sparse (bibtex-shaped) make_label_specific"


def _child(task, args, q):
    import warnings; warnings.simplefilter("ignore")
    from mlxplain.fals import FALS, RFSelector, LIFT, tlp_scores, tlp_costs
    X, Y, _ = _load(args.data)
    FALS(epochs=1, random_state=0, device=args.device if task.startswith("fals") else "cpu").fit(X[:64], Y[:64])   # torch (and the device) start-up, not timed
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    tracemalloc.start(); t0 = time.perf_counter(); info = {}
    if task in ("fals", "fals_sub"):   # exact Eq. 12, or averaged over a 10% random subset of the instances
        f = FALS(k=0.1, random_state=0, score_samples=0.1 if task == "fals_sub" else None, device=args.device).fit(X, Y)
        info = {"train_s": f.fit_time_["train"], "score_s": f.fit_time_["score"], "epoch_s": f.fit_time_["train"] / f.epochs}
        extra = lambda: _fals_extra(task, f, X)   # not timed: cost model, and the subsample's error against exact scores
    elif task == "rf":
        n = args.rf_labels or Y.shape[1]
        RFSelector(k=0.1, n_estimators=args.trees, random_state=0).fit(X, Y[:, :n])
        info = {"labels_timed": n}
    elif task == "lift":
        LIFT(ratio=0.1, random_state=0).fit_features(X, Y)
    elif task == "captum":
        from captum.attr import Saliency
        f = FALS(k=0.1, random_state=0).fit(X, Y)
        idx = np.random.default_rng(0).choice(X.shape[0], min(args.captum_samples, X.shape[0]), replace=False)
        Xs = X[idx]; xs = torch.from_numpy(Xs.toarray() if hasattr(Xs, "toarray") else Xs).float()
        prob = torch.nn.Sequential(*f.model_, torch.nn.Sigmoid())
        tracemalloc.reset_peak(); t0 = time.perf_counter()
        S = np.stack([(Saliency(prob).attribute(xs, target=c, abs=False) ** 2).mean(0).numpy() for c in range(Y.shape[1])])
        t_captum = time.perf_counter() - t0
        t1 = time.perf_counter(); S2 = tlp_scores(f.model_, Xs); t_closed = time.perf_counter() - t1
        info = {"captum_s": t_captum, "closed_s": t_closed, "max_rel_diff": float(np.abs(S - S2).max() / S2.max()), "n": len(idx)}
    secs = time.perf_counter() - t0
    py_peak = tracemalloc.get_traced_memory()[1] / 2**20; tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if task in ("fals", "fals_sub"): info.update(extra())
    q.put({"task": task, "seconds": secs, "rss_peak_mb": rss, "rss_over_start_mb": rss - base, "py_heap_peak_mb": py_peak, **info})


def _fals_extra(task, f, X):
    "Untimed facts about a fitted FALS: the multiply-add counts of the cost model (exact fit), or how far the subsampled scores are from exact ones."
    from mlxplain.fals import tlp_scores, tlp_costs
    if task == "fals": return {"costs": tlp_costs(f.model_, X, f.batch_size)}
    exact = tlp_scores(f.model_, X, device=next(f.model_.parameters()).device); k = f.k_   # same seed, same network: the scores differ only by the instances averaged
    top = lambda S: np.argsort(-S, axis=1, kind="stable")[:, :k]
    ov = np.array([len(np.intersect1d(a, b)) / k for a, b in zip(top(exact), top(f.scores_))])
    rel = np.abs(f.scores_ - exact).sum(1) / exact.sum(1)
    return {"overlap_mean": ov.mean(), "overlap_min": ov.min(), "overlap_p10": np.percentile(ov, 10), "l1_rel_median": np.median(rel), "k": k}


def _rounding(args, q):
    "Same seed and initial weights, three ways to train (10 epochs): how far apart are the selected features? Untimed."
    import warnings; warnings.simplefilter("ignore")
    from mlxplain.fals import make_tlp, tlp_scores, _train, _train_reference, _check_X, _check_Y, _resolve_hidden, _resolve_k
    X, Y, _ = _load(args.data); X = _check_X(X); Y = _check_Y(Y, X.shape[0]); (N, D), C = X.shape, Y.shape[1]
    H = _resolve_hidden(None, D, C, "fals"); k = _resolve_k(0.1, D)
    torch.manual_seed(0); state = make_tlp(D, H, C).state_dict()
    runs = {"replaced loop, CSR input": lambda m: _train_reference(m, X, Y, 10, 64, 1e-2, 0),
            "replaced loop, dense input": lambda m: _train_reference(m, X.toarray(), Y, 10, 64, 1e-2, 0),
            "current loop, CSR input": lambda m: _train(m, X, Y, 10, 64, 1e-2, 0.0, 0, torch.device("cpu"))}
    top = {}
    for name, fit in runs.items():
        m = make_tlp(D, H, C); m.load_state_dict(state); fit(m)
        top[name] = np.argsort(-tlp_scores(m, X), axis=1, kind="stable")[:, :k]
    ref = top["replaced loop, CSR input"]
    q.put({name: [len(np.intersect1d(a, b)) / k for a, b in zip(ref, t)] for name, t in top.items() if t is not ref} | {"k": k})


def run(task, args):
    ctx = mp.get_context("fork"); q = ctx.Queue()
    p = ctx.Process(target=_child, args=(task, args, q)); p.start(); r = q.get(); p.join()
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="bibtex"); ap.add_argument("--rf-labels", type=int, default=None)
    ap.add_argument("--trees", type=int, default=100); ap.add_argument("--captum-samples", type=int, default=500)
    ap.add_argument("--device", default="cpu", help="device of the FALS fits (cpu or cuda); the peers always run on one CPU thread")
    ap.add_argument("--skip", default="", help="comma-separated tasks to skip (rf, lift, captum)")
    ap.add_argument("--out", default=None, help="also write the report to this file")
    ap.add_argument("--rounding", action="store_true", help="instead of timing: train 10 epochs from one seed and init with the replaced loop "
                    "(CSR and dense input) and the current one, and compare the selected features (top-k overlap per label)")
    args = ap.parse_args()
    lines = []
    def print(*a):  # the report goes to stdout and, with --out, to the file
        s = " ".join(map(str, a)); lines.append(s); sys.stdout.write(s + "\n"); sys.stdout.flush()
    print(f"command: python {' '.join(shlex.quote(a) for a in [os.path.relpath(__file__)] + sys.argv[1:])}")
    print(f"run {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC} on {platform.machine()}, {os.cpu_count()} CPUs, "
          f"load average at start {os.getloadavg()[0]:.2f}")
    X, Y, what = _load(args.data)
    nnz = f"{X.nnz / X.shape[0]:.1f} non-zeros per row" if hasattr(X, "toarray") else "dense"
    print(f"data: {what}: N={X.shape[0]}, D={X.shape[1]}, C={Y.shape[1]}, {'CSR' if hasattr(X, 'toarray') else 'dense'} ({nnz}); "
          f"torch {torch.__version__}, 1 thread, FALS on device {args.device}")
    if args.rounding:
        ctx = mp.get_context("fork"); q = ctx.Queue(); p = ctx.Process(target=_rounding, args=(args, q)); p.start(); r = q.get(); p.join()
        k = r.pop("k")
        for name, ov in r.items():
            ov = np.array(ov)
            print(f"rounding: {name} against the replaced loop on CSR input (same seed, same initial weights, 10 epochs): top-{k} overlap per label "
                  f"mean {ov.mean():.3f}, 10th percentile {np.percentile(ov, 10):.3f}, min {ov.min():.3f}, identical sets {int((ov == 1).sum())} of {len(ov)} labels")
        if args.out: Path(args.out).parent.mkdir(parents=True, exist_ok=True); Path(args.out).write_text("\n".join(lines) + "\n")
        return
    skip = set(filter(None, args.skip.split(",")))
    res = {t: run(t, args) for t in ("fals", "fals_sub", "rf", "lift", "captum") if t not in skip}
    f, fs = res["fals"], res["fals_sub"]
    print(f"\nFALS fit (train {f['train_s']:.2f} s + scores {f['score_s']:.2f} s) = {f['seconds']:.2f} s; "
          f"one epoch {f['epoch_s']:.2f} s; scoring / epoch = {f['score_s'] / f['epoch_s']:.1f} (target <= 1: {'met' if f['score_s'] <= f['epoch_s'] else 'NOT met'}); "
          f"with score_samples=0.1: scores {fs['score_s']:.2f} s, scoring / epoch = {fs['score_s'] / fs['epoch_s']:.1f}")
    c = f["costs"]
    print(f"cost model (multiply-adds; tlp_costs): one epoch {c['epoch']:.3g} + {c['adam_steps']} Adam steps over {c['weights']:.3g} weights; "
          f"exact scoring, Gram route {c['gram']:.3g} (forward {c['forward']:.3g}, rows of Q {c['gram_stage1']:.3g}, diag(W1 R W1^T) {c['gram_stage2']:.3g}; "
          f"live hidden units {c['live_units']} of {c['hidden']}); full HxH Gram {c['gram_full']:.3g}; direct {c['direct']:.3g}; "
          f"Gram / epoch = {c['gram'] / c['epoch']:.1f}")
    print(f"score_samples=0.1 against exact scores of the same network: top-{fs['k']} overlap per label mean {fs['overlap_mean']:.3f}, "
          f"10th percentile {fs['overlap_p10']:.3f}, min {fs['overlap_min']:.3f}; median relative L1 error per label {fs['l1_rel_median']:.3f}")
    for t, r in res.items():
        print(f"  {t:7s} {r['seconds']:9.2f} s   peak RSS {r['rss_peak_mb']:7.0f} MB (+{r['rss_over_start_mb']:.0f} over start)   "
              f"python-heap peak {r['py_heap_peak_mb']:7.1f} MB")
    if "rf" in res:
        r = res["rf"]; scale = Y.shape[1] / r["labels_timed"]; t_rf = r["seconds"] * scale
        note = f" (extrapolated from {r['labels_timed']} of {Y.shape[1]} labels)" if scale != 1 else ""
        print(f"\nper-label RF ({args.trees} trees) {t_rf:.1f} s{note}:  RF / FALS = {t_rf / f['seconds']:.1f}x  (target >= 20x: {'met' if t_rf / f['seconds'] >= 20 else 'NOT met'}); "
              f"RF / FALS(score_samples=0.1) = {t_rf / fs['seconds']:.1f}x")
    if "lift" in res:
        print(f"LIFT clustering {res['lift']['seconds']:.1f} s:  LIFT / FALS = {res['lift']['seconds'] / f['seconds']:.1f}x  (target >= 50x: {'met' if res['lift']['seconds'] / f['seconds'] >= 50 else 'NOT met'}); "
              f"LIFT / FALS(score_samples=0.1) = {res['lift']['seconds'] / fs['seconds']:.1f}x")
    if "captum" in res:
        c = res["captum"]
        print(f"scoring {c['n']} instances: Captum Saliency, C={Y.shape[1]} backward passes {c['captum_s']:.2f} s vs closed form "
              f"{c['closed_s']:.3f} s:  Captum / closed = {c['captum_s'] / c['closed_s']:.1f}x  (max rel. diff {c['max_rel_diff']:.1e})")
    print(f"load average at end {os.getloadavg()[0]:.2f}")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True); Path(args.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
