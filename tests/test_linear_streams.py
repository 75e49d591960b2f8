"""Tests for the linear-threshold streams of onlinelib.streams (chapters 2-4)."""

import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from onlinelib import (
    Perceptron,
    Winnow1,
    disjunction_stream,
    perceptron_bound,
    perceptron_lower_bound_stream,
    run,
    separable_stream,
    winnow1_promotion_adversary,
)

PROPERTY = settings(max_examples=40, deadline=None, database=None)


def exact_floor_lg(x: float) -> int:
    """floor(log2 x) for a positive float, exactly (no log2 rounding)."""
    _, exponent = math.frexp(x)  # x = mantissa * 2**exponent, 0.5 <= mantissa < 1
    return exponent - 1


def test_exact_floor_lg():
    assert [exact_floor_lg(v) for v in (1.0, 2.0, 3.0, 4.0, 0.5, 0.3, 1024.0)] == [0, 1, 1, 2, -1, -2, 10]
    assert exact_floor_lg(np.nextafter(8.0, 0.0)) == 2


# -- separable_stream ------------------------------------------------------------------------


@PROPERTY
@given(st.integers(1, 12), st.integers(1, 300), st.floats(0.01, 0.6), st.floats(0.5, 20.0), st.integers(0, 2**32))
def test_separable_stream_margin_radius_and_unit_target(d, length, relative_margin, radius, seed):
    margin = relative_margin * radius
    X, y, w = separable_stream(d, length, margin, np.random.default_rng(seed), radius=radius)
    assert X.shape == (length, d) and X.dtype == np.float64
    assert y.shape == (length,) and y.dtype == np.int8 and set(np.unique(y)) <= {-1, 1}
    assert w.shape == (d,)
    assert abs(np.linalg.norm(w) - 1.0) <= (d + 6) * 2.0**-52 * 1.01  # unit target, to rounding
    # Novikoff's hypotheses in exact arithmetic on the floats returned: |w*| <= 1, |x| <= R and
    # y <w*, x> >= margin (a float check could round either way across the limit).
    exact = [[Fraction(v) for v in row] for row in X.tolist()]
    exact_w = [Fraction(v) for v in w.tolist()]
    assert sum(v * v for v in exact_w) <= 1
    R2, gamma = Fraction(radius) ** 2, Fraction(margin)
    for row, label in zip(exact, y.tolist(), strict=True):
        assert sum(v * v for v in row) <= R2
        assert label * sum(a * b for a, b in zip(row, exact_w, strict=True)) >= gamma
    np.testing.assert_array_equal(y, np.where(X @ w > 0, 1, -1))


def test_separable_stream_is_reproducible_and_seed_dependent():
    a = separable_stream(5, 100, 0.2, np.random.default_rng(42))
    b = separable_stream(5, 100, 0.2, np.random.default_rng(42))
    c = separable_stream(5, 100, 0.2, np.random.default_rng(43))
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u, v)
    assert not np.array_equal(a[0], c[0])


def test_separable_stream_fills_the_ball():
    # points are drawn in the ball, not on the sphere: norms spread over (margin, R]
    X, y, _ = separable_stream(3, 2000, 0.1, np.random.default_rng(0), radius=2.0)
    norms = np.linalg.norm(X, axis=1)
    assert norms.min() < 1.0 and norms.max() > 1.9
    assert 0.3 < np.mean(y == 1) < 0.7  # both labels, roughly balanced (symmetric construction)


def test_perceptron_within_novikoff_on_separable_stream():
    X, y, w = separable_stream(10, 2000, 0.1, np.random.default_rng(1))
    p = Perceptron(10)
    run(p, X, y)
    gamma = (y * (X @ w)).min()
    radius = np.linalg.norm(X, axis=1).max()
    assert 0 < p.n_updates <= perceptron_bound(radius, gamma)


# -- perceptron_lower_bound_stream -----------------------------------------------------------


@pytest.mark.parametrize(
    "margin, radius, d",
    [
        (0.5, 1.0, 4),
        (1.0, 1.0, 1),
        (0.3, 1.0, 11),
        (0.25, 1.0, 16),
        (0.1, 1.0, 100),
        (1.0, 3.0, 9),
        (0.7, 2.0, 8),
        (2.0, 5.0, 6),
        (1 / 3, 1.0, 9),
        (0.2, 1.0, 25),
    ],
)
def test_perceptron_lower_bound_stream_updates_exactly_floor(margin, radius, d):
    # d = floor(R^2/gamma^2) for the decimal values meant (the float 0.1 is a bit above 1/10, and
    # floor(1 / 0.1**2) is 99 in floating point; the generator allows for that and gives 100)
    X, y, w = perceptron_lower_bound_stream(margin, radius)
    assert X.shape == (d, d) and y.shape == (d,)
    np.testing.assert_array_equal(X, radius * np.eye(d))
    assert (y == -1).all()
    assert abs(np.linalg.norm(w) - 1) <= 1e-12
    assert (y * (X @ w)).min() >= margin  # the stated margin, exactly, in floating point
    for method in ("loop", "blocks"):
        p = Perceptron(d)
        trace = run(p, X, y, method=method)
        assert p.n_updates == trace.n_mistakes == d
    assert d <= perceptron_bound(radius, margin) * (1 + 1e-12)


@PROPERTY
@given(st.floats(0.08, 1.0), st.floats(0.5, 4.0))
def test_perceptron_lower_bound_stream_matches_novikoff_floor(relative, radius):
    margin = relative * radius
    X, y, w = perceptron_lower_bound_stream(margin, radius)
    exact = math.floor(Fraction(radius) ** 2 / Fraction(margin) ** 2)
    assert len(y) in (exact, exact + 1)  # + 1 only within the generator's 1e-12 rounding allowance
    if len(y) == exact + 1:
        assert Fraction(radius) ** 2 / Fraction(margin) ** 2 > exact + 1 - Fraction(1, 10**10)
    assert (y * (X @ w)).min() >= margin * (1 - 1e-12)  # the margin, to the generator's relative 1e-12
    p = Perceptron(len(y))
    run(p, X, y)
    assert p.n_updates == len(y)


def test_perceptron_lower_bound_stream_never_exceeds_its_margin_contract():
    margin = 0.5 * (1 + 1e-14)
    X, y, w = perceptron_lower_bound_stream(margin, 1.0)
    assert (y * (X @ w)).min() >= margin
    assert len(y) <= perceptron_bound(1.0, margin)


# -- disjunction_stream ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"density": 0.2},
        {"active": 3},
        {"sparse": True},
        {"active": 5, "sparse": True},
        {"density": 0.05, "sparse": True},
    ],
)
def test_disjunction_stream_labels_are_the_or(kwargs):
    n, k, T = 40, 4, 500
    X, y, relevant = disjunction_stream(n, k, T, np.random.default_rng(9), **kwargs)
    assert sp.issparse(X) == bool(kwargs.get("sparse"))
    dense = X.toarray() if sp.issparse(X) else X
    assert dense.shape == (T, n) and set(np.unique(dense)) <= {0, 1}
    if not sp.issparse(X):
        assert X.dtype == np.uint8
    assert y.dtype == np.int8
    assert relevant.shape == (k,) and len(set(relevant.tolist())) == k
    np.testing.assert_array_equal(relevant, np.sort(relevant))
    assert 0 <= relevant.min() and relevant.max() < n
    np.testing.assert_array_equal(y, np.where(dense[:, relevant].any(axis=1), 1, -1))
    assert (y == 1).any() and (y == -1).any()
    if "active" in kwargs:
        np.testing.assert_array_equal(dense.sum(axis=1), kwargs["active"])


def test_disjunction_stream_default_density_gives_about_half_positive():
    # P(positive) = 1 - (1 - p)^k = 1/2 with p = 1 - 2^(-1/k); 4000 rows: tolerance 0.05 is > 6 sigma
    for k in (1, 3, 10):
        _, y, _ = disjunction_stream(50, k, 4000, np.random.default_rng(k))
        assert abs(np.mean(y == 1) - 0.5) < 0.05


def test_disjunction_stream_active_large_n_path():
    # n > 4096 takes the per-row rng.choice path
    X, y, relevant = disjunction_stream(5000, 3, 50, np.random.default_rng(0), active=7, sparse=True)
    np.testing.assert_array_equal(np.diff(X.indptr), 7)
    assert all(len(set(X.indices[X.indptr[i] : X.indptr[i + 1]].tolist())) == 7 for i in range(50))
    np.testing.assert_array_equal(y, np.where(X[:, relevant].toarray().any(axis=1), 1, -1))


def test_disjunction_stream_active_equals_n():
    X, y, _ = disjunction_stream(6, 2, 10, np.random.default_rng(0), active=6)
    assert (X == 1).all() and (y == 1).all()


@pytest.mark.parametrize("kwargs", [{}, {"active": 4}, {"density": 0.1}])
def test_disjunction_stream_sparse_dense_consistency(kwargs):
    a = disjunction_stream(30, 3, 200, np.random.default_rng(17), **kwargs)
    b = disjunction_stream(30, 3, 200, np.random.default_rng(17), sparse=True, **kwargs)
    np.testing.assert_array_equal(b[0].toarray(), a[0])
    np.testing.assert_array_equal(a[1], b[1])
    np.testing.assert_array_equal(a[2], b[2])
    assert b[0].has_sorted_indices


def test_disjunction_stream_reproducible():
    a = disjunction_stream(20, 2, 100, np.random.default_rng(5), active=3)
    b = disjunction_stream(20, 2, 100, np.random.default_rng(5), active=3)
    c = disjunction_stream(20, 2, 100, np.random.default_rng(6), active=3)
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u, v)
    assert not np.array_equal(a[0], c[0])


# -- winnow1_promotion_adversary --------------------------------------------------------------


@pytest.mark.parametrize("n, k", [(n, k) for n in (2, 4, 8, 64, 1024, 4096) for k in (1, 2, 3, 8) if k <= n])
def test_winnow1_promotion_adversary_k_lg_n(n, k):
    X, y, relevant = winnow1_promotion_adversary(n, k)
    np.testing.assert_array_equal(relevant, np.arange(k))
    assert X.dtype == np.uint8 and (X.sum(axis=1) == 1).all() and (y == 1).all()
    for method in ("loop", "blocks"):
        w = Winnow1(n)
        trace = run(w, X, y, method=method)
        lg_n = n.bit_length() - 1
        assert w.promotions == k * lg_n == len(y) == trace.n_mistakes
        assert w.eliminations == 0
        np.testing.assert_array_equal(w.weights[:k], n)  # 2^(lg n): just above theta = n/2
        assert (w.weights[k:] == 1).all()


@pytest.mark.parametrize("theta", [1.0, 1.5, 2.0, 3.0, 7.0, 8.0, 100.0, 1000.5, 2.0**20])
def test_winnow1_promotion_adversary_given_theta(theta):
    k = 3
    X, y, _ = winnow1_promotion_adversary(50, k, theta)
    w = Winnow1(50, theta=theta)
    run(w, X, y)
    assert w.promotions == k * (exact_floor_lg(theta) + 1) == len(y)
    assert (w.weights[:k] > theta).all() and (w.weights[:k] <= 2 * theta).all()


@PROPERTY
@given(st.floats(1.0, 1e6), st.integers(1, 5))
def test_winnow1_promotion_adversary_promotion_count(theta, k):
    X, y, _ = winnow1_promotion_adversary(10, k, theta)
    w = Winnow1(10, theta=theta)
    run(w, X, y)
    assert w.promotions == k * (exact_floor_lg(theta) + 1) == len(y)


@pytest.mark.parametrize("theta", [float(np.nextafter(8.0, 0.0)), 8.0, 1.0, 5.5])
def test_winnow1_promotion_adversary_every_row_is_a_promotion(theta):
    X, y, _ = winnow1_promotion_adversary(10, 2, theta)
    w = Winnow1(10, theta=theta)
    run(w, X, y)
    assert w.promotions == len(y)


def test_winnow1_promotion_adversary_needs_theta_at_least_one():
    # with theta < 1 the initial weight 1 already exceeds theta: nothing to promote
    with pytest.raises(ValueError, match="theta must be at least 1"):
        winnow1_promotion_adversary(10, 2, 0.75)


# -- bad arguments ---------------------------------------------------------------------------


RNG = np.random.default_rng(0)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: separable_stream(3, 10, 1.0, RNG), ValueError, "margin must be smaller than radius"),
        (lambda: separable_stream(3, 10, 2.0, RNG, radius=1.5), ValueError, "margin"),
        (lambda: separable_stream(3, 10, 0.0, RNG), ValueError, "margin"),
        (lambda: separable_stream(3, 10, -0.1, RNG), ValueError, "margin"),
        (lambda: separable_stream(3, 10, np.nan, RNG), ValueError, "margin"),
        (lambda: separable_stream(3, 10, "0.1", RNG), TypeError, "margin"),
        (lambda: separable_stream(3, 10, 0.1, RNG, radius=0), ValueError, "radius"),
        (lambda: separable_stream(3, 10, 0.1, RNG, radius=np.inf), ValueError, "radius"),
        (lambda: separable_stream(0, 10, 0.1, RNG), ValueError, "n_features"),
        (lambda: separable_stream(2.0, 10, 0.1, RNG), TypeError, "n_features must be an integer >= 1, got 2.0"),
        (lambda: separable_stream(3, 0, 0.1, RNG), ValueError, "length"),
        (lambda: separable_stream(3, True, 0.1, RNG), TypeError, "length must be an integer >= 1, got True"),
        (lambda: separable_stream(3, 10, 0.1, 0), TypeError, "rng"),
        (lambda: separable_stream(3, 10, 0.1, np.random.RandomState(0)), TypeError, "rng"),
        (lambda: perceptron_lower_bound_stream(1.5, 1.0), ValueError, "margin must be at most radius"),
        (lambda: perceptron_lower_bound_stream(0.0), ValueError, "margin"),
        (lambda: perceptron_lower_bound_stream(0.5, -1.0), ValueError, "radius"),
        (lambda: perceptron_lower_bound_stream(None), TypeError, "margin"),
        (lambda: disjunction_stream(5, 6, 10, RNG), ValueError, "n_relevant must be at most n_features"),
        (lambda: disjunction_stream(5, 0, 10, RNG), ValueError, "n_relevant"),
        (lambda: disjunction_stream(0, 1, 10, RNG), ValueError, "n_features"),
        (lambda: disjunction_stream(5, 2, 0, RNG), ValueError, "length"),
        (lambda: disjunction_stream(5, 2, 10, RNG, active=6), ValueError, "active must be at most n_features"),
        (lambda: disjunction_stream(5, 2, 10, RNG, active=0), ValueError, "active"),
        (lambda: disjunction_stream(5, 2, 10, RNG, active=2.0), TypeError, "active"),
        (lambda: disjunction_stream(5, 2, 10, RNG, active=2, density=0.5), ValueError, "density and active"),
        (lambda: disjunction_stream(5, 2, 10, RNG, density=0.0), ValueError, "density"),
        (lambda: disjunction_stream(5, 2, 10, RNG, density=1.0), ValueError, "density"),
        (lambda: disjunction_stream(5, 2, 10, RNG, density=-0.5), ValueError, "density"),
        (lambda: disjunction_stream(5, 2, 10, RNG, density=1.5), ValueError, "density"),
        (lambda: disjunction_stream(5, 2, 10, RNG, density=np.nan), ValueError, "density"),
        (lambda: disjunction_stream(5, 2, 10, 123), TypeError, "rng"),
        (lambda: disjunction_stream(5, 2, 10, None), TypeError, "rng"),
        (lambda: winnow1_promotion_adversary(4, 5), ValueError, "n_relevant must be at most n_features"),
        (lambda: winnow1_promotion_adversary(0, 1), ValueError, "n_features"),
        (lambda: winnow1_promotion_adversary(4, 0), ValueError, "n_relevant"),
        (lambda: winnow1_promotion_adversary(4, 1, theta=0), ValueError, "theta"),
        (lambda: winnow1_promotion_adversary(4, 1, theta=-2.0), ValueError, "theta"),
        (lambda: winnow1_promotion_adversary(4, 1, theta="2"), TypeError, "theta"),
    ],
)
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()
