"""Follow the Leader, Follow the Regularized Leader and Follow the Perturbed Leader (chapter 5).

The experts setting with losses: in round t every expert i suffers a loss l_{t,i}, the learner
plays a distribution p_t over the experts (or one expert i_t) chosen from the past losses only,
and suffers p_t . l_t. ``L_{t,i}`` is expert i's cumulative loss after t rounds.

* Follow the Leader (FTL) plays the expert with the smallest L_{t-1,i} (lowest index on ties).
  With an integer loss matrix every quantity it returns is an exact integer.
* FTRL with the entropic regulariser, p_t = argmin_p <p, L_{t-1}> + (1/eta) sum_i p_i ln p_i over
  the simplex, is the softmax p_t ∝ exp(-eta L_{t-1}): Hedge (chapter 5, Theorem "Hedge is FTRL
  and mirror descent"). ``entropic_ftrl`` computes it in that closed form and
  ``entropic_mirror_descent`` by the recursion p_{t+1} ∝ p_t exp(-eta l_t), so that a chapter can
  check that the two agree; ``entropic_objective`` evaluates the FTRL objective.
* Follow the Perturbed Leader (FTPL) plays argmin_i (L_{t-1,i} - Z_i) for a random vector Z:
  exponential perturbations (Kalai and Vempala), uniform ones (Hannan), or Gumbel ones, with
  which the choice is distributed exactly as Hedge's p_t.

The bounds of chapter 5's theorems on these algorithms are ``small_loss_bound``,
``small_loss_tuned_eta``, ``small_loss_tuned_regret`` and ``ftpl_exponential_bound``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .validation import Interval, check_int, check_rng, check_scalar

__all__ = [
    "FTRLRun",
    "check_losses",
    "follow_the_leader",
    "entropic_ftrl",
    "entropic_mirror_descent",
    "entropic_objective",
    "follow_perturbed_leader",
    "PERTURBATIONS",
    "small_loss_bound",
    "small_loss_tuned_eta",
    "small_loss_tuned_regret",
    "ftpl_exponential_bound",
]

PERTURBATIONS = ("exponential", "gumbel", "uniform")


@dataclass(frozen=True, eq=False)
class FTRLRun:
    """One run of a leader-following learner on a (T, N) loss matrix.

    Attributes
    ----------
    weights : ndarray, shape (T + 1, N)
        Row t (0-based) is the distribution p_{t+1} played in round t + 1, computed from the losses
        of rounds 1..t; the last row, p_{T+1}, is what the learner would play next.
    mixed : ndarray, shape (T,)
        The learner's loss p_t . l_t in each round.
    learner_loss : float or int
        ``mixed.sum()``; an exact int for FTL on an integer loss matrix.
    expert_losses : ndarray, shape (N,)
        Every expert's cumulative loss L_{T,i}.
    best_loss : float or int
        ``min_i L_{T,i}``.
    regret : float or int
        ``learner_loss - best_loss``.
    """

    weights: np.ndarray
    mixed: np.ndarray
    learner_loss: Any
    expert_losses: np.ndarray
    best_loss: Any
    regret: Any


def check_losses(losses: Any, name: str = "losses", *, bounded: bool = True) -> np.ndarray:
    """Return a (T, N) loss matrix as an array after checking its shape and entries.

    Parameters
    ----------
    losses : array_like, shape (T, N)
        Real losses, T >= 1 rounds and N >= 1 experts. Integer arrays keep their dtype (so that FTL
        can be exact); everything else becomes float64.
    name : str
        The argument's name in the messages.
    bounded : bool
        Require every entry in [0, 1] (the setting of Hedge, FTPL and their bounds).

    Raises
    ------
    TypeError
        If the entries are not real numbers (booleans, strings, objects).
    ValueError
        If the shape is not (T, N) with T, N >= 1, an entry is NaN or infinite, or (``bounded``) an
        entry lies outside [0, 1]; the message names the round and the expert.
    """
    arr = np.asarray(losses)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number) or np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(f"{name} must be a (T, N) matrix of real numbers, got dtype {arr.dtype}")
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} must be a (T, N) matrix with T >= 1 rounds and N >= 1 experts, got shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        arr = arr.astype(np.float64)
        bad = ~np.isfinite(arr)
        if bad.any():
            t, i = np.argwhere(bad)[0]
            raise ValueError(f"{name} must be finite, got {arr[t, i].item()!r} in round {t + 1}, expert {i}")
    if bounded:
        bad = (arr < 0) | (arr > 1)
        if bad.any():
            t, i = np.argwhere(bad)[0]
            raise ValueError(f"{name} must lie in [0, 1], got {arr[t, i].item()!r} in round {t + 1}, expert {i}")
    return arr


def _check_eta(eta: Any, n_rounds: int) -> np.ndarray:
    """A positive rate, or a non-increasing array of T positive rates, as a (T,) float array."""
    if np.ndim(eta) == 0:
        return np.full(n_rounds, check_scalar(eta, "eta", Interval(float, 0, None, "neither")))
    rates = np.asarray(eta, dtype=float)
    if rates.shape != (n_rounds,):
        raise ValueError(f"eta must be a number or an array of T = {n_rounds} rates, got shape {rates.shape}")
    if not np.all(np.isfinite(rates)) or rates.min() <= 0:
        raise ValueError(
            f"eta must hold finite rates > 0, got {rates[~(np.isfinite(rates) & (rates > 0))][0].item()!r}"
        )
    if np.any(np.diff(rates) > 0):
        raise ValueError("eta must be non-increasing (eta_t <= eta_(t-1)), got an increase")
    return rates


def _run(weights: np.ndarray, losses: np.ndarray) -> FTRLRun:
    mixed = np.einsum("ij,ij->i", weights[:-1], losses)
    totals = losses.sum(axis=0)
    learner, best = float(mixed.sum()), float(totals.min())
    return FTRLRun(weights, mixed, learner, totals, best, learner - best)


def follow_the_leader(losses: Any) -> FTRLRun:
    """Follow the Leader: play the expert with the smallest loss so far.

    Chapter 5, Theorem "Follow the Leader has linear regret; entropy repairs it".

    In round t FTL puts all its weight on argmin_i L_{t-1,i}, the lowest index among tied leaders
    (so round 1 plays expert 0). It is FTRL with no regulariser.

    Parameters
    ----------
    losses : array_like, shape (T, N)
        Any finite real losses. With an integer matrix the cumulative losses, the learner's loss and
        the regret are exact Python ints, so a claim such as "regret = T/2" is decided exactly.

    Returns
    -------
    FTRLRun
        ``weights`` one-hot rows; ``mixed`` the loss of the expert played.
    """
    arr = check_losses(losses, bounded=False)
    T, N = arr.shape
    before = np.vstack([np.zeros((1, N), dtype=arr.dtype), np.cumsum(arr, axis=0)])
    leaders = np.argmin(before, axis=1)  # lowest index on ties
    weights = np.zeros((T + 1, N))
    weights[np.arange(T + 1), leaders] = 1.0
    mixed = arr[np.arange(T), leaders[:-1]]
    totals = before[-1]
    if np.issubdtype(arr.dtype, np.integer):
        learner, best = int(mixed.sum()), int(totals.min())
    else:
        learner, best = float(mixed.sum()), float(totals.min())
    return FTRLRun(weights, mixed, learner, totals, best, learner - best)


def entropic_ftrl(losses: Any, eta: Any) -> FTRLRun:
    """FTRL with the entropic regulariser, in closed form: Hedge.

    Chapter 5, Theorem "Hedge is FTRL and mirror descent".

    p_t = argmin over the simplex of <p, L_{t-1}> + (1/eta_t) sum_i p_i ln p_i, which is the
    softmax p_{t,i} ∝ exp(-eta_t L_{t-1,i}) (the Gibbs variational principle), computed from the
    cumulative losses, shifted by their minimum so that nothing underflows.

    Parameters
    ----------
    losses : array_like, shape (T, N)
        Losses in [0, 1].
    eta : float or array_like, shape (T,)
        A rate > 0, or a non-increasing schedule eta_1 >= ... >= eta_T > 0 (p_{T+1} uses eta_T).
    """
    arr = check_losses(losses).astype(np.float64)
    T, N = arr.shape
    rates = _check_eta(eta, T)
    before = np.vstack([np.zeros((1, N)), np.cumsum(arr, axis=0)])
    rates_next = np.append(rates, rates[-1])
    logits = -rates_next[:, None] * (before - before.min(axis=1, keepdims=True))
    weights = np.exp(logits)
    weights /= weights.sum(axis=1, keepdims=True)
    return _run(weights, arr)


def entropic_mirror_descent(losses: Any, eta: Any) -> FTRLRun:
    """Mirror descent with the entropic mirror map (exponentiated gradient) on the simplex.

    Chapter 5, Theorem "Hedge is FTRL and mirror descent".

    p_1 is uniform and p_{t+1} = argmin_p eta <p, l_t> + KL(p || p_t), that is
    p_{t+1,i} = p_{t,i} exp(-eta l_{t,i}) / Z_t, computed by this recursion, one round at a time,
    renormalising every round. With a constant rate the result is Hedge's p_t, as
    ``entropic_ftrl`` computes it in closed form (the theorem above); the two differ only by
    rounding.

    Parameters
    ----------
    losses : array_like, shape (T, N)
        Losses in [0, 1].
    eta : float
        A constant rate > 0.
    """
    arr = check_losses(losses).astype(np.float64)
    rate = check_scalar(eta, "eta", Interval(float, 0, None, "neither"))
    T, N = arr.shape
    factors = np.exp(-rate * arr)
    weights = np.empty((T + 1, N))
    p = np.full(N, 1.0 / N)
    weights[0] = p
    for t in range(T):
        p = p * factors[t]
        p /= p.sum()
        weights[t + 1] = p
    return _run(weights, arr)


def entropic_objective(p: Any, cumulative: Any, eta: float) -> np.ndarray:
    """The entropic FTRL objective <p, L> + (1/eta) sum_i p_i ln p_i, with 0 ln 0 = 0.

    Chapter 5, Theorem "Hedge is FTRL and mirror descent" (the Gibbs variational principle).

    Parameters
    ----------
    p : array_like, shape (..., N)
        Points of the simplex (rows); they are not renormalised.
    cumulative : array_like, shape (N,) or broadcastable to ``p``
        Cumulative losses L.
    eta : float
        The rate, > 0.
    """
    rate = check_scalar(eta, "eta", Interval(float, 0, None, "neither"))
    q = np.asarray(p, dtype=float)
    if np.any(q < 0) or not np.all(np.isfinite(q)):
        raise ValueError("p must hold points of the simplex (finite, >= 0 entries)")
    entropy_term = np.where(q > 0, q * np.log(np.where(q > 0, q, 1.0)), 0.0).sum(axis=-1)
    return (q * np.asarray(cumulative, dtype=float)).sum(axis=-1) + entropy_term / rate


def _perturbations(kind: str, eta: float, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    if kind == "exponential":
        return rng.exponential(1.0 / eta, size=shape)
    if kind == "gumbel":
        return rng.gumbel(0.0, 1.0 / eta, size=shape)
    return rng.uniform(0.0, 1.0 / eta, size=shape)


def _given_perturbations(perturbations: Any, fresh: bool, trials: int, N: int) -> np.ndarray | None:
    """The caller's Z for ``follow_perturbed_leader``, checked: a finite (n_trials, N) array, one Z per run."""
    if perturbations is None:
        return None
    if fresh:
        raise ValueError("perturbations can be given only with fresh=False (one Z per run)")
    given = np.asarray(perturbations, dtype=float)
    if given.shape != (trials, N) or not np.all(np.isfinite(given)):
        raise ValueError(
            f"perturbations must be a finite (n_trials, N) = ({trials}, {N}) array, got shape {given.shape}"
        )
    return given


def follow_perturbed_leader(
    losses: Any,
    eta: Any,
    n_trials: Any,
    rng: Any,
    *,
    perturbation: str = "exponential",
    fresh: bool = False,
    chunk: int = 2048,
    perturbations: Any = None,
) -> np.ndarray:
    """Follow the Perturbed Leader, ``n_trials`` independent runs at once.

    Chapter 5, Theorems "FTPL's expected regret" and "Gumbel perturbations give Hedge".

    In round t each run plays i_t = argmin_i (L_{t-1,i} - Z_i) and suffers l_{t,i_t}. The
    perturbation Z has N independent coordinates with scale 1/eta: ``"exponential"`` (mean 1/eta,
    Kalai and Vempala), ``"uniform"`` on [0, 1/eta] (Hannan) or ``"gumbel"`` (location 0, scale
    1/eta; then P(i_t = i) is exactly Hedge's p_{t,i} ∝ exp(-eta L_{t-1,i})). Ties (probability 0)
    go to the lowest index.

    Parameters
    ----------
    losses : array_like, shape (T, N)
        Losses in [0, 1], fixed in advance (an oblivious stream).
    eta : float
        The rate, > 0.
    n_trials : int
        Number of independent runs, >= 1.
    rng : numpy.random.Generator
        The only source of randomness.
    perturbation : {"exponential", "gumbel", "uniform"}
    fresh : bool
        Draw a new Z every round (True) or one Z per run for the whole stream (False, the version
        of the be-the-leader proof). On an oblivious stream both have the same expected loss.
    chunk : int
        Runs simulated together (memory ~ chunk * N floats per round).
    perturbations : array_like, shape (n_trials, N), optional
        Use these Z (one row per run, ``fresh=False`` only) instead of drawing them, so that a proof's
        pathwise inequality, which involves Z, can be checked on the same runs; ``rng`` is then unused.

    Returns
    -------
    ndarray, shape (n_trials, T), dtype int64
        The expert each run played in each round; ``losses[np.arange(T), choices]`` gives the
        losses, and ``.sum(axis=1)`` of those each run's total loss.
    """
    arr = check_losses(losses).astype(np.float64)
    rate = check_scalar(eta, "eta", Interval(float, 0, None, "neither"))
    trials = check_int(n_trials, "n_trials", 1)
    rng = check_rng(rng)
    if perturbation not in PERTURBATIONS:
        raise ValueError(f"perturbation must be one of {PERTURBATIONS}, got {perturbation!r}")
    if not isinstance(fresh, (bool, np.bool_)):
        raise TypeError(f"fresh must be True or False, got {fresh!r}")
    size = check_int(chunk, "chunk", 1)
    T, N = arr.shape
    given = _given_perturbations(perturbations, fresh, trials, N)
    before = np.vstack([np.zeros((1, N)), np.cumsum(arr, axis=0)])[:-1]  # L_{t-1}, shape (T, N)
    choices = np.empty((trials, T), dtype=np.int64)
    for start in range(0, trials, size):
        stop = min(trials, start + size)
        if fresh:
            rounds = max(1, size * 4 // max(N, 1))
            for t0 in range(0, T, rounds):
                t1 = min(T, t0 + rounds)
                Z = _perturbations(perturbation, rate, (stop - start, t1 - t0, N), rng)
                choices[start:stop, t0:t1] = np.argmin(before[None, t0:t1] - Z, axis=2)
        else:
            Z = given[start:stop] if given is not None else _perturbations(perturbation, rate, (stop - start, N), rng)
            for t in range(T):
                choices[start:stop, t] = np.argmin(before[t][None, :] - Z, axis=1)
    return choices


def _check_counts(n_experts: Any, best_loss: Any) -> tuple[int, float]:
    N = check_int(n_experts, "n_experts", 1)
    L = check_scalar(best_loss, "best_loss", Interval(float, 0, None, "left"))
    return N, L


def small_loss_bound(n_experts: Any, best_loss: Any, eta: Any) -> float:
    """Hedge's first-order bound: chapter 5, Theorem "Hedge's small-loss bound", first part.

    For losses in [0, 1] and a constant rate eta > 0, Hedge's loss is at most
    (eta L* + ln N) / (1 - exp(-eta)), where L* is the best expert's loss.
    """
    N, L = _check_counts(n_experts, best_loss)
    rate = check_scalar(eta, "eta", Interval(float, 0, None, "neither"))
    return (rate * L + math.log(N)) / -math.expm1(-rate)


def small_loss_tuned_eta(n_experts: Any, loss_bound: Any) -> float:
    """The rate ln(1 + sqrt(2 ln N / B)) for a known B >= L*: chapter 5, Theorem "Hedge's small-loss bound".

    Raises ``ValueError`` for B = 0 or N = 1, where the bound keeps improving as eta grows.
    """
    N = check_int(n_experts, "n_experts", 2)
    B = check_scalar(loss_bound, "loss_bound", Interval(float, 0, None, "neither"))
    return math.log1p(math.sqrt(2 * math.log(N) / B))


def small_loss_tuned_regret(n_experts: Any, loss_bound: Any) -> float:
    """sqrt(2 B ln N) + ln N, Hedge's regret at ``small_loss_tuned_eta`` if L* <= B: chapter 5, Theorem
    "Hedge's small-loss bound", second part."""
    N, B = _check_counts(n_experts, loss_bound)
    return math.sqrt(2 * B * math.log(N)) + math.log(N)


def ftpl_exponential_bound(n_experts: Any, best_loss: Any, eta: Any) -> float:
    """FTPL's bound with exponential perturbations: chapter 5, Theorem "FTPL's expected regret", part 1.

    For losses in [0, 1], 0 < eta < 1 and Z_i independent exponentials of mean 1/eta, the
    expected loss is at most (L* + (H_N - 1)/eta) / (1 - eta), with H_N the N-th harmonic number.
    """
    N, L = _check_counts(n_experts, best_loss)
    rate = check_scalar(eta, "eta", Interval(float, 0, 1, "neither"))
    harmonic = math.fsum(1.0 / k for k in range(1, N + 1))
    return (L + (harmonic - 1) / rate) / (1 - rate)
