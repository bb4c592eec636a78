"""How long each page of the book takes to read, and where an experiments page shows its first result.

Reading time = prose words / 200 + shown code lines / 20 (minutes). What nbdev shows decides what counts:
markdown cells are prose; a code cell's source is shown unless a directive hides it (`#| export`, `#| exporti`,
`#| hide`, `#| echo: false`, `#| include: false`); `#| exports` and plain cells are shown. Directive lines and
blank lines are not counted. Outputs are not counted (a reader skims them).

Limits: a chapter's method page ≤ 45 min; its experiments page (`NNa_*_experiments`) ≤ 40 min; any other page ≤ 45 min. An
experiments page must reach its results heading (a level-2 heading starting with "Results" or "What we found")
within its first 15 % of cells.

Usage: python tools/reading_time.py [nbs] [--check]   (--check: exit 1 when a page breaks a limit)
"""
import argparse
import json
import re
import sys
from pathlib import Path

WORDS_PER_MIN, LINES_PER_MIN = 200, 20
LIMIT_METHOD, LIMIT_EXPERIMENTS = 45.0, 40.0
RESULTS_SHARE = 0.15
DIRECTIVE = re.compile(r"^\s*#\|\s*([\w-]+)\s*:?\s*(.*?)\s*$")
HIDES_SOURCE = {"export", "exporti", "hide"}
RESULTS_HEADING = re.compile(r"^##\s+(Results|What we found)\b", re.M | re.I)


def _directives(src: str) -> dict:
    "The cell's `#| name: value` directives (name -> value, '' for flags)."
    out = {}
    for line in src.splitlines():
        m = DIRECTIVE.match(line)
        if m: out[m.group(1).lower()] = m.group(2).lower()
        elif line.strip(): break  # directives come first
    return out


def _shown_lines(src: str) -> int:
    "Shown source lines of a code cell (0 when nbdev hides its source)."
    d = _directives(src)
    if HIDES_SOURCE & set(d) or d.get("echo") == "false" or d.get("include") == "false": return 0
    return sum(1 for line in src.splitlines() if line.strip() and not DIRECTIVE.match(line))


def _words(md: str) -> int:
    "Words of a markdown cell, HTML tags and link targets left out."
    md = re.sub(r"<[^>]+>", " ", md)
    md = re.sub(r"\]\([^)]*\)", "]", md)
    return len(md.split())


def page_stats(path) -> dict:
    "Reading time and its parts for one notebook."
    cells = json.loads(Path(path).read_text())["cells"]
    words = sum(_words("".join(c["source"])) for c in cells if c["cell_type"] == "markdown")
    lines = sum(_shown_lines("".join(c["source"])) for c in cells if c["cell_type"] == "code")
    first = next((i for i, c in enumerate(cells) if c["cell_type"] == "markdown"
                  and RESULTS_HEADING.search("".join(c["source"]))), None)
    name = Path(path).stem
    experiments = bool(re.match(r"^\d+a_.*_experiments$", name))   # a chapter's experiments page
    return dict(page=name, words=words, code_lines=lines, minutes=round(words / WORDS_PER_MIN + lines / LINES_PER_MIN, 1),
                cells=len(cells), results_cell=first, experiments=experiments,
                limit=LIMIT_EXPERIMENTS if experiments else LIMIT_METHOD)


def problems(stats: dict) -> list:
    "What breaks a limit on this page (empty when none)."
    out = []
    if stats["minutes"] > stats["limit"]:
        out.append(f"{stats['page']}: {stats['minutes']} min to read (limit {stats['limit']:.0f})")
    if stats["experiments"]:
        if stats["results_cell"] is None: out.append(f"{stats['page']}: no results heading")
        elif stats["results_cell"] > RESULTS_SHARE * stats["cells"]:
            out.append(f"{stats['page']}: results heading at cell {stats['results_cell']} of {stats['cells']} "
                       f"(must be within the first {RESULTS_SHARE:.0%})")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("nbs", nargs="?", default="nbs")
    ap.add_argument("--check", action="store_true", help="exit 1 when a page breaks a limit")
    a = ap.parse_args(argv)
    rows = [page_stats(p) for p in sorted(Path(a.nbs).glob("*.ipynb")) if not p.name.startswith("_")]
    print(f"{'page':40} {'min':>6} {'words':>7} {'code':>6} {'results at':>12}")
    for r in rows:
        at = "" if not r["experiments"] else ("-" if r["results_cell"] is None else f"{r['results_cell']}/{r['cells']}")
        print(f"{r['page']:40} {r['minutes']:6.1f} {r['words']:7d} {r['code_lines']:6d} {at:>12}")
    bad = [p for r in rows for p in problems(r)]
    for p in bad: print("over the limit:", p)
    return 1 if a.check and bad else 0


if __name__ == "__main__":
    sys.exit(main())
