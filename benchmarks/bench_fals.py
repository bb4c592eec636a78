"""Benchmark FALS against per-label random forests, LIFT and Captum-based scoring, in one run on the same data.

Usage: python benchmarks/bench_fals.py [--data bibtex | synthetic | NAME] [--quick] [--rf-labels N] [--lift-labels N]
                                       [--captum-samples 500]
                                       [--trees 100] [--device cpu] [--skip rf,lift] [--out FILE]
       python benchmarks/bench_fals.py --busy [--repeats 5]
       python benchmarks/bench_fals.py --rounding [--data bibtex]
       python benchmarks/bench_fals.py --profile [--data bibtex] [--quick]
       python benchmarks/bench_fals.py --roofline [--quick] [--roofline-data bibtex,delicious] [--roofline-csv FILE]
                                       [--roofline-batches 64,128,256,512,1024]
       python benchmarks/bench_fals.py --scale [--scale-labels 5] [--scale-repeats 2] [--scale-csv FILE]
       python benchmarks/bench_fals.py --hcap [--hcap-seeds 5] [--hcap-csv FILE]

`--out FILE` also writes the report to FILE, headed by the command line, the UTC time and the machine's load
average (the committed nbs/results/fals/bench_bibtex.txt is written this way; see its first line).

Data: the training split of `--data` from $MLXPLAIN_DATA (default bibtex: 4880 x 1836 sparse, 159 labels); with
`--data synthetic` (or when the staged data are missing) a sparse bibtex-shaped set from make_label_specific;
`--quick` a small sparse synthetic set (1000 x 200, 10 labels; 20 trees, 100 Captum instances) that checks the
script in seconds.

Every method runs twice, each time in a fresh Python process of its own (this script with --child): a *time* run
with nothing but `perf_counter` around the work (after a warm-up fit), and a *memory* run that reports the process's
peak resident set size (`ru_maxrss`), in total and over the peak before the work began. Times are wall seconds,
single-threaded (FALS(n_threads=1)), after torch's start-up. `--device cuda` fits FALS on the GPU; RF, LIFT and Captum
stay on one CPU thread (the paper's Table 4 has such a FALS_GPU column). `--rf-labels N` times RF on the first N
labels only and scales the time by C/N (printed as "extrapolated"); `--lift-labels N` does the same for LIFT (both
work label by label, so their time is close to linear in the labels). Captum scoring (Saliency, one backward pass per
label) is compared with the closed form on the same `--captum-samples` instances. Prints `ours / peer` time and
memory ratios, the multiply-add counts of FALS's cost model (`tlp_costs`: one epoch against exact scoring) and,
untimed, how far `score_subsample=0.1` lands from the exact scores of the same network.

`--roofline`: for each data set (bibtex and delicious; `--quick`: the small synthetic set), on one thread and on all
cores, the machine's own float32 matrix-product rate (a 2048 x 2048 product, best of 5) and streaming bandwidth (a
256 MB tensor copy, bytes read + written, best of 5) measured in this process right before the fit; FALS's training
epoch and scoring counted by `tlp_cost_model` (multiply-adds and bytes moved: weights, gradients, Adam state,
activations); the bound max(2 x multiply-adds / rate, bytes / bandwidth); and the measured epoch and scoring times
as multiples of their bound. The scores are checked against the reference paths: the Gram route against the direct
route (per-instance Jacobians, squared) on the same 200 instances of the trained network; one epoch of `train_tlp`
against the plain loop `_train_reference` from the same initial weights; all cores against one thread. Times on a
loaded machine are longer than the bound says (the load average is printed and kept in the CSV).

`--roofline-batches B1,B2,...` (with `--roofline`): the measured cause of an epoch's gap to its bound. On one thread, the
same network trains for two epochs at each mini-batch size; each epoch is divided by the cost model's bound at that
size, and the epoch's three B x H x C products are timed alone at that B. Written beside the roofline CSV as
`<name>_batch.csv`.

`--scale`: FALS's fit time against N, D and C on `make_xc_label_specific` data, one axis at a time from N=4000, D=2000,
C=200 (about 1 % of D non-zero a row, five planted features a label), one thread, beside per-label RF (100 trees) and
LASSO. These two are timed on their first `--scale-labels` labels and scaled to C. Each fit runs `--scale-repeats`
times and the fastest is kept. Process CPU seconds (`cpu_s`, what the chapter plots: a loaded machine lengthens wall
time far more than CPU time) and wall seconds are both kept, with each log-log slope. `--hcap`: planted recall of
FALS(k=5) with the hidden layer capped at 16 ... 512 units or left at its default, on an XC-shaped set (N 6000, D 3000,
C 500), `--hcap-seeds` seeds.

`--profile`: one FALS fit (one thread) under torch's profiler, untimed: the operators by their own CPU time, and
Python's cProfile of a second fit by internal time (where the Python body of training and scoring goes).

`--busy`: a 3000 x 60 x 6 FALS fit idle and next to one CPU-bound competing process (`python -c "while True: pass"`,
paused with SIGSTOP for the idle fit of each pair and killed at the end), `--repeats` interleaved pairs, for
n_threads=None (the default rule: 1 thread here) and n_threads=2; prints medians and the median busy / idle ratio.
"""
import argparse, datetime, json, os, platform, resource, shlex, statistics, subprocess, sys, time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing_guard import clock, untraced as _untraced  # noqa: E402  (every timed call goes through clock)

os.environ.setdefault("OMP_NUM_THREADS", "1")
import numpy as np
import torch

torch.set_num_threads(1)
TASKS = ("fals", "fals_sub", "rf", "lift", "captum")


def _load(args):
    from mlxplain.data import load_split, make_label_specific
    if args.quick:
        ds, _ = make_label_specific(n_samples=1000, n_features=200, n_labels=10, n_relevant=5, sparse=True,
                                    random_state=0)
        return ds.X, ds.Y_dense, "quick synthetic sparse make_label_specific"
    home = Path(os.environ.get("MLXPLAIN_DATA", "../shared/data"))
    if args.data != "synthetic" and (home / "multilabel").exists():
        tr, _ = load_split(args.data, data_home=home)
        return tr.X, tr.Y_dense, f"{args.data} train split"
    ds, _ = make_label_specific(n_samples=4880, n_features=1836, n_labels=159, n_relevant=10, sparse=True,
                                random_state=0)
    return ds.X, ds.Y_dense, "synthetic sparse (bibtex-shaped) make_label_specific"


def _maxrss_mb():
    "Peak resident set size of this process so far, MB (ru_maxrss is in KiB on Linux)."
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _work(task, args, X, Y):
    "Run one method once; returns (info, extra) where extra() computes untimed facts afterwards."
    from mlxplain.fals import FALS, RFSelector, LIFT, tlp_scores
    extra = dict
    if task in ("fals", "fals_sub"):   # exact Eq. 12, or averaged over a 10% random subset of the instances
        f = FALS(k=0.1, random_state=0, n_threads=1, score_subsample=0.1 if task == "fals_sub" else None,
                 device=args.device).fit(X, Y)
        info = {"train_s": f.fit_time_["train"], "score_s": f.fit_time_["score"], "epoch_s": f.fit_time_["train"] / f.epochs}
        extra = lambda: _fals_extra(task, f, X)
    elif task == "rf":
        n = args.rf_labels or Y.shape[1]
        RFSelector(k=0.1, n_estimators=args.trees, random_state=0).fit(X, Y[:, :n])
        info = {"labels_timed": n}
    elif task == "lift":
        n = args.lift_labels or Y.shape[1]
        LIFT(ratio=0.1, random_state=0).fit_features(X, Y[:, :n])
        info = {"labels_timed": n}
    elif task == "captum":
        from captum.attr import Saliency
        f = FALS(k=0.1, random_state=0, n_threads=1).fit(X, Y)
        idx = np.random.default_rng(0).choice(X.shape[0], min(args.captum_samples, X.shape[0]), replace=False)
        Xs = X[idx]
        xs = torch.from_numpy(Xs.toarray() if hasattr(Xs, "toarray") else Xs).float().requires_grad_()
        prob = torch.nn.Sequential(*f.model_, torch.nn.Sigmoid())
        _, t_captum, S = clock(lambda: np.stack([(Saliency(prob).attribute(xs, target=c, abs=False) ** 2).mean(0)
                                                 .detach().numpy() for c in range(Y.shape[1])]))
        _, t_closed, S2 = clock(lambda: tlp_scores(f.model_, Xs))
        info = {"captum_s": t_captum, "closed_s": t_closed, "max_rel_diff": float(np.abs(S - S2).max() / S2.max()),
                "n": len(idx)}
    return info, extra


def child(args):
    "One method in this fresh process: --mode time (perf_counter only) or memory (ru_maxrss); prints one JSON line."
    import warnings
    warnings.simplefilter("ignore")
    from mlxplain.fals import FALS
    X, Y, _ = _load(args)
    dev = args.device if args.child.startswith("fals") else "cpu"
    FALS(epochs=1, random_state=0, n_threads=1, device=dev).fit(X[:64], Y[:64])   # torch (and device) start-up
    start = _maxrss_mb()
    _, secs, (info, extra) = clock(lambda: _work(args.child, args, X, Y))
    if args.mode == "memory":
        peak = _maxrss_mb()
        out = {"rss_peak_mb": peak, "rss_over_start_mb": peak - start}
    else:
        out = {"seconds": secs, **info, **extra()}
    print(json.dumps({"task": args.child, **out}, default=float))


def run(task, args, mode):
    "Run `task` in a fresh interpreter (this script with --child) and return its JSON result."
    cmd = [sys.executable, os.path.abspath(__file__), "--child", task, "--mode", mode, "--data", args.data,
           "--trees", str(args.trees), "--captum-samples", str(args.captum_samples), "--device", args.device]
    if args.rf_labels: cmd += ["--rf-labels", str(args.rf_labels)]
    if args.lift_labels: cmd += ["--lift-labels", str(args.lift_labels)]
    if args.quick: cmd += ["--quick"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode: raise RuntimeError(f"{task} ({mode}) failed:\n{r.stderr[-2000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def _fals_extra(task, f, X):
    "Untimed facts about a fitted FALS: the cost model's multiply-adds (exact fit), or the subsample's error."
    from mlxplain.fals import tlp_scores, tlp_costs
    if task == "fals": return {"costs": tlp_costs(f.model_, X, f.batch_size)}
    exact = tlp_scores(f.model_, X, device=next(f.model_.parameters()).device)   # same network, all instances
    k = f.k_
    top = lambda S: np.argsort(-S, axis=1, kind="stable")[:, :k]
    ov = np.array([len(np.intersect1d(a, b)) / k for a, b in zip(top(exact), top(f.scores_))])
    rel = np.abs(f.scores_ - exact).sum(1) / exact.sum(1)
    return {"overlap_mean": ov.mean(), "overlap_min": ov.min(), "overlap_p10": np.percentile(ov, 10),
            "l1_rel_median": np.median(rel), "k": k}


def rounding(args):
    "Same seed and initial weights, three ways to train (10 epochs): how far apart are the selected features? Untimed."
    import warnings
    warnings.simplefilter("ignore")
    from mlxplain.checks import check_k
    from mlxplain.fals import make_tlp, tlp_scores, train_tlp, _train_reference, _check_X, _check_Y, _resolve_hidden
    X, Y, _ = _load(args)
    X = _check_X(X)
    Y = _check_Y(Y, X.shape[0])
    (N, D), C = X.shape, Y.shape[1]
    H, k = _resolve_hidden(None, D, C, "fals"), check_k(0.1, D)
    torch.manual_seed(0)
    state = make_tlp(D, H, C).state_dict()
    runs = {"replaced loop, CSR input": lambda m: _train_reference(m, X, Y, 10, 64, 1e-2, 0),
            "replaced loop, dense input": lambda m: _train_reference(m, X.toarray(), Y, 10, 64, 1e-2, 0),
            "current loop, CSR input": lambda m: train_tlp(m, X, Y, 10, 64, 1e-2, 0.0, 0, torch.device("cpu"))}
    top = {}
    for name, fit in runs.items():
        m = make_tlp(D, H, C)
        m.load_state_dict(state)
        fit(m)
        top[name] = np.argsort(-tlp_scores(m, X), axis=1, kind="stable")[:, :k]
    ref = top["replaced loop, CSR input"]
    return {name: [len(np.intersect1d(a, b)) / k for a, b in zip(ref, t)] for name, t in top.items() if t is not ref}, k


def machine_rates(threads, reps=5):
    "(float32 matrix-product FLOP/s, copy bandwidth bytes/s) of this process on `threads` torch threads, best of reps."
    torch.set_num_threads(threads)
    n = 2048
    a, b = torch.randn(n, n), torch.randn(n, n)
    a @ b                                                   # warm-up
    t_mm = min(_timed(lambda: a @ b) for _ in range(reps))
    src, dst = torch.ones(1 << 26), torch.empty(1 << 26)   # 256 MB each, far beyond the caches
    dst.copy_(src)
    t_cp = min(_timed(lambda: dst.copy_(src)) for _ in range(reps))
    return 2 * n ** 3 / t_mm, 2 * src.numel() * 4 / t_cp


def epoch_parts(H, C, weights, batch_size, threads, reps=20):
    """Measured causes of an epoch's gap to its bound: the FLOP/s of the second layer's (B x H) @ (H x C) product and the
    seconds of one fused Adam step over `weights` float32 weights, on `threads` threads (best of reps)."""
    torch.set_num_threads(threads)
    a, b = torch.randn(batch_size, H), torch.randn(H, C)
    a @ b
    t_mm = min(_timed(lambda: a @ b) for _ in range(reps))
    p = torch.nn.Parameter(torch.zeros(weights))
    p.grad = torch.ones(weights)
    from mlxplain.fals import _adam
    opt = _adam([p], 1e-2, 0.0)
    opt.step()
    t_adam = min(_timed(opt.step) for _ in range(reps))
    return 2 * batch_size * H * C / t_mm, t_adam


def _timed(fn):
    "Wall seconds of one call of fn."
    return clock(fn)[1]


def _roofline_data(args):
    "(name, X, Y) of every data set of the roofline run."
    from mlxplain.data import load_split, make_label_specific
    if args.quick:
        ds, _ = make_label_specific(n_samples=1000, n_features=200, n_labels=10, n_relevant=5, sparse=True,
                                    random_state=0)
        return [("quick", ds.X, ds.Y_dense)]
    home = Path(os.environ.get("MLXPLAIN_DATA", "../shared/data"))
    out = []
    for name in args.roofline_data.split(","):
        tr, _ = load_split(name, data_home=home)
        out.append((name, tr.X, tr.Y_dense))
    return out


def roofline_row(name, X, Y, threads, ref=None):
    "One row of the roofline table: rates, counts, bounds and measured times of one FALS fit on `threads` threads."
    import warnings
    warnings.simplefilter("ignore")
    from mlxplain.fals import (FALS, tlp_costs, tlp_scores, make_tlp, train_tlp, _train_reference, _check_X,
                               _scores_direct, tlp_weights)
    rate, bw = machine_rates(threads)
    FALS(epochs=1, random_state=0, n_threads=threads).fit(X[:256], Y[:256])      # warm-up
    load0 = os.getloadavg()[0]
    _untraced()                                                                   # the fit's own clock is the measurement
    f = FALS(k=0.1, random_state=0, n_threads=threads).fit(X, Y)
    Xs = f._scale(_check_X(X))                                                    # the network's training units
    torch.set_num_threads(threads)
    c = tlp_costs(f.model_, Xs, f.batch_size)
    epoch_s, score_s = f.fit_time_["train"] / f.epochs, f.fit_time_["score"]
    eb = max(2 * c["epoch"] / rate, c["epoch_bytes"] / bw)
    sb = max(2 * c["gram"] / rate, c["gram_bytes"] / bw)
    row = {"data": name, "N": X.shape[0], "D": X.shape[1], "C": Y.shape[1], "H": f.hidden_, "threads": threads, "cpus": os.cpu_count(),
           "gemm_gflops": rate / 1e9, "copy_gbs": bw / 1e9,
           "epoch_madds": c["epoch"], "epoch_bytes": c["epoch_bytes"], "epoch_bound_s": eb,
           "epoch_bound": "compute" if 2 * c["epoch"] / rate >= c["epoch_bytes"] / bw else "memory",
           "epoch_s": epoch_s, "epoch_ratio": epoch_s / eb,
           # the narrower bound of Adam's traffic alone (28 bytes a weight a step), beside the full count
           "epoch_ratio_adam_only": epoch_s / max(2 * c["epoch"] / rate, 28 * c["weights"] * c["adam_steps"] / bw),
           "score_madds": c["gram"], "score_bytes": c["gram_bytes"], "score_bound_s": sb,
           "score_bound": "compute" if 2 * c["gram"] / rate >= c["gram_bytes"] / bw else "memory",
           "score_s": score_s, "score_ratio": score_s / sb, "load_avg": (load0 + os.getloadavg()[0]) / 2}
    small, adam = epoch_parts(f.hidden_, Y.shape[1], c["weights"], f.batch_size, threads)
    # scoring's own shape: one stacked second-stage product (C x rows) @ (rows x D) of the Gram route, alone
    from mlxplain.fals import gram_buffer_rows
    rows_ = gram_buffer_rows(X.shape[1], Y.shape[1], 1 << 23)
    acc, rt, bb = torch.zeros(Y.shape[1], X.shape[1]), torch.randn(rows_, Y.shape[1]), torch.randn(rows_, X.shape[1])
    acc.addmm_(rt.T, bb)
    t_sp = min(_timed(lambda: acc.addmm_(rt.T, bb)) for _ in range(5))
    row.update(score_product_gflops=2 * Y.shape[1] * rows_ * X.shape[1] / t_sp / 1e9,
               score_s_at_product_rate=2 * c["gram"] / (2 * Y.shape[1] * rows_ * X.shape[1] / t_sp))
    # per epoch: the Adam steps alone, and the epoch's products at the rate of its own (B x H) @ (H x C) shape
    row.update(small_gemm_gflops=small / 1e9, adam_epoch_s=adam * c["adam_steps"],
               epoch_products_s_at_small_rate=2 * c["epoch"] / small)
    if ref is None:   # one thread: the reference paths
        idx = np.sort(np.random.default_rng(0).choice(X.shape[0], min(200, X.shape[0]), replace=False))
        W1, b1, W2, b2 = (t.detach() for t in tlp_weights(f.model_))
        with torch.no_grad():
            Sd = (_scores_direct(W1.contiguous(), b1, W2, b2, Xs[idx], "cpu", 2, 1 << 23) / len(idx)).numpy()
        Sg = tlp_scores(f.model_, Xs[idx], method="gram")
        row["score_vs_direct_rel"] = float(np.abs(Sg - Sd).max() / Sd.max())
        torch.manual_seed(0)
        a = make_tlp(X.shape[1], f.hidden_, Y.shape[1])
        b = make_tlp(X.shape[1], f.hidden_, Y.shape[1])
        b.load_state_dict(a.state_dict())
        Yd = np.asarray(Y, dtype=np.float32)
        train_tlp(a, Xs, Yd, 1, f.batch_size, f.lr, 0.0, 0, torch.device("cpu"))
        _train_reference(b, Xs, Yd, 1, f.batch_size, f.lr, 0)
        row["epoch_vs_reference_rel"] = max(float((p - q).abs().max() / q.abs().max())
                                            for p, q in zip(a.parameters(), b.parameters()))
    else:
        row["scores_vs_1thread_rel"] = float(np.abs(f.scores_ - ref.scores_).max() / ref.scores_.max())
        row["selected_same_as_1thread"] = float(np.mean([np.array_equal(a, b) for a, b in zip(f.selected_, ref.selected_)]))
    return row, f


def profile(args, print):
    "torch.profiler and cProfile tables of one FALS fit each (one thread), after a warm-up; nothing here is timed."
    import cProfile, io, pstats, warnings
    warnings.simplefilter("ignore")
    from torch.profiler import profile as tprofile, ProfilerActivity
    from mlxplain.fals import FALS
    X, Y, _ = _load(args)
    FALS(epochs=1, random_state=0, n_threads=1).fit(X[:256], Y[:256])
    with tprofile(activities=[ProfilerActivity.CPU]) as p:
        FALS(k=0.1, random_state=0, n_threads=1).fit(X, Y)
    print("torch profiler, one fit (its times are not reported: the profiler slows what it records):")
    print(p.key_averages().table(sort_by="self_cpu_time_total", row_limit=20))
    # one training epoch alone, by operator and shape: where an epoch's time goes beside its three B x H x C products
    from mlxplain.fals import _check_X, make_tlp, train_tlp
    f = FALS(random_state=0, n_threads=1)
    Xs = f._fit_scale(_check_X(X))
    D, C = X.shape[1], Y.shape[1]
    torch.manual_seed(0)
    net = make_tlp(D, int(np.ceil(np.sqrt(D * C))), C)
    with tprofile(activities=[ProfilerActivity.CPU], record_shapes=True) as p:
        train_tlp(net, Xs, np.asarray(Y, dtype=np.float32), 1)
    print("torch profiler, one training epoch by operator and input shapes:")
    print(p.key_averages(group_by_input_shape=True).table(sort_by="self_cpu_time_total", row_limit=16))
    pr = cProfile.Profile()
    pr.enable()
    try: FALS(k=0.1, random_state=0, n_threads=1).fit(X, Y)
    finally: pr.disable()  # never left on, should the fit fail
    out = io.StringIO()
    pstats.Stats(pr, stream=out).sort_stats("tottime").print_stats(15)
    print(out.getvalue())


def roofline(args, print):
    "The roofline table: every data set on one thread and on all cores."
    import pandas as pd
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    rows = []
    for name, X, Y in _roofline_data(args):
        ref = None
        for threads in sorted({1, cores}):
            row, f = roofline_row(name, X, Y, threads, ref)
            ref = ref or f
            rows.append(row)
            print(f"{name} ({row['N']} x {row['D']}, C={row['C']}, H={row['H']}), {threads} thread(s): "
                  f"matmul {row['gemm_gflops']:.1f} GFLOP/s, copy {row['copy_gbs']:.1f} GB/s | epoch "
                  f"{row['epoch_madds']:.3g} madds, {row['epoch_bytes'] / 1e9:.2f} GB -> bound {row['epoch_bound_s']:.3f} s "
                  f"({row['epoch_bound']}), measured {row['epoch_s']:.3f} s = {row['epoch_ratio']:.2f}x "
                  f"({row['epoch_ratio_adam_only']:.2f}x Adam's bytes alone) | scoring "
                  f"{row['score_madds']:.3g} madds, {row['score_bytes'] / 1e9:.2f} GB -> bound {row['score_bound_s']:.3f} s "
                  f"({row['score_bound']}), measured {row['score_s']:.3f} s = {row['score_ratio']:.2f}x | load {row['load_avg']:.1f}")
            print(f"  measured causes: Adam alone {row['adam_epoch_s']:.3f} s an epoch; the (B x H) @ (H x C) product runs at "
                  f"{row['small_gemm_gflops']:.1f} GFLOP/s, so the epoch's multiply-adds take {row['epoch_products_s_at_small_rate']:.3f} s at that rate; "
                  f"scoring's stacked (C x rows) @ (rows x D) product runs at {row['score_product_gflops']:.1f} GFLOP/s, so "
                  f"scoring's multiply-adds take {row['score_s_at_product_rate']:.3f} s at that rate")
            if "score_vs_direct_rel" in row:
                print(f"  reference paths: Gram vs direct route on 200 instances max rel diff "
                      f"{row['score_vs_direct_rel']:.1e}; one epoch train_tlp vs _train_reference max rel weight diff "
                      f"{row['epoch_vs_reference_rel']:.1e}")
            else:
                print(f"  {threads} threads vs 1 thread: scores max rel diff {row['scores_vs_1thread_rel']:.1e}, "
                      f"identical selected sets for {row['selected_same_as_1thread']:.1%} of the labels")
    df = pd.DataFrame(rows)
    if args.roofline_csv:
        Path(args.roofline_csv).parent.mkdir(parents=True, exist_ok=True)
        df.to_csv(args.roofline_csv, index=False, float_format="%.4g")
    if args.roofline_batches:
        bs = [int(b) for b in args.roofline_batches.split(",")]
        brows = [r for name, X, Y in _roofline_data(args) for r in batch_sweep(name, X, Y, bs)]
        print("epoch against its bound by mini-batch size (one thread; the paper's batch is 64):")
        for r in brows:
            print(f"  {r['data']} B={r['batch_size']:5d}: epoch {r['epoch_s']:.3f} s, bound {r['epoch_bound_s']:.3f} s, "
                  f"{r['epoch_ratio']:.2f}x; its B x H x C products alone at {r['products_gflops']:.1f} GFLOP/s "
                  f"(matmul {r['gemm_gflops']:.1f}) | load {r['load_avg']:.1f}")
        if args.roofline_csv:
            pd.DataFrame(brows).to_csv(Path(args.roofline_csv).with_name(Path(args.roofline_csv).stem + "_batch.csv"),
                                       index=False, float_format="%.4g")
    return df


def batch_sweep(name, X, Y, batches=(64, 128, 256, 512, 1024), epochs=2):
    """The measured cause of an epoch's gap to its bound: one thread, the same network trained for `epochs` epochs at
    each mini-batch size, the epoch's time against the cost model's bound at that size (rate and bandwidth measured in
    this run), and the rate of the epoch's three B x H x C products measured alone at that B."""
    import warnings
    warnings.simplefilter("ignore")
    from mlxplain.fals import FALS, _check_X, make_tlp, train_tlp, tlp_cost_model
    rate, bw = machine_rates(1)
    f = FALS(random_state=0, n_threads=1)
    Xs = f._fit_scale(_check_X(X))
    N, D, C = X.shape[0], X.shape[1], Y.shape[1]
    H = int(np.ceil(np.sqrt(D * C)))
    nnz = Xs.nnz if hasattr(Xs, "nnz") else N * D
    Yd = np.asarray(Y, dtype=np.float32)
    torch.manual_seed(0)
    train_tlp(make_tlp(D, H, C), Xs[:1024], Yd[:1024], 1)                       # warm-up
    rows = []
    for B in batches:
        m = tlp_cost_model(N, D, H, C, nnz, B)
        bound = max(2 * m["epoch_madds"] / rate, m["epoch_bytes"] / bw)
        torch.manual_seed(0)
        net = make_tlp(D, H, C)
        load0 = os.getloadavg()[0]
        t = _timed(lambda: train_tlp(net, Xs, Yd, epochs, B, 1e-2, 0.0, 0)) / epochs
        a, w, g = torch.randn(B, H), torch.randn(C, H), torch.randn(B, C)
        prods = (lambda: a @ w.T, lambda: g @ w, lambda: g.T @ a)            # forward, dA, dW2: the epoch's shapes
        for p in prods: p()
        t3 = sum(min(_timed(p) for _ in range(10)) for p in prods)
        rows.append({"data": name, "N": N, "D": D, "C": C, "H": H, "batch_size": B, "gemm_gflops": rate / 1e9,
                     "copy_gbs": bw / 1e9, "epoch_bound_s": bound, "epoch_s": t, "epoch_ratio": t / bound,
                     "products_gflops": 3 * 2 * B * H * C / t3 / 1e9,
                     "load_avg": (load0 + os.getloadavg()[0]) / 2})
    return rows


def scale_data(N, D, C, seed=0):
    "An extreme-classification-shaped sparse set with 5 planted features a label, ~1 % of D non-zero a row (≥ 20)."
    from mlxplain.data import make_xc_label_specific
    ds, rel = make_xc_label_specific(n_samples=N, n_features=D, n_labels=C, nnz_per_row=max(20, D // 100),
                                     labels_per_row=min(3.0, C), n_relevant=5, random_state=seed)
    return ds.X, ds.Y_dense, rel


def _fit_seconds(fit):
    "(wall, CPU) seconds of fit(): perf_counter and process_time around the call only."
    cpu, wall, _ = clock(fit)
    return wall, cpu


SCALE_BASE = {"N": 4000, "D": 2000, "C": 200}
SCALE_AXES = {"N": (1000, 2000, 4000, 8000, 16000), "D": (500, 1000, 2000, 4000, 8000), "C": (50, 100, 200, 400, 800)}


def scale_table(args, print):
    """FALS's fit time against N, D and C (one axis at a time from SCALE_BASE) on one CPU thread, beside the per-label
    RF and LASSO baselines timed on their first `--scale-labels` labels and scaled to C (both fit one model per label,
    so their time is linear in C); each method's slope on each axis, from a least-squares line in log-log."""
    import pandas as pd, warnings
    warnings.simplefilter("ignore")
    from mlxplain.fals import FALS, RFSelector, LassoSelector
    X, Y, _ = scale_data(**SCALE_BASE)
    FALS(k=5, random_state=0, n_threads=1).fit(X, Y)                  # warm-up on the base shape: allocator, kernels
    rows = []
    for axis, values in SCALE_AXES.items():
        for v in values:
            shape = {**SCALE_BASE, axis: v}
            X, Y, _ = scale_data(shape["N"], shape["D"], shape["C"])
            m = min(args.scale_labels, shape["C"])
            fals = FALS(k=5, random_state=0, n_threads=1)
            fits = {"FALS": (lambda: fals.fit(X, Y), 1),
                    "RF": (lambda: RFSelector(k=5, n_estimators=100, random_state=0).fit(X, Y[:, :m]), shape["C"] / m),
                    "LASSO": (lambda: LassoSelector(k=5, random_state=0).fit(X, Y[:, :m]), shape["C"] / m)}
            for method, (fit, factor) in fits.items():
                if method in args.skip.split(","): continue
                load0 = os.getloadavg()[0]
                best = None                  # the fit of least CPU time: a loaded machine only ever adds time
                for _ in range(args.scale_repeats):
                    wall, cpu = _fit_seconds(fit)
                    if best is None or cpu < best[1]:
                        best = (wall, cpu, dict(fals.fit_time_) if method == "FALS" else {})
                wall, cpu, parts = best
                rows.append({"axis": axis, **shape, "H": int(np.ceil(np.sqrt(shape["D"] * shape["C"]))),
                             "nnz": X.nnz, "method": method, "labels_timed": m if method != "FALS" else shape["C"],
                             "fit_s": wall * factor, "cpu_s": cpu * factor,
                             "train_s": parts.get("train", np.nan), "score_s": parts.get("score", np.nan),
                             "load_avg": (load0 + os.getloadavg()[0]) / 2})
                r = rows[-1]
                print(f"{axis}={v:6d} ({shape['N']} x {shape['D']}, C={shape['C']}): {method:5s} {r['cpu_s']:8.2f} CPU-s, "
                      f"{r['fit_s']:8.2f} s" + (f" (scaled from {m} labels)" if factor != 1 else "")
                      + (f" (train {r['train_s']:.2f} s, score {r['score_s']:.2f} s)" if method == "FALS" else "")
                      + f" | load {r['load_avg']:.1f}")
    df = pd.DataFrame(rows)
    print("slopes of log CPU time on log size (one axis at a time, the others at " +
          ", ".join(f"{k}={v}" for k, v in SCALE_BASE.items()) + "):")
    for (axis, method), g in df.groupby(["axis", "method"], sort=False):
        print(f"  {axis}: {method:5s} {np.polyfit(np.log(g[axis]), np.log(g.cpu_s), 1)[0]:.2f}")
    if args.scale_csv:
        Path(args.scale_csv).parent.mkdir(parents=True, exist_ok=True)
        df.to_csv(args.scale_csv, index=False, float_format="%.4g")
    return df


HCAP_SHAPE = {"N": 6000, "D": 3000, "C": 500}
HCAP_HIDDEN = (16, 32, 64, 128, 256, 512, None)     # None: the default ⌈√(DC)⌉


def hcap_table(args, print):
    """What a capped hidden layer does to planted recall: FALS(k=5) with H from HCAP_HIDDEN on an XC-shaped set with
    5 planted features a label, 5 seeds (data and network); recall = planted features among each label's 5 selected,
    averaged over labels. Random features recall k/D. Fit times are wall seconds on one thread."""
    import pandas as pd, warnings
    warnings.simplefilter("ignore")
    from mlxplain.fals import FALS
    rows = []
    for seed in range(args.hcap_seeds):
        X, Y, rel = scale_data(HCAP_SHAPE["N"], HCAP_SHAPE["D"], HCAP_SHAPE["C"], seed)
        keep = np.asarray(Y).sum(0) > 0                               # labels that occur: the others have no signal
        if seed == 0: FALS(k=5, epochs=1, random_state=0, n_threads=1).fit(X[:500], Y[:500])   # warm-up
        for hidden in HCAP_HIDDEN:
            f = FALS(k=5, hidden=hidden, random_state=seed, n_threads=1)
            wall, _ = _fit_seconds(lambda: f.fit(X, Y))
            rec = np.array([len(np.intersect1d(s, r)) / len(r) for s, r in zip(f.selected_, rel)])
            rows.append({**HCAP_SHAPE, "seed": seed, "hidden": f.hidden_, "default": hidden is None,
                         "recall": float(rec[keep].mean()), "labels": int(keep.sum()), "fit_s": wall,
                         "random_recall": 5 / HCAP_SHAPE["D"]})
            print(f"seed {seed} H={f.hidden_:5d}{' (default)' if hidden is None else ''}: planted recall "
                  f"{rows[-1]['recall']:.3f} over {int(keep.sum())} labels, fit {wall:.1f} s")
    df = pd.DataFrame(rows)
    for h, g in df.groupby("hidden"):
        print(f"H={h:5d}: recall {g.recall.mean():.3f} ± {g.recall.sem():.3f} (mean ± SE, {len(g)} seeds), "
              f"fit {g.fit_s.mean():.1f} s")
    if args.hcap_csv:
        Path(args.hcap_csv).parent.mkdir(parents=True, exist_ok=True)
        df.to_csv(args.hcap_csv, index=False, float_format="%.4g")
    return df


def busy(args, print):
    "FALS fit times idle and next to one CPU-bound process, paired and interleaved, for two thread settings."
    import signal, warnings
    warnings.simplefilter("ignore")
    from mlxplain.data import make_label_specific
    from mlxplain.fals import FALS
    ds, _ = make_label_specific(n_samples=3000, n_features=60, n_labels=6, random_state=0)
    def fit(n_threads, seed):
        f = FALS(random_state=seed, n_threads=n_threads)
        return clock(lambda: f.fit(ds.X, ds.Y))[1], f.n_threads_
    print(f"FALS fit on 3000 x 60 x 6 (dense); competing process: python -c 'while True: pass', paused (SIGSTOP) for "
          f"the idle fit and running for the busy fit of each of {args.repeats} pairs; medians and the median pair ratio")
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        for n_threads in (None, 2):
            hog.send_signal(signal.SIGSTOP)
            _, used = fit(n_threads, 0)                                    # warm-up
            idle, loaded = [], []
            for r in range(args.repeats):
                hog.send_signal(signal.SIGSTOP)
                idle.append(fit(n_threads, r)[0])
                hog.send_signal(signal.SIGCONT)
                time.sleep(0.05)
                loaded.append(fit(n_threads, r)[0])
            ratio = statistics.median(b / a for a, b in zip(idle, loaded))
            print(f"  n_threads={n_threads!s:4s} ({used} thread{'s' if used > 1 else ''}): idle {statistics.median(idle):.3f} s, "
                  f"busy {statistics.median(loaded):.3f} s, busy / idle = {ratio:.2f} (median of the pair ratios)")
    finally:
        hog.kill()
        hog.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="bibtex")
    ap.add_argument("--quick", action="store_true", help="small synthetic set: checks the script in seconds")
    ap.add_argument("--rf-labels", type=int, default=None)
    ap.add_argument("--lift-labels", type=int, default=None)
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--captum-samples", type=int, default=500)
    ap.add_argument("--device", default="cpu", help="device of the FALS fits (cpu or cuda); peers run on one CPU thread")
    ap.add_argument("--skip", default="", help="comma-separated tasks to skip (rf, lift, captum)")
    ap.add_argument("--out", default=None, help="also write the report to this file")
    ap.add_argument("--rounding", action="store_true", help="instead of timing: train 10 epochs from one seed and init "
                    "with the replaced loop (CSR and dense input) and the current one; compare the top-k overlaps")
    ap.add_argument("--profile", action="store_true", help="instead of timing: torch.profiler and cProfile of one fit")
    ap.add_argument("--roofline", action="store_true", help="instead of the comparison: FALS's epoch and scoring "
                    "times against the bound max(flops / matmul rate, bytes / copy bandwidth) measured in this run")
    ap.add_argument("--roofline-data", default="bibtex,delicious", help="comma-separated data sets of --roofline")
    ap.add_argument("--roofline-csv", default=None, help="also write the roofline table to this CSV")
    ap.add_argument("--roofline-batches", default="", help="with --roofline: also time one-thread epochs at these "
                    "comma-separated mini-batch sizes against their bounds (written beside the CSV as *_batch.csv)")
    ap.add_argument("--scale", action="store_true", help="instead of the comparison: FALS, RF and LASSO fit time "
                    "against N, D and C on synthetic XC-shaped data, one thread, with log-log slopes")
    ap.add_argument("--scale-labels", type=int, default=5, help="labels RF and LASSO are timed on in --scale")
    ap.add_argument("--scale-repeats", type=int, default=2, help="fits per method and size in --scale (the fastest kept)")
    ap.add_argument("--scale-csv", default=None, help="also write the --scale table to this CSV")
    ap.add_argument("--hcap", action="store_true", help="instead of the comparison: planted recall of FALS with a "
                    "capped hidden layer")
    ap.add_argument("--hcap-seeds", type=int, default=5, help="seeds of --hcap")
    ap.add_argument("--hcap-csv", default=None, help="also write the --hcap table to this CSV")
    ap.add_argument("--busy", action="store_true", help="instead of the comparison: a small fit idle vs next to a busy process")
    ap.add_argument("--repeats", type=int, default=5, help="fits per setting in --busy")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--mode", default="time", choices=("time", "memory"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.quick:
        args.trees, args.captum_samples = min(args.trees, 20), min(args.captum_samples, 100)
    if args.child: return child(args)
    lines = []
    def print(*a):  # the report goes to stdout and, with --out, to the file
        s = " ".join(map(str, a))
        lines.append(s)
        sys.stdout.write(s + "\n")
        sys.stdout.flush()
    def save():
        if args.out:
            Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            Path(args.out).write_text("\n".join(lines) + "\n")
    print(f"command: python {' '.join(shlex.quote(a) for a in [os.path.relpath(__file__)] + sys.argv[1:])}")
    print(f"run {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC} on {platform.machine()}, "
          f"{os.cpu_count()} CPUs, load average at start {os.getloadavg()[0]:.2f}")
    for flag, mode in (("busy", busy), ("profile", profile), ("scale", scale_table), ("hcap", hcap_table)):
        if getattr(args, flag):   # a mode of its own: its table only
            mode(args, print)
            return save()
    if args.roofline:
        roofline(args, print)
        print(f"load average at end {os.getloadavg()[0]:.2f}")
        return save()
    X, Y, what = _load(args)
    nnz = f"{X.nnz / X.shape[0]:.1f} non-zeros per row" if hasattr(X, "toarray") else "dense"
    print(f"data: {what}: N={X.shape[0]}, D={X.shape[1]}, C={Y.shape[1]}, {'CSR' if hasattr(X, 'toarray') else 'dense'} "
          f"({nnz}); torch {torch.__version__}, 1 thread, FALS on device {args.device}")
    if args.rounding:
        r, k = rounding(args)
        for name, ov in r.items():
            ov = np.array(ov)
            print(f"rounding: {name} against the replaced loop on CSR input (same seed, same initial weights, 10 epochs): "
                  f"top-{k} overlap per label mean {ov.mean():.3f}, 10th percentile {np.percentile(ov, 10):.3f}, "
                  f"min {ov.min():.3f}, identical sets {int((ov == 1).sum())} of {len(ov)} labels")
        return save()
    skip = set(filter(None, args.skip.split(",")))
    tasks = [t for t in TASKS if t not in skip]
    res = {t: run(t, args, "time") for t in tasks}
    mem = {t: run(t, args, "memory") for t in tasks}
    f, fs = res["fals"], res["fals_sub"]
    # exact scoring of C labels costs more than one epoch by construction (the cost model's Gram / epoch below), so
    # the target is scoring <= 0.5 x the default training time, not <= one epoch
    print(f"\nFALS fit (train {f['train_s']:.2f} s + scores {f['score_s']:.2f} s) = {f['seconds']:.2f} s; "
          f"scoring / training = {f['score_s'] / f['train_s']:.2f} "
          f"(target <= 0.5: {'met' if f['score_s'] <= 0.5 * f['train_s'] else 'NOT met'}); one epoch "
          f"{f['epoch_s']:.2f} s, scoring / epoch = {f['score_s'] / f['epoch_s']:.1f}; with score_subsample=0.1: "
          f"scores {fs['score_s']:.2f} s, scoring / training = {fs['score_s'] / fs['train_s']:.2f}")
    c = f["costs"]
    print(f"cost model (multiply-adds; tlp_costs): one epoch {c['epoch']:.3g} + {c['adam_steps']} Adam steps over "
          f"{c['weights']:.3g} weights; exact scoring, Gram route {c['gram']:.3g} (forward {c['forward']:.3g}, rows of Q "
          f"{c['gram_stage1']:.3g}, diag(W1 R W1^T) {c['gram_stage2']:.3g}; live hidden units {c['live_units']} of "
          f"{c['hidden']}); full HxH Gram {c['gram_full']:.3g}; direct {c['direct']:.3g}; Gram / epoch = {c['gram'] / c['epoch']:.1f}")
    print(f"score_subsample=0.1 against exact scores of the same network: top-{fs['k']} overlap per label mean "
          f"{fs['overlap_mean']:.3f}, 10th percentile {fs['overlap_p10']:.3f}, min {fs['overlap_min']:.3f}; "
          f"median relative L1 error per label {fs['l1_rel_median']:.3f}")
    print("time runs (perf_counter only) and memory runs (ru_maxrss), each method in a fresh process of its own:")
    for t in tasks:
        m = mem[t]
        print(f"  {t:8s} {res[t]['seconds']:9.2f} s   peak RSS {m['rss_peak_mb']:7.0f} MB "
              f"(+{m['rss_over_start_mb']:.0f} MB over the peak before the work)")
    peers = [t for t in ("rf", "lift", "captum") if t in tasks]
    print("memory, peer / FALS: " + ", ".join(
        f"{t} peak RSS {mem[t]['rss_peak_mb'] / mem['fals']['rss_peak_mb']:.2f}x, "
        f"over start {mem[t]['rss_over_start_mb'] / max(mem['fals']['rss_over_start_mb'], 1):.2f}x" for t in peers))
    if "rf" in res:
        r = res["rf"]
        scale = Y.shape[1] / r["labels_timed"]
        t_rf = r["seconds"] * scale
        note = f" (extrapolated from {r['labels_timed']} of {Y.shape[1]} labels)" if scale != 1 else ""
        print(f"\nper-label RF ({args.trees} trees) {t_rf:.1f} s{note}:  RF / FALS = {t_rf / f['seconds']:.1f}x  "
              f"(target >= 20x: {'met' if t_rf / f['seconds'] >= 20 else 'NOT met'}); "
              f"RF / FALS(score_subsample=0.1) = {t_rf / fs['seconds']:.1f}x")
    if "lift" in res:
        n = res["lift"].get("labels_timed", Y.shape[1])
        t = res["lift"]["seconds"] * Y.shape[1] / n
        note = f" (extrapolated from {n} of {Y.shape[1]} labels)" if n != Y.shape[1] else ""
        print(f"LIFT clustering {t:.1f} s{note}:  LIFT / FALS = {t / f['seconds']:.1f}x  (no target: LIFT's k-means per "
              f"label is cheap next to a network's epochs); LIFT / FALS(score_subsample=0.1) = {t / fs['seconds']:.1f}x")
    if "captum" in res:
        c = res["captum"]
        print(f"scoring {c['n']} instances: Captum Saliency, C={Y.shape[1]} backward passes {c['captum_s']:.2f} s vs closed "
              f"form {c['closed_s']:.3f} s:  Captum / closed = {c['captum_s'] / c['closed_s']:.1f}x  "
              f"(max rel. diff {c['max_rel_diff']:.1e})")
    print(f"load average at end {os.getloadavg()[0]:.2f}")
    save()


if __name__ == "__main__":
    main()
