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
`device` says so); `--rows N` takes the first N training rows of the real sets instead of their stand-ins, so
`--device cpu --quick --rows 300` is a dry run on the data the device machine gets.

On this project's GPU machine (the `run` tool of the device machine, which gets this checkout's tracked files and
the folders named in `carry`, not ../shared): first, here, `make gpu-check-prep` (`--prep .gpudata`) fills the ignored
folder `.gpudata/` with the wheels of what that machine's image lacks (fastcore; scikit-learn and the pure-Python
packages it needs, at this checkout's versions), for Python 3.12 on manylinux x86_64, the bibtex and delicious splits copied from $MLXPLAIN_DATA (make sets it
to ../shared/data), and the commit. Then one call, with carry [".gpudata"] and timeout_s 540:

    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .gpudata/whl/*.whl && export PYTHONPATH=/tmp/site:$PWD MLXPLAIN_DATA=$PWD/.gpudata/data PYTHONUNBUFFERED=1 && python3 benchmarks/check_fals_gpu.py --out $OUT

It writes $OUT/gpu_<card>.json (gpu_h200.json on an H200), which comes back; copy it to nbs/results/fals/. In
gpu_h100.json the four timed CPU fits of bibtex and delicious took 45 s together, the GPU's 5 s.
"""
import argparse, datetime, json, os, platform, re, subprocess, sys, time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
SETS = ("bibtex", "delicious", "xc")
REAL_SETS = SETS[:2]                     # the staged data sets; xc is generated
PREP_DIR = ROOT / ".gpudata"             # git-ignored: what the device machine gets beside the tracked files
# the device machine's image has torch, numpy, scipy, pandas and tqdm but not fastcore; scikit-learn travels at this
# checkout's version (mlxplain needs >= 1.6; the tests here ran with it), with the pure-Python packages it needs beside
# numpy and scipy, at this checkout's versions too
WHEELS = ("fastcore", "scikit-learn", "joblib", "threadpoolctl", "narwhals")
PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64",
             "manylinux1_x86_64")
# the command run there (also in the docstring above, which a test compares with it)
DEVICE_COMMAND = ("python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "
                  "/tmp/site .gpudata/whl/*.whl && export PYTHONPATH=/tmp/site:$PWD MLXPLAIN_DATA=$PWD/.gpudata/data "
                  "PYTHONUNBUFFERED=1 && python3 benchmarks/check_fals_gpu.py --out $OUT")
DEVICE_CARRY = [".gpudata"]


def parse(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.environ.get("OUT", "."), help="folder of gpu_<card>.json (default: $OUT or .)")
    ap.add_argument("--sets", default=",".join(SETS), help=f"comma-separated subset of {','.join(SETS)}")
    ap.add_argument("--device", default="cuda", help="cuda, cuda:N, or cpu for a dry run (with --quick)")
    ap.add_argument("--quick", action="store_true", help="small synthetic stand-ins of every set (a dry run in seconds)")
    ap.add_argument("--agree-labels", type=int, default=400, help="labels scored on both devices for large C")
    ap.add_argument("--agree-rows", type=int, default=4000, help="instances scored on both devices for large N")
    ap.add_argument("--no-scale", action="store_true", help="leave out the FALS fit times over bench_fals.py's scale grid")
    ap.add_argument("--rows", type=int, default=None, help="the first N training rows of bibtex and delicious (their "
                    "real data, also with --quick)")
    ap.add_argument("--prep", metavar="DIR", default=None, help="fill DIR (make gpu-check-prep: .gpudata) with what "
                    "the device machine needs (wheels, data, commit), print the command to run there, and exit")
    ap.add_argument("--no-wheels", action="store_true", help="with --prep: the data and the commit only (no pip download)")
    args = ap.parse_args(argv)
    if args.rows is not None and args.rows < 1: ap.error("--rows must be >= 1")
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


def load_set(name, quick, rows=None):
    "(X, Y) of one set: the training split (its first `rows`), or the synthetic Eurlex-4K-shaped set; small stand-ins with --quick."
    from mlxplain.data import load_split, make_label_specific, make_xc_label_specific
    if name == "xc":
        shape = dict(n_samples=1500, n_features=300, n_labels=40, nnz_per_row=20, labels_per_row=2) if quick else {}
        ds, _ = make_xc_label_specific(random_state=0, **shape)
        return ds.X, ds.Y_dense
    if rows is not None:
        tr, _ = load_split(name)
        return tr.X[:rows], tr.Y_dense[:rows]
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
    if out["commit"] is None and (PREP_DIR / "COMMIT").is_file():   # a copy without .git: the commit --prep recorded
        out["commit"] = (PREP_DIR / "COMMIT").read_text().strip() or None
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
    try: X, Y = load_set(name, args.quick, args.rows)
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


def prep(out, wheels=True):
    "Fill `out` with what the device run needs beyond the tracked files: wheels, the real sets' splits, the commit."
    import importlib.metadata, shutil, warnings
    from mlxplain.data import fetch, load_split
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    if wheels:   # one version of each (two stop the install there): the folder is refilled
        whl = out / "whl"
        shutil.rmtree(whl, ignore_errors=True)
        pins = [f"{n}=={importlib.metadata.version(n)}" for n in WHEELS]
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                        "--python-version", "3.12", "--implementation", "cp",
                        *[a for p in PLATFORMS for a in ("--platform", p)], "-d", str(whl), *pins], check=True)
    data = out / "data"
    shutil.rmtree(data, ignore_errors=True)
    for name in REAL_SETS:
        for split in ("train", "test"):
            src = fetch(name, split=split)[split]
            (data / src.parent.name).mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, data / src.parent.name / src.name)
        with warnings.catch_warnings():   # the copies, not the originals, and checksums that match the registry
            warnings.simplefilter("error")
            if not all(Path(fetch(name, data_home=data, split=s)[s]).resolve().is_relative_to(data.resolve())
                       for s in ("train", "test")):
                raise RuntimeError(f"{name}: the copies in {data} are not the files that load")
            load_split(name, data_home=data)
    git = lambda *a: subprocess.run(["git", *a], cwd=ROOT, capture_output=True, text=True, timeout=30).stdout.strip()
    try: commit = git("rev-parse", "HEAD") + ("-dirty" if git("status", "--porcelain", "--untracked-files=no") else "")
    except (OSError, subprocess.SubprocessError): commit = ""
    (out / "COMMIT").write_text(commit + "\n")
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    print(f"{out}: {size / 2**20:.1f} MiB ({', '.join(sorted(f.name for f in out.rglob('*.whl'))) or 'no wheels'}; "
          f"{', '.join(REAL_SETS)}; commit {commit or 'unknown'}). On the device machine, carry {DEVICE_CARRY}:\n"
          f"{DEVICE_COMMAND}")
    return 0


def main(argv=None):
    args = parse(argv)
    if args.prep is not None: return prep(args.prep, wheels=not args.no_wheels)
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
