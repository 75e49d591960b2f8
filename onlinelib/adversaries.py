"""Every adversary of the book: the example sequences that meet the lower bounds, by chapter.

An adversary builds a stream on which a learner makes as many mistakes as a theorem allows,
either once for all (an *oblivious* sequence) or while watching the learner's predictions or
weights (an *adaptive* one, whose stream replays to the same run when the learner is
deterministic).

* Chapter 1: ``one_per_round_adversary`` (the worst case for Randomized Halving) and
  ``adaptive_adversary`` (at least Ldim(C) mistakes for any learner).
* Chapter 2: ``winnow1_promotion_adversary`` (Lemma 3's k (lg theta + 1) promotions),
  ``winnow1_adaptive_adversary`` (the sharper bound 1 + 2k(lg n - 1)) and
  ``elimination_adversary`` (n - k mistakes of Elimination).
* Chapter 3: ``margin_adversary`` (floor(R^2/gamma^2) mistakes for any deterministic learner).
* Chapter 4: ``exhaustive_adversary`` (the longest mistake sequence of Winnow(alpha, theta),
  exactly), ``beam_adversary`` (a heuristic search for larger N) and ``promotion_adversary``
  (k (1 + floor(log_alpha theta)) promotions), all three deciding
  in exact rational arithmetic; ``winnow2_exact_replay`` replays a stream on Winnow exactly, and
  ``winnow_certificate`` / ``winnow_certificate_stream`` write a stream for the target x_0 as
  short text and read it back (the chapter stores the counterexamples found offline this way).
* Chapter 5: ``wma_adversary`` (Weighted Majority errs in every round).

The stream generators (random, separable, disjunction, expert and half-cube streams) are in
``onlinelib.streams``.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from numbers import Rational
from typing import Any, NamedTuple

import numpy as np

from .concepts import ConceptClass, check_concept_class
from .experts import WeightedMajority
from .linear import Winnow1, winnow1_default_threshold, winnow2_default_threshold
from .protocol import Learner, Trace, check_learner, check_prediction
from .validation import check_int, check_real, check_rng
from .version_space import SOA

__all__ = [
    "one_per_round_adversary",
    "AdaptiveRun",
    "adaptive_adversary",
    "winnow1_promotion_adversary",
    "winnow1_adaptive_adversary",
    "elimination_adversary",
    "MarginAdversaryRun",
    "margin_adversary",
    "AdversaryResult",
    "exhaustive_adversary",
    "beam_adversary",
    "winnow2_exact_replay",
    "winnow_certificate",
    "winnow_certificate_stream",
    "promotion_adversary",
    "wma_adversary",
]

#: The most rounds ``margin_adversary`` plays (its stream is a dense k x d array).
MAX_ADVERSARY_ROUNDS = 10_000


def _check_n_k(n_features: Any, n_relevant: Any) -> tuple[int, int]:
    """N >= 1 variables, of which 1 <= k <= N are relevant (chapters 2 and 4)."""
    n = check_int(n_features, "n_features", 1)
    return n, check_int(n_relevant, "n_relevant", 1, n)


def _check_alpha_theta(n: int, alpha: Any, theta: Any) -> tuple[float, float]:
    """Winnow(alpha, theta)'s parameters: alpha > 1 and theta > 0, default theta = N (chapter 4)."""
    alpha = check_real(alpha, "alpha", 1)
    theta = winnow2_default_threshold(n) if theta is None else check_real(theta, "theta", 0)
    return alpha, theta


# -- chapter 1: finite classes ------------------------------------------------------------------


def one_per_round_adversary(
    concept_class: ConceptClass, target: int, rng: np.random.Generator | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """A stream, labelled by ``target``, that eliminates exactly one concept per round.

    It runs until only the target (and any concept identical to it) is left, so it
    has ``|C| - 1`` rounds when all concepts are distinct (and none for a one-concept class). Against it Randomized
    Halving makes exactly ``H_|C| - 1`` mistakes in expectation, the worst case
    (chapter 1, Theorem "Randomized Halving").

    Parameters
    ----------
    concept_class : ConceptClass
    target : int
        Index of the target concept.
    rng : numpy.random.Generator, optional
        If given, each round's instance is chosen at random among those that
        remove exactly one concept; otherwise the lowest such instance is used.

    Raises
    ------
    ValueError
        If at some round no instance removes exactly one concept (the class
        admits no such sequence from that version space), naming the round.
    """
    cls = check_concept_class(concept_class)
    target = cls.check_concept(target)
    if rng is not None:
        rng = check_rng(rng)
    # disagree[x, c]: concept c would be eliminated by instance x.
    disagree = cls.by_instance != cls.by_instance[:, [target]]
    duplicates = ~disagree.any(axis=0)
    alive = ~duplicates  # concepts still to eliminate
    remaining = np.count_nonzero(disagree, axis=1)
    X: list[int] = []
    while alive.any():
        eligible = np.flatnonzero(remaining == 1)
        if eligible.size == 0:
            raise ValueError(
                f"{cls.name} admits no one-per-round sequence for target {target}: at round {len(X) + 1} "
                f"no instance eliminates exactly one of the {int(alive.sum()) + int(duplicates.sum())} concepts left"
            )
        x = int(eligible[0] if rng is None else eligible[rng.integers(eligible.size)])
        (victim,) = np.flatnonzero(alive & disagree[x])
        alive[victim] = False
        remaining -= disagree[:, victim]
        X.append(x)
    X_arr = np.asarray(X, dtype=np.int64)
    return X_arr, cls.labels(target, X_arr)


class AdaptiveRun(NamedTuple):
    """The result of ``adaptive_adversary``: the stream it chose, a consistent target, and the trace."""

    X: np.ndarray
    y: np.ndarray
    target: int
    trace: Trace


def adaptive_adversary(learner: Learner, concept_class: ConceptClass) -> AdaptiveRun:
    """Run ``learner`` against the adversary that labels after seeing the prediction.

    Each round the adversary picks an instance x maximising
    min(Ldim(xi_0(V, x)), Ldim(xi_1(V, x))), which is Ldim(V) - 1, takes the
    learner's prediction and answers the opposite label. Every round is a
    mistake and Ldim(V) falls by at most one per round, so any learner, even a
    randomised one whose coin the adversary sees, makes at least Ldim(C)
    mistakes (chapter 1, SOA section: the lower bound Opt(C) >= Ldim(C)).
    The stream is consistent: it stops when one concept (up to duplicates) is
    left, which is returned as the target.

    The learner must be fresh (no examples seen), since the adversary starts from V = C.
    """
    cls = check_concept_class(concept_class)
    check_learner(learner)
    tracker = SOA(cls)  # the adversary's own record of V and of the Littlestone dimensions
    X: list[int] = []
    predictions: list[int] = []
    labels: list[int] = []
    while (d := tracker.ldim) > 0:
        members = tracker.members
        ones = np.count_nonzero(cls.by_instance[:, members], axis=1)
        balance = np.minimum(ones, len(members) - ones)
        best_x, best_value = -1, -2
        for x in np.argsort(-balance, kind="stable").tolist():
            if balance[x] == 0:
                break
            value = min(tracker.dimensions(x))
            if value > best_value:
                best_x, best_value = x, value
                if value == d - 1:
                    break
        p = check_prediction(learner.predict(best_x), learner, len(X) + 1)
        learner.update(best_x, -p)
        tracker.update(best_x, -p)
        X.append(best_x)
        predictions.append(p)
        labels.append(-p)
    target = int(tracker.members[0])
    trace = Trace(predictions=np.asarray(predictions, dtype=np.int8), labels=np.asarray(labels, dtype=np.int8))
    return AdaptiveRun(np.asarray(X, dtype=np.int64), trace.labels, target, trace)


# -- chapter 2: disjunctions, Winnow1 and Elimination ------------------------------------------


def winnow1_promotion_adversary(n_features: int, n_relevant: int, theta: float | None = None):
    """The stream that makes Winnow1 promote exactly k (lg theta + 1) times (chapter 2, Lemma 3).

    Relevant variables are 0..k-1. For each in turn, the unit vector e_i is
    shown, labelled +1, until Winnow1's weight w_i exceeds theta: w_i = 1, 2, 4,
    ... is doubled floor(lg theta) + 1 times. With theta = n/2 and n a power of
    two that is lg n promotions per variable, u = k lg n in all.

    Returns X (uint8), y (int8), relevant (array).
    """
    n = check_int(n_features, "n_features", low=1)
    k = check_int(n_relevant, "n_relevant", low=1)
    if k > n:
        raise ValueError(f"n_relevant must be at most n_features ({n}), got {k}")
    theta = winnow1_default_threshold(n) if theta is None else check_real(theta, "theta", 0)
    if theta < 1:
        raise ValueError(f"theta must be at least 1: with theta = {theta} the initial weight 1 is never promoted")
    per_variable, weight = 0, 1.0
    while weight <= theta:  # exact: doubling 1.0 stays exact in floating point
        weight *= 2
        per_variable += 1
    rows = np.repeat(np.arange(k), per_variable)
    X = np.zeros((len(rows), n), dtype=np.uint8)
    X[np.arange(len(rows)), rows] = 1
    return X, np.ones(len(rows), dtype=np.int8), np.arange(k)


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
    theta = winnow1_default_threshold(n) if theta is None else check_real(theta, "theta", 0)
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


# -- chapter 3: the margin lower bound -----------------------------------------------------------


def _exact_positive(value: Any, name: str) -> Fraction:
    """``value`` (int, float or Fraction), checked to be a finite real > 0, as an exact Fraction."""
    check_real(value, name, 0)
    return Fraction(value) if isinstance(value, Rational) else Fraction(float(value))


class MarginAdversaryRun(NamedTuple):
    """The result of ``margin_adversary``.

    Attributes
    ----------
    X : ndarray, shape (k, n_features)
        The instances R e_1, ..., R e_k (R = float(radius)).
    y : ndarray of int8, shape (k,)
        The labels the adversary chose, y_t = -(the learner's prediction).
    w_star : ndarray, shape (n_features,)
        The unit separator sum_t y_t e_t / sqrt(k); its margin is R / sqrt(k) >= gamma.
    u : ndarray of int64, shape (n_features,)
        The integer separator sum_t y_t e_t (margin xi = R, ||u||^2 = k), for exact checks.
    trace : Trace
        Predictions and labels: every round is a mistake.
    """

    X: np.ndarray
    y: np.ndarray
    w_star: np.ndarray
    u: np.ndarray
    trace: Trace


def margin_adversary(
    learner: Learner, margin: Any, radius: Any = 1, n_features: int | None = None
) -> MarginAdversaryRun:
    """Force floor(R^2 / gamma^2) mistakes on any deterministic learner (chapter 3, Theorem "margin lower bound").

    Shows x_t = R e_t for t = 1, ..., k with k = floor(R^2 / gamma^2), computed
    exactly, asks the learner for its prediction p_t and answers y_t = -p_t. The
    learner errs in every round; whatever it predicted, the unit vector
    w* = sum_t y_t e_t / sqrt(k) has y_t <w*, x_t> = R / sqrt(k) >= gamma and
    ||x_t|| = R. So margin-gamma halfspaces of radius R in n_features >= k
    dimensions have Littlestone dimension at least k (chapter 1). On the
    Perceptron every score is 0, it predicts +1, and the stream is the
    fixed-label sequence ``perceptron_lower_bound_stream``.

    Parameters
    ----------
    learner : object with ``predict(x)`` and ``update(x, y)``
        A fresh learner taking real vectors of length ``n_features``.
    margin : int, float or Fraction, 0 < margin <= radius
        gamma, taken as the exact rational value of the number given (a float
        0.1 is slightly above 1/10; pass ``Fraction(1, 10)`` for 1/10).
    radius : int, float or Fraction, > 0
        R. The instances hold ``float(radius)``, and k is computed from that
        float's exact value, so the margin guarantee holds exactly for the
        returned arrays.
    n_features : int, optional
        The learner's dimension d >= k (default k).

    Raises
    ------
    TypeError
        If ``learner`` lacks ``predict``/``update`` or a number has the wrong type.
    ValueError
        If margin > radius, n_features < k, or k > 10^4.
    """
    check_learner(learner)
    gamma = _exact_positive(margin, "margin")
    r_float = float(_exact_positive(radius, "radius"))  # finite and > 0: checked as a float
    r_exact = Fraction(r_float)
    if gamma > r_exact:
        raise ValueError(f"margin must be at most radius ({r_float}), got {margin!r}")
    k = math.floor(r_exact**2 / gamma**2)
    if k > MAX_ADVERSARY_ROUNDS:
        raise ValueError(
            f"margin {margin!r} needs k = {k} > {MAX_ADVERSARY_ROUNDS} rounds (a dense k x d stream); use a larger margin"
        )
    d = k if n_features is None else check_int(n_features, "n_features", low=1)
    if d < k:
        raise ValueError(f"n_features must be at least floor(R^2/gamma^2) = {k}, got {d}")
    X = np.zeros((k, d))
    predictions = np.empty(k, dtype=np.int8)
    for t in range(k):
        X[t, t] = r_float
        x = X[t].copy()  # the learner may keep a reference to x
        p = check_prediction(learner.predict(x), learner, t + 1)
        predictions[t] = p
        learner.update(x, -p)
    labels = (-predictions).astype(np.int8)
    u = np.zeros(d, dtype=np.int64)
    u[:k] = labels
    w_star = u / math.sqrt(k)
    return MarginAdversaryRun(X, labels, w_star, u, Trace(predictions=predictions, labels=labels))


# -- chapter 4: Winnow(alpha, theta) ---------------------------------------------------------------


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
    it with ``winnow2_exact_replay`` (exact arithmetic) and checks the count.

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
            base = sum((t * power(e) for t, e in zip(take, exps, strict=True)), Fraction(0))
            for with_relevant in (True, False):
                if not with_relevant and not any(take):
                    continue  # the zero vector: negative, predicted negative, never a mistake
                score = base + power(e0) if with_relevant else base
                if not is_mistake(score, with_relevant):
                    continue
                step = 1 if with_relevant else -1
                new: dict[int, int] = {}
                for t, e, c in zip(take, exps, counts, strict=True):
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
        classes = tuple(sorted(zip(*np.unique(irrelevant, return_counts=True), strict=True))) if n > 1 else ()
        classes = tuple((int(e), int(c)) for e, c in classes)
        _, move = memo[(int(exponents[0]), classes)]
        if move is None:
            break
        with_relevant, take = move
        x = np.zeros(n, dtype=np.uint8)
        x[0] = with_relevant
        for (e, _), t in zip(classes, take, strict=True):
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


def _fill(weights: Any, order: np.ndarray, cap: Any, strict: bool = False) -> list[int]:
    """Greedily pick indices in ``order`` while the picked weights sum to at most ``cap`` (below it if strict).

    Exact when ``weights`` and ``cap`` are Python integers (as ``beam_adversary`` passes them).
    """
    chosen, total = [], 0
    for i in order:
        if total + weights[i] < cap or (not strict and total + weights[i] == cap):
            chosen.append(int(i))
            total += weights[i]
    return chosen


def _optimistic_value(weights: np.ndarray, alpha: float, theta: float, n_relevant: int, made: int) -> float:
    """Mistakes made + an optimistic count of those still possible (the beam's ranking; a heuristic, in floats)."""
    remaining, gain = 0, 0.0
    for weight in weights[:n_relevant]:
        while weight <= theta:
            gain += (alpha - 1) * (theta - weight)
            weight *= alpha
            remaining += 1
    return made + remaining + (math.fsum(weights[n_relevant:].tolist()) + gain) / ((1 - 1 / alpha) * theta)


def _exact_alpha_theta(alpha: float, theta: float) -> tuple[Fraction, Fraction]:
    """alpha and theta as exact fractions: a ratio of small integers if the float is one, else its exact value.

    So alpha = 1.1 means 11/10 and theta = 192 means 192, while theta = 2 ** 2.5
    (or an alpha of 1.1500000000000001 from a slider) is taken as the rational
    number the float holds.
    """
    exact = []
    for value, limit in ((alpha, 1000), (theta, 10**6)):
        small = Fraction(value).limit_denominator(limit)
        exact.append(small if float(small) == value else Fraction(value))
    return exact[0], exact[1]


def _scaled_weights(exponents: np.ndarray, a: Fraction, th: Fraction) -> tuple[list[int], int]:
    """Integers W_i and C with W_i / C = alpha^{e_i} / theta exactly.

    With L = min(0, min e) and U = max(0, max e), alpha = p/q and theta = r/s,
    W_i = s p^{e_i - L} q^{U - e_i} and C = r q^U p^{-L}; so a sum of weights is
    compared with theta by comparing integers.
    """
    p, q = a.numerator, a.denominator
    lo, hi = min(0, int(exponents.min())), max(0, int(exponents.max()))
    cache: dict[int, int] = {}
    weights = []
    for e in exponents.tolist():
        if e not in cache:
            cache[e] = th.denominator * p ** (e - lo) * q ** (hi - e)
        weights.append(cache[e])
    return weights, th.numerator * q**hi * p ** (-lo)


def winnow2_exact_replay(
    X: Any, y: Any, alpha: float, theta: float | None = None, *, positive_at_threshold: bool = False
) -> tuple[np.ndarray, np.ndarray, list[Fraction]]:
    """Run Winnow(alpha, theta) on a Boolean stream in exact rational arithmetic.

    Weights are alpha^e with integer exponents e, stored as exponents; every
    score w.x is compared with theta exactly (alpha and theta must be ratios of
    small integers, such as 1.6 and 192; any other value is taken at the exact
    value of its float). Returns the predictions (int8, one per
    round), the final exponents (int64) and each round's score w.x as a
    ``Fraction``. ``onlinelib.Winnow2`` computes in
    floating point, and a score exactly equal to theta may come out a rounding
    error above or below it; this replay decides such ties as the algorithm does.
    """
    X = np.asarray(X)
    y = np.asarray(y)
    if X.ndim != 2 or not np.isin(X, (0, 1)).all():
        raise ValueError(f"X must be a 2-d array of 0s and 1s, got shape {X.shape}")
    if y.shape != (X.shape[0],) or not np.isin(y, (-1, 1)).all():
        raise ValueError(f"y must hold one label in {{-1, 1}} per row of X, got shape {y.shape}")
    n = X.shape[1]
    alpha_f, theta_f = _check_alpha_theta(max(n, 1), alpha, theta)
    a, th = _exact_alpha_theta(alpha_f, theta_f)
    ties_positive = bool(positive_at_threshold)
    exponents = np.zeros(n, dtype=np.int64)
    predictions = np.zeros(len(y), dtype=np.int8)
    scores: list[Fraction] = []
    for t, (x, label) in enumerate(zip(X, y.tolist(), strict=True)):
        active = np.flatnonzero(x)
        weights, cap = _scaled_weights(exponents, a, th)
        score = sum(weights[i] for i in active.tolist())
        scores.append(Fraction(score, cap) * th)
        positive = score > cap or (ties_positive and score == cap)
        predictions[t] = 1 if positive else -1
        if predictions[t] != label:
            exponents[active] += label
    return predictions, exponents, scores


def _x0_stream(X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """A 0/1 stream with labels for the target x_0: y = +1 exactly when x_0 = 1 (chapter 4's certificates)."""
    X = np.asarray(X)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[1] < 1 or not np.isin(X, (0, 1)).all():
        raise ValueError(f"X must be a 2-d array of 0s and 1s with at least one column, got shape {X.shape}")
    if y.shape != (X.shape[0],) or not np.isin(y, (-1, 1)).all():
        raise ValueError(f"y must hold one label in {{-1, 1}} per row of X, got shape {y.shape}")
    wrong = np.flatnonzero(y != np.where(X[:, 0] == 1, 1, -1))
    if wrong.size:
        raise ValueError(f"y must be the target x_0 (+1 iff x_0 = 1); round {int(wrong[0])} is not")
    return X.astype(np.uint8), y.astype(np.int8)


def winnow_certificate(X: Any, y: Any) -> str:
    """A stream of mistakes of Winnow on the target x_0, written compactly as text (chapter 4).

    The irrelevant variables x_1..x_{N-1} are interchangeable: Winnow's state is the
    exponent of w_0 and how many irrelevant weights sit at each exponent e
    (weights alpha^e). So a round is its label and, for each exponent e, how many
    irrelevant variables at e it switches on. A round is written ``+e:c,e:c,...``
    (a positive example, x_0 on) or ``-e:c,...`` (a negative one), and rounds are
    separated by ``;``. The exponents are those Winnow holds if every round is a
    mistake, as in every adversary stream; ``winnow_certificate_stream`` rebuilds a
    stream from the text, and ``winnow2_exact_replay`` checks it. The text does not
    depend on alpha or theta.
    """
    X, y = _x0_stream(X, y)
    exponents = np.zeros(X.shape[1], dtype=np.int64)
    rounds = []
    for x, label in zip(X, y.tolist(), strict=True):
        values, counts = np.unique(exponents[1:][x[1:] == 1], return_counts=True)
        pairs = ",".join(f"{int(e)}:{int(c)}" for e, c in zip(values, counts, strict=True))
        rounds.append(("+" if label == 1 else "-") + pairs)
        exponents[x == 1] += label
    return ";".join(rounds)


def winnow_certificate_stream(n_features: int, certificate: str) -> tuple[np.ndarray, np.ndarray]:
    """The stream (X, y) that ``winnow_certificate`` wrote as text, for the target x_0 (chapter 4).

    Whitespace in the text is ignored, so a long certificate can be split over
    lines. Each round switches on x_0 (for ``+``) and, for each pair ``e:c``, the
    c lowest-indexed irrelevant variables whose exponent is e, where the exponents
    follow the updates of a mistake on every round. The stream makes exactly the
    mistakes of the stream that was written, round by round with the same scores,
    because Winnow treats irrelevant variables of equal weight alike.
    """
    n = check_int(n_features, "n_features", 1)
    if not isinstance(certificate, str):
        raise TypeError(f"certificate must be a str, got {type(certificate).__name__}")
    text = "".join(certificate.split())
    exponents = np.zeros(n, dtype=np.int64)
    rows, labels = [], []
    for t, item in enumerate(text.split(";") if text else []):
        if not item or item[0] not in "+-":
            raise ValueError(f"certificate: round {t} must start with '+' or '-', got {item[:20]!r}")
        label = 1 if item[0] == "+" else -1
        x = np.zeros(n, dtype=np.uint8)
        x[0] = label == 1
        for pair in item[1:].split(",") if len(item) > 1 else []:
            try:
                e, c = (int(part) for part in pair.split(":"))
            except ValueError:
                raise ValueError(f"certificate: round {t} has a pair {pair!r}, not 'exponent:count'") from None
            members = 1 + np.flatnonzero((exponents[1:] == e) & (x[1:] == 0))
            if not 1 <= c <= members.size:
                raise ValueError(
                    f"certificate: round {t} switches on {c} variables at exponent {e}, "
                    f"but n_features = {n} leaves {members.size} there"
                )
            x[members[:c]] = 1
        rows.append(x)
        labels.append(label)
        exponents[x == 1] += label
    X = np.array(rows, dtype=np.uint8).reshape(len(rows), n)
    return X, np.array(labels, dtype=np.int8)


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
    x_0 or ... or x_{k-1}. The search keeps ``width`` Winnow states, each the
    vector of integer exponents e (weights alpha^e), and decides every
    prediction in exact rational arithmetic (alpha and theta are read as ratios
    of small integers, or else as the exact values of their floats): a
    score exactly equal to theta is a tie, decided by
    ``positive_at_threshold``, never by a rounding error. Each state is extended
    by candidate mistakes:

    * demotions: a set of irrelevant variables whose weights sum to just above
      theta (the potential drops by (1 - 1/alpha) w.x, so the adversary wants
      w.x as small as the rule allows);
    * promotions: one relevant variable (the lightest, or the heaviest still at
      most theta) plus irrelevant variables filling the score up to theta (the
      potential rises by (alpha - 1) w.x, so the adversary wants w.x large).

    The sets are filled greedily (exactly) from the heaviest, from the lightest,
    and in ``n_random`` random orders. Children are ranked by the mistakes made
    plus an optimistic estimate of those still available (the remaining
    promotions of the relevant weights, and the potential that demotions could
    still spend; a heuristic computed in floats) and the best ``width`` are kept,
    until no candidate is a mistake.

    Returns the sequence of the last surviving state; ``exact`` is False (the
    search is heuristic; every round of the sequence is an exact mistake, which
    ``winnow2_exact_replay`` confirms).
    """
    n = check_int(n_features, "n_features", 1)
    k = check_int(n_relevant, "n_relevant", 1, n)
    alpha, theta = _check_alpha_theta(n, alpha, theta)
    width = check_int(width, "width", 1)
    n_random = check_int(n_random, "n_random", 0)
    max_rounds = check_int(max_rounds, "max_rounds", 1)
    rng = check_rng(rng)
    a, th = _exact_alpha_theta(alpha, theta)
    irrelevant = np.arange(k, n)
    relevant = np.arange(k)

    # Under "w.x > theta" a promotion needs w.x <= theta and a demotion w.x > theta;
    # under ">=" (positive_at_threshold) they need w.x < theta and w.x >= theta.
    ties_positive = bool(positive_at_threshold)

    def candidates(exponents: np.ndarray) -> list[tuple[list[int], int]]:
        w, cap = _scaled_weights(exponents, a, th)

        def over(total: int) -> bool:
            return total >= cap if ties_positive else total > cap

        out: list[tuple[list[int], int]] = []
        # Heaviest first = largest exponent first (alpha > 1); ties keep index order.
        by_weight = irrelevant[np.argsort(-exponents[irrelevant], kind="stable")]
        orders = [by_weight, by_weight[::-1]] + [rng.permutation(irrelevant) for _ in range(n_random)]
        if irrelevant.size and sum(w[i] for i in irrelevant.tolist()) >= cap:
            lightest_first = by_weight[::-1]
            for order in orders:
                chosen = _fill(w, order, cap, strict=ties_positive)
                taken = set(chosen)
                total = sum(w[i] for i in chosen)
                for i in lightest_first.tolist():  # the lightest weight that pushes the sum over theta
                    if i not in taken and over(total + w[i]):
                        out.append((chosen + [i], -1))
                        break
        open_relevant = [i for i in relevant.tolist() if w[i] <= cap]
        if open_relevant:
            lightest = min(open_relevant, key=lambda i: (exponents[i], i))
            heaviest = max(open_relevant, key=lambda i: (exponents[i], -i))
            for r in sorted({lightest, heaviest}):
                for order in orders:
                    out.append(([r] + _fill(w, order, cap - w[r], strict=ties_positive), 1))
        return out, w, cap

    def is_mistake(w: list[int], cap: int, active: list[int], label: int) -> bool:
        score = sum(w[i] for i in active)
        positive = score > cap or (ties_positive and score == cap)
        return (1 if positive else -1) != label

    # The beam ranks by floats: alpha^j by repeated products (and math.fsum in _optimistic_value),
    # never by numpy's array power or sum, so the ranking, and the stream, are the same on every CPU.
    powers = {0: 1.0}

    def power(exponents: np.ndarray) -> np.ndarray:
        exponents = exponents.tolist()
        for j in exponents:
            if j in powers:
                continue
            step = 1 if j > 0 else -1
            for i in range(step, j + step, step):
                if i not in powers:
                    powers[i] = powers[i - step] * alpha if step > 0 else powers[i - step] / alpha
        return np.array([powers[j] for j in exponents])

    start = np.zeros(n, dtype=np.int64)
    frontier: list[tuple[np.ndarray, list[tuple[tuple[int, ...], int]]]] = [(start, [])]
    visited = 1
    for _ in range(max_rounds):
        children: dict[tuple, tuple[np.ndarray, list]] = {}
        for exponents, history in frontier:
            moves, w, cap = candidates(exponents)
            for active, label in moves:
                if not is_mistake(w, cap, active, label):
                    continue  # not a mistake: it would change nothing
                child = exponents.copy()
                child[active] += label
                key = (tuple(child[:k].tolist()), tuple(np.sort(child[k:]).tolist()))
                if key not in children:
                    children[key] = (child, history + [(tuple(sorted(active)), label)])
        visited += len(children)
        if not children:
            break
        kids = list(children.values())
        values = np.array([_optimistic_value(power(e), alpha, theta, k, len(h)) for e, h in kids])
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
    Every round is a promotion mistake. The comparison alpha^j <= theta is
    decided in exact rational arithmetic (alpha and theta are read as ratios of
    small integers, or else as the exact values of their floats): when
    theta is a power of alpha, such as alpha = 1.1 and
    theta = 1.21, floating point rounds alpha^j across theta.
    """
    n = check_int(n_features, "n_features", 1)
    k = check_int(n_relevant, "n_relevant", 1, n)
    alpha, theta = _check_alpha_theta(n, alpha, theta)
    a, th = _exact_alpha_theta(alpha, theta)
    ties_positive = bool(positive_at_threshold)
    rows = []
    for i in range(k):
        x = np.zeros(n, dtype=np.uint8)
        x[i] = 1
        weight = Fraction(1)
        while weight < th or (weight == th and not ties_positive):  # predicted -1 on a positive example
            weight *= a
            rows.append(x.copy())
    X = np.array(rows, dtype=np.uint8).reshape(len(rows), n)
    y = np.ones(len(rows), dtype=np.int8)
    return AdversaryResult(X, y, len(rows), len(rows), 0, False, len(rows))


# -- chapter 5: experts --------------------------------------------------------------------------------


def wma_adversary(horizon: int, n_experts: int, eta: float, rng: np.random.Generator):
    """An adaptive adversary that makes deterministic Weighted Majority err in every round (chapter 5).

    Each round the experts' advice is drawn at random, and the outcome is set to
    the opposite of what Weighted Majority(eta) predicts on it. So M = T, while
    the best expert errs about half the time: WMA's regret grows linearly in T.
    Returns P, y.
    """
    T = check_int(horizon, "horizon", low=1)
    n = check_int(n_experts, "n_experts", low=1)
    rng = check_rng(rng)
    learner = WeightedMajority(n, eta)
    if learner.eta == 1.0:
        raise ValueError(
            "eta must be below 1 for this adversary: with eta = 1 (Halving) every expert soon errs "
            "and no weight is left to predict with"
        )
    P = np.where(rng.random((T, n)) < 0.5, 1, -1).astype(np.int8)
    y = np.empty(T, dtype=np.int8)
    for t in range(T):
        y[t] = -learner.predict(P[t])
        learner.update(P[t], int(y[t]))
    return P, y
