"""First contact (issue 25): licenses, citation, the README, CONTRIBUTING.md, and the intro's PDF link.

* LICENSE (MIT, the code) and LICENSE-TEXT.md (CC BY 4.0, the text) exist and are named in the
  README and in the footer of every page (``html.extra_footer`` in _config.yml);
* CITATION.cff is YAML with the keys Citation File Format 1.2.0 requires;
* the README has the two commands, every chapter of _toc.yml in order, and stays short;
* CONTRIBUTING.md's exercise snippet has the structure of the book's exercises (read by the
  student edition's own parser) and its code runs;
* ``_ext/pdf_link.py`` turns the intro's link to the PDF into a note where the PDF does not exist,
  and back, in a real Sphinx build too; ``booktools pdf`` puts the link back after printing.
"""

import io
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from pypdf import PdfReader, PdfWriter

import onlinelib as ol
from _ext import pdf_link
from booktools import pdf_edition
from booktools.solution_fences import fences, find_removals

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CONTRIBUTING = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))

TWO_COMMANDS = """```bash
make book    # builds the book into _build/html (open _build/html/index.html)
make test    # runs every test: pytest runs the unit tests and every chapter under nbval
```"""


def _title(entry: str) -> str:
    source = (ROOT / f"{entry}.md").read_text(encoding="utf-8")
    return next(line[2:].strip() for line in source.splitlines() if line.startswith("# "))


# --- licenses and citation ------------------------------------------------------------------


def test_the_code_license_is_mit():
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n\nCopyright (c) 2026 The onlinelib authors\n"), text[:80]
    assert "Permission is hereby granted, free of charge" in text
    assert 'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND' in text


def test_the_text_license_is_cc_by_with_its_legal_code():
    text = (ROOT / "LICENSE-TEXT.md").read_text(encoding="utf-8")
    for needed in (
        "Creative Commons Attribution 4.0 International",
        "CC BY 4.0",
        "https://creativecommons.org/licenses/by/4.0/",
        "https://creativecommons.org/licenses/by/4.0/legalcode",
        "`book/`",
        "How to attribute",
    ):
        assert needed in text, f"LICENSE-TEXT.md does not say {needed!r}"


def test_the_readme_and_every_page_footer_name_both_licenses():
    footer = CONFIG["html"]["extra_footer"]
    for where, text in (("README.md", README), ("html.extra_footer of _config.yml", footer)):
        for needed in ("LICENSE)", "LICENSE-TEXT.md", "MIT", "CC BY 4.0"):
            assert needed in text, f"{where} does not name {needed!r}"
    assert 'href="https://creativecommons.org/licenses/by/4.0/"' in footer, footer


def test_the_pdf_editions_cover_names_both_licenses():
    """Print media hides the site's footer, so the PDF's cover says it."""
    cover = pdf_edition.cover_html([("Intro", 3)], "revision abc")
    for needed in ("CC BY 4.0", "https://creativecommons.org/licenses/by/4.0/", "LICENSE-TEXT.md", "MIT", "(LICENSE)"):
        assert needed in cover, f"the PDF's cover does not name {needed!r}"


def test_citation_cff_has_the_required_keys():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0", cff.get("cff-version")
    assert isinstance(cff["message"], str) and cff["message"], cff.get("message")
    assert cff["title"] == CONFIG["title"], (cff["title"], CONFIG["title"])
    assert cff["authors"] == [{"name": CONFIG["author"]}], cff["authors"]
    assert cff["type"] == "software" and cff["license"] == "MIT", (cff["type"], cff["license"])
    book = cff["preferred-citation"]
    assert book["type"] == "book" and book["title"] == cff["title"] and book["authors"] == cff["authors"], book
    assert book["license"] == "CC-BY-4.0", book["license"]


# --- the README -----------------------------------------------------------------------------


def test_the_readme_has_the_two_commands():
    assert TWO_COMMANDS in README


def test_the_readme_lists_every_chapter_in_the_order_of_the_toc():
    """The numbered chapters as table rows "| N. Title | `file.md` |" in _toc.yml's order; the other
    parts' pages by their titles."""
    numbered = [chapter["file"] for part in TOC["parts"] if part.get("numbered") for chapter in part["chapters"]]
    assert len(numbered) == 8, numbered
    rows = [i for i, line in enumerate(README.splitlines()) if line.startswith("|")]
    lines = README.splitlines()
    found = []
    for number, entry in enumerate(numbered, start=1):
        row = f"| {number}. {_title(entry)} | `{Path(entry).name}.md` |"
        hits = [i for i in rows if lines[i].endswith(row)]
        assert len(hits) == 1, f"the README's chapter table has no row ending {row!r}"
        found.append(hits[0])
    assert found == sorted(found), "the README lists the chapters out of the order of _toc.yml"
    others = [chapter["file"] for part in TOC["parts"] if not part.get("numbered") for chapter in part["chapters"]]
    missing = [entry for entry in others if _title(entry) not in README]
    assert not missing, f"pages of _toc.yml whose titles the README does not name: {missing}"
    assert "book/assignments/" in README


NUMBER_WORDS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen \
sixteen seventeen eighteen nineteen twenty".split()


def test_the_counts_in_the_readme_and_the_intro_are_the_tocs():
    """Issue 37: "six assignments" outlived six more. The README's number of assignments and the
    intro's number of chapters are the pages _toc.yml lists."""
    chapters = sum(len(part["chapters"]) for part in TOC["parts"] if part.get("numbered"))
    (assignments,) = [
        len(chapter.get("sections", []))
        for part in TOC["parts"]
        for chapter in part["chapters"]
        if chapter["file"] == "book/assignments/index"
    ]
    intro = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
    assert f"Then {NUMBER_WORDS[assignments]} **Assignments**" in README, assignments
    assert f"The book has {NUMBER_WORDS[chapters]} chapters" in intro, chapters
    stale = [
        w for w in NUMBER_WORDS if w != NUMBER_WORDS[assignments] and re.search(rf"\b{w} assignments", README, re.I)
    ]
    assert not stale, stale


def test_the_readme_is_short_and_points_on():
    n_lines = README.count("\n")
    assert n_lines < 150, f"README.md has {n_lines} lines: a newcomer reads it in two minutes"
    for needed in (
        "CONTRIBUTING.md",
        "CITATION.cff",
        "book/guide_for_lecturers.md",
        "make student",
        "make pdf",
        ".github/workflows/book.yml",
        "GitHub Actions",
        "`repository.url`",
        "bubblewrap",
        "poppler-utils",
        "Chromium",
        'pip install "./[notebooks]"',
        "Report an error",
    ):
        assert needed in README, f"README.md does not mention {needed!r}"


# --- CONTRIBUTING.md's exercise snippet -----------------------------------------------------


def _snippet() -> str:
    blocks = re.findall(r"^~~~markdown\n(.*?)^~~~$", CONTRIBUTING, re.DOTALL | re.MULTILINE)
    assert len(blocks) == 1, f"expected one ~~~markdown block in CONTRIBUTING.md, found {len(blocks)}"
    return blocks[0]


def _shape(text: str, start: int) -> list[tuple]:
    """(directive, fence) of the top-level blocks of an exercise from line ``start``: the exercise,
    its solution's start, the code cells, its solution's end."""
    lines = text.splitlines()
    shape = []
    for f in fences(text):
        if f.start < start:
            continue
        shape.append((f.name, re.match(r"[`:~]*", lines[f.start]).group(0)))
        if f.name == "solution-end":
            return shape
    return shape


def test_the_exercise_snippet_is_shaped_like_the_books_exercises():
    snippet = _snippet()
    first = fences(snippet)[0]
    label = first.options.get("label")
    assert first.name == "exercise" and label, (first.name, first.options)
    shape = _shape(snippet, 0)
    assert shape == [("exercise", "```"), ("solution-start", "````"), ("code-cell", "```"), ("solution-end", "````")], (
        shape
    )
    # The book's own exercises with a code cell in their solution have the same shape.
    chapter = (ROOT / "book" / "perceptron.md").read_text(encoding="utf-8")
    shapes = [_shape(chapter, f.start) for f in fences(chapter) if f.name == "exercise"]
    assert shape in shapes, shapes[:3]
    # The student edition removes the snippet's solution, code cell included, and keeps the exercise.
    removed = find_removals(snippet)
    assert [(r.kind, r.label) for r in removed] == [("gated-solution", label)], removed
    assert "{code-cell} ipython3" in removed[0].body
    assert [s.options.get("class") for s in fences(snippet) if s.name == "solution-start"] == ["dropdown"]


def test_the_exercise_snippets_code_runs_as_in_a_chapter():
    code = fences(_snippet())[2]
    assert code.name == "code-cell" and "assert" in code.markdown, code
    source = code.markdown
    exec(compile(source, "CONTRIBUTING.md snippet", "exec"), {"np": np, "ol": ol})


# --- the intro's link to the PDF edition ----------------------------------------------------

LINK = '<a href="../online-learning.pdf">PDF edition</a>'
BOX = (
    f'<div class="tip pdf-edition admonition">\n<p class="admonition-title">Offline</p>\n<p>Also a {LINK}.</p>\n</div>'
)
PAGE = f'<html><body><div class="main">{BOX}<p><a href="x.html">x</a></p></div></body></html>'


def test_the_intro_marks_its_pdf_box():
    intro = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
    assert re.search(r":class: .*\bpdf-edition\b", intro) and 'href="../online-learning.pdf"' in intro
    assert "lecturer-only" not in intro.split("## What the course covers")[0]  # the student edition has it too
    assert "pdf_link" in CONFIG["sphinx"]["local_extensions"]


def test_hiding_the_box_leaves_no_note_and_showing_it_gives_the_page_back():
    """Issue 37: a reader's page never shows a build note; without the PDF the box is simply absent."""
    hidden = pdf_link.hide_pdf_link(PAGE)
    visible = re.sub(r"<!--.*?-->", "", hidden, flags=re.DOTALL)
    assert visible == '<html><body><div class="main"><p><a href="x.html">x</a></p></div></body></html>'
    assert pdf_link.hide_pdf_link(hidden) == hidden  # a second build changes nothing
    assert pdf_link.restore_pdf_link(hidden) == PAGE
    assert pdf_link.restore_pdf_link(PAGE) == PAGE


def test_the_box_is_found_by_its_class_only():
    other = PAGE.replace("pdf-edition admonition", "pdf-editions admonition")
    assert pdf_link.hide_pdf_link(other) == other
    assert pdf_link.hide_pdf_link(PAGE.replace(LINK, "no link")) != PAGE.replace(LINK, "no link")
    with pytest.raises(ValueError, match="block: .*'--'"):
        pdf_link.hide_pdf_link(PAGE.replace("PDF edition</a>", "PDF -- edition</a>"))


def test_sync_pages_follows_the_pdf(tmp_path):
    (tmp_path / "book").mkdir()
    intro = tmp_path / "book" / "intro.html"
    intro.write_text(PAGE, encoding="utf-8")
    assert pdf_link.sync_pages(tmp_path, ["book/intro.html", "book/gone.html"]) == [intro]
    assert "<!--pdf-edition <div" in intro.read_text(encoding="utf-8")
    (tmp_path / "online-learning.pdf").write_bytes(b"%PDF")
    assert pdf_link.sync_pages(tmp_path, ["book/intro.html"]) == [intro]
    assert intro.read_text(encoding="utf-8") == PAGE
    assert sorted(p.name for p in (tmp_path / "book").iterdir()) == ["intro.html"]  # no partial file left
    with pytest.raises(ValueError, match="site: .*nowhere"):
        pdf_link.sync_pages(tmp_path / "nowhere", ["book/intro.html"])


def test_a_sphinx_build_hides_the_box_until_the_pdf_exists(tmp_path):
    """The extension in a real (small) build: no box without the PDF; the box again in the next,
    incremental build once the PDF exists, although Sphinx does not rewrite the page."""
    src, out = tmp_path / "src", tmp_path / "out"
    src.mkdir()
    (src / "conf.py").write_text("extensions = ['_ext.pdf_link']\n")  # `python -m` from the root imports it
    (src / "index.rst").write_text(
        f"Intro\n=====\n\n.. admonition:: Offline\n   :class: tip pdf-edition\n\n   .. raw:: html\n\n      {LINK}\n"
    )

    def build():
        done = subprocess.run(
            [sys.executable, "-m", "sphinx", "-b", "html", "-q", str(src), str(out)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return (out / "index.html").read_text(encoding="utf-8")

    page = build()
    assert "<!--pdf-edition <div" in page and "Offline" not in re.sub(r"<!--.*?-->", "", page, flags=re.DOTALL)
    assert build() == page  # the next build hides it once
    (out / "online-learning.pdf").write_bytes(b"%PDF")
    page = build()
    assert LINK in page and "<!--pdf-edition" not in page


def _one_page_pdf() -> PdfReader:
    writer = PdfWriter()
    writer.add_blank_page(width=595, height=842)
    data = io.BytesIO()
    writer.write(data)
    return PdfReader(io.BytesIO(data.getvalue()))


def test_booktools_pdf_puts_the_link_back_after_printing(tmp_path, monkeypatch):
    """``booktools pdf`` with the printing stubbed out: once it has written the PDF, the intro's
    link is back; the printed intro leaves the note out."""
    site = tmp_path / "html"
    (site / "book").mkdir(parents=True)
    intro = site / "book" / "intro.html"
    intro.write_text(pdf_link.hide_pdf_link(PAGE), encoding="utf-8")
    toc = tmp_path / "_toc.yml"
    toc.write_text("format: jb-book\nroot: book/intro\n", encoding="utf-8")

    async def fake_print_book(executable, site_, pages, timeout, edition):
        assert edition == "PDF edition"
        assert pages == ["book/intro.html"] and "<!--pdf-edition <div" in (site_ / pages[0]).read_text(encoding="utf-8")
        reader = _one_page_pdf()
        return [(pages[0], "Intro", reader, reader.outline, {})], _one_page_pdf(), [("Intro", 2)]

    monkeypatch.setattr(pdf_edition, "find_browser", lambda browser: "chromium")
    monkeypatch.setattr(pdf_edition, "print_book", fake_print_book)
    assert pdf_edition.main(["--site", str(site), "--toc", str(toc)]) == 0
    assert len(PdfReader(site / "online-learning.pdf").pages) == 2
    assert intro.read_text(encoding="utf-8") == PAGE
    assert re.search(r"\.pdf-edition \{ display: none", pdf_edition.PRINT_CSS)
