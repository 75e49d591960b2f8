"""Tests for onlinelib.binary_weights (chapter 7: the clipped Hebb rule and Kac's Ehrenfest urn).

Exact quantities (Fractions, integers) are compared exactly: the clipped Hebb agreement against an
enumeration of every training set and against a direct binomial sum, the disagreement probability
against an enumeration of the cube, the Ehrenfest return times against Kac's formula and the mean
against the propagated law. Float versions are compared with the exact ones to rounding; the
simulator is compared with the exact mean overlap within 4 standard errors (seeded). Every
argument check raises the documented error, naming the argument, the domain and the value.
"""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from onlinelib.binary_weights import (
    clipped_hebb,
    clipped_hebb_agreement,
    clipped_hebb_overlap_limit,
    clipped_hebb_students,
    ehrenfest_mean,
    ehrenfest_return_times,
    ehrenfest_stationary,
    ehrenfest_transition,
    hebb_drift,
    kac_return_time,
    sign_disagreement,
)
from onlinelib.directed_drift import DirectedDriftChain


def cube(n):
    return np.array(list(itertools.product((-1, 1), repeat=n)), dtype=np.int64)


def test_hebb_drift_is_the_mean_absolute_sum_over_n_and_the_chains_q1():
    for n in range(1, 26, 2):
        mean_abs = Fraction(sum(math.comb(n, k) * abs(2 * k - n) for k in range(n + 1)), 2**n)
        assert hebb_drift(n) == mean_abs / n
        assert hebb_drift(n) == DirectedDriftChain(n).mistake_probability(1)
        # tol: rounding: the log-space float against the exact fraction
        assert math.isclose(hebb_drift(n, exact=False), float(hebb_drift(n)), rel_tol=1e-12)
    # sqrt(n) m_n -> sqrt(2/pi) from above, the gap about 1/(4n)
    value = hebb_drift(10_001, exact=False) * math.sqrt(10_001)
    assert 0 < value - math.sqrt(2 / math.pi) < 1 / 10_001


def test_hebb_drift_by_enumerating_the_half_cube():
    for n in (1, 3, 5, 7):
        C = cube(n)
        B = np.ones(n, dtype=np.int64)
        U = C[C @ B > 0]
        assert Fraction(int(U[:, 0].sum()), len(U)) == hebb_drift(n)


@pytest.mark.parametrize(("n", "p"), [(1, 1), (3, 1), (3, 3), (5, 3), (3, 5)])
def test_agreement_equals_the_enumeration_of_every_training_set(n, p):
    C = cube(n)
    X = C[np.indices((len(C),) * p).reshape(p, -1).T]
    W = clipped_hebb(X, np.sign(X.sum(axis=2)))
    assert Fraction(int((W == 1).sum()), W.size) == clipped_hebb_agreement(n, p)


def test_agreement_exact_equals_a_direct_binomial_sum_and_the_float_version():
    for n, p in [(5, 7), (11, 21), (101, 101), (51, 301)]:
        a = Fraction(1, 2) + hebb_drift(n) / 2
        direct = sum(math.comb(p, k) * a**k * (1 - a) ** (p - k) for k in range(p // 2 + 1, p + 1))
        exact = clipped_hebb_agreement(n, p, exact=True)
        assert exact == direct
        # tol: rounding: scipy's binomial tail against the exact fraction
        assert math.isclose(clipped_hebb_agreement(n, p, exact=False), float(exact), rel_tol=1e-9)
    assert isinstance(clipped_hebb_agreement(101, 101), Fraction)  # default: exact when n p is small
    assert isinstance(clipped_hebb_agreement(1001, 1001), float)


def test_agreement_tends_to_phi_of_kappa():
    from scipy.stats import norm

    gaps = []
    for n in (101, 1001, 10_001):
        p = 2 * n + 1
        gaps.append(abs(clipped_hebb_agreement(n, p, exact=False) - norm.cdf(math.sqrt(2 * (p / n) / math.pi))))
    assert gaps[0] > gaps[1] > gaps[2] and gaps[2] < 1e-4, gaps


def test_overlap_limit_is_erf_and_vectorised():
    from scipy.stats import norm

    alphas = np.array([0.0, 0.5, 1.0, 4.0])
    R = clipped_hebb_overlap_limit(alphas)
    assert R.shape == (4,) and R[0] == 0.0
    # tol: rounding: erf(sqrt(alpha/pi)) = 2 Phi(sqrt(2 alpha/pi)) - 1 in doubles
    assert np.allclose(R, 2 * norm.cdf(np.sqrt(2 * alphas / np.pi)) - 1, rtol=0, atol=1e-12)
    assert isinstance(clipped_hebb_overlap_limit(1), float)


def test_clipped_hebb_shapes_and_ties():
    X = np.array([[1, -1, 1], [1, 1, -1]])
    assert clipped_hebb(X, [1, 1]).tolist() == [1, 1, 1]  # the sums 2, 0, 0: ties give +1
    assert clipped_hebb(X, [1, -1]).tolist() == [1, -1, 1]  # the sums 0, -2, 2
    batch = np.stack([X, -X])
    assert clipped_hebb(batch, np.ones((2, 2), dtype=int)).shape == (2, 3)


def test_students_match_the_exact_mean_overlap():
    rng = np.random.default_rng(5)
    n, p, trials = 21, 31, 2000
    teacher = 1 - 2 * rng.integers(0, 2, size=n)
    S = clipped_hebb_students(teacher, p, trials, rng)
    assert S.shape == (trials, n) and set(np.unique(S)) <= {-1, 1}
    R = S @ teacher / n
    se = R.std(ddof=1) / math.sqrt(trials)
    # tol: se: 4 SE of the mean overlap of 2000 students
    assert abs(R.mean() - float(2 * clipped_hebb_agreement(n, p) - 1)) <= 4 * se
    again = clipped_hebb_students(teacher, p, trials, np.random.default_rng(5))
    first = clipped_hebb_students(teacher, p, trials, np.random.default_rng(5))
    assert np.array_equal(again, first)  # seeded: the same students


def test_students_are_drawn_in_blocks_without_changing_the_law():
    rng = np.random.default_rng(6)
    teacher = np.ones(3, dtype=int)
    p = 2**21 + 1  # 2^24 // (3 p) = 2 trials per block, so 3 trials take 2 blocks
    S = clipped_hebb_students(teacher, p, 3, rng)
    assert (S == 1).all()  # each vote is right w.p. 3/4: with 2 million votes every coordinate is


def test_sign_disagreement_equals_the_enumeration_of_the_cube():
    for n in (1, 3, 5, 7, 9):
        C = cube(n)
        for d in range(n + 1):
            w = np.r_[-np.ones(d, dtype=np.int64), np.ones(n - d, dtype=np.int64)]
            differ = int((np.sign(C.sum(axis=1)) != np.sign(C @ w)).sum())
            assert sign_disagreement(n, d) == Fraction(differ, 2**n), (n, d)
    assert sign_disagreement(9, 0) == 0 and sign_disagreement(9, 9) == 1
    assert isinstance(sign_disagreement(9, 3, exact=False), float)


def test_sign_disagreement_tends_to_sheppards_formula():
    gaps = [
        abs(sign_disagreement(n, n // 4, exact=False) - math.acos(1 - 2 * (n // 4) / n) / math.pi)
        for n in (41, 161, 641)
    ]
    assert gaps[0] > gaps[1] > gaps[2] and gaps[2] < 2e-3, gaps


def test_ehrenfest_stationary_law_and_transition():
    for n in range(1, 16):
        P, pi = ehrenfest_transition(n), ehrenfest_stationary(n)
        assert all(sum(row) == 1 for row in P)
        assert [sum(pi[i] * P[i][j] for i in range(n + 1)) for j in range(n + 1)] == pi
    assert ehrenfest_transition(2) == [[0, 1, 0], [Fraction(1, 2), 0, Fraction(1, 2)], [0, 1, 0]]


def test_return_times_solved_equal_kacs_formula():
    for n in range(1, 8):
        assert ehrenfest_return_times(n) == [kac_return_time(n, k) for k in range(n + 1)]
    assert kac_return_time(100, 0) == 2**100
    assert kac_return_time(4, 2) == Fraction(16, 6)


def test_ehrenfest_mean_against_the_propagated_law():
    n, x0 = 6, 1
    P = ehrenfest_transition(n)
    law = [Fraction(int(k == x0)) for k in range(n + 1)]
    for t in range(20):
        assert sum(k * q for k, q in enumerate(law)) == ehrenfest_mean(n, x0, t)
        law = [sum(law[i] * P[i][j] for i in range(n + 1)) for j in range(n + 1)]
    ts = np.arange(5)
    # tol: rounding: the float array against the exact fractions
    assert np.allclose(ehrenfest_mean(n, x0, ts), [float(ehrenfest_mean(n, x0, int(t))) for t in ts], rtol=1e-12)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: hebb_drift(4), ValueError, r"n must be an odd integer >= 1 \(even n has ties .*\), got 4"),
        (lambda: hebb_drift(0), ValueError, r"n must be an integer >= 1, got 0"),
        (lambda: hebb_drift(3.0), TypeError, r"n must be an integer >= 1, got 3.0"),
        (lambda: clipped_hebb_agreement(5, 4), ValueError, r"p must be an odd integer >= 1 .*got 4"),
        (lambda: clipped_hebb_agreement(6, 5), ValueError, r"n must be an odd integer >= 1 .*got 6"),
        (lambda: clipped_hebb([[1, 0]], [1]), ValueError, r"X must have entries in \{-1, 1\}, got 0"),
        (lambda: clipped_hebb([[1, 1]], [2]), ValueError, r"y must have entries in \{-1, 1\}, got 2"),
        (lambda: clipped_hebb([[True, True]], [1]), TypeError, r"X must hold numbers in \{-1, 1\}, got dtype bool"),
        (lambda: clipped_hebb([[1, 1]], [1, 1]), ValueError, r"y must have shape X.shape\[:-1\] = \(1,\)"),
        (lambda: clipped_hebb([1, 1], [1, 1]), ValueError, r"y must have shape"),
        (lambda: clipped_hebb_overlap_limit(-1.0), ValueError, r"alpha must be a finite real number >= 0, got -1.0"),
        (lambda: clipped_hebb_overlap_limit(np.nan), ValueError, r"alpha must be a finite real number >= 0, got nan"),
        (lambda: clipped_hebb_overlap_limit("1"), TypeError, r"alpha must be a real number >= 0, got dtype"),
        (lambda: sign_disagreement(5, 6), ValueError, r"d must be an integer in \[0, 5\], got 6"),
        (lambda: sign_disagreement(4, 1), ValueError, r"n must be an odd integer >= 1 .*got 4"),
        (lambda: ehrenfest_transition(0), ValueError, r"n must be an integer >= 1, got 0"),
        (lambda: ehrenfest_stationary(1.5), TypeError, r"n must be an integer >= 1, got 1.5"),
        (lambda: ehrenfest_return_times(61), ValueError, r"n must be an integer in \[1, 60\], got 61"),
        (lambda: kac_return_time(4, 5), ValueError, r"k must be an integer in \[0, 4\], got 5"),
        (lambda: ehrenfest_mean(4, 5, 1), ValueError, r"x0 must be an integer in \[0, 4\], got 5"),
        (lambda: ehrenfest_mean(4, 1, -1), ValueError, r"t must be an integer >= 0, got -1"),
        (lambda: ehrenfest_mean(4, 1, np.array([1, -2])), ValueError, r"t must hold integers >= 0, got -2"),
        (lambda: ehrenfest_mean(4, 1, np.array([0.5])), TypeError, r"t must hold integers >= 0, got dtype float64"),
    ],
)
def test_bad_arguments_name_the_argument_the_domain_and_the_value(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_students_argument_checks():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"teacher's length n must be an odd integer >= 1 .*got 4"):
        clipped_hebb_students(np.ones(4), 3, 2, rng)
    with pytest.raises(ValueError, match=r"teacher must have entries in \{-1, 1\}, got 0"):
        clipped_hebb_students([1, 0, 1], 3, 2, rng)
    with pytest.raises(ValueError, match=r"p must be an odd integer >= 1 .*got 2"):
        clipped_hebb_students(np.ones(3), 2, 2, rng)
    with pytest.raises(ValueError, match=r"trials must be an integer >= 1, got 0"):
        clipped_hebb_students(np.ones(3), 3, 0, rng)
    with pytest.raises(TypeError, match=r"rng must be a numpy.random.Generator"):
        clipped_hebb_students(np.ones(3), 3, 2, 0)
