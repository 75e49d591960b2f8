"""Checks of the PDF edition (``booktools/pdf_edition.py``), run by .ci/run after printing it.

Skipped when the PDF has not been made (a plain ``pytest`` on a fresh clone) or when
poppler's ``pdftotext`` is missing; .ci/run installs poppler-utils and runs this file.
"""

import functools
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from pypdf import PdfReader

from booktools.toc import toc_entries

ROOT = Path(__file__).resolve().parents[1]
PDF = ROOT / "_build" / "html" / "online-learning.pdf"

pytestmark = [
    pytest.mark.skipif(
        not PDF.exists(),
        reason="the PDF edition has not been made: run `make pdf` (python -m booktools pdf after a build)",
    ),
    pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext (poppler-utils) is not installed"),
]


@functools.cache
def plain_quotes(text: str) -> str:
    """Sphinx's smart quotes undone (a title's "Novikoff's" is printed "Novikoff’s"), so titles compare."""
    return text.translate(str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'}))


def chapter_titles():
    """The first heading of every page in _toc.yml: what the PDF must contain."""
    titles = []
    for entry in toc_entries(yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))):
        source = ROOT / f"{entry}.md"
        heading = next(line for line in source.read_text(encoding="utf-8").splitlines() if line.startswith("# "))
        titles.append(re.sub(r"\s+", " ", heading[2:]).strip())
    return titles


@pytest.fixture(scope="module")
def text():
    out = subprocess.run(["pdftotext", "-enc", "UTF-8", str(PDF), "-"], capture_output=True, text=True, check=True)
    return plain_quotes(re.sub(r"\s+", " ", out.stdout))


@pytest.fixture(scope="module")
def bookmarks():
    reader = PdfReader(PDF)

    def walk(items, depth=0):
        for item in items:
            if isinstance(item, list):
                yield from walk(item, depth + 1)
            else:
                yield depth, plain_quotes(item.title), reader.get_destination_page_number(item)

    return list(walk(reader.outline)), len(reader.pages)


def test_every_page_of_the_book_is_in_the_pdf(text):
    missing = [title for title in chapter_titles() if title not in text]
    assert not missing, f"titles not found in the PDF's text: {missing}"


def test_no_raw_tex_or_mathjax_error_leaked(text):
    for leak in (
        "\\frac",
        "$$",
        "\\(",
        "\\[",
        "\\mathbb",
        "Math input error",
        "Undefined control sequence",
        "Missing or unrecognized delimiter",
    ):
        assert leak not in text, f"{leak!r} in the PDF: {text[max(0, text.find(leak) - 80) : text.find(leak) + 80]}"


def test_bookmarks_give_each_page_and_its_sections(bookmarks):
    marks, n_pages = bookmarks
    top = [(title, page) for depth, title, page in marks if depth == 0]
    for title in chapter_titles():
        assert any(title in t for t, _ in top), f"no top-level bookmark for {title!r}: {top}"
    pages = [page for _, page in top]
    assert pages == sorted(pages) and 0 < pages[0] and pages[-1] < n_pages, pages
    sections = [title for depth, title, _ in marks if depth == 1]
    assert "4.7. Additive against multiplicative updates" in sections, sections[:20]
    # maths in headings keeps its text (from MathJax's assistive MathML), not empty gaps
    assert any(re.fullmatch(r"4\.8\. Explore: α, θ, N and k", t) for t in sections), [
        t for t in sections if t.startswith("4.8")
    ]


def test_the_contents_page_lists_every_part(text):
    contents = text[text.find("Contents") : text.find("Contents") + 4000]
    for title in chapter_titles():
        assert title[:40] in contents, f"{title!r} is not on the contents page"
