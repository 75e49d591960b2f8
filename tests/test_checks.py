"""Tests of booktools.grading.checks, the lecturer's grading engine: the hidden tests against the live reference.

``compare_functions`` and ``compare_learners`` (the hidden tests of every assignment, chapters 1-8)
and ``record_public_checks`` (``python -m booktools grade --write-public-checks``). They decide each
check with the comparison the students' public checks use (``onlinelib.grading``), so the last
group checks that both sides give the same verdict, and that nothing a student's code returns or
raises escapes a check, while the sandbox's own failure (a BaseException) does.
"""

from fractions import Fraction

import numpy as np
import pytest

import onlinelib as ol
from booktools.grading import checks
from booktools.grading.sandbox import RemoteError, RemoteNotImplementedError, SandboxFailure
from onlinelib import grading
from test_grading import Halving, line_stream, reference_drift, reference_halving, reference_rwma, reference_sizes

# -- a subtly wrong learner and a correct function ------------------------------------------------------


class HalvingTiesDown(Halving):
    """Predicts -1 on a tie, where the reference predicts +1."""

    ties = -1


def first_tie_round(table, X, y):
    """The first round in which the reference's version space splits exactly in half on x_t."""
    learner = reference_halving(table)
    for t, (x, label) in enumerate(zip(X, y, strict=True)):
        negative, positive = learner.votes(int(x))
        if negative == positive:
            return t + 1
        learner.update(int(x), int(label))
    return None


def rwma(P, y, eta):
    """RWMA's expected mistakes, written from scratch (assignment rwma, chapter 5)."""
    P, y = np.asarray(P), np.asarray(y)
    wrong = P != y[:, None]
    before = np.cumsum(wrong, axis=0) - wrong
    w = (1 - eta) ** (before - before.min(axis=1, keepdims=True))
    return (w * wrong).sum(axis=1) / w.sum(axis=1)


# -- compare_functions ------------------------------------------------------------------------


def test_compare_functions_reports_first_differing_round_and_both_values():
    P, y = ol.iid_experts(30, [0.8, 0.6, 0.4], np.random.default_rng(1))
    expected = reference_rwma(P, y, 0.5)

    def wrong_from_round_7(P, y, eta):
        F = rwma(P, y, eta)
        F[6:] += 0.125
        return F

    report = checks.compare_functions(
        wrong_from_round_7, reference_rwma, [checks.Case("iid", (P, y, 0.5))], rounds=True
    )
    (check,) = report.checks
    assert not check.passed and check.points == 0 and check.max_points == 1
    assert "first difference at round 7" in check.message
    assert f"expected {expected[6]:.12g}, got {expected[6] + 0.125:.12g}" in check.message
    assert report.score == 0 and report.max_score == 1


def test_compare_functions_passes_a_correct_function_and_scores_points():
    P, y = ol.iid_experts(40, [0.8, 0.6, 0.4], np.random.default_rng(2))
    cases = [checks.Case("a", (P, y, 0.5), points=2), ("b", (P, y, 0.1)), ("c", (P, y), {"eta": 1.0 - 1e-9})]
    report = checks.compare_functions(rwma, reference_rwma, cases, rounds=True, title="T")
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

    cases = [checks.Case("p", (p,))]
    msg = checks.compare_functions(off, ref, cases).checks[0].message
    assert (
        "first difference at entry [2]" in msg and f"expected {E[2]}" in msg and f"got {E[2] + Fraction(1, 7)}" in msg
    )
    assert checks.compare_functions(lambda p: [float(v) for v in ref(p)], ref, cases).passed  # floats within 1e-9
    msg = checks.compare_functions(lambda p: ref(p)[:-1], ref, cases).checks[0].message
    assert f"expected {len(E)} entries, got {len(E) - 1}" in msg
    msg = checks.compare_functions(lambda p: None, ref, cases).checks[0].message
    assert "returned None" in msg


def test_compare_functions_catches_the_students_exceptions():
    cases = [checks.Case("one", (1,)), checks.Case("two", (2,))]

    def stub(x):
        raise NotImplementedError

    report = checks.compare_functions(stub, lambda x: x, cases)
    assert [c.message for c in report.checks] == ["not implemented yet"] * 2
    report = checks.compare_functions(lambda x: 1 / (x - 1), lambda x: x, cases)
    assert report.checks[0].message == "raised ZeroDivisionError: division by zero"
    assert not report.checks[1].passed and "expected 2, got 1" in report.checks[1].message


def test_compare_functions_gives_each_function_its_own_copy():
    def mutate(a):
        a[:] = 0
        return a.sum()

    report = checks.compare_functions(mutate, lambda a: a.sum(), [("ones", (np.ones(3),))])
    assert not report.passed and "expected 3, got 0" in report.checks[0].message


@pytest.mark.parametrize(
    "call, error, pattern",
    [
        (lambda: checks.compare_functions(3, abs, [("a", (1,))]), TypeError, "student_fn must be callable"),
        (lambda: checks.compare_functions(abs, None, [("a", (1,))]), TypeError, "reference_fn must be callable"),
        (lambda: checks.compare_functions(abs, abs, []), ValueError, "cases must hold at least one"),
        (lambda: checks.compare_functions(abs, abs, "abc"), TypeError, "cases must be a list"),
        (lambda: checks.compare_functions(abs, abs, [("a", (1,)), 5]), TypeError, r"cases\[1\] must be a Case"),
        (lambda: checks.compare_functions(abs, abs, [("a", 1)]), TypeError, r"cases\[0\].args must be a tuple"),
        (
            lambda: checks.compare_functions(abs, abs, [checks.Case("a", (1,), points=-1)]),
            ValueError,
            r"cases\[0\].points",
        ),
        (lambda: checks.compare_functions(abs, abs, [("a", (1,))], rtol=-1), ValueError, "rtol"),
        (
            lambda: checks.compare_functions(abs, abs, [("a", ("x",))]),
            ValueError,
            r"reference_fn failed on cases\[0\] \('a'\)",
        ),
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
    report = checks.compare_learners(
        HalvingTiesDown, reference_halving, [checks.Stream("line", X, y, params={"table": table})]
    )
    assert report.checks[0].message == f"first difference at round {t} (prediction): expected +1, got -1"
    report = checks.compare_learners(
        Halving, reference_halving, [("line", X, y, {"table": table})], observe={"|V|": lambda L: L.size}
    )
    assert report.passed and "all 40 rounds (predictions and |V|)" in report.checks[0].message


def test_compare_learners_reports_observables_bad_predictions_and_exceptions():
    table, X, y = line_stream(seed=3)

    class WrongSize(Halving):
        @property
        def size(self):
            return int(self.alive.sum()) + int(self.alive.sum() < len(self.alive))

    stream = [checks.Stream("line", X, y, params={"table": table})]
    observe = {"|V|": lambda L: L.size}
    msg = checks.compare_learners(WrongSize, reference_halving, stream, observe=observe).checks[0].message
    sizes = reference_sizes(table, X, y)
    t = next(i for i, s in enumerate(sizes) if s < 16)
    assert msg == f"first difference after round {t}, |V| differs: wrong value: expected {sizes[t]}, got {sizes[t] + 1}"

    class Zero(Halving):
        def predict(self, x):
            return 0

    msg = checks.compare_learners(Zero, reference_halving, stream).checks[0].message
    assert msg == "round 1: predict must return -1 or +1, returned 0"

    class Crash(Halving):
        def update(self, x, y):
            raise IndexError("boom")

    msg = checks.compare_learners(Crash, reference_halving, stream).checks[0].message
    assert msg == "round 1: update raised IndexError: boom"

    class Stub:
        def __init__(self, table):
            raise NotImplementedError

    msg = checks.compare_learners(Stub, reference_halving, stream).checks[0].message
    assert msg == "not implemented yet (building the learner)"


@pytest.mark.parametrize(
    "call, error, pattern",
    [
        (lambda s: checks.compare_learners(None, Halving, s), TypeError, "student_factory must be callable"),
        (lambda s: checks.compare_learners(Halving, 1, s), TypeError, "reference_factory must be callable"),
        (lambda s: checks.compare_learners(Halving, Halving, []), ValueError, "streams must hold at least one"),
        (
            lambda s: checks.compare_learners(Halving, Halving, [("a", [1, 2], [1])]),
            ValueError,
            r"streams\[0\] \('a'\): X and y must have one entry per round",
        ),
        (
            lambda s: checks.compare_learners(Halving, Halving, [("a", [1, 2], [1, 0])]),
            ValueError,
            r"streams\[0\] \('a'\): y must hold labels in \{-1, \+1\}",
        ),
        (lambda s: checks.compare_learners(Halving, Halving, [("a", [1], [1], 5)]), TypeError, r"streams\[0\].params"),
        (lambda s: checks.compare_learners(Halving, Halving, s, observe={"w": 3}), TypeError, r"observe\['w'\]"),
        (
            lambda s: checks.compare_learners(Halving, lambda table: object(), s),
            TypeError,
            "reference_factory must build a learner",
        ),
    ],
)
def test_compare_learners_bad_input(call, error, pattern):
    table, X, y = line_stream()
    with pytest.raises(error, match=pattern):
        call([checks.Stream("line", X, y, params={"table": table})])


# -- record_public_checks, and one comparison for the public checks and the hidden tests ------------


def test_checks_holds_what_the_hidden_tests_use_and_the_library_none_of_the_engine():
    for name in [
        "Stream",
        "Case",
        "GradeReport",
        "compare_learners",
        "compare_functions",
        "check_bounds",
        "record_public_checks",
    ]:
        assert name in checks.__all__ and hasattr(checks, name), name
    assert (checks.Stream, checks.Case, checks.GradeReport, checks.check_bounds) == (
        grading.Stream,
        grading.Case,
        grading.GradeReport,
        grading.check_bounds,
    )
    for name in ["compare_learners", "compare_functions", "record_public_checks"]:
        assert not hasattr(grading, name) and name not in grading.__all__, name


def test_public_checks_and_hidden_tests_give_the_same_verdicts():
    """The recorded reference (a student's notebook) and the live one (the grader) decide a check
    with the same comparison, so they give the same message."""
    table, X, y = line_stream(seed=0, length=40)
    t = first_tie_round(table, X, y)
    streams = [checks.Stream("line", X, y, params={"table": table})]
    public = grading.PublicChecks(
        checks.record_public_checks(reference_halving, streams=streams, observe={"|V|": "size"})
    )
    hidden = checks.compare_learners(HalvingTiesDown, reference_halving, streams, observe={"|V|": lambda L: L.size})
    assert public.run(HalvingTiesDown).checks == hidden.checks
    assert hidden.checks[0].message == f"first difference at round {t} (prediction): expected +1, got -1"
    assert public.run(Halving).passed

    P, labels = ol.iid_experts(30, [0.8, 0.6, 0.4], np.random.default_rng(1))
    cases = [checks.Case("iid", (P, labels, 0.5))]

    def wrong_from_round_4(P, y, eta):
        F = rwma(P, y, eta)
        F[3:] += 0.125
        return F

    public = grading.PublicChecks(checks.record_public_checks(reference_rwma, cases=cases, rounds=True))
    hidden = checks.compare_functions(wrong_from_round_4, reference_rwma, cases, rounds=True)
    assert public.run(wrong_from_round_4).checks == hidden.checks
    assert "first difference at round 4" in hidden.checks[0].message


def test_record_public_checks_bad_input():
    with pytest.raises(ValueError, match="exactly one of streams"):
        checks.record_public_checks(reference_halving)
    with pytest.raises(TypeError, match=r"observe\['s'\] must be an attribute name"):
        checks.record_public_checks(
            reference_halving, streams=[("s", [0], [1], {"table": [[1]]})], observe={"s": "a b"}
        )
    with pytest.raises(TypeError, match="reference must be callable"):
        checks.record_public_checks(None, cases=[("a", (1,))])


# -- nothing a student's code returns or raises escapes a check (issue 23) ---------------------------
#
# The grader records an exception that escapes the hidden tests as its own error (grader-error), not
# as the student's zero; so every value a student returns, however it misbehaves, must end as a
# failed check. The sandbox's own failure (a timeout while reading a reply) is a BaseException and
# must end the grading of that submission instead.


class Hostile:
    """A value whose every operation raises: a student's own class, as the notebook's public checks see it."""

    def __eq__(self, other):
        raise ValueError("no comparing me")

    __hash__ = None

    def __repr__(self):
        raise ValueError("no printing me")

    def __float__(self):
        raise ValueError("no converting me")


class HostileMapping(dict):
    def __contains__(self, key):
        raise KeyError("no looking in me")


class HostileList(list):
    def __getitem__(self, i):
        raise IndexError("no indexing me")

    def __iter__(self):
        raise IndexError("no indexing me")


class HostileReal(float):
    def __float__(self):
        raise TypeError("no float")


@pytest.mark.parametrize(
    "expected, returned, message",
    [
        (1.5, Hostile(), "wrong value: expected 1.5, got <Hostile object>"),
        ([1.0, 2.0], [1.0, Hostile()], "first difference at entry [1]: expected 2, got <Hostile object>"),
        ({"w": 1}, HostileMapping(w=1), "the value could not be compared: raised KeyError: 'no looking in me'"),
        ([1, 2], HostileList([1, 2]), "the value could not be compared: raised IndexError: no indexing me"),
        (
            np.arange(3.0),
            HostileList([0.0, 1.0, 2.0]),
            "the value could not be compared: raised IndexError: no indexing me",
        ),
        (2.0, HostileReal(2.0), "the value could not be compared: raised TypeError: no float"),
        ("abc", np.array(["abc"] * 5), "wrong value: expected 'abc', got array of shape (5,) and dtype <U3 starting"),
    ],
)
def test_a_value_that_cannot_be_compared_is_a_failed_check(expected, returned, message):
    report = checks.compare_functions(lambda: returned, lambda: expected, [("c", ())])
    assert not report.passed and report.checks[0].message.startswith(message), report.checks[0].message


def test_a_learner_that_misbehaves_fails_its_check_and_never_raises():
    table, X, y = line_stream(seed=3)
    stream = [checks.Stream("line", X, y, params={"table": table})]
    observe = {"|V|": lambda L: L.size}

    class NoUpdate(Halving):
        def __getattribute__(self, name):
            if name == "update":
                raise ValueError("hidden")
            return super().__getattribute__(name)

    class Odd(Halving):
        def predict(self, x):
            return Hostile()

    class Vector(Halving):
        def predict(self, x):
            return np.ones(2)

    class OddSize(Halving):
        size = Hostile()

    cases = [
        (NoUpdate, "the learner has no update method"),
        (Odd, "round 1: predict must return -1 or +1, returned <Hostile object>"),
        (Vector, "round 1: predict must return -1 or +1, returned [1., 1.]"),
        (OddSize, "before round 1, |V| differs: wrong value: expected 16, got <Hostile object>"),
    ]
    for learner, message in cases:
        report = checks.compare_learners(learner, reference_halving, stream, observe=observe)
        assert report.checks[0].message == message, learner


def test_the_students_exceptions_fail_the_check_and_the_sandboxs_failure_ends_it():
    """RemoteError (what the student's code raised in the sandbox) is an ordinary Exception: a failed
    check with the type the student raised. SandboxFailure is a BaseException and propagates, from
    the student's call and from reading the value it returned."""
    table, X, y = line_stream(seed=3)
    stream = [checks.Stream("line", X, y, params={"table": table})]

    def raising(exc):
        def fn(*args, **kwargs):
            raise exc

        return fn

    class Remote(Halving):
        predict = staticmethod(raising(RemoteError("ValueError", "negative label")))

    assert (
        checks.compare_learners(Remote, reference_halving, stream).checks[0].message
        == "round 1: predict raised ValueError: negative label"
    )
    assert (
        checks.compare_learners(
            raising(RemoteNotImplementedError("NotImplementedError", "")), reference_halving, stream
        )
        .checks[0]
        .message
        == "not implemented yet (building the learner)"
    )
    assert (
        checks.compare_functions(raising(RemoteError("KeyError", "'-1'")), abs, [("a", (1,))]).checks[0].message
        == "raised KeyError: '-1'"
    )

    timeout = SandboxFailure("timeout", "timed out after 5 s during the hidden tests")

    class Late(Halving):
        predict = staticmethod(raising(timeout))

    class LateValue:
        def __eq__(self, other):
            raise timeout

    with pytest.raises(SandboxFailure):
        checks.compare_learners(Late, reference_halving, stream)
    with pytest.raises(SandboxFailure):
        checks.compare_functions(raising(timeout), abs, [("a", (1,))])
    with pytest.raises(SandboxFailure):
        checks.compare_functions(lambda x: LateValue(), lambda x: "one", [("a", (1,))])
    with pytest.raises(SandboxFailure):
        checks.check_bounds(Late, stream, {"b": lambda L, s: (0, 1)})
