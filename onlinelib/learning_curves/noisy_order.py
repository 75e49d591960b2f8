"""The noisy, shifted problem's order parameters (R, q) at finite eta (book chapter 8, section "lc-rq-ode").

Inputs ``S ~ N(U, I_N)``, labels flipped with probability ``p``, a unit teacher ``W0`` and a unit student
``W``; ``R = W.W0``, ``q = W.U``, ``q0 = W0.U``, ``u = |U|``.

* ``noisy_mean_drift``: the mean step ``m(W) = E[eps sigma (S - T)]`` of the plain and the robust rule in
  closed form (the eta -> 0 flows on the whole sphere);
* ``noisy_error_batch``: Eq. (8) for arrays of ``(R, q)`` at once, through Owen's T function;
* ``noisy_order_rhs`` and ``integrate_noisy_order``: the two-variable ``(R, q)`` ODE with its eta^2 terms,
  which explains the level of the source's Figure 2.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import integrate, special

from ..validation import Interval, check_real, check_scalar
from .noise import noisy_generalization_error
from .theory import _as_schedule, _eta_value

__all__ = [
    "integrate_noisy_order",
    "noisy_error_batch",
    "noisy_mean_drift",
    "noisy_order_rhs",
]


def _tail(x: float) -> float:
    """H(x) = P(N(0, 1) > x)."""
    return 0.5 * float(special.erfc(x / math.sqrt(2.0)))


def noisy_mean_drift(W: Any, W0: Any, U: Any, p: float, rule: str = "plain") -> np.ndarray:
    """The mean step m(W) = E[eps sigma (S - T)] for inputs S ~ N(U, I) and labels flipped with probability p.

    ``W`` and ``W0`` are unit vectors; ``T`` is 0 for ``rule="plain"`` and Eq. (13) for ``rule="robust"``.
    In closed form, with q = W.U, q0 = W0.U and H the Gaussian tail,

    * plain:  m = [(1-2p)((1-2H(q0)) U + 2 phi(q0) W0) - (1-2H(q)) U - 2 phi(q) W] / 2,
    * robust: m = phi(q0) (1-2H(q)) / (1-2H(q0)) W0 - phi(q) W  (independent of p).

    The eta -> 0 flow on the sphere is dW/dalpha = eta (m - (m.W) W).
    """
    W, W0, U = (np.asarray(v, dtype=float) for v in (W, W0, U))
    if W.ndim != 1 or W.shape != W0.shape or W.shape != U.shape:
        raise ValueError("W, W0 and U must be vectors of one length")
    for name, v in (("W", W), ("W0", W0)):
        if not math.isclose(float(v @ v), 1.0, rel_tol=1e-9):
            raise ValueError(f"{name} must be a unit vector")
    p = check_real(p, "p", 0.0, strict=False)
    if p > 0.5:
        raise ValueError(f"p must lie in [0, 1/2], got {p}")
    if rule not in ("plain", "robust"):
        raise ValueError(f'rule must be "plain" or "robust", got {rule!r}')
    q, q0 = float(W @ U), float(W0 @ U)
    dens = lambda x: math.exp(-x * x / 2.0) / math.sqrt(2.0 * math.pi)  # noqa: E731
    if rule == "plain":
        return 0.5 * (
            (1 - 2 * p) * ((1 - 2 * _tail(q0)) * U + 2 * dens(q0) * W0) - (1 - 2 * _tail(q)) * U - 2 * dens(q) * W
        )
    if q0 == 0.0:
        raise ValueError("the robust rule needs W0.U != 0")
    return dens(q0) * (1 - 2 * _tail(q)) / (1 - 2 * _tail(q0)) * W0 - dens(q) * W


def noisy_error_batch(R: Any, q: Any, q0: float, p: float) -> np.ndarray:
    """Eq. (8) for arrays of (R, q) at once, through the bivariate normal distribution function.

    The disagreement probability is ``Phi(-q0) + Phi(-q) - 2 Phi2(-q0, -q; R)``, with ``Phi2`` the
    bivariate standard normal distribution function with correlation ``R``, computed from Owen's T
    function (``scipy.special.owens_t``). Entries with ``|R| >= 1 - 1e-12`` or ``q = 0``, where that
    formula divides by zero, and ``q0 = 0`` fall back to
    ``onlinelib.learning_curves.noisy_generalization_error``, which agrees elsewhere to about 1e-13.
    """
    R, q = np.broadcast_arrays(np.asarray(R, dtype=float), np.asarray(q, dtype=float))
    shape = R.shape
    R, q = np.atleast_1d(R).ravel(), np.atleast_1d(q).ravel()
    if np.any(np.abs(R) > 1.0) or not np.all(np.isfinite(R)):
        raise ValueError("R must lie in [-1, 1]")
    if not np.all(np.isfinite(q)):
        raise ValueError("q must be finite")
    q0 = check_real(q0, "q0")
    p = check_real(p, "p", 0.0, strict=False)
    if p > 0.5:
        raise ValueError(f"p must lie in [0, 1/2], got {p}")
    edge = (np.abs(R) >= 1.0 - 1e-12) | (q == 0.0) | (q0 == 0.0)
    Rs = np.where(edge, 0.0, R)
    qs = np.where(edge, 1.0, q)
    h, k = np.full(qs.shape, -q0 if q0 != 0.0 else 1.0), -qs
    s = np.sqrt(1.0 - Rs * Rs)
    phi2 = (
        0.5 * special.ndtr(h)
        + 0.5 * special.ndtr(k)
        - special.owens_t(h, (k - Rs * h) / (h * s))
        - special.owens_t(k, (h - Rs * k) / (k * s))
        - np.where(h * k > 0, 0.0, 0.5)
    )
    out = p + (1 - 2 * p) * (special.ndtr(-q0) + special.ndtr(-qs) - 2 * phi2)
    for idx in zip(*np.nonzero(edge), strict=True):
        out[idx] = noisy_generalization_error(float(R[idx]), float(q[idx]), q0, p)
    return out.reshape(shape)


def _order_geometry(q0: Any, u: Any, p: Any, rule: str) -> tuple[float, float, float]:
    q0 = check_real(q0, "q0")
    u = check_real(u, "u", 0.0, strict=False)
    if u < abs(q0):
        raise ValueError(f"u = |U| must be at least |q0| = {abs(q0)}, got {u}")
    p = check_scalar(p, "p", Interval(float, 0, 0.5), why="label-flip probability")
    if rule not in ("plain", "robust"):
        raise ValueError(f'rule must be "plain" or "robust", got {rule!r}')
    if rule == "robust" and q0 == 0.0:
        raise ValueError("the robust rule needs q0 = W0.U != 0")
    return q0, u, p


def _order_rhs(R: Any, q: Any, eta: float, q0: float, u: float, p: float, rule: str) -> tuple[Any, Any]:
    dens = np.exp(-q * q / 2.0) / math.sqrt(2.0 * math.pi)
    sign_q = 1.0 - 2.0 * special.ndtr(-q)  # 1 - 2 H(q)
    dens0 = math.exp(-q0 * q0 / 2.0) / math.sqrt(2.0 * math.pi)
    sign_q0 = 1.0 - 2.0 * _tail(q0)
    if rule == "plain":  # m = [a0 U + b0 W0 - a U - b W] / 2
        a0, b0, a, b = (1 - 2 * p) * sign_q0, (1 - 2 * p) * 2 * dens0, sign_q, 2 * dens
        m_W0 = 0.5 * (a0 * q0 + b0 - a * q0 - b * R)
        m_U = 0.5 * (a0 * u * u + b0 * q0 - a * u * u - b * q)
        m_W = 0.5 * (a0 * q + b0 * R - a * q - b)
    else:  # m = k W0 - phi(q) W
        k = dens0 * sign_q / sign_q0
        m_W0, m_U, m_W = k - dens * R, k * q0 - dens * q, k * R - dens
    mistakes = noisy_error_batch(np.clip(R, -1.0, 1.0), q, q0, p)
    return (
        eta * (m_W0 - R * m_W) - eta * eta / 2.0 * R * mistakes,
        eta * (m_U - q * m_W) - eta * eta / 2.0 * q * mistakes,
    )


def noisy_order_rhs(
    R: Any, q: Any, eta: float, q0: float, u: float, p: float, rule: str = "plain"
) -> tuple[np.ndarray, np.ndarray]:
    """(dR/dalpha, dq/dalpha) of the normalized rule, noisy and shifted, N -> infinity (chapter 8, lc-rq-ode).

    Inputs ``S ~ N(U, I_N)`` with ``|U| = u`` and ``q0 = W0.U``, labels flipped with probability ``p``,
    ``R = W.W0``, ``q = W.U``; the step is ``(eta/N) eps sigma (S - T)`` with ``T = 0`` (``"plain"``) or
    Eq. (13) (``"robust"``). With the mean step ``m`` of ``noisy_mean_drift`` and the mistake rate
    ``eps_g(R, q)`` of Eq. (8),

        dR/dalpha = eta (m.W0 - R m.W) - (eta^2/2) R eps_g,
        dq/dalpha = eta (m.U - q m.W) - (eta^2/2) q eps_g,

    the order-eta term the tangential part of the mean step and the order-eta^2 term the cost of
    renormalising after a step of squared length ``eta^2 |S - T|^2 / N^2 ~ eta^2/N`` (derived in the
    chapter's section "The order parameters R and q: the finite-eta ODE"). ``m.W0``, ``m.U`` and ``m.W``
    depend on ``W`` only through ``(R, q)``, so the pair is closed. ``R`` and ``q`` may be arrays of one shape.

    Raises
    ------
    TypeError, ValueError
        If ``eta`` is not a number >= 0, ``q0``, ``u`` or ``p`` is out of range (``u >= |q0|``,
        ``p`` in [0, 1/2]), ``rule`` is unknown, the robust rule has ``q0 = 0``, or ``R`` is outside
        [-1, 1] or ``q`` is not finite.
    """
    eta = check_real(eta, "eta", 0.0, strict=False)
    q0, u, p = _order_geometry(q0, u, p, rule)
    R, q = np.broadcast_arrays(np.asarray(R, dtype=float), np.asarray(q, dtype=float))
    if not np.all(np.isfinite(R)) or np.any(np.abs(R) > 1.0):
        raise ValueError(f"R must lie in [-1, 1], got {R}")
    if not np.all(np.isfinite(q)):
        raise ValueError(f"q must be finite, got {q}")
    return _order_rhs(R, q, eta, q0, u, p, rule)


def integrate_noisy_order(
    alphas: Any, schedule: Any, R0: float, q_start: float, q0: float, u: float, p: float, rule: str = "plain"
) -> tuple[np.ndarray, np.ndarray]:
    """Integrate ``noisy_order_rhs`` from ``(R0, q_start)`` at alpha = 0; (R, q) at ``alphas`` (chapter 8, lc-rq-ode).

    ``schedule`` is a learning rate >= 0 or a callable ``alpha -> eta`` (e.g. ``power_schedule``,
    ``robust_schedule``). ``alphas`` must be nondecreasing and >= 0. The integrator is LSODA with
    relative tolerance 1e-9 (absolute 1e-12), far below any Monte Carlo error the chapter compares with.

    Raises
    ------
    TypeError, ValueError
        As ``noisy_order_rhs``, and if ``alphas`` is not a nondecreasing sequence of times >= 0 or the
        start is not a unit student's ``(R, q)`` (``R^2 + ((q - R q0)/u_perp)^2 <= 1``).
    """
    q0, u, p = _order_geometry(q0, u, p, rule)
    sched = _as_schedule(schedule, "schedule")
    R0 = check_scalar(R0, "R0", Interval(float, -1, 1), why="overlap")
    q_start = check_real(q_start, "q_start")
    u_perp = math.sqrt(max(u * u - q0 * q0, 0.0))
    b = (q_start - R0 * q0) / u_perp if u_perp > 0 else (0.0 if math.isclose(q_start, R0 * q0) else math.inf)
    if R0 * R0 + b * b > 1.0 + 1e-9:
        raise ValueError(f"(R0, q_start) = ({R0}, {q_start}) is not the (W.W0, W.U) of a unit W")
    a = np.atleast_1d(np.asarray(alphas, dtype=float))
    if a.ndim != 1 or not np.all(np.isfinite(a)) or np.any(a < 0) or np.any(np.diff(a) < 0):
        raise ValueError(f"alphas must be a nondecreasing sequence of times >= 0, got {alphas!r}")

    def f(alpha: float, y: np.ndarray) -> list[float]:
        dR, dq = _order_rhs(np.array(y[0]), np.array(y[1]), _eta_value(sched, alpha), q0, u, p, rule)
        return [float(dR), float(dq)]

    sol = integrate.solve_ivp(
        f, (0.0, float(a[-1]) if len(a) else 0.0), [R0, q_start], t_eval=a, method="LSODA", rtol=1e-9, atol=1e-12
    )
    if not sol.success:  # pragma: no cover - LSODA does not fail on this smooth field
        raise RuntimeError(sol.message)
    return sol.y[0], sol.y[1]
