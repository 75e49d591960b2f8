"""Tests for onlinelib.margin_adversary (chapter 3: margin lower bound, hinge-loss bound)."""
from fractions import Fraction

import numpy as np
import pytest

import onlinelib as ol
from onlinelib.margin_adversary import (
    exact_novikoff_bound,
    hinge_losses,
    margin_adversary,
    perceptron_hinge_bound,
)


class AlwaysPositive:
    def predict(self, x):
        return 1

    def update(self, x, y):
        pass


class LastLabel:
    """Predicts the last label seen (+1 at the start)."""

    def __init__(self):
        self.last = 1

    def predict(self, x):
        return self.last

    def update(self, x, y):
        self.last = int(y)


@pytest.mark.parametrize("margin, radius, k", [
    (Fraction(1, 10), 1, 100), (0.1, 1, 99), (Fraction(1, 2), 1, 4), (Fraction(3, 10), 3, 100),
    (Fraction(2, 5), 1, 6), (1, 1, 1),
])
@pytest.mark.parametrize("make", [
    lambda d: ol.Perceptron(d), lambda d: AlwaysPositive(), lambda d: LastLabel(),
    lambda d: ol.Perceptron(d, bias=True),
])
def test_every_round_is_a_mistake_and_margin_holds(margin, radius, k, make):
    d = k + 3
    run = margin_adversary(make(d), margin, radius, n_features=d)
    assert len(run.y) == k == run.trace.n_mistakes
    assert np.array_equal(run.y, -run.trace.predictions)
    assert run.X.shape == (k, d)
    # exact: R^2 ||u||^2 / xi^2 = k <= R^2 / gamma^2
    assert exact_novikoff_bound(run.X, run.y, run.u) == k
    assert Fraction(float(radius)) ** 2 / k >= Fraction(margin) ** 2
    assert np.isclose(np.linalg.norm(run.w_star), 1.0)
    assert np.all(run.u[k:] == 0)


def test_perceptron_gets_the_fixed_label_sequence():
    run = margin_adversary(ol.Perceptron(49), Fraction(1, 7))
    X, y, w = ol.perceptron_lower_bound_stream(1 / 7)
    assert np.array_equal(run.X, X) and np.array_equal(run.y, y)
    assert np.allclose(run.w_star, w)


def test_winnow2_on_unit_vectors():
    run = margin_adversary(ol.Winnow2(64), Fraction(1, 8), n_features=64)
    assert run.trace.n_mistakes == 64


def test_adversary_errors():
    with pytest.raises(TypeError, match="learner"):
        margin_adversary(object(), 0.5)
    with pytest.raises(TypeError, match="margin"):
        margin_adversary(AlwaysPositive(), "0.5")
    with pytest.raises(TypeError, match="margin"):
        margin_adversary(AlwaysPositive(), True)
    with pytest.raises(ValueError, match="margin"):
        margin_adversary(AlwaysPositive(), -0.5)
    with pytest.raises(ValueError, match="margin"):
        margin_adversary(AlwaysPositive(), float("nan"))
    with pytest.raises(ValueError, match="radius"):
        margin_adversary(AlwaysPositive(), 0.5, radius=0)
    with pytest.raises(ValueError, match="at most radius"):
        margin_adversary(AlwaysPositive(), 2, radius=1)
    with pytest.raises(ValueError, match="n_features"):
        margin_adversary(AlwaysPositive(), Fraction(1, 3), n_features=8)
    with pytest.raises(ValueError, match="rounds"):
        margin_adversary(AlwaysPositive(), Fraction(1, 1000))
    with pytest.raises(ValueError, match="predict"):
        class Bad(AlwaysPositive):
            def predict(self, x):
                return 0
        margin_adversary(Bad(), 0.5)


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
    X, y, w = ol.separable_stream(5, 3000, 0.1, rng)
    y = np.where(rng.random(len(y)) < 0.05, -y, y).astype(np.int8)
    learner = ol.Perceptron(5)
    ol.run(learner, X, y)
    R = np.linalg.norm(X, axis=1).max()
    for c in (1.0, 5.0, 10.0, 30.0):
        u = c * w
        assert learner.n_updates <= perceptron_hinge_bound(R, c, hinge_losses(X, y, u).sum())
