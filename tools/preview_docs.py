"""Local, offline preview of the documentation site where Quarto cannot be installed.

The hosted site is built by `nbdev_docs`: nbdev processes every notebook (directives, hidden and
exported cells, `show_doc` entries, links for backticked names) and Quarto renders the result.
This preview runs the same nbdev processing, then imitates what Quarto does with it:

- pages carry nbdev's names (`output-file` in the front matter: `10_fals.ipynb` → `fals.html`);
- the front matter becomes the page's title and summary; `echo: false` cells (every `show_doc`
  entry) show only their output, `output: false` cells only their input, `include: false` none;
- Quarto's attribute syntax (`[text](url){target="_blank"}`, `[text]{.class}`, `# Head {#id}`,
  `::: {.class}` divs) becomes HTML; heading ids follow Pandoc's rule, so `#name` anchors match;
- links to the site itself (`doc_host` + `doc_baseurl`, as nbdev writes them) and to notebooks
  become relative links between the preview's pages; local files the pages use are copied along;
- formulas are typeset by a local copy of MathJax 2 (the `jupyter-server-mathjax` package), so the
  preview works from file:// with no network. When typesetting ends, `<body>` gets
  `data-mathjax="done"`, or `"errors"` with the TeX errors in `data-mathjax-errors`.

Usage: python tools/preview_docs.py [--out _preview]
"""
import argparse
import html
from collections import Counter
import multiprocessing
import os
import re
import shutil
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urljoin, urlsplit

import nbformat
import yaml
from jinja2 import DictLoader
from nbconvert import HTMLExporter, TemplateExporter
from nbconvert.filters.highlight import Highlight2HTML
from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter
from traitlets.config import Config

import nbdev.serve_drv
from nbdev.config import get_config
from nbdev.doclinks import _build_modidx, nbglob
from nbdev.processors import FilterDefaults

DIRECTIVE = re.compile(r"^\s*#\|\s*([\w-]+)\s*:?\s*(.*?)\s*$")
LINK_ATTRS = re.compile(r"(?<!!)\[([^\]]*)\]\(([^)\s]+)\)\{([^}]*)\}")  # [text](url){attrs}
SPAN_ATTRS = re.compile(r"(?<![\]!])\[([^\]]+)\]\{([^}]*)\}")  # [text]{attrs}
HEADING_ATTRS = re.compile(r"^(#{1,6})\s+(.*?)\s*\{([^}]*)\}\s*$")  # ## Heading {#id .class}
FENCED_DIV = re.compile(r"^:{3,}\s*(\{[^}]*\}|[\w-]+)?\s*$")  # ::: {.callout-note} ... :::
ATTR_TOKEN = re.compile(r"""([#.][\w:.-]+)|([\w-]+)=(?:"([^"]*)"|'([^']*)'|(\S+))""")
HEADING = re.compile(r"<h([1-6])([^>]*)>(.*?)</h\1>", re.S)
URL_ATTR = re.compile(r"""\b(href|src)=(["'])(.*?)\2""", re.S)
MATHJAX_PARTS = ["MathJax.js", "config", "extensions", "fonts", "jax"]  # all but the translations

TEMPLATE = r"""{%- extends 'index.html.j2' -%}
{#- The lab template, with everything it would fetch from a CDN replaced or left out. -#}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block html_head_js_mathjax -%}{{ resources.mlx_mathjax }}{%- endblock html_head_js_mathjax -%}
{%- block extra_css -%}
<style>
.mlx-nav {position: sticky; top: 0; z-index: 10; background: #2c3e50; padding: .6em 1em;
          font-family: sans-serif}
.mlx-nav a {color: #fff; margin: 0 .3em; text-decoration: none}
.mlx-nav a.mlx-current {text-decoration: underline}
.mlx-summary {font-size: 1.15em; color: #555}
:target {scroll-margin-top: 5em}
</style>
{%- endblock extra_css -%}
{%- block body_header -%}{{ super() }}{{ resources.mlx_nav }}{%- endblock body_header -%}
{% block error -%}<div class="mlx-error-output">{{ super() }}</div>{%- endblock error %}
{#- The lab template runs Pygments' output through bleach, which costs a third of the export; Pygments
    escapes the source itself, so the highlighted code is inserted as it is. -#}
{% block input -%}
<div class="jp-CodeMirrorEditor jp-Editor jp-InputArea-editor" data-type="inline">
     <div class="cm-editor cm-s-jupyter">
{{ cell.source | highlight_code(metadata=cell.metadata) }}
     </div>
</div>
{%- endblock input %}
"""

MATHJAX = """<script>
window.MathJax = {
  TeX: {extensions: ["AMSmath.js", "AMSsymbols.js", "autoload-all.js"], equationNumbers: {autoNumber: "AMS"}},
  "HTML-CSS": {availableFonts: [], preferredFont: null, webFont: "STIX-Web", imageFont: null},
  tex2jax: {inlineMath: [["$", "$"], ["\\\\(", "\\\\)"]], displayMath: [["$$", "$$"], ["\\\\[", "\\\\]"]],
            processEscapes: true, processEnvironments: true},
  messageStyle: "none",
  "fast-preview": {disabled: true},  // typeset once, no rough preview first: 10-15 %% less work per page
  AuthorInit: function () {
    var errors = [];
    MathJax.Hub.Register.MessageHook("TeX Jax - parse error", function (m) {
      errors.push(m[1] + " in: " + m[2]);
    });
    MathJax.Hub.Register.MessageHook("Math Processing Error", function (m) {
      errors.push("Math Processing Error: " + (m[2] && m[2].message));
    });
    MathJax.Hub.Register.MessageHook("HTML-CSS Jax - web font error", function (m) {
      errors.push("web font not loaded: " + m[1]);
    });
    MathJax.Hub.Register.StartupHook("End", function () {
      document.body.setAttribute("data-mathjax", errors.length ? "errors" : "done");
      if (errors.length) document.body.setAttribute("data-mathjax-errors", errors.join(" | "));
    });
  }
};
</script>
<script src="%s?config=TeX-AMS-MML_HTMLorMML-full"></script>
"""


def mathjax_dir():
    "The MathJax 2 distribution shipped by the `jupyter-server-mathjax` package."
    try:
        import jupyter_server_mathjax
    except ImportError:
        raise SystemExit("the preview typesets formulas offline with MathJax 2: "
                         "pip install jupyter-server-mathjax (a dev requirement)")
    return Path(jupyter_server_mathjax.__file__).parent / "static"


def failure(e):
    "What went wrong in a worker: nbdev's message (notebook, cell) and the error the cell raised."
    tb = str(e.__cause__ or "").splitlines()  # the worker's traceback, as concurrent.futures passes it on
    marks = [i for i, line in enumerate(tb) if line.startswith("The above exception was the direct cause")]
    cause = [line for line in tb[:marks[0]] if line.strip()][-1] if marks else ""
    return f"{e}\n{cause}".strip()


def process_notebooks(nbs, dest, workers):
    "Every notebook under `nbs` processed by nbdev into `dest`: [(notebook, processed)], [failures]."
    jobs = []
    for src in nbglob(nbs, func=Path):  # skips `_scratch` notebooks and `.`/`_` folders, as nbdev does
        dst = dest / src.relative_to(nbs)
        dst.parent.mkdir(parents=True, exist_ok=True)
        jobs.append((src, dst))
    done, failed = [], []
    # nbdev's own processing, in worker processes as `proc_nbs` runs it for `nbdev_docs`
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(nbdev.serve_drv.main, (src, dst, FilterDefaults)) for src, dst in jobs]
        for (src, dst), future in zip(jobs, futures):
            if future.exception() is None:
                done.append((src, dst))
            else:  # nbdev_docs stops here; the preview renders the other pages, then fails
                failed.append(f"{src.relative_to(nbs)}: {failure(future.exception())}")
    return sorted(done), failed


def front_matter(nb):
    "The YAML front matter nbdev puts in a raw cell (title, description, output-file), or {}."
    for cell in nb.cells:
        if cell.cell_type == "raw" and cell.source.lstrip().startswith("---"):
            try:
                return yaml.safe_load(cell.source.strip().strip("-")) or {}
            except yaml.YAMLError:
                return {}
    return {}


def parse_attrs(text):
    "Quarto/Pandoc attributes `#id .class key=value` → an HTML attribute string."
    ids, classes, pairs = [], [], []
    for m in ATTR_TOKEN.finditer(text):
        if m.group(1):
            (ids if m.group(1)[0] == "#" else classes).append(m.group(1)[1:])
        else:
            value = next(v for v in m.group(3, 4, 5) if v is not None)
            pairs.append((m.group(2), value))
    attrs = [("id", ids[0])] if ids else []
    attrs += [("class", " ".join(classes))] if classes else []
    return "".join(f' {k}="{html.escape(v)}"' for k, v in attrs + pairs)


def quarto_markdown(md):
    "Quarto's attribute syntax in markdown (outside code fences) → plain HTML that any renderer shows."
    out, in_fence = [], False
    for line in md.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        if in_fence or line.lstrip().startswith(("```", "~~~")):
            out.append(line)
            continue
        div, head = FENCED_DIV.match(line), HEADING_ATTRS.match(line)
        if div:  # Quarto div: open with its attributes, a bare `:::` closes
            opening = div.group(1)
            if opening:
                attrs = parse_attrs(opening.strip("{}") if opening.startswith("{") else "." + opening)
                out += ["", f"<div{attrs}>", ""]
            else:
                out += ["", "</div>", ""]
            continue
        if head:
            level = len(head.group(1))
            text = re.sub(r"`([^`]+)`", lambda m: f"<code>{html.escape(m[1])}</code>", head.group(2))
            out.append(f"<h{level}{parse_attrs(head.group(3))}>{text}</h{level}>")
            continue
        line = LINK_ATTRS.sub(lambda m: f'<a href="{html.escape(m[2])}"{parse_attrs(m[3])}>{m[1]}</a>', line)
        out.append(SPAN_ATTRS.sub(lambda m: f"<span{parse_attrs(m[2])}>{m[1]}</span>", line))
    return "\n".join(out)


def quarto_like(nb):
    "Apply Quarto's treatment of front matter, cell options and markdown to a processed notebook."
    fm, cells = front_matter(nb), []
    for cell in nb.cells:
        if cell.cell_type == "raw" and cell.source.lstrip().startswith("---"):
            head = f"# {fm.get('title', '')}"
            if fm.get("description"):
                head += f"\n\n<div class=\"mlx-summary\">\n\n{fm['description']}\n\n</div>"
            cells.append(nbformat.v4.new_markdown_cell(head))
            continue
        if cell.cell_type == "markdown":
            cell.source = quarto_markdown(cell.source)
        if cell.cell_type != "code":
            cells.append(cell)
            continue
        lines = cell.source.splitlines()
        opts = {m[1]: m[2].lower() for m in map(DIRECTIVE.match, lines) if m}
        cell.source = "\n".join(line for line in lines if not DIRECTIVE.match(line)).strip("\n")
        if opts.get("include") == "false":
            continue
        if opts.get("output") == "false":
            cell.outputs = []
        if opts.get("echo") == "false" or not cell.source.strip():
            cell.metadata.setdefault("tags", []).append("remove_input")
        for out in cell.get("outputs", []):
            if "text/markdown" in out.get("data", {}):
                out.data["text/markdown"] = quarto_markdown(out.data["text/markdown"])
        if cell.source.strip() or cell.outputs:
            cells.append(cell)
    nb.cells = cells
    return nb


def pandoc_id(text):
    "Pandoc's automatic identifier for a heading's text (the anchors Quarto's pages and nbdev's links use)."
    text = re.sub(r"\s+", "-", text.strip().lower())
    text = "".join(ch for ch in text if ch.isalnum() or ch in "_-.")
    text = re.sub(r"^[^a-z]*", "", text)  # an identifier starts with a letter
    return text or "section"


def heading_ids(page_html):
    "Give the headings nbconvert rendered Pandoc's identifiers (unique per page, as Pandoc makes them)."
    seen = set()

    def fix(m):
        level, attrs, inner = m.groups()
        if "anchor-link" not in inner:  # a heading written in HTML keeps its own id
            return m.group(0)
        text = re.sub(r"<a class=\"anchor-link\".*?</a>", "", inner, flags=re.S)
        base = pandoc_id(html.unescape(re.sub(r"<[^>]+>", "", text)))
        new, n = base, 0
        while new in seen:
            n += 1
            new = f"{base}-{n}"
        seen.add(new)
        attrs = re.sub(r'\bid="[^"]*"', f'id="{html.escape(new)}"', attrs)
        inner = re.sub(r'(class="anchor-link" href=")#[^"]*"', rf'\1#{html.escape(new)}"', inner)
        return f"<h{level}{attrs}>{inner}</h{level}>"

    return HEADING.sub(fix, page_html)


class Site:
    "Where each notebook's page lies, and how a link in one page reaches another page or file."

    def __init__(self, cfg, nbs, out, pages):  # pages: {notebook path relative to nbs: page path}
        self.nbs, self.out, self.pages = nbs, out, pages
        base = urljoin(cfg.doc_host + "/", cfg.doc_baseurl).rstrip("/")
        self.bases = [base, base.replace("https://", "http://", 1)]

    def local(self, url, page):
        "`url` (as written in `page`) as a link relative to the preview, or None when it is external."
        for base in self.bases:
            if url == base or url.startswith(base + "/") or url.startswith(base + "#"):
                target, _, frag = url[len(base):].lstrip("/").partition("#")
                rel = os.path.relpath(target or "index.html", str(PurePosixPath(page).parent))
                return rel + (f"#{frag}" if frag else "")
        parts = urlsplit(url)
        if parts.scheme or parts.netloc or not parts.path:
            return None
        return url

    def rewrite(self, page_html, page, nb_dir):
        "Site and notebook links → relative page links; local files the page uses are copied along."
        def fix(m):
            attr, quote, raw = m.groups()
            url = self.local(html.unescape(raw), page)
            if url is None:
                return m.group(0)
            path, _, frag = url.partition("#")
            path = unquote(path.split("?")[0])
            src = (nb_dir / path).resolve()
            src_rel = src.relative_to(self.nbs) if src.is_relative_to(self.nbs) else None
            if src_rel is not None and src_rel.as_posix() in self.pages:  # a link to a notebook
                target = self.pages[src_rel.as_posix()]
                url = os.path.relpath(target, str(PurePosixPath(page).parent)) + (f"#{frag}" if frag else "")
            elif src_rel is not None and src.is_file() and not (self.out / src_rel).exists():
                dest = self.out / src_rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dest)
            return f"{attr}={quote}{html.escape(url)}{quote}"

        return URL_ATTR.sub(fix, page_html)


class PreviewExporter(HTMLExporter):
    """nbconvert's HTML exporter without its last step, a BeautifulSoup pass that adds alt texts and tab stops.

    That pass parses and re-serialises every page (each highlighted token is a `<span>`): two thirds of the
    export time. Quarto, for which the preview stands in, makes no such pass. The filters are those that
    `HTMLExporter.from_notebook_node` registers before it renders (nbconvert 7).
    """

    def from_notebook_node(self, nb, resources=None, **kw):
        lang = nb.metadata.get("language_info", {})
        lexer = lang.get("pygments_lexer", lang.get("name", None))
        self.register_filter("highlight_code", Highlight2HTML(pygments_lexer=lexer, parent=self))
        resources = self._init_resources(resources)
        self.register_filter("filter_data_type", WidgetsDataTypeFilter(
            notebook_metadata=self._nb_metadata, parent=self, resources=resources))
        return TemplateExporter.from_notebook_node(self, nb, resources, **kw)


def exporter():
    "nbconvert's lab template without prompts, CDN scripts or the inputs of `echo: false` cells."
    c = Config()
    c.TagRemovePreprocessor.enabled = True
    c.TagRemovePreprocessor.remove_input_tags = {"remove_input"}
    c.HTMLExporter.exclude_input_prompt = True
    c.HTMLExporter.exclude_output_prompt = True
    exp = PreviewExporter(config=c, template_name="lab", extra_loaders=[DictLoader({"mlx.html.j2": TEMPLATE})])
    exp.template_file = "mlx.html.j2"
    return exp


def main(out="_preview", workers=2):
    cfg = get_config()
    nbs = Path(cfg.nbs_path).resolve()
    _build_modidx(skip_exists=True)  # nbdev_export keeps `_modidx.py` (the targets of doc links) current
    out = Path(out).resolve()
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    mj = out / "mathjax"
    mj.mkdir()
    for part in MATHJAX_PARTS:
        src = mathjax_dir() / part
        if src.is_dir():
            shutil.copytree(src, mj / part)
        else:
            shutil.copy2(src, mj / part)
    with tempfile.TemporaryDirectory() as tmp:
        docs = []
        processed, failed = process_notebooks(nbs, Path(tmp), workers)
        for src, dst in processed:
            nb = nbformat.read(dst, as_version=4)
            fm = front_matter(nb)
            rel = src.relative_to(nbs)
            # nbdev names the page in the front matter (`_nbpath2html`: lower case, `^\d+[a-zA-Z0-9]*_`
            # dropped); a notebook without front matter keeps Quarto's default name, its own stem
            name = fm.get("output-file") or rel.with_suffix(".html").name
            page = (PurePosixPath(rel.parent.as_posix()) / name).as_posix()
            docs.append((page, str(fm.get("title") or src.stem), rel, quarto_like(nb)))
    docs.sort(key=lambda d: (d[0] != "index.html", d[2].as_posix()))  # Quarto's sidebar order
    site = Site(cfg, nbs, out, {rel.as_posix(): page for page, _, rel, _ in docs})
    exp = exporter()
    # the navigation names a page by its title up to a colon, or by the whole title where that short name is taken
    short = {page: title.split(":")[0] for page, title, _, _ in docs}
    taken = Counter(short.values())
    labels = {page: short[page] if taken[short[page]] == 1 else title for page, title, _, _ in docs}
    for page, title, rel, nb in docs:
        up = os.path.relpath(".", str(PurePosixPath(page).parent))
        links = []
        for other, other_title, _, _ in docs:
            href = os.path.relpath(other, str(PurePosixPath(page).parent))
            current = " class='mlx-current'" if other == page else ""
            links.append(f"<a href='{href}'{current}>{html.escape(labels[other])}</a>")
        resources = {"metadata": {"name": f"{title} – {cfg.title}"},
                     "mlx_nav": "<nav class='mlx-nav'>" + " | ".join(links) + "</nav>",
                     "mlx_mathjax": MATHJAX % f"{up}/mathjax/MathJax.js"}
        body, _ = exp.from_notebook_node(nb, resources=resources)
        body = site.rewrite(heading_ids(body), page, nbs / rel.parent)
        (out / page).parent.mkdir(parents=True, exist_ok=True)
        (out / page).write_text(body, encoding="utf-8")
    print(f"preview of {len(docs)} pages written to {out}/index.html")
    if failed:
        raise SystemExit("nbdev could not process (no page):\n" + "\n".join(failed))


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="_preview", help="folder for the HTML pages (replaced)")
    ap.add_argument("--workers", type=int, default=min(4, os.cpu_count() or 1),
                    help="processes for nbdev's notebook processing")
    args = ap.parse_args()
    main(args.out, args.workers)
