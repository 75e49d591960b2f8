"""Tests for the expert streams (onlinelib.streams) and the expert bounds (onlinelib.bounds), chapter 5."""

import math

import numpy as np
import pytest

from onlinelib import (
    all_concepts,
    concept_experts,
    iid_experts,
    monotone_disjunctions,
    planted_best_expert,
    rwma_bound,
    rwma_bound_standard,
    rwma_tuned_regret_bound,
    singletons,
    thresholds,
    tuned_eta,
    weighted_majority_run,
    wma_adversary,
    wma_bound,
    wma_bound_standard,
)

# -- 7. streams -------------------------------------------------------------------------------


def test_iid_experts_accuracies():
    # T = 20000: the empirical accuracy of expert i has sd sqrt(p(1-p)/T) <= 0.0036; we allow 5 sd
    # (a correct implementation fails with probability < 1e-6 per expert). p = 0 and 1 are exact.
    acc = [0.0, 0.25, 0.5, 0.9, 1.0]
    T = 20000
    P, y = iid_experts(T, acc, np.random.default_rng(0))
    assert P.shape == (T, 5) and y.shape == (T,)
    assert P.dtype == np.int8 and y.dtype == np.int8
    assert set(np.unique(P)) <= {-1, 1} and set(np.unique(y)) == {-1, 1}
    right = (P == y[:, None]).mean(axis=0)
    for p, emp in zip(acc, right, strict=True):
        assert abs(emp - p) <= 5 * math.sqrt(p * (1 - p) / T)
    assert right[0] == 0.0 and right[-1] == 1.0
    assert abs((y == 1).mean() - 0.5) <= 5 * math.sqrt(0.25 / T)  # uniform outcomes
    # reproducible
    P2, y2 = iid_experts(T, acc, np.random.default_rng(0))
    np.testing.assert_array_equal(P, P2)
    np.testing.assert_array_equal(y, y2)


@pytest.mark.parametrize("T, N, m", [(50, 4, 0), (50, 4, 7), (20, 6, 19), (1, 3, 0), (100, 1, 30), (30, 8, 20)])
def test_planted_best_expert(T, N, m):
    for seed in range(5):
        P, y = planted_best_expert(T, N, m, np.random.default_rng(seed))
        assert P.shape == (T, N) and y.shape == (T,)
        assert set(np.unique(P)) <= {-1, 1}
        c = (P != y[:, None]).sum(axis=0)
        assert c[0] == m
        assert np.all(c[1:] >= m + 1)
        r = weighted_majority_run(P, y, 0.5)
        assert r.best_expert_mistakes == m


@pytest.mark.parametrize("eta", [0.05, 0.3, 0.5, 0.99])
@pytest.mark.parametrize("N", [1, 2, 5, 10])
def test_wma_adversary_forces_every_round(eta, N):
    T = 300
    P, y = wma_adversary(T, N, eta, np.random.default_rng(N))
    assert P.shape == (T, N) and y.shape == (T,)
    r = weighted_majority_run(P, y, eta)
    assert r.mistakes == T
    # and F_t >= 1/2 in every round, so RWMA's expectation is at least T/2
    assert r.expected_mistakes >= T / 2 - 1e-9
    if N >= 5:
        assert r.best_expert_mistakes < T  # the advice is random: the best expert does much better
        assert r.mistakes <= wma_bound(N, r.best_expert_mistakes, eta) + 1e-9


@pytest.mark.parametrize(
    "cls", [thresholds(5), singletons(4), all_concepts(3), monotone_disjunctions(3)], ids=lambda c: c.name
)
def test_concept_experts_match_table(cls):
    X = np.random.default_rng(0).integers(cls.n_instances, size=25)
    P = concept_experts(cls, X)
    assert P.shape == (25, cls.size) and P.dtype == np.int8
    table = np.asarray(cls.table, dtype=bool)
    for t, x in enumerate(X):
        for c in range(cls.size):
            assert P[t, c] == (1 if table[c, x] else -1)
    for target in range(cls.size):
        np.testing.assert_array_equal(P[:, target], cls.labels(target, X))


def test_concept_experts_bad_input():
    with pytest.raises(TypeError, match="concept_class"):
        concept_experts(np.ones((3, 3)), [0, 1])
    with pytest.raises(ValueError, match="X"):
        concept_experts(thresholds(3), [0, 3])


@pytest.mark.parametrize("accuracies", [[1.2], [-0.1], [0.5, 1.0001], [], [[0.5, 0.5]], [float("nan")], 0.5])
def test_iid_experts_bad_accuracies(accuracies):
    with pytest.raises(ValueError, match="accuracies"):
        iid_experts(10, accuracies, np.random.default_rng(0))


@pytest.mark.parametrize("horizon", [0, -1, 2.5, True])
def test_stream_bad_horizon(horizon):
    rng = np.random.default_rng(0)
    with pytest.raises((ValueError, TypeError), match="horizon"):
        iid_experts(horizon, [0.5], rng)
    with pytest.raises((ValueError, TypeError), match="horizon"):
        planted_best_expert(horizon, 3, 0, rng)
    with pytest.raises((ValueError, TypeError), match="horizon"):
        wma_adversary(horizon, 3, 0.5, rng)


def test_planted_best_expert_bad_args():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="best_mistakes"):
        planted_best_expert(10, 3, 10, rng)
    with pytest.raises(ValueError, match="best_mistakes"):
        planted_best_expert(10, 3, 11, rng)
    with pytest.raises(ValueError, match="best_mistakes"):
        planted_best_expert(10, 3, -1, rng)
    with pytest.raises((ValueError, TypeError), match="n_experts"):
        planted_best_expert(10, 0, 1, rng)
    with pytest.raises(TypeError, match="rng"):
        planted_best_expert(10, 3, 1, 0)


def test_wma_adversary_bad_args():
    rng = np.random.default_rng(0)
    with pytest.raises((ValueError, TypeError), match="n_experts"):
        wma_adversary(10, 0, 0.5, rng)
    for eta in (0, 1.5, float("nan"), True):
        with pytest.raises((ValueError, TypeError), match="eta"):
            wma_adversary(10, 3, eta, rng)
    with pytest.raises(TypeError, match="rng"):
        wma_adversary(10, 3, 0.5, np.random.RandomState(0))
    with pytest.raises(TypeError, match="rng"):
        iid_experts(10, [0.5], 1)


# -- 8. bounds --------------------------------------------------------------------------------


def test_bound_hand_values():
    assert wma_bound(2, 0, 0.5) == pytest.approx(math.log(2) / math.log(4 / 3), rel=1e-15)
    assert wma_bound(10, 3, 0.5) == pytest.approx((math.log(10) + 3 * math.log(2)) / math.log(4 / 3), rel=1e-14)
    assert wma_bound_standard(2, 0, 0.5) == pytest.approx(4 * math.log(2), rel=1e-15)
    assert wma_bound_standard(10, 3, 0.25) == pytest.approx(2 * 1.25 * 3 + 8 * math.log(10), rel=1e-15)
    assert rwma_bound(2, 0, 0.5) == pytest.approx(2 * math.log(2), rel=1e-15)
    assert rwma_bound(10, 3, 0.5) == pytest.approx(2 * (math.log(10) + 3 * math.log(2)), rel=1e-14)
    assert rwma_bound_standard(10, 3, 0.5) == pytest.approx(1.5 * 3 + 2 * math.log(10), rel=1e-15)
    assert wma_bound(1, 0, 0.3) == 0.0 and rwma_bound(1, 0, 0.3) == 0.0
    # MATH.md 5.1 check: N = 10, eta = 0.5, m = 1198 -> exact 2894.5, standard 3603.2
    assert wma_bound(10, 1198, 0.5) == pytest.approx(2894.5, abs=0.05)
    assert wma_bound_standard(10, 1198, 0.5) == pytest.approx(3603.2, abs=0.05)


def test_tuned_eta_and_regret():
    assert tuned_eta(10, 100) == pytest.approx(math.sqrt(math.log(10) / 100), rel=1e-15)
    assert tuned_eta(10, 1) == 0.5  # capped
    assert tuned_eta(1, 100) == 0.5
    assert tuned_eta(2, 2) == 0.5  # sqrt(ln 2 / 2) = 0.589 is capped
    assert tuned_eta(2, 3) == pytest.approx(math.sqrt(math.log(2) / 3), rel=1e-15)
    assert rwma_tuned_regret_bound(10, 100) == pytest.approx(2 * math.sqrt(100 * math.log(10)), rel=1e-15)
    assert rwma_tuned_regret_bound(1, 100) == 0.0
    # with the tuned eta and m <= T, the regret form eta m + ln N / eta is <= 2 sqrt(T ln N)
    for N, T in [(10, 100), (1000, 50), (3, 10**6)]:
        eta = tuned_eta(N, T)
        if eta < 0.5:
            assert eta * T + math.log(N) / eta <= rwma_tuned_regret_bound(N, T) * (1 + 1e-12)
            assert rwma_bound_standard(N, T, eta) - T <= rwma_tuned_regret_bound(N, T) * (1 + 1e-12)


def test_eta_one_special_cases():
    for N in (1, 2, 8, 1024, 7):
        assert wma_bound(N, 0, 1) == pytest.approx(math.log2(N), abs=1e-15)
        assert wma_bound(N, 0, 1.0) == pytest.approx(math.log2(N), abs=1e-15)
        assert rwma_bound(N, 0, 1.0) == pytest.approx(math.log(N), abs=1e-15)
        assert wma_bound(N, 1, 1.0) == math.inf
        assert rwma_bound(N, 5, 1.0) == math.inf
    # continuous as eta -> 1 when m = 0
    assert wma_bound(8, 0, 1 - 1e-12) == pytest.approx(3, rel=1e-9)
    assert rwma_bound(8, 0, 1 - 1e-12) == pytest.approx(math.log(8), rel=1e-9)


def test_bounds_monotone():
    etas = np.linspace(0.01, 0.5, 20)
    for f in (wma_bound, wma_bound_standard, rwma_bound, rwma_bound_standard):
        vals_m = [f(10, m, 0.3) for m in range(20)]
        assert all(a < b for a, b in zip(vals_m, vals_m[1:], strict=False))
        vals_n = [f(n, 3, 0.3) for n in (1, 2, 5, 100)]
        assert all(a < b for a, b in zip(vals_n, vals_n[1:], strict=False))
    for eta in etas:
        assert wma_bound(10, 5, eta) <= wma_bound_standard(10, 5, eta) + 1e-9
        assert rwma_bound(10, 5, eta) <= rwma_bound_standard(10, 5, eta) + 1e-9


@pytest.mark.parametrize("f", [wma_bound, wma_bound_standard, rwma_bound, rwma_bound_standard])
def test_bounds_bad_input(f):
    for eta, exc in [
        (0, ValueError),
        (-0.2, ValueError),
        (float("nan"), ValueError),
        (float("inf"), ValueError),
        (1.01, ValueError),
        (True, TypeError),
        ("0.3", TypeError),
        (None, TypeError),
    ]:
        with pytest.raises(exc, match="eta"):
            f(10, 2, eta)
    for n, exc in [(0, ValueError), (-1, ValueError), (True, TypeError), (2.0, TypeError)]:
        with pytest.raises(exc, match="n_experts"):
            f(n, 2, 0.25)
    for m, exc in [(-1, ValueError), (False, TypeError), (1.5, TypeError)]:
        with pytest.raises(exc, match="best_mistakes"):
            f(10, m, 0.25)


@pytest.mark.parametrize("f", [wma_bound_standard, rwma_bound_standard])
def test_standard_bounds_need_eta_at_most_half(f):
    assert f(4, 1, 0.5) > 0
    for eta in (0.5000001, 0.75, 1.0):
        with pytest.raises(ValueError, match="eta"):
            f(4, 1, eta)
    with pytest.raises(
        ValueError, match=r"^eta must be a finite real number in \(0, 0\.5\] \(for this bound\), got 0\.75$"
    ):
        f(4, 1, 0.75)


@pytest.mark.parametrize("f", [wma_bound, rwma_bound])
def test_exact_bounds_take_eta_up_to_one(f):
    assert f(4, 0, 1.0) > 0
    with pytest.raises(
        ValueError, match=r"^eta must be a finite real number in \(0, 1\] \(for this bound\), got 1\.01$"
    ):
        f(4, 1, 1.01)


@pytest.mark.parametrize("f", [tuned_eta, rwma_tuned_regret_bound])
def test_tuned_bad_input(f):
    for n, exc in [(0, ValueError), (True, TypeError), (3.0, TypeError)]:
        with pytest.raises(exc, match="n_experts"):
            f(n, 10)
    for T, exc in [(0, ValueError), (-5, ValueError), (False, TypeError), (10.0, TypeError)]:
        with pytest.raises(exc, match="horizon"):
            f(10, T)
