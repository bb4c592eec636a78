"""Local preview of the documentation site where Quarto cannot be installed.

The hosted site is built by `nbdev_docs` (Quarto). Here we run the same first stage — nbdev's
notebook processing (`proc_nbs`: directives, hidden cells, show_doc, exported-code handling) — and
render each processed notebook to HTML with nbconvert, with a navigation bar linking the chapters.
Usage: python tools/preview_docs.py [--out _preview]
"""
import argparse, html, re, shutil
from pathlib import Path
import nbformat
from nbconvert import HTMLExporter
from nbdev.config import get_config
from nbdev.quarto import refresh_quarto_yml, proc_nbs
import nbdev.doclinks

def title_of(nb, default):
    for c in nb.cells:
        if c.cell_type == "markdown":
            m = re.search(r"^#\s+(.+)$", c.source, re.M)
            if m: return m.group(1).strip()
        # processed notebooks carry the title in a raw front-matter cell
        if c.cell_type == "raw":
            m = re.search(r"^title:\s*(.+)$", c.source, re.M)
            if m: return m.group(1).strip().strip('"')
    return default

def main(out="_preview"):
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
        name = "index.html" if f.stem == "index" else f.stem + ".html"
        pages.append((name, title_of(nb, f.stem), nb))
    pages.sort(key=lambda p: (p[0] != "index.html", p[0]))
    nav = "<nav class='mlx-nav'>" + " | ".join(
        f"<a href='{n}'>{html.escape(t)}</a>" for n, t, _ in pages) + "</nav>"
    style = ("<style>.mlx-nav{position:sticky;top:0;background:#2c3e50;padding:.6em 1em;z-index:10;font-family:sans-serif}"
             ".mlx-nav a{color:#fff;margin:0 .3em;text-decoration:none}</style>")
    exp = HTMLExporter(template_name="lab")
    for name, title, nb in pages:
        body, _ = exp.from_notebook_node(nb)
        body = body.replace("<body", "<body data-page='" + html.escape(name) + "'", 1)
        body = re.sub(r"(<body[^>]*>)", lambda m: m.group(1) + style + nav, body, count=1)
        body = re.sub(r"<title>.*?</title>", f"<title>{html.escape(title)} – mlxplain</title>", body, count=1, flags=re.S)
        (out / name).write_text(body, encoding="utf-8")
    print(f"preview of {len(pages)} pages written to {out.resolve()}/index.html")

if __name__ == "__main__":
    ap = argparse.ArgumentParser(); ap.add_argument("--out", default="_preview")
    main(ap.parse_args().out)
