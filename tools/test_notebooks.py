"""Run the book's notebooks as `nbdev_test` does, and check that their saved outputs are what the code prints now.

Each notebook is executed once, with nbdev's own rules (cells flagged with the `tst_flags` of settings.ini,
`slow`, are skipped, as are `#| eval: false` cells): a cell that raises fails the notebook, as with `nbdev_test`.
Then every executed cell's output is compared with the output saved in the notebook, which is what the
documentation shows. Compared are the printed text (stdout), results and displayed text (`text/plain`,
`text/markdown`, or `text/html` with its tags stripped) and the number of figures; numbers inside the text
agree within a relative tolerance (`--rtol`, 1e-3) so that the last digits of floating point results may
differ between machines. Standard error (warnings, progress bars) is not compared. A difference fails the
notebook with the cell's id and the first differing lines; refresh the saved outputs with `make run-nbs`.

Two things make a run here print what a Jupyter kernel would: pandas' display options are reset to a kernel's
before each notebook (pandas takes any IPython shell that is not a kernel for a terminal and then fits a table to
the terminal's width, where a kernel wraps it at 80 characters), and a cell that skipped its data part because a
data set cannot be had on this machine (`have_data`'s line "skipped: data set …", now or in the saved output) is
run but not compared: its saved output was made with the data.

Usage: python tools/test_notebooks.py [nbs/10_fals.ipynb ...] [--flags slow] [--no-outputs] [--rtol 1e-3]
"""
import argparse
import difflib
import html
import os
import re
import sys
import time
import traceback
from pathlib import Path

NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
TAG = re.compile(r"<[^>]+>")
SOURCE_LINK = re.compile(r"#L(\d+|None)")
_TQDM = re.compile(r"\d+%\|")    # a progress bar's line
NO_DATA = "skipped: data set "   # mlxplain.experiments.have_data's line: the cell skipped its data part


def _text(outputs) -> tuple[list[str], int]:
    "The comparable text lines of a cell's outputs, and how many figures they hold."
    lines, figures = [], 0
    for o in outputs or []:
        kind = o.get("output_type")
        if kind == "stream":
            if o.get("name") == "stdout": lines += [l for l in _join(o.get("text")).splitlines() if not _TQDM.search(l)]
        elif kind in ("execute_result", "display_data"):
            data = o.get("data", {})
            if any(k.startswith("image/") for k in data): figures += 1
            if "text/markdown" in data: lines += _join(data["text/markdown"]).splitlines()
            elif "text/html" in data and "text/plain" not in data:
                lines += [html.unescape(TAG.sub("", l)) for l in _join(data["text/html"]).splitlines()]
            elif "text/plain" in data and not any(k.startswith("image/") for k in data):
                lines += _join(data["text/plain"]).splitlines()
        elif kind == "error":
            lines.append(f"{o.get('ename')}: {o.get('evalue')}")
    # show_doc's "[source](…#L83)" link: its line number depends on how the module was installed
    return [SOURCE_LINK.sub("#L", l.rstrip()) for l in lines if l.strip()], figures


def _join(t) -> str:
    return "".join(t) if isinstance(t, list) else (t or "")


def _same_line(a: str, b: str, rtol: float) -> bool:
    "Whether two lines agree: equal text around the numbers, numbers within `rtol`."
    if a == b: return True
    if NUMBER.sub("#", a) != NUMBER.sub("#", b): return False
    for x, y in zip(NUMBER.findall(a), NUMBER.findall(b)):
        fx, fy = float(x), float(y)
        if abs(fx - fy) > rtol * max(abs(fx), abs(fy)) + 1e-12:
            # a number printed with few digits is as close as its last digit allows
            digits = len(x.split(".")[1]) if "." in x and "e" not in x.lower() else 0
            if abs(fx - fy) > 10 ** -digits: return False
    return True


def compare(saved, now, rtol=1e-3) -> list[str]:
    "The differences between a cell's saved outputs and the ones it gives now (empty when they agree)."
    (a, fa), (b, fb) = _text(saved), _text(now)
    if any(l.startswith(NO_DATA) for l in a + b): return []   # run with and without a data set: not comparable
    out = []
    if fa != fb: out.append(f"{fa} figure(s) saved, {fb} now")
    if len(a) != len(b) or not all(_same_line(x, y, rtol) for x, y in zip(a, b)):
        diff = list(difflib.unified_diff(a, b, "saved", "now", n=0, lineterm=""))
        out.append("\n".join(diff[:12] + (["..."] if len(diff) > 12 else [])))
    return out


def _kernel_display():
    "pandas' display options as a Jupyter kernel starts with them (a notebook's own settings do not reach the next)."
    import pandas as pd
    pd.reset_option("display")          # every option under display.*, back to its registered default ...
    pd.set_option("display.max_columns", 20)   # ... and the one default pandas registers otherwise in a kernel


def run(path: Path, skip_flags, check_outputs=True, rtol=1e-3) -> tuple[bool, float, list]:
    "Execute one notebook as nbdev_test does; (passed, seconds, messages)."
    from execnb.nbio import read_nb
    from execnb.shell import CaptureShell
    from fastcore.xtras import working_directory
    from nbdev.frontmatter import FrontmatterProc
    from nbdev.process import NBProcessor
    saved = {c.get("id"): c.get("outputs", []) for c in read_nb(path).cells if c.cell_type == "code"}
    nb = NBProcessor(path, procs=FrontmatterProc, process=True).nb
    ran = set()

    def no_eval(cell):   # nbdev.test.test_nb's rule, remembering which cells ran
        if cell.cell_type != "code" or "nbdev_export" + "(" in cell.source: return True
        direc = getattr(cell, "directives_", {}) or {}
        if direc.get("eval:", [""])[0].lower() == "false" or set(skip_flags) & direc.keys(): return True
        ran.add(cell.get("id"))
        return False

    os.environ["IN_TEST"] = "1"
    _kernel_display()
    start, k = time.time(), CaptureShell(path)
    try:
        with working_directory(path.parent): k.run_all(nb, exc_stop=True, preproc=no_eval)
    except Exception:
        return False, time.time() - start, [k.prettytb(fname=path) if hasattr(k, "prettytb") else traceback.format_exc()]
    msgs = []
    if check_outputs:
        for c in nb.cells:
            if c.cell_type == "code" and c.get("id") in ran:
                for d in compare(saved.get(c.get("id"), []), c.get("outputs", []), rtol):
                    msgs.append(f"cell {c.get('id')}: saved output is not what the cell prints now:\n{d}")
    return not msgs, time.time() - start, msgs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", default=["nbs"])
    ap.add_argument("--flags", default="", help="space-separated flags of cells to run that are normally skipped")
    ap.add_argument("--no-outputs", action="store_true", help="only run the cells (as nbdev_test)")
    ap.add_argument("--rtol", type=float, default=1e-3)
    a = ap.parse_args(argv)
    from nbdev.config import get_config
    cfg = get_config()
    sys.path.insert(0, str(cfg.config_path))
    skip = set(cfg.tst_flags.split()) - set(a.flags.split())
    files = [f for p in map(Path, a.paths) for f in (sorted(p.glob("*.ipynb")) if p.is_dir() else [p])
             if not f.name.startswith("_") and not (f.parent / ".notest").exists()]
    failed = []
    for f in files:
        ok, secs, msgs = run(f.absolute(), skip, not a.no_outputs, a.rtol)
        print(f"{f.name}: {'ok' if ok else 'FAILED'} ({secs:.0f} s)", flush=True)
        for m in msgs: print("  " + m.replace("\n", "\n    "), file=sys.stderr)
        if not ok: failed.append(f.name)
    if failed:
        print(f"failed: {', '.join(failed)}" + ("" if a.no_outputs else
              " (stale outputs: refresh them with `make run-nbs`, then `nbdev_clean`)"), file=sys.stderr)
        return 1
    print("Success.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
