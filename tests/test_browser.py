"""The built book in a real browser: every page opened in headless Chromium, offline.

For each page of _toc.yml (and index.html), booktools/browser_check.py asserts that
MathJax typeset the maths and left no raw TeX, every image loaded, every saved widget
was drawn by the widget manager served from the site, nothing was logged as an error,
and no request left the site, that axe-core finds no serious or critical
accessibility violation in the light or the dark theme, that no code cell's text output is
wider than its box (at 1280 px and at 400 px), and that on a phone's screen (400 px) the
page is no wider than the screen and no image wider than its box; it saves a full-page screenshot
under _build/screenshots/ (and a dark one of each page with a figure or a widget).
Skipped when the book has not been built or no Chromium is installed (set
BROWSER_CHECK_REQUIRED=1 to fail instead); .ci/run builds the book and then runs this file,
with BROWSER_SCREENSHOTS=0: CI's screenshots would be thrown away with its clone, and they cost
about a third of the check's CPU time (the checks themselves are the same; `make checks` and
`python -m booktools browser-check` save them for a person to look at).
BOOK_HTML=/path/to/_build/html checks another build. tests/test_browser_check.py tries the
text-output and image measures on small planted pages.
"""

import os
import re
from pathlib import Path

import pytest

from booktools import browser_check
from examples import need_browser

ROOT = Path(__file__).resolve().parents[1]
# BOOK_HTML: check another build of the book (e.g. one made with --path-output), not _build/html
HTML = Path(os.environ.get("BOOK_HTML") or ROOT / "_build" / "html")
# BROWSER_SCREENSHOTS=0: check every page but save no screenshot (CI).
SCREENSHOTS = None if os.environ.get("BROWSER_SCREENSHOTS") == "0" else HTML.parent / "screenshots"
PAGES = browser_check.toc_pages(ROOT / "_toc.yml")

NOT_BUILT = "the book has not been built (no _build/html/index.html)"
pytestmark = pytest.mark.skipif(not (HTML / "index.html").exists(), reason=NOT_BUILT)


@pytest.fixture(scope="module")
def results():
    """Every page checked once, in one browser."""
    need_browser()
    return {
        r.page: r for r in browser_check.check_site(HTML, PAGES, out=SCREENSHOTS, timeout=90)
    }  # generous: CI runs other jobs meanwhile


@pytest.mark.parametrize("page", PAGES)
def test_page_in_browser(results, page):
    r = results[page]
    assert r.ok, f"{r.line()}\n  - " + "\n  - ".join(r.failures)
    assert r.phone_width > 0, r.line()  # measured (and, as r.ok says, no wider than a phone)
    if SCREENSHOTS is None:
        assert r.screenshot == ""
        return
    assert Path(r.screenshot).stat().st_size > 0
    # a dark-theme screenshot exactly where there is a figure or a widget to look at
    dark = Path(r.screenshot).with_name(Path(r.screenshot).stem + "-dark.png")
    assert dark.exists() == bool(r.images or r.widget_views), (page, dark)


def _has_explorer(page: str) -> bool:
    """True if the page's source has a cell that shows an explorer (a line like ``foo_explorer()``)."""
    source = ROOT / (page[: -len(".html")] + ".md")
    return source.exists() and bool(re.search(r"^\w+_explorer\(\)$", source.read_text(encoding="utf-8"), re.M))


CHAPTER_PAGES = [p for p in PAGES if _has_explorer(p)]


def test_every_explorer_is_drawn_offline(results):
    """Each chapter's explorer shows its controls, from the saved widget state, with no network."""
    assert len(CHAPTER_PAGES) >= 8, CHAPTER_PAGES
    for page in CHAPTER_PAGES:
        r = results[page]
        assert r.widget_views >= 1 and r.widgets_drawn == r.widget_views, r.line()
        assert r.widget_controls >= 3, f"{page}: only {r.widget_controls} sliders, menus or buttons drawn"


def test_toc_pages_cover_every_chapter():
    assert PAGES[0] == "index.html"
    assert "book/intro.html" in PAGES and "book/bibliography.html" in PAGES
    assert all((HTML / p).exists() for p in PAGES), [p for p in PAGES if not (HTML / p).exists()]


def _site_with_page(tmp_path, page, html):
    """A copy of the site in tmp_path (symlinks to the built files) in which ``page`` reads ``html``."""
    site = tmp_path / "site"
    parent_parts = Path(page).parent.parts
    src, dst = HTML, site
    dst.mkdir()
    for i in range(len(parent_parts) + 1):
        following = parent_parts[i] if i < len(parent_parts) else None
        for entry in src.iterdir():
            if entry.name != following:
                (dst / entry.name).symlink_to(entry)
        if following is None:
            break
        src, dst = src / following, dst / following
        dst.mkdir()
    target = site / page
    if target.is_symlink():
        target.unlink()
    target.write_text(html, encoding="utf-8")
    return site


def test_checker_catches_broken_page(tmp_path):
    """The check can fail: a page with a console error, a missing image, raw TeX and a remote image."""
    need_browser()
    page = "book/errata.html"  # a small page with maths
    html = (HTML / page).read_text(encoding="utf-8")
    injected = (
        '<script>console.error("x")</script>'
        # MathJax on these pages typesets any $$...$$ pair it finds; one it skips stays raw.
        '<p class="mathjax_ignore">Unparsed display maths: $$x$$</p>'
        '<img src="missing.png" alt="missing">'
        '<img src="https://example.com/a.png" alt="remote">'
    )
    html, n = re.subn(r"(<body[^>]*>)", lambda m: m.group(1) + injected, html, count=1)
    assert n == 1
    site = _site_with_page(tmp_path, page, html)

    [r] = browser_check.check_site(site, [page], out=tmp_path / "shots", timeout=30)

    assert not r.ok
    assert "console.error: x" in r.console_errors
    assert {img["src"] for img in r.broken_images} >= {"missing.png", "https://example.com/a.png"}
    assert "$$" in [raw["delimiter"] for raw in r.raw_tex]
    assert "https://example.com/a.png" in r.external_requests
    reasons = "\n".join(r.failures)
    for expected in (
        "console error: console.error: x",
        "image not loaded: missing.png",
        "raw TeX $$ visible",
        "request left the site: https://example.com/a.png",
    ):
        assert expected in reasons
    # The rest of the page is still fine: MathJax typeset it, and the screenshot was taken.
    assert r.mjx > 0 and not r.untypeset
    assert (tmp_path / "shots" / "book" / "errata.png").stat().st_size > 0
    # the page has images now (broken ones count): a dark screenshot too, as on every page with a figure
    assert (tmp_path / "shots" / "book" / "errata-dark.png").stat().st_size > 0


def test_checker_catches_undrawn_widgets(tmp_path):
    """Without the widget manager on the page, the saved widget view is reported as not drawn."""
    need_browser()
    page = "book/mistake_bounds.html"
    html = (HTML / page).read_text(encoding="utf-8")
    html, n = re.subn(r'<script src="[^"]*widgets/embed\.js[^"]*"></script>', "", html)
    assert n == 1
    site = _site_with_page(tmp_path, page, html)

    # A page without a manager is not waited for (nothing could draw its views), so the timeout is
    # only room for a long page to load and typeset on a loaded machine, as for the whole site; the
    # accessibility check, which this test is not about, is left out.
    [r] = browser_check.check_site(site, [page], out=None, timeout=90, accessibility=False)

    assert r.widget_views >= 1 and r.widgets_drawn == 0, r.line()
    assert any("saved widget views not drawn" in f for f in r.failures), r.failures


def test_checker_catches_accessibility_violations(tmp_path):
    """axe-core runs in both themes: an unnamed button and an unlabelled image fail the page."""
    need_browser()
    page = "book/errata.html"
    html = (HTML / page).read_text(encoding="utf-8")
    injected = '<button id="nameless"></button><img id="no-alt" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">'
    html, n = re.subn(r"(<body[^>]*>)", lambda m: m.group(1) + injected, html, count=1)
    assert n == 1
    site = _site_with_page(tmp_path, page, html)

    [r] = browser_check.check_site(site, [page], out=None, timeout=30)

    assert set(r.axe_violations) == {"light", "dark"}
    for theme in ("light", "dark"):
        ids = {v["id"] for v in r.axe_violations[theme] if v["impact"] in browser_check.AXE_FAILING_IMPACTS}
        assert {"button-name", "image-alt"} <= ids, (theme, r.axe_violations[theme])
    assert any(f.startswith("axe (light theme): button-name") for f in r.failures), r.failures


def test_checker_measures_a_page_too_wide_for_a_phone(tmp_path):
    """The phone width can fail: a paragraph 775 px wide makes the page wider than the screen.

    (Issue 17: the API page was 775 px wide; now wide tables, code and figures scroll inside
    their own boxes, and signatures and long names wrap.)"""
    need_browser()
    page = "book/api.html"
    html = (HTML / page).read_text(encoding="utf-8")
    html, n = re.subn(r'(<article class="bd-article">)', r'\1<p style="width: 775px">wide</p>', html, count=1)
    assert n == 1
    site = _site_with_page(tmp_path, page, html)

    [r] = browser_check.check_site(site, [page], out=None, timeout=30, accessibility=False)

    assert r.phone_width >= 775, r.line()
    # the only failure: the rest of the page is fine
    assert r.failures == [f"the page is {r.phone_width} px wide on a {browser_check.PHONE_WIDTH} px screen"], r.failures
