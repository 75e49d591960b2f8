"""One submission cannot stop the grading run (issue 23): the trusted parent under hostile replies.

The red team of issue 23 stopped or starved the grader's own process with a single submission:
a request pipe that stops draining, a reply that is slow to decode, a reply that is huge as an
array, a folder nested 1,100 deep, and failures of the grader's own (a worker killed while
importing its libraries, a Python without jupytext) that were recorded as students' zeros. Each
test below grades such a case with the lecturer's command and checks the run ends with a row for
every entry; each has a control that shows the case really does what the old code could not
survive (so the test cannot pass for want of an attack).

No test here asserts a speed (issue 34): on a loaded machine every step takes longer. A hostile
row must score 0 with a status that blames the student (``timeout`` is always one of them); a
status that must be exact gets a deadline with room (about ten times what it needs on an idle
machine); how much work the parent does for a reply is bounded by counting (bytes allocated,
characters copied), not by a clock; and the run's wall time is bounded only by the deadlines the
grader itself sets (``within_the_deadlines``), which a grader that keeps them meets however slow
the machine is. ``benchmarks/grading_speed.py`` measures the speed.

The submissions are in ``tests/submissions/hostile/``; the hidden tests with deliberate bugs of
the lecturer's (a judge that hangs, allocates 3 GB or raises) in ``tests/submissions/hostile/hidden/``.
"""

from __future__ import annotations

import csv
import json
import math
import os
import shutil
import subprocess
import sys
import threading
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import onlinelib
from booktools.grading import cli as grade_tool
from booktools.grading import sandbox
from booktools.grading.collect import find_submissions
from booktools.grading.feedback import feedback_names
from booktools.grading.hidden import load_hidden
from booktools.grading.isolation import find_bwrap
from booktools.grading.judge import JUDGE_GRACE
from booktools.grading.library import assignment_library
from booktools.grading.text import scrub
from examples import SANDBOX_LIMITS
from onlinelib import plain_data

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ROOT / "tests" / "submissions" / "hostile"
LECTURER = ROOT / "book" / "assignments" / "lecturer"

needs_bwrap = pytest.mark.skipif(
    find_bwrap() is None and not os.environ.get("CI"),
    reason="bubblewrap is not installed (apt-get install bubblewrap); CI installs it and runs these",
)


JOBS = 2


def within_the_deadlines(rows: int, timeout: float, attempts: int = 1) -> float:
    """The most seconds a run of ``rows`` entries may take if the grader keeps its own deadlines.

    Its own test notebook first (deadline max(60, timeout)); then, ``JOBS`` at a time, each entry
    at most ``attempts`` judges (a grader-error is tried twice), each killed ``JUDGE_GRACE`` after
    its deadline and waited for another ``JUDGE_GRACE``; and 60 s for everything else (start-up,
    the CSV, the feedback files). Not a speed: a run that is slower broke a deadline, however
    loaded the machine.
    """
    return max(60.0, timeout) + math.ceil(rows / JOBS) * attempts * (timeout + 2 * JUDGE_GRACE) + 60.0


def grade(folder: Path, assignment: str, timeout: float, *extra: str, hidden_dir: Path | None = None):
    """Run the lecturer's command on ``folder``; (rows by submission, completed process, wall seconds)."""
    out = folder.parent / f"{folder.name}.csv"
    command = [
        sys.executable,
        "-m",
        "booktools",
        "grade",
        str(folder),
        "--assignment",
        assignment,
        "--out",
        str(out),
        "--jobs",
        str(JOBS),
        "--timeout",
        str(timeout),
        *extra,
    ]
    if hidden_dir is not None:
        command += ["--hidden-dir", str(hidden_dir)]
    start = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=900)  # liveness guard
    wall = time.monotonic() - start
    rows = {}
    if out.exists():
        with out.open(newline="", encoding="utf-8") as handle:
            rows = {row["submission"]: row for row in csv.DictReader(handle)}
    return rows, result, wall


def copy_folder(source: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "submissions"
    shutil.copytree(source, folder)
    return folder


# -- 1. a request pipe that stops draining -------------------------------------------------------------


def test_control_a_blocking_write_of_the_first_request_waits_forever():
    """The first request of the halving hidden tests is larger than a one-page pipe: a blocking
    write of it to a pipe nobody reads never returns (here: not within 2 s)."""
    hidden = load_hidden(LECTURER / "halving_hidden.py")
    stream = hidden.streams()[0]
    request = (
        json.dumps(
            {
                "id": 2,
                "op": "call",
                "ref": 1,
                "args": plain_data.encode([]),
                "kwargs": plain_data.encode(dict(stream.params)),
            }
        )
        + "\n"
    )
    assert len(request) > 4096, f"the request is {len(request)} bytes, not more than one page"
    read_end, write_end = os.pipe()
    try:
        import fcntl

        fcntl.fcntl(write_end, 1031, 4096)  # F_SETPIPE_SZ, as the attack does
        writer = threading.Thread(target=os.write, args=(write_end, request.encode()), daemon=True)
        writer.start()
        writer.join(2.0)
        assert writer.is_alive(), "the blocking write finished: the pipe drained after all"
    finally:
        os.close(read_end)  # the write fails now, and the thread ends
        writer.join(5.0)
        os.close(write_end)


# The deadline of the run below: the honest control and the crash in cell 1 must come out exactly
# (graded 5, crashed), so they get room: each needs 1-2 s on an idle machine, under 8 s at a load
# of 7 on two cores. The hang costs one deadline, beside the others on the second worker.
PIPE_TIMEOUT = 20


@needs_bwrap
def test_a_worker_that_stops_reading_costs_only_its_own_row(tmp_path, deep_folders):
    folder = copy_folder(HOSTILE / "halving", tmp_path)
    deep_folders(folder / "deep", 1100)
    rows, result, wall = grade(folder, "halving", PIPE_TIMEOUT)
    assert result.returncode == 0, result.stderr[-3000:]
    assert len(rows) == 6, sorted(rows)  # five notebooks and the deep folder: a row each
    assert rows["control_correct.md"]["status"] == "graded" and rows["control_correct.md"]["score"] == "5"
    pipe = rows["pipe_fill.md"]
    assert (pipe["status"], pipe["score"]) == ("timeout", "0"), pipe
    assert f"timed out after {PIPE_TIMEOUT} s" in pipe["feedback"]
    # replies dear to decode or to compare: 0, on their own rows. Graded as a rule; a timeout (the
    # student's too) on a loaded machine. The parent's work on them is counted by the tests of
    # plain_data.decode below and of grading.mismatch (tests/test_grading.py), not timed here.
    for name in ("slow_reply.md", "huge_reply.md"):
        row = rows[name]
        assert row["status"] in ("graded", "timeout") and row["score"] == "0", row
        assert "|V| differs" in row["feedback"] if row["status"] == "graded" else "timed out" in row["feedback"], row
    # the student killed their own worker in cell 1: their crash, not the grader's (no retry)
    crash = rows["crash_first_cell.md"]
    assert (crash["status"], crash["score"]) == ("crashed", "0") and "in code cell 1" in crash["feedback"], crash
    # 4. the deep folder: one row for where the walk stopped, and every other row as usual
    deep = [name for name in rows if name.startswith("deep/")]
    assert len(deep) == 1 and rows[deep[0]]["status"] == "skipped", deep
    assert "nested more than 32 folders deep" in rows[deep[0]]["feedback"]
    # the hang costs its own deadline, not the run: the run keeps every deadline it set
    assert wall < within_the_deadlines(len(rows), PIPE_TIMEOUT), f"the run took {wall:.0f} s"


# -- 2 and 3. replies that are cheap to send and dear to decode or to compare -------------------------------


SLOW_KEY = "k" * (2**21 - 64)  # the key of slow_reply.md and slow_decode.md, which hold 900,000 zeros under it


def _old_decode(data, path: str = ""):
    """The old decoder (the control): the path of each element built on the way down, "[<key>][i]"."""
    if isinstance(data, list):
        return [_old_decode(v, f"{path}[{i}]") for i, v in enumerate(data)]
    if isinstance(data, dict):
        return {k: _old_decode(v, f"{path}[{k!r}]") for k, v in data.items()}
    return data


def peak_bytes(fn) -> int:
    """The most bytes allocated at once while ``fn()`` ran (what existed before is not counted)."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_control_the_old_decoder_copied_the_key_once_per_element():
    """The old decoder built the path "[<key>][i]" for each of the 900,000 elements: counted on 200
    elements and scaled up, 1.9 * 10^12 characters copied, half an hour at 1 GB/s."""
    parent = f"[{SLOW_KEY!r}]"  # the path of the list, built once, as the old decoder did
    copied = sum(len(f"{parent}[{i}]") for i in range(200))  # and copied into the path of each element
    assert copied / 200 * 900_000 > 1e12, f"{copied / 200 * 900_000:.3g} characters"


def test_decoding_a_long_key_never_copies_it():
    """What the grader's parent does with slow_reply's reply: plain_data.decode keeps the key it was
    given and allocates the decoded list, never a path holding the key (counted in bytes, not timed)."""
    data = {SLOW_KEY: [0] * 1000}
    peak = peak_bytes(lambda: plain_data.decode(data))
    assert peak < 2**20 < len(SLOW_KEY), f"decoding allocated {peak} bytes at once"  # the list: 8 KB
    # the control: the old decoder's paths hold the key, so the same count catches it (100 elements
    # are enough: it allocates a copy for the first one)
    assert peak_bytes(lambda: _old_decode({SLOW_KEY: [0] * 100})) > len(SLOW_KEY)


def test_control_the_strings_reply_is_gigabytes_as_a_numpy_array():
    """``np.asarray`` of 800,000 empty strings and one of 1,000 characters is a '<U1000' array."""
    assert np.dtype("<U1000").itemsize * 800_001 > 3e9


# Nothing in the rwma folder hangs, so a deadline with room costs nothing: slow_decode.md needs about
# 5 s on an idle machine and 12 s at a load of 6 on two cores (its 3.9 MB reply encoded, sent and
# decoded once per hidden case), and comes out exactly "graded".
RWMA_TIMEOUT = 120


@needs_bwrap
def test_slow_and_huge_replies_cost_only_their_own_rows(tmp_path):
    folder = copy_folder(HOSTILE / "rwma", tmp_path)
    rows, result, wall = grade(folder, "rwma", RWMA_TIMEOUT)
    assert result.returncode == 0, result.stderr[-3000:]
    assert set(rows) == {"control_correct.md", "slow_decode.md", "memory_strings.md"}
    assert rows["control_correct.md"]["status"] == "graded"
    assert float(rows["control_correct.md"]["score"]) == float(rows["control_correct.md"]["max_score"]) > 0
    for name in ("slow_decode.md", "memory_strings.md"):
        row = rows[name]
        assert (row["status"], row["score"]) == ("graded", "0"), row
        assert "FAIL" in row["feedback"]
    assert wall < within_the_deadlines(len(rows), RWMA_TIMEOUT), f"the run took {wall:.0f} s"


# -- 4. a folder nested 1,100 levels --------------------------------------------------------------------


@pytest.fixture
def deep_folders():
    """Makes deep folders, and removes them afterwards with ``rm -rf`` (pytest's own clean-up of old
    temporary folders recurses, and a tree 1,100 deep would stop it with a RecursionError)."""
    made = []

    def make(top: Path, depth: int) -> Path:
        made.append(top)
        return _make_deep_folder(top, depth)

    yield make
    for top in made:
        subprocess.run(["rm", "-rf", str(top)], check=True)


def _make_deep_folder(top: Path, depth: int) -> Path:
    """``top/d/d/.../d`` ``depth`` levels below ``top``, made level by level (a path of 2 x depth characters)."""
    top.mkdir()
    fd = os.open(top, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            inner = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        with open(os.open("notebook.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as f:
            f.write("# too deep to be found\n")
    finally:
        os.close(fd)
    return top


def _old_recursive_walk(directory: Path) -> int:
    """The walk of the old grader (control): one Python frame per level."""
    count = 0
    for entry in sorted(os.scandir(directory), key=lambda e: e.name):
        count += 1
        if entry.is_dir(follow_symlinks=False):
            count += _old_recursive_walk(Path(entry.path))
    return count


def test_a_deep_folder_gets_one_row_and_the_walk_is_bounded(tmp_path, deep_folders):
    top = deep_folders(tmp_path / "subs", 1100)
    (top / "a.md").write_text("x")
    with pytest.raises(RecursionError):  # the control: the old walk cannot list it
        _old_recursive_walk(top)
    entries = find_submissions(top)
    assert [e[0] for e in entries if e[2] is None] == ["a.md"]
    skipped = [e for e in entries if e[2] is not None]
    assert len(skipped) == 1 and skipped[0][0] == "d/" * 32 + "d/", skipped[0][0][:80]
    assert skipped[0][2] == ("skipped", "nested more than 32 folders deep, not searched")


def test_a_folder_with_too_many_entries_gets_one_row_for_the_rest(tmp_path):
    top = tmp_path / "subs"
    top.mkdir()
    for i in range(30):
        (top / f"{i:02d}.md").write_text("x")
    entries = find_submissions(top, max_entries=10)
    assert len(entries) == 1 and entries[0][2][0] == "skipped" and "more than 10 entries" in entries[0][2][1]
    assert len(find_submissions(top, max_entries=30)) == 30


# -- the judge: the lecturer's hidden tests bounded in time and memory ----------------------------------------


# The judge that hangs costs its deadline, so it gets 10 s: enough for the notebook to finish first
# (under 1 s on an idle machine), so that the hidden tests are what times out. The others finish on
# their own and get 60 s, the grader's default, for the exact status their bug must give.
@needs_bwrap
@pytest.mark.parametrize(
    "assignment, timeout, status, pattern",
    [
        (
            "judge_hang",
            10,
            "timeout",
            "timed out after 10 s: the grader's checks of this submission's replies did not finish",
        ),
        ("judge_hog", 60, "memory", "needed more than the judge's 512 MB"),
        ("judge_fail", 60, "grader-error", r"ZeroDivisionError: a bug in the hidden tests \(tried twice"),
    ],
)
def test_hidden_tests_that_hang_hog_or_fail_cost_one_row_never_the_run(tmp_path, assignment, timeout, status, pattern):
    import re

    folder = copy_folder(HOSTILE / "judge", tmp_path)
    shutil.copy(folder / "answer.md", folder / "answer_again.md")
    rows, result, wall = grade(folder, assignment, timeout, "--judge-memory-mb", "512", hidden_dir=HOSTILE / "hidden")
    assert set(rows) == {"answer.md", "answer_again.md"}, result.stderr[-2000:]
    for row in rows.values():
        assert row["status"] == status and row["score"] == "0", row
        assert re.search(pattern, row["feedback"]), row["feedback"]
    if status == "grader-error":
        assert result.returncode == 3 and "regrade these (2" in result.stderr, result.stderr[-2000:]
    else:
        assert result.returncode == 0, result.stderr[-2000:]
    attempts = 2 if status == "grader-error" else 1
    assert wall < within_the_deadlines(len(rows), timeout, attempts), f"the run took {wall:.0f} s"


# -- infrastructure failures are not zeros ---------------------------------------------------------------------

KILL_ON_IMPORT = """
import os as _os, signal as _signal
if _os.path.exists({marker!r}):  # the students' notebooks (.md), not the grader's own test notebook (.ipynb)
    _os.kill(_os.getpid(), _signal.SIGKILL)
"""


def _sabotaged_library(monkeypatch, code: str, file: str = "__init__.py") -> None:
    """Make the grader's library copy run ``code`` when the worker imports it (before it is ready)."""

    def sabotaged(forbidden, assignment, dest):
        removed = assignment_library(forbidden, assignment, dest)
        target = dest / "onlinelib" / file if file == "__init__.py" else dest / file
        target.write_text((target.read_text() if target.exists() else "") + code)
        return removed

    monkeypatch.setattr(grade_tool, "assignment_library", sabotaged)  # the name the command line calls


def start_sandbox(tmp_path: Path, name: str, notebook: bytes, extra_library: dict | None = None) -> sandbox.Sandbox:
    """One sandboxed worker (as the grader starts it) for the notebook ``notebook`` saved as ``name``,
    with the whole library, plus ``extra_library`` files (name -> text) put first on its path."""
    library = tmp_path / "lib"
    assignment_library([], "halving", library)
    for file, text in (extra_library or {}).items():
        (library / file).write_text(text)
    box = tmp_path / "box"
    box.mkdir(mode=0o755)
    (box / name).write_bytes(notebook)
    for path in (tmp_path, box, box / name):
        path.chmod(0o755)
    return sandbox.Sandbox(
        box,
        library,
        SANDBOX_LIMITS,
        time.monotonic() + 60,
        bwrap=find_bwrap(),
        name=f"onlinelib-grade-test-{os.getpid()}",
    )


def _grade_in_process(folder: Path, out: Path, *extra: str) -> int:
    return grade_tool.main(
        [str(folder), "--assignment", "halving", "--out", str(out), "--jobs", "2", "--timeout", "30", *extra]
    )


@needs_bwrap
def test_a_worker_killed_while_starting_is_a_grader_error_then_regraded(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "subs"
    folder.mkdir()
    for name in ("one.md", "two.md"):
        shutil.copy(HOSTILE / "halving" / "control_correct.md", folder / name)
    shutil.copy(HOSTILE / "halving" / "crash_first_cell.md", folder / "crash_first_cell.md")
    out = tmp_path / "scores.csv"
    _sabotaged_library(monkeypatch, KILL_ON_IMPORT.format(marker="/submission/submission.md"))
    assert _grade_in_process(folder, out) == 3
    err = capsys.readouterr().err
    rows = {r["submission"]: r for r in csv.DictReader(out.open(encoding="utf-8"))}
    for name in ("one.md", "two.md", "crash_first_cell.md"):
        row = rows[name]
        assert (row["status"], row["score"]) == ("grader-error", "0"), row
        assert "the grader's worker was killed by SIGKILL while starting (importing the libraries)" in row["feedback"]
        assert "tried twice" in row["feedback"]
    assert "regrade these (3" in err and "--regrade-errors" in err
    feedback = tmp_path / "scores_feedback"
    (feedback / "one.md").write_text("kept")  # a row that is not regraded keeps its feedback file (one.md's)

    # the machine is fixed: only the grader-error rows are graded again
    monkeypatch.undo()
    rows["one.md"]["status"] = "graded"  # as if this row had been graded the first time
    with out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows["one.md"]))  # FIELDS, then one column per check
        writer.writeheader()
        writer.writerows(rows.values())
    assert _grade_in_process(folder, out, "--regrade-errors") == 0
    again = {r["submission"]: r for r in csv.DictReader(out.open(encoding="utf-8"))}
    assert set(again) == {"one.md", "two.md", "crash_first_cell.md"}
    assert again["one.md"] == rows["one.md"] and (feedback / "one.md").read_text() == "kept"
    assert (again["two.md"]["status"], again["two.md"]["score"]) == ("graded", "5")
    assert again["crash_first_cell.md"]["status"] == "crashed"  # the student's own crash, once it could run


@needs_bwrap
def test_control_a_worker_killed_while_starting_looks_like_a_crash(tmp_path):
    """What the old grader wrote on the student's row: "crashed", score 0. The failure is the same
    one (the sandbox reports a crash); only the phase tells that no student code had run."""
    library_init = Path(onlinelib.__file__).read_text(encoding="utf-8")
    kill = KILL_ON_IMPORT.format(marker="/submission/submission.md")
    with pytest.raises(sandbox.SandboxFailure) as info:
        start_sandbox(
            tmp_path,
            "submission.md",
            (HOSTILE / "halving" / "control_correct.md").read_bytes(),
            extra_library={"onlinelib/__init__.py": library_init + kill},
        )
    assert info.value.status == "crashed" and info.value.infrastructure, (info.value.status, info.value.reason)
    assert "while starting (importing the libraries)" in info.value.reason


@needs_bwrap
def test_a_python_without_jupytext_stops_the_run_before_any_row(tmp_path, monkeypatch):
    folder = tmp_path / "subs"
    folder.mkdir()
    shutil.copy(HOSTILE / "halving" / "control_correct.md", folder / "one.md")
    out = tmp_path / "scores.csv"
    broken = "raise ImportError('No module named jupytext (this Python lacks it)')\n"
    _sabotaged_library(monkeypatch, broken, file="jupytext.py")
    with pytest.raises(SystemExit, match="the grader cannot run notebooks here, so nothing was graded.*jupytext"):
        _grade_in_process(folder, out)
    assert not out.exists()

    # the control: without the check, the worker reads every notebook as unreadable, a student's 0
    worker = start_sandbox(
        tmp_path, "submission.md", (folder / "one.md").read_bytes(), extra_library={"jupytext.py": broken}
    )
    try:
        outcome = worker.run_notebook("/submission/submission.md", "HalvingLearner", "learner")
    finally:
        worker.close()
    assert outcome["status"] == "unreadable" and "jupytext" in outcome["reason"], outcome


# -- a closed sandbox has ended ----------------------------------------------------------------------------

HOLD_MEMORY = """
import os, time
import numpy as np


def hold():
    global big
    big = np.ones(20 * 2**20)  # 160 MB, and three children writing their own copies: slow to tear down
    for _ in range(3):
        if os.fork() == 0:
            big[:] = 2.0
            time.sleep(600)
    return int(big.sum())
"""


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parent = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found, todo = [], list(children.get(root, []))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def _close_and_list_survivors(tmp_path: Path, *, kill_bwrap_only: bool) -> tuple[list[int], list[int]]:
    notebook = {
        "cells": [{"cell_type": "code", "metadata": {}, "source": HOLD_MEMORY, "outputs": [], "execution_count": None}],
        "metadata": {"kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    worker = start_sandbox(tmp_path, "submission.ipynb", json.dumps(notebook).encode())
    try:
        assert worker.value(worker.run_notebook("/submission/submission.ipynb", "hold", "function"))() == 20 * 2**20
        time.sleep(0.3)  # the children have written their copies
        inside = _descendants(worker.proc.pid)
        if kill_bwrap_only:  # the old close(): SIGKILL bwrap's process group and wait for bwrap alone
            os.close(worker.init_pidfd)
            worker.init_pidfd = None
    finally:
        worker.close()
    return inside, [pid for pid in inside if os.path.exists(f"/proc/{pid}")]


@needs_bwrap
def test_closing_a_sandbox_returns_only_once_nothing_of_it_runs(tmp_path):
    """CI once failed "a sandboxed worker survived the grading run": close() killed bwrap and returned
    while the sandbox's init was still dying (by --die-with-parent), after the grader's last row."""
    inside, left = _close_and_list_survivors(tmp_path / "new", kill_bwrap_only=False)
    assert len(inside) >= 5, f"the init, the worker and its three children run in the sandbox: {inside}"
    assert not left, f"processes of a closed sandbox still exist: {left} of {inside}"

    # the control: killing bwrap alone returns while some of the sandbox is still there
    survived = []
    for attempt in range(3):
        _, left = _close_and_list_survivors(tmp_path / f"old{attempt}", kill_bwrap_only=True)
        survived.append(left)
        if left:
            break
    assert any(survived), "the old close() left nothing behind: this test no longer shows the race"


# -- nothing of the lecturer's machine in the sandbox or the feedback ------------------------------------------

PATHS_PROBE = """
import os, sys
import numpy


def where():
    try:
        with open("/proc/self/mountinfo") as f:
            mountinfo = f.read()
    except OSError as exc:
        mountinfo = type(exc).__name__
    return {"mountinfo": mountinfo, "prefix": sys.prefix, "base": sys.base_prefix, "executable": sys.executable,
            "numpy": numpy.__file__, "path": list(sys.path), "cwd": os.getcwd(), "environ": dict(os.environ)}
"""


def host_strings() -> list[str]:
    """Paths of this machine that the sandbox must not show."""
    found = {
        str(ROOT),
        os.path.realpath(ROOT),
        sys.prefix,
        os.path.realpath(sys.prefix),
        sys.base_prefix,
        os.path.realpath(sys.base_prefix),
        str(Path.home()),
    }
    return sorted(p for p in found if p not in ("/", "/usr", "/usr/local"))


@needs_bwrap
def test_the_sandbox_shows_neutral_paths_only(tmp_path):
    notebook = {
        "cells": [{"cell_type": "code", "metadata": {}, "source": PATHS_PROBE, "outputs": [], "execution_count": None}],
        "metadata": {"kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    worker = start_sandbox(tmp_path, "submission.ipynb", json.dumps(notebook).encode())
    try:
        seen = worker.value(worker.run_notebook("/submission/submission.ipynb", "where", "function"))()
    finally:
        worker.close()
    assert seen["mountinfo"] in ("FileNotFoundError", "PermissionError"), seen["mountinfo"][:500]
    assert seen["numpy"].startswith("/grader/") and seen["prefix"].startswith("/grader/"), seen
    text = json.dumps(seen)
    # the control: each of these strings is a real path of this process (numpy's file is under one)
    assert any(np.__file__.startswith(p) for p in host_strings())
    leaks = [p for p in host_strings() + [str(tmp_path)] if p in text]
    assert not leaks, f"the sandbox shows paths of this machine: {leaks}"


def test_feedback_is_scrubbed_of_this_machines_paths():
    text = (
        f"File {ROOT}/booktools/x.py, {sys.prefix}/lib/python3.11/site-packages/numpy/__init__.py, "
        f"/tmp/grade-abc123/submission/submission.md, {Path.home()}/notes"
    )
    clean = scrub(text)
    for path in host_strings() + ["/tmp/grade-abc123"]:
        assert path not in clean, (path, clean)
    assert "<repository>/booktools/x.py" in clean and "<tmp>/submission/submission.md" in clean


def test_feedback_file_names_are_stable_and_distinct():
    names = ["a.md", "a_b.md", "a b.md", "a/b.md", "a__b.md", "x" * 300 + ".md", "=HYPERLINK(1).md", "a.ipynb"]
    files = feedback_names(names)
    assert len(set(files.values())) == len(names) and files == feedback_names(reversed(names))
    assert files["a_b.md"] == "a_b.md" and all(len(f) < 140 and "/" not in f for f in files.values())
    assert files["a.md"] != "a.md" and files["a.md"].startswith("a-"), "a.md beside a.ipynb: both get a hash"
