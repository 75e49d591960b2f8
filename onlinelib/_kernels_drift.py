"""Compiled kernels (numba) for Directed Drift's batch modes (chapter 7, steps D4' and D4'').

``onlinelib.directed_drift`` imports this module at the first batch simulation, so
``import onlinelib`` loads no numba.

A run works in coordinates relative to w* (w* = (1, ..., 1)); an example u in {-1, 1}^n
is a row of n bits, 64 to a machine word (bit k of word k // 64 is 1 iff u_k = +1), so
that <w, u> = n - 2 popcount(w xor u). A uniform draw from the positive half-cube
B+ = {u : sum(u) >= 0} is a uniform draw from the cube (32 random bits at a time from
the ``numpy.random.Generator``, through numba's implementation of
``Generator.integers``, which draws exactly as numpy's does) mapped into B+ exactly as
``streams.ones_halfcube`` does it: for odd n a draw with a negative sum is negated (a
bijection of the cube's lower half onto B+), for even n it is drawn again.

The m - 1 votes of a batch update are tallied 64 coordinates at a time (``add_votes``):
each nibble of a 64-bit counter counts one coordinate's +1 entries, four counters per
word (``(row >> j) & 0x1111...`` adds bit j of every nibble), emptied into byte counters
every 15 rows and those into the per-coordinate counts every 255, before they overflow.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._kernels import popcount as _popcount

#: Rows drawn from the generator at a time.
_CHUNK_ROWS = 1024
_NIBBLE_BITS = np.uint64(0x1111111111111111)
_LOW_NIBBLES = np.uint64(0x0F0F0F0F0F0F0F0F)

#: The update rules, as ``simulate_batch`` takes them.
RULES = {("single", "literal"): 0, ("multi", "literal"): 1, ("multi", "majority"): 2, ("multi", "double"): 3}


@njit(cache=True, nogil=True, inline="always")
def _tail_mask(n):
    """The valid bits of the last word of an n-bit row."""
    r = n % 64
    if r == 0:
        return np.uint64(0xFFFFFFFFFFFFFFFF)
    return (np.uint64(1) << np.uint64(r)) - np.uint64(1)


@njit(cache=True, nogil=True, inline="always")
def _refill(rng, words):
    """_CHUNK_ROWS uniform rows of the cube, as (rows, words) uint64 (tail bits not yet masked)."""
    return (
        rng.integers(0, 2**32, size=2 * words * _CHUNK_ROWS, dtype=np.uint32)
        .view(np.uint64)
        .reshape((_CHUNK_ROWS, words))
    )


@njit(cache=True, nogil=True, inline="always")
def _draw(rng, pool, position, out, n, mask):
    """Write one uniform draw from the positive half-cube into ``out``; returns (pool, position).

    Takes rows of ``pool`` in order and refills it from ``rng`` when it runs out. Odd n:
    a row with more -1 than +1 entries is negated; even n: it is skipped (drawn again).
    """
    words = out.shape[0]
    while True:
        if position == pool.shape[0]:
            pool = _refill(rng, words)
            position = 0
        ones = 0
        for w in range(words):
            x = pool[position, w]
            if w == words - 1:
                x &= mask
            out[w] = x
            ones += _popcount(x)
        position += 1
        if 2 * ones >= n:
            return pool, position
        if n % 2 == 1:
            for w in range(words - 1):
                out[w] = ~out[w]
            out[words - 1] = ~out[words - 1] & mask
            return pool, position


@njit(cache=True, nogil=True, inline="always")
def _agreements(w_bits, u, n):
    """<w, u> for two packed rows: n - 2 (number of coordinates where they differ)."""
    differ = 0
    for w in range(u.shape[0]):
        differ += _popcount(w_bits[w] ^ u[w])
    return n - 2 * differ


@njit(cache=True, nogil=True, inline="always")
def _flush(acc, counts, n):
    """Add the byte counters of ``acc`` to ``counts`` (bit j of byte b of word w is coordinate 64 w + 8 b + j)."""
    for w in range(acc.shape[0]):
        for j in range(8):
            a = acc[w, j]
            for b in range(8):
                k = 64 * w + 8 * b + j
                if k < n:
                    counts[k] += np.int64((a >> np.uint64(8 * b)) & np.uint64(0xFF))
            acc[w, j] = 0


@njit(cache=True, nogil=True)
def add_votes(rng, count, n, plus):
    """Add to ``plus[k]`` the number of +1 entries in coordinate k of ``count`` half-cube draws.

    The draws come from ``rng`` in blocks, each row mapped into B+ as ``_draw`` does. Bit j
    of every nibble of a row is added into a nibble counter (``(x >> j) & 0x1111...``),
    which is emptied into byte counters every 15 rows, and those into ``plus`` every 255.
    """
    words = (n + 63) // 64
    mask = _tail_mask(n)
    nibbles = np.zeros((words, 4), dtype=np.uint64)
    bytes_ = np.zeros((words, 8), dtype=np.uint64)
    in_nibbles = 0
    in_bytes = 0
    remaining = count
    while remaining > 0:
        rows = min(remaining, _CHUNK_ROWS)
        block = rng.integers(0, 2**32, size=2 * words * rows, dtype=np.uint32).view(np.uint64)
        for r in range(rows):
            last = block[r * words + words - 1] & mask
            block[r * words + words - 1] = last
            ones = 0
            for w in range(words):
                ones += _popcount(block[r * words + w])
            flip = np.uint64(0)
            if 2 * ones < n:
                if n % 2 == 0:
                    continue  # even n: drawn again
                flip = np.uint64(0xFFFFFFFFFFFFFFFF)  # odd n: negated
            for w in range(words):
                x = block[r * words + w] ^ flip
                if w == words - 1:
                    x &= mask
                for j in range(4):
                    nibbles[w, j] += (x >> np.uint64(j)) & _NIBBLE_BITS
            remaining -= 1
            in_nibbles += 1
            if in_nibbles == 15 or remaining == 0:
                for w in range(words):
                    for j in range(4):
                        a = nibbles[w, j]
                        bytes_[w, j] += a & _LOW_NIBBLES
                        bytes_[w, j + 4] += (a >> np.uint64(4)) & _LOW_NIBBLES
                        nibbles[w, j] = 0
                in_bytes += in_nibbles
                in_nibbles = 0
                if in_bytes > 255 - 15 or remaining == 0:
                    _flush(bytes_, plus, n)
                    in_bytes = 0


@njit(cache=True, nogil=True)
def tally_and_flip(w, plus, m, Y, rule, rng):
    """One batch update of w (relative coordinates, +1 right) from the batch's tallies; returns (flips, bad).

    ``plus[k]`` is the number of the m examples of the batch (the mistaken one included)
    with u_k = +1, so b_k = #{u : u_k != w_k} is m - plus[k] where w_k = +1 and plus[k]
    where w_k = -1. ``rule`` 0 (D4', single): flip the coordinate with the most votes;
    1 (D4'' literal): the floor((1 - Y)/2) with the most; 3 ("double"): twice as many,
    at most n; ties broken uniformly at random with one uniform key per coordinate from
    ``rng``. 2 ("majority"): every coordinate with 2 b_k > m (no random draw). A bad flip
    turns a right coordinate wrong.
    """
    n = w.shape[0]
    tally = np.empty(n, dtype=np.int64)
    for k in range(n):
        tally[k] = m - plus[k] if w[k] > 0 else plus[k]
    flips = 0
    bad = 0
    if rule == 2:
        for k in range(n):
            if 2 * tally[k] > m:
                if w[k] > 0:
                    bad += 1
                w[k] = -w[k]
                flips += 1
        return flips, bad
    noisy = tally + rng.random(n)  # an integer tally plus a key in [0, 1): ties in random order
    if rule == 0:
        count = 1
    else:
        count = (1 - Y) // 2
        if rule == 3:
            count = min(2 * count, n)
    for _ in range(count):  # the largest keys, one at a time (count <= n; no sort to compile)
        k = 0
        for i in range(1, n):
            if noisy[i] > noisy[k]:
                k = i
        noisy[k] = -1.0
        if w[k] > 0:
            bad += 1
        w[k] = -w[k]
        flips += 1
    return flips, bad


@njit(cache=True, nogil=True, inline="always")
def _pack(w, w_bits):
    """The bits of the relative coordinates w (bit k set where w_k = +1)."""
    w_bits[:] = 0
    for k in range(w.shape[0]):
        if w[k] > 0:
            w_bits[k // 64] |= np.uint64(1) << np.uint64(k % 64)


@njit(cache=True, nogil=True)
def simulate_batch(W, rng, m, rule, threshold, max_examples, mistakes, examples, flips, bad_flips, stopped, finished):
    """Directed Drift with batch updates, one run after the other (rows of W, in place).

    ``W`` (trials, n) int8 holds the starting hypotheses in relative coordinates and ends
    with the final ones; ``threshold`` is step D3's run length (0 for none: run on until
    w = w*); ``max_examples`` is checked before each example, as in
    ``DirectedDrift.simulate``. The per-run outputs are written into the other arrays.
    """
    trials, n = W.shape
    words = (n + 63) // 64
    mask = _tail_mask(n)
    pool = _refill(rng, words)
    position = 0
    u = np.empty(words, dtype=np.uint64)
    w_bits = np.empty(words, dtype=np.uint64)
    plus = np.empty(n, dtype=np.int64)
    for trial in range(trials):
        w = W[trial]
        _pack(w, w_bits)
        distance = 0
        for k in range(n):
            distance += w[k] < 0
        run = 0
        while distance > 0:
            if examples[trial] >= max_examples:
                break
            pool, position = _draw(rng, pool, position, u, n, mask)
            examples[trial] += 1
            Y = _agreements(w_bits, u, n)
            if Y >= 0:
                run += 1
                if threshold > 0 and run >= threshold:
                    stopped[trial] = True
                    finished[trial] = True
                    break
                continue
            mistakes[trial] += 1
            run = 0
            for k in range(n):  # the mistaken example is one of the batch
                plus[k] = (u[k // 64] >> np.uint64(k % 64)) & np.uint64(1)
            add_votes(rng, m - 1, n, plus)
            examples[trial] += m - 1
            f, b = tally_and_flip(w, plus, m, Y, rule, rng)
            flips[trial] += f
            bad_flips[trial] += b
            distance += 2 * b - f
            _pack(w, w_bits)
        if distance == 0:  # at w = w*: no more mistakes; D3 stops after the rest of its run
            finished[trial] = True
            if threshold > 0:
                examples[trial] += threshold - run
                stopped[trial] = True
