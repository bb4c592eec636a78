"""ExtendedPLT cost of robustness: normal vs adversarial training time and clean vs noisy
prediction time, dense (paper) and support-preserving noise, on a dense low-dimensional set
(CAL500, Mediamill-like) and sparse high-dimensional sets (bibtex; imdb subsample) in one run.

Ratios are measured side by side in this run: adversarial/normal training (peer = normal
training of the same napkinXC PLT), noisy/clean prediction (peer = clean prediction).
Paper (Eurlex-4K): adversarial/normal training 13.9x, noisy/clean prediction up to 14x.
Targets: adversarial/normal <= 2.5x and noisy/clean <= 3x with support noise.

Where the training time goes (columns of the results file):
  dup_ratio        training on the clean rows twice, no noise: the floor of any augment_ratio=1 scheme;
  c2_ratio         normal training with liblinear_c doubled: duplicating every row is the same
                   LIBLINEAR problem as doubling C, so dup_ratio ~ 2 x c2_ratio;
  tree_build_share napkinXC's tree building (PLT.build_tree) on the augmented data, as a share of
                   the adversarial training time: reusing a tree built on clean data cannot save more.

With --memory: peak memory and CPU time of building the dense adversarial set (eq. 2) in row blocks
(make_adversarial_set) against the one-piece construction it replaced (a dense (m, d) array, then CSR,
then stacking), each in a fresh subprocess reporting resource.getrusage(...).ru_maxrss (untimed), on
bibtex and a delicious subsample; writes nbs/results/extended_plt/augment_memory.csv.
With --memory-imdb: the same on the full imdb (120,919 x 1001), plus a child that only trains the normal
model (the baseline: sparse training data plus the model); writes augment_memory_imdb.csv. One run each.

Uses $MLXPLAIN_DATA (../shared/data) when set, otherwise generator data of the same shapes.
Writes the rows to nbs/results/extended_plt/bench.csv (read by the chapter) unless --out is given.
Run: .venv/bin/python benchmarks/bench_extended_plt.py [--out PATH] [--memory | --memory-imdb]
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
import numpy as np
import pandas as pd
import scipy.sparse as sp

os.environ.setdefault("OMP_NUM_THREADS", "1")
from napkinxc.models import PLT
from mlxplain.experiments import results_dir
from mlxplain.extended_plt import ExtendedPLT, make_adversarial_set, add_noise, _check_X, _check_Y
from mlxplain.repro.extended_plt import _repro_data


def _data(name):
    if os.environ.get("MLXPLAIN_DATA"):
        Xtr, Ytr, Xte, Yte, _ = _repro_data(name)
        return Xtr, Ytr, Xte, Yte, "staged"
    from mlxplain.data import make_label_specific   # generator fallback with the same shape class
    d, C, sparse = {"CAL500": (68, 100, False), "bibtex": (1836, 150, True), "imdb": (1001, 28, True)}[name]
    ds, _ = make_label_specific(n_samples=3000, n_features=d, n_labels=C, sparse=sparse, random_state=0)
    X, Y = _check_X(ds.X), _check_Y(ds.Y, ds.X.shape[0])
    return X[:2000], Y[:2000], X[2000:], Y[2000:], "generator"


# CPU seconds (process_time; napkinXC runs with one thread): the machine this runs on is shared,
# and wall-clock ratios swing by 2-5x with the neighbours' load
clock = time.process_time


def _best(f, reps=3, warmup=True):
    "Best CPU time of `reps` calls (optionally after a warm-up call, e.g. napkinXC's lazy model load)."
    if warmup: f()
    ts = []
    for _ in range(reps):
        t = clock(); f(); ts.append(clock() - t)
    return min(ts)


def _fit(X, Y, **kw):
    return lambda: ExtendedPLT(seed=0, **kw).fit(X, Y)


def main(sets=("CAL500", "bibtex", "imdb"), sigma_train=0.05, sigma_test=0.1, reps=3, out=None):
    rows = []
    for name in sets:
        Xtr, Ytr, Xte, Yte, source = _data(name)
        t_norm = _best(_fit(Xtr, Ytr), reps, warmup=False)
        t_c2 = _best(_fit(Xtr, Ytr, liblinear_c=20.0), reps, warmup=False)
        t_dup = _best(_fit(sp.vstack([Xtr, Xtr], format="csr"), sp.vstack([Ytr, Ytr], format="csr")), reps, warmup=False)
        normal = ExtendedPLT(seed=0).fit(Xtr, Ytr)
        pred_clean = _best(lambda: normal.predict_ranked(Xte, 5), reps)
        print(f"\n== {name} ({source}): train {Xtr.shape}, nnz/row {Xtr.nnz / Xtr.shape[0]:.1f}, {Ytr.shape[1]} labels; "
              f"normal training {t_norm:.2f} CPU-s, clean top-5 prediction {pred_clean:.3f} CPU-s; "
              f"exact duplicate {t_dup / t_norm:.2f}x, C doubled {t_c2 / t_norm:.2f}x", flush=True)
        for noise in ("support", "dense"):
            aug = lambda: make_adversarial_set(Xtr, Ytr, sigma_train, 1.0, noise, 0)
            t_aug = _best(aug, 1 if noise == "dense" else reps, warmup=False)
            Xa, Ya, _ = aug()
            t_adv = _best(_fit(Xa, Ya), 1 if noise == "dense" else reps, warmup=False)   # dense: one run (it is the slow one)
            with tempfile.TemporaryDirectory() as d:
                t = clock(); PLT(d, seed=0, threads=1).build_tree(Xa, Ya.astype(np.float32)); t_tree = clock() - t
            Xn = add_noise(Xte, sigma_test, noise, 0)
            pred_noisy = _best(lambda: normal.predict_ranked(Xn, 5), reps)
            r = dict(data=name, source=source, noise=noise, n_train=Xtr.shape[0], n_features=Xtr.shape[1], n_labels=Ytr.shape[1],
                     normal_train_cpu=t_norm, adversarial_train_cpu=t_aug + t_adv, augment_cpu=t_aug, tree_build_cpu=t_tree,
                     train_ratio=(t_aug + t_adv) / t_norm, dup_ratio=t_dup / t_norm, c2_ratio=t_c2 / t_norm,
                     tree_build_share=t_tree / t_adv, clean_predict_cpu=pred_clean, noisy_predict_cpu=pred_noisy,
                     pred_ratio=pred_noisy / pred_clean, nnz_ratio_train=Xa.nnz / Xtr.nnz, nnz_ratio_test=Xn.nnz / Xte.nnz)
            rows.append(r)
            print(f"  {noise:7s} noise: adversarial/normal training {r['train_ratio']:5.2f}x "
                  f"({t_aug + t_adv:.2f}s incl. {t_aug:.2f}s augmentation, {t_tree:.2f}s tree building; training nnz x{r['nnz_ratio_train']:.1f}) | "
                  f"noisy/clean prediction {r['pred_ratio']:5.2f}x (test nnz x{r['nnz_ratio_test']:.1f})", flush=True)
    df = pd.DataFrame(rows)
    df.attrs["machine"] = platform.platform()
    print("\nsummary, CPU-time ratios (ours = adversarial training or noisy prediction; peer = normal training / clean prediction of the same napkinXC PLT)")
    print(df[["data", "noise", "train_ratio", "dup_ratio", "c2_ratio", "tree_build_share", "pred_ratio"]].round(3).to_string(index=False))
    sup = df[df.noise == "support"]
    print(f"targets with support noise: training <= 2.5x: {bool((sup.train_ratio <= 2.5).all())}, "
          f"prediction <= 3x: {bool((sup.pred_ratio <= 3).all())}")
    out = Path(out) if out else results_dir("extended_plt") / "bench.csv"
    out.parent.mkdir(parents=True, exist_ok=True)
    df.assign(date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), cpu_count=os.cpu_count()).to_csv(out, index=False)
    print(f"wrote {out}")
    return df


def _one_piece_adversarial_set(X, Y, sigma, seed):
    "The construction before row blocks: X[idx] densified whole, noise added, converted to CSR, stacked."
    X = _check_X(X); Y = _check_Y(Y, X.shape[0]); rng = np.random.default_rng(seed)
    idx = np.sort(rng.choice(X.shape[0], size=X.shape[0], replace=False))
    A = X[idx].toarray()
    A += sigma * rng.standard_normal(A.shape, dtype=np.float32)
    return sp.vstack([X, sp.csr_matrix(A)], format="csr"), sp.vstack([Y, Y[idx]], format="csr"), idx


_LAUNCH = "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:]).returncode)"
_CHILD = """
import gc, json, resource, sys
import scipy.sparse as sp
sys.path.insert(0, sys.argv[3])
import bench_extended_plt as b
X, Y = sp.load_npz(sys.argv[1] + "_X.npz").tocsr(), sp.load_npz(sys.argv[1] + "_Y.npz").tocsr()
b._check_X(X); b._check_Y(Y, X.shape[0]); gc.collect()          # warm the code paths on the loaded data
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
if sys.argv[2] == "blocks": Xa, Ya, _ = b.make_adversarial_set(X, Y, 0.05, 1.0, "dense", 0)
else: Xa, Ya, _ = b._one_piece_adversarial_set(X, Y, 0.05, 0)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
nbytes = lambda M: M.data.nbytes + M.indices.nbytes + M.indptr.nbytes
print(json.dumps(dict(rss_before_mb=before / 1024, rss_peak_mb=after / 1024, x_mb=nbytes(X) / 2**20,
                      x_aug_mb=nbytes(Xa) / 2**20, y_aug_mb=nbytes(Ya) / 2**20)))
"""


def memory(sets=("bibtex", "delicious"), out=None):
    "Peak memory (child processes, ru_maxrss) and best-of-3 CPU time: row blocks vs one piece."
    rows = []
    for name in sets:
        Xtr, Ytr, _, _, source = _data(name)
        same = [np.array_equal(a.data, b.data) and np.array_equal(a.indices, b.indices)
                for a, b in [(make_adversarial_set(Xtr, Ytr, 0.05, 1.0, "dense", 0)[0],
                              _one_piece_adversarial_set(Xtr, Ytr, 0.05, 0)[0])]][0]
        with tempfile.TemporaryDirectory() as d:
            stem = os.path.join(d, "data")
            sp.save_npz(stem + "_X.npz", Xtr); sp.save_npz(stem + "_Y.npz", Ytr)
            for way, f in (("one piece", lambda: _one_piece_adversarial_set(Xtr, Ytr, 0.05, 0)),
                           ("blocks", lambda: make_adversarial_set(Xtr, Ytr, 0.05, 1.0, "dense", 0))):
                arg = "blocks" if way == "blocks" else "one"
                # via a small launcher: Linux keeps a parent's peak RSS across fork + exec, not a grandparent's
                res = subprocess.run([sys.executable, "-c", _LAUNCH, sys.executable, "-c", _CHILD, stem, arg,
                                      str(Path(__file__).parent)],
                                     capture_output=True, text=True, timeout=600, check=True)
                r = json.loads(res.stdout.strip().splitlines()[-1])
                rows.append(dict(data=name, source=source, construction=way, n_train=Xtr.shape[0],
                                 n_features=Xtr.shape[1], identical=same, cpu_s=_best(f, 3), **r,
                                 extra_mb=r["rss_peak_mb"] - r["rss_before_mb"]))
                print(rows[-1], flush=True)
    df = pd.DataFrame(rows).assign(machine=platform.platform(), date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    out = Path(out) if out else results_dir("extended_plt") / "augment_memory.csv"
    df.to_csv(out, index=False)
    print(f"wrote {out}")
    return df


_IMDB_CHILD = """
import hashlib, json, os, resource, sys, time
import numpy as np
import scipy.sparse as sp
sys.path.insert(0, sys.argv[3])
import bench_extended_plt as b
X, Y = sp.load_npz(sys.argv[1] + "_X.npz").tocsr(), sp.load_npz(sys.argv[1] + "_Y.npz").tocsr()
b._check_X(X); b._check_Y(Y, X.shape[0])                         # warm the code paths on the loaded data
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t, c = time.perf_counter(), time.process_time()
if sys.argv[2] == "blocks": Xa, Ya, _ = b.make_adversarial_set(X, Y, 0.05, 1.0, "dense", 0)
elif sys.argv[2] == "one": Xa, Ya, _ = b._one_piece_adversarial_set(X, Y, 0.05, 0)
else: m = b.ExtendedPLT(seed=0, threads=1).fit(X, Y)
wall, cpu = time.perf_counter() - t, time.process_time() - c
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
nbytes = lambda M: M.data.nbytes + M.indices.nbytes + M.indptr.nbytes
out = dict(rss_before_mb=before / 1024, rss_peak_mb=after / 1024, wall_s=wall, cpu_s=cpu)
if sys.argv[2] == "train":
    d = m.model_dir_
    out["model_mb"] = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d)) / 2**20
else:
    h = hashlib.blake2b()
    for a in (Xa.data, Xa.indices, Xa.indptr): h.update(memoryview(np.ascontiguousarray(a)))
    out.update(x_aug_mb=nbytes(Xa) / 2**20, y_aug_mb=nbytes(Ya) / 2**20, nnz_aug=int(Xa.nnz), digest=h.hexdigest())
print(json.dumps(out))
"""


def memory_imdb(out=None):
    "Full imdb: peak RSS and time of the dense adversarial set in blocks, in one piece, and of normal training."
    from mlxplain.data import load
    ds = load("imdb")
    X, Y = _check_X(ds.X), _check_Y(ds.Y, ds.X.shape[0])
    nbytes = lambda M: M.data.nbytes + M.indices.nbytes + M.indptr.nbytes
    rows = []
    with tempfile.TemporaryDirectory() as d:
        stem = os.path.join(d, "data")
        sp.save_npz(stem + "_X.npz", X, compressed=False); sp.save_npz(stem + "_Y.npz", Y, compressed=False)
        for way, arg in (("normal training", "train"), ("blocks", "blocks"), ("one piece", "one")):
            res = subprocess.run([sys.executable, "-c", _LAUNCH, sys.executable, "-c", _IMDB_CHILD, stem, arg,
                                  str(Path(__file__).parent)], capture_output=True, text=True, timeout=3600)
            if res.returncode != 0:
                print(way, "failed:", res.stderr[-2000:], flush=True)
                continue
            r = json.loads(res.stdout.strip().splitlines()[-1])
            rows.append(dict(data="imdb", source="staged", construction=way, n_train=X.shape[0],
                             n_features=X.shape[1], n_labels=Y.shape[1], nnz_train=int(X.nnz),
                             x_mb=nbytes(X) / 2**20, y_mb=nbytes(Y) / 2**20, **r,
                             extra_mb=r["rss_peak_mb"] - r["rss_before_mb"]))
            print(rows[-1], flush=True)
    df = pd.DataFrame(rows)
    if "digest" in df:   # the same noisy rows from blocks and from one piece
        dig = df.set_index("construction")["digest"].dropna()
        df["identical"] = dig.nunique() == 1 if len(dig) == 2 else None
    df = df.assign(omp_threads=os.environ.get("OMP_NUM_THREADS"), machine=platform.platform(),
                                   date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    out = Path(out) if out else results_dir("extended_plt") / "augment_memory_imdb.csv"
    df.to_csv(out, index=False)
    print(f"wrote {out}")
    return df


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=None, help="CSV path (default nbs/results/extended_plt/bench.csv)")
    ap.add_argument("--memory", action="store_true", help="row blocks vs one piece: memory and time of the dense set")
    ap.add_argument("--memory-imdb", action="store_true",
                    help="the same on the full imdb, with a child that trains the normal model as the baseline")
    args = ap.parse_args()
    if args.memory_imdb: memory_imdb(out=args.out)
    elif args.memory: memory(out=args.out)
    else: main(out=args.out)
