"""Compiled kernels (numba) for the kernel Perceptron's block engine (chapter 6, Theorem 3).

``onlinelib.kernels`` imports this module at the first ``scan``, so ``import onlinelib``
loads no numba.

Instances are packed 64 to a machine word (``pack_rows``), so a kernel count is a few
popcounts: samepos(x, z) = popcount(x & z) and same(x, z) = n - popcount(x ^ z).

``plan_updates`` plays the kernel Perceptron over a stream in compiled code and records
the rounds on which it updates, deciding each round from the *sign* of its score
s = sum_i S_i K(x, z_i), an integer. It sums the kernel values in IEEE doubles, together
with a = sum_i K(x, z_i), and takes a decision only when the floats certify it:

* if a < 2^53 (as a double), every term and every partial sum is an integer below 2^53,
  so the double sum *is* s (no rounding happened);
* otherwise, with u = 2^-53, recursive summation of k terms (each table value itself
  rounded once) is off by at most 1.03 k u a while k u <= 0.01 (k < 2^46, far beyond
  any array here), so if |double sum| > 2 (k + 1) u a, s has the sign of the double
  sum and is not 0.

Any other round (a score near 0 relative to its terms, or an overflow to inf/nan) is
returned to the caller, which computes that score exactly in Python integers. So every
decision equals the one the exact integer score gives, which is what the
example-by-example loop computes.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._kernels import popcount as _popcount

#: Below this, a sum of integer doubles is exact (every partial sum is an integer < 2^53).
EXACT_BELOW = 2.0**53
#: 2 u = 2^-52: the factor of the certified error bound (see the module docstring).
TWO_U = 2.0**-52


def pack_rows(X: np.ndarray) -> np.ndarray:
    """Boolean rows (T, n) as a (T, ceil(n / 64)) uint64 array of bits (zero padding)."""
    T, n = X.shape
    words = max(1, (n + 63) // 64)
    packed = np.zeros((T, 8 * words), dtype=np.uint8)
    packed[:, : (n + 7) // 8] = np.packbits(X, axis=1)
    return packed.view(np.uint64)


@njit(cache=True, nogil=True, inline="always")
def _sums(x, sup, signs, k, table, n, monotone):
    """(sum_i signs[i] K(x, z_i), sum_i K(x, z_i)) over the first k rows of sup, in doubles.

    One loop per case (one word, two words, more; monotone or not), so that the
    compiler keeps x in registers and the count a few instructions.
    """
    words = x.shape[0]
    s = 0.0
    a = 0.0
    if words == 1:
        x0 = x[0]
        if monotone:
            for i in range(k):
                v = table[_popcount(x0 & sup[i, 0])]
                s += signs[i] * v
                a += v
        else:
            for i in range(k):
                v = table[n - _popcount(x0 ^ sup[i, 0])]
                s += signs[i] * v
                a += v
    elif words == 2:
        x0 = x[0]
        x1 = x[1]
        if monotone:
            for i in range(k):
                v = table[_popcount(x0 & sup[i, 0]) + _popcount(x1 & sup[i, 1])]
                s += signs[i] * v
                a += v
        else:
            for i in range(k):
                v = table[n - _popcount(x0 ^ sup[i, 0]) - _popcount(x1 ^ sup[i, 1])]
                s += signs[i] * v
                a += v
    elif monotone:
        for i in range(k):
            c = 0
            for w in range(words):
                c += _popcount(x[w] & sup[i, w])
            v = table[c]
            s += signs[i] * v
            a += v
    else:
        for i in range(k):
            c = 0
            for w in range(words):
                c += _popcount(x[w] ^ sup[i, w])
            v = table[n - c]
            s += signs[i] * v
            a += v
    return s, a


@njit(cache=True, nogil=True)
def plan_updates(rows, labels, t, sup, signs, k, m, rounds, predictions, table, n, monotone, convention):
    """Play rounds t, t+1, ... of the kernel Perceptron; record the rounds that update.

    Parameters
    ----------
    rows : uint64 (T, W), the packed stream; labels : int8 (T,)
    sup : uint64 (capacity, W), the packed members of M (first k in use); signs : float64
        (capacity,), their labels S(z) as +-1.0. A round that updates appends its row.
    rounds : int64, predictions : int8, the updating rounds found so far (first m in use).
    table : float64 (n + 1,), K as a function of the count (inf past the doubles).
    convention : 0 "nonnegative", 1 "positive", 2 "margin" (see ``KernelPerceptron``).

    Returns
    -------
    (t, k, m, evaluations) : t = T if every round was decided, else the round whose sign the
    doubles cannot certify (its kernel values are not counted in ``evaluations``).
    """
    T, words = rows.shape
    evaluations = 0
    while t < T:
        x = rows[t]
        s, a = _sums(x, sup, signs, k, table, n, monotone)
        if not a < EXACT_BELOW and not abs(s) > TWO_U * (k + 1) * a:
            return t, k, m, evaluations  # not certified (nan and inf fail both tests)
        evaluations += k
        label = labels[t]
        if convention == 1:
            prediction = 1 if s > 0.0 else -1
        else:
            prediction = 1 if s >= 0.0 else -1
        if convention == 2:
            fires = label * s <= 0.0
        else:
            fires = prediction != label
        if fires:
            for w in range(words):
                sup[k, w] = x[w]
            signs[k] = label
            rounds[m] = t
            predictions[m] = prediction
            k += 1
            m += 1
        t += 1
    return t, k, m, evaluations
