"""Compiled kernels (numba) for the linear-threshold learners (chapters 2-4).

The score of a row is defined as the *sequential* sum
``((0 + x_0 w_0) + x_1 w_1) + ... + x_{d-1} w_{d-1}) + b``, each operation rounded
in IEEE double precision, with no fused multiply-add and no reordering (numba
compiles without fast-math, so LLVM may neither reassociate nor contract). Every
function here computes exactly that, whether it scores one row or scans a
million, so a block scan and the example-by-example loop take identical
decisions. For a sparse row the sum runs over the stored entries in increasing
column order, which is the same number: adding a product equal to zero leaves
a finite sum unchanged.

``first_change_*`` return ``(i, code, score)`` for the first row i on which the
learner's state would change (``CHANGE``), or that cannot be scored (one of the
error codes below), or ``(n, NONE, 0.0)`` if there is none; ``score`` is that
row's score. A row changes the state when its signed margin
g = orientation * (score - threshold) * y is negative, or zero with
``flag_at_zero[y > 0]`` set.

A CSR stream is read where it is, never copied: ``first_change_sparse`` checks each
row's canonical form as it scores it (column indices strictly increasing and in
range, no stored zeros; entries equal to 1 for a Boolean learner) and stops at the
first row that breaks it, which the caller then handles (``onlinelib.linear``).

``play_*`` run a whole stream with the learner's update rule compiled as well
(chapter 2's Winnow1, chapter 3's Perceptron, chapter 4's Winnow2): they alternate
``first_change_*`` with the rule applied in place, write the prediction of every
changing round, count the changes on positive and on negative labels, and return
``(i, code)``: ``(n, NONE)`` at the end, or the round and code of the row that stopped them.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

NONE, CHANGE, NOT_FINITE, NOT_BOOLEAN, BAD_INDEX, NOT_CANONICAL, BAD_INDPTR = range(7)
ADDITIVE, ELIMINATE, MULTIPLY = range(3)  # the update rules: Perceptron, Winnow1, Winnow2


@intrinsic
def popcount(typingctx, x):
    """The number of one bits of a uint64, as an int64 (LLVM's ctpop: one instruction with POPCNT).

    Used by the kernel Perceptron's engine (``_kernels_boolean``) and Directed Drift's vote
    tallies (``_kernels_drift``).
    """
    if not isinstance(x, types.Integer):
        return None
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@njit(cache=True, nogil=True)
def dense_score(x, w, bias):
    s = 0.0
    for k in range(x.shape[0]):
        s += x[k] * w[k]
    return s + bias


@njit(cache=True, nogil=True)
def sparse_score(indices, data, w, bias):
    s = 0.0
    for p in range(indices.shape[0]):
        s += data[p] * w[indices[p]]
    return s + bias


@njit(cache=True, nogil=True)
def _verdict(s, y, threshold, orientation, flag_at_zero_negative, flag_at_zero_positive):
    """0: no change, 1: the state changes, 2: the score is not finite."""
    if not np.isfinite(s):
        return 2
    g = orientation * (s - threshold) * y
    if g < 0.0:
        return 1
    if g == 0.0:
        if y > 0:
            return 1 if flag_at_zero_positive else 0
        return 1 if flag_at_zero_negative else 0
    return 0


@njit(cache=True, nogil=True)
def first_change_dense(X, y, w, bias, threshold, orientation, flag0_negative, flag0_positive):
    n, d = X.shape
    i = 0
    # Eight rows at a time: eight independent sums keep the floating-point unit
    # busy, and each row's own sum is still computed in the sequential order.
    while i + 8 <= n:
        s0 = 0.0
        s1 = 0.0
        s2 = 0.0
        s3 = 0.0
        s4 = 0.0
        s5 = 0.0
        s6 = 0.0
        s7 = 0.0
        for k in range(d):
            wk = w[k]
            s0 += X[i, k] * wk
            s1 += X[i + 1, k] * wk
            s2 += X[i + 2, k] * wk
            s3 += X[i + 3, k] * wk
            s4 += X[i + 4, k] * wk
            s5 += X[i + 5, k] * wk
            s6 += X[i + 6, k] * wk
            s7 += X[i + 7, k] * wk
        for r, s in enumerate((s0, s1, s2, s3, s4, s5, s6, s7)):
            code = _verdict(s + bias, y[i + r], threshold, orientation, flag0_negative, flag0_positive)
            if code:
                return i + r, code, s + bias
        i += 8
    while i < n:
        s = 0.0
        for k in range(d):
            s += X[i, k] * w[k]
        code = _verdict(s + bias, y[i], threshold, orientation, flag0_negative, flag0_positive)
        if code:
            return i, code, s + bias
        i += 1
    return n, 0, 0.0


@njit(cache=True, nogil=True)
def first_change_sparse(
    indptr, indices, data, y, start, w, bias, threshold, orientation, flag0_negative, flag0_positive, boolean
):
    n = indptr.shape[0] - 1
    d = w.shape[0]
    nnz = indices.shape[0]
    for i in range(start, n):
        lo = indptr[i]
        hi = indptr[i + 1]
        if lo < 0 or lo > hi or hi > nnz:
            return i, BAD_INDPTR, 0.0
        s = 0.0
        previous = -1
        odd = 1.0  # an entry other than 1: an error for a Boolean learner, once the row is known canonical
        # unsigned positions and indices: numba then emits no negative-index wraparound,
        # which would cost a third of the time (the checks here keep them in range)
        p = np.uint64(lo)
        end = np.uint64(hi)
        while p < end:
            k = indices[p]
            if k <= previous or k >= d:
                return i, (BAD_INDEX if k < 0 or k >= d else NOT_CANONICAL), 0.0
            previous = k
            x = data[p] * 1.0
            if x != 1.0:
                if x == 0.0:
                    return i, NOT_CANONICAL, 0.0
                odd = x
            s += x * w[np.uint64(k)]
            p += np.uint64(1)
        if boolean and odd != 1.0:
            return i, NOT_BOOLEAN, odd
        code = _verdict(s + bias, y[i], threshold, orientation, flag0_negative, flag0_positive)
        if code:
            return i, code, s + bias
    return n, NONE, 0.0


@njit(cache=True, nogil=True)
def _prediction(s, threshold, orientation, positive_at_threshold):
    side = orientation * (s - threshold)
    return 1 if side > 0.0 or (side == 0.0 and positive_at_threshold) else -1


@njit(cache=True, nogil=True)
def _changed_value(value, x, label, rule, alpha):
    """A weight after the update of an active feature with value x (x != 0) on label ``label``."""
    if rule == ADDITIVE:
        return value + label * x
    if rule == ELIMINATE:
        return value * 2.0 if label > 0 else 0.0
    return value * alpha if label > 0 else value / alpha


@njit(cache=True, nogil=True)
def play_dense(
    X,
    y,
    start,
    w,
    state,
    threshold,
    orientation,
    flag0_negative,
    flag0_positive,
    positive_at_threshold,
    rule,
    alpha,
    use_bias,
    predictions,
    counts,
):
    """Rounds start.. of a dense stream; ``state[0]`` is the bias, updated in place with w."""
    n, d = X.shape
    i = start
    while i < n:
        j, code, s = first_change_dense(
            X[i:], y[i:], w, state[0], threshold, orientation, flag0_negative, flag0_positive
        )
        i += j
        if code != CHANGE:
            return i, code
        label = y[i]
        predictions[i] = _prediction(s, threshold, orientation, positive_at_threshold)
        for k in range(d):
            if X[i, k] != 0.0:
                w[k] = _changed_value(w[k], X[i, k], label, rule, alpha)
        if use_bias:
            state[0] += label
        counts[0 if label > 0 else 1] += 1
        i += 1
    return n, NONE


@njit(cache=True, nogil=True)
def play_sparse(
    indptr,
    indices,
    data,
    y,
    start,
    w,
    state,
    threshold,
    orientation,
    flag0_negative,
    flag0_positive,
    positive_at_threshold,
    rule,
    alpha,
    use_bias,
    boolean,
    predictions,
    counts,
):
    """Rounds start.. of a CSR stream, as ``play_dense``; stops at a row that is not canonical."""
    n = indptr.shape[0] - 1
    i = start
    while i < n:
        i, code, s = first_change_sparse(
            indptr, indices, data, y, i, w, state[0], threshold, orientation, flag0_negative, flag0_positive, boolean
        )
        if code != CHANGE:
            return i, code
        label = y[i]
        predictions[i] = _prediction(s, threshold, orientation, positive_at_threshold)
        for p in range(indptr[i], indptr[i + 1]):
            w[indices[p]] = _changed_value(w[indices[p]], data[p] * 1.0, label, rule, alpha)
        if use_bias:
            state[0] += label
        counts[0 if label > 0 else 1] += 1
        i += 1
    return n, NONE


@njit(cache=True, nogil=True)
def normalized_perceptron_reduced(a, b, r, x0, x1, g, teacher, positive, steps_eta, k0, k1, T0, T1, chi_df, rng):
    """Examples k0..k1-1 of a block of the reduced normalized-perceptron simulation (chapter 8).

    The same operations, in the same order, as the numpy loop it replaces:
    every run's score h = a x0 + b x1 + r g; on a mistake, the update of
    (a, b, r) with one chi-square draw (``chi_df`` > 0) from ``rng``, the runs
    taken in increasing order. numba's Generator methods draw exactly as
    numpy's, so a seed gives the same numbers either way. Updates a, b, r in
    place.
    """
    runs = a.shape[0]
    for k in range(k0, k1):
        for i in range(runs):
            h = a[i] * x0[k, i]
            h += b[i] * x1[k, i]
            h += r[i] * g[k, i]
            if (h >= 0.0) != positive[k, i]:
                c = steps_eta[k] * teacher[k, i]
                aw = a[i] + c * (x0[k, i] - T0)
                bw = b[i] + c * (x1[k, i] - T1)
                chi = rng.chisquare(chi_df) if chi_df > 0 else 0.0
                s = r[i] + c * g[k, i]
                rw = np.sqrt(s * s + c * c * chi)
                norm = np.sqrt(aw * aw + bw * bw + rw * rw)
                a[i] = aw / norm
                b[i] = bw / norm
                r[i] = rw / norm


@njit(cache=True, nogil=True)
def halfcube_column_sums(raw, n, signs, per_group, out):
    """Column sums of half-cube draws given as packed bits (chapter 7, Directed Drift's batch votes).

    Row r of ``raw`` holds the bits of one uniform draw x in {-1, 1}^n (bit k,
    big-endian within each byte, is 1 for x_k = +1); ``signs[r]`` is +1 or -1,
    the sign that maps it into the half-cube. Adds signs[r] * x to
    out[r // per_group], so out[g] is the sum of group g's draws.
    """
    for row in range(raw.shape[0]):
        g = row // per_group
        s = signs[row]
        for k in range(n):
            bit = (raw[row, k >> 3] >> (7 - (k & 7))) & 1
            out[g, k] += s * (2 * bit - 1)
