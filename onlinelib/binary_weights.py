"""Binary weights in context: the clipped Hebb rule and Kac's Ehrenfest urn (book chapter 7).

Two classical objects that the Directed Drift chapter (chapter 7, "Binary weights") compares
itself with.

* **The clipped Hebb (majority) rule.** A teacher ``B`` in {-1,1}^n labels uniform inputs
  ``x`` of the cube by ``sigma = sign(<B, x>)`` (``n`` odd, so there are no ties). The student
  is ``w = sign(sum_mu sigma_mu x_mu)``. The vector ``sigma x`` is uniform on the positive
  half-cube ``B_+(B)`` of the chapter, so ``w`` is the coordinatewise majority of ``p``
  positive examples (``clipped_hebb``, ``clipped_hebb_students``). Each coordinate of ``w``
  agrees with ``B`` with probability ``P(Bin(p, (1 + m_n)/2) > p/2)``, where
  ``m_n = E|S_n|/n = C(n-1, (n-1)/2) / 2^(n-1)`` and ``S_n`` is a sum of ``n`` random signs
  (``hebb_drift``, ``clipped_hebb_agreement``); as ``n -> oo`` with ``p = alpha n`` the
  overlap tends to ``erf(sqrt(alpha/pi))`` (``clipped_hebb_overlap_limit``). A student at
  Hamming distance ``d`` from ``B`` disagrees with it on a uniform input with probability
  ``P(|X| < |Y|)``, ``X`` and ``Y`` independent sums of ``n - d`` and ``d`` signs
  (``sign_disagreement``), which tends to ``arccos(1 - 2d/n)/pi``.
* **The Ehrenfest urn.** ``n`` balls in two urns; at each step a uniformly chosen ball changes
  urn. The number ``X`` in the first urn is a birth-death chain with stationary law
  Binomial(n, 1/2) (``ehrenfest_transition``, ``ehrenfest_stationary``); by Kac's lemma the mean
  return time to ``k`` is ``2^n / C(n, k)`` (``kac_return_time``, and ``ehrenfest_return_times``
  solves the first-step equations instead), and the mean relaxes as
  ``E[X_t] - n/2 = (1 - 2/n)^t (X_0 - n/2)`` (``ehrenfest_mean``).

Exact quantities are ``fractions.Fraction`` (or ints); the float versions say so.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from .rkhs import solve_exact
from .streams import check_sign_vector, positive_halfcube
from .validation import check_int, check_rng

__all__ = [
    "hebb_drift",
    "clipped_hebb",
    "clipped_hebb_students",
    "clipped_hebb_agreement",
    "clipped_hebb_overlap_limit",
    "sign_disagreement",
    "ehrenfest_transition",
    "ehrenfest_stationary",
    "ehrenfest_return_times",
    "kac_return_time",
    "ehrenfest_mean",
]

EXACT_LIMIT = 300_000  # n * p up to which clipped_hebb_agreement is exact by default (about 0.3 s)


def _check_odd(value: Any, name: str, why: str) -> int:
    """An odd integer >= 1, with a message naming the argument, the domain and the value."""
    value = check_int(value, name, low=1)
    if value % 2 == 0:
        raise ValueError(f"{name} must be an odd integer >= 1 ({why}), got {value!r}")
    return value


def _check_signs(arr: Any, name: str) -> np.ndarray:
    """``arr`` as an int8 array after checking that every entry is -1 or +1."""
    arr = np.asarray(arr)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number):
        raise TypeError(f"{name} must hold numbers in {{-1, 1}}, got dtype {arr.dtype}")
    bad = (arr != 1) & (arr != -1)
    if bad.any():
        raise ValueError(f"{name} must have entries in {{-1, 1}}, got {arr[bad].flat[0].item()!r}")
    return arr.astype(np.int8)


def hebb_drift(n: int, exact: bool = True) -> Fraction | float:
    """``m_n = E|S_n| / n = C(n-1, (n-1)/2) / 2^(n-1)``, the mean of ``B_i u_i`` (chapter 7).

    For ``u`` uniform on the positive half-cube of a teacher ``B`` (equivalently ``u = sigma x``
    with ``x`` uniform and ``sigma = sign(<B, x>)``), every coordinate has
    ``E[B_i u_i] = E|<B, x>|/n = m_n``: the drift of one term of the Hebb sum towards the
    teacher. It equals the mistake rate ``q_1`` of Directed Drift at distance 1, and
    ``m_n sqrt(n) -> sqrt(2/pi)``.

    Parameters
    ----------
    n : int
        Odd dimension (even ``n`` has ties ``<B, x> = 0``).
    exact : bool
        A ``Fraction`` if true, else a float computed in log space (any ``n``).

    Raises
    ------
    TypeError, ValueError
        If ``n`` is not an odd integer >= 1.
    """
    n = _check_odd(n, "n", "even n has ties <B, x> = 0")
    k = (n - 1) // 2
    if exact:
        return Fraction(math.comb(n - 1, k), 2 ** (n - 1))
    return math.exp(math.lgamma(n) - 2 * math.lgamma(k + 1) - (n - 1) * math.log(2))


def clipped_hebb(X: Any, y: Any) -> np.ndarray:
    """The clipped Hebb vectors ``sign(sum_mu y_mu x_mu)`` of one or many training sets (chapter 7).

    Parameters
    ----------
    X : array_like, shape (..., p, n), entries in {-1, 1}
        Inputs; leading axes index independent training sets.
    y : array_like, shape (..., p), entries in {-1, 1}
        Their labels.

    Returns
    -------
    ndarray of int8, shape (..., n)
        The weights in {-1, 1}. A zero sum (possible only for even ``p``) gives +1, the
        chapter's convention that ``<w, u> >= 0`` is positive.

    Raises
    ------
    TypeError, ValueError
        If an entry of ``X`` or ``y`` is not -1 or +1, or the shapes do not match.
    """
    X = _check_signs(X, "X")
    y = _check_signs(y, "y")
    if X.ndim < 2 or y.shape != X.shape[:-1]:
        raise ValueError(f"y must have shape X.shape[:-1] = {X.shape[:-1]} for X of shape (..., p, n), got {y.shape}")
    h = np.einsum("...pn,...p->...n", X.astype(np.int64), y.astype(np.int64))
    return np.where(h >= 0, 1, -1).astype(np.int8)


def clipped_hebb_students(teacher: Any, p: int, trials: int, rng: np.random.Generator) -> np.ndarray:
    """``trials`` independent clipped Hebb students, each from ``p`` fresh examples (chapter 7).

    Each student is ``sign(u_1 + ... + u_p)`` with ``u_mu`` uniform on the positive half-cube of
    ``teacher`` (``streams.positive_halfcube``), which is the law of ``sigma_mu x_mu`` for uniform
    inputs labelled by the teacher. The draws are made in blocks of at most about 2^24 entries.

    Parameters
    ----------
    teacher : array_like, shape (n,), entries in {-1, 1}, ``n`` odd
    p : int
        Odd number of examples (so the sums have no ties).
    trials : int
        Number of independent students (>= 1).
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of int8, shape (trials, n)
    """
    teacher = check_sign_vector(teacher, "teacher")
    n = _check_odd(teacher.size, "teacher's length n", "even n has ties <B, x> = 0")
    p = _check_odd(p, "p", "even p can tie the vote")
    trials = check_int(trials, "trials", low=1)
    rng = check_rng(rng)
    block = max(1, 2**24 // (p * n))
    out = np.empty((trials, n), dtype=np.int8)
    for start in range(0, trials, block):
        stop = min(trials, start + block)
        U = positive_halfcube(teacher, (stop - start) * p, rng).reshape(stop - start, p, n)
        out[start:stop] = np.where(U.sum(axis=1, dtype=np.int32) > 0, 1, -1)
    return out


def clipped_hebb_agreement(n: int, p: int, exact: bool | None = None) -> Fraction | float:
    """``P(w_i = B_i)`` for one coordinate of the clipped Hebb student (chapter 7, the theorem).

    The ``p`` terms ``B_i sigma_mu x_mu,i`` are independent signs with mean ``m_n``
    (``hebb_drift``), so the coordinate agrees with the teacher iff more than ``p/2`` of them
    are +1: the probability is ``P(Bin(p, (1 + m_n)/2) > p/2)``.

    Parameters
    ----------
    n : int
        Odd dimension.
    p : int
        Odd number of examples.
    exact : bool or None
        ``True``: a ``Fraction`` (integer arithmetic, cost grows like ``n p^2``); ``False``:
        a float from ``scipy.stats.binom``; ``None``: exact when ``n * p <= 300000``.

    Raises
    ------
    TypeError, ValueError
        If ``n`` or ``p`` is not an odd integer >= 1.
    """
    n = _check_odd(n, "n", "even n has ties <B, x> = 0")
    p = _check_odd(p, "p", "even p can tie the vote")
    if exact is None:
        exact = n * p <= EXACT_LIMIT
    if not exact:
        from scipy.stats import binom

        return float(binom.sf(p // 2, p, (1 + hebb_drift(n, exact=False)) / 2))
    # (1 + m_n)/2 = a / 2^n with a = 2^(n-1) + C(n-1, (n-1)/2); the law is exact in integers
    a = 2 ** (n - 1) + math.comb(n - 1, (n - 1) // 2)
    b = 2**n - a
    # sum_{k > p/2} C(p, k) a^k b^(p-k) = a^K sum_j C(p, K + j) a^j b^(J-j), by Horner's rule in a
    # (big times small products only, so the cost grows like n p^2)
    K = p // 2 + 1
    J = p - K
    total, b_power = math.comb(p, p), 1
    for i in range(1, J + 1):
        b_power *= b
        total = total * a + math.comb(p, p - i) * b_power
    return Fraction(total * a**K, 2 ** (n * p))


def clipped_hebb_overlap_limit(alpha: Any) -> Any:
    """``erf(sqrt(alpha/pi))``: the clipped Hebb overlap with a binary teacher at ``p = alpha n``.

    Chapter 7's theorem: the per-coordinate agreement tends to ``Phi(sqrt(2 alpha/pi))``, and the
    overlap ``R = 2 Phi - 1 = erf(sqrt(alpha/pi))``. Vectorised.

    Parameters
    ----------
    alpha : float or array_like
        Examples per weight, ``>= 0``.

    Raises
    ------
    TypeError, ValueError
        If ``alpha`` is not real, is NaN or infinite, or is negative.
    """
    from scipy.special import erf

    arr = np.asarray(alpha)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number):
        raise TypeError(f"alpha must be a real number >= 0, got dtype {arr.dtype}")
    arr = arr.astype(float)
    bad = ~np.isfinite(arr) | (arr < 0)
    if bad.any():
        raise ValueError(f"alpha must be a finite real number >= 0, got {arr[bad].flat[0].item()!r}")
    out = erf(np.sqrt(arr / np.pi))
    return float(out) if out.ndim == 0 else out


def sign_disagreement(n: int, d: int, exact: bool = True) -> Fraction | float:
    """Probability that ``w`` and ``B`` at Hamming distance ``d`` label a uniform input differently.

    With ``A`` the ``n - d`` coordinates where they agree and ``D`` the ``d`` where they differ,
    ``<B, x> = X + Y`` and ``<w, x> = X - Y`` with ``X``, ``Y`` independent sums of ``n - d`` and
    ``d`` random signs; for odd ``n`` neither is 0, and the signs differ iff ``|X| < |Y|``
    (chapter 7). Tends to ``arccos(1 - 2d/n)/pi`` when ``d/n`` converges.

    Parameters
    ----------
    n : int
        Odd dimension.
    d : int
        Distance, ``0 <= d <= n``.
    exact : bool
        A ``Fraction`` if true, else its float value.

    Raises
    ------
    TypeError, ValueError
        If ``n`` is not odd and >= 1 or ``d`` is not an integer in ``[0, n]``.
    """
    n = _check_odd(n, "n", "even n has ties <B, x> = 0")
    d = check_int(d, "d", low=0, high=n)
    # below[y] = number of K with |2K - (n - d)| < y, for the values y = |2L - d| <= n
    abs_x = [abs(2 * k - (n - d)) for k in range(n - d + 1)]
    weight = [0] * (n + 2)
    for k, v in enumerate(abs_x):
        weight[v] += math.comb(n - d, k)
    below = [0] * (n + 2)
    for y in range(1, n + 2):
        below[y] = below[y - 1] + weight[y - 1]
    count = sum(math.comb(d, ell) * below[abs(2 * ell - d)] for ell in range(d + 1))
    value = Fraction(count, 2**n)
    return value if exact else float(value)


def ehrenfest_transition(n: int) -> list[list[Fraction]]:
    """The Ehrenfest urn's transition matrix on {0, ..., n}, in exact fractions (chapter 7).

    From ``k`` balls in the first urn, a uniformly chosen ball changes urn: ``k -> k - 1`` with
    probability ``k/n`` and ``k -> k + 1`` with probability ``(n - k)/n``.

    Raises
    ------
    TypeError, ValueError
        If ``n`` is not an integer >= 1.
    """
    n = check_int(n, "n", low=1)
    P = [[Fraction(0)] * (n + 1) for _ in range(n + 1)]
    for k in range(n + 1):
        if k > 0:
            P[k][k - 1] = Fraction(k, n)
        if k < n:
            P[k][k + 1] = Fraction(n - k, n)
    return P


def ehrenfest_stationary(n: int) -> list[Fraction]:
    """The stationary law ``C(n, k) / 2^n`` of the Ehrenfest urn, exact (chapter 7).

    Raises
    ------
    TypeError, ValueError
        If ``n`` is not an integer >= 1.
    """
    n = check_int(n, "n", low=1)
    return [Fraction(math.comb(n, k), 2**n) for k in range(n + 1)]


def ehrenfest_return_times(n: int) -> list[Fraction]:
    """Mean return time to each state of the Ehrenfest urn, by solving first-step equations.

    For each target ``k``, the mean hitting times ``h_j`` of ``k`` solve ``h_k = 0`` and
    ``h_j = 1 + sum_i P(j, i) h_i`` (``j != k``); the return time is ``1 + sum_i P(k, i) h_i``.
    The systems are solved by exact Gaussian elimination on fractions (cost ``O(n^4)`` in all,
    meant for small ``n``), independently of Kac's formula (``kac_return_time``).

    Raises
    ------
    TypeError, ValueError
        If ``n`` is not an integer in [1, 60].
    """
    n = check_int(n, "n", low=1, high=60)
    P = ehrenfest_transition(n)
    times = []
    for k in range(n + 1):
        others = [j for j in range(n + 1) if j != k]
        A = [[Fraction(int(i == j)) - P[j][i] for i in others] for j in others]
        h = dict(zip(others, solve_exact(A, [1] * len(others)), strict=True))
        h[k] = Fraction(0)
        times.append(1 + sum(P[k][i] * h[i] for i in range(n + 1)))
    return times


def kac_return_time(n: int, k: int) -> Fraction:
    """Kac's mean return time ``2^n / C(n, k)`` to ``k`` balls in the first urn (chapter 7).

    Raises
    ------
    TypeError, ValueError
        If ``n`` is not an integer >= 1 or ``k`` not an integer in ``[0, n]``.
    """
    n = check_int(n, "n", low=1)
    k = check_int(k, "k", low=0, high=n)
    return Fraction(2**n, math.comb(n, k))


def ehrenfest_mean(n: int, x0: int, t: Any) -> Any:
    """``E[X_t] = n/2 + (1 - 2/n)^t (x0 - n/2)`` for the Ehrenfest urn started at ``x0`` (chapter 7).

    Parameters
    ----------
    n : int
        Number of balls, >= 1.
    x0 : int
        Start, in ``[0, n]``.
    t : int or array_like of int
        Time(s) >= 0. An int gives an exact ``Fraction``; an array gives floats.

    Raises
    ------
    TypeError, ValueError
        If an argument is not an integer in its range.
    """
    n = check_int(n, "n", low=1)
    x0 = check_int(x0, "x0", low=0, high=n)
    if np.ndim(t) == 0:
        t = check_int(t, "t", low=0)
        return Fraction(n, 2) + (1 - Fraction(2, n)) ** t * (x0 - Fraction(n, 2))
    arr = np.asarray(t)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"t must hold integers >= 0, got dtype {arr.dtype}")
    if (arr < 0).any():
        raise ValueError(f"t must hold integers >= 0, got {arr[arr < 0].flat[0].item()!r}")
    return n / 2 + (1 - 2 / n) ** arr.astype(float) * (x0 - n / 2)
