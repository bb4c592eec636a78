"""Local preview of the documentation site where Quarto cannot be installed.

The hosted site is built by `nbdev_docs` (Quarto). Here we run the same first stage — nbdev's
notebook processing (`proc_nbs`: directives, hidden cells, show_doc, exported-code handling) — and
render each processed notebook to HTML with nbconvert, with a navigation bar linking the chapters.
What Quarto would do with the rest is imitated closely enough to read the pages: the front matter
becomes the page's title and summary, `#| echo: false` cells show only their output, directive
lines are not shown. (Formulas are typeset by MathJax, loaded from its CDN or from `--mathjax URL`.)
Usage: python tools/preview_docs.py [--out _preview]
"""
import argparse, html, re, shutil
from pathlib import Path
import nbformat, yaml
from nbconvert import HTMLExporter
from nbdev.config import get_config
from nbdev.quarto import refresh_quarto_yml, proc_nbs
import nbdev.doclinks

DIRECTIVE = re.compile(r"^\s*#\|\s*(.*)$")

def front_matter(nb):
    "The YAML front matter nbdev's processing puts in a raw cell (title, description), or {}."
    for c in nb.cells:
        if c.cell_type == "raw" and c.source.lstrip().startswith("---"):
            try: return yaml.safe_load(c.source.strip().strip("-")) or {}
            except yaml.YAMLError: return {}
    return {}

def quarto_like(nb):
    "Front matter → title heading and summary; `echo: false` cells lose their input; directive lines are dropped."
    fm, cells = front_matter(nb), []
    for c in nb.cells:
        if c.cell_type == "raw" and c.source.lstrip().startswith("---"):
            head = f"# {fm.get('title', '')}" + (f"\n\n> {fm['description']}" if fm.get("description") else "")
            cells.append(nbformat.v4.new_markdown_cell(head)); continue
        if c.cell_type == "code":
            lines = c.source.splitlines()
            dirs = [m.group(1).strip() for l in lines if (m := DIRECTIVE.match(l))]
            c.source = "\n".join(l for l in lines if not DIRECTIVE.match(l)).strip("\n")
            if any(re.match(r"echo:\s*false", d) for d in dirs):
                c.metadata.setdefault("tags", []).append("remove_input")
        cells.append(c)
    nb.cells = cells
    return nb

def main(out="_preview", mathjax=None):  # mathjax: URL of MathJax.js (default: nbconvert's CDN)
    cfg = get_config()
    refresh_quarto_yml()
    nbdev.doclinks._build_modidx()
    proc_nbs(cfg.nbs_path, n_workers=0, force=True)  # nbdev's own processing, as nbdev_docs does before Quarto
    proc = cfg.config_path / "_proc"
    out = Path(out); shutil.rmtree(out, ignore_errors=True); out.mkdir(parents=True)
    pages = []
    for f in sorted(proc.glob("*.ipynb")):
        if f.name.startswith("_"): continue
        nb = nbformat.read(f, as_version=4)
        title = str(front_matter(nb).get("title") or f.stem)
        name = "index.html" if f.stem == "index" else f.stem + ".html"
        pages.append((name, title, quarto_like(nb)))
    pages.sort(key=lambda p: (p[0] != "index.html", p[0]))
    nav = "<nav class='mlx-nav'>" + " | ".join(
        f"<a href='{n}'>{html.escape(t.split(':')[0])}</a>" for n, t, _ in pages) + "</nav>"
    style = ("<style>.mlx-nav{position:sticky;top:0;background:#2c3e50;padding:.6em 1em;z-index:10;font-family:sans-serif}"
             ".mlx-nav a{color:#fff;margin:0 .3em;text-decoration:none}</style>")
    exp = HTMLExporter(template_name="lab")
    exp.exclude_input_prompt = exp.exclude_output_prompt = True
    if mathjax: exp.mathjax_url = mathjax + ("" if "?" in mathjax else "?config=TeX-AMS_CHTML-full,Safe")
    exp.register_preprocessor("nbconvert.preprocessors.TagRemovePreprocessor", enabled=True)
    exp.config.TagRemovePreprocessor.remove_input_tags = ("remove_input",)
    exp.config.TagRemovePreprocessor.enabled = True
    for name, title, nb in pages:
        body, _ = exp.from_notebook_node(nb)
        body = body.replace("<body", "<body data-page='" + html.escape(name) + "'", 1)
        body = re.sub(r"(<body[^>]*>)", lambda m: m.group(1) + style + nav, body, count=1)
        body = re.sub(r"<title>.*?</title>", f"<title>{html.escape(title)} – mlxplain</title>", body, count=1, flags=re.S)
        (out / name).write_text(body, encoding="utf-8")
    print(f"preview of {len(pages)} pages written to {out.resolve()}/index.html")

if __name__ == "__main__":
    ap = argparse.ArgumentParser(); ap.add_argument("--out", default="_preview")
    ap.add_argument("--mathjax", default=None, help="URL of MathJax.js, e.g. a local copy where the CDN is unreachable")
    a = ap.parse_args(); main(a.out, a.mathjax)
