"""Tests of onlinelib.aggregating: Vovk's aggregating algorithm for log and square loss (chapter 5)."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from onlinelib.aggregating import aggregating_log_loss, aggregating_square_loss, check_binary_outcomes, log_loss

PROPERTY = settings(max_examples=80, deadline=None, database=None)


def streams(max_T=40, max_N=6):
    def make(args):
        T, N, seed = args
        rng = np.random.default_rng(seed)
        return rng.random((T, N)), rng.integers(0, 2, size=T)

    return st.tuples(st.integers(1, max_T), st.integers(1, max_N), st.integers(0, 2**32 - 1)).map(make)


def test_log_loss_values():
    assert log_loss(0.25, 1) == pytest.approx(math.log(4))
    assert log_loss(0.25, 0) == pytest.approx(math.log(4 / 3))
    assert log_loss(0.0, 1) == np.inf


def test_log_loss_hand_example_exact():
    # two experts, x = (1/2, 1/4) then (1/2, 3/4); outcomes 1, 1
    X = np.array([[0.5, 0.25], [0.5, 0.75]])
    run = aggregating_log_loss(X, [1, 1])
    # round 1: mixture 3/8; weights after: (1/2, 1/4) -> (2/3, 1/3); round 2: 2/3*1/2 + 1/3*3/4 = 7/12
    assert run.predictions[0] == pytest.approx(3 / 8, abs=1e-15)
    assert run.predictions[1] == pytest.approx(7 / 12, abs=1e-15)
    want = -math.log(Fraction(3, 8) * Fraction(7, 12))
    assert run.learner_loss == pytest.approx(want, abs=1e-14)
    # the product of the mixture's probabilities is the average of the experts' products
    assert Fraction(3, 8) * Fraction(7, 12) == (Fraction(1, 4) + Fraction(3, 16)) / 2


def test_log_loss_tight_example():
    # N = 2^k experts, expert j predicts its own bit string with certainty: regret = k ln 2 = ln N
    k = 5
    N, T = 2**k, k
    bits = (np.arange(N)[None, :] >> np.arange(T)[:, None]) & 1
    y = bits[:, 13]
    run = aggregating_log_loss(bits.astype(float), y)
    assert run.best_loss == 0.0
    assert run.regret == pytest.approx(math.log(N), abs=1e-12)


@PROPERTY
@given(streams())
def test_log_loss_regret_at_most_ln_N(stream):
    X, y = stream
    run = aggregating_log_loss(X, y)
    assert run.regret <= math.log(X.shape[1]) + 1e-9
    chosen = np.where(y == 1, run.mixture_losses[:, 1], run.mixture_losses[:, 0])
    assert np.allclose(run.learner_losses, chosen, rtol=1e-12, atol=1e-12)


@PROPERTY
@given(streams(), st.sampled_from([0.5, 1.0, 2.0]))
def test_square_loss_mixability_and_regret(stream, eta):
    X, y = stream
    run = aggregating_square_loss(X, y, eta)
    g0, g1 = run.mixture_losses.T
    x = run.predictions
    assert np.all(x**2 <= g0 + 1e-12) and np.all((1 - x) ** 2 <= g1 + 1e-12)
    assert run.regret <= math.log(X.shape[1]) / eta + 1e-9


def test_square_loss_adversarial_outcomes():
    # the outcome farther from the learner's prediction, every round
    rng = np.random.default_rng(0)
    T, N = 400, 8
    X = rng.random((T, N))
    y = np.zeros(T, dtype=int)
    for t in range(T):
        x_t = aggregating_square_loss(X[: t + 1], np.append(y[:t], 0)).predictions[t]
        y[t] = 0 if x_t >= 0.5 else 1
    run = aggregating_square_loss(X, y)
    assert run.regret <= math.log(N) / 2 + 1e-9


def test_zero_probability_expert_drops_out():
    X = np.array([[1.0, 0.5], [1.0, 0.5], [0.3, 0.5]])
    run = aggregating_log_loss(X, [0, 1, 1])
    assert run.expert_losses[0] == np.inf
    assert run.predictions[1] == pytest.approx(0.5) and run.predictions[2] == pytest.approx(0.5)
    certain = aggregating_log_loss(np.array([[1.0, 1.0]]), [1])
    assert certain.mixture_losses[0].tolist() == [np.inf, 0.0] and certain.learner_loss == 0.0
    with pytest.raises(ValueError, match="every expert gave probability 0"):
        aggregating_log_loss(np.array([[1.0], [0.5]]), [0, 1])


def test_errors():
    with pytest.raises(ValueError, match=r"outcomes must be in \{0, 1\}, got -1 in round 2 \(labels in"):
        aggregating_log_loss([[0.5], [0.5]], [1, -1])
    with pytest.raises(ValueError, match=r"outcomes must have shape \(2,\)"):
        aggregating_log_loss([[0.5], [0.5]], [1])
    with pytest.raises(TypeError, match="outcomes must hold"):
        check_binary_outcomes(np.array(["a"]), 1)
    with pytest.raises(ValueError, match=r"probabilities must lie in \[0, 1\], got 1.5 in round 1, expert 1"):
        aggregating_log_loss([[0.5, 1.5]], [1])
    with pytest.raises(ValueError, match=r"predictions must lie in \[0, 1\], got nan"):
        aggregating_square_loss([[np.nan]], [1])
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        aggregating_square_loss([0.5, 0.5], [1, 0])
    with pytest.raises(TypeError, match="dtype bool"):
        aggregating_square_loss([[True]], [1])
    with pytest.raises(ValueError, match=r"eta must be a finite real number in \(0, 2\] \(square loss is mixable"):
        aggregating_square_loss([[0.5]], [1], eta=2.5)
    with pytest.raises(TypeError, match="eta must be"):
        aggregating_square_loss([[0.5]], [1], eta="2")
