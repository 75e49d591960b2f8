"""Chapter 5 ("Prediction with expert advice"): streams, experiments and the figure.

* ``expert_stream``: the explorer's three streams (iid experts, a planted
  best expert, and the adaptive adversary against Weighted Majority).
* ``best_expert_curve``: m_t, the best expert's mistakes after t rounds.
* ``compare_experts`` runs WMA (and RWMA's exact expectation) on one stream and
  returns plain numbers; ``plot_experts_comparison`` draws them, and
  ``onlinelib.explorers.experts_explorer`` redraws the figure for other settings.
* ``adversary_regret``: WMA's and RWMA's regret against the adversary for
  several horizons T, with eta tuned to each T.
* ``exact_wma_replay``: Weighted Majority's predictions on a fixed stream,
  re-decided independently of the library (weights from ``float_chain_powers``, a plain
  float chain), every near-tie in ``Fraction`` arithmetic.
* ``random_stream_regret``: R*(T, N) = E[max_i (T/2 - m_i)], the expected regret
  of every learner on uniformly random advice and outcomes (the lower bound);
  ``random_stream_regret_decimal``, the same in 60-digit decimal arithmetic, for N up to 10^200.
* ``rwma_against_punisher``: RWMA against an adaptive adversary that sees the
  learner's past coin flips, many independent trials at once.
* ``hedge_run``: Hedge (exponential weights) on losses in [0, 1], with a fixed
  rate or a schedule eta_t (the anytime rate), and the quantities of its proof.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from ..adversaries import wma_adversary
from ..bounds import (
    rwma_bound,
    rwma_bound_standard,
    rwma_tuned_regret_bound,
    tuned_eta,
    wma_bound,
    wma_bound_standard,
)
from ..experts import check_eta, check_expert_stream, weighted_majority_run
from ..plotting import BOUND_STYLES
from ..streams import iid_experts, planted_best_expert
from ..validation import check_int, check_rng

__all__ = [
    "STREAM_KINDS",
    "MAX_EXPERTS",
    "MAX_HORIZON",
    "expert_stream",
    "best_expert_curve",
    "compare_experts",
    "adversary_regret",
    "exact_wma_replay",
    "float_chain_powers",
    "double_double_powers",
    "vote_tie_band",
    "hedge_run",
    "random_stream_regret",
    "random_stream_regret_decimal",
    "rwma_against_punisher",
    "plot_experts_comparison",
]

STREAM_KINDS = ("iid", "planted", "adaptive")
MAX_EXPERTS = 1000
MAX_HORIZON = 100_000


def expert_stream(
    kind: str, n_experts: int, horizon: int, eta: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """One of the explorer's streams: P (T, N) and y (T,), entries ±1 (chapter 5).

    * ``"iid"``: ``iid_experts`` with accuracies evenly spaced from 0.5 to 0.75
      (a single expert has accuracy 0.5).
    * ``"planted"``: ``planted_best_expert`` with m = T // 10: expert 0 errs
      in exactly a tenth of the rounds, every other expert more often.
    * ``"adaptive"``: ``wma_adversary(T, N, eta)``, random advice and the
      outcome opposite to Weighted Majority(eta): WMA errs in every round.

    ``eta`` is used by the adaptive stream only, but is checked for all kinds.

    Raises
    ------
    ValueError
        For an unknown kind or an argument out of range (1 <= N <= MAX_EXPERTS,
        1 <= T <= MAX_HORIZON, planted needs T >= 2, 0 < eta < 1).
    TypeError
        For arguments of the wrong type.
    """
    if kind not in STREAM_KINDS:
        raise ValueError(f"kind must be one of {STREAM_KINDS}, got {kind!r}")
    n = check_int(n_experts, "n_experts", 1, MAX_EXPERTS)
    T = check_int(horizon, "horizon", 1, MAX_HORIZON)
    eta = check_eta(
        eta, closed="neither", why="with eta = 1, Halving, every expert of these streams eventually has weight 0"
    )
    rng = check_rng(rng)
    if kind == "iid":
        return iid_experts(T, np.linspace(0.5, 0.75, n), rng)
    if kind == "planted":
        if T < 2:
            raise ValueError(f"horizon must be at least 2 for a planted best expert, got {T}")
        return planted_best_expert(T, n, T // 10, rng)
    return wma_adversary(T, n, eta, rng)


def best_expert_curve(P: Any, y: Any) -> np.ndarray:
    """m_t = min_i (mistakes of expert i in rounds 1..t), for t = 0..T (m_0 = 0)."""
    P, y = check_expert_stream(P, y)
    T, N = P.shape
    out = np.zeros(T + 1, dtype=np.int64)
    counts = np.zeros(N, dtype=np.int64)
    chunk = max(1, 2**22 // N)
    for start in range(0, T, chunk):
        stop = min(T, start + chunk)
        cum = np.cumsum(P[start:stop] != y[start:stop, None], axis=0, dtype=np.int64) + counts
        out[start + 1 : stop + 1] = cum.min(axis=1)
        counts = cum[-1]
    return out


def compare_experts(kind: str, n_experts: int, eta: float, horizon: int, rng: np.random.Generator) -> dict[str, Any]:
    """Run WMA (and RWMA's exact expectation) on one stream; measure the proof's quantities.

    Returns
    -------
    dict with keys ``kind``, ``n_experts``, ``eta``, ``horizon``; ``M`` (WMA's
    mistakes), ``m`` (the best expert's), ``expected`` (RWMA's exact E[M]);
    ``bounds``: {"WMA exact", "WMA standard", "RWMA exact", "RWMA standard"}
    for this (N, m, eta), the standard ones None when eta > 1/2; arrays over
    t = 0..T: ``wma_curve`` (M_t), ``rwma_curve`` (E[M_t]), ``best_curve``
    (m_t), ``log_potential`` (ln Phi_t), ``potential_upper``
    (ln N + M_t ln(1 - eta/2)) and ``potential_lower`` (m_t ln(1 - eta)).
    """
    P, y = expert_stream(kind, n_experts, horizon, eta, rng)
    eta = float(eta)
    result = weighted_majority_run(P, y, eta)
    wrong = (result.predictions != y).astype(np.int64)
    wma_curve = np.concatenate([[0], np.cumsum(wrong)])
    rwma_curve = np.concatenate([[0.0], np.cumsum(result.wrong_fraction)])
    best = best_expert_curve(P, y)
    N, m = P.shape[1], result.best_expert_mistakes
    standard = eta <= 0.5
    return {
        "kind": kind,
        "n_experts": N,
        "eta": eta,
        "horizon": len(y),
        "M": result.mistakes,
        "m": m,
        "expected": result.expected_mistakes,
        "bounds": {
            "WMA exact": wma_bound(N, m, eta),
            "WMA standard": wma_bound_standard(N, m, eta) if standard else None,
            "RWMA exact": rwma_bound(N, m, eta),
            "RWMA standard": rwma_bound_standard(N, m, eta) if standard else None,
        },
        "wma_curve": wma_curve,
        "rwma_curve": rwma_curve,
        "best_curve": best,
        "log_potential": result.log_potential,
        "potential_upper": math.log(N) + wma_curve * math.log1p(-eta / 2),
        "potential_lower": best * math.log1p(-eta),
    }


def adversary_regret(n_experts: int, horizons: Any, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Regret of WMA and expected regret of RWMA on the adversary, eta tuned to each T.

    For each T, ``wma_adversary(T, N, tuned_eta(N, T))`` builds a stream on
    which WMA errs in every round; the stream is then fixed and RWMA with the
    same eta runs on it (its E[M] is exact, no sampling).

    Returns a dict of arrays, one entry per horizon: ``T``, ``eta``, ``M``,
    ``m``, ``expected`` (RWMA's E[M]), ``wma_regret`` (M - m),
    ``rwma_regret`` (E[M] - m), ``tuned_bound`` (2 sqrt(T ln N)) and
    ``wma_standard_regret`` ((1 + 2 eta) m + 2 ln N / eta).
    """
    n = check_int(n_experts, "n_experts", 2, MAX_EXPERTS)
    T_values = np.asarray(horizons)
    if T_values.ndim != 1 or T_values.size == 0 or not np.issubdtype(T_values.dtype, np.integer):
        raise ValueError(f"horizons must be a non-empty 1-D array of integers, got {horizons!r}")
    T_values = [check_int(int(T), "horizon", 1, MAX_HORIZON) for T in T_values]
    rng = check_rng(rng)
    rows = []
    for T in T_values:
        eta = tuned_eta(n, T)
        P, y = wma_adversary(T, n, eta, rng)
        r = weighted_majority_run(P, y, eta)
        m = r.best_expert_mistakes
        rows.append(
            (
                T,
                eta,
                r.mistakes,
                m,
                r.expected_mistakes,
                rwma_tuned_regret_bound(n, T),
                (1 + 2 * eta) * m + 2 * math.log(n) / eta,
            )
        )
    cols = np.array(rows, dtype=float).T
    out = dict(zip(("T", "eta", "M", "m", "expected", "tuned_bound", "wma_standard_regret"), cols, strict=True))
    out["wma_regret"] = out["M"] - out["m"]
    out["rwma_regret"] = out["expected"] - out["m"]
    return out


def float_chain_powers(eta: float, n: int, flush: float = 2.0**-1000) -> np.ndarray:
    """w_k = fl(w_(k-1) * fl(1 - eta)), w_0 = 1, for k = 0..n-1, set to 0 from the first below ``flush`` (chapter 5).

    A plain float chain, independent of the library's double-double one: w_k is within
    gamma_(2k) = 2ku / (1 - 2ku) of (1 - eta)^k relatively (u = 2^-53; k roundings of the
    products and the rounding of 1 - eta, each a factor 1 + d with abs(d) <= u, as long as no
    product is subnormal, which the flush guarantees for eta <= 1/2). These are the weights
    of ``exact_wma_replay`` and the hypothesis eps of Lemma "the float vote".
    """
    eta = check_eta(eta, high=0.5, why="the chain's products stay normal only for 1 - eta >= 1/2")
    n = check_int(n, "n", 1)
    base = 1.0 - eta
    out = np.zeros(n)
    w = 1.0
    for k in range(n):
        if w < flush:
            break
        out[k] = w
        w *= base
    return out


def double_double_powers(eta: float, n: int) -> tuple[float, float, np.ndarray, np.ndarray]:
    """The compiled engine's weights (1 - eta)^k, k = 0..n-1, as double-doubles (chapter 5, Lemma "the float vote" (b)).

    Returns ``(bh, bl, hi, lo)``: 1 - eta = bh + bl exactly (bh the nearest double), and the
    engine's chain of double-double products hi[k] + lo[k], the weights whose relative error part
    (b) of the lemma bounds.
    """
    from .._kernels_experts import power_table  # numba: compiled on first use only
    from ..float_vote import _rate_pair

    eta = check_eta(eta)
    n = check_int(n, "n", 1)
    bh, bl = _rate_pair(eta)
    hi, lo = power_table(bh, bl, n)
    return bh, bl, np.asarray(hi), np.asarray(lo)


def vote_tie_band(n_experts: int) -> float:
    """The band around a tie, relative to the total weight, inside which the library decides a vote exactly (chapter 5).

    A vote with abs(S) at most this times the total weight is re-decided in integers by
    ``WeightedMajority`` and the compiled engine; Lemma "the float vote" shows the float sign is
    right outside it (``ol.vote_error_bound`` is below it for N up to 10^9).
    """
    from ..float_vote import _tie_tolerance

    return _tie_tolerance(check_int(n_experts, "n_experts", 1))


def exact_wma_replay(P: Any, y: Any, eta: float, band: float = 1e-6) -> dict[str, Any]:
    """Weighted Majority's predictions on (P, y), decided without the library's vote (chapter 5).

    Each round's vote S = sum_i p_i (1 - eta)^{c_i} is first computed in floats, with the
    weights w_(c_i - min c) of ``float_chain_powers`` (1 for the best record, so Phi >= 1)
    and a plain numpy sum. Lemma "the float vote" bounds its error by
    ``vote_error_bound(N, gamma_(2k), 2^-999, 1)`` Phi for records spread by at most k, far
    below ``band`` Phi (checked here: ValueError otherwise), so outside the band the float
    sign is the sign of S. Rounds with abs(S) <= band Phi are re-decided with
    ``fractions.Fraction`` weights (1 - eta)^{c_i}, eta read as the exact binary fraction
    the float holds; a vote that is exactly 0 is a tie and goes to +1.

    Returns a dict: ``predictions`` (int8 array), ``mistakes`` (int),
    ``exact_rounds`` (rounds re-decided in Fractions), ``ties`` (rounds with S = 0) and
    ``margin`` (the lemma's bound on abs(S_float - S) / Phi_float used).
    """
    from ..float_vote import UNIT_ROUNDOFF, vote_error_bound

    P, y = check_expert_stream(P, y)
    eta = check_eta(eta, high=0.5, why="the replay's float chain needs 1 - eta >= 1/2 (no subnormal product)")
    band = float(band)
    if not 1e-9 <= band <= 1e-3:
        raise ValueError(f"band must be in [1e-9, 1e-3] (far above rounding, far below a real vote), got {band}")
    wrong = P != y[:, None]
    before = np.cumsum(wrong, axis=0) - wrong
    excess = before - before.min(axis=1, keepdims=True)
    spread = int(excess.max())
    chain = float_chain_powers(eta, spread + 2)  # ends with a 0 or covers every excess
    two_k_u = 2 * (spread + 1) * UNIT_ROUNDOFF
    margin = vote_error_bound(P.shape[1], two_k_u / (1 - two_k_u), 2.0**-999, 1.0)
    if margin >= band:
        raise ValueError(f"band {band} is within the float vote's error bound {margin:.2e}: use a wider band")
    weights = chain[np.minimum(excess, len(chain) - 1)]
    vote = (weights * P).sum(axis=1)
    total = weights.sum(axis=1)
    predictions = np.where(vote >= 0, 1, -1).astype(np.int8)
    factor = 1 - Fraction(eta)
    near = np.flatnonzero(np.abs(vote) <= band * total)
    ties = 0
    for t in near.tolist():
        exact = sum(int(p) * factor ** int(e) for p, e in zip(P[t], excess[t], strict=True))
        ties += exact == 0
        predictions[t] = 1 if exact >= 0 else -1
    return {
        "predictions": predictions,
        "mistakes": int(np.count_nonzero(predictions != y)),
        "exact_rounds": int(near.size),
        "ties": int(ties),
        "margin": margin,
    }


def hedge_run(losses: Any, eta: Any) -> dict[str, Any]:
    """Hedge on a (T, N) matrix of losses in [0, 1], vectorised over rounds (chapter 5).

    In round t Hedge plays the distribution p_t with p_{t,i} proportional to
    exp(-eta_t L_{t-1,i}), where L_{t-1,i} is expert i's loss before round t, and
    suffers p_t . l_t. ``eta`` is a positive number, or an array of T positive
    rates eta_1 >= eta_2 >= ... (a schedule such as the anytime rate sqrt(8 ln N / t)).
    With 0/1 losses and a fixed eta this is Randomized Weighted Majority with
    1 - eta_RWMA = exp(-eta).

    Returns a dict: ``learner_loss`` (sum_t p_t . l_t), ``best_loss`` (min_i L_{T,i}),
    ``regret`` (their difference), ``mixed`` ((T,) array of p_t . l_t) and ``log_mgf``
    ((T,) array of ln sum_i p_{t,i} exp(-eta_t l_{t,i}), the quantity bounded by
    Hoeffding's lemma), and ``eta`` ((T,) array of the rates used).
    """
    L = np.asarray(losses, dtype=float)
    if L.ndim != 2 or L.shape[0] == 0 or L.shape[1] == 0:
        raise ValueError(f"losses must be a (T, N) matrix with T, N >= 1, got shape {L.shape}")
    if not np.all(np.isfinite(L)) or L.min() < 0 or L.max() > 1:
        raise ValueError("losses must be finite and in [0, 1]")
    T, N = L.shape
    rates = np.asarray(eta, dtype=float)
    if rates.ndim == 0:
        rates = np.full(T, float(rates))
    if rates.shape != (T,):
        raise ValueError(f"eta must be a number or an array of T = {T} rates, got shape {rates.shape}")
    if not np.all(np.isfinite(rates)) or rates.min() <= 0:
        raise ValueError("eta must be finite and positive")
    if np.any(np.diff(rates) > 0):
        raise ValueError("a schedule eta must be non-increasing (the proof needs eta_t <= eta_(t-1))")
    before = np.cumsum(L, axis=0) - L
    logits = -rates[:, None] * (before - before.min(axis=1, keepdims=True))
    weights = np.exp(logits)
    p = weights / weights.sum(axis=1, keepdims=True)
    mixed = np.einsum("ij,ij->i", p, L)
    log_mgf = np.log(np.einsum("ij,ij->i", p, np.exp(-rates[:, None] * L)))
    learner = float(mixed.sum())
    best = float(L.sum(axis=0).min())
    return {
        "learner_loss": learner,
        "best_loss": best,
        "regret": learner - best,
        "mixed": mixed,
        "log_mgf": log_mgf,
        "eta": rates,
    }


def random_stream_regret(horizon: int, n_experts: int) -> float:
    """R*(T, N) = T/2 - E[min_i m_i] for N independent m_i ~ Binomial(T, 1/2) (chapter 5).

    On advice and outcomes drawn independently and uniformly from {-1, +1}, every
    learner errs T/2 times in expectation and the experts' mistake counts are
    such binomials, so R* is every learner's expected regret there.
    E[min_i m_i] = sum_{k=0}^{T-1} P(m_1 > k)^N, computed in floating point; below the
    median P(m_1 > k)^N = exp(N log1p(-P(m_1 <= k))), so that a tail near 1 is not rounded
    before its N-th power (relative error about 1e-13 for T <= 10^4 and N <= 10^9, checked
    against ``random_stream_regret_decimal``).
    """
    from scipy.stats import binom

    T = check_int(horizon, "horizon", 1, 10**6)
    n = check_int(n_experts, "n_experts", 1, 10**9)
    k = np.arange(T)
    low = k < T / 2
    terms = np.empty(T)
    terms[low] = np.exp(n * np.log1p(-binom.cdf(k[low], T, 0.5)))
    terms[~low] = binom.sf(k[~low], T, 0.5) ** n
    return float(T / 2 - np.sum(terms))


def random_stream_regret_decimal(horizon: int, n_experts: int, digits: int = 60) -> Decimal:
    """R*(T, N) in ``digits``-digit decimal arithmetic (chapter 5, prop-ex5-lower-nonasymptotic).

    The same quantity as ``random_stream_regret``, T/2 - sum_{k=0}^{T-1} P(m > k)^N with
    m ~ Binomial(T, 1/2), for N up to 10^200. The pmf comes from 2^-T by the recurrence
    pmf(k) = pmf(k-1) (T-k+1)/k, the tails from summing it from the top, all positive terms,
    so each tail has relative error at most (3T + 3) 10^(1-digits); its N-th power about N times
    that; the sum stops once a term is below 10^-digits (later terms are smaller). With the
    default 60 digits, T <= 10^5 and N <= 10^30 the absolute error is below 10^-18 (below 10^-20
    for T <= 10^4).

    Raises
    ------
    ValueError
        If ``horizon`` is not in [1, 10^5], ``n_experts`` not in [1, 10^200] or ``digits`` not in [20, 400].
    """
    T = check_int(horizon, "horizon", 1, 10**5)
    if isinstance(n_experts, (int, np.integer)) and not isinstance(n_experts, bool) and n_experts > 10**200:
        raise ValueError(f"n_experts must be an integer in [1, 10^200], got one with {len(str(n_experts))} digits")
    n = check_int(n_experts, "n_experts", 1)
    prec = check_int(digits, "digits", 20, 400)
    with localcontext() as ctx:
        ctx.prec = prec
        ctx.Emin = -(10**9)
        pmf = [Decimal(2) ** -T]
        for k in range(1, T + 1):
            pmf.append(pmf[-1] * (T - k + 1) / k)
        tails = [Decimal(0)] * (T + 1)  # tails[k] = P(m > k)
        for k in range(T - 1, -1, -1):
            tails[k] = tails[k + 1] + pmf[k + 1]
        negligible = Decimal(10) ** -prec
        e_min = Decimal(0)
        for k in range(T):
            term = tails[k] ** n
            e_min += term
            if term < negligible:
                break
        return Decimal(T) / 2 - e_min


def rwma_against_punisher(
    horizon: int, n_experts: int, eta: float, n_trials: int, rng: np.random.Generator
) -> dict[str, np.ndarray]:
    """RWMA against an adaptive adversary that uses the learner's past draws (chapter 5).

    Each round the advice is random, and the outcome makes wrong the expert that
    RWMA drew in the previous round (round 1: the outcome is random). So the
    stream depends on RWMA's coins and differs from trial to trial; the
    adversary never sees the current draw. ``n_trials`` independent trials run
    at once.

    Returns a dict of (n_trials,) arrays: ``M`` (RWMA's mistakes), ``m`` (the
    best expert's), ``sum_F`` (sum_t F_t, the conditional mistake probabilities).
    """
    T = check_int(horizon, "horizon", 1, MAX_HORIZON)
    n = check_int(n_experts, "n_experts", 1, MAX_EXPERTS)
    eta = check_eta(eta, closed="neither", why="with eta = 1 every expert can be zeroed")
    trials = check_int(n_trials, "n_trials", 1, 10**5)
    rng = check_rng(rng)
    log_factor = math.log1p(-eta)
    counts = np.zeros((trials, n), dtype=np.int64)
    mistakes = np.zeros(trials, dtype=np.int64)
    sum_F = np.zeros(trials)
    rows = np.arange(trials)
    last = None
    for _t in range(T):
        advice = np.where(rng.random((trials, n)) < 0.5, 1, -1).astype(np.int8)
        if last is None:
            outcome = np.where(rng.random(trials) < 0.5, 1, -1).astype(np.int8)
        else:
            outcome = -advice[rows, last]
        weights = np.exp((counts - counts.min(axis=1, keepdims=True)) * log_factor)
        wrong = advice != outcome[:, None]
        sum_F += (weights * wrong).sum(axis=1) / weights.sum(axis=1)
        cumulative = np.cumsum(weights, axis=1)
        u = rng.random(trials) * cumulative[:, -1]
        pick = np.minimum((cumulative <= u[:, None]).sum(axis=1), n - 1)
        mistakes += wrong[rows, pick]
        counts += wrong
        last = pick
    return {"M": mistakes, "m": counts.min(axis=1), "sum_F": sum_F}


def plot_experts_comparison(result: dict[str, Any], axes: Any = None) -> np.ndarray:
    """Two panels for a ``compare_experts`` result (chapter 5).

    Left: cumulative mistakes of WMA, RWMA (exact expectation) and the best
    expert, with the final bounds as horizontal lines. Right: ln Phi_t between
    its upper bound ln N + M_t ln(1 - eta/2) and lower bound m_t ln(1 - eta).
    Returns the two axes.
    """
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(10.5, 3.8))
    axes = np.asarray(axes).ravel()
    if axes.size != 2:
        raise ValueError(f"axes must hold 2 axes, got {axes.size}")
    t = np.arange(result["horizon"] + 1)
    ax = axes[0]
    ax.plot(t, result["wma_curve"], color="C0", label=f"WMA: M = {result['M']}")
    ax.plot(t, result["rwma_curve"], color="C1", label=f"RWMA: E[M] = {result['expected']:.1f}")
    ax.plot(t, result["best_curve"], color="C2", label=f"best expert: m = {result['m']}")
    for name, value in result["bounds"].items():
        if value is not None and math.isfinite(value):
            ax.axhline(value, lw=1, label=f"{name} bound {value:.0f}", **BOUND_STYLES[name])
    ax.set(xlabel="round t", ylabel="mistakes up to t")
    ax.legend(fontsize=7, loc="upper left")
    ax.set_title(
        f"{result['kind']}, N = {result['n_experts']}, eta = {result['eta']:g}, T = {result['horizon']}",
        fontsize=10,
    )
    ax = axes[1]
    ax.plot(t, result["potential_upper"], "k--", lw=1, label=r"$\ln N + M_t\ln(1-\eta/2)$")
    ax.plot(t, result["log_potential"], color="C0", label=r"$\ln \Phi_t$")
    ax.plot(t, result["potential_lower"], "k:", lw=1, label=r"$m_t \ln(1-\eta)$")
    ax.set(xlabel="round t", title="the potential between its bounds")
    ax.legend(fontsize=8, loc="lower left")
    return axes
