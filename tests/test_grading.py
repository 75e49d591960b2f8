"""Tests of onlinelib.grading, the assignments' hidden tests and ``python -m booktools grade``.

The last group runs ``python -m booktools grade`` on tests/submissions/halving, a folder of deliberately
broken submissions (an infinite loop, an exception, a syntax error, a missing class, megabytes
of output, a memory hog), a correct one, an untouched stub and a subtly wrong one, and checks
each row of the CSV it writes.
"""
import csv
import re
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import jupytext
import numpy as np
import pytest

import onlinelib as ol
from booktools import grade as grade_tool
from booktools import grade_worker
from onlinelib import grading

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = ROOT / "book" / "assignments"
LECTURER = ASSIGNMENTS / "lecturer"
NAMES = ["halving", "winnow1", "rwma", "kernel_perceptron", "drift_chain", "normalized_step"]
SUBMISSIONS = ROOT / "tests" / "submissions" / "halving"


def hidden(name):
    """An assignment's hidden tests, loaded as the grader loads them."""
    return grade_tool.load_hidden(LECTURER / f"{name}_hidden.py")


# the reference solutions live with the hidden tests, in lecturer material only
reference_halving = hidden("halving").REFERENCE
reference_rwma = hidden("rwma").REFERENCE
reference_drift = hidden("drift_chain").REFERENCE
reference_step = hidden("normalized_step").REFERENCE


# -- a correct and a subtly wrong learner and function ----------------------------------------


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


class HalvingTiesDown(Halving):
    ties = -1


def first_tie_round(table, X, y):
    """The first round in which the reference's version space splits exactly in half on x_t."""
    learner = reference_halving(table)
    for t, (x, label) in enumerate(zip(X, y)):
        negative, positive = learner.votes(int(x))
        if negative == positive:
            return t + 1
        learner.update(int(x), int(label))
    return None


def rwma(P, y, eta):
    P, y = np.asarray(P), np.asarray(y)
    wrong = P != y[:, None]
    before = np.cumsum(wrong, axis=0) - wrong
    w = (1 - eta) ** (before - before.min(axis=1, keepdims=True))
    return (w * wrong).sum(axis=1) / w.sum(axis=1)


def line_stream(seed=0, length=30):
    line = ol.thresholds(15)
    X, y = ol.random_stream(line, 6, length, np.random.default_rng(seed))
    return np.array(line.by_instance.T), X, y


# -- compare_functions ------------------------------------------------------------------------


def test_compare_functions_reports_first_differing_round_and_both_values():
    P, y = ol.iid_experts(30, [0.8, 0.6, 0.4], np.random.default_rng(1))
    expected = reference_rwma(P, y, 0.5)

    def wrong_from_round_7(P, y, eta):
        F = rwma(P, y, eta)
        F[6:] += 0.125
        return F

    report = grading.compare_functions(wrong_from_round_7, reference_rwma,
                                       [grading.Case("iid", (P, y, 0.5))], rounds=True)
    (check,) = report.checks
    assert not check.passed and check.points == 0 and check.max_points == 1
    assert "first difference at round 7" in check.message
    assert f"expected {expected[6]:.12g}, got {expected[6] + 0.125:.12g}" in check.message
    assert report.score == 0 and report.max_score == 1


def test_compare_functions_passes_a_correct_function_and_scores_points():
    P, y = ol.iid_experts(40, [0.8, 0.6, 0.4], np.random.default_rng(2))
    cases = [grading.Case("a", (P, y, 0.5), points=2), ("b", (P, y, 0.1)), ("c", (P, y), {"eta": 1.0 - 1e-9})]
    report = grading.compare_functions(rwma, reference_rwma, cases, rounds=True, title="T")
    assert report.passed and report.score == report.max_score == 4
    assert report.summary().startswith("T: 4/4 points") and "All checks passed." in report.summary()
    assert report.feedback() == "4/4: all checks passed"


def test_compare_functions_entries_fractions_lengths_and_none():
    ref = reference_drift
    p = [Fraction(1, 2), Fraction(1, 3), Fraction(1)]
    E = ref(p)

    def off(p):
        out = ref(p)
        out[2] += Fraction(1, 7)
        return out

    cases = [grading.Case("p", (p,))]
    msg = grading.compare_functions(off, ref, cases).checks[0].message
    assert "first difference at entry [2]" in msg and f"expected {E[2]}" in msg and f"got {E[2] + Fraction(1, 7)}" in msg
    assert grading.compare_functions(lambda p: [float(v) for v in ref(p)], ref, cases).passed  # floats within 1e-9
    msg = grading.compare_functions(lambda p: ref(p)[:-1], ref, cases).checks[0].message
    assert f"expected {len(E)} entries, got {len(E) - 1}" in msg
    msg = grading.compare_functions(lambda p: None, ref, cases).checks[0].message
    assert "returned None" in msg


def test_compare_functions_catches_the_students_exceptions():
    cases = [grading.Case("one", (1,)), grading.Case("two", (2,))]

    def stub(x):
        raise NotImplementedError

    report = grading.compare_functions(stub, lambda x: x, cases)
    assert [c.message for c in report.checks] == ["not implemented yet"] * 2
    report = grading.compare_functions(lambda x: 1 / (x - 1), lambda x: x, cases)
    assert report.checks[0].message == "raised ZeroDivisionError: division by zero"
    assert not report.checks[1].passed and "expected 2, got 1" in report.checks[1].message


def test_compare_functions_gives_each_function_its_own_copy():
    def mutate(a):
        a[:] = 0
        return a.sum()

    report = grading.compare_functions(mutate, lambda a: a.sum(), [("ones", (np.ones(3),))])
    assert not report.passed and "expected 3, got 0" in report.checks[0].message


@pytest.mark.parametrize(
    "call, error, pattern",
    [
        (lambda: grading.compare_functions(3, abs, [("a", (1,))]), TypeError, "student_fn must be callable"),
        (lambda: grading.compare_functions(abs, None, [("a", (1,))]), TypeError, "reference_fn must be callable"),
        (lambda: grading.compare_functions(abs, abs, []), ValueError, "cases must hold at least one"),
        (lambda: grading.compare_functions(abs, abs, "abc"), TypeError, "cases must be a list"),
        (lambda: grading.compare_functions(abs, abs, [("a", (1,)), 5]), TypeError, r"cases\[1\] must be a Case"),
        (lambda: grading.compare_functions(abs, abs, [("a", 1)]), TypeError, r"cases\[0\].args must be a tuple"),
        (lambda: grading.compare_functions(abs, abs, [grading.Case("a", (1,), points=-1)]), ValueError, r"cases\[0\].points"),
        (lambda: grading.compare_functions(abs, abs, [("a", (1,))], rtol=-1), ValueError, "rtol"),
        (lambda: grading.compare_functions(abs, abs, [("a", ("x",))]), ValueError, r"reference_fn failed on cases\[0\] \('a'\)"),
    ],
)
def test_compare_functions_bad_input(call, error, pattern):
    with pytest.raises(error, match=pattern):
        call()


# -- compare_learners --------------------------------------------------------------------------


def test_compare_learners_reports_the_first_differing_round():
    table, X, y = line_stream(seed=0, length=40)
    t = first_tie_round(table, X, y)
    assert t is not None
    report = grading.compare_learners(HalvingTiesDown, reference_halving,
                                      [grading.Stream("line", X, y, params={"table": table})])
    assert report.checks[0].message == f"first difference at round {t} (prediction): expected +1, got -1"
    report = grading.compare_learners(Halving, reference_halving, [("line", X, y, {"table": table})],
                                      observe={"|V|": lambda L: L.size})
    assert report.passed and "all 40 rounds (predictions and |V|)" in report.checks[0].message


def reference_sizes(table, X, y):
    """|V| of the reference before round 1 and after every round."""
    learner = reference_halving(table)
    sizes = [learner.size]
    for x, label in zip(X, y):
        learner.update(int(x), int(label))
        sizes.append(learner.size)
    return sizes


def test_compare_learners_reports_observables_bad_predictions_and_exceptions():
    table, X, y = line_stream(seed=3)

    class WrongSize(Halving):
        @property
        def size(self):
            return int(self.alive.sum()) + int(self.alive.sum() < len(self.alive))

    stream = [grading.Stream("line", X, y, params={"table": table})]
    observe = {"|V|": lambda L: L.size}
    msg = grading.compare_learners(WrongSize, reference_halving, stream, observe=observe).checks[0].message
    sizes = reference_sizes(table, X, y)
    t = next(i for i, s in enumerate(sizes) if s < 16)
    assert msg == f"first difference after round {t}, |V| differs: wrong value: expected {sizes[t]}, got {sizes[t] + 1}"

    class Zero(Halving):
        def predict(self, x):
            return 0

    msg = grading.compare_learners(Zero, reference_halving, stream).checks[0].message
    assert msg == "round 1: predict must return -1 or +1, returned 0"

    class Crash(Halving):
        def update(self, x, y):
            raise IndexError("boom")

    msg = grading.compare_learners(Crash, reference_halving, stream).checks[0].message
    assert msg == "round 1: update raised IndexError: boom"

    class Stub:
        def __init__(self, table):
            raise NotImplementedError

    msg = grading.compare_learners(Stub, reference_halving, stream).checks[0].message
    assert msg == "not implemented yet (building the learner)"


@pytest.mark.parametrize(
    "call, error, pattern",
    [
        (lambda s: grading.compare_learners(None, Halving, s), TypeError, "student_factory must be callable"),
        (lambda s: grading.compare_learners(Halving, 1, s), TypeError, "reference_factory must be callable"),
        (lambda s: grading.compare_learners(Halving, Halving, []), ValueError, "streams must hold at least one"),
        (lambda s: grading.compare_learners(Halving, Halving, [("a", [1, 2], [1])]), ValueError,
         r"streams\[0\] \('a'\): X and y must have one entry per round"),
        (lambda s: grading.compare_learners(Halving, Halving, [("a", [1, 2], [1, 0])]), ValueError,
         r"streams\[0\] \('a'\): y must hold labels in \{-1, \+1\}"),
        (lambda s: grading.compare_learners(Halving, Halving, [("a", [1], [1], 5)]), TypeError, r"streams\[0\].params"),
        (lambda s: grading.compare_learners(Halving, Halving, s, observe={"w": 3}), TypeError, r"observe\['w'\]"),
        (lambda s: grading.compare_learners(Halving, lambda table: object(), s), TypeError,
         "reference_factory must build a learner"),
    ],
)
def test_compare_learners_bad_input(call, error, pattern):
    table, X, y = line_stream()
    with pytest.raises(error, match=pattern):
        call([grading.Stream("line", X, y, params={"table": table})])


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


@pytest.mark.parametrize("name", NAMES)
def test_student_notebooks_never_mention_the_hidden_tests(name):
    text = (ASSIGNMENTS / f"{name}.md").read_text(encoding="utf-8")
    assert "lecturer" not in text and "_hidden" not in text
    assert name in (ASSIGNMENTS / "index.md").read_text(encoding="utf-8").replace("-", "_")


def test_strip_magics():
    assert grade_worker.strip_magics("%matplotlib inline\nx = 1\n  !ls") == (
        "pass  # IPython magic dropped by the grader\nx = 1\n  pass  # IPython magic dropped by the grader"
    )
    assert grade_worker.strip_magics("%%time\nx = 1") == "\nx = 1"
    assert grade_worker.strip_magics("%%bash\nls") is None


# -- python -m booktools grade on the test submissions -----------------------------------------------

TIMEOUT = 20  # seconds per submission: the infinite loop costs this much, run in parallel with the rest


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    out = tmp_path_factory.mktemp("grades") / "scores.csv"
    start = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "booktools", "grade", str(SUBMISSIONS), "--assignment", "halving",
         "--out", str(out), "--timeout", str(TIMEOUT), "--memory-mb", "1024", "--max-output-kb", "256", "--jobs", "4"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )
    elapsed = time.monotonic() - start
    assert result.returncode == 0, result.stderr
    with open(out, newline="", encoding="utf-8") as f:
        rows = {row["submission"]: row for row in csv.DictReader(f)}
    return rows, result.stdout, elapsed


def test_grade_writes_one_row_per_submission(graded):
    rows, stdout, elapsed = graded
    assert sorted(rows) == sorted(p.name for p in SUBMISSIONS.iterdir())
    assert all(list(row) == ["submission", "score", "max_score", "status", "feedback"] for row in rows.values())
    assert all(row["max_score"] == "5" for row in rows.values())
    assert "submission" in stdout.splitlines()[0]
    assert elapsed < 120


@pytest.mark.parametrize(
    "submission, score, status, feedback",
    [
        ("correct.ipynb", "5", "graded", r"^5/5: all checks passed$"),
        ("stub.md", "0", "graded", r"^0/5: FAIL .*: not implemented yet \(building the learner\)"),
        ("infinite_loop.md", "0", "timeout", rf"^timed out after {TIMEOUT} s in code cell 3$"),
        ("raises.md", "0", "error", r"^code cell 3, line 2 raised KeyError: '-1'$"),
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
        for i, (x, label) in enumerate(zip(stream.X, stream.y)):
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
    run = lambda *args: subprocess.run(tool + list(args), capture_output=True, text=True, timeout=120, cwd=ROOT)
    result = run(str(SUBMISSIONS), "--assignment", "nonesuch", "--out", str(tmp_path / "s.csv"))
    assert result.returncode != 0 and "no hidden tests for assignment 'nonesuch'" in result.stderr
    result = run(str(tmp_path / "missing"), "--assignment", "halving", "--out", str(tmp_path / "s.csv"))
    assert result.returncode != 0 and "is not a folder" in result.stderr
    result = run(str(SUBMISSIONS), "--assignment", "halving", "--out", str(tmp_path / "s.csv"), "--timeout", "0")
    assert result.returncode != 0 and "--timeout must be positive" in result.stderr
