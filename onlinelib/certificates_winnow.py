"""The exact verifier of a stream on which Winnow2 breaks the lecture notes' bound (chapter 4, Winnow).

Chapter 4, section "The notes' bound fails for alpha < 2", shows that the lecture notes' bound
``2 + 3k(lg N + 1)`` (their Eq. 42; {prf:ref}`thm-wn-littlestone` with alpha = 2 and theta = N)
is false for Winnow2 with alpha = 3/2 and theta = N: the chapter's searches find sequences
labelled by one variable with more mistakes than that. Assignment 13 (``winnow2``) asks a student
for such a sequence, together with its target, a monotone disjunction of k of the N variables.
This module checks it exactly:

- the stream: rows of N entries 0/1 (ints or bools, as in ``onlinelib.certificates``' Boolean
  verifier: a float is refused), labels ±1, and every label the target's (+1 iff a relevant
  variable is 1);
- the replay: Winnow2 (weights start at 1, predict +1 iff w.x > theta, promote by alpha on a
  missed positive, demote by alpha on a false positive) with every weight kept as an integer
  exponent e (w = alpha^e) and every score compared with theta in integers, never in floats
  (the chapter's alpha = 1.6 sequence loses eleven of its mistakes in floating point);
- the score: ``quality`` = the mistakes, ``optimum`` = the least whole number above the notes'
  bound for the student's k (``notes_bound_target``), so a stream scores
  ``min(1, mistakes / optimum)``.

Student data is untrusted: it never raises, an invalid object gets a Verdict naming the condition
and the round. Sizes are checked before entries are read (``max_rounds`` rows of ``n`` entries),
and the replay costs one pass over each row. The lecturer's arguments raise ``TypeError`` or
``ValueError`` naming the argument, the domain and the value.

The helpers are those of every verifier (``onlinelib.certificates_base``); ``onlinelib.certificates``
registers this one in its ``VERIFIERS``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from .certificates_base import (
    Verdict,
    _boolean_masks,
    _check_limit,
    _int_text,
    _invalid,
    _Reject,
    _student_int,
    _student_sequence,
    _valid,
)

__all__ = ["MAX_WINNOW_FEATURES", "notes_bound_target", "verify_winnow2_stream"]

#: The most variables N a stream may have (a lecturer's instance; rows are unpacked from bitmasks).
MAX_WINNOW_FEATURES = 1024
#: How many relevant variables a reason names before it writes "...".
_SHOWN = 6


def _lecturer_exact(value: Any, name: str, low: int, domain: str) -> Fraction:
    """A lecturer's alpha or theta as a Fraction > ``low``: an int or a Fraction, never a float."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer, Fraction)):
        raise TypeError(f"{name} must be an exact rational {domain} (an int or a Fraction, not a float), got {value!r}")
    exact = Fraction(int(value)) if isinstance(value, np.integer) else Fraction(value)
    if exact <= low:
        raise ValueError(f"{name} must be {domain}, got {exact}")
    return exact


def _lecturer_features(n: Any) -> int:
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"n must be an int in [1, {MAX_WINNOW_FEATURES}] (the number of variables N), got {n!r}")
    if not 1 <= n <= MAX_WINNOW_FEATURES:
        raise ValueError(f"n must be an int in [1, {MAX_WINNOW_FEATURES}] (the number of variables N), got {n!r}")
    return int(n)


def notes_bound_target(n: int, k: int) -> int:
    """The least whole number of mistakes above the notes' bound 2 + 3k(lg n + 1), exactly (chapter 4).

    M > 2 + 3k(lg n + 1) iff M - 2 - 3k > lg(n^{3k}) iff 2^{M - 2 - 3k} > n^{3k}, and the least
    e with 2^e > v is the bit length of v: so the answer is 2 + 3k + bitlength(n^{3k}). For
    n = 48, k = 1 that is 22 (the bound is 21.75); for n = 64, k = 1 it is 24 (the bound is 23).

    Raises
    ------
    TypeError, ValueError
        If n or k is not an int >= 1.
    """
    for value, name in ((n, "n"), (k, "k")):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be an int >= 1, got {value!r}")
    return 2 + 3 * int(k) + (int(n) ** (3 * int(k))).bit_length()


def _relevant(value: Any, n: int) -> list[int]:
    """The student's relevant variables: one int, or a list, tuple or 1-D int array of distinct indices."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        items = [value]
    else:
        items = _student_sequence(value, "relevant", n, what="variable indices")
    if not items:
        raise _Reject("relevant must name at least one variable: the target is the disjunction of those named")
    indices: list[int] = []
    for j, item in enumerate(items):
        i = _student_int(item, f"relevant[{j}]")
        if not 0 <= i < n:
            raise _Reject(f"relevant[{j}] = {_int_text(i)} is out of range, the variables are 0..{n - 1}")
        if i in indices:
            raise _Reject(f"relevant[{j}] = {i} repeats relevant[{indices.index(i)}]: name each variable once")
        indices.append(i)
    return indices


def _target_text(indices: list[int]) -> str:
    names = [f"x_{i}" for i in sorted(indices)[:_SHOWN]]
    return " or ".join(names) + (f" or ... ({len(indices)} variables)" if len(indices) > _SHOWN else "")


def _labels(y: Any, masks: list[int], relevant_mask: int, indices: list[int], max_rounds: int) -> list[int]:
    """The student's labels, each ±1 and the target's on its row; raises _Reject naming the round."""
    labels = _student_sequence(y, "y", max_rounds, what="labels")
    if len(labels) != len(masks):
        raise _Reject(f"y must have one label per row of X ({len(masks)}), got {len(labels)}")
    out = []
    for t, (mask, label) in enumerate(zip(masks, labels, strict=True), start=1):
        value = _student_int(label, f"round {t}: y")
        if value not in (-1, 1):
            raise _Reject(f"round {t}: y = {_int_text(value)} is not a label ±1")
        hit = mask & relevant_mask
        if hit and value != 1:
            i = (hit & -hit).bit_length() - 1
            raise _Reject(f"round {t}: the relevant variable x_{i} is 1, so the target labels x +1, got y = -1")
        if not hit and value != -1:
            raise _Reject(
                f"round {t}: no relevant variable is 1 (the target is {_target_text(indices)}), so the target "
                "labels x -1, got y = +1"
            )
        out.append(value)
    return out


class _Powers:
    """Integer powers of alpha's numerator and denominator, each computed once."""

    def __init__(self, alpha: Fraction):
        self.p, self.q = alpha.numerator, alpha.denominator
        self._cache: dict[tuple[int, int], int] = {}

    def __call__(self, base: int, e: int) -> int:
        key = (base, e)
        if key not in self._cache:
            self._cache[key] = base**e
        return self._cache[key]


def _predicts_positive(exponents: np.ndarray, powers: _Powers, theta: Fraction) -> bool:
    """Whether sum_i alpha^{e_i} > theta, decided in integers.

    With lo = min(0, min e) and hi = max(0, max e), multiplying the score by q^hi p^-lo turns
    every alpha^e = p^e / q^e into the integer p^(e - lo) q^(hi - e), so the score exceeds
    theta = r/s iff s * sum_e c_e p^(e - lo) q^(hi - e) > r q^hi p^-lo (c_e: how many active
    weights have exponent e).
    """
    if exponents.size == 0:
        return False  # the score 0 is below theta > 0
    values, counts = np.unique(exponents, return_counts=True)
    lo, hi = min(0, int(values[0])), max(0, int(values[-1]))
    p, q = powers.p, powers.q
    total = sum(int(c) * powers(p, int(e) - lo) * powers(q, hi - int(e)) for e, c in zip(values, counts, strict=True))
    return total * theta.denominator > theta.numerator * powers(q, hi) * powers(p, -lo)


def _replay(masks: list[int], labels: list[int], n: int, alpha: Fraction, theta: Fraction) -> tuple[int, int]:
    """Winnow2 on the rows (bitmasks), exactly; returns (promotions, demotions)."""
    exponents = np.zeros(n, dtype=np.int64)
    powers = _Powers(alpha)
    n_bytes = (n + 7) // 8
    promotions = demotions = 0
    for mask, label in zip(masks, labels, strict=True):
        bits = np.unpackbits(np.frombuffer(mask.to_bytes(n_bytes, "little"), dtype=np.uint8), bitorder="little")
        active = np.flatnonzero(bits[:n])
        if _predicts_positive(exponents[active], powers, theta) == (label == 1):
            continue  # a correct prediction changes nothing
        exponents[active] += label  # promotion (+1) or demotion (-1) of the active weights
        if label == 1:
            promotions += 1
        else:
            demotions += 1
    return promotions, demotions


def verify_winnow2_stream(
    X: Any,
    y: Any,
    relevant: Any,
    n: Any,
    *,
    alpha: Any = Fraction(3, 2),
    theta: Any = None,
    max_rounds: int = 1000,
) -> Verdict:
    """Replay Winnow2 exactly on a student's stream and score it against the notes' bound (chapter 4).

    Chapter 4 ("The notes' bound fails for alpha < 2"): the lecture notes claim that Winnow2
    makes at most 2 + 3k(lg N + 1) mistakes on a stream labelled by a monotone disjunction of k
    of N variables. That is Littlestone's bound ({prf:ref}`thm-wn-littlestone`) at alpha = 2,
    theta = N, and it is false at alpha = 3/2. The student gives a stream and its target; the
    verifier checks that the target labels every row as given and counts Winnow2's mistakes.

    Parameters
    ----------
    X : (T, n) entries 0/1 (the student's)
        Rows as lists or tuples of ints 0/1 (or numpy integers), or a numpy integer or Boolean
        array; floats, bools in a list, strings and other values are refused with the round and
        the coordinate.
    y : (T,) ints ±1 (the student's)
        The labels; each must be the target's: +1 iff some relevant variable of the row is 1.
    relevant : int or list of ints (the student's)
        The target's variables, distinct indices in 0..n-1 (at least one): the target is their
        disjunction, and k = ``len(relevant)``.
    n : int in [1, MAX_WINNOW_FEATURES] (the lecturer's)
        The number of variables N.
    alpha : int or Fraction > 1, keyword-only (the lecturer's)
        The promotion factor (default 3/2); a float is refused, so that nothing is rounded.
    theta : int or Fraction > 0, keyword-only, optional (the lecturer's)
        The threshold; default N, the notes' choice.
    max_rounds : int, keyword-only
        The most rounds T (checked before any row is read).

    Returns
    -------
    Verdict
        Valid iff X and y have the same number T >= 1 of rounds, every row has n entries 0/1,
        ``relevant`` names distinct variables and every label is the target's (the first
        disagreeing round is named). ``quality`` = the mistakes of the exact replay;
        ``optimum`` = ``notes_bound_target(n, k)``, the least count that breaks the notes' bound
        (for an invalid object, the one for k = 1).

    Raises
    ------
    TypeError, ValueError
        If n, alpha, theta or max_rounds is not of its domain.
    """
    n = _lecturer_features(n)
    alpha = _lecturer_exact(alpha, "alpha", 1, "> 1")
    theta = Fraction(n) if theta is None else _lecturer_exact(theta, "theta", 0, "> 0")
    max_rounds = _check_limit(max_rounds, "max_rounds")
    target = notes_bound_target(n, 1)
    try:
        indices = _relevant(relevant, n)
        target = notes_bound_target(n, len(indices))
        masks = _boolean_masks(X, n, max_rounds)
        relevant_mask = sum(1 << i for i in indices)
        labels = _labels(y, masks, relevant_mask, indices, max_rounds)
        promotions, demotions = _replay(masks, labels, n, alpha, theta)
    except _Reject as reject:
        return _invalid(target, str(reject))
    mistakes, k = promotions + demotions, len(indices)
    bound = 2 + 3 * k * (float(np.log2(n)) + 1)  # for the message only: the score uses ``target``
    verdict = (
        f"more than the notes' bound 2 + 3k(lg N + 1) = {bound:.2f} (k = {k})"
        if mistakes >= target
        else f"not more than the notes' bound 2 + 3k(lg N + 1) = {bound:.2f} (k = {k}), broken from {target} on"
    )
    return _valid(
        mistakes,
        target,
        f"{len(masks)} rounds over N = {n} variables, labelled by {_target_text(indices)}: Winnow2 "
        f"(alpha = {alpha}, theta = {theta}) makes {mistakes} mistakes ({promotions} promotions, "
        f"{demotions} demotions), {verdict}",
    )
