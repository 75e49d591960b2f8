"""Tests for the linear-threshold bounds of onlinelib.bounds, and that the learners obey them.

Exact values are worked out by hand; the property tests run each learner on arbitrary
generated streams consistent with a target and check the theorem, and the steps of its
proof (Lemmas 1-3 for Winnow1), on every run.
"""

import math
from fractions import Fraction

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from onlinelib import (
    Elimination,
    Perceptron,
    Winnow1,
    Winnow2,
    elimination_bound,
    exact_novikoff_bound,
    hinge_losses,
    notes_winnow_bound,
    perceptron_bound,
    perceptron_hinge_bound,
    run,
    separable_stream,
    winnow1_bound,
    winnow1_promotion_adversary,
    winnow2_bound,
    winnow2_margin_bound,
)

PROPERTY = settings(max_examples=120, deadline=None, database=None)
REL = 1e-12  # relative tolerance for bounds computed with logarithms


# -- exact values ----------------------------------------------------------------------------


def test_perceptron_bound_values():
    assert perceptron_bound(1, 0.5, 1) == 4.0
    assert perceptron_bound(1, 0.5) == 4.0
    assert perceptron_bound(2, 0.5) == 16.0
    assert perceptron_bound(1.0, 0.5, u_norm=2) == 16.0
    assert perceptron_bound(3, 1.5) == 4.0
    assert perceptron_bound(np.float64(1.0), np.float32(0.25)) == 16.0
    assert perceptron_bound(1, 1) == 1.0


def test_winnow1_bound_values():
    # n/theta + 2k(lg theta + 1); theta = n/2 gives 2 + 2k lg n
    assert winnow1_bound(4096, 8) == 194.0  # 2 + 16 * 12
    assert winnow1_bound(64, 1) == 14.0  # 2 + 2 * 6
    assert winnow1_bound(8, 2, theta=2) == 12.0  # 4 + 4 * 2
    assert winnow1_bound(16, 3, theta=1) == 22.0  # 16 + 6 * 1
    assert winnow1_bound(10, 0) == 2.0
    assert winnow1_bound(np.int64(32), np.int32(2)) == 22.0  # 2 + 4 * 5
    for n in (2, 4, 64, 1024):
        for k in (1, 5):
            assert winnow1_bound(n, k) == 2 + 2 * k * math.log2(n)


def test_winnow2_bound_values():
    # (alpha/(alpha-1)) N/theta + k(alpha+1)(1 + log_alpha theta)
    assert winnow2_bound(16, 2, 2, 16) == 32.0  # 2 + 2*3*5
    assert winnow2_bound(4, 1, 2, 1) == 11.0  # 2*4 + 3*1
    assert winnow2_bound(10, 0, 1.5, 5) == 6.0  # 3 * 2
    assert math.isclose(winnow2_bound(9, 1, 3, 9), 13.5, rel_tol=REL)  # 1.5 + 4 * 3
    assert math.isclose(
        winnow2_bound(100, 2, 1.1, 100), 11 + 2 * 2.1 * (1 + math.log(100) / math.log(1.1)), rel_tol=REL
    )


def test_winnow2_bound_below_one():
    """1/alpha <= theta < 1 is accepted (m+ = 0 there) and the bound holds against the exact worst case."""
    from onlinelib.adversaries import exhaustive_adversary

    assert winnow2_bound(4, 1, 2.0, 0.5) == 16.0  # 2 * 4 / 0.5 + 3 * (1 - 1)
    for alpha, theta in ((2.0, 0.5), (1.5, 0.75), (1.5, Fraction(2, 3)), (3.0, 0.5)):
        for n in (2, 3, 4):
            worst = exhaustive_adversary(n, alpha, float(theta))
            assert worst.promotions == 0
            assert worst.mistakes <= winnow2_bound(n, 1, alpha, float(theta)), (alpha, theta, n)
    assert winnow2_bound(3, 1, 1.5, 2 / 3) >= 0  # theta = 1/alpha, up to rounding, is accepted


def test_winnow2_margin_bound_values():
    # A = alpha N / ((alpha - 1) theta), c = 1 - alpha (1 - delta), P = (|u|_1 log_alpha(alpha theta) + (1 - delta) A) / c
    a, c = 1.5 * 4 / (0.5 * 4), 1 - 1.5 * 0.5  # 3 and 1/4
    most = (math.log(6) / math.log(1.5) + 0.5 * a) / c
    assert math.isclose(winnow2_margin_bound(4, 1, 0.5, 1.5, 4, promotions=True), most, rel_tol=REL)
    assert math.isclose(winnow2_margin_bound(4, 1, 0.5, 1.5, 4), a + 2.5 * most, rel_tol=REL)
    # a disjunction (u = indicator of k variables, delta = 1) gives Littlestone's bound
    for n, k, alpha, theta in ((16, 2, 2.0, 16.0), (100, 3, 1.1, 7.0), (9, 1, 3.0, 9.0), (5, 2, 2.0, 0.5)):
        assert math.isclose(
            winnow2_margin_bound(n, k, 1.0, alpha, theta),
            alpha / (alpha - 1) * n / theta + k * (alpha + 1) * (1 + math.log(theta) / math.log(alpha)),
            rel_tol=REL,
        )
    # the bound grows as the margin shrinks
    values = [winnow2_margin_bound(64, 2, d, 1 + d / 2, 64) for d in (1.0, 0.5, 0.25, 0.1)]
    assert values == sorted(values)


def test_notes_winnow_bound_values_and_equal_to_alpha_2_theta_n():
    assert notes_winnow_bound(4096, 8) == 2 + 24 * 13
    assert notes_winnow_bound(1, 1) == 5.0
    assert notes_winnow_bound(16, 0) == 2.0
    assert notes_winnow_bound(16, 2) == 32.0
    for n in (1, 3, 16, 100, 4096):
        for k in (0, 1, 4):
            assert math.isclose(notes_winnow_bound(n, k), winnow2_bound(n, k, 2.0, n), rel_tol=REL)


def test_elimination_bound_values():
    assert elimination_bound(10, 3) == 8
    assert elimination_bound(10, 3, monotone=True) == 7
    assert elimination_bound(5, 0) == 6
    assert elimination_bound(5, 5) == 1
    assert elimination_bound(5, 5, monotone=True) == 0
    assert isinstance(elimination_bound(5, 2), int)


def test_winnow1_adversary_meets_lemma_3_and_stays_below_the_bound():
    # MATH.md 4.5: n = 4096, k = 8: u = 96 = k lg n, u + v <= 194
    X, y, _ = winnow1_promotion_adversary(4096, 8)
    w = Winnow1(4096)
    trace = run(w, X, y)
    assert w.promotions == 96 == trace.n_mistakes
    assert trace.n_mistakes <= winnow1_bound(4096, 8) == 194


# -- bad arguments ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: perceptron_bound(0, 0.5), ValueError, "radius"),
        (lambda: perceptron_bound(-1, 0.5), ValueError, "radius"),
        (lambda: perceptron_bound(np.inf, 0.5), ValueError, "radius"),
        (lambda: perceptron_bound("1", 0.5), TypeError, "radius"),
        (lambda: perceptron_bound(1, 0), ValueError, "margin"),
        (lambda: perceptron_bound(1, np.nan), ValueError, "margin"),
        (lambda: perceptron_bound(1, True), TypeError, "margin"),
        (lambda: perceptron_bound(1, 0.5, 0), ValueError, "u_norm"),
        (lambda: perceptron_bound(1, 0.5, None), TypeError, "u_norm"),
        (lambda: winnow1_bound(0, 1), ValueError, "n_features"),
        (lambda: winnow1_bound(4.0, 1), TypeError, "n_features"),
        (lambda: winnow1_bound(True, 1), TypeError, "n_features"),
        (lambda: winnow1_bound(4, -1), ValueError, "n_relevant"),
        (lambda: winnow1_bound(4, 1.5), TypeError, "n_relevant"),
        (lambda: winnow1_bound(4, 1, theta=0), ValueError, "theta"),
        (lambda: winnow1_bound(4, 1, theta=-3.0), ValueError, "theta"),
        (lambda: winnow1_bound(4, 1, theta="2"), TypeError, "theta"),
        (lambda: winnow2_bound(4, 1, 1.0, 4), ValueError, "alpha"),
        (lambda: winnow2_bound(4, 1, 0.5, 4), ValueError, "alpha"),
        (lambda: winnow2_bound(4, 1, np.inf, 4), ValueError, "alpha"),
        (lambda: winnow2_bound(4, 1, "2", 4), TypeError, "alpha"),
        (lambda: winnow2_bound(4, 1, 2.0, 0.4), ValueError, "theta must be at least 1 / alpha"),
        (lambda: winnow2_bound(4, 1, 2.0, 0), ValueError, "theta"),
        (lambda: winnow2_bound(4, 1, 2.0, None), TypeError, "theta"),
        (lambda: winnow2_bound(0, 1, 2.0, 4), ValueError, "n_features"),
        (lambda: winnow2_bound(4, -2, 2.0, 4), ValueError, "n_relevant"),
        (lambda: winnow2_margin_bound(4, 1, 0.5, 2.0, 4), ValueError, "alpha must be below 1 / \\(1 - delta\\) = 2"),
        (lambda: winnow2_margin_bound(4, 1, 0.5, 1.0, 4), ValueError, "alpha"),
        (lambda: winnow2_margin_bound(4, 1, 0.0, 1.5, 4), ValueError, "delta"),
        (lambda: winnow2_margin_bound(4, 1, 1.5, 1.5, 4), ValueError, "delta must be a margin in \\(0, 1\\]"),
        (lambda: winnow2_margin_bound(4, 1, np.nan, 1.5, 4), ValueError, "delta"),
        (lambda: winnow2_margin_bound(4, 0, 0.5, 1.5, 4), ValueError, "u_l1"),
        (lambda: winnow2_margin_bound(4, "1", 0.5, 1.5, 4), TypeError, "u_l1"),
        (lambda: winnow2_margin_bound(4, 1, 0.5, 1.5, 0.5), ValueError, "theta must be at least 1 / alpha"),
        (lambda: winnow2_margin_bound(0, 1, 0.5, 1.5, 4), ValueError, "n_features"),
        (lambda: notes_winnow_bound(0, 1), ValueError, "n_features"),
        (lambda: notes_winnow_bound(4, -1), ValueError, "n_relevant"),
        (lambda: notes_winnow_bound(4, 1.0), TypeError, "n_relevant"),
        (lambda: elimination_bound(3, 4), ValueError, "n_literals must be at most n_features"),
        (lambda: elimination_bound(3, -1), ValueError, "n_literals"),
        (lambda: elimination_bound(0, 0), ValueError, "n_features"),
        (lambda: elimination_bound("3", 1), TypeError, "n_features"),
    ],
)
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()


# -- strategies ------------------------------------------------------------------------------


@st.composite
def disjunction_data(draw, max_n=12, max_t=80, min_k=0):
    """A Boolean stream labelled by a monotone disjunction of k of n variables.

    Rows are drawn either freely or as small sets of active bits (1-2 ones), which are the
    rows that drive Winnow's promotions (as in the promotion adversary).
    """
    n = draw(st.integers(max(1, min_k), max_n))
    k = draw(st.integers(min_k, n))
    relevant = np.array(draw(st.permutations(range(n)))[:k], dtype=int)
    T = draw(st.integers(1, max_t))
    if draw(st.booleans()):
        X = draw(hnp.arrays(np.uint8, (T, n), elements=st.integers(0, 1)))
    else:
        X = np.zeros((T, n), dtype=np.uint8)
        for t in range(T):
            X[t, draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=2))] = 1
    y = np.where(X[:, relevant].any(axis=1), 1, -1).astype(np.int8)
    return n, k, relevant, X, y


THETA = st.one_of(st.none(), st.sampled_from([0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 16.0]), st.floats(0.1, 40.0))


# -- Winnow1: the theorem and Lemmas 1-3 --------------------------------------------------------


@PROPERTY
@given(disjunction_data(), THETA)
def test_winnow1_bound_and_lemmas(data, theta):
    n, k, relevant, X, y = data
    w = Winnow1(n, theta=theta)
    theta = w.theta
    trace = run(w, X, y)
    u, v = w.promotions, w.eliminations
    assert u + v == trace.n_mistakes
    assert u + v <= winnow1_bound(n, k, theta) * (1 + REL)  # the theorem
    # Lemma 1, exactly (Fractions of the floats): v <= n/theta + u, strictly once v >= 1
    assert Fraction(v) <= Fraction(n) / Fraction(theta) + u
    if v >= 1:
        assert Fraction(v) < Fraction(n) / Fraction(theta) + u
    # Lemma 2: w_i <= max(1, 2 theta), exactly
    assert w.weights.max() <= max(1.0, 2 * theta)
    # weights stay in {0} and the powers of two: finite and nonnegative
    assert np.isfinite(w.weights).all() and (w.weights >= 0).all()
    nonzero = w.weights[w.weights > 0]
    np.testing.assert_array_equal(nonzero, 2.0 ** np.round(np.log2(nonzero)))
    # Lemma 3: relevant weights are never eliminated, and some one has lg w_i >= u/k
    if k:
        assert (w.weights[relevant] >= 1).all()
        assert k * int(np.log2(w.weights[relevant]).max()) >= u
    else:
        assert u == 0


@PROPERTY
@given(disjunction_data(), st.sampled_from(["loop", "blocks"]))
def test_winnow1_default_theta_bound(data, method):
    # the bound also holds with the engine; default theta n/2 gives 2 + 2k lg n
    n, k, _, X, y = data
    w = Winnow1(n)
    trace = run(w, X, y, method=method)
    assert trace.n_mistakes <= (2 + 2 * k * math.log2(n)) * (1 + REL)


# -- Winnow2 ---------------------------------------------------------------------------------


@PROPERTY
@given(
    disjunction_data(),
    st.floats(1.0, 4.0, exclude_min=True) | st.sampled_from([1.1, 1.5, 2.0, 3.0, 4.0]),
    st.one_of(st.none(), st.floats(1.0, 40.0), st.sampled_from([1.0, 2.0, 4.0, 8.0])),
    st.booleans(),
)
def test_winnow2_bound(data, alpha, theta, tie_positive):
    n, k, relevant, X, y = data
    w = Winnow2(n, alpha=alpha, theta=theta, positive_at_threshold=tie_positive)
    trace = run(w, X, y)
    assert w.promotions + w.demotions == trace.n_mistakes
    assert trace.n_mistakes <= winnow2_bound(n, k, alpha, w.theta) * (1 + REL)
    # weights stay positive and finite; relevant ones are never demoted; none exceeds max(1, alpha theta)
    assert np.isfinite(w.weights).all() and (w.weights > 0).all()
    if k:
        assert (w.weights[relevant] >= 1).all()
    assert w.weights.max() <= max(1.0, alpha * w.theta) * (1 + REL)
    # the proof's m+ <= k (1 + log_alpha theta)
    assert w.promotions <= k * (1 + math.log(w.theta) / math.log(alpha)) * (1 + REL) + REL


@st.composite
def threshold_data(draw, max_n=12, max_t=80):
    """A Boolean stream labelled by a nonnegative threshold target with a margin.

    Either an r-of-k function (u = indicator / r, delta = 1/r) or random weights u >= 0
    with rows inside the margin band (1 - delta < u.x < 1) dropped.
    """
    n = draw(st.integers(1, max_n))
    T = draw(st.integers(1, max_t))
    X = draw(hnp.arrays(np.uint8, (T, n), elements=st.integers(0, 1)))
    if draw(st.booleans()):
        k = draw(st.integers(1, n))
        r = draw(st.integers(1, k))
        u = np.zeros(n)
        u[np.array(draw(st.permutations(range(n)))[:k], dtype=int)] = 1 / r
        delta = 1 / r
    else:
        u = np.array(draw(st.lists(st.sampled_from([0.0, 0.125, 0.25, 0.5, 1.0]), min_size=n, max_size=n)))
        assume(u.sum() > 0)
        delta = draw(st.sampled_from([0.125, 0.25, 0.5, 1.0]))
        score = X @ u
        X = X[(score >= 1) | (score <= 1 - delta)]
        assume(len(X) > 0)
    y = np.where(X @ u >= 1, 1, -1).astype(np.int8)
    return n, u, delta, X, y


@PROPERTY
@given(threshold_data(), st.floats(0.01, 0.99), st.sampled_from([0.5, 1.0, 2.0, 4.0, 16.0]), st.booleans())
def test_winnow2_margin_bound(data, alpha_share, theta, tie_positive):
    # alpha anywhere in (1, 1/(1 - delta)), or in (1, 5) when delta = 1
    n, u, delta, X, y = data
    top = 5.0 if delta == 1 else 1 / (1 - delta)
    alpha = 1 + alpha_share * (top - 1)
    assume(alpha * theta >= 1)
    w = Winnow2(n, alpha=alpha, theta=theta, positive_at_threshold=tie_positive)
    trace = run(w, X, y)
    assert w.promotions <= winnow2_margin_bound(n, u.sum(), delta, alpha, theta, promotions=True) * (1 + REL)
    assert trace.n_mistakes <= winnow2_margin_bound(n, u.sum(), delta, alpha, theta) * (1 + REL)


@PROPERTY
@given(disjunction_data(max_n=10), st.booleans())
def test_winnow2_notes_bound_for_alpha_2(data, tie_positive):
    n, k, _, X, y = data
    w = Winnow2(n, alpha=2.0, positive_at_threshold=tie_positive)  # theta = N
    trace = run(w, X, y)
    assert trace.n_mistakes <= notes_winnow_bound(n, k) * (1 + REL)


# -- Elimination -----------------------------------------------------------------------------


@st.composite
def literal_target_data(draw, max_n=10, max_t=60):
    n = draw(st.integers(1, max_n))
    k = draw(st.integers(0, n))
    monotone = draw(st.booleans())
    target = draw(st.sampled_from(["conjunction", "disjunction"]))
    variables = np.array(draw(st.permutations(range(n)))[:k], dtype=int)
    # literal sign: True for x_i, False for not x_i. A "monotone" disjunction for the learner is over
    # the variables x_i (its learned conjunction is over the negations).
    if monotone:
        signs = np.ones(k, dtype=bool)
    else:
        signs = np.array(draw(st.lists(st.booleans(), min_size=k, max_size=k)), dtype=bool)
    T = draw(st.integers(1, max_t))
    X = draw(hnp.arrays(np.uint8, (T, n), elements=st.integers(0, 1)))
    true = X[:, variables] == signs  # (T, k): literal values
    holds = true.all(axis=1) if target == "conjunction" else true.any(axis=1)
    y = np.where(holds, 1, -1).astype(np.int8)
    return n, k, monotone, target, variables, signs, X, y


@PROPERTY
@given(literal_target_data(), st.sampled_from(["loop", "blocks"]))
def test_elimination_bound(data, method):
    n, k, monotone, target, variables, signs, X, y = data
    e = Elimination(n, target=target, monotone=monotone)
    trace = run(e, X, y, method=method)  # consistent: must not raise
    assert trace.n_mistakes == e.n_mistakes <= elimination_bound(n, k, monotone=monotone)
    # the target's literals are never dropped
    if target == "conjunction":
        assert e.positive_literals[variables[signs]].all() and e.negative_literals[variables[~signs]].all()
    else:  # the learned conjunction holds the negations of the target's literals
        assert e.negative_literals[variables[signs]].all() and e.positive_literals[variables[~signs]].all()
    # one-sided errors: conjunctions err only on positives, disjunctions only on negatives
    wrong = trace.labels[trace.mistakes]
    assert (wrong == (1 if target == "conjunction" else -1)).all()
    # the final hypothesis is consistent with the whole stream
    np.testing.assert_array_equal([e.predict(x) for x in X], y)


def test_elimination_bound_is_tight():
    # the first positive example with all variables off, then one per non-target variable (n = 6, target x0)
    n = 6
    X = np.zeros((n, n), dtype=np.uint8)
    X[:, 0] = 1
    for i in range(1, n):
        X[i, i] = 1
    y = np.ones(n, dtype=int)
    e = Elimination(n)
    trace = run(e, X, y)
    # round 1 keeps x0 and not x1..not x5; each later round drops one not x_i: 1 + 5 = n + 1 - k
    assert trace.n_mistakes == elimination_bound(n, 1) == 6


# -- Perceptron ------------------------------------------------------------------------------


@PROPERTY
@given(st.integers(1, 5), st.integers(1, 60), st.booleans(), st.data())
def test_perceptron_novikoff_on_integer_separable_data(n, T, bias, data):
    u = data.draw(hnp.arrays(np.int64, n, elements=st.integers(-3, 3)))
    b = data.draw(st.integers(-3, 3)) if bias else 0
    X = data.draw(hnp.arrays(np.int64, (T, n), elements=st.integers(-3, 3)))
    scores = X @ u + b
    keep = scores != 0
    assume(keep.any())
    X, scores = X[keep], scores[keep]
    y = np.where(scores > 0, 1, -1)
    xi = int((y * scores).min())  # the margin of the unnormalised (u, b): exact integers
    u_norm = math.sqrt(int(u @ u) + b * b)
    radius = math.sqrt(int((X * X).sum(axis=1).max()) + (1 if bias else 0))  # ||(x, 1)|| with a bias
    p = Perceptron(n, bias=bias)
    trace = run(p, X, y)
    assert trace.n_mistakes <= p.n_updates <= perceptron_bound(radius, xi, u_norm) * (1 + REL)


@PROPERTY
@given(st.integers(1, 8), st.floats(0.02, 0.5), st.integers(0, 2**32), st.booleans())
def test_perceptron_novikoff_on_separable_streams(d, margin, seed, bias):
    X, y, w_star = separable_stream(d, 400, margin, np.random.default_rng(seed))
    p = Perceptron(d, bias=bias)
    trace = run(p, X, y)
    gamma = (y * (X @ w_star)).min()  # measured margin (>= margin)
    radius = np.linalg.norm(X, axis=1).max()
    if bias:  # with the bias the unit separator (w*, 0) and the points (x, 1)
        radius = math.sqrt(radius**2 + 1)
    assert p.n_updates >= trace.n_mistakes
    assert p.n_updates <= perceptron_bound(radius, gamma) * (1 + REL)


# -- chapter 3: Novikoff's bound in exact arithmetic, and the hinge-loss bound --------------------


def test_exact_bound_on_integer_and_float_data():
    X = np.array([[3.0, 0.0], [0.0, 0.1]])
    y = np.array([1, -1])
    u = np.array([1, -1])
    # R^2 = 9, xi = min(3, 0.1) (0.1 as its exact float value), ||u||^2 = 2
    assert exact_novikoff_bound(X, y, u) == 2 * 9 / Fraction(0.1) ** 2
    assert exact_novikoff_bound(np.array([[3, 0], [0, 2]]), y, u) == Fraction(2 * 9, 4)
    with pytest.raises(ValueError, match="separate"):
        exact_novikoff_bound(X, y, -u)
    with pytest.raises(ValueError, match="shape"):
        exact_novikoff_bound(X, y, np.ones(3))
    with pytest.raises(ValueError, match="one label"):
        exact_novikoff_bound(X, np.array([1]), u)
    with pytest.raises(TypeError, match="X"):
        exact_novikoff_bound([["a", "b"]], [1], u)
    with pytest.raises(ValueError, match="finite"):
        exact_novikoff_bound(np.array([[np.nan, 0.0]]), [1], u)
    with pytest.raises(ValueError, match="-1 or \\+1|label"):
        exact_novikoff_bound(X, np.array([1, 0]), u)


def test_hinge_losses_and_bound():
    X = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    y = np.array([1, -1, -1])
    u = np.array([0.5, 0.25])
    assert np.allclose(hinge_losses(X, y, u), [0.5, 1.5, 1.75])
    assert perceptron_hinge_bound(2.0, 1.5, 0.0) == pytest.approx(9.0)
    a, L = 3.0, 5.0
    tight = perceptron_hinge_bound(1.0, a, L)
    assert tight - a * np.sqrt(tight) - L == pytest.approx(0.0, abs=1e-12)
    assert tight <= a**2 + L + a * np.sqrt(L) <= (a + np.sqrt(L)) ** 2
    with pytest.raises(ValueError, match="radius"):
        perceptron_hinge_bound(0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="u_norm"):
        perceptron_hinge_bound(1.0, -1.0, 1.0)
    with pytest.raises(ValueError, match="hinge_loss"):
        perceptron_hinge_bound(1.0, 1.0, -1.0)
    with pytest.raises(TypeError, match="hinge_loss"):
        perceptron_hinge_bound(1.0, 1.0, "1")
    with pytest.raises(ValueError, match="shape"):
        hinge_losses(X, y, np.ones(3))


def test_hinge_bound_holds_on_noisy_stream():
    rng = np.random.default_rng(0)
    X, y, w = separable_stream(5, 3000, 0.1, rng)
    y = np.where(rng.random(len(y)) < 0.05, -y, y).astype(np.int8)
    learner = Perceptron(5)
    run(learner, X, y)
    R = np.linalg.norm(X, axis=1).max()
    for c in (1.0, 5.0, 10.0, 30.0):
        u = c * w
        assert learner.n_updates <= perceptron_hinge_bound(R, c, hinge_losses(X, y, u).sum())
