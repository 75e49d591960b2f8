"""Anonymity, identity and rubrics (issue 35): what a held-out red team found, and its fixes.

* **Anonymity.** The review folder may go to a co-marker: nothing in it names a student, a file or
  a folder. The written answers the grader keeps between runs (by submission) are in
  ``<out>_answers.json`` beside OUT and the key, owner-only, no longer ``answers.json`` in the folder.
* **Identity.** Ids are compared after NFKC and case folding: ``ALICE``, ``alice`` and ``ａｌｉｃｅ``
  are one student, flagged as a duplicate in the gradebook (a spreadsheet lookup ignores case
  and would take the first row). A notebook saved with a UTF-8 byte-order mark has its
  ``student:`` read.
* **Rubrics.** ``answer_sha`` is ``h`` + 16 hex digits: a digest of digits only (about 1 answer in
  1,850) or with one ``e`` came back from a spreadsheet as ``9.35758E+15`` and never matched again.
  The review folder's own ``rubric.csv``, filled and merged with ``--merge-manual``, used to be
  replaced by a blank template before it was read (every student "to mark", exit 0); now the marks
  are read first and kept in the folder's new rubric.

Each fix has a control that shows what the test would catch. The runs grade a small assignment of
the test's own in the sandbox (``python -m booktools grade`` with ``--hidden-dir``).
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import re
import shutil
from pathlib import Path

import pytest

from booktools.grading.answers import answer_digest
from booktools.grading.collect import _FRONT_MATTER_STUDENT, notebook_student, student_of
from booktools.grading.csvfile import read_csv
from booktools.grading.gradebook import _students, write_gradebook
from booktools.grading.questions import questions_from_hidden
from booktools.grading.review import _mathjax_source
from booktools.grading.rubric import merge_rubric, rubric_marks, write_rubric_template
from examples import run_grade

ROOT = Path(__file__).resolve().parents[1]
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="the grader's sandbox needs bubblewrap")

HIDDEN = """
from booktools.grading import checks

PARTS = {"double": "function"}
TITLE = "Identity demo"
FORBIDDEN = []
QUESTIONS = [{"id": "why", "title": "Why", "items": [("potential", "states the potential", 1),
                                                     ("growth", "bounds its growth", 2)]}]
REFERENCE = {"double": lambda x: 2 * x}


def grade(student):
    return checks.compare_functions(student["double"], REFERENCE["double"], [checks.Case("two", (2,))], title=TITLE)
"""

NOTEBOOK = """---
{front}kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

```{{code-cell}} ipython3
def double(x):
    return 2 * x
```

+++ {{"tags": ["answer"], "question": "why"}}

The potential is $\\Phi_t$ and it grows by at most {n} per round.
"""

# file (relative to the submissions folder) -> the id its front matter declares ("" for none)
SUBMISSIONS = {
    "Qzxjvk/work.md": "",  # a folder per student
    "Wjqxzk.md": "",  # the file's name is the student
    "Vzqjxw.md": "Xkqjzv",  # a declared id, unlike the file's name
    "Jqzvxa.md": "ALICE",
    "Jqzvxb.md": "alice",
    "Jqzvxc.md": "ａｌｉｃｅ",
    "Yqbomz.md": "Kzqbom",  # saved with a byte-order mark
}
NAMES = ["Qzxjvk", "work", "Wjqxzk", "Vzqjxw", "Xkqjzv", "Jqzvxa", "Jqzvxb", "Jqzvxc", "ALICE", "Yqbomz", "Kzqbom"]
# what the review folder says anyway: its own words may share 4 letters with a name ("work")
NEUTRAL = "network framework answer rubric question submissions slice"


def notebook(front: str, n: int, bom: bool = False) -> str:
    return ("\ufeff" if bom else "") + NOTEBOOK.format(front=f"student: {front}\n" if front else "", n=n)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    top = tmp_path_factory.mktemp("identity")
    hidden_dir = top / "lecturer"
    hidden_dir.mkdir()
    (hidden_dir / "demo_hidden.py").write_text(HIDDEN, encoding="utf-8")
    folder = top / "submissions"
    for n, (name, declared) in enumerate(SUBMISSIONS.items()):
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(notebook(declared, n, bom=name == "Yqbomz.md"), encoding="utf-8")
    out = top / "out" / "scores.csv"
    result = run_grade(folder, out, hidden_dir)
    assert result.returncode == 0, result.stderr[-3000:]
    return folder, out, hidden_dir


def table(path: Path, key: str) -> dict[str, dict[str, str]]:
    header, rows = read_csv(path, exact=True)
    return {cells[header.index(key)]: dict(zip(header, cells, strict=True)) for _, cells in rows}


# -- anonymity -----------------------------------------------------------------------------------------


def name_pieces(names: list[str]) -> set[str]:
    """Every piece of 4 or more characters of the names, lower-cased, that the neutral words lack."""
    pieces = set()
    for name in names:
        low = name.casefold()
        pieces |= {low[i:j] for i in range(len(low)) for j in range(i + 4, len(low) + 1)}
    return {piece for piece in pieces if piece not in NEUTRAL}


def static_copy(path: Path, review_dir: Path) -> bool:
    """True for a file of the installed MathJax copied as it is (nothing of the run in it)."""
    source = _mathjax_source()
    relative = path.relative_to(review_dir / "mathjax") if path.is_relative_to(review_dir / "mathjax") else None
    original = source / relative if source is not None and relative is not None else None
    return original is not None and original.is_file() and original.read_bytes() == path.read_bytes()


def names_in(review_dir: Path, names: list[str]) -> list[tuple[str, str]]:
    """(file, piece of a name) for every file of the folder that holds a piece of a name."""
    pieces = name_pieces(names)
    found = []
    for path in sorted(review_dir.rglob("*")):
        if path.is_file() and not static_copy(path, review_dir):
            text = path.read_bytes().decode("utf-8", "replace").casefold()
            found += [(str(path.relative_to(review_dir)), piece) for piece in sorted(pieces) if piece in text]
    return found


@needs_bwrap
def test_the_review_folder_names_no_student_file_or_folder(graded):
    _, out, _ = graded
    review = out.with_name("scores_review")
    checked = [p for p in review.rglob("*") if p.is_file() and not static_copy(p, review)]
    assert {p.name for p in checked} >= {"index.html", "why.html", "rubric.csv", "config.js"}, checked
    assert names_in(review, NAMES) == []
    assert not (review / "answers.json").exists()
    stored = json.loads(out.with_name("scores_answers.json").read_text(encoding="utf-8"))
    assert set(stored) == set(SUBMISSIONS), "the answers are kept beside OUT, by submission"
    assert out.with_name("scores_answers.json").stat().st_mode & 0o077 == 0, "owner-only, like the key"


@needs_bwrap
def test_control_the_old_layout_and_review_names_are_caught(graded, tmp_path):
    _, out, _ = graded
    old = tmp_path / "old_review"
    shutil.copytree(out.with_name("scores_review"), old)
    shutil.copy(out.with_name("scores_answers.json"), old / "answers.json")  # where the grader kept it before
    found = {piece for _, piece in names_in(old, NAMES)}
    assert {"qzxjvk", "wjqxzk", "vzqjxw", "yqbomz"} <= found, found


@needs_bwrap
def test_review_names_shows_the_ids(graded, tmp_path):
    folder, _, hidden_dir = graded
    out = tmp_path / "scores.csv"
    result = run_grade(folder, out, hidden_dir, "--review-names")
    assert result.returncode == 0, result.stderr[-3000:]
    found = {(file, piece) for file, piece in names_in(tmp_path / "scores_review", NAMES)}
    assert {("why.html", "xkqjzv"), ("why.html", "kzqbom"), ("why.html", "qzxjvk")} <= found, found


# -- identity --------------------------------------------------------------------------------------------


def _row(submission: str, student: str | None = None) -> dict:
    return {
        "submission": submission,
        "score": 1.0,
        "status": "graded",
        "feedback": "",
        "checks": [],
        "student": student,
    }


def test_ids_that_differ_in_case_or_width_are_one_student_flagged(tmp_path):
    rows = [_row("a.md", "alice"), _row("b.md", "ALICE"), _row("c.md", "ａｌｉｃｅ"), _row("bob.md")]
    students = _students(rows)
    assert sorted(students) == ["alice", "bob"], "shown as the first of them by submission"
    duplicates = write_gradebook(tmp_path / "g.csv", students, 1.0, (), {})
    assert duplicates == ["alice"]
    book = table(tmp_path / "g.csv", "student")
    assert book["alice"]["status"] == "duplicate: a.md, b.md, c.md" and book["alice"]["total"] == ""
    # control: the ids as they are, compared as strings (the grader before issue 35), are three students
    assert len({student_of(row) for row in rows}) == 4
    # file names and folders too
    assert sorted(_students([_row("ALICE.md"), _row("alice/x.md"), _row("ａｌｉｃｅ.ipynb")])) == ["ALICE"]


def test_a_full_width_declared_id_is_read_in_its_nfkc_form(tmp_path):
    path = tmp_path / "n.md"
    path.write_text(notebook("ａｌｉｃｅ", 0), encoding="utf-8")
    assert notebook_student(path) == "alice"


def test_a_notebook_with_a_byte_order_mark_has_its_declared_id_read(tmp_path):
    md = tmp_path / "n.md"
    md.write_text(notebook("s1234567", 0, bom=True), encoding="utf-8")
    assert md.read_bytes()[:3] == b"\xef\xbb\xbf"
    assert notebook_student(md) == "s1234567"
    # control: read as plain UTF-8, the front matter starts with U+FEFF and is not found
    assert _FRONT_MATTER_STUDENT.match(md.read_text(encoding="utf-8")) is None
    ipynb = tmp_path / "n.ipynb"
    ipynb.write_bytes(b"\xef\xbb\xbf" + json.dumps({"cells": [], "metadata": {"student": "s42"}}).encode())
    assert notebook_student(ipynb) == "s42"  # (json.loads of the bytes took the mark already)


@needs_bwrap
def test_a_run_flags_alice_once_and_reads_the_bom_file(graded):
    _, out, _ = graded
    book = table(out.with_name("scores_gradebook.csv"), "student")
    assert sorted(book) == ["ALICE", "Kzqbom", "Qzxjvk", "Wjqxzk", "Xkqjzv"], sorted(book)
    assert book["ALICE"]["status"] == "duplicate: Jqzvxa.md, Jqzvxb.md, Jqzvxc.md"
    scores = table(out, "submission")
    assert scores["Yqbomz.md"]["student"] == "Kzqbom"
    assert scores["Jqzvxc.md"]["student"] == "alice", "the NFKC form of the declared ａｌｉｃｅ"


# -- rubrics: digests a spreadsheet cannot mangle ------------------------------------------------------

QUESTIONS = questions_from_hidden([{"id": "why", "title": "Why", "items": [("a", "first", 1), ("b", "second", 2)]}])


def answer_with_digest(pattern: str) -> str:
    """A text whose 16-hex-digit digest matches ``pattern`` (found by search)."""
    return next(t for t in (f"answer {i}" for i in itertools.count()) if re.fullmatch(pattern, answer_digest(t)))


def through_a_spreadsheet(path: Path, out: Path, fill: dict[str, str]) -> None:
    """Open the rubric in a spreadsheet, fill ``points`` ({code: points}) and save it, ';'-separated.

    A cell that reads as a number is stored as one and saved in the General format: more than 11
    digits become scientific notation with 6 significant digits, as Excel does.
    """
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    for row in rows[1:]:
        row[5] = fill.get(row[0], row[5])
    number = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
    for row in rows:
        for i, cell in enumerate(row):
            if number.fullmatch(cell):
                value = float(cell)
                row[i] = str(int(value)) if value.is_integer() and abs(value) < 1e11 else f"{value:.6G}"
    buffer = io.StringIO(newline="")
    csv.writer(buffer, delimiter=";").writerows(rows)
    out.write_text(buffer.getvalue(), encoding="utf-8")


@pytest.mark.parametrize("pattern", [r"[0-9]{16}", r"[0-9]{13,14}e[0-9]{1,2}"], ids=["digits", "one-e"])
def test_a_digest_a_spreadsheet_would_read_as_a_number_survives(tmp_path, pattern):
    text = answer_with_digest(pattern)
    answers, codes = {"amy": {"why": text}}, {"amy": "A22222"}
    rubric = tmp_path / "rubric.csv"
    write_rubric_template(rubric, QUESTIONS, answers, codes)
    _, rows = read_csv(rubric)
    assert {cells[7] for _, cells in rows} == {"h" + answer_digest(text)}
    through_a_spreadsheet(rubric, tmp_path / "marks.csv", {"A22222": "1"})
    marks, _ = merge_rubric(tmp_path / "marks.csv", QUESTIONS, answers, codes)
    assert marks["amy"]["why"].status == "marked" and marks["amy"]["why"].points == 2
    # control: the digest as the grader wrote it before issue 35 comes back as a number, and never matches
    old = tmp_path / "old.csv"
    old.write_text(rubric.read_text(encoding="utf-8").replace('"h' + answer_digest(text), '"' + answer_digest(text)))
    through_a_spreadsheet(old, tmp_path / "old_marks.csv", {"A22222": "1"})
    assert "E+" in (tmp_path / "old_marks.csv").read_text(encoding="utf-8")
    marks, _ = merge_rubric(tmp_path / "old_marks.csv", QUESTIONS, answers, codes)
    assert marks["amy"]["why"].status == "changed"


def test_a_rubric_of_before_issue_35_with_the_bare_digest_still_merges(tmp_path):
    answers, codes = {"amy": {"why": "my proof"}}, {"amy": "A22222"}
    rubric = tmp_path / "rubric.csv"
    write_rubric_template(rubric, QUESTIONS, answers, codes)
    text = rubric.read_text(encoding="utf-8").replace('""', '"1"').replace('"h', '"')
    (tmp_path / "marks.csv").write_text(text, encoding="utf-8")
    marks, _ = merge_rubric(tmp_path / "marks.csv", QUESTIONS, answers, codes)
    assert marks["amy"]["why"].status == "marked"


# -- rubrics: the review folder's own rubric, filled, is merged and kept ------------------------------


@needs_bwrap
def test_the_review_folders_own_filled_rubric_is_merged_and_kept(graded, tmp_path):
    folder, out, hidden_dir = graded
    mine = tmp_path / "out"
    shutil.copytree(out.parent, mine)
    rubric = mine / "scores_review" / "rubric.csv"
    codes = {row["student"]: row["code"] for row in table(mine / "scores_review_key.csv", "code").values()}
    through_a_spreadsheet(rubric, rubric, {codes["Wjqxzk"]: "1", codes["Xkqjzv"]: "0.5"})
    for run in (1, 2):  # the same command twice: the marks stay in the folder's rubric
        result = run_grade(folder, mine / "scores.csv", hidden_dir, "--merge-manual", str(rubric))
        assert result.returncode == 0, result.stderr[-3000:]
        book = table(mine / "scores_gradebook.csv", "student")
        assert (book["Wjqxzk"]["why [3]"], book["Wjqxzk"]["status"]) == ("2", "ok"), (run, book["Wjqxzk"])
        assert book["Xkqjzv"]["why [3]"] == "1" and book["Qzxjvk"]["status"] == "to mark", run
        _, rows = read_csv(rubric)
        assert sorted(cells[5] for _, cells in rows if cells[0] == codes["Wjqxzk"]) == ["1", "1"], run


def test_a_rubric_written_again_keeps_its_marks_and_the_control_without_keep_loses_them(tmp_path):
    answers, codes = {"amy": {"why": "my proof"}, "bo": {"why": "new"}}, {"amy": "A22222", "bo": "A33333"}
    rubric = tmp_path / "rubric.csv"
    write_rubric_template(rubric, QUESTIONS, answers, codes)
    through_a_spreadsheet(rubric, rubric, {"A22222": "1"})
    filled = rubric_marks(rubric)
    assert merge_rubric(rubric, QUESTIONS, answers, codes)[0]["amy"]["why"].status == "marked"
    # written again (a new run, bo's answer changed since): amy's marks stay, bo is to mark
    answers["bo"] = {"why": "changed"}
    write_rubric_template(rubric, QUESTIONS, answers, codes, keep=filled)
    marks = merge_rubric(rubric, QUESTIONS, answers, codes)[0]
    assert (marks["amy"]["why"].status, marks["amy"]["why"].points) == ("marked", 2)
    assert marks["bo"]["why"].status == "unmarked"
    # control: the template as it was written before issue 35, over the filled file, blanks every mark
    write_rubric_template(rubric, QUESTIONS, answers, codes)
    assert merge_rubric(rubric, QUESTIONS, answers, codes)[0]["amy"]["why"].status == "unmarked"
