"""The grader's outputs (issue 28, item 8): feedback names, one column per check, grading again.

* Each feedback file is named after its submission without the suffix (``alice.ipynb`` →
  ``alice.md``, ``s1/work.ipynb`` → ``s1__work.md``), with a hash of the full name when two
  submissions would share a name or the name is not plain (``feedback_names``).
* ``scores.csv`` has, after its fixed columns, one column per check of the reference's report,
  ``NAME [MAX]``, holding the points earned (empty for a notebook that was not graded), and the
  run ends with the checks failed most often.
* Grading again into an existing OUT needs ``--force`` (``--regrade-errors`` and ``--merge-manual``
  are reruns by nature); the feedback folder is replaced as a whole, and only a folder the grader
  made (marker file ``.onlinelib-feedback``) or an empty one is ever replaced.

The unit tests need nothing; the runs grade a few of ``tests/submissions/halving/`` in the sandbox,
in this process (``grade.main``), once for the module and then from copies of its outputs.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from booktools.grading import cli as grade_tool
from booktools.grading.feedback import (
    FEEDBACK_MARKER,
    FeedbackFolder,
    check_feedback_dir,
    feedback_name,
    feedback_names,
)
from booktools.grading.hidden import load_hidden
from booktools.grading.run import Grader
from booktools.grading.scores import FIELDS, check_cells, check_columns, most_failed, read_previous_rows
from booktools.grading.text import fmt_score
from onlinelib.grading import Check, GradeReport

ROOT = Path(__file__).resolve().parents[1]
HALVING = ROOT / "tests" / "submissions" / "halving"
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="the grader's sandbox needs bubblewrap")

SAFE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\.md")
HASHED = re.compile(r"-[0-9a-f]{10}\.md$")
FIVE = 5  # the Halving assignment's checks (and points)
SUBMISSIONS = ["correct.ipynb", "subtly_wrong.md", "a.md", "a.ipynb", "s1/work.md", "=odd name!.md", "notes.txt"]


def digest(name: str) -> str:
    return hashlib.sha256(name.encode("utf-8")).hexdigest()[:10]


# -- the feedback file names ----------------------------------------------------------------------------------


def test_a_submission_alone_is_named_by_its_stem():
    names = feedback_names(["alice.md", "bob.ipynb", "s1/work.ipynb", "s2/deep/er/hand-in.v2.md"])
    assert names == {
        "alice.md": "alice.md",
        "bob.ipynb": "bob.md",
        "s1/work.ipynb": "s1__work.md",
        "s2/deep/er/hand-in.v2.md": "s2__deep__er__hand-in.v2.md",
    }
    assert feedback_name("alice.md") == "alice.md"


def test_two_submissions_with_one_stem_both_get_the_hash_of_their_full_name():
    names = feedback_names(["alice.md", "alice.ipynb", "bob.md"])
    assert names["alice.md"] == f"alice-{digest('alice.md')}.md"
    assert names["alice.ipynb"] == f"alice-{digest('alice.ipynb')}.md"
    assert names["bob.md"] == "bob.md", "only the ambiguous names change"
    # a folder flattened onto a file's name, and names that differ only in case, are ambiguous too
    flat = feedback_names(["s1/work.md", "s1__work.ipynb", "Carol.md", "carol.ipynb"])
    assert all(HASHED.search(name) for name in flat.values()) and len(set(flat.values())) == 4
    assert len({name.lower() for name in flat.values()}) == 4


def test_the_rule_is_stable_and_does_not_depend_on_the_order():
    submissions = ["alice.md", "alice.ipynb", "x/y.md", "a b.md", "z.md"]
    names = feedback_names(submissions)
    assert names == feedback_names(reversed(submissions)) == feedback_names(submissions * 2)
    # a name is the same in a run of different submissions unless they clash with it
    assert feedback_names(["z.md", "other.ipynb"])["z.md"] == names["z.md"] == "z.md"


WEIRD = [
    "=HYPERLINK(1).md",
    "a b.md",
    "ümlaut.ipynb",
    "-rf.md",
    "..md",
    ".md",
    "x\n\x1by.md",
    "semi;colon|pipe.md",
    "x" * 300 + ".md",
    "d/" * 40 + "deep.md",
    "a-0123456789.md",  # looks like a hashed name
    "a.md",
    "folder/",  # a skipped folder's row
    "notes.txt",  # a skipped file's row
    "notes",
]


def test_unsafe_names_are_made_safe_short_and_distinct():
    names = feedback_names(WEIRD)
    files = list(names.values())
    assert len(set(files)) == len(files) == len(WEIRD)
    for submission, file in names.items():
        assert SAFE.fullmatch(file) and len(file) < 140, (submission, file)
    for submission in WEIRD[:11]:
        assert names[submission].endswith(f"-{digest(submission)}.md"), submission
    assert names["a.md"] == "a.md" and names["folder/"] == "folder.md"
    assert HASHED.search(names["notes.txt"]) and HASHED.search(names["notes"]), "notes.txt and notes clash"
    # no plain name can be taken for a hashed one, so the two kinds never meet
    assert not any(HASHED.search(names[s]) for s in ("a.md", "folder/"))


# -- the per-check columns --------------------------------------------------------------------------------------


def report(*checks: tuple[str, float, float]) -> GradeReport:
    return GradeReport([Check(name, points == top, points, top, "") for name, points, top in checks])


def test_one_column_per_check_of_the_reference_named_with_its_maximum():
    reference = report(("random", 1, 1), ("=SUM(A1)", 2, 2), ("random", 0.5, 0.5))
    columns = check_columns(reference)
    # headers are kept as the check's name says; the CSV writer neutralises "=SUM(A1) [2]" (issue 35)
    assert [c.header for c in columns] == ["random [1]", "=SUM(A1) [2]", "random (2) [0.5]"]
    student = report(("random", 0, 1), ("random", 0.5, 0.5), ("extra", 1, 1))  # no "=SUM(A1)"
    cells = check_cells({"status": "graded", "checks": student.checks}, columns)
    assert cells == {"random [1]": "0", "=SUM(A1) [2]": "0", "random (2) [0.5]": "0.5"}
    assert set(check_cells({"status": "timeout", "checks": []}, columns).values()) == {""}


def test_the_summary_names_the_checks_failed_most_often():
    columns = check_columns(report(("a", 1, 1), ("b", 1, 1), ("c", 2, 2), ("d", 1, 1)))
    cells = [
        {"a [1]": "1", "b [1]": "0", "c [2]": "1", "d [1]": "0"},
        {"a [1]": "1", "b [1]": "0", "c [2]": "2", "d [1]": "1"},
        {"a [1]": "", "b [1]": "", "c [2]": "", "d [1]": ""},  # not graded: counts for no check
    ]
    rows = [{"check_cells": c} for c in cells]
    assert most_failed(rows, columns) == "most failed checks: b (2 of 2), c (1 of 2), d (1 of 2)"
    assert most_failed(rows[1:2], columns[:1]) is None


def write_csv(path: Path, fields: list[str], rows: list[list[str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(fields)
        writer.writerows(rows)


def test_an_earlier_csv_is_read_with_its_per_check_cells(tmp_path):
    out = tmp_path / "scores.csv"
    write_csv(out, [*FIELDS, "a [1]", "b [2]"], [["x.md", "x", "3", "3", "graded", "ok", "1", "2"]])
    rows, headers = read_previous_rows(out)
    assert headers == ["a [1]", "b [2]"] and rows[0]["check_cells"] == {"a [1]": "1", "b [2]": "2"}
    write_csv(out, FIELDS, [["x.md", "x", "3", "3", "graded", "ok"]])  # an older grader's CSV
    rows, headers = read_previous_rows(out)
    assert headers == [] and rows[0]["score"] == 3
    write_csv(out, ["student", *FIELDS], [["x", "x.md", "x", "3", "3", "graded", "ok"]])
    with pytest.raises(SystemExit, match="not a grades file"):
        read_previous_rows(out)


# -- which feedback folders the grader may replace ----------------------------------------------------------------


def test_only_a_folder_the_grader_made_or_an_empty_one_is_replaced(tmp_path):
    keep = [tmp_path / "scores.csv", tmp_path / "subs"]
    assert check_feedback_dir(tmp_path / "new", keep) is None
    (tmp_path / "empty").mkdir()
    assert check_feedback_dir(tmp_path / "empty", keep) is None
    home = tmp_path / "home"
    home.mkdir()
    (home / "thesis.tex").write_text("years of work")
    assert "not made by this grader" in check_feedback_dir(home, keep)
    (home / FEEDBACK_MARKER).write_text("")
    assert check_feedback_dir(home, keep) is None
    assert "would hold" in check_feedback_dir(tmp_path, keep), "the folder of the CSV itself"
    (tmp_path / "file").write_text("")
    assert "not a folder" in check_feedback_dir(tmp_path / "file", keep)
    (tmp_path / "link").symlink_to(home)
    assert "not a folder" in check_feedback_dir(tmp_path / "link", keep)


def test_a_killed_runs_half_written_folder_goes_at_the_next_run(tmp_path):
    final = tmp_path / "scores_feedback"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # a pid that no longer runs (the kernel does not reuse it at once)
    leftovers = {
        "killed": final.with_name(f".{final.name}.new-{dead.pid}-0a1b2c3d"),
        "running": final.with_name(f".{final.name}.new-{os.getpid()}-0a1b2c3d"),
        "not the grader's": final.with_name(f".{final.name}.new-{dead.pid}-ffffffff"),
    }
    for kind, path in leftovers.items():
        path.mkdir()
        (path / "alice.md").write_text("feedback")
        if kind != "not the grader's":
            (path / FEEDBACK_MARKER).write_text("")
    folder = FeedbackFolder(final)
    assert not leftovers["killed"].exists()
    assert leftovers["running"].exists() and leftovers["not the grader's"].exists()
    assert folder.path.exists() and folder.path not in leftovers.values()


# -- real runs ------------------------------------------------------------------------------------------------------


def run(folder: Path, out: Path, *extra: str) -> tuple[int, str]:
    """The lecturer's command in this process: (exit status, what it printed on stderr)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            status = grade_tool.main(
                [str(folder), "--assignment", "halving", "--out", str(out), "--jobs", "2", "--timeout", "30", *extra]
            )
        except SystemExit as stop:
            status = stop.code if isinstance(stop.code, int) else 1
            print(stop.code, file=err)
    return status, err.getvalue()


def read_rows(out: Path) -> tuple[list[str], dict[str, dict]]:
    with out.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        rows = {row["submission"]: row for row in reader}
        return list(reader.fieldnames), rows


def reference_headers() -> list[str]:
    hidden = load_hidden(ROOT / "book" / "assignments" / "lecturer" / "halving_hidden.py")
    return [f"{c.name} [{fmt_score(c.max_points)}]" for c in hidden.grade(hidden.REFERENCE).checks]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """One halving run: a correct and a wrong notebook, a syntax error, and names that test the naming."""
    top = tmp_path_factory.mktemp("outputs")
    folder = top / "subs"
    (folder / "s1").mkdir(parents=True)
    shutil.copy(HALVING / "correct.ipynb", folder / "correct.ipynb")
    shutil.copy(HALVING / "subtly_wrong.md", folder / "subtly_wrong.md")
    shutil.copy(HALVING / "syntax_error.md", folder / "a.md")
    shutil.copy(HALVING / "correct.ipynb", folder / "a.ipynb")
    shutil.copy(HALVING / "syntax_error.md", folder / "s1" / "work.md")
    shutil.copy(HALVING / "syntax_error.md", folder / "=odd name!.md")
    (folder / "notes.txt").write_text("not a notebook")
    out = top / "scores.csv"
    status, err = run(folder, out)
    return folder, out, status, err


@needs_bwrap
def test_each_check_has_a_column_with_the_points_earned(graded):
    folder, out, status, err = graded
    assert status == 0, err[-3000:]
    fields, rows = read_rows(out)
    assert fields == [*FIELDS, *reference_headers()] and len(fields) == 6 + FIVE
    assert fields[6] == "thresholds on 31 points, random [1]"
    checks = fields[6:]
    assert [rows["correct.ipynb"][c] for c in checks] == ["1"] * FIVE
    wrong = rows["subtly_wrong.md"]
    # subtly wrong predicts +1 on a tie: it fails the random streams and the one-per-round adversary
    assert [wrong[c] for c in checks] == ["0", "0", "0", "0", "1"] and wrong["score"] == "1"
    for name in ("a.md", "s1/work.md", "'=odd name!.md", "notes.txt"):
        assert rows[name]["status"] in ("syntax_error", "skipped") and {rows[name][c] for c in checks} == {""}
    assert "most failed checks: thresholds on 31 points, random (1 of 3), " in err, err[-2000:]


@needs_bwrap
def test_the_feedback_files_are_named_by_the_rule(graded):
    folder, out, status, _ = graded
    feedback = out.with_name("scores_feedback")
    files = {p.name for p in feedback.iterdir()}
    names = feedback_names(SUBMISSIONS)
    assert files == {*names.values(), FEEDBACK_MARKER}
    assert {"correct.md", "subtly_wrong.md", "s1__work.md", "notes.md"} <= files
    assert names["a.md"] == f"a-{digest('a.md')}.md" and names["a.ipynb"] == f"a-{digest('a.ipynb')}.md"
    assert "**Score:** 5/5" in (feedback / names["a.ipynb"]).read_text(encoding="utf-8")
    assert "syntax error" in (feedback / names["a.md"]).read_text(encoding="utf-8")
    assert not list(out.parent.glob(".scores_feedback*")), "no temporary folder is left"


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@needs_bwrap
def test_grading_again_into_the_same_out_needs_force(graded, monkeypatch):
    folder, out, status, _ = graded
    before = snapshot(out.parent)
    monkeypatch.setattr(Grader, "grade", lambda *a: pytest.fail("graded although OUT exists"))
    monkeypatch.setattr(Grader, "check_environment", lambda *a: pytest.fail("started grading"))
    again, err = run(folder, out)
    assert again == 2, err
    assert f"{out} exists" in err and "--force" in err and "--regrade-errors" in err and "--merge-manual" in err
    assert snapshot(out.parent) == before, "nothing was written"
    # the feedback folder of an earlier run counts as well, the CSV gone or not
    elsewhere = out.with_name("other.csv")
    again, err = run(folder, elsewhere, "--feedback-dir", str(out.with_name("scores_feedback")))
    assert again == 2 and "scores_feedback" in err and not elsewhere.exists()


@needs_bwrap
def test_force_replaces_the_feedback_folder_as_a_whole(graded, tmp_path):
    folder, out, status, _ = graded
    mine = tmp_path / "scores.csv"
    shutil.copy(out, mine)
    shutil.copytree(out.with_name("scores_feedback"), tmp_path / "scores_feedback")
    (tmp_path / "scores_feedback" / "stale.md").write_text("from a run long ago")
    fewer = tmp_path / "subs"
    fewer.mkdir()
    shutil.copy(HALVING / "syntax_error.md", fewer / "late.md")
    status, err = run(fewer, mine, "--force")
    assert status == 0, err[-3000:]
    assert set(read_rows(mine)[1]) == {"late.md"}
    files = {p.name for p in (tmp_path / "scores_feedback").iterdir()}
    assert files == {"late.md", FEEDBACK_MARKER}, "no file of the earlier run survives"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "scores.csv",
        "scores_feedback",
        "scores_gradebook.csv",
        "subs",
    ], "no temporary or old folder is left beside it"


@needs_bwrap
def test_a_feedback_dir_the_grader_did_not_make_is_never_replaced(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / "thesis.tex").write_text("years of work")
    folder = tmp_path / "subs"
    folder.mkdir()
    shutil.copy(HALVING / "syntax_error.md", folder / "one.md")
    out = tmp_path / "scores.csv"
    status, err = run(folder, out, "--feedback-dir", str(home), "--force")
    assert status == 2 and "not made by this grader" in err and FEEDBACK_MARKER in err, err
    assert [p.name for p in home.iterdir()] == ["thesis.tex"] and not out.exists()
    # an empty folder is taken, and is the grader's from then on
    empty = tmp_path / "empty"
    empty.mkdir()
    status, err = run(folder, out, "--feedback-dir", str(empty))
    assert status == 0, err[-3000:]
    assert {p.name for p in empty.iterdir()} == {"one.md", FEEDBACK_MARKER}


@needs_bwrap
def test_regrade_errors_keeps_the_other_rows_cells_and_feedback_files(graded, tmp_path):
    folder, out, status, _ = graded
    mine = tmp_path / "scores.csv"
    feedback = tmp_path / "scores_feedback"
    shutil.copytree(out.with_name("scores_feedback"), feedback)
    fields, rows = read_rows(out)
    checks = fields[6:]
    # subtly_wrong.md's row as a grader error left it; correct.ipynb's row with cells of its own
    rows["subtly_wrong.md"].update(status="grader-error", score="0", feedback="the grader failed")
    rows["subtly_wrong.md"].update(dict.fromkeys(checks, ""))
    rows["correct.ipynb"][checks[0]] = "0.5"
    with mine.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows.values())
    (feedback / "correct.md").write_text("kept as it was")
    (feedback / "stale.md").write_text("no submission's")
    (feedback / "subtly_wrong.md").write_text("the grader failed")
    status, err = run(folder, mine, "--regrade-errors")
    assert status == 0, err[-3000:]
    assert "regrading the 1 row(s)" in err
    _, again = read_rows(mine)
    assert set(again) == set(rows)
    for name in set(rows) - {"subtly_wrong.md"}:
        assert again[name] == rows[name], name
    assert [again["subtly_wrong.md"][c] for c in checks] == ["0", "0", "0", "0", "1"]
    assert again["subtly_wrong.md"]["status"] == "graded"
    assert (feedback / "correct.md").read_text() == "kept as it was"
    assert "first difference" in (feedback / "subtly_wrong.md").read_text(encoding="utf-8")
    names = feedback_names(SUBMISSIONS)
    assert {p.name for p in feedback.iterdir()} == {*names.values(), FEEDBACK_MARKER}
    assert snapshot(feedback)[names["a.md"]] == snapshot(out.with_name("scores_feedback"))[names["a.md"]]
