"""The lecturer's grading engine: the hidden tests against the live reference, and the public checks recorded.

The hidden tests of each assignment (``book/assignments/lecturer/<name>_hidden.py``) import this
module (``from booktools.grading import checks``) and run in the grader's trusted parent, outside the
student's sandbox, under ``python -m booktools grade``:

* ``compare_learners`` plays the student's learner round by round against the reference on
  each stream: assignments ``halving`` (chapter 1, Mistake bounds), ``winnow1`` (chapter 2,
  Winnow1) and ``kernel_perceptron`` (chapter 6, Boolean kernels);
* ``compare_functions`` calls the student's function and the reference on each case:
  assignments ``rwma`` (chapter 5, Experts), ``drift_chain`` (chapter 7, Binary weights) and
  ``normalized_step`` (chapter 8, Learning curves);
* ``record_public_checks`` runs the reference on an assignment's public streams or cases and
  records its outputs as plain data (``python -m booktools grade --write-public-checks`` writes
  them to ``book/assignments/<name>_public.json``).

What a student's notebook runs stays in the library the students install, ``onlinelib.grading``:
the report (``GradeReport``, ``Check``), the inputs (``Stream``, ``Case``), ``check_bounds``, the
public checks, and the one comparison both sides use (one stream played round by round,
``check_learner``; one call compared, ``check_call``; the value diff, ``first_difference``).
This module adds what only the lecturer runs: the live reference, argument checking of the hidden
tests, and the recording. ``Stream``, ``Case``, ``Check``, ``GradeReport`` and ``check_bounds``
are re-exported, so a hidden-tests file needs this module only.

Nothing the student's code raises or returns escapes a check (it becomes a failed check with a
message); a fault of the reference or of the hidden tests' own arguments raises, so the grader
records it as its own error and not as the student's zero.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from onlinelib import plain_data
from onlinelib.grading import (
    PUBLIC_FORMAT,
    Case,
    Certificate,
    Check,
    GradeReport,
    Stream,
    check_bounds,
    check_call,
    check_callable,
    check_certificate,
    check_items,
    check_learner,
    checked_input,
    checked_stream,
    unchanged_arguments,
)
from onlinelib.validation import check_real

__all__ = [
    "Case",
    "Certificate",
    "Check",
    "MissingPart",
    "GradeReport",
    "Stream",
    "check_bounds",
    "compare_functions",
    "compare_learners",
    "verify_certificates",
    "record_public_checks",
]


def _checked_case(item: Any, i: int) -> Case:
    """``cases[i]`` (a Case or a tuple (name, args[, kwargs[, points]])), checked."""
    where = f"cases[{i}]"
    case = checked_input(item, Case, where, "(name, args[, kwargs[, points]])", range(2, 5))
    if not isinstance(case.args, (tuple, list)):
        raise TypeError(f"{where}.args must be a tuple of positional arguments, got {type(case.args).__name__}")
    if not isinstance(case.kwargs, Mapping):
        raise TypeError(f"{where}.kwargs must be a mapping, got {type(case.kwargs).__name__}")
    return case


def _check_observe(observe: Any) -> dict:
    if observe is None:
        return {}
    if not isinstance(observe, Mapping):
        raise TypeError(f"observe must be a mapping of names to functions of the learner, got {type(observe).__name__}")
    for key, fn in observe.items():
        if not callable(fn):
            raise TypeError(f"observe[{key!r}] must be a function of the learner, got {type(fn).__name__}")
    return dict(observe)


def compare_functions(
    student_fn: Callable,
    reference_fn: Callable,
    cases: Sequence[Case | tuple],
    *,
    rtol: float = 1e-9,
    atol: float = 1e-12,
    rounds: bool = False,
    read_only_arguments: bool = False,
    title: str = "",
) -> GradeReport:
    """Call the student's function and the reference on each case and compare the results.

    The hidden tests of the assignments ``rwma`` (chapter 5, Experts), ``drift_chain``
    (chapter 7, Binary weights) and ``normalized_step`` (chapter 8, Learning curves). Each case
    is one check, worth its ``points``, decided by ``onlinelib.grading.check_call``, the same
    comparison as the notebook's public checks.

    Parameters
    ----------
    student_fn, reference_fn : callable
        Called as ``fn(*case.args, **case.kwargs)``, each on its own deep copy
        of the arguments (so a function that changes its input cannot affect
        the other).
    cases : sequence of Case or tuple (name, args[, kwargs[, points]])
    rtol, atol : float >= 0
        Tolerances for numbers that are not both exact (see ``first_difference``).
    rounds : bool
        The results are indexed by rounds (entry t is round t + 1): the
        message names "round t" instead of "entry [t - 1]".
    read_only_arguments : bool
        The assignment asks the function to leave its arguments as they were: a call that
        changes one fails its check (``onlinelib.grading.unchanged_arguments``; the grader's
        worker applies the same wrapper where a submission's arguments live).
    title : str
        The report's title.

    Returns
    -------
    GradeReport
        One check per case. A failed check's message gives the first differing
        entry (or round), the expected and the actual value; or the exception
        the student's function raised ("not implemented yet" for
        ``NotImplementedError``).

    Raises
    ------
    TypeError
        If a function is not callable or a case is malformed (the message names
        ``cases[i]``).
    ValueError
        If ``cases`` is empty, a tolerance or ``points`` is negative, or the
        reference itself fails on a case (the case is not valid input).
    """
    check_callable(student_fn, "student_fn")
    check_callable(reference_fn, "reference_fn")
    cases = [_checked_case(item, i) for i, item in enumerate(check_items(cases, "cases"))]
    rtol = check_real(rtol, "rtol", 0.0, strict=False)
    atol = check_real(atol, "atol", 0.0, strict=False)
    if read_only_arguments:
        student_fn = unchanged_arguments(student_fn)
    report = GradeReport(title=title)
    for i, case in enumerate(cases):
        try:
            expected = reference_fn(*copy.deepcopy(tuple(case.args)), **copy.deepcopy(dict(case.kwargs)))
        except Exception as exc:
            raise ValueError(f"reference_fn failed on cases[{i}] ({case.name!r}): {type(exc).__name__}: {exc}") from exc
        report.checks.append(check_call(student_fn, case, expected, rtol=rtol, atol=atol, rounds=rounds))
    return report


class MissingPart:
    """A part of an assignment the notebook does not define: every check of it fails with the reason.

    The grader passes one to the hidden tests' ``grade`` in place of a missing function or class
    of an assignment with several parts (PARTS), so the other parts are still graded.
    """

    def __init__(self, name: str, reason: str):
        self.name, self.reason = name, reason

    def __call__(self, *args, **kwargs):
        raise NameError(self.reason or f"the notebook does not define {self.name}")

    def __repr__(self) -> str:
        return f"MissingPart({self.name!r})"


def _checked_certificate(item: Any, i: int) -> Certificate:
    where = f"certificates[{i}]"
    if not isinstance(item, Certificate):
        raise TypeError(f"{where} must be a Certificate, got {type(item).__name__}")
    from onlinelib.certificates import VERIFIERS

    if item.verifier not in VERIFIERS:
        raise ValueError(f"{where}.verifier must be one of {sorted(VERIFIERS)}, got {item.verifier!r}")
    if not isinstance(item.params, Mapping):
        raise TypeError(f"{where}.params must be a mapping, got {type(item.params).__name__}")
    if item.target is not None and (
        isinstance(item.target, bool) or not isinstance(item.target, int) or item.target < 0
    ):
        raise ValueError(f"{where}.target must be an int >= 0 or None, got {item.target!r}")
    check_real(item.points, f"{where}.points", 0.0, strict=False)
    return item


def _dimension(certificate: Certificate) -> int:
    """Ldim or VC of a mistake-tree or shattered-set certificate's class."""
    from onlinelib import ConceptClass, littlestone_dimension, vc_dimension

    table = certificate.params["table"]
    cls = table if isinstance(table, ConceptClass) else ConceptClass(table)
    return littlestone_dimension(cls) if certificate.verifier == "mistake_tree" else vc_dimension(cls)


def verify_certificates(student_fn: Callable, certificates: Sequence[Certificate], *, title: str = "") -> GradeReport:
    """Call the student's function for each certificate and verify what it returns, exactly.

    The hidden tests of the certificate assignments (issue 27): each certificate is one check,
    decided by ``onlinelib.grading.check_certificate``, as in the notebook's public checks. The
    verifier runs here, in the grader's judge, on the plain data the sandbox returned; a valid
    object earns ``points * min(1, quality / target)``, an invalid one 0 with the condition that
    failed and where.

    Raises
    ------
    TypeError, ValueError
        If a certificate is malformed or names an unknown verifier (the lecturer's error; the
        grader records it as its own, never as the student's zero).
    """
    check_callable(student_fn, "student_fn")
    certificates = [_checked_certificate(item, i) for i, item in enumerate(check_items(certificates, "certificates"))]
    return GradeReport((check_certificate(student_fn, c) for c in certificates), title=title)


def compare_learners(
    student_factory: Callable,
    reference_factory: Callable,
    streams: Sequence[Stream | tuple],
    *,
    observe: Mapping[str, Callable[[Any], Any]] | None = None,
    rtol: float = 1e-9,
    atol: float = 1e-12,
    title: str = "",
) -> GradeReport:
    """Play the student's learner and the reference round by round on each stream.

    The hidden tests of the assignments ``halving`` (chapter 1, Mistake bounds), ``winnow1``
    (chapter 2, Winnow1) and ``kernel_perceptron`` (chapter 6, Boolean kernels). Each stream is
    one check, decided by ``onlinelib.grading.check_learner``, the same round-by-round comparison
    as the notebook's public checks: a fresh learner of each kind is built with
    ``factory(**stream.params)``; in round t both predict on x_t (the prediction must be -1 or
    +1 and equal the reference's), both are updated with (x_t, y_t), and then every observable is
    compared. The observables are also compared before round 1. The student's learner gets its
    own copy of every instance.

    Parameters
    ----------
    student_factory, reference_factory : callable
        Usually the classes themselves, called with the stream's ``params``.
    streams : sequence of Stream or tuple (name, X, y[, params])
    observe : mapping of str to callable, optional
        Functions of a learner whose values must agree, e.g.
        ``{"weights": lambda L: L.weights}``.
    rtol, atol : float >= 0
        Tolerances for observed numbers (predictions are compared exactly).
    title : str

    Returns
    -------
    GradeReport
        One check per stream. A failed check's message names the first
        differing round, what differed (the prediction or an observable) and
        both values, or the exception the student's learner raised.

    Raises
    ------
    TypeError
        If a factory or an observable is not callable, a stream is malformed,
        or the reference factory does not build a learner.
    ValueError
        If ``streams`` is empty, a stream's X and y have different lengths or
        a label is not ±1 (the message names ``streams[i]``), or a tolerance
        is negative.
    """
    check_callable(student_factory, "student_factory")
    check_callable(reference_factory, "reference_factory")
    checked = [checked_stream(item, i) for i, item in enumerate(check_items(streams, "streams"))]
    observe = _check_observe(observe)
    rtol = check_real(rtol, "rtol", 0.0, strict=False)
    atol = check_real(atol, "atol", 0.0, strict=False)
    report = GradeReport(title=title)
    for stream, X, y in checked:
        reference = reference_factory(**stream.params)
        if not (callable(getattr(reference, "predict", None)) and callable(getattr(reference, "update", None))):
            raise TypeError(
                f"reference_factory must build a learner with predict and update, got {type(reference).__name__}"
            )
        report.checks.append(
            check_learner(student_factory, reference, stream, X, y, observe=observe, rtol=rtol, atol=atol)
        )
    return report


def record_public_checks(
    reference: Callable,
    *,
    streams: Sequence[Stream | tuple] | None = None,
    cases: Sequence[Case | tuple] | None = None,
    certificates: Sequence[Certificate] | None = None,
    observe: Mapping[str, str] | None = None,
    rounds: bool = False,
    title: str = "",
) -> dict:
    """Run the reference on the public streams or cases and record its outputs as plain data.

    The lecturer's command ``python -m booktools grade --write-public-checks`` calls this for
    every assignment (chapters 1-8) and writes ``book/assignments/<name>_public.json``; the
    student's notebook loads that file with ``onlinelib.grading.load_public_checks`` and compares
    their code with the recorded outputs, so no reference solution is ever in the student's hands.

    Parameters
    ----------
    reference : callable
        The reference learner class (with ``streams``) or function (with ``cases``).
    streams : sequence of Stream, optional
        For a learner: the predictions and the ``observe`` attributes are recorded
        before round 1 and after every round.
    cases : sequence of Case, optional
        For a function: the return value of each case is recorded.
    certificates : sequence of Certificate, optional
        For a certificate assignment: the certificates are recorded as they are (the student's
        object is verified in the notebook); the reference must earn every point on each.
    observe : mapping of str to str
        Label -> attribute name of the learner, e.g. ``{"|V|": "size"}``.
    rounds, title
        As in ``compare_functions``.

    Returns
    -------
    dict
        JSON-ready (``onlinelib.plain_data.encode``) data for ``onlinelib.grading.PublicChecks``.
    """
    check_callable(reference, "reference")
    if sum(x is not None for x in (streams, cases, certificates)) != 1:
        raise ValueError(
            "record_public_checks needs exactly one of streams (a learner), cases (a function) "
            "or certificates (a certificate assignment)"
        )
    observe = dict(observe or {})
    for label, attribute in observe.items():
        if not isinstance(attribute, str) or not attribute.isidentifier():
            raise TypeError(f"observe[{label!r}] must be an attribute name, got {attribute!r}")
    data: dict[str, Any] = {"format": PUBLIC_FORMAT, "title": str(title)}
    if streams is not None:
        data.update(kind="learner", observe=observe)
        data["streams"] = [
            _recorded_stream(reference, item, i, observe) for i, item in enumerate(check_items(streams, "streams"))
        ]
    elif certificates is not None:
        data.update(kind="certificate")
        items = check_items(certificates, "certificates")
        data["certificates"] = [_recorded_certificate(reference, item, i) for i, item in enumerate(items)]
    else:
        data.update(kind="function", rounds=bool(rounds))
        data["cases"] = [_recorded_case(reference, item, i) for i, item in enumerate(check_items(cases, "cases"))]
    return plain_data.encode(data)


def _recorded_stream(reference: Callable, item: Any, i: int, observe: Mapping[str, str]) -> dict:
    """One public stream with the reference learner's predictions and observed attributes (before
    round 1 and after every round), for ``record_public_checks``."""
    stream, X, y = checked_stream(item, i)
    learner = reference(**copy.deepcopy(dict(stream.params)))
    seen = {attribute: [copy.deepcopy(getattr(learner, attribute))] for attribute in observe.values()}
    predictions = []
    for t in range(len(y)):
        predictions.append(int(learner.predict(X[t])))
        learner.update(X[t], int(y[t]))
        for attribute in seen:
            seen[attribute].append(copy.deepcopy(getattr(learner, attribute)))
    return {
        "name": stream.name,
        "X": X,
        "y": y,
        "params": dict(stream.params),
        "points": stream.points,
        "predictions": predictions,
        "observed": seen,
    }


def _recorded_certificate(reference: Callable, item: Any, i: int) -> dict:
    """One public certificate, which the reference must earn in full, for ``record_public_checks``."""
    certificate = _checked_certificate(item, i)
    made = check_certificate(reference, certificate)
    if not made.passed:  # the public checks must be passable: the reference earns every point
        raise ValueError(f"the reference fails certificates[{i}] ({certificate.name!r}): {made.message}")
    params = dict(certificate.params)
    if certificate.verifier in ("mistake_tree", "shattered_set") and "optimum" not in params:
        # recorded, so the notebook's check never computes a dimension: the graded copy of the
        # library may have littlestone_dimension removed (the student writes it)
        params["optimum"] = _dimension(certificate)
    return {
        "name": certificate.name,
        "args": tuple(certificate.args),
        "kwargs": dict(certificate.kwargs),
        "verifier": certificate.verifier,
        "params": params,
        "target": certificate.target,
        "points": certificate.points,
    }


def _recorded_case(reference: Callable, item: Any, i: int) -> dict:
    """One public case with the reference function's result, for ``record_public_checks``."""
    case = _checked_case(item, i)
    expected = reference(*copy.deepcopy(tuple(case.args)), **copy.deepcopy(dict(case.kwargs)))
    return {
        "name": case.name,
        "args": tuple(case.args),
        "kwargs": dict(case.kwargs),
        "points": case.points,
        "expected": expected,
    }
