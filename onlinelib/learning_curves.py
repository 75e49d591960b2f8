"""Learning curves of the on-line perceptron (book chapter 8, "Learning curves").

Barkai, Seung and Sompolinsky, "On-line learning of dichotomies": a student
perceptron ``W`` (``|W| = 1``) learns a teacher ``W0`` (``|W0| = 1``) from
Gaussian examples ``S ~ N(U, I_N)`` with the normalized perceptron rule (Eq. 2)::

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

from .validation import check_int, check_label, check_real, check_rng

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
    "angle_drift",
    "PlaneFixedPoint",
    "plain_noisy_fixed_point",
    "plain_noise_first_order",
    "robust_schedule",
    "integrate_robust_linear",
    "robust_error_near_optimum",
    "robust_fixed_point",
    "robust_schedule_asymptote",
    "NormalizedPerceptron",
    "NoiseRobustPerceptron",
    "one_step_drift",
    "parabola_labels",
    "parabola_error",
    "simulate_parabola",
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


def _eta_block(schedule: Callable[[float], float], t: int, B: int, N: int) -> np.ndarray:
    """Learning rates for examples t+1, ..., t+B (alpha = example/N), checked."""
    alphas = np.arange(t + 1, t + B + 1) / N
    if isinstance(schedule, (ConstantSchedule, PowerSchedule)):
        etas = np.asarray(schedule(alphas), dtype=float)
        if np.isfinite(etas).all() and (etas >= 0).all():
            return etas
    return np.array([_eta_value(schedule, a) for a in alphas])


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
    p = _check_p(p)
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
    p = _check_p(p)
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
    T : ndarray, shape (N,) or (runs, N), optional
        Shift of the noise-robust rule (Eq. 10), shared or one per run; default 0.

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
        ``p + (1-2p) arccos(R)/pi`` (Eq. 3, and Eq. 8 with ``q = q0 = 0``); only
        for centred inputs (``U = 0``). Otherwise use ``noisy_generalization_error``.
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
    method: str = "auto",
) -> SimulationResult:
    """Simulate the normalized perceptron rule on many independent runs (chapter 8 (Learning curves), Eq. 2).

    All runs are advanced together, one example at a time: example ``t``
    (1-based) uses the learning rate ``eta(alpha)`` at ``alpha = t/N`` and the
    step ``eta/N``, then ``|W|`` is renormalised to 1.

    Two exact methods are available. ``"full"`` draws every input ``S`` in
    ``N`` dimensions. ``"reduced"`` uses rotational symmetry: write
    ``W = a W0 + b e + r v`` with ``e`` the unit vector along ``U - q0 W0`` and
    ``v`` a unit vector orthogonal to both. The noise of ``S`` orthogonal to
    ``W0`` and ``e`` is isotropic, so its component along ``v`` is a fresh
    standard normal ``g`` and the rest has squared length ``chi^2_{N-3}``,
    independent of ``g``. The update therefore moves ``(a, b, r)`` with at most
    four random numbers per example instead of ``N``, and the law of
    ``(R, q)`` is exactly the same as in the full simulation. It needs ``N >= 3``
    and a shift ``T`` in the plane of ``W0`` and ``U``.

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
        ``power_schedule``, ``robust_schedule``).
    p : float, default 0
        Label-flip probability in [0, 1/2] (Section 3).
    U : array_like, shape (N,), optional
        Mean of the inputs ``S ~ N(U, I_N)``; default 0.
    W0 : array_like, shape (N,), optional
        Teacher (normalised to unit length); default ``e_1``.
    W_init : array_like, shape (N,) or (runs, N), optional
        Initial student(s), normalised; default uniformly random unit vectors
        drawn from ``rng``.
    T : array_like of shape (N,), or "learned", optional
        Shift of the noise-robust rule (Eq. 10). An array is a fixed shift, e.g.
        the exact ``robust_shift(U, W0)`` of Eq. (13). ``"learned"`` estimates
        ``T = <sigma S>/<sigma>`` (Eq. 12) in every run from running sums of
        ``sigma S`` and ``sigma`` over the examples seen so far, the current one
        included; while the running sum of ``sigma`` is 0 the previous estimate
        is kept (0 before any). Default: no shift (the plain rule).
    record : array_like of float, optional
        Times ``alpha`` to record; each ``alpha N`` must be an integer in
        ``[0, n_examples]``. Default: ``alpha = 0, 1, 2, ...`` and the final time.
    block : int, default 64
        Number of examples whose random numbers are drawn from ``rng`` at once
        (affects the random stream, hence results for a given seed).
    method : {"auto", "full", "reduced"}, default "auto"
        ``"auto"`` takes ``"reduced"`` whenever it applies. The two methods use
        the random stream differently, so one seed gives different (equally
        distributed) runs.

    Returns
    -------
    SimulationResult
        With ``method="reduced"`` the final ``W`` has its component orthogonal
        to ``W0`` and ``U`` pointed in a uniformly random direction drawn from
        ``rng``: exact in distribution, by the same symmetry.
    """
    N = check_int(N, "N", 1)
    n_examples = check_int(n_examples, "n_examples", 0)
    runs = check_int(runs, "runs", 1)
    rng = check_rng(rng)
    block = check_int(block, "block", 1)
    sched = _as_schedule(schedule, "schedule")
    p = _check_p(p)
    if method not in ("auto", "full", "reduced"):
        raise ValueError(f'method must be "auto", "full" or "reduced", got {method!r}')
    Uv = None if U is None else _check_vector(U, "U", N, unit=False)
    if W0 is None:
        W0v = np.zeros(N)
        W0v[0] = 1.0
    else:
        W0v = _check_vector(W0, "W0", N, unit=True)
    learned = isinstance(T, str)
    if learned and T != "learned":
        raise ValueError(f'T must be a vector of shape ({N},) or "learned", got {T!r}')
    Tv = None if T is None or learned else _check_vector(T, "T", N, unit=False)
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
    steps = _record_steps(record, N, n_examples)

    plane = _plane_basis(W0v, Uv, N)
    reducible = N >= 3 and not learned and (Tv is None or _in_plane(Tv, W0v, plane))
    if method == "reduced" and not reducible:
        raise ValueError(
            'method="reduced" needs N >= 3 and a fixed shift T in the plane of W0 and U; '
            f'got N={N}, T={"learned" if learned else "a vector outside that plane"}'
        )
    if method == "full" or not reducible:
        R_rec, q_rec, W = _simulate_full(W, W0v, Uv, Tv, learned, p, N, n_examples, runs, rng, sched, steps, block)
    else:
        R_rec, q_rec, W = _simulate_reduced(W, W0v, Uv, Tv, plane, p, N, n_examples, runs, rng, sched, steps, block)
    eps = None
    if Uv is None or not Uv.any():
        eps = p + (1.0 - 2.0 * p) * np.arccos(np.clip(R_rec, -1.0, 1.0)) / np.pi
    return SimulationResult(alpha=steps / N, R=R_rec, q=q_rec, eps_g=eps, W=W, W0=W0v)


def _record_steps(record: Any, N: int, n_examples: int) -> np.ndarray:
    if record is None:
        return np.unique(np.append(np.arange(0, n_examples + 1, N), n_examples))
    rec = np.atleast_1d(np.asarray(record, dtype=float))
    if rec.ndim != 1 or not np.isfinite(rec).all():
        raise ValueError(f"record must be a 1-D sequence of finite times alpha, got {record!r}")
    steps_f = rec * N
    steps = np.rint(steps_f).astype(np.int64)
    if (np.abs(steps_f - steps) > 1e-6).any() or (steps < 0).any() or (steps > n_examples).any():
        raise ValueError(
            f"record must hold times alpha with alpha*N an integer in [0, n_examples={n_examples}], got {record!r}"
        )
    return steps


class _Recorder:
    """Stores R (and q) of all runs at the requested example counts."""

    def __init__(self, steps: np.ndarray, runs: int, with_q: bool) -> None:
        self.steps = steps
        self.order = np.argsort(steps, kind="stable")
        self.idx = 0
        self.R = np.empty((runs, len(steps)))
        self.q = np.empty((runs, len(steps))) if with_q else None

    def store(self, t: int, R: Callable[[], np.ndarray], q: Callable[[], np.ndarray]) -> None:
        while self.idx < len(self.steps) and self.steps[self.order[self.idx]] == t:
            k = self.order[self.idx]
            self.R[:, k] = R()
            if self.q is not None:
                self.q[:, k] = q()
            self.idx += 1


def _simulate_full(W, W0v, Uv, Tv, learned, p, N, n_examples, runs, rng, sched, steps, block):
    rec = _Recorder(steps, runs, Uv is not None)
    if learned:
        sum_sigma_S = np.zeros((runs, N))
        sum_sigma = np.zeros(runs)
        T_est = np.zeros((runs, N))
    rec.store(0, lambda: W @ W0v, lambda: W @ Uv)
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
            if learned:
                sum_sigma_S += labels[:, None] * S
                sum_sigma += labels
                ok = sum_sigma != 0.0
                T_est[ok] = sum_sigma_S[ok] / sum_sigma[ok, None]
                Tv = T_est
            W = normalized_perceptron_step(W, S, labels, eta, N, Tv)
            rec.store(t, lambda: W @ W0v, lambda: W @ Uv)
    return rec.R, rec.q, W


def _plane_basis(W0v: np.ndarray, Uv: np.ndarray | None, N: int) -> np.ndarray | None:
    # unit vector e orthogonal to W0 along U - q0 W0 (any orthogonal one if U is along W0)
    if N < 2:
        return None
    if Uv is not None:
        e = Uv - (Uv @ W0v) * W0v
        if np.linalg.norm(e) > 1e-12 * max(1.0, np.linalg.norm(Uv)):
            return e / np.linalg.norm(e)
    k = int(np.argmin(np.abs(W0v)))
    e = -W0v[k] * W0v
    e[k] += 1.0
    return e / np.linalg.norm(e)


def _in_plane(Tv: np.ndarray, W0v: np.ndarray, e: np.ndarray | None) -> bool:
    if e is None:
        return False
    rest = Tv - (Tv @ W0v) * W0v - (Tv @ e) * e
    return bool(np.linalg.norm(rest) <= 1e-9 * max(1.0, np.linalg.norm(Tv)))


def _simulate_reduced(W, W0v, Uv, Tv, e, p, N, n_examples, runs, rng, sched, steps, block):
    q0 = 0.0 if Uv is None else float(Uv @ W0v)
    u1 = 0.0 if Uv is None else float(Uv @ e)
    T0, T1 = (0.0, 0.0) if Tv is None else (float(Tv @ W0v), float(Tv @ e))
    a = W @ W0v
    b = W @ e
    r = np.sqrt(np.maximum(1.0 - a * a - b * b, 0.0))
    rec = _Recorder(steps, runs, Uv is not None)
    rec.store(0, lambda: a, lambda: a * q0 + b * u1)
    t = 0
    while t < n_examples:
        B = min(block, n_examples - t)
        x0 = rng.standard_normal((B, runs)) + q0
        x1 = rng.standard_normal((B, runs)) + u1
        g = rng.standard_normal((B, runs))
        teacher = np.where(x0 >= 0.0, 1.0, -1.0)
        if p > 0:
            teacher = np.where(rng.random((B, runs)) < p, -teacher, teacher)
        positive = teacher > 0.0
        steps_eta = _eta_block(sched, t, B, N) / N
        for k in range(B):
            t += 1
            h = a * x0[k]
            h += b * x1[k]
            h += r * g[k]
            wrong = np.flatnonzero((h >= 0.0) != positive[k])
            if wrong.size:  # only mistaken runs move; late in learning these are few
                c = steps_eta[k] * teacher[k, wrong]
                aw = a[wrong] + c * (x0[k, wrong] - T0)
                bw = b[wrong] + c * (x1[k, wrong] - T1)
                # squared length of the noise outside W0, e and v: needed only on mistakes
                chi = rng.chisquare(N - 3, wrong.size) if N > 3 else 0.0
                rw = np.sqrt((r[wrong] + c * g[k, wrong]) ** 2 + c * c * chi)
                norm = np.sqrt(aw * aw + bw * bw + rw * rw)
                a[wrong], b[wrong], r[wrong] = aw / norm, bw / norm, rw / norm
            rec.store(t, lambda: a, lambda: a * q0 + b * u1)
    # a representative final W: the out-of-plane part in a uniformly random direction
    v = rng.standard_normal((runs, N))
    v -= np.outer(v @ W0v, W0v) + np.outer(v @ e, e)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    W = a[:, None] * W0v + b[:, None] * e + r[:, None] * v
    return rec.R, rec.q, W


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
    q0 = check_real(q0, "q0")
    u = check_real(u, "u", 0.0, strict=False)
    if abs(q0) > u:
        raise ValueError(f"q0 = U.W0 must satisfy |q0| <= u = |U| (W0 is a unit vector), got q0={q0!r}, u={u!r}")
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
    p = _check_p(p)
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
    dis = sum(integrate.quad(f, lo, hi, epsabs=1e-14, limit=200)[0] for lo, hi in zip(edges, edges[1:]) if lo < hi)
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
    p = _check_p(p)
    q0, u = _check_geometry(q0, u)
    grid = check_int(grid, "grid", 8)
    thetas = np.linspace(-math.pi, math.pi, grid)
    G = np.array([angle_drift(t, p, q0, u) for t in thetas])
    best = None
    for i in range(grid - 1):
        if G[i] > 0.0 >= G[i + 1] or G[i] == 0.0 and (i == 0 or G[i - 1] > 0.0):
            th = thetas[i] if G[i] == 0.0 else optimize.brentq(
                angle_drift, thetas[i], thetas[i + 1], args=(p, q0, u), xtol=1e-13
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
    p = _check_p(p)
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
    p = _check_p(p)
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
    p = _check_p(p)
    q0 = check_real(q0, "q0")
    dR_a, dq_a = np.broadcast_arrays(np.asarray(dR, dtype=float), np.asarray(dq, dtype=float))
    if (dR_a < 0).any() or not np.isfinite(dR_a).all() or not np.isfinite(dq_a).all():
        raise ValueError("dR must be finite and >= 0 (dR = 1 - R) and dq finite")
    out = np.array([
        p + (1.0 - 2.0 * p) * _phi(q0) * _mean_abs_normal(q0 * a - b, math.sqrt(2.0 * a))
        for a, b in zip(dR_a.ravel(), dq_a.ravel())
    ]).reshape(dR_a.shape)
    return float(out) if out.ndim == 0 else out


def robust_fixed_point(eta: float, p: float, q0: float) -> float:
    """Small-eta error of the robust rule at constant eta (chapter 8 (Learning curves), Eqs. 15-16).

    ``dR_inf = p eta/(4 phi(q0))``, ``dq_inf = q0 dR_inf`` and
    ``eps_inf - p = (1-2p) sqrt(p eta phi(q0)/pi)``; returns ``eps_inf``.
    """
    eta = check_real(eta, "eta", 0.0)
    p = _check_p(p)
    q0 = check_real(q0, "q0")
    return p + (1.0 - 2.0 * p) * math.sqrt(p * eta * _phi(q0) / math.pi)


def robust_schedule_asymptote(eta0: float, p: float) -> float:
    """Coefficient ``c`` in ``eps_g - p ~ c alpha^(-1/2)`` (chapter 8 (Learning curves), Eqs. 17-18).

    ``c = (1-2p) sqrt(p/(2 pi)) eta0/sqrt(eta0 - 1)`` for the schedule
    ``robust_schedule(eta0, q0)`` with ``eta0 > 1``; minimal at ``eta0 = 2``, where
    ``c = (1-2p) sqrt(2p/pi)``, independent of q0.
    """
    eta0 = check_real(eta0, "eta0", 1.0)
    p = _check_p(p)
    return (1.0 - 2.0 * p) * math.sqrt(p / (2.0 * math.pi)) * eta0 / math.sqrt(eta0 - 1.0)


# --------------------------------------------------------------------------
# single learners for the online protocol (``onlinelib.run``)
# --------------------------------------------------------------------------

class NormalizedPerceptron:
    """The normalized perceptron of Eq. 2 as an online learner (chapter 8 (Learning curves)).

    ``predict(x) = sgn(W.x)`` (``sgn(0) = +1``). ``update(x, y)`` counts the
    example (``t += 1``), and on a mistake sets
    ``W <- (W + (eta/N) y (x - T)) / |...|`` with ``eta = schedule(t/N)``; the
    plain rule has ``T = 0``. For many independent runs at once use
    ``simulate_normalized_perceptron``, which advances the same rule.

    Parameters
    ----------
    N : int
        Input dimension, >= 1.
    schedule : float or callable
        Constant learning rate (>= 0) or ``alpha -> eta``.
    W_init : array_like, shape (N,), optional
        Initial weights (normalised); default ``e_1``.

    Attributes
    ----------
    W : ndarray, shape (N,)
        Current unit weight vector.
    t : int
        Examples seen.
    """

    def __init__(self, N: int, schedule: Any, W_init: Any = None) -> None:
        self.N = check_int(N, "N", 1)
        self.schedule = _as_schedule(schedule, "schedule")
        if W_init is None:
            W_init = np.eye(self.N)[0]
        self.W = _check_vector(W_init, "W_init", self.N, unit=True)
        self.t = 0

    def _x(self, x: Any) -> np.ndarray:
        return _check_vector(x, "x", self.N, unit=False)

    def _shift(self, x: np.ndarray, y: int) -> np.ndarray | None:
        return None

    def predict(self, x: Any) -> int:
        return 1 if self.W @ self._x(x) >= 0.0 else -1

    def update(self, x: Any, y: int) -> None:
        x = self._x(x)
        y = check_label(y)
        self.t += 1
        T = self._shift(x, y)
        eta = _eta_value(self.schedule, self.t / self.N)
        self.W = normalized_perceptron_step(self.W[None, :], x[None, :], np.array([float(y)]), eta, self.N, T)[0]


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


def one_step_drift(
    R: float, eta: float, N: int, samples: int, rng: np.random.Generator, p: float = 0.0
) -> tuple[float, float]:
    """Monte Carlo mean of ``N dR`` for one update from overlap ``R`` (chapter 8 (Learning curves), Eq. 4).

    Places ``W = R W0 + sqrt(1-R^2) e``, draws ``samples`` centred Gaussian
    inputs, applies one step of Eq. 2 with label noise ``p``, and returns the
    mean of ``N (R' - R)`` with its standard error. Exact and cheap: the step
    only needs ``h0 = W0.S``, the field along ``e`` and ``|S|^2``, so each sample
    costs three random numbers (``|S|^2 - h0^2 - h1^2 ~ chi^2_{N-2}``). As
    ``N -> infinity`` the mean tends to ``ode_rhs(R, eta, p)``.

    Returns
    -------
    (mean, standard_error) : floats
    """
    R = float(_check_overlap(R))
    eta = check_real(eta, "eta", 0.0, strict=False)
    N = check_int(N, "N", 2)
    samples = check_int(samples, "samples", 2)
    rng = check_rng(rng)
    p = _check_p(p)
    s = math.sqrt(max(1.0 - R * R, 0.0))
    h0 = rng.standard_normal(samples)
    h1 = rng.standard_normal(samples)
    rest = rng.chisquare(N - 2, samples) if N > 2 else np.zeros(samples)
    teacher = np.where(h0 >= 0.0, 1.0, -1.0)
    label = np.where(rng.random(samples) < p, -teacher, teacher) if p > 0 else teacher
    h = R * h0 + s * h1
    c = np.where((h >= 0.0) != (label > 0.0), (eta / N) * label, 0.0)
    norm2 = 1.0 + 2.0 * c * h + c * c * (h0 * h0 + h1 * h1 + rest)
    dR = N * ((R + c * h0) / np.sqrt(norm2) - R)
    return float(dR.mean()), float(dR.std(ddof=1) / math.sqrt(samples))


# --------------------------------------------------------------------------
# Section 4: a thresholded smooth function
# --------------------------------------------------------------------------

def parabola_labels(S: np.ndarray, w: Any) -> np.ndarray:
    """Labels ``sgn(f(s; w))`` of the parabola family (chapter 8 (Learning curves), Section 4, Eq. 19).

    ``f(s; w) = s_2 - w_1 - w_2 s_1^2`` for points ``s`` in the unit square:
    a point is +1 when it lies above the curve ``s_2 = w_1 + w_2 s_1^2``.
    ``sgn(0) = +1``. ``S`` has shape (..., 2), ``w`` shape (2,) or broadcastable.
    """
    S = np.asarray(S, dtype=float)
    w = np.asarray(w, dtype=float)
    f = S[..., 1] - w[..., 0] - w[..., 1] * S[..., 0] ** 2
    return np.where(f >= 0.0, 1.0, -1.0)


def parabola_error(w: Any, w0: Any) -> Any:
    """Exact disagreement ``P(sgn f(s; w) != sgn f(s; w0))`` for uniform ``s`` (chapter 8 (Learning curves), Section 4).

    The area between the two curves clipped to the unit square,
    ``int_0^1 |clip(w_1 + w_2 x^2) - clip(w0_1 + w0_2 x^2)| dx``, computed in
    closed form when both curves stay inside the square and by a 4096-point
    midpoint rule otherwise. It is homogeneous of degree 1 in ``w - w0`` (the
    property behind ``eps_inf ~ eta``).

    Parameters
    ----------
    w : array_like, shape (2,) or (runs, 2)
    w0 : array_like, shape (2,)
    """
    w = np.asarray(w, dtype=float)
    w0 = _check_vector(w0, "w0", 2, unit=False)
    if w.shape[-1:] != (2,) or not np.isfinite(w).all():
        raise ValueError(f"w must be finite with last dimension 2, got shape {w.shape}")
    flat = w.reshape(-1, 2)
    d1, d2 = flat[:, 0] - w0[0], flat[:, 1] - w0[1]
    inside = (np.minimum(flat[:, 0], flat.sum(1)) >= 0) & (np.maximum(flat[:, 0], flat.sum(1)) <= 1)
    inside &= min(w0[0], w0.sum()) >= 0 and max(w0[0], w0.sum()) <= 1
    F = lambda x: d1 * x + d2 * x**3 / 3.0  # noqa: E731
    with np.errstate(divide="ignore", invalid="ignore"):
        xr = np.sqrt(-d1 / d2)
    cross = np.isfinite(xr) & (xr > 0) & (xr < 1)
    xr = np.where(cross, xr, 1.0)
    out = np.abs(F(xr)) + np.abs(F(1.0) - F(xr))
    if not inside.all():
        x = (np.arange(4096) + 0.5) / 4096
        g0 = np.clip(w0[0] + w0[1] * x**2, 0, 1)
        for i in np.flatnonzero(~inside):  # row by row: a runs x 4096 array can be huge
            out[i] = np.abs(np.clip(flat[i, 0] + flat[i, 1] * x**2, 0, 1) - g0).mean()
    out = out.reshape(w.shape[:-1])
    return float(out) if out.ndim == 0 else out


def simulate_parabola(
    w0: Any,
    n_examples: int,
    runs: int,
    rng: np.random.Generator,
    schedule: Any,
    *,
    w_init: Any = None,
    record: Any = None,
    block: int = 256,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gradient rule (Eq. 20) on the parabola family, many runs at once (chapter 8 (Learning curves), Section 4).

    Inputs are uniform on the unit square, labels are ``parabola_labels(s, w0)``,
    and on a mistake ``w <- w + eta_n sigma0 grad_w f(s; w)`` with
    ``grad_w f = (-1, -s_1^2)``. Here time is the example count ``n`` (the
    parameter space is fixed), and ``schedule`` maps ``n`` to ``eta_n``.

    Parameters
    ----------
    w0 : array_like, shape (2,)
        Target parameters.
    n_examples, runs : int
        Examples per run (>= 0) and independent runs (>= 1).
    rng : numpy.random.Generator
    schedule : float or callable
        Constant eta or ``n -> eta_n``, e.g. ``PowerSchedule(eta0, 1.0)``.
    w_init : array_like, shape (2,), optional
        Start; default ``w0``.
    record : array_like of int, optional
        Example counts to record (default: the final one).

    Returns
    -------
    (n, w, eps) : ndarrays
        Recorded counts (K,), parameters (runs, K, 2) and exact errors (runs, K).
    """
    w0 = _check_vector(w0, "w0", 2, unit=False)
    n_examples = check_int(n_examples, "n_examples", 0)
    runs = check_int(runs, "runs", 1)
    rng = check_rng(rng)
    block = check_int(block, "block", 1)
    sched = _as_schedule(schedule, "schedule")
    w = np.tile(w0 if w_init is None else _check_vector(w_init, "w_init", 2, unit=False), (runs, 1))
    steps = np.array([n_examples] if record is None else np.atleast_1d(record))
    if steps.ndim != 1 or not np.issubdtype(steps.dtype, np.integer) or (steps < 0).any() or (steps > n_examples).any():
        raise ValueError(f"record must be integer example counts in [0, {n_examples}], got {record!r}")
    rec = _Recorder(steps, runs, True)
    out_w = np.empty((runs, len(steps), 2))
    rec.store(0, lambda: w[:, 0], lambda: w[:, 1])
    t = 0
    while t < n_examples:
        B = min(block, n_examples - t)
        S = rng.random((B, runs, 2))
        teacher = parabola_labels(S, w0)
        for k in range(B):
            t += 1
            eta = _eta_value(sched, float(t))
            s = S[k]
            student = np.where(s[:, 1] - w[:, 0] - w[:, 1] * s[:, 0] ** 2 >= 0.0, 1.0, -1.0)
            c = np.where(student != teacher[k], eta * teacher[k], 0.0)
            w[:, 0] -= c
            w[:, 1] -= c * s[:, 0] ** 2
            rec.store(t, lambda: w[:, 0], lambda: w[:, 1])
    out_w[:, :, 0], out_w[:, :, 1] = rec.R, rec.q
    return steps, out_w, parabola_error(out_w, w0)
