"""Chapter 7 ("Binary weights: Directed Drift"): experiments and figures.

* ``enumerate_rates`` recomputes P(mistake | d) and the probability that a
  mistake's flip is good by listing the whole positive half-cube (small n),
  independently of ``DirectedDriftChain``.
* ``signflip_law`` is the exact law of the "sign-flip" sampler (draw u on the
  cube, replace it by -u if <w*, u> < 0), which is uniform on the half-cube
  only for odd n.
* ``batch_scaling`` runs a batch mode of ``DirectedDrift`` for several n and
  returns the mean mistakes and examples with their standard errors;
  ``fit_slope`` fits a line to them on log-log axes.
* ``fit_slope_se`` adds the slope's standard error (delta method over independent
  means); ``literal_ideal_mistakes`` is E[M] of the literal D4'' when every flip is good
  (an exact recursion); ``single_bit_bad_bound`` and ``majority_fail_bound`` are the
  union bounds of the chapter's theorems on D4' and on the majority reading of D4'' (these three
  live in ``onlinelib.chapters.directed_drift_bounds`` and are re-exported here).
* ``plot_growth``, ``plot_wrong_stop``, ``plot_batch`` draw the chapter's
  static figures; ``explore_drift`` and ``plot_explore`` are what
  ``onlinelib.explorers.drift_explorer`` (n, delta, mode, m) draws on demand.

Conventions as in ``onlinelib.directed_drift``: w* and w in {-1, 1}^n, every
example positive, a mistake is <w, u> < 0.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from ..directed_drift import (
    DirectedDrift,
    DirectedDriftChain,
    confidence_threshold,
)
from ..plotting import axes_row
from ..validation import Interval, check_int, check_rng, check_scalar
from .directed_drift_bounds import literal_ideal_mistakes, majority_fail_bound, single_bit_bad_bound

__all__ = [
    "MAX_ENUMERATION",
    "MAX_EXPLORER_N",
    "MODES",
    "batch_scaling",
    "enumerate_rates",
    "explore_drift",
    "fit_slope",
    "fit_slope_se",
    "literal_ideal_mistakes",
    "majority_fail_bound",
    "plot_batch",
    "plot_explore",
    "plot_growth",
    "plot_wrong_stop",
    "signflip_law",
    "single_bit_bad_bound",
]

#: The largest n that ``enumerate_rates`` and ``signflip_law`` list vertex by vertex.
MAX_ENUMERATION = 14
#: The largest n the explorer accepts.
MAX_EXPLORER_N = 401

#: The modes of the explorer and of ``batch_scaling``: keyword arguments of ``DirectedDrift``.
MODES: dict[str, dict[str, Any]] = {
    "D (one bit)": {"batch": None},
    "D4' single-bit": {"batch": "single"},
    "D4'' literal": {"batch": "multi", "multi_rule": "literal"},
    "D4'' majority": {"batch": "multi", "multi_rule": "majority"},
    "D4'' double": {"batch": "multi", "multi_rule": "double"},
}


def _check_mode(mode: Any) -> dict[str, Any]:
    if mode not in MODES:
        raise ValueError(f"mode must be one of {tuple(MODES)}, got {mode!r}")
    return MODES[mode]


def _cube(n: int) -> np.ndarray:
    """All 2^n vertices of {-1, 1}^n, one per row (int64)."""
    return 1 - 2 * np.array(list(itertools.product((0, 1), repeat=n)), dtype=np.int64)


# -- exact checks by enumeration --------------------------------------------------------------


def enumerate_rates(n: int, d: int) -> tuple[Fraction, Fraction]:
    """P(mistake | d) and P(good flip | mistake, d) by listing the half-cube (chapter 7).

    Takes w* = (1, ..., 1) and w with its first d coordinates wrong, lists every
    u in {-1,1}^n with <w*, u> >= 0 (each has probability ``1/|B+|``), and for every
    mistake (<w, u> < 0) adds the share of the disagreeing coordinates J that
    are wrong coordinates of w (flipping one of them is a good flip).

    Parameters
    ----------
    n : int in [1, MAX_ENUMERATION]
    d : int in [1, n]

    Returns
    -------
    (Fraction, Fraction); the second is 0 if no mistake is possible.
    """
    n = check_int(n, "n", 1, MAX_ENUMERATION)
    d = check_int(d, "d", 1, n)
    U = _cube(n)
    U = U[U.sum(axis=1) >= 0]
    w = np.ones(n, dtype=np.int64)
    w[:d] = -1
    wrong = U @ w < 0
    disagree = U[wrong] != w
    good = disagree[:, :d].sum(axis=1)
    total = disagree.sum(axis=1)
    mistake = Fraction(int(wrong.sum()), len(U))
    if not wrong.any():
        return mistake, Fraction(0)
    share = sum(Fraction(int(g), int(t)) for g, t in zip(good, total, strict=True))
    return mistake, share / int(wrong.sum())


def signflip_law(n: int) -> tuple[np.ndarray, list[Fraction]]:
    """The exact law of the sign-flip sampler on the half-cube of w* = (1, ..., 1) (chapter 7).

    The sampler draws u uniformly on {-1,1}^n and returns -u when <w*, u> < 0.
    Each vertex v of B+ is returned when u = v, and also when u = -v if
    <w*, v> > 0; a tie (<w*, v> = 0, even n only) has only the first way.

    Returns
    -------
    (vertices, probabilities): the vertices of B+ (int64 array, one per row)
    and the probability of each as a Fraction.
    """
    n = check_int(n, "n", 1, MAX_ENUMERATION)
    U = _cube(n)
    sums = U.sum(axis=1)
    V = U[sums >= 0]
    ways = np.where(V.sum(axis=1) > 0, 2, 1)
    return V, [Fraction(int(k), 2**n) for k in ways]


# -- batch experiments ---------------------------------------------------------------------------


def batch_scaling(
    ns: Sequence[int],
    trials: int | Sequence[int],
    rng: np.random.Generator,
    *,
    mode: str = "D4' single-bit",
    m: Callable[[int], int] | None = None,
    max_examples: int = 10**8,
) -> dict[str, Any]:
    """Run one mode of ``DirectedDrift`` (no stopping rule) for each n (chapter 7, batch modes).

    Each run starts from an independent uniformly random w0, drawn here so
    that its distance d0 to w* = (1, ..., 1) is known, and runs until w = w*
    or ``max_examples``.

    Parameters
    ----------
    ns : sequence of int >= 2
    trials : int >= 2, or one such int per n
    rng : numpy.random.Generator
    mode : a key of ``MODES``
    m : callable n -> batch size, optional
        Default: the library's ``single_bit_batch_size`` / ``multi_bit_batch_size``.
    max_examples : int >= 1

    Returns
    -------
    dict with ``mode``, ``n`` and ``m`` (int arrays), ``trials``; for
    ``mistakes``, ``examples``, ``d0`` and ``bad_flips`` the per-n mean
    (``<name>``) and its standard error (``<name>_sem``); ``finished`` (the
    fraction of runs that reached w*), and ``runs`` (the ``DriftRun`` per n).
    """
    kwargs = _check_mode(mode)
    ns = [check_int(n, "n", 2) for n in ns]
    if not ns:
        raise ValueError("ns must hold at least one n")
    if isinstance(trials, (int, np.integer)) and not isinstance(trials, bool):
        trials = [trials] * len(ns)
    trials = [check_int(t, "trials", 2) for t in trials]
    if len(trials) != len(ns):
        raise ValueError(f"trials must be one int or one per n, got {len(trials)} for {len(ns)} n")
    rng = check_rng(rng)
    max_examples = check_int(max_examples, "max_examples", 1)
    names = ("mistakes", "examples", "d0", "bad_flips")
    out: dict[str, Any] = {"mode": mode, "n": np.array(ns), "trials": np.array(trials)}
    out.update({k: np.empty(len(ns)) for k in names + tuple(f"{k}_sem" for k in names)})
    out["finished"] = np.empty(len(ns))
    out["runs"] = []
    sizes = []
    for i, (n, t) in enumerate(zip(ns, trials, strict=True)):
        batch_size = None if m is None or kwargs["batch"] is None else check_int(m(n), "m(n)", 1)
        learner = DirectedDrift(n, None, m=batch_size, **kwargs)
        sizes.append(learner.m)
        w0 = (2 * rng.integers(0, 2, size=(t, n)) - 1).astype(np.int8)
        run = learner.simulate(np.ones(n, dtype=np.int8), t, rng, w0=w0, max_examples=max_examples)
        d0 = (w0 < 0).sum(axis=1)
        for name, values in zip(names, (run.mistakes, run.examples, d0, run.bad_flips), strict=True):
            values = np.asarray(values, dtype=float)
            out[name][i] = values.mean()
            out[f"{name}_sem"][i] = values.std(ddof=1) / math.sqrt(t)
        out["finished"][i] = run.finished.mean()
        out["runs"].append(run)
    out["m"] = np.array(sizes)
    return out


def fit_slope(x: Any, y: Any) -> tuple[float, float]:
    """Least-squares line through (ln x, ln y): returns (slope, intercept). Needs >= 2 positive points."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape or x.ndim != 1 or len(x) < 2:
        raise ValueError(f"x and y must be 1-D of the same length >= 2, got {x.shape} and {y.shape}")
    if (x <= 0).any() or (y <= 0).any():
        raise ValueError("x and y must be positive to take logarithms")
    slope, intercept = np.polyfit(np.log(x), np.log(y), 1)
    return float(slope), float(intercept)


def fit_slope_se(x: Any, means: Any, sems: Any) -> tuple[float, float]:
    """Least-squares slope of ln(mean) on ln x, and its standard error (chapter 7, literal D4'').

    The means at the different x are independent; the delta method gives ln(mean) the
    variance (sem / mean)^2, and the slope, a fixed linear combination sum_i c_i ln(mean_i)
    with c_i = (ln x_i - mean ln x) / sum_j (ln x_j - mean ln x)^2, the variance
    sum_i c_i^2 (sem_i / mean_i)^2.

    Parameters
    ----------
    x, means : 1-D array_like of positive floats, the same length >= 2 (x not all equal)
    sems : 1-D array_like of floats >= 0, the standard errors of ``means``

    Returns
    -------
    (slope, se)
    """
    x, means, sems = (np.asarray(a, dtype=float) for a in (x, means, sems))
    if not (x.shape == means.shape == sems.shape) or x.ndim != 1 or len(x) < 2:
        raise ValueError(
            f"x, means and sems must be 1-D of the same length >= 2, got {x.shape}, {means.shape}, {sems.shape}"
        )
    if (x <= 0).any() or (means <= 0).any():
        raise ValueError(f"x and means must be positive to take logarithms, got {x} and {means}")
    if (sems < 0).any() or not np.isfinite(sems).all():
        raise ValueError(f"sems must be finite and >= 0, got {sems}")
    lx = np.log(x) - np.log(x).mean()
    if not (lx**2).sum() > 0:
        raise ValueError(f"x must not be all equal, got {x}")
    c = lx / (lx**2).sum()
    return float(c @ np.log(means)), float(math.sqrt(((c * sems / means) ** 2).sum()))


# -- figures -------------------------------------------------------------------------------------


def plot_growth(ns: Any, log_mistakes: Any, ax: Any = None) -> Any:
    """ln E[M] / n against n, odd and even n apart, with 0.139 and ln 2 (chapter 7, growth rate)."""
    ns = np.asarray(ns, dtype=float)
    rate = np.asarray(log_mistakes, dtype=float)
    if ns.shape != rate.shape or ns.ndim != 1 or len(ns) == 0:
        raise ValueError("ns and log_mistakes must be 1-D arrays of the same positive length")
    rate = rate / ns
    ax = axes_row(ax, 1, (6.5, 4.0))[0]
    odd = ns % 2 == 1
    ax.plot(ns[odd], rate[odd], "o-", ms=3, color="C0", label="odd n (exact chain)")
    ax.plot(ns[~odd], rate[~odd], "s-", ms=3, color="C3", label="even n (exact chain)")
    ax.axhline(math.log(2), color="black", ls="--", lw=1, label="ln 2")
    ax.axhline(0.139, color="C2", ls=":", lw=1.5, label="0.139 (the source)")
    ax.set(xscale="log", xlabel="n", ylabel="ln E[M] / n", ylim=(0, 0.75), title="Algorithm D from a random start")
    ax.legend(fontsize=8, loc="lower right")
    return ax


def plot_wrong_stop(ns: Any, table: dict[float, Any], ax: Any = None) -> Any:
    """P(D3 stops at a wrong w) against n, one curve per delta, with the level delta (chapter 7)."""
    ns = np.asarray(ns, dtype=float)
    if not table:
        raise ValueError("table must map at least one delta to its probabilities")
    ax = axes_row(ax, 1, (6.5, 4.0))[0]
    for i, (delta, probs) in enumerate(sorted(table.items(), reverse=True)):
        probs = np.asarray(probs, dtype=float)
        if probs.shape != ns.shape:
            raise ValueError(f"table[{delta}] must have one entry per n")
        ax.plot(ns, probs, "o-", ms=3, color=f"C{i}", label=f"delta = {delta:g}")
        ax.axhline(delta, color=f"C{i}", ls=":", lw=1)
    ax.set(
        yscale="log",
        xlabel="n",
        ylabel="P(stop at w != w*)",
        ylim=(1e-4, 1.5),
        title="Step D3 from a random start (dotted: delta)",
    )
    ax.legend(fontsize=8, loc="lower right")
    return ax


def plot_batch(results: Sequence[dict[str, Any]], axes: Any = None) -> np.ndarray:
    """Mistakes and examples against n on log-log axes, one curve per ``batch_scaling`` result.

    Error bars are 2 standard errors; each legend entry carries the fitted
    slope of ln(mean) against ln n. Returns the two axes.
    """
    if not results:
        raise ValueError("results must hold at least one batch_scaling result")
    axes = axes_row(axes, 2, (11, 4.0))
    for i, res in enumerate(results):
        n = np.asarray(res["n"], dtype=float)
        for ax, key in zip(axes, ("mistakes", "examples"), strict=True):
            mean = np.asarray(res[key], dtype=float)
            slope, _ = fit_slope(n, mean)
            ax.errorbar(
                n,
                mean,
                yerr=2 * np.asarray(res[f"{key}_sem"]),
                fmt="o-",
                ms=3,
                capsize=2,
                color=f"C{i}",
                label=f"{res['mode']}: slope {slope:.2f}",
            )
    from matplotlib.ticker import NullFormatter, NullLocator

    ticks = sorted({int(n) for res in results for n in res["n"]})
    for ax, key in zip(axes, ("mistakes", "examples drawn (votes included)"), strict=True):
        ax.set(xscale="log", yscale="log", xlabel="n", ylabel=key)
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xticks(ticks, [str(t) for t in ticks])
        ax.legend(fontsize=8, loc="upper left")
    axes[0].set_title("mistakes until w = w*", fontsize=10)
    axes[1].set_title("examples until w = w*", fontsize=10)
    return axes


# -- the explorer's experiment --------------------------------------------------------------------


def explore_drift(
    n: int, delta: float, mode: str, m: int | None, trials: int, rng: np.random.Generator, max_examples: int = 2 * 10**6
) -> dict[str, Any]:
    """Run ``trials`` copies of one mode with the stopping rule D3 (chapter 7, the explorer).

    Parameters
    ----------
    n : int in [2, MAX_EXPLORER_N]
    delta : float in (0, 1)
    mode : a key of ``MODES``
    m : int >= 1 or None (the source's batch size); ignored by "D (one bit)"
    trials : int in [2, 10000]
    rng : numpy.random.Generator
    max_examples : int, examples after which a run is abandoned

    Returns
    -------
    dict with the arguments, ``threshold`` (T*), ``m`` (the batch size used),
    ``run`` (the ``DriftRun``), ``wrong`` (fraction of finished runs that
    stopped at w != w*) and, for "D (one bit)" only, ``chain_wrong`` (the exact
    probability from ``DirectedDriftChain``), otherwise None.
    """
    n = check_int(n, "n", 2, MAX_EXPLORER_N)
    delta = check_scalar(delta, "delta", Interval(float, 0, 1, "neither"))
    kwargs = _check_mode(mode)
    trials = check_int(trials, "trials", 2, 10_000)
    rng = check_rng(rng)
    if kwargs["batch"] is None:
        m = None
    elif m is not None:
        m = check_int(m, "m", 1)
    learner = DirectedDrift(n, delta, m=m, **kwargs)
    run = learner.simulate(np.ones(n, dtype=np.int8), trials, rng, max_examples=max_examples)
    done = run.finished
    wrong = float((run.final_distance[done] > 0).mean()) if done.any() else float("nan")
    chain = None
    if kwargs["batch"] is None:
        chain = DirectedDriftChain(n).wrong_stop_probability(delta)
    return {
        "n": n,
        "delta": delta,
        "mode": mode,
        "m": learner.m,
        "trials": trials,
        "threshold": confidence_threshold(n, delta),
        "run": run,
        "wrong": wrong,
        "chain_wrong": chain,
    }


def plot_explore(result: dict[str, Any], axes: Any = None) -> np.ndarray:
    """Two panels for an ``explore_drift`` result: mistakes per run, and final distances."""
    axes = axes_row(axes, 2, (11, 3.8))
    run = result["run"]
    ax = axes[0]
    mistakes = np.asarray(run.mistakes)
    bins = np.unique(np.geomspace(1, max(2, mistakes.max() + 1), 30).astype(int))
    ax.hist(np.maximum(mistakes, 1), bins=bins, color="C0")
    mean, sem = run.mean_and_sem()
    ax.axvline(max(mean, 1), color="black", ls="--", lw=1, label=f"mean {mean:.1f} ± {sem:.1f}")
    ax.set(xscale="log", xlabel="mistakes in a run (0 drawn at 1)", ylabel="runs")
    ax.set_title(f"{result['mode']}, n = {result['n']}, m = {result['m']}, T* = {result['threshold']}", fontsize=10)
    ax.legend(fontsize=8)
    ax = axes[1]
    final = np.asarray(run.final_distance)[run.finished]
    values, counts = np.unique(final, return_counts=True)
    ax.bar(values, counts / max(1, final.size), color=np.where(values == 0, "C2", "C3"))
    text = f"stopped at w != w*: {result['wrong']:.3f} (delta = {result['delta']:g})"
    if result["chain_wrong"] is not None:
        text += f"\nexact chain: {result['chain_wrong']:.3f}"
    unfinished = int((~run.finished).sum())
    if unfinished:
        text += f"\n{unfinished} runs hit the example cap"
    ax.set(xlabel="Hamming distance of the output to w*", ylabel="fraction of runs")
    ax.set_title(text, fontsize=9)
    return axes
