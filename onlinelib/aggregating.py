"""Vovk's aggregating algorithm for mixable losses: log loss and square loss (chapter 5).

Outcomes are binary, y_t in {0, 1}; expert i predicts a number x_{t,i} in [0, 1] (for log loss,
the probability it gives to y_t = 1). With weights w_i ∝ exp(-eta L_{t-1,i}) over the experts'
past losses, the aggregating algorithm (AA) predicts a number x_t whose loss, for *both*
outcomes, is at most the mixture loss g_t(y) = -(1/eta) ln sum_i p_{t,i} exp(-eta loss(x_{t,i}, y)).
Such an x_t exists for every mixture exactly when the loss is eta-mixable; then the regret is at
most ln N / eta, at every T (chapter 5, Theorem "The aggregating algorithm's regret").

* Log loss, loss(x, y) = -ln(x if y = 1 else 1 - x), is 1-mixable: with eta = 1 the mixture
  x_t = sum_i p_{t,i} x_{t,i} meets g_t(y) with equality (the Bayesian mixture).
* Square loss, loss(x, y) = (x - y)^2, is 2-mixable on binary outcomes; the algorithm plays
  x_t = sqrt(g_t(0)), the point of the proof's concavity argument (chapter 5).

Weights are kept in log space, so a run of any length neither underflows nor overflows; an
expert that gave probability 0 to an outcome that happened has weight exactly 0 from then on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .validation import Interval, check_scalar

__all__ = ["AggregatingRun", "check_binary_outcomes", "aggregating_log_loss", "aggregating_square_loss", "log_loss"]


@dataclass(frozen=True, eq=False)
class AggregatingRun:
    """One run of the aggregating algorithm.

    Attributes
    ----------
    predictions : ndarray, shape (T,)
        The learner's x_t in [0, 1].
    learner_losses : ndarray, shape (T,)
        loss(x_t, y_t).
    mixture_losses : ndarray, shape (T, 2)
        g_t(0) and g_t(1), the mixture losses that the learner's loss must not exceed.
    learner_loss : float
        Sum of ``learner_losses``.
    expert_losses : ndarray, shape (N,)
        Every expert's cumulative loss (``inf`` for a log-loss expert that gave 0 to what happened).
    best_loss : float
        ``min_i`` of ``expert_losses``.
    regret : float
        ``learner_loss - best_loss``.
    eta : float
        The rate used.
    """

    predictions: np.ndarray
    learner_losses: np.ndarray
    mixture_losses: np.ndarray
    learner_loss: float
    expert_losses: np.ndarray
    best_loss: float
    regret: float
    eta: float


def check_binary_outcomes(outcomes: Any, n_rounds: int, name: str = "outcomes") -> np.ndarray:
    """Return ``outcomes`` as an int8 array after checking: shape (T,), every entry 0 or 1.

    Raises
    ------
    TypeError
        If the entries are not numbers.
    ValueError
        If the shape is wrong or an entry is not 0 or 1 (the message names it and its round).
    """
    arr = np.asarray(outcomes)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise TypeError(f"{name} must hold the outcomes 0 and 1 as numbers, got dtype {arr.dtype}")
    if arr.shape != (n_rounds,):
        raise ValueError(f"{name} must have shape ({n_rounds},), one outcome per round, got shape {arr.shape}")
    bad = ~((arr == 0) | (arr == 1))
    if bad.any():
        t = int(np.flatnonzero(bad)[0])
        hint = " (labels in {-1, +1}? map them with (y + 1) // 2)" if arr[t] == -1 else ""
        raise ValueError(f"{name} must be in {{0, 1}}, got {arr[t].item()!r} in round {t + 1}{hint}")
    return arr.astype(np.int8)


def _check_predictions(predictions: Any, name: str = "predictions") -> np.ndarray:
    arr = np.asarray(predictions)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(f"{name} must be a (T, N) matrix of numbers in [0, 1], got dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} must be a (T, N) matrix with T >= 1 rounds and N >= 1 experts, got shape {arr.shape}")
    bad = ~((arr >= 0) & (arr <= 1))  # NaN is bad too
    if bad.any():
        t, i = np.argwhere(bad)[0]
        raise ValueError(f"{name} must lie in [0, 1], got {arr[t, i].item()!r} in round {t + 1}, expert {i}")
    return arr


def log_loss(x: Any, y: Any) -> np.ndarray:
    """-ln of the probability that ``x`` (the probability of 1) gives to ``y`` in {0, 1}; inf for 0."""
    x, y = np.asarray(x, dtype=float), np.asarray(y)
    q = np.where(y == 1, x, 1.0 - x)
    with np.errstate(divide="ignore"):
        return -np.log(q)


def _log_weights(expert_loss: np.ndarray, eta: float) -> np.ndarray:
    """ln p_{t,i} for every round t, from the (T, N) per-round losses, in log space; rows sum to 1."""
    T, N = expert_loss.shape
    before = np.vstack([np.zeros((1, N)), np.cumsum(expert_loss, axis=0)])[:-1]
    logits = -eta * before
    top = logits.max(axis=1, keepdims=True)
    if np.any(np.isneginf(top)):
        t = int(np.flatnonzero(np.isneginf(top[:, 0]))[0])
        raise ValueError(f"every expert gave probability 0 to an outcome before round {t + 1}: no mixture is left")
    with np.errstate(invalid="ignore"):
        shifted = logits - top
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def _mixture_losses(log_p: np.ndarray, losses_if: np.ndarray, eta: float) -> np.ndarray:
    """g_t(y) = -(1/eta) ln sum_i p_i exp(-eta loss_i(y)) for y = 0, 1: shape (T, 2)."""
    a = log_p[:, :, None] - eta * losses_if  # (T, N, 2)
    top = a.max(axis=1, keepdims=True)
    top = np.where(np.isneginf(top), 0.0, top)  # every weighted expert gave the outcome probability 0: g = inf
    total = np.exp(a - top).sum(axis=1)
    with np.errstate(divide="ignore"):
        return -(top[:, 0, :] + np.log(total)) / eta


def _finish(predictions, learner_losses, mixture, expert_loss, eta) -> AggregatingRun:
    totals = expert_loss.sum(axis=0)
    learner = float(learner_losses.sum())
    best = float(totals.min())
    return AggregatingRun(predictions, learner_losses, mixture, learner, totals, best, learner - best, eta)


def aggregating_log_loss(probabilities: Any, outcomes: Any) -> AggregatingRun:
    """The aggregating algorithm for log loss with eta = 1: the Bayesian mixture.

    Chapter 5, Theorem "The aggregating algorithm's regret" and Lemma "Exp-concave losses are mixable;
    the log and square losses", part 2.

    The learner predicts x_t = sum_i p_{t,i} x_{t,i} with p_{t,i} ∝ prod_{s<t} (probability expert i
    gave to y_s). Its total log loss is -ln((1/N) sum_i prod_t q_{t,i}), so the regret against
    every expert is at most ln N, at every T.

    Parameters
    ----------
    probabilities : array_like, shape (T, N)
        x_{t,i} in [0, 1], expert i's probability that y_t = 1.
    outcomes : array_like, shape (T,)
        y_t in {0, 1}.

    Raises
    ------
    ValueError
        Bad shapes or values, or a round before which every expert has infinite loss.
    """
    X = _check_predictions(probabilities, "probabilities")
    y = check_binary_outcomes(outcomes, X.shape[0])
    expert_loss = log_loss(X, y[:, None])
    log_p = _log_weights(expert_loss, 1.0)
    p = np.exp(log_p)
    predictions = np.clip(np.einsum("ij,ij->i", p, X), 0.0, 1.0)
    losses_if = np.stack([log_loss(X, 0), log_loss(X, 1)], axis=2)
    mixture = _mixture_losses(log_p, losses_if, 1.0)
    return _finish(predictions, log_loss(predictions, y), mixture, expert_loss, 1.0)


def aggregating_square_loss(predictions: Any, outcomes: Any, eta: Any = 2.0) -> AggregatingRun:
    """The aggregating algorithm for square loss on binary outcomes.

    Chapter 5, Theorem "The aggregating algorithm's regret" and Lemma "Exp-concave losses are mixable;
    the log and square losses", part 3 (the square loss is 2-mixable).

    The learner predicts x_t = sqrt(g_t(0)) (clipped to [0, 1]), where
    g_t(y) = -(1/eta) ln sum_i p_{t,i} exp(-eta (x_{t,i} - y)^2). For eta <= 2 the chapter proves
    (1 - x_t)^2 <= g_t(1), so the learner's loss never exceeds the mixture loss and the regret is at
    most ln N / eta.

    Parameters
    ----------
    predictions : array_like, shape (T, N)
        x_{t,i} in [0, 1].
    outcomes : array_like, shape (T,)
        y_t in {0, 1}.
    eta : float
        The rate, in (0, 2] (above 2 square loss is not eta-mixable).
    """
    rate = check_scalar(eta, "eta", Interval(float, 0, 2, "right"), why="square loss is mixable only for eta <= 2")
    X = _check_predictions(predictions)
    y = check_binary_outcomes(outcomes, X.shape[0])
    expert_loss = (X - y[:, None]) ** 2
    log_p = _log_weights(expert_loss, rate)
    losses_if = np.stack([X**2, (1.0 - X) ** 2], axis=2)
    mixture = _mixture_losses(log_p, losses_if, rate)
    x_hat = np.clip(np.sqrt(np.maximum(mixture[:, 0], 0.0)), 0.0, 1.0)
    return _finish(x_hat, (x_hat - y) ** 2, mixture, expert_loss, rate)
