"""FALS on a GPU: fit times on CPU and CUDA, and the agreement of the GPU's scores and selected sets with the FP32 CPU path.

Usage (on a machine with a CUDA GPU; bibtex and delicious from $MLXPLAIN_DATA):

    python benchmarks/check_fals_gpu.py --out DIR        # writes DIR/gpu_<card>.json, e.g. gpu_h100.json

Data sets: bibtex and delicious (training splits) and `xc`, a synthetic set of Eurlex-4K's shape
(`make_xc_label_specific`: N 15,539, D 5,000 with ~236 non-zeros a row, C 3,993 with ~5 labels a row, seed 0). Each
row of the JSON is keyed as nbs/results/fals/gpu_h100.json is (`N`, `D`, `C`, `fit_s_cpu1`, `fit_s_cpu<cores>`,
`fit_s_cuda1`, `score_s_cuda`, `score_s_cpu`, `scores_rel_err`, `jaccard_cpu_vs_cuda_trained`) plus the split of the
CUDA fit (`train_s_cuda`, `score_s_cuda_fit`), its peak GPU memory, TF32 scoring (`score_s_cuda_tf32`) and, for the
network trained on the GPU, scored on both devices: the relative error of the FP32 and TF32 GPU scores against the FP32
CPU scores and the share of labels whose selected top-k set is identical (`selected_same_fp32`,
`selected_same_tf32`). On `xc` the CPU is not timed (a CPU fit takes many minutes) and the agreement is measured on
`--agree-labels` labels and `--agree-rows` instances. `scale` holds FALS's fit times on the device over the grid of
`bench_fals.py --scale` (N, D and C varied one at a time on the same synthetic data; `--no-scale` leaves it out), for
the chapter's scale figure. The top level records the device, driver, CUDA, torch, numpy and
scipy versions and the code's git commit.

Without CUDA the script prints why and exits with status 0, writing nothing. `--device cpu --quick` is a dry run of
the whole script on the CPU with small synthetic sets (for tests; its `cuda` numbers are CPU numbers, and the JSON's
`device` says so).
"""
import argparse, datetime, json, os, platform, re, subprocess, sys, time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
SETS = ("bibtex", "delicious", "xc")


def parse(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.environ.get("OUT", "."), help="folder of gpu_<card>.json (default: $OUT or .)")
    ap.add_argument("--sets", default=",".join(SETS), help=f"comma-separated subset of {','.join(SETS)}")
    ap.add_argument("--device", default="cuda", help="cuda, cuda:N, or cpu for a dry run (with --quick)")
    ap.add_argument("--quick", action="store_true", help="small synthetic stand-ins of every set (a dry run in seconds)")
    ap.add_argument("--agree-labels", type=int, default=400, help="labels scored on both devices for large C")
    ap.add_argument("--agree-rows", type=int, default=4000, help="instances scored on both devices for large N")
    ap.add_argument("--no-scale", action="store_true", help="leave out the FALS fit times over bench_fals.py's scale grid")
    args = ap.parse_args(argv)
    bad = set(args.sets.split(",")) - set(SETS)
    if bad: ap.error(f"--sets: unknown {sorted(bad)}; choose from {', '.join(SETS)}")
    if args.agree_labels < 1 or args.agree_rows < 1: ap.error("--agree-labels and --agree-rows must be >= 1")
    if torch.device(args.device).type not in ("cuda", "cpu"): ap.error(f"--device {args.device}: use cuda, cuda:N or cpu")
    if torch.device(args.device).type == "cpu" and not args.quick:
        ap.error("--device cpu is a dry run of the script: add --quick (full-size sets take hours on a CPU)")
    return args


def card_name(name):
    "File tag of a GPU: 'NVIDIA H100 80GB HBM3' -> 'h100'; 'cpu' for a dry run."
    m = re.search(r"\b([A-Z]{1,2}\d{2,4}[A-Z]?)\b", name or "")
    return m.group(1).lower() if m else re.sub(r"[^a-z0-9]+", "_", (name or "cuda").lower()).strip("_")


def load_set(name, quick):
    "(X, Y) of one set: the training split, or the synthetic Eurlex-4K-shaped set; small stand-ins with --quick."
    from mlxplain.data import load_split, make_label_specific, make_xc_label_specific
    if name == "xc":
        shape = dict(n_samples=1500, n_features=300, n_labels=40, nnz_per_row=20, labels_per_row=2) if quick else {}
        ds, _ = make_xc_label_specific(random_state=0, **shape)
        return ds.X, ds.Y_dense
    if quick:
        ds, _ = make_label_specific(n_samples=800, n_features=150, n_labels=8, sparse=True,
                                    random_state=SETS.index(name))
        return ds.X, ds.Y_dense
    tr, _ = load_split(name)
    return tr.X, tr.Y_dense


def versions(dev):
    "Device, driver and library versions of this run."
    import scipy
    out = {"torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
           "numpy": np.__version__, "scipy": scipy.__version__, "python": platform.python_version(),
           "cpus": os.cpu_count(), "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    try: out["commit"] = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                                        timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError): out["commit"] = None
    if dev.type == "cuda":
        p = torch.cuda.get_device_properties(dev)
        out.update(device=p.name, gpu=p.name, capability=f"{p.major}.{p.minor}", gpu_memory_gb=round(p.total_memory / 2**30, 1))
        try:
            out["driver"] = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                                           capture_output=True, text=True, timeout=30).stdout.split("\n")[0].strip() or None
        except (OSError, subprocess.SubprocessError): out["driver"] = None
    else:
        out.update(device="cpu (dry run: the cuda keys hold CPU numbers)", gpu=None, driver=None)
    return out


def sync(dev):
    if dev.type == "cuda": torch.cuda.synchronize(dev)


def label_subset(model, labels):
    "A copy of a make_tlp network keeping only the output units `labels` (their scores are unchanged)."
    from mlxplain.fals import make_tlp
    lin1, lin2 = model[0], model[-1]
    m = make_tlp(lin1.in_features, lin1.out_features, len(labels))
    with torch.no_grad():
        m[0].weight.copy_(lin1.weight.cpu()); m[0].bias.copy_(lin1.bias.cpu())
        m[-1].weight.copy_(lin2.weight.cpu()[labels]); m[-1].bias.copy_(lin2.bias.cpu()[labels])
    return m.eval()


def agreement(S, R, k):
    "Relative error of scores S against R, and the share of labels whose top-k sets agree (and their mean Jaccard)."
    top = lambda A: [set(np.argsort(-a, kind="stable")[:k].tolist()) for a in A]
    a, b = top(S), top(R)
    return (float(np.linalg.norm(S - R) / np.linalg.norm(R)), float(np.mean([x == y for x, y in zip(a, b)])),
            float(np.mean([len(x & y) / len(x | y) for x, y in zip(a, b)])))


def check_set(name, args, dev, cores):
    "One row of the JSON: CPU and device fits, device scoring (FP32, TF32), agreement with the FP32 CPU path."
    import warnings
    warnings.simplefilter("ignore")
    from mlxplain.fals import FALS, tlp_scores, _check_X
    try: X, Y = load_set(name, args.quick)
    except Exception as e:   # no staged data and no network: say so in the JSON, go on with the other sets
        return {"skipped": f"data not available: {type(e).__name__}: {e}"}
    row = {"N": X.shape[0], "D": X.shape[1], "C": Y.shape[1], "nnz_per_row": round(X.nnz / X.shape[0], 1)}
    fits, ep = {}, 2 if args.quick else 10          # a dry run trains 2 epochs; the check, FALS's default 10
    cpu_runs = [] if name == "xc" and not args.quick else [1, cores]
    for threads in dict.fromkeys(cpu_runs):
        FALS(k=0.1, epochs=1, n_threads=threads, random_state=0).fit(X[:300], Y[:300])      # warm-up
        t = time.perf_counter()
        fits[threads] = FALS(k=0.1, epochs=ep, n_threads=threads, random_state=0).fit(X, Y)
        row[f"fit_s_cpu{threads}"] = round(time.perf_counter() - t, 3)
    FALS(k=0.1, epochs=1, device=dev, random_state=0).fit(X[:300], Y[:300])                 # warm-up, CUDA context
    if dev.type == "cuda": torch.cuda.reset_peak_memory_stats(dev)
    sync(dev)
    t = time.perf_counter()
    g = FALS(k=0.1, epochs=ep, device=dev, n_threads=cores, random_state=0).fit(X, Y)
    sync(dev)
    row["fit_s_cuda1"] = round(time.perf_counter() - t, 3)
    row["train_s_cuda"], row["score_s_cuda_fit"] = round(g.fit_time_["train"], 3), round(g.fit_time_["score"], 3)
    row["H"], row["epochs"] = g.hidden_, g.epochs
    if dev.type == "cuda": row["peak_gpu_gb"] = round(torch.cuda.max_memory_allocated(dev) / 2**30, 2)
    Xs = g._scale(_check_X(X))                     # the network's training units
    for tf32 in (False, True):                      # scoring alone, the trained network, all instances
        tlp_scores(g.model_, Xs[:200], device=dev, tf32=tf32)
        sync(dev)
        t = time.perf_counter()
        tlp_scores(g.model_, Xs, device=dev, tf32=tf32)
        sync(dev)
        row["score_s_cuda_tf32" if tf32 else "score_s_cuda"] = round(time.perf_counter() - t, 3)
    # agreement: the GPU-trained network scored on both devices (a subset of labels and instances when large)
    C, N = Y.shape[1], X.shape[0]
    labels = np.sort(np.random.default_rng(0).choice(C, min(C, args.agree_labels), replace=False))
    rows = np.sort(np.random.default_rng(1).choice(N, min(N, args.agree_rows), replace=False))
    row["agree_labels"], row["agree_rows"] = len(labels), len(rows)
    sub = label_subset(g.model_, labels)
    torch.set_num_threads(cores)
    t = time.perf_counter()
    S_cpu = tlp_scores(sub, Xs[rows], device="cpu")
    row["score_s_cpu_agree"] = round(time.perf_counter() - t, 3)
    if len(labels) == C and len(rows) == N: row["score_s_cpu"] = row["score_s_cpu_agree"]
    for tf32, tag in ((False, "fp32"), (True, "tf32")):
        S_dev = tlp_scores(sub.to(dev), Xs[rows], device=dev, tf32=tf32)
        err, same, jac = agreement(S_dev, S_cpu, g.k_)
        row[f"scores_rel_err_{tag}"], row[f"selected_same_{tag}"], row[f"jaccard_{tag}"] = err, same, jac
        sub = sub.cpu()
    row["scores_rel_err"] = row["scores_rel_err_fp32"]
    if 1 in fits:   # networks trained on the two devices: float order differs, so selections drift apart
        row["jaccard_cpu_vs_cuda_trained"] = round(float(np.mean(
            [len(np.intersect1d(a, b)) / len(np.union1d(a, b)) for a, b in zip(fits[1].selected_, g.selected_)])), 3)
    return row


def _bench_fals():
    "benchmarks/bench_fals.py as a module: the scale grid and its data generator live there, shared with the CPU run."
    import importlib.util
    spec = importlib.util.spec_from_file_location("bench_fals", Path(__file__).resolve().parent / "bench_fals.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def check_scale(args, dev):
    """FALS's fit time on the device over bench_fals.py --scale's grid (one of N, D, C varied at a time, same data),
    for the chapter's scale figure beside the CPU curves; --quick: two tiny sizes per axis."""
    import warnings
    warnings.simplefilter("ignore")
    from mlxplain.fals import FALS
    b = _bench_fals()
    base, axes = b.SCALE_BASE, b.SCALE_AXES
    if args.quick:
        base, axes = {"N": 400, "D": 100, "C": 10}, {"N": (200, 400), "D": (50, 100), "C": (5, 10)}
    X, Y, _ = b.scale_data(**base)
    FALS(k=5, epochs=1, device=dev, random_state=0).fit(X, Y)                  # warm-up
    rows = []
    for axis, values in axes.items():
        for v in values:
            shape = {**base, axis: v}
            X, Y, _ = b.scale_data(shape["N"], shape["D"], shape["C"])
            f = FALS(k=5, epochs=2 if args.quick else 10, device=dev, random_state=0)
            sync(dev)
            t = time.perf_counter()
            f.fit(X, Y)
            sync(dev)
            rows.append({"axis": axis, **shape, "H": f.hidden_, "fit_s_cuda": round(time.perf_counter() - t, 4),
                         "train_s": round(f.fit_time_["train"], 4), "score_s": round(f.fit_time_["score"], 4)})
    return rows


def main(argv=None):
    args = parse(argv)
    dev = torch.device(args.device)
    if dev.type == "cuda" and not torch.cuda.is_available():
        print(f"check_fals_gpu: no CUDA device on this machine (torch {torch.__version__}, built with CUDA "
              f"{torch.version.cuda}): nothing measured, nothing written. Run it on a machine with an NVIDIA GPU "
              "(or `--device cpu --quick` for a dry run of the script).")
        return 0
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if dev.type == "cpu": cores = 1                  # a dry run: one thread, so a busy machine does not stall it
    out = versions(dev)
    out["quick"] = args.quick
    for name in args.sets.split(","):
        t = time.perf_counter()
        out[name] = check_set(name, args, dev, cores)
        print(name, out[name], f"({time.perf_counter() - t:.0f} s)", flush=True)
    if not args.no_scale:
        t = time.perf_counter()
        out["scale"] = check_scale(args, dev)
        print("scale", out["scale"], f"({time.perf_counter() - t:.0f} s)", flush=True)
    path = Path(args.out) / f"gpu_{card_name(out['gpu']) if dev.type == 'cuda' else 'cpu_dryrun'}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
