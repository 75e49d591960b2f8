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
