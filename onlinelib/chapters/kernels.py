"""Chapter 6 ("Boolean kernels"): experiments and figures.

* ``theorem4_experiment`` builds a family of weight-a sets with pairwise
  intersections at most b, runs the kernel Perceptron over all monotone
  monomials on the stream of Theorem 4 (0^n, 1^n, then the family) one round
  at a time, and records the learner's exact score before every update, next
  to the closed form f(x^j) = (2^a - 1) - sum_{i<j} 2^|x^i ∩ x^j| and its
  sufficient condition (t - 1) 2^b <= 2^a - 1.
* ``explorer_size`` is the family size the explorer asks for: a multiple of the
  largest t of the sufficient condition.
* ``cycle_until_clean`` replays a finite stream until a whole pass is free of
  mistakes (how the chapter measures the ordinary Perceptron, Winnow and the
  kernel Perceptron to convergence).
* ``dual_cost`` measures the cost of Theorem 3: the kernel values and the time
  of each prediction of the kernel Perceptron against the size of M.
* ``conflict_count``, ``gilbert_varshamov_size`` and ``maximal_family`` give the
  proven rate of the chapter's Gilbert–Varshamov proposition: a maximal family of
  weight-a sets with pairwise intersections at most b has at least
  C(n, a) / V members, V = sum_{i>b} C(a, i) C(n - a, a - i), all in exact integers.
* ``plot_theorem4``, ``plot_mistake_growth`` and ``plot_dual_cost`` draw the
  chapter's static figures; ``onlinelib.explorers.kernels_explorer`` redraws
  ``plot_theorem4`` for other settings.

Conventions as in ``onlinelib.kernels.KernelPerceptron``: labels ±1, instances
in {0,1}^n, scores are exact Python integers.
"""

from __future__ import annotations

import itertools
import math
import time
from typing import Any

import matplotlib.pyplot as plt
import numpy as np

from ..hardness import (
    check_convention,
    check_weights,
    constant_weight_family,
    theorem4_condition,
    theorem4_max_size,
    theorem4_mistakes,
    theorem4_scores,
    theorem4_stream,
)
from ..kernels import BooleanKernel, KernelPerceptron, all_conjunctions, max_margin_dual, monotone_monomials
from ..plotting import axes_row
from ..protocol import Trace, run
from ..validation import check_boolean_rows, check_int, check_labels, check_real, check_rng

__all__ = [
    "MAX_FAMILY_SIZE",
    "MAX_MAXIMAL_FAMILY_SETS",
    "MAX_VARIABLES",
    "conflict_count",
    "cycle_until_clean",
    "dual_cost",
    "explorer_size",
    "gilbert_varshamov_size",
    "max_margin_experiment",
    "maximal_family",
    "plot_dual_cost",
    "plot_mistake_growth",
    "plot_theorem4",
    "theorem4_experiment",
]

#: The largest n the explorer's experiment accepts.
MAX_VARIABLES = 128
#: The largest family the experiment builds (the run costs about size^2 kernel values).
MAX_FAMILY_SIZE = 4096
#: The most weight-a sets ``maximal_family`` scans (C(24, 6) = 134596 fits).
MAX_MAXIMAL_FAMILY_SETS = 200_000


# -- the Gilbert-Varshamov rate ---------------------------------------------------------


def conflict_count(n: int, a: int, b: int) -> int:
    """V = sum_{i=b+1}^{a} C(a, i) C(n - a, a - i), an exact integer.

    The number of weight-a subsets of {1..n} that meet a fixed weight-a subset in
    more than b elements, the subset itself included. Needs 1 <= a <= n - 1 and
    0 <= b < a (``ValueError`` otherwise, naming the argument).
    """
    n, a, b = check_weights(n, a, b)
    return sum(math.comb(a, i) * math.comb(n - a, a - i) for i in range(b + 1, a + 1))


def gilbert_varshamov_size(n: int, a: int, b: int) -> int:
    """ceil(C(n, a) / V): the least size of a maximal family (see ``conflict_count``).

    Every weight-a set is in a maximal family or conflicts with one of its
    members, and each member accounts for at most V sets, so a maximal family has
    at least C(n, a) / V members (the Gilbert-Varshamov argument). Exact integers.
    """
    n, a, b = check_weights(n, a, b)
    return -(-math.comb(n, a) // conflict_count(n, a, b))


def maximal_family(n: int, a: int, b: int) -> np.ndarray:
    """The lexicographic greedy family: scan all weight-a subsets of {1..n} in the order
    of ``itertools.combinations`` and keep each one that meets every kept set in at
    most b elements. The result is maximal (no weight-a set can be added).

    Returns a uint8 array of indicator rows. Deterministic; needs C(n, a) at most
    ``MAX_MAXIMAL_FAMILY_SETS`` (``ValueError`` naming n otherwise).
    """
    n, a, b = check_weights(n, a, b)
    if n > 62 or math.comb(n, a) > MAX_MAXIMAL_FAMILY_SETS:
        raise ValueError(f"n: C(n, a) = C({n}, {a}) exceeds MAX_MAXIMAL_FAMILY_SETS = {MAX_MAXIMAL_FAMILY_SETS}")
    masks = np.array([sum(1 << i for i in c) for c in itertools.combinations(range(n), a)], dtype=np.int64)
    alive = np.ones(len(masks), dtype=bool)
    kept: list[int] = []
    start = 0
    while True:
        free = np.flatnonzero(alive[start:])
        if not len(free):
            break
        k = start + int(free[0])
        kept.append(int(masks[k]))
        alive &= np.bitwise_count(masks & masks[k]) <= b  # kills k itself: |x ∩ x| = a > b
        start = k + 1
    rows = (np.array(kept, dtype=np.int64)[:, None] >> np.arange(n)) & 1
    return rows.astype(np.uint8)


# -- Theorem 4 ----------------------------------------------------------------------------


def theorem4_experiment(
    n: int,
    a: int,
    b: int,
    rng: np.random.Generator,
    size: int | None = None,
    convention: str = "nonnegative",
) -> dict[str, Any]:
    """Build a Theorem 4 family and run the kernel Perceptron on its stream (chapter 6, Theorem 4).

    The family is ``constant_weight_family(n, a, b, size, rng)`` (greedy): random
    subsets of {1..n} of weight a that pairwise meet in at most b elements. The
    stream is 0^n (label -1), 1^n (+1), then the family (all -1), labelled by
    the target x_1 x_2 ... x_n. The kernel Perceptron over all 2^n monotone
    monomials (``monotone_monomials()``) plays it one round at a time, and the
    exact score sum_{z in M} S(z) K(x, z) of every round is recorded before the
    update.

    Parameters
    ----------
    n, a, b : int
        2 <= n <= MAX_VARIABLES, 1 <= a <= n - 1, 0 <= b <= a - 1.
    rng : numpy.random.Generator
    size : int, optional
        The number of sets asked for, in [1, MAX_FAMILY_SIZE]. Default: the
        largest t allowed by the sufficient condition (``theorem4_max_size``),
        capped at MAX_FAMILY_SIZE. The greedy search may find fewer.
    convention : {"nonnegative", "positive"}
        Predict +1 iff score >= 0 (Khardon, Roth and Servedio), or iff score > 0.

    Returns
    -------
    dict with keys ``n``, ``a``, ``b``, ``convention``; ``t_max`` (the largest t
    of the sufficient condition), ``requested`` and ``size`` (the sets asked for
    and found), ``family`` (the ``SetFamily``), ``X`` and ``y`` (the stream);
    ``scores`` (list of Python ints, one per round of the stream),
    ``predictions`` (int8 array) and ``mistakes`` (bool array), ``n_mistakes``;
    ``start`` (2^a - 1, or 2^a for ``"positive"``: the score of x^1),
    ``formula`` (``theorem4_scores``: f(x^j) if every earlier set was a
    mistake), ``lower`` (start - j 2^b for j = 0..size-1: the bound used by the
    sufficient condition), ``condition`` (whether (size - 1) 2^b <= 2^a - 1, or
    < 2^a), and ``predicted`` (2 + size, or 1 + size, when the condition
    holds; None otherwise).

    Raises
    ------
    TypeError
        If n, a, b or size is not an integer, or rng is not a Generator.
    ValueError
        If an argument is out of range or the convention is unknown.
    """
    n, a, b = check_weights(n, a, b, max_n=MAX_VARIABLES)
    rng = check_rng(rng)
    convention = check_convention(convention)
    t_max = theorem4_max_size(a, b, convention)
    if size is None:
        size = min(t_max, MAX_FAMILY_SIZE)
    size = check_int(size, "size", 1, MAX_FAMILY_SIZE)
    family = constant_weight_family(n, a, b, size, rng)
    X, y = theorem4_stream(family)
    learner = KernelPerceptron(n, monotone_monomials(), convention=convention)
    scores: list[int] = []
    predictions = np.empty(len(y), dtype=np.int8)
    for t, (x, label) in enumerate(zip(X, y, strict=True)):
        score = learner.score(x)
        scores.append(score)
        positive = score >= 0 if convention == "nonnegative" else score > 0
        predictions[t] = 1 if positive else -1
        learner.update(x, int(label))
    start = 2**a - (1 if convention == "nonnegative" else 0)
    condition = theorem4_condition(family.size, a, b, convention)
    mistakes = predictions != y
    return {
        "n": n,
        "a": a,
        "b": b,
        "convention": convention,
        "t_max": t_max,
        "requested": size,
        "size": family.size,
        "family": family,
        "X": X,
        "y": y,
        "scores": scores,
        "predictions": predictions,
        "mistakes": mistakes,
        "n_mistakes": int(mistakes.sum()),
        "start": start,
        "formula": theorem4_scores(family, convention),
        "lower": [start - j * 2**b for j in range(family.size)],
        "condition": condition,
        "predicted": theorem4_mistakes(family.size, convention) if condition else None,
    }


def explorer_size(n: int, a: int, b: int, factor: float, convention: str = "nonnegative") -> int:
    """The family size the explorer asks for: ``factor`` times the largest t of the condition.

    Chapter 6, Theorem 4: ``ceil(factor * theorem4_max_size(a, b, convention))``, at least 1
    and at most MAX_FAMILY_SIZE. ``factor`` must be a finite real number > 0.
    """
    n, a, b = check_weights(n, a, b, max_n=MAX_VARIABLES)
    factor = check_real(factor, "factor", 0)
    t_max = theorem4_max_size(a, b, check_convention(convention))
    return int(min(MAX_FAMILY_SIZE, max(1, math.ceil(factor * t_max))))


def cycle_until_clean(learner: Any, X: Any, y: Any, max_passes: int = 1000) -> dict[str, Any]:
    """Replay the stream (X, y) with ``onlinelib.run`` until one whole pass has no mistake (chapter 6).

    The learner is updated in place. On a finite stream that some learner state
    classifies without error, a mistake-bounded learner reaches such a pass; the
    count then measures its mistakes "to convergence" on that stream.

    Returns
    -------
    dict with ``mistakes`` (total over all passes), ``passes`` (including the
    clean one, if reached), ``per_pass`` (list of mistakes per pass) and
    ``clean`` (whether the last pass had no mistake).

    Raises
    ------
    TypeError, ValueError
        If ``max_passes`` is not an integer >= 1, or the stream is invalid
        (see ``onlinelib.run``).
    """
    max_passes = check_int(max_passes, "max_passes", 1)
    per_pass: list[int] = []
    for _ in range(max_passes):
        trace: Trace = run(learner, X, y)
        per_pass.append(trace.n_mistakes)
        if trace.n_mistakes == 0:
            break
    return {
        "mistakes": int(sum(per_pass)),
        "passes": len(per_pass),
        "per_pass": per_pass,
        "clean": per_pass[-1] == 0,
    }


# -- Theorem 3: the cost of a prediction ------------------------------------------------------


def dual_cost(X: Any, y: Any, kernel: BooleanKernel, convention: str = "nonnegative") -> dict[str, np.ndarray]:
    """The cost of each prediction of the kernel Perceptron, against ``|M|`` (chapter 6, Theorem 3).

    Plays the stream one round at a time: ``predict`` then ``update``. For each
    round it records ``|M|`` before the prediction, the number of kernel values the
    prediction computed (``kernel_evaluations`` before and after ``predict``),
    and the wall-clock time of the prediction.

    Parameters
    ----------
    X : array_like, shape (T, n)
        Instances in {0,1}^n.
    y : array_like, shape (T,)
        Labels ±1.
    kernel : BooleanKernel
    convention : {"nonnegative", "positive", "margin"}

    Returns
    -------
    dict of arrays, one entry per round: ``support`` (``|M|`` before the round),
    ``evaluations`` (kernel values the prediction computed), ``seconds`` (its
    time); plus ``n`` and ``dimension`` (the number of features, which the
    primal Perceptron would touch per prediction).

    Raises
    ------
    TypeError, ValueError
        For a kernel that is not a ``BooleanKernel``, non-Boolean instances,
        labels other than ±1, mismatched lengths or an unknown convention.
    """
    rows = check_boolean_rows(X, "X")
    labels = check_labels(y)
    if labels.ndim != 1 or len(labels) != len(rows) or len(rows) == 0:
        raise ValueError(f"X and y must have the same positive number of rounds, got {len(rows)} and {labels.shape}")
    learner = KernelPerceptron(rows.shape[1], kernel, convention=convention)
    T = len(rows)
    support = np.empty(T, dtype=np.int64)
    evaluations = np.empty(T, dtype=np.int64)
    seconds = np.empty(T)
    for t in range(T):
        support[t] = learner.n_updates
        before = learner.kernel_evaluations
        tic = time.perf_counter()
        learner.predict(rows[t])
        seconds[t] = time.perf_counter() - tic
        evaluations[t] = learner.kernel_evaluations - before
        learner.update(rows[t], int(labels[t]))
    return {
        "support": support,
        "evaluations": evaluations,
        "seconds": seconds,
        "n": rows.shape[1],
        "dimension": kernel.dimension(rows.shape[1]),
    }


# -- figures ------------------------------------------------------------------------------------


def plot_theorem4(result: dict[str, Any], axes: Any = None) -> np.ndarray:
    """Two panels for a ``theorem4_experiment`` result (chapter 6, Theorem 4).

    Left: the kernel Perceptron's score of each family member x^j, divided by
    the score of x^1 (2^a - 1, or 2^a), against j, with the threshold 0 and the
    bound start - (j - 1) 2^b of the sufficient condition; mistakes are filled
    dots. Right: the cumulative mistakes over the stream, with 2 + t (1 + t)
    when the condition holds, and the largest t of the condition.
    Returns the two axes.
    """
    axes = axes_row(axes, 2, (10.5, 3.8))
    start = result["start"]
    size = result["size"]
    j = np.arange(1, size + 1)
    scores = np.array([float(s) / start for s in result["scores"][2:]])
    wrong = result["mistakes"][2:]
    ax = axes[0]
    ax.axhline(0.0, color="black", lw=1, label="threshold 0")
    lower = np.array([float(v) / start for v in result["lower"]])
    ax.plot(j, lower, "k--", lw=1, label=r"$(2^a-1) - (j-1)\,2^b$, scaled")
    ax.plot(j[wrong], scores[wrong], "o", ms=3, color="C3", label="mistake")
    ax.plot(j[~wrong], scores[~wrong], "o", ms=3, mfc="none", color="C0", label="correct")
    if result["t_max"] <= size:
        ax.axvline(result["t_max"], color="grey", lw=1, ls=":", label=f"t_max = {result['t_max']}")
    ax.set(xlabel="family member j", ylabel="score / score of x^1")
    ax.set_title(f"n = {result['n']}, a = {result['a']}, b = {result['b']}, {result['convention']}", fontsize=10)
    ax.legend(fontsize=7, loc="lower left")
    ax = axes[1]
    rounds = np.arange(len(result["y"]) + 1)
    cumulative = np.concatenate([[0], np.cumsum(result["mistakes"])])
    ax.plot(rounds, cumulative, color="C3", label=f"mistakes: {result['n_mistakes']}")
    if result["predicted"] is not None:
        extra = 2 if result["convention"] == "nonnegative" else 1
        ax.axhline(result["predicted"], color="black", ls="--", lw=1, label=f"{extra} + t = {result['predicted']}")
    ax.set(xlabel="round", ylabel="mistakes so far")
    ax.set_title(f"{result['size']} sets of {result['requested']} requested", fontsize=10)
    ax.legend(fontsize=8, loc="upper left")
    return axes


def plot_mistake_growth(growth: dict[str, Any], ax: Any = None) -> Any:
    """log2 of the mistakes against n (chapter 6, Theorem 4 against the ordinary Perceptron).

    ``growth`` holds arrays ``n``, ``kernel`` (the kernel Perceptron's mistakes
    on the Theorem 4 stream), ``perceptron`` (the ordinary Perceptron's, to a
    clean pass) and ``novikoff`` (its Novikoff bound). The kernel curve gets a
    least-squares line, whose slope is printed in the legend. Returns the axes.
    """
    for key in ("n", "kernel", "perceptron", "novikoff"):
        if key not in growth:
            raise ValueError(f"growth must have the key {key!r}")
    n = np.asarray(growth["n"], dtype=float)
    curves = {key: np.asarray(growth[key], dtype=float) for key in ("kernel", "perceptron", "novikoff")}
    if any(len(c) != len(n) for c in curves.values()) or len(n) < 2:
        raise ValueError("growth's arrays must have the same length, at least 2")
    if any((c <= 0).any() for c in curves.values()):
        raise ValueError("mistake counts and bounds must be positive to take log2")
    if ax is None:
        _, ax = plt.subplots(figsize=(6.5, 4.0))
    slope, intercept = np.polyfit(n, np.log2(curves["kernel"]), 1)
    ax.plot(n, np.log2(curves["kernel"]), "o-", color="C3", label="kernel Perceptron (2^n monomials)")
    ax.plot(n, slope * n + intercept, ":", color="C3", label=f"fit: slope {slope:.4f}")
    ax.plot(n, np.log2(curves["perceptron"]), "s-", color="C0", label="Perceptron (n features + bias)")
    ax.plot(n, np.log2(curves["novikoff"]), "--", color="C0", label="its Novikoff bound")
    ax.set(xlabel="n", ylabel="log2(mistakes)", title="Theorem 4 stream, a = n/4, b = n/8")
    ax.legend(fontsize=8, loc="upper left")
    return ax


def plot_dual_cost(cost: dict[str, Any], axes: Any = None) -> np.ndarray:
    """Two panels for a ``dual_cost`` result (chapter 6, Theorem 3).

    Left: the kernel values computed by each prediction against ``|M|``, with the
    primal cost (the number of features) for comparison. Right: the measured
    time per prediction against ``|M|``. Returns the two axes.
    """
    axes = axes_row(axes, 2, (10.5, 3.6))
    support = np.asarray(cost["support"])
    ax = axes[0]
    ax.plot(support, cost["evaluations"], ".", ms=3, color="C0", label="kernel values per prediction")
    ax.axhline(
        float(cost["dimension"]),
        color="black",
        ls="--",
        lw=1,
        label=f"features of the primal: {float(cost['dimension']):.3g}",
    )
    ax.set(xlabel="|M| before the prediction", ylabel="kernel values", yscale="log")
    ax.set_title(f"n = {cost['n']}", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    ax = axes[1]
    micro = 1e6 * np.asarray(cost["seconds"], dtype=float)
    ax.plot(support, micro, ".", ms=3, color="C1")
    if micro.size:  # a few slow calls (other processes) would flatten the plot
        ax.set_ylim(0, 1.5 * float(np.percentile(micro, 99)) + 1e-3)
    ax.set(xlabel="|M| before the prediction", ylabel="microseconds per prediction")
    ax.set_title("measured time (machine-dependent)", fontsize=10)
    return axes


def max_margin_experiment(n_values: Any, m: int, n_test: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """The maximum-margin hypothesis of the all-conjunctions kernel on the target x_1 (chapter 6).

    For each n, m uniform training points and n_test uniform test points in
    {0,1}^n are labelled by x_1; ``max_margin_dual`` is solved on the Gram
    matrix 2^(same(x, z) - n) (the kernel divided by 2^n) and the hypothesis is
    scored on the test points.

    Returns
    -------
    dict
        ``n``; ``test_error``; ``min_margin`` and ``max_slack`` (the smallest
        training margin y_i f(x_i), and the largest a_i abs(y_i f(x_i) - 1): the
        Karush-Kuhn-Tucker conditions); ``alpha_spread`` (max abs(a_i - 1): how
        close the Gram matrix is to 2^n I).
    """
    rng = check_rng(rng)
    m = check_int(m, "m", low=1)
    n_test = check_int(n_test, "n_test", low=1)
    n_values = list(n_values)
    if not n_values:
        raise ValueError("n_values must hold at least one n, got an empty sequence")
    kernel = all_conjunctions()
    rows = []
    for n in n_values:
        n = check_int(n, "n", low=1)
        X = rng.integers(0, 2, (m, n), dtype=np.uint8)
        Z = rng.integers(0, 2, (n_test, n), dtype=np.uint8)
        y, y_test = 2 * X[:, 0].astype(np.int64) - 1, 2 * Z[:, 0].astype(np.int64) - 1
        gram = np.exp2(kernel.counts(X, X) - n)
        alpha = max_margin_dual(gram, y)
        margins = y * (gram @ (alpha * y))
        scores = np.exp2(kernel.counts(Z, X) - n) @ (alpha * y)
        epsilon = np.max(gram.sum(axis=1) - np.diag(gram))  # entries are positive
        rows.append(
            (
                n,
                np.mean(np.where(scores >= 0, 1, -1) != y_test),
                margins.min(),
                np.max(alpha * np.abs(margins - 1)),
                np.max(np.abs(alpha - 1)),
                epsilon,
            )
        )
    names = ("n", "test_error", "min_margin", "max_slack", "alpha_spread", "epsilon")
    return {name: np.array(column) for name, column in zip(names, zip(*rows, strict=True), strict=True)}
