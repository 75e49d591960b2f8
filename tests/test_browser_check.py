"""The browser check's reading measures (issue 28) on small planted pages, no built book needed.

Each test writes a tiny site into tmp_path: a page with a code cell's text output wider than
its box, or a figure wider than a phone's column, first without the book's reading CSS
(``_ext/static/reading.css``; the check must fail) and then with it (the check must pass).
Skipped without Chromium (BROWSER_CHECK_REQUIRED=1 fails instead).
"""

import shutil
from pathlib import Path

import pytest

from booktools import browser_check
from examples import need_browser

ROOT = Path(__file__).resolve().parents[1]
READING_CSS = ROOT / "_ext" / "static" / "reading.css"
LONG_VERDICT = "R = 0.9999, gamma = 0.1001: M = 20 <= U = 20 <= R^2/gamma^2 = 99.81; " + "steps 2 and 3 hold " * 12


@pytest.fixture(autouse=True)
def _need_browser():
    need_browser()


def _site(tmp_path, body, reading_css, reading_js=False):
    """A one-page site: the markup myst-nb and the theme write around ``body``."""
    site = tmp_path / f"css-{reading_css}-js-{reading_js}"
    site.mkdir()
    link = ""
    if reading_css:
        shutil.copy(READING_CSS, site / "reading.css")
        link = '<link rel="stylesheet" href="reading.css">'
    if reading_js:
        shutil.copy(READING_CSS.with_suffix(".js"), site / "reading.js")
        link += '<script src="reading.js"></script>'
    # as in the theme: a text output's box scrolls sideways, and its text keeps its line breaks
    theme = "<style>.cell_output .output { max-width: 100%; overflow-x: auto } pre { white-space: pre }</style>"
    (site / "page.html").write_text(
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>planted</title>{theme}{link}</head>'
        f'<body><main><article class="bd-article" style="max-width: 700px">{body}</article></main></body></html>',
        encoding="utf-8",
    )
    return site


def _check(site):
    [r] = browser_check.check_site(site, ["page.html"], out=None, timeout=20, accessibility=False)
    return r


OUTPUT = (
    '<div class="cell docutils container"><div class="cell_output docutils container">'
    '<div class="output stream highlight-myst-ansi notranslate"><div class="highlight"><pre><span></span>'
    f"{LONG_VERDICT.replace('<', '&lt;')}\n</pre></div></div></div></div>"
)


def test_text_output_wider_than_its_box_fails_the_page(tmp_path):
    r = _check(_site(tmp_path, OUTPUT, reading_css=False))

    assert r.output_texts == 1
    assert len(r.overflowing_outputs) == 1 and len(r.phone_overflowing_outputs) == 1
    assert r.overflowing_outputs[0]["text"].startswith("R = 0.9999, gamma = 0.1001")
    reasons = "\n".join(r.failures)
    assert "1 of 1 text outputs wider than their box at 1280 px, e.g. 'R = 0.9999, gamma = 0.1001" in reasons
    assert f"1 of 1 text outputs wider than their box at {browser_check.PHONE_WIDTH} px" in reasons
    assert r.phone_width <= browser_check.PHONE_WIDTH  # the output scrolls in its box: the page is not wider
    assert "text outputs overflowing 1/1 at 1280 px, 1/1 at 400 px" in r.line()


def test_text_output_wraps_with_the_reading_css(tmp_path):
    r = _check(_site(tmp_path, OUTPUT, reading_css=True))

    assert r.output_texts == 1
    assert r.overflowing_outputs == [] and r.phone_overflowing_outputs == []
    assert r.ok, r.failures


# A figure as myst-nb writes one (an image in the output) and as the text holds one (in a figure,
# inside the link Sphinx puts around it), each drawn 600 px wide, as the chapters' figures are.
FIGURES = (
    '<div class="cell_output docutils container">'
    '<img alt="an output figure" width="600" height="300" src="data:image/svg+xml,'
    "%3Csvg xmlns='http://www.w3.org/2000/svg' width='600' height='300'/%3E\"></div>"
    '<figure class="align-default"><a class="reference internal image-reference" href="#">'
    '<img alt="a figure in the text" width="600" height="300" src="data:image/svg+xml,'
    "%3Csvg xmlns='http://www.w3.org/2000/svg' width='600' height='300'/%3E\"></a>"
    "<figcaption><p>A caption.</p></figcaption></figure>"
)


def test_figure_wider_than_a_phone_column_fails_the_page(tmp_path):
    site = _site(tmp_path, FIGURES, reading_css=False)
    # the pre-issue-28 rule: below 640 px an output figure kept 600 px and its box scrolled
    (site / "page.html").write_text(
        (site / "page.html")
        .read_text(encoding="utf-8")
        .replace(
            "</head>", "<style>.cell_output { overflow-x: auto } .cell_output img { width: 600px }</style></head>"
        ),
        encoding="utf-8",
    )
    r = _check(site)

    assert sorted(i["width"] for i in r.wide_images) == [600, 600], r.wide_images
    assert all(i["box"] < 400 for i in r.wide_images)
    assert any(
        f.startswith(f"2 images wider than their box on a {browser_check.PHONE_WIDTH} px screen, e.g. data:image/svg")
        for f in r.failures
    ), r.failures


def test_figures_scale_to_the_column_with_the_reading_css(tmp_path):
    r = _check(_site(tmp_path, FIGURES, reading_css=True))

    assert r.wide_images == []
    assert r.phone_width <= browser_check.PHONE_WIDTH
    assert r.ok, r.failures


# A saved widget as the HTML manager leaves it: the drawn view just before its view script.
WIDGET = (
    '<div class="cell docutils container"><div class="cell_output docutils container">'
    '<div class="widget-subarea"><div class="jupyter-widgets widget-slider">a slider</div></div>'
    '<script type="application/vnd.jupyter.widget-view+json">{"model_id": "m", "version_major": 2}</script>'
    "</div></div>"
)


@pytest.mark.parametrize(
    ("css", "js", "failures"),
    [
        (True, True, []),
        (True, False, ["1 drawn widgets look live on the static site"]),
        (False, True, ["1 drawn widgets look live on the static site", "1 widget outputs without the"]),
        (False, False, ["1 drawn widgets look live on the static site", "1 widget outputs without the"]),
    ],
)
def test_a_widget_on_the_static_site_must_be_inert_and_say_where_it_works(tmp_path, css, js, failures):
    r = _check(_site(tmp_path, WIDGET, reading_css=css, reading_js=js))
    assert r.widget_views == 1 and r.widgets_drawn == 1
    widget_failures = [f for f in r.failures if "widget" in f]
    assert len(widget_failures) == len(failures)
    for failure, expected in zip(widget_failures, failures, strict=True):
        assert failure.startswith(expected), (failure, expected)


# A saved widget view that nothing has drawn yet, and a stand-in for the HTML manager's bundle
# (embed.js) that draws each view half a second after the load event.
UNDRAWN = (
    '<div class="cell docutils container"><div class="cell_output docutils container">'
    '<script type="application/vnd.jupyter.widget-view+json">{"model_id": "m", "version_major": 2}</script>'
    "</div></div>"
)
MANAGER = """window.addEventListener("load", () => setTimeout(() => {
  for (const view of document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')) {
    const area = document.createElement("div");
    area.className = "widget-subarea";
    area.innerHTML = '<div class="jupyter-widgets widget-slider">a slider</div>';
    view.before(area);
  }
}, 500));"""


@pytest.mark.parametrize("manager", [True, False])
def test_saved_widget_views_are_waited_for_where_a_manager_can_draw_them(tmp_path, manager):
    """With a manager on the page the check waits until it has drawn the views; without one nothing
    could draw them, so they fail at once instead of after the page's timeout (issue 34)."""
    site = _site(tmp_path, UNDRAWN, reading_css=True, reading_js=True)
    if manager:
        (site / "embed.js").write_text(MANAGER, encoding="utf-8")
        page = site / "page.html"
        page.write_text(
            page.read_text(encoding="utf-8").replace("</head>", '<script src="embed.js"></script></head>'),
            encoding="utf-8",
        )
    r = _check(site)

    assert r.widget_views == 1 and r.widgets_drawn == int(manager), r.line()
    not_drawn = [f for f in r.failures if "saved widget views not drawn" in f]
    assert len(not_drawn) == (0 if manager else 1), r.failures


# -- one tab for many pages: each page still opens as a first-time visitor sees it ------------------------

# The first page leaves data in both storages and logs an error; the second logs an error only if
# it finds that data. Checked one after the other in one tab (jobs=1), the second must see empty
# storage, and the first page's error must be on the first page's result only.
REMEMBER = (
    "<script>localStorage.setItem('seen', '1'); sessionStorage.setItem('seen', '1');"
    "console.error('first page error');</script>"
)
RECALL = (
    "<script>if (localStorage.getItem('seen') || sessionStorage.getItem('seen'))"
    " console.error('storage left over from another page');</script>"
)


def _two_pages(tmp_path):
    site = tmp_path / "two"
    site.mkdir()
    for name, script in (("first.html", REMEMBER), ("second.html", RECALL)):
        (site / name).write_text(
            f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{name}</title></head>'
            f"<body><main><p>{name}</p>{script}</main></body></html>",
            encoding="utf-8",
        )
    return site


def test_pages_checked_in_one_tab_start_with_empty_storage_and_keep_their_own_errors(tmp_path):
    first, second = browser_check.check_site(
        _two_pages(tmp_path), ["first.html", "second.html"], timeout=20, jobs=1, accessibility=False
    )
    assert first.console_errors == ["console.error: first page error"], first.console_errors
    assert second.console_errors == [], second.console_errors


def test_control_without_the_reset_the_second_page_finds_the_first_ones_storage(tmp_path, monkeypatch):
    async def no_reset(self):
        pass

    monkeypatch.setattr(browser_check.Tab, "reset", no_reset)
    _, second = browser_check.check_site(
        _two_pages(tmp_path), ["first.html", "second.html"], timeout=20, jobs=1, accessibility=False
    )
    assert second.console_errors == ["console.error: storage left over from another page"], second.console_errors
