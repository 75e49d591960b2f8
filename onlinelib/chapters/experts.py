"""Chapter 5 ("Prediction with expert advice"): streams, experiments and the figure.

* ``expert_stream``: the explorer's three streams (iid experts, a planted
  best expert, and the adaptive adversary against Weighted Majority).
* ``best_expert_curve``: m_t, the best expert's mistakes after t rounds.
* ``compare_experts`` runs WMA (and RWMA's exact expectation) on one stream and
  returns plain numbers; ``plot_experts_comparison`` draws them, and
  ``onlinelib.explorers.experts_explorer`` redraws the figure for other settings.
* ``adversary_regret``: WMA's and RWMA's regret against the adversary for
  several horizons T, with eta tuned to each T.
"""
from __future__ import annotations

import math
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


def compare_experts(
    kind: str, n_experts: int, eta: float, horizon: int, rng: np.random.Generator
) -> dict[str, Any]:
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
            (T, eta, r.mistakes, m, r.expected_mistakes, rwma_tuned_regret_bound(n, T),
             (1 + 2 * eta) * m + 2 * math.log(n) / eta)
        )
    cols = np.array(rows, dtype=float).T
    out = dict(zip(("T", "eta", "M", "m", "expected", "tuned_bound", "wma_standard_regret"), cols))
    out["wma_regret"] = out["M"] - out["m"]
    out["rwma_regret"] = out["expected"] - out["m"]
    return out


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
