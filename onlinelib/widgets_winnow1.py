"""Chapter 2 ("Disjunctions and Winnow1"): streams, adversaries, the explorer and its figure.

* ``sparse_disjunction_stream``: random examples with a few active variables,
  labelled by a monotone disjunction. On such streams Elimination needs about
  n mistakes and Winnow1 about k lg n.
* ``winnow1_adaptive_adversary``: an adversary that watches Winnow1's weights
  and forces promotions that raise the total weight by exactly theta and
  eliminations that lower it by little more than theta. It attains the sharper
  bound 1 + 2k(lg n - 1) of the chapter's exercise for n a power of two,
  theta = n/2 and n large enough compared with k.
* ``elimination_adversary``: the n - k negative unit vectors on which the
  Elimination learner for monotone disjunctions makes exactly n - k mistakes.
* ``compare_winnow1`` (pure, returns numbers) and ``winnow1_explorer`` (the
  ipywidgets panel), with ``plot_winnow1_comparison`` drawing the figure both use.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.sparse as sp

from .bounds import winnow1_bound
from .linear import Elimination, Winnow1
from .plotting import draw_on_demand
from .protocol import run
from .validation import check_int, check_rng
from .streams import disjunction_stream, winnow1_promotion_adversary

__all__ = [
    "STREAMS",
    "MAX_FEATURES",
    "sparse_disjunction_stream",
    "winnow1_adaptive_adversary",
    "elimination_adversary",
    "default_length",
    "compare_winnow1",
    "plot_winnow1_comparison",
    "winnow1_explorer",
]

STREAMS = (
    "sparse random",
    "dense random",
    "promotion adversary",
    "adaptive adversary",
    "elimination adversary",
)
MAX_FEATURES = 8192  # the explorer's largest n (a dense random stream is T x n)
LEARNER_COLORS = {"Winnow1": "#1f77b4", "Elimination": "#d62728"}


# -- argument checks --------------------------------------------------------------
def _check_theta(theta: Any, n: int) -> float:
    if theta is None:
        return n / 2
    if isinstance(theta, (bool, np.bool_)) or not isinstance(
        theta, (int, float, np.integer, np.floating)
    ):
        raise TypeError(f"theta must be None or a real number > 0, got {theta!r}")
    theta = float(theta)
    if not math.isfinite(theta) or theta <= 0:
        raise ValueError(f"theta must be a finite real number > 0, got {theta!r}")
    return theta


def _check_n_k(n_features: Any, n_relevant: Any, high: int | None = None) -> tuple[int, int]:
    n = check_int(n_features, "n_features", 1, high)
    k = check_int(n_relevant, "n_relevant", 1, n)
    return n, k


# -- streams and adversaries ------------------------------------------------------
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
    n, k = _check_n_k(n_features, n_relevant)
    length = check_int(length, "length", 1)
    m = n - k
    active = check_int(active, "active", 0, m)
    if isinstance(p_positive, (bool, np.bool_)) or not isinstance(
        p_positive, (int, float, np.integer, np.floating)
    ):
        raise TypeError(f"p_positive must be a real number in [0, 1], got {p_positive!r}")
    if not 0.0 <= float(p_positive) <= 1.0:
        raise ValueError(f"p_positive must be in [0, 1], got {p_positive!r}")
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
    X = sp.csr_matrix(
        (np.ones(indices.size), indices, indptr), shape=(length, n)
    )
    y = np.where(positive, 1, -1).astype(np.int8)
    return X, y, relevant


def _greedy_pick(weights: np.ndarray, candidates: np.ndarray, budget: float) -> np.ndarray:
    """Candidates with positive weight, taken largest first while the sum stays <= budget.

    Equal weights are taken in increasing index order. Exactly the greedy rule
    "scan by decreasing weight, take what still fits", done value by value.
    """
    w = weights[candidates]
    chosen: list[np.ndarray] = []
    left = budget
    for value in np.unique(w[w > 0])[::-1]:
        if value > left:
            continue
        group = candidates[w == value]
        take = min(group.size, int(left // value))
        chosen.append(group[:take])
        left -= take * value
    return np.concatenate(chosen) if chosen else np.zeros(0, dtype=np.int64)


def winnow1_adaptive_adversary(
    n_features: int, n_relevant: int, theta: float | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A stream, chosen while watching Winnow1, that forces many mistakes (chapter 2).

    The target is x_0 v ... v x_{k-1}. The adversary plays against a fresh
    ``Winnow1(n, theta)`` and, as Winnow1 is deterministic, the stream it
    returns replays to the same run.

    1. Promotions: for each relevant i in turn, while w_i <= theta, it shows a
       positive example with x_i = 1 and irrelevant variables of positive
       weight added largest first while w.x stays <= theta. Each round is a
       false negative that doubles w_i (and the padding), so the total weight
       grows by w.x, which is exactly theta whenever the padding allows.
    2. Eliminations: while the irrelevant weights sum to more than theta, it
       shows a negative example made of the same greedy pick plus the smallest
       remaining positive weight. Its w.x exceeds theta, so it is a false
       positive, and it removes little more than theta from the total.

    With theta = n/2 and n a power of two, u = k lg n, and when n is large
    compared with k the total is 1 + 2k(lg n - 1), the most any stream can force.

    Returns X (uint8, shape (T, n)), y (int8, all mistakes), relevant (arange(k)).
    """
    n, k = _check_n_k(n_features, n_relevant)
    theta = _check_theta(theta, n)
    learner = Winnow1(n, theta)
    irrelevant = np.arange(k, n)
    rows: list[np.ndarray] = []
    labels: list[int] = []

    def play(on: np.ndarray, label: int) -> None:
        x = np.zeros(n, dtype=np.uint8)
        x[on] = 1
        if learner.predict(x) == label:  # pragma: no cover - guarded by construction
            raise RuntimeError("internal error: the adversary's example is not a mistake")
        learner.update(x, label)
        rows.append(x)
        labels.append(label)

    for i in range(k):
        while learner.weights[i] <= theta:
            pad = _greedy_pick(learner.weights, irrelevant, theta - learner.weights[i])
            play(np.concatenate([[i], pad]), 1)
    while learner.weights[irrelevant].sum() > theta:
        pick = _greedy_pick(learner.weights, irrelevant, theta)
        rest = np.setdiff1d(irrelevant, pick)
        rest = rest[learner.weights[rest] > 0]
        # Some weight was left out (the pick sums to <= theta < total), and
        # adding the smallest one left out pushes w.x above theta.
        smallest = rest[np.argmin(learner.weights[rest])]
        play(np.append(pick, smallest), -1)
    X = np.array(rows, dtype=np.uint8).reshape(len(rows), n)
    return X, np.array(labels, dtype=np.int8), np.arange(k)


def elimination_adversary(n_features: int, n_relevant: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The unit vectors e_k, ..., e_{n-1}, all negative, for the target x_0 v ... v x_{k-1} (chapter 2).

    The Elimination learner for monotone disjunctions (``Elimination(n,
    "disjunction", monotone=True)``) starts by predicting "some variable is on",
    so it errs on each of them and drops one variable per mistake: exactly
    n - k mistakes, its bound. Winnow1 with theta >= 1 makes none (w.x = 1).

    Returns X (uint8, shape (n - k, n)), y (int8, all -1), relevant (arange(k)).
    """
    n, k = _check_n_k(n_features, n_relevant)
    X = np.eye(n, dtype=np.uint8)[k:]
    return X, -np.ones(n - k, dtype=np.int8), np.arange(k)


def default_length(n_features: int, n_relevant: int, stream: str) -> int:
    """The explorer's stream length for the random streams (adversaries fix their own).

    "sparse random": long enough that, with high probability, every irrelevant
    variable shows up in a negative example (so Elimination finishes) and every
    relevant variable in lg n + 2 positive ones (so Winnow1 can finish):
    max(2 (m/3)(ln m + 3), 8 k (lg n + 2)) rounds, m = n - k.
    "dense random": 1000 rounds.
    """
    n, k = _check_n_k(n_features, n_relevant)
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
        (``winnow1_promotion_adversary``), "adaptive adversary"
        (``winnow1_adaptive_adversary``) or "elimination adversary".
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
    theta = _check_theta(theta, n)
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
            "theta < 1/2: the initial weights exceed 2 theta, so Lemma 2 and the "
            "bound's derivation do not apply."
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
    import matplotlib.pyplot as plt

    if axes is None:
        _, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    left, right = axes
    t = np.arange(result["rounds"] + 1)
    for name in ("Winnow1", "Elimination"):
        color = LEARNER_COLORS[name]
        left.plot(t, result["cumulative"][name], color=color, drawstyle="steps-post",
                  label=f"{name}: {result['mistakes'][name]} mistakes")
        bound = result["bounds"][name]
        left.axhline(bound, color=color, linestyle="--", lw=1, label=f"{name} bound = {bound:.4g}")
    # symlog: Winnow1's tens and Elimination's thousands in one panel, and 0 stays on it
    left.set_yscale("symlog", linthresh=10, linscale=0.5)
    left.set(xlabel="round t", ylabel="mistakes so far (symlog scale)",
             title=f"n = {result['n']}, k = {result['k']}, theta = {result['theta']:.4g}")
    top = max(max(result["bounds"].values()), *result["mistakes"].values())
    left.set_ylim(0, 3 * top)
    left.legend(fontsize=8, loc="best", framealpha=0.9)
    right.plot(t, result["weight_sum"], color=LEARNER_COLORS["Winnow1"], drawstyle="steps-post",
               label=r"total weight $W_t$")
    right.plot(t, result["ceiling"], color="black", linestyle="--", drawstyle="steps-post",
               label=r"$n + (u_t - v_t)\Theta$")
    right.set(xlabel="round t", ylabel="weight", yscale="log",
              title=f"{result['stream']}: u = {result['promotions']}, v = {result['eliminations']}")
    right.legend(fontsize=8, loc="best", framealpha=0.9)
    return axes


def winnow1_explorer(seed: int = 0):
    """An ipywidgets panel: choose n, k, theta / n and a stream; compare Winnow1 with Elimination.

    Needs a live kernel (Jupyter, JupyterLab or Binder). The chapter shows the
    figure at the default setting statically above it.
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    lg_n_box = widgets.IntSlider(value=10, min=2, max=12, description="lg n")
    k_box = widgets.IntSlider(value=4, min=1, max=16, description="k")
    ratio_box = widgets.SelectionSlider(
        options=[("1/16", 1 / 16), ("1/8", 1 / 8), ("1/4", 1 / 4), ("1/2", 1 / 2),
                 ("1", 1.0), ("2", 2.0), ("4", 4.0)],
        value=1 / 2,
        description="theta / n",
    )
    stream_box = widgets.Dropdown(options=list(STREAMS), value="sparse random", description="stream")
    seed_box = widgets.IntSlider(value=seed, min=0, max=99, description="seed")

    def draw(lg_n: int, k: int, ratio: float, stream: str, seed: int) -> None:
        n = 2**lg_n
        k = min(k, n)
        result = compare_winnow1(n, k, ratio * n, stream, np.random.default_rng(seed))
        plot_winnow1_comparison(result)
        plt.tight_layout()
        if result["note"]:
            print(result["note"])
        plt.show()

    return draw_on_demand(
        draw, lg_n=lg_n_box, k=k_box, ratio=ratio_box, stream=stream_box,
        seed=seed_box,
    )
