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


# -- the batch theorems' bounds and the literal D4'' recursion (issue 38) ----------------------------


def test_fit_slope_se_two_points_and_power_law():
    from onlinelib.chapters.directed_drift import fit_slope_se

    slope, se = fit_slope_se([10, 40], [2.0, 8.0], [0.1, 0.2])
    assert slope == pytest.approx(1.0)
    assert se == pytest.approx(math.hypot(0.1 / 2, 0.2 / 8) / math.log(4))
    n = np.array([25, 51, 101, 201, 401])
    slope, se = fit_slope_se(n, 3 * n**0.6, np.zeros(5))
    assert slope == pytest.approx(0.6) and se == 0.0
    assert slope == pytest.approx(fit_slope(n, 3 * n**0.6)[0])


def test_fit_slope_se_matches_the_spread_of_refitted_slopes():
    from onlinelib.chapters.directed_drift import fit_slope_se

    rng = np.random.default_rng(0)
    n = np.array([25, 51, 101, 201, 401])
    means, sems = 2 * n**0.6, 0.02 * 2 * n**0.6
    slope, se = fit_slope_se(n, means, sems)
    refits = [fit_slope(n, means + sems * rng.standard_normal(5))[0] for _ in range(4000)]
    # the delta method is first order: with 2% errors its SE agrees with the spread to a few percent
    assert np.std(refits) == pytest.approx(se, rel=0.08)


@pytest.mark.parametrize(
    "args",
    [
        ([1], [1], [0]),
        ([1, 2], [1, 2], [0]),
        ([1, 2], [1, 0], [0, 0]),
        ([0, 2], [1, 2], [0, 0]),
        ([1, 2], [1, 2], [-1, 0]),
        ([2, 2], [1, 2], [0, 0]),
        ([1, 2], [1, 2], [0, np.nan]),
    ],
)
def test_fit_slope_se_bad_input(args):
    from onlinelib.chapters.directed_drift import fit_slope_se

    with pytest.raises(ValueError):
        fit_slope_se(*args)


def _ideal_by_enumeration(n):
    """E[M | d] of the no-bad-flip literal D4'' chain from the listed half-cube, in Fractions."""
    cube = 1 - 2 * np.array(list(np.ndindex(*(2,) * n)), dtype=int)
    B = cube[cube.sum(axis=1) >= 0]
    expected = [Fraction(0)]
    for d in range(1, n + 1):
        w = np.ones(n, dtype=int)
        w[:d] = -1
        Y = B @ w
        r = (1 - Y[Y < 0]) // 2
        assert (r >= 1).all() and (r <= d).all()
        law = {int(k): Fraction(int(c), len(r)) for k, c in zip(*np.unique(r, return_counts=True), strict=True)}
        expected.append(1 + sum(p * expected[d - k] for k, p in law.items()))
    return expected


@pytest.mark.parametrize("n", [1, 2, 3, 6, 7, 9])
def test_literal_ideal_mistakes_matches_enumeration(n):
    from onlinelib.chapters.directed_drift import literal_ideal_mistakes

    exact = _ideal_by_enumeration(n)
    by_d = literal_ideal_mistakes(n, by_distance=True)
    assert by_d.shape == (n + 1,) and by_d[0] == 0
    assert np.allclose(by_d, [float(v) for v in exact], rtol=1e-12)
    start = sum(Fraction(math.comb(n, d), 2**n) * exact[d] for d in range(n + 1))
    assert literal_ideal_mistakes(n) == pytest.approx(float(start), rel=1e-12)


def test_literal_ideal_mistakes_against_the_literal_rule():
    from onlinelib.chapters.directed_drift import literal_ideal_mistakes

    res = batch_scaling([25], [300], np.random.default_rng(21), mode="D4'' literal")
    mean, se = res["mistakes"][0], res["mistakes_sem"][0]
    V = literal_ideal_mistakes(25, by_distance=True)
    bias = np.abs(V[2:] - V[:-2]).max() * res["bad_flips"][0]  # the chapter's performance-difference bound
    # tol: se: 4 SE of the mean of 300 runs + bias: max_d |V(d+2) - V(d)| per bad flip, derived in the chapter
    assert abs(mean - V @ [math.comb(25, d) / 2**25 for d in range(26)]) <= 4 * se + bias


@pytest.mark.parametrize("bad", [0, 1002, 2.5, "7"])
def test_literal_ideal_mistakes_bad_input(bad):
    from onlinelib.chapters.directed_drift import literal_ideal_mistakes

    with pytest.raises((ValueError, TypeError)):
        literal_ideal_mistakes(bad)


def test_single_bit_bad_bound_is_the_stated_minimum():
    from scipy.stats import binom

    from onlinelib.chapters.directed_drift import single_bit_bad_bound

    n, m = 25, dd.single_bit_batch_size(25)
    beta, tau = single_bit_bad_bound(n)
    q1 = math.comb(24, 12) / 2**24
    value = lambda t: binom.cdf(t, m - 1, (1 + q1) / 2) + (n - 1) * binom.sf(t - 1, m - 1, (1 - q1) / 2)  # noqa: E731
    assert beta == pytest.approx(value(tau))
    assert all(value(t) >= beta - 1e-15 for t in range(m + 1))
    assert single_bit_bad_bound(n, 4 * m)[0] < beta < 1 / 2
    assert single_bit_bad_bound(25, 2)[0] == 1.0  # capped: two votes cannot separate 24 coordinates
    for n in (7, 25, 101, 401):
        q1 = math.comb(n - 1, (n - 1) // 2) / 2 ** (n - 1)
        assert single_bit_bad_bound(n)[0] <= 2 * n ** (-1 / 8) * math.exp(q1 + 1 / n)


def test_single_bit_bad_flip_rate_below_the_bound():
    from onlinelib.chapters.directed_drift import single_bit_bad_bound

    n, m = 25, 30  # a small batch: bad flips are frequent, and the bound must still hold
    run = dd.DirectedDrift(n, batch="single", m=m).simulate(np.ones(n, dtype=int), 200, np.random.default_rng(3))
    rate = run.bad_flips.sum() / run.mistakes.sum()
    beta = single_bit_bad_bound(n, m)[0]
    se = math.sqrt(beta * (1 - beta) / run.mistakes.sum())
    assert rate <= beta + 4 * se, (rate, beta, se)  # tol: se: 4 SE of a share at the bound


def test_majority_fail_bound_formula_and_limit():
    from scipy.stats import binom

    from onlinelib.chapters.directed_drift import majority_fail_bound

    n = 25
    m = dd.multi_bit_batch_size(n)
    q1 = math.comb(24, 12) / 2**24
    assert majority_fail_bound(n) == pytest.approx(n * binom.sf(-(-m // 2) - 2, m - 1, (1 - q1) / 2))
    assert majority_fail_bound(n, 2 * m) < majority_fail_bound(n) < 1
    for n in (401, 1001):  # the theorem's rate: gamma <= (1 + o(1)) / sqrt(4 pi ln n)
        assert majority_fail_bound(n) * math.sqrt(4 * math.pi * math.log(n)) < 1.1


def test_majority_runs_within_the_bound():
    from onlinelib.chapters.directed_drift import majority_fail_bound

    res = batch_scaling([25], [800], np.random.default_rng(4), mode="D4'' majority")
    gamma = majority_fail_bound(25)
    share = (res["runs"][0].mistakes >= 2).mean()
    se = math.sqrt(gamma * (1 - gamma) / 800)
    assert share <= gamma + 4 * se, (share, gamma, se)  # tol: se: 4 SE of a share at the bound


@pytest.mark.parametrize("args", [(4,), (1,), (25, 1), (25.5,), ("25",)])
def test_batch_bounds_bad_input(args):
    from onlinelib.chapters.directed_drift import majority_fail_bound, single_bit_bad_bound

    for f in (single_bit_bad_bound, majority_fail_bound):
        with pytest.raises((ValueError, TypeError)):
            f(*args)


def test_bound_helpers_live_in_their_module_and_are_re_exported():
    from onlinelib.chapters import directed_drift, directed_drift_bounds

    for name in directed_drift_bounds.__all__:
        assert getattr(directed_drift, name) is getattr(directed_drift_bounds, name)
        assert name in directed_drift.__all__


def test_clipped_hebb_wrong_coordinates_below_the_majority_bound():
    # n (1 - a_n(m)) <= gamma: Bin(m, p_-) > m/2 needs Bin(m - 1, p_-) >= ceil(m/2) - 1 (chapter 7)
    from onlinelib.binary_weights import clipped_hebb_agreement
    from onlinelib.chapters.directed_drift_bounds import majority_fail_bound

    for n in (25, 101, 401):
        m = dd.multi_bit_batch_size(n)
        m += 1 - m % 2  # the clipped Hebb rule needs an odd number of examples
        wrong = n * (1 - clipped_hebb_agreement(n, m, exact=False))
        assert 0 < wrong <= majority_fail_bound(n, m), (n, m, wrong)
