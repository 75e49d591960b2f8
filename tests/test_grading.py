"""Tests of onlinelib.grading (what a student's notebook runs), the assignments' hidden tests and ``python -m booktools grade``.

The lecturer's engine (``booktools.grading.checks``: the hidden tests against the live reference and the
recording of the public checks) is tested in tests/test_checks.py, which borrows this file's learners.

The last groups run ``python -m booktools grade`` on tests/submissions/halving, a folder of deliberately
broken submissions (an infinite loop, an exception, a syntax error, a missing class, megabytes
of output, a memory hog), a correct one, an untouched stub and a subtly wrong one, and checks
each row of the CSV it writes; and on Assignment 2 (winnow1), whose notebook has a learner graded
automatically and a written proof marked by hand (``QUESTIONS`` beside ``FUNCTION`` and ``KIND``,
issue 36): the answer cell matches the questions, every rubric item has its 0 / 1/2 / 1
descriptors, and the grader grades the code and collects the proof.
"""

import csv
import json
import math
import re
import subprocess
import sys
import time
import tracemalloc
from fractions import Fraction
from pathlib import Path

import jupytext
import numpy as np
import pytest

import onlinelib as ol
from booktools.grading.answers import extract_answers
from booktools.grading.gradebook import answers_path
from booktools.grading.hidden import hidden_parts, load_hidden
from booktools.grading.judge import JUDGE_GRACE
from booktools.grading.questions import questions_from_hidden
from examples import assignment_names, python_calls
from onlinelib import grading

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = ROOT / "book" / "assignments"
LECTURER = ASSIGNMENTS / "lecturer"
# the one-part code assignments (a learner or a function), discovered: a new one is tested too (issue 37)
NAMES = assignment_names(("learner", "function"), one_part=True)
SUBMISSIONS = ROOT / "tests" / "submissions" / "halving"


def hidden(name):
    """An assignment's hidden tests, loaded as the grader loads them."""
    return load_hidden(LECTURER / f"{name}_hidden.py")


# the reference solutions live with the hidden tests, in lecturer material only
reference_halving = hidden("halving").REFERENCE
reference_rwma = hidden("rwma").REFERENCE
reference_drift = hidden("drift_chain").REFERENCE
reference_step = hidden("normalized_step").REFERENCE


# -- a correct learner written from scratch, and a stream ------------------------------------------


class Halving:
    """A correct Halving learner written from scratch (the shape the assignment asks for)."""

    ties = 1

    def __init__(self, table):
        self.table = np.asarray(table, dtype=bool)
        self.alive = np.ones(self.table.shape[0], dtype=bool)

    @property
    def size(self):
        return int(self.alive.sum())

    def predict(self, x):
        positive = int(self.table[self.alive, x].sum())
        if 2 * positive == self.size:
            return self.ties
        return 1 if 2 * positive > self.size else -1

    def update(self, x, y):
        self.alive &= self.table[:, x] == (y == 1)


def reference_sizes(table, X, y):
    """|V| of the reference before round 1 and after every round."""
    learner = reference_halving(table)
    sizes = [learner.size]
    for x, label in zip(X, y, strict=True):
        learner.update(int(x), int(label))
        sizes.append(learner.size)
    return sizes


def line_stream(seed=0, length=30):
    line = ol.thresholds(15)
    X, y = ol.random_stream(line, 6, length, np.random.default_rng(seed))
    return np.array(line.by_instance.T), X, y


# -- check_bounds and the report ---------------------------------------------------------------


def test_check_bounds_names_the_round_and_both_sides():
    table, X, y = line_stream(seed=5)
    streams = [grading.Stream("line", X, y, params={"table": table})]
    bounds = {
        "size >= 1": lambda L, s: (1, L.size),
        "size >= 4": lambda L, s: (4, L.size),
        "size <= 3": lambda L, s: (L.size, 3),
    }
    report = grading.check_bounds(Halving, streams, bounds, points=2)
    assert report.score == 2 and report.max_score == 6
    sizes = reference_sizes(table, X, y)
    t = next(i for i, s in enumerate(sizes) if s < 4)
    assert report.checks[0].passed and report.checks[0].message == "holds after every round of 1 stream(s)"
    assert report.checks[1].message == f"fails on stream 'line' after round {t}: left side 4 > right side {sizes[t]}"
    assert report.checks[2].message == "fails on stream 'line' before round 1: left side 16 > right side 3"
    with pytest.raises(ValueError, match="bounds must be a non-empty mapping"):
        grading.check_bounds(Halving, streams, {})
    with pytest.raises(TypeError, match=r"bounds\['b'\] must be a function"):
        grading.check_bounds(Halving, streams, {"b": 1})


def test_winnow1_lemmas_catch_a_learner_that_zeroes_relevant_weights():
    lecturer = hidden("winnow1")

    class Eliminate(ol.Winnow1):
        """Eliminates every weight on a false positive, relevant or not."""

        def __init__(self, n, theta=None):
            super().__init__(n, theta)

        def _change(self, row, y, score):
            super()._change(row, y, score)
            if y == -1:
                self.weights[:] = 0

    report = grading.check_bounds(Eliminate, lecturer.streams(), lecturer.BOUNDS)
    failed = {c.name: c.message for c in report.failures}
    key = "Lemma (relevant weights): sum of lg w_i over relevant i >= u"
    assert key in failed and re.search(r"after round \d+: left side \d+ > right side -inf", failed[key])


def test_report_add_sum_and_feedback():
    report = grading.GradeReport(title="R")
    report.add("first", True, points=2)
    report.add("second", False, "expected 1, got 2")
    total = report + grading.GradeReport([grading.Check("third", True, 1, 1, "ok")])
    assert (total.score, total.max_score, total.title) == (3, 4, "R")
    assert total.feedback() == "3/4: FAIL second: expected 1, got 2"
    assert "[FAIL] second (0/1): expected 1, got 2" in total.summary()
    assert total.to_dict()["checks"][1]["passed"] is False
    with pytest.raises(TypeError, match=r"checks\[0\] must be a Check"):
        grading.GradeReport([1])


def test_first_difference_paths():
    assert grading.first_difference([1, 2, 3], [1, 2, 3]) is None
    assert grading.first_difference(np.eye(2), np.array([[1.0, 0], [1e-3, 1]]))[:3] == ((1, 0), 0.0, 1e-3)
    assert grading.first_difference({"a": 1}, {"a": 1, "b": 2})[0] == ("b",)
    assert grading.first_difference(0.1 + 0.2, 0.3) is None
    assert grading.first_difference(Fraction(1, 3), 1 / 3) is None
    assert grading.first_difference(Fraction(1, 3), Fraction(1, 3) + Fraction(1, 10**12)) is not None


# -- hostile replies: comparisons linear in the reply's size (issue 23) ------------------------------
#
# The grader's trusted parent compares what a student's code returned with the expected value.
# The work of one comparison is counted, not timed (issue 34): PEAK bounds the memory it may
# allocate and CALLS the Python function calls it may make. Each reply below holds more than 2 MB
# (pointers, a key, floats), so a comparison that copied or converted the reply even once would
# allocate more than 1 MiB, and one that read every entry in Python would make 800,000 calls or
# more, while one that reads only as many entries as the expected value has needs a few KB and a
# few hundred calls. (The old code took 9 s and 3.2 GB on the first reply.)

PEAK = 2**20  # bytes
CALLS = 10_000  # Python function calls, generator steps included


def measured(compare):
    """(what compare() returned, peak bytes allocated while it ran, Python function calls it made)."""
    tracemalloc.start()
    try:
        compare()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    result, calls = python_calls(compare)  # counted apart: the profiler's own allocations are not the comparison's
    return result, peak, calls


def test_a_reply_of_800k_strings_is_compared_entry_by_entry():
    hostile = [""] * 800_000 + ["x" * 1000]  # 2.4 MB on the wire
    # CONTROL: numpy stores a list of strings at the width of its longest string, so the old
    # np.asarray(reply) would have allocated itemsize x length = 3.2 GB.
    assert np.asarray(["", "x" * 1000]).dtype == np.dtype("<U1000")
    assert np.dtype("<U1000").itemsize * len(hostile) >= 3e9
    for expected, message in [
        (np.full(30, 0.375), "first difference at round 1: expected 0.375, got ''"),
        ([""] * 10 + ["x"], "first difference at round 11: expected 'x', got ''"),
        ([""] * 11, "wrong value: expected 11 entries, got 800001; expected ['', '', "),
    ]:
        text, peak, calls = measured(
            lambda expected=expected: grading.mismatch(expected, hostile, 1e-9, 1e-12, rounds=True)
        )
        assert text.startswith(message) and len(text) < 600, text
        assert peak < PEAK and calls < CALLS, (peak, calls)


def test_a_two_megabyte_key_is_neither_copied_nor_printed():
    key = "k" * 2_000_000
    # CONTROL: the old message showed repr(key) in the path: 2 MB of text, more than PEAK.
    assert len(repr(key)) > 2_000_000 > PEAK
    # the second case compares 1000 expected lists of 3 entries one by one (58,000 calls); one that
    # did so once per entry (quadratic) would make millions
    key_calls = 200_000
    shown = "'" + "k" * 40 + "'... (2000000 characters)"
    for expected, actual, message in [
        (
            {"w": [1.0, 2.0]},
            {"w": [1.0, 2.0], key: 1},
            f"first difference at entry [{shown}]: unexpected key; expected nothing, got 1",
        ),
        (
            {key: [[1, 2, 3]] * 1000},
            {key: [[1, 2, 3]] * 999 + [[1, 2, 4]]},
            f"first difference at entry [{shown}, 999, 2]: expected 3, got 4",
        ),
        ({key: 1}, {}, f"first difference at entry [{shown}]: the key is missing; expected 1, got nothing"),
    ]:
        text, peak, calls = measured(
            lambda expected=expected, actual=actual: grading.mismatch(expected, actual, 1e-9, 1e-12)
        )
        assert text == message
        assert peak < PEAK and calls < key_calls, (peak, calls)


def test_big_ints_and_fractions_compare_exactly_and_print_in_a_line():
    big = 10**5000
    # CONTROL: Python refuses str() of an int over 4300 digits (the old message called it), and the
    # old fallback for ints beyond the float range, Fraction(e) == Fraction(a), raised on NaN.
    with pytest.raises(ValueError, match="4300 digits"):
        str(big)
    with pytest.raises(OverflowError):
        float(big)
    with pytest.raises(ValueError):
        Fraction(float("nan"))
    assert grading.first_difference([big, Fraction(big, 3), 2**70], [big, Fraction(big, 3), 2**70]) is None
    assert grading.first_difference(Fraction(big, 3), Fraction(big, 3) + Fraction(1, big)) is not None  # exact
    assert grading.first_difference(np.array([2.0**70]), [2**70]) is None  # beyond int64, within rtol of the float
    assert grading.first_difference(np.array([1, 2]), [1, 2**64 + 2])[0] == (1,)  # not converted: exact
    text = grading.mismatch([big], [big + 1], 1e-9, 1e-12)
    assert text == (
        "first difference at entry [0]: expected 100000000000000...00000000000000000000 (5001 digits), "
        "got 100000000000000...00000000000000000001 (5001 digits)"
    )
    assert (
        grading.mismatch(float("nan"), 10**400, 1e-9, 1e-12)
        == "wrong value: expected nan, got 1000000000000000000000000...0000000000000000000000000 (401 digits)"
    )
    assert grading.mismatch(10**400, float("inf"), 1e-9, 1e-12).endswith("got inf")
    # beyond the float range, an int and the largest float are within rtol only at the edge
    assert grading.first_difference(2**1024, sys.float_info.max) is None  # relative distance 2^-53
    assert grading.first_difference(2**1025, sys.float_info.max) is not None  # relative distance 1/2
    assert "(≈ 3.333333333e+4999)" in grading.mismatch(Fraction(big, 3), 0, 1e-9, 1e-12)


def test_a_million_floats_against_ten_expected_entries():
    as_list, as_array = [0.0] * 10**6, np.zeros(10**6)
    # CONTROL: converting the list (the old np.asarray) takes 8 MB, more than PEAK.
    assert np.dtype(float).itemsize * len(as_list) == 8e6 > PEAK
    for hostile in (as_list, as_array):
        text, peak, calls = measured(lambda hostile=hostile: grading.mismatch(np.arange(10.0), hostile, 1e-9, 1e-12))
        assert text == "first difference at entry [1]: expected 1, got 0"
        assert peak < PEAK and calls < CALLS, (peak, calls)
        text, peak, calls = measured(lambda hostile=hostile: grading.mismatch(np.zeros(10), hostile, 1e-9, 1e-12))
        assert text.startswith("wrong value: expected 10 entries, got 1000000; expected [0., 0., ") and len(text) < 600
        assert peak < PEAK and calls < CALLS, (peak, calls)


@pytest.mark.parametrize(
    "value",
    [
        "x" * 4_000_000,
        {str(i): i for i in range(100_000)},
        np.zeros((2,) * 20),
        np.array(["y" * 10_000] * 100),
        [[[[[[1] * 100_000]]]]],
    ],
)
def test_a_message_shows_a_few_hundred_characters_of_any_value(value):
    text, peak, calls = measured(lambda: grading.mismatch("y", value, 1e-9, 1e-12))
    assert text.startswith("wrong value: expected 'y', got ") and len(text) < 600, text
    assert peak < PEAK and calls < CALLS, (peak, calls)


# -- the references and the assignments ----------------------------------------------------------


@pytest.mark.parametrize("n", range(1, 9))
def test_drift_reference_matches_the_chain(n):
    chain = ol.DirectedDriftChain(n)
    p = [chain.good_flip_probability(d) for d in range(1, n + 1)]
    E = reference_drift(p)
    assert E == [chain.expected_mistakes(d) for d in range(n + 1)]


def test_normalized_step_reference():
    W, S = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    assert np.allclose(reference_step(W, S, 1, 2.0), W)  # sgn(0) = +1: correct
    expected = np.array([1.0, -1.0]) / np.sqrt(2)  # a mistake: W - (2/2) S
    assert np.allclose(reference_step(W, S, -1, 2.0), expected)


def _code(name):
    notebook = jupytext.read(ASSIGNMENTS / f"{name}.md")
    return [c.source for c in notebook.cells if c.cell_type == "code"]


@pytest.mark.parametrize("name", NAMES)
def test_hidden_tests_give_the_reference_full_marks_and_the_stub_zero(name):
    lecturer = hidden(name)
    report = lecturer.grade(lecturer.REFERENCE)
    assert report.passed and report.max_score >= 5, report.summary()
    # The student notebook's stub defines FUNCTION and raises NotImplementedError.
    namespace = {}
    cells = _code(name)
    stub = next(c for c in cells if re.search(rf"^(def|class) {lecturer.FUNCTION}\b", c, re.M))
    assert "raise NotImplementedError" in stub
    for cell in cells[: cells.index(stub) + 1]:
        exec(cell, namespace)
    report = lecturer.grade(namespace[lecturer.FUNCTION])
    assert report.score == 0 and all("not implemented yet" in c.message for c in report.checks), report.summary()


@pytest.mark.parametrize("name", NAMES)
def test_public_checks_give_the_reference_full_marks(name, capsys, monkeypatch):
    lecturer = hidden(name)
    monkeypatch.chdir(ASSIGNMENTS)  # the notebook reads NAME_public.json from the folder it runs in
    namespace = {}
    for cell in _code(name):
        if re.search(rf"^(def|class) {lecturer.FUNCTION}\b", cell, re.M):
            namespace[lecturer.FUNCTION] = lecturer.REFERENCE  # the student's stub, filled in with the reference
        else:
            exec(cell, namespace)
    report = namespace["report"]
    assert report.passed and len(report.checks) >= 2, report.summary()
    assert "All checks passed." in capsys.readouterr().out


@pytest.mark.parametrize("name", assignment_names())
def test_student_notebooks_never_mention_the_hidden_tests(name):
    text = (ASSIGNMENTS / f"{name}.md").read_text(encoding="utf-8")
    assert "lecturer" not in text and "_hidden" not in text
    assert name in (ASSIGNMENTS / "index.md").read_text(encoding="utf-8").replace("-", "_")


# -- python -m booktools grade on the test submissions -----------------------------------------------

TIMEOUT = 20  # seconds per submission: a liveness guard, with room for the honest ones on a loaded machine
# CPU seconds per process: the honest submissions use under 1; the infinite loop ends here, after
# the same work whatever the load (or at the deadline, on a machine too loaded to give it 5 s)
CPU_SECONDS = 5
JOBS = 4


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    out = tmp_path_factory.mktemp("grades") / "scores.csv"
    start = time.monotonic()
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "booktools",
            "grade",
            str(SUBMISSIONS),
            "--assignment",
            "halving",
            "--out",
            str(out),
            "--timeout",
            str(TIMEOUT),
            "--cpu-seconds",
            str(CPU_SECONDS),
            "--memory-mb",
            "1024",
            "--max-output-kb",
            "256",
            "--jobs",
            str(JOBS),
        ],
        capture_output=True,
        text=True,
        timeout=900,  # a liveness guard
        cwd=ROOT,
    )
    elapsed = time.monotonic() - start
    assert result.returncode == 0, result.stderr
    with open(out, newline="", encoding="utf-8") as f:
        rows = {row["submission"]: row for row in csv.DictReader(f)}
    return rows, result.stdout, elapsed


def test_grade_writes_one_row_per_submission(graded):
    rows, stdout, elapsed = graded
    assert sorted(rows) == sorted(p.name for p in SUBMISSIONS.iterdir())
    assert all(
        list(row)[:6] == ["submission", "student", "score", "max_score", "status", "feedback"] for row in rows.values()
    )
    assert all(len(row) == 6 + 5 for row in rows.values()), "then one column per check of the hidden tests"
    assert all(row["max_score"] == "5" for row in rows.values())
    assert "submission" in stdout.splitlines()[0]
    # the infinite loop costs its own deadline, not the run's: the run keeps the deadlines it sets
    # (its test notebook's, then JOBS submissions at a time, each killed JUDGE_GRACE after its
    # deadline), plus a minute for the rest. Not a speed: a loaded machine meets it as well.
    assert elapsed < max(60, TIMEOUT) + math.ceil(len(rows) / JOBS) * (TIMEOUT + 2 * JUDGE_GRACE) + 60, elapsed


@pytest.mark.parametrize(
    "submission, score, status, feedback",
    [
        ("correct.ipynb", "5", "graded", r"^5/5: all checks passed$"),
        # the hand-out as given (issue 37): its zero says so
        (
            "stub.md",
            "0",
            "not attempted",
            r"^not attempted: the notebook is the assignment as handed out \(no code or answer cell changed\); "
            r"0/5: FAIL .*: not implemented yet \(building the learner\)",
        ),
        (
            "infinite_loop.md",
            "0",
            "timeout",
            rf"^(used more than its {CPU_SECONDS} s of CPU time|timed out after {TIMEOUT} s) in code cell 3$",
        ),
        # a correct class, then a line that raises: the class is graded, the error named (issue 35)
        (
            "raises.md",
            "5",
            "graded",
            r"^5/5: all checks passed; errors in the notebook's cells: code cell 3, line 2 raised KeyError: '-1'$",
        ),
        ("syntax_error.md", "0", "syntax_error", r"^syntax error in code cell 2, line 12: expected ':'$"),
        ("missing_function.md", "0", "missing", r"^the notebook does not define HalvingLearner"),
        ("prints_megabytes.md", "0", "output", r"^printed more than 256 KB in code cell 3$"),
        ("memory_hog.md", "0", "memory", r"^ran out of memory \(the limit is 1024 MB\) in code cell 3$"),
    ],
)
def test_grade_rows(graded, submission, score, status, feedback):
    row = graded[0][submission]
    assert (row["score"], row["status"]) == (score, status), row
    assert re.search(feedback, row["feedback"]), row["feedback"]


def test_grade_subtly_wrong_names_the_first_differing_round(graded):
    """subtly_wrong.md predicts +1 iff positive >= |V| // 2, which is wrong when |V| is odd."""
    row = graded[0]["subtly_wrong.md"]
    lecturer = hidden("halving")
    failed = 0
    for stream in lecturer.streams():
        reference = reference_halving(stream.params["table"])
        t = None
        for i, (x, label) in enumerate(zip(stream.X, stream.y, strict=True)):
            negative, positive = reference.votes(int(x))
            if (positive >= (negative + positive) // 2) != (2 * positive >= negative + positive):
                t = i + 1
                break
            reference.update(int(x), int(label))
        if t is None:
            assert f"FAIL {stream.name}:" not in row["feedback"]
        else:
            failed += 1
            message = f"FAIL {stream.name}: first difference at round {t} (prediction): expected -1, got +1"
            assert message in row["feedback"], row["feedback"]
    assert 0 < failed < 5
    assert (row["status"], row["score"]) == ("graded", str(5 - failed))
    assert row["feedback"].startswith(f"{5 - failed}/5: FAIL ")


def test_grade_rejects_bad_arguments(tmp_path):
    tool = [sys.executable, "-m", "booktools", "grade"]

    def run(*args):
        return subprocess.run(tool + list(args), capture_output=True, text=True, timeout=120, cwd=ROOT)

    result = run(str(SUBMISSIONS), "--assignment", "nonesuch", "--out", str(tmp_path / "s.csv"))
    assert result.returncode != 0 and "no hidden tests for assignment 'nonesuch'" in result.stderr
    result = run(str(tmp_path / "missing"), "--assignment", "halving", "--out", str(tmp_path / "s.csv"))
    assert result.returncode != 0 and "is not a folder" in result.stderr
    result = run(str(SUBMISSIONS), "--assignment", "halving", "--out", str(tmp_path / "s.csv"), "--timeout", "0")
    assert result.returncode != 0 and "--timeout must be positive" in result.stderr
    result = run(str(SUBMISSIONS), "--assignment", "halving", "--out", str(tmp_path / "s.csv"), "--cpu-seconds", "0")
    assert result.returncode != 0 and "--cpu-seconds must be at least 1, got 0" in result.stderr


# -- Assignment 2's written part: the proof of chapter 2's lemmas (issue 36) ----------------------------

WINNOW1_LABELS = ("lem-w1-weight-budget", "lem-w1-largest-weight", "lem-w1-relevant-weights", "thm-w1-winnow1")

# Written from the notebook's text, as a student would: the stub filled in, and a short proof.
WINNOW1_CODE = """class Winnow1Learner:
    def __init__(self, n, theta=None):
        self.weights = np.ones(n)
        self.theta = n / 2 if theta is None else theta
        self.promotions = 0
        self.eliminations = 0

    def predict(self, x):
        return 1 if float(np.dot(self.weights, x)) > self.theta else -1

    def update(self, x, y):
        guess = self.predict(x)
        on = np.asarray(x) == 1
        if guess == -1 and y == 1:
            self.weights[on] *= 2
            self.promotions += 1
        elif guess == 1 and y == -1:
            self.weights[on] = 0.0
            self.eliminations += 1"""
WINNOW1_PROOF = r"""A round without a mistake changes nothing. A promotion comes after the answer $-1$, so
$w \cdot x \le \Theta$, and doubling the weights that are on adds $w \cdot x \le \Theta$ to $W$; an
elimination comes after $+1$, so $w \cdot x > \Theta$ is removed. From $W_0 = n$ and weights that never
turn negative, $0 \le W_t \le n + (u_t - v_t)\Theta$, so $v \le n/\Theta + u$. A doubled $w_i$ was at most
$w \cdot x \le \Theta$, hence $w_i \le \max(1, 2\Theta)$. Negative examples have every relevant variable
off, so relevant weights are never zeroed; positive ones have one on, so every promotion doubles one:
some relevant $\lg w_i \ge u/k$, and with $\Theta \ge 1/2$, $u \le k(\lg\Theta + 1)$."""


def _winnow1_notebook(code=None, proof=None) -> str:
    """The winnow1 notebook as MyST text, its stub replaced by ``code`` and its answer cell by ``proof``."""
    notebook = jupytext.read(ASSIGNMENTS / "winnow1.md")
    for cell in notebook.cells:
        if code is not None and cell.cell_type == "code" and cell.source.startswith("class Winnow1Learner"):
            cell.source = code
        elif proof is not None and cell.metadata.get("question") == "winnow1_lemmas":
            cell.source = proof
    return jupytext.writes(notebook, fmt="md:myst")


def test_winnow1_answer_cell_matches_its_questions(tmp_path):
    lecturer = hidden("winnow1")
    assert hidden_parts(lecturer) == {"Winnow1Learner": "learner"} and not hasattr(lecturer, "PARTS")
    (question,) = questions_from_hidden(lecturer.QUESTIONS)
    assert question.id == "winnow1_lemmas" and question.points == 4 and len(question.model) > 500
    assert [item.id for item in question.items] == [
        "weight_budget",
        "largest_weight",
        "relevant_weights",
        "mistake_bound",
    ]
    for item in question.items:
        assert item.has_descriptors and item.levels == (0, Fraction(1, 2), 1), item.id
        assert all(len(text) > 80 for text in (item.full, item.half, item.zero)), item.id
        assert len(item.errors) >= 3 and all(len(error) > 60 for error in item.errors), item.id
    notebook = jupytext.read(ASSIGNMENTS / "winnow1.md")
    cells = [c for c in notebook.cells if "answer" in c.metadata.get("tags", [])]
    assert [(c.cell_type, c.metadata["question"]) for c in cells] == [("markdown", question.id)]
    assert "Write your proof here" in cells[0].source and notebook.cells[-1] is cells[0]
    answers, problems = extract_answers(ASSIGNMENTS / "winnow1.md", [question])
    assert not problems and set(answers) == {question.id}, (answers, problems)
    # the question names the chapter's lemmas and theorem by the labels chapter 2 gives them
    text = (ASSIGNMENTS / "winnow1.md").read_text(encoding="utf-8")
    chapter = (ROOT / "book" / "winnow1.md").read_text(encoding="utf-8")
    for label in WINNOW1_LABELS:
        assert f"{{prf:ref}}`{label}`" in text and f":label: {label}" in chapter, label
    # the answer cell's placeholder is no answer, and a filled one is read whole
    filled = tmp_path / "filled.md"
    filled.write_text(_winnow1_notebook(proof=WINNOW1_PROOF), encoding="utf-8")
    answers, problems = extract_answers(filled, [question])
    assert not problems and answers == {question.id: WINNOW1_PROOF}, (answers, problems)


def test_the_honest_winnow1_code_of_these_tests_gets_full_marks_and_the_tie_slip_partial_credit():
    lecturer = hidden("winnow1")
    namespace = {"np": np}
    exec(WINNOW1_CODE, namespace)
    report = lecturer.grade(namespace["Winnow1Learner"])
    assert report.passed and report.max_score == 14, report.summary()
    exec(WINNOW1_CODE.replace(") > self.theta", ") >= self.theta"), namespace)
    assert lecturer.grade(namespace["Winnow1Learner"]).score == 8  # three streams have scores equal to theta


@pytest.fixture(scope="module")
def winnow1_graded(tmp_path_factory):
    """``booktools grade --assignment winnow1`` on a correct notebook with a proof, one with the tie
    slip (w.x >= theta) and the same proof, and the untouched notebook."""
    folder = tmp_path_factory.mktemp("winnow1") / "submissions"
    folder.mkdir()
    (folder / "correct.md").write_text(_winnow1_notebook(WINNOW1_CODE, WINNOW1_PROOF), encoding="utf-8")
    wrong = WINNOW1_CODE.replace(") > self.theta", ") >= self.theta")
    (folder / "ties_up.md").write_text(_winnow1_notebook(wrong, WINNOW1_PROOF), encoding="utf-8")
    (folder / "untouched.md").write_text((ASSIGNMENTS / "winnow1.md").read_text(encoding="utf-8"), encoding="utf-8")
    out = folder.parent / "scores.csv"
    command = [sys.executable, "-m", "booktools", "grade", str(folder), "--assignment", "winnow1", "--out", str(out)]
    result = subprocess.run(
        [*command, "--jobs", "2", "--timeout", str(10 * TIMEOUT)], capture_output=True, text=True, timeout=900, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr[-3000:]
    with open(out, newline="", encoding="utf-8") as f:
        rows = {row["submission"]: row for row in csv.DictReader(f)}
    return rows, json.loads(answers_path(out).read_text(encoding="utf-8")), out


def test_the_grader_grades_winnow1s_code_and_collects_its_proof(winnow1_graded):
    rows, answers, out = winnow1_graded
    correct, wrong, untouched = rows["correct.md"], rows["ties_up.md"], rows["untouched.md"]
    assert (correct["status"], correct["score"], correct["max_score"]) == ("graded", "14", "14"), correct
    assert (wrong["status"], wrong["score"]) == ("graded", "8"), wrong
    assert "scores equal to theta" in wrong["feedback"] and "no score equal to theta" not in wrong["feedback"]
    assert (untouched["status"], untouched["score"]) == ("not attempted", "0"), untouched  # issue 37
    # ... in the feedback file and the gradebook too, whose status says so rather than "to mark"
    assert "**Status:** not attempted" in (out.with_name("scores_feedback") / "untouched.md").read_text(
        encoding="utf-8"
    )
    with out.with_name("scores_gradebook.csv").open(newline="", encoding="utf-8") as handle:
        book = {row["student"]: row for row in csv.DictReader(handle)}
    assert (book["untouched"]["automatic"], book["untouched"]["status"]) == ("0", "not attempted"), book
    assert answers["correct.md"] == answers["ties_up.md"] == {"winnow1_lemmas": WINNOW1_PROOF}
    assert not answers.get("untouched.md"), answers  # the placeholder is no answer


# -- read-only arguments (assignment normalized_step: "without changing W") -----------------------


def test_unchanged_arguments_names_the_argument_a_call_changed():
    def in_place(W, S, eta=1.0):
        W += eta * S
        return W

    def copy_first(W, S, eta=1.0):
        return W + eta * S

    W, S = np.array([1.0, np.nan]), np.array([0.5, 0.5])
    assert np.array_equal(grading.unchanged_arguments(copy_first)(W, S), W + S, equal_nan=True)  # NaN is unchanged
    with pytest.raises(ValueError, match="changed its argument W in place"):
        grading.unchanged_arguments(in_place)(np.array([1.0, 2.0]), S)
    with pytest.raises(ValueError, match="changed its argument S in place"):
        grading.unchanged_arguments(lambda W, S: S.fill(0))(W, np.array([1.0]))
    # the control: without the wrapper the change goes unseen, and the value is right
    assert np.array_equal(in_place(np.array([1.0, 2.0]), S), [1.5, 2.5])


def test_unchanged_arguments_refuses_what_cannot_be_called():
    with pytest.raises(TypeError, match="fn must be callable"):
        grading.unchanged_arguments(3)
