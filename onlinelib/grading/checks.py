"""The checks a notebook's public checks and the grader's hidden tests share, one per case or stream.

* ``check_call``: a function assignment (rwma, chapter 5; drift_chain, chapter 7;
  normalized_step, chapter 8) called on one case, its result compared with the reference's;
* ``check_certificate``: a certificate assignment (issue 27), the object the student's function
  returns verified exactly by ``onlinelib.certificates.verify_certificate``;
* ``check_learner``: a learner assignment (halving, chapter 1; winnow1, chapter 2;
  kernel_perceptron, chapter 6) played round by round against the reference on one stream.

In a student's notebook the reference is the recorded one (``public.py``); in the grader, the
live one. Nothing the student's code raises or returns escapes a check: it becomes a failed
``Check`` whose message says what went wrong.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

import numpy as np

from .compare import _is_number, _scalar, mismatch
from .inputs import Case, Certificate, Stream
from .results import Check, _clip, _describe_exception, _fail, _pass
from .show import _fmt


def check_call(student_fn: Callable, case: Case, expected: Any, *, rtol: float, atol: float, rounds: bool) -> Check:
    """Call the student's function on one case and compare the result with ``expected``.

    One check of a function assignment (rwma, drift_chain, normalized_step), shared by the public
    checks (``expected`` recorded) and the hidden tests (``expected`` from the live reference).
    """
    try:
        actual = student_fn(*copy.deepcopy(tuple(case.args)), **copy.deepcopy(dict(case.kwargs)))
    except Exception as exc:
        return _fail(case.name, case.points, _describe_exception(exc))
    problem = mismatch(expected, actual, rtol, atol, rounds=rounds)
    return _fail(case.name, case.points, problem) if problem else _pass(case.name, case.points, "matches the reference")


def check_certificate(student_fn: Callable, certificate: Certificate) -> Check:
    """Call the student's function and verify the object it returns, exactly (issue 27).

    One check of a certificate assignment, shared by the public checks and the hidden tests:
    both run ``onlinelib.certificates.verify_certificate`` on the result as it crosses the grader's
    sandbox (``plain_data.transported``; in the grader it has crossed already, and crossing again
    changes nothing), so a notebook's public check and the grader agree on every object. Partial credit is exact: ``points`` times
    ``min(1, quality / target)``.
    """
    from ..certificates import verify_certificate
    from ..plain_data import transported

    try:
        obj = student_fn(*copy.deepcopy(tuple(certificate.args)), **copy.deepcopy(dict(certificate.kwargs)))
        # what the grader's sandbox would hand over (issue 36): the same data on both sides
        obj = transported(obj)
    except Exception as exc:
        return _fail(certificate.name, certificate.points, _describe_exception(exc))
    verdict = verify_certificate(certificate.verifier, obj, dict(certificate.params))
    if not verdict.valid:
        return _fail(certificate.name, certificate.points, f"invalid: {verdict.reason}")
    target = verdict.optimum if certificate.target is None else certificate.target
    share = Fraction(1) if target <= 0 else min(Fraction(verdict.quality, target), Fraction(1))
    earned = float(certificate.points * share)
    if share == 1:
        return _pass(certificate.name, certificate.points, f"{verdict.reason}; full points from {target}")
    return Check(
        certificate.name,
        False,
        earned,
        float(certificate.points),
        _clip(f"{verdict.reason}; {verdict.quality} of the {target} that earn every point: {share} of the points"),
    )


def _has_method(obj: Any, name: str) -> bool:
    try:
        return callable(getattr(obj, name, None))
    except Exception:  # a student's __getattr__ that raises
        return False


def _label(v: Any) -> int | None:
    """A prediction as -1 or +1, or None if it is anything else (never raises)."""
    try:
        v = _scalar(v)
        return int(v) if _is_number(v) and not isinstance(v, bool) and v in (-1, 1) else None
    except Exception:
        return None


def _built_learner(factory: Callable, stream: Stream) -> tuple[Any, str | None]:
    """(learner, None) for a fresh learner ``factory(**stream.params)`` with ``predict`` and
    ``update`` methods, else (None, why not). A learner assignment's first step (chapters 1, 2, 6)."""
    try:
        student = factory(**copy.deepcopy(dict(stream.params)))
    except Exception as exc:
        return None, _describe_exception(exc, "building the learner")
    for method in ("predict", "update"):
        if not _has_method(student, method):
            return None, f"the learner has no {method} method"
    return student, None


def _observed_difference(
    observe: Mapping[str, Callable], reference: Any, student: Any, when: str, rtol: float, atol: float
) -> str | None:
    """The message for the first observable (weights, version-space size, ...) of ``student`` that
    differs from the ``reference``'s, or None (a learner assignment, chapters 1, 2, 6).

    A fault in reading the reference raises (the grader's own error); one in reading the
    student's learner is a difference.
    """
    for key, fn in observe.items():
        expected = fn(reference)
        try:
            actual = fn(student)
        except Exception as exc:
            return f"{when}: reading {key} " + _describe_exception(exc)
        problem = mismatch(expected, actual, rtol, atol, prefix=f"{when}, {key} differs")
        if problem:
            return problem
    return None


def _played_round(student: Any, reference: Any, x: Any, label: int, t: int) -> str | None:
    """Play round ``t + 1`` (0-based ``t``) with both learners: predict on ``x``, compare the
    predictions, update both with (x, label). The message of the first fault of the student's
    learner, or None (a learner assignment, chapters 1, 2, 6)."""
    expected = int(reference.predict(x))
    try:
        actual = student.predict(copy.deepcopy(x))
    except Exception as exc:
        return _describe_exception(exc, f"round {t + 1}: predict")
    prediction = _label(actual)
    if prediction is None:
        return f"round {t + 1}: predict must return -1 or +1, returned {_fmt(actual)}"
    if prediction != expected:
        return f"first difference at round {t + 1} (prediction): expected {expected:+d}, got {prediction:+d}"
    reference.update(x, label)
    try:
        student.update(copy.deepcopy(x), label)
    except Exception as exc:
        return _describe_exception(exc, f"round {t + 1}: update")
    return None


def check_learner(
    student_factory: Callable,
    reference: Any,
    stream: Stream,
    X: Any,
    y: np.ndarray,
    *,
    observe: Mapping[str, Callable],
    rtol: float,
    atol: float,
) -> Check:
    """Play the student's learner and the ``reference`` learner round by round on one stream.

    One check of a learner assignment (halving, winnow1, kernel_perceptron), shared by the public
    checks (``reference`` replays recorded outputs) and the hidden tests (the live reference).
    A fresh student learner is built with ``student_factory(**stream.params)``; in round t both
    predict on x_t (the prediction must be -1 or +1 and equal the reference's), both are updated
    with (x_t, y_t), and then every observable is compared, also before round 1. The student's
    learner gets its own copy of every instance.
    """
    name, points = stream.name, stream.points
    student, problem = _built_learner(student_factory, stream)
    if problem:
        return _fail(name, points, problem)
    problem = _observed_difference(observe, reference, student, "before round 1", rtol, atol)
    if problem:
        return _fail(name, points, problem)
    for t in range(len(y)):
        problem = _played_round(student, reference, X[t], int(y[t]), t)
        if problem:
            return _fail(name, points, problem)
        problem = _observed_difference(observe, reference, student, f"after round {t + 1}", rtol, atol)
        if problem:
            return _fail(name, points, "first difference " + problem)
    what = "predictions" + (" and " + ", ".join(observe) if observe else "")
    return _pass(name, points, f"agrees with the reference on all {len(y)} rounds ({what})")
