"""Overlap theory of the normalized perceptron (book chapter 8, "Learning curves", Eqs. 3-6).

In the thermodynamic limit the overlap ``R = W.W0`` of the normalized perceptron
(Eq. 2) obeys the ODE of Eq. (4),

    dR/dalpha = (eta/sqrt(2 pi)) (1 - R^2) - (eta^2/(2 pi)) R arccos(R),

with ``alpha = t/N`` and generalization error ``eps_g = arccos(R)/pi`` (Eq. 3).
This module gives ``generalization_error`` (Eq. 3), ``ode_rhs`` and
``integrate_R`` (Eq. 4, with the book's label-noise extension),
``fixed_point_error`` and ``small_eta_fixed_point`` (Eq. 5),
``schedule_asymptote`` (Eq. 6), and the learning-rate schedules that the ODEs
and the simulations share: ``constant_schedule`` (Eq. 5) and ``power_schedule``
(Eq. 6), with their classes ``ConstantSchedule`` and ``PowerSchedule``.

It is the lowest part of ``onlinelib.learning_curves``: it also holds the
argument checks the other parts share (overlaps, the label-flip probability,
learning-rate schedules). The equations are those reconstructed in MATH.md
section 2.1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from scipy import integrate, optimize

from ..validation import Interval, check_real, check_scalar

__all__ = [
    "generalization_error",
    "ode_rhs",
    "integrate_R",
    "fixed_point_error",
    "small_eta_fixed_point",
    "schedule_asymptote",
    "ConstantSchedule",
    "PowerSchedule",
    "constant_schedule",
    "power_schedule",
]

SQRT_2PI = math.sqrt(2.0 * math.pi)
#: The domain of a label-flip probability p (Section 3).
_FLIP_PROBABILITY = Interval(float, 0, 0.5)


# --------------------------------------------------------------------------
# argument checks
# --------------------------------------------------------------------------


def _check_overlap(R: Any, name: str = "R") -> np.ndarray:
    try:
        arr = np.asarray(R, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real number or array of real numbers in [-1, 1], got {R!r}") from None
    if np.isnan(arr).any() or (np.abs(arr) > 1.0).any():
        bad = arr[np.isnan(arr) | (np.abs(arr) > 1.0)].flat[0].item()
        raise ValueError(f"{name} must lie in [-1, 1] (an overlap of unit vectors), got {bad!r}")
    return arr


def _eta_value(schedule: Callable[[float], float], alpha: float) -> float:
    eta = schedule(alpha)
    try:
        eta = float(eta)
    except (TypeError, ValueError):
        raise TypeError(f"eta_schedule must return a real number, returned {eta!r} at alpha={alpha!r}") from None
    if not np.isfinite(eta) or eta < 0.0:
        raise ValueError(
            f"eta_schedule must return a finite learning rate >= 0, returned {eta!r} at alpha={alpha!r}"
            " (a power schedule needs cap= if it is evaluated at alpha = 0)"
        )
    return eta


def _as_schedule(eta_schedule: Any, name: str = "eta_schedule") -> Callable[[float], float]:
    if callable(eta_schedule):
        return eta_schedule
    if isinstance(eta_schedule, (int, float, np.integer, np.floating)) and not isinstance(
        eta_schedule, (bool, np.bool_)
    ):
        return constant_schedule(check_real(eta_schedule, name, 0.0, strict=False))
    raise TypeError(f"{name} must be a real learning rate >= 0 or a callable alpha -> eta, got {eta_schedule!r}")


# --------------------------------------------------------------------------
# theory: Eqs. (3)-(6)
# --------------------------------------------------------------------------


def generalization_error(R: Any) -> Any:
    """Generalization error of a student with overlap ``R`` (chapter 8 (Learning curves), Eq. 3).

    Parameters
    ----------
    R : float or array_like
        Overlap ``W.W0`` of unit student and teacher vectors, in [-1, 1].

    Returns
    -------
    float or ndarray
        ``arccos(R)/pi``, the probability that student and teacher disagree on a
        Gaussian input ``S ~ N(0, I_N)``. Decreasing in ``R``.

    Raises
    ------
    TypeError, ValueError
        If ``R`` is not real or lies outside [-1, 1].
    """
    arr = _check_overlap(R)
    out = np.arccos(arr) / np.pi
    return float(out) if out.ndim == 0 else out


def ode_rhs(R: Any, eta: Any, p: float = 0.0) -> Any:
    """Right-hand side of the overlap ODE (chapter 8 (Learning curves), Eq. 4).

    ``dR/dalpha = (eta/sqrt(2 pi)) (1 - R^2) - (eta^2/(2 pi)) R arccos(R)``, the
    mean change of ``R`` per example times ``N`` under the normalized perceptron
    rule (Eq. 2), in the limit ``N -> infinity``.

    With label noise ``p`` and centred inputs (``U = 0``, the symmetric case of
    Section 3, where the plain rule still converges to ``W0``) the same
    derivation gives

    ``dR/dalpha = (1-2p) (eta/sqrt(2 pi)) (1 - R^2) - (eta^2/2) R eps(R)``,
    ``eps(R) = p + (1-2p) arccos(R)/pi``

    (the book's own extension; ``p = 0`` is Eq. 4). The ``eta^2`` term no longer
    vanishes at ``R = 1``, so noise keeps ``R`` below 1 at any constant eta.

    Parameters
    ----------
    R : float or array_like
        Overlap in [-1, 1].
    eta : float
        Learning rate, >= 0.
    p : float, default 0
        Label-flip probability in [0, 1/2].

    Returns
    -------
    float or ndarray
    """
    arr = _check_overlap(R)
    eta = check_real(eta, "eta", 0.0, strict=False)
    p = check_scalar(p, "p", _FLIP_PROBABILITY, why="label-flip probability")
    eps = p + (1.0 - 2.0 * p) * np.arccos(arr) / np.pi
    out = (1.0 - 2.0 * p) * eta / SQRT_2PI * (1.0 - arr**2) - eta**2 / 2.0 * arr * eps
    return float(out) if out.ndim == 0 else out


def _rhs_d(d: float, eta: float, p: float = 0.0) -> float:
    # ode_rhs for d = 1 - R, written without cancellation near R = 1.
    theta = 2.0 * math.asin(math.sqrt(min(max(d, 0.0), 2.0) / 2.0))
    R = 1.0 - d
    eps = p + (1.0 - 2.0 * p) * theta / math.pi
    return -((1.0 - 2.0 * p) * eta / SQRT_2PI * d * (2.0 - d) - eta**2 / 2.0 * R * eps)


def integrate_R(
    alphas: Any,
    eta_schedule: Any,
    R0: float,
    *,
    alpha0: float = 0.0,
    p: float = 0.0,
    rtol: float = 1e-10,
    atol: float = 1e-16,
) -> np.ndarray:
    """Integrate the overlap ODE (chapter 8 (Learning curves), Eq. 4) with ``solve_ivp``.

    The ODE is integrated in ``d = 1 - R`` (written without cancellation, so
    ``1 - R`` stays accurate down to ``1e-12`` and below, as needed for the
    ``1/alpha`` tails of Eq. 6).

    Parameters
    ----------
    alphas : array_like of float
        Times ``alpha >= alpha0`` at which ``R`` is wanted, nondecreasing.
    eta_schedule : float or callable
        A constant learning rate (>= 0) or a callable ``alpha -> eta`` such as
        ``power_schedule(2, 1, cap=...)``.
    R0 : float
        Overlap at ``alpha0``, in [-1, 1].
    alpha0 : float, default 0
        Initial time.
    p : float, default 0
        Label-flip probability with centred inputs (see ``ode_rhs``).
    rtol, atol : float
        Tolerances passed to ``solve_ivp`` (method LSODA) for ``d``.

    Returns
    -------
    ndarray of float, same length as ``alphas``
        ``R(alpha)``.
    """
    R0 = float(_check_overlap(R0, "R0"))
    alpha0 = check_real(alpha0, "alpha0", 0.0, strict=False)
    p = check_scalar(p, "p", _FLIP_PROBABILITY, why="label-flip probability")
    schedule = _as_schedule(eta_schedule)
    alphas = np.atleast_1d(np.asarray(alphas, dtype=float))
    if alphas.ndim != 1 or alphas.size == 0:
        raise ValueError(f"alphas must be a nonempty 1-D sequence of times, got shape {alphas.shape}")
    if not np.isfinite(alphas).all() or (alphas < alpha0).any() or (np.diff(alphas) < 0).any():
        raise ValueError(f"alphas must be finite, nondecreasing and >= alpha0 = {alpha0}, got {alphas!r}")
    d0 = 1.0 - R0
    if alphas[-1] == alpha0:
        return np.full(alphas.shape, R0)

    def f(alpha: float, y: np.ndarray) -> list[float]:
        return [_rhs_d(y[0], _eta_value(schedule, alpha), p)]

    sol = integrate.solve_ivp(f, (alpha0, alphas[-1]), [d0], method="LSODA", t_eval=alphas, rtol=rtol, atol=atol)
    if not sol.success:  # pragma: no cover - defensive
        raise RuntimeError(f"solve_ivp failed: {sol.message}")
    return 1.0 - np.clip(sol.y[0], 0.0, 2.0)


def fixed_point_error(eta: float) -> float:
    """Asymptotic error ``eps_inf`` at constant learning rate (chapter 8 (Learning curves), Eq. 5).

    Solves ``ode_rhs(R, eta) = 0`` for the stable interior root ``R* in (0, 1)``
    (``R = 1`` is an unstable root) with ``scipy.optimize.brentq`` and returns
    ``arccos(R*)/pi``. Internally the root is found in ``theta = arccos(R)``
    after dividing by ``theta``, which keeps full relative accuracy for small eta.

    Parameters
    ----------
    eta : float
        Learning rate, > 0.

    Returns
    -------
    float
        ``eps_inf(eta)``; about ``eta/sqrt(2 pi^3)`` for small eta
        (``small_eta_fixed_point``).
    """
    eta = check_real(eta, "eta", 0.0)

    def g(theta: float) -> float:
        # ode_rhs(cos theta, eta) / theta
        sinc = math.sin(theta) ** 2 / theta if theta > 0 else 0.0
        return eta / SQRT_2PI * sinc - eta**2 / (2.0 * math.pi) * math.cos(theta)

    theta = optimize.brentq(g, 0.0, math.pi / 2.0, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500)
    return theta / math.pi


def small_eta_fixed_point(eta: float) -> float:
    """Small-eta asymptotic error ``eta/sqrt(2 pi^3)`` (chapter 8 (Learning curves), Eq. 5).

    Parameters
    ----------
    eta : float
        Learning rate, > 0.
    """
    eta = check_real(eta, "eta", 0.0)
    return eta / math.sqrt(2.0 * math.pi**3)


def schedule_asymptote(eta0: float) -> float:
    """Coefficient ``c`` in ``eps_g ~ c/alpha`` for ``eta = eta0 sqrt(2 pi)/alpha`` (chapter 8 (Learning curves), Eq. 6).

    ``c = (1/pi) eta0^2/(eta0 - 1)`` for ``eta0 > 1``; minimal at ``eta0 = 2``,
    where ``c = 4/pi``.

    Parameters
    ----------
    eta0 : float
        Schedule constant, > 1 (for ``eta0 <= 1`` the decay is slower than 1/alpha).
    """
    eta0 = check_real(eta0, "eta0", 1.0)
    return eta0**2 / (eta0 - 1.0) / math.pi


# --------------------------------------------------------------------------
# schedules
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class ConstantSchedule:
    """Constant learning rate ``eta(alpha) = eta`` (chapter 8 (Learning curves), Eq. 5)."""

    eta: float

    def __call__(self, alpha: Any) -> Any:
        a = np.asarray(alpha, dtype=float)
        out = np.full(a.shape, self.eta)
        return float(out) if out.ndim == 0 else out


@dataclass(frozen=True)
class PowerSchedule:
    """Power-law learning rate ``eta(alpha) = min(amplitude/alpha^z, cap)`` (chapter 8 (Learning curves), Eqs. 6 and 17).

    Build it with ``power_schedule`` (``amplitude = eta0 sqrt(2 pi)``, Eq. 6) or
    ``robust_schedule`` (``amplitude = eta0/(2 phi(q0))``, Eq. 17).
    """

    amplitude: float
    z: float
    cap: float | None = None

    def __post_init__(self) -> None:
        check_real(self.amplitude, "amplitude", 0.0)
        check_real(self.z, "z", 0.0)
        if self.cap is not None:
            check_real(self.cap, "cap", 0.0)

    def __call__(self, alpha: Any) -> Any:
        a = np.asarray(alpha, dtype=float)
        with np.errstate(divide="ignore"):
            out = self.amplitude / a**self.z
        if self.cap is not None:
            out = np.minimum(out, self.cap)
        return float(out) if np.ndim(out) == 0 else out


def constant_schedule(eta: float) -> ConstantSchedule:
    """Return the constant schedule ``alpha -> eta`` (chapter 8 (Learning curves), Eq. 5).

    Parameters
    ----------
    eta : float
        Learning rate, >= 0.
    """
    return ConstantSchedule(check_real(eta, "eta", 0.0, strict=False))


def power_schedule(eta0: float, z: float, cap: float | None = None) -> PowerSchedule:
    """Return ``alpha -> eta0 sqrt(2 pi)/alpha^z``, optionally capped (chapter 8 (Learning curves), Eq. 6).

    With ``z = 1`` and ``eta0 = 2`` this is the optimal schedule
    ``eta = 2 sqrt(2 pi)/alpha`` of Eq. (6), i.e. a per-example step
    ``eta/N = 2 sqrt(2 pi)/t``.

    Parameters
    ----------
    eta0 : float
        Amplitude, > 0.
    z : float
        Exponent, > 0.
    cap : float, optional
        If given (> 0), ``eta(alpha) = min(eta0 sqrt(2 pi)/alpha^z, cap)``. This
        removes the divergence at ``alpha -> 0``; MATH.md uses
        ``cap = eta0 sqrt(2 pi)`` (the value at ``alpha = 1``) for Figure 1.
        Without a cap the schedule is infinite at ``alpha = 0``.
    """
    eta0 = check_real(eta0, "eta0", 0.0)
    z = check_real(z, "z", 0.0)
    if cap is not None:
        cap = check_real(cap, "cap", 0.0)
    return PowerSchedule(eta0 * SQRT_2PI, z, cap)
