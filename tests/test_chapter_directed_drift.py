"""Tests for onlinelib.chapters.directed_drift (chapter 7: Directed Drift, its chain and batch modes) and its explorer."""

import math
from fractions import Fraction

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from onlinelib import directed_drift as dd  # noqa: E402
from onlinelib.chapters.directed_drift import (  # noqa: E402
    MAX_ENUMERATION,
    MAX_EXPLORER_N,
    MODES,
    batch_scaling,
    enumerate_rates,
    explore_drift,
    fit_slope,
    plot_batch,
    plot_explore,
    plot_growth,
    plot_wrong_stop,
    signflip_law,
)
from onlinelib.explorers import drift_explorer  # noqa: E402

# -- enumerate_rates -------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(1, 9))
def test_enumerate_rates_match_the_chain(n):
    chain = dd.DirectedDriftChain(n)
    for d in range(1, n + 1):
        q, p = enumerate_rates(n, d)
        assert q == chain.mistake_probability(d) and q > 0
        assert p == chain.good_flip_probability(d)


def test_enumerate_rates_hand_values():
    # n = 3 by hand (chapter exercise): q = 1/2, 1/2, 1; p = 1/2, 5/6, 1
    assert [enumerate_rates(3, d) for d in (1, 2, 3)] == [
        (Fraction(1, 2), Fraction(1, 2)),
        (Fraction(1, 2), Fraction(5, 6)),
        (Fraction(1), Fraction(1)),
    ]
    # n = 5 (MATH.md 1.3): q = 3/8, 3/8, 5/8, 5/8, 1; p = 1/3, 7/12, 71/100, 22/25, 1
    got = [enumerate_rates(5, d) for d in range(1, 6)]
    assert [q for q, _ in got] == [Fraction(3, 8), Fraction(3, 8), Fraction(5, 8), Fraction(5, 8), Fraction(1)]
    assert [p for _, p in got] == [Fraction(1, 3), Fraction(7, 12), Fraction(71, 100), Fraction(22, 25), Fraction(1)]
    # even n: at d = n, ties are classified correctly by -w*, so q_n < 1 (5/11 at n = 4)
    assert enumerate_rates(4, 4)[0] == Fraction(5, 11)


def test_enumerate_rates_p1_formula():
    for n in range(2, 12):
        expected = Fraction(2, n + 2) if n % 2 == 0 else Fraction(2, n + 1)
        assert enumerate_rates(n, 1)[1] == expected


@pytest.mark.parametrize(
    "n, d, error",
    [
        (0, 1, ValueError),
        (MAX_ENUMERATION + 1, 1, ValueError),
        (4, 0, ValueError),
        (4, 5, ValueError),
        (4.0, 1, TypeError),
        (4, True, TypeError),
    ],
)
def test_enumerate_rates_bad_input(n, d, error):
    with pytest.raises(error):
        enumerate_rates(n, d)


# -- signflip_law -------------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(1, 11))
def test_signflip_law(n):
    V, law = signflip_law(n)
    assert len(V) == dd.halfcube_size(n) == len(law)
    assert sum(law) == 1 and np.all(V.sum(axis=1) >= 0)
    assert len({tuple(v) for v in V}) == len(V)
    ties = V.sum(axis=1) == 0
    if n % 2:
        assert not ties.any() and set(law) == {Fraction(1, 2 ** (n - 1))}
    else:
        assert ties.sum() == math.comb(n, n // 2)
        assert set(np.array(law)[ties]) == {Fraction(1, 2**n)}
        assert set(np.array(law)[~ties]) == {Fraction(2, 2**n)}


def test_signflip_law_bad_input():
    with pytest.raises(ValueError):
        signflip_law(MAX_ENUMERATION + 1)
    with pytest.raises(TypeError):
        signflip_law("4")


# -- DirectedDriftChain.wrong_stop_probability (the chapter's D3 table) -------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 5, 8, 9, 15, 21, 30])
@pytest.mark.parametrize("delta", [0.3, 0.05, 0.001])
def test_wrong_stop_probability_matches_the_dense_solve_for_small_n(n, delta):
    chain = dd.DirectedDriftChain(n)
    T = dd.confidence_threshold(n, delta)
    A = np.zeros((n + 1, n + 1))
    rhs = np.zeros(n + 1)
    A[0, 0] = 1.0
    for d in range(1, n + 1):
        s = chain.sojourn_stop_probability(d, T)
        p = float(chain.good_flip_probability(d))
        A[d, d] = 1.0
        A[d, d - 1] = -(1 - s) * p
        if d < n:
            A[d, d + 1] = -(1 - s) * (1 - p)
        rhs[d] = s
    h = np.linalg.solve(A, rhs)
    for d0 in range(n + 1):
        assert chain.wrong_stop_probability(delta, d0) == pytest.approx(h[d0], abs=1e-10)
    weights = np.array([math.comb(n, d) / 2**n for d in range(n + 1)])
    assert chain.wrong_stop_probability(delta) == pytest.approx(weights @ h, abs=1e-10)


def _exact_correct_stop_probability(n: int, delta: float) -> Fraction:
    """P(D3 stops at w*) from a uniform start, by the elimination of ``correct_stop_probability`` in
    Fractions on the exact chain: f_0 = 1, f_d = (1 - s_d)(p_d f_{d-1} + (1 - p_d) f_{d+1})."""
    chain = dd.DirectedDriftChain(n, exact=True)
    T = dd.confidence_threshold(n, delta)
    a, b = [Fraction(1)], [Fraction(0)]
    for d in range(1, n + 1):
        q, p = chain.mistake_probability(d), chain.good_flip_probability(d)
        s = (1 - q) ** T
        c, e = (1 - s) * p, ((1 - s) * (1 - p) if d < n else Fraction(0))
        pivot = 1 - c * b[d - 1]
        a.append(c * a[d - 1] / pivot)
        b.append(e / pivot)
    f = [Fraction(1)] + [Fraction(0)] * n
    f[n] = a[n]
    for d in range(n - 1, 0, -1):
        f[d] = a[d] + b[d] * f[d + 1]
    return sum(Fraction(math.comb(n, d), 2**n) * f[d] for d in range(n + 1))


@pytest.mark.parametrize("n, delta", [(9, 0.1), (21, 0.01), (41, 0.1), (61, 0.1)])
def test_correct_stop_probability_is_exact_where_one_minus_wrong_is_not(n, delta):
    """Issue 38 (chapter 7): the chapter's "exact P(correct) = 2.2e-16" at n = 101 was 1 - fl(P(wrong)),
    machine epsilon. The complementary system keeps its relative accuracy: against Fractions, 1e-10
    relative (the chain's rates are floats from logs for n > 40: about 1e-12 here); at n = 61 the old
    1 - P(wrong) is off by more than 1e-8 relative, so this test tells the two apart."""
    chain = dd.DirectedDriftChain(n)
    exact = _exact_correct_stop_probability(n, delta)
    got = chain.correct_stop_probability(delta)
    assert abs(Fraction(got) - exact) <= Fraction(1, 10**10) * exact, (got, float(exact))
    assert abs(got + chain.wrong_stop_probability(delta) - 1) <= 1e-12
    if n == 61:
        old = 1 - chain.wrong_stop_probability(delta)
        assert abs(Fraction(old) - exact) > Fraction(1, 10**8) * exact, (old, float(exact))


def test_correct_stop_probability_below_machine_epsilon_at_n_101():
    """At n = 101, delta = 0.1 the probability is about 5e-18 (exact Fraction elimination: 4.546e-18,
    55 s, so not run here): far below 2^-53, where 1 - P(wrong) can only say 0 or 2.2e-16."""
    chain = dd.DirectedDriftChain(101)
    got = chain.correct_stop_probability(0.1)
    assert 1e-19 < got < 1e-16, got
    one_minus_wrong = 1 - chain.wrong_stop_probability(0.1)  # exact (Sterbenz): whole steps of 2^-53
    assert (one_minus_wrong / 2.0**-53).is_integer() and one_minus_wrong <= 2.0**-49, one_minus_wrong
    with pytest.raises(ValueError):
        chain.correct_stop_probability(0.0)


def test_wrong_stop_probability_is_a_probability_for_large_n():
    # A dense solve is exponentially ill-conditioned here; the elimination must stay in [0, 1]
    # and increase with n towards 1 (chapter 7, D3).
    values = []
    for n in (51, 75, 101, 151):
        chain = dd.DirectedDriftChain(n)
        h = [chain.wrong_stop_probability(0.001, d0) for d0 in range(n + 1)]
        assert h[0] == 0 and all(0 <= v <= 1 for v in h)
        values.append(chain.wrong_stop_probability(0.001))
    assert all(0 <= v <= 1 for v in values) and np.all(np.diff(values) > 0)
    assert values[-1] > 0.99


def test_wrong_stop_probability_against_simulation():
    chain = dd.DirectedDriftChain(7)
    exact = chain.wrong_stop_probability(0.1)
    run = dd.DirectedDrift(7, 0.1).simulate(np.ones(7, dtype=int), 3000, np.random.default_rng(0))
    observed = (run.final_distance > 0).mean()
    se = math.sqrt(exact * (1 - exact) / 3000)
    assert abs(observed - exact) <= 4 * se  # fails by chance with probability < 1e-4


def test_wrong_stop_probability_bad_input():
    chain = dd.DirectedDriftChain(5)
    for delta in (0.0, 1.0, float("nan")):
        with pytest.raises(ValueError):
            chain.wrong_stop_probability(delta)
    with pytest.raises(TypeError):
        chain.wrong_stop_probability("0.1")
    with pytest.raises(ValueError):
        chain.wrong_stop_probability(0.1, d0=6)


# -- batch_scaling and fit_slope -------------------------------------------------------------------


def test_batch_scaling_single_bit_identity_and_shapes():
    res = batch_scaling([11, 15], [12, 8], np.random.default_rng(1), mode="D4' single-bit")
    assert list(res["n"]) == [11, 15] and list(res["trials"]) == [12, 8]
    assert list(res["m"]) == [dd.single_bit_batch_size(11), dd.single_bit_batch_size(15)]
    assert np.all(res["finished"] == 1)
    # every run ends at w*, one flip per mistake: mistakes = d0 + 2 * bad flips (also for the means)
    assert np.allclose(res["mistakes"], res["d0"] + 2 * res["bad_flips"])
    for run in res["runs"]:
        assert np.all(run.final_distance == 0)
    assert np.all(res["mistakes_sem"] >= 0) and np.all(res["examples"] >= res["mistakes"])


def test_batch_scaling_custom_m_and_majority():
    res = batch_scaling(
        [25], 6, np.random.default_rng(2), mode="D4'' majority", m=lambda n: math.ceil(math.pi * n * math.log2(n))
    )
    assert res["m"][0] == math.ceil(math.pi * 25 * math.log2(25))
    assert res["mistakes"][0] <= 2


def test_batch_scaling_plain_drift_ignores_m():
    res = batch_scaling([5], 20, np.random.default_rng(3), mode="D (one bit)", m=lambda n: 99)
    assert res["m"][0] == 1 and res["finished"][0] == 1


def test_batch_scaling_cap_leaves_runs_unfinished():
    res = batch_scaling([25], 4, np.random.default_rng(4), mode="D4'' double", max_examples=300)
    assert res["finished"][0] < 1


def test_batch_scaling_same_seed_same_result():
    a = batch_scaling([9], 10, np.random.default_rng(5), mode="D4'' literal")
    b = batch_scaling([9], 10, np.random.default_rng(5), mode="D4'' literal")
    assert np.array_equal(a["runs"][0].mistakes, b["runs"][0].mistakes)


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"ns": []}, ValueError),
        ({"ns": [1]}, ValueError),
        ({"ns": [5.0]}, TypeError),
        ({"trials": 1}, ValueError),
        ({"trials": [5, 5]}, ValueError),
        ({"mode": "triple"}, ValueError),
        ({"max_examples": 0}, ValueError),
        ({"m": lambda n: 0, "mode": "D4' single-bit"}, ValueError),
        ({"rng": 3}, TypeError),
    ],
)
def test_batch_scaling_bad_input(kwargs, error):
    args = {"ns": [5], "trials": 3, "rng": np.random.default_rng(0), "mode": "D4' single-bit"}
    args.update(kwargs)
    with pytest.raises(error):
        batch_scaling(args.pop("ns"), args.pop("trials"), args.pop("rng"), **args)


def test_fit_slope():
    n = np.array([10, 20, 40, 80])
    slope, intercept = fit_slope(n, 3 * n**1.5)
    assert slope == pytest.approx(1.5) and intercept == pytest.approx(math.log(3))
    assert fit_slope(n, np.ones(4))[0] == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError):
        fit_slope([1], [1])
    with pytest.raises(ValueError):
        fit_slope([1, 2], [1, 0])
    with pytest.raises(ValueError):
        fit_slope([1, 2, 3], [1, 2])


# -- explorer and figures --------------------------------------------------------------------------


def test_explore_drift_plain_drift_with_chain():
    res = explore_drift(9, 0.1, "D (one bit)", None, 600, np.random.default_rng(6))
    assert res["m"] == 1 and res["threshold"] == dd.confidence_threshold(9, 0.1)
    assert res["chain_wrong"] == pytest.approx(dd.DirectedDriftChain(9).wrong_stop_probability(0.1))
    se = math.sqrt(res["chain_wrong"] * (1 - res["chain_wrong"]) / 600)
    assert abs(res["wrong"] - res["chain_wrong"]) <= 4 * se
    axes = plot_explore(res)
    assert len(axes) == 2 and axes[0].get_xscale() == "log"


@pytest.mark.parametrize("mode", [k for k in MODES if k != "D (one bit)"])
def test_explore_drift_batch_modes(mode):
    res = explore_drift(11, 0.05, mode, 60, 20, np.random.default_rng(7), max_examples=20_000)
    assert res["m"] == 60 and res["chain_wrong"] is None
    assert res["run"].trials == 20
    plot_explore(res)


@pytest.mark.parametrize(
    "args, error",
    [
        ((1, 0.1, "D (one bit)", None, 10), ValueError),
        ((MAX_EXPLORER_N + 1, 0.1, "D (one bit)", None, 10), ValueError),
        ((9, 1.0, "D (one bit)", None, 10), ValueError),
        ((9, 0.0, "D (one bit)", None, 10), ValueError),
        ((9, 0.1, "other", None, 10), ValueError),
        ((9, 0.1, "D4'' literal", 0, 10), ValueError),
        ((9, 0.1, "D4'' literal", 2.5, 10), TypeError),
        ((9, 0.1, "D (one bit)", None, 1), ValueError),
        ((9.5, 0.1, "D (one bit)", None, 10), TypeError),
    ],
)
def test_explore_drift_bad_input(args, error):
    with pytest.raises(error):
        explore_drift(*args, np.random.default_rng(0))


def test_plot_growth_and_wrong_stop():
    ns = np.arange(3, 20)
    log_em = np.array([dd.DirectedDriftChain(int(n)).log_expected_mistakes() for n in ns])
    ax = plot_growth(ns, log_em)
    assert len(ax.lines) == 4 and ax.get_xscale() == "log"
    with pytest.raises(ValueError):
        plot_growth(ns, log_em[:-1])
    table = {0.1: np.linspace(0.2, 0.9, 4), 0.01: np.linspace(0.01, 0.5, 4)}
    ax = plot_wrong_stop([5, 9, 15, 21], table)
    assert len(ax.lines) == 4 and ax.get_yscale() == "log"
    with pytest.raises(ValueError):
        plot_wrong_stop([5, 9], table)
    with pytest.raises(ValueError):
        plot_wrong_stop([5, 9], {})


def test_plot_batch_slopes_in_legend():
    res = {
        "mode": "toy",
        "n": np.array([10, 20, 40]),
        "mistakes": np.array([5.0, 10.0, 20.0]),
        "mistakes_sem": np.zeros(3),
        "examples": np.array([100.0, 400.0, 1600.0]),
        "examples_sem": np.zeros(3),
    }
    axes = plot_batch([res])
    labels = [t.get_text() for t in axes[0].get_legend().get_texts()]
    assert labels == ["toy: slope 1.00"]
    assert [t.get_text() for t in axes[1].get_legend().get_texts()] == ["toy: slope 2.00"]
    with pytest.raises(ValueError):
        plot_batch([])
    _, one = plt.subplots()
    with pytest.raises(ValueError):
        plot_batch([res], axes=[one])


def test_explorer_builds_without_drawing():
    pytest.importorskip("ipywidgets")
    panel = drift_explorer()
    assert len(panel.children) >= 8  # six controls, the Draw button and the output
    with pytest.raises(ValueError):
        drift_explorer(seed=-1)
