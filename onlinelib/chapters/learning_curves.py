"""Chapter 8 ("Learning curves"): the normalized perceptron's theory against its simulation.

* ``explore_learning_curve`` puts the theory and the simulation of one
  setting side by side: the overlap ODE (Eq. 4, with label noise p as in
  ``onlinelib.learning_curves.ode_rhs``) integrated from R = 0, and the mean
  generalization error of many independent runs of the normalized
  perceptron rule (Eq. 2) with its standard error, both under the capped
  power schedule ``eta(alpha) = min(eta0 sqrt(2 pi)/alpha^z, eta0 sqrt(2 pi))``
  (Eq. 6 when z = 1).
* ``plot_explore`` draws such a result on log-log axes, with the 1/alpha
  asymptote of Eq. (6) when it applies (z = 1, eta0 > 1, p = 0);
  ``plot_static`` is the figure the chapter shows at the default setting, and
  ``onlinelib.explorers.learning_curve_explorer`` (eta0, z, N, p, seed) redraws
  it on demand.

* The benchmark constants of the section "How good is 4/pi?": ``benchmark_integral`` (K(R), J = K(1)),
  ``BAYES_CONSTANT``, ``GIBBS_CONSTANT``, ``ONLINE_OPTIMAL_CONSTANT``, the optimal on-line drift
  ``optimal_online_rhs`` and the Hebb overlap ``hebb_overlap``.
* Imported from ``onlinelib.learning_curves.noisy_order`` (library theory the chapter uses, documented
  there and kept out of this module's ``__all__``), so that ``chapter.X`` works in the chapter:
  ``noisy_mean_drift``, ``noisy_error_batch``, ``noisy_order_rhs`` and ``integrate_noisy_order``.

Conventions as in ``onlinelib.learning_curves``: centred Gaussian inputs,
unit teacher and student, ``alpha = t/N``, ``eps_g = p + (1-2p) arccos(R)/pi``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import integrate, special

from ..learning_curves import integrate_R, power_schedule, schedule_asymptote, simulate_normalized_perceptron
from ..learning_curves import noisy_order as _noisy_order
from ..plotting import axes_row
from ..validation import Interval, check_int, check_real, check_scalar

__all__ = [
    "BAYES_CONSTANT",
    "BENCHMARK_INTEGRAL",
    "EXPLORER_N",
    "GIBBS_CONSTANT",
    "ONLINE_OPTIMAL_CONSTANT",
    "GRID_POINTS",
    "MAX_ALPHA",
    "MAX_N",
    "MAX_RUNS",
    "benchmark_integral",
    "explore_learning_curve",
    "hebb_overlap",
    "optimal_online_rhs",
    "plot_explore",
    "plot_static",
]

# The (R, q) ODE and its helpers are library theory (onlinelib.learning_curves.noisy_order); the chapter
# calls them as ``chapter.X``.
noisy_mean_drift = _noisy_order.noisy_mean_drift
noisy_error_batch = _noisy_order.noisy_error_batch
noisy_order_rhs = _noisy_order.noisy_order_rhs
integrate_noisy_order = _noisy_order.integrate_noisy_order

#: The largest input dimension ``explore_learning_curve`` accepts.
MAX_N = 1000
#: The most runs ``explore_learning_curve`` accepts.
MAX_RUNS = 2000
#: The largest final time alpha_max ``explore_learning_curve`` accepts.
MAX_ALPHA = 2000
#: Points of the log-spaced grid of times before rounding to integers (duplicates removed).
GRID_POINTS = 30
#: The input dimensions offered by the explorer.
EXPLORER_N = (25, 50, 100, 250)


# -- the benchmark constants (the section "How good is 4/pi?") ------------------------------------


def _tail_ratio(a: float) -> float:
    """exp(-a^2/2) / H(a), computed without underflow (H is the Gaussian upper tail)."""
    return 2.0 / special.erfcx(a / math.sqrt(2.0))


def benchmark_integral(R: float = 1.0) -> float:
    """K(R) = int da exp(-s^2 a^2 / (2 R^2)) exp(-a^2) / (sqrt(2 pi) H(a)), s = sqrt(1 - R^2).

    At R = 1 this is the integral J = int exp(-a^2) / (sqrt(2 pi) H(a)) da that fixes the large-alpha
    constants of Bayes (1/J), Gibbs (sqrt(2)/J) and the optimal on-line rule (2/J). ``R`` must lie in
    (0, 1].
    """
    R = check_real(R, "R")
    if not 0.0 < R <= 1.0:
        raise ValueError(f"R must lie in (0, 1], got {R}")
    c = (1.0 - R * R) / (2.0 * R * R)

    def integrand(a: float) -> float:
        return math.exp(-c * a * a - a * a / 2.0) * _tail_ratio(a) / math.sqrt(2.0 * math.pi)

    return integrate.quad(integrand, -math.inf, math.inf, epsabs=1e-13, epsrel=1e-12)[0]


def optimal_online_rhs(R: float) -> float:
    """dR/dalpha of the optimal normalized on-line rule: (1 - R^2)^(3/2) K(R) / (2 pi R^2), R in (0, 1]."""
    R = check_real(R, "R")
    if not 0.0 < R <= 1.0:
        raise ValueError(f"R must lie in (0, 1], got {R}")
    return (1.0 - R * R) ** 1.5 * benchmark_integral(R) / (2.0 * math.pi * R * R)


def hebb_overlap(alpha: float) -> float:
    """Large-N overlap of the Hebb rule W = sum_t sigma_t S_t after alpha N examples: 1/sqrt(1 + pi/(2 alpha))."""
    alpha = check_real(alpha, "alpha")
    if not alpha > 0.0:
        raise ValueError(f"alpha must be positive, got {alpha}")
    return 1.0 / math.sqrt(1.0 + math.pi / (2.0 * alpha))


#: J = K(1), about 2.264.
BENCHMARK_INTEGRAL = benchmark_integral(1.0)
#: eps_g ~ BAYES_CONSTANT / alpha for Bayes-optimal batch learning (replica-symmetric theory), about 0.442.
BAYES_CONSTANT = 1.0 / BENCHMARK_INTEGRAL
#: eps_g ~ GIBBS_CONSTANT / alpha for Gibbs learning (a random consistent student), about 0.625.
GIBBS_CONSTANT = math.sqrt(2.0) / BENCHMARK_INTEGRAL
#: eps_g ~ ONLINE_OPTIMAL_CONSTANT / alpha for the optimal on-line rule of Kinouchi and Caticha, about 0.883.
ONLINE_OPTIMAL_CONSTANT = 2.0 / BENCHMARK_INTEGRAL


def _alpha_grid(alpha_max: int) -> np.ndarray:
    """Integer times from 1 to ``alpha_max``, about evenly spaced on a log axis."""
    return np.unique(np.rint(np.geomspace(1.0, alpha_max, GRID_POINTS))).astype(float)


# -- the experiment ------------------------------------------------------------------------------


def explore_learning_curve(
    eta0: float = 2.0,
    z: float = 1.0,
    N: int = 50,
    p: float = 0.0,
    *,
    runs: int = 64,
    alpha_max: int = 50,
    seed: int = 0,
) -> dict[str, Any]:
    """ODE learning curve against simulation for one schedule (chapter 8 (Learning curves), Eqs. 2-6).

    The schedule is ``power_schedule(eta0, z, cap=eta0 sqrt(2 pi))``, i.e.
    ``eta(alpha) = eta0 sqrt(2 pi)/alpha^z`` capped at its value at alpha = 1
    (MATH.md's choice for Figure 1). The theory integrates the overlap ODE
    (Eq. 4; with noise p, the centred-input extension of ``ode_rhs``) from
    R = 0, the overlap of a random student as N -> infinity; the simulation
    runs ``simulate_normalized_perceptron`` from uniformly random students.
    Its cost grows like ``runs * N * alpha_max`` (the default takes well
    under a second).

    Parameters
    ----------
    eta0 : float > 0
        Schedule amplitude; Eq. (6) says ``eta0 = 2`` is optimal for z = 1.
    z : float > 0
        Schedule exponent.
    N : int in [3, MAX_N]
        Input dimension of the simulation.
    p : float in [0, 1/2]
        Label-flip probability.
    runs : int in [2, MAX_RUNS]
        Independent runs of the simulation.
    alpha_max : int in [1, MAX_ALPHA]
        Final time alpha = t/N.
    seed : int >= 0
        Seed of ``numpy.random.default_rng`` for the simulation.

    Returns
    -------
    dict with the arguments, ``schedule`` (the ``PowerSchedule``), ``alpha``
    (the recorded integer times, log-spaced from 1 to ``alpha_max``), ``ode``
    (the ODE's eps_g at those times), ``mean`` and ``sem`` (the simulation's
    mean eps_g over the runs and its standard error) and ``eps`` (eps_g of
    every run, shape (runs, len(alpha))).

    Raises
    ------
    TypeError
        If an argument is not a number of the right kind (``N``, ``runs``,
        ``alpha_max`` and ``seed`` must be integers).
    ValueError
        If an argument is out of its range; the message names it.
    """
    eta0 = check_real(eta0, "eta0", 0.0)
    z = check_real(z, "z", 0.0)
    N = check_int(N, "N", 3, MAX_N)
    p = check_scalar(p, "p", Interval(float, 0, 0.5), why="label-flip probability")
    runs = check_int(runs, "runs", 2, MAX_RUNS)
    alpha_max = check_int(alpha_max, "alpha_max", 1, MAX_ALPHA)
    seed = check_int(seed, "seed", 0)
    schedule = power_schedule(eta0, z, cap=eta0 * math.sqrt(2.0 * math.pi))
    alphas = _alpha_grid(alpha_max)
    R = integrate_R(alphas, schedule, 0.0, p=p)
    ode = p + (1.0 - 2.0 * p) * np.arccos(np.clip(R, -1.0, 1.0)) / np.pi
    sim = simulate_normalized_perceptron(
        N, alpha_max * N, runs, np.random.default_rng(seed), schedule, p=p, record=alphas
    )
    eps = sim.eps_g
    return {
        "eta0": eta0,
        "z": z,
        "N": N,
        "p": p,
        "runs": runs,
        "alpha_max": alpha_max,
        "seed": seed,
        "schedule": schedule,
        "alpha": alphas,
        "ode": ode,
        "mean": eps.mean(axis=0),
        "sem": eps.std(axis=0, ddof=1) / math.sqrt(runs),
        "eps": eps,
    }


# -- figures -------------------------------------------------------------------------------------


def plot_explore(result: dict[str, Any], ax: Any = None) -> Any:
    """eps_g against alpha on log-log axes for an ``explore_learning_curve`` result (chapter 8 (Learning curves)).

    Draws the ODE curve (solid), the simulation's mean with error bars of
    ±1 standard error, and

    * for z = 1, eta0 > 1 and p = 0 the Eq. (6) asymptote
      ``schedule_asymptote(eta0)/alpha`` (dotted);
    * for p > 0 the level p (dashed), which eps_g never goes below. Eq. (6)
      is not drawn then: with label noise the plain rule's excess error
      ``eps_g - p`` decays more slowly than 1/alpha under this schedule.

    Returns the Axes.
    """
    ax = axes_row(ax, 1, (6.5, 4.2))[0]
    alpha = np.asarray(result["alpha"], dtype=float)
    eta0, z, p = result["eta0"], result["z"], result["p"]
    ax.plot(alpha, result["ode"], "-", color="C0", lw=1.5, label=r"ODE (Eq. 4), $N \to \infty$")
    ax.errorbar(
        alpha,
        result["mean"],
        yerr=result["sem"],
        fmt="o",
        ms=3,
        capsize=2,
        color="C3",
        label=f"simulation, $N$ = {result['N']} (mean ± 1 SE)",
    )
    if p > 0:
        ax.axhline(p, color="black", ls="--", lw=1, label=f"$p$ = {p:g} ($\\epsilon_g \\geq p$; Eq. 6 needs $p = 0$)")
    elif math.isclose(z, 1.0) and eta0 > 1:
        c = schedule_asymptote(eta0)
        ax.plot(alpha, c / alpha, ":", color="black", lw=1.5, label=f"Eq. 6: {c:.3g}$/\\alpha$")
    ax.set(xscale="log", yscale="log", xlabel=r"$\alpha = t/N$", ylabel=r"generalization error $\epsilon_g$")
    ax.set_title(
        f"$\\eta_0$ = {eta0:g}, $z$ = {z:g}, $N$ = {result['N']}, $p$ = {p:g}, {result['runs']} runs\n"
        r"$\eta(\alpha) = \min(\eta_0\sqrt{2\pi}/\alpha^z,\ \eta_0\sqrt{2\pi})$",
        fontsize=9,
    )
    ax.legend(fontsize=8, loc="upper right")
    return ax


def plot_static(ax: Any = None, **kwargs: Any) -> Any:
    """The chapter's figure at the explorer's default setting (chapter 8 (Learning curves)).

    ``plot_explore(explore_learning_curve(**kwargs), ax)``: without arguments
    eta0 = 2, z = 1, N = 50, p = 0, 64 runs up to alpha = 50. Returns the Axes.
    """
    return plot_explore(explore_learning_curve(**kwargs), ax)
