"""Tests of onlinelib.learning_curves.order_parameters (chapter 8, the order-parameter framework)."""

import math

import numpy as np
import pytest
from scipy import special

from onlinelib.chapters import learning_curves as chapter
from onlinelib.learning_curves import order_parameters as op
from onlinelib.learning_curves.theory import ode_rhs


def _fields(R, M, rng):
    u = rng.standard_normal(M)
    lam = R * u + math.sqrt(1 - R * R) * rng.standard_normal(M)
    return u, lam, np.where(u >= 0, 1.0, -1.0)


@pytest.mark.parametrize("rule", op.ONLINE_RULES)
@pytest.mark.parametrize("R", [-0.4, 0.3, 0.9])
def test_rule_averages_match_monte_carlo(rule, R):
    rng = np.random.default_rng(7)
    Q, eta, M = 2.0, 0.7, 400_000
    u, lam, sigma = _fields(R, M, rng)
    wrong = sigma * lam < 0
    F = {"hebb": eta + 0 * u, "perceptron": eta * wrong, "adatron": eta * math.sqrt(Q) * np.abs(lam) * wrong}[rule]
    exact = op.modulation_averages(rule, R, Q, eta)
    for sample, value in zip((F * sigma * u, F * sigma * lam, F * F), exact, strict=True):
        se = sample.std() / math.sqrt(M)
        assert abs(sample.mean() - value) <= 4 * se + 1e-12, (rule, R, sample.mean(), value, se)


def test_perceptron_direction_follows_eq4_at_rate_eta_over_length():
    for R, Q in [(0.2, 1.0), (0.7, 4.0), (0.95, 9.0)]:
        drho, dQ = op.order_parameter_rhs("perceptron", R * math.sqrt(Q), Q, 1.0)
        dR = drho / math.sqrt(Q) - R * dQ / (2 * Q)
        assert dR == pytest.approx(ode_rhs(R, 1 / math.sqrt(Q)), rel=1e-12)


def test_hebb_ode_has_the_closed_form():
    a = np.array([0.5, 3.0, 40.0])
    R, Q = op.integrate_order_parameters("hebb", a)
    np.testing.assert_allclose(Q, 1 + a + 2 * a * a / math.pi, rtol=1e-8)
    np.testing.assert_allclose(R, a * math.sqrt(2 / math.pi) / np.sqrt(Q), rtol=1e-8)


def test_asymptotic_laws():
    for rule in op.ONLINE_RULES:
        R, _ = op.integrate_order_parameters(rule, [1e4])
        assert math.acos(R[0]) / math.pi == pytest.approx(op.rule_asymptotic_error(rule, 1e4), rel=1e-3)
    R, _ = op.integrate_order_parameters("adatron", [1e4], eta=1.5)
    assert math.acos(R[0]) / math.pi == pytest.approx(4 / (3 * 1e4), rel=2e-3)


def _full_simulation(rule, N, steps, runs, rng):
    """The rule on vectors in N dimensions (teacher e_1 * sqrt(N)), for the law of the reduced chain."""
    B = np.zeros(N)
    B[0] = math.sqrt(N)
    J = np.zeros((runs, N))
    J[:, 1] = math.sqrt(N)  # R0 = 0, Q0 = 1
    for _ in range(steps):
        x = rng.standard_normal((runs, N))
        u = x @ B / math.sqrt(N)
        sigma = np.where(u >= 0, 1.0, -1.0)
        field = np.einsum("ij,ij->i", J, x) / math.sqrt(N)
        wrong = sigma * field < 0
        F = {"hebb": 1.0 + 0 * u, "perceptron": 1.0 * wrong, "adatron": np.abs(field) * wrong}[rule]
        J += (F * sigma)[:, None] * x / math.sqrt(N)
    return J @ B / (np.linalg.norm(J, axis=1) * math.sqrt(N))


@pytest.mark.parametrize("rule", op.ONLINE_RULES)
def test_reduced_chain_has_the_law_of_the_vectors(rule):
    N, alpha, runs = 12, 2.0, 3000
    full = _full_simulation(rule, N, int(alpha * N), runs, np.random.default_rng(1))
    reduced = op.simulate_order_parameters(rule, N, [alpha], runs, np.random.default_rng(2))[0][0, :, 0]
    for f in (np.mean, lambda r: np.mean(r * r)):
        a, b = f(full), f(reduced)
        se = math.hypot(np.std(full if f is np.mean else full**2), np.std(reduced if f is np.mean else reduced**2))
        assert abs(a - b) <= 4 * se / math.sqrt(runs), (rule, a, b)


def test_simulation_is_seeded_and_shaped():
    a = op.simulate_order_parameters(("hebb", "adatron"), 50, [0.5, 1.0], 7, np.random.default_rng(3))
    b = op.simulate_order_parameters(("hebb", "adatron"), 50, [0.5, 1.0], 7, np.random.default_rng(3))
    assert a[0].shape == (2, 7, 2)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


def test_greedy_rate_maximises_eq4_and_curve_is_exact():
    for R in (0.05, 0.5, 0.97):
        best = op.greedy_learning_rate(R)
        top = ode_rhs(R, best)
        assert top == pytest.approx(op.greedy_drift(R), rel=1e-12)
        assert top > ode_rhs(R, best * 1.01) and top > ode_rhs(R, best * 0.99)
    a = np.array([0.0, 1.0, 10.0, 1e3])
    theta = np.arccos(op.greedy_learning_curve(a, 0.3))
    G = 2 * theta / np.sin(theta) ** 2 + 2 / np.tan(theta)
    np.testing.assert_allclose(G - G[0], a, rtol=1e-9, atol=1e-9)


def test_fisher_information_limits_and_monte_carlo():
    J = chapter.BENCHMARK_INTEGRAL
    assert 1e-4 * op.noisy_teacher_fisher_information(1e-4) == pytest.approx(J / math.pi, rel=1e-7)
    rng = np.random.default_rng(5)
    g, M = 1.0, 400_000
    u = rng.standard_normal(M)
    s = np.where(u + g * rng.standard_normal(M) >= 0, 1.0, -1.0)
    score2 = (np.exp(-u * u / (2 * g * g)) / math.sqrt(2 * math.pi) / (g * special.ndtr(s * u / g))) ** 2
    assert abs(score2.mean() - op.noisy_teacher_fisher_information(g)) <= 4 * score2.std() / math.sqrt(M)
    assert op.noisy_optimal_drift(0.6, 0.0) == pytest.approx(chapter.optimal_online_rhs(0.6), rel=1e-10)
    assert op.noisy_optimal_drift(0.6, 0.3) < op.noisy_optimal_drift(0.6, 0.0)


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: op.modulation_averages("oja", 0.5), ValueError, "rule must be one of"),
        (lambda: op.modulation_averages(3, 0.5), TypeError, "rule must be one of"),
        (lambda: op.modulation_averages("hebb", 1.5), ValueError, "R must lie in [-1, 1], got 1.5"),
        (lambda: op.modulation_averages("hebb", "x"), TypeError, "R must be a real number"),
        (lambda: op.modulation_averages("adatron", 0.5, Q=-1.0), ValueError, "Q must be finite and >= 0"),
        (lambda: op.modulation_averages("hebb", 0.5, eta=0.0), ValueError, "eta must be a finite real number > 0"),
        (lambda: op.integrate_order_parameters("hebb", [0.0, 1.0]), ValueError, "alphas must be positive"),
        (lambda: op.integrate_order_parameters("hebb", [1.0], R0=1.0), ValueError, "R0 must be"),
        (lambda: op.integrate_order_parameters("hebb", [1.0], Q0=0.0), ValueError, "Q0 must be"),
        (lambda: op.rule_asymptotic_error("adatron", 10.0, eta=3.0), ValueError, "eta must lie in (0, 3)"),
        (lambda: op.rule_asymptotic_error("hebb", -1.0), ValueError, "alpha must be finite and > 0"),
        (lambda: op.simulate_order_parameters("hebb", 2, [1.0], 5, np.random.default_rng(0)), ValueError, "N must"),
        (lambda: op.simulate_order_parameters("hebb", 10, [1.0], 0, np.random.default_rng(0)), ValueError, "runs"),
        (lambda: op.simulate_order_parameters("hebb", 10, [1.0], 5, 0), TypeError, "rng must be a numpy"),
        (lambda: op.simulate_order_parameters([], 10, [1.0], 5, np.random.default_rng(0)), ValueError, "rules"),
        (
            lambda: op.simulate_order_parameters("hebb", 10, [2.0, 1.0], 5, np.random.default_rng(0)),
            ValueError,
            "nondecreasing",
        ),
        (lambda: op.greedy_learning_rate(0.0), ValueError, "R must lie in (0, 1)"),
        (lambda: op.greedy_drift(1.0), ValueError, "R must lie in (0, 1)"),
        (lambda: op.greedy_learning_curve(1.0, 0.0), ValueError, "R0 must be a finite real number in (0, 1)"),
        (lambda: op.greedy_learning_curve(-1.0, 0.5), ValueError, "alpha must be finite and >= 0"),
        (lambda: op.noisy_teacher_fisher_information(0.0), ValueError, "gamma must be a finite real number > 0"),
        (lambda: op.noisy_optimal_drift(0.5, -0.1), ValueError, "gamma must be a finite real number >= 0"),
        (lambda: op.noisy_optimal_drift(1.0, 0.1), ValueError, "R must be a finite real number in (0, 1)"),
    ],
)
def test_bad_input_names_argument_domain_and_value(call, error, words):
    with pytest.raises(error, match=None) as info:
        call()
    assert words in str(info.value), str(info.value)
