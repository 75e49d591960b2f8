"""An assignment of several parts, graded end to end (issue 27): code, a certificate and a written proof.

A small assignment of the test's own (hidden file and submissions in a temporary folder, graded by
``python -m booktools grade`` with ``--hidden-dir``): a function compared with the reference, a
certificate verified exactly, and a written question marked by hand. Three students hand in; the
run writes the per-file CSV, the gradebook, the review pages and the blank rubric; the rubric,
filled as a lecturer would, is merged by a second run, which must keep the automatic points and
add the manual ones, with each rubric item in the student's feedback.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="the grader's sandbox needs bubblewrap")

HIDDEN = """
from fractions import Fraction

from booktools.grading import checks

PARTS = {"double": "function", "stream": "certificate"}
TITLE = "Demo: code, a certificate and a proof"
FORBIDDEN = []
QUESTIONS = [
    {"id": "why", "title": "Why the bound holds", "items": [("potential", "states the potential", 1),
                                                            ("growth", "bounds its growth", 2)]},
]


def _stream(radius, margin, dim):
    k = int(Fraction(radius) ** 2 / Fraction(margin) ** 2)
    X = [[radius if j == i else 0 for j in range(dim)] for i in range(k)]
    return X, [1] * k, [1] * k + [0] * (dim - k)


REFERENCE = {"double": lambda x: 2 * x, "stream": _stream}


def grade(student):
    code = checks.compare_functions(
        student["double"], REFERENCE["double"], [checks.Case("two", (2,)), checks.Case("three", (3,))], title=TITLE
    )
    certificate = checks.verify_certificates(
        student["stream"],
        [checks.Certificate("R = 2, gamma = 1", (2, 1, 8), verifier="perceptron_stream",
                            params={"radius": 2, "margin": 1, "max_dim": 8}, points=2)],
    )
    return code + certificate
"""

HEADER = """---
{front}kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

"""

ADA = """```{code-cell} ipython3
def double(x):
    return 2 * x


def stream(radius, margin, dim):
    k = radius * radius // (margin * margin)
    X = [[radius if j == i else 0 for j in range(dim)] for i in range(k)]
    return X, [1] * k, [1] * k + [0] * (dim - k)
```

+++ {"tags": ["answer"], "question": "why"}

The potential is $\\Phi_t = \\langle w_t, u \\rangle$, and each mistake adds at least $\\gamma$:
$$\\Phi_{t+1} \\ge \\Phi_t + \\gamma.$$
"""

BEN = """```{code-cell} ipython3
def double(x):
    return x + x + 1


def stream(radius, margin, dim):
    return [[radius] + [0] * (dim - 1)], [1], [1] + [0] * (dim - 1)
```

+++ {"tags": ["answer"], "question": "why"}

Each mistake grows $\\|w\\|^2$ by at most $R^2$.
"""

CY = """```{code-cell} ipython3
def double(x):
    return 2 * x
```
"""

# the assignment's notebook (its answer cell holds a placeholder), and a student who left it as it was
PLACEHOLDER = """
+++ {"tags": ["answer"], "question": "why"}

*Write your proof here.*
"""


def run_grade(folder: Path, out: Path, hidden_dir: Path, *extra: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "booktools", "grade", str(folder), "--assignment", "demo", "--out", str(out)]
    command += ["--hidden-dir", str(hidden_dir), "--assignments-dir", str(hidden_dir), "--jobs", "2", *extra]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=ROOT)


def read(path: Path) -> dict[str, dict]:
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    key = "student" if "student" in rows[0] else "code"
    return {row[key]: row for row in rows}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    top = tmp_path_factory.mktemp("demo")
    hidden_dir = top / "lecturer"
    hidden_dir.mkdir()
    (hidden_dir / "demo_hidden.py").write_text(HIDDEN, encoding="utf-8")
    folder = top / "submissions"
    folder.mkdir()
    (folder / "ada.md").write_text(HEADER.format(front="") + ADA, encoding="utf-8")
    # ben names his file badly and declares his id in the front matter
    (folder / "final_v2.md").write_text(HEADER.format(front="student: ben\n") + BEN, encoding="utf-8")
    (folder / "cy.md").write_text(HEADER.format(front="") + CY, encoding="utf-8")
    (hidden_dir / "demo.md").write_text(HEADER.format(front="") + CY + PLACEHOLDER, encoding="utf-8")
    (folder / "dee.md").write_text(
        HEADER.format(front="") + CY + PLACEHOLDER.replace("\n\n", "\n\n  "), encoding="utf-8"
    )
    out = top / "scores.csv"
    first = run_grade(folder, out, hidden_dir)
    return top, folder, out, hidden_dir, first


@needs_bwrap
def test_each_part_is_graded_on_its_own_and_a_missing_part_costs_only_its_checks(graded):
    top, _, out, _, first = graded
    assert first.returncode == 0, first.stderr[-3000:]
    rows = read(out)
    assert {r: rows[r]["score"] for r in rows} == {"ada": "4", "ben": "0.5", "cy": "2", "dee": "2"}, rows
    assert all(row["status"] == "graded" and row["max_score"] == "4" for row in rows.values())
    assert "2 of the 4 that earn every point" not in rows["ada"]["feedback"]
    assert "1 of the 4 that earn every point: 1/4 of the points" in rows["ben"]["feedback"]
    assert "the notebook does not define stream" in rows["cy"]["feedback"]


@needs_bwrap
def test_the_first_run_writes_the_gradebook_the_review_pages_and_the_blank_rubric(graded):
    top, _, out, _, first = graded
    book = read(top / "scores_gradebook.csv")
    assert list(book["ada"]) == ["student", "automatic", "why [3]", "total", "max", "status"]
    assert book["ada"]["status"] == "to mark" and book["ada"]["why [3]"] == "" and book["ada"]["max"] == "7"
    page = (top / "scores_review" / "why.html").read_text(encoding="utf-8")
    assert "bounds its growth" in page and r"\Phi_{t+1}" in page and "grows" in page
    assert "Write your proof here" not in page, "the assignment's placeholder is no answer"
    for student in ("ada", "ben", "cy", "dee"):
        assert not re.search(rf"\b{student}\b", page), "the review page is anonymous"
    rubric = list(csv.DictReader((top / "scores_review" / "rubric.csv").open(encoding="utf-8")))
    assert len(rubric) == 4 * 2 and {r["points"] for r in rubric} == {""}
    assert sum(r["comment"] == "no answer" for r in rubric) == 2 * 2, "cy has no answer cell, dee left the placeholder"
    assert (top / "scores_review_key.csv").is_file() and not (top / "scores_review" / "key.csv").exists()
    assert "review page per question" in first.stderr


@needs_bwrap
def test_a_filled_rubric_is_merged_and_a_regrade_keeps_it(graded):
    top, folder, out, hidden_dir, _ = graded
    codes = {row["student"]: row["code"] for row in csv.DictReader((top / "scores_review_key.csv").open())}
    given = {("ada", "potential"): "1", ("ada", "growth"): "3/2", ("ben", "potential"): "0", ("ben", "growth"): "1"}
    with (top / "scores_review" / "rubric.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    student_of = {code: student for student, code in codes.items()}
    for row in rows:
        row["points"] = given.get((student_of[row["code"]], row["item"]), "")
        if student_of[row["code"]] == "ben" and row["item"] == "growth":
            row["comment"] = "the growth is right; the potential is missing"
    marks = top / "marks.csv"
    with marks.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    second = run_grade(folder, out, hidden_dir, "--merge-manual", str(marks))
    assert second.returncode == 0, second.stderr[-3000:]
    book = read(top / "scores_gradebook.csv")
    assert (book["ada"]["automatic"], book["ada"]["why [3]"], book["ada"]["total"]) == ("4", "2.5", "6.5")
    assert (book["ben"]["automatic"], book["ben"]["why [3]"], book["ben"]["total"]) == ("0.5", "1", "1.5")
    assert (book["cy"]["why [3]"], book["cy"]["total"], book["cy"]["status"]) == ("0", "2", "ok")
    assert (book["dee"]["why [3]"], book["dee"]["total"]) == ("0", "2")
    assert book["ada"]["status"] == "ok"
    feedback = (top / "scores_feedback" / "final_v2.md").read_text(encoding="utf-8")
    # issue 37: the header has the total, and each comment sits under the rubric item it is about
    assert "**Score:** 0.5/4 automatic + 1/3 written = **1.5/7**" in feedback, feedback
    assert "- bounds its growth: 1/2\n  > the growth is right; the potential is missing\n" in feedback, feedback
    assert "Comments:" not in feedback, "no comment detached from its item"
    ada = (top / "scores_feedback" / "ada.md").read_text(encoding="utf-8")
    assert "**Score:** 4/4 automatic + 2.5/3 written = **6.5/7**" in ada, ada
    cy = (top / "scores_feedback" / "cy.md").read_text(encoding="utf-8")
    assert "**Written answer Why the bound holds:** no answer cell for this question: 0/3" in cy, cy
    assert "**Score:** 2/4 automatic + 0/3 written = **2/7**" in cy, cy
    dee = (top / "scores_feedback" / "dee.md").read_text(encoding="utf-8")
    assert "**Written answer Why the bound holds:** not answered: 0/3" in dee, "the placeholder left as it was"
    # the console says what was merged, and no longer tells the lecturer to merge
    assert f"merged the written marks of 4 student(s) from {marks}: 2 answer(s) marked" in second.stderr
    assert "grade again with --merge-manual" not in second.stderr, second.stderr[-2000:]

    # ben hands in again with a changed answer: his marks are not applied to the new text
    path = folder / "final_v2.md"
    path.write_text(path.read_text(encoding="utf-8").replace("at most", "no more than"), encoding="utf-8")
    third = run_grade(folder, out, hidden_dir, "--merge-manual", str(marks))
    assert third.returncode == 0, third.stderr[-3000:]
    book = read(top / "scores_gradebook.csv")
    assert book["ben"]["status"] == "changed" and book["ben"]["why [3]"] == ""
    feedback = (top / "scores_feedback" / "final_v2.md").read_text(encoding="utf-8")
    assert "written answers not all marked yet (0/3 so far): no total yet" in feedback, feedback
    assert book["ada"]["total"] == "6.5", "the other students' marks stay"


@needs_bwrap
def test_a_student_with_two_files_is_flagged_and_a_bad_rubric_stops_with_its_row(graded, tmp_path):
    top, folder, _, hidden_dir, _ = graded
    twice = tmp_path / "subs"
    shutil.copytree(folder, twice)
    shutil.copy(twice / "ada.md", twice / "late.md")
    text = (twice / "late.md").read_text(encoding="utf-8").replace("---\nkernelspec", "---\nstudent: ada\nkernelspec")
    (twice / "late.md").write_text(text, encoding="utf-8")
    out = tmp_path / "scores.csv"
    result = run_grade(twice, out, hidden_dir)
    assert result.returncode == 0, result.stderr[-3000:]
    book = read(tmp_path / "scores_gradebook.csv")
    assert book["ada"]["status"] == "duplicate: ada.md, late.md" and book["ada"]["total"] == ""
    assert "more than one submission" in result.stderr
    bad = tmp_path / "bad.csv"
    rubric = (tmp_path / "scores_review" / "rubric.csv").read_text(encoding="utf-8").splitlines()
    header, first = rubric[0], rubric[1].split(",")
    first[header.split(",").index('"points"')] = '"7"'  # every field of the grader's CSV is quoted (issue 35)
    bad.write_text("\n".join([header, ",".join(first)]) + "\n", encoding="utf-8")
    result = run_grade(twice, out, hidden_dir, "--merge-manual", str(bad))
    assert result.returncode != 0 and "--merge-manual" in result.stderr and "points" in result.stderr
    # the answers are kept beside OUT, owner-only, never in the review folder (issue 35)
    assert json.loads((tmp_path / "scores_answers.json").read_text())
    assert not (tmp_path / "scores_review" / "answers.json").exists()
    assert (tmp_path / "scores_answers.json").stat().st_mode & 0o077 == 0
