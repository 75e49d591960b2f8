"""Tests for onlinelib.chapters.experts (chapter 5: prediction with expert advice) and its explorer."""

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from onlinelib import rwma_tuned_regret_bound, weighted_majority_run  # noqa: E402
from onlinelib.chapters.experts import (  # noqa: E402
    STREAM_KINDS,
    adversary_regret,
    best_expert_curve,
    compare_experts,
    expert_stream,
    plot_experts_comparison,
)
from onlinelib.explorers import experts_explorer  # noqa: E402

# Float comparisons use an absolute slack of 1e-9 on log-potentials of size < 100:
# they are sums of at most a few thousand rounded terms (~1e-16 relative each).
TOL = 1e-9


def test_best_expert_curve_hand_example():
    P = np.array([[1, -1], [1, -1], [-1, 1]])
    y = np.array([-1, -1, -1])
    # expert 0 wrong, wrong, right; expert 1 right, right, wrong
    assert best_expert_curve(P, y).tolist() == [0, 0, 0, 1]


def test_best_expert_curve_matches_cumsum():
    rng = np.random.default_rng(0)
    P, y = expert_stream("iid", 7, 500, 0.2, rng)
    want = np.concatenate([[0], np.cumsum(P != y[:, None], axis=0).min(axis=1)])
    assert np.array_equal(best_expert_curve(P, y), want)


@pytest.mark.parametrize("kind", STREAM_KINDS)
def test_expert_stream_shapes_and_properties(kind):
    P, y = expert_stream(kind, 5, 300, 0.3, np.random.default_rng(1))
    assert P.shape == (300, 5) and y.shape == (300,)
    assert set(np.unique(P)) <= {-1, 1} and set(np.unique(y)) <= {-1, 1}
    if kind == "planted":
        counts = (P != y[:, None]).sum(axis=0)
        assert counts[0] == 30 and counts[1:].min() > 30
    if kind == "adaptive":
        assert weighted_majority_run(P, y, 0.3).mistakes == 300


def test_expert_stream_same_seed_same_stream():
    a = expert_stream("adaptive", 4, 100, 0.2, np.random.default_rng(3))
    b = expert_stream("adaptive", 4, 100, 0.2, np.random.default_rng(3))
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


@pytest.mark.parametrize(
    "args, error",
    [
        (("nope", 5, 100, 0.2), ValueError),
        (("iid", 0, 100, 0.2), ValueError),
        (("iid", 5, 0, 0.2), ValueError),
        (("iid", 5, 10**6, 0.2), ValueError),
        (("iid", 5.0, 100, 0.2), TypeError),
        (("iid", 5, 100, 0.0), ValueError),
        (("iid", 5, 100, 1.0), ValueError),
        (("iid", 5, 100, 1.5), ValueError),
        (("iid", 5, 100, "0.2"), TypeError),
        (("planted", 5, 1, 0.2), ValueError),
    ],
)
def test_expert_stream_bad_input(args, error):
    with pytest.raises(error):
        expert_stream(*args, np.random.default_rng(0))


@pytest.mark.parametrize("kind", ["iid", "planted", "adaptive"])
def test_expert_stream_eta_in_the_open_interval(kind):
    why = r"\(with eta = 1, Halving, every expert of these streams eventually has weight 0\)"
    for eta in (1, 1.0, 0, 1.5):
        with pytest.raises(
            ValueError, match=rf"^eta must be a finite real number in \(0, 1\) {why}, got {float(eta)!r}$"
        ):
            expert_stream(kind, 4, 10, eta, np.random.default_rng(0))


def test_expert_stream_bad_rng():
    with pytest.raises((TypeError, ValueError)):
        expert_stream("iid", 5, 100, 0.2, 42)


def test_best_expert_curve_bad_input():
    with pytest.raises(ValueError):
        best_expert_curve(np.array([[1, 0]]), np.array([1]))
    with pytest.raises(ValueError):
        best_expert_curve(np.ones((3, 2)), np.ones(2))


@pytest.mark.parametrize("kind", STREAM_KINDS)
@pytest.mark.parametrize("eta", [0.1, 0.5, 0.8])
def test_compare_experts_bounds_and_curves(kind, eta):
    res = compare_experts(kind, 8, eta, 600, np.random.default_rng(5))
    assert res["wma_curve"][-1] == res["M"] and res["best_curve"][-1] == res["m"]
    assert abs(res["rwma_curve"][-1] - res["expected"]) <= TOL * res["horizon"]
    b = res["bounds"]
    assert res["M"] <= b["WMA exact"]
    assert res["expected"] <= b["RWMA exact"]
    if eta <= 0.5:
        assert b["WMA exact"] <= b["WMA standard"]
        assert b["RWMA exact"] <= b["RWMA standard"]
    else:
        assert b["WMA standard"] is None and b["RWMA standard"] is None
    assert np.all(res["log_potential"] <= res["potential_upper"] + TOL)
    assert np.all(res["log_potential"] >= res["potential_lower"] - TOL)
    assert res["log_potential"][0] == pytest.approx(math.log(8), abs=TOL)


def test_adversary_regret():
    horizons = np.array([100, 400, 1600])
    out = adversary_regret(5, horizons, np.random.default_rng(2))
    assert np.array_equal(out["M"], horizons)
    assert np.all(out["rwma_regret"] <= out["tuned_bound"])
    assert out["tuned_bound"][-1] == pytest.approx(rwma_tuned_regret_bound(5, 1600))
    assert np.all(out["wma_regret"] >= horizons / 4)


@pytest.mark.parametrize(
    "n, horizons, error",
    [
        (1, [100], ValueError),
        (5, [], ValueError),
        (5, [1.5], ValueError),
        (5, [[100]], ValueError),
        (5, [0], ValueError),
    ],
)
def test_adversary_regret_bad_input(n, horizons, error):
    with pytest.raises(error):
        adversary_regret(n, horizons, np.random.default_rng(0))


def test_plot_and_bad_axes():
    res = compare_experts("planted", 4, 0.3, 200, np.random.default_rng(0))
    axes = plot_experts_comparison(res)
    assert len(axes) == 2 and len(axes[0].lines) >= 3
    _, one = plt.subplots()
    with pytest.raises(ValueError):
        plot_experts_comparison(res, axes=[one])


def test_explorer_builds_without_drawing():
    pytest.importorskip("ipywidgets")
    panel = experts_explorer()
    assert len(panel.children) >= 6  # five controls, the Draw button and the output


# --- issue 24: exact replay, Hedge, the lower bound, the adaptive adversary -------------------------
from fractions import Fraction  # noqa: E402

from onlinelib import wma_adversary  # noqa: E402
from onlinelib.chapters.experts import (  # noqa: E402
    exact_wma_replay,
    hedge_run,
    random_stream_regret,
    rwma_against_punisher,
)


def test_exact_wma_replay_matches_library_and_counts_ties():
    rng = np.random.default_rng(5)
    for eta in (0.5, 0.2):
        P, y = wma_adversary(400, 4, eta, rng)
        rep = exact_wma_replay(P, y, eta)
        assert np.array_equal(rep["predictions"], weighted_majority_run(P, y, eta).predictions)
        assert rep["mistakes"] == 400 and rep["ties"] > 0 and rep["exact_rounds"] >= rep["ties"]
    # a hand tie: equal weights, opposite advice -> +1, counted as a tie
    rep = exact_wma_replay([[1, -1]], [-1], 0.3)
    assert rep["predictions"].tolist() == [1] and rep["ties"] == 1 and rep["mistakes"] == 1


@pytest.mark.parametrize(
    "kwargs, error",
    [(dict(eta=1.0), ValueError), (dict(eta=0.3, band=0.1), ValueError), (dict(eta="x"), TypeError)],
)
def test_exact_wma_replay_bad_input(kwargs, error):
    with pytest.raises(error):
        exact_wma_replay([[1, -1]], [1], **kwargs)


def test_hedge_hand_example_and_rwma():
    # two experts, losses (1, 0) then (0, 1), eta = ln 2: p_1 = (1/2, 1/2), p_2 = (1/3, 2/3)
    h = hedge_run([[1.0, 0.0], [0.0, 1.0]], math.log(2))
    assert h["mixed"] == pytest.approx([0.5, 2 / 3], abs=1e-15)
    assert h["best_loss"] == 1 and h["regret"] == pytest.approx(1 / 6, abs=1e-15)
    assert h["log_mgf"][0] == pytest.approx(math.log(0.75), abs=1e-15)
    rng = np.random.default_rng(6)
    P = np.where(rng.random((300, 5)) < 0.5, 1, -1)
    y = np.where(rng.random(300) < 0.5, 1, -1)
    r = weighted_majority_run(P, y, 0.3)
    assert hedge_run((P != y[:, None]).astype(float), -math.log(0.7))["learner_loss"] == pytest.approx(
        r.expected_mistakes, abs=1e-9
    )
    # a schedule equal to a constant gives the constant's run
    L = rng.random((50, 3))
    assert hedge_run(L, np.full(50, 0.4))["regret"] == hedge_run(L, 0.4)["regret"]


def test_hedge_bounds_hold_on_random_losses():
    rng = np.random.default_rng(8)
    for T, N in ((200, 3), (1000, 12)):
        L = rng.random((T, N))
        eta = math.sqrt(8 * math.log(N) / T)
        assert hedge_run(L, eta)["regret"] <= math.sqrt(T / 2 * math.log(N)) + 1e-9
        rates = 2 * np.sqrt(math.log(N) / np.arange(1, T + 1))
        assert hedge_run(L, rates)["regret"] <= math.sqrt(T * math.log(N)) + 1e-9


@pytest.mark.parametrize(
    "losses, eta",
    [
        ([[1.5, 0.0]], 0.1),
        ([[0.5, -0.1]], 0.1),
        ([[0.5, 0.5]], 0.0),
        ([[0.5], [0.5]], [0.1, 0.2]),
        ([[0.5], [0.5]], [0.1]),
        ([1.0, 0.0], 0.1),
        ([[np.nan, 0.0]], 0.1),
    ],
)
def test_hedge_bad_input(losses, eta):
    with pytest.raises(ValueError):
        hedge_run(losses, eta)


def test_random_stream_regret_exact_small_cases():
    # T = 1, N = 2: max(1/2 - m_i) is 1/2 unless both err (probability 1/4): 3/8 - 1/8 = 1/4
    assert random_stream_regret(1, 2) == pytest.approx(0.25, abs=1e-15)
    assert random_stream_regret(5, 1) == pytest.approx(0.0, abs=1e-12)
    # T = 2, N = 2 by enumeration in Fractions
    pmf = [Fraction(1, 4), Fraction(1, 2), Fraction(1, 4)]
    e_min = sum(pmf[a] * pmf[b] * min(a, b) for a in range(3) for b in range(3))
    assert random_stream_regret(2, 2) == pytest.approx(float(1 - e_min), abs=1e-15)
    for T, N in ((100, 10), (1000, 1000)):
        assert 0 < random_stream_regret(T, N) <= math.sqrt(T / 2 * math.log(N))
    with pytest.raises(ValueError):
        random_stream_regret(0, 2)
    with pytest.raises(TypeError):
        random_stream_regret(10, 2.5)


def test_rwma_against_punisher_pathwise_bound_and_seed():
    eta = 0.1
    a = rwma_against_punisher(300, 5, eta, 50, np.random.default_rng(9))
    b = rwma_against_punisher(300, 5, eta, 50, np.random.default_rng(9))
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert np.all(a["sum_F"] - a["m"] <= eta * a["m"] + math.log(5) / eta + 1e-9)
    assert np.all((a["M"] >= 0) & (a["M"] <= 300)) and np.all(a["m"] <= 300)
    with pytest.raises(ValueError):
        rwma_against_punisher(300, 5, 1.0, 10, np.random.default_rng(0))
    with pytest.raises(TypeError):
        rwma_against_punisher(300, 5, 0.1, 10, 0)


# --- issue 38: the replay's weights (Lemma "the float vote", part (b)) ----------------------------
from onlinelib.chapters.experts import float_chain_powers  # noqa: E402


@pytest.mark.parametrize("eta", [0.05, 0.1, 0.2, 0.5])
def test_float_chain_powers_within_gamma_2k(eta):
    chain = float_chain_powers(eta, 400)
    beta, w, u = 1 - Fraction(eta), Fraction(1), Fraction(1, 2**53)
    for k, value in enumerate(chain.tolist()):
        if value == 0.0:
            assert w < Fraction(2) ** -999 and not chain[k:].any()
            break
        assert abs(Fraction(value) - w) <= 2 * k * u / (1 - 2 * k * u) * w, (eta, k)
        w *= beta
    long = float_chain_powers(0.5, 1100)
    assert long[1000] == 2.0**-1000 and long[1001] == 0.0  # flushed below 2^-1000, never subnormal


@pytest.mark.parametrize("kwargs, error", [(dict(eta=0.6, n=3), ValueError), (dict(eta=0.1, n=0), ValueError)])
def test_float_chain_powers_bad_input(kwargs, error):
    with pytest.raises(error):
        float_chain_powers(**kwargs)


def test_exact_wma_replay_margin_and_the_subnormal_case():
    log_factor = math.log1p(-0.1)
    k = next(k for k in range(6000, 8000) if math.exp(k * log_factor) == math.exp((k + 1) * log_factor) > 0)
    counts = np.array([0, 0, k, k + 1])
    P = np.array([*[np.where(counts > j, -1, 1) for j in range(k + 1)], [1, -1, -1, 1]], dtype=np.int8)
    y = np.ones(len(P), dtype=np.int8)
    rep = exact_wma_replay(P, y, 0.1)
    assert rep["predictions"][-1] == -1 == weighted_majority_run(P, y, 0.1).predictions[-1]
    assert 0 < rep["margin"] < 1e-9


@pytest.mark.parametrize("T, N", [(200, 3), (1000, 10), (999, 2)])
def test_random_stream_regret_against_exact_fractions(T, N):
    """R*(T, N) = T/2 - sum_k P(m > k)^N, exactly; the float version's relative error is below 1e-12."""
    total = 2**T
    tail, exact_min = total, Fraction(0)  # tail = 2^T P(m > k), starting at k = -1
    for k in range(T):
        tail -= math.comb(T, k)
        exact_min += Fraction(tail, total) ** N
    exact = Fraction(T, 2) - exact_min
    assert abs(Fraction(random_stream_regret(T, N)) - exact) <= Fraction(1, 10**12) * exact


# --- issue 38: R*(T, N) in decimal arithmetic (prop-ex5-lower-nonasymptotic) -------------------------
from decimal import Decimal  # noqa: E402

from onlinelib.chapters.experts import random_stream_regret_decimal  # noqa: E402


@pytest.mark.parametrize("T, N", [(1, 2), (7, 5), (200, 3), (60, 1000)])
def test_random_stream_regret_decimal_against_exact_fractions(T, N):
    total = 2**T
    tail, exact_min = total, Fraction(0)
    for k in range(T):
        tail -= math.comb(T, k)
        exact_min += Fraction(tail, total) ** N
    exact = Fraction(T, 2) - exact_min
    assert abs(Fraction(random_stream_regret_decimal(T, N)) - exact) <= Fraction(1, 10**40)
    assert abs(Fraction(random_stream_regret(T, N)) - exact) <= Fraction(1, 10**12) * exact


def test_random_stream_regret_decimal_large_n_and_bound():
    # N = 10^9: the float version keeps ~1e-13 relative accuracy (log1p below the median)
    for T in (311, 2000):
        exact = random_stream_regret_decimal(T, 10**9)
        assert abs(Decimal(random_stream_regret(T, 10**9)) - exact) <= Decimal("1e-12") * exact
        assert exact >= Decimal(T * math.log(1e9)).sqrt() / 16  # prop-ex5-lower-nonasymptotic, T >= 15 ln N
    assert abs(random_stream_regret_decimal(1, 10**30) - Decimal("0.5")) < Decimal("1e-50")  # 1/2 - 2^-N
    assert random_stream_regret_decimal(5, 1) == 0  # one expert: max X_1 has mean 0


@pytest.mark.parametrize(
    "args, err",
    [
        ((0, 2), ValueError),
        ((5, 10**201 + 1), ValueError),
        ((5, 0), ValueError),
        ((5, 2, 10), ValueError),
        ((5, 2.5), TypeError),
    ],
)
def test_random_stream_regret_decimal_rejects_bad_input(args, err):
    with pytest.raises(err):
        random_stream_regret_decimal(*args)
