"""Example streams and adversaries (book chapter 1 and later chapters).

* ``random_stream``: instances drawn uniformly from a finite class's domain and
  labelled by a target concept.
* ``one_per_round_adversary``: an oblivious sequence that removes exactly one
  concept from the version space per round, the worst case for Randomized Halving.
* ``adaptive_adversary``: an adversary that sees each prediction before it
  labels, and forces at least Ldim(C) mistakes on any learner.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .concepts import ConceptClass
from .protocol import Learner, Trace, check_prediction, check_rng
from .version_space import _check_class, _ldim, _split_dimensions, _VersionSpace

__all__ = [
    "random_stream",
    "one_per_round_adversary",
    "adaptive_adversary",
    "AdaptiveRun",
]


def random_stream(concept_class: ConceptClass, target: int, length: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``length`` instances drawn uniformly (with replacement) and labelled by ``target``.

    Returns
    -------
    X : ndarray of int64, shape (length,)
        Instance indices.
    y : ndarray of int8, shape (length,)
        Labels in {-1, +1}.
    """
    cls = _check_class(concept_class)
    target = cls.check_concept(target)
    if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or length < 1:
        raise ValueError(f"length must be a positive integer, got {length!r}")
    rng = check_rng(rng)
    X = rng.integers(cls.n_instances, size=int(length))
    return X, cls.labels(target, X)


def one_per_round_adversary(
    concept_class: ConceptClass, target: int, rng: np.random.Generator | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """A stream, labelled by ``target``, that eliminates exactly one concept per round.

    It runs until only the target (and any concept identical to it) is left, so it
    has |C| - 1 rounds when all concepts are distinct (and none for a one-concept class). Against it Randomized
    Halving makes exactly H_|C| - 1 mistakes in expectation, the worst case
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
    cls = _check_class(concept_class)
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
    cls = _check_class(concept_class)
    if not isinstance(learner, Learner):
        raise TypeError(f"learner must have predict(x) and update(x, y) methods, got {type(learner).__name__}")
    space = _VersionSpace(cls)
    X: list[int] = []
    predictions: list[int] = []
    labels: list[int] = []
    while (d := _ldim(cls, members := space.members())) > 0:
        ones = np.count_nonzero(cls.by_instance[:, members], axis=1)
        balance = np.minimum(ones, len(members) - ones)
        best_x, best_value = -1, -2
        for x in np.argsort(-balance, kind="stable").tolist():
            if balance[x] == 0:
                break
            value = min(_split_dimensions(cls, members, x))
            if value > best_value:
                best_x, best_value = x, value
                if value == d - 1:
                    break
        p = check_prediction(learner.predict(best_x), learner, len(X) + 1)
        learner.update(best_x, -p)
        space.restrict(best_x, -p, len(X) + 1)
        X.append(best_x)
        predictions.append(p)
        labels.append(-p)
    target = int(space.members()[0])
    trace = Trace(predictions=np.asarray(predictions, dtype=np.int8), labels=np.asarray(labels, dtype=np.int8))
    return AdaptiveRun(np.asarray(X, dtype=np.int64), trace.labels, target, trace)
