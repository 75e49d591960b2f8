"""The one comparison that the public checks and the grader's hidden tests share.

``first_difference`` finds where a value the student's code returned first differs from the
reference's (every assignment, chapters 1-8), in time and memory linear in the smaller of the
two; ``mismatch`` turns that difference into a check's message. A student's notebook compares
with the reference's recorded outputs, the grader with the live reference: both through these
two functions, so the two agree on every value.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np

from ..validation import check_real
from .results import _describe_exception
from .show import _MISSING, _fmt, _where


def first_difference(expected: Any, actual: Any, rtol: float = 1e-9, atol: float = 1e-12):
    """Where ``actual`` first differs from ``expected``, or None if they agree.

    Numbers agree if both are exact (int, Fraction) and equal, or otherwise within ``rtol``
    (relative) or ``atol`` (absolute); NaN agrees with NaN and an infinity with itself. Arrays,
    lists and tuples are compared entry by entry in order (row-major for numpy arrays), dicts
    key by key, anything else with ``==``. Only as many entries of ``actual`` are read as
    ``expected`` has: the time and memory are linear in the smaller of the two. Every
    assignment's checks (chapters 1-8) decide with it, in the notebook and in the grader.

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
