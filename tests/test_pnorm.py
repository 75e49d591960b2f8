"""Tests of onlinelib.pnorm (chapter 4, the p-norm algorithms)."""

import math

import numpy as np
import pytest

from onlinelib.linear import Perceptron
from onlinelib.pnorm import PNormPerceptron, dual_exponent, pnorm_bound, pnorm_link
from onlinelib.protocol import run


def test_link_p2_is_identity_and_gradient():
    rng = np.random.default_rng(0)
    theta = rng.normal(size=7)
    assert np.allclose(pnorm_link(theta, 2), theta)
    p = 5.0

    def f(t):
        return 0.5 * (np.abs(t) ** p).sum() ** (2 / p)

    eps = 1e-6
    grad = [(f(theta + eps * e) - f(theta - eps * e)) / (2 * eps) for e in np.eye(7)]
    assert np.allclose(pnorm_link(theta, p), grad, rtol=1e-5)
    assert np.array_equal(pnorm_link(np.zeros(3), 4), np.zeros(3))
    # large p does not overflow
    assert np.isfinite(pnorm_link(np.array([1e3, -2e3, 5.0]), 40)).all()


def test_p2_matches_perceptron():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(300, 12)).astype(float)
    y = np.where(X[:, 0] + X[:, 3] > 0, 1, -1)
    a, b = PNormPerceptron(12, 2, bias=True), Perceptron(12, bias=True)
    run(a, X, y, method="loop")
    run(b, X, y, method="loop")
    assert a.n_updates == b.n_updates
    assert np.allclose(a.weights[:-1], b.weights) and a.weights[-1] == b.bias


@pytest.mark.parametrize("p", [2.0, 3.0, 2 * math.log(40)])
def test_bound_holds_on_margin_streams(p):
    rng = np.random.default_rng(int(10 * p))
    n = 40
    u = np.zeros(n)
    u[:3] = [1.0, -1.0, 0.5]
    X = rng.choice([-1.0, 1.0], size=(2000, n))
    s = X @ u
    keep = np.abs(s) >= 0.5
    X, y = X[keep], np.sign(s[keep]).astype(int)
    gamma = float((y * (X @ u)).min())
    q = dual_exponent(p)
    radius = float((np.abs(X) ** p).sum(axis=1).max() ** (1 / p))
    learner = PNormPerceptron(n, p)
    run(learner, X, y, method="loop")
    assert 0 < learner.n_updates <= pnorm_bound(p, radius, float((np.abs(u) ** q).sum() ** (1 / q)), gamma)


def test_bad_input():
    with pytest.raises(ValueError, match="p must be"):
        PNormPerceptron(3, 1.5)
    with pytest.raises(TypeError, match="p must be"):
        PNormPerceptron(3, "2")
    with pytest.raises(ValueError, match="n_features"):
        PNormPerceptron(0, 2)
    with pytest.raises(TypeError, match="n_features"):
        PNormPerceptron(2.5, 2)
    learner = PNormPerceptron(3, 2)
    with pytest.raises(ValueError, match="3 entries"):
        learner.predict(np.ones(4))
    with pytest.raises(ValueError, match="finite"):
        learner.predict(np.array([1.0, np.nan, 0.0]))
    with pytest.raises(ValueError, match="label"):
        learner.update(np.ones(3), 0)
    with pytest.raises(ValueError, match="gamma"):
        pnorm_bound(2, 1.0, 1.0, 0.0)
    with pytest.raises(TypeError, match="radius_p"):
        pnorm_bound(2, None, 1.0, 1.0)
    with pytest.raises(ValueError, match="p must be"):
        dual_exponent(1.0)
    with pytest.raises(ValueError, match="theta"):
        pnorm_link(np.ones((2, 2)), 3)


def _exact_sign(theta, x, p):
    """The sign of w.x from the definition, in exact integers (p whole, theta and x whole)."""
    total = sum(
        (1 if t > 0 else -1) * abs(int(t)) ** (int(p) - 1) * int(v) for t, v in zip(theta, x, strict=True) if t != 0
    )
    return (total > 0) - (total < 0)


def test_exact_tie_is_decided_by_the_rule():
    # theta = (1, -3), p = 3: w is proportional to (1, -9), so x = (9, 1) scores exactly 0;
    # the float score is -4.4e-16, yet the rule predicts +1 and updates on either label.
    learner = PNormPerceptron(2, 3)
    learner.theta = np.array([1.0, -3.0])
    learner.weights = pnorm_link(learner.theta, 3)
    x = np.array([9.0, 1.0])
    assert learner.score(x) != 0 and _exact_sign(learner.theta, x, 3) == 0
    assert learner.predict(x) == 1
    learner.update(x, 1)
    assert learner.n_updates == 1
    np.testing.assert_array_equal(learner.theta, [10.0, -2.0])


@pytest.mark.parametrize("p", [3, 4])
def test_integer_decisions_match_the_exact_definition(p):
    rng = np.random.default_rng(p)
    n = 6
    X = rng.integers(-3, 4, size=(400, n)).astype(float)
    y = np.where(X[:, 0] - X[:, 1] >= 0, 1, -1)
    learner = PNormPerceptron(n, p)
    for x, label in zip(X, y, strict=True):
        expected = 1 if _exact_sign(learner.theta, x, p) >= 0 else -1
        assert learner.predict(x) == expected
        learner.update(x, int(label))
    assert learner.n_updates > 0


def test_exact_path_beyond_int64():
    # |theta|^(p-1) * sum |x| >= 2^62: the Python-integer branch
    learner = PNormPerceptron(3, 8)
    learner.theta = np.array([600.0, -600.0, 1.0])
    learner.weights = pnorm_link(learner.theta, 8)
    x = np.array([1.0, 1.0, 0.0])  # exactly 0 in the definition
    assert 600**7 * 2 >= 2**62
    assert learner.predict(x) == 1
    assert learner.predict(np.array([1.0, 1.0, -1.0])) == -1
