"""Checks of the built book (``_build/html``), run by .ci/run after the strict build.

They are skipped when the book has not been built, e.g. in a plain ``pytest`` run
on a fresh clone; .ci/run builds the book and then runs this file again.
"""
import re
from pathlib import Path

import pytest

HTML = Path(__file__).resolve().parents[1] / "_build" / "html"
CHAPTERS = [
    "book/mistake_bounds.html",
    "book/winnow1.html",
    "book/perceptron.html",
    "book/winnow.html",
    "book/experts.html",
    "book/kernels.html",
    "book/directed_drift.html",
    "book/learning_curves.html",
]

pytestmark = pytest.mark.skipif(not (HTML / "index.html").exists(), reason="the book has not been built")


PAGES_WITH_MATHS = CHAPTERS + ["book/intro.html", "book/errata.html"]
ALL_PAGES = PAGES_WITH_MATHS + [
    "book/bibliography.html",
    "index.html",
    "book/api.html",
    "book/status.html",
    "book/lecturer_guide.html",
]


def _scripts(page):
    return re.findall(r'<script[^>]*src="([^"]+)"', (HTML / page).read_text(encoding="utf-8"))


@pytest.mark.parametrize("page", ALL_PAGES)
def test_page_loads_no_script_from_the_network(page):
    remote = [s for s in _scripts(page) if s.startswith(("http:", "https:", "//"))]
    assert not remote, f"{page} loads scripts from the network: {remote}"


@pytest.mark.parametrize("page", PAGES_WITH_MATHS)
def test_maths_is_rendered_by_a_local_mathjax(page):
    mathjax = [s for s in _scripts(page) if "mathjax" in s.lower()]
    assert mathjax, f"{page} has maths but loads no MathJax"
    for src in mathjax:
        assert (HTML / page).parent.joinpath(src.split("?")[0]).resolve().exists(), f"missing {src}"


@pytest.mark.parametrize("page", CHAPTERS)
def test_chapter_has_figures_maths_and_exercises(page):
    html = (HTML / page).read_text(encoding="utf-8")
    images = re.findall(r'<img[^>]*src="([^"]+\.png)"', html)
    assert len(images) >= 3, f"{page}: expected the chapter's figures, found {images}"
    for src in images:
        assert (HTML / page).parent.joinpath(src).resolve().exists(), f"{page}: missing image {src}"
    assert "math notranslate" in html, f"{page}: no maths found"
    # A $$ left in the text means a display formula was not parsed as maths.
    text = re.sub(r"<(script|style)[^>]*>.*?</\1>", "", html, flags=re.S)
    assert "$$" not in re.sub(r"<[^>]+>", "", text), f"{page}: unparsed $$ in the page"
    exercises = html.count('class="exercise admonition"')
    solutions = html.count('class="solution dropdown admonition"')
    assert exercises >= 4 and solutions == exercises, f"{page}: {exercises} exercises, {solutions} solutions"
    assert 'class="proof theorem admonition"' in html, f"{page}: no theorem rendered"
    assert "Traceback" not in html, f"{page}: a cell printed a traceback"


def test_bibliography_lists_cited_works():
    html = (HTML / "book/bibliography.html").read_text(encoding="utf-8")
    for author in ("Littlestone", "Maass", "Rivest"):
        assert author in html, f"{author} missing from the bibliography"
