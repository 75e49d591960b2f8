"""Open every slide deck (``booktools.slides``) in headless Chromium, with no network, and check it.

    python -m booktools slides --check                       # build, then check
    python -m booktools.slides_check _build/slides --decks 8 --screenshots /tmp/shots

The decks are checked as ``booktools.browser_check`` checks the site, with its tab (``Tab``:
every request and console message recorded, requests outside the folder aborted) and its wait
for MathJax's startup typeset and the images (``open_and_settle``). For each deck, and for the
index page, it asserts that

* no request left the folder (only ``file://`` under it, ``data:`` and ``blob:``), and no local
  file failed to load;
* nothing was logged as an error (``console.error``, uncaught exceptions, the browser's log);
* reveal.js started (``Reveal.isReady()``) and the deck has slides;
* MathJax typeset the maths: every ``.math`` element holds an ``mjx-container``, no
  ``mjx-merror``, and no raw TeX (``$``, ``\\(``, ``\\[``) is left in the text of any slide,
  hidden ones included (code is not searched);
* every image of every slide loaded (``complete`` and ``naturalWidth > 0``);
* the number of decks equals the number of chapters (``--decks``), and the index links each one.

Slides whose content is taller than the slide (reveal.js then cuts it off) are counted and listed
for each deck, measured on each slide in turn; they are reported, not failed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout
from playwright.async_api import async_playwright

from booktools.browser_check import PageResult, Tab, find_browser, launch, open_and_settle

TIMEOUT = 90.0  # s per deck: MathJax typesets a whole deck at once, slow on a loaded machine
RAW_TEX = ("$", "\\(", "\\[")

DECK_FACTS_JS = r"""(delimiters) => {
  const slides = document.querySelector(".reveal .slides");
  const copy = slides ? slides.cloneNode(true) : document.createElement("div");
  copy.querySelectorAll("mjx-container, pre, code, script, style").forEach((e) => e.remove());
  const text = copy.textContent;
  const rawTex = [];
  for (const d of delimiters) {
    const i = text.indexOf(d);
    if (i >= 0) rawTex.push(text.slice(Math.max(0, i - 40), i + 40).replace(/\s+/g, " "));
  }
  const maths = [...document.querySelectorAll(".reveal .math")];
  return {
    ready: Boolean(window.Reveal && Reveal.isReady && Reveal.isReady()),
    slides: window.Reveal && Reveal.getTotalSlides ? Reveal.getTotalSlides() : 0,
    maths: maths.length,
    mjx: document.querySelectorAll(".reveal mjx-container").length,
    untypeset: maths.filter((e) => !e.querySelector("mjx-container")).map((e) => e.textContent.slice(0, 80)),
    mathErrors: [...document.querySelectorAll("mjx-merror")].map((e) =>
      e.getAttribute("data-mjx-error") || e.textContent.slice(0, 80)),
    rawTex,
    images: [...document.querySelectorAll(".reveal .slides img")].map((img) => ({
      src: img.getAttribute("src") || "", ok: img.complete && img.naturalWidth > 0})),
    links: [...document.querySelectorAll(".reveal .slides a[href]")].map((a) => a.getAttribute("href")),
  };
}"""
# Every slide in turn: its title, if its content is taller than the slide or a formula is wider
# than its box (the slides' CSS lets such a formula scroll sideways rather than be cut off).
OVERFLOW_JS = r"""() => {
  const height = Reveal.getConfig().height, found = [];
  Reveal.getSlides().forEach((s, k) => {
    const where = Reveal.getIndices(s);
    Reveal.slide(where.h, where.v);
    const wide = [...s.querySelectorAll('mjx-container[display="true"]')]
      .filter((e) => e.scrollWidth > e.clientWidth + 1).length;
    if (s.scrollHeight > height + 1 || wide) {
      const title = s.querySelector("h1, h2");
      found.push({slide: k + 1, title: title ? title.textContent.trim() : "", height: s.scrollHeight, wide});
    }
  });
  Reveal.slide(0, 0);
  return found;
}"""
# The index (h, v) of the first slide whose title starts with a word, or holds an image.
FIND_SLIDE_JS = r"""(what) => {
  for (const s of Reveal.getSlides()) {
    const title = s.querySelector("h1, h2");
    const hit = what === "figure" ? s.querySelector("img") !== null
      : title !== null && title.textContent.trim().startsWith(what);
    if (hit) return Reveal.getIndices(s);
  }
  return null;
}"""


@dataclass
class DeckResult:
    """What the check measured on one deck, and why it fails (``failures``)."""

    page: str
    slides: int = 0
    maths: int = 0
    mjx: int = 0
    images: list = field(default_factory=list)
    links: list = field(default_factory=list)
    requests: int = 0
    overflowing: list = field(default_factory=list)
    seconds: float = 0.0
    failures: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def line(self) -> str:
        good = sum(i["ok"] for i in self.images)
        return (
            f"{'ok  ' if self.ok else 'FAIL'} {self.page}: {self.slides} slides, {self.maths} formulas typeset "
            f"({self.mjx} mjx-container), "
            f"images {good}/{len(self.images)} loaded, {self.requests} requests (all local), "
            f"{len(self.overflowing)} slides too tall or with a formula too wide, {self.seconds:.1f} s"
        )


def deck_pages(out: Path) -> list[str]:
    """``index.html`` and every deck's page (``NAME/index.html``) in the folder ``out``, sorted."""
    return ["index.html"] + sorted(f"{p.parent.name}/index.html" for p in out.glob("*/index.html"))


async def check_deck(tab: Tab, out: Path, page: str, timeout: float, shots: Path | None) -> DeckResult:
    """Open one deck in ``tab`` and measure it (see the module)."""
    start = time.monotonic()
    result = DeckResult(page)
    site = PageResult(page=page)  # where the tab records requests and console errors
    try:
        await tab.reset()
        tab.result = site
        mathjax = await open_and_settle(tab.page, f"{out.as_uri()}/{page}", timeout)
        facts = await tab.page.evaluate(DECK_FACTS_JS, list(RAW_TEX))
        result.slides, result.maths, result.mjx = facts["slides"], facts["maths"], facts["mjx"]
        result.images, result.links = facts["images"], facts["links"]
        f = result.failures
        if not facts["ready"] or not result.slides:
            f.append("reveal.js did not start, or the deck has no slides")
        if result.maths and mathjax != "typeset":
            f.append(f"MathJax: {mathjax}")
        f += [f"maths not typeset: {t!r}" for t in facts["untypeset"][:5]]
        f += [f"TeX error: {t!r}" for t in facts["mathErrors"][:5]]
        f += [f"raw TeX left in the text: ...{t}..." for t in facts["rawTex"]]
        f += [f"image not loaded: {i['src']}" for i in result.images if not i["ok"]]
        if facts["ready"]:
            result.overflowing = await tab.page.evaluate(OVERFLOW_JS)
            if shots is not None:
                await _screenshots(tab, page, shots)
    except (PlaywrightTimeout, PlaywrightError) as e:
        result.failures.append(f"the deck did not load: {str(e).splitlines()[0]}")
    finally:
        tab.result = None
    result.requests = len(site.requests)
    result.failures += [f"request outside the folder: {u}" for u in site.external_requests]
    result.failures += [f"failed to load: {r['url']} ({r['error']})" for r in site.failed_requests]
    result.failures += site.console_errors
    result.seconds = time.monotonic() - start
    return result


async def _screenshots(tab: Tab, page: str, shots: Path) -> None:
    """The deck's first theorem slide and first figure slide, as ``<shots>/<deck>-theorem.png`` etc."""
    shots.mkdir(parents=True, exist_ok=True)
    deck = Path(page).parent.name or "index"
    for what, name in (("Theorem", "theorem"), ("figure", "figure")):
        where = await tab.page.evaluate(FIND_SLIDE_JS, what)
        if where is not None:
            await tab.page.evaluate("(w) => Reveal.slide(w.h, w.v)", where)
            await tab.page.wait_for_timeout(300)
            await tab.page.screenshot(path=shots / f"{deck}-{name}.png")


async def check_decks(out: Path, decks: int | None, browser: str, timeout: float, shots: Path | None) -> list:
    """Check every deck in ``out``; the results, the last one the count of decks against ``decks``."""
    pages = deck_pages(out)
    results = []
    async with async_playwright() as playwright:
        chromium = await launch(playwright, browser)
        try:
            tab = await Tab.open(chromium, out.as_uri())
            for page in pages:
                results.append(await check_deck(tab, out, page, timeout, shots))
                print(results[-1].line(), flush=True)
            await tab.close()
        finally:
            await chromium.close()
    count = DeckResult("deck count")
    found = len(pages) - 1
    count.slides = found
    if decks is not None and found != decks:
        count.failures.append(f"{found} decks in {out}, expected {decks} (one per chapter)")
    linked = set(results[0].links) if results else set()
    count.failures += [f"the index does not link {p}" for p in pages[1:] if p not in linked]
    results.append(count)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m booktools.slides_check", description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path, help="the folder of the decks (python -m booktools slides --out)")
    parser.add_argument("--decks", type=int, help="how many decks there must be (one per chapter)")
    parser.add_argument("--browser", help="the Chromium executable (default: $CHROMIUM or chromium on PATH)")
    parser.add_argument("--timeout", type=float, default=TIMEOUT, help="seconds per deck (default: %(default)s)")
    parser.add_argument("--screenshots", type=Path, help="save each deck's first theorem and figure slide here")
    args = parser.parse_args(argv)
    if args.decks is not None and args.decks < 0:
        parser.error(f"--decks must be >= 0, not {args.decks}")
    if not (args.out / "index.html").is_file():
        parser.error(f"{args.out} has no index.html: build the decks first (python -m booktools slides)")
    browser = find_browser(args.browser)
    if browser is None:
        print("slides check: no Chromium found (pass --browser or set $CHROMIUM)", file=sys.stderr)
        return 1
    results = asyncio.run(check_decks(args.out.resolve(), args.decks, browser, args.timeout, args.screenshots))
    failed = [r for r in results if not r.ok]
    for r in failed:
        print(f"{r.page}:\n  " + "\n  ".join(r.failures), file=sys.stderr)
    decks = len(results) - 2
    print(f"slides check: {decks} decks and the index, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
