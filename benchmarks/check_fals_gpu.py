"""FALS on a GPU: the exact scores of one trained network agree between devices, and fit times (CPU vs CUDA).
Usage (on a machine with a CUDA GPU; data under $MLXPLAIN_DATA): python benchmarks/check_fals_gpu.py
Writes fals_gpu.json to $OUT (default: the current folder); nbs/results/fals/gpu_h100.json is one such run."""
import copy, json, os, sys, time
import numpy as np
import torch
from mlxplain.data import load_split
from mlxplain.fals import FALS, tlp_scores

out = {"torch": torch.__version__, "cuda": torch.cuda.is_available(),
       "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None, "cpus": os.cpu_count()}
for name in ("bibtex", "delicious"):
    tr, _ = load_split(name)
    X, Y = tr.X, tr.Y_dense
    row = {"N": X.shape[0], "D": X.shape[1], "C": Y.shape[1]}
    for dev, threads in (("cpu", 1), ("cpu", 16), ("cuda", 1)):
        FALS(k=0.1, epochs=1, device=dev, n_threads=threads, random_state=0).fit(X[:500], Y[:500])  # warm-up
        if dev == "cuda": torch.cuda.synchronize()
        t = time.perf_counter()
        f = FALS(k=0.1, device=dev, n_threads=threads, random_state=0).fit(X, Y)
        if dev == "cuda": torch.cuda.synchronize()
        row[f"fit_s_{dev}{threads}"] = round(time.perf_counter() - t, 3)
        if dev == "cpu" and threads == 1: f_cpu = f
        if dev == "cuda": f_gpu = f
    # one network, two devices: Eq. 12's scores must agree to float32 rounding
    m_cpu = f_cpu.model_.cpu().eval()
    s_cpu = tlp_scores(m_cpu, X, device="cpu")
    s_gpu = tlp_scores(copy.deepcopy(m_cpu).cuda(), X, device="cuda")
    s_cpu, s_gpu = np.asarray(s_cpu, dtype=np.float64), np.asarray(s_gpu, dtype=np.float64)
    row["scores_rel_err"] = float(np.linalg.norm(s_gpu - s_cpu) / np.linalg.norm(s_cpu))
    t = time.perf_counter(); tlp_scores(copy.deepcopy(m_cpu).cuda(), X, device="cuda"); torch.cuda.synchronize()
    row["score_s_cuda"] = round(time.perf_counter() - t, 3)
    t = time.perf_counter(); tlp_scores(m_cpu, X, device="cpu"); row["score_s_cpu"] = round(time.perf_counter() - t, 3)
    # networks trained on the two devices: how many selected features agree (float order differs on a GPU)
    jac = [len(np.intersect1d(a, b)) / len(np.union1d(a, b)) for a, b in zip(f_cpu.selected_, f_gpu.selected_)]
    row["jaccard_cpu_vs_cuda_trained"] = round(float(np.mean(jac)), 3)
    out[name] = row
    print(name, row, flush=True)
json.dump(out, open(os.path.join(os.environ.get("OUT", "."), "fals_gpu.json"), "w"), indent=1)
