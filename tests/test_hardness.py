"""Tests for onlinelib.hardness (chapter 6, Theorems 4 and 5) and the monotone-DNF streams.

Theorem 4 is checked on real kernel-Perceptron runs against the exact scores of MATH.md
section 3.2; Winnow over monomials against the closed form w_T = alpha^(P_T - D_T) and a
plain Winnow2 on the explicit features; the counting illustration against itertools brute
force; the Lemma 6 tails against math.comb. Integer quantities are compared exactly; the
few floating-point comparisons state their tolerance.
"""

import itertools
import math
import re
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from onlinelib import (
    KernelPerceptron,
    MonomialWinnow,
    SetFamily,
    Winnow2,
    constant_weight_family,
    monotone_dnf_labels,
    monotone_dnf_stream,
    monotone_monomials,
    run,
    theorem4_stream,
)
from onlinelib.hardness import (
    CONVENTIONS,
    MAX_COUNTING_VARIABLES,
    MAX_MONOMIAL_VARIABLES,
    check_convention,
    check_family,
    check_weights,
    chernoff_upper_tail,
    clause_violation_histogram,
    count_2cnf,
    count_2cnf_by_threshold,
    counting_queries,
    counting_stream,
    counting_theta,
    intersection_tail,
    kwp_answer,
    lemma6_size,
    monomial_features,
    monomial_weight_exponents,
    recover_histogram,
    theorem4_condition,
    theorem4_max_size,
    theorem4_mistakes,
    theorem4_scores,
    threshold_instance,
)

PROPERTY = settings(max_examples=40, deadline=None, database=None)


# -- monotone DNF streams (onlinelib.streams) --------------------------------------------------


def test_monotone_dnf_labels_against_a_direct_evaluation():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, (200, 7)).astype(np.uint8)
    terms = [[0, 1], [2, 4, 6], [5]]
    y = monotone_dnf_labels(X, terms)
    expected = [1 if any(all(x[i] for i in term) for term in terms) else -1 for x in X.tolist()]
    assert y.dtype == np.int8 and y.tolist() == expected
    assert 0 < np.count_nonzero(y == 1) < len(y)
    # hand-computed: x1 x2 OR x3 on three instances
    assert monotone_dnf_labels([[1, 1, 0], [1, 0, 0], [0, 0, 1]], [[0, 1], [2]]).tolist() == [1, -1, 1]
    assert monotone_dnf_labels([0, 1, 1], [(1, 2)]).tolist() == [1]  # one instance, tuple term


def test_monotone_dnf_stream():
    X, y = monotone_dnf_stream(8, [[0, 1], [3]], 500, np.random.default_rng(1), density=0.3)
    assert X.shape == (500, 8) and X.dtype == np.uint8 and y.shape == (500,) and y.dtype == np.int8
    assert y.tolist() == monotone_dnf_labels(X, [[0, 1], [3]]).tolist()
    assert abs(X.mean() - 0.3) < 0.05  # 4000 Bernoulli(0.3) draws: sd 0.007, so 7 sd
    X2, y2 = monotone_dnf_stream(8, [[0, 1], [3]], 500, np.random.default_rng(1), density=0.3)
    assert np.array_equal(X, X2) and np.array_equal(y, y2)
    X3, _ = monotone_dnf_stream(8, [[0, 1], [3]], 500, np.random.default_rng(2), density=0.3)
    assert not np.array_equal(X, X3)


def test_monotone_dnf_errors():
    X = np.ones((2, 3))
    with pytest.raises(ValueError, match="terms must hold at least one term"):
        monotone_dnf_labels(X, [])
    for bad in ([[0, 3]], [[-1]], [[]], [5]):
        with pytest.raises(ValueError, match=r"each term must be a non-empty list of variable indices in \[0, 3\)"):
            monotone_dnf_labels(X, bad)
    with pytest.raises(ValueError, match="X must be Boolean"):
        monotone_dnf_labels([[0, 2, 1]], [[0]])
    rng = np.random.default_rng(0)
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        monotone_dnf_stream(3, [[0]], 10, np.random.RandomState(0))
    for density in (0, 1, 1.5, True, "0.5", np.nan):
        with pytest.raises(ValueError, match=r"density must be a real number in \(0, 1\)"):
            monotone_dnf_stream(3, [[0]], 10, rng, density=density)
    with pytest.raises(ValueError, match="length must be an integer >= 1, got 0"):
        monotone_dnf_stream(3, [[0]], 0, rng)
    with pytest.raises(TypeError, match="n_features must be an integer >= 1, got 2.0"):
        monotone_dnf_stream(2.0, [[0]], 10, rng)
    with pytest.raises(ValueError, match="n_features must be an integer >= 1, got 0"):
        monotone_dnf_stream(0, [[0]], 10, rng)


# -- constant-weight families (Lemma 6) ---------------------------------------------------------


def independent_family_check(sets, a, b):
    """Weights and pairwise intersections with Python sets, not matrix products."""
    as_sets = [frozenset(i for i, v in enumerate(row) if v) for row in np.asarray(sets).tolist()]
    assert all(len(s) == a for s in as_sets)
    assert all(len(s & t) <= b for s, t in itertools.combinations(as_sets, 2))
    return as_sets


@st.composite
def family_parameters(draw):
    n = draw(st.integers(2, 24))
    a = draw(st.integers(1, n - 1))
    b = draw(st.integers(0, a - 1))
    return (
        n,
        a,
        b,
        draw(st.integers(1, 30)),
        draw(st.sampled_from(["greedy", "random"])),
        draw(st.integers(0, 2**32 - 1)),
    )


@PROPERTY
@given(family_parameters())
def test_family_satisfies_its_constraints_and_is_reproducible(params):
    n, a, b, size, method, seed = params
    family = constant_weight_family(n, a, b, size, np.random.default_rng(seed), method=method)
    assert isinstance(family, SetFamily)
    assert (family.n, family.a, family.b, family.requested, family.method) == (n, a, b, size, method)
    assert family.sets.dtype == np.uint8 and family.sets.shape == (family.size, n)
    assert 1 <= family.size <= size  # the first draw is always kept
    independent_family_check(family.sets, a, b)
    np.testing.assert_array_equal(check_family(family.sets, a, b), family.sets)
    meet = family.intersections()
    assert np.all(np.diag(meet) == a) and np.all(meet[~np.eye(family.size, dtype=bool)] <= b)
    if method == "random":
        assert family.draws == size and family.size >= size - family.conflicts
    else:
        assert family.conflicts == 0 and family.draws <= 50 * size + 1000
        assert family.size == size or family.draws == 50 * size + 1000  # stops only when done or out of draws
    again = constant_weight_family(n, a, b, size, np.random.default_rng(seed), method=method)
    np.testing.assert_array_equal(again.sets, family.sets)
    assert (again.draws, again.conflicts) == (family.draws, family.conflicts)


def test_family_sizes_reached_and_limits():
    # the Theorem-4 families of the chapter are reached in full
    for n in (16, 24, 32, 40, 80):
        t = theorem4_max_size(n // 4, n // 8)
        family = constant_weight_family(n, n // 4, n // 8, t, np.random.default_rng(0))
        assert family.size == t == 2 ** (n // 8)
    # at most two disjoint pairs in {1..4}: the greedy stops at 2 after max_draws draws
    family = constant_weight_family(4, 2, 0, 5, np.random.default_rng(0), max_draws=300)
    assert family.size == 2 and family.draws == 300
    # with b = a - 1 every two distinct sets qualify, but the random method may draw duplicates
    family = constant_weight_family(6, 3, 2, 40, np.random.default_rng(1), method="random")
    independent_family_check(family.sets, 3, 2)
    assert family.size == len({tuple(r) for r in family.sets.tolist()}) <= math.comb(6, 3)
    assert "size=" in repr(family) and "requested" in repr(family)


def test_different_seeds_give_different_families():
    f1 = constant_weight_family(30, 8, 3, 20, np.random.default_rng(1))
    f2 = constant_weight_family(30, 8, 3, 20, np.random.default_rng(2))
    assert not np.array_equal(f1.sets, f2.sets)


def test_family_errors():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"a must be an integer in \[1, 9\], got 10"):
        constant_weight_family(10, 10, 2, 5, rng)
    with pytest.raises(ValueError, match=r"b must be an integer in \[0, 3\], got 4"):
        constant_weight_family(10, 4, 4, 5, rng)
    with pytest.raises(ValueError, match=r"method must be 'greedy' or 'random', got 'best'"):
        constant_weight_family(10, 4, 2, 5, rng, method="best")
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator, e.g. numpy.random.default_rng"):
        constant_weight_family(10, 4, 2, 5, 0)
    with pytest.raises(ValueError, match="size must be an integer >= 1, got 0"):
        constant_weight_family(10, 4, 2, 0, rng)
    with pytest.raises(TypeError, match="n must be an integer"):
        constant_weight_family(10.0, 4, 2, 5, rng)
    with pytest.raises(ValueError, match="max_draws must be an integer >= 1"):
        constant_weight_family(10, 4, 2, 5, rng, max_draws=0)


def test_check_family_errors():
    with pytest.raises(ValueError, match=r"every set must have weight a = 2, but set 1 has weight 1"):
        check_family([[1, 1, 0, 0], [1, 0, 0, 0]], 2, 1)
    with pytest.raises(
        ValueError, match=r"sets must pairwise meet in at most b = 1 elements, but sets 1 and 2 meet in 2"
    ):
        check_family([[1, 1, 0, 0], [0, 1, 1, 0], [0, 1, 1, 0]], 2, 1)
    with pytest.raises(ValueError, match=r"a must be an integer in \[1, 3\], got 4"):
        check_family([[1, 1, 1, 1]], 4, 1)
    with pytest.raises(ValueError, match=r"b must be an integer in \[0, 1\], got 2"):
        check_family([[1, 1, 0, 0]], 2, 2)
    with pytest.raises(ValueError, match="sets must be Boolean"):
        check_family([[1, 2, 0, 0]], 2, 1)
    assert check_family([[1, 1, 0, 0], [0, 0, 1, 1]], 2, 0).dtype == np.uint8


# -- Theorem 4 -------------------------------------------------------------------------------------


def test_theorem4_stream_layout():
    family = constant_weight_family(12, 3, 1, 6, np.random.default_rng(4))
    X, y = theorem4_stream(family)
    assert X.dtype == np.uint8 and y.dtype == np.int8 and X.shape == (family.size + 2, 12)
    assert X[0].tolist() == [0] * 12 and X[1].tolist() == [1] * 12
    np.testing.assert_array_equal(X[2:], family.sets)
    # the labels are those of the target x_1 x_2 ... x_n
    assert y.tolist() == monotone_dnf_labels(X, [list(range(12))]).tolist() == [-1, 1] + [-1] * family.size
    X2, y2 = theorem4_stream(family.sets, 3, 1)  # a plain matrix with a and b
    np.testing.assert_array_equal(X2, X)
    np.testing.assert_array_equal(y2, y)


def test_theorem4_stream_errors():
    bad = np.array([[1, 1, 0, 0], [1, 1, 0, 0]])
    with pytest.raises(
        ValueError, match=r"sets must pairwise meet in at most b = 1 elements, but sets 0 and 1 meet in 2"
    ):
        theorem4_stream(bad, 2, 1)
    with pytest.raises(ValueError, match=r"every set must have weight a = 3, but set 0 has weight 2"):
        theorem4_stream(bad, 3, 1)
    with pytest.raises(TypeError, match="give a and b with a matrix of sets"):
        theorem4_stream(bad)
    # a SetFamily is checked too, whoever built it
    forged = SetFamily(bad.astype(np.uint8), n=4, a=2, b=1, requested=2, method="greedy", draws=2)
    with pytest.raises(ValueError, match="but sets 0 and 1 meet in 2"):
        theorem4_stream(forged)


@pytest.mark.parametrize("n", [16, 24, 32, 40])
@pytest.mark.parametrize("convention", ["nonnegative", "positive"])
def test_theorem4_exact_mistakes_and_scores(n, convention):
    a, b = n // 4, n // 8
    t = theorem4_max_size(a, b, convention)
    assert theorem4_condition(t, a, b, convention) and not theorem4_condition(t + 1, a, b, convention)
    family = constant_weight_family(n, a, b, t, np.random.default_rng(n))
    assert family.size == t
    X, y = theorem4_stream(family)
    for method in ("loop", "auto"):
        kp = KernelPerceptron(n, monotone_monomials(), convention)
        trace = run(kp, X, y, method=method)
        assert trace.n_mistakes == theorem4_mistakes(t, convention) == t + (2 if convention == "nonnegative" else 1)
        assert trace.mistakes[2:].all() and bool(trace.mistakes[0]) == (convention == "nonnegative")
    # the score on each x^j, computed before the update, is the exact formula
    kp = KernelPerceptron(n, monotone_monomials(), convention)
    scores = []
    for i, (x, label) in enumerate(zip(X, y, strict=True)):
        if i >= 2:
            scores.append(kp.score(x))
        kp.update(x, int(label))
    expected = theorem4_scores(family, convention)
    assert scores == expected and all(type(s) is int for s in expected)
    assert expected[0] == 2**a - (1 if convention == "nonnegative" else 0)  # nothing subtracted yet
    # independent: f(x^j) = start - sum_{i<j} 2^|x^i & x^j| with Python sets
    as_sets = independent_family_check(family.sets, a, b)
    start = 2**a - 1 if convention == "nonnegative" else 2**a
    assert expected == [start - sum(2 ** len(as_sets[i] & as_sets[j]) for i in range(j)) for j in range(t)]


@pytest.mark.parametrize("convention", ["nonnegative", "positive"])
def test_theorem4_beyond_the_condition_scores_decide_the_mistakes(convention):
    """With a family larger than the condition allows, x^j is a mistake iff its score says so,
    as long as every earlier member was a mistake (the formula assumes that)."""
    n, a, b = 16, 4, 2
    family = constant_weight_family(n, a, b, 30, np.random.default_rng(7))
    assert family.size > theorem4_max_size(a, b, convention)
    scores = theorem4_scores(family, convention)
    is_mistake = [s >= 0 if convention == "nonnegative" else s > 0 for s in scores]
    first_correct = is_mistake.index(False)
    assert first_correct >= theorem4_max_size(a, b, convention)  # the condition is sufficient
    trace = run(KernelPerceptron(n, monotone_monomials(), convention), *theorem4_stream(family))
    assert trace.mistakes[2 : 2 + first_correct].all() and not trace.mistakes[2 + first_correct]


def test_theorem4_primal_weights_after_the_first_two_examples():
    n = 6
    X = np.array([np.zeros(n), np.ones(n)], dtype=np.uint8)
    y = np.array([-1, 1])
    kp = KernelPerceptron(n, monotone_monomials(), "nonnegative")
    trace = run(kp, X, y)
    assert trace.n_mistakes == 2
    w = kp.primal_weights()
    assert monotone_monomials().feature_names(n)[0] == "1"
    assert w[0] == 0 and np.all(w[1:] == 1) and len(w) == 2**n
    strict = KernelPerceptron(n, monotone_monomials(), "positive")
    trace = run(strict, X, y)
    assert trace.mistakes.tolist() == [False, True]
    assert np.all(strict.primal_weights() == 1)


@pytest.mark.parametrize("convention", ["nonnegative", "positive"])
def test_theorem4_condition_agrees_with_max_size(convention):
    for a in range(1, 11):
        for b in range(0, a + 3):  # b >= a is allowed by the condition functions
            t_max = theorem4_max_size(a, b, convention)
            allowed = [t for t in range(0, 2**a + 3) if theorem4_condition(t, a, b, convention)]
            assert allowed == list(range(0, t_max + 1))  # an initial segment, ending at t_max
            if convention == "nonnegative":
                assert t_max == (2**a - 1) // 2**b + 1
                assert (t_max - 1) * 2**b <= 2**a - 1 < t_max * 2**b
            else:
                assert (t_max - 1) * 2**b < 2**a <= t_max * 2**b
    assert theorem4_max_size(10, 5) == 32 and theorem4_max_size(10, 5, "positive") == 32
    assert theorem4_max_size(3, 1) == 4 and theorem4_max_size(3, 1, "positive") == 4  # 7 // 2 + 1; 8 / 2
    assert theorem4_max_size(3, 0) == 8 and theorem4_max_size(3, 0, "positive") == 8
    assert theorem4_mistakes(0) == 2 and theorem4_mistakes(5, "positive") == 6


def test_theorem4_bad_input():
    match = r"convention must be one of \('nonnegative', 'positive'\), got 'margin'"
    family = constant_weight_family(8, 2, 1, 3, np.random.default_rng(0))
    with pytest.raises(ValueError, match=match):
        theorem4_scores(family, "margin")
    with pytest.raises(ValueError, match=match):
        theorem4_condition(3, 4, 2, "margin")
    with pytest.raises(ValueError, match=match):
        theorem4_max_size(4, 2, "margin")
    with pytest.raises(ValueError, match=match):
        theorem4_mistakes(3, "margin")
    with pytest.raises(TypeError, match="family must be a SetFamily"):
        theorem4_scores(family.sets)
    with pytest.raises(ValueError, match="t must be an integer >= 0, got -1"):
        theorem4_condition(-1, 4, 2)
    with pytest.raises(ValueError, match="a must be an integer >= 1, got 0"):
        theorem4_max_size(0, 0)
    with pytest.raises(TypeError, match="b must be an integer"):
        theorem4_condition(2, 4, 1.0)


def test_check_convention():
    assert CONVENTIONS == ("nonnegative", "positive")
    for convention in CONVENTIONS:
        assert check_convention(convention) == convention
    assert check_convention("margin", ("nonnegative", "positive", "margin")) == "margin"
    for bad in ("margin", "Positive", None, 0, ["positive"]):
        with pytest.raises(
            ValueError, match=rf"^convention must be one of \('nonnegative', 'positive'\), got {re.escape(repr(bad))}$"
        ):
            check_convention(bad)
    with pytest.raises(ValueError, match=r"^convention must be one of \('a', 'b'\), got 'c'$"):
        check_convention("c", ("a", "b"))


def test_check_weights():
    assert check_weights(8, 3, 2) == (8, 3, 2) and check_weights(2, 1, 0) == (2, 1, 0)
    assert all(type(v) is int for v in check_weights(np.int64(8), np.int32(3), np.uint8(0)))
    assert check_weights(128, 64, 8, max_n=128) == (128, 64, 8)
    cases = [
        ((1, 1, 0), {}, ValueError, r"^n must be an integer >= 2, got 1$"),
        ((129, 3, 2), {"max_n": 128}, ValueError, r"^n must be an integer in \[2, 128\], got 129$"),
        ((8, 8, 2), {}, ValueError, r"^a must be an integer in \[1, 7\], got 8$"),
        ((8, 0, 0), {}, ValueError, r"^a must be an integer in \[1, 7\], got 0$"),
        ((8, 3, 3), {}, ValueError, r"^b must be an integer in \[0, 2\], got 3$"),
        ((8, 3, -1), {}, ValueError, r"^b must be an integer in \[0, 2\], got -1$"),
        ((8.0, 3, 2), {}, TypeError, r"^n must be an integer >= 2, got 8\.0$"),
        ((8, "3", 2), {}, TypeError, r"^a must be an integer in \[1, 7\], got '3'$"),
        ((8, 3, True), {}, TypeError, r"^b must be an integer in \[0, 2\], got True$"),
    ]
    for args, kwargs, exc, match in cases:
        with pytest.raises(exc, match=match):
            check_weights(*args, **kwargs)


# -- Lemma 6: tails -----------------------------------------------------------------------------------


def test_lemma6_size_threshold():
    # t = e^(n/9600) >= 2 iff n >= 9600 ln 2 = 6654.24...: the first such n is 6655
    assert math.ceil(9600 * math.log(2)) == 6655
    assert lemma6_size(6654) < 2 <= lemma6_size(6655)
    assert lemma6_size(6653) < lemma6_size(6654)
    assert lemma6_size(9600) == pytest.approx(math.e, rel=1e-15)  # one rounding of exp
    with pytest.raises(ValueError, match="n must be an integer >= 1, got 0"):
        lemma6_size(0)


def exact_intersection_tail(n, a, s):
    """P(|x & y| >= s) for independent uniform weight-a subsets, in exact fractions."""
    total = math.comb(n, a)
    return sum(Fraction(math.comb(a, k) * math.comb(n - a, a - k), total) for k in range(max(s, 0), a + 1))


def test_intersection_tail_exact_formula():
    cases = [(n, a) for n in range(1, 11) for a in range(0, n + 1)] + [(20, 1), (20, 5), (20, 10), (20, 19), (40, 10)]
    for n, a in cases:
        for s in range(0, a + 2):
            # scipy's hypergeometric tail is a float; 1e-9 relative (plus 1e-15 absolute for tails ~0)
            assert intersection_tail(n, a, s) == pytest.approx(
                float(exact_intersection_tail(n, a, s)), rel=1e-9, abs=1e-15
            )
    assert intersection_tail(10, 3, 0) == 1.0 and intersection_tail(10, 3, 4) == 0.0


def test_intersection_tail_brute_force_small():
    n, a = 6, 3
    subsets = list(itertools.combinations(range(n), a))
    for s in range(0, a + 1):
        count = sum(len(set(x) & set(y)) >= s for x in subsets for y in subsets)
        assert intersection_tail(n, a, s) == pytest.approx(count / len(subsets) ** 2, rel=1e-12)


def test_chernoff_bounds_binomial_and_hypergeometric_tails():
    # the threshold ceil((1 + delta) mean) is computed in exact fractions; the comparison
    # allows 1e-12 relative for the floating-point tail and bound
    for delta in (Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(2), Fraction(4)):
        for trials in (10, 20, 50, 100, 400):
            for p in (Fraction(1, 50), Fraction(1, 20), Fraction(1, 10), Fraction(3, 10), Fraction(1, 2)):
                mean = trials * p
                k = math.ceil((1 + delta) * mean)  # P(X >= (1 + delta) mean) = P(X >= k)
                tail = stats.binom(trials, float(p)).sf(k - 1)
                assert tail <= chernoff_upper_tail(float(mean), float(delta)) * (1 + 1e-12)
        for n in (20, 40, 80, 200, 400):
            for a in (2, n // 10, n // 4, n // 2):
                mean = Fraction(a * a, n)
                s = math.ceil((1 + delta) * mean)
                assert intersection_tail(n, a, s) <= chernoff_upper_tail(float(mean), float(delta)) * (1 + 1e-12)
    # the bound is not vacuous on this grid: for delta = 4 and mean 5 it is below 1e-4
    assert chernoff_upper_tail(5.0, 4.0) < 1e-4


def test_chernoff_lemma6_numbers():
    for n in (80, 400, 800, 8000, 80000):
        bound = chernoff_upper_tail(n / 400, 4)
        # (e^4 / 5^5)^(n/400) = e^(n (4 - 5 ln 5) / 400) ~ e^(-0.010118 n); float rounding only
        assert bound == pytest.approx((math.e**4 / 5**5) ** (n / 400), rel=1e-9)
        assert bound == pytest.approx(math.exp(n * (4 - 5 * math.log(5)) / 400), rel=1e-9)
        if n <= 8000:
            assert intersection_tail(n, n // 20, n // 80) <= bound
    assert chernoff_upper_tail(3.0, 1.0) == pytest.approx((math.e / 4) ** 3, rel=1e-12)
    with pytest.raises(ValueError, match="mean must be a finite real number > 0.0, got 0.0"):
        chernoff_upper_tail(0, 1)
    with pytest.raises(ValueError, match="delta must be a finite real number > 0.0"):
        chernoff_upper_tail(1, -1)
    with pytest.raises(TypeError, match="delta must be a real number"):
        chernoff_upper_tail(1, "4")
    with pytest.raises(ValueError, match=r"a must be an integer in \[0, 10\], got 11"):
        intersection_tail(10, 11, 1)


# -- Winnow over all monotone monomials ----------------------------------------------------------------


@pytest.mark.parametrize("m", [1, 2, 3, 5, 6])
def test_monomial_features_against_a_subset_check(m):
    X = np.array(list(itertools.product([0, 1], repeat=m)), dtype=np.uint8)
    phi = monomial_features(X)
    assert sp.issparse(phi) and phi.format == "csr" and phi.shape == (2**m, 2**m - 1)
    dense = phi.toarray()
    for r, x in enumerate(X.tolist()):
        ones = {i for i in range(m) if x[i]}
        for T in range(1, 2**m):
            variables = {i for i in range(m) if T >> i & 1}
            assert dense[r, T - 1] == (1.0 if variables <= ones else 0.0)
    assert dense[-1].sum() == 2**m - 1 and dense[0].sum() == 0  # 1^m satisfies all, 0^m none


def test_monomial_features_large_batch_is_chunked_consistently():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (5000, 4)).astype(np.uint8)  # more than one 2048-row chunk
    phi = monomial_features(X)
    assert phi.shape == (5000, 15)
    np.testing.assert_array_equal(phi[2047:2050].toarray(), monomial_features(X[2047:2050]).toarray())


@st.composite
def dnf_streams(draw, max_m=10, max_len=60):
    m = draw(st.integers(1, max_m))
    term = st.lists(st.integers(0, m - 1), min_size=1, max_size=min(m, 4), unique=True)
    terms = draw(st.lists(term, min_size=1, max_size=4))
    length = draw(st.integers(1, max_len))
    seed = draw(st.integers(0, 2**32 - 1))
    density = draw(st.sampled_from([0.3, 0.5, 0.7]))
    X, y = monotone_dnf_stream(m, terms, length, np.random.default_rng(seed), density=density)
    return m, terms, X, y


@PROPERTY
@given(dnf_streams(), st.sampled_from([2.0, 4.0]), st.booleans())
def test_monomial_winnow_weights_are_the_closed_form(stream, alpha, at_threshold):
    m, _, X, y = stream
    learner = MonomialWinnow(m, alpha=alpha, positive_at_threshold=at_threshold)
    trace = run(learner, X, y)
    exponents = monomial_weight_exponents(X, y, trace.mistakes)
    assert exponents.dtype == np.int64 and exponents.shape == (2**m - 1,)
    # powers of two are exact in float64 (|exponent| <= 60 here): tolerance 0
    np.testing.assert_array_equal(learner.weights, alpha ** exponents.astype(float))
    assert learner.promotions == int(np.sum(trace.mistakes & (y == 1)))
    assert learner.demotions == int(np.sum(trace.mistakes & (y == -1)))
    # the same run, one example at a time
    looped = MonomialWinnow(m, alpha=alpha, positive_at_threshold=at_threshold)
    assert run(looped, X, y, method="loop") == trace
    np.testing.assert_array_equal(looped.weights, learner.weights)


@PROPERTY
@given(dnf_streams())
def test_monomial_winnow_equals_winnow2_on_the_explicit_features(stream):
    m, terms, X, y = stream
    N = 2**m - 1
    learner = MonomialWinnow(m)
    assert learner.n_features == N and learner.theta == N and learner.alpha == 2.0 and learner.positive_at_threshold
    plain = Winnow2(N, alpha=2.0, theta=N, positive_at_threshold=True)
    assert run(learner, X, y) == run(plain, monomial_features(X), y)
    np.testing.assert_array_equal(learner.weights, plain.weights)
    # Littlestone's bound for an s-literal disjunction over N features, alpha = 2, theta = N
    s = len(terms)
    assert run(MonomialWinnow(m), X, y).n_mistakes <= 2 + 3 * s * (1 + math.log2(N))


def test_monomial_winnow_hand_computed():
    # m = 2, monomials [x1, x2, x1 x2], theta = 3, predict +1 iff w.phi >= 3
    learner = MonomialWinnow(2)
    assert learner.predict([1, 1]) == 1  # 1 + 1 + 1 = 3 >= 3
    learner.update([1, 1], -1)  # a false positive: the three weights are halved
    assert learner.weights.tolist() == [0.5, 0.5, 0.5]
    learner.update([1, 0], 1)  # score 0.5 < 3: promote x1 only
    assert learner.weights.tolist() == [1.0, 0.5, 0.5]
    assert learner.monomial_weight([0]) == 1.0 and learner.monomial_weight([1, 0]) == 0.5
    assert learner.score([1, 1]) == 2.0 and learner.predict([1, 1]) == -1
    assert monomial_weight_exponents([[1, 1], [1, 0]], [-1, 1], [True, True]).tolist() == [0, -1, -1]


def test_monomial_winnow_bad_input():
    assert MAX_MONOMIAL_VARIABLES == 14
    match = r"m must be an integer in \[1, 14\] \(brute force over the 2\^m - 1 monomials\), got 15"
    with pytest.raises(ValueError, match=match):
        MonomialWinnow(15)
    with pytest.raises(ValueError, match=match):
        monomial_features(np.ones((1, 15)))
    assert monomial_features(np.ones((1, 14))).shape == (1, 2**14 - 1)
    learner = MonomialWinnow(3)
    with pytest.raises(ValueError, match=r"labels in \{0, 1\}\?"):
        learner.update([1, 0, 1], 0)
    with pytest.raises(ValueError, match="got 2"):
        learner.update([1, 0, 1], 2)
    with pytest.raises(ValueError, match=r"x must be one instance of shape \(3,\), got shape \(4,\)"):
        learner.predict([1, 0, 1, 1])
    with pytest.raises(ValueError, match="must be Boolean"):
        learner.predict([1, 0, 2])
    with pytest.raises(ValueError, match="X must have 3 features per instance"):
        run(learner, np.ones((2, 4)), [1, 1])
    assert learner.rounds == 0 and learner.promotions == learner.demotions == 0
    with pytest.raises(ValueError, match=r"variable must be an integer in \[0, 2\], got 3"):
        learner.monomial_weight([0, 3])
    with pytest.raises(ValueError, match="a monomial needs at least one variable"):
        learner.monomial_weight([])
    with pytest.raises(ValueError, match="alpha"):
        MonomialWinnow(3, alpha=1.0)
    with pytest.raises(ValueError, match=r"y and mistakes must have one entry per row of X \(2\)"):
        monomial_weight_exponents(np.ones((2, 3)), [1, 1, 1], [True, True, True])


# -- the counting illustration --------------------------------------------------------------------------


def brute_force_histogram(clauses, n):
    """A_v over nonempty assignments, and #SAT, with itertools (independent of numpy bit tricks)."""
    A = [0] * (len(clauses) + 1)
    sat = 0
    for v in itertools.product([0, 1], repeat=n):
        violated = sum(1 for i, j in clauses if not (v[i] or v[j]))
        sat += violated == 0
        if any(v):
            A[violated] += 1
    return A, sat


@st.composite
def cnfs(draw, max_n=8, max_r=5):
    n = draw(st.integers(1, max_n))
    clause = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))
    return n, draw(st.lists(clause, min_size=1, max_size=max_r))


@PROPERTY
@given(cnfs(), st.sampled_from([2, 3]))
def test_counting_queries_recover_the_violation_histogram(cnf, alpha):
    n, clauses = cnf
    A, sat = brute_force_histogram(clauses, n)
    histogram = clause_violation_histogram(clauses, n)
    assert histogram.tolist() == A
    assert count_2cnf(clauses, n) == sat == A[0]  # the empty assignment violates every clause
    assert sum(A) == 2**n - 1
    queries = counting_queries(clauses, n, alpha=alpha)
    assert all(type(q) is int for q in queries) and len(queries) == len(clauses) + 1
    assert queries[0] == 2**n - 1
    # Q_k = sum_v A_v alpha^(k v), computed directly from the brute-force histogram
    assert queries == [sum(A[v] * alpha ** (k * v) for v in range(len(A))) for k in range(len(A))]
    assert recover_histogram(queries, alpha=alpha) == A


def test_counting_hand_computed():
    # (y1 or y2) and (y2 or y3): 5 of 8 assignments satisfy it; among the 7 nonempty ones,
    # y = 100 and 001 each violate one clause: A = [5, 2, 0], Q_k = 5 + 2 * 2^k
    clauses = [(0, 1), (1, 2)]
    assert count_2cnf(clauses, 3) == 5
    assert clause_violation_histogram(clauses, 3).tolist() == [5, 2, 0]
    assert counting_queries(clauses, 3) == [7, 9, 13]
    assert recover_histogram([7, 9, 13]) == [5, 2, 0]
    X, y = counting_stream(clauses, 3, 2)
    assert X.tolist() == [[0, 0, 1], [1, 0, 0]] * 2 and y.tolist() == [1] * 4
    assert counting_stream(clauses, 3, 0)[0].shape == (0, 3)
    assert counting_theta(3, 2, 2.0) == 2**3 * 2**4 + 1


@PROPERTY
@given(cnfs(max_n=4, max_r=2), st.data())
def test_threshold_instance_scores_q_plus_theta_minus_bound(cnf, data):
    """Proposition bk-prop-threshold: every presentation promotes, and w.phi(1^m) = Q_k + theta - K."""
    n, clauses = cnf
    k = data.draw(st.integers(0, len(clauses)))
    B = n + k * len(clauses)
    bound = data.draw(st.integers(1, 2**B))
    X, y, z, theta = threshold_instance(clauses, n, k, bound)
    assert X.shape == (len(y), n + B) and z.tolist() == [1] * (n + B) and type(theta) is int
    learner = MonomialWinnow(n + B, theta=theta)
    assert len(y) == 0 or run(learner, X, y).n_mistakes == len(y)  # n = 1, k = 0, K = 2 has no example
    q_k = counting_queries(clauses, n)[k]
    assert q_k < 2**B
    assert learner.score(z) == q_k + theta - bound
    assert kwp_answer(X, y, z, theta) == (q_k >= bound)


def test_threshold_hand_computed():
    # (y1 or y2) over n = 2, k = 0: B = 2, Q_0 = 3; K = 3 gives D = 1: u_0 once, u_1 once
    X, y, z, theta = threshold_instance([(0, 1)], 2, 0, 3)
    assert X.tolist() == [[0, 0, 1, 0], [0, 0, 0, 1]] and theta == 3 * 3 + 12 - 2 - 2
    assert kwp_answer(X, y, z, theta) and not kwp_answer(*threshold_instance([(0, 1)], 2, 0, 4))


def test_count_by_threshold_matches_brute_force_with_any_honest_oracle():
    clauses = [(0, 1), (1, 2)]
    assert count_2cnf_by_threshold(clauses, 3) == (5, [7, 9, 13], 3 + 5 + 7)
    # the reduction only needs yes/no answers: an oracle that answers from the proposition's
    # identity, w.phi(z) = Q_k + theta - K, with Q_k from the brute-force histogram, gives the same
    histogram = clause_violation_histogram(clauses, 3).tolist()
    asked = []

    def decode(X, y, z):
        """The k and K that threshold_instance encoded: k from the clause rows, K from the e_j."""
        k = int((X[:, 3:].sum(axis=1) == 0).sum()) // len(clauses)
        exponents = X[:, 3:].sum(axis=0)  # e_j = j + d_j, d_j the bits of 2^B - K
        return k, 2 ** (len(z) - 3) - sum(int(e - j) << j for j, e in enumerate(exponents))

    def from_identity(X, y, z, theta):
        k, bound = decode(X, y, z)
        asked.append(bound)
        return sum(a * 2 ** (k * v) for v, a in enumerate(histogram)) >= bound

    assert count_2cnf_by_threshold(clauses, 3, from_identity) == (5, [7, 9, 13], 15)
    assert len(asked) == 15
    # an oracle that lies consistently with Q = [7, 10, 13] is caught: that gives A_2 = -2
    with pytest.raises(ValueError, match="inconsistent"):
        count_2cnf_by_threshold(clauses, 3, lambda X, y, z, theta: (lambda k, K: [7, 10, 13][k] >= K)(*decode(X, y, z)))


def test_threshold_errors():
    with pytest.raises(ValueError, match="bound"):
        threshold_instance([(0, 1)], 2, 0, 0)
    with pytest.raises(ValueError, match="bound"):
        threshold_instance([(0, 1)], 2, 0, 5)
    with pytest.raises(ValueError, match="repeats"):
        threshold_instance([(0, 1)], 2, -1, 1)
    with pytest.raises(ValueError, match="clause"):
        threshold_instance([(0, 5)], 2, 0, 1)
    with pytest.raises(TypeError, match="oracle"):
        count_2cnf_by_threshold([(0, 1)], 2, oracle="yes")
    with pytest.raises(ValueError, match="m must be"):
        kwp_answer(*threshold_instance([(0, 1), (1, 2), (2, 3)], 5, 3, 1))  # m = 19 > 14


@pytest.mark.parametrize(
    ("theta", "error", "match"),
    [
        ("12", TypeError, "theta"),
        (None, TypeError, "theta"),
        (0, ValueError, "theta"),
        (-3.5, ValueError, "theta"),
        (float("nan"), ValueError, "theta"),
        (float("inf"), ValueError, "theta"),
        (2**60 + 1, ValueError, "theta must be exactly representable"),  # float(theta) is 2^60
    ],
)
def test_kwp_answer_names_a_bad_theta(theta, error, match):
    X, y, z, _ = threshold_instance([(0, 1)], 2, 0, 1)
    with pytest.raises(error, match=match):
        kwp_answer(X, y, z, theta)
    assert kwp_answer(X, y, z, 2**60) is False  # a large threshold a float holds exactly is fine


def test_counting_book_example_size():
    """n = 8, r = 6, alpha = 2 as in the chapter: theta = 2^44 + 1 keeps the scores exact."""
    rng = np.random.default_rng(2024)
    clauses = rng.integers(0, 8, (6, 2))
    A, sat = brute_force_histogram(clauses.tolist(), 8)
    recovered = recover_histogram(counting_queries(clauses, 8))
    assert recovered == A and recovered[0] == sat == count_2cnf(clauses, 8) and sum(A) == 255


def test_recover_histogram_is_exact_for_rational_alpha():
    A = [5, 2, 1, 7]
    for alpha in (Fraction(3, 2), Fraction(5, 4)):
        queries = [sum(A[v] * alpha ** (k * v) for v in range(4)) for k in range(4)]
        assert recover_histogram(queries, alpha=float(alpha)) == A
    # a float query is taken at its exact value, never truncated
    assert recover_histogram([7.5]) == [Fraction(15, 2)]
    assert recover_histogram(np.array([7, 9, 13], dtype=np.int64)) == [5, 2, 0]


def test_counting_bad_input():
    assert MAX_COUNTING_VARIABLES == 20
    with pytest.raises(ValueError, match=r"clause variables must be in \[0, 5\), got 5"):
        count_2cnf([(0, 5)], 5)
    with pytest.raises(ValueError, match=r"clause variables must be in \[0, 5\), got -1"):
        clause_violation_histogram([(-1, 2)], 5)
    with pytest.raises(ValueError, match=r"clause variables must be in \[0, 3\), got 3"):
        counting_queries([(0, 1), (2, 3)], 3)
    with pytest.raises(ValueError, match="clauses must be a non-empty list of pairs"):
        count_2cnf([], 4)
    with pytest.raises(ValueError, match="clauses must be a non-empty list of pairs"):
        count_2cnf([(0, 1, 2)], 4)
    with pytest.raises(TypeError, match="clauses must hold integer variable indices"):
        count_2cnf([(0.0, 1.0)], 4)
    with pytest.raises(ValueError, match=r"n must be an integer in \[1, 20\], got 21"):
        count_2cnf([(0, 1)], 21)
    with pytest.raises(ValueError, match="alpha must be an integer > 1 so that the scores are exact integers, got 2.5"):
        counting_queries([(0, 1)], 3, alpha=2.5)
    with pytest.raises(ValueError, match="alpha must be a finite real number > 1.0"):
        counting_queries([(0, 1)], 3, alpha=1)
    with pytest.raises(ValueError, match="must stay below 2\\^53"):
        counting_queries([(0, 1)] * 7, 8)  # 2^8 2^49 > 2^53
    with pytest.raises(ValueError, match="repeats must be an integer >= 0"):
        counting_stream([(0, 1)], 3, -1)
    with pytest.raises(ValueError, match=r"queries must hold Q_0..Q_r \(at least one value\)"):
        recover_histogram([])
    with pytest.raises(TypeError, match="queries must hold exact numbers"):
        recover_histogram(["7"])
    with pytest.raises(TypeError, match="queries must hold exact numbers"):
        recover_histogram([float("nan")])
    with pytest.raises(ValueError, match="alpha must be a finite real number > 1.0"):
        recover_histogram([1, 2], alpha=1)


def test_review_fixes_in_hardness_and_streams():
    # counting_queries names n and the brute-force limit
    with pytest.raises(
        ValueError,
        match=r"n must be an integer in \[1, 14\] \(to run Winnow over the 2\^n - 1 monomials by brute force\), got 15",
    ):
        counting_queries([[0, 1]], 15)
    # monomial_weight_exponents checks its labels and its mistake mask
    X = np.array([[1, 0], [1, 1]], dtype=np.uint8)
    with pytest.raises(ValueError, match=r"y must hold labels in \{-1, \+1\}, got 0"):
        monomial_weight_exponents(X, [0, 1], np.array([True, False]))
    with pytest.raises(TypeError, match="mistakes must be a Boolean array"):
        monomial_weight_exponents(X, [1, -1], [1, 0])
    np.testing.assert_array_equal(monomial_weight_exponents(X, [1, -1], np.array([True, True])), [0, -1, -1])
    # term indices must be integers
    with pytest.raises(TypeError, match="each term must be a list of integer variable indices"):
        monotone_dnf_labels(np.ones((2, 3)), [[0.5]])
