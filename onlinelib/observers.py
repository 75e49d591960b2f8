"""Proof instruments: the ``observe=`` functions that record a proof's quantities on every round.

``onlinelib.run(learner, X, y, observe={name: function})`` calls each function on the learner
before the first round and after every round, and the ``Trace`` keeps the values, so a chapter
can plot and assert each step of a proof on the same run.

* Chapter 3 (Novikoff's theorem): ``potential_observers`` (||w||^2, <w*, w> and the update
  counter) and ``per_update``, which reads an observable after each update rather than after
  each round.
* Chapter 4 (Littlestone's bound for Winnow): ``proof_observables`` (the potential, the next
  score, the relevant promotions and demotions).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .linear import Perceptron
from .protocol import Trace
from .validation import issparse

__all__ = ["potential_observers", "per_update", "proof_observables"]


# -- chapter 3: the Perceptron ---------------------------------------------------------------------


def potential_observers(w_star: Any) -> dict[str, Callable[[Perceptron], float]]:
    """``observe=`` functions for the proof of Novikoff's theorem (chapter 3).

    Returns ``{"||w||^2": ..., "<w*,w>": ..., "updates": ...}``: the potential,
    the alignment with the separator ``w_star`` and the Perceptron's update
    counter. All three are functions of the state that ``update`` changes, so
    they may be recorded with ``method="blocks"`` (see ``onlinelib.run``).
    ``w_star`` need not have unit norm (Theorem 1 of Khardon, Roth and Servedio
    uses an unnormalised u).

    Raises
    ------
    ValueError
        If ``w_star`` is not a non-empty finite 1-D vector.
    """
    u = np.asarray(w_star, dtype=float)
    if u.ndim != 1 or u.size == 0:
        raise ValueError(f"w_star must be a non-empty 1-D vector, got shape {u.shape}")
    if not np.isfinite(u).all():
        raise ValueError("w_star must be finite, got NaN or inf")
    u = u.copy()
    return {
        "||w||^2": lambda L: float(L.weights @ L.weights),
        "<w*,w>": lambda L: float(u @ L.weights),
        "updates": lambda L: float(L.n_updates),
    }


def per_update(trace: Trace, name: str, counter: str = "updates") -> np.ndarray:
    """The observable ``name`` after k = 0, 1, ..., U updates (chapter 3).

    ``trace`` must have recorded the update counter ``counter`` (as
    ``potential_observers`` does). Entry k is the value right after the k-th
    update; entry 0 is the value before the first round.

    Raises
    ------
    KeyError
        If ``name`` or ``counter`` was not observed.
    ValueError
        If the counter is not a count that starts at 0 and rises by 0 or 1 per round.
    """
    for key in (name, counter):
        if key not in trace.observed:
            raise KeyError(f"{key!r} was not observed; the trace has {sorted(trace.observed)}")
    count = trace.observed[counter]
    steps = np.diff(count)
    if count[0] != 0 or not np.isin(steps, (0.0, 1.0)).all():
        raise ValueError(f"observed[{counter!r}] must start at 0 and rise by 0 or 1 per round")
    rounds = np.concatenate([[0], np.flatnonzero(steps == 1) + 1])
    return trace.observed[name][rounds]


# -- chapter 4: Winnow ----------------------------------------------------------------------------


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
    n_rows = rows.shape[0] if issparse(rows) or isinstance(rows, np.ndarray) else len(rows)
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
        row = rows[t : t + 1] if issparse(rows) else rows[t]
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
