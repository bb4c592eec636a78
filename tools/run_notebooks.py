"""Execute notebooks in place so committed notebooks carry their outputs (tables, figures) for the docs.

Cells flagged `#| slow` (full reproductions) are not executed: their previous outputs are kept. The kernels run with
`TQDM_DISABLE=1`, so the pages carry no progress bars (a bar asked for explicitly, `verbose=1`, still shows).
Usage: python tools/run_notebooks.py nbs [nbs/10_fals.ipynb ...]
"""
import os, sys, re, copy, time
from pathlib import Path
import nbformat
from nbclient import NotebookClient

SLOW = re.compile(r"^\s*#\|\s*slow\b", re.M)

def run(path: Path, timeout=1800):
    nb = nbformat.read(path, as_version=4)
    work = copy.deepcopy(nb)
    skipped = []
    for i, c in enumerate(work.cells):
        if c.cell_type == "code" and SLOW.search(c.source):
            c.cell_type, skipped = "raw", skipped + [i]
            c.pop("outputs", None); c.pop("execution_count", None)
    t = time.time()
    # figures must reach the notebook: a non-interactive MPLBACKEND (Agg, set for tests) would swallow them
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    os.environ.setdefault("TQDM_DISABLE", "1")   # tqdm's default for `disable`: no bars (and their it/s) in the pages
    NotebookClient(work, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    for i, (c, w) in enumerate(zip(nb.cells, work.cells)):
        if c.cell_type == "code" and i not in skipped:
            # the kernel's start-up warning and tqdm's missing-widget warning are the runner's, not the notebook's
            c.outputs = [o for o in w.outputs if not (o.get("output_type") == "stream" and any(
                noise in o.get("text", "") for noise in ("Kernel is running over TCP", "TqdmWarning: IProgress not found")))]
            c.execution_count = w.get("execution_count")
    nbformat.write(nb, path)
    print(f"{path}: {time.time()-t:.1f}s, {len(skipped)} slow cell(s) kept as they were")

if __name__ == "__main__":
    args = [Path(a) for a in sys.argv[1:]] or [Path("nbs")]
    files = [f for a in args for f in (sorted(a.glob("*.ipynb")) if a.is_dir() else [a])]
    for f in files:
        if not f.name.startswith("_"): run(f)
