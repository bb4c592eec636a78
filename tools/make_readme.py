"""README.md from nbs/index.ipynb (nbdev_readme does this through Quarto, which is not available everywhere).

Markdown cells are copied, code cells become fenced Python (directive lines and `#| hide` cells
dropped) followed by their text output.
"""
import re, sys
from pathlib import Path
import nbformat

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
    Path("README.md").write_text(to_markdown(nbformat.read(src, as_version=4)), encoding="utf-8")
    print("README.md written from", src)
