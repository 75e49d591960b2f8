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
    "book/guide_for_lecturers.html",
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
def test_folded_cells_say_what_they_hold(page):
    # issue 28: "Show the check", "Show the plot code" (_ext/fold_labels.py), not myst-nb's generic prompt
    html = (HTML / page).read_text(encoding="utf-8")
    summaries = re.findall(r'<p class="collapsed admonition-title">([^<]*)</p>', html)
    assert "Show the check" in summaries, summaries
    generic = [s for s in summaries if not s.startswith("Show the ")]
    assert not generic, f"{page}: folds with a generic prompt: {generic}"


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


# --- Downloads, launch buttons and widgets (_ext/notebook_links.py, _ext/widget_js.py) ---

ROOT = HTML.parents[1]


def _notebook_pages() -> list[str]:
    """Docnames of the TOC's MyST notebooks (the rule nbval and the Binder check use)."""
    from booktools import binder_chapters

    return [path[: -len(".md")] for path in binder_chapters.chapters()]


NOTEBOOK_PAGES = _notebook_pages() if (HTML / "index.html").exists() else []


def test_the_notebook_pages_are_found():
    # Every chapter and assignment is a notebook; the plain pages (intro, errata, ...) are not.
    assert set(c[: -len(".html")] for c in CHAPTERS) <= set(NOTEBOOK_PAGES)
    assert "book/intro" not in NOTEBOOK_PAGES and len(NOTEBOOK_PAGES) >= len(CHAPTERS) + 6


@pytest.mark.parametrize("page", NOTEBOOK_PAGES)
def test_every_notebook_page_offers_its_executed_ipynb(page):
    import jupytext
    import nbformat

    ipynb = HTML / "_sources" / f"{page}.ipynb"
    assert ipynb.is_file(), f"no download {ipynb}"
    nb = nbformat.read(ipynb, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == "python3"
    # first a note on reading it without a MyST renderer, then the chapter
    assert nb.cells[0].metadata.tags == ["download-note"] and "jupyterlab-myst" in nb.cells[0].source
    source = jupytext.read(ROOT / f"{page}.md")
    code = [c.source.strip() for c in nb.cells if c.cell_type == "code"]
    assert code == [c.source.strip() for c in source.cells if c.cell_type == "code"], (
        f"{ipynb}: its code cells differ from {page}.md"
    )
    assert all(c.execution_count for c in nb.cells if c.cell_type == "code" and c.source.strip()), (
        f"{ipynb}: not executed"
    )
    # Folded in JupyterLab as on the site (issue 28): hide-input cells carry jupyter.source_hidden.
    folded = [
        ("hide-input" in c.metadata.get("tags", []), c.metadata.get("jupyter", {}).get("source_hidden") is True)
        for c in nb.cells
        if c.cell_type == "code"
    ]
    assert all(tag == hidden for tag, hidden in folded), f"{ipynb}: a folded cell JupyterLab would show open"
    # The full edition keeps the solutions (the student edition's leak test covers the rest).
    gated = sum(c.source.count("{solution-start}") for c in nb.cells if c.cell_type == "markdown")
    assert gated == (ROOT / f"{page}.md").read_text(encoding="utf-8").count("{solution-start}")
    html = (HTML / f"{page}.html").read_text(encoding="utf-8")
    link = re.search(r'href="([^"]+\.ipynb)"', html)
    assert link and (HTML / page).parent.joinpath(link.group(1)).resolve() == ipynb.resolve(), (
        f"{page}.html has no download link to {ipynb.name}"
    )


def _repository_setting() -> str:
    import yaml

    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    return ((config.get("repository") or {}).get("url") or "").strip()


@pytest.mark.parametrize("page", CHAPTERS)
def test_launch_buttons_follow_the_repository_setting(page):
    html = (HTML / page).read_text(encoding="utf-8")
    url = _repository_setting()
    if not url:  # no repository: no Binder, Thebe or repository button that would point nowhere
        for needle in ("mybinder.org", "initThebe", "launch-buttons", "repository-button"):
            assert needle not in html, f"{page}: {needle!r} although repository.url is empty"
    else:
        org_repo = url.rstrip("/").split("/", 3)[3]
        assert f"mybinder.org/v2/gh/{org_repo}/" in html and "initThebe" in html


@pytest.mark.parametrize("page", CHAPTERS)
def test_saved_widgets_are_drawn_by_the_local_widget_manager(page):
    html = (HTML / page).read_text(encoding="utf-8")
    views = html.count('type="application/vnd.jupyter.widget-view+json"')
    assert views >= 1, f"{page}: its explorer's saved widget view is missing"
    assert 'type="application/vnd.jupyter.widget-state+json"' in html, f"{page}: no widget state"
    scripts = [s.split("?")[0] for s in _scripts(page)]
    assert scripts.index("../_static/widgets/mathjax3-typeset.js") < scripts.index("../_static/widgets/embed.js")
    manager = HTML / "_static" / "widgets" / "embed.js"
    assert manager.stat().st_size > 1_000_000, "the widget manager bundle is missing or truncated"


def test_pages_without_widgets_do_not_load_the_widget_manager():
    html = (HTML / "book/intro.html").read_text(encoding="utf-8")
    assert "widgets/embed.js" not in html


@pytest.mark.parametrize("page", CHAPTERS)
def test_every_figure_has_alt_text(page):
    """Each figure says what it shows (myst-nb's ``mystnb.image.alt``), not its file name."""
    html = (HTML / page).read_text(encoding="utf-8")
    images = re.findall(r"<img([^>]*)>", html)
    unlabelled = []
    for attributes in images:
        alt = re.search(r'alt="([^"]*)"', attributes)
        src = re.search(r'src="([^"]*)"', attributes)
        if not alt or len(alt.group(1)) < 20 or (src and alt.group(1) == src.group(1)):
            unlabelled.append(src.group(1) if src else attributes[:80])
    assert not unlabelled, f"{page}: {len(unlabelled)} of {len(images)} images without alt text: {unlabelled[:3]}"


def test_the_status_table_says_passed_in_words():
    """Every notebook's status in words: an emoji is an empty box without an emoji font (issue 17)."""
    html = (HTML / "book" / "status.html").read_text(encoding="utf-8")
    table = html[html.index("<table") : html.index("</table>")]
    assert "✅" not in table and "❌" not in table
    rows = table.count("<tr") - 1  # less the header row
    assert rows >= 15 and len(re.findall(r"<p>passed</p>", table)) == rows, (rows, table[:2000])


@pytest.mark.parametrize("page", ALL_PAGES)
def test_no_numpy_scalar_repr_reaches_a_page(page):
    """Issue 38: a numpy scalar glued as is shows as ``np.float64(0.88)`` under ``{glue}`` (and fails a
    formatted ``{glue:text}``): a chapter glues ``float(x)`` or ``int(x)``."""
    text = (HTML / page).read_text(encoding="utf-8")
    found = re.findall(r"np\.(?:float|int|uint|bool)\w*\([^)]{0,40}\)", text)
    assert not found, found[:5]
