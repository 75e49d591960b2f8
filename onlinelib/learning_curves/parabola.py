"""A thresholded smooth function: the parabola family (book chapter 8, "Learning curves", Section 4).

Points ``s`` of the unit square are labelled by the sign of
``f(s; w) = s_2 - w_1 - w_2 s_1^2`` (Eq. 19) and a student ``w`` learns the
target ``w0`` with the gradient rule of Eq. (20). This module gives
``parabola_labels``, the exact error ``parabola_error`` and the Monte Carlo
``simulate_parabola`` (many runs at once, recorded like
``simulate_normalized_perceptron``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..validation import check_int, check_rng
from .simulation import _check_vector, _Recorder
from .theory import _as_schedule, _eta_value

__all__ = [
    "parabola_labels",
    "parabola_error",
    "simulate_parabola",
]


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
    w_a, w_b = w[:, 0].copy(), w[:, 1].copy()  # contiguous, updated in place
    pending = set(int(x) for x in steps)
    t = 0
    while t < n_examples:
        B = min(block, n_examples - t)
        S = rng.random((B, runs, 2))
        teacher = parabola_labels(S, w0)
        x2 = S[:, :, 0] ** 2
        # eta_n * sigma0 for the block; a student's sign is +1 iff s_2 - w_1 - w_2 s_1^2 >= 0
        step = np.array([_eta_value(sched, float(t + k + 1)) for k in range(B)])[:, None] * teacher
        positive = teacher > 0.0
        for k in range(B):
            wrong = (S[k, :, 1] - w_a - w_b * x2[k] >= 0.0) != positive[k]
            c = step[k] * wrong
            w_a -= c
            w_b -= c * x2[k]
            if t + k + 1 in pending:
                rec.store(t + k + 1, lambda a=w_a: a, lambda b=w_b: b)
        t += B
    out_w[:, :, 0], out_w[:, :, 1] = rec.R, rec.q
    return steps, out_w, parabola_error(out_w, w0)
