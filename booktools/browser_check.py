"""Open every page of the built book in headless Chromium, with no network, and check it.

Usage (after ``jupyter-book build .``)::

    python -m booktools browser-check                       # every page of _toc.yml, plus index.html
    python -m booktools browser-check --pages book/intro.html book/winnow.html

For each page the check loads ``file://<site>/<page>`` in Chromium, waits for the
load event, for MathJax's startup promise (the initial typeset) and for every
image, then asserts that

* MathJax typeset the maths: on a page with maths (Sphinx's ``.math`` elements)
  MathJax finished its startup typeset, every ``.math`` element holds an
  ``mjx-container``, MathJax reported no TeX error (``mjx-merror``), and no raw TeX
  delimiter (``\\(``, ``\\[``, ``$$``) is left in ``document.body.innerText``;
* every ``<img>`` loaded (``complete && naturalWidth > 0``);
* every saved widget view was drawn from the page's widget state by the HTML manager
  served from the site (``_ext/widget_js.py``): each ``widget-view+json`` script has a
  rendered ``.widget-subarea`` before it (a page with saved views but no manager script,
  ``embed.js`` or ``embed-amd.js``, fails at once: nothing could draw them, so the check
  does not wait for them);
* nothing was logged as an error: ``console.error``/``console.assert``, uncaught
  exceptions, and the browser's own error log (failed loads, CORS, CSP, ...);
* no request left the site: every URL the page asked for is ``file://`` under the
  site root, ``data:`` or ``blob:``, and no local file failed to load.
* axe-core finds no "serious" or "critical" accessibility violation (WCAG 2.1 A and
  AA rules), in the light theme and again in the dark theme (the reader's system
  asks for dark colours, and the theme follows). axe-core is the pinned npm release
  (``AXE_URL``, hash-checked, cached like the widget manager); it is added to the
  page as a script, so it needs no server and no network.
* no text output of a code cell (a check cell's verdict, print output: the ``pre`` of a
  ``.cell_output .output``) is wider than its box (``scrollWidth > clientWidth + 1``), at
  1280 px and again on a phone: such text wraps (``_ext/static/reading.css``) instead of
  hiding its end behind a sideways scroll;
* last, on a phone's screen (``PHONE_WIDTH`` px wide), the page is no wider than the
  screen (``document.documentElement.scrollWidth``): wide tables, code and figures
  scroll inside their own boxes, and no image in the text is wider than the box it sits
  in (figures scale to the column).

The browser is the system's Chromium driven by Playwright (``playwright.async_api``;
Playwright's own browser download is never used). Requests that would leave the site
are aborted by a Playwright route, and external hosts are unreachable in any case
(``--host-resolver-rules`` maps every host to NOTFOUND and the proxy is a closed
local port), so a page that needs the network is both caught and shown as it would
look offline. Every page opens with empty storage (localStorage and sessionStorage), as a
first-time visitor sees it, and ``--jobs`` pages are checked at once, each job in a tab of its
own that goes from page to page (a fresh tab per page cost a core-second each, see ``Tab``).

A full-page screenshot of each page is saved as ``<out>/<page>.png``, and, on pages
with a figure or a widget, one in the dark theme as ``<out>/<page>-dark.png``. One line of
measured facts is printed per page; the exit status is 1 if any page failed, with
the reasons listed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import tarfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

import yaml
from playwright.async_api import Browser, Page, Playwright, async_playwright
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from _ext.widget_js import fetch_npm_tarball
from booktools.toc import toc_entries

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
TEX_DELIMITERS = ("\\(", "\\[", "$$")
VIEWPORT = {"width": 1280, "height": 900}
PHONE_WIDTH = 400  # px: a phone held upright
# Screenshots stop at this size (the longest chapter is about 32,000 px high at 1280 px wide).
MAX_SCREENSHOT_SIZE = 60000
AXE_URL = "https://registry.npmjs.org/axe-core/-/axe-core-4.14.1.tgz"
AXE_INTEGRITY = "sha512-FHfa+lmNjQZfJz1q8wKqIDwC6DExcHt/pkjNQb09a3NPjCKg2rhu5qb2S4r76ASyFNNtuFooJpZe37OgudVGtQ=="
AXE_FAILING_IMPACTS = ("serious", "critical")
AXE_RUN_JS = r"""() =>
axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
                   resultTypes: ["violations"],
                   preload: false})  // no XHR for the stylesheets: file:// pages forbid it
  .then((r) => r.violations.map((v) => ({id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.length, targets: v.nodes.slice(0, 3).map((n) => n.target.join(" "))})))
"""


def axe_source() -> str:
    """axe.min.js of the pinned axe-core release (from the cache, else from npm)."""
    tarball = fetch_npm_tarball(AXE_URL, AXE_INTEGRITY, None, "browser_check", "The accessibility check needs axe-core")
    with tarfile.open(tarball, "r:gz") as archive:
        return archive.extractfile("package/axe.min.js").read().decode("utf-8")


def find_browser(explicit: str | None = None) -> str | None:
    """The browser executable: ``explicit``, $CHROMIUM, or the first of BROWSERS on PATH."""
    for name in (explicit, os.environ.get("CHROMIUM"), *BROWSERS):
        if name:
            found = shutil.which(name)
            if found:
                return found
    return None


def toc_pages(toc: Path) -> list[str]:
    """``index.html`` plus the HTML page of the root and of every ``file:`` entry of a _toc.yml."""
    pages = ["index.html"]
    for entry in toc_entries(yaml.safe_load(toc.read_text(encoding="utf-8"))):
        page = str(Path(entry).with_suffix("")) + ".html"
        if page not in pages:
            pages.append(page)
    return pages


async def launch(playwright: Playwright, executable: str) -> Browser:
    """The system's headless Chromium (``executable``), cut off from the network.

    Every host resolves to NOTFOUND, and whatever bypasses the resolver meets a proxy on a
    closed local port (loopback included). Used by the browser check and the PDF edition.
    """
    return await playwright.chromium.launch(
        executable_path=executable,
        proxy={"server": "http://127.0.0.1:9"},
        args=["--host-resolver-rules=MAP * ~NOTFOUND"],
    )


# --------------------------------------------------------------------------- one page

HAS_MATHJAX_JS = "() => [...document.scripts].some((s) => /mathjax/i.test(s.src))"
MATHJAX_STARTED_JS = "() => Boolean(window.MathJax && MathJax.startup && MathJax.startup.promise)"
MATHJAX_TYPESET_JS = """(ms) => Promise.race([
  MathJax.startup.promise.then(() => "typeset", (e) => "rejected: " + e),
  new Promise((r) => setTimeout(() => r("timed out"), ms))])"""
EAGER_IMAGES_JS = "() => { for (const img of document.images) if (img.loading === 'lazy') img.loading = 'eager'; }"
IMAGES_DONE_JS = "() => [...document.images].every((img) => img.complete)"
# The HTML manager replaces each saved view (a widget-view+json script) with a rendered
# .widget-subarea just before it, after the load event. Without a manager on the page (its
# bundle, embed.js or embed-amd.js) nothing ever draws them: the views are not waited for.
WIDGETS_DRAWN_JS = """() => ![...document.scripts]
    .some((s) => /(^|\\/)embed(-amd)?\\.js([?#]|$)/.test(s.getAttribute("src") || ""))
  || [...document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')]
  .every((v) => v.previousElementSibling && v.previousElementSibling.matches(".widget-subarea")
    && v.previousElementSibling.querySelector(".jupyter-widgets"))"""
FONTS_DONE_JS = "() => !document.fonts || document.fonts.status === 'loaded'"
REFRESH_JS = """() => document.querySelector('meta[http-equiv="refresh" i]') !== null"""
DARK_THEME_JS = "() => document.documentElement.dataset.theme === 'dark'"
TRANSITIONS_DONE_JS = """() => document.getAnimations()
  .every((a) => !(a instanceof CSSTransition) || a.playState !== "running")"""
PAGE_WIDTH_JS = "() => document.documentElement.scrollWidth"
# Text outputs of code cells whose text is wider than their box (hidden ones, e.g. in a folded
# cell, are not counted): how many there are, and the first line of each one that overflows.
OUTPUT_TEXT_JS = r"""() => {
  const blocks = [...document.querySelectorAll(".cell_output .output pre")]
    .filter((e) => e.getClientRects().length > 0);
  const over = blocks.filter((e) => e.scrollWidth > e.clientWidth + 1);
  return {total: blocks.length, overflowing: over.map((e) => ({
    text: e.textContent.trim().split("\n")[0].slice(0, 100), scrollWidth: e.scrollWidth, clientWidth: e.clientWidth}))};
}"""
# Images in the text wider than the block they sit in (the nearest ancestor that is not inline).
WIDE_IMAGES_JS = r"""() => [...document.querySelectorAll(".bd-article img")]
  .filter((img) => img.getClientRects().length > 0)
  .map((img) => {
    let box = img.parentElement;
    while (box && getComputedStyle(box).display.startsWith("inline")) box = box.parentElement;
    return {src: img.getAttribute("src") || "", width: Math.round(img.getBoundingClientRect().width),
            box: box ? box.clientWidth : 0};
  })
  .filter((i) => i.box > 0 && i.width > i.box + 1)"""

# Runs in the page once it has settled: the measured facts.
FACTS_JS = r"""(delimiters) => {
  const text = document.body ? document.body.innerText : "";
  const rawTex = [];
  for (const d of delimiters) {
    const i = text.indexOf(d);
    if (i >= 0) rawTex.push({delimiter: d, context: text.slice(Math.max(0, i - 40), i + 40)});
  }
  const maths = [...document.querySelectorAll(".math")];
  return {
    url: location.href,
    title: document.title,
    mathjaxVersion: (window.MathJax && MathJax.version) || null,
    mjx: document.querySelectorAll("mjx-container").length,
    mathSources: maths.length,
    untypeset: maths.filter((e) => !e.querySelector("mjx-container")).map((e) => e.textContent.slice(0, 80)),
    mathErrors: [...document.querySelectorAll("mjx-merror")].map((e) =>
      e.getAttribute("data-mjx-error") || e.textContent.slice(0, 80)),
    rawTex,
    widgetViews: document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]').length,
    widgetsDrawn: [...document.querySelectorAll(".widget-subarea")].filter((e) => e.querySelector(".jupyter-widgets")).length,
    widgetControls: document.querySelectorAll(".widget-subarea .widget-slider, .widget-subarea .widget-dropdown, .widget-subarea .widget-button").length,
    // drawn widgets that a reader could still click, or with no "only in Jupyter or Binder" note after them
    widgetsLive: [...document.querySelectorAll(".widget-subarea")].filter((e) => e.querySelector(".jupyter-widgets")
      && !(e.closest("[inert]") && getComputedStyle(e).pointerEvents === "none")).length,
    widgetsUnexplained: [...document.querySelectorAll(".cell_output")].filter((o) =>
      o.querySelector(".widget-subarea .jupyter-widgets")
      && !/Jupyter or Binder/.test(getComputedStyle(o, "::after").content)).length,
    images: [...document.images].map((img) => ({
      src: img.getAttribute("src") || "", url: img.currentSrc || img.src,
      ok: img.complete && img.naturalWidth > 0,
    })),
  };
}"""


async def _wait_for(page: Page, predicate: str, deadline: float) -> bool:
    """Wait until ``predicate`` holds in the page or ``deadline`` (time.monotonic) passes."""
    try:
        await page.wait_for_function(predicate, timeout=max(1.0, deadline - time.monotonic()) * 1000)
    except PlaywrightTimeout:
        return False
    return True


async def open_and_settle(page: Page, url: str, timeout: float) -> str:
    """Open ``url`` in ``page`` and wait until a reader sees it all; the state of MathJax.

    Follows a ``<meta http-equiv="refresh">`` (``index.html``), then waits for MathJax's
    startup promise (the initial typeset), every image (lazy ones made eager), every saved
    widget view drawn (if a widget manager is on the page to draw them), and the fonts, all
    within ``timeout`` seconds. Shared by the browser check and the PDF edition.

    Returns
    -------
    str
        ``"typeset"``, ``"absent"`` (no MathJax script on the page), ``"never started"``,
        ``"timed out"`` or ``"rejected: <error>"``.

    Raises
    ------
    playwright.async_api.TimeoutError
        If the page (or the page a refresh leads to) does not load within ``timeout``.
    playwright.async_api.Error
        If the page cannot be loaded (e.g. ``net::ERR_FILE_NOT_FOUND``).
    """
    deadline = time.monotonic() + timeout
    await page.goto(url, wait_until="load", timeout=timeout * 1000)
    try:
        refresh = await page.evaluate(REFRESH_JS)
    except PlaywrightError as e:  # the refresh came first and took the page away
        if "context was destroyed" not in e.message:
            raise
        refresh = True
    if refresh:  # e.g. index.html: follow it
        await page.wait_for_url(
            lambda u: u != url, wait_until="load", timeout=max(1.0, deadline - time.monotonic()) * 1000
        )
    mathjax = "absent"
    if await page.evaluate(HAS_MATHJAX_JS):
        if await _wait_for(page, MATHJAX_STARTED_JS, deadline):
            mathjax = await page.evaluate(MATHJAX_TYPESET_JS, max(1.0, deadline - time.monotonic()) * 1000)
        else:
            mathjax = "never started"
    await page.evaluate(EAGER_IMAGES_JS)
    await _wait_for(page, IMAGES_DONE_JS, deadline)
    await _wait_for(page, WIDGETS_DRAWN_JS, deadline)
    await _wait_for(page, FONTS_DONE_JS, deadline)
    return mathjax


@dataclass
class PageResult:
    """What ``check_page`` measured on one page, and the reasons it fails (``failures``)."""

    page: str
    url: str = ""
    final_url: str = ""
    seconds: float = 0.0
    mathjax: str = ""
    mjx: int = 0
    math_sources: int = 0
    untypeset: list = field(default_factory=list)
    math_errors: list = field(default_factory=list)
    raw_tex: list = field(default_factory=list)
    widget_views: int = 0
    widgets_drawn: int = 0
    widget_controls: int = 0
    widgets_live: int = 0
    widgets_unexplained: int = 0
    images: list = field(default_factory=list)
    console_errors: list = field(default_factory=list)
    requests: list = field(default_factory=list)
    external_requests: list = field(default_factory=list)
    failed_requests: list = field(default_factory=list)
    screenshot: str = ""
    axe_violations: dict = field(default_factory=dict)  # theme -> violations of every impact
    phone_width: int = 0  # the document's width in px on a PHONE_WIDTH screen (0: not measured)
    output_texts: int = 0  # text outputs of code cells shown (at 1280 px)
    overflowing_outputs: list = field(default_factory=list)  # those wider than their box, at 1280 px
    phone_overflowing_outputs: list = field(default_factory=list)  # the same on a PHONE_WIDTH screen
    wide_images: list = field(default_factory=list)  # images wider than their box on a PHONE_WIDTH screen
    failures: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def broken_images(self) -> list:
        return [img for img in self.images if not img["ok"]]

    def line(self) -> str:
        maths = f"maths {self.mjx} mjx-container" + (f"/{self.math_sources} .math" if self.math_sources else "")
        if self.mathjax == "absent":
            maths = "maths n/a (no MathJax on the page)"
        elif not self.mathjax:
            maths = "maths not measured"
        images = f"images {len(self.images) - len(self.broken_images)}/{len(self.images)} ok"
        parts = [
            f"{'ok  ' if self.ok else 'FAIL'} {self.page}",
            maths,
            images,
        ]
        if self.widget_views:
            parts.append(f"widgets {self.widgets_drawn}/{self.widget_views} drawn ({self.widget_controls} controls)")
        if self.axe_violations:
            serious = sum(1 for vs in self.axe_violations.values() for v in vs if v["impact"] in AXE_FAILING_IMPACTS)
            others = sum(len(vs) for vs in self.axe_violations.values()) - serious
            parts.append(f"axe {serious} serious/critical, {others} minor ({'+'.join(self.axe_violations)})")
        parts += [
            f"console errors {len(self.console_errors)}",
            f"requests {len(self.requests)} ({len(self.external_requests)} external)",
        ]
        if self.output_texts:
            parts.append(
                f"text outputs overflowing {len(self.overflowing_outputs)}/{self.output_texts} at "
                f"{VIEWPORT['width']} px, {len(self.phone_overflowing_outputs)}/{self.output_texts} at {PHONE_WIDTH} px"
            )
        if self.phone_width:
            parts.append(f"{self.phone_width} px wide on a {PHONE_WIDTH} px phone")
            if self.wide_images:
                parts.append(f"{len(self.wide_images)} images wider than their box there")
        parts.append(f"{self.seconds:.1f} s")
        if self.final_url and self.final_url != self.url:
            parts.insert(1, f"(redirected to {self.final_url})")
        return ", ".join(parts)


def _allowed(url: str, root_uri: str) -> bool:
    scheme = url.split(":", 1)[0].lower()
    if scheme in ("data", "blob"):
        return True
    if scheme == "file":
        # Compare normalised paths so that "../" tricks cannot escape the root.
        path = os.path.normpath(unquote(urlsplit(url).path))
        root = os.path.normpath(unquote(urlsplit(root_uri).path))
        return path == root or path.startswith(root.rstrip("/") + "/")
    return False


class Tab:
    """One browser tab that checks pages one after another, each opened with empty storage.

    A fresh context per page started a new renderer process for every page: about a core-second
    a page, as much as loading and typesetting it. Here the tab is kept and only what a page can
    leave behind is reset before the next one: localStorage and sessionStorage (so every page
    is seen as by a first-time visitor), the viewport, and the emulated colour scheme. Requests
    that would leave ``root_uri`` are aborted, and every event is recorded in the ``PageResult``
    being checked (``result``).
    """

    def __init__(self, context, page: Page, root_uri: str):
        self.context, self.page, self.root_uri = context, page, root_uri
        self.result: PageResult | None = None
        for event, handler in (
            ("request", self._on_request),
            ("websocket", self._on_websocket),
            ("requestfailed", self._on_request_failed),
            ("console", self._on_console),
            ("pageerror", self._on_page_error),
        ):
            page.on(event, handler)

    @classmethod
    async def open(cls, browser: Browser, root_uri: str) -> Tab:
        async def block(route):
            await route.abort("internetdisconnected")

        context = await browser.new_context(viewport=VIEWPORT, device_scale_factor=1, color_scheme="light")
        await context.route(lambda url: not _allowed(url, root_uri), block)
        return cls(context, await context.new_page(), root_uri)

    async def reset(self) -> None:
        """Empty the storage the last page may have written, and restore the viewport and light colours."""
        if self.page.url.startswith("file:"):
            await self.page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
        await self.page.set_viewport_size(VIEWPORT)
        await self.page.emulate_media(color_scheme="light")

    async def close(self) -> None:
        await self.context.close()

    def _add_console(self, text: str):
        if self.result is not None and text not in self.result.console_errors:
            self.result.console_errors.append(text)

    def _on_request(self, request):
        if self.result is not None:
            self.result.requests.append(request.url)
            if not _allowed(request.url, self.root_uri):
                self.result.external_requests.append(request.url)

    def _on_websocket(self, socket):
        if self.result is not None:
            self.result.requests.append(socket.url)
            self.result.external_requests.append(socket.url)

    def _on_request_failed(self, request):
        error = request.failure or ""
        if self.result is not None and "ERR_ABORTED" not in error:  # cancelled (e.g. by a navigation), not failed
            self.result.failed_requests.append({"url": request.url, "error": error})

    def _on_console(self, message):
        if message.type not in ("error", "assert"):
            return
        if message.args:  # console.error(...) / console.assert(...) in a script
            self._add_console(f"console.{message.type}: {message.text}")
        else:  # the browser's own error log: failed loads, CORS, CSP, ...
            self._add_console(f"browser: {message.text} {message.location.get('url', '')}".strip())

    def _on_page_error(self, error):
        lines = (error.stack or "").splitlines()
        where = next((line.strip()[3:] for line in lines[1:] if line.strip().startswith("at ")), "")
        self._add_console(
            f"uncaught {error.name}: {error.message.splitlines()[0] if error.message else ''}"
            + (f" ({where})" if where else "")
        )


async def check_page(
    tab: Tab, site: Path, page_path: str, out: Path | None, timeout: float, axe: str | None = None
) -> PageResult:
    """Open ``page_path`` of ``site`` in ``tab`` (reset first) and measure it (see the module)."""
    start = time.monotonic()
    root_uri = site.as_uri()
    result = PageResult(page=page_path, url=f"{root_uri}/{page_path}")
    page = tab.page
    try:
        await tab.reset()
        tab.result = result
        try:
            result.mathjax = await open_and_settle(page, result.url, timeout)
        except PlaywrightTimeout:
            result.failures.append(f"page did not settle within {timeout:.0f} s")
            return result
        except PlaywrightError as e:
            result.failures.append(f"page did not load: {e.message.splitlines()[0]}")
            return result

        facts = await page.evaluate(FACTS_JS, list(TEX_DELIMITERS))
        result.final_url = facts["url"]
        result.mjx = facts["mjx"]
        result.math_sources = facts["mathSources"]
        result.untypeset = facts["untypeset"]
        result.math_errors = facts["mathErrors"]
        result.raw_tex = facts["rawTex"]
        result.images = facts["images"]
        result.widget_views = facts["widgetViews"]
        result.widgets_drawn = facts["widgetsDrawn"]
        result.widget_controls = facts["widgetControls"]
        result.widgets_live = facts["widgetsLive"]
        result.widgets_unexplained = facts["widgetsUnexplained"]
        outputs = await page.evaluate(OUTPUT_TEXT_JS)
        result.output_texts = outputs["total"]
        result.overflowing_outputs = outputs["overflowing"]

        shot = None if out is None else out / str(Path(page_path).with_suffix(""))
        if shot is not None:
            result.screenshot = await _screenshot(page, shot.with_name(shot.name + ".png"))
        if axe is not None:
            await page.add_script_tag(content=axe)
            for theme in ("light", "dark"):
                if theme == "dark":
                    await page.emulate_media(color_scheme="dark")
                    # The theme switches in a media-query listener, which waits for the main thread:
                    # on a loaded machine a long page (experts: 579 formulas) took over 5 s. A theme
                    # that never switches still fails, after the page's own timeout.
                    if not await _wait_for(page, DARK_THEME_JS, time.monotonic() + timeout):
                        result.failures.append("the dark theme did not apply (prefers-color-scheme: dark)")
                        break
                    await _wait_for(page, TRANSITIONS_DONE_JS, time.monotonic() + 5)
                    # a dark screenshot where there is something to see in it: a figure or a widget
                    if shot is not None and (result.images or result.widget_views):
                        await _screenshot(page, shot.with_name(shot.name + "-dark.png"))
                result.axe_violations[theme] = await asyncio.wait_for(page.evaluate(AXE_RUN_JS), timeout)
        await page.set_viewport_size({"width": PHONE_WIDTH, "height": 800})
        result.phone_width = await page.evaluate(PAGE_WIDTH_JS)
        result.phone_overflowing_outputs = (await page.evaluate(OUTPUT_TEXT_JS))["overflowing"]
        result.wide_images = await page.evaluate(WIDE_IMAGES_JS)
    finally:
        tab.result = None
        _judge(result, root_uri)
        result.seconds = time.monotonic() - start
    return result


async def _screenshot(page: Page, path: Path) -> str:
    """A full-page screenshot of ``page`` into ``path`` (cut at MAX_SCREENSHOT_SIZE); its path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    await page.screenshot(
        path=path,
        full_page=True,
        timeout=120_000,
        clip={"x": 0, "y": 0, "width": MAX_SCREENSHOT_SIZE, "height": MAX_SCREENSHOT_SIZE},
    )
    return str(path)


def _judge(r: PageResult, root_uri: str):
    f = r.failures
    if r.final_url and not _allowed(r.final_url, root_uri):
        f.append(f"the page ended up outside the site: {r.final_url}")
    if r.mathjax not in ("", "typeset", "absent"):  # "": the page never settled (reported already)
        f.append(f"MathJax {r.mathjax}")
    if r.math_sources and r.mathjax == "absent":
        f.append(f"{r.math_sources} maths elements but no MathJax on the page")
    if r.math_sources and r.mathjax not in ("", "absent") and r.mjx == 0:
        f.append(f"{r.math_sources} maths elements but MathJax produced no mjx-container")
    if r.untypeset:
        f.append(f"{len(r.untypeset)} maths elements not typeset, e.g. {r.untypeset[0]!r}")
    if r.math_errors:
        f.append(f"{len(r.math_errors)} MathJax errors: {r.math_errors[:3]}")
    for raw in r.raw_tex:
        f.append(f"raw TeX {raw['delimiter']} visible: ...{raw['context']!r}...")
    if r.widgets_drawn < r.widget_views:
        f.append(
            f"{r.widget_views - r.widgets_drawn} of {r.widget_views} saved widget views not drawn "
            "(is the widget manager, _static/widgets/embed.js, on the page?)"
        )
    if r.widgets_live:
        f.append(f"{r.widgets_live} drawn widgets look live on the static site (not inert: _ext/static/reading.js)")
    if r.widgets_unexplained:
        f.append(f"{r.widgets_unexplained} widget outputs without the 'only in Jupyter or Binder' note (reading.css)")
    for img in r.broken_images:
        f.append(f"image not loaded: {img['src']}")
    for msg in r.console_errors:
        f.append(f"console error: {msg}")
    for theme, violations in r.axe_violations.items():
        for v in violations:
            if v["impact"] in AXE_FAILING_IMPACTS:
                f.append(
                    f"axe ({theme} theme): {v['id']} ({v['impact']}) on {v['nodes']} elements: "
                    f"{v['help']}; e.g. {v['targets']}"
                )
    for url in r.external_requests:
        f.append(f"request left the site: {url}")
    for failed in r.failed_requests:  # (failed external requests are reported above)
        if failed["url"].startswith("file:"):
            f.append(f"local file failed to load: {failed['url']} ({failed['error']})")
    if r.phone_width > PHONE_WIDTH:
        f.append(f"the page is {r.phone_width} px wide on a {PHONE_WIDTH} px screen")
    for overflowing, width in ((r.overflowing_outputs, VIEWPORT["width"]), (r.phone_overflowing_outputs, PHONE_WIDTH)):
        if overflowing:
            first = overflowing[0]
            f.append(
                f"{len(overflowing)} of {r.output_texts} text outputs wider than their box at {width} px, "
                f"e.g. {first['text']!r} ({first['scrollWidth']} px in {first['clientWidth']} px)"
            )
    if r.wide_images:
        first = r.wide_images[0]
        f.append(
            f"{len(r.wide_images)} images wider than their box on a {PHONE_WIDTH} px screen, "
            f"e.g. {first['src']} ({first['width']} px in {first['box']} px)"
        )


async def _check_pages(
    site: Path, pages, out: Path | None, timeout: float, executable: str, jobs: int, log, axe: str | None
) -> list[PageResult]:
    async with async_playwright() as playwright:
        browser = await launch(playwright, executable)
        tabs: asyncio.Queue = asyncio.Queue()  # ``jobs`` tabs, each checking one page at a time
        for _ in range(jobs):
            tabs.put_nowait(None)  # opened when first needed

        async def one(name):
            tab = await tabs.get()
            try:
                tab = tab or await Tab.open(browser, site.as_uri())
                r = await check_page(tab, site, name, out, timeout, axe)
            except (PlaywrightError, OSError) as e:  # OSError: also asyncio's TimeoutError
                r = PageResult(page=name, url=f"{site.as_uri()}/{name}", failures=[f"browser error: {e}"])
                if tab is not None:  # a tab in an unknown state is not used again
                    await tab.close()
                    tab = None
            finally:
                tabs.put_nowait(tab)
            if log is not None:
                log(r.line())
            return r

        try:
            return await asyncio.gather(*(one(name) for name in pages))
        finally:
            await browser.close()


def check_site(
    site,
    pages,
    out=None,
    timeout: float = 30.0,
    browser: str | None = None,
    jobs: int = 0,
    log=None,
    accessibility: bool = True,
) -> list[PageResult]:
    """Check ``pages`` (paths relative to ``site``) in one browser, ``jobs`` pages at a time.

    The check of the built book that ``tests/test_browser.py`` and CI run (see the module).

    Parameters
    ----------
    site : path
        The built HTML site (``_build/html``).
    pages : list of str
        Pages relative to ``site``.
    out : path, optional
        Where to save the screenshots; None saves none.
    timeout : float
        Seconds allowed for a page to load and settle.
    browser : str, optional
        The Chromium executable (default: ``find_browser()``).
    jobs : int
        Pages checked at once (0: the CPUs, at most 4).
    log : callable, optional
        Called with each page's ``PageResult.line()`` as it finishes.
    accessibility : bool
        Run axe-core on every page, in both themes.

    Returns
    -------
    list of PageResult
        One per page, in the order of ``pages``.

    Raises
    ------
    FileNotFoundError
        If no Chromium is found.
    """
    executable = find_browser(browser)
    if executable is None:
        raise FileNotFoundError(f"no Chromium found (tried {', '.join(BROWSERS)}; set $CHROMIUM)")
    axe = axe_source() if accessibility else None
    site = Path(site).absolute()
    out = Path(out).absolute() if out is not None else None
    jobs = jobs or min(4, os.cpu_count() or 1)
    return asyncio.run(_check_pages(site, pages, out, timeout, executable, jobs, log, axe))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", default="_build/html", help="the built HTML site (default: _build/html)")
    parser.add_argument(
        "--out", default="_build/screenshots", help="where to save screenshots (default: _build/screenshots)"
    )
    parser.add_argument(
        "--pages", nargs="+", help="pages relative to --site (default: index.html and every page of the TOC)"
    )
    parser.add_argument(
        "--toc", help="the _toc.yml to take pages from (default: _toc.yml next to _build, else ./_toc.yml)"
    )
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds allowed per page (default: 30)")
    parser.add_argument("--browser", help="Chromium executable (default: $CHROMIUM, else chromium on PATH)")
    parser.add_argument("--jobs", type=int, default=0, help="pages checked at once (default: CPUs, at most 4)")
    parser.add_argument("--json", help="also write every page's facts to this JSON file")
    parser.add_argument("--no-axe", action="store_true", help="skip the axe-core accessibility check")
    args = parser.parse_args(argv)

    site = Path(args.site)
    if not (site / "index.html").exists() and not args.pages:
        parser.error(f"{site}/index.html not found: build the book first")
    pages = args.pages
    if not pages:
        candidates = [Path(args.toc)] if args.toc else [site.absolute().parents[1] / "_toc.yml", Path("_toc.yml")]
        toc = next((c for c in candidates if c.exists()), None)
        if toc is None:
            parser.error("no _toc.yml found: pass --toc or --pages")
        pages = toc_pages(toc)

    start = time.monotonic()
    try:
        results = check_site(
            site,
            pages,
            args.out,
            args.timeout,
            args.browser,
            args.jobs,
            log=lambda s: print(s, flush=True),
            accessibility=not args.no_axe,
        )
    except FileNotFoundError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    failed = [r for r in results if not r.ok]
    print(
        f"{len(results)} pages checked in {time.monotonic() - start:.1f} s, {len(failed)} failed; screenshots in {args.out}"
    )
    if args.json:
        Path(args.json).write_text(json.dumps([r.__dict__ for r in results], indent=1))
    for r in failed:
        print(f"\n{r.page}:")
        for reason in r.failures:
            print(f"  - {reason}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
