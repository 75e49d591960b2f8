"""Autograding: compare a student's function or learner with the reference (the book's assignments).

Each assignment in ``book/assignments/`` asks for one function or one learner
class. The student notebook runs the *public* checks with this module; the
lecturer runs the *hidden* checks (``book/assignments/lecturer/<name>_hidden.py``)
on every submission with ``python -m booktools grade``. Both compare the student's code
with a reference from ``onlinelib`` on random and adversarial streams, built
from seeded ``numpy.random.Generator`` objects that are passed explicitly, so a
check gives the same verdict every time it runs.

The checks and the chapters they serve:

* ``compare_learners`` plays a learner round by round against the reference
  on the same stream and reports the first round whose prediction, or whose
  observed state (weights, version-space size, ...), differs. Assignments
  ``halving`` (chapter 1, Mistake bounds), ``winnow1`` (chapter 2, Winnow1) and
  ``kernel_perceptron`` (chapter 6, Boolean kernels).
* ``compare_functions`` calls a function on a list of cases and reports the
  first entry (or round) of the result that differs. Assignments ``rwma``
  (chapter 5, Experts: RWMA's exact expected mistakes), ``drift_chain``
  (chapter 7, Binary weights: the Directed Drift chain) and
  ``normalized_step`` (chapter 8, Learning curves: the step of Eq. 2).
* ``check_bounds`` runs the student's own learner and measures both sides of
  an inequality of a proof after every round, as the chapters do: the lemma
  invariants of Winnow1 (chapter 2).

Every check earns its points or none, and its message says what went wrong:
the first differing round, the expected and the actual value, or the exception
the student's code raised (``NotImplementedError`` reads "not implemented
yet"). Exceptions raised by the *student's* code never escape; bad arguments
to the functions themselves (a non-callable, an empty list of cases, a stream
whose lengths differ) raise ``TypeError`` or ``ValueError`` naming the argument.

The ``reference_*`` functions at the end are the reference solutions of the
assignments, with the student's signature, built on ``onlinelib``.
"""
from __future__ import annotations

import copy
import math
import numbers
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from .validation import check_real, check_stream

__all__ = [
    "Check",
    "GradeReport",
    "Case",
    "Stream",
    "compare_functions",
    "compare_learners",
    "check_bounds",
    "first_difference",
    "PublicChecks",
    "load_public_checks",
    "record_public_checks",
]

_MAX_MESSAGE = 600  # characters of one check's message
_MISSING = object()


# -- results ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Check:
    """The verdict of one check.

    Attributes
    ----------
    name : str
        What was checked, e.g. the stream or case name.
    passed : bool
    points : float
        The points earned: ``max_points`` if passed, else 0.
    max_points : float
    message : str
        Why it failed (the first differing round, expected and actual values), or
        a short confirmation.
    """

    name: str
    passed: bool
    points: float
    max_points: float
    message: str


def _fmt_points(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


class GradeReport:
    """A list of ``Check`` results with a score (every assignment, chapters 1-8).

    Reports add up: ``report_a + report_b`` holds the checks of both, under
    the first one's title.

    Parameters
    ----------
    checks : iterable of Check
    title : str
        Shown by ``summary``, e.g. "Assignment 1: Halving (chapter 1)".
    """

    def __init__(self, checks: Iterable[Check] = (), title: str = ""):
        self.checks: list[Check] = list(checks)
        for i, check in enumerate(self.checks):
            if not isinstance(check, Check):
                raise TypeError(f"checks[{i}] must be a Check, got {type(check).__name__}")
        self.title = str(title)

    @property
    def score(self) -> float:
        """The points earned."""
        return float(sum(c.points for c in self.checks))

    @property
    def max_score(self) -> float:
        """The points available."""
        return float(sum(c.max_points for c in self.checks))

    @property
    def passed(self) -> bool:
        """True if every check passed."""
        return all(c.passed for c in self.checks)

    @property
    def failures(self) -> list[Check]:
        """The checks that failed."""
        return [c for c in self.checks if not c.passed]

    def add(self, name: str, passed: bool, message: str = "", points: float = 1.0) -> Check:
        """Append a check decided elsewhere (e.g. a custom test in a lecturer file) and return it."""
        points = check_real(points, "points", 0.0, strict=False)
        check = Check(str(name), bool(passed), points if passed else 0.0, points, _clip(message or ("ok" if passed else "failed")))
        self.checks.append(check)
        return check

    def __add__(self, other: "GradeReport") -> "GradeReport":
        if not isinstance(other, GradeReport):
            return NotImplemented
        return GradeReport(self.checks + other.checks, self.title or other.title)

    def clamp(self) -> tuple[float, float]:
        """(score, max_score) with the score forced into [0, max_score] (what the grader records)."""
        top = max(0.0, self.max_score)
        return min(max(self.score, 0.0), top), top

    def summary(self) -> str:
        """A readable multi-line summary: the score, then one line per check."""
        head = f"{self.title}: " if self.title else ""
        lines = [f"{head}{_fmt_points(self.score)}/{_fmt_points(self.max_score)} points"]
        for c in self.checks:
            mark = "pass" if c.passed else "FAIL"
            lines.append(f"  [{mark}] {c.name} ({_fmt_points(c.points)}/{_fmt_points(c.max_points)}): {c.message}")
        if self.checks and self.passed:
            lines.append("All checks passed.")
        return "\n".join(lines)

    def feedback(self, max_chars: int = 2000) -> str:
        """One line for a grades file: the score and what failed (or "all checks passed")."""
        text = f"{_fmt_points(self.score)}/{_fmt_points(self.max_score)}: "
        if self.passed:
            text += "all checks passed"
        else:
            text += "; ".join(f"FAIL {c.name}: {c.message}" for c in self.failures)
        text = " ".join(text.split())
        return text if len(text) <= max_chars else text[: max_chars - 3] + "..."

    def to_dict(self) -> dict:
        """The report as plain data (JSON-serialisable)."""
        return {
            "title": self.title,
            "score": self.score,
            "max_score": self.max_score,
            "checks": [c.__dict__.copy() for c in self.checks],
        }

    def __repr__(self) -> str:
        return f"GradeReport({self.title!r}, score={_fmt_points(self.score)}/{_fmt_points(self.max_score)}, checks={len(self.checks)})"


def _clip(message: str) -> str:
    message = " ".join(str(message).split())
    return message if len(message) <= _MAX_MESSAGE else message[: _MAX_MESSAGE - 3] + "..."


def _pass(name: str, points: float, message: str) -> Check:
    return Check(name, True, points, points, _clip(message))


def _fail(name: str, points: float, message: str) -> Check:
    return Check(name, False, 0.0, points, _clip(message))


def _describe_exception(exc: BaseException, where: str = "") -> str:
    if isinstance(exc, NotImplementedError):
        return f"not implemented yet{f' ({where})' if where else ''}"
    text = str(exc).strip()
    if len(text) > 200:
        text = text[:197] + "..."
    # an exception raised in the grader's sandbox carries the type name the student's code raised
    name = getattr(exc, "remote_type", None) or type(exc).__name__
    return f"{where + ' ' if where else ''}raised {name}{': ' + text if text else ''}"


# -- inputs ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One call of the function under test (``compare_functions``).

    Attributes
    ----------
    name : str
    args : tuple
        Positional arguments; each function gets its own deep copy.
    kwargs : mapping
        Keyword arguments.
    points : float
    """

    name: str
    args: tuple = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    points: float = 1.0


@dataclass(frozen=True, eq=False)
class Stream:
    """One labelled stream for ``compare_learners`` and ``check_bounds``.

    Attributes
    ----------
    name : str
        E.g. "thresholds, random (seed 3)" or "adaptive adversary".
    X : array_like, shape (T, ...)
        The instances; row t is passed to ``predict`` and ``update``.
    y : array_like of int, shape (T,)
        The labels, ±1.
    params : mapping
        Keyword arguments for both learner factories, e.g. ``{"n": 16}``.
    info : mapping
        Anything the bounds of ``check_bounds`` need (e.g. the relevant variables).
    points : float
    """

    name: str
    X: Any
    y: Any
    params: Mapping[str, Any] = field(default_factory=dict)
    info: Mapping[str, Any] = field(default_factory=dict)
    points: float = 1.0


def _check_callable(fn: Any, name: str) -> Callable:
    if not callable(fn):
        raise TypeError(f"{name} must be callable (a function or a class), got {type(fn).__name__}")
    return fn


def _check_items(items: Any, name: str) -> list:
    if isinstance(items, (str, bytes, Mapping)) or not hasattr(items, "__iter__"):
        raise TypeError(f"{name} must be a list, got {type(items).__name__}")
    items = list(items)
    if not items:
        raise ValueError(f"{name} must hold at least one entry, got an empty list")
    return items


def _as_case(item: Any, i: int) -> Case:
    where = f"cases[{i}]"
    if isinstance(item, Case):
        case = item
    elif isinstance(item, tuple) and 2 <= len(item) <= 4:
        case = Case(*item)
    else:
        raise TypeError(f"{where} must be a Case or a tuple (name, args[, kwargs[, points]]), got {type(item).__name__}")
    if not isinstance(case.name, str):
        raise TypeError(f"{where}.name must be a string, got {type(case.name).__name__}")
    if not isinstance(case.args, (tuple, list)):
        raise TypeError(f"{where}.args must be a tuple of positional arguments, got {type(case.args).__name__}")
    if not isinstance(case.kwargs, Mapping):
        raise TypeError(f"{where}.kwargs must be a mapping, got {type(case.kwargs).__name__}")
    check_real(case.points, f"{where}.points", 0.0, strict=False)
    return case


def _as_stream(item: Any, i: int) -> tuple[Stream, Any, np.ndarray]:
    where = f"streams[{i}]"
    if isinstance(item, Stream):
        stream = item
    elif isinstance(item, tuple) and 3 <= len(item) <= 4:
        stream = Stream(*item)
    else:
        raise TypeError(f"{where} must be a Stream or a tuple (name, X, y[, params]), got {type(item).__name__}")
    if not isinstance(stream.name, str):
        raise TypeError(f"{where}.name must be a string, got {type(stream.name).__name__}")
    for attr in ("params", "info"):
        if not isinstance(getattr(stream, attr), Mapping):
            raise TypeError(f"{where}.{attr} must be a mapping, got {type(getattr(stream, attr)).__name__}")
    check_real(stream.points, f"{where}.points", 0.0, strict=False)
    try:
        X, y = check_stream(stream.X, stream.y)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{where} ({stream.name!r}): {exc}") from None
    return stream, X, y


def _check_observe(observe: Any, name: str = "observe") -> dict:
    if observe is None:
        return {}
    if not isinstance(observe, Mapping):
        raise TypeError(f"{name} must be a mapping of names to functions of the learner, got {type(observe).__name__}")
    for key, fn in observe.items():
        if not callable(fn):
            raise TypeError(f"{name}[{key!r}] must be a function of the learner, got {type(fn).__name__}")
    return dict(observe)


# -- comparing values ------------------------------------------------------------------------


def _is_exact(v: Any) -> bool:
    return isinstance(v, (numbers.Integral, Fraction)) or isinstance(v, np.integer)


def _is_number(v: Any) -> bool:
    return isinstance(v, numbers.Number) and not isinstance(v, complex)


def _scalar_equal(e: Any, a: Any, rtol: float, atol: float) -> bool:
    if isinstance(a, np.ndarray) and a.shape == ():
        a = a.item()
    if isinstance(e, np.generic):
        e = e.item()
    if isinstance(a, np.generic):
        a = a.item()
    if _is_number(e) and _is_number(a):
        if _is_exact(e) and _is_exact(a):
            return e == a
        try:
            ef, af = float(e), float(a)
        except OverflowError:
            return Fraction(e) == Fraction(a)
        if math.isnan(ef) or math.isnan(af):
            return math.isnan(ef) and math.isnan(af)
        if math.isinf(ef) or math.isinf(af):
            return ef == af
        return math.isclose(af, ef, rel_tol=rtol, abs_tol=atol)
    if _is_number(e) != _is_number(a):
        return False
    try:
        return bool(e == a)
    except Exception:
        return False


def _is_sequence(v: Any) -> bool:
    return isinstance(v, (np.ndarray, list, tuple))


def first_difference(expected: Any, actual: Any, rtol: float = 1e-9, atol: float = 1e-12):
    """Where ``actual`` first differs from ``expected``, or None if they agree.

    Numbers agree if both are exact (int, Fraction) and equal, or otherwise
    within ``rtol`` (relative) or ``atol`` (absolute). Arrays, lists and tuples
    are compared entry by entry in order (row-major for numpy arrays), dicts
    key by key, anything else with ``==``.

    Returns
    -------
    None or tuple (path, expected_value, actual_value, note)
        ``path`` is the tuple of indices (or keys) of the first differing entry,
        empty for a top-level difference; ``note`` explains a difference of kind
        (a missing return value, a shape) or is None for a difference of value.
    """
    rtol = check_real(rtol, "rtol", 0.0, strict=False)
    atol = check_real(atol, "atol", 0.0, strict=False)
    return _diff(expected, actual, rtol, atol, ())


def _diff(e: Any, a: Any, rtol: float, atol: float, path: tuple):
    if a is None and e is not None:
        return path, e, a, "returned None (is a `return` missing?)"
    if isinstance(e, Mapping):
        if not isinstance(a, Mapping):
            return path, e, a, f"expected a dict, got {type(a).__name__}"
        for key in e:
            if key not in a:
                return path + (key,), e[key], _MISSING, "the key is missing"
            d = _diff(e[key], a[key], rtol, atol, path + (key,))
            if d:
                return d
        for key in a:
            if key not in e:
                return path + (key,), _MISSING, a[key], "unexpected key"
        return None
    if _is_sequence(e):
        return _diff_sequence(e, a, rtol, atol, path)
    if not _scalar_equal(e, a, rtol, atol):
        note = None
        if _is_number(e) and _is_sequence(a):
            note = f"expected a single number, got a {type(a).__name__}"
        return path, e, a, note
    return None


def _diff_sequence(e: Any, a: Any, rtol: float, atol: float, path: tuple):
    if not _is_sequence(a):
        return path, e, a, f"expected a sequence of {len(e)} values, got a {type(a).__name__}"
    E = np.asarray(e) if not isinstance(e, np.ndarray) else e
    try:
        A = a if isinstance(a, np.ndarray) else np.asarray(a)
    except ValueError:  # a ragged list: compared entry by entry below
        A = None
    if A is None or E.dtype == object or A.dtype == object:
        # entry by entry (Fractions, nested or ragged lists)
        ne, na = len(e), len(a)
        for i in range(min(ne, na)):
            d = _diff(e[i], a[i], rtol, atol, path + (i,))
            if d:
                return d
        if ne != na:
            return path, e, a, f"expected {ne} entries, got {na}"
        return None
    if A.dtype.kind not in "biuf" or E.dtype.kind not in "biuf":
        if E.shape == A.shape and np.array_equal(E, A):
            return None
        if E.shape != A.shape:
            return path, e, a, f"expected shape {E.shape}, got shape {A.shape}"
        i = tuple(np.argwhere(E != A)[0])
        return path + tuple(int(k) for k in i), E[i].item(), A[i].item(), None
    if E.shape != A.shape:
        if E.ndim == A.ndim == 1:
            m = min(len(E), len(A))
            d = _diff_sequence(E[:m], A[:m], rtol, atol, path)
            if d:
                return d
            return path, e, a, f"expected {len(E)} entries, got {len(A)}"
        return path, e, a, f"expected shape {E.shape}, got shape {A.shape}"
    if E.dtype.kind in "biu" and A.dtype.kind in "biu":
        same = E == A
    else:
        with np.errstate(invalid="ignore", over="ignore"):
            same = np.isclose(A.astype(float), E.astype(float), rtol=rtol, atol=atol, equal_nan=True)
    if same.all():
        return None
    i = tuple(int(k) for k in np.argwhere(~same)[0])
    return path + i, E[i].item(), A[i].item(), None


def _fmt(v: Any) -> str:
    if v is _MISSING:
        return "nothing"
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, Fraction):
        return str(v.numerator) if v.denominator == 1 else f"{v} (≈ {float(v):.10g})"
    if isinstance(v, float):
        return f"{v:.12g}"
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, np.ndarray):
        return np.array2string(v, threshold=10, precision=6, separator=", ").replace("\n", "")
    text = repr(v)
    return text if len(text) <= 160 else text[:157] + "..."


def _where(path: tuple, rounds: bool) -> str:
    if not path:
        return ""
    if rounds and isinstance(path[0], int):
        head, rest = f"round {path[0] + 1}", path[1:]
    else:
        head, rest = "", path
    if rest:
        keys = ", ".join(repr(k) if not isinstance(k, int) else str(k) for k in rest)
        head = f"{head}, entry [{keys}]" if head else f"entry [{keys}]"
    return head


def _difference_message(diff, rounds: bool, prefix: str = "") -> str:
    path, e, a, note = diff
    where = _where(path, rounds)
    text = f"first difference at {where}" if where else "wrong value"
    if prefix:
        text = f"{prefix}: {text}"
    if note:
        return f"{text}: {note}; expected {_fmt(e)}, got {_fmt(a)}"
    return f"{text}: expected {_fmt(e)}, got {_fmt(a)}"


# -- the checks ------------------------------------------------------------------------------


def compare_functions(
    student_fn: Callable,
    reference_fn: Callable,
    cases: Sequence[Case | tuple],
    *,
    rtol: float = 1e-9,
    atol: float = 1e-12,
    rounds: bool = False,
    title: str = "",
) -> GradeReport:
    """Call the student's function and the reference on each case and compare the results.

    Used by the assignments ``rwma`` (chapter 5, Experts), ``drift_chain``
    (chapter 7, Binary weights) and ``normalized_step`` (chapter 8, Learning
    curves). Each case is one check, worth its ``points``.

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
    _check_callable(student_fn, "student_fn")
    _check_callable(reference_fn, "reference_fn")
    cases = [_as_case(item, i) for i, item in enumerate(_check_items(cases, "cases"))]
    rtol = check_real(rtol, "rtol", 0.0, strict=False)
    atol = check_real(atol, "atol", 0.0, strict=False)
    report = GradeReport(title=title)
    for i, case in enumerate(cases):
        try:
            expected = reference_fn(*copy.deepcopy(tuple(case.args)), **copy.deepcopy(dict(case.kwargs)))
        except Exception as exc:
            raise ValueError(f"reference_fn failed on cases[{i}] ({case.name!r}): {type(exc).__name__}: {exc}") from exc
        try:
            actual = student_fn(*copy.deepcopy(tuple(case.args)), **copy.deepcopy(dict(case.kwargs)))
        except Exception as exc:
            report.checks.append(_fail(case.name, case.points, _describe_exception(exc)))
            continue
        diff = _diff(expected, actual, rtol, atol, ())
        if diff is None:
            report.checks.append(_pass(case.name, case.points, "matches the reference"))
        else:
            report.checks.append(_fail(case.name, case.points, _difference_message(diff, rounds)))
    return report


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

    Used by the assignments ``halving`` (chapter 1, Mistake bounds),
    ``winnow1`` (chapter 2, Winnow1) and ``kernel_perceptron`` (chapter 6,
    Boolean kernels). Each stream is one check: a fresh learner of each kind
    is built with ``factory(**stream.params)``; in round t both predict on x_t
    (the prediction must be -1 or +1 and equal the reference's), both are
    updated with (x_t, y_t), and then every observable is compared. The
    observables are also compared before round 1. The student's learner gets
    its own copy of every instance.

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
    _check_callable(student_factory, "student_factory")
    _check_callable(reference_factory, "reference_factory")
    checked = [_as_stream(item, i) for i, item in enumerate(_check_items(streams, "streams"))]
    observe = _check_observe(observe)
    rtol = check_real(rtol, "rtol", 0.0, strict=False)
    atol = check_real(atol, "atol", 0.0, strict=False)
    report = GradeReport(title=title)
    for i, (stream, X, y) in enumerate(checked):
        report.checks.append(_compare_on_stream(student_factory, reference_factory, stream, X, y, observe, rtol, atol, i))
    return report


def _compare_on_stream(student_factory, reference_factory, stream, X, y, observe, rtol, atol, i) -> Check:
    name, points = stream.name, stream.points
    reference = reference_factory(**stream.params)
    if not (callable(getattr(reference, "predict", None)) and callable(getattr(reference, "update", None))):
        raise TypeError(f"reference_factory must build a learner with predict and update, got {type(reference).__name__}")
    try:
        student = student_factory(**copy.deepcopy(dict(stream.params)))
    except Exception as exc:
        return _fail(name, points, _describe_exception(exc, "building the learner"))
    for method in ("predict", "update"):
        if not callable(getattr(student, method, None)):
            return _fail(name, points, f"the learner has no {method} method")

    def observed(when: str) -> str | None:
        for key, fn in observe.items():
            expected = fn(reference)
            try:
                actual = fn(student)
            except Exception as exc:
                return f"{when}: reading {key} " + _describe_exception(exc)
            diff = _diff(expected, actual, rtol, atol, ())
            if diff is not None:
                return _difference_message(diff, False, f"{when}, {key} differs")
        return None

    problem = observed("before round 1")
    if problem:
        return _fail(name, points, problem)
    T = len(y)
    for t in range(T):
        x = X[t]
        label = int(y[t])
        expected = int(reference.predict(x))
        try:
            actual = student.predict(copy.deepcopy(x))
        except Exception as exc:
            return _fail(name, points, _describe_exception(exc, f"round {t + 1}: predict"))
        if isinstance(actual, np.ndarray) and actual.shape == ():
            actual = actual.item()
        if not _is_number(actual) or isinstance(actual, bool) or actual not in (-1, 1):
            return _fail(name, points, f"round {t + 1}: predict must return -1 or +1, returned {_fmt(actual)}")
        if int(actual) != expected:
            return _fail(
                name, points, f"first difference at round {t + 1} (prediction): expected {expected:+d}, got {int(actual):+d}"
            )
        reference.update(x, label)
        try:
            student.update(copy.deepcopy(x), label)
        except Exception as exc:
            return _fail(name, points, _describe_exception(exc, f"round {t + 1}: update"))
        problem = observed(f"after round {t + 1}")
        if problem:
            return _fail(name, points, "first difference " + problem)
    what = "predictions" + (" and " + ", ".join(observe) if observe else "")
    return _pass(name, points, f"agrees with the reference on all {T} rounds ({what})")


def check_bounds(
    factory: Callable,
    streams: Sequence[Stream | tuple],
    bounds: Mapping[str, Callable[[Any, Stream], tuple[Any, Any]]],
    *,
    points: float = 1.0,
    rtol: float = 1e-9,
    title: str = "",
) -> GradeReport:
    """Run the student's learner and check the inequalities of a proof after every round.

    This is the book's way of re-running a proof (see any chapter, e.g. the
    lemmas of chapter 2, Winnow1): each bound measures both sides on the
    learner's state, ``lhs <= rhs``, before round 1 and after every update.

    Parameters
    ----------
    factory : callable
        Builds a fresh learner with ``factory(**stream.params)``.
    streams : sequence of Stream or tuple (name, X, y[, params])
    bounds : mapping of str to callable
        ``bound(learner, stream) -> (lhs, rhs)``; it holds if lhs <= rhs (up to
        ``rtol`` relative). The name is shown in the report, e.g.
        "Lemma (weight budget): W <= n + (u - v) theta".
    points : float
        Points of each bound.
    rtol : float >= 0
    title : str

    Returns
    -------
    GradeReport
        One check per bound, over all streams; a failed check names the stream,
        the first round where lhs > rhs and both sides.

    Raises
    ------
    TypeError, ValueError
        If ``factory`` or a bound is not callable, ``streams`` or ``bounds`` is
        empty or malformed, or ``points``/``rtol`` is negative.
    """
    _check_callable(factory, "factory")
    checked = [_as_stream(item, i) for i, item in enumerate(_check_items(streams, "streams"))]
    if not isinstance(bounds, Mapping) or not bounds:
        raise (TypeError if not isinstance(bounds, Mapping) else ValueError)(
            f"bounds must be a non-empty mapping of names to functions (learner, stream) -> (lhs, rhs), got {bounds!r}"
        )
    for key, fn in bounds.items():
        if not callable(fn):
            raise TypeError(f"bounds[{key!r}] must be a function (learner, stream) -> (lhs, rhs), got {type(fn).__name__}")
    points = check_real(points, "points", 0.0, strict=False)
    rtol = check_real(rtol, "rtol", 0.0, strict=False)
    report = GradeReport(title=title)
    failures: dict[str, str] = {}
    for stream, X, y in checked:
        if len(failures) == len(bounds):
            break
        try:
            learner = factory(**copy.deepcopy(dict(stream.params)))
        except Exception as exc:
            message = f"stream {stream.name!r}: " + _describe_exception(exc, "building the learner")
            for key in bounds:
                failures.setdefault(key, message)
            break
        live = [key for key in bounds if key not in failures]

        def measure(when: str) -> None:
            for key in list(live):
                try:
                    lhs, rhs = bounds[key](learner, stream)
                    lhs, rhs = float(lhs), float(rhs)
                except Exception as exc:
                    failures[key] = f"stream {stream.name!r}, {when}: measuring it " + _describe_exception(exc)
                    live.remove(key)
                    continue
                slack = rtol * abs(rhs) if math.isfinite(rhs) else 0.0
                if not lhs <= rhs + slack:
                    failures[key] = f"fails on stream {stream.name!r} {when}: left side {_fmt(lhs)} > right side {_fmt(rhs)}"
                    live.remove(key)

        measure("before round 1")
        for t in range(len(y)):
            if not live:
                break
            try:
                learner.predict(copy.deepcopy(X[t]))  # the protocol: predict, then update
                learner.update(copy.deepcopy(X[t]), int(y[t]))
            except Exception as exc:
                message = f"stream {stream.name!r}: " + _describe_exception(exc, f"round {t + 1}: the learner")
                for key in live:
                    failures[key] = message
                live.clear()
                break
            measure(f"after round {t + 1}")
    for key in bounds:
        if key in failures:
            report.checks.append(_fail(key, points, failures[key]))
        else:
            report.checks.append(_pass(key, points, f"holds after every round of {len(checked)} stream(s)"))
    return report


# -- public checks: the reference's outputs stored as data -------------------------------------

_PUBLIC_FORMAT = 1


def record_public_checks(
    reference: Callable,
    *,
    streams: Sequence[Stream | tuple] | None = None,
    cases: Sequence[Case | tuple] | None = None,
    observe: Mapping[str, str] | None = None,
    rounds: bool = False,
    title: str = "",
) -> dict:
    """Run the reference on the public streams or cases and record its outputs as plain data.

    The lecturer's command ``python -m booktools grade --write-public-checks`` calls this for
    every assignment and writes ``book/assignments/<name>_public.json``; the student's
    notebook loads that file with ``load_public_checks`` and compares their code with the
    recorded outputs, so no reference solution is ever in the student's hands.

    Parameters
    ----------
    reference : callable
        The reference learner class (with ``streams``) or function (with ``cases``).
    streams : sequence of Stream, optional
        For a learner: the predictions and the ``observe`` attributes are recorded
        before round 1 and after every round.
    cases : sequence of Case, optional
        For a function: the return value of each case is recorded.
    observe : mapping of str to str
        Label -> attribute name of the learner, e.g. ``{"|V|": "size"}``.
    rounds, title
        As in ``compare_functions``.

    Returns
    -------
    dict
        JSON-ready (``onlinelib.plain_data.encode``) data for ``PublicChecks``.
    """
    from . import plain_data

    _check_callable(reference, "reference")
    if (streams is None) == (cases is None):
        raise ValueError("record_public_checks needs exactly one of streams (a learner) or cases (a function)")
    observe = dict(observe or {})
    for label, attribute in observe.items():
        if not isinstance(attribute, str) or not attribute.isidentifier():
            raise TypeError(f"observe[{label!r}] must be an attribute name, got {attribute!r}")
    data: dict[str, Any] = {"format": _PUBLIC_FORMAT, "title": str(title)}
    if streams is not None:
        data.update(kind="learner", observe=observe, streams=[])
        for i, item in enumerate(_check_items(streams, "streams")):
            stream, X, y = _as_stream(item, i)
            learner = reference(**copy.deepcopy(dict(stream.params)))
            seen = {attribute: [copy.deepcopy(getattr(learner, attribute))] for attribute in observe.values()}
            predictions = []
            for t in range(len(y)):
                predictions.append(int(learner.predict(X[t])))
                learner.update(X[t], int(y[t]))
                for attribute in seen:
                    seen[attribute].append(copy.deepcopy(getattr(learner, attribute)))
            data["streams"].append({"name": stream.name, "X": X, "y": y, "params": dict(stream.params),
                                    "points": stream.points, "predictions": predictions, "observed": seen})
    else:
        data.update(kind="function", rounds=bool(rounds), cases=[])
        for i, item in enumerate(_check_items(cases, "cases")):
            case = _as_case(item, i)
            expected = reference(*copy.deepcopy(tuple(case.args)), **copy.deepcopy(dict(case.kwargs)))
            data["cases"].append({"name": case.name, "args": tuple(case.args), "kwargs": dict(case.kwargs),
                                  "points": case.points, "expected": expected})
    return plain_data.encode(data)


class _Replay:
    """Plays back a recorded reference learner: its predictions and observed attributes, round by round."""

    def __init__(self, predictions: list, observed: dict):
        self._predictions, self._observed, self._t = predictions, observed, 0

    def predict(self, x: Any) -> int:
        return self._predictions[self._t]

    def update(self, x: Any, y: int) -> None:
        self._t += 1

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name not in self._observed:
            raise AttributeError(name)
        return copy.deepcopy(self._observed[name][self._t])


class PublicChecks:
    """The public checks of an assignment: streams or cases with the reference's recorded outputs.

    Load them with ``load_public_checks`` and call ``run`` on your learner class or
    function (every assignment notebook, chapters 1-8).

    Attributes
    ----------
    kind : {"learner", "function"}
    title : str
    streams : list of Stream
        For a learner: the public streams (X, y, params), e.g. to measure a proof's
        inequalities with ``check_bounds``.
    cases : list of Case
        For a function: the public cases.
    """

    def __init__(self, data: Mapping):
        from . import plain_data

        data = plain_data.decode(data)
        if not isinstance(data, Mapping) or data.get("format") != _PUBLIC_FORMAT or data.get("kind") not in ("learner", "function"):
            raise ValueError("data must be public checks written by record_public_checks (format 1, kind learner or function)")
        self.kind, self.title = data["kind"], str(data.get("title", ""))
        self.streams, self.cases, self._recorded = [], [], []
        if self.kind == "learner":
            self.observe = dict(data["observe"])
            for s in data["streams"]:
                self.streams.append(Stream(s["name"], s["X"], s["y"], params=s["params"], points=s["points"]))
                self._recorded.append((s["predictions"], s["observed"]))
        else:
            self.rounds = bool(data["rounds"])
            for c in data["cases"]:
                self.cases.append(Case(c["name"], tuple(c["args"]), c["kwargs"], c["points"]))
                self._recorded.append(c["expected"])

    def run(self, candidate: Callable, *, rtol: float = 1e-9, atol: float = 1e-12) -> GradeReport:
        """Compare ``candidate`` (your class or function) with the recorded reference; one check per stream or case."""
        _check_callable(candidate, "candidate")
        report = GradeReport(title=self.title)
        if self.kind == "learner":
            observe = {label: (lambda learner, a=attribute: getattr(learner, a)) for label, attribute in self.observe.items()}
            for stream, (predictions, observed) in zip(self.streams, self._recorded):
                replay = lambda predictions=predictions, observed=observed, **params: _Replay(predictions, observed)
                report += compare_learners(candidate, replay, [stream], observe=observe, rtol=rtol, atol=atol)
        else:
            for case, expected in zip(self.cases, self._recorded):
                recorded = lambda *args, expected=expected, **kwargs: copy.deepcopy(expected)
                report += compare_functions(candidate, recorded, [case], rtol=rtol, atol=atol, rounds=self.rounds)
        return report


def load_public_checks(path: Any) -> PublicChecks:
    """Read an assignment's public checks (``<name>_public.json``, next to its notebook).

    Raises
    ------
    FileNotFoundError
        If the file is not there; the message says to keep it next to the notebook.
    ValueError
        If it is not a public-checks file.
    """
    import json
    from pathlib import Path

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} not found: the public checks read it from the folder the notebook runs in "
            "(download it with the assignment and keep it next to the notebook)"
        )
    with open(path, encoding="utf-8") as f:
        return PublicChecks(json.load(f))
