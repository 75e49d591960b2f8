"""Chapter 7 ("Binary weights: Directed Drift"): the batch modes' exact recursion and proved bounds.

* ``literal_ideal_mistakes`` is E[M] of the literal D4'' when every flip is good (an exact
  recursion over the distance, from the distance-chain lemma).
* ``single_bit_bad_bound`` is the union bound beta of the theorem on D4' (single-bit batches make
  O(n) mistakes), ``majority_fail_bound`` the union bound gamma of the theorem on the majority
  reading of D4'' (O(1) mistakes); both for odd n, where each coordinate of a positive example
  has mean q_1 = C(n-1, (n-1)/2) 2^(1-n).

Split from ``onlinelib.chapters.directed_drift``, which re-exports all three.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from ..directed_drift import _log_comb, multi_bit_batch_size, single_bit_batch_size
from ..validation import check_int

__all__ = ["literal_ideal_mistakes", "majority_fail_bound", "single_bit_bad_bound"]


def literal_ideal_mistakes(n: int, by_distance: bool = False) -> Any:
    """E[M] of the literal D4'' if every flip is good (chapter 7, literal D4'').

    A mistake at distance d with Y = <w, u> flips r = floor((1 - Y)/2) <= d coordinates; if
    the votes always pick wrong ones, the distance moves from d to d - r, and the law of r
    given d follows from the distance-chain lemma (w* = 1, K and L the +1 entries of u
    among the right and the wrong coordinates). The recursion
    E[M | d] = 1 + sum_r P(r | d) E[M | d - r], E[M | 0] = 0, is evaluated in floats
    (log-binomial weights).

    Parameters
    ----------
    n : int in [1, 1001] (the cost grows like n^3)
    by_distance : bool
        False: E[M] from a uniformly random start (d ~ Bin(n, 1/2)), a float. True: the array
        of E[M | d] for d = 0..n.
    """
    n = check_int(n, "n", 1, 1001)
    expected = np.zeros(n + 1)
    for d in range(1, n + 1):
        K = np.arange(n - d + 1)[:, None]
        L = np.arange(d + 1)[None, :]
        X, Y_d = 2 * K - (n - d), 2 * L - d
        mistake = (X + Y_d >= 0) & (X < Y_d)
        weight = np.where(mistake, np.exp(_log_comb(n - d, K) + _log_comb(d, L) - n * math.log(2)), 0.0)
        r = np.where(mistake, (1 - (X - Y_d)) // 2, 0)
        expected[d] = 1 + (weight * expected[d - r]).sum() / weight.sum()
    if by_distance:
        return expected
    start = np.exp(_log_comb(n, np.arange(n + 1)) - n * math.log(2))
    return float(start @ expected)


def _odd_n_and_votes(n: Any, m: Any, default: Callable[[int], int]) -> tuple[int, int, float]:
    n = check_int(n, "n", 3)
    if n % 2 == 0:
        raise ValueError(f"n must be odd (the bound uses E[u_k] = q_1, proved for odd n), got {n}")
    m = default(n) if m is None else check_int(m, "m", 2)
    q1 = float(Fraction(math.comb(n - 1, (n - 1) // 2), 2 ** (n - 1)))
    return n, m, q1


def single_bit_bad_bound(n: int, m: int | None = None) -> tuple[float, int]:
    """The chapter's bound beta on P(bad flip | past) for D4' at odd n (chapter 7, D4' theorem).

    With N = m - 1 fresh votes and q_1 = C(n-1, (n-1)/2) 2^(1-n), a wrong coordinate collects
    at least Bin(N, (1 + q_1)/2) votes and a right one at most 1 + Bin(N, (1 - q_1)/2), so

        beta = min over tau of P(Bin(N, (1 + q_1)/2) <= tau) + (n - 1) P(Bin(N, (1 - q_1)/2) >= tau).

    Parameters
    ----------
    n : odd int >= 3
    m : int >= 2, optional (default ``single_bit_batch_size(n)``)

    Returns
    -------
    (beta, tau): the bound (capped at 1) and the tau that attains it.
    """
    from scipy.stats import binom

    n, m, q1 = _odd_n_and_votes(n, m, single_bit_batch_size)
    N = m - 1
    tau = np.arange(N + 2)
    total = binom.cdf(tau, N, (1 + q1) / 2) + (n - 1) * binom.sf(tau - 1, N, (1 - q1) / 2)
    best = int(np.argmin(total))
    return float(min(1.0, total[best])), best


def majority_fail_bound(n: int, m: int | None = None) -> float:
    """The chapter's bound gamma on P(w != w* after a majority update | past), odd n (chapter 7).

    A coordinate is wrong after the update only if at least m/2 of the m votes (the mistaken
    example and N = m - 1 fresh ones) have the wrong sign, so only if Bin(N, (1 - q_1)/2)
    >= ceil(m/2) - 1; a union bound over the n coordinates gives

        gamma = n P(Bin(N, (1 - q_1)/2) >= ceil(m/2) - 1).

    Parameters
    ----------
    n : odd int >= 3
    m : int >= 2, optional (default ``multi_bit_batch_size(n)``)

    Returns
    -------
    float, gamma (not capped: a value >= 1 says the bound is void)
    """
    from scipy.stats import binom

    n, m, q1 = _odd_n_and_votes(n, m, multi_bit_batch_size)
    k = -(-m // 2) - 1
    return float(n * binom.sf(k - 1, m - 1, (1 - q1) / 2))
