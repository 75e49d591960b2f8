"""The assignments as a term's set (issue 36, items 3, 4 and 6): the index a lecturer plans from.

``book/assignments/index.md`` has one row per assignment: its chapter, its parts (code,
certificate, proof), its points (automatic + read by a TA), its difficulty and its expected time.
The rows are typed (the student edition has no hidden files to compute them from), so this test
computes each cell from the assignment itself and requires the row to agree:

* the chapter, the difficulty and the time from the notebook's header lines;
* the parts from the hidden file (``KIND`` or ``PARTS``: a learner or a function is *code*, a
  certificate a *certificate*; ``QUESTIONS`` is a *proof*);
* the automatic points from the hidden tests graded on the reference, the TA's from the rubric.

It also holds the set to what a term needs: every chapter has a code part and a certificate or a
written proof, no two assignments set the same task (no part name is used twice), and every
written question has a rubric a TA can apply: each item with 0 / ½ / 1 descriptors and the common
errors to catch, and a model answer.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from booktools.grading.hidden import hidden_parts, load_hidden
from booktools.grading.questions import fmt_points, questions_from_hidden

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = ROOT / "book" / "assignments"
NAMES = sorted(p.stem for p in ASSIGNMENTS.glob("*.md") if p.name != "index.md")
CHAPTERS = {  # the chapters' labels in the order of _toc.yml
    "ch-mistake-bounds": 1,
    "ch-winnow1": 2,
    "ch-perceptron": 3,
    "ch-winnow": 4,
    "ch-experts": 5,
    "ch-kernels": 6,
    "ch-directed-drift": 7,
    "ch-learning-curves": 8,
}
KIND_WORD = {"learner": "code", "function": "code", "certificate": "certificate"}
HEADER = re.compile(
    r"^\*Part: [^.]+\. Chapter: \{ref\}`(?P<chapter>ch-[a-z0-9-]+)`\.\*\n\n"
    r"\*Difficulty: (?P<difficulty>introductory|intermediate|advanced)\. "
    r"Expected time: about (?P<hours>\d+) hours?\.\*$",
    re.M,
)


@cache
def hidden(name):
    return load_hidden(ASSIGNMENTS / "lecturer" / f"{name}_hidden.py")


@cache
def facts(name: str) -> dict:
    """What the index must say of one assignment, computed from its notebook and hidden file."""
    text = (ASSIGNMENTS / f"{name}.md").read_text(encoding="utf-8")
    header = HEADER.search(text)
    assert header, f"{name}.md: no '*Part: ... Chapter: ...*' line followed by '*Difficulty: ... Expected time: ...*'"
    label = re.search(r"^\((asg-[a-z0-9-]+)\)=\n# Assignment (\d+):", text, re.M)
    lecturer = hidden(name)
    kinds = [KIND_WORD[kind] for kind in hidden_parts(lecturer).values()]
    questions = questions_from_hidden(getattr(lecturer, "QUESTIONS", []))
    parts = sorted(set(kinds), key=["code", "certificate"].index) + (["proof"] if questions else [])
    report = lecturer.grade(lecturer.REFERENCE)
    assert report.passed, f"{name}: the reference does not get full marks\n{report.summary()}"
    return {
        "label": label.group(1),
        "number": int(label.group(2)),
        "chapter": header["chapter"],
        "difficulty": header["difficulty"],
        "hours": int(header["hours"]),
        "parts": ", ".join(parts),
        "auto": fmt_points(report.max_score) if kinds else "—",
        "ta": fmt_points(sum(q.points for q in questions)) if questions else "—",
        "questions": questions,
        "part_names": sorted(hidden_parts(lecturer)),
    }


def index_rows() -> dict[str, list[str]]:
    """The index table's rows by assignment label: its number, then the cells after the first.

    A row starts ``| {ref}`A13 <asg-winnow2>` — what the student writes | {ref}`4 <ch-winnow>` |``:
    short links, so that the table fits the page."""
    text = (ASSIGNMENTS / "index.md").read_text(encoding="utf-8")
    rows = {}
    for line in text.splitlines():
        match = re.match(r"^\| \{ref\}`A(\d+) <(asg-[a-z0-9-]+)>` — [^|]+ \|(.*)\|$", line)
        if match:
            assert match[2] not in rows, f"{match[2]} has two rows in the index"
            rows[match[2]] = [match[1]] + [cell.strip() for cell in match[3].split("|")]
    return rows


def test_the_index_has_one_row_per_assignment_in_chapter_order():
    rows = index_rows()
    labels = [facts(name)["label"] for name in NAMES]
    assert sorted(rows) == sorted(labels)
    chapters = [CHAPTERS[re.search(r"<(ch-[a-z0-9-]+)>`", cells[1])[1]] for cells in rows.values()]
    assert chapters == sorted(chapters), "rows in chapter order, as a term runs"


@pytest.mark.parametrize("name", NAMES)
def test_the_index_row_agrees_with_the_assignment(name):
    fact = facts(name)
    number, chapter, parts, auto, ta, difficulty, hours = index_rows()[fact["label"]][:7]
    assert number == str(fact["number"]), "the row's A-number is the notebook's title's"
    assert chapter == f"{{ref}}`{CHAPTERS[fact['chapter']]} <{fact['chapter']}>`"
    assert parts == fact["parts"]
    assert (auto, ta) == (fact["auto"], fact["ta"]), "points: automatic, then read by a TA"
    assert difficulty == fact["difficulty"]
    assert hours == f"{fact['hours']} h"


def test_every_chapter_has_a_code_part_and_a_certificate_or_a_proof():
    by_chapter = {number: set() for number in CHAPTERS.values()}
    for name in NAMES:
        fact = facts(name)
        by_chapter[CHAPTERS[fact["chapter"]]] |= set(fact["parts"].split(", "))
    missing = {
        n: parts for n, parts in by_chapter.items() if "code" not in parts or not parts & {"certificate", "proof"}
    }
    assert not missing, f"chapters without a code part, or without a certificate or proof: {missing}"


def test_no_two_assignments_set_the_same_task():
    owners = {}
    for name in NAMES:
        for part in facts(name)["part_names"]:
            owners.setdefault(part, []).append(name)
    assert not {part: names for part, names in owners.items() if len(names) > 1}


@pytest.mark.parametrize("name", [n for n in NAMES if getattr(hidden(n), "QUESTIONS", None)])
def test_every_written_question_has_a_rubric_a_ta_can_apply(name):
    for question in facts(name)["questions"]:
        assert len(question.model) >= 400, f"{name}/{question.id}: a model answer for the markers"
        for item in question.items:
            assert item.has_descriptors, f"{name}/{question.id}/{item.id}: 0 / ½ / 1 descriptors"
            assert len({item.full, item.half, item.zero}) == 3 and item.errors, f"{name}/{question.id}/{item.id}"
