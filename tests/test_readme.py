"""The README is the home page (nbs/index.ipynb) as `tools/make_readme.py` writes it, and every page it links
exists under the name nbdev gives it on the published site."""
import re, subprocess, sys
from pathlib import Path

import nbformat
from nbdev.doclinks import _nbpath2html

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import make_readme  # noqa: E402


def page_names():
    "nbdev's output name of every notebook of the book (`10_fals.ipynb` -> `fals.html`)."
    return {_nbpath2html(p).name for p in (ROOT / "nbs").glob("*.ipynb") if not p.name.startswith("_")}


def test_readme_is_made_from_the_index():
    nb = nbformat.read(ROOT / "nbs" / "index.ipynb", as_version=4)
    want = make_readme.absolute_links(make_readme.to_markdown(nb), make_readme.site_url())
    assert (ROOT / "README.md").read_text(encoding="utf-8") == want, "README.md is stale: run `make readme`"


def test_links_use_nbdev_page_names():
    pages = page_names()
    assert {"fals.html", "prakel.html", "data.html", "fals_experiments.html", "index.html"} <= pages
    index = "\n".join(c.source for c in nbformat.read(ROOT / "nbs" / "index.ipynb", as_version=4).cells)
    local = re.findall(r"\]\(([\w\-]+\.html)(?:#[^)]*)?\)", index)
    assert local and set(local) <= pages, set(local) - pages
    site = make_readme.site_url()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = re.findall(rf"\]\({re.escape(site)}([\w\-]+\.html)", readme)
    assert set(linked) == set(local), set(linked) ^ set(local)
    assert not re.search(r"\]\(\d+[a-z]?_\w+\.html", index + readme), "a link keeps the notebook's number prefix"
    chapters = {f"{c}{suffix}.html" for c in ("fals", "extended_plt", "prakel", "alternatives")
                for suffix in ("", "_experiments")}
    assert chapters <= set(local), chapters - set(local)


def test_readme_covers_a_newcomers_questions():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for must in ("make demo", "make test", "Python 3.10", "pip install -e", "ipykernel install", "import mlxplain",
                 "https://mlxplain.github.io/mlxplain/", "MLXPLAIN_DATA", "manual"):
        assert must in readme, must


def _commands(md: str) -> list:
    "The shell commands the page shows: the lines of its sh blocks and its inline code that start with a program."
    lines = [l for b in re.findall(r"```sh\n(.*?)```", md, re.S) for l in b.splitlines()]
    inline = re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", md, flags=re.S))
    return [c.split("  #")[0].strip() for c in lines + inline if re.match(r"(\.venv/bin/)?(mlxplain|dask)(\s|$)", c.strip())]


def test_every_command_shown_runs_as_written_after_make_demo():
    """`make demo` does not activate .venv, so a bare `mlxplain` is "command not found": every command names .venv's
    program, and every `mlxplain` command parses, with parts and data sets its chapter has."""
    from mlxplain.cli import _parser, reproduction_module
    from mlxplain.experiments import check_parts
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    cmds = _commands(readme)
    assert len([c for c in cmds if "mlxplain reproduce" in c]) >= 5
    bare = [c for c in cmds if not c.startswith(".venv/bin/")]
    assert bare == [], f"commands that need an activated .venv: {bare}"
    for c in cmds:
        prog, *argv = c.split()
        assert (ROOT / prog).name in ("mlxplain", "dask")
        if Path(prog).name != "mlxplain" or not argv: continue      # a program named in prose
        args = _parser().parse_args(argv)                              # exits (status 2) on a bad option
        if args.cmd == "reproduce":
            mod = reproduction_module(args.chapter)
            check_parts(args.parts, mod.PARTS, mod.DEFAULT_PARTS)
            known = {*mod.DATASETS, *getattr(mod, "CONFIRM_SETS", ()), *(d for s in getattr(mod, "PART_DATASETS", {}).values() for d in s)}
            assert set(args.datasets or ()) <= known, c
    venv = ROOT / ".venv" / "bin" / "mlxplain"
    if Path(sys.prefix).resolve() == (ROOT / ".venv").resolve():      # the suite runs from make's environment
        assert venv.exists()
