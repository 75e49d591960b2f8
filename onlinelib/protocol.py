"""The online protocol: learners, the ``run`` loop and its ``Trace``.

Every chapter of the book uses the same protocol. In round ``t`` the learner sees
an instance ``x_t``, predicts a label in {-1, +1}, is told the true label ``y_t``
and may update its state. A mistake is a round where the prediction differs from
the label. ``run`` records the mistakes and, through ``observe=``, any quantity
of the learner's state that a proof talks about (a potential function, the size
of the version space, ...), so a chapter can assert every step of a proof on
the same run.

The argument checks every module shares are in ``validation``; here are only the two that
need the ``Learner`` protocol.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol, runtime_checkable

import numpy as np

from .validation import check_stream, issparse

__all__ = [
    "Learner",
    "BlockLearner",
    "Trace",
    "run",
    "check_learner",
    "check_prediction",
]


@runtime_checkable
class Learner(Protocol):
    """What ``run`` needs from a learner (book chapter 1, "The online protocol").

    ``predict(x)`` returns -1 or +1 for one instance. ``update(x, y)`` is called
    after every prediction with the true label ``y``; a learner that only learns
    from mistakes compares ``y`` with its own prediction.
    """

    def predict(self, x: Any) -> int:  # pragma: no cover - protocol
        ...

    def update(self, x: Any, y: int) -> None:  # pragma: no cover - protocol
        ...


@runtime_checkable
class BlockLearner(Learner, Protocol):
    """A ``Learner`` that ``run``'s exact block engine can drive (``method="blocks"``).

    The engine is for conservative, mistake-driven learners: ``update`` changes the state
    only on some rounds, and on every mistake. Besides ``predict`` and ``update`` such a
    learner has

    - ``scan(X, y, start) -> (j, prediction)``: the first round ``j >= start`` on which
      ``update`` would change the state (``j = len(y)`` if none), and the prediction made
      there; rounds ``start .. j-1`` are then predicted correctly;
    - ``skip(n_rounds)``: account for ``n_rounds`` rounds that change nothing (counters).

    Any learner may also have ``prepare(X) -> X``, which ``run`` calls once on the whole
    stream before the first round (for example to turn index lists into a CSR matrix);
    ``Winnow1``, ``Winnow2``, ``Perceptron``, ``Elimination`` and ``KernelPerceptron``
    use it, and ``play(X, y) -> predictions``, which plays the whole prepared stream at
    once (in compiled code) and leaves the learner as the loop would; ``run`` uses it
    when nothing is observed (``Perceptron``, ``Winnow1``, ``Winnow2``,
    ``WeightedMajority``). ``isinstance(obj, BlockLearner)`` checks the four methods by name.
    """

    def scan(self, X: Any, y: np.ndarray, start: int) -> tuple[int, int]:  # pragma: no cover - protocol
        ...

    def skip(self, n_rounds: int) -> None:  # pragma: no cover - protocol
        ...


@dataclass(frozen=True, eq=False)
class Trace:
    """The record of one run of the online protocol.

    Attributes
    ----------
    predictions : ndarray of int8, shape (T,)
        The learner's prediction in each round, in {-1, +1}.
    labels : ndarray of int8, shape (T,)
        The true labels.
    observed : dict of str to ndarray, each of shape (T + 1,)
        ``observed[name][t]`` is the value of the observable ``name`` after
        ``t`` rounds; index 0 is the value before the first round.
    """

    predictions: np.ndarray
    labels: np.ndarray
    observed: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.labels)

    @property
    def mistakes(self) -> np.ndarray:
        """Boolean array, True in the rounds where the prediction was wrong."""
        return self.predictions != self.labels

    @property
    def cumulative(self) -> np.ndarray:
        """Number of mistakes made in rounds 1..t, for t = 1..T."""
        return np.cumsum(self.mistakes)

    @property
    def mistakes_so_far(self) -> np.ndarray:
        """Number of mistakes after t rounds, for t = 0..T (aligned with ``observed``)."""
        return np.concatenate([[0], self.cumulative])

    @property
    def n_mistakes(self) -> int:
        """Total number of mistakes."""
        return int(np.count_nonzero(self.mistakes))

    @property
    def mistake_rounds(self) -> np.ndarray:
        """The 1-based rounds in which a mistake was made."""
        return np.flatnonzero(self.mistakes) + 1

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Trace):
            return NotImplemented
        return (
            np.array_equal(self.predictions, other.predictions)
            and np.array_equal(self.labels, other.labels)
            and self.observed.keys() == other.observed.keys()
            and all(np.array_equal(v, other.observed[k], equal_nan=True) for k, v in self.observed.items())
        )

    def __repr__(self) -> str:
        names = ", ".join(self.observed) or "none"
        return f"Trace(rounds={len(self)}, mistakes={self.n_mistakes}, observed: {names})"


def check_learner(learner: Any, name: str = "learner") -> Any:
    """Return ``learner`` after checking that it has ``predict(x)`` and ``update(x, y)`` (the Learner protocol)."""
    if not isinstance(learner, Learner):
        raise TypeError(f"{name} must have predict(x) and update(x, y) methods, got {type(learner).__name__}")
    return learner


def check_prediction(prediction: Any, learner: Any, round_number: int) -> int:
    """Return a learner's prediction as an int after checking that it is -1 or +1."""
    if prediction != 1 and prediction != -1:
        raise ValueError(
            f"{type(learner).__name__}.predict must return -1 or +1, returned {prediction!r} in round {round_number}"
        )
    return int(prediction)


METHODS = ("auto", "loop", "blocks")


def run(
    learner: Learner,
    X: Any,
    y: Any,
    *,
    observe: Mapping[str, Callable[[Any], float]] | None = None,
    method: str = "auto",
) -> Trace:
    """Run the online protocol of chapter 1 and record what happens.

    Parameters
    ----------
    learner : Learner
        Any object with ``predict(x)`` and ``update(x, y)``. It is updated in place.
        If it has ``prepare(X)``, the stream is first passed through it (e.g. to
        turn sparse index lists into a CSR matrix).
    X : array_like or sparse matrix, shape (T, ...)
        The instances, one per round.
    y : array_like of int, shape (T,)
        The true labels in {-1, +1}.
    observe : mapping of str to callable, optional
        Named functions of the learner, e.g. ``{"|V|": lambda L: L.size}``. Each
        is evaluated before the first round and after every round.
    method : {"auto", "loop", "blocks"}
        ``"loop"`` plays one example at a time. ``"blocks"`` is the fast exact
        engine for conservative, mistake-driven learners: those with a method
        ``scan(X, y, start) -> (j, prediction)`` that finds the first round
        j >= start on which ``update`` would change the state, where every mistake
        changes the state (so rounds start..j-1 are predicted correctly), and
        ``skip(n)``, which stands for n rounds that change nothing. It jumps from
        one state change to the next and applies ``update`` there. The trace
        equals the loop's. With the engine, observables are evaluated only after
        state changes and carried forward in between, so they must be functions
        of the state that ``update`` changes (weights, update counters), not of
        the round number. ``"auto"``, when nothing is observed, uses the learner's
        ``play`` if it has one (the whole stream in compiled code, updates
        included), else the engine if the learner supports it; and the loop
        otherwise.

    Returns
    -------
    Trace
        Predictions, labels and the recorded observables.

    Raises
    ------
    TypeError
        If ``learner`` lacks ``predict``/``update`` or an observable is not callable.
    ValueError
        If the stream is empty, the lengths differ, a label is not ±1, the
        learner predicts something other than ±1, or ``method`` is unknown.
    """
    check_learner(learner)
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    is_block_learner = isinstance(learner, BlockLearner)
    if method == "blocks" and not is_block_learner:
        raise ValueError(
            f"method='blocks' needs a BlockLearner (conservative, with scan and skip methods); "
            f"{type(learner).__name__} has none"
        )
    prepare = getattr(learner, "prepare", None)
    if callable(prepare):
        X = prepare(X)
    X, y = check_stream(X, y)
    if observe is not None and not isinstance(observe, Mapping):
        raise TypeError(
            "observe must be a mapping of names to callables taking the learner, e.g. "
            f"observe={{'size': lambda L: L.size}}, got {type(observe).__name__}"
        )
    observe = dict(observe or {})
    for name, fn in observe.items():
        if not callable(fn):
            raise TypeError(f"observe[{name!r}] must be a callable taking the learner, got {type(fn).__name__}")
    play = getattr(learner, "play", None)
    if method == "auto" and not observe and callable(play):
        return Trace(predictions=_checked_predictions(play(X, y), learner, len(y)), labels=y)
    if method == "blocks" or (method == "auto" and is_block_learner and not observe):
        return _run_blocks(learner, X, y, observe)
    return _run_loop(learner, X, y, observe)


def _checked_predictions(predictions: Any, learner: Any, T: int) -> np.ndarray:
    """A learner's ``play`` result as int8 predictions, after checking its shape and values."""
    predictions = np.asarray(predictions)
    magnitude = np.abs(predictions) if predictions.shape == (T,) and predictions.dtype.kind in "iu" else None
    if magnitude is None or magnitude.min() != 1 or magnitude.max() != 1:
        raise ValueError(
            f"{type(learner).__name__}.play must return {T} predictions, each -1 or +1, got shape {predictions.shape}"
        )
    return predictions.astype(np.int8, copy=False)


def _run_loop(learner: Any, X: Any, y: np.ndarray, observe: dict) -> Trace:
    T = len(y)
    predictions = np.empty(T, dtype=np.int8)
    observed = {name: np.empty(T + 1, dtype=float) for name in observe}
    for name, fn in observe.items():
        observed[name][0] = fn(learner)
    for t in range(T):
        predictions[t] = check_prediction(learner.predict(X[t]), learner, t + 1)
        learner.update(X[t], int(y[t]))
        for name, fn in observe.items():
            observed[name][t + 1] = fn(learner)
    return Trace(predictions=predictions, labels=y, observed=observed)


def _run_blocks(learner: Any, X: Any, y: np.ndarray, observe: dict) -> Trace:
    T = len(y)
    predictions = y.copy()  # the rounds scan passes over are predicted correctly
    observed = {name: np.empty(T + 1, dtype=float) for name in observe}
    values = {name: fn(learner) for name, fn in observe.items()}
    for name in observe:
        observed[name][0] = values[name]
    t = 0  # rounds 0..t-1 are done, and observed[.][: t + 1] is written
    while t < T:
        j, prediction = learner.scan(X, y, t)
        learner.skip(j - t)
        if j == T:
            break
        predictions[j] = prediction
        learner.update(X[j : j + 1] if issparse(X) else X[j], int(y[j]))
        for name, fn in observe.items():
            observed[name][t + 1 : j + 1] = values[name]
            values[name] = observed[name][j + 1] = fn(learner)
        t = j + 1
    for name in observe:
        observed[name][t + 1 :] = values[name]
    return Trace(predictions=predictions, labels=y, observed=observed)
