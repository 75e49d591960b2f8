"""The chapters read as mathematics first (issue 16): checks and plots are folded.

A check cell (one with an ``assert``) outside the exercise solutions must have its
code folded (``hide-input``, or removed), so that the proof it checks reads on; at
most a quarter of each chapter's code lines may be visible by default. Code that
teaches how to use ``onlinelib`` stays visible. Solutions are left alone: they sit in
dropdowns already, and their code is the answer.
"""

from pathlib import Path

import jupytext
import pytest

from _ext import fold_labels
from examples import MYST_HEADER

BOOK = Path(__file__).resolve().parents[1] / "book"
CHAPTERS = [
    "mistake_bounds",
    "winnow1",
    "perceptron",
    "winnow",
    "experts",
    "kernels",
    "directed_drift",
    "learning_curves",
]
FOLDED = {"hide-input", "remove-input", "hide-cell", "remove-cell"}
MAX_VISIBLE_SHARE = 0.25


def main_text_code_cells(chapter):
    """(cell, folded) for the code cells of a chapter that are not in a solution."""
    in_solution = False
    for cell in jupytext.read(BOOK / f"{chapter}.md").cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if "{solution-start}" in line:
                    in_solution = True
                elif "{solution-end}" in line:
                    in_solution = False
        elif cell.cell_type == "code" and not in_solution:
            yield cell, bool(FOLDED & set(cell.metadata.get("tags", [])))


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_check_cells_are_folded(chapter):
    visible_checks = [
        cell.source.splitlines()[0]
        for cell, folded in main_text_code_cells(chapter)
        if not folded and any(line.lstrip().startswith("assert ") for line in cell.source.splitlines())
    ]
    assert not visible_checks, f"{chapter}: check cells with visible code, first lines: {visible_checks}"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_most_code_is_folded(chapter):
    cells = list(main_text_code_cells(chapter))
    total = sum(len(cell.source.splitlines()) for cell, _ in cells)
    visible = sum(len(cell.source.splitlines()) for cell, folded in cells if not folded)
    assert visible <= MAX_VISIBLE_SHARE * total, (
        f"{chapter}: {visible} of {total} code lines visible ({visible / total:.0%}), more than {MAX_VISIBLE_SHARE:.0%}"
    )


# Issue 28, items 3 and 5: a folded cell says what it holds ("Show the check", _ext/fold_labels.py)
# and is folded in JupyterLab too (Binder opens the chapters there), by JupyterLab's own metadata.
PAGES = sorted(BOOK.rglob("*.md"))


def fold_problems(path: Path) -> list[str]:
    """What is wrong with the folds of one MyST notebook: one line per cell, naming it by its first line.

    * ``hide-input`` and ``jupyter.source_hidden`` go together (the book folds what JupyterLab folds);
    * a folded cell names its kind (a tag of ``fold_labels.KINDS``), and only a folded cell does;
    * ``check`` is on exactly the cells with ``assert`` lines, ``plot`` on exactly those with figure alt text.
    """
    problems = []
    for number, cell in enumerate(jupytext.read(path).cells):
        if cell.cell_type != "code":
            continue
        tags = set(cell.metadata.get("tags", []))
        folded = "hide-input" in tags
        hidden = (cell.metadata.get("jupyter") or {}).get("source_hidden") is True
        mystnb = cell.metadata.get("mystnb") or {}
        where = f"{path.name} cell {number} ({(cell.source.splitlines() or [''])[0][:60]!r})"
        if folded != hidden:
            problems.append(f"{where}: hide-input={folded} but jupyter.source_hidden={hidden}")
        kinds = tags & set(fold_labels.KINDS)
        if folded and not kinds:
            problems.append(f"{where}: folded without a kind tag, one of {sorted(fold_labels.KINDS)}")
        if kinds and not folded:
            problems.append(f"{where}: kind tags {sorted(kinds)} on a cell that is not folded")
        if not folded:
            continue
        asserts = any(line.lstrip().startswith("assert ") for line in cell.source.splitlines())
        figure = isinstance(mystnb, dict) and bool({"image", "figure"} & set(mystnb))
        if ("check" in kinds) != asserts:
            problems.append(f"{where}: tagged check={'check' in kinds}, has assert lines={asserts}")
        if ("plot" in kinds) != figure:
            problems.append(f"{where}: tagged plot={'plot' in kinds}, has figure alt text={figure}")
    return problems


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(BOOK)))
def test_folds_say_what_they_hold_and_fold_in_jupyterlab_too(page):
    problems = fold_problems(page)
    assert not problems, "\n".join(problems)


def test_the_fold_check_finds_each_kind_of_mistake(tmp_path):
    cell = "```{{code-cell}} ipython3\n{options}\n{source}\n```\n"
    cases = {
        "jupyter.source_hidden": (":tags: [hide-input, check]", "assert 1 == 1"),
        "hide-input=False but jupyter.source_hidden=True": (":jupyter: {source_hidden: true}", "x = 1"),
        "folded without a kind tag": (":tags: [hide-input]\n:jupyter: {source_hidden: true}", "x = 1"),
        "on a cell that is not folded": (":tags: [check]", "assert 1 == 1"),
        "tagged check=True, has assert lines=False": (
            ":tags: [hide-input, check]\n:jupyter: {source_hidden: true}",
            "x = 1",
        ),
        "tagged check=False, has assert lines=True": (
            ":tags: [hide-input, helper]\n:jupyter: {source_hidden: true}",
            "assert x",
        ),
        "tagged plot=False, has figure alt text=True": (
            "---\ntags: [hide-input, setup]\njupyter: {source_hidden: true}\nmystnb:\n  image:\n    alt: A plot\n---",
            "x = 1",
        ),
    }
    good = cell.format(options=":tags: [hide-input, check]\n:jupyter: {source_hidden: true}", source="assert True")
    header = MYST_HEADER + "\n# A page\n\n"
    (tmp_path / "good.md").write_text(header + good)
    assert fold_problems(tmp_path / "good.md") == [] and len(jupytext.read(tmp_path / "good.md").cells) == 2
    for expected, (options, source) in cases.items():
        page = tmp_path / "planted.md"
        page.write_text(header + good + "\n" + cell.format(options=options, source=source))
        problems = fold_problems(page)
        assert len(problems) == 1 and expected in problems[0], (expected, problems)


@pytest.mark.parametrize(
    ("tags", "show"),
    [
        (["hide-input", "check"], "Show the check"),
        (["hide-input", "plot", "check"], "Show the check and the plot code"),
        (["hide-input", "setup"], "Show the imports"),
        (["hide-input"], None),
        (None, None),
    ],
)
def test_fold_prompts(tags, show):
    prompts = fold_labels.fold_prompts(tags)
    assert (prompts and prompts[0]) == show
    if show:
        assert prompts[1] == show.replace("Show", "Hide", 1)
