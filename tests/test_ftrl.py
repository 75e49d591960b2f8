"""Tests of onlinelib.ftrl: FTL, entropic FTRL / mirror descent, FTPL and the small-loss bounds (chapter 5)."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from onlinelib.chapters.experts import hedge_run
from onlinelib.ftrl import (
    check_losses,
    entropic_ftrl,
    entropic_mirror_descent,
    entropic_objective,
    follow_perturbed_leader,
    follow_the_leader,
    ftpl_exponential_bound,
    small_loss_bound,
    small_loss_tuned_eta,
    small_loss_tuned_regret,
)

PROPERTY = settings(max_examples=60, deadline=None, database=None)


def ftl_trap(T):
    """Integer losses 2x the classic trap (1/2, 0), (0, 1), (1, 0), (0, 1), ..."""
    losses = np.zeros((T, 2), dtype=np.int64)
    losses[0, 0] = 1
    losses[1::2, 1] = 2
    losses[2::2, 0] = 2
    return losses


def loss_matrices(max_T=30, max_N=5):
    return st.tuples(st.integers(1, max_T), st.integers(1, max_N), st.integers(0, 2**32 - 1)).map(
        lambda a: np.random.default_rng(a[2]).random((a[0], a[1]))
    )


def test_ftl_hand_example_exact():
    # L before = (0,0) -> play 0 (tie, lowest index), loss 3; (3,1) -> play 1, loss 2; (4,3) -> play 1, loss 0
    run = follow_the_leader(np.array([[3, 1], [1, 2], [5, 0]]))
    assert run.mixed.tolist() == [3, 2, 0]
    assert run.learner_loss == 5 and run.best_loss == 3 and run.regret == 2
    assert isinstance(run.regret, int)
    assert run.weights.argmax(axis=1).tolist() == [0, 1, 1, 1]


@pytest.mark.parametrize("T", [1, 2, 3, 10, 1001, 10**5])
def test_ftl_regret_is_half_T_on_the_trap(T):
    run = follow_the_leader(ftl_trap(T))
    assert Fraction(run.regret, 2) == Fraction(T, 2)  # the matrix is doubled


def test_entropic_ftrl_is_hedge_and_mirror_descent():
    rng = np.random.default_rng(1)
    losses = rng.random((500, 7))
    for eta in (0.01, 0.3, 3.0):
        a, b = entropic_ftrl(losses, eta), entropic_mirror_descent(losses, eta)
        assert np.abs(a.weights - b.weights).max() <= 1e-12
        h = hedge_run(losses, eta)
        assert abs(a.learner_loss - h["learner_loss"]) <= 1e-9
        assert np.allclose(a.weights[:-1] @ np.ones(7), 1.0)


def test_entropic_ftrl_minimises_its_objective():
    rng = np.random.default_rng(2)
    losses = rng.random((50, 4))
    run = entropic_ftrl(losses, 0.7)
    cumulative = losses.sum(axis=0)
    best = entropic_objective(run.weights[-1], cumulative, 0.7)
    others = rng.dirichlet(np.ones(4), size=2000)
    assert np.all(entropic_objective(others, cumulative, 0.7) >= best - 1e-12)
    # the minimum value is -(1/eta) ln sum exp(-eta L)
    assert abs(best + np.log(np.exp(-0.7 * cumulative).sum()) / 0.7) <= 1e-12
    # vertices: 0 ln 0 = 0
    assert entropic_objective(np.eye(4), cumulative, 0.7).tolist() == cumulative.tolist()


def test_entropic_ftrl_schedule():
    losses = np.random.default_rng(3).random((40, 3))
    rates = 1.0 / np.sqrt(np.arange(1, 41))
    run = entropic_ftrl(losses, rates)
    assert abs(run.learner_loss - hedge_run(losses, rates)["learner_loss"]) <= 1e-12


@PROPERTY
@given(loss_matrices(), st.floats(0.01, 5.0))
def test_small_loss_bound_holds(losses, eta):
    run = entropic_ftrl(losses, eta)
    assert run.learner_loss <= small_loss_bound(losses.shape[1], run.best_loss, eta) + 1e-9


@PROPERTY
@given(loss_matrices(max_T=40))
def test_small_loss_tuned_regret_holds(losses):
    N = losses.shape[1]
    if N < 2:
        return
    best = losses.sum(axis=0).min()
    B = max(best, 1e-3)
    run = entropic_ftrl(losses, small_loss_tuned_eta(N, B))
    assert run.regret <= small_loss_tuned_regret(N, B) + 1e-9


def test_small_loss_values():
    assert small_loss_bound(1, 0, 1.0) == 0.0
    assert math.isclose(small_loss_bound(2, 3, 1.0), (3 + math.log(2)) / (1 - math.exp(-1)))
    eta = small_loss_tuned_eta(10, 50)
    assert math.isclose(eta, math.log(1 + math.sqrt(2 * math.log(10) / 50)))
    assert math.isclose(small_loss_tuned_regret(10, 50), math.sqrt(100 * math.log(10)) + math.log(10))
    assert math.isclose(ftpl_exponential_bound(3, 10, 0.5), (10 + (1 / 2 + 1 / 3) / 0.5) / 0.5)


def test_ftpl_shapes_and_determinism():
    losses = np.random.default_rng(4).random((30, 5))
    for kind in ("exponential", "gumbel", "uniform"):
        for fresh in (False, True):
            a = follow_perturbed_leader(losses, 0.5, 7, np.random.default_rng(9), perturbation=kind, fresh=fresh)
            b = follow_perturbed_leader(losses, 0.5, 7, np.random.default_rng(9), perturbation=kind, fresh=fresh)
            assert a.shape == (7, 30) and a.dtype == np.int64 and np.array_equal(a, b)
            assert a.min() >= 0 and a.max() < 5


def test_ftpl_small_eta_is_uniform_and_large_eta_is_ftl():
    losses = ftl_trap(20) / 2.0
    ftl = follow_the_leader(losses)
    choices = follow_perturbed_leader(losses, 1e6, 5, np.random.default_rng(0))
    # round 1 is a tie, which the perturbation breaks at random; from round 2 on there is none
    assert np.all(choices[:, 1:] == ftl.weights[1:-1].argmax(axis=1))


def test_ftpl_gumbel_is_hedge_in_distribution():
    # one round with cumulative losses L: P(choice = i) = softmax(-eta L); 40 000 draws, 4 SE
    losses = np.array([[0.0, 0.5, 1.0, 0.2], [0.3, 0.1, 0.9, 0.0]])
    n = 40_000
    choices = follow_perturbed_leader(losses, 2.0, n, np.random.default_rng(5), perturbation="gumbel")
    p = entropic_ftrl(losses, 2.0).weights[1]
    freq = np.bincount(choices[:, 1], minlength=4) / n
    se = np.sqrt(p * (1 - p) / n)
    assert np.all(np.abs(freq - p) <= 4 * se), (freq, p)


def test_ftpl_given_perturbations():
    losses = np.random.default_rng(7).random((25, 4))
    Z = np.random.default_rng(8).exponential(2.0, size=(6, 4))
    choices = follow_perturbed_leader(losses, 0.5, 6, np.random.default_rng(0), perturbations=Z)
    before = np.vstack([np.zeros((1, 4)), np.cumsum(losses, axis=0)])[:-1]
    want = np.argmin(before[None] - Z[:, None, :], axis=2)
    assert np.array_equal(choices, want)
    with pytest.raises(ValueError, match="only with fresh=False"):
        follow_perturbed_leader(losses, 0.5, 6, np.random.default_rng(0), perturbations=Z, fresh=True)
    with pytest.raises(ValueError, match=r"\(n_trials, N\) = \(5, 4\) array, got shape \(6, 4\)"):
        follow_perturbed_leader(losses, 0.5, 5, np.random.default_rng(0), perturbations=Z)


def test_ftpl_exponential_bound_in_expectation():
    rng = np.random.default_rng(6)
    losses = (rng.random((300, 6)) < np.linspace(0.05, 0.5, 6)).astype(float)
    choices = follow_perturbed_leader(losses, 0.3, 4000, rng)
    totals = losses[np.arange(300), choices].sum(axis=1)
    se = totals.std(ddof=1) / math.sqrt(4000)
    bound = ftpl_exponential_bound(6, losses.sum(axis=0).min(), 0.3)
    assert totals.mean() <= bound + 4 * se


def test_check_losses_and_errors():
    assert check_losses([[1, 2]], bounded=False).dtype.kind == "i"
    assert check_losses([[0.5, 1]]).dtype == np.float64
    with pytest.raises(ValueError, match=r"losses must lie in \[0, 1\], got 1.5 in round 2, expert 1"):
        check_losses([[0, 0], [0, 1.5]])
    with pytest.raises(ValueError, match="losses must be finite, got nan in round 1, expert 0"):
        check_losses([[np.nan]])
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        check_losses([0, 1, 0])
    with pytest.raises(ValueError, match=r"shape \(0, 2\)"):
        follow_the_leader(np.zeros((0, 2)))
    with pytest.raises(TypeError, match="dtype bool"):
        follow_the_leader([[True, False]])
    with pytest.raises(TypeError, match="dtype <U1"):
        entropic_ftrl([["a"]], 1.0)
    with pytest.raises(ValueError, match=r"eta must be a finite real number > 0, got -1.0"):
        entropic_ftrl([[0.5]], -1.0)
    with pytest.raises(TypeError, match="eta must be"):
        entropic_mirror_descent([[0.5]], "x")
    with pytest.raises(ValueError, match="non-increasing"):
        entropic_ftrl([[0.5], [0.5]], [1.0, 2.0])
    with pytest.raises(ValueError, match=r"T = 2 rates, got shape \(3,\)"):
        entropic_ftrl([[0.5], [0.5]], [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match=r"finite rates > 0, got 0.0"):
        entropic_ftrl([[0.5], [0.5]], [1.0, 0.0])
    with pytest.raises(ValueError, match="n_trials must be an integer >= 1, got 0"):
        follow_perturbed_leader([[0.5]], 1.0, 0, np.random.default_rng(0))
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        follow_perturbed_leader([[0.5]], 1.0, 1, 0)
    with pytest.raises(ValueError, match="perturbation must be one of"):
        follow_perturbed_leader([[0.5]], 1.0, 1, np.random.default_rng(0), perturbation="normal")
    with pytest.raises(TypeError, match="fresh must be True or False"):
        follow_perturbed_leader([[0.5]], 1.0, 1, np.random.default_rng(0), fresh=1)
    with pytest.raises(ValueError, match=r"eta must be a finite real number in \(0, 1\), got 1.0"):
        ftpl_exponential_bound(2, 1, 1.0)
    with pytest.raises(ValueError, match="best_loss must be"):
        small_loss_bound(2, -1, 0.5)
    with pytest.raises(ValueError, match="n_experts must be an integer >= 2, got 1"):
        small_loss_tuned_eta(1, 5)
    with pytest.raises(ValueError, match="loss_bound must be a finite real number > 0"):
        small_loss_tuned_eta(3, 0)
    with pytest.raises(ValueError, match="p must hold points of the simplex"):
        entropic_objective([-0.1, 1.1], [0, 0], 1.0)


@PROPERTY
@given(loss_matrices(max_T=25, max_N=4), st.floats(0.05, 3.0), st.sampled_from(["exponential", "uniform", "gumbel"]))
def test_ftpl_be_the_leader_pathwise(losses, eta, kind):
    """sum_t l_t(i_{t+1}) <= L_u + Z_{i_1} - Z_u for every Z and u (chapter 5, FTPL's be-the-leader step)."""
    T, N = losses.shape
    rng = np.random.default_rng(0)
    Z = {"exponential": rng.exponential, "uniform": rng.uniform, "gumbel": rng.gumbel}[kind](size=(8, N)) / eta
    choices = follow_perturbed_leader(losses, eta, 8, rng, perturbations=Z)
    totals = losses.sum(axis=0)
    last = np.argmin(totals[None] - Z, axis=1)
    following = losses[np.arange(T), np.column_stack([choices[:, 1:], last])].sum(axis=1)
    for u in range(N):
        assert np.all(following <= totals[u] + Z[np.arange(8), choices[:, 0]] - Z[:, u] + 1e-9)
