"""Values shown in the checks' messages: bounded before the text is built.

A check's message (every assignment, chapters 1-8) shows the expected and the actual value of
the first difference that ``compare.first_difference`` finds. Whatever the student's code
returned (an int of a million digits, a huge array, a nested list, an object whose ``repr``
raises), ``_fmt`` shows it in about ``_WIDTH`` characters, reading only what it shows; ``_where``
names the round and the entry of the difference.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np

_WIDTH = 160  # characters of one value shown in a message
_MISSING = object()  # an entry that is not there (a missing or an unexpected key): shown as "nothing"


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
    """The place of a difference in words: "round t" (``rounds``: a learner's or a per-round result,
    chapters 5, 7 and 8) and the entry below it, or "" for a top-level difference."""
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
