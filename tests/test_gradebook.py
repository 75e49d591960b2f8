"""Students and the gradebook (issue 27): who a submission belongs to, one row per student, duplicates flagged.

``python -m booktools grade`` writes, beside the per-file CSV, ``<out>_gradebook.csv`` with one
row per student and one column per written question. These tests check the pieces on their own;
tests/test_grading_example.py runs the lecturer guide's recorded example end to end.
"""

from __future__ import annotations

import csv
import json
from fractions import Fraction
from pathlib import Path

import pytest

from booktools.grading.collect import notebook_student, student_of
from booktools.grading.gradebook import _students, write_gradebook
from booktools.grading.questions import questions_from_hidden
from booktools.grading.rubric import ManualMark


def _md(path: Path, front: str) -> Path:
    path.write_text(
        f"---\n{front}jupytext:\n  text_representation:\n    extension: .md\n---\n\n# x\n", encoding="utf-8"
    )
    return path


@pytest.mark.parametrize(
    ("front", "expected"),
    [
        ("student: s1234567\n", "s1234567"),
        ("student: 'ada.lovelace@uni.example'\n", "ada.lovelace@uni.example"),
        ('student: "b-2"\n', "b-2"),
        ("", None),
        ("student: ../../etc/passwd\n", None),  # not an id: the file name decides
        ("student: a b\n", None),
        ("student: " + "x" * 65 + "\n", None),
        ("student:\n", None),
    ],
)
def test_a_markdown_notebook_declares_its_student_in_the_front_matter(tmp_path, front, expected):
    assert notebook_student(_md(tmp_path / "n.md", front)) == expected


def test_the_front_matter_ends_where_the_header_ends(tmp_path):
    path = tmp_path / "n.md"
    path.write_text("---\njupytext: {}\n---\n\nstudent: mallory\n", encoding="utf-8")
    assert notebook_student(path) is None, "a line of the body is not the front matter"


def test_an_ipynb_declares_its_student_in_the_metadata(tmp_path):
    path = tmp_path / "n.ipynb"
    path.write_text(json.dumps({"cells": [], "metadata": {"student": "s42"}, "nbformat": 4, "nbformat_minor": 5}))
    assert notebook_student(path) == "s42"
    for metadata in ({"student": 42}, {"student": ["s42"]}, {}, []):
        path.write_text(json.dumps({"cells": [], "metadata": metadata}))
        assert notebook_student(path) is None
    path.write_text("[" * 100_000)
    assert notebook_student(path) is None
    path.write_text("not json")
    assert notebook_student(path) is None


@pytest.mark.parametrize(
    ("row", "student"),
    [
        ({"submission": "alice.md"}, "alice"),
        ({"submission": "alice.ipynb", "student": None}, "alice"),
        ({"submission": "s1/assignment.md"}, "s1"),  # a folder per student
        ({"submission": "s1/deeper/assignment.md"}, "s1"),
        ({"submission": "whatever.md", "student": "s9"}, "s9"),  # the notebook's own declaration wins
    ],
)
def test_student_of(row, student):
    assert student_of(row) == student


def _row(submission, score=3.0, status="graded", student=None, answers=None):
    row = {"submission": submission, "score": score, "status": status, "feedback": "", "checks": []}
    if student:
        row["student"] = student
    if answers is not None:
        row["answers"] = answers
    return row


def _read(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


QUESTIONS = questions_from_hidden(
    [{"id": "novikoff", "title": "Novikoff", "items": [("a", "first", 1), ("b", "second", 2)]}]
)


def test_one_row_per_student_and_two_files_are_flagged_not_counted_twice(tmp_path):
    rows = [
        _row("alice.md", 4.0),
        _row("bob.md", 2.0),
        _row("bob.ipynb", 5.0),  # bob handed in twice
        _row("carol/x.md", 1.0),
        _row("notes.txt", 0.0, status="skipped"),  # no one's hand-in
        _row("renamed.md", 5.0, student="dave"),
    ]
    students = _students(rows)
    assert sorted(students) == ["alice", "bob", "carol", "dave"]
    path = tmp_path / "gradebook.csv"
    duplicates = write_gradebook(path, students, 5.0, (), {})
    assert duplicates == ["bob"]
    table = {r["student"]: r for r in _read(path)}
    assert list(table["alice"]) == ["student", "automatic", "total", "max", "status"]
    assert table["alice"]["total"] == "4" and table["alice"]["status"] == "ok"
    assert table["bob"]["total"] == "" and table["bob"]["automatic"] == ""
    assert table["bob"]["status"] == "duplicate: bob.ipynb, bob.md"
    assert table["dave"]["total"] == "5"


def test_the_gradebook_adds_the_merged_marks_per_question(tmp_path):
    rows = [_row("alice.md", 4.0, answers={"novikoff": "proof"}), _row("bob.md", 2.0, answers={})]
    students = _students(rows)
    marks = {
        "alice": {
            "novikoff": ManualMark(
                "novikoff", Fraction(5, 2), Fraction(3), (("first", Fraction(1), Fraction(1)),), (), "marked"
            )
        },
        "bob": {"novikoff": ManualMark("novikoff", Fraction(0), Fraction(3), (), (), "no answer")},
    }
    path = tmp_path / "gradebook.csv"
    write_gradebook(path, students, 5.0, QUESTIONS, marks)
    table = {r["student"]: r for r in _read(path)}
    assert list(table["alice"]) == ["student", "automatic", "novikoff [3]", "total", "max", "status"]
    assert table["alice"]["novikoff [3]"] == "2.5" and table["alice"]["total"] == "6.5" and table["alice"]["max"] == "8"
    assert table["bob"]["novikoff [3]"] == "0" and table["bob"]["total"] == "2" and table["bob"]["status"] == "ok"
    # before any marking, the question column is empty and the student is "to mark"
    write_gradebook(path, students, 5.0, QUESTIONS, {})
    table = {r["student"]: r for r in _read(path)}
    assert table["alice"]["novikoff [3]"] == "" and table["alice"]["status"] == "to mark"
    assert table["alice"]["total"] == "4"


def test_a_student_id_that_looks_like_a_formula_is_neutralised(tmp_path):
    rows = [_row("x.md", 1.0, student=None)]
    rows[0]["submission"] = "=cmd.md"
    path = tmp_path / "gradebook.csv"
    write_gradebook(path, _students(rows), 5.0, (), {})
    assert _read(path)[0]["student"] == "'=cmd"
