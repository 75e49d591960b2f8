"""Monte Carlo simulation of the normalized perceptron (book chapter 8, "Learning curves", Eq. 2).

The rule of Eq. (2) moves a unit student ``W`` towards the unit teacher ``W0``
on a mistake, ``W <- (W + (eta/N) sigma (S - T)) / |...|``, on Gaussian inputs
``S ~ N(U, I_N)`` with labels ``sigma`` (flipped with probability ``p``);
``T = 0`` is the plain rule and ``T`` of Eq. (13) the noise-robust one.

This module gives ``normalized_perceptron_step`` (one example for many runs),
``simulate_normalized_perceptron`` (many independent runs advanced together,
exactly, in ``N`` dimensions or in the reduced three-dimensional form) with its
``SimulationResult``, ``NormalizedPerceptron`` (the same rule as a single
learner for ``onlinelib.run``) and ``one_step_drift`` (the Monte Carlo mean
step that the ODE of ``theory.ode_rhs`` predicts).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..validation import check_int, check_label, check_real, check_rng, check_scalar
from .theory import (
    _FLIP_PROBABILITY,
    ConstantSchedule,
    PowerSchedule,
    _as_schedule,
    _check_overlap,
    _eta_value,
)

__all__ = [
    "normalized_perceptron_step",
    "SimulationResult",
    "simulate_normalized_perceptron",
    "NormalizedPerceptron",
    "one_step_drift",
]


# --------------------------------------------------------------------------
# argument checks
# --------------------------------------------------------------------------


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


def _eta_block(schedule: Callable[[float], float], t: int, B: int, N: int) -> np.ndarray:
    """Learning rates for examples t+1, ..., t+B (alpha = example/N), checked."""
    alphas = np.arange(t + 1, t + B + 1) / N
    if isinstance(schedule, (ConstantSchedule, PowerSchedule)):
        etas = np.asarray(schedule(alphas), dtype=float)
        if np.isfinite(etas).all() and (etas >= 0).all():
            return etas
    return np.array([_eta_value(schedule, a) for a in alphas])


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
    p = check_scalar(p, "p", _FLIP_PROBABILITY, why="label-flip probability")
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
            f"got N={N}, T={'learned' if learned else 'a vector outside that plane'}"
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
            rec.store(t, lambda W=W: W @ W0v, lambda W=W: W @ Uv)
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
    from .. import _kernels  # numba, loaded at the first simulation: `import onlinelib` loads none

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
        # run the block in compiled segments that end where R (and q) must be recorded
        ends = [int(s) - t for s in np.unique(steps[(steps > t) & (steps < t + B)])] + [B]
        start = 0
        for end in ends:
            _kernels.normalized_perceptron_reduced(
                a,
                b,
                r,
                x0,
                x1,
                g,
                teacher,
                positive,
                steps_eta,
                start,
                end,
                T0,
                T1,
                float(N - 3) if N > 3 else 0.0,
                rng,
            )
            start = end
            rec.store(t + end, lambda: a, lambda: a * q0 + b * u1)
        t += B
    # a representative final W: the out-of-plane part in a uniformly random direction
    v = rng.standard_normal((runs, N))
    v -= np.outer(v @ W0v, W0v) + np.outer(v @ e, e)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    W = a[:, None] * W0v + b[:, None] * e + r[:, None] * v
    return rec.R, rec.q, W


# --------------------------------------------------------------------------
# a single learner for the online protocol (``onlinelib.run``)
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


# --------------------------------------------------------------------------
# the ODE's drift, measured
# --------------------------------------------------------------------------


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
    p = check_scalar(p, "p", _FLIP_PROBABILITY, why="label-flip probability")
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
