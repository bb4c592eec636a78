"""README.md from nbs/index.ipynb (nbdev_readme does this through Quarto, which is not available everywhere).

Markdown cells are copied, code cells become fenced Python (directive lines and `#| hide` cells
dropped) followed by their text output.
"""
import re, sys
from pathlib import Path
import nbformat

def site_url() -> str:
    "The published book's address, from settings.ini as nbdev reads it."
    from nbdev.config import get_config
    cfg = get_config()
    return cfg.doc_host.rstrip("/") + "/" + cfg.doc_baseurl.strip("/") + "/"

def absolute_links(md: str, base: str) -> str:
    "Relative links to pages of the book (`](name.html)` or `](name.html#anchor)`) made absolute under `base`."
    return re.sub(r"\]\(([A-Za-z0-9_\-]+\.html(?:#[^)]*)?)\)", lambda m: f"]({base}{m.group(1)})", md)

def to_markdown(nb) -> str:
    parts = []
    for c in nb.cells:
        src = c.source
        if c.cell_type == "markdown":
            parts.append(src)
        elif c.cell_type == "code":
            if re.search(r"^\s*#\|\s*hide", src, re.M): continue
            code = "\n".join(l for l in src.splitlines() if not re.match(r"^\s*#\|", l)).strip()
            if not code: continue
            parts.append(f"```python\n{code}\n```")
            text = "".join(o.get("text", "") for o in c.get("outputs", []) if o.get("output_type") == "stream" and o.get("name") == "stdout")
            text += "".join(o.get("data", {}).get("text/plain", "") for o in c.get("outputs", [])
                            if o.get("output_type") == "execute_result")
            if text.strip(): parts.append("```\n" + text.rstrip() + "\n```")
    return "\n\n".join(parts) + "\n"

if __name__ == "__main__":
    src = Path(sys.argv[1] if len(sys.argv) > 1 else "nbs/index.ipynb")
    md = absolute_links(to_markdown(nbformat.read(src, as_version=4)), site_url())
    Path("README.md").write_text(md, encoding="utf-8")
    print("README.md written from", src)
