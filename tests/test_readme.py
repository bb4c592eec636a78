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
