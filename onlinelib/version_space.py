"""Version-space learners: Halving, Randomized Halving, SOA and the Littlestone dimension.

Book chapter 1 ("Mistake bounds"). The version space V_t is the set of concepts
of a finite class that agree with the first t labelled examples. It is updated
with vectorised numpy operations, never a Python loop over concepts: while V is
large it is a Boolean mask over the class (a contiguous ``O(|C|)`` pass per round),
and once it has shrunk to ``|C|/16`` or less it becomes a sorted index array
(an ``O(|V|)`` gather per round), so rounds get cheaper as V collapses.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from .concepts import ConceptClass, check_concept_class
from .validation import check_int, check_label, check_rng, check_stream

__all__ = [
    "Halving",
    "RandomizedHalving",
    "SOA",
    "littlestone_dimension",
    "shatters",
    "vc_dimension",
    "randomized_halving_expected_mistakes",
    "simulate_randomized_halving",
    "worst_case_mistakes",
    "REDRAW_VARIANTS",
]

REDRAW_VARIANTS = ("on_elimination", "every_round")


class _VersionSpace:
    """V_t for one class: a Boolean mask while dense, sorted indices once ``|V| <= |C|/16``."""

    SPARSE_FRACTION = 16

    def __init__(self, concept_class: ConceptClass):
        self.concept_class = concept_class
        self.mask: np.ndarray | None = np.ones(concept_class.size, dtype=bool)
        self.index: np.ndarray | None = None
        self.size = concept_class.size

    def members(self) -> np.ndarray:
        """Sorted indices of the concepts in V."""
        return self.index if self.index is not None else np.flatnonzero(self.mask)

    def as_mask(self) -> np.ndarray:
        if self.mask is not None:
            return self.mask.copy()
        mask = np.zeros(self.concept_class.size, dtype=bool)
        mask[self.index] = True
        return mask

    def contains(self, concept: int) -> bool:
        if self.mask is not None:
            return bool(self.mask[concept])
        i = np.searchsorted(self.index, concept)
        return bool(i < len(self.index) and self.index[i] == concept)

    def positives(self, x: int) -> int:
        """|{c in V : c(x) = +1}|."""
        col = self.concept_class.by_instance[x]
        if self.mask is not None:
            return int(np.count_nonzero(self.mask & col))
        return int(np.count_nonzero(col[self.index]))

    def restrict(self, x: int, y: int, round_number: int) -> int:
        """Keep the concepts with c(x) = y; return how many were removed.

        Raises ValueError naming the round, and leaves V unchanged, if none is left.
        """
        col = self.concept_class.by_instance[x]
        if self.mask is not None:
            new_mask = self.mask & (col if y == 1 else ~col)
            new_size = int(np.count_nonzero(new_mask))
        else:
            keep = col[self.index]
            new_index = self.index[keep if y == 1 else ~keep]
            new_size = len(new_index)
        if new_size == 0:
            raise ValueError(
                f"the stream is consistent with no concept of {self.concept_class.name}: "
                f"the version space became empty at round {round_number} (x = {x}, y = {y:+d})"
            )
        removed = self.size - new_size
        self.size = new_size
        if self.mask is None:
            self.index = new_index
        elif new_size * self.SPARSE_FRACTION <= self.concept_class.size:
            self.mask, self.index = None, np.flatnonzero(new_mask)
        else:
            self.mask = new_mask
        return removed


class _VersionSpaceLearner:
    """Shared state of the version-space learners: the class, V_t and the round count."""

    def __init__(self, concept_class: ConceptClass):
        self.concept_class = check_concept_class(concept_class)
        self.reset()

    def reset(self) -> None:
        """Forget every example: V = C and the round counter is 0."""
        self.space = _VersionSpace(self.concept_class)
        self.rounds = 0

    @property
    def size(self) -> int:
        """|V_t|, the number of concepts still consistent with the examples."""
        return self.space.size

    @property
    def members(self) -> np.ndarray:
        """Indices of the concepts in V_t, in increasing order (a copy: editing it leaves V alone)."""
        return self.space.members().copy()

    version_space = members

    @property
    def alive(self) -> np.ndarray:
        """V_t as a Boolean mask over the class's concepts (a copy)."""
        return self.space.as_mask()

    def contains(self, concept: int) -> bool:
        """Whether concept index ``concept`` is still in V_t."""
        return self.space.contains(self.concept_class.check_concept(concept, "concept"))

    def update(self, x: Any, y: Any) -> None:
        """Remove from V every concept that disagrees with the label ``y`` (±1) of ``x``.

        Raises ``ValueError`` naming the round if no concept is left (V is then unchanged).
        """
        x = self.concept_class.check_instance(x)
        y = check_label(y)
        self.space.restrict(x, y, self.rounds + 1)
        self.rounds += 1


class Halving(_VersionSpaceLearner):
    """The Halving algorithm (chapter 1, Theorem "Halving").

    Predicts the majority label of the version space, +1 on a tie (as in the
    lecture notes). Each mistake removes at least half of V, so it makes at
    most ``floor(lg |C|)`` mistakes on any stream consistent with a concept of C.
    """

    def votes(self, x: Any) -> tuple[int, int]:
        """``(|xi_0(V, x)|, |xi_1(V, x)|)``: the number of concepts in V voting -1 and +1."""
        pos = self.space.positives(self.concept_class.check_instance(x))
        return self.size - pos, pos

    def predict(self, x: Any) -> int:
        return _majority(self.space.positives(self.concept_class.check_instance(x)), self.size)


class RandomizedHalving(_VersionSpaceLearner):
    """Randomized Halving (Maass 1991; chapter 1, Theorem "Randomized Halving").

    Predicts with a concept drawn uniformly from the current version space.

    Parameters
    ----------
    concept_class : ConceptClass
    rng : numpy.random.Generator
        The source of the draws.
    redraw : {"on_elimination", "every_round"}
        ``"on_elimination"`` keeps the drawn concept until an example eliminates it
        (the lecture's algorithm); ``"every_round"`` draws afresh each round.
        Either way the held concept is uniform on V_{t-1} at round t, so both
        have the same expected mistakes, at most ``H_|C| - 1 <= ln |C|``.
    """

    def __init__(self, concept_class: ConceptClass, rng: np.random.Generator, redraw: str = "on_elimination"):
        if redraw not in REDRAW_VARIANTS:
            raise ValueError(f"redraw must be one of {REDRAW_VARIANTS}, got {redraw!r}")
        self.rng = check_rng(rng)
        self.redraw = redraw
        super().__init__(concept_class)

    def reset(self) -> None:
        super().reset()
        self.held: int | None = None
        self.draws = 0

    def predict(self, x: Any) -> int:
        x = self.concept_class.check_instance(x)
        if self.held is None:
            self.held = int(self.space.members()[self.rng.integers(self.size)])
            self.draws += 1
        return 1 if self.concept_class.by_instance[x, self.held] else -1

    def update(self, x: Any, y: Any) -> None:
        super().update(x, y)
        if self.redraw == "every_round" or (self.held is not None and not self.space.contains(self.held)):
            self.held = None


class SOA(_VersionSpaceLearner):
    """Littlestone's Standard Optimal Algorithm (chapter 1, Theorem "SOA").

    Predicts the label y whose half xi_y(V, x) has the larger Littlestone
    dimension, +1 on a tie (the lecture's rule "predict 1 iff
    Opt(xi_1) >= Opt(xi_0)"). Each mistake lowers Ldim(V), so it makes at most
    Ldim(C) = Opt(C) mistakes.
    """

    def dimensions(self, x: Any) -> tuple[int, int]:
        """(Ldim(xi_0(V, x)), Ldim(xi_1(V, x))), with Ldim of the empty set = -1."""
        return _split_dimensions(self.concept_class, self.space.members(), self.concept_class.check_instance(x))

    def predict(self, x: Any) -> int:
        return _soa_rule(self.concept_class, self.space.members(), self.concept_class.check_instance(x))

    @property
    def ldim(self) -> int:
        """Ldim(V_t), which SOA's analysis tracks."""
        return _ldim(self.concept_class, self.space.members())


def _majority(positives: int, size: int) -> int:
    """Halving's vote: +1 iff at least half of the ``|V|`` = size concepts say +1 (ties go to +1)."""
    return 1 if 2 * positives >= size else -1


def _halving_rule(cls: ConceptClass, members: np.ndarray, x: int) -> int:
    """Halving's prediction on V given as indices."""
    return _majority(int(np.count_nonzero(cls.by_instance[x, members])), len(members))


def _split_dimensions(cls: ConceptClass, members: np.ndarray, x: int) -> tuple[int, int]:
    """(Ldim(V^-(x)), Ldim(V^+(x))) for V given as indices."""
    positive = cls.by_instance[x, members]
    return _ldim(cls, members[~positive]), _ldim(cls, members[positive])


def _soa_rule(cls: ConceptClass, members: np.ndarray, x: int) -> int:
    """SOA's prediction: the side of V with the larger Ldim, +1 on a tie."""
    l0, l1 = _split_dimensions(cls, members, x)
    return 1 if l1 >= l0 else -1


_RULES = {"halving": _halving_rule, "soa": _soa_rule}


def worst_case_mistakes(concept_class: ConceptClass, learner: str = "halving") -> int:
    """The most mistakes an adversary can force on Halving or SOA, by exhaustive game search.

    The adversary picks each instance and, knowing the learner's deterministic
    rule, a label that keeps some concept consistent. The value of this game is
    max over x splitting V and labels y of [rule(V, x) != y] + value(xi_y(V, x)).
    Chapter 1 uses it to show that Halving is not optimal: on some classes its
    worst case exceeds Ldim(C), which SOA's worst case always equals.

    Parameters
    ----------
    concept_class : ConceptClass
        A small class (the search is exponential; memoised on version spaces).
    learner : {"halving", "soa"}
    """
    cls = check_concept_class(concept_class)
    if learner not in _RULES:
        raise ValueError(f"learner must be one of {tuple(_RULES)}, got {learner!r}")
    rule = _RULES[learner]
    memo: dict[bytes, int] = {}

    def value(members: np.ndarray) -> int:
        key = members.tobytes()
        if key not in memo:
            sub = cls.by_instance[:, members]
            ones = np.count_nonzero(sub, axis=1)
            best = 0
            for x in np.flatnonzero((ones > 0) & (ones < len(members))).tolist():
                prediction = rule(cls, members, x)
                best = max(
                    best,
                    (prediction != 1) + value(members[sub[x]]),
                    (prediction != -1) + value(members[~sub[x]]),
                )
            memo[key] = best
        return memo[key]

    return value(np.arange(cls.size))


def _floor_lg(r: int) -> int:
    return r.bit_length() - 1


def _ldim(cls: ConceptClass, members: np.ndarray) -> int:
    """Ldim of the concepts ``members`` (sorted indices), memoised on the class."""
    r = len(members)
    if r <= 1:
        return r - 1
    mask = np.zeros(cls.size, dtype=bool)
    mask[members] = True
    key = np.packbits(mask).tobytes()
    cached = cls._ldim_cache.get(key)
    if cached is not None:
        return cached

    sub = cls.by_instance[:, members]
    ones = np.count_nonzero(sub, axis=1)
    smaller = np.minimum(ones, r - ones)
    candidates = np.flatnonzero(smaller > 0)
    # Most balanced splits first: they are the likeliest to reach floor(lg r),
    # after which nothing can do better and the search stops.
    candidates = candidates[np.argsort(-smaller[candidates], kind="stable")]
    upper = _floor_lg(r)
    best = 0
    seen: set[bytes] = set()
    for x in candidates.tolist():
        if 1 + _floor_lg(int(smaller[x])) <= best:
            break  # sorted, so no later split can beat best either
        col = sub[x]
        if col[0]:
            col = ~col  # the same partition, whichever side is called 1
        split = np.packbits(col).tobytes()
        if split in seen:
            continue
        seen.add(split)
        side_a, side_b = members[col], members[~col]
        small, large = (side_a, side_b) if len(side_a) <= len(side_b) else (side_b, side_a)
        l_small = _ldim(cls, small)
        if 1 + l_small <= best:
            continue
        best = max(best, 1 + min(l_small, _ldim(cls, large)))
        if best == upper:
            break
    cls._ldim_cache[key] = best
    return best


def littlestone_dimension(concept_class: ConceptClass, mask: Any = None) -> int:
    """The Littlestone dimension Ldim(V) of a finite class (chapter 1, SOA section).

    Ldim(empty) = -1, Ldim(V) = 0 if ``|V| = 1``, and otherwise the maximum over
    instances x that split V of 1 + min(Ldim(xi_0(V, x)), Ldim(xi_1(V, x)))
    (0 if no instance splits V). It equals Opt(V), the best worst-case mistake
    bound of any deterministic learner (Littlestone 1988).

    Parameters
    ----------
    concept_class : ConceptClass
    mask : array_like of bool, shape (n_concepts,), optional
        The subset V of the class; default the whole class.

    Notes
    -----
    Exact search with memoisation on the class (keyed by V), trying the most
    balanced splits first and stopping as soon as the bound ``floor(lg |V|)`` is met.
    The worst case is still exponential; it is meant for classes of up to a few
    thousand concepts with a small dimension.
    """
    cls = check_concept_class(concept_class)
    if mask is None:
        members = np.arange(cls.size)
    else:
        members = np.flatnonzero(cls.check_mask(mask))
    return _ldim(cls, members)


def _distinct_patterns(cls: ConceptClass, points: np.ndarray) -> int:
    """How many distinct label patterns the concepts of ``cls`` induce on ``points``."""
    codes = cls.table[:, points].astype(np.int64) @ (np.int64(1) << np.arange(len(points), dtype=np.int64))
    return len(np.unique(codes))


def shatters(concept_class: ConceptClass, points: Any) -> bool:
    """Whether the class realises all ``2^k`` labellings of the ``k`` given instances.

    Chapter 1, section "Chapter 1 and statistical learning" (the VC dimension and
    the theorem Ldim >= VC).

    Parameters
    ----------
    concept_class : ConceptClass
    points : array_like of int, shape (k,)
        Distinct instance indices, at most 62 of them. The empty set is shattered.

    Raises
    ------
    TypeError
        If ``concept_class`` is not a ConceptClass or ``points`` are not integers.
    ValueError
        If an instance is out of range, repeated, or there are more than 62.
    """
    cls = check_concept_class(concept_class)
    pts = np.atleast_1d(np.asarray(points))
    if pts.ndim != 1:
        raise ValueError(f"points must be a 1-d list of instance indices, got shape {pts.shape}")
    if len(pts) == 0:
        return True
    pts = cls.check_instances(pts, "points")
    if len(np.unique(pts)) != len(pts):
        raise ValueError(f"points must be distinct instances, got {pts.tolist()}")
    if len(pts) > 62:
        raise ValueError(f"points must hold at most 62 instances (patterns are coded in int64), got {len(pts)}")
    if 2 ** len(pts) > cls.size:
        return False
    return _distinct_patterns(cls, pts) == 2 ** len(pts)


def vc_dimension(concept_class: ConceptClass) -> int:
    """The VC dimension of a finite class: the size of its largest shattered set of instances.

    Chapter 1, section "Chapter 1 and statistical learning": ``VC(C) <= Ldim(C)
    <= floor(lg |C|)`` (the theorem "Ldim >= VC"). Exact search over sets of
    instances, built level by level from the shattered sets one smaller (every
    subset of a shattered set is shattered), and stopping at ``floor(lg |C|)``.
    Exponential in the worst case; meant for small classes.

    Returns
    -------
    int
        0 for a class of one concept (only the empty set is shattered).

    Raises
    ------
    TypeError
        If ``concept_class`` is not a ConceptClass.
    """
    cls = check_concept_class(concept_class)
    level = [()]
    d = 0
    upper = _floor_lg(cls.size)
    while d < upper:
        candidates = set()
        for base in level:
            start = base[-1] + 1 if base else 0
            for x in range(start, cls.n_instances):
                candidates.add(base + (x,))
        known = set(level)
        nxt = [
            s
            for s in sorted(candidates)
            if all(s[:i] + s[i + 1 :] in known for i in range(len(s) - 1))
            and _distinct_patterns(cls, np.asarray(s)) == 2 ** len(s)
        ]
        if not nxt:
            break
        level, d = nxt, d + 1
    return d


def _stream_for(cls: ConceptClass, X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    X, y = check_stream(X, y)
    return cls.check_instances(X), y


def randomized_halving_expected_mistakes(concept_class: ConceptClass, X: Any, y: Any) -> Fraction:
    """Exact expected mistakes of Randomized Halving on a fixed stream, as a fraction.

    At round t the held concept is uniform on V_{t-1} (for both redraw variants),
    so it errs with probability f_t = ``|{c in V_{t-1} : c(x_t) != y_t}| / |V_{t-1}|``
    and E[M] = sum_t f_t. On the adversary that removes one concept per round this
    is ``H_|C| - 1`` (chapter 1, Theorem "Randomized Halving").
    """
    cls = check_concept_class(concept_class)
    X, y = _stream_for(cls, X, y)
    space = _VersionSpace(cls)
    total = Fraction(0)
    for t, (x, label) in enumerate(zip(X.tolist(), y.tolist(), strict=True), start=1):
        before = space.size
        total += Fraction(space.restrict(x, label, t), before)
    return total


def simulate_randomized_halving(
    concept_class: ConceptClass,
    X: Any,
    y: Any,
    n_trials: int,
    rng: np.random.Generator,
    redraw: str = "on_elimination",
) -> np.ndarray:
    """Mistake counts of ``n_trials`` independent runs of Randomized Halving on one stream.

    Vectorised over trials: the stream is fixed (an oblivious adversary), so the
    version space is the same in every trial and only the held concepts differ.

    Returns
    -------
    ndarray of int, shape (n_trials,)
    """
    cls = check_concept_class(concept_class)
    if redraw not in REDRAW_VARIANTS:
        raise ValueError(f"redraw must be one of {REDRAW_VARIANTS}, got {redraw!r}")
    n_trials = check_int(n_trials, "n_trials", low=1)
    rng = check_rng(rng)
    X, y = _stream_for(cls, X, y)
    space = _VersionSpace(cls)
    held = rng.integers(cls.size, size=n_trials)
    mistakes = np.zeros(n_trials, dtype=np.int64)
    for t, (x, label) in enumerate(zip(X.tolist(), y.tolist(), strict=True), start=1):
        wrong = cls.by_instance[x, held] != (label == 1)  # the wrong held concepts are eliminated now
        mistakes += wrong
        space.restrict(x, label, t)
        need = np.ones(n_trials, dtype=bool) if redraw == "every_round" else wrong
        k = int(np.count_nonzero(need))
        if k:
            held[need] = space.members()[rng.integers(space.size, size=k)]
    return mistakes
