"""Chapter 4 ("Winnow"): proof instruments, adversaries, experiments and the explorer.

* ``proof_observables`` builds the ``observe=`` functions with which the chapter
  checks every step of the proof of Littlestone's bound on every round.
* ``exhaustive_adversary`` finds, by an exact search over all example
  sequences, the largest number of mistakes Winnow(alpha, theta) can be forced
  to make on a 1-literal monotone disjunction over a few variables;
  ``beam_adversary`` searches the same game heuristically for larger N (and
  k >= 1 relevant variables); ``promotion_adversary`` meets the promotion bound
  k (1 + floor(log_alpha theta)) exactly.
* ``bernoulli_rows`` and ``race`` run the Perceptron and Winnow on the same
  random streams, chunk by chunk, with the fast engine of ``onlinelib.run``.
* ``compare_winnow`` / ``plot_winnow_comparison`` / ``winnow_explorer`` are the
  chapter's widget, in the pattern of ``onlinelib.widgets``: a pure function
  that returns numbers, a figure drawn from them, and an ipywidgets panel.

Conventions as in ``onlinelib.linear.Winnow2``: weights start at 1, the
prediction is +1 iff w.x > theta (or >= theta with ``positive_at_threshold``),
promotions multiply the active weights by alpha, demotions divide them.
"""
from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp

from .bounds import notes_winnow_bound, winnow2_bound
from .linear import Perceptron, Winnow2
from .plotting import draw_on_demand
from .protocol import run
from .validation import check_int, check_rng
from .streams import disjunction_stream

__all__ = [
    "AdversaryResult",
    "RaceResult",
    "beam_adversary",
    "bernoulli_rows",
    "compare_winnow",
    "exhaustive_adversary",
    "plot_winnow_comparison",
    "promotion_adversary",
    "proof_observables",
    "race",
    "winnow_explorer",
]


# -- argument checks ------------------------------------------------------------------


def _check_float(value: Any, name: str, low: float, what: str) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating, Fraction)):
        raise TypeError(f"{name} must be a real number {what}, got {value!r}")
    value = float(value)
    if not math.isfinite(value) or value <= low:
        raise ValueError(f"{name} must be a finite real number {what}, got {value!r}")
    return value


def _check_alpha_theta(n: int, alpha: Any, theta: Any) -> tuple[float, float]:
    alpha = _check_float(alpha, "alpha", 1.0, "> 1")
    theta = float(n) if theta is None else _check_float(theta, "theta", 0.0, "> 0")
    return alpha, theta


# -- proof instruments ------------------------------------------------------------------


def proof_observables(X: Any, relevant: Any) -> dict[str, Callable[[Any], float]]:
    """The ``observe=`` functions that check each step of the proof of Littlestone's bound.

    Chapter 4, Theorem "Littlestone's bound". Pass the result to
    ``onlinelib.run(learner, X, y, observe=..., method="loop")`` for a
    ``Winnow2`` learner (any ``alpha``, ``theta``, tie convention). Recorded
    before the first round and after every round t:

    ``Phi``
        the potential: the sum of the weights;
    ``next score``
        w.x of the example of round t + 1 under the current weights, i.e. the
        score the learner is about to see (NaN after the last round);
    ``min weight``
        the smallest weight (the proof needs Phi > 0);
    ``relevant demotions``
        how many rounds so far lowered some relevant weight;
    ``relevant promotions``
        the sum over relevant i of m_i, the number of rounds so far that raised
        w_i;
    ``max m_i``
        the largest m_i over the relevant variables;
    ``max relevant weight``
        the largest relevant weight.

    The last four are counted by comparing the relevant weights with their
    values at the previous call, so the functions must be called once per round
    and in order: use ``method="loop"`` (the default when observing). Build a
    fresh dictionary for every run.
    """
    rows = X
    relevant = np.asarray(relevant)
    if relevant.ndim != 1 or relevant.size == 0 or not np.issubdtype(relevant.dtype, np.integer):
        raise ValueError(f"relevant must be a nonempty 1-D array of feature indices, got {relevant!r}")
    n_rows = rows.shape[0] if sp.issparse(rows) or isinstance(rows, np.ndarray) else len(rows)
    state: dict[str, Any] = {"previous": None, "m": np.zeros(relevant.size, dtype=np.int64), "down": 0}

    def _track(learner: Any) -> None:
        current = learner.weights[relevant].copy()
        if state["previous"] is not None and learner.rounds != state["round"]:
            before = state["previous"]
            state["m"] += current > before
            state["down"] += bool((current < before).any())
        state["previous"], state["round"] = current, learner.rounds

    def relevant_demotions(learner: Any) -> float:
        _track(learner)
        return float(state["down"])

    def relevant_promotions(learner: Any) -> float:
        _track(learner)
        return float(state["m"].sum())

    def max_m(learner: Any) -> float:
        _track(learner)
        return float(state["m"].max())

    def next_score(learner: Any) -> float:
        t = learner.rounds
        if t >= n_rows:
            return float("nan")
        row = rows[t : t + 1] if sp.issparse(rows) else rows[t]
        return learner.score(row)

    return {
        "Phi": lambda learner: float(np.sum(learner.weights)),
        "next score": next_score,
        "min weight": lambda learner: float(np.min(learner.weights)),
        "relevant demotions": relevant_demotions,
        "relevant promotions": relevant_promotions,
        "max m_i": max_m,
        "max relevant weight": lambda learner: float(np.max(learner.weights[relevant])),
    }


# -- adversaries -------------------------------------------------------------------------


class AdversaryResult(NamedTuple):
    """An example sequence found by an adversary, and what Winnow does on it.

    ``X`` (uint8, one row per round) and ``y`` (int8) are consistent with the
    target "x_0 or ... or x_{k-1}" (the relevant variables are the first k);
    every round of the sequence is a mistake of Winnow(alpha, theta), so
    ``mistakes == len(y) == promotions + demotions``. ``exact`` says whether the
    search was exhaustive (then ``mistakes`` is the largest number possible);
    ``states`` is the number of search states visited.
    """

    X: np.ndarray
    y: np.ndarray
    mistakes: int
    promotions: int
    demotions: int
    exact: bool
    states: int


def _rational(alpha: float) -> Fraction:
    """alpha as a fraction p/q with a small denominator, equal to alpha as a float."""
    frac = Fraction(alpha).limit_denominator(1000)
    if float(frac) != alpha:
        raise ValueError(f"alpha must be a ratio of small integers (such as 1.1, 1.5, 2), got {alpha!r}")
    return frac


def exhaustive_adversary(
    n_features: int,
    alpha: float,
    theta: float | None = None,
    *,
    positive_at_threshold: bool = False,
    max_states: int = 200_000,
) -> AdversaryResult:
    """The longest sequence of mistakes of Winnow(alpha, theta) on the target x_0, by exhaustive search.

    Chapter 4, "The notes' bound fails for alpha < 2". The game: the adversary
    shows examples in {0,1}^N labelled by the 1-literal disjunction x_0 and
    wants as many mistakes as possible. A correctly predicted round changes
    nothing, so only mistake rounds matter, and the potential argument of the
    chapter shows that every sequence of them is finite. The search is a
    memoised longest-path search over Winnow's states. It is exact: weights are
    alpha^e with integer exponents, stored as exponents, and every score is
    compared with theta in rational arithmetic. The irrelevant variables
    x_1..x_{N-1} are interchangeable, so a state is the exponent of w_0 and the
    multiset of the other exponents, and an example is how many variables of
    each exponent class it switches on.

    The optimal sequence is returned as explicit examples; the chapter replays
    it on ``onlinelib.Winnow2`` (floating point) and checks the count.

    Parameters
    ----------
    n_features : int
        N, at least 1 (the search grows quickly: N <= 7 takes about a second).
    alpha : float
        The factor, > 1, a ratio of small integers (1.1, 1.5, 2, ...).
    theta : float, optional
        The threshold, > 0 and a ratio of small integers; default N.
    positive_at_threshold : bool
        Predict +1 when w.x equals theta (the Khardon-Roth-Servedio convention).
    max_states : int
        Give up (``RuntimeError``) after this many states.
    """
    n = check_int(n_features, "n_features", 1)
    alpha_f, theta_f = _check_alpha_theta(n, alpha, theta)
    max_states = check_int(max_states, "max_states", 1)
    a = _rational(alpha_f)
    th = Fraction(theta_f).limit_denominator(10**6)
    if float(th) != theta_f:
        raise ValueError(f"theta must be a ratio of small integers, got {theta!r}")
    ties_positive = bool(positive_at_threshold)
    powers: dict[int, Fraction] = {}

    def power(e: int) -> Fraction:
        if e not in powers:
            powers[e] = a**e
        return powers[e]

    def is_mistake(score: Fraction, positive: bool) -> bool:
        predicted_positive = score > th or (ties_positive and score == th)
        return predicted_positive != positive

    memo: dict[tuple, tuple[int, Any]] = {}

    def longest(e0: int, classes: tuple) -> int:
        key = (e0, classes)
        if key in memo:
            return memo[key][0]
        if len(memo) >= max_states:
            raise RuntimeError(f"exhaustive_adversary: more than max_states={max_states} states; use a smaller N")
        memo[key] = (0, None)  # placeholder; the game graph has no cycles (see the chapter's proof)
        exps = [e for e, _ in classes]
        counts = [c for _, c in classes]
        best, move = 0, None
        for take in itertools.product(*(range(c + 1) for c in counts)):
            base = sum((t * power(e) for t, e in zip(take, exps)), Fraction(0))
            for with_relevant in (True, False):
                if not with_relevant and not any(take):
                    continue  # the zero vector: negative, predicted negative, never a mistake
                score = base + power(e0) if with_relevant else base
                if not is_mistake(score, with_relevant):
                    continue
                step = 1 if with_relevant else -1
                new: dict[int, int] = {}
                for t, e, c in zip(take, exps, counts):
                    if c - t:
                        new[e] = new.get(e, 0) + c - t
                    if t:
                        new[e + step] = new.get(e + step, 0) + t
                value = 1 + longest(e0 + step if with_relevant else e0, tuple(sorted(new.items())))
                if value > best:
                    best, move = value, (with_relevant, take)
        memo[key] = (best, move)
        return best

    start = (0, ((0, n - 1),) if n > 1 else ())
    longest(*start)
    # Replay the best moves on explicit exponent vectors to build the examples.
    exponents = np.zeros(n, dtype=np.int64)
    rows, labels = [], []
    while True:
        irrelevant = exponents[1:]
        classes = tuple(sorted(zip(*np.unique(irrelevant, return_counts=True)))) if n > 1 else ()
        classes = tuple((int(e), int(c)) for e, c in classes)
        _, move = memo[(int(exponents[0]), classes)]
        if move is None:
            break
        with_relevant, take = move
        x = np.zeros(n, dtype=np.uint8)
        x[0] = with_relevant
        for (e, _), t in zip(classes, take):
            members = 1 + np.flatnonzero(irrelevant == e)
            x[members[:t]] = 1
        step = 1 if with_relevant else -1
        exponents[x == 1] += step
        rows.append(x)
        labels.append(1 if with_relevant else -1)
    X = np.array(rows, dtype=np.uint8).reshape(len(rows), n)
    y = np.array(labels, dtype=np.int8)
    promotions = int(np.count_nonzero(y == 1))
    return AdversaryResult(X, y, len(y), promotions, len(y) - promotions, True, len(memo))


def _fill(weights: np.ndarray, order: np.ndarray, cap: float, strict: bool = False) -> list[int]:
    """Greedily pick indices in ``order`` while the picked weights sum to at most ``cap`` (below it if strict)."""
    chosen, total = [], 0.0
    for i in order:
        if total + weights[i] < cap or (not strict and total + weights[i] == cap):
            chosen.append(int(i))
            total += weights[i]
    return chosen


def _optimistic_value(learner: Winnow2, n_relevant: int, made: int) -> float:
    """Mistakes made + an optimistic count of those still possible (the beam's ranking)."""
    alpha, theta, w = learner.alpha, learner.threshold, learner.weights
    remaining, gain = 0, 0.0
    for weight in w[:n_relevant]:
        while weight <= theta:
            gain += (alpha - 1) * (theta - weight)
            weight *= alpha
            remaining += 1
    return made + remaining + (float(np.sum(w[n_relevant:])) + gain) / ((1 - 1 / alpha) * theta)


def beam_adversary(
    n_features: int,
    alpha: float,
    theta: float | None = None,
    *,
    rng: np.random.Generator,
    n_relevant: int = 1,
    width: int = 16,
    n_random: int = 2,
    positive_at_threshold: bool = False,
    max_rounds: int = 10_000,
) -> AdversaryResult:
    """A long sequence of mistakes of Winnow(alpha, theta), found by a beam search.

    Chapter 4, "The notes' bound fails for alpha < 2". The target is
    x_0 or ... or x_{k-1}. The search keeps ``width`` Winnow learners (real
    ``onlinelib.Winnow2`` objects, so every decision is the library's own
    floating-point decision). Each is extended by candidate mistakes:

    * demotions: a set of irrelevant variables whose weights sum to just above
      theta (the potential drops by (1 - 1/alpha) w.x, so the adversary wants
      w.x as small as the rule allows);
    * promotions: one relevant variable (the lightest, or the heaviest still at
      most theta) plus irrelevant variables filling the score up to theta (the
      potential rises by (alpha - 1) w.x, so the adversary wants w.x large).

    The sets are filled greedily from the heaviest, from the lightest, and in
    ``n_random`` random orders. Children are ranked by the mistakes made plus an
    optimistic estimate of those still available (the remaining promotions of
    the relevant weights, and the potential that demotions could still spend)
    and the best ``width`` are kept, until no candidate is a mistake.

    Returns the sequence of the last surviving state; ``exact`` is False.
    """
    n = check_int(n_features, "n_features", 1)
    k = check_int(n_relevant, "n_relevant", 1, n)
    alpha, theta = _check_alpha_theta(n, alpha, theta)
    width = check_int(width, "width", 1)
    n_random = check_int(n_random, "n_random", 0)
    max_rounds = check_int(max_rounds, "max_rounds", 1)
    rng = check_rng(rng)
    irrelevant = np.arange(k, n)
    relevant = np.arange(k)

    # Under "w.x > theta" a promotion needs w.x <= theta and a demotion w.x > theta;
    # under ">=" (positive_at_threshold) they need w.x < theta and w.x >= theta.
    ties_positive = bool(positive_at_threshold)

    def over(total: float) -> bool:
        return total >= theta if ties_positive else total > theta

    def candidates(learner: Winnow2) -> list[tuple[list[int], int]]:
        w = learner.weights
        out: list[tuple[list[int], int]] = []
        by_weight = irrelevant[np.argsort(-w[irrelevant], kind="stable")]
        orders = [by_weight, by_weight[::-1]] + [rng.permutation(irrelevant) for _ in range(n_random)]
        if irrelevant.size and w[irrelevant].sum() >= theta:
            lightest_first = by_weight[::-1]
            for order in orders:
                chosen = _fill(w, order, theta, strict=ties_positive)
                taken = set(chosen)
                total = float(np.sum(w[chosen])) if chosen else 0.0
                for i in lightest_first:  # the lightest weight that pushes the sum over theta
                    if i not in taken and over(total + w[i]):
                        out.append((chosen + [int(i)], -1))
                        break
        open_relevant = relevant[w[relevant] <= theta]
        if open_relevant.size:
            picks = {int(open_relevant[np.argmin(w[open_relevant])]), int(open_relevant[np.argmax(w[open_relevant])])}
            for r in sorted(picks):
                for order in orders:
                    out.append(([r] + _fill(w, order, theta - w[r], strict=ties_positive), 1))
        return out

    start = Winnow2(n, alpha, theta, positive_at_threshold=positive_at_threshold)
    frontier: list[tuple[Winnow2, list[tuple[tuple[int, ...], int]]]] = [(start, [])]
    visited = 1
    for _ in range(max_rounds):
        children: dict[tuple, tuple[Winnow2, list]] = {}
        for learner, history in frontier:
            for active, label in candidates(learner):
                x = np.zeros(n)
                x[active] = 1.0
                if learner.predict(x) == label:
                    continue  # not a mistake: it would change nothing
                child = copy.deepcopy(learner)
                child.update(x, label)
                w = child.weights
                key = (tuple(w[:k]), tuple(np.sort(w[k:])))
                if key not in children:
                    children[key] = (child, history + [(tuple(sorted(active)), label)])
        visited += len(children)
        if not children:
            break
        kids = list(children.values())
        values = np.array([_optimistic_value(c, k, len(h)) for c, h in kids])
        frontier = [kids[i] for i in np.argsort(-values, kind="stable")[:width]]
    history = frontier[0][1]
    X = np.zeros((len(history), n), dtype=np.uint8)
    for t, (active, _) in enumerate(history):
        X[t, list(active)] = 1
    y = np.array([label for _, label in history], dtype=np.int8)
    promotions = int(np.count_nonzero(y == 1))
    return AdversaryResult(X, y, len(y), promotions, len(y) - promotions, False, visited)


def promotion_adversary(
    n_features: int, n_relevant: int, alpha: float, theta: float | None = None, *, positive_at_threshold: bool = False
) -> AdversaryResult:
    """The stream that makes Winnow(alpha, theta) promote k (1 + floor(log_alpha theta)) times.

    Chapter 4, step "m+ <= k (1 + log_alpha theta)". For each relevant variable
    i = 0..k-1 in turn, the unit vector e_i is shown with label +1 for as long as
    Winnow predicts -1 on it, i.e. while w_i <= theta (w_i < theta with
    ``positive_at_threshold``). Weight w_i = alpha^j is promoted while
    alpha^j <= theta, which is 1 + floor(log_alpha theta) times when theta >= 1.
    Every round is a promotion mistake; decisions are Winnow2's own.
    """
    n = check_int(n_features, "n_features", 1)
    k = check_int(n_relevant, "n_relevant", 1, n)
    alpha, theta = _check_alpha_theta(n, alpha, theta)
    learner = Winnow2(n, alpha, theta, positive_at_threshold=positive_at_threshold)
    rows = []
    for i in range(k):
        x = np.zeros(n)
        x[i] = 1.0
        while learner.predict(x) == -1:
            learner.update(x, 1)
            rows.append(x.astype(np.uint8))
    X = np.array(rows, dtype=np.uint8).reshape(len(rows), n)
    y = np.ones(len(rows), dtype=np.int8)
    return AdversaryResult(X, y, len(rows), len(rows), 0, False, len(rows))


# -- the Perceptron against Winnow --------------------------------------------------------


def bernoulli_rows(n_rows: int, n_features: int, density: float, rng: np.random.Generator) -> sp.csr_matrix:
    """A CSR matrix of i.i.d. Bernoulli(``density``) bits, drawn in time proportional to its ones.

    The positions of the ones in the row-major order of the matrix are the
    partial sums of i.i.d. geometric gaps, which is exactly a Bernoulli process;
    so this has the same distribution as ``rng.random((n_rows, n_features)) <
    density`` but never builds the dense matrix (chapter 4's experiment uses
    n_features up to 16 384).
    """
    m = check_int(n_rows, "n_rows", 1)
    n = check_int(n_features, "n_features", 1)
    p = _check_float(density, "density", 0.0, "in (0, 1)")
    if p >= 1:
        raise ValueError(f"density must be a finite real number in (0, 1), got {density!r}")
    rng = check_rng(rng)
    total = m * n
    draw = int(p * total + 6 * math.sqrt(p * total) + 16)
    positions = np.cumsum(rng.geometric(p, size=draw)) - 1
    while positions[-1] < total:
        more = np.cumsum(rng.geometric(p, size=draw)) + positions[-1]
        positions = np.concatenate([positions, more])
    positions = positions[positions < total]
    rows, cols = np.divmod(positions, n)
    index_type = np.int32 if total < 2**31 else np.int64
    indptr = np.searchsorted(rows, np.arange(m + 1)).astype(index_type)
    data = np.ones(positions.size, dtype=np.float64)
    return sp.csr_matrix((data, cols.astype(index_type), indptr), shape=(m, n))


class RaceResult(NamedTuple):
    """Mistakes of Winnow and of the Perceptron on one stream (``race``).

    ``*_late`` count the mistakes in the last quarter of the stream: a learner
    that still errs there has not converged. ``positive`` is the fraction of
    positive examples, ``active`` the mean and ``max_active`` the largest
    number of ones in an example (Novikoff's bound for the Perceptron uses
    R^2 = max_active + 1).
    """

    winnow: int
    perceptron: int
    winnow_late: int
    perceptron_late: int
    positive: float
    active: float
    max_active: int


def race(
    n_features: int,
    n_relevant: int,
    length: int,
    rng: np.random.Generator,
    *,
    alpha: float = 2.0,
    theta: float | None = None,
    density: float | None = None,
    chunk: int = 1000,
) -> RaceResult:
    """Winnow(alpha, theta) and the Perceptron (with bias) on the same random disjunction stream.

    Chapter 4, "Irrelevant attributes". The target is a monotone disjunction of
    ``n_relevant`` variables chosen at random; the examples are i.i.d. Bernoulli
    bits with P(x_i = 1) = ``density`` (default 1 - 2^(-1/k), which makes half of
    them positive). Both learners see the same {0,1} vectors; the Perceptron
    also learns a bias (it predicts +1 iff w.x + b >= 0). The stream is drawn and
    played ``chunk`` rows at a time with the fast exact engine, so memory stays
    small for N = 16 384.
    """
    n = check_int(n_features, "n_features", 1)
    k = check_int(n_relevant, "n_relevant", 1, n)
    length = check_int(length, "length", 1)
    chunk = check_int(chunk, "chunk", 1)
    rng = check_rng(rng)
    alpha, theta = _check_alpha_theta(n, alpha, theta)
    p = 1 - 2 ** (-1 / k) if density is None else _check_float(density, "density", 0.0, "in (0, 1)")
    if p >= 1:
        raise ValueError(f"density must be a finite real number in (0, 1), got {density!r}")
    relevant = np.sort(rng.choice(n, size=k, replace=False))
    winnow, perceptron = Winnow2(n, alpha, theta), Perceptron(n, bias=True)
    late_start = length - length // 4
    counts = np.zeros((2, 2), dtype=np.int64)  # [learner, early/late]
    positives = ones = most = 0
    for start in range(0, length, chunk):
        m = min(chunk, length - start)
        X = bernoulli_rows(m, n, p, rng)
        y = np.where(np.asarray(X[:, relevant].sum(axis=1)).ravel() > 0, 1, -1).astype(np.int8)
        positives += int(np.count_nonzero(y == 1))
        ones += X.nnz
        most = max(most, int(np.diff(X.indptr).max()))
        late = np.arange(start, start + m) >= late_start
        for row, learner in enumerate((winnow, perceptron)):
            wrong = run(learner, X, y).mistakes
            counts[row, 0] += np.count_nonzero(wrong & ~late)
            counts[row, 1] += np.count_nonzero(wrong & late)
    return RaceResult(
        winnow=int(counts[0].sum()),
        perceptron=int(counts[1].sum()),
        winnow_late=int(counts[0, 1]),
        perceptron_late=int(counts[1, 1]),
        positive=positives / length,
        active=ones / length,
        max_active=most,
    )


# -- the explorer -------------------------------------------------------------------------


RUN_NAMES = ("random streams (mean)", "random streams (worst)", "adversary")


def compare_winnow(
    alpha: float,
    theta: float | None,
    n_features: int,
    n_relevant: int,
    rng: np.random.Generator,
    *,
    n_streams: int = 20,
    length: int = 1000,
    width: int = 6,
) -> dict[str, Any]:
    """Winnow(alpha, theta)'s promotions and demotions on random and adversarial streams, against the bounds.

    Chapter 4's explorer. The target is a monotone disjunction of the first
    ``n_relevant`` of ``n_features`` variables. Runs: ``n_streams`` random
    streams (``onlinelib.disjunction_stream`` with half the examples positive,
    ``length`` rounds each), reported as the mean (with its standard error)
    and the worst stream; and the sequence of ``beam_adversary`` (beam
    ``width``). Bounds: Littlestone's (alpha/(alpha-1)) N/theta +
    k (alpha+1)(1 + log_alpha theta) (for theta >= 1), its promotion part
    k (1 + log_alpha theta), and the lecture notes' 2 + 3k(lg N + 1), which is
    only proved for alpha = 2 and theta = N.

    Returns
    -------
    dict with keys ``alpha``, ``theta``, ``n_features``, ``n_relevant``,
    ``runs`` (name -> {"promotions", "demotions", "mistakes"}), ``stderr`` (of
    the random streams' mean mistakes), ``n_streams``, ``bounds`` (name ->
    value) and ``notes_violated`` (whether some run exceeds the notes' bound).
    """
    n = check_int(n_features, "n_features", 1, 4096)
    k = check_int(n_relevant, "n_relevant", 1, n)
    alpha, theta = _check_alpha_theta(n, alpha, theta)
    if theta < 1:
        raise ValueError(f"theta must be at least 1 (the bound needs log_alpha theta >= 0), got {theta}")
    rng = check_rng(rng)
    n_streams = check_int(n_streams, "n_streams", 2)
    length = check_int(length, "length", 1)
    width = check_int(width, "width", 1)
    counts = np.zeros((n_streams, 2), dtype=np.int64)
    for s in range(n_streams):
        X, y, _ = disjunction_stream(n, k, length, rng, sparse=True)
        learner = Winnow2(n, alpha, theta)
        run(learner, X, y)
        counts[s] = learner.promotions, learner.demotions
    totals = counts.sum(axis=1)
    worst = counts[int(np.argmax(totals))]
    adversary = beam_adversary(n, alpha, theta, rng=rng, n_relevant=k, width=width, n_random=1)
    runs = {
        RUN_NAMES[0]: {
            "promotions": float(counts[:, 0].mean()),
            "demotions": float(counts[:, 1].mean()),
            "mistakes": float(totals.mean()),
        },
        RUN_NAMES[1]: {"promotions": float(worst[0]), "demotions": float(worst[1]), "mistakes": float(worst.sum())},
        RUN_NAMES[2]: {
            "promotions": float(adversary.promotions),
            "demotions": float(adversary.demotions),
            "mistakes": float(adversary.mistakes),
        },
    }
    bounds = {
        "Littlestone": float(winnow2_bound(n, k, alpha, theta)),
        "promotion part k(1 + log_a theta)": float(k * (1 + math.log(theta) / math.log(alpha))),
        "notes 2 + 3k(lg N + 1)": float(notes_winnow_bound(n, k)),
    }
    most = max(r["mistakes"] for r in runs.values())
    return {
        "alpha": alpha,
        "theta": theta,
        "n_features": n,
        "n_relevant": k,
        "runs": runs,
        "stderr": float(totals.std(ddof=1) / math.sqrt(n_streams)),
        "n_streams": n_streams,
        "bounds": bounds,
        "notes_violated": bool(most > bounds["notes 2 + 3k(lg N + 1)"]),
    }


BOUND_STYLES = {
    "Littlestone": dict(color="black", linestyle="--"),
    "promotion part k(1 + log_a theta)": dict(color="#1f77b4", linestyle=":"),
    "notes 2 + 3k(lg N + 1)": dict(color="#d62728", linestyle="-."),
}


def plot_winnow_comparison(result: dict[str, Any], ax: Any = None) -> Any:
    """Stacked bars of promotions (m+) and demotions (m-) per run, with the three bounds.

    ``result`` is what ``compare_winnow`` returns. The mean over random streams
    carries a 95% confidence interval: the standard error times the 97.5%
    quantile of Student's t with ``n_streams - 1`` degrees of freedom.
    """
    import matplotlib.pyplot as plt
    from scipy.stats import t as student_t

    if ax is None:
        _, ax = plt.subplots(figsize=(7.5, 3.8))
    names = list(result["runs"])
    promotions = np.array([result["runs"][r]["promotions"] for r in names])
    demotions = np.array([result["runs"][r]["demotions"] for r in names])
    positions = np.arange(len(names))
    ax.bar(positions, promotions, color="#2ca02c", alpha=0.85, label="promotions $m^+$")
    errors = np.zeros(len(names))
    errors[0] = student_t.ppf(0.975, result["n_streams"] - 1) * result["stderr"]
    ax.bar(
        positions, demotions, bottom=promotions, color="#ff7f0e", alpha=0.85, label="demotions $m^-$",
        yerr=errors, capsize=4,
    )
    for pos, total in zip(positions, promotions + demotions):
        ax.text(pos, total, f"{total:.1f}".rstrip("0").rstrip("."), ha="center", va="bottom", fontsize=9)
    labels = {
        "Littlestone": "Littlestone's bound",
        "promotion part k(1 + log_a theta)": r"$k(1+\log_\alpha\theta)$ (bound on $m^+$)",
        "notes 2 + 3k(lg N + 1)": r"notes: $2+3k(\lg N+1)$",
    }
    for name, value in result["bounds"].items():
        ax.axhline(value, label=f"{labels.get(name, name)} = {value:.3g}", **BOUND_STYLES.get(name, {}))
    ax.set_xticks(positions, [name.replace(" (", "\n(") for name in names], fontsize=9)
    ax.set_ylabel("mistakes")
    verdict = "notes' bound VIOLATED" if result["notes_violated"] else "notes' bound holds here"
    ax.set_title(
        f"Winnow($\\alpha$={result['alpha']:.3g}, $\\theta$={result['theta']:.4g}), "
        f"N={result['n_features']}, k={result['n_relevant']}: {verdict}",
        fontsize=10,
    )
    top = max(float((promotions + demotions).max() + errors.max()), max(result["bounds"].values()))
    ax.set_ylim(0, 1.3 * top + 1)
    ax.legend(loc="upper left", fontsize=8, framealpha=0.9, ncol=2)
    return ax


def winnow_explorer(seed: int = 0) -> Any:
    """An ipywidgets panel: choose alpha, theta/N, N and k; see Winnow's mistakes against the bounds.

    Needs a live kernel (Jupyter, JupyterLab or Binder); chapter 4 shows the
    figure at the default setting statically above it. theta is set as a
    multiple of N (at least 1).
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    alpha_box = widgets.FloatSlider(value=1.5, min=1.05, max=4.0, step=0.05, description="alpha")
    ratio_box = widgets.FloatLogSlider(value=1.0, base=2, min=-4, max=3, step=0.5, description="theta / N")
    n_box = widgets.IntSlider(value=64, min=2, max=512, description="N")
    k_box = widgets.IntSlider(value=1, min=1, max=8, description="k")
    seed_box = widgets.IntSlider(value=seed, min=0, max=99, description="seed")

    def draw(alpha: float, theta_over_n: float, n_features: int, n_relevant: int, seed: int) -> None:
        theta = max(1.0, theta_over_n * n_features)
        k = min(n_relevant, n_features)
        result = compare_winnow(alpha, theta, n_features, k, np.random.default_rng(seed), n_streams=10, length=600)
        plot_winnow_comparison(result)
        plt.show()

    return draw_on_demand(
        draw, alpha=alpha_box, theta_over_n=ratio_box, n_features=n_box, n_relevant=k_box, seed=seed_box,
    )
