"""Label noise and biased inputs, and the noise-robust rule (book chapter 8, "Learning curves", Section 3).

With inputs ``S ~ N(U, I_N)`` and labels flipped with probability ``p``, the
plain normalized perceptron no longer converges to the teacher ``W0``. This
module gives

* the error model: ``noisy_generalization_error`` (Eq. 8);
* where the plain rule ends as eta -> 0: ``angle_drift`` (the mean angular
  velocity in the plane of ``W0`` and ``U``), ``plain_noisy_fixed_point`` and
  its ``PlaneFixedPoint``, and the first-order formula
  ``plain_noise_first_order`` (Eq. 9);
* the noise-robust rule: its shift ``robust_shift`` (Eq. 13), the learner
  ``NoiseRobustPerceptron`` (Eqs. 10-13), and its theory near ``W0``:
  ``integrate_robust_linear`` (Eq. 14), ``robust_error_near_optimum`` and
  ``robust_fixed_point`` (Eqs. 14-16), ``robust_schedule`` and
  ``robust_schedule_asymptote`` (Eqs. 17-18).

The equations are those reconstructed in MATH.md section 2.2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import integrate, optimize, special

from ..validation import Interval, check_int, check_real, check_scalar
from .simulation import NormalizedPerceptron, _check_vector
from .theory import (
    _FLIP_PROBABILITY,
    SQRT_2PI,
    PowerSchedule,
    _as_schedule,
    _check_overlap,
    _eta_value,
)

__all__ = [
    "noisy_generalization_error",
    "robust_shift",
    "angle_drift",
    "PlaneFixedPoint",
    "plain_noisy_fixed_point",
    "plain_noise_first_order",
    "robust_schedule",
    "integrate_robust_linear",
    "robust_error_near_optimum",
    "robust_fixed_point",
    "robust_schedule_asymptote",
    "NoiseRobustPerceptron",
]


# --------------------------------------------------------------------------
# Section 3: noise and biased inputs, Eqs. (8) and (13)
# --------------------------------------------------------------------------


def _H(x: Any) -> Any:
    return 0.5 * special.erfc(np.asarray(x) / math.sqrt(2.0))


def noisy_generalization_error(R: float, q: float, q0: float, p: float) -> float:
    """Generalization error with biased inputs and label noise (chapter 8 (Learning curves), Eq. 8).

    ``eps_g = p + (1-2p) [ int_{-inf}^{-q0} Dy H(-(q+Ry)/sqrt(1-R^2))
    + int_{-q0}^{inf} Dy H((q+Ry)/sqrt(1-R^2)) ]`` for inputs ``S ~ N(U, I_N)``,
    ``R = W.W0``, ``q = U.W``, ``q0 = U.W0`` and label-flip probability ``p``;
    computed with ``scipy.integrate.quad``. The bracket is the probability that
    student and teacher disagree.

    Parameters
    ----------
    R : float
        Overlap in [-1, 1]. At ``|R| = 1`` the student is ``+-W0`` and the bracket
        is 0 (R = 1) or 1 (R = -1).
    q, q0 : float
        Projections of the input mean on student and teacher.
    p : float
        Label-flip probability in [0, 1/2].
    """
    R = float(_check_overlap(R))
    q = check_real(q, "q")
    q0 = check_real(q0, "q0")
    p = check_scalar(p, "p", _FLIP_PROBABILITY, why="label-flip probability")
    if R == 1.0:
        dis = 0.0
    elif R == -1.0:
        dis = 1.0
    else:
        s = math.sqrt(1.0 - R * R)
        phi = lambda y: math.exp(-0.5 * y * y) / SQRT_2PI  # noqa: E731
        left = integrate.quad(lambda y: phi(y) * float(_H(-(q + R * y) / s)), -np.inf, -q0, epsabs=1e-12)[0]
        right = integrate.quad(lambda y: phi(y) * float(_H((q + R * y) / s)), -q0, np.inf, epsabs=1e-12)[0]
        dis = left + right
    return p + (1.0 - 2.0 * p) * dis


def robust_shift(U: Any, W0: Any, q0: float | None = None) -> np.ndarray:
    """Shift ``T`` of the noise-robust rule (chapter 8 (Learning curves), Eq. 13).

    ``T = U + W0 sqrt(2/pi) exp(-q0^2/2) / (1 - 2H(q0))`` with ``q0 = U.W0``,
    the constant ``T = <sigma0 S>/<sigma0>`` of Eq. (12).

    Parameters
    ----------
    U : array_like, shape (N,)
        Mean of the inputs.
    W0 : array_like, shape (N,)
        Teacher (normalised to unit length).
    q0 : float, optional
        ``U.W0``; computed when omitted, and checked against it when given.

    Raises
    ------
    ValueError
        If ``q0 = 0`` (then ``<sigma0> = 0`` and T does not exist) or shapes differ.
    """
    W0a = np.asarray(W0, dtype=float)
    if W0a.ndim != 1:
        raise ValueError(f"W0 must be a vector, got shape {W0a.shape}")
    N = W0a.shape[0]
    W0v = _check_vector(W0a, "W0", N, unit=True)
    Uv = _check_vector(U, "U", N, unit=False)
    q0_true = float(Uv @ W0v)
    if q0 is not None:
        q0 = check_real(q0, "q0")
        if abs(q0 - q0_true) > 1e-9 * max(1.0, abs(q0_true)):
            raise ValueError(f"q0 must equal U.W0 = {q0_true!r}, got {q0!r}")
    if q0_true == 0.0:
        raise ValueError("robust_shift needs q0 = U.W0 != 0 (else <sigma0> = 0 and Eq. 12 has no solution)")
    return Uv + W0v * _shift_along_teacher(q0_true)


def _shift_along_teacher(q0: float) -> float:
    # Eq. (13): T - U = W0 sqrt(2/pi) exp(-q0^2/2) / (1 - 2H(q0)) = W0 2 phi(q0)/<sigma0>
    return 2.0 * _phi(q0) / (1.0 - 2.0 * float(_H(q0)))


def _phi(x: float) -> float:
    return math.exp(-0.5 * x * x) / SQRT_2PI


def _mean_abs_normal(mu: float, sd: float = 1.0) -> float:
    # E|N(mu, sd^2)| = sd (2 phi(mu/sd) + (mu/sd)(1 - 2H(mu/sd)))
    if sd == 0.0:
        return abs(mu)
    m = mu / sd
    return sd * (2.0 * _phi(m) + m * (1.0 - 2.0 * float(_H(m))))


def _check_geometry(q0: Any, u: Any) -> tuple[float, float]:
    u = check_real(u, "u", 0.0, strict=False)
    q0 = check_scalar(q0, "q0", Interval(float, -u, u), why="|q0| <= u = |U|, as q0 = U.W0 and W0 is a unit vector")
    return q0, u


# --------------------------------------------------------------------------
# Section 3: where the eta -> 0 dynamics go, in the plane of W0 and U
# --------------------------------------------------------------------------


def angle_drift(theta: float, p: float, q0: float, u: float, rule: str = "plain") -> float:
    """Mean angular velocity of the student in the (W0, U) plane (chapter 8 (Learning curves), Section 3).

    For ``W = cos(theta) W0 + sin(theta) e`` with ``e`` the unit vector along
    ``U - q0 W0``, one example changes the angle by ``(eta/N) G(theta)`` on
    average to first order in eta, where

    ``G = < eps sigma t.(S - T) > = < (1{sgn h != sigma0} - p) sigma0 t.(S - T) >``,

    ``t = -sin(theta) W0 + cos(theta) e`` is the tangent and ``T`` is 0 for the
    plain rule and Eq. (13) for the robust rule. In the limit eta -> 0 the
    student drifts along the circle at ``d theta/d alpha = eta G(theta)``; its
    stable rest points are the zeros where ``G`` crosses from + to -. The
    expectation is exact: the Gaussian integral over the field along ``t`` is
    done in closed form and the one over the student's field ``h`` with
    ``scipy.integrate.quad``.

    Parameters
    ----------
    theta : float
        Angle from W0 towards ``e``, in radians.
    p : float
        Label-flip probability in [0, 1/2].
    q0 : float
        ``U.W0``; must be nonzero for ``rule="robust"``.
    u : float
        ``|U| >= |q0|``.
    rule : {"plain", "robust"}
        The plain normalized perceptron (Eq. 2) or the noise-robust rule (Eq. 10).

    Returns
    -------
    float
        ``G(theta)``; for the robust rule near 0 it is ``-phi(q0) theta``.
    """
    theta = check_real(theta, "theta")
    p = check_scalar(p, "p", _FLIP_PROBABILITY, why="label-flip probability")
    q0, u = _check_geometry(q0, u)
    if rule not in ("plain", "robust"):
        raise ValueError(f'rule must be "plain" or "robust", got {rule!r}')
    u_perp = math.sqrt(max(u * u - q0 * q0, 0.0))
    m0 = 1.0 - 2.0 * float(_H(q0))  # <sigma0>
    if rule == "robust":
        if q0 == 0.0:
            raise ValueError("the robust rule needs q0 = U.W0 != 0 (else <sigma0> = 0 and Eq. 12 has no solution)")
        T0, T1 = q0 + _shift_along_teacher(q0), u_perp  # Eq. (13) in (W0, e) coordinates
    else:
        T0, T1 = 0.0, 0.0
    c, s = math.cos(theta), math.sin(theta)
    ma, mb = c * q0 + s * u_perp, -s * q0 + c * u_perp  # means of h = W.S and b = t.S
    tau = -s * T0 + c * T1
    # -p <sigma0 (b - tau)>, in closed form
    noise = -p * (-s * (2.0 * _phi(q0) + q0 * m0) + c * u_perp * m0 - tau * m0)

    def upper(beta: float) -> float:  # E[(b - tau) 1{b > beta}]
        return (mb - tau) * float(_H(beta - mb)) + _phi(beta - mb)

    def lower(beta: float) -> float:  # E[(b - tau) 1{b < beta}]
        return (mb - tau) * (1.0 - float(_H(beta - mb))) - _phi(beta - mb)

    def inner(a: float) -> float:
        # E_b[1{sgn a != sgn x0} sgn(x0) (b - tau)] with x0 = c a - s b
        if abs(s) < 1e-15:
            return 0.0 if c > 0 else -math.copysign(1.0, a) * (mb - tau)
        beta = c * a / s
        if s > 0:  # x0 > 0 iff b < beta
            return -upper(beta) if a > 0 else lower(beta)
        return -lower(beta) if a > 0 else upper(beta)

    f = lambda a: inner(a) * _phi(a - ma)  # noqa: E731
    # inner(a) varies on the scale |s|/|c| around a = 0 (it is a step at s = 0):
    # break the range there so quad cannot miss a narrow bump near theta = 0 or pi
    cuts = {0.0}
    if abs(c) > 1e-12:
        cuts |= {s * (mb - 12.0) / c, s * (mb + 12.0) / c}
    edges = [-np.inf] + sorted(cuts) + [np.inf]
    dis = sum(
        integrate.quad(f, lo, hi, epsabs=1e-14, limit=200)[0]
        for lo, hi in zip(edges, edges[1:], strict=False)
        if lo < hi
    )
    return dis + noise


@dataclass(frozen=True)
class PlaneFixedPoint:
    """A rest point of the eta -> 0 dynamics in the (W0, U) plane (chapter 8 (Learning curves), Section 3).

    Attributes
    ----------
    theta : float
        Angle from W0 (radians; positive towards the part of U orthogonal to W0).
    R, q : float
        ``W.W0 = cos(theta)`` and ``W.U``.
    eps_g : float
        Generalization error there (Eq. 8).
    slope : float
        ``G'(theta)``; negative means stable along the circle.
    """

    theta: float
    R: float
    q: float
    eps_g: float
    slope: float


def plain_noisy_fixed_point(p: float, q0: float, u: float, *, grid: int = 181) -> PlaneFixedPoint:
    """Where the plain rule ends up with label noise and shifted inputs, as eta -> 0 (chapter 8 (Learning curves), Eq. 9).

    Finds the stable zero of ``angle_drift(theta, p, q0, u, "plain")`` nearest
    to W0 (scan of ``grid`` angles on (-pi, pi], then ``brentq``) and evaluates
    Eq. (8) there. This is the exact solution that Eq. (9) approximates to first
    order in p (``plain_noise_first_order``).

    Parameters
    ----------
    p : float
        Label-flip probability in [0, 1/2].
    q0 : float
        ``U.W0``.
    u : float
        ``|U| >= |q0|``.
    grid : int, default 181
        Number of scan angles on (-pi, pi] (>= 8); a stable zero is missed only
        if two zeros lie within one grid step (2 degrees by default).
    """
    p = check_scalar(p, "p", _FLIP_PROBABILITY, why="label-flip probability")
    q0, u = _check_geometry(q0, u)
    grid = check_int(grid, "grid", 8)
    thetas = np.linspace(-math.pi, math.pi, grid)
    G = np.array([angle_drift(t, p, q0, u) for t in thetas])
    best = None
    for i in range(grid - 1):
        if G[i] > 0.0 >= G[i + 1] or G[i] == 0.0 and (i == 0 or G[i - 1] > 0.0):
            th = (
                thetas[i]
                if G[i] == 0.0
                else optimize.brentq(angle_drift, thetas[i], thetas[i + 1], args=(p, q0, u), xtol=1e-13)
            )
            if best is None or abs(th) < abs(best):
                best = th
    if best is None:  # pragma: no cover - G always has a stable zero on the circle
        raise RuntimeError("no stable rest point found")
    h = 1e-5
    slope = (angle_drift(best + h, p, q0, u) - angle_drift(best - h, p, q0, u)) / (2 * h)
    u_perp = math.sqrt(max(u * u - q0 * q0, 0.0))
    R, q = math.cos(best), math.cos(best) * q0 + math.sin(best) * u_perp
    return PlaneFixedPoint(best, R, q, noisy_generalization_error(min(R, 1.0), q, q0, p), slope)


def plain_noise_first_order(p: float, q0: float, u: float) -> float:
    """First-order-in-p error of the plain rule's eta -> 0 limit (chapter 8 (Learning curves), Eq. 9).

    ``eps_inf = p + p |1-2H(q0)| u_perp E|N(u_perp, 1)| / (1 + u_perp^2)``,
    ``u_perp^2 = u^2 - q0^2`` (MATH.md section 2.2 reconstruction). Good for
    small p only; compare ``plain_noisy_fixed_point``.
    """
    p = check_scalar(p, "p", _FLIP_PROBABILITY, why="label-flip probability")
    q0, u = _check_geometry(q0, u)
    u_perp = math.sqrt(max(u * u - q0 * q0, 0.0))
    return p + p * abs(1.0 - 2.0 * float(_H(q0))) * u_perp * _mean_abs_normal(u_perp) / (1.0 + u_perp**2)


# --------------------------------------------------------------------------
# Section 3: the robust rule near W0, Eqs. (14)-(18)
# --------------------------------------------------------------------------


def robust_schedule(eta0: float, q0: float, cap: float | None = None) -> PowerSchedule:
    """The robust rule's schedule ``eta = eta0/(2 phi(q0) alpha)`` (chapter 8 (Learning curves), Eq. 17).

    ``eta0`` is measured in units of the relaxation rate ``2 phi(q0)`` of
    ``1 - R`` (Eq. 14), so the optimum is ``eta0 = 2`` as in Eq. (18). This
    normalisation is MATH.md's reconstruction.

    Parameters
    ----------
    eta0 : float
        > 0.
    q0 : float
        ``U.W0``.
    cap : float, optional
        Upper bound on eta (> 0).
    """
    eta0 = check_real(eta0, "eta0", 0.0)
    q0 = check_real(q0, "q0")
    if cap is not None:
        cap = check_real(cap, "cap", 0.0)
    return PowerSchedule(eta0 / (2.0 * _phi(q0)), 1.0, cap)


def integrate_robust_linear(
    alphas: Any,
    eta_schedule: Any,
    dR0: float,
    dq0: float,
    p: float,
    q0: float,
    *,
    alpha0: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Integrate the linearised robust dynamics near W0 (chapter 8 (Learning curves), Eq. 14).

    With ``dR = 1 - R`` and ``dq = q0 - q``,

    ``d(dR)/dalpha = -2 phi(q0) eta dR + (p/2) eta^2``,
    ``d(dq)/dalpha = -phi(q0) eta dq - q0 phi(q0) eta dR + (p q0/2) eta^2``

    (MATH.md section 2.2 reconstruction), solved with ``solve_ivp``.

    Returns
    -------
    (dR, dq) : two ndarrays of the length of ``alphas``
    """
    p = check_scalar(p, "p", _FLIP_PROBABILITY, why="label-flip probability")
    q0 = check_real(q0, "q0")
    dR0 = check_real(dR0, "dR0", 0.0, strict=False)
    dq0 = check_real(dq0, "dq0")
    alpha0 = check_real(alpha0, "alpha0", 0.0, strict=False)
    schedule = _as_schedule(eta_schedule)
    alphas = np.atleast_1d(np.asarray(alphas, dtype=float))
    if alphas.ndim != 1 or alphas.size == 0 or not np.isfinite(alphas).all():
        raise ValueError(f"alphas must be a nonempty 1-D sequence of finite times, got {alphas!r}")
    if (alphas < alpha0).any() or (np.diff(alphas) < 0).any():
        raise ValueError(f"alphas must be nondecreasing and >= alpha0 = {alpha0}, got {alphas!r}")
    ph = _phi(q0)
    if alphas[-1] == alpha0:
        return np.full(alphas.shape, dR0), np.full(alphas.shape, dq0)

    def f(alpha: float, y: np.ndarray) -> list[float]:
        eta = _eta_value(schedule, alpha)
        return [
            -2.0 * ph * eta * y[0] + 0.5 * p * eta**2,
            -ph * eta * y[1] - q0 * ph * eta * y[0] + 0.5 * p * q0 * eta**2,
        ]

    sol = integrate.solve_ivp(
        f, (alpha0, alphas[-1]), [dR0, dq0], method="LSODA", t_eval=alphas, rtol=1e-10, atol=1e-14
    )
    if not sol.success:  # pragma: no cover - defensive
        raise RuntimeError(f"solve_ivp failed: {sol.message}")
    return sol.y[0], sol.y[1]


def robust_error_near_optimum(dR: Any, dq: Any, p: float, q0: float) -> Any:
    """Eq. (8) to leading order near W0 (chapter 8 (Learning curves), Eqs. 14-16).

    ``eps_g - p ~ (1-2p) phi(q0) E|N(q0 dR - dq, 2 dR)|`` for small ``dR = 1 - R``
    and ``dq = q0 - q``; ``(1-2p) (2/sqrt(pi)) phi(q0) sqrt(dR)`` when
    ``dq = q0 dR``. Returns ``eps_g`` (not ``eps_g - p``).
    """
    p = check_scalar(p, "p", _FLIP_PROBABILITY, why="label-flip probability")
    q0 = check_real(q0, "q0")
    dR_a, dq_a = np.broadcast_arrays(np.asarray(dR, dtype=float), np.asarray(dq, dtype=float))
    if (dR_a < 0).any() or not np.isfinite(dR_a).all() or not np.isfinite(dq_a).all():
        raise ValueError("dR must be finite and >= 0 (dR = 1 - R) and dq finite")
    out = np.array(
        [
            p + (1.0 - 2.0 * p) * _phi(q0) * _mean_abs_normal(q0 * a - b, math.sqrt(2.0 * a))
            for a, b in zip(dR_a.ravel(), dq_a.ravel(), strict=True)
        ]
    ).reshape(dR_a.shape)
    return float(out) if out.ndim == 0 else out


def robust_fixed_point(eta: float, p: float, q0: float) -> float:
    """Small-eta error of the robust rule at constant eta (chapter 8 (Learning curves), Eqs. 15-16).

    ``dR_inf = p eta/(4 phi(q0))``, ``dq_inf = q0 dR_inf`` and
    ``eps_inf - p = (1-2p) sqrt(p eta phi(q0)/pi)``; returns ``eps_inf``.
    """
    eta = check_real(eta, "eta", 0.0)
    p = check_scalar(p, "p", _FLIP_PROBABILITY, why="label-flip probability")
    q0 = check_real(q0, "q0")
    return p + (1.0 - 2.0 * p) * math.sqrt(p * eta * _phi(q0) / math.pi)


def robust_schedule_asymptote(eta0: float, p: float) -> float:
    """Coefficient ``c`` in ``eps_g - p ~ c alpha^(-1/2)`` (chapter 8 (Learning curves), Eqs. 17-18).

    ``c = (1-2p) sqrt(p/(2 pi)) eta0/sqrt(eta0 - 1)`` for the schedule
    ``robust_schedule(eta0, q0)`` with ``eta0 > 1``; minimal at ``eta0 = 2``, where
    ``c = (1-2p) sqrt(2p/pi)``, independent of q0.
    """
    eta0 = check_real(eta0, "eta0", 1.0)
    p = check_scalar(p, "p", _FLIP_PROBABILITY, why="label-flip probability")
    return (1.0 - 2.0 * p) * math.sqrt(p / (2.0 * math.pi)) * eta0 / math.sqrt(eta0 - 1.0)


# --------------------------------------------------------------------------
# the noise-robust rule as a single learner (``onlinelib.run``)
# --------------------------------------------------------------------------


class NoiseRobustPerceptron(NormalizedPerceptron):
    """The noise-robust rule of Eqs. 10-13 as an online learner (chapter 8 (Learning curves)).

    The same as ``NormalizedPerceptron`` but the update uses ``x - T``. ``T``
    is either given (e.g. the exact ``robust_shift(U, W0)`` of Eq. 13) or, with
    ``T=None``, learned as in Eq. (12): ``T = sum(y x)/sum(y)`` over the examples
    seen so far, the current one included (the previous estimate is kept while
    ``sum(y) = 0``). The estimate needs ``<sigma> != 0``, i.e. ``q0 != 0``.

    Parameters
    ----------
    N : int
        Input dimension, >= 1.
    schedule : float or callable
        Constant learning rate or ``alpha -> eta``.
    T : array_like, shape (N,), optional
        The fixed shift; default: learned from running means.
    W_init : array_like, shape (N,), optional
        Initial weights; default ``e_1``.
    """

    def __init__(self, N: int, schedule: Any, T: Any = None, W_init: Any = None) -> None:
        super().__init__(N, schedule, W_init)
        self.learned = T is None
        self.T = np.zeros(self.N) if T is None else _check_vector(T, "T", self.N, unit=False)
        self._sum_yx = np.zeros(self.N)
        self._sum_y = 0.0

    def _shift(self, x: np.ndarray, y: int) -> np.ndarray:
        if self.learned:
            self._sum_yx += y * x
            self._sum_y += y
            if self._sum_y != 0.0:
                self.T = self._sum_yx / self._sum_y
        return self.T
