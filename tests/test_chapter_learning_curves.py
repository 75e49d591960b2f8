"""Tests for onlinelib.chapters.learning_curves (chapter 8: the learning-curve explorer's experiment and figure)."""

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from onlinelib import learning_curves as lc  # noqa: E402
from onlinelib.chapters.learning_curves import (  # noqa: E402
    EXPLORER_N,
    GRID_POINTS,
    MAX_ALPHA,
    MAX_N,
    MAX_RUNS,
    explore_learning_curve,
    plot_explore,
    plot_static,
)
from onlinelib.explorers import learning_curve_explorer  # noqa: E402


@pytest.fixture(scope="module")
def default():
    return explore_learning_curve()


def legend_labels(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


# -- explore_learning_curve: shapes and reproducibility -----------------------------------------


def test_defaults_and_shapes(default):
    res = default
    assert (res["eta0"], res["z"], res["N"], res["p"], res["runs"], res["alpha_max"], res["seed"]) == (
        2.0,
        1.0,
        50,
        0.0,
        64,
        50,
        0,
    )
    alpha = res["alpha"]
    assert alpha[0] == 1 and alpha[-1] == 50 and np.all(np.diff(alpha) > 0)
    assert np.array_equal(alpha, np.rint(alpha)) and 10 <= len(alpha) <= GRID_POINTS
    K = len(alpha)
    assert res["ode"].shape == res["mean"].shape == res["sem"].shape == (K,)
    assert res["eps"].shape == (64, K)
    assert np.allclose(res["mean"], res["eps"].mean(axis=0))
    assert np.allclose(res["sem"], res["eps"].std(axis=0, ddof=1) / 8.0)
    assert np.all(res["sem"] > 0) and np.all((res["eps"] >= 0) & (res["eps"] <= 1))
    # both curves fall: the ODE strictly, the mean over 64 runs from alpha = 1 to 50 by a factor > 5
    assert np.all(np.diff(res["ode"]) < 0) and res["mean"][-1] < res["mean"][0] / 5


def test_schedule_is_capped_at_its_alpha_one_value(default):
    s = default["schedule"]
    cap = 2.0 * math.sqrt(2.0 * math.pi)
    assert s(0.0) == s(0.5) == s(1.0) == pytest.approx(cap)
    assert s(4.0) == pytest.approx(cap / 4.0)
    res = explore_learning_curve(1.5, 0.5, alpha_max=9, runs=2, N=3)
    assert res["schedule"](9.0) == pytest.approx(1.5 * math.sqrt(2 * math.pi) / 3.0)


def test_ode_up_to_alpha_one_is_the_constant_rate_cap(default):
    # eta = cap on [0, 1], so R(1) is the constant-rate ODE from R = 0; an uncapped or shifted schedule differs
    R1 = lc.integrate_R([1.0], 2.0 * math.sqrt(2.0 * math.pi), 0.0)[0]
    assert default["ode"][0] == pytest.approx(math.acos(R1) / math.pi, rel=1e-6)


def test_ode_approaches_the_eq6_asymptote():
    # eps_g ~ schedule_asymptote(eta0)/alpha (Eq. 6); at alpha = 2000 the ODE is within 0.2% of it for eta0 = 2
    res = explore_learning_curve(2.0, 1.0, 3, runs=2, alpha_max=MAX_ALPHA)
    assert res["ode"][-1] * MAX_ALPHA == pytest.approx(lc.schedule_asymptote(2.0), rel=2e-3)
    res = explore_learning_curve(3.0, 1.0, 3, runs=2, alpha_max=MAX_ALPHA)
    assert res["ode"][-1] * MAX_ALPHA == pytest.approx(lc.schedule_asymptote(3.0), rel=1e-2)


def test_same_seed_same_result_and_ode_independent_of_seed(default):
    again = explore_learning_curve()
    assert np.array_equal(default["eps"], again["eps"]) and np.array_equal(default["ode"], again["ode"])
    other = explore_learning_curve(seed=1)
    assert not np.array_equal(default["eps"], other["eps"])
    assert np.array_equal(default["ode"], other["ode"])


def test_single_time_grid():
    res = explore_learning_curve(alpha_max=1, runs=3, N=10)
    assert list(res["alpha"]) == [1.0] and res["eps"].shape == (3, 1)


def test_integer_like_numpy_arguments_are_accepted():
    res = explore_learning_curve(
        np.float64(2),
        np.int64(1),
        np.int64(20),
        np.float32(0.1),
        runs=np.int32(4),
        alpha_max=np.int64(5),
        seed=np.int64(2),
    )
    assert res["N"] == 20 and isinstance(res["N"], int) and res["p"] == pytest.approx(0.1)


# -- explore_learning_curve: theory against simulation ----------------------------------------


@pytest.mark.parametrize("eta0, z, p", [(2.0, 1.0, 0.0), (1.5, 0.5, 0.2), (4.0, 1.0, 0.1)])
def test_simulation_matches_the_ode(eta0, z, p):
    res = explore_learning_curve(eta0, z, 100, p, runs=200, alpha_max=50, seed=3)
    # Tolerance: 4 standard errors for the Monte Carlo noise, plus a finite-N allowance of 2/N of the
    # ODE value. The ODE is the N -> infinity limit; with 2000 runs at N = 100 the simulated mean sits
    # 0.4% (alpha = 50) to 1.4% (alpha = 1) below the ODE for eta0 = 2, z = 1, p = 0, roughly like 1/N
    # (1.6% at N = 50, 2.3% at N = 25 at alpha = 50). Checked on the whole curve and at alpha = 50.
    allowance = 4 * res["sem"] + 2.0 / 100 * res["ode"]
    assert np.all(np.abs(res["mean"] - res["ode"]) <= allowance)
    assert abs(res["mean"][-1] - res["ode"][-1]) <= allowance[-1]
    assert np.all(res["eps"] >= p)


def test_wrong_p_in_the_theory_would_be_caught():
    # the comparison above can fail: the noiseless ODE misses a p = 0.1 simulation by far more than the allowance
    res = explore_learning_curve(4.0, 1.0, 100, 0.1, runs=200, alpha_max=50, seed=3)
    noiseless = np.arccos(lc.integrate_R(res["alpha"], res["schedule"], 0.0)) / np.pi
    assert abs(res["mean"][-1] - noiseless[-1]) > 4 * res["sem"][-1] + 0.02 * res["ode"][-1]


def test_pure_noise_is_flat_at_one_half():
    res = explore_learning_curve(p=0.5, runs=4, alpha_max=5, N=10)
    assert np.all(res["ode"] == 0.5) and np.all(res["mean"] == 0.5) and np.all(res["sem"] == 0)


# -- bad input ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"eta0": 0.0}, ValueError),
        ({"eta0": -1.0}, ValueError),
        ({"eta0": float("nan")}, ValueError),
        ({"eta0": float("inf")}, ValueError),
        ({"eta0": "2"}, TypeError),
        ({"eta0": True}, TypeError),
        ({"z": 0.0}, ValueError),
        ({"z": -0.5}, ValueError),
        ({"z": None}, TypeError),
        ({"N": 2}, ValueError),
        ({"N": MAX_N + 1}, ValueError),
        ({"N": 50.0}, TypeError),
        ({"N": True}, TypeError),
        ({"p": -0.1}, ValueError),
        ({"p": 0.51}, ValueError),
        ({"p": float("nan")}, ValueError),
        ({"p": "0"}, TypeError),
        ({"runs": 1}, ValueError),
        ({"runs": MAX_RUNS + 1}, ValueError),
        ({"runs": 64.0}, TypeError),
        ({"alpha_max": 0}, ValueError),
        ({"alpha_max": MAX_ALPHA + 1}, ValueError),
        ({"alpha_max": 50.5}, TypeError),
        ({"seed": -1}, ValueError),
        ({"seed": 1.5}, TypeError),
    ],
)
def test_explore_bad_input(kwargs, error):
    (name,) = kwargs
    with pytest.raises(error, match=rf"^{name} must be"):
        explore_learning_curve(**kwargs)


# -- figures --------------------------------------------------------------------------------------


def test_plot_explore_noiseless_with_eq6(default):
    ax = plot_explore(default)
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert len(ax.containers) == 1  # the error bars
    labels = legend_labels(ax)  # the legend lists lines first, then the error bars
    c = lc.schedule_asymptote(2.0)
    assert len(labels) == 3 and labels[0].startswith("ODE") and labels[2].startswith("simulation, $N$ = 50")
    assert labels[1] == f"Eq. 6: {c:.3g}$/\\alpha$"
    asymptote = [line for line in ax.lines if line.get_linestyle() == ":"]
    assert len(asymptote) == 1
    assert np.allclose(asymptote[0].get_ydata(), c / default["alpha"])
    ode = [line for line in ax.lines if line.get_label().startswith("ODE")]
    assert np.array_equal(ode[0].get_ydata(), default["ode"])
    title = ax.get_title()
    for part in ("$\\eta_0$ = 2", "$z$ = 1", "$N$ = 50", "$p$ = 0", "64 runs"):
        assert part in title


def test_plot_explore_with_noise_draws_the_level_p_and_not_eq6():
    res = explore_learning_curve(2.0, 1.0, 25, 0.2, runs=4, alpha_max=10)
    ax = plot_explore(res)
    labels = legend_labels(ax)
    assert len(labels) == 3 and labels[1].startswith("$p$ = 0.2") and not any(lb.startswith("Eq. 6") for lb in labels)
    level = [line for line in ax.lines if line.get_linestyle() == "--"]
    assert len(level) == 1 and np.allclose(level[0].get_ydata(), 0.2)
    assert "$p$ = 0.2" in ax.get_title()


@pytest.mark.parametrize("eta0, z", [(1.0, 1.0), (0.5, 1.0), (2.0, 0.5), (2.0, 1.5)])
def test_plot_explore_without_asymptote(eta0, z):
    # Eq. 6 needs z = 1 and eta0 > 1: otherwise only the ODE and the simulation are drawn
    res = explore_learning_curve(eta0, z, 10, 0.0, runs=3, alpha_max=5)
    ax = plot_explore(res)
    assert len(legend_labels(ax)) == 2 and len(ax.containers) == 1


def test_plot_explore_on_given_axes_and_bad_axes(default):
    _, (a, b) = plt.subplots(1, 2)
    assert plot_explore(default, b) is b and not a.lines
    with pytest.raises(ValueError, match="axes must hold 1"):
        plot_explore(default, ax=[a, b])


def test_plot_static_is_the_default_setting():
    ax = plot_static()
    assert "$\\eta_0$ = 2, $z$ = 1, $N$ = 50, $p$ = 0, 64 runs" in ax.get_title()
    assert len(legend_labels(ax)) == 3
    ax = plot_static(runs=3, alpha_max=4)
    assert "3 runs" in ax.get_title()
    with pytest.raises(ValueError, match="^N must be"):
        plot_static(N=2)


# -- the explorer ---------------------------------------------------------------------------------


def test_explorer_builds_without_drawing():
    pytest.importorskip("ipywidgets")
    panel = learning_curve_explorer()
    assert len(panel.children) >= 7  # five controls, the Draw button and the output
    descriptions = [getattr(w, "description", None) for w in panel.children]
    assert descriptions[:5] == ["eta0", "z", "N", "p", "seed"]
    assert list(panel.children[2].options) == list(EXPLORER_N)
    assert not plt.get_fignums()
    with pytest.raises(ValueError):
        learning_curve_explorer(seed=-1)
    with pytest.raises(TypeError):
        learning_curve_explorer(seed=0.5)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_explorer_draw_function(capsys):
    pytest.importorskip("ipywidgets")
    panel = learning_curve_explorer()
    panel.f(eta0=-1.0, z=1.0, N=25, p=0.0, seed=0)
    assert "eta0 must be" in capsys.readouterr().out and not plt.get_fignums()
    panel.f(eta0=2.0, z=1.0, N=25, p=0.30000000000000004, seed=0)
    assert len(plt.get_fignums()) == 1
    assert "$p$ = 0.3," in plt.gcf().axes[0].get_title()


# -- the benchmark constants and the closed-form drifts (issue 24) -------------------------------


def test_benchmark_constants_match_the_literature():
    from onlinelib.chapters import learning_curves as ch

    # Opper-Haussler 0.442, Gibbs 0.625, Kinouchi-Caticha 0.883 (to the digits quoted in the literature)
    assert round(ch.BAYES_CONSTANT, 3) == 0.442
    assert round(ch.GIBBS_CONSTANT, 3) == 0.625
    assert round(ch.ONLINE_OPTIMAL_CONSTANT, 3) == 0.883
    assert ch.GIBBS_CONSTANT == pytest.approx(math.sqrt(2) * ch.BAYES_CONSTANT)
    assert ch.benchmark_integral(1.0) == pytest.approx(ch.BENCHMARK_INTEGRAL)
    # K(R) increases to J as R -> 1
    assert ch.benchmark_integral(0.5) < ch.benchmark_integral(0.99) < ch.BENCHMARK_INTEGRAL


def test_optimal_online_rhs_beats_every_perceptron_step():
    from onlinelib.chapters import learning_curves as ch

    for R in (0.2, 0.5, 0.9, 0.99):
        best = max(lc.ode_rhs(R, e) for e in np.linspace(0.01, 6, 300))
        assert ch.optimal_online_rhs(R) > best
    assert ch.optimal_online_rhs(1.0) == 0.0


def test_hebb_overlap():
    from onlinelib.chapters import learning_curves as ch

    assert ch.hebb_overlap(2.0) == pytest.approx(1 / math.sqrt(1 + math.pi / 4))
    # eps ~ 1/sqrt(2 pi alpha) for large alpha
    a = 1e6
    assert math.acos(ch.hebb_overlap(a)) / math.pi * math.sqrt(2 * math.pi * a) == pytest.approx(1, rel=1e-5)


@pytest.mark.parametrize("bad", [0.0, -0.1, 1.5])
def test_benchmark_functions_reject_bad_overlap(bad):
    from onlinelib.chapters import learning_curves as ch

    with pytest.raises(ValueError, match="R"):
        ch.benchmark_integral(bad)
    with pytest.raises(ValueError, match="R"):
        ch.optimal_online_rhs(bad)


def test_hebb_overlap_rejects_bad_alpha():
    from onlinelib.chapters import learning_curves as ch

    with pytest.raises(ValueError, match="alpha"):
        ch.hebb_overlap(0.0)


def test_noisy_mean_drift_matches_angle_drift_and_rest_points():
    from onlinelib.chapters import learning_curves as ch

    p, q0, u = 0.2, -1.95, 4.0
    u_perp = math.sqrt(u * u - q0 * q0)
    W0, e = np.eye(3)[0], np.eye(3)[1]
    U = q0 * W0 + u_perp * e
    for rule in ("plain", "robust"):
        for theta in (-2.0, 0.3, 1.0):
            W = math.cos(theta) * W0 + math.sin(theta) * e
            tangent = -math.sin(theta) * W0 + math.cos(theta) * e
            got = ch.noisy_mean_drift(W, W0, U, p, rule) @ tangent
            assert got == pytest.approx(lc.angle_drift(theta, p, q0, u, rule), abs=1e-9)
    # robust rule: every W with W.U = 0 is a rest point (tangential drift zero)
    W = np.array([u_perp, -q0, 0.0]) / u
    W = W / np.linalg.norm(W)
    assert abs(W @ U) < 1e-12
    m = ch.noisy_mean_drift(W, W0, U, p, "robust")
    assert np.allclose(m - (m @ W) * W, 0.0, atol=1e-12)


def test_noisy_mean_drift_rejects_bad_input():
    from onlinelib.chapters import learning_curves as ch

    W0, U = np.eye(3)[0], np.array([-1.0, 2.0, 0.0])
    with pytest.raises(ValueError, match="W must be a unit"):
        ch.noisy_mean_drift(np.array([2.0, 0, 0]), W0, U, 0.1)
    with pytest.raises(ValueError, match="rule"):
        ch.noisy_mean_drift(W0, W0, U, 0.1, "other")
    with pytest.raises(ValueError, match="p"):
        ch.noisy_mean_drift(W0, W0, U, 0.7)
    with pytest.raises(ValueError, match="one length"):
        ch.noisy_mean_drift(np.eye(2)[0], W0, U, 0.1)
    with pytest.raises(ValueError, match="W0.U"):
        ch.noisy_mean_drift(W0, W0, np.array([0.0, 1.0, 0.0]), 0.1, "robust")


def test_noisy_error_batch_matches_quadrature():
    from onlinelib.chapters import learning_curves as ch

    rng = np.random.default_rng(3)
    R = np.concatenate([rng.uniform(-0.99, 0.999, 60), [1.0, -1.0, 0.5, 1 - 1e-13]])
    q = np.concatenate([rng.uniform(-3, 2, 60), [-0.8, 1.95, 0.0, -1.0]])
    for q0, p in ((-1.95, 0.2), (0.7, 0.0), (0.0, 0.1)):
        got = ch.noisy_error_batch(R, q, q0, p)
        want = [lc.noisy_generalization_error(r, qq, q0, p) for r, qq in zip(R, q, strict=True)]
        assert np.max(np.abs(got - want)) < 1e-9
    assert ch.noisy_error_batch(0.3, -0.2, -1.0, 0.1).shape == ()


def test_noisy_error_batch_rejects_bad_input():
    from onlinelib.chapters import learning_curves as ch

    with pytest.raises(ValueError, match="R"):
        ch.noisy_error_batch([1.5], [0.0], -1.0, 0.1)
    with pytest.raises(ValueError, match="q must"):
        ch.noisy_error_batch([0.5], [np.nan], -1.0, 0.1)
    with pytest.raises(ValueError, match="p"):
        ch.noisy_error_batch([0.5], [0.1], -1.0, 0.9)


# -- the (R, q) ODE of the noisy, shifted problem -------------------------------------------------


def test_noisy_order_rhs_reduces_to_the_noisy_eq4_without_shift():
    from onlinelib.chapters import learning_curves as ch

    for R in (-0.7, 0.0, 0.4, 0.95):
        dR, dq = ch.noisy_order_rhs(R, 0.0, 1.3, 0.0, 0.0, 0.15)
        assert float(dR) == pytest.approx(lc.ode_rhs(R, 1.3, 0.15), abs=1e-12)
        assert float(dq) == 0.0


@pytest.mark.parametrize("rule", ["plain", "robust"])
def test_noisy_order_rhs_first_order_is_the_mean_step_projected(rule):
    from onlinelib.chapters import learning_curves as ch

    p, q0, u = 0.2, -1.95, 4.0
    W0, U = np.eye(4)[0], q0 * np.eye(4)[0] + math.sqrt(u * u - q0 * q0) * np.eye(4)[1]
    W = np.array([0.5, -0.3, 0.6, 0.4])
    W /= np.linalg.norm(W)
    m = ch.noisy_mean_drift(W, W0, U, p, rule)
    R, q, eta = W @ W0, W @ U, 1e-7
    dR, dq = ch.noisy_order_rhs(R, q, eta, q0, u, p, rule)
    assert float(dR) / eta == pytest.approx(m @ W0 - R * (m @ W), abs=1e-6)
    assert float(dq) / eta == pytest.approx(m @ U - q * (m @ W), abs=1e-6)
    # the eta^2 term: -eta^2/2 (R, q) times the mistake rate of Eq. (8)
    eps = lc.noisy_generalization_error(R, q, q0, p)
    dR1, dq1 = ch.noisy_order_rhs(R, q, 1.0, q0, u, p, rule)
    assert float(dR1) == pytest.approx(m @ W0 - R * (m @ W) - R * eps / 2, abs=1e-9)
    assert float(dq1) == pytest.approx(m @ U - q * (m @ W) - q * eps / 2, abs=1e-9)


def test_noisy_order_rest_point_is_the_plain_limit_and_arrays_broadcast():
    from onlinelib.chapters import learning_curves as ch

    p, q0, u = 0.2, -1.95, 4.0
    plain = lc.plain_noisy_fixed_point(p, q0, u)
    dR, dq = ch.noisy_order_rhs(plain.R, plain.q, 1e-9, q0, u, p)
    assert abs(float(dR)) < 1e-15 and abs(float(dq)) < 1e-15
    dR, dq = ch.noisy_order_rhs(np.array([0.1, 0.5]), -0.5, 0.3, q0, u, p)
    assert dR.shape == dq.shape == (2,)


def test_integrate_noisy_order_matches_a_fine_euler_scheme():
    from onlinelib.chapters import learning_curves as ch

    p, q0, u = 0.2, -1.95, 4.0
    R, q = ch.integrate_noisy_order([0.0, 5.0], 0.5, 0.0, 0.0, q0, u, p)
    assert (R[0], q[0]) == (0.0, 0.0)
    r, qq, h = 0.0, 0.0, 1e-3
    for _ in range(5000):
        a, b = ch.noisy_order_rhs(r, qq, 0.5, q0, u, p)
        r, qq = r + h * float(a), qq + h * float(b)
    assert R[-1] == pytest.approx(r, abs=1e-3) and q[-1] == pytest.approx(qq, abs=1e-3)
    sched = lc.robust_schedule(2.0, q0, cap=0.2)
    plain = lc.plain_noisy_fixed_point(p, q0, u)
    R, q = ch.integrate_noisy_order([100.0, 500.0], sched, plain.R, plain.q, q0, u, p, "robust")
    # once eta has decayed, the robust rule approaches W0 and its error falls towards p
    assert 1.0 > R[1] > R[0]
    assert p < ch.noisy_error_batch(R[1], q[1], q0, p) < ch.noisy_error_batch(R[0], q[0], q0, p)


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"rule": "other"}, ValueError, "rule"),
        ({"u": 1.0}, ValueError, "u = |U|"),
        ({"p": 0.7}, ValueError, "p"),
        ({"q0": 0.0, "rule": "robust"}, ValueError, "q0"),
        ({"eta": -1.0}, ValueError, "eta"),
        ({"R": 1.5}, ValueError, "R must"),
        ({"q": np.nan}, ValueError, "q must"),
        ({"eta": "x"}, TypeError, "eta"),
    ],
)
def test_noisy_order_rhs_rejects_bad_input(kwargs, error, match):
    from onlinelib.chapters import learning_curves as ch

    args = {"R": 0.3, "q": -0.5, "eta": 0.5, "q0": -1.95, "u": 4.0, "p": 0.2, "rule": "plain"} | kwargs
    with pytest.raises(error, match=match):
        ch.noisy_order_rhs(**args)


def test_integrate_noisy_order_rejects_bad_input():
    from onlinelib.chapters import learning_curves as ch

    good = dict(alphas=[1.0], schedule=0.5, R0=0.0, q_start=0.0, q0=-1.95, u=4.0, p=0.2)
    with pytest.raises(ValueError, match="nondecreasing"):
        ch.integrate_noisy_order(**(good | {"alphas": [2.0, 1.0]}))
    with pytest.raises(ValueError, match="unit W"):
        ch.integrate_noisy_order(**(good | {"R0": 0.9, "q_start": 3.0}))
    with pytest.raises(ValueError, match="R0"):
        ch.integrate_noisy_order(**(good | {"R0": 1.2}))
    with pytest.raises(TypeError, match="schedule"):
        ch.integrate_noisy_order(**(good | {"schedule": "fast"}))


def test_the_noisy_order_functions_are_the_library_s():
    """The (R, q) ODE lives in onlinelib.learning_curves.noisy_order; the chapter module re-exports it."""
    from onlinelib.chapters import learning_curves as chapter
    from onlinelib.learning_curves import noisy_order

    for name in ("noisy_mean_drift", "noisy_error_batch", "noisy_order_rhs", "integrate_noisy_order"):
        assert getattr(chapter, name) is getattr(noisy_order, name), name
        assert getattr(chapter, name).__module__ == "onlinelib.learning_curves.noisy_order", name
