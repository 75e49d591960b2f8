"""The assignments' public checks: compare your function or learner with the reference's recorded outputs.

Each assignment in ``book/assignments/`` asks for one function or one learner class. Its
notebook loads the public checks (``<name>_public.json``, the reference's outputs recorded
as plain data next to the notebook) with ``load_public_checks`` and runs them on the student's
code with ``PublicChecks.run``; no reference solution is part of the library. The hidden tests
that the lecturer's ``python -m booktools grade`` runs use the same comparisons, played against
the live reference outside the student's sandbox.

The checks and the chapters they serve:

* a learner (assignments ``halving``, chapter 1, Mistake bounds; ``winnow1``, chapter 2,
  Winnow1; ``kernel_perceptron``, chapter 6, Boolean kernels) is played round by round against
  the reference on the same stream; the report names the first round whose prediction, or
  whose observed state (weights, version-space size, ...), differs;
* a function (assignments ``rwma``, chapter 5, Experts; ``drift_chain``, chapter 7, Binary
  weights; ``normalized_step``, chapter 8, Learning curves) is called on each case; the report
  names the first entry (or round) of the result that differs;
* ``check_bounds`` runs the student's own learner and measures both sides of an inequality of
  a proof after every round, as the chapters do: the lemma invariants of Winnow1 (chapter 2).

Every check earns its points or none, and its message says what went wrong: the first
differing round, the expected and the actual value, or the exception the student's code raised
(``NotImplementedError`` reads "not implemented yet"). Nothing the student's code raises or
returns escapes a check: an exception becomes a failed check, and a value is compared in time
and memory linear in the size of the smaller of the two values (``first_difference``). Bad
arguments to the functions themselves (a non-callable, an empty list of streams, a stream whose
lengths differ) raise ``TypeError`` or ``ValueError`` naming the argument.
"""

from __future__ import annotations

import copy
import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from .validation import check_real, check_stream

__all__ = [
    "Check",
    "GradeReport",
    "Case",
    "Certificate",
    "Stream",
    "check_bounds",
    "check_certificate",
    "first_difference",
    "PublicChecks",
    "load_public_checks",
]

PUBLIC_FORMAT = 1  # the version of the public-checks files (NAME_public.json)
_MAX_MESSAGE = 600  # characters of one check's message
_WIDTH = 160  # characters of one value shown in a message
_MISSING = object()


# -- results ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Check:
    """The verdict of one check (every assignment, chapters 1-8).

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
        check = Check(
            str(name), bool(passed), points if passed else 0.0, points, _clip(message or ("ok" if passed else "failed"))
        )
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


def _describe_exception(exc: Exception, where: str = "") -> str:
    """What the student's code raised, in words (the grader's RemoteError carries the type it raised)."""
    if isinstance(exc, NotImplementedError):
        return f"not implemented yet{f' ({where})' if where else ''}"
    try:
        text = str(exc)[:300].strip()
        name = str(getattr(exc, "remote_type", None) or type(exc).__name__)[:80]
    except Exception:  # a student's exception whose __str__ raises
        text, name = "", type(exc).__name__
    if len(text) > 200:
        text = text[:197] + "..."
    return f"{where + ' ' if where else ''}raised {name}{': ' + text if text else ''}"


# -- inputs ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One call of the function under test (assignments rwma, drift_chain, normalized_step).

    Attributes
    ----------
    name : str
    args : tuple
        Positional arguments; each call gets its own deep copy.
    kwargs : mapping
        Keyword arguments.
    points : float
    """

    name: str
    args: tuple = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    points: float = 1.0


@dataclass(frozen=True)
class Certificate:
    """One object the student's function must construct (the certificate assignments, issue 27).

    The function is called with ``args`` and ``kwargs``; what it returns is checked exactly by
    ``onlinelib.certificates.verify_certificate(verifier, result, params)``. The check earns
    ``points * min(1, quality / target)`` for a valid object (``target``: the quality that earns
    every point, by default the verifier's optimum) and 0 for an invalid one, whose message
    says which condition failed and where.

    Attributes
    ----------
    name : str
    args : tuple
    kwargs : mapping
    verifier : str
        A name of ``onlinelib.certificates.VERIFIERS``, e.g. ``"mistake_tree"``.
    params : mapping
        The verifier's own arguments (the class, the radius and margin, the rate, limits).
    target : int or None
        The quality that earns every point; None: the verifier's optimum.
    points : float
    """

    name: str
    args: tuple = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    verifier: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)
    target: int | None = None
    points: float = 1.0


@dataclass(frozen=True, eq=False)
class Stream:
    """One labelled stream for a learner's checks and ``check_bounds`` (halving, winnow1, kernel_perceptron).

    Attributes
    ----------
    name : str
        E.g. "thresholds, random (seed 3)" or "adaptive adversary".
    X : array_like, shape (T, ...)
        The instances; row t is passed to ``predict`` and ``update``.
    y : array_like of int, shape (T,)
        The labels, ±1.
    params : mapping
        Keyword arguments for the learner's class, e.g. ``{"n": 16}``.
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


def check_callable(fn: Any, name: str) -> Callable:
    """Return ``fn`` if it is callable, else raise TypeError naming ``name`` (shared with the hidden tests)."""
    if not callable(fn):
        raise TypeError(f"{name} must be callable (a function or a class), got {type(fn).__name__}")
    return fn


def check_items(items: Any, name: str) -> list:
    """``items`` (streams or cases) as a non-empty list, else TypeError or ValueError naming ``name``."""
    if isinstance(items, (str, bytes, Mapping)) or not hasattr(items, "__iter__"):
        raise TypeError(f"{name} must be a list, got {type(items).__name__}")
    items = list(items)
    if not items:
        raise ValueError(f"{name} must hold at least one entry, got an empty list")
    return items


def checked_input(item: Any, kind: type, where: str, form: str, sizes: range) -> Any:
    """``item`` as a ``kind`` (Stream or Case), built from a tuple ``form`` of a length in ``sizes``
    if need be; its name and points checked. Shared with the hidden tests (``cases[i]``);
    TypeError or ValueError naming ``where``."""
    if isinstance(item, tuple) and len(item) in sizes:
        item = kind(*item)
    if not isinstance(item, kind):
        raise TypeError(f"{where} must be a {kind.__name__} or a tuple {form}, got {type(item).__name__}")
    if not isinstance(item.name, str):
        raise TypeError(f"{where}.name must be a string, got {type(item.name).__name__}")
    check_real(item.points, f"{where}.points", 0.0, strict=False)
    return item


def checked_stream(item: Any, i: int) -> tuple[Stream, Any, np.ndarray]:
    """``streams[i]`` (a Stream or a tuple (name, X, y[, params])) as (stream, X, y), checked.

    Raises
    ------
    TypeError, ValueError
        If it is malformed, its X and y have different lengths or a label is not ±1; the
        message names ``streams[i]``.
    """
    where = f"streams[{i}]"
    stream = checked_input(item, Stream, where, "(name, X, y[, params])", range(3, 5))
    for attr in ("params", "info"):
        if not isinstance(getattr(stream, attr), Mapping):
            raise TypeError(f"{where}.{attr} must be a mapping, got {type(getattr(stream, attr)).__name__}")
    try:
        X, y = check_stream(stream.X, stream.y)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{where} ({stream.name!r}): {exc}") from None
    return stream, X, y


# -- comparing values ------------------------------------------------------------------------


def first_difference(expected: Any, actual: Any, rtol: float = 1e-9, atol: float = 1e-12):
    """Where ``actual`` first differs from ``expected``, or None if they agree.

    Numbers agree if both are exact (int, Fraction) and equal, or otherwise within ``rtol``
    (relative) or ``atol`` (absolute); NaN agrees with NaN and an infinity with itself. Arrays,
    lists and tuples are compared entry by entry in order (row-major for numpy arrays), dicts
    key by key, anything else with ``==``. Only as many entries of ``actual`` are read as
    ``expected`` has: the time and memory are linear in the smaller of the two.

    Returns
    -------
    None or tuple (path, expected_value, actual_value, note)
        ``path`` is the tuple of indices (or keys) of the first differing entry,
        empty for a top-level difference; ``note`` explains a difference of kind
        (a missing return value, a length, a shape) or is None for a difference of value.
    """
    rtol = check_real(rtol, "rtol", 0.0, strict=False)
    atol = check_real(atol, "atol", 0.0, strict=False)
    diff = _diff(expected, actual, rtol, atol)
    return None if diff is None else (tuple(reversed(diff[0])), *diff[1:])


# A difference is a list [path, expected, actual, note]; the path holds the indices and keys
# innermost first, appended only while a found difference unwinds.


def _length(v: Any) -> int | None:
    """The number of entries of a list, tuple or array of one or more dimensions, else None."""
    if isinstance(v, (list, tuple)):
        return len(v)
    if isinstance(v, np.ndarray) and v.ndim:
        return v.shape[0]
    return None


def _diff(e: Any, a: Any, rtol: float, atol: float) -> list | None:
    if a is None and e is not None:
        return [[], e, a, "returned None (is a `return` missing?)"]
    if isinstance(e, Mapping):
        return _diff_mapping(e, a, rtol, atol)
    if _length(e) is not None:
        return _diff_sequence(e, a, rtol, atol)
    if _scalar_equal(e, a, rtol, atol):
        return None
    note = f"expected a single number, got a {type(a).__name__}" if _is_number(e) and _length(a) is not None else None
    return [[], e, a, note]


def _diff_mapping(e: Mapping, a: Any, rtol: float, atol: float) -> list | None:
    if not isinstance(a, Mapping):
        return [[], e, a, f"expected a dict, got {type(a).__name__}"]
    for key in e:
        if key not in a:
            return [[key], e[key], _MISSING, "the key is missing"]
        d = _diff(e[key], a[key], rtol, atol)
        if d:
            d[0].append(key)
            return d
    if len(a) != len(e):  # every expected key is there, so one of the first len(e) + 1 keys of a is new
        key = next(key for key in a if key not in e)
        return [[key], _MISSING, a[key], "unexpected key"]
    return None


def _diff_sequence(e: Any, a: Any, rtol: float, atol: float) -> list | None:
    if _length(a) is None:
        return [[], e, a, f"expected a sequence of {_length(e)} values, got a {type(a).__name__}"]
    if isinstance(e, np.ndarray) and e.dtype.kind in "biuf":
        A = a if isinstance(a, np.ndarray) and a.dtype.kind in "biuf" else _numeric_array(a, e.shape)
        if A is not None:
            return _diff_arrays(e, A, rtol, atol)
    ne, na = _length(e), _length(a)
    for i in range(min(ne, na)):  # entry by entry: strings, Fractions, objects, nested or ragged lists
        d = _diff(e[i], a[i], rtol, atol)
        if d:
            d[0].append(i)
            return d
    if ne != na:
        return [[], e, a, f"expected {ne} entries, got {na}"]
    return None


def _numeric_array(a: Any, shape: tuple) -> np.ndarray | None:
    """``a`` as an array if it is nested lists (or tuples) of exactly ``shape`` holding only real
    numbers within the int64 and float ranges; else None. Reads at most ``prod(shape)`` entries."""
    flat: list = []
    floats = False

    def collect(v: Any, depth: int) -> bool:
        nonlocal floats
        if depth == len(shape):
            if isinstance(v, (bool, np.bool_)):
                pass
            elif isinstance(v, (int, np.integer)):
                if not -(2**63) <= v < 2**63:
                    return False  # a big int: compared exactly, entry by entry
            elif isinstance(v, (float, np.floating)):
                floats = True
            else:
                return False
            flat.append(v)
            return True
        if not isinstance(v, (list, tuple)) or len(v) != shape[depth]:
            return False
        return all(collect(x, depth + 1) for x in v)

    if not collect(a, 0):
        return None
    dtype = float if floats else bool if all(isinstance(v, (bool, np.bool_)) for v in flat) else np.int64
    return np.array(flat, dtype=dtype).reshape(shape)


def _diff_arrays(E: np.ndarray, A: np.ndarray, rtol: float, atol: float) -> list | None:
    """Two arrays of numbers, compared at once (``A`` is read only where ``E`` has entries)."""
    if E.shape != A.shape:
        if E.ndim == A.ndim == 1:
            m = min(len(E), len(A))
            d = _diff_arrays(E[:m], A[:m], rtol, atol)
            return d or [[], E, A, f"expected {len(E)} entries, got {len(A)}"]
        return [[], E, A, f"expected shape {E.shape}, got shape {A.shape}"]
    if E.dtype.kind in "biu" and A.dtype.kind in "biu":
        same = E == A
    else:
        with np.errstate(invalid="ignore", over="ignore"):
            same = np.isclose(A.astype(float), E.astype(float), rtol=rtol, atol=atol, equal_nan=True)
    if same.all():
        return None
    i = tuple(int(k) for k in np.argwhere(~same)[0])
    return [list(reversed(i)), E[i].item(), A[i].item(), None]


def _is_exact(v: Any) -> bool:
    return isinstance(v, (numbers.Integral, Fraction))


def _is_number(v: Any) -> bool:
    return isinstance(v, numbers.Number) and not isinstance(v, complex)


def _scalar(v: Any) -> Any:
    """A numpy scalar or 0-d array as the Python value it holds; anything else as it is."""
    if isinstance(v, np.ndarray) and v.shape == ():
        v = v[()]
    return v.item() if isinstance(v, np.generic) else v


def _scalar_equal(e: Any, a: Any, rtol: float, atol: float) -> bool:
    e, a = _scalar(e), _scalar(a)
    if _is_number(e) and _is_number(a):
        return _numbers_equal(e, a, rtol, atol)
    if _is_number(e) or _is_number(a) or isinstance(a, (np.ndarray, list, tuple, Mapping)):
        return False  # never compare a scalar with a whole container (numpy would compare every entry)
    try:
        return bool(e == a)
    except Exception:
        return False


def _float_or_none(v: Any) -> float | None:
    try:
        return float(v)
    except OverflowError:  # an int or a Fraction beyond the float range
        return None


def _numbers_equal(e: Any, a: Any, rtol: float, atol: float) -> bool:
    """Exact for two ints or Fractions (of any size), else within rtol or atol (``math.isclose``)."""
    if _is_exact(e) and _is_exact(a):
        return e == a
    ef, af = _float_or_none(e), _float_or_none(a)
    if ef is None or af is None:  # compare exactly, as math.isclose would with unbounded floats
        if not all(math.isfinite(v) for v in (ef, af) if v is not None):
            return False
        E, A = Fraction(e), Fraction(a)
        return abs(A - E) <= max(Fraction(rtol) * max(abs(A), abs(E)), Fraction(atol))
    if math.isnan(ef) or math.isnan(af):
        return math.isnan(ef) and math.isnan(af)
    if math.isinf(ef) or math.isinf(af):
        return ef == af
    return math.isclose(af, ef, rel_tol=rtol, abs_tol=atol)


# -- showing values in messages: bounded before the text is built ------------------------------


def _fmt_int(n: int) -> str:
    """An int in at most about 80 characters: its first and last digits and how many there are.

    Up to 4000 digits the digits are exact (Python refuses ``str`` beyond 4300); beyond, the
    leading digits come from the logarithm and the last from ``n % 10**20``."""
    if n.bit_length() <= 13000:
        text = str(n)
        digits = text.lstrip("-")
        return (
            text
            if len(digits) <= 60
            else f"{text[: -len(digits)]}{digits[:25]}...{digits[-25:]} ({len(digits)} digits)"
        )
    exponent = math.log10(abs(n))
    head = f"{10 ** (exponent - math.floor(exponent)):.15f}".replace(".", "")[:15]
    tail = f"{abs(n) % 10**20:020d}"
    return f"{'-' if n < 0 else ''}{head}...{tail} ({math.floor(exponent) + 1} digits)"


def _fmt_fraction(v: Fraction) -> str:
    """``p/q (≈ decimal)``, also when p, q or the value are beyond what ``str`` or a float holds."""
    try:
        value = float(v)
    except OverflowError:
        value = 0.0
    if value or not v:
        approx = f"{value:.10g}"
    else:  # beyond the float range, above or below: the decimal exponent from logarithms
        power = math.log10(abs(v.numerator)) - math.log10(v.denominator)
        exponent = math.floor(power)
        mantissa = round(10 ** (power - exponent), 9)
        if mantissa >= 10:
            mantissa, exponent = mantissa / 10, exponent + 1
        approx = f"{'-' if v < 0 else ''}{mantissa:.10g}e{exponent:+d}"
    return f"{_fmt_int(v.numerator)}/{_fmt_int(v.denominator)} (≈ {approx})"


def _fmt(v: Any, width: int = _WIDTH) -> str:
    """``v`` for a message, in at most about ``width`` characters, whatever its size."""
    if v is _MISSING:
        return "nothing"
    v = v.item() if isinstance(v, np.generic) else v
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, numbers.Integral):
        return _fmt_int(int(v))
    if isinstance(v, Fraction):
        return _fmt_int(v.numerator) if v.denominator == 1 else _fmt_fraction(v)
    if isinstance(v, float):
        return f"{v:.12g}"
    return _repr(v, width, 0)


def _repr(v: Any, width: int, depth: int) -> str:
    """Like ``repr(v)``, but reads only what fits in ``width`` characters and 4 levels."""
    if isinstance(v, str):
        text = repr(v[:width])
        return text if len(v) <= width else f"{text}... ({len(v)} characters)"
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        return _fmt_int(int(v))
    if isinstance(v, Fraction):
        return f"Fraction({_fmt_int(v.numerator)}, {_fmt_int(v.denominator)})"
    if isinstance(v, np.ndarray):
        return _repr_array(v, width, depth)
    if isinstance(v, (list, tuple, Mapping)):
        if depth >= 4:
            return "[...]" if isinstance(v, list) else "(...)" if isinstance(v, tuple) else "{...}"
        return _repr_container(v, width, depth)
    try:
        text = repr(v)  # None, bool, float, numpy scalars, the Boolean kernels, a student's object
    except Exception:
        text = f"<{type(v).__name__} object>"
    return text if len(text) <= width else text[: width - 3] + "..."


def _repr_container(v: Any, width: int, depth: int) -> str:
    if isinstance(v, Mapping):
        entries, (left, right) = iter(v.items()), "{}"
    else:
        entries, (left, right) = iter(v), "[]" if isinstance(v, list) else "()"
    parts, used = [], 1
    for entry in entries:
        if used >= width:
            parts.append(f"... ({len(v)} entries)")
            break
        if isinstance(v, Mapping):
            key, value = entry
            part = f"{_repr(key, width - used, depth + 1)}: {_repr(value, width - used, depth + 1)}"
        else:
            part = _repr(entry, width - used, depth + 1)
        parts.append(part)
        used += len(part) + 2
    comma = "," if isinstance(v, tuple) and len(v) == 1 else ""
    return left + ", ".join(parts) + comma + right


def _repr_array(v: np.ndarray, width: int, depth: int) -> str:
    if v.dtype.kind in "biuf" and (v.ndim <= 2 or v.size <= 100):  # numpy shows at most 7 x 7 entries
        return np.array2string(v, threshold=10, precision=6, separator=", ").replace("\n", "")
    head = _repr_container(list(v.flat[:5]), width, depth) if v.size else "[]"
    return f"array of shape {v.shape} and dtype {v.dtype} starting {head}"


def _where(path: tuple, rounds: bool) -> str:
    if not path:
        return ""
    if rounds and isinstance(path[0], int):
        head, rest = f"round {path[0] + 1}", path[1:]
    else:
        head, rest = "", path
    if rest:
        keys = ", ".join(_repr(k, 40, 3) for k in rest)
        head = f"{head}, entry [{keys}]" if head else f"entry [{keys}]"
    return head


def mismatch(
    expected: Any, actual: Any, rtol: float, atol: float, *, rounds: bool = False, prefix: str = ""
) -> str | None:
    """The message for the first difference of ``actual`` from ``expected``, or None if they agree.

    Shared by the public checks and the hidden tests (every assignment). Never raises: a value
    that cannot be compared is a difference, with what went wrong.
    """
    try:
        diff = first_difference(expected, actual, rtol, atol)
        if diff is None:
            return None
        path, e, a, note = diff
        where = _where(path, rounds)
        text = f"first difference at {where}" if where else "wrong value"
        text = f"{prefix}: {text}" if prefix else text
        return f"{text}: {note + '; ' if note else ''}expected {_fmt(e)}, got {_fmt(a)}"
    except Exception as exc:
        return f"{prefix + ': ' if prefix else ''}the value could not be compared: " + _describe_exception(exc)


# -- the checks ------------------------------------------------------------------------------


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
    both run ``onlinelib.certificates.verify_certificate`` on the result, so a notebook's public
    check and the grader agree on every object. Partial credit is exact: ``points`` times
    ``min(1, quality / target)``.
    """
    from .certificates import verify_certificate

    try:
        obj = student_fn(*copy.deepcopy(tuple(certificate.args)), **copy.deepcopy(dict(certificate.kwargs)))
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


def unchanged_arguments(fn: Callable) -> Callable:
    """``fn``, made to raise ``ValueError`` when a call changed one of its arguments in place.

    Assignment ``normalized_step`` (chapter 8) asks for the new W "without changing W": its hidden
    tests set ``READ_ONLY_ARGUMENTS``, and then the grader's worker calls the student's function
    through this wrapper (where the arguments live), and ``booktools.checks.compare_functions``
    does the same in process. A changed argument is one that ``first_difference`` (with no
    tolerance) finds different from a copy taken before the call.

    Raises
    ------
    TypeError
        If ``fn`` is not callable.
    """
    check_callable(fn, "fn")
    try:
        import inspect

        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        names = []

    def call(*args, **kwargs):
        before = copy.deepcopy((args, kwargs))
        result = fn(*args, **kwargs)
        passed = [
            (names[i] if i < len(names) else f"number {i + 1}", old, new)
            for i, (old, new) in enumerate(zip(before[0], args, strict=True))
        ]
        passed += [(key, before[1][key], kwargs[key]) for key in kwargs]
        for name, old, new in passed:
            if first_difference(old, new, 0.0, 0.0) is not None:
                raise ValueError(
                    f"changed its argument {name} in place; the assignment asks for a new value "
                    "and leaves the arguments as they were (copy before changing)"
                )
        return result

    return call


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
    try:
        student = student_factory(**copy.deepcopy(dict(stream.params)))
    except Exception as exc:
        return _fail(name, points, _describe_exception(exc, "building the learner"))
    for method in ("predict", "update"):
        if not _has_method(student, method):
            return _fail(name, points, f"the learner has no {method} method")

    def observed(when: str) -> str | None:
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

    problem = observed("before round 1")
    if problem:
        return _fail(name, points, problem)
    for t in range(len(y)):
        x, label = X[t], int(y[t])
        expected = int(reference.predict(x))
        try:
            actual = student.predict(copy.deepcopy(x))
        except Exception as exc:
            return _fail(name, points, _describe_exception(exc, f"round {t + 1}: predict"))
        prediction = _label(actual)
        if prediction is None:
            return _fail(name, points, f"round {t + 1}: predict must return -1 or +1, returned {_fmt(actual)}")
        if prediction != expected:
            return _fail(
                name,
                points,
                f"first difference at round {t + 1} (prediction): expected {expected:+d}, got {prediction:+d}",
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
    return _pass(name, points, f"agrees with the reference on all {len(y)} rounds ({what})")


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
    lemmas of chapter 2, Winnow1, in assignment ``winnow1``): each bound measures
    both sides on the learner's state, ``lhs <= rhs``, before round 1 and after every update.

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
    check_callable(factory, "factory")
    checked = [checked_stream(item, i) for i, item in enumerate(check_items(streams, "streams"))]
    if not isinstance(bounds, Mapping) or not bounds:
        raise (TypeError if not isinstance(bounds, Mapping) else ValueError)(
            f"bounds must be a non-empty mapping of names to functions (learner, stream) -> (lhs, rhs), got {bounds!r}"
        )
    for key, fn in bounds.items():
        if not callable(fn):
            raise TypeError(
                f"bounds[{key!r}] must be a function (learner, stream) -> (lhs, rhs), got {type(fn).__name__}"
            )
    points = check_real(points, "points", 0.0, strict=False)
    rtol = check_real(rtol, "rtol", 0.0, strict=False)
    failures: dict[str, str] = {}

    def measure(learner: Any, stream: Stream, live: list[str], when: str) -> None:
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
                failures[key] = (
                    f"fails on stream {stream.name!r} {when}: left side {_fmt(lhs)} > right side {_fmt(rhs)}"
                )
                live.remove(key)

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
        measure(learner, stream, live, "before round 1")
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
            measure(learner, stream, live, f"after round {t + 1}")
    report = GradeReport(title=title)
    for key in bounds:
        if key in failures:
            report.checks.append(_fail(key, points, failures[key]))
        else:
            report.checks.append(_pass(key, points, f"holds after every round of {len(checked)} stream(s)"))
    return report


# -- public checks: the reference's outputs stored as data -------------------------------------


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
        return self._observed[name][self._t]


class PublicChecks:
    """The public checks of an assignment: streams or cases with the reference's recorded outputs.

    Load them with ``load_public_checks`` and call ``run`` on your learner class or
    function (every assignment notebook, chapters 1-8).

    Attributes
    ----------
    kind : {"learner", "function", "certificate"}
    title : str
    streams : list of Stream
        For a learner: the public streams (X, y, params), e.g. to measure a proof's
        inequalities with ``check_bounds``.
    cases : list of Case
        For a function: the public cases.
    certificates : list of Certificate
        For a certificate assignment: what to construct, and the verifier's parameters (nothing
        is recorded: the object is verified where it is made).
    """

    def __init__(self, data: Mapping):
        from . import plain_data

        data = plain_data.decode(data)
        if (
            not isinstance(data, Mapping)
            or data.get("format") != PUBLIC_FORMAT
            or data.get("kind") not in ("learner", "function", "certificate")
        ):
            raise ValueError(
                "data must be public checks written by record_public_checks "
                "(format 1, kind learner, function or certificate)"
            )
        self.kind, self.title = data["kind"], str(data.get("title", ""))
        self.streams, self.cases, self._recorded = [], [], []
        if self.kind == "learner":
            self.observe = dict(data["observe"])
            for s in data["streams"]:
                self.streams.append(Stream(s["name"], s["X"], s["y"], params=s["params"], points=s["points"]))
                self._recorded.append((s["predictions"], s["observed"]))
        elif self.kind == "certificate":
            self.certificates = [
                Certificate(
                    c["name"], tuple(c["args"]), c["kwargs"], c["verifier"], c["params"], c["target"], c["points"]
                )
                for c in data["certificates"]
            ]
        else:
            self.rounds = bool(data["rounds"])
            for c in data["cases"]:
                self.cases.append(Case(c["name"], tuple(c["args"]), c["kwargs"], c["points"]))
                self._recorded.append(c["expected"])

    def run(self, candidate: Callable, *, rtol: float = 1e-9, atol: float = 1e-12) -> GradeReport:
        """Compare ``candidate`` (your class or function) with the recorded reference; one check per stream or case."""
        check_callable(candidate, "candidate")
        rtol = check_real(rtol, "rtol", 0.0, strict=False)
        atol = check_real(atol, "atol", 0.0, strict=False)
        report = GradeReport(title=self.title)
        if self.kind == "learner":
            observe = {
                label: (lambda learner, a=attribute: getattr(learner, a)) for label, attribute in self.observe.items()
            }
            for i, (item, (predictions, observed)) in enumerate(zip(self.streams, self._recorded, strict=True)):
                stream, X, y = checked_stream(item, i)
                report.checks.append(
                    check_learner(
                        candidate, _Replay(predictions, observed), stream, X, y, observe=observe, rtol=rtol, atol=atol
                    )
                )
        elif self.kind == "certificate":
            for certificate in self.certificates:
                report.checks.append(check_certificate(candidate, certificate))
        else:
            for case, expected in zip(self.cases, self._recorded, strict=True):
                report.checks.append(check_call(candidate, case, expected, rtol=rtol, atol=atol, rounds=self.rounds))
        return report


def load_public_checks(path: Any, part: str | None = None) -> PublicChecks:
    """Read an assignment's public checks (``<name>_public.json``, next to its notebook).

    An assignment of several parts (code, a certificate, ...) keeps one section per part:
    name it with ``part``, e.g. ``load_public_checks("winnow_proofs_public.json", part="Winnow1")``.

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
        data = json.load(f)
    if isinstance(data, dict) and data.get("kind") == "parts":
        parts = data.get("parts") if isinstance(data.get("parts"), dict) else {}
        if part not in parts:
            raise ValueError(f"part must be one of {sorted(parts)} (the parts of {path.name}), got {part!r}")
        return PublicChecks(parts[part])
    if part is not None:
        raise ValueError(f"part must be None: {path.name} holds the checks of one part, got {part!r}")
    return PublicChecks(data)
