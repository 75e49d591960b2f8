"""Tests for onlinelib.directed_drift (chapter 7, Directed Drift) and the positive half-cube sampler
of onlinelib.streams.

The sampler is checked against enumeration of B+ (support, exact uniformity by chi-square tests);
the birth-death chain against the exact values of MATH.md section 1.3, against brute-force
enumeration of the cube (exact Fractions, both the one-step rates and the expected mistake count
on the full 2^n state space, which checks the lumpability of the Hamming distance), and its
log-space float version against the exact one; the simulator against the chain (means within 4
standard errors) and against the bookkeeping the docstrings promise. Integer and Fraction
quantities are compared exactly; every floating-point or Monte Carlo comparison states its
tolerance. All randomness is seeded.
"""

import itertools
import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from onlinelib.directed_drift import (
    DirectedDrift,
    DirectedDriftChain,
    DriftRun,
    confidence_threshold,
    halfcube_size,
    multi_bit_batch_size,
    single_bit_batch_size,
)
from onlinelib.streams import check_sign_vector, positive_halfcube

PROPERTY = settings(max_examples=40, deadline=None, database=None)
CHI2_LEVEL = 1e-4  # significance level of the uniformity tests (fixed seeds, so the outcome is fixed)
SE_TOL = 4.0  # Monte Carlo comparisons: |simulated mean - exact| <= 4 standard errors
# max_examples for runs without D3, so that a broken update fails (finished False) instead of hanging.
# The largest mean run here (n = 9) is ~300 examples with roughly geometric tails: 20000 is never hit.
CAP = 20_000


def cube(n):
    return np.array(list(itertools.product((-1, 1), repeat=n)), dtype=np.int64)


def halfcube(w_star):
    """All vertices of B+(w*), by enumeration."""
    C = cube(len(w_star))
    return C[C @ np.asarray(w_star, dtype=np.int64) >= 0]


def random_sign_vector(n, rng):
    return (2 * rng.integers(0, 2, size=n) - 1).astype(np.int64)


def vertex_index(U):
    """Row u of {-1,1}^n -> its integer code (bits (u+1)/2)."""
    U = np.asarray(U, dtype=np.int64)
    return ((U + 1) // 2) @ (1 << np.arange(U.shape[1]))


def chi2_pvalue(U, support):
    """p-value of the chi-square test of 'U uniform on support' (every row of U must be in support)."""
    codes = vertex_index(U)
    support_codes = vertex_index(support)
    assert np.isin(codes, support_codes).all()
    if len(support_codes) == 1:  # n = 1: B+ = {w*}, nothing to test beyond the support
        return 1.0
    counts = np.array([(codes == c).sum() for c in support_codes])
    return stats.chisquare(counts).pvalue


# -- the sampler ------------------------------------------------------------------------------


@PROPERTY
@given(n=st.integers(1, 12), size=st.integers(0, 300), seed=st.integers(0, 2**32 - 1))
def test_positive_halfcube_lies_in_the_halfcube(n, size, seed):
    rng = np.random.default_rng(seed)
    w_star = random_sign_vector(n, rng)
    U = positive_halfcube(w_star, size, rng)
    assert U.shape == (size, n)
    assert U.dtype == np.int8
    assert np.isin(U, (-1, 1)).all()
    assert (U.astype(np.int64) @ w_star >= 0).all()


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_positive_halfcube_is_uniform(n):
    rng = np.random.default_rng(100 + n)
    w_star = random_sign_vector(n, rng)
    support = halfcube(w_star)
    draws = 300 * len(support)  # >= 300 expected per vertex
    U = positive_halfcube(w_star, draws, rng)
    assert chi2_pvalue(U, support) > CHI2_LEVEL
    if n % 2 == 0:  # the tie vertices <w*, u> = 0 get their full share, not half of it
        ties = U.astype(np.int64) @ w_star == 0
        share = math.comb(n, n // 2) / len(support)
        assert abs(ties.mean() - share) <= SE_TOL * math.sqrt(share * (1 - share) / draws)


def naive_sign_flip(w_star, size, rng):
    """The sign-flip trick: u uniform on the cube, replaced by -u when <w*, u> < 0."""
    U = 2 * rng.integers(0, 2, size=(size, len(w_star))) - 1
    U[U @ w_star < 0] *= -1
    return U


@pytest.mark.parametrize("n", [2, 4, 6])
def test_naive_sign_flip_is_not_uniform_for_even_n(n):
    """Why the library redraws for even n: the naive trick gives the ties half the mass of the others."""
    rng = np.random.default_rng(7)
    w_star = random_sign_vector(n, rng)
    support = halfcube(w_star)
    draws = 300 * len(support)
    U = naive_sign_flip(w_star, draws, rng)
    assert chi2_pvalue(U, support) < 1e-10
    # its actual law: 1/2^n on each tie, 2/2^n on every other vertex of B+
    codes, support_codes = vertex_index(U), vertex_index(support)
    counts = np.array([(codes == c).sum() for c in support_codes])
    law = np.where(support @ w_star == 0, 1.0, 2.0) / 2**n
    assert law.sum() == pytest.approx(1.0)
    assert stats.chisquare(counts, draws * law).pvalue > CHI2_LEVEL


@pytest.mark.parametrize("n", [1, 3, 5])
def test_naive_sign_flip_is_uniform_for_odd_n(n):
    rng = np.random.default_rng(8)
    w_star = random_sign_vector(n, rng)
    support = halfcube(w_star)
    assert chi2_pvalue(naive_sign_flip(w_star, 300 * len(support), rng), support) > CHI2_LEVEL


@pytest.mark.parametrize("n", range(1, 13))
def test_halfcube_size_matches_enumeration(n):
    w_star = random_sign_vector(n, np.random.default_rng(n))
    assert halfcube_size(n) == len(halfcube(w_star)) == len(halfcube(np.ones(n, dtype=np.int64)))
    assert halfcube_size(n) == (2 ** (n - 1) if n % 2 else 2 ** (n - 1) + math.comb(n, n // 2) // 2)


def test_positive_halfcube_is_reproducible():
    w_star = [1, -1, 1, 1, -1, -1]
    a = positive_halfcube(w_star, 500, np.random.default_rng(3))
    b = positive_halfcube(w_star, 500, np.random.default_rng(3))
    c = positive_halfcube(w_star, 500, np.random.default_rng(4))
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_check_sign_vector_accepts_and_converts():
    out = check_sign_vector([1.0, -1.0, 1.0])
    assert out.dtype == np.int8 and out.tolist() == [1, -1, 1]


@pytest.mark.parametrize(
    "w, error, match",
    [
        ([1, 0, -1], ValueError, r"entries in \{-1, 1\}, got 0"),
        ([1, 2, -1], ValueError, r"entries in \{-1, 1\}, got 2"),
        ([1.0, float("nan")], ValueError, r"entries in \{-1, 1\}, got nan"),
        (np.array([True, False]), TypeError, "dtype bool"),
        (["a", "b"], TypeError, "of numbers"),
        ([], ValueError, "non-empty vector"),
        ([[1, -1], [1, 1]], ValueError, r"shape \(2, 2\)"),
        (1, ValueError, r"shape \(\)"),
    ],
)
def test_bad_sign_vectors_are_rejected(w, error, match):
    with pytest.raises(error, match=match):
        check_sign_vector(w)
    with pytest.raises(error, match="w_star must"):
        positive_halfcube(w, 3, np.random.default_rng(0))
    with pytest.raises(error, match="w_star must"):
        DirectedDrift(2).simulate(w, 3, np.random.default_rng(0))


def test_positive_halfcube_bad_size_and_rng():
    with pytest.raises(ValueError, match="size must be an integer >= 0"):
        positive_halfcube([1, 1], -1, np.random.default_rng(0))
    with pytest.raises(TypeError, match="size must be an integer"):
        positive_halfcube([1, 1], 2.0, np.random.default_rng(0))
    with pytest.raises(TypeError, match="numpy.random.Generator"):
        positive_halfcube([1, 1], 2, np.random.RandomState(0))


# -- the exact chain ----------------------------------------------------------------------------


def test_chain_exact_values_n3():
    chain = DirectedDriftChain(3)
    assert chain.exact
    assert chain.expected_mistakes() == Fraction(19, 5)
    assert [chain.expected_mistakes(d) for d in range(4)] == [0, Fraction(17, 5), Fraction(24, 5), Fraction(29, 5)]


def test_chain_exact_values_n5():
    chain = DirectedDriftChain(5)
    assert chain.expected_mistakes() == Fraction(1105847, 87472)
    assert [chain.mistake_probability(d) for d in range(1, 6)] == [
        Fraction(3, 8),
        Fraction(3, 8),
        Fraction(5, 8),
        Fraction(5, 8),
        1,
    ]
    expected_p = [Fraction(1, 3), Fraction(7, 12), Fraction(71, 100), Fraction(22, 25), 1]
    assert [chain.good_flip_probability(d) for d in range(1, 6)] == expected_p
    assert chain.mistake_probability(0) == 0


def test_chain_even_n_values():
    """Ties: at even n, -w* is right on the ties, so P(mistake | d = n) < 1 (5/11 at n = 4)."""
    assert DirectedDriftChain(4).mistake_probability(4) == Fraction(5, 11)
    assert [DirectedDriftChain(6).mistake_probability(d) for d in range(1, 7)] == [
        Fraction(k, 21) for k in (5, 5, 8, 8, 11, 11)
    ]
    assert [DirectedDriftChain(n).mistake_probability(1) for n in (6, 8, 10)] == [
        Fraction(5, 21),
        Fraction(35, 163),
        Fraction(63, 319),
    ]


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 12, 41])
@pytest.mark.parametrize("exact", [True, False])
def test_transition_matrix_is_stochastic(n, exact):
    chain = DirectedDriftChain(n, exact=exact)
    P = chain.transition_matrix()
    assert P.shape == (n + 1, n + 1)
    assert ((P >= 0) & (P <= 1)).all()
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert P[0, 0] == 1.0
    assert np.count_nonzero(np.triu(P, 2)) == 0 and np.count_nonzero(np.tril(P, -2)) == 0  # birth-death
    for d in range(1, n + 1):
        q = float(chain.mistake_probability(d))
        assert P[d, d] == pytest.approx(1 - q, abs=1e-12)
        assert P[d, d - 1] == pytest.approx(q * float(chain.good_flip_probability(d)), abs=1e-12)


def brute_force_rates(w_star, w):
    """P(mistake) and P(mistake and good flip) at w, by enumerating B+(w*); flip index uniform on J."""
    w_star, w = np.asarray(w_star), np.asarray(w)
    support = halfcube(w_star)
    mistake, good = 0, Fraction(0)
    for u in support:
        if u @ w < 0:
            mistake += 1
            J = np.flatnonzero(w != u)
            good += Fraction(int((w[J] != w_star[J]).sum()), len(J))
    return Fraction(mistake, len(support)), good / len(support)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("target", ["ones", "random"])
def test_chain_rates_match_brute_force(n, target):
    rng = np.random.default_rng(10 * n + (target == "random"))
    w_star = np.ones(n, dtype=np.int64) if target == "ones" else random_sign_vector(n, rng)
    chain = DirectedDriftChain(n)
    for d in range(0, n + 1):
        w = w_star.copy()
        w[rng.choice(n, size=d, replace=False)] *= -1
        q, down = brute_force_rates(w_star, w)
        assert chain.mistake_probability(d) == q
        if d >= 1:
            assert chain.good_flip_probability(d) == down / q


def solve_fractions(A, b):
    """Gauss-Jordan elimination in exact Fractions."""
    k = len(b)
    M = [list(row) + [rhs] for row, rhs in zip(A, b, strict=True)]
    for col in range(k):
        pivot = next(r for r in range(col, k) if M[r][col] != 0)
        M[col], M[pivot] = M[pivot], M[col]
        inv = 1 / M[col][col]
        M[col] = [x * inv for x in M[col]]
        for r in range(k):
            if r != col and M[r][col] != 0:
                f = M[r][col]
                M[r] = [x - f * y for x, y in zip(M[r], M[col], strict=True)]
    return [M[r][k] for r in range(k)]


def full_state_expected_mistakes(w_star):
    """E[mistakes until w = w*] for every w in {-1,1}^n, on the full 2^n-state chain (exact)."""
    n = len(w_star)
    support = halfcube(w_star)
    states = [tuple(w) for w in cube(n) if not np.array_equal(w, w_star)]
    index = {s: i for i, s in enumerate(states)}
    A, b = [], []
    for s in states:
        w = np.array(s)
        # h(w) = 1 + sum_j P(flip j | mistake at w) h(w with j flipped)
        move = [Fraction(0)] * n
        mistakes = 0
        for u in support:
            if u @ w < 0:
                mistakes += 1
                J = np.flatnonzero(w != u)
                for j in J:
                    move[j] += Fraction(1, len(J))
        row = [Fraction(0)] * len(states)
        row[index[s]] = Fraction(1)
        for j in range(n):
            if move[j]:
                w2 = w.copy()
                w2[j] *= -1
                if not np.array_equal(w2, w_star):
                    row[index[tuple(w2)]] -= move[j] / mistakes
        A.append(row)
        b.append(Fraction(1))
    h = solve_fractions(A, b)
    return {s: h[index[s]] for s in states}


@pytest.mark.parametrize("n", [3, 4, 6])
def test_chain_expected_mistakes_match_full_state_space(n):
    """The Hamming distance is lumpable: E[M | w] on all 2^n states depends on d(w, w*) only."""
    rng = np.random.default_rng(40 + n)
    w_star = random_sign_vector(n, rng)
    h = full_state_expected_mistakes(w_star)
    chain = DirectedDriftChain(n)
    for s, value in h.items():
        assert value == chain.expected_mistakes(int((np.array(s) != w_star).sum()))
    assert sum(h.values(), Fraction(0)) / 2**n == chain.expected_mistakes()


@pytest.mark.parametrize("n", range(1, 31))
def test_float_chain_matches_exact_chain(n):
    exact, floating = DirectedDriftChain(n, exact=True), DirectedDriftChain(n, exact=False)
    assert not floating.exact
    rel = 1e-12
    for d in range(n + 1):
        assert floating.mistake_probability(d) == pytest.approx(float(exact.mistake_probability(d)), rel=rel, abs=0)
        assert floating.expected_mistakes(d) == pytest.approx(float(exact.expected_mistakes(d)), rel=rel, abs=0)
    for d in range(1, n + 1):
        assert floating.good_flip_probability(d) == pytest.approx(float(exact.good_flip_probability(d)), rel=rel)
    assert floating.expected_mistakes() == pytest.approx(float(exact.expected_mistakes()), rel=rel)
    assert floating.log_expected_mistakes() == pytest.approx(math.log(exact.expected_mistakes()), rel=rel)
    np.testing.assert_allclose(floating.transition_matrix(), exact.transition_matrix(), rtol=rel, atol=1e-15)


def test_default_exactness():
    assert DirectedDriftChain(40).exact and not DirectedDriftChain(41).exact


def test_log_expected_mistakes_grows_with_odd_n():
    ns = list(range(1, 62, 2)) + [101, 201, 801]
    logs = [DirectedDriftChain(n, exact=False).log_expected_mistakes() for n in ns]
    assert all(math.isfinite(x) for x in logs)
    assert all(a < b for a, b in zip(logs, logs[1:], strict=False))
    assert logs[0] == pytest.approx(math.log(0.5), abs=1e-15)  # n = 1: w0 = -w* w.p. 1/2, then one mistake
    # the source's lower bound e^{0.139 n} holds (loosely) wherever computed; and E[M] <= 2^n-ish growth
    assert all(x >= 0.139 * n for n, x in zip(ns[1:], logs[1:], strict=True))
    assert logs[-1] / 801 < math.log(2)


@pytest.mark.parametrize("n", [2, 3, 6, 9, 14, 25])
def test_expected_mistakes_increase_with_start_distance(n):
    chain = DirectedDriftChain(n)
    values = [chain.expected_mistakes(d) for d in range(n + 1)]
    assert values[0] == 0
    assert all(a < b for a, b in zip(values, values[1:], strict=False))
    assert values[0] < chain.expected_mistakes() < values[n]


def test_parity_effect():
    """The parity effect of MATH.md 1.3, as the exact chain shows it: E[M] increases with n, in a
    staircase. Going from odd n - 1 to even n multiplies E[M] by more than e^0.8 (ties: many wrong w
    classify the tie vertices correctly, so mistakes are rarer near w*); going from even n to odd
    n + 1 by less than e^0.25. (MATH.md's wording "even n is worse than odd n + 1" is not what the
    chain gives: e.g. E[M] = 907/88 ~ 10.31 at n = 4 < 12.64 at n = 5; the chain is checked against
    the full 2^n-state chain and against simulation elsewhere in this file.)"""
    exact = [None] + [DirectedDriftChain(n).expected_mistakes() for n in range(1, 32)]
    assert exact[4] == Fraction(907, 88)
    assert all(a < b for a, b in zip(exact[1:], exact[2:], strict=False))
    for n in range(4, 31, 2):
        assert math.log(exact[n] / exact[n - 1]) > 0.8
        assert math.log(exact[n + 1] / exact[n]) < 0.25
    log = {n: DirectedDriftChain(n, exact=False).log_expected_mistakes() for n in (99, 100, 101)}
    assert log[100] - log[99] > 1.0 > 0.25 > log[101] - log[100] > 0


def test_sojourn_and_wrong_stop_probabilities():
    chain = DirectedDriftChain(5)
    assert chain.sojourn_stop_probability(1, 4) == pytest.approx((5 / 8) ** 4, rel=1e-14)
    assert chain.sojourn_stop_probability(5, 4) == 0.0  # q_5 = 1 at odd n
    assert chain.sojourn_stop_probability(0, 7) == 1.0
    assert chain.wrong_stop_probability(0.2, d0=0) == 0.0
    values = [chain.wrong_stop_probability(delta) for delta in (0.5, 0.1, 0.01, 1e-6)]
    assert all(0 < v < 1 for v in values)
    assert all(a > b for a, b in zip(values, values[1:], strict=False))  # a longer threshold stops wrongly less often
    # exact and float chains agree
    assert DirectedDriftChain(25, exact=False).wrong_stop_probability(0.1) == pytest.approx(
        DirectedDriftChain(25).wrong_stop_probability(0.1), rel=1e-10
    )
    # MATH.md 1.5: the global wrong-stop probability is far above delta at moderate n
    assert DirectedDriftChain(41).wrong_stop_probability(0.05) > 0.05


def decimal_wrong_stop(n, delta, d0):
    """h_{d0} of wrong_stop_probability's linear system, by elimination in 60-digit Decimals from the exact rates."""
    chain = DirectedDriftChain(n, exact=True)
    T = confidence_threshold(n, delta)
    with localcontext() as ctx:
        ctx.prec = 60

        def dec(f):
            return Decimal(f.numerator) / Decimal(f.denominator)

        a, b = [Decimal(0)] * (n + 1), [Decimal(0)] * (n + 1)
        for d in range(1, n + 1):
            q, p = dec(chain.mistake_probability(d)), dec(chain.good_flip_probability(d))
            s = (1 - q) ** T
            c, e = (1 - s) * p, ((1 - s) * (1 - p) if d < n else Decimal(0))
            pivot = 1 - c * b[d - 1]
            a[d], b[d] = (s + c * a[d - 1]) / pivot, e / pivot
        h = [Decimal(0)] * (n + 1)
        h[n] = a[n]
        for d in range(n - 1, 0, -1):
            h[d] = a[d] + b[d] * h[d + 1]
        if d0 is None:
            return float(sum(Decimal(math.comb(n, d)) / Decimal(2**n) * h[d] for d in range(n + 1)))
        return float(h[d0])


@pytest.mark.parametrize("n", [7, 20, 61, 81])
def test_wrong_stop_probability_is_accurate(n):
    """Against a 60-digit solve (1e-12 absolute). The system is exponentially ill-conditioned: a
    general float solver was wrong by ~1e-9 at n = 81 and by 1e-3 at n = 201."""
    for exact in (True, False):
        chain = DirectedDriftChain(n, exact=exact)
        for delta in (0.05, 0.3):
            for d0 in (None, 1, n // 2, n):
                assert chain.wrong_stop_probability(delta, d0=d0) == pytest.approx(
                    decimal_wrong_stop(n, delta, d0), abs=1e-12
                )


def test_wrong_stop_probability_large_n():
    """At n = 201 almost every run stops wrongly (1 - h ~ 1e-16 from a random start; MATH.md 1.5)."""
    chain = DirectedDriftChain(201)
    assert chain.wrong_stop_probability(0.05) > 1 - 1e-12
    values = [chain.wrong_stop_probability(0.05, d0=d) for d in range(202)]
    assert values[0] == 0.0 and all(0.98 < v <= 1 for v in values[1:])
    assert all(a <= b + 1e-15 for a, b in zip(values[1:], values[2:], strict=False))  # further away, more likely wrong


def test_confidence_threshold_and_batch_sizes():
    assert confidence_threshold(5, 0.3) == math.ceil(math.sqrt(math.pi * 5 / 2) * math.log(1 / 0.3)) == 4
    assert confidence_threshold(100, 0.01) == math.ceil(math.sqrt(50 * math.pi) * math.log(100))
    assert confidence_threshold(1, 0.999999) == 1
    assert single_bit_batch_size(10) == math.ceil(math.pi / 2 * 10 * math.log(10)) == 37
    assert multi_bit_batch_size(10) == math.ceil(math.pi * 10 * math.log(10)) == 73
    assert DirectedDrift(10, batch="single").m == 37
    assert DirectedDrift(10, batch="multi").m == 73
    assert DirectedDrift(10).m == 1 and DirectedDrift(10, m=1).m == 1
    assert DirectedDrift(1, batch="single").m == single_bit_batch_size(2)
    assert DirectedDrift(10, 0.01).threshold == confidence_threshold(10, 0.01)
    assert DirectedDrift(10).threshold is None


@pytest.mark.parametrize("method", ["mistake_probability", "sojourn_stop_probability"])
def test_chain_d_out_of_range(method):
    chain = DirectedDriftChain(4)
    args = (3,) if method == "sojourn_stop_probability" else ()
    with pytest.raises(ValueError, match=r"d must be an integer in \[0, 4\], got 5"):
        getattr(chain, method)(5, *args)
    with pytest.raises(ValueError, match=r"d must be an integer in \[0, 4\], got -1"):
        getattr(chain, method)(-1, *args)
    with pytest.raises(TypeError, match="d must be an integer"):
        getattr(chain, method)(1.0, *args)


def test_chain_bad_arguments():
    chain = DirectedDriftChain(4)
    floating = DirectedDriftChain(4, exact=False)
    for c in (chain, floating):
        with pytest.raises(ValueError, match=r"d must be an integer in \[1, 4\], got 0"):
            c.good_flip_probability(0)
        with pytest.raises(ValueError, match=r"d0 must be an integer in \[0, 4\], got 5"):
            c.expected_mistakes(5)
        with pytest.raises(ValueError, match=r"d0 must be an integer in \[0, 4\], got -1"):
            c.log_expected_mistakes(-1)
        with pytest.raises(ValueError, match=r"d0 must be an integer in \[0, 4\]"):
            c.wrong_stop_probability(0.1, d0=7)
        with pytest.raises(ValueError, match=r"delta must be a finite real number in \(0, 1\), got 1\.0"):
            c.wrong_stop_probability(1.0)
    with pytest.raises(ValueError, match="threshold must be an integer >= 1"):
        chain.sojourn_stop_probability(1, 0)
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        DirectedDriftChain(0)
    with pytest.raises(TypeError, match="n must be an integer"):
        DirectedDriftChain(3.0)


# -- the simulator ------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [5, 6, 7, 8, 9])
def test_simulated_mistakes_match_chain(n):
    """Random start, no stopping: mean mistakes within 4 standard errors of the exact E[M]."""
    rng = np.random.default_rng(500 + n)
    w_star = random_sign_vector(n, rng)
    result = DirectedDrift(n).simulate(w_star, 3000, rng, max_examples=CAP)
    assert result.finished.all() and not result.stopped.any()
    assert (result.final_distance == 0).all() and (result.w == w_star).all()
    mean, sem = result.mean_and_sem()
    assert abs(mean - float(DirectedDriftChain(n).expected_mistakes())) <= SE_TOL * sem


@pytest.mark.parametrize("n, d0", [(5, 1), (6, 6), (7, 3)])
def test_simulated_mistakes_from_a_given_start(n, d0):
    rng = np.random.default_rng(600 + n)
    w_star = random_sign_vector(n, rng)
    w0 = w_star.copy()
    w0[rng.choice(n, size=d0, replace=False)] *= -1
    result = DirectedDrift(n).simulate(w_star, 3000, rng, w0=w0, max_examples=CAP)
    assert result.finished.all()
    mean, sem = result.mean_and_sem()
    assert abs(mean - float(DirectedDriftChain(n).expected_mistakes(d0))) <= SE_TOL * sem
    assert (result.bad_flips <= result.flips).all() and (result.flips == result.mistakes).all()
    # every mistake is a flip, good or bad: d0 + bad - good = 0 at the end
    assert (d0 + result.bad_flips - (result.flips - result.bad_flips) == 0).all()


@pytest.mark.parametrize("n, delta", [(4, 0.3), (5, 0.3), (6, 0.5), (7, 0.2)])
def test_wrong_stop_frequency_matches_chain(n, delta):
    rng = np.random.default_rng(700 + n)
    w_star = random_sign_vector(n, rng)
    trials = 4000
    result = DirectedDrift(n, delta).simulate(w_star, trials, rng, max_examples=CAP)
    assert result.finished.all() and result.stopped.all()
    wrong = (result.final_distance > 0).mean()
    p = DirectedDriftChain(n).wrong_stop_probability(delta)
    assert 0.02 < p < 0.98  # the comparison has power
    assert abs(wrong - p) <= SE_TOL * math.sqrt(p * (1 - p) / trials)


@pytest.mark.parametrize("batch, m", [(None, 1), ("single", 3), ("multi", 4)])
def test_stopped_run_accounting(batch, m):
    n, delta, trials = 7, 0.25, 500
    rng = np.random.default_rng(11)
    w_star = random_sign_vector(n, rng)
    drift = DirectedDrift(n, delta, batch=batch, m=m)
    result = drift.simulate(w_star, trials, rng, max_examples=CAP)
    assert isinstance(result, DriftRun) and result.trials == trials
    assert result.finished.all() and result.stopped.all()
    assert np.array_equal(result.final_distance == 0, (result.w == w_star).all(axis=1))
    assert np.array_equal(result.final_distance, (result.w != w_star).sum(axis=1))
    assert result.w.dtype == np.int8 and np.isin(result.w, (-1, 1)).all()
    # examples = m per mistake (the mistaken one plus m - 1 votes) + the correct ones, of which
    # the last threshold in a row stopped the run
    assert (result.examples - m * result.mistakes >= drift.threshold).all()
    assert (result.mistakes <= result.examples).all()
    assert (result.bad_flips <= result.flips).all()
    if batch != "multi":
        assert np.array_equal(result.flips, result.mistakes)
    else:
        assert (result.flips >= result.mistakes).all()
    assert (result.final_distance == 0).any() and (result.final_distance > 0).any()


def test_start_at_target():
    w_star = np.array([1, -1, 1, -1, -1])
    res = DirectedDrift(5).simulate(w_star, 4, np.random.default_rng(0), w0=w_star)
    assert res.finished.all() and not res.stopped.any()
    assert (res.mistakes == 0).all() and (res.examples == 0).all()
    res = DirectedDrift(5, 0.1).simulate(w_star, 4, np.random.default_rng(0), w0=w_star)
    assert res.stopped.all() and (res.examples == confidence_threshold(5, 0.1)).all() and (res.mistakes == 0).all()


def test_w0_as_matrix():
    n = 5
    w_star = np.array([1, 1, -1, 1, -1])
    w0 = np.array([w_star, -w_star, w_star, -w_star])
    res = DirectedDrift(n).simulate(w_star, 4, np.random.default_rng(1), w0=w0, max_examples=1)
    # rows 0 and 2 start at w*: nothing to do; rows 1 and 3 start at -w*: the first example is a
    # mistake at odd n, one flip, then truncated
    assert res.mistakes.tolist() == [0, 1, 0, 1]
    assert res.examples.tolist() == [0, 1, 0, 1]
    assert res.finished.tolist() == [True, False, True, False]
    assert res.final_distance.tolist() == [0, n - 1, 0, n - 1]
    assert (res.bad_flips == 0).all()


def test_w0_as_one_vector_and_truncation():
    n, trials = 9, 300
    w_star = random_sign_vector(n, np.random.default_rng(2))
    res = DirectedDrift(n).simulate(w_star, trials, np.random.default_rng(2), w0=-w_star, max_examples=1)
    assert (res.mistakes == 1).all() and (res.flips == 1).all() and (res.final_distance == n - 1).all()
    assert not res.finished.any()
    res = DirectedDrift(n).simulate(w_star, trials, np.random.default_rng(3), max_examples=20)
    assert (~res.finished).any() and res.finished.any()
    assert (res.examples[~res.finished] == 20).all()
    assert (res.final_distance[~res.finished] > 0).all()
    assert (res.final_distance[res.finished] == 0).all()
    assert (res.examples <= 20).all()


def test_same_seed_same_run():
    w_star = np.array([1, -1, 1, 1, -1, 1])
    for drift in (
        DirectedDrift(6, 0.2),
        DirectedDrift(6, batch="single", m=5),
        DirectedDrift(6, 0.3, batch="multi", m=7),
    ):
        a = drift.simulate(w_star, 200, np.random.default_rng(9), max_examples=CAP)
        b = drift.simulate(w_star, 200, np.random.default_rng(9), max_examples=CAP)
        c = drift.simulate(w_star, 200, np.random.default_rng(10), max_examples=CAP)
        assert a.finished.all()
        fields = ("mistakes", "examples", "flips", "bad_flips", "stopped", "finished", "final_distance", "w")
        for name in fields:
            assert np.array_equal(getattr(a, name), getattr(b, name)), name
        assert not all(np.array_equal(getattr(a, name), getattr(c, name)) for name in fields)


def test_mean_and_sem_and_repr():
    res = DirectedDrift(3).simulate([1, 1, 1], 50, np.random.default_rng(0), max_examples=CAP)
    mean, sem = res.mean_and_sem()
    assert mean == pytest.approx(res.mistakes.mean())
    assert sem == pytest.approx(res.mistakes.std(ddof=1) / math.sqrt(50))
    assert res.mean_and_sem("examples")[0] == pytest.approx(res.examples.mean())
    assert "trials=50" in repr(res) and "finished=50" in repr(res)
    one = DirectedDrift(3).simulate([1, 1, 1], 1, np.random.default_rng(0), max_examples=CAP)
    assert math.isnan(one.mean_and_sem()[1])


def test_votes_are_not_mistakes():
    """From w0 = -w* (odd n) every example is misclassified; a batch of m draws m - 1 votes that
    would all be mistakes if they were classified, but only the triggering one counts."""
    n, m = 5, 201
    w_star = np.array([-1, 1, 1, -1, 1])
    for batch in ("single", "multi"):
        res = DirectedDrift(n, batch=batch, m=m).simulate(
            w_star, 50, np.random.default_rng(4), w0=-w_star, max_examples=1
        )
        assert (res.mistakes == 1).all()
        assert (res.examples == m).all()


def test_single_bit_batch_flips_are_good_with_a_large_batch():
    """D4' with a large batch: from -w* every flip corrects a bit (n - 1 ... ), flips == mistakes."""
    n, m = 5, 401
    rng = np.random.default_rng(5)
    w_star = random_sign_vector(n, rng)
    res = DirectedDrift(n, batch="single", m=m).simulate(w_star, 100, rng, w0=-w_star, max_examples=CAP)
    assert res.finished.all() and (res.final_distance == 0).all()
    assert np.array_equal(res.flips, res.mistakes)
    assert (res.bad_flips == 0).all() and (res.flips == n).all()
    assert ((res.examples - m * res.mistakes) >= 0).all()


def test_single_batch_with_m1_is_algorithm_d():
    """D4' with m = 1 tallies only the mistaken example: argmax with random ties = uniform on J."""
    n = 6
    rng = np.random.default_rng(6)
    w_star = random_sign_vector(n, rng)
    res = DirectedDrift(n, batch="single", m=1).simulate(w_star, 3000, rng, max_examples=CAP)
    assert res.finished.all()
    mean, sem = res.mean_and_sem()
    assert abs(mean - float(DirectedDriftChain(n).expected_mistakes())) <= SE_TOL * sem
    assert np.array_equal(res.examples >= res.mistakes, np.ones(3000, dtype=bool))


@pytest.mark.parametrize(
    "rule, law",
    [
        # n = 5, w0 = -w*, m = 1: S = <w*, u> is 1, 3, 5 with probability 10/16, 5/16, 1/16;
        # Y = -S; "literal" flips (1 + S)/2, "majority" every disagreeing coordinate (5 + S)/2,
        # "double" min(1 + S, 5)
        ("literal", {1: 10, 2: 5, 3: 1}),
        ("majority", {3: 10, 4: 5, 5: 1}),
        ("double", {2: 10, 4: 5, 5: 1}),
    ],
)
def test_multi_rules_flip_counts(rule, law):
    n, trials = 5, 4000
    rng = np.random.default_rng(12)
    w_star = random_sign_vector(n, rng)
    res = DirectedDrift(n, batch="multi", m=1, multi_rule=rule).simulate(
        w_star, trials, rng, w0=-w_star, max_examples=1
    )
    assert (res.mistakes == 1).all() and (res.bad_flips == 0).all()  # from -w* no flip can be bad
    assert set(np.unique(res.flips)) <= set(law)
    assert np.array_equal(res.final_distance, n - res.flips)
    for flips, weight in law.items():
        p = weight / 16
        assert abs((res.flips == flips).mean() - p) <= SE_TOL * math.sqrt(p * (1 - p) / trials)


@pytest.mark.parametrize(
    "w, u, Y, r",
    [
        # relative coordinates (w* = 1): <w*, u> = sum(u) >= 0, Y = <w, u> < 0, r = floor((1 - Y)/2)
        ([-1, -1, -1, 1, 1], [1, 1, 1, -1, 1], -3, 2),
        ([-1, -1, -1, -1, -1], [1, 1, 1, 1, 1], -5, 3),
        ([-1, -1, 1, 1], [1, 1, -1, 1], -2, 1),  # even n: Y even, r = -Y/2
        ([-1, -1, -1, -1], [1, 1, 1, 1], -4, 2),
        ([-1, -1, -1, 1, 1, 1], [1, 1, 1, -1, -1, 1], -4, 2),
    ],
)
def test_multi_literal_flip_count_deterministic(w, u, Y, r):
    """Direct check of one D4'' update with m = 1 (so no votes are drawn): floor((1 - Y)/2) flips."""
    from onlinelib import _kernels_drift

    n = len(w)
    W = np.array(w, dtype=np.int8)
    U = np.array(u, dtype=np.int8)
    assert U.sum() >= 0
    assert int((W.astype(np.int64) * U).sum()) == Y
    before = W.copy()
    plus = (U > 0).astype(np.int64)  # the batch is u alone
    flips, bad = _kernels_drift.tally_and_flip(
        W, plus, 1, Y, _kernels_drift.RULES["multi", "literal"], np.random.default_rng(0)
    )
    changed = np.flatnonzero(W != before)
    assert flips == r and len(changed) == r
    assert set(changed) <= set(np.flatnonzero(before != U))  # only disagreeing coordinates carry a vote
    assert bad == int((before[changed] > 0).sum())
    assert (W * U).sum() >= 0  # r flips make the triggering example correct
    assert n == len(W)


def test_flip_index_is_uniform_on_J():
    """Step D4 picks the flipped index uniformly on J. From w0 = -w* at n = 5, J = {k : u_k = w*_k},
    and the flipped coordinate is then uniform on all 5 by symmetry (a rule such as 'first index
    in J' would flip coordinate 0 with probability 11/16)."""
    n, trials = 5, 5000
    rng = np.random.default_rng(16)
    w_star = random_sign_vector(n, rng)
    res = DirectedDrift(n).simulate(w_star, trials, rng, w0=-w_star, max_examples=1)
    assert (res.flips == 1).all()
    flipped = np.argmax(res.w != -w_star, axis=1)
    assert stats.chisquare(np.bincount(flipped, minlength=n)).pvalue > CHI2_LEVEL


def test_majority_rule_with_large_batch_finishes_in_one_update():
    """'majority' flips every coordinate with b_k > m/2; from -w* each one votes with prob 11/16."""
    n, m = 5, 2001
    rng = np.random.default_rng(13)
    w_star = random_sign_vector(n, rng)
    res = DirectedDrift(n, batch="multi", m=m, multi_rule="majority").simulate(
        w_star, 20, rng, w0=-w_star, max_examples=CAP
    )
    assert (res.mistakes == 1).all() and (res.flips == n).all() and (res.examples == m).all()
    assert res.finished.all() and (res.final_distance == 0).all()


def test_multi_rule_double_flips_more_than_literal():
    n, m, trials = 15, 60, 300
    w_star = random_sign_vector(n, np.random.default_rng(14))
    lit = DirectedDrift(n, batch="multi", m=m).simulate(
        w_star, trials, np.random.default_rng(15), w0=-w_star, max_examples=1
    )
    dbl = DirectedDrift(n, batch="multi", m=m, multi_rule="double").simulate(
        w_star, trials, np.random.default_rng(15), w0=-w_star, max_examples=1
    )
    # same seed, same draws: the double rule flips min(2r, n) where the literal one flips r
    assert np.array_equal(dbl.flips, np.minimum(2 * lit.flips, n))
    assert (lit.flips >= 1).all()


# -- the compiled batch engine (onlinelib._kernels_drift) ----------------------------------------


def reference_votes(seed, count, n, chunk):
    """The +1 counts ``add_votes`` must return, from the same random words drawn by numpy.

    numba's ``Generator.integers`` draws exactly as numpy's, so the rows can be rebuilt: blocks
    of min(remaining, chunk) rows of 32-bit words, bit k % 64 of 64-bit word k // 64 is
    coordinate k; a row with more -1 than +1 entries is negated (odd n) or skipped (even n).
    """
    rng = np.random.default_rng(seed)
    words = (n + 63) // 64
    plus = np.zeros(n, dtype=np.int64)
    remaining = count
    while remaining > 0:
        rows = min(remaining, chunk)
        block = rng.integers(0, 2**32, size=2 * words * rows, dtype=np.uint32).view(np.uint64).reshape(rows, words)
        k = np.arange(n)
        bits = ((block[:, k // 64] >> (k % 64).astype(np.uint64)) & np.uint64(1)).astype(np.int64)
        for row in bits:
            if 2 * row.sum() < n:
                if n % 2 == 0:
                    continue
                row = 1 - row
            plus += row
            remaining -= 1
    return plus


@pytest.mark.parametrize("n", [1, 2, 5, 6, 63, 64, 65, 128, 130, 200, 201])
@pytest.mark.parametrize("count", [0, 1, 14, 15, 16, 254, 255, 256, 1500, 2600])
def test_add_votes_counts_exactly_the_drawn_rows(n, count):
    """Exact, against numpy: the nibble and byte counters are emptied at 15 and 255 rows, blocks
    hold 1024 rows, and rows have one to four 64-bit words."""
    from onlinelib import _kernels_drift

    plus = np.zeros(n, dtype=np.int64)
    _kernels_drift.add_votes(np.random.default_rng(count + n), count, n, plus)
    np.testing.assert_array_equal(plus, reference_votes(count + n, count, n, _kernels_drift._CHUNK_ROWS))
    if count:
        assert plus.sum() * 2 >= count * n  # every row lies in the half-cube


@pytest.mark.parametrize("n", [5, 6])
def test_add_votes_draws_uniformly_from_the_halfcube(n):
    """The law: each draw's +1 count follows B+'s law; the counts of single draws are tallied."""
    from onlinelib import _kernels_drift

    support = halfcube(np.ones(n, dtype=np.int64))
    weights = (support > 0).sum(axis=1)  # +1 entries of each vertex of B+
    law = np.bincount(weights, minlength=n + 1) / len(support)
    rng = np.random.default_rng(n)
    counts = np.zeros(n + 1, dtype=np.int64)
    for _ in range(4000):
        plus = np.zeros(n, dtype=np.int64)
        _kernels_drift.add_votes(rng, 1, n, plus)
        counts[plus.sum()] += 1
    observed = counts[law > 0]
    assert stats.chisquare(observed, 4000 * law[law > 0]).pvalue > CHI2_LEVEL


@pytest.mark.parametrize("n, d", [(65, 1), (65, 30), (66, 2), (66, 40), (130, 3), (131, 64)])
def test_batch_mode_with_m1_has_the_one_step_law_of_algorithm_d(n, d):
    """Multi-word rows (n > 64), odd and even n: from distance d, one example is a mistake with
    probability q_d and its flip is good with probability p_d (the exact chain), as for step D4."""
    trials = 4000
    rng = np.random.default_rng(n + d)
    w_star = random_sign_vector(n, rng)
    w0 = w_star.copy()
    w0[rng.choice(n, size=d, replace=False)] *= -1
    res = DirectedDrift(n, batch="single", m=1).simulate(w_star, trials, rng, w0=w0, max_examples=1)
    chain = DirectedDriftChain(n)
    q, p = float(chain.mistake_probability(d)), float(chain.good_flip_probability(d))
    erred = res.mistakes == 1
    assert abs(erred.mean() - q) <= SE_TOL * math.sqrt(q * (1 - q) / trials)
    good = (res.final_distance[erred] == d - 1).mean()
    assert abs(good - p) <= SE_TOL * math.sqrt(p * (1 - p) / erred.sum()) + 1e-12
    assert np.array_equal(res.final_distance[~erred], np.full((~erred).sum(), d))
    assert np.array_equal(res.final_distance[erred], d - 1 + 2 * res.bad_flips[erred])


@pytest.mark.parametrize("batch, rule", [("single", "literal"), ("multi", "literal"), ("multi", "majority")])
@pytest.mark.parametrize("n", [70, 129])
def test_batch_runs_at_multi_word_n_keep_their_books(batch, rule, n):
    """Runs to w = w* with the default m: every run finishes, mistakes = d0 + 2B for single-bit
    updates, flips and distances add up, and a seed gives the same runs again."""
    w_star = random_sign_vector(n, np.random.default_rng(n))
    drift = DirectedDrift(n, batch=batch, multi_rule=rule)
    res = drift.simulate(w_star, 6, np.random.default_rng(1), max_examples=CAP * 100)
    again = drift.simulate(w_star, 6, np.random.default_rng(1), max_examples=CAP * 100)
    for name in ("mistakes", "examples", "flips", "bad_flips", "w", "initial_distance"):
        assert np.array_equal(getattr(res, name), getattr(again, name)), name
    assert res.finished.all() and (res.final_distance == 0).all() and (res.w == w_star).all()
    good = res.flips - res.bad_flips
    assert np.array_equal(res.initial_distance + res.bad_flips - good, res.final_distance)
    assert (res.examples >= drift.m * res.mistakes).all()
    if batch == "single":
        assert np.array_equal(res.mistakes, res.initial_distance + 2 * res.bad_flips)


# -- argument checking --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "delta, error",
    [
        (0, ValueError),
        (1, ValueError),
        (-0.5, ValueError),
        (float("nan"), ValueError),
        (1.5, ValueError),
        (float("inf"), ValueError),
        ("0.1", TypeError),
        (True, TypeError),
    ],
)
def test_bad_delta(delta, error):
    match = r"delta must be a (finite )?real number in \(0, 1\), got "
    with pytest.raises(error, match=match):
        DirectedDrift(5, delta)
    with pytest.raises(error, match=match):
        confidence_threshold(5, delta)


def test_bad_constructor_arguments():
    with pytest.raises(ValueError, match="m must be an integer >= 1, got 0"):
        DirectedDrift(5, batch="single", m=0)
    with pytest.raises(ValueError, match="m must be an integer >= 1, got -3"):
        DirectedDrift(5, batch="multi", m=-3)
    with pytest.raises(TypeError, match="m must be an integer"):
        DirectedDrift(5, batch="single", m=2.5)
    with pytest.raises(TypeError, match="m must be an integer"):
        DirectedDrift(5, batch="single", m="3")
    with pytest.raises(ValueError, match="batch must be one of"):
        DirectedDrift(5, batch="double")
    with pytest.raises(ValueError, match="multi_rule must be one of"):
        DirectedDrift(5, batch="multi", multi_rule="all")
    with pytest.raises(ValueError, match="without batch it must be None or 1, got 5"):
        DirectedDrift(5, m=5)
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        DirectedDrift(0)
    with pytest.raises(ValueError, match="n must be an integer >= 2"):
        single_bit_batch_size(1)
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        halfcube_size(0)


def test_bad_simulate_arguments():
    drift = DirectedDrift(4, 0.1)
    rng = np.random.default_rng(0)
    w_star = [1, -1, 1, 1]
    with pytest.raises(ValueError, match="w_star must have length n = 4, got 3"):
        drift.simulate([1, 1, 1], 5, rng)
    with pytest.raises(ValueError, match="trials must be an integer >= 1, got 0"):
        drift.simulate(w_star, 0, rng)
    with pytest.raises(TypeError, match="trials must be an integer"):
        drift.simulate(w_star, 2.0, rng)
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        drift.simulate(w_star, 5, np.random.RandomState(0))
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        drift.simulate(w_star, 5, 0)
    with pytest.raises(ValueError, match="max_examples must be an integer >= 1"):
        drift.simulate(w_star, 5, rng, max_examples=0)
    with pytest.raises(ValueError, match=r"w0 must have entries in \{-1, 1\}, got 0"):
        drift.simulate(w_star, 5, rng, w0=[1, 0, 1, 1])
    with pytest.raises(TypeError, match="w0 must be a vector"):
        drift.simulate(w_star, 5, rng, w0=np.ones(4, dtype=bool))
    for shape in [(3,), (5,), (2, 4), (5, 1), (5, 4, 1), ()]:
        with pytest.raises(ValueError, match=r"w0 must have shape \(n,\) = \(4,\) or \(trials, n\) = \(5, 4\)"):
            drift.simulate(w_star, 5, rng, w0=np.ones(shape))


@pytest.mark.parametrize("m", [1.0, True])
def test_m_must_be_an_integer_even_without_batch(m):
    with pytest.raises(TypeError, match=f"m must be an integer >= 1, got {m!r}"):
        DirectedDrift(5, m=m)


def test_initial_distance_is_recorded():
    w_star = np.array([1, -1, 1, 1, -1], dtype=np.int8)
    w0 = np.array([[1, -1, 1, 1, -1], [-1, 1, 1, 1, -1], [-1, 1, -1, -1, 1]], dtype=np.int8)
    run = DirectedDrift(5).simulate(w_star, 3, np.random.default_rng(0), w0=w0)
    np.testing.assert_array_equal(run.initial_distance, [0, 2, 5])
    assert run.mistakes[0] == 0 and run.final_distance.tolist() == [0, 0, 0]
    random_start = DirectedDrift(7).simulate(np.ones(7), 50, np.random.default_rng(1))
    assert ((random_start.initial_distance >= 0) & (random_start.initial_distance <= 7)).all()
    assert random_start.initial_distance.std() > 0
