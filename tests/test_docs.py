"""The documentation preview, read in a real browser.

Where Quarto is missing, `make docs` builds an HTML preview with `tools/preview_docs.py`. This
module builds it once and opens every page in one headless Chromium from file://, with no network,
and reads each page's DOM once MathJax has finished typesetting. In the rendered DOM of each page it
checks what a reader would meet:

- formulas are typeset: MathJax finished without a TeX error, and no `$$`, `\\(` or `\\[` is left in
  the text outside code;
- no `show_doc(` call and no Quarto attribute text (`{target=...}`) is visible;
- every local link and image resolves to a file of the preview, and an anchor to an id of its page;
  nothing (script, style, image) is loaded from the network;
- no output holds a Python traceback or an error;
- at 1280 × 800 px nothing is clipped (no code line, output or table wider than its box), an experiments page
  shows a table or figure on its first screen, and each API entry appears once on its page.

Pages carry nbdev's names (`10_fals.ipynb` → `fals.html`), the index links every paper chapter by
that name, and the chapters show their figures.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from nbdev.doclinks import _nbpath2html

ROOT = Path(__file__).resolve().parents[1]
NBS = ROOT / "nbs"
CHROMIUM = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
BUDGET_MS = 60_000  # time for a page to load and MathJax to typeset it
NOTEBOOKS = sorted(p.relative_to(NBS) for p in NBS.rglob("*.ipynb")
                   if not any(part.startswith(("_", ".")) for part in p.relative_to(NBS).parts))
PAGES = {nb.as_posix(): _nbpath2html(nb).as_posix() for nb in NOTEBOOKS}  # nbdev 2.4's page names
PAPER_CHAPTERS = {"10_fals.ipynb": "fals.html", "20_extended_plt.ipynb": "extended_plt.html",
                  "30_prakel.ipynb": "prakel.html", "40_alternatives.ipynb": "alternatives.html"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
        "track", "wbr"}
URL_ATTRS = {"a": "href", "area": "href", "link": "href", "img": "src", "script": "src", "source": "src",
             "iframe": "src", "embed": "src", "video": "src", "audio": "src", "track": "src"}
QUARTO_ATTRS = re.compile(r'\{(?:[#.][A-Za-z][\w-]*|[\w-]+=")[^{}]*\}')  # {#id}, {.class}, {key="value"}

pytestmark = [pytest.mark.chromium,
              pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium (Debian package 'chromium') "
                                                          "is not installed")]


class Dom(HTMLParser):
    "What the test needs from a page's rendered DOM: ids, URLs, visible text, prose text, error outputs."

    def __init__(self, dom, layout=None):
        super().__init__(convert_charrefs=True)
        self.layout = layout or {}
        self.ids, self.urls, self.visible, self.prose = set(), [], [], []
        self.body, self.errors, self.error_depth = {}, [], None
        self.nav_links, self.cells, self.cell_depth = [], [], None   # nav link texts; the page's cells in order
        self.depth = Counter()  # open elements by tag
        self.feed(dom)
        self.close()
        self.visible, self.prose = "".join(self.visible), "".join(self.prose)

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        for key in ("id", "name") if tag == "a" else ("id",):
            if a.get(key):
                self.ids.add(a[key])
        if tag == "body":
            self.body = a
        if URL_ATTRS.get(tag) in a:
            self.urls.append((tag, a[URL_ATTRS[tag]], self.depth["nav"] > 0, a))
        if tag == "div" and "mlx-error-output" in a.get("class", "").split():  # the preview marks errors
            self.error_depth = self.depth["div"]
            self.errors.append("")
        if tag == "a" and self.depth["nav"]:
            self.nav_links.append("")
        classes = a.get("class", "").split()
        if tag == "div" and "jp-Cell" in classes and self.cell_depth is None:   # one notebook cell
            self.cell_depth = self.depth["div"]
            self.cells.append({"markdown": "jp-MarkdownCell" in classes, "text": "", "media": False})
        if self.cell_depth is not None and tag in ("img", "table", "svg", "pre", "iframe", "video"):
            self.cells[-1]["media"] = True
        if tag not in VOID:
            self.depth[tag] += 1

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.depth[tag] -= 1

    def handle_endtag(self, tag):
        if tag not in VOID and self.depth[tag] > 0:
            self.depth[tag] -= 1
        if tag == "div" and self.depth["div"] == self.error_depth:
            self.error_depth = None
        if tag == "div" and self.depth["div"] == self.cell_depth:
            self.cell_depth = None

    def handle_data(self, data):
        if self.depth["script"] or self.depth["style"]:
            return
        self.visible.append(data)
        if self.depth["nav"] and self.depth["a"] and self.nav_links:
            self.nav_links[-1] += data
        if self.cell_depth is not None:
            self.cells[-1]["text"] += data
        if self.error_depth is not None:
            self.errors[-1] += data
        if not any(self.depth[t] for t in ("code", "pre", "textarea")):
            self.prose.append(data)


def snippets(text, needle, width=60):
    "Each place `needle` occurs in `text`, with a little context."
    return [text[max(0, i - width):i + len(needle) + width].replace("\n", " ")
            for i in (m.start() for m in re.finditer(re.escape(needle), text))]


class Chromium:
    """One headless Chromium for all pages, driven over the DevTools protocol on a pipe (no network port).

    One browser instead of one `--dump-dom` process per page: each start costs about 2.5 CPU-seconds (measured),
    some 40 for the 17 pages. The protocol reads commands on the browser's fd 3 and answers on its fd 4, each
    message JSON ended by a NUL byte.
    """

    def __init__(self, profile):
        self.log = profile / "stderr.log"  # a file, not a pipe: a full pipe would stall the browser
        self._err = open(self.log, "wb")
        to_browser, self._out = os.pipe()
        self._in, from_browser = os.pipe()

        def protocol_fds():  # in the child, before exec; duplicated first, as a pipe end may itself be fd 3 or 4
            a, b = os.dup(to_browser), os.dup(from_browser)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
             "--disable-backgrounding-occluded-windows", "--host-resolver-rules=MAP * ~NOTFOUND",
             "--blink-settings=imagesEnabled=false",  # images are checked as files and URLs, not decoded
             f"--user-data-dir={profile}", "about:blank"],
            preexec_fn=protocol_fds, close_fds=False, stdout=subprocess.DEVNULL, stderr=self._err)
        os.close(to_browser)
        os.close(from_browser)
        self._buf, self._id = b"", 0

    def send(self, method, session=None, **params):
        "Send one command and wait for its result; a protocol error is raised as `RuntimeError`."
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params, **({"sessionId": session} if session else {})}
        os.write(self._out, json.dumps(msg).encode() + b"\0")
        while True:  # events and other sessions' replies are skipped
            while b"\0" not in self._buf:
                chunk = os.read(self._in, 1 << 20)
                if not chunk:
                    raise RuntimeError(f"Chromium stopped:\n{self.log.read_text(errors='replace')[-2000:]}")
                self._buf += chunk
            raw, self._buf = self._buf.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error'].get('message')}")
                return reply["result"]

    def open(self, path):
        "Open `path` (file://) in a new tab: (target, session), for `dom`."
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.send("Emulation.setDeviceMetricsOverride", session, width=WIDTH, height=HEIGHT, deviceScaleFactor=1,
                  mobile=False)
        self.send("Page.navigate", session, url=path.as_uri())
        return target, session

    def dom(self, path, tab):
        "The DOM of the page at `path`, open in `tab`, once it has loaded and MathJax has marked its end."
        target, session = tab
        deadline = time.monotonic() + BUDGET_MS / 1000
        while True:
            try:
                r = self.send("Runtime.evaluate", session, expression=WAIT_FOR_MATHJAX % (BUDGET_MS, LAYOUT),
                              awaitPromise=True, returnByValue=True)
                value = r["result"].get("value") or {}
            except RuntimeError as e:  # the first evaluation may meet the blank page the tab replaces
                if "context was destroyed" not in str(e) or time.monotonic() > deadline:
                    raise
                continue
            if value.get("url") == path.as_uri() or time.monotonic() > deadline:
                break
        self.send("Target.closeTarget", targetId=target)
        assert value.get("url") == path.as_uri(), f"{path.name}: Chromium did not load the page ({value.get('url')})"
        return value["html"], value.get("layout") or {}

    def close(self):
        try:
            self.send("Browser.close")
        finally:
            self.proc.wait(timeout=60)
            self._err.close()
            os.close(self._out)
            os.close(self._in)


# resolves when the page has loaded and MathJax has set `data-mathjax` on <body>, when the page has loaded
# without MathJax, or after the budget; with the DOM come the layout facts a reader at 1280 px meets (LAYOUT)
WAIT_FOR_MATHJAX = """new Promise(done => { const t0 = Date.now();
  (function poll() {
    const b = document.body, loaded = document.readyState === "complete";
    if ((loaded && (b.hasAttribute("data-mathjax") || !window.MathJax || !window.MathJax.Hub)) || Date.now() - t0 > %d)
      done({url: location.href, html: document.documentElement.outerHTML, layout: (%s)()});
    else setTimeout(poll, 50);
  })(); })"""
WIDTH, HEIGHT = 1280, 800    # the reader's window
# - clipped: code blocks, outputs and tables whose content is wider than their box (a reader must scroll sideways),
#   each with its longest line, and the page itself when it is wider than the window;
# - first_result: how far down the page (px) the first table or figure of an output starts;
# - api: the text of each API entry's heading (show_doc's h2-h4 holding a <code> name, or nbdev's own entries)
LAYOUT = """function () {
  const clipped = [], seen = new Set();
  for (const el of document.querySelectorAll("pre, table, .jp-OutputArea-output, .jp-RenderedHTMLCommon > div")) {
    if (el.scrollWidth > el.clientWidth + 2 && el.clientWidth > 0) {
      const box = el.closest("pre, table, .jp-OutputArea-output") || el;
      if (seen.has(box)) continue; seen.add(box);
      clipped.push({tag: el.tagName.toLowerCase(), need: el.scrollWidth, have: el.clientWidth,
                    text: (el.innerText || "").split("\\n").reduce((a, b) => b.length > a.length ? b : a, "").trim().slice(0, 100)});
    }
  }
  const page = document.documentElement.scrollWidth;
  let first = null;
  for (const el of document.querySelectorAll(".jp-OutputArea-output table, .jp-OutputArea-output img, .jp-RenderedHTMLCommon table, .jp-MarkdownCell img")) {
    const top = el.getBoundingClientRect().top + window.scrollY;
    if (first === null || top < first) first = top;
  }
  const api = [...document.querySelectorAll("h2, h3, h4")].filter(h => h.querySelector("code") || h.closest(".jp-OutputArea-output"))
                 .map(h => h.innerText.trim().replace(/\\s+/g, " ")).filter(t => t);
  return {clipped, page_width: page, window_width: window.innerWidth, first_result: first, api};
}"""


@pytest.fixture(scope="module")
def preview(tmp_path_factory):
    "The preview, built once: (folder, the build's exit status and log)."
    out = tmp_path_factory.mktemp("preview")
    # one worker for nbdev's processing: each worker imports the package and its libraries again (41 against
    # 52 CPU-seconds measured for two), and the suite's other tests keep the second core busy
    r = subprocess.run([sys.executable, "tools/preview_docs.py", "--out", str(out), "--workers", "1"], cwd=ROOT,
                       capture_output=True, text=True, timeout=900)
    return out, r.returncode, r.stdout[-3000:] + r.stderr[-3000:]


@pytest.fixture(scope="module")
def doms(preview, tmp_path_factory):
    "Every page's rendered DOM, parsed; page path relative to the preview → `Dom`."
    out = preview[0]
    pages = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.html") if "mathjax" not in p.parts)
    browser, dumped = Chromium(tmp_path_factory.mktemp("chromium")), {}
    try:
        for pair in (pages[i:i + 2] for i in range(0, len(pages), 2)):  # two pages load at a time
            tabs = [browser.open(out / page) for page in pair]
            dumped.update((page, browser.dom(out / page, tab)) for page, tab in zip(pair, tabs))
    finally:
        browser.close()
    return {page: Dom(*dom) for page, dom in dumped.items()}


def test_preview_builds(preview):
    out, rc, log = preview
    assert rc == 0, f"tools/preview_docs.py failed:\n{log}"


def test_pages_have_nbdev_names(preview):
    out = preview[0]
    assert PAGES["10a_fals_experiments.ipynb"] == "fals_experiments.html"  # nbdev drops `10a_`
    for nb, page in PAPER_CHAPTERS.items():
        assert PAGES[nb] == page, nb
    built = {p.relative_to(out).as_posix() for p in out.rglob("*.html") if "mathjax" not in p.parts}
    expected = set(PAGES.values())
    assert built == expected, f"missing {sorted(expected - built)}; unexpected {sorted(built - expected)}"


def test_index_links_every_chapter(doms):
    index = doms["index.html"]
    linked = {urlsplit(url).path for tag, url, in_nav, _ in index.urls if tag == "a" and not in_nav}
    missing = sorted(page for nb, page in PAPER_CHAPTERS.items()
                     if (NBS / nb).exists() and page not in linked)
    assert not missing, f"the index text does not link {missing} (links: {sorted(linked)})"


# each chapter's reproduced figures are on its experiments page (`10a_fals_experiments.ipynb` → `fals_experiments.html`)
EXPERIMENT_PAGES = sorted(page.replace(".html", "_experiments.html") for page in PAPER_CHAPTERS.values())


def test_index_links_every_experiments_page(doms):
    index = doms["index.html"]
    linked = {urlsplit(url).path for tag, url, in_nav, _ in index.urls if tag == "a" and not in_nav}
    assert set(EXPERIMENT_PAGES) <= linked, sorted(set(EXPERIMENT_PAGES) - linked)


@pytest.mark.parametrize("page", EXPERIMENT_PAGES)
def test_chapter_shows_figures(doms, preview, page):
    assert page in doms, f"{page} was not built"
    imgs = [url for tag, url, _, _ in doms[page].urls if tag == "img"]
    figures = [u for u in imgs
               if u.startswith("data:image/") or (preview[0] / unquote(u.split("#")[0])).is_file()]
    assert figures, f"{page}: no figure shown"


def resolve(out, page, url, doms):
    "Why the local `url` written in `page` does not resolve, or None when it does."
    parts = urlsplit(url)
    target = page
    if parts.path:
        target = os.path.normpath(os.path.join(os.path.dirname(page), unquote(parts.path)))
    path = (out / target).resolve()
    if not path.is_relative_to(out.resolve()):
        return f"{url}: outside the preview"
    if not path.is_file():
        return f"{url}: no such file"
    if parts.fragment:
        ids = doms[target].ids if target in doms else Dom(path.read_text(errors="replace")).ids
        if unquote(parts.fragment) not in ids:
            return f"{url}: no id '{unquote(parts.fragment)}' in {target}"
    return None


@pytest.mark.parametrize("page", sorted(set(PAGES.values())))
def test_page_reads_right_in_chromium(preview, doms, page):
    out = preview[0]
    assert page in doms, f"{page} was not built"
    d, problems = doms[page], []
    # formulas: MathJax ran to its end without a TeX error, and left no delimiters in the text
    state = d.body.get("data-mathjax")
    if state != "done":
        problems.append(f"MathJax state {state!r} (not finished in {BUDGET_MS} ms, or not loaded); "
                        f"errors: {d.body.get('data-mathjax-errors', '')[:1500]}")
    for delim in ("$$", "\\(", "\\["):
        problems += [f"raw {delim} in the text: ...{s}..." for s in snippets(d.prose, delim)]
    # no source of the API entries or Quarto syntax on show
    for raw in ("show_doc(", "{target="):
        problems += [f"visible {raw!r}: ...{s}..." for s in snippets(d.visible, raw)]
    problems += [f"Quarto attributes in the text: {m.group(0)[:80]}" for m in QUARTO_ATTRS.finditer(d.prose)]
    # links and images
    for tag, url, _, attrs in d.urls:
        scheme = urlsplit(url).scheme.lower()
        if scheme in ("data", "mailto", "javascript"):
            continue
        if scheme or url.startswith("//"):
            if tag != "a":
                problems.append(f"<{tag}> loads {url} from the network")
            continue
        why = resolve(out, page, url, doms)
        if why:
            problems.append(f"broken <{tag}> link {why}")
    # the navigation names every page once, and no sentence that announces something (ends in ':') leads to
    # nothing: the next cell shows text or a figure/table, not another paragraph or a cell hidden from the docs
    problems += [f"navigation shows {t!r} {n} times" for t, n in Counter(map(str.strip, d.nav_links)).items() if n > 1]
    for i, c in enumerate(d.cells):
        if c["markdown"] and c["text"].strip().endswith(":"):
            nxt = d.cells[i + 1] if i + 1 < len(d.cells) else None
            if nxt is None or nxt["markdown"] or not (nxt["text"].strip() or nxt["media"]):
                problems.append(f"'...{' '.join(c['text'].split())[-90:]}' is followed by nothing visible")
    # outputs
    problems += [f"error output: {' '.join(e.split())[-300:]}" for e in d.errors]
    problems += [f"traceback: ...{s}..." for s in snippets(d.visible, "Traceback (most recent call last)")]
    assert not problems, f"{page}: {len(problems)} problem(s)\n" + "\n".join(problems[:40])


@pytest.mark.parametrize("page", sorted(set(PAGES.values())))
def test_nothing_clipped_at_1280_px(doms, page):
    "No code line, output or table is wider than its box in a 1280 px window, and the page is not wider than the window."
    lay = doms[page].layout
    assert lay, f"{page}: no layout measured"
    problems = [f"{c['tag']} needs {c['need']} px, has {c['have']}: {c['text']!r}" for c in lay["clipped"]]
    if lay["page_width"] > lay["window_width"]:
        problems.append(f"the page is {lay['page_width']} px wide in a {lay['window_width']} px window")
    assert not problems, f"{page}: {len(problems)} clipped\n" + "\n".join(problems[:30])


@pytest.mark.parametrize("page", EXPERIMENT_PAGES)
def test_experiments_page_opens_with_a_result(doms, page):
    "The first screen (1280 × 800) of an experiments page shows a result: a table or a figure."
    first = doms[page].layout.get("first_result")
    assert first is not None and first < HEIGHT, \
        f"{page}: the first table or figure starts {first} px down, below the first screen ({HEIGHT} px)"


@pytest.mark.parametrize("page", sorted(set(PAGES.values())))
def test_one_api_entry_per_name(doms, page):
    "Each documented function or method has one API entry on its page (no explicit show_doc beside nbdev's own)."
    twice = {t: n for t, n in Counter(doms[page].layout.get("api", [])).items() if n > 1}
    assert not twice, f"{page}: API entries shown more than once: {twice}"
