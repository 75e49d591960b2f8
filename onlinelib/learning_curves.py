"""Learning curves of the on-line perceptron (book chapter 8, "Learning curves").

Barkai, Seung and Sompolinsky, "On-line learning of dichotomies": a student
perceptron ``W`` (``|W| = 1``) learns a teacher ``W0`` (``|W0| = 1``) from
Gaussian examples ``S ~ N(U, I_N)`` with the normalized perceptron rule (Eq. 2),

    W' = W + (eta/N) * eps(S; W) * sigma(S) * (S - T),     W <- W'/|W'|,

where ``eps = 1`` iff the student's sign differs from the label ``sigma``
(the source's OCR says the opposite; MATH.md section 2.1 erratum), ``T = 0``
for the plain rule and ``T`` = Eq. (13) for the noise-robust rule.

In the thermodynamic limit the overlap ``R = W.W0`` obeys the ODE of Eq. (4),

    dR/dalpha = (eta/sqrt(2 pi)) (1 - R^2) - (eta^2/(2 pi)) R arccos(R),

with ``alpha = t/N`` and generalization error ``eps_g = arccos(R)/pi`` (Eq. 3).
This module gives

* the theory: ``generalization_error`` (Eq. 3), ``ode_rhs`` and ``integrate_R``
  (Eq. 4), ``fixed_point_error`` and ``small_eta_fixed_point`` (Eq. 5),
  ``schedule_asymptote`` (Eq. 6), ``noisy_generalization_error`` (Eq. 8) and
  ``robust_shift`` (Eq. 13);
* learning-rate schedules ``constant_schedule`` and ``power_schedule``;
* ``simulate_normalized_perceptron``, a Monte Carlo simulation of many
  independent runs advanced together, and its one-example building block
  ``normalized_perceptron_step``.

The equations are those reconstructed in MATH.md sections 2.1 and 2.2.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from scipy import integrate, optimize, special

from .protocol import check_int, check_real, check_rng

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
    "normalized_perceptron_step",
    "SimulationResult",
    "simulate_normalized_perceptron",
    "noisy_generalization_error",
    "robust_shift",
]

SQRT_2PI = math.sqrt(2.0 * math.pi)


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


def _check_p(p: Any) -> float:
    p = check_real(p, "p", 0.0, strict=False)
    if p > 0.5:
        raise ValueError(f"p must be a finite real number in [0, 1/2] (label-flip probability), got {p!r}")
    return p


def _check_vector(v: Any, name: str, N: int, *, unit: bool) -> np.ndarray:
    try:
        arr = np.asarray(v, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real vector of shape ({N},), got {v!r}") from None
    if arr.shape != (N,):
        raise ValueError(f"{name} must have shape ({N},) (one entry per input dimension), got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite, got a NaN or infinite entry")
    if unit:
        norm = np.linalg.norm(arr)
        if norm == 0.0:
            raise ValueError(f"{name} must be nonzero (it is normalised to unit length)")
        arr = arr / norm
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
    if isinstance(eta_schedule, (int, float, np.integer, np.floating)) and not isinstance(eta_schedule, (bool, np.bool_)):
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


def ode_rhs(R: Any, eta: Any) -> Any:
    """Right-hand side of the overlap ODE (chapter 8 (Learning curves), Eq. 4).

    ``dR/dalpha = (eta/sqrt(2 pi)) (1 - R^2) - (eta^2/(2 pi)) R arccos(R)``, the
    mean change of ``R`` per example times ``N`` under the normalized perceptron
    rule (Eq. 2), in the limit ``N -> infinity``.

    Parameters
    ----------
    R : float or array_like
        Overlap in [-1, 1].
    eta : float
        Learning rate, >= 0.

    Returns
    -------
    float or ndarray
    """
    arr = _check_overlap(R)
    eta = check_real(eta, "eta", 0.0, strict=False)
    out = eta / SQRT_2PI * (1.0 - arr**2) - eta**2 / (2.0 * np.pi) * arr * np.arccos(arr)
    return float(out) if out.ndim == 0 else out


def _rhs_d(d: float, eta: float) -> float:
    # Eq. (4) for d = 1 - R; written without cancellation near R = 1.
    theta = 2.0 * math.asin(math.sqrt(min(max(d, 0.0), 2.0) / 2.0))
    R = 1.0 - d
    return -(eta / SQRT_2PI * d * (2.0 - d) - eta**2 / (2.0 * np.pi) * R * theta)


def integrate_R(
    alphas: Any,
    eta_schedule: Any,
    R0: float,
    *,
    alpha0: float = 0.0,
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
    rtol, atol : float
        Tolerances passed to ``solve_ivp`` (method LSODA) for ``d``.

    Returns
    -------
    ndarray of float, same length as ``alphas``
        ``R(alpha)``.
    """
    R0 = float(_check_overlap(R0, "R0"))
    alpha0 = check_real(alpha0, "alpha0", 0.0, strict=False)
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
        return [_rhs_d(y[0], _eta_value(schedule, alpha))]

    sol = integrate.solve_ivp(
        f, (alpha0, alphas[-1]), [d0], method="LSODA", t_eval=alphas, rtol=rtol, atol=atol
    )
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
    """Power-law learning rate ``eta(alpha) = min(eta0 sqrt(2 pi)/alpha^z, cap)`` (chapter 8 (Learning curves), Eq. 6)."""

    eta0: float
    z: float
    cap: float | None = None

    def __call__(self, alpha: Any) -> Any:
        a = np.asarray(alpha, dtype=float)
        with np.errstate(divide="ignore"):
            out = self.eta0 * SQRT_2PI / a**self.z
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
    return PowerSchedule(eta0, z, cap)


# --------------------------------------------------------------------------
# simulation: Eq. (2)
# --------------------------------------------------------------------------

def normalized_perceptron_step(
    W: np.ndarray, S: np.ndarray, labels: np.ndarray, eta: float, N: int, T: np.ndarray | None = None
) -> np.ndarray:
    """One example of the normalized perceptron rule for many runs (chapter 8 (Learning curves), Eq. 2).

    ``W' = W + (eta/N) eps sigma (S - T)``, ``eps = 1`` iff ``sgn(W.S) != sigma``
    (``sgn(0) = +1``), then ``W <- W'/|W'|``.

    Parameters
    ----------
    W : ndarray, shape (runs, N)
        Unit student vectors, one per run (not modified).
    S : ndarray, shape (runs, N)
        One input per run.
    labels : ndarray, shape (runs,)
        The (possibly noisy) labels in {-1, +1}.
    eta : float
        Learning rate; the step is ``eta/N``.
    N : int
        Input dimension used in the step size.
    T : ndarray, shape (N,), optional
        Fixed shift of the noise-robust rule (Eq. 10); default 0.

    Returns
    -------
    ndarray, shape (runs, N)
        The updated unit vectors.
    """
    h = np.einsum("rn,rn->r", W, S)
    student = np.where(h >= 0.0, 1.0, -1.0)
    coef = np.where(student != labels, (eta / N) * labels, 0.0)
    X = S if T is None else S - T
    Wn = W + coef[:, None] * X
    Wn /= np.linalg.norm(Wn, axis=1, keepdims=True)
    return Wn


@dataclass(frozen=True, eq=False)
class SimulationResult:
    """Result of ``simulate_normalized_perceptron`` (chapter 8 (Learning curves)).

    Attributes
    ----------
    alpha : ndarray, shape (K,)
        Recorded times ``t/N``.
    R : ndarray, shape (runs, K)
        Overlap ``W.W0`` of each run at each recorded time.
    q : ndarray, shape (runs, K), or None
        ``U.W`` (only when ``U`` was given).
    eps_g : ndarray, shape (runs, K), or None
        ``arccos(R)/pi`` (Eq. 3); only when ``U = 0`` and ``p = 0``, where Eq. 3
        is the generalization error. Otherwise use ``noisy_generalization_error``.
    W : ndarray, shape (runs, N)
        Final student vectors.
    W0 : ndarray, shape (N,)
        The (unit) teacher.
    """

    alpha: np.ndarray
    R: np.ndarray
    q: np.ndarray | None
    eps_g: np.ndarray | None
    W: np.ndarray
    W0: np.ndarray


def simulate_normalized_perceptron(
    N: int,
    n_examples: int,
    runs: int,
    rng: np.random.Generator,
    schedule: Any,
    *,
    p: float = 0.0,
    U: Any = None,
    W0: Any = None,
    W_init: Any = None,
    T: Any = None,
    record: Any = None,
    block: int = 64,
) -> SimulationResult:
    """Simulate the normalized perceptron rule on many independent runs (chapter 8 (Learning curves), Eq. 2).

    All runs are advanced together, one example at a time: example ``t``
    (1-based) uses the learning rate ``eta(alpha)`` at ``alpha = t/N`` and the
    step ``eta/N``, then ``|W|`` is renormalised to 1.

    Parameters
    ----------
    N : int
        Input dimension, >= 1.
    n_examples : int
        Number of examples per run, >= 0 (final ``alpha = n_examples/N``).
    runs : int
        Number of independent runs, >= 1.
    rng : numpy.random.Generator
        Source of all randomness (inputs, label noise, random initial students).
    schedule : float or callable
        Constant learning rate or ``alpha -> eta`` (``constant_schedule``,
        ``power_schedule``).
    p : float, default 0
        Label-flip probability in [0, 1/2] (Section 3).
    U : array_like, shape (N,), optional
        Mean of the inputs ``S ~ N(U, I_N)``; default 0.
    W0 : array_like, shape (N,), optional
        Teacher (normalised to unit length); default ``e_1``.
    W_init : array_like, shape (N,) or (runs, N), optional
        Initial student(s), normalised; default uniformly random unit vectors
        drawn from ``rng``.
    T : array_like, shape (N,), optional
        Fixed shift of the noise-robust rule (Eq. 10), e.g. ``robust_shift(U, W0)``;
        default 0 (the plain rule).
    record : array_like of float, optional
        Times ``alpha`` to record; each ``alpha N`` must be an integer in
        ``[0, n_examples]``. Default: ``alpha = 0, 1, 2, ...`` and the final time.
    block : int, default 64
        Number of examples whose inputs are drawn from ``rng`` at once (affects
        the random stream, hence results for a given seed).

    Returns
    -------
    SimulationResult
    """
    N = check_int(N, "N", 1)
    n_examples = check_int(n_examples, "n_examples", 0)
    runs = check_int(runs, "runs", 1)
    rng = check_rng(rng)
    block = check_int(block, "block", 1)
    sched = _as_schedule(schedule, "schedule")
    p = _check_p(p)
    Uv = None if U is None else _check_vector(U, "U", N, unit=False)
    if W0 is None:
        W0v = np.zeros(N)
        W0v[0] = 1.0
    else:
        W0v = _check_vector(W0, "W0", N, unit=True)
    Tv = None if T is None else _check_vector(T, "T", N, unit=False)
    if W_init is None:
        W = rng.standard_normal((runs, N))
    else:
        try:
            W = np.array(W_init, dtype=float)
        except (TypeError, ValueError):
            raise TypeError(f"W_init must be a real array of shape ({N},) or ({runs}, {N}), got {W_init!r}") from None
        if W.shape == (N,):
            W = np.tile(W, (runs, 1))
        if W.shape != (runs, N) or not np.isfinite(W).all():
            raise ValueError(f"W_init must be a finite array of shape ({N},) or ({runs}, {N}), got shape {W.shape}")
    norms = np.linalg.norm(W, axis=1, keepdims=True)
    if (norms == 0).any():
        raise ValueError("W_init must have nonzero rows (they are normalised to unit length)")
    W = W / norms

    if record is None:
        steps = np.unique(np.append(np.arange(0, n_examples + 1, N), n_examples))
    else:
        rec = np.atleast_1d(np.asarray(record, dtype=float))
        if rec.ndim != 1 or not np.isfinite(rec).all():
            raise ValueError(f"record must be a 1-D sequence of finite times alpha, got {record!r}")
        steps_f = rec * N
        steps = np.rint(steps_f).astype(np.int64)
        if (np.abs(steps_f - steps) > 1e-6).any() or (steps < 0).any() or (steps > n_examples).any():
            raise ValueError(
                f"record must hold times alpha with alpha*N an integer in [0, n_examples={n_examples}], got {record!r}"
            )
    order = np.argsort(steps, kind="stable")
    K = len(steps)
    R_rec = np.empty((runs, K))
    q_rec = None if Uv is None else np.empty((runs, K))

    def store(t: int, idx: int) -> int:
        while idx < K and steps[order[idx]] == t:
            k = order[idx]
            R_rec[:, k] = W @ W0v
            if q_rec is not None:
                q_rec[:, k] = W @ Uv
            idx += 1
        return idx

    idx = store(0, 0)
    t = 0
    while t < n_examples:
        B = min(block, n_examples - t)
        S_block = rng.standard_normal((B, runs, N))
        if Uv is not None:
            S_block += Uv
        flips = rng.random((B, runs)) < p if p > 0 else None
        for b in range(B):
            t += 1
            S = S_block[b]
            labels = np.where(S @ W0v >= 0.0, 1.0, -1.0)
            if flips is not None:
                labels = np.where(flips[b], -labels, labels)
            eta = _eta_value(sched, t / N)
            W = normalized_perceptron_step(W, S, labels, eta, N, Tv)
            idx = store(t, idx)
    eps = None
    if Uv is None or not Uv.any():
        if p == 0.0:
            eps = np.arccos(np.clip(R_rec, -1.0, 1.0)) / np.pi
    return SimulationResult(alpha=steps / N, R=R_rec, q=q_rec, eps_g=eps, W=W, W0=W0v)


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
    p = _check_p(p)
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
    mean_sigma0 = 1.0 - 2.0 * float(_H(q0_true))
    return Uv + W0v * math.sqrt(2.0 / math.pi) * math.exp(-0.5 * q0_true**2) / mean_sigma0
