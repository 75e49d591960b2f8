"""Tests for onlinelib.learning_curves (book chapter 8, "Learning curves"; MATH.md sections 2.1-2.2)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from onlinelib.learning_curves import (
    constant_schedule,
    fixed_point_error,
    generalization_error,
    integrate_R,
    noisy_generalization_error,
    normalized_perceptron_step,
    ode_rhs,
    power_schedule,
    robust_shift,
    schedule_asymptote,
    simulate_normalized_perceptron,
    small_eta_fixed_point,
)

SQRT_2PI = math.sqrt(2 * math.pi)


# ---------------------------------------------------------------- theory

def test_generalization_error_values_and_monotone():
    assert generalization_error(1.0) == 0.0
    assert generalization_error(-1.0) == pytest.approx(1.0)
    assert generalization_error(0.0) == pytest.approx(0.5)
    R = np.linspace(-1, 1, 2001)
    e = generalization_error(R)
    assert e.shape == R.shape
    assert np.all(np.diff(e) < 0)


@pytest.mark.parametrize("eta", [1e-4, 1e-3, 0.01, 0.05, 0.1])
def test_fixed_point_matches_small_eta_formula(eta):
    # Eq. (5): eps_inf = eta/sqrt(2 pi^3) to 1% for eta <= 0.1
    assert fixed_point_error(eta) == pytest.approx(small_eta_fixed_point(eta), rel=0.01)


def test_fixed_point_values_from_math_md():
    # MATH.md 2.1: eta=0.01 -> 0.001270, eta=0.1 -> 0.012695, eta=1 -> 0.1236 (to the quoted digits)
    assert fixed_point_error(0.01) == pytest.approx(0.001270, abs=5e-7)
    assert fixed_point_error(0.1) == pytest.approx(0.012695, abs=5e-7)
    assert fixed_point_error(1.0) == pytest.approx(0.1236, abs=5e-5)
    # it is a root of Eq. (4)
    for eta in (0.01, 1.0, 3.0):
        R = math.cos(math.pi * fixed_point_error(eta))
        assert abs(ode_rhs(R, eta)) < 1e-12


def test_constant_eta_ode_converges_to_fixed_point():
    eta = 0.5
    R = integrate_R([200.0], eta, 0.0)
    assert generalization_error(R[0]) == pytest.approx(fixed_point_error(eta), rel=1e-5)


def test_schedule_asymptote_eta0_2_is_4_over_pi():
    assert schedule_asymptote(2.0) == pytest.approx(4 / math.pi)
    grid = np.linspace(1.1, 6, 500)
    assert min(schedule_asymptote(float(x)) for x in grid) >= 4 / math.pi - 1e-12


def test_ode_eta0_2_reaches_4_over_pi():
    # Eq. (6): alpha * eps_g -> 4/pi for eta = 2 sqrt(2 pi)/alpha (capped at its alpha=1 value)
    sched = power_schedule(2.0, 1.0, cap=2 * SQRT_2PI)
    alphas = np.array([1e3, 1e4])
    ae = alphas * generalization_error(integrate_R(alphas, sched, 0.0))
    print("alpha*eps_g at 1e3, 1e4:", ae)
    assert ae[1] == pytest.approx(4 / math.pi, rel=0.005)
    assert ae[0] == pytest.approx(1.2715, abs=5e-4)  # MATH.md value


@pytest.mark.parametrize("eta0", [3.0, 4.0])
def test_ode_other_eta0_matches_eq6(eta0):
    sched = power_schedule(eta0, 1.0, cap=eta0 * SQRT_2PI)
    ae = 1e4 * generalization_error(integrate_R([1e4], sched, 0.0))[0]
    assert ae == pytest.approx(schedule_asymptote(eta0), rel=0.005)


def test_one_step_monte_carlo_matches_ode_rhs():
    # N <Delta R> for one example at R = 0.8, eta = 1, N = 200 vs Eq. (4) (MATH.md: 0.0626 vs 0.0617)
    N, R0, eta = 200, 0.8, 1.0
    rng = np.random.default_rng(12345)
    W0 = np.zeros(N)
    W0[0] = 1.0
    w = np.zeros(N)
    w[0], w[1] = R0, math.sqrt(1 - R0**2)
    chunk, n_chunks = 20000, 10
    vals = []
    for _ in range(n_chunks):
        W = np.tile(w, (chunk, 1))
        S = rng.standard_normal((chunk, N))
        labels = np.where(S[:, 0] >= 0, 1.0, -1.0)
        Wn = normalized_perceptron_step(W, S, labels, eta, N)
        vals.append(N * (Wn[:, 0] - R0))
    vals = np.concatenate(vals)
    mean, se = vals.mean(), vals.std(ddof=1) / math.sqrt(len(vals))
    print(f"N<dR> = {mean:.4f} +- {se:.4f}, Eq. 4: {ode_rhs(R0, eta):.4f}")
    assert abs(mean - ode_rhs(R0, eta)) < 4 * se


# ---------------------------------------------------------------- simulation

@settings(max_examples=60, deadline=None, database=None)
@given(
    N=st.integers(1, 8),
    runs=st.integers(1, 4),
    n_examples=st.integers(1, 30),
    eta=st.floats(0.0, 20.0),
    seed=st.integers(0, 2**32 - 1),
    p=st.floats(0.0, 0.5),
)
def test_unit_norm_after_every_update(N, runs, n_examples, eta, seed, p):
    rng = np.random.default_rng(seed)
    U = rng.standard_normal(N)
    res = simulate_normalized_perceptron(
        N, n_examples, runs, rng, eta, p=p, U=U, record=np.arange(n_examples + 1) / N
    )
    assert np.allclose(np.linalg.norm(res.W, axis=1), 1.0, atol=1e-12)
    assert np.all(np.abs(res.R) <= 1 + 1e-12)
    # step by step, too
    W = rng.standard_normal((runs, N))
    W /= np.linalg.norm(W, axis=1, keepdims=True)
    for _ in range(5):
        S = rng.standard_normal((runs, N))
        labels = rng.choice([-1.0, 1.0], size=runs)
        W = normalized_perceptron_step(W, S, labels, eta, N)
        assert np.allclose(np.linalg.norm(W, axis=1), 1.0, atol=1e-12)


def test_step_only_changes_on_mistakes():
    W = np.array([[1.0, 0.0], [1.0, 0.0]])
    S = np.array([[2.0, 1.0], [2.0, 1.0]])
    labels = np.array([1.0, -1.0])  # run 0 right, run 1 wrong
    Wn = normalized_perceptron_step(W, S, labels, 1.0, 2)
    assert np.array_equal(Wn[0], W[0])
    expected = W[1] - 0.5 * S[1]
    assert np.allclose(Wn[1], expected / np.linalg.norm(expected))


def test_simulation_eta0_2_schedule_near_4_over_pi_alpha():
    # Figure 1: N = 50, eta = 2 sqrt(2 pi)/alpha capped at alpha = 1; MATH.md: slightly below 4/pi at N = 50
    N, runs, alpha = 50, 200, 100
    sched = power_schedule(2.0, 1.0, cap=2 * SQRT_2PI)
    res = simulate_normalized_perceptron(N, alpha * N, runs, np.random.default_rng(2024), sched, record=[alpha])
    eps = res.eps_g[:, 0]
    ratio = alpha * eps.mean() / (4 / math.pi)
    se = alpha * eps.std(ddof=1) / math.sqrt(runs) / (4 / math.pi)
    print(f"alpha*<eps_g>/(4/pi) at alpha={alpha}, N={N}: {ratio:.4f} +- {se:.4f}")
    assert 0.8 <= ratio <= 1.1


def test_simulation_constant_eta_near_ode():
    # constant eta = 1, N = 50, 100 runs: mean eps_g at alpha = 20 vs the ODE fixed point 0.1236 (10% band)
    res = simulate_normalized_perceptron(50, 1000, 100, np.random.default_rng(7), constant_schedule(1.0), record=[20])
    assert res.eps_g[:, 0].mean() == pytest.approx(fixed_point_error(1.0), rel=0.1)


def test_reproducible_with_seed_and_record_layout():
    kw = dict(p=0.1, U=np.array([0.5, -1.0, 0.0]), record=[0, 1, 2, 1.0 / 3])
    a = simulate_normalized_perceptron(3, 6, 5, np.random.default_rng(3), 0.7, **kw)
    b = simulate_normalized_perceptron(3, 6, 5, np.random.default_rng(3), 0.7, **kw)
    c = simulate_normalized_perceptron(3, 6, 5, np.random.default_rng(4), 0.7, **kw)
    assert np.array_equal(a.R, b.R) and np.array_equal(a.q, b.q) and np.array_equal(a.W, b.W)
    assert not np.array_equal(a.R, c.R)
    assert a.R.shape == (5, 4) and a.q.shape == (5, 4)
    assert a.eps_g is None  # Eq. 3 is not the error with noise / biased inputs
    assert np.allclose(a.alpha, [0, 1, 2, 1.0 / 3])
    assert np.allclose(a.R[:, 2], a.W @ a.W0)


def test_default_record_and_W_init():
    res = simulate_normalized_perceptron(4, 10, 3, np.random.default_rng(0), 1.0, W_init=[1, 0, 0, 0])
    assert np.allclose(res.alpha, [0, 1, 2, 2.5])
    assert np.allclose(res.R[:, 0], 1.0)
    assert res.q is None and res.eps_g.shape == (3, 4)


# ---------------------------------------------------------------- Section 3

def test_noisy_generalization_error_monte_carlo():
    # Eq. (8) vs Monte Carlo, N = 5, 4e5 samples, seed fixed; tolerance 4 standard errors
    rng = np.random.default_rng(99)
    N, p = 5, 0.15
    W0 = rng.standard_normal(N)
    W0 /= np.linalg.norm(W0)
    W = rng.standard_normal(N)
    W /= np.linalg.norm(W)
    U = rng.standard_normal(N)
    R, q, q0 = W @ W0, U @ W, U @ W0
    n = 400_000
    S = rng.standard_normal((n, N)) + U
    teacher = np.where(S @ W0 >= 0, 1, -1)
    labels = np.where(rng.random(n) < p, -teacher, teacher)
    student = np.where(S @ W >= 0, 1, -1)
    mc = np.mean(student != labels)
    se = math.sqrt(mc * (1 - mc) / n)
    th = noisy_generalization_error(R, q, q0, p)
    print(f"Eq. 8: {th:.5f}, MC: {mc:.5f} +- {se:.5f}")
    assert abs(mc - th) < 4 * se


def test_noisy_error_reduces_to_eq3():
    for R in (-0.5, 0.0, 0.7, 0.99):
        assert noisy_generalization_error(R, 0.0, 0.0, 0.0) == pytest.approx(generalization_error(R), abs=1e-9)
    assert noisy_generalization_error(1.0, 0.3, 0.3, 0.2) == pytest.approx(0.2)


def test_robust_shift_eq13():
    N = 4
    W0 = np.array([1.0, 0, 0, 0])
    U = np.array([-1.95, math.sqrt(16 - 1.95**2), 0, 0])
    T = robust_shift(U, W0)
    assert T @ W0 == pytest.approx(-2.0756, abs=1e-4)  # MATH.md 2.2
    assert np.allclose(T[1:], U[1:])
    # T = <sigma0 S>/<sigma0> by Monte Carlo
    rng = np.random.default_rng(5)
    S = rng.standard_normal((400_000, N)) + U
    s0 = np.where(S @ W0 >= 0, 1.0, -1.0)
    assert np.allclose((s0[:, None] * S).mean(0) / s0.mean(), T, atol=0.03)
    with pytest.raises(ValueError, match="q0"):
        robust_shift(np.array([0.0, 1, 0, 0]), W0)
    with pytest.raises(ValueError, match="q0"):
        robust_shift(U, W0, q0=1.0)


def test_robust_rule_runs_with_T():
    N = 10
    rng = np.random.default_rng(1)
    W0 = np.eye(N)[0]
    U = np.zeros(N)
    U[0], U[1] = -1.0, 1.0
    T = robust_shift(U, W0)
    res = simulate_normalized_perceptron(N, 200, 4, rng, 0.1, p=0.2, U=U, W0=W0, W_init=W0, T=T, record=[20])
    assert np.all(res.R[:, 0] > 0.5)


# ---------------------------------------------------------------- errors

@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(N=0), ValueError, "N"),
        (dict(N=2.5), TypeError, "N"),
        (dict(runs=0), ValueError, "runs"),
        (dict(n_examples=-1), ValueError, "n_examples"),
        (dict(p=0.6), ValueError, "p"),
        (dict(p=-0.1), ValueError, "p"),
        (dict(schedule=-1.0), ValueError, "schedule"),
        (dict(schedule=lambda a: -1.0), ValueError, "eta"),
        (dict(schedule="fast"), TypeError, "schedule"),
        (dict(rng=0), TypeError, "Generator"),
        (dict(rng=np.random.RandomState(0)), TypeError, "Generator"),
        (dict(U=np.zeros(3)), ValueError, "U"),
        (dict(W0=np.zeros(4)), ValueError, "W0"),
        (dict(W_init=np.ones((2, 4))), ValueError, "W_init"),
        (dict(record=[0.1]), ValueError, "record"),
        (dict(record=[10]), ValueError, "record"),
    ],
)
def test_simulation_bad_input(kwargs, exc, match):
    args = dict(N=4, n_examples=8, runs=3, rng=np.random.default_rng(0), schedule=1.0)
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        simulate_normalized_perceptron(**args)


def test_theory_bad_input():
    with pytest.raises(ValueError, match="R"):
        generalization_error(1.5)
    with pytest.raises(ValueError, match="eta"):
        ode_rhs(0.5, -1.0)
    with pytest.raises(ValueError, match="eta"):
        fixed_point_error(0.0)
    with pytest.raises(TypeError, match="eta"):
        fixed_point_error("1")
    with pytest.raises(ValueError, match="eta0"):
        schedule_asymptote(1.0)
    with pytest.raises(ValueError, match="eta"):
        constant_schedule(-0.5)
    with pytest.raises(ValueError, match="z"):
        power_schedule(2.0, 0.0)
    with pytest.raises(ValueError, match="cap"):
        power_schedule(2.0, 1.0, cap=-1.0)
    with pytest.raises(ValueError, match="R0"):
        integrate_R([1.0], 1.0, 2.0)
    with pytest.raises(ValueError, match="alphas"):
        integrate_R([2.0, 1.0], 1.0, 0.0)
    with pytest.raises(ValueError, match="cap="):
        integrate_R([1.0], power_schedule(2.0, 1.0), 0.0)  # infinite eta at alpha = 0
    with pytest.raises(ValueError, match="p"):
        noisy_generalization_error(0.5, 0.0, 0.0, 0.7)
