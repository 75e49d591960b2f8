"""``python -m booktools new-assignment`` scaffolds an assignment that fails until it is written (issue 37).

Every test works on a copy of the files the command reads and writes (``_toc.yml``, the chapters,
``book/assignments``) in ``tmp_path``, through ``--root``: the real book is never written.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from booktools import new_assignment
from booktools.grading.hidden import load_hidden, write_public_checks
from booktools.toc import toc_entries

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def book(tmp_path):
    """A copy of what the command touches: _toc.yml, the chapters and book/assignments (with lecturer/)."""
    shutil.copy(ROOT / "_toc.yml", tmp_path / "_toc.yml")
    (tmp_path / "book").mkdir()
    for path in (ROOT / "book").glob("*.md"):
        shutil.copy(path, tmp_path / "book" / path.name)
    shutil.copytree(ROOT / "book" / "assignments", tmp_path / "book" / "assignments")
    return tmp_path


def run(root: Path, *args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "booktools", "new-assignment", *args, "--root", str(root)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT)


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_it_writes_the_notebook_the_hidden_skeleton_the_toc_entry_and_the_index_row(book):
    before = snapshot(book)
    result = run(book, "drift_limit", "--chapter", "ch-experts", "--title", "the limit of a drift", "--hours", "2")
    assert result.returncode == 0, result.stderr
    after = snapshot(book)
    changed = sorted(name for name in after if before.get(name) != after[name])
    assert changed == [
        "_toc.yml",
        "book/assignments/drift_limit.md",
        "book/assignments/index.md",
        "book/assignments/lecturer/drift_limit_hidden.py",
    ], "no other assignment's file (its public JSON, say) is touched"
    # the notebook: the header lines the index test reads, the next number, a stub and the public checks
    text = (book / "book/assignments/drift_limit.md").read_text(encoding="utf-8")
    assert "(asg-drift-limit)=\n# Assignment 17: the limit of a drift\n" in text
    assert "*Part: Experts and regret. Chapter: {ref}`ch-experts`.*" in text
    assert "*Difficulty: intermediate. Expected time: about 2 hours.*" in text
    assert "def drift_limit(*args):" in text and "raise NotImplementedError" in text
    assert 'grading.load_public_checks("drift_limit_public.json")' in text
    # _toc.yml: listed after the last assignment, and the TOC parser of the build sees it
    toc = yaml.safe_load((book / "_toc.yml").read_text(encoding="utf-8"))
    entries = toc_entries(toc)
    assert entries[entries.index("book/assignments/learning_curve") + 1] == "book/assignments/drift_limit"
    # the index: a row after the rows of its chapter (5), before those of chapter 6
    lines = (book / "book/assignments/index.md").read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if "<asg-drift-limit>" in line)
    assert lines[at] == (
        "| {ref}`A17 <asg-drift-limit>` — `drift_limit`: TODO | {ref}`5 <ch-experts>` | code | TODO | — "
        "| intermediate | 2 h |"
    )
    assert "<ch-experts>" in lines[at - 1] and "<ch-kernels>" in lines[at + 1]
    assert "drift_limit" in result.stdout and "--write-public-checks --assignment drift_limit" in result.stdout


def test_the_skeleton_fails_until_it_is_written(book):
    assert run(book, "drift_limit", "--chapter", "ch-kernels").returncode == 0
    hidden = load_hidden(book / "book/assignments/lecturer/drift_limit_hidden.py")  # it loads, as a hidden file
    assert (hidden.FUNCTION, hidden.KIND, hidden.FORBIDDEN) == ("drift_limit", "function", [])
    with pytest.raises(NotImplementedError, match="skeleton: write REFERENCE"):
        hidden.grade(hidden.REFERENCE)  # what the grader (and the index test) does first
    with pytest.raises(NotImplementedError, match="skeleton"):
        write_public_checks(False, book / "book/assignments/lecturer", book / "book/assignments", only="drift_limit")
    assert not (book / "book/assignments/drift_limit_public.json").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["halving", "--chapter", "ch-experts"], "halving.md exists already"),
        (["Bad-Name", "--chapter", "ch-experts"], "NAME must be a lowercase identifier"),
        (["class", "--chapter", "ch-experts"], "NAME must be a lowercase identifier"),
        (["index", "--chapter", "ch-experts"], "NAME must be a lowercase identifier"),
        (["fresh", "--chapter", "ch-nowhere"], "--chapter must be a numbered chapter's label"),
        (["fresh", "--chapter", "ch-experts", "--function", "not a name"], "--function must be a Python name"),
        (["fresh", "--chapter", "ch-experts", "--title", 'say "hi"'], "--title must be one line"),
        (["fresh", "--chapter", "ch-experts", "--hours", "0"], "--hours must be at least 1"),
    ],
)
def test_a_bad_or_taken_name_is_refused_and_nothing_is_written(book, args, message):
    before = snapshot(book)
    result = run(book, *args)
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert result.stderr.startswith("usage: python -m booktools new-assignment ")
    assert snapshot(book) == before


def test_a_label_in_use_is_refused(book):
    """A name whose label (``asg-`` and the name, ``_`` as ``-``) another notebook uses already."""
    text = (book / "book/assignments/halving.md").read_text(encoding="utf-8")
    (book / "book/assignments/halving.md").write_text(text + "\n(asg-taken-label)=\n", encoding="utf-8")
    result = run(book, "taken_label", "--chapter", "ch-experts")
    assert result.returncode == 2 and "the label asg-taken-label is used by" in result.stderr


def test_the_index_row_goes_after_its_chapter():
    text = "intro\n\n| h |\n|---|\n" + "".join(
        f"| {{ref}}`A{n} <asg-a{n}>` — x | {{ref}}`{c} <ch-c{c}>` | code |\n"
        for n, c in ((1, 1), (2, 3), (3, 3), (4, 6))
    )
    for chapter, after in ((1, "asg-a1"), (3, "asg-a3"), (4, "asg-a3"), (8, "asg-a4")):
        lines = new_assignment.add_index_row(text, "| NEW |", chapter).splitlines()
        assert after in lines[lines.index("| NEW |") - 1]
    assert "| h |\n|---|\n| NEW |\n" in new_assignment.add_index_row(text, "| NEW |", 0), "before every chapter's rows"
