"""What every exact verifier of ``onlinelib.certificates`` shares: the Verdict, and reading a
student's numbers and sequences without ever raising on them (the certificate assignments).

``onlinelib.certificates`` holds the verifiers of chapters 1, 3, 5 and 6; the later assignments'
verifiers live in modules of their own (``certificates_gap``, ``certificates_winnow``,
``certificates_drift``), which build on these helpers and which ``certificates`` registers in its
``VERIFIERS``. See ``onlinelib.certificates`` for the rules every verifier keeps: student data is
untrusted (a bad value is a reason, never an exception), everything is exact, sizes are checked
before anything deep is read.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = ["Verdict", "MAX_BITS", "MAX_DENOMINATOR_BITS"]

#: The most bits a numerator or denominator of a student's number may have.
MAX_BITS = 128
#: The most bits of the common denominator of a student's stream (keeps exact replays fast).
MAX_DENOMINATOR_BITS = 1024
_FRACTION_TEXT = re.compile(r"[+-]?[0-9]+(/[0-9]+)?")
_MAX_TEXT = 2 * (MAX_BITS // 3 + 2) + 2  # enough characters for two MAX_BITS-bit decimals and a sign


@dataclass(frozen=True)
class Verdict:
    """The outcome of one verifier: validity, certified quality, optimum, score in [0, 1], reason."""

    valid: bool
    quality: int
    optimum: int
    score: Fraction
    reason: str


class _Reject(Exception):
    """Student data that fails a condition; the message is the Verdict's reason. Never escapes."""


def _valid(quality: int, optimum: int, reason: str) -> Verdict:
    score = Fraction(1) if optimum <= 0 else min(Fraction(quality, optimum), Fraction(1))
    return Verdict(True, quality, optimum, score, reason)


def _invalid(optimum: int, reason: str) -> Verdict:
    return Verdict(False, 0, optimum, Fraction(0), reason)


def _int_text(value: int) -> str:
    """An int for a message: its digits, or its size when it is huge (str() of a huge int raises)."""
    return str(value) if value.bit_length() <= 64 else f"an int of {value.bit_length()} bits"


def _describe(value: Any) -> str:
    """A short description of a student's value for a reason (never the repr of a huge object)."""
    if isinstance(value, (bool, np.bool_, int, np.integer, float, np.floating, Fraction)) or value is None:
        if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
            return _int_text(int(value))
        text = repr(value)
        return text if len(text) <= 60 else text[:57] + "..."
    if isinstance(value, str):
        return repr(value[:40]) + ("..." if len(value) > 40 else "")
    return f"a {type(value).__name__}"


def _student_int(value: Any, name: str) -> int:
    """``value`` as an int: a Python int or numpy integer, not a bool or float."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise _Reject(f"{name} must be an int, got {_describe(value)} ({type(value).__name__})")
    return int(value)


def _student_fraction(value: Any, name: str) -> Fraction:
    """``value`` as a Fraction: an int, numpy integer, Fraction, string "p/q" or finite float (at its exact
    binary value); no bool, NaN or infinity."""
    if isinstance(value, str):
        if len(value) > _MAX_TEXT or not _FRACTION_TEXT.fullmatch(value):
            raise _Reject(f'{name} must be an exact rational "p/q" or "p", got the string {_describe(value)}')
        num, _, den = value.partition("/")
        if den and int(den) == 0:
            raise _Reject(f"{name} has denominator 0: {_describe(value)}")
        result = Fraction(int(num), int(den) if den else 1)
    elif isinstance(value, Fraction):
        result = value
    elif isinstance(value, (float, np.floating)) and math.isfinite(value):
        result = Fraction(float(value))  # a float's exact binary value (issue 36): 0.1 is not 1/10
    elif isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        kind = f"{_describe(value)} ({type(value).__name__})"
        if isinstance(value, (float, np.floating)):
            kind = "NaN" if value != value else "an infinite float"
        raise _Reject(f"{name} must be an exact rational (int, Fraction, 'p/q' or a finite float), got {kind}")
    else:
        result = Fraction(int(value))
    if result.numerator.bit_length() > MAX_BITS or result.denominator.bit_length() > MAX_BITS:
        raise _Reject(f"{name} is too large: its numerator or denominator has more than {MAX_BITS} bits")
    return result


def _student_sequence(
    value: Any, name: str, max_len: int, *, what: str = "items", ndim: int = 1, kinds: str = "iuO"
) -> list:
    """``value`` as a list (from a list, tuple or ``ndim``-D numpy array of a dtype kind in ``kinds``),
    checking its length before reading it."""
    if isinstance(value, np.ndarray):
        if value.ndim != ndim:
            raise _Reject(f"{name} must be a {ndim}-D sequence of {what}, got an array of shape {value.shape}")
        if value.dtype.kind not in kinds:
            raise _Reject(f"{name} must hold exact {what}, got an array of dtype {value.dtype}")
    elif type(value) not in (list, tuple):  # exactly: a subclass could run code on len or indexing
        raise _Reject(f"{name} must be a list of {what}, got {_describe(value)}")
    if len(value) > max_len:
        raise _Reject(f"{name} is too large: {len(value)} {what}, the limit is {max_len}")
    return list(value)


def _check_limit(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be an int >= 1, got {value!r}")
    return int(value)


def _check_optimum(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"optimum must be an int >= 0 (the class's dimension), got {value!r}")
    return int(value)


def _mask_of_array(row: np.ndarray, t: int) -> int:
    """The bitmask (bit i = x_i) of a 1-D numpy int/bool row of 0/1 entries, or _Reject naming the entry."""
    if row.dtype.kind != "b":
        bad = np.flatnonzero((row != 0) & (row != 1))
        if len(bad):
            i = int(bad[0])
            raise _Reject(f"round {t}: x[{i}] must be 0 or 1, got {_describe(row[i])}")
    packed = np.packbits(row.astype(np.uint8), bitorder="little")
    return int.from_bytes(packed.tobytes(), "little")


def _boolean_masks(X: Any, n: int, max_rounds: int) -> list[int]:
    """The student's rows as bitmasks (bit i = x_i), every row and entry checked; raises _Reject."""
    if isinstance(X, np.ndarray):
        if X.ndim != 2:
            raise _Reject(f"X must be a (T, n) table of 0/1 entries, got an array of shape {X.shape}")
        if X.dtype.kind not in "biuO":
            raise _Reject(f"X must hold exact 0/1 entries (ints or bools), got an array of dtype {X.dtype}")
        if len(X) > max_rounds:
            raise _Reject(f"X is too large: {len(X)} rows, the limit is {max_rounds}")
        if not len(X):
            raise _Reject("X must hold at least one round, got none")
        if X.shape[1] != n:
            raise _Reject(f"round 1: x has {X.shape[1]} entries, n = {n} variables")
        if X.dtype.kind != "O":
            if X.dtype.kind != "b":
                bad = np.argwhere((X != 0) & (X != 1))
                if len(bad):
                    t, i = (int(v) for v in bad[0])
                    raise _Reject(f"round {t + 1}: x[{i}] must be 0 or 1, got {_describe(X[t, i])}")
            packed = np.packbits(X.astype(np.uint8), axis=1, bitorder="little")
            return [int.from_bytes(row.tobytes(), "little") for row in packed]
    rows = _student_sequence(X, "X", max_rounds, what="rows", ndim=2)
    if not rows:
        raise _Reject("X must hold at least one round, got none")
    masks = []
    for t, row in enumerate(rows, start=1):
        if isinstance(row, np.ndarray):
            if row.ndim != 1:
                raise _Reject(f"round {t}: x must be a list of n = {n} entries 0/1, got an array of shape {row.shape}")
            if row.dtype.kind not in "biuO":
                raise _Reject(
                    f"round {t}: x must hold exact 0/1 entries (ints or bools), got an array of dtype {row.dtype}"
                )
        elif type(row) not in (list, tuple):  # exactly: a subclass could run code on len or indexing
            raise _Reject(f"round {t}: x must be a list of n = {n} entries 0/1, got {_describe(row)}")
        if len(row) != n:  # before the entries are read: a huge row is rejected at once
            raise _Reject(f"round {t}: x has {len(row)} entries, n = {n} variables")
        if isinstance(row, np.ndarray) and row.dtype.kind != "O":
            masks.append(_mask_of_array(row, t))
            continue
        mask = 0
        for i, entry in enumerate(row):
            if isinstance(entry, (bool, np.bool_)) or not isinstance(entry, (int, np.integer)):
                raise _Reject(
                    f"round {t}: x[{i}] must be an int 0 or 1, got {_describe(entry)} ({type(entry).__name__})"
                )
            if entry == 1:
                mask |= 1 << i
            elif entry != 0:
                raise _Reject(f"round {t}: x[{i}] must be 0 or 1, got {_describe(entry)}")
        masks.append(mask)
    return masks
