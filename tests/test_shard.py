"""Grading at any scale (issue 35): ``--shard K/N`` and ``--merge-shards`` give what one run gives.

Two folders are graded once as a whole and once as 3 shards, which are then merged:

* ``halving``: 9 entries of Assignment 1 (correct, subtly wrong, raising, a syntax error under a
  name a spreadsheet would read as a formula, a non-notebook, a nested folder), chosen so that the shards meet what only the whole run sees: ``a.md`` and ``a.ipynb``
  fall in two shards, where each has a plain feedback name, and in the whole run they clash (both
  get a hash); ``s1/work.md`` and ``s1/late.md`` are one student's two files in two shards, a
  duplicate in the gradebook.
* ``demo``: a small assignment of the test's own with a written question (as in
  ``test_grade_manual.py``): the merged review folder (pages, rubric, stored answers) must be the
  one run's, given the one run's key file (the anonymous codes are random per key file).

The merge must be that run's outputs: the CSV (equal after sorting its lines, and in fact byte for
byte), every feedback file, the gradebook, the review folder. Then the refusals: a bad ``--shard``,
a shard given twice or cut differently, a missing shard, shards of two assignments or of other
hidden tests, a shard with grader-error rows (regraded with ``--shard K/N --regrade-errors``, it
merges), and outputs without a shard record.

The gradings run once per test session (a file lock shares them between pytest-xdist's workers);
every test merges into a folder of its own. ``--cpu-seconds 5 --timeout 20 --jobs 2``.
"""

from __future__ import annotations

import contextlib
import csv
import fcntl
import io
import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from booktools.grading import cli
from booktools.grading.course_key import key_id
from booktools.grading.feedback import feedback_names
from booktools.grading.shard import manifest_path, shard_of

ROOT = Path(__file__).resolve().parents[1]
HALVING = ROOT / "tests" / "submissions" / "halving"
CONTROL = ROOT / "tests" / "submissions" / "hostile" / "halving" / "control_correct.md"
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="the grader's sandbox needs bubblewrap")
LIMITS = ["--cpu-seconds", "5", "--timeout", "20", "--jobs", "2"]
SHARDS = 3

HALVING_FOLDER = {
    "correct.ipynb": HALVING / "correct.ipynb",
    "subtly_wrong.md": HALVING / "subtly_wrong.md",
    "raises.md": HALVING / "raises.md",
    "=odd name!.md": HALVING / "syntax_error.md",
    "a.md": HALVING / "subtly_wrong.md",
    "a.ipynb": HALVING / "correct.ipynb",
    "s1/work.md": CONTROL,
    "s1/late.md": HALVING / "subtly_wrong.md",
}

DEMO_HIDDEN = """
from booktools.grading import checks

PARTS = {"double": "function"}
TITLE = "Demo: code and a proof"
FORBIDDEN = []
QUESTIONS = [
    {"id": "why", "title": "Why it doubles", "items": [("claim", "states the claim", 1), ("proof", "proves it", 2)]},
]
REFERENCE = {"double": lambda x: 2 * x}


def grade(student):
    cases = [checks.Case("two", (2,)), checks.Case("three", (3,))]
    return checks.compare_functions(student["double"], REFERENCE["double"], cases, title=TITLE)
"""
HEADER = "---\n{front}kernelspec:\n  display_name: Python 3\n  language: python\n  name: python3\n---\n\n"
RIGHT = "```{code-cell} ipython3\ndef double(x):\n    return 2 * x\n```\n"
WRONG = "```{code-cell} ipython3\ndef double(x):\n    return x + x + 1\n```\n"
ANSWER = '\n+++ {{"tags": ["answer"], "question": "why"}}\n\n{text}\n'
PLACEHOLDER = ANSWER.format(text="*Write your proof here.*")
DEMO_FOLDER = {
    "ada.md": HEADER.format(front="") + RIGHT + ANSWER.format(text="Since $2x = x + x$, it doubles."),
    "final_v2.md": HEADER.format(front="student: ben\n") + WRONG + ANSWER.format(text="It adds $x$ to $x$."),
    "cy.md": HEADER.format(front="") + RIGHT,
    "dee.md": HEADER.format(front="") + RIGHT + PLACEHOLDER,
    "late.md": HEADER.format(front="student: ada\n") + RIGHT + ANSWER.format(text="A later proof: $x + x$."),
    "eve.md": HEADER.format(front="") + WRONG + ANSWER.format(text="$$2x = x + x$$"),
}


def grade(*argv: str) -> tuple[int, str]:
    """``python -m booktools grade ARGV`` in this process: (exit status, what it printed on stderr)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            status = cli.main([str(arg) for arg in argv])
        except SystemExit as stop:
            status = stop.code if isinstance(stop.code, int) else 1
            print(stop.code, file=err)
    return status, err.getvalue()


@contextlib.contextmanager
def shared(tmp_path_factory, name: str):
    """A folder shared by the xdist workers of this session, and a lock on it (the first builds it)."""
    base = tmp_path_factory.getbasetemp()
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / name
    root.mkdir(parents=True, exist_ok=True)
    with open(root.parent / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield root
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def grade_whole_and_shards(root: Path, folder: Path, extra: list[str]) -> dict:
    """One run over ``folder`` (``root/one``) and its 3 shards (``root/shards``); their outputs' paths."""
    done = root / "done.json"
    if not done.is_file():
        status, err = grade(folder, "--out", root / "one" / "scores.csv", *extra, *LIMITS)
        assert status == 0, err[-3000:]
        for k in range(1, SHARDS + 1):
            out = root / "shards" / f"scores-{k}.csv"
            status, err = grade(folder, "--out", out, "--shard", f"{k}/{SHARDS}", *extra, *LIMITS)
            assert status == 0, err[-3000:]
            assert f"shard {k}/{SHARDS}: " in err and manifest_path(out).is_file(), err[-2000:]
        done.write_text(json.dumps({"ok": True}))
    shards = [root / "shards" / f"scores-{k}.csv" for k in range(1, SHARDS + 1)]
    return {"folder": folder, "one": root / "one" / "scores.csv", "shards": shards, "extra": extra}


@pytest.fixture(scope="module")
def halving(tmp_path_factory):
    with shared(tmp_path_factory, "shard-halving") as root:
        folder = root / "subs"
        if not folder.is_dir():
            for name, source in HALVING_FOLDER.items():
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(source, folder / name)
            (folder / "notes.txt").write_text("not a notebook")
        return grade_whole_and_shards(root, folder, ["--assignment", "halving"])


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    with shared(tmp_path_factory, "shard-demo") as root:
        folder, hidden_dir = root / "subs", root / "lecturer"
        if not folder.is_dir():
            hidden_dir.mkdir()
            (hidden_dir / "demo_hidden.py").write_text(DEMO_HIDDEN, encoding="utf-8")
            (hidden_dir / "demo.md").write_text(HEADER.format(front="") + RIGHT + PLACEHOLDER, encoding="utf-8")
            folder.mkdir()
            for name, text in DEMO_FOLDER.items():
                (folder / name).write_text(text, encoding="utf-8")
        extra = ["--assignment", "demo", "--hidden-dir", hidden_dir, "--assignments-dir", hidden_dir]
        return grade_whole_and_shards(root, folder, extra)


def merge(runs: dict, out: Path, *shards: Path, extra: list[str] | None = None) -> tuple[int, str]:
    """``--merge-shards`` of ``shards`` (default: all of the run's) into ``out``."""
    return grade("--merge-shards", *(shards or runs["shards"]), "--out", out, *(extra or runs["extra"]))


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def sorted_lines(path: Path) -> list[bytes]:
    return sorted(path.read_bytes().splitlines())


def copy_shard(out: Path, target: Path) -> Path:
    """A copy of a shard's CSV and record in ``target`` (to spoil without touching the shared run)."""
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(out, target / out.name)
    shutil.copy(manifest_path(out), manifest_path(target / out.name))
    return target / out.name


def edit_record(out: Path, change) -> None:
    path = manifest_path(out)
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


# -- the cut --------------------------------------------------------------------------------------------------


def test_the_cut_depends_on_the_name_and_n_only():
    names = [f"student_{i:04d}.md" for i in range(3000)]
    cut = [shard_of(name, 4) for name in names]
    assert cut == [shard_of(name, 4) for name in reversed(names)][::-1], "the order does not matter"
    assert set(cut) == {1, 2, 3, 4} and all(600 < cut.count(k) < 900 for k in range(1, 5)), "about a quarter each"
    assert {shard_of(name, 1) for name in names} == {1}
    assert shard_of("s1/work.md", 3) == 3 and shard_of("s1/late.md", 3) == 1, "the halving folder's cut, as planned"
    assert shard_of("a.md", 3) != shard_of("a.ipynb", 3)


@pytest.mark.parametrize("value", ["0/3", "4/3", "3", "a/b", "-1/3", "1/0", "2/3/4", ""])
def test_a_bad_shard_is_refused_naming_the_option_its_domain_and_the_value(value, tmp_path):
    status, err = grade(tmp_path, "--assignment", "halving", "--out", tmp_path / "scores.csv", f"--shard={value}")
    assert status == 2, err
    assert "--shard must be K/N" in err and "1 <= K <= N" in err and repr(value) in err, err
    assert not (tmp_path / "scores.csv").exists()


# -- one run and its shards merged ------------------------------------------------------------------------------


@needs_bwrap
def test_three_shards_merged_are_the_one_run_byte_for_byte(halving, tmp_path):
    out = tmp_path / "merged" / "scores.csv"
    status, err = merge(halving, out)
    assert status == 0, err[-3000:]
    one = halving["one"]
    assert sorted_lines(out) == sorted_lines(one) and len(sorted_lines(one)) == 1 + 9
    merged = snapshot(out.parent)
    assert merged == snapshot(one.parent), "every file the one run wrote, and no other, byte for byte"
    assert sum(name.startswith("scores_feedback/") for name in merged) == 9 + 1
    book = out.with_name("scores_gradebook.csv")
    assert "merged 3 shard(s): 9 rows" in err
    # CONTROL: the shards alone do not hold these: the merge rebuilt them from the rows
    names = feedback_names(HALVING_FOLDER)
    assert names["a.md"] != "a.md" and f"scores_feedback/{names['a.md']}" in merged
    k = shard_of("a.md", SHARDS)
    assert (halving["shards"][k - 1].with_name(f"scores-{k}_feedback") / "a.md").is_file(), "alone, a.md is plain"
    rows = {r["student"]: r for r in csv.DictReader(book.open(encoding="utf-8"))}
    assert rows["s1"]["status"] == "duplicate: s1/late.md, s1/work.md", rows["s1"]
    for path in halving["shards"]:
        shard_book = {r["student"]: r for r in csv.DictReader(path.with_name(path.stem + "_gradebook.csv").open())}
        assert "duplicate" not in shard_book.get("s1", {}).get("status", ""), "each shard sees one file of s1"


@needs_bwrap
def test_written_answers_merged_give_the_one_runs_review_pages_rubric_and_gradebook(demo, tmp_path):
    out = tmp_path / "merged" / "scores.csv"
    out.parent.mkdir()
    one = demo["one"]
    shutil.copy(one.with_name("scores_review_key.csv"), out.with_name("scores_review_key.csv"))  # the same codes
    status, err = merge(demo, out)
    assert status == 0, err[-3000:]
    merged = snapshot(out.parent)
    assert merged == snapshot(one.parent), "every file the one run wrote, and no other, byte for byte"
    assert {"scores.csv", "scores_gradebook.csv", "scores_review/why.html", "scores_review/rubric.csv"} <= set(merged)
    assert sum(name.startswith("scores_feedback/") for name in merged) == len(DEMO_FOLDER) + 1
    page = merged["scores_review/why.html"].decode()
    assert "It adds" in page and "Write your proof here" not in page
    book = {r["student"]: r for r in csv.DictReader(out.with_name("scores_gradebook.csv").open(encoding="utf-8"))}
    assert book["ada"]["status"] == "duplicate: ada.md, late.md", "ada's two files are in two shards"
    assert book["ben"]["automatic"] == "0" and book["eve"]["status"] == "to mark", book


@needs_bwrap
def test_a_shards_record_is_private_as_the_answers_file_and_the_key(demo):
    """The record maps every submission to its written answers: readable by the lecturer alone (0600),
    like ``<out>_answers.json`` and the review key, never by a co-marker (issue 35, anonymity)."""
    records = [manifest_path(out) for out in demo["shards"]]
    assert any("It adds" in record.read_text(encoding="utf-8") for record in records), "a shard holds the answer"
    for out, record in zip(demo["shards"], records, strict=True):
        assert stat.S_IMODE(record.stat().st_mode) == 0o600, (record, oct(record.stat().st_mode))
        assert stat.S_IMODE(out.with_name(out.stem + "_answers.json").stat().st_mode) == 0o600


@needs_bwrap
def test_a_merge_without_the_key_gets_codes_of_its_own_and_the_same_rubric_under_them(demo, tmp_path):
    out = tmp_path / "scores.csv"
    status, err = merge(demo, out)
    assert status == 0, err[-3000:]
    rubrics = []
    for path in (out, demo["one"]):
        with path.with_name("scores_review_key.csv").open(encoding="utf-8") as handle:
            student = {row["code"]: row["student"] for row in csv.DictReader(handle)}
        with path.with_name("scores_review").joinpath("rubric.csv").open(encoding="utf-8") as handle:
            rubrics.append(
                sorted(sorted({**row, "code": student[row["code"]]}.items()) for row in csv.DictReader(handle))
            )
    assert rubrics[0] == rubrics[1] and len(rubrics[0]) == 2 * 4, "4 students with one file, 2 items each"


# -- refusals ---------------------------------------------------------------------------------------------------


@needs_bwrap
def test_overlapping_or_differently_cut_shards_are_refused(halving, tmp_path):
    first, second, third = halving["shards"]
    status, err = merge(halving, tmp_path / "m.csv", first, second, third, first)
    assert status == 1 and "shard 1/3 is given twice" in err, err
    other = copy_shard(third, tmp_path / "four")
    edit_record(other, lambda data: data.update(shards=4))
    status, err = merge(halving, tmp_path / "m.csv", first, second, other)
    assert status == 1 and "different cuts" in err and "3/4" in err, err
    assert not (tmp_path / "m.csv").exists()


@needs_bwrap
def test_a_missing_shard_is_refused(halving, tmp_path):
    status, err = merge(halving, tmp_path / "m.csv", *halving["shards"][:2])
    assert status == 1 and "shard(s) 3/3 missing" in err, err
    assert not (tmp_path / "m.csv").exists()


@needs_bwrap
def test_shards_of_different_assignments_or_hidden_tests_are_refused(halving, demo, tmp_path):
    status, err = merge(halving, tmp_path / "m.csv", *halving["shards"][:2], demo["shards"][2])
    assert status == 1 and "differ in assignment" in err and "'demo'" in err and "'halving'" in err, err
    status, err = merge(halving, tmp_path / "m.csv", *halving["shards"], extra=["--assignment", "demo"])
    assert status == 1 and "not 'demo'" in err, err
    other = copy_shard(halving["shards"][1], tmp_path / "other")
    edit_record(other, lambda data: data.update(hidden_sha256="0" * 64))
    status, err = merge(halving, tmp_path / "m.csv", halving["shards"][0], other, halving["shards"][2])
    assert status == 1 and "differ in hidden tests" in err, err
    # issue 37: a shard graded with another course key drew other hidden instances
    assert (
        len({json.loads(manifest_path(s).read_text(encoding="utf-8"))["course_key_id"] for s in halving["shards"]}) == 1
    )
    other = copy_shard(halving["shards"][1], tmp_path / "other-key")
    edit_record(other, lambda data: data.update(course_key_id=key_id(b"another course's key, 32 bytes!")))
    status, err = merge(halving, tmp_path / "m.csv", halving["shards"][0], other, halving["shards"][2])
    assert status == 1 and "different course keys" in err, err
    # the hidden tests changed since the shards were graded
    lecturer = tmp_path / "lecturer"
    shutil.copytree(Path(demo["extra"][3]), lecturer)
    (lecturer / "demo_hidden.py").write_text(DEMO_HIDDEN + "\n# changed\n", encoding="utf-8")
    extra = ["--hidden-dir", lecturer, "--assignments-dir", lecturer]
    status, err = merge(demo, tmp_path / "m.csv", extra=extra)
    assert status == 1 and "not the file the shards were graded with" in err, err
    assert not (tmp_path / "m.csv").exists()


@needs_bwrap
def test_outputs_without_a_shard_record_and_an_existing_out_are_refused(halving, tmp_path):
    status, err = merge(halving, tmp_path / "m.csv", halving["one"])
    assert status == 1 and "has no shard record" in err and "--shard K/N" in err, err
    out = tmp_path / "m.csv"
    out.write_text("mine")
    status, err = merge(halving, out)
    assert status == 2 and "--force" in err and out.read_text() == "mine", err


@needs_bwrap
def test_a_shard_with_grader_errors_is_refused_until_regraded_with_its_shard(halving, tmp_path):
    k = shard_of("raises.md", SHARDS)
    spoilt = copy_shard(halving["shards"][k - 1], tmp_path / "spoilt")
    # the grader failed on raises.md: its row says so in the CSV and the record
    with spoilt.open(newline="", encoding="utf-8") as handle:
        table = list(csv.reader(handle))
    status_column = table[0].index("status")
    for cells in table:
        if cells[0] == "raises.md":
            cells[status_column] = "grader-error"
    with spoilt.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(table)
    edit_record(
        spoilt,
        lambda data: [row.update(status="grader-error") for row in data["rows"] if row["submission"] == "raises.md"],
    )
    shards = [spoilt if i == k - 1 else path for i, path in enumerate(halving["shards"])]
    status, err = merge(halving, tmp_path / "m.csv", *shards)
    assert status == 1 and "grader-error row(s)" in err and f"--shard {k}/3 --regrade-errors" in err, err
    # regrading needs the shard's own --shard
    base = [halving["folder"], "--assignment", "halving", "--out", spoilt, *LIMITS, "--regrade-errors"]
    status, err = grade(*base)
    assert status == 1 and f"is shard {k}/3" in err and f"add --shard {k}/3" in err, err
    status, err = grade(*base, "--shard", f"{k}/3")
    assert status == 0 and "regrading the 1 row(s)" in err, err[-3000:]
    out = tmp_path / "merged" / "scores.csv"
    status, err = merge(halving, out, *shards)
    assert status == 0, err[-3000:]
    assert snapshot(out.parent) == snapshot(halving["one"].parent), "the regraded shard merges as the others"
