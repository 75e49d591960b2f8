"""Order parameters of on-line perceptron rules (book chapter 8, "Learning curves", theory sections).

A student ``J`` (not normalized) learns a teacher ``B`` with ``|B|^2 = N`` from Gaussian inputs
``x ~ N(0, I_N)`` labelled ``sigma = sgn(u)``, ``u = B.x / sqrt(N)``. A general on-line rule is

    J <- J + (1/sqrt(N)) F sigma x,

with a *modulation function* ``F`` of the student's normalized field ``lambda = J.x / |J|``, the label
and the order parameters. Two numbers carry the state: ``rho = J.B / N`` and ``Q = |J|^2 / N``, with
overlap ``R = rho / sqrt(Q)``. As ``N -> infinity`` (time ``alpha = t/N``)

    d rho / d alpha = <F sigma u>,    dQ / d alpha = 2 sqrt(Q) <F sigma lambda> + <F^2>,

Gaussian averages over ``(u, lambda)`` with correlation ``R`` (Engel & Van den Broeck, ch. 9). This
module gives the averages in closed form for Hebb, the perceptron rule and the AdaTron
(``modulation_averages``), the ODE and its solution (``order_parameter_rhs``, ``integrate_order_parameters``),
their large-alpha laws (``rule_asymptotic_error``), an exact reduced simulation at finite ``N``
(``simulate_order_parameters``), the greedy learning rate of the normalized perceptron
(``greedy_learning_rate``, ``greedy_drift``, ``greedy_learning_curve``) and, for a teacher with
Gaussian output noise, the Fisher information behind the Cramer-Rao bound (``noisy_teacher_fisher_information``)
and the optimal on-line drift (``noisy_optimal_drift``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import integrate, special

from ..validation import Interval, check_int, check_rng, check_scalar

__all__ = [
    "ONLINE_RULES",
    "modulation_averages",
    "order_parameter_rhs",
    "integrate_order_parameters",
    "rule_asymptotic_error",
    "simulate_order_parameters",
    "greedy_learning_rate",
    "greedy_drift",
    "greedy_learning_curve",
    "noisy_teacher_fisher_information",
    "noisy_optimal_drift",
]

ONLINE_RULES = ("hebb", "perceptron", "adatron")
SQRT_2PI = math.sqrt(2.0 * math.pi)
_OPEN_OVERLAP = Interval(float, -1, 1, "neither")
_POSITIVE = Interval(float, 0, None, "neither")


def _check_rule(rule: Any) -> str:
    if not isinstance(rule, str):
        raise TypeError(f"rule must be one of {ONLINE_RULES} as a string, got {type(rule).__name__}")
    if rule not in ONLINE_RULES:
        raise ValueError(f"rule must be one of {ONLINE_RULES}, got {rule!r}")
    return rule


def _check_overlaps(R: Any, name: str = "R", low: float = -1.0) -> np.ndarray:
    try:
        arr = None if isinstance(R, (str, bytes)) else np.asarray(R, dtype=float)
    except (TypeError, ValueError):
        arr = None
    if arr is None:
        raise TypeError(f"{name} must be a real number or array, got {type(R).__name__}")
    if not np.all(np.isfinite(arr)) or np.any(arr < low) or np.any(arr > 1.0):
        bad = arr[~(np.isfinite(arr) & (arr >= low) & (arr <= 1.0))].flat[0].item()
        raise ValueError(f"{name} must lie in [{low:g}, 1], got {bad!r}")
    return arr


def modulation_averages(rule: str, R: Any, Q: Any = 1.0, eta: float = 1.0) -> tuple[Any, Any, Any]:
    """The three Gaussian averages of a rule's modulation function (Chapter 8, order-parameter theorem).

    ``F`` is ``eta`` (Hebb), ``eta * [sigma lambda < 0]`` (perceptron: a fixed step on mistakes) or
    ``eta * sqrt(Q) |lambda| [sigma lambda < 0]`` (AdaTron: the step that brings the field to zero).

    Parameters
    ----------
    rule : {"hebb", "perceptron", "adatron"}
    R : float or array_like
        Overlap in [-1, 1].
    Q : float or array_like, default 1
        Squared length ``|J|^2 / N`` (>= 0); only the AdaTron's averages depend on it.
    eta : float, default 1
        Learning rate, > 0.

    Returns
    -------
    tuple of float or ndarray
        ``(<F sigma u>, <F sigma lambda>, <F^2>)`` with ``theta = arccos R``:
        Hebb ``(eta sqrt(2/pi), eta R sqrt(2/pi), eta^2)``; perceptron
        ``(eta (1 - R)/sqrt(2 pi), -eta (1 - R)/sqrt(2 pi), eta^2 theta/pi)``; AdaTron
        ``eta sqrt(Q) (sin theta - R theta)/pi``, ``-eta sqrt(Q) (theta - R sin theta)/pi`` and
        ``eta^2 Q (theta - R sin theta)/pi``.

    Raises
    ------
    TypeError, ValueError
        If ``rule`` is not one of the three names, ``R`` is outside [-1, 1], ``Q < 0`` or ``eta <= 0``.
    """
    rule = _check_rule(rule)
    R = _check_overlaps(R)
    Q = np.asarray(Q, dtype=float)
    if not np.all(np.isfinite(Q)) or np.any(Q < 0):
        raise ValueError(f"Q must be finite and >= 0 (a squared length per dimension), got {Q!r}")
    eta = float(check_scalar(eta, "eta", _POSITIVE))
    theta = np.arccos(R)
    sin = np.sqrt(np.maximum(1.0 - R * R, 0.0))
    if rule == "hebb":
        out = (eta * math.sqrt(2 / math.pi) + 0 * R, eta * R * math.sqrt(2 / math.pi), eta**2 + 0 * R)
    elif rule == "perceptron":
        out = (eta * (1 - R) / SQRT_2PI, -eta * (1 - R) / SQRT_2PI, eta**2 * theta / math.pi)
    else:
        rQ = np.sqrt(Q)
        out = (
            eta * rQ * (sin - R * theta) / math.pi,
            -eta * rQ * (theta - R * sin) / math.pi,
            eta**2 * Q * (theta - R * sin) / math.pi,
        )
    return tuple(float(o) if np.ndim(o) == 0 else o for o in out)  # type: ignore[return-value]


def order_parameter_rhs(rule: str, rho: float, Q: float, eta: float = 1.0) -> tuple[float, float]:
    """``(d rho/d alpha, dQ/d alpha)`` of a rule in the large-N limit (Chapter 8, order-parameter theorem).

    ``d rho/d alpha = <F sigma u>`` and ``dQ/d alpha = 2 sqrt(Q) <F sigma lambda> + <F^2>``, with the
    averages of ``modulation_averages`` at ``R = rho/sqrt(Q)`` (``R = 0`` if ``Q = 0``).
    """
    if Q < 0:
        raise ValueError(f"Q must be >= 0, got {Q!r}")
    R = 0.0 if Q == 0 else min(max(rho / math.sqrt(Q), -1.0), 1.0)
    a, b, c = modulation_averages(rule, R, Q, eta)
    return a, 2.0 * math.sqrt(Q) * b + c


def integrate_order_parameters(
    rule: str, alphas: Any, R0: float = 0.0, Q0: float = 1.0, eta: float = 1.0, rtol: float = 1e-10
) -> tuple[np.ndarray, np.ndarray]:
    """Solve the order-parameter ODE of a rule from ``alpha = 0`` (Chapter 8, order-parameter theorem).

    Parameters
    ----------
    rule : {"hebb", "perceptron", "adatron"}
    alphas : array_like of float
        Nondecreasing times > 0.
    R0 : float, default 0
        Initial overlap in (-1, 1).
    Q0 : float, default 1
        Initial squared length, > 0.
    eta : float, default 1
        Learning rate, > 0.
    rtol : float, default 1e-10
        Relative tolerance of ``solve_ivp`` (LSODA).

    Returns
    -------
    R, Q : ndarray
        Overlap and squared length at ``alphas``.
    """
    rule = _check_rule(rule)
    R0 = float(check_scalar(R0, "R0", _OPEN_OVERLAP))
    Q0 = float(check_scalar(Q0, "Q0", _POSITIVE))
    alphas = np.atleast_1d(np.asarray(alphas, dtype=float))
    if alphas.ndim != 1 or alphas.size == 0 or not np.all(np.isfinite(alphas)):
        raise ValueError(f"alphas must be a nonempty 1-D array of finite times, got {alphas!r}")
    if np.any(alphas <= 0) or np.any(np.diff(alphas) < 0):
        raise ValueError(f"alphas must be positive and nondecreasing, got {alphas!r}")

    def f(_: float, y: np.ndarray) -> tuple[float, float]:
        return order_parameter_rhs(rule, y[0], max(y[1], 0.0), eta)

    y0 = [R0 * math.sqrt(Q0), Q0]
    sol = integrate.solve_ivp(f, (0.0, alphas[-1]), y0, method="LSODA", t_eval=alphas, rtol=rtol, atol=1e-14)
    if not sol.success:  # pragma: no cover - defensive
        raise RuntimeError(f"solve_ivp failed: {sol.message}")
    rho, Q = sol.y
    return np.clip(rho / np.sqrt(Q), -1.0, 1.0), Q


def rule_asymptotic_error(rule: str, alpha: Any, eta: float = 1.0) -> Any:
    """Large-alpha generalization error of a rule (Chapter 8, order-parameter theorem, part (c)).

    Hebb ``1/sqrt(2 pi alpha)``; perceptron ``(2/3)^(1/3) / (pi alpha^(1/3))`` (any ``eta``); AdaTron
    ``3 / (eta (3 - eta) alpha)``, which needs ``0 < eta < 3`` (at ``eta >= 3`` the AdaTron does not
    converge to the teacher).
    """
    rule = _check_rule(rule)
    eta = float(check_scalar(eta, "eta", _POSITIVE))
    alpha = np.asarray(alpha, dtype=float)
    if not np.all(np.isfinite(alpha)) or np.any(alpha <= 0):
        raise ValueError(f"alpha must be finite and > 0, got {alpha!r}")
    if rule == "hebb":
        out = 1.0 / np.sqrt(2 * math.pi * alpha)
    elif rule == "perceptron":
        out = (2.0 / 3.0) ** (1.0 / 3.0) / (math.pi * np.cbrt(alpha))
    else:
        if eta >= 3.0:
            raise ValueError(f"eta must lie in (0, 3) for the AdaTron to converge, got {eta!r}")
        out = 3.0 / (eta * (3.0 - eta) * alpha)
    return float(out) if out.ndim == 0 else out


def simulate_order_parameters(
    rules: Any,
    N: int,
    alphas: Any,
    runs: int,
    rng: np.random.Generator,
    R0: float = 0.0,
    Q0: float = 1.0,
    eta: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Exact finite-N simulation of on-line rules through their order parameters (Chapter 8).

    Writes ``J / sqrt(N) = rho B/|B| + c v`` with ``v`` a unit vector orthogonal to ``B``. By
    rotational symmetry the input's component along ``v`` is a fresh standard normal ``xi`` at every
    step and the rest of ``x`` outside the plane enters only through its squared length, a
    ``chi^2_{N-2}`` variable; so ``(rho, c)`` is a Markov chain with three random numbers per step:
    ``rho <- rho + F sigma u / N``, ``c <- sqrt((c + F sigma xi / N)^2 + F^2 chi^2 / N^2)``. This is the
    same law as updating the vectors in ``N`` dimensions.

    Parameters
    ----------
    rules : str or sequence of str
        Rule names from ``ONLINE_RULES``; all are run on their own random streams in one vectorised loop.
    N : int
        Dimension, >= 3.
    alphas : array_like of float
        Recording times; each is rounded to ``round(alpha N)`` examples.
    runs : int
        Independent students per rule, >= 1.
    rng : numpy.random.Generator
    R0, Q0, eta : float
        Start (overlap in (-1, 1), squared length > 0) and learning rate (> 0).

    Returns
    -------
    R, Q : ndarray of shape (len(rules), runs, len(alphas))
    """
    names = [rules] if isinstance(rules, str) else list(rules)
    if not names:
        raise ValueError("rules must name at least one rule, got an empty sequence")
    codes = np.array([ONLINE_RULES.index(_check_rule(r)) for r in names])[:, None]
    N = check_int(N, "N", 3)
    runs = check_int(runs, "runs", 1)
    rng = check_rng(rng)
    R0 = float(check_scalar(R0, "R0", _OPEN_OVERLAP))
    Q0 = float(check_scalar(Q0, "Q0", _POSITIVE))
    eta = float(check_scalar(eta, "eta", _POSITIVE))
    steps = np.rint(np.atleast_1d(np.asarray(alphas, dtype=float)) * N).astype(int)
    if steps.ndim != 1 or steps.size == 0 or np.any(steps < 0) or np.any(np.diff(steps) < 0):
        raise ValueError(f"alphas must be a nonempty nondecreasing 1-D array of times >= 0, got {alphas!r}")
    shape = (len(names), runs)
    rho = np.full(shape, R0 * math.sqrt(Q0))
    c = np.full(shape, math.sqrt(Q0 * (1 - R0 * R0)))
    R_out = np.empty(shape + (steps.size,))
    Q_out = np.empty_like(R_out)
    hebb = (codes == 0) * eta + 0.0 * rho  # the rule's F is eta * (hebb + wrong * (perc + ada * |J.x|/sqrt(N)))
    perc = (codes == 1) * eta + 0.0 * rho
    ada = (codes == 2) * eta + 0.0 * rho
    t, block = 0, 512
    for k, target in enumerate(steps):
        while t < target:
            n = min(block, target - t)
            u, xi = rng.standard_normal((2, n) + shape)
            chi = rng.chisquare(N - 2, (n,) + shape) / (N * N)
            sigma = np.where(u >= 0, 1.0, -1.0)
            for j in range(n):
                field = rho * u[j] + c * xi[j]  # = |J| lambda / sqrt(N)
                wrong = sigma[j] * field < 0
                F = hebb + wrong * (perc + ada * np.abs(field))
                Fs = F * sigma[j] / N
                rho = rho + Fs * u[j]
                c = np.sqrt((c + Fs * xi[j]) ** 2 + F * F * chi[j])
            t += n
        Q_out[..., k] = rho * rho + c * c
        R_out[..., k] = rho / np.sqrt(Q_out[..., k])
    return R_out, Q_out


def greedy_learning_rate(R: Any) -> Any:
    """Learning rate that maximises the normalized perceptron's drift (Chapter 8, greedy-schedule theorem).

    ``eta*(R) = sqrt(pi/2) (1 - R^2) / (R arccos R)`` for ``R`` in (0, 1): the top of the parabola
    ``eta (1 - R^2)/sqrt(2 pi) - eta^2 R arccos(R) / (2 pi)`` (Eq. 4 of the chapter).
    """
    R = _check_overlaps(R, low=0.0)
    if np.any((R <= 0) | (R >= 1)):
        raise ValueError(
            f"R must lie in (0, 1) for a finite greedy rate, got {R[(R <= 0) | (R >= 1)].flat[0].item()!r}"
        )
    out = math.sqrt(math.pi / 2) * (1 - R * R) / (R * np.arccos(R))
    return float(out) if out.ndim == 0 else out


def greedy_drift(R: Any) -> Any:
    """Largest drift of Eq. 4 over ``eta``: ``(1 - R^2)^2 / (4 R arccos R)``, ``R`` in (0, 1) (Chapter 8)."""
    R = _check_overlaps(R, low=0.0)
    if np.any((R <= 0) | (R >= 1)):
        raise ValueError(f"R must lie in (0, 1), got {R[(R <= 0) | (R >= 1)].flat[0].item()!r}")
    out = (1 - R * R) ** 2 / (4 * R * np.arccos(R))
    return float(out) if out.ndim == 0 else out


def _g_of_theta(theta: np.ndarray) -> np.ndarray:
    return 2 * theta / np.sin(theta) ** 2 + 2 / np.tan(theta)


def greedy_learning_curve(alpha: Any, R0: float) -> Any:
    """Exact overlap under the greedy learning rate (Chapter 8, greedy-schedule theorem).

    With ``theta = arccos R`` the greedy ODE is ``d theta/d alpha = -sin^3 theta / (4 theta cos theta)``,
    and ``G(theta) = 2 theta / sin^2 theta + 2 cot theta`` grows by exactly ``alpha``. The function
    inverts ``G(theta) = G(theta_0) + alpha`` by bisection on (0, pi/2) (``G`` is decreasing there).

    Parameters
    ----------
    alpha : float or array_like
        Times >= 0.
    R0 : float
        Start overlap in (0, 1).

    Returns
    -------
    float or ndarray
        ``R(alpha)``.
    """
    R0 = float(check_scalar(R0, "R0", Interval(float, 0, 1, "neither")))
    alpha = np.asarray(alpha, dtype=float)
    if not np.all(np.isfinite(alpha)) or np.any(alpha < 0):
        raise ValueError(f"alpha must be finite and >= 0, got {alpha!r}")
    target = _g_of_theta(np.float64(math.acos(R0))) + alpha
    lo, hi = np.zeros_like(target), np.full_like(target, math.acos(R0))
    for _ in range(200):  # bisection to float resolution; G decreases on (0, pi/2)
        mid = 0.5 * (lo + hi)
        above = _g_of_theta(np.where(mid > 0, mid, 1e-300)) > target
        lo, hi = np.where(above, mid, lo), np.where(above, hi, mid)
    out = np.cos(0.5 * (lo + hi))
    return float(out) if out.ndim == 0 else out


def _tail_product_integral(scale: float, width: float) -> float:
    """int dt phi(t)^2 / (Phi(t) Phi(-t)) * exp(-width^2 t^2 / 2) * scale, computed without underflow."""

    def f(t: float) -> float:
        # phi^2/(Phi Phi(-)) = phi^2 (1/Phi(t) + 1/Phi(-t)); phi(t)/Phi(-t) = sqrt(2/pi)/erfcx(t/sqrt2)
        at = abs(t)
        ratio = math.sqrt(2 / math.pi) / special.erfcx(at / math.sqrt(2))  # phi(|t|)/Phi(-|t|)
        return (
            scale
            * math.exp(-((width * t) ** 2) / 2)
            * (ratio * math.exp(-t * t / 2) / SQRT_2PI + math.exp(-t * t) / (2 * math.pi * special.ndtr(at)))
        )

    return 2.0 * integrate.quad(f, 0.0, math.inf, epsabs=1e-14, epsrel=1e-12)[0]


def noisy_teacher_fisher_information(gamma: float) -> float:
    """Fisher information per example and per orthogonal component, times ``N`` (Chapter 8, Cramer-Rao).

    For labels ``sigma = sgn(u + gamma z)`` (``z`` standard normal output noise),
    ``P(sigma | x) = Phi(sigma u / gamma)`` and the information about each component of ``B``
    orthogonal to ``B`` is ``I(gamma)/N`` per example, with

    ``I(gamma) = E_u[phi(u/gamma)^2 / (gamma^2 Phi(u/gamma) Phi(-u/gamma))]``, ``u ~ N(0, 1)``.

    As ``gamma -> 0``, ``gamma I(gamma) -> J/pi`` with the chapter's benchmark integral ``J``.
    """
    gamma = float(check_scalar(gamma, "gamma", _POSITIVE))
    # substitute u = gamma t: I = (1/gamma) int phi(gamma t) phi(t)^2 / (Phi(t) Phi(-t)) dt
    return _tail_product_integral(1.0 / (gamma * SQRT_2PI), gamma)


def noisy_optimal_drift(R: float, gamma: float) -> float:
    """dR/d alpha of the optimal normalized on-line rule for the noisy teacher (Chapter 8, Cramer-Rao).

    The pointwise optimum ``E[m^2]/(2R)`` with ``m = E[u - R lambda | lambda, sigma]``, which for labels
    ``sgn(u + gamma z)`` is ``(s^4 / (2 R c^2)) E_lambda[phi(a)^2 / (Phi(a) Phi(-a))]`` with
    ``s^2 = 1 - R^2``, ``c^2 = s^2 + gamma^2`` and ``a = R lambda / c``. ``gamma = 0`` is the noise-free
    optimum of the chapter. ``R`` must lie in (0, 1), ``gamma >= 0``.
    """
    R = float(check_scalar(R, "R", Interval(float, 0, 1, "neither")))
    gamma = float(check_scalar(gamma, "gamma", Interval(float, 0, None, "left")))
    s2 = 1 - R * R
    c = math.sqrt(s2 + gamma * gamma)
    # E_lambda[g(R lambda / c)] = int dt (c/R) phi(c t / R) g(t)
    integral = _tail_product_integral(c / (R * SQRT_2PI), c / R)
    return s2 * s2 / (2 * R * c * c) * integral
