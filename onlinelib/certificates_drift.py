"""Exact verifiers for Directed Drift's chain (chapter 7; Assignment 15, ``drift_exact``).

Two questions about the distance chain of Algorithm D, one verifier (``verify_drift``,
registered as ``"drift_exact"`` in ``onlinelib.certificates.VERIFIERS``):

- ``"rates"``: the student's mistake rates q_1..q_n and good-flip probabilities p_1..p_n for
  dimension n (the lemma "The distance chain"), compared exactly with the lecturer's. Half the
  quality for q, half for p.
- ``"correct_output"``: the probabilities g_0..g_n that Algorithm D with the stopping rule D3
  (threshold T) outputs w* when it starts at distance d, for a chain given by its rates. The
  answer is verified by substitution, without solving anything: a sojourn at distance d >= 1
  ends the run at a wrong hypothesis with probability s_d = (1 - q_d)^T, so the g_d satisfy
  g_0 = 1 and g_d = (1 - s_d)(p_d g_{d-1} + (1 - p_d) g_{d+1}) for 1 <= d <= n (with p_n = 1).
  Since every p_d > 0, the target can be reached from every distance and this linear system has
  exactly one solution (its homogeneous version has only the zero solution, by the maximum
  principle), so an answer that satisfies every equation exactly is the answer.

As in ``onlinelib.certificates``: student data is untrusted and never makes a verifier raise (a
wrong type, length or value gives a Verdict with the reason); a number is an int, a numpy integer,
a Fraction, a string "p/q" or a finite float taken at its exact binary value (0.1 is not 1/10),
and every comparison is exact. The lecturer's arguments raise ``TypeError``/``ValueError``
naming the argument, its domain and the value.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from .certificates_base import (
    _FRACTION_TEXT,
    Verdict,
    _describe,
    _invalid,
    _Reject,
    _student_sequence,
    _valid,
)

__all__ = ["MAX_DRIFT_N", "MAX_ANSWER_BITS", "verify_drift_rates", "verify_drift_output", "verify_drift"]

#: The largest dimension n of a question (the lecturer's rates are exact Fractions up to n = 40 in the book).
MAX_DRIFT_N = 64
#: The most bits of a numerator or denominator in an answer: exact solutions of the D3 system at n <= 15
#: have a few thousand; the grader's transport writes a Fraction as two decimal strings (at most 4300 digits).
MAX_ANSWER_BITS = 12_000
#: The largest threshold T of a question ((1 - q)^T must stay a small exact number).
MAX_THRESHOLD = 1000
_MAX_ANSWER_TEXT = 2 * (MAX_ANSWER_BITS // 3 + 2) + 2


# -- numbers ------------------------------------------------------------------------------------------


def _answer_fraction(value: Any, name: str) -> Fraction:
    """A student's number as a Fraction (int, numpy integer, Fraction, "p/q" or a finite float at its
    exact binary value), at most MAX_ANSWER_BITS bits above and below; raises _Reject."""
    if isinstance(value, str):
        if len(value) > _MAX_ANSWER_TEXT or not _FRACTION_TEXT.fullmatch(value):
            raise _Reject(f'{name} must be an exact rational "p/q" or "p", got the string {_describe(value)}')
        num, _, den = value.partition("/")
        if den and int(den) == 0:
            raise _Reject(f"{name} has denominator 0: {_describe(value)}")
        result = Fraction(int(num), int(den) if den else 1)
    elif isinstance(value, Fraction):
        result = value
    elif isinstance(value, (float, np.floating)) and math.isfinite(value):
        result = Fraction(float(value))  # its exact binary value: 1/3 as a float is not 1/3
    elif isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        kind = f"{_describe(value)} ({type(value).__name__})"
        if isinstance(value, (float, np.floating)):
            kind = "NaN" if value != value else "an infinite float"
        raise _Reject(f"{name} must be an exact rational (int, Fraction, 'p/q' or a finite float), got {kind}")
    else:
        result = Fraction(int(value))
    if result.numerator.bit_length() > MAX_ANSWER_BITS or result.denominator.bit_length() > MAX_ANSWER_BITS:
        raise _Reject(f"{name} is too large: its numerator or denominator has more than {MAX_ANSWER_BITS} bits")
    return result


def _show(value: Fraction) -> str:
    """A Fraction for a message: exactly when it is short, else to 6 significant digits."""
    if value.numerator.bit_length() <= 64 and value.denominator.bit_length() <= 64:
        return str(value)
    try:
        return f"{float(value):.6g} (about)"
    except OverflowError:
        return f"a number of {value.numerator.bit_length()} bits"


def _given(original: Any, value: Fraction) -> str:
    """What the student gave, and for a float its exact value (the usual reason an answer is off)."""
    if isinstance(original, (float, np.floating)):
        return f"the float {float(original)!r}, whose exact value is {_show(value)}"
    return _show(value)


def _answer_list(value: Any, name: str, length: int) -> tuple[list[Any], list[Fraction]]:
    """A sequence of exactly ``length`` exact rationals: (the items as given, their Fractions); raises _Reject."""
    items = _student_sequence(value, name, MAX_DRIFT_N + 1, what="rationals", kinds="iufO")
    if len(items) != length:
        raise _Reject(f"{name} must hold {length} numbers, got {len(items)}")
    return items, [_answer_fraction(v, f"{name}[{i}]") for i, v in enumerate(items)]


# -- the lecturer's arguments ---------------------------------------------------------------------------


def _lecturer_n(n: Any) -> int:
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"n must be an int in [1, {MAX_DRIFT_N}] (the dimension), got {n!r}")
    if not 1 <= n <= MAX_DRIFT_N:
        raise ValueError(f"n must be an int in [1, {MAX_DRIFT_N}] (the dimension), got {n!r}")
    return int(n)


def _lecturer_probabilities(values: Any, name: str, length: int | None = None) -> list[Fraction]:
    """Exact probabilities in (0, 1] (ints or Fractions), e.g. the rates q_1..q_n of a chain."""
    if not isinstance(values, (list, tuple)) or not values:
        raise TypeError(f"{name} must be a non-empty list of exact probabilities (ints or Fractions), got {values!r}")
    if length is not None and len(values) != length:
        raise ValueError(f"{name} must hold n = {length} probabilities, got {len(values)}")
    if len(values) > MAX_DRIFT_N:
        raise ValueError(
            f"{name} must hold at most {MAX_DRIFT_N} probabilities (n <= {MAX_DRIFT_N}), got {len(values)}"
        )
    out = []
    for i, v in enumerate(values):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer, Fraction)):
            raise TypeError(f"{name}[{i}] must be an exact probability (int or Fraction), got {v!r}")
        v = Fraction(int(v)) if isinstance(v, np.integer) else Fraction(v)
        if not 0 < v <= 1:
            raise ValueError(f"{name}[{i}] must be in (0, 1], got {v}")
        out.append(v)
    return out


def _lecturer_threshold(threshold: Any) -> int:
    if isinstance(threshold, (bool, np.bool_)) or not isinstance(threshold, (int, np.integer)):
        raise TypeError(f"threshold must be an int in [1, {MAX_THRESHOLD}] (D3's T), got {threshold!r}")
    if not 1 <= threshold <= MAX_THRESHOLD:
        raise ValueError(f"threshold must be an int in [1, {MAX_THRESHOLD}] (D3's T), got {threshold!r}")
    return int(threshold)


# -- the rates of the distance chain -----------------------------------------------------------------------


def _split_rates(answer: Any) -> tuple[Any, Any]:
    """(q, p) from a tuple or list of two sequences, a (2, n) numpy array, or a dict with the keys "q" and "p";
    raises _Reject."""
    if type(answer) is dict:
        if set(answer) != {"q", "p"}:
            keys = ", ".join(sorted(map(_describe, answer))[:6])
            raise _Reject(f"the result must be (q, p) or a dict with the keys q and p, got the keys {keys}")
        return answer["q"], answer["p"]
    if isinstance(answer, np.ndarray) and answer.ndim == 2 and len(answer) == 2:
        return answer[0], answer[1]
    if type(answer) in (list, tuple):
        if len(answer) != 2:
            raise _Reject(f"the result must be (q, p), got a {type(answer).__name__} of {len(answer)} items")
        return answer[0], answer[1]
    raise _Reject(f"the result must be a tuple (q, p) or a dict of them, got {_describe(answer)}")


def _first_difference(name: str, given: list[Any], got: list[Fraction], expected: list[Fraction]) -> str | None:
    for d, (original, value, truth) in enumerate(zip(given, got, expected, strict=True), start=1):
        if value != truth:
            return f"{name}_{d} is {_given(original, value)}, the exact value is {_show(truth)}"
    return None


def verify_drift_rates(answer: Any, n: Any, q: Any, p: Any) -> Verdict:
    """Check a student's exact rates of the distance chain of Directed Drift (chapter 7, lemma "The distance chain").

    Parameters
    ----------
    answer : (q, p) or {"q": q, "p": p} (the student's)
        Two sequences of n exact rationals: ``q[d - 1]`` = P(mistake | distance d) and
        ``p[d - 1]`` = P(good flip | a mistake at distance d).
    n : int in [1, MAX_DRIFT_N] (the lecturer's)
    q, p : lists of n ints or Fractions in (0, 1] (the lecturer's)
        The exact rates, e.g. from ``DirectedDriftChain(n)`` (p_n = 1).

    Returns
    -------
    Verdict
        Valid iff the answer has the form above; ``quality`` = 1 if every q_d is exact + 1 if
        every p_d is, ``optimum`` = 2. The reason names the first wrong entry of each.

    Raises
    ------
    TypeError, ValueError
        If n, q or p is not as above.
    """
    n = _lecturer_n(n)
    q_true = _lecturer_probabilities(q, "q", n)
    p_true = _lecturer_probabilities(p, "p", n)
    try:
        q_raw, p_raw = _split_rates(answer)
        q_given, q_got = _answer_list(q_raw, "q", n)
        p_given, p_got = _answer_list(p_raw, "p", n)
    except _Reject as reject:
        return _invalid(2, str(reject))
    wrong = [
        problem
        for problem in (_first_difference("q", q_given, q_got, q_true), _first_difference("p", p_given, p_got, p_true))
        if problem
    ]
    quality = 2 - len(wrong)
    if not wrong:
        return _valid(quality, 2, f"n = {n}: every q_d and p_d exact")
    right = "" if quality == 0 else ("every p_d exact; " if q_got != q_true else "every q_d exact; ")
    return _valid(quality, 2, f"n = {n}: {right}" + "; ".join(wrong))


# -- the probability that D3 outputs the target ----------------------------------------------------------


def verify_drift_output(answer: Any, q: Any, p: Any, threshold: Any) -> Verdict:
    """Check the probabilities that Directed Drift with the stopping rule D3 outputs w* (chapter 7, step D3).

    For a chain with mistake rates q_1..q_n and good-flip probabilities p_1..p_n (p_n = 1) and
    the threshold T of D3, the student gives g_0..g_n, g_d = P(the run that starts at distance d
    outputs w*). The answer is substituted into the first-step equations (module docstring),
    which have exactly one solution: g_0 = 1 and, for 1 <= d <= n,
    g_d = (1 - s_d)(p_d g_{d-1} + (1 - p_d) g_{d+1}) with s_d = (1 - q_d)^T.

    Parameters
    ----------
    answer : sequence of n + 1 exact rationals (the student's)
    q, p : lists of n ints or Fractions in (0, 1] (the lecturer's)
        p[-1] must be 1 (at distance n every coordinate is wrong).
    threshold : int in [1, MAX_THRESHOLD] (the lecturer's)

    Returns
    -------
    Verdict
        ``quality`` 1 and ``optimum`` 1 if every equation holds exactly; otherwise invalid, with
        the first distance at which the answer is not consistent and both sides of its equation.

    Raises
    ------
    TypeError, ValueError
        If q, p or the threshold is not as above.
    """
    q = _lecturer_probabilities(q, "q")
    n = len(q)
    p = _lecturer_probabilities(p, "p", n)
    if p[-1] != 1:
        raise ValueError(f"p[{n - 1}] = p_n must be 1 (at distance n every flip is good), got {p[-1]}")
    threshold = _lecturer_threshold(threshold)
    try:
        given, g = _answer_list(answer, "g", n + 1)
        if g[0] != 1:
            raise _Reject(
                f"g_0 is {_given(given[0], g[0])}: a run that starts at w* makes no mistake and outputs w*, so g_0 = 1"
            )
        for d in range(1, n + 1):
            stay = 1 - (1 - q[d - 1]) ** threshold  # no stop at a wrong hypothesis in this sojourn
            above = g[d + 1] if d < n else Fraction(0)  # p_n = 1: the term vanishes at d = n
            consistent = stay * (p[d - 1] * g[d - 1] + (1 - p[d - 1]) * above)
            if g[d] != consistent:
                close = ""
                try:
                    if float(g[d]) == float(consistent):
                        close = " (equal in floating point, but not exactly: compute with Fractions)"
                except OverflowError:
                    pass
                raise _Reject(
                    f"the answer is not consistent at distance d = {d} (the first such d): g_{d} is "
                    f"{_given(given[d], g[d])}, but one sojourn at distance {d} followed by the answer's own "
                    f"g_{d - 1}" + (f" and g_{d + 1}" if d < n else "") + f" gives {_show(consistent)}{close}"
                )
    except _Reject as reject:
        return _invalid(1, str(reject))
    return _valid(1, 1, f"n = {n}, T = {threshold}: g_0..g_{n} exact")


# -- one entry point --------------------------------------------------------------------------------------

_QUESTIONS = {"rates": verify_drift_rates, "correct_output": verify_drift_output}


def verify_drift(kind: Any, answer: Any, **params: Any) -> Verdict:
    """The verifier ``"drift_exact"`` of ``onlinelib.certificates.VERIFIERS`` (Assignment 15, chapter 7).

    Parameters
    ----------
    kind : {"rates", "correct_output"} (the lecturer's)
        Which question: ``verify_drift_rates`` (params ``n``, ``q``, ``p``) or
        ``verify_drift_output`` (params ``q``, ``p``, ``threshold``).
    answer : object (the student's)
    **params : the lecturer's arguments of that question

    Raises
    ------
    ValueError
        If ``kind`` is unknown (and as the chosen check raises on its parameters).
    """
    if not isinstance(kind, str) or kind not in _QUESTIONS:
        raise ValueError(f"kind must be one of {sorted(_QUESTIONS)} (the question), got {kind!r}")
    return _QUESTIONS[kind](answer, **params)
