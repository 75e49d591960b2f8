"""Tests of onlinelib.learning_curves.committee (chapter 8, Saad-Solla plateaus)."""

import math

import numpy as np
import pytest
from scipy import special

from onlinelib.learning_curves import committee as scm


@pytest.fixture(scope="module")
def gaussian():
    rng = np.random.default_rng(11)
    A = rng.standard_normal((4, 4)) * 0.7
    C = A @ A.T
    z = rng.multivariate_normal(np.zeros(4), C, size=600_000)
    return C, z, special.erf(z / math.sqrt(2)), math.sqrt(2 / math.pi) * np.exp(-z * z / 2)


def _close(sample, value):
    se = sample.std() / math.sqrt(len(sample))
    assert abs(sample.mean() - value) <= 4 * se, (sample.mean(), value, se)


def test_closed_forms_match_monte_carlo(gaussian):
    C, z, g, gp = gaussian
    i2, i3, i4 = scm.erf_i2(C), scm.erf_i3(C), scm.erf_i4(C)
    for a, b in [(0, 1), (2, 3), (1, 1)]:
        _close(g[:, a] * g[:, b], i2[a, b])
    for a, b, c in [(0, 1, 2), (3, 3, 0), (1, 2, 1), (2, 0, 3)]:
        _close(gp[:, a] * z[:, b] * g[:, c], i3[a, b, c])
    for a, b, c, d in [(0, 1, 2, 3), (2, 2, 0, 0), (3, 1, 1, 2), (0, 0, 0, 0)]:
        _close(gp[:, a] * gp[:, b] * g[:, c] * g[:, d], i4[a, b, c, d])


def test_perfect_student_is_a_fixed_point_with_zero_error():
    eye = np.eye(2)
    assert scm.committee_error(eye, eye, eye) == pytest.approx(0.0, abs=1e-15)
    dQ, dR = scm.committee_rhs(eye, eye, eye, 0.8)
    assert np.max(np.abs(dQ)) < 1e-15 and np.max(np.abs(dR)) < 1e-15


def test_symmetry_is_kept_and_batches_agree():
    T = np.eye(2)
    Q0 = np.array([[0.3, 0.05], [0.05, 0.3]])
    R0 = np.array([[0.02, -0.01], [-0.01, 0.02]])
    Q, R = scm.integrate_committee([10.0, 50.0], Q0, R0, T, 0.5)
    np.testing.assert_allclose(R[:, 0, 0], R[:, 1, 1], rtol=1e-7)
    np.testing.assert_allclose(R[:, 0, 1], R[:, 1, 0], rtol=1e-7)
    np.testing.assert_allclose(Q[:, 0, 1], Q[:, 1, 0], rtol=1e-7)
    Qb, Rb = scm.integrate_committee([10.0, 50.0], np.stack([Q0, Q0]), np.stack([R0, R0]), T, 0.5)
    np.testing.assert_allclose(Rb[1], R, rtol=1e-6)


def test_error_decreases_along_gradient_flow_at_small_eta():
    T = np.eye(2)
    Q, R = scm.integrate_committee(np.linspace(1, 40, 40), 0.2 * np.eye(2), 0.05 * np.eye(2), T, 0.05)
    eps = scm.committee_error(Q, R, T)
    assert np.all(np.diff(eps) < 0)


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: scm.erf_i2(np.ones(3)), ValueError, "C must be a finite (..., n, n) covariance array"),
        (
            lambda: scm.committee_covariance(np.eye(2), np.ones((3, 2)), np.eye(2)),
            ValueError,
            "Q, R, T must have shapes",
        ),
        (lambda: scm.committee_rhs(np.eye(2), np.eye(2), np.eye(2), 0.0), ValueError, "eta must be a finite real"),
        (
            lambda: scm.integrate_committee([1.0], -np.eye(2), np.eye(2), np.eye(2), 1.0),
            ValueError,
            "Q0 must be positive definite",
        ),
        (
            lambda: scm.integrate_committee([0.0], np.eye(2), np.eye(2), np.eye(2), 1.0),
            ValueError,
            "alphas must be a nonempty increasing",
        ),
    ],
)
def test_bad_input(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert words in str(info.value), str(info.value)
