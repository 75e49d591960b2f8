"""Compiled kernels (numba) for Weighted Majority and Randomized Weighted Majority (chapter 5).

Loaded on first use by ``onlinelib.experts``, so ``import onlinelib`` loads no numba.

**Weights.** Expert i's weight is (1 - eta)^(c_i - r), where c_i is its mistakes so far
and r a reference count: the float vote and total only need the weights up to a common
factor. Each weight is a double-double (hi + lo, |lo| <= u hi, u = 2^-53), multiplied by
1 - eta = bh + bl (exactly: bl is the rest of a binary fraction, see ``experts._rate_pair``)
when its expert errs, with fused multiply-adds. One product has relative error at most
6.01 u^2 (chapter 5, Lemma "the float vote", part (b): the two roundings of the lo part and the
dropped lo * bl, with no underflow while the weight is >= 2^-960), so after k products hi + lo
is within (1 + 6.01 u^2)^k - 1 of the exact power and hi within u more. r is the smallest count at the last
*renormalisation*, which happens when the total weight Phi falls below 2^-300: the
weights are then reset from ``table`` (table[k] = (1 - eta)^k, double-double, the
same chain of products) with r the smallest count now. A weight below 2^-960 is set
to 0 (as ``table``'s entries are): at that point it is below 2^-600 Phi, so it moves
neither the vote's sign test below nor F_t, and no subnormal number is ever formed
(they are slow). With eta = 1 the weights are 1 and 0 and r stays 0.

**Decisions.** ``wma_rows`` decides each round's vote S = sum_i p_i w_i as
``experts.WeightedMajority.predict`` does. The float vote (summed in any order: the bound
used holds for every order) is trusted when abs(S) > ``tolerance`` * Phi, the tolerance of
``float_vote._tie_tolerance``, which exceeds the margin ``float_vote.vote_error_bound`` of Lemma "the
float vote" of chapter 5 for these weights (eps above, tau = 2^-959, Phi >= 2^-300 after the
renormalisation). Otherwise the experts are grouped by their excess e_i = c_i - min_j c_j and
the net advice n_e of each group is formed in integers: if every n_e is 0 the vote is
an exact tie; if one group is left, its sign is the vote's; if the integer form
sum_e n_e a^(e - e0) 2^(q (E - e)) of the vote (1 - eta = a / 2^q) fits in 62 bits it
is computed; else the float sum over the groups (the table's powers, relative to the
lowest group), whose error is at most (1e-12 + 4 (k + 2) 2^-53) sum_e |n_e| w_e for k
groups, plus 2^-950 sum_e |n_e| for the powers set to 0, decides it if it is larger than
that. Only a vote that passes none of these is handed back to Python
(status 1), which decides it with big integers (``experts._exact_vote_sign``) and
resumes with that prediction forced.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.core.extending import intrinsic

# Reassociation lets LLVM keep several partial sums in vector registers; the error bound of a
# sum of n terms, (n - 1) 2^-53 sum |terms|, holds for every order of the additions. Only the
# sums of ``_vote_total`` carry these flags: the double-double products must not be reordered.
_SUM_FLAGS = {"reassoc", "contract"}
TINY = 2.0**-960  # weights below this are set to 0
RENORMALISE_BELOW = 2.0**-300  # the total weight below which the weights are reset from the table


@intrinsic
def _fma(typingctx, a, b, c):
    """a * b + c with one rounding (LLVM's llvm.fma.f64)."""
    sig = types.float64(types.float64, types.float64, types.float64)

    def codegen(context, builder, signature, args):
        return builder.fma(*args)

    return sig, codegen


@njit(cache=True, nogil=True)
def power_table(bh, bl, n):
    """(hi, lo): (bh + bl)^k for k = 0 .. n-1 as double-doubles, set to 0 from the first below ``TINY``."""
    hi = np.zeros(n)
    lo = np.zeros(n)
    h = 1.0
    v = 0.0
    for k in range(n):
        if h < TINY:
            break
        hi[k] = h
        lo[k] = v
        ph = h * bh
        pl = _fma(v, bh, _fma(h, bl, _fma(h, bh, -ph)))
        h = ph + pl
        v = pl - (h - ph)
    return hi, lo


@njit(cache=True, nogil=True, fastmath=_SUM_FLAGS)
def _vote_total(P, t, w):
    """(S, Phi, bad) = (sum_i P[t, i] w_i, sum_i w_i, whether an entry of row t is not ±1), any order."""
    s = 0.0
    phi = 0.0
    bad = 0
    for i in range(w.shape[0]):
        p = P[t, i]
        wi = w[i]
        s += p * wi
        phi += wi
        bad |= p * p != 1
    return s, phi, bad


@njit(cache=True, nogil=True)
def reset_weights(c, table_hi, table_lo, wh, wl, renormalise):
    """Weights from the counts: table[min(c_i - r, last)] with r = min c (0 if not ``renormalise``); returns r."""
    last = table_hi.shape[0] - 1
    r = 0
    if renormalise:
        r = c[0]
        for i in range(c.shape[0]):
            r = min(r, c[i])
    for i in range(c.shape[0]):
        k = min(c[i] - r, last)
        wh[i] = table_hi[k]
        wl[i] = table_lo[k]
    return r


@njit(cache=True, nogil=True)
def _update(P, t, yt, c, wh, wl, bh, bl):
    """Count round t's wrong experts and multiply their weights by 1 - eta (double-double)."""
    for i in range(c.shape[0]):
        wrong = P[t, i] != yt
        hi = wh[i]
        lo = wl[i]
        ph = hi * bh
        pl = _fma(lo, bh, _fma(hi, bl, _fma(hi, bh, -ph)))
        nh = ph + pl
        nl = pl - (nh - ph)
        keep = nh >= TINY
        wh[i] = (nh if keep else 0.0) if wrong else hi
        wl[i] = (nl if keep else 0.0) if wrong else lo
        c[i] += wrong


@njit(cache=True, nogil=True)
def _near_tie_sign(P, t, c, table_hi, a, q, net, stamp, levels):
    """The exact sign (-1, 0, 1) of round t's vote from the experts' groups, or 2 if undecided here.

    ``levels`` is scratch space for N excesses.
    """
    n = c.shape[0]
    last = table_hi.shape[0] - 1
    cmin = c[0]
    for i in range(n):
        cmin = min(cmin, c[i])
    k = 0
    for i in range(n):
        e = c[i] - cmin
        if stamp[e] != t + 1:
            stamp[e] = t + 1
            net[e] = 0
            levels[k] = e
            k += 1
        net[e] += P[t, i]
    groups = 0
    low = -1
    high = -1
    weight = 0
    for j in range(k):
        e = levels[j]
        if net[e] != 0:
            levels[groups] = e
            groups += 1
            weight += abs(net[e])
            low = e if low < 0 else min(low, e)
            high = max(high, e)
    if groups == 0:
        return 0
    if groups == 1:
        return 1 if net[low] > 0 else -1
    width = 0
    while (1 << width) <= weight:
        width += 1
    if q * (high - low) + width <= 62:
        total = 0
        for j in range(groups):
            e = levels[j]
            term = net[e]
            for _ in range(e - low):
                term *= a
            total += term << (q * (high - e))
        return (total > 0) - (total < 0)
    s = 0.0
    size = 0.0
    for j in range(groups):
        e = levels[j]
        v = table_hi[min(e - low, last)]
        s += net[e] * v
        size += abs(net[e]) * v
    if abs(s) > (1e-12 + 4.0 * (groups + 2) * 2.0**-53) * size + weight * 2.0**-950:
        return 1 if s > 0 else -1
    return 2


@njit(cache=True, nogil=True)
def _count_row(P, t, yt, c, sign):
    """c_i += sign where expert i errs in round t; returns whether row t has an entry other than ±1."""
    bad = 0
    for i in range(c.shape[0]):
        p = P[t, i]
        c[i] += sign * (p != yt)
        bad |= p * p != 1
    return bad


@njit(cache=True, nogil=True)
def _collect_active(wh, active):
    """Put the experts with a nonzero weight in active[:n], in increasing order; returns n."""
    n = 0
    for i in range(wh.shape[0]):
        if wh[i] > 0.0:
            active[n] = i
            n += 1
    return n


@njit(cache=True, nogil=True)
def _sparse_vote(P, t, wh, active, n_active):
    """(S, Phi) over the experts active[:n_active] (the others weigh 0)."""
    s = 0.0
    phi = 0.0
    for j in range(n_active):
        i = active[j]
        s += P[t, i] * wh[i]
        phi += wh[i]
    return s, phi


@njit(cache=True, nogil=True)
def _sparse_update(P, t, yt, wh, wl, bh, bl, active, n_active):
    """Multiply the weights of the active experts that err in round t by 1 - eta; returns the new n_active.

    An expert whose weight falls below ``TINY`` gets weight 0 and leaves the list.
    """
    j = 0
    while j < n_active:
        i = active[j]
        hi = wh[i]
        lo = wl[i]
        ph = hi * bh
        pl = _fma(lo, bh, _fma(hi, bl, _fma(hi, bh, -ph)))
        nh = ph + pl
        nl = pl - (nh - ph)
        wrong = P[t, i] != yt
        wh[i] = nh if wrong else hi
        wl[i] = nl if wrong else lo
        if wrong and nh < TINY:
            wh[i] = 0.0
            wl[i] = 0.0
            n_active -= 1
            active[j] = active[n_active]
        else:
            j += 1
    return n_active


@njit(cache=True, nogil=True)
def wma_rows(
    P, y, start, forced, c, wh, wl, bh, bl, table_hi, table_lo, renormalise, tolerance, a, q, pred, frac, net, stamp
):
    """Weighted Majority on rounds start.. of (P, y), updating the counts c and weights (wh, wl) in place.

    ``forced`` (+1 or -1) is the prediction of round ``start`` if not 0. ``tolerance`` < 0 means
    that the float vote is exact (eta = 1). ``net`` and ``stamp`` are scratch arrays with one
    entry per possible excess. Returns (t, status): status 0 when every round is done (t = T),
    1 when round t needs an exact decision in Python, 2 when every weight is 0 in round t
    (eta = 1), 3 when row t of P has an entry other than ±1; round t is then not yet counted.

    Two modes, the same numbers up to the order of the vote's sums: *dense*, vector loops over
    all experts; *sparse*, when at most N/8 experts have a nonzero weight (the others are
    at least 2^600 times lighter than the total, or out for good with eta = 1): one vector
    loop counts the mistakes of all experts, and the vote and the weight products run over
    the list of the experts with weight.
    """
    T, N = P.shape
    active = np.empty(N, dtype=np.int64)
    levels = np.empty(N, dtype=np.int64)
    n_active = _collect_active(wh, active)
    sparse = 8 * n_active <= N
    since_check = 0
    for t in range(start, T):
        yt = y[t]
        # the vote; in sparse mode the row is counted first (its one vector pass)
        if sparse:
            if _count_row(P, t, yt, c, 1):
                _count_row(P, t, yt, c, -1)
                return t, 3
            counted = True
            s, phi = _sparse_vote(P, t, wh, active, n_active)
        else:
            s, phi, bad = _vote_total(P, t, wh)
            if bad:
                return t, 3
            counted = False
        if renormalise and phi < RENORMALISE_BELOW:
            if counted:
                _count_row(P, t, yt, c, -1)
                counted = False
            reset_weights(c, table_hi, table_lo, wh, wl, True)
            n_active = _collect_active(wh, active)
            sparse = 8 * n_active <= N
            since_check = 0
            s, phi, bad = _vote_total(P, t, wh)
        if phi == 0.0:
            if counted:
                _count_row(P, t, yt, c, -1)
            return t, 2
        # the decision: the float sign, unless the vote is within its error bound of 0
        p = 1 if s >= 0.0 else -1
        if t == start and forced != 0:
            p = forced
        elif tolerance >= 0.0 and abs(s) <= tolerance * phi:
            if counted:
                _count_row(P, t, yt, c, -1)
            sign = _near_tie_sign(P, t, c, table_hi, a, q, net, stamp, levels)
            if sign == 2:
                return t, 1
            p = 1 if sign >= 0 else -1
            if counted:
                _count_row(P, t, yt, c, 1)
        pred[t] = p
        f = (phi - yt * s) / (2.0 * phi)
        frac[t] = min(max(f, 0.0), 1.0)
        # the update
        if sparse:
            if not counted:
                _count_row(P, t, yt, c, 1)
            n_active = _sparse_update(P, t, yt, wh, wl, bh, bl, active, n_active)
        else:
            _update(P, t, yt, c, wh, wl, bh, bl)
            since_check += 1
            if since_check >= 64:
                since_check = 0
                n_active = _collect_active(wh, active)
                sparse = 8 * n_active <= N
    return T, 0


@njit(cache=True, nogil=True)
def reset_normalised(c, table, w, renormalise):
    """``experts._weight_rows``'s weights: table[min(c_i - c_min, last)]; returns (c_min, #experts at c_min).

    With ``renormalise`` false (eta = 1) c_min is taken as 0 and the table is [1, 0].
    """
    last = table.shape[0] - 1
    cmin = 0
    if renormalise:
        cmin = c[0]
        for i in range(c.shape[0]):
            cmin = min(cmin, c[i])
    at_min = 0
    for i in range(c.shape[0]):
        w[i] = table[min(c[i] - cmin, last)]
        at_min += c[i] == cmin
    return cmin, at_min


@njit(cache=True, nogil=True)
def rwma_rounds(P, y, c, table, renormalise, rng, mistakes, pred):
    """Randomized Weighted Majority on every round of (P, y), for len(mistakes) independent trials.

    The same weights, draws and picks as the numpy loop it replaces: each round, the
    weights ``experts._weight_rows`` (table[min(c_i - c_min, last)], ``table`` from
    ``experts._stream_table``), their cumulative sums (in order, as ``np.cumsum``), one
    ``rng.random()`` per trial in trial order, and the pick
    ``min(searchsorted(cumulative, u * total, side="right"), N - 1)``. The pick is found
    from a guide table (bucket b starts at the first expert whose cumulative weight exceeds
    (b - 1) / N of the total, a whole bucket below any draw u * total with u in
    [b / N, (b + 1) / N)) and a short scan. Adds each trial's mistake to ``mistakes``; if
    ``pred`` is not empty (one trial), pred[t] is the followed expert's advice. Updates the
    counts c. Returns the round in which every weight is 0 (eta = 1), or T.
    """
    T, N = P.shape
    n_trials = mistakes.shape[0]
    record = pred.shape[0] > 0
    last = table.shape[0] - 1
    w = np.empty(N)
    cmin, at_min = reset_normalised(c, table, w, renormalise)
    cumulative = np.empty(N)
    # more buckets than experts when there are many trials per round: then a draw's bucket
    # rarely holds a boundary, and the scan below rarely moves (and its branch is predictable)
    buckets = min(4096, max(N, n_trials // 2))
    guide = np.empty(buckets, dtype=np.int64)
    draws = np.empty(0)
    for t in range(T):
        acc = 0.0
        for i in range(N):
            acc += w[i]
            cumulative[i] = acc
        total = cumulative[N - 1]
        if total == 0.0:
            return t
        g = 0
        guide[0] = 0
        for b in range(1, buckets):
            threshold = (b - 1) / buckets * total
            while g < N and cumulative[g] <= threshold:
                g += 1
            guide[b] = g
        yt = y[t]
        if n_trials > 1:
            draws = rng.random(n_trials)  # the same numbers as n_trials calls of rng.random(), faster
        for j in range(n_trials):
            u = draws[j] if n_trials > 1 else rng.random()
            v = u * total
            k = guide[min(int(u * buckets), buckets - 1)]
            while k < N and cumulative[k] <= v:
                k += 1
            k = min(k, N - 1)
            mistakes[j] += P[t, k] != yt
            if record:
                pred[t] = P[t, k]
        left_min = 0
        for i in range(N):
            if P[t, i] != yt:
                left_min += c[i] == cmin
                c[i] += 1
                w[i] = table[min(c[i] - cmin, last)]
        at_min -= left_min
        if renormalise and at_min == 0:
            cmin, at_min = reset_normalised(c, table, w, True)
    return T
