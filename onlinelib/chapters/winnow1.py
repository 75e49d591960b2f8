"""Chapter 2 ("Disjunctions and Winnow1"): a sparse stream, the experiment and its figure.

* ``sparse_disjunction_stream``: random examples with a few active variables,
  labelled by a monotone disjunction. On such streams Elimination needs about
  n mistakes and Winnow1 about k lg n.
* ``compare_winnow1`` runs Winnow1 and Elimination on one stream (random, or one of
  the chapter's adversaries in ``onlinelib.adversaries``) and returns plain numbers;
  ``plot_winnow1_comparison`` draws them, and ``onlinelib.explorers.winnow1_explorer``
  redraws the figure for other settings.
"""

from __future__ import annotations

import math
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp

from ..adversaries import elimination_adversary, winnow1_adaptive_adversary, winnow1_promotion_adversary
from ..bounds import winnow1_bound
from ..linear import Elimination, Winnow1, winnow1_default_threshold
from ..plotting import LEARNER_COLORS
from ..protocol import run
from ..streams import disjunction_stream
from ..validation import Interval, check_int, check_real, check_rng, check_scalar

__all__ = [
    "STREAMS",
    "MAX_FEATURES",
    "sparse_disjunction_stream",
    "default_length",
    "compare_winnow1",
    "plot_winnow1_comparison",
]

STREAMS = (
    "sparse random",
    "dense random",
    "promotion adversary",
    "adaptive adversary",
    "elimination adversary",
)
MAX_FEATURES = 8192  # the explorer's largest n (a dense random stream is T x n)


def sparse_disjunction_stream(
    n_features: int,
    n_relevant: int,
    length: int,
    rng: np.random.Generator,
    *,
    active: int = 3,
    p_positive: float = 0.5,
) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
    """Sparse random examples labelled by a monotone disjunction (chapter 2).

    The k relevant variables are a uniformly random k-subset of the n. Every
    example switches on ``active`` distinct irrelevant variables, chosen
    uniformly; with probability ``p_positive`` it also switches on one relevant
    variable, chosen uniformly, and is then positive. So the label is +1 exactly
    when some relevant variable is on, as the target disjunction says.

    Unlike ``onlinelib.disjunction_stream(..., active=a)``, which draws a
    (length, n) array of random keys, this takes memory proportional to the
    number of ones, so n = 4096 with 30 000 rounds is cheap.

    Returns
    -------
    X : scipy.sparse.csr_matrix of float64 (length, n_features), entries 1
    y : ndarray of int8 (length,)
    relevant : ndarray of int (k,), sorted
    """
    n = check_int(n_features, "n_features", 1)
    k = check_int(n_relevant, "n_relevant", 1, n)
    length = check_int(length, "length", 1)
    m = n - k
    active = check_int(active, "active", 0, m)
    p_positive = check_scalar(p_positive, "p_positive", Interval(float, 0, 1))
    rng = check_rng(rng)
    relevant = np.sort(rng.choice(n, size=k, replace=False))
    irrelevant = np.setdiff1d(np.arange(n), relevant)
    positive = rng.random(length) < p_positive
    picks = np.empty((length, active), dtype=np.int64)
    if active and active * active <= m:
        # Rejection: redraw the rows with a repeated index (each row repeats
        # with probability below 1/2, so few passes are needed).
        todo = np.arange(length)
        while todo.size:
            picks[todo] = rng.integers(m, size=(todo.size, active))
            ordered = np.sort(picks[todo], axis=1)
            todo = todo[(np.diff(ordered, axis=1) == 0).any(axis=1)]
    elif active:
        # Few irrelevant variables: the first `active` of a random permutation.
        keys = rng.random((length, m))
        picks[:] = np.argpartition(keys, active - 1, axis=1)[:, :active]
    extra = np.full((length, 1), -1, dtype=np.int64)
    extra[positive, 0] = relevant[rng.integers(k, size=int(positive.sum()))]
    counts = active + positive.astype(np.int64)
    rows = np.concatenate([irrelevant[picks], extra], axis=1)
    rows = np.sort(rows, axis=1)  # the -1 placeholders come first
    indices = rows[rows >= 0]
    indptr = np.concatenate([[0], np.cumsum(counts)])
    X = sp.csr_matrix((np.ones(indices.size), indices, indptr), shape=(length, n))
    y = np.where(positive, 1, -1).astype(np.int8)
    return X, y, relevant


def default_length(n_features: int, n_relevant: int, stream: str) -> int:
    """The explorer's stream length for the random streams (adversaries fix their own).

    "sparse random": long enough that, with high probability, every irrelevant
    variable shows up in a negative example (so Elimination finishes) and every
    relevant variable in lg n + 2 positive ones (so Winnow1 can finish):
    max(2 (m/3)(ln m + 3), 8 k (lg n + 2)) rounds, m = n - k.
    "dense random": 1000 rounds.
    """
    n = check_int(n_features, "n_features", 1)
    k = check_int(n_relevant, "n_relevant", 1, n)
    if stream == "dense random":
        return 1000
    if stream != "sparse random":
        raise ValueError(f"stream must be 'sparse random' or 'dense random', got {stream!r}")
    m = max(n - k, 1)
    return int(max(2 * (m / 3) * (math.log(m) + 3), 8 * k * (math.log2(n) + 2)))


# -- the explorer's computation -------------------------------------------------------
def compare_winnow1(
    n: int,
    k: int,
    theta: float | None,
    stream: str,
    rng: np.random.Generator,
    length: int | None = None,
) -> dict[str, Any]:
    """Winnow1 and Elimination on one stream, with the chapter's bounds (chapter 2's explorer).

    Runs ``Winnow1(n, theta)`` and ``Elimination(n, "disjunction",
    monotone=True)`` on the same stream, labelled by a monotone disjunction of k
    of the n variables, and records Winnow1's total weight and its promotions u
    and elimination v after every round.

    Parameters
    ----------
    n : int
        Number of variables, 2 <= n <= MAX_FEATURES.
    k : int
        Number of relevant variables, 1 <= k <= n.
    theta : float or None
        Winnow1's threshold (> 0); None means n/2.
    stream : str
        One of ``STREAMS``: "sparse random" (``sparse_disjunction_stream`` with 3
        irrelevant variables on), "dense random" (``disjunction_stream``, about
        half the examples positive), "promotion adversary"
        (``onlinelib.winnow1_promotion_adversary``), "adaptive adversary"
        (``onlinelib.winnow1_adaptive_adversary``) or "elimination adversary"
        (``onlinelib.elimination_adversary``).
    rng : numpy.random.Generator
        Used by the random streams (the adversaries are deterministic).
    length : int, optional
        Rounds of a random stream; default ``default_length(n, k, stream)``.

    Returns
    -------
    dict with keys ``n``, ``k``, ``theta``, ``stream``, ``rounds`` (T),
    ``mistakes`` ({"Winnow1": u + v, "Elimination": ...}), ``promotions`` (u),
    ``eliminations`` (v), ``bounds`` ({"Winnow1": n/theta + 2k(lg theta + 1),
    "Elimination": n - k}), ``cumulative`` (per learner, mistakes after t rounds,
    t = 0..T), ``weight_sum`` (Winnow1's total weight after t rounds) and
    ``ceiling`` (Lemma 1's n + (u_t - v_t) theta after t rounds), and ``note``.
    """
    n = check_int(n, "n", 2, MAX_FEATURES)
    k = check_int(k, "k", 1, n)
    theta = winnow1_default_threshold(n) if theta is None else check_real(theta, "theta", 0)
    if stream not in STREAMS:
        raise ValueError(f"stream must be one of {STREAMS}, got {stream!r}")
    rng = check_rng(rng)
    if length is not None:
        length = check_int(length, "length", 1)
    if stream in ("sparse random", "dense random"):
        T = default_length(n, k, stream) if length is None else length
        if stream == "sparse random":
            X, y, relevant = sparse_disjunction_stream(n, k, T, rng, active=min(3, n - k))
        else:
            X, y, relevant = disjunction_stream(n, k, T, rng)
    elif stream == "promotion adversary" and theta < 1:
        # the initial weight 1 already exceeds theta: no example is a promotion
        X, y, relevant = np.zeros((0, n), dtype=np.uint8), np.zeros(0, dtype=np.int8), np.arange(k)
    elif stream == "promotion adversary":
        X, y, relevant = winnow1_promotion_adversary(n, k, theta)
    elif stream == "adaptive adversary":
        X, y, relevant = winnow1_adaptive_adversary(n, k, theta)
    else:
        X, y, relevant = elimination_adversary(n, k)
    note = ""
    if len(y) == 0:
        # the elimination adversary with k = n has no rounds; show one empty example
        X, y = np.zeros((1, n), dtype=np.uint8), -np.ones(1, dtype=np.int8)
        note = (
            "theta < 1: no example can be a promotion, since every weight starts above theta; "
            if stream == "promotion adversary"
            else "With k = n there is no irrelevant variable to eliminate: "
        ) + "one all-zero example is shown."
    if theta < 0.5:
        note = (note + " " if note else "") + (
            "theta < 1/2: the initial weights exceed 2 theta, so Lemma 2 and the bound's derivation do not apply."
        )
    winnow = Winnow1(n, theta)
    # The block engine is exact for observables of the state (see onlinelib.run).
    trace = run(
        winnow,
        X,
        y,
        observe={
            "W": lambda L: float(L.weights.sum()),
            "u": lambda L: L.promotions,
            "v": lambda L: L.eliminations,
        },
        method="blocks",
    )
    elimination_trace = run(Elimination(n, "disjunction", monotone=True), X, y)
    u_t, v_t = trace.observed["u"], trace.observed["v"]
    return {
        "n": n,
        "k": k,
        "theta": theta,
        "stream": stream,
        "rounds": len(y),
        "mistakes": {"Winnow1": trace.n_mistakes, "Elimination": elimination_trace.n_mistakes},
        "promotions": winnow.promotions,
        "eliminations": winnow.eliminations,
        "bounds": {"Winnow1": float(winnow1_bound(n, k, theta)), "Elimination": float(n - k)},
        "cumulative": {
            "Winnow1": trace.mistakes_so_far,
            "Elimination": elimination_trace.mistakes_so_far,
        },
        "weight_sum": trace.observed["W"],
        "ceiling": n + (u_t - v_t) * theta,
        "note": note,
    }


def plot_winnow1_comparison(result: dict[str, Any], axes: Any = None) -> Any:
    """Two panels from a ``compare_winnow1`` result: cumulative mistakes, and Lemma 1's potential.

    Left: mistakes after t rounds for both learners, with their bounds as
    dashed lines (symlog scale: linear up to 10, logarithmic above). Right: Winnow1's total weight and the ceiling
    n + (u_t - v_t) theta of Lemma 1 (log scale). Returns the two axes.
    """
    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    left, right = axes
    t = np.arange(result["rounds"] + 1)
    for name in ("Winnow1", "Elimination"):
        color = LEARNER_COLORS[name]
        left.plot(
            t,
            result["cumulative"][name],
            color=color,
            drawstyle="steps-post",
            label=f"{name}: {result['mistakes'][name]} mistakes",
        )
        bound = result["bounds"][name]
        left.axhline(bound, color=color, linestyle="--", lw=1, label=f"{name} bound = {bound:.4g}")
    # symlog: Winnow1's tens and Elimination's thousands in one panel, and 0 stays on it
    left.set_yscale("symlog", linthresh=10, linscale=0.5)
    left.set(
        xlabel="round t",
        ylabel="mistakes so far (symlog scale)",
        title=f"n = {result['n']}, k = {result['k']}, theta = {result['theta']:.4g}",
    )
    top = max(max(result["bounds"].values()), *result["mistakes"].values())
    left.set_ylim(0, 3 * top)
    left.legend(fontsize=8, loc="best", framealpha=0.9)
    right.plot(
        t, result["weight_sum"], color=LEARNER_COLORS["Winnow1"], drawstyle="steps-post", label=r"total weight $W_t$"
    )
    right.plot(
        t, result["ceiling"], color="black", linestyle="--", drawstyle="steps-post", label=r"$n + (u_t - v_t)\Theta$"
    )
    right.set(
        xlabel="round t",
        ylabel="weight",
        yscale="log",
        title=f"{result['stream']}: u = {result['promotions']}, v = {result['eliminations']}",
    )
    right.legend(fontsize=8, loc="best", framealpha=0.9)
    return axes
