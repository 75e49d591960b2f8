"""The grader's wording after issue 37: "not attempted", "not answered", and the merged feedback's total.

* A submission that is the hand-out as given (every code cell one of the hand-out's or the student-id
  cell, every answer cell its placeholder or empty) and earned 0 has the status ``not attempted``.
  It is only a label on a zero: a row with points, a grader error or a forbidden use keeps its own.
* An answer cell left as handed out is "not answered"; "no answer cell" is kept for a missing cell.
* After ``--merge-manual`` the feedback's header has the total, each comment sits under its item,
  and the console says what was merged (``rubric.merge_summary``).

The end-to-end runs are in test_grading.py (the Halving stub, the untouched winnow1 notebook) and
test_grade_manual.py (the merge).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from booktools.grading import judge
from booktools.grading.answers import (
    NOT_ATTEMPTED,
    extract_answers,
    handout_of,
    is_untouched,
    unanswered_questions,
)
from booktools.grading.feedback import feedback_markdown, merged_feedback
from booktools.grading.hidden import load_hidden
from booktools.grading.questions import questions_from_hidden
from booktools.grading.rubric import ManualMark, merge_summary, written_total
from booktools.grading.scores import GRADER_ERROR, STATUSES
from booktools.handout import handout_files
from examples import assignment_names

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = ROOT / "book" / "assignments"


def questions(name):
    return questions_from_hidden(getattr(load_hidden(ASSIGNMENTS / "lecturer" / f"{name}_hidden.py"), "QUESTIONS", []))


def handout(name):
    return handout_of(ASSIGNMENTS / f"{name}.md", questions(name))


def ipynb(name, tmp_path) -> Path:
    """The hand-out's notebook, as the student downloads it."""
    path = tmp_path / f"{name}.ipynb"
    path.write_bytes(handout_files(name)[f"{name}.ipynb"])
    return path


def edited(path: Path, change) -> Path:
    """A copy of the .ipynb ``path`` with ``change(cells)`` applied."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    change(notebook["cells"])
    out = path.with_name("edited.ipynb")
    out.write_text(json.dumps(notebook), encoding="utf-8")
    return out


def code_cell(cells, pattern):
    return next(c for c in cells if c["cell_type"] == "code" and pattern in "".join(c["source"]))


@pytest.mark.parametrize("name", assignment_names())
def test_every_hand_out_as_given_is_untouched(name, tmp_path):
    given = handout(name)
    assert given is not None and given.code
    assert is_untouched(ASSIGNMENTS / f"{name}.md", given)
    assert is_untouched(ipynb(name, tmp_path), given)


def test_a_change_to_any_code_or_answer_cell_is_an_attempt(tmp_path):
    given, path = handout("winnow1"), ipynb("winnow1", tmp_path)
    stub = lambda cells: code_cell(cells, "class Winnow1Learner")  # noqa: E731

    def one_line(cells):
        cell = stub(cells)
        cell["source"] = "".join(cell["source"]).replace("raise NotImplementedError", "return None", 1)

    def answered(cells):
        cell = next(c for c in cells if "answer" in c.get("metadata", {}).get("tags", []))
        cell["source"] = "By the promotion lemma, each promotion adds ..."

    def extra_cell(cells):
        cells.append({"cell_type": "code", "metadata": {}, "source": "x = 1\n", "outputs": [], "execution_count": None})

    for change in (one_line, answered, extra_cell):
        assert not is_untouched(edited(path, change), given), change.__name__


def test_the_student_id_blank_lines_and_trailing_spaces_are_no_attempt(tmp_path):
    given, path = handout("halving"), ipynb("halving", tmp_path)

    def cosmetic(cells):
        cell = code_cell(cells, "class HalvingLearner")
        cell["source"] = "\n\n" + "".join(cell["source"]).replace("\n", "   \n") + "\n\n"
        cells.insert(
            0,
            {
                "cell_type": "code",
                "metadata": {},
                "outputs": [],
                "execution_count": None,
                "source": 'STUDENT_ID = "s1234567"  # your student id, as in the course roster\n',
            },
        )

    assert is_untouched(edited(path, cosmetic), given)


def test_what_cannot_be_read_or_has_no_code_is_never_untouched(tmp_path):
    given, path = handout("halving"), ipynb("halving", tmp_path)
    assert not is_untouched(edited(path, lambda cells: cells.clear()), given)
    markdown_only = edited(
        path, lambda cells: cells.__setitem__(slice(None), [c for c in cells if c["cell_type"] != "code"])
    )
    assert not is_untouched(markdown_only, given)
    broken = tmp_path / "broken.ipynb"
    broken.write_text('{"cells": [', encoding="utf-8")
    assert not is_untouched(broken, given)
    odd = edited(path, lambda cells: cells.append({"cell_type": "code", "source": 7}))
    assert not is_untouched(odd, given), "a cell whose source is not text is no hand-out cell"
    link = tmp_path / "link.ipynb"
    link.symlink_to(path)
    assert not is_untouched(link, given)
    assert not is_untouched(path, None), "without the template, nothing is called untouched"
    assert handout_of(tmp_path / "missing.md") is None


def test_an_answer_cell_left_as_given_is_not_answered_and_a_missing_one_is_not_listed(tmp_path):
    name = "winnow1"
    given, path, qs = handout(name), ipynb(name, tmp_path), questions(name)
    answers, _ = extract_answers(path, qs)
    assert unanswered_questions(path, answers, given) == ["winnow1_lemmas"]

    def emptied(cells):
        next(c for c in cells if "answer" in c.get("metadata", {}).get("tags", []))["source"] = "  \n"

    empty = edited(path, emptied)
    assert unanswered_questions(empty, extract_answers(empty, qs)[0], given) == ["winnow1_lemmas"]
    gone = edited(path, lambda cells: cells.__setitem__(slice(None), [c for c in cells if c["cell_type"] == "code"]))
    assert unanswered_questions(gone, extract_answers(gone, qs)[0], given) == [], "no answer cell: not 'not answered'"


def _config(handout_):
    return judge.JudgeConfig(Path("x"), "halving", Path("lib"), {}, None, 5.0, 1024, handout=handout_)


@pytest.mark.parametrize(
    "row, labelled",
    [
        ({"status": "graded", "score": 0.0, "feedback": "0/5: FAIL"}, True),
        ({"status": "error", "score": 0.0, "feedback": "the hidden tests stopped"}, True),
        ({"status": "graded", "score": 1.0, "feedback": "1/5"}, False),  # points: its own status
        ({"status": GRADER_ERROR, "score": 0.0, "feedback": "the grader failed"}, False),  # regraded
        ({"status": "forbidden", "score": 0.0, "feedback": "uses onlinelib.Halving"}, False),
    ],
)
def test_not_attempted_is_only_a_label_on_a_zero(row, labelled, tmp_path):
    given, path = handout("halving"), ipynb("halving", tmp_path)
    got = judge._not_attempted(dict(row), _config(given), path)
    if labelled:
        assert got["status"] == NOT_ATTEMPTED and got["score"] == 0
        assert got["feedback"].startswith("not attempted: the notebook is the assignment as handed out")
        assert got["feedback"].endswith(row["feedback"])
    else:
        assert got == row
    # the same zero, from a notebook with work in it, keeps its status
    worked = edited(
        path, lambda cells: code_cell(cells, "class HalvingLearner").update(source="class HalvingLearner:\n    pass\n")
    )
    assert judge._not_attempted(dict(row), _config(given), worked) == row
    assert NOT_ATTEMPTED in STATUSES


QUESTIONS = questions_from_hidden(
    [
        {"id": "why", "title": "Why", "items": [("a", "states the potential", 1), ("b", "bounds its growth", 2)]},
        {"id": "how", "title": "How", "items": [("c", "combines them", 1)]},
    ]
)


def mark(qid, points, status, comments=("", "")):
    items = (("states the potential", points[0], Fraction(1)), ("bounds its growth", points[1], Fraction(2)))
    total = sum((p for p in points if p is not None), Fraction(0))
    return ManualMark(qid, total, Fraction(3), items, tuple(c for c in comments if c), status, comments)


def test_the_merged_feedback_has_the_total_and_each_comment_under_its_item():
    row = {
        "submission": "ada.md",
        "score": 4.0,
        "status": "graded",
        "feedback": "",
        "checks": [],
        "unanswered": ["how"],
    }
    marks = {
        "why": mark("why", (Fraction(1), Fraction(3, 2)), "marked", ("", "the step from (2) to (3)\nneeds the margin")),
        "how": ManualMark(
            "how", Fraction(0), Fraction(1), (("combines them", Fraction(0), Fraction(1)),), (), "no answer"
        ),
    }
    assert written_total(marks, QUESTIONS) == (Fraction(5, 2), Fraction(4), True)
    text = merged_feedback(row, 5.0, "Demo", marks, QUESTIONS)
    assert "**Score:** 4/5 automatic + 2.5/4 written = **6.5/9**  \n" in text
    assert (
        "- states the potential: 1/1\n- bounds its growth: 1.5/2\n  > the step from (2) to (3)\n  > needs the margin\n"
        in text
    )
    assert "**Written answer How:** not answered: 0/1" in text
    assert "no answer cell" in merged_feedback(dict(row, unanswered=[]), 5.0, "Demo", marks, QUESTIONS)
    # a question not marked yet: no total, and what there is so far
    marks["why"] = mark("why", (Fraction(1), None), "unmarked")
    assert written_total(marks, QUESTIONS) == (Fraction(1), Fraction(4), False)
    text = merged_feedback(row, 5.0, "Demo", marks, QUESTIONS)
    assert "**Score:** 4/5 automatic + written answers not all marked yet (1/4 so far): no total yet" in text
    assert "**Score:** 4/5  \n" in feedback_markdown(row, 5.0, "Demo"), "before a merge: the automatic score alone"


def test_the_console_says_what_was_merged(tmp_path):
    marks = {
        "ada": {"why": mark("why", (Fraction(1), Fraction(2)), "marked")},
        "ben": {"why": mark("why", (Fraction(1), None), "unmarked")},
        "cy": {"why": ManualMark("why", Fraction(0), Fraction(3), (), (), "no answer")},
    }
    text = merge_summary(marks, tmp_path / "marks.csv", tmp_path / "fb")
    assert text.startswith(
        f"merged the written marks of 3 student(s) from {tmp_path / 'marks.csv'}: 1 answer(s) marked"
    )
    assert "1 not marked yet" in text and f"3 feedback file(s) in {tmp_path / 'fb'}" in text
