"""From a mistake bound to a statistical (PAC-style) bound: the online-to-batch conversion.

Book chapter 1, section "Chapter 1 and statistical learning", theorem
"Online to batch". Run an online learner on T examples drawn i.i.d. from a
distribution D over a finite instance set and labelled by a target c*. Let h_t
be the learner's predictor after t examples (t = 0, ..., T-1). Because h_t
depends only on the first t examples and example t+1 is a fresh draw,
E[err_D(h_t)] = Pr(mistake at round t+1), so for tau uniform on {0, ..., T-1}

    E[err_D(h_tau)] = E[M_T] / T <= M / T

for a learner with mistake bound M, and by Markov's inequality
Pr(err_D(h_tau) > M / (delta T)) <= delta (Littlestone 1989).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .protocol import check_learner, check_prediction
from .validation import Interval, check_int, check_labels, check_scalar

__all__ = ["online_to_batch_bound", "hypothesis_errors"]


def _check_distribution(distribution: Any, n: int) -> np.ndarray:
    try:
        p = np.asarray(distribution, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(
            f"distribution must be an array of {n} probabilities, got {type(distribution).__name__}"
        ) from None
    if p.shape != (n,):
        raise ValueError(f"distribution must have shape ({n},), one probability per instance, got shape {p.shape}")
    if not np.isfinite(p).all() or (p < 0).any() or abs(p.sum() - 1.0) > 1e-9:
        raise ValueError(
            f"distribution must be non-negative and sum to 1 (within 1e-9), got sum {p.sum()!r} and minimum {p.min()!r}"
        )
    return p


def hypothesis_errors(
    learner: Any, X: Any, y: Any, target_labels: Any, distribution: Any
) -> tuple[np.ndarray, np.ndarray]:
    """Run ``learner`` on the stream and measure the true error of each intermediate predictor.

    Chapter 1, theorem "Online to batch". Before round t+1 (t = 0, ..., T-1) the
    learner's predictor h_t is evaluated on every instance, and its error under D
    is err_D(h_t) = sum_x D(x) [h_t(x) != c*(x)]. Then the round is played.

    Parameters
    ----------
    learner : Learner
        A fresh learner over instances ``0, ..., n-1``; its ``predict`` must not
        change its predictor (true of the deterministic learners of ``onlinelib``).
    X : array_like of int, shape (T,)
        The instances, typically drawn i.i.d. from ``distribution``.
    y : array_like of {-1, +1}, shape (T,)
        Their labels, ``y[t] = target_labels[X[t]]``.
    target_labels : array_like of {-1, +1}, shape (n,)
        The target concept c* on every instance.
    distribution : array_like of float, shape (n,)
        The probabilities D(x); non-negative, summing to 1.

    Returns
    -------
    errors : ndarray of float, shape (T,)
        ``errors[t] = err_D(h_t)``.
    mistakes : ndarray of bool, shape (T,)
        Whether round t+1 was a mistake.

    Raises
    ------
    TypeError
        If ``learner`` lacks predict/update, or an argument is not numeric.
    ValueError
        If the shapes disagree, an instance is out of range, a label is not ±1,
        a label disagrees with ``target_labels``, or ``distribution`` is not a
        probability vector.
    """
    learner = check_learner(learner)
    c_star = check_labels(np.asarray(target_labels), name="target_labels")
    if c_star.ndim != 1 or len(c_star) == 0:
        raise ValueError(f"target_labels must be a non-empty 1-d array of ±1, got shape {c_star.shape}")
    n = len(c_star)
    p = _check_distribution(distribution, n)
    X = np.asarray(X)
    if X.ndim != 1 or len(X) == 0 or not np.issubdtype(X.dtype, np.integer):
        raise ValueError(f"X must be a non-empty 1-d array of instance indices, got shape {X.shape}, dtype {X.dtype}")
    if (X < 0).any() or (X >= n).any():
        raise ValueError(f"X must hold instance indices in [0, {n - 1}], got values from {X.min()} to {X.max()}")
    y = check_labels(np.asarray(y), name="y")
    if y.shape != X.shape:
        raise ValueError(f"y must have one label per instance, shape {X.shape}, got shape {y.shape}")
    if (c_star[X] != y).any():
        t = int(np.flatnonzero(c_star[X] != y)[0])
        raise ValueError(f"y disagrees with target_labels at round {t + 1} (x = {int(X[t])}, y = {int(y[t]):+d})")
    instances = range(n)
    errors = np.empty(len(X))
    mistakes = np.empty(len(X), dtype=bool)
    for t, (x, label) in enumerate(zip(X.tolist(), y.tolist(), strict=True)):
        h = np.fromiter((learner.predict(z) for z in instances), dtype=np.int64, count=n)
        errors[t] = float(p[h != c_star].sum())
        prediction = check_prediction(learner.predict(x), learner, t + 1)
        mistakes[t] = prediction != label
        learner.update(x, label)
    return errors, mistakes


def online_to_batch_bound(mistake_bound: Any, n_examples: Any, delta: Any = None) -> float:
    """The online-to-batch bound on the error of the randomly chosen predictor h_tau.

    Chapter 1, theorem "Online to batch": with ``delta=None`` the bound
    ``M / T`` on E[err_D(h_tau)]; with ``delta`` in (0, 1] the bound
    ``M / (delta T)`` that holds with probability at least ``1 - delta``.

    Raises
    ------
    TypeError
        If ``mistake_bound`` or ``n_examples`` is not an integer, or ``delta`` not a number.
    ValueError
        If ``mistake_bound < 0``, ``n_examples < 1`` or ``delta`` is not in (0, 1].
    """
    m = check_int(mistake_bound, "mistake_bound", 0)
    t = check_int(n_examples, "n_examples", 1)
    if delta is None:
        return m / t
    delta = check_scalar(delta, "delta", Interval(float, 0, 1, "right"))
    return m / (delta * t)
