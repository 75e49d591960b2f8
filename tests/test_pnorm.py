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
    f = lambda t: 0.5 * (np.abs(t) ** p).sum() ** (2 / p)
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
