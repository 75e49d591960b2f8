"""The chapter slides (issue 37): made from the chapter's own text, no solutions, offline in the browser.

``booktools/slides.py`` writes one reveal.js deck per chapter from the chapter's statements and
figures; ``booktools/slides_check.py`` opens the decks in headless Chromium. The extraction is
tested on a small planted chapter (a theorem in; a solution, a gated solution, a proof and
lecturer-only material out) and on the book's chapters (every statement of every chapter is in
its deck, word for word). The browser tests build decks into tmp_path: the planted chapter with a
figure (from a planted executed notebook), two real chapters text-only, and a deck that breaks the
rules (a request to the network, raw TeX), which the check must fail. The decks with the real
figures need the full build's executed notebooks (``make book``) and are skipped without them.
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
import shutil
from functools import cache
from pathlib import Path

import pytest

from booktools import slides, slides_check
from examples import MYST_HEADER, need_browser

ROOT = Path(__file__).resolve().parents[1]
# the full build's executed notebooks (SLIDES_EXECUTED: those of another build)
EXECUTED = Path(os.environ.get("SLIDES_EXECUTED", ROOT / "_build" / "jupyter_execute"))

HEADER = MYST_HEADER

CHAPTER = (
    HEADER
    + """
# A planted chapter

## The setting

```{prf:definition} Margin
:label: def-demo-margin

The *margin* of $w$ on $(x, y)$ is $y\\,\\langle w, x\\rangle / \\|w\\|$.
```

```{prf:theorem} Planted bound
:label: thm-demo-bound

Every planted learner makes at most $k \\lg n$ mistakes
on a stream labelled by a disjunction of $k$ of $n$ variables.
```

```{prf:proof}
PROOF-TEXT-NOT-ON-SLIDES follows from counting.
```

```{code-cell} ipython3
---
tags: [plot]
mystnb:
  image:
    alt: "A planted figure: one blue square."
---
print("the figure")
```

```{code-cell} ipython3
:tags: [remove-output]
print("a hidden figure")
```

+++ {"tags": ["lecturer-only"]}

```{prf:lemma} LECTURER-LEMMA-TITLE
LECTURER-LEMMA-BODY only for the lecturer.
```

+++

## Using it

```{prf:corollary} Planted consequence
As {prf:ref}`thm-demo-bound` shows, $M \\le k \\lg n$, and by {prf:ref}`the margin <def-demo-margin>` more.
```

```{admonition} Note for lecturers
:class: lecturer-only
LECTURER-ADMONITION-TEXT
```

## Exercises

```{exercise} A planted exercise
:label: ex-demo

Prove {prf:ref}`thm-demo-bound`.
```

```{solution} ex-demo
:class: dropdown
SOLUTION-TEXT-NOT-ON-SLIDES
```

````{solution-start} ex-demo
````

GATED-SOLUTION-TEXT-NOT-ON-SLIDES

```{prf:theorem} GATED-THEOREM
GATED-THEOREM-BODY
```

```{code-cell} ipython3
print("a solution's figure")
```

````{solution-end}
````
"""
)
SECRETS = ("PROOF-TEXT", "LECTURER-LEMMA", "LECTURER-ADMONITION", "SOLUTION-TEXT", "GATED-")


def _png(colour: str = "blue") -> bytes:
    """A small PNG (matplotlib, as the chapters' figures are)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(2, 2), dpi=50)
    ax.add_patch(plt.Rectangle((0.25, 0.25), 0.5, 0.5, color=colour))
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    return buffer.getvalue()


def _executed(text: str, png: bytes) -> dict:
    """The notebook a build would have executed from ``text``: every code cell, each with a PNG output."""
    from booktools.notebooks import read_notebook

    cells = []
    for cell in read_notebook(io.StringIO(text)).cells:
        if cell.cell_type == "code":
            data = {"image/png": base64.b64encode(png).decode(), "text/plain": "<Figure>"}
            cells.append({**cell, "outputs": [{"output_type": "display_data", "data": data, "metadata": {}}]})
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def _book(tmp_path: Path, chapter: str = CHAPTER, name: str = "demo") -> Path:
    """A one-chapter book: _toc.yml with one numbered part, the book's _config.yml, executed notebooks."""
    root = tmp_path / "book_root"
    (root / "book").mkdir(parents=True)
    (root / "book" / f"{name}.md").write_text(chapter, encoding="utf-8")
    (root / "book" / "intro.md").write_text("# Intro\n", encoding="utf-8")
    toc = f"format: jb-book\nroot: book/intro\nparts:\n  - caption: Planted\n    numbered: true\n    chapters:\n      - file: book/{name}\n"
    (root / "_toc.yml").write_text(toc, encoding="utf-8")
    shutil.copy(ROOT / "_config.yml", root / "_config.yml")
    executed = root / "_build" / "jupyter_execute" / "book"
    executed.mkdir(parents=True)
    (executed / f"{name}.ipynb").write_text(json.dumps(_executed(chapter, _png())), encoding="utf-8")
    return root


# --------------------------------------------------------------------------- extraction


def test_a_theorem_is_in_and_solutions_proofs_and_lecturer_material_are_out():
    chapter = slides.read_chapter(CHAPTER, "demo", "book/demo.md", 3)
    statements = [i for s in chapter.sections for i in s.items]
    assert [s.heading for s in statements] == [
        "Definition 3.1 (Margin)",
        "Theorem 3.1 (Planted bound)",
        "Corollary 3.1 (Planted consequence)",
    ]
    assert [s.title for s in chapter.sections] == ["The setting", "Using it", "Exercises"]
    assert chapter.sections[2].exercises == ["A planted exercise"]
    deck = slides.deck_source(chapter, chapter.labels)
    for secret in SECRETS:
        assert secret not in deck
    # the theorem's body, verbatim
    assert "Every planted learner makes at most $k \\lg n$ mistakes\non a stream labelled" in deck
    # references read as in the book: "Theorem 3.1", or the reference's own text
    assert "As Theorem 3.1 shows, $M \\le k \\lg n$, and by the margin more." in deck
    assert "{prf:ref}" not in deck


def test_a_statement_before_the_first_section_is_shown_under_the_chapter_title():
    early = CHAPTER.replace("## The setting\n", "```{prf:definition} Early\nSaid first.\n```\n\n## The setting\n")
    chapter = slides.read_chapter(early, "demo", "book/demo.md", 3)
    assert [s.title for s in chapter.sections][:2] == ["A planted chapter", "The setting"]
    assert [i.heading for i in chapter.sections[0].items] == ["Definition 3.1 (Early)"]
    assert "## Definition 3.1 (Early)\n" in slides.deck_source(chapter, chapter.labels)


def test_numbers_count_each_kind_and_skip_what_the_student_edition_removes():
    _, labels = slides.read_statements(CHAPTER, 7)
    assert labels == {"def-demo-margin": "Definition 7.1", "thm-demo-bound": "Theorem 7.1"}
    # a theorem placed before the planted one shifts its number
    earlier = CHAPTER.replace("## The setting\n", "## The setting\n\n```{prf:theorem}\nFirst.\n```\n")
    _, labels = slides.read_statements(earlier, 7)
    assert labels["thm-demo-bound"] == "Theorem 7.2"


def test_figures_come_from_the_executed_notebook_and_a_stale_one_is_refused():
    figures = slides.read_figures(CHAPTER, _executed(CHAPTER, _png()))
    # the remove-output cell and the solution's cell give none
    assert [(f.alt, f.png[:4]) for f in figures] == [("A planted figure: one blue square.", b"\x89PNG")]
    stale = _executed(CHAPTER.replace('print("the figure")', 'print("an older figure")'), _png())
    with pytest.raises(slides.FiguresMissing, match="differs"):
        slides.read_figures(CHAPTER, stale)


@cache
def _the_book() -> tuple[dict, dict]:
    """The book's chapters read for their decks (text only), by name, and every chapter's labels."""
    chapters, labels, _ = slides.load_chapters(ROOT, None, None)
    return {c.name: c for c in chapters}, labels


def _independent_statements(text: str) -> list[tuple[str, str]]:
    """(kind, body) of every backtick-fenced statement directive, by a plain line scan (no markdown-it)."""
    found, lines, k = [], text.splitlines(), 0
    kinds = "|".join(slides.STATEMENTS)
    while k < len(lines):
        m = re.match(rf"^(`{{3,}})\{{prf:({kinds})\}}", lines[k])
        k += 1
        if m:
            end = next(j for j in range(k, len(lines)) if lines[j].strip() == m.group(1))
            body = [line for line in lines[k:end] if not re.match(r"^:[\w-]+:", line)]
            found.append((m.group(2), "\n".join(body).strip("\n")))
            k = end + 1
    return found


@pytest.mark.parametrize("name", [Path(c).name for c in slides.numbered_chapters(ROOT / "_toc.yml")])
def test_every_statement_of_the_chapter_is_in_its_deck_word_for_word(name):
    text = (ROOT / "book" / f"{name}.md").read_text(encoding="utf-8")
    chapters, labels = _the_book()
    deck = slides.deck_source(chapters[name], labels)
    expected = _independent_statements(text)
    shown = [i for s in chapters[name].sections for i in s.items]
    assert len(shown) == len(expected) > 0
    for (kind, body), statement in zip(expected, shown, strict=True):
        assert statement.kind == kind
        assert statement.body.strip("\n") == body  # the chapter's text, unchanged
        assert slides.resolve_roles(body, labels) in deck


def test_missing_executed_notebooks_stop_with_what_to_do(tmp_path, capsys):
    code = slides.main(["--out", str(tmp_path / "out"), "--chapter", "winnow1", "--executed", str(tmp_path / "none")])
    assert code == 1
    assert "run `make book` first" in capsys.readouterr().err


def test_bad_arguments_are_named(tmp_path, capsys):
    with pytest.raises(SystemExit):
        slides.main(["--out", str(tmp_path / "out"), "--chapter", "no_such_chapter", "--no-figures"])
    assert "--chapter: no numbered chapter no_such_chapter" in capsys.readouterr().err
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(SystemExit, match="no slides build made"):
        slides.main(["--out", str(busy), "--no-figures"])
    assert (busy / "notes.txt").is_file()


# --------------------------------------------------------------------------- in the browser

STATEMENT_TEXT_JS = r"""(heading) => {
  const h = [...document.querySelectorAll(".reveal h2")].find((e) => e.textContent.trim() === heading);
  if (!h) return null;
  const copy = h.parentElement.querySelector(".statement").cloneNode(true);
  copy.querySelectorAll("mjx-container").forEach((e) => e.replaceWith(" MATH "));
  return copy.textContent;
}"""


def _words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z]+", text)


def _check(out: Path, decks: int):
    import asyncio

    return asyncio.run(slides_check.check_decks(out, decks, need_browser(), 120, None))


def test_the_planted_deck_with_its_figure_passes_the_browser_check(tmp_path):
    need_browser()
    root = _book(tmp_path)
    out = root / "_build" / "slides"
    assert slides.main(["--root", str(root)]) == 0
    assert (out / "demo" / "index.html").is_file() and (out / "index.html").is_file()
    results = _check(out, 1)
    assert [r.failures for r in results] == [[], [], []]
    deck = results[1]
    assert deck.page == "demo/index.html"
    assert deck.maths >= 4 and deck.mjx >= deck.maths
    assert len(deck.images) == 1 and deck.images[0]["ok"]
    assert deck.requests > 5  # reveal.js, its theme, MathJax, the figure...: all local
    for secret in SECRETS:
        assert secret not in (out / "demo" / "index.html").read_text(encoding="utf-8")
    assert _check(out, 2)[-1].failures == [f"1 decks in {out}, expected 2 (one per chapter)"]


def test_two_chapters_text_only_pass_and_show_the_chapters_words(tmp_path):
    need_browser()
    out = tmp_path / "slides"
    assert slides.main(["--out", str(out), "--no-figures", "--chapter", "winnow1", "--chapter", "perceptron"]) == 0
    results = _check(out, 2)
    assert [r.page for r in results] == ["index.html", "perceptron/index.html", "winnow1/index.html", "deck count"]
    assert all(r.ok for r in results), [r.failures for r in results]
    assert all(r.mjx > 20 for r in results[1:3])
    # the slide of the chapter's first theorem shows the chapter's words, in order
    theorem = next(i for s in _the_book()[0]["winnow1"].sections for i in s.items if i.kind == "theorem")
    import asyncio

    from playwright.async_api import async_playwright

    async def slide_text():
        async with async_playwright() as p:
            browser = await slides_check.launch(p, need_browser())
            page = await browser.new_page()
            await page.goto((out / "winnow1" / "index.html").as_uri())
            await page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
            await page.evaluate("() => MathJax.startup.promise")
            text = await page.evaluate(STATEMENT_TEXT_JS, theorem.heading)
            await browser.close()
            return text

    shown = asyncio.run(slide_text())
    assert shown is not None, theorem.heading
    no_maths = re.sub(r"\$\$.*?\$\$|\$[^$]*\$", " MATH ", theorem.body, flags=re.DOTALL)
    assert _words(shown) == _words(no_maths)


def test_the_check_fails_a_deck_that_reaches_the_network_or_leaves_raw_tex(tmp_path):
    need_browser()
    bad = CHAPTER.replace(
        "of $k$ of $n$ variables.\n",
        'of $k$ of $n$ variables.\n\nEach round costs 5 $ here. <img src="https://example.org/tracker.png" alt="x">\n',
    )
    assert bad != CHAPTER
    root = _book(tmp_path, bad)
    out = root / "_build" / "slides"
    assert slides.main(["--root", str(root)]) == 0
    failures = _check(out, 1)[1].failures
    assert any(f.startswith("request outside the folder: https://example.org/tracker.png") for f in failures)
    assert any(f.startswith("raw TeX left in the text") and "costs 5 $ here" in f for f in failures)
    assert any(f.startswith("image not loaded") for f in failures)


def test_real_chapters_with_their_figures(tmp_path, capsys):
    need_browser()
    names = [n for n in ("winnow1",) if (EXECUTED / "book" / f"{n}.ipynb").is_file()]
    if not names:
        pytest.skip("no executed notebooks in _build/jupyter_execute: run `make book` first")
    out = tmp_path / "slides"
    code = slides.main(["--out", str(out), "--executed", str(EXECUTED), *[a for n in names for a in ("--chapter", n)]])
    if code == 1 and "run `make book` first" in capsys.readouterr().err:
        pytest.skip("the executed notebooks are older than the chapters: run `make book` again")
    assert code == 0
    results = _check(out, len(names))
    assert all(r.ok for r in results), [r.failures for r in results]
    assert all(r.images and all(i["ok"] for i in r.images) for r in results[1:-1])


CAPTION_NUMBER = re.compile(r'<span class="caption-number">\s*(\w+) (\d+\.\d+)\s*</span>')


@pytest.mark.parametrize("name", [Path(c).name for c in slides.numbered_chapters(ROOT / "_toc.yml")])
def test_statement_numbers_are_the_built_books(name):
    page = ROOT / "_build" / "html" / "book" / f"{name}.html"
    if not page.is_file():
        pytest.skip(f"no built page {page.relative_to(ROOT)}: run `make book` first")
    shown = CAPTION_NUMBER.findall(page.read_text(encoding="utf-8"))
    book = [f"{kind} {number}" for kind, number in shown if kind.lower() in slides.STATEMENTS]
    deck = [f"{i.kind.title()} {i.number}" for s in _the_book()[0][name].sections for i in s.items]
    assert deck == book


def test_no_line_of_a_solution_or_lecturer_block_of_the_book_reaches_a_deck():
    from booktools.solution_fences import find_removals

    chapters, labels = _the_book()
    checked = 0
    for name, chapter in chapters.items():
        text = (ROOT / chapter.source).read_text(encoding="utf-8")
        deck = slides.deck_source(chapter, labels)
        for removed in find_removals(text):
            rest = text.replace(removed.body, "")
            for line in (line.strip() for line in removed.body.splitlines()):
                if len(line) > 40 and line not in rest:  # a line found only in the removed block
                    checked += 1
                    assert line not in deck, f"{name}: {line}"
    assert checked > 100
