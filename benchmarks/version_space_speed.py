"""Speed of the version-space learners (chapter 1), against a floor and plain peers in the same run.

Run:  .venv/bin/python benchmarks/version_space_speed.py [--smoke]

Prints seconds and ratios; it asserts nothing about time (timings are not tests). Each ratio
is the median (min-max) over 3 repetitions in which the cases run side by side
(``timing.side_by_side``). The targets from the foundation issue are: Halving over 2^16
concepts for 10^4 rounds in about a second or less, and littlestone_dimension for thresholds
on 63 points and for monotone disjunctions over 4 variables in under a second each.

The floors:

* **Halving**: the same run computed offline, with the whole stream known, in vectorised
  passes over the hypothesis table (``offline_halving``): each concept's first round of
  disagreement (one pass over the table), then the votes of every round from counts of the
  +1 entries by instance and round of death (one pass over those entries). It gives the same
  predictions (checked) and is what the answer costs without the online protocol, as ``X @ w``
  is for a linear learner.
* **Randomized Halving's Monte Carlo**: one read of the held concepts' labels on the whole
  stream (a fixed set of held concepts, one gather ``by_instance[X][:, held]``): every trial
  must look at its held concept's label in every round; the draws and the version space are
  left out.
* **Littlestone dimension**: none. No algorithm is known that avoids searching the class's
  mistake trees (computing Ldim is hard in general); the memoised and pruned search is compared
  with the plain recursion of the definition instead.

``--smoke`` (``timing.SMOKE``): the smallest sizes, one repetition, no peers (no list or mask
Halving, no plain recursion, no per-trial loop); the floors and the check that the offline
floor predicts as Halving does still run.
"""

from __future__ import annotations

import statistics
from typing import Callable

import numpy as np

import onlinelib as ol
from timing import SMOKE, format_ratio, side_by_side


class ListHalving:
    """Halving with the version space as a Python list of concept indices (the naive peer)."""

    def __init__(self, table):
        self.rows = [tuple(r) for r in table.tolist()]
        self.alive = list(range(len(self.rows)))

    def predict(self, x):
        pos = sum(1 for c in self.alive if self.rows[c][x])
        return 1 if 2 * pos >= len(self.alive) else -1

    def update(self, x, y):
        self.alive = [c for c in self.alive if self.rows[c][x] == (y == 1)]


class MaskHalving:
    """Halving with the version space as a Boolean mask over all of C (the numpy peer)."""

    def __init__(self, table):
        self.by_instance = np.ascontiguousarray(table.T)
        self.alive = np.ones(table.shape[0], dtype=bool)

    def predict(self, x):
        pos = np.count_nonzero(self.alive & self.by_instance[x])
        return 1 if 2 * pos >= np.count_nonzero(self.alive) else -1

    def update(self, x, y):
        self.alive &= self.by_instance[x] == (y == 1)


def offline_halving(table: np.ndarray, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Halving's predictions on a consistent stream, computed offline (the floor).

    Concept c is in V_{t-1} (it votes in round t) iff its first disagreement with the stream,
    ``death[c]``, comes at round t or later; that is one pass over the table. The number of
    voters in round t, and of those that say +1 at instance i, are then suffix sums of counts
    by round of death (a pass over the table's +1 entries).
    """
    n_concepts, n = table.shape
    T = len(X)
    rounds = np.arange(1, T + 1)
    first = np.full(n, T + 1)  # the first round that shows instance i (T + 1: never)
    np.minimum.at(first, X, rounds)
    label = np.zeros(n, dtype=bool)
    label[X] = y == 1  # a consistent stream: every showing of an instance has the same label
    death = np.where(table != label, first, T + 1).min(axis=1)  # the one pass over the table
    alive = np.cumsum(np.bincount(death, minlength=T + 2)[::-1])[::-1]  # alive[t] = #{c : death[c] >= t}
    concept, instance = np.nonzero(table)
    by_round = np.bincount(instance * (T + 2) + death[concept], minlength=n * (T + 2)).reshape(n, T + 2)
    positive = np.cumsum(by_round[:, ::-1], axis=1)[:, ::-1]  # positive[i, t] = #{c : c(i) = +1, death[c] >= t}
    return np.where(2 * positive[X, rounds] >= alive[rounds], 1, -1).astype(np.int8)


def naive_ldim(table, members):
    """Ldim by the definition, with no memo and no pruning (the peer for tiny classes)."""
    if len(members) <= 1:
        return len(members) - 1
    best = 0
    for x in range(table.shape[1]):
        pos = [c for c in members if table[c, x]]
        neg = [c for c in members if not table[c, x]]
        if pos and neg:
            best = max(best, 1 + min(naive_ldim(table, pos), naive_ldim(table, neg)))
    return best


def rows(times: dict[str, list[float]], scale: dict[str, float] | None = None) -> None:
    """One line per case: its median time in ms and its time / the first case's, as median (min-max).

    ``scale[name]`` multiplies that case's times first (a peer timed on a prefix of the stream
    or on fewer trials).
    """
    scale = scale or {}
    scaled = {name: [t * scale.get(name, 1.0) for t in ts] for name, ts in times.items()}
    first = next(iter(scaled))
    print(f"    {'':38s} {'ms':>9s}   / first row: median (min-max)")
    for name, ts in scaled.items():
        note = f"  (scaled up {scale[name]:.3g}x from a part of the work)" if name in scale else ""
        ratio = "" if name == first else format_ratio(ts, scaled[first])
        print(f"    {name:38s} {statistics.median(ts) * 1e3:9.2f}   {ratio}{note}".rstrip())


def halving(big: ol.ConceptClass, title: str, X: np.ndarray, y: np.ndarray, list_rounds: int | None) -> None:
    """Halving on one stream: onlinelib, the floor, and (not in smoke mode) the mask and list peers."""
    print(title)
    fns: dict[str, Callable[[], object]] = {
        "onlinelib.Halving (mask -> index)": lambda: ol.run(ol.Halving(big), X, y),
        "onlinelib.Halving, observe |V|": lambda: ol.run(ol.Halving(big), X, y, observe={"|V|": lambda L: L.size}),
        "floor: offline, one pass over C": lambda: offline_halving(big.table, X, y),
    }
    scale = {}
    if not SMOKE:
        fns["numpy Boolean-mask Halving"] = lambda: ol.run(MaskHalving(big.table), X, y)
        n = len(y) if list_rounds is None else list_rounds
        fns["Python-list Halving"] = lambda: ol.run(ListHalving(big.table), X[:n], y[:n])
        if n < len(y):  # every round costs the same on this stream, so a prefix gives the per-round cost
            scale["Python-list Halving"] = len(y) / n
    times = side_by_side(fns)
    rows(times, scale)
    same = np.array_equal(offline_halving(big.table, X, y), ol.run(ol.Halving(big), X, y).predictions)
    print(f"    the floor predicts as onlinelib.Halving: {'yes' if same else 'NO'}")
    assert same, "offline_halving disagrees with onlinelib.Halving: the floor computes something else"


def main() -> None:
    n_points, n_rounds, n_trials = (8, 1_000, 1_000) if SMOKE else (16, 10_000, 10_000)
    reps = "1 repetition (smoke)" if SMOKE else "median (min-max) of 3 repetitions"
    rng = np.random.default_rng(0)
    big = ol.all_concepts(n_points)
    X, y = ol.random_stream(big, 12345 % big.size, n_rounds, rng)
    print(f"Halving on all concepts over {n_points} points (|C| = {big.size}), {n_rounds} rounds; {reps}")
    halving(big, "  (a) a random stream: V collapses to the target within a few dozen rounds", X, y, None)
    X0 = np.zeros(n_rounds, dtype=np.int64)
    y0 = big.labels(1, X0)
    halving(big, f"  (b) a stream that keeps |V| = 2^{n_points - 1}: instance 0 over and over", X0, y0, 30)

    print("\nLittlestone dimension (cold cache each time: a fresh class object); no floor (see the docstring)")
    cases = [
        ("thresholds on 63 points (64 concepts)", lambda: ol.thresholds(63)),
        ("monotone disjunctions, n = 4 (16)", lambda: ol.monotone_disjunctions(4)),
    ]
    if not SMOKE:
        cases += [
            ("monotone disjunctions, n = 8 (256)", lambda: ol.monotone_disjunctions(8)),
            ("all concepts on 10 points (1024)", lambda: ol.all_concepts(10)),
        ]
    for label, make in cases:
        t = side_by_side({label: lambda make=make: ol.littlestone_dimension(make())})[label]
        print(f"  {label:40s} Ldim = {ol.littlestone_dimension(make()):2d}  {statistics.median(t) * 1e3:8.2f} ms")
    if not SMOKE:
        small = ol.thresholds(9)
        times = side_by_side(
            {
                "memoised+pruned": lambda: ol.littlestone_dimension(ol.thresholds(9)),
                "plain recursion": lambda: naive_ldim(small.table, list(range(small.size))),
            }
        )
        print("  thresholds on 9 points:")
        rows(times)

    cls = ol.thresholds(99)
    Xa, ya = ol.one_per_round_adversary(cls, 37)
    print(
        f"\nRandomized Halving Monte Carlo, thresholds(99), one-per-round stream ({len(ya)} rounds), {n_trials} trials"
    )
    held = np.random.default_rng(2).integers(cls.size, size=n_trials)
    fns: dict[str, Callable[[], object]] = {
        "vectorised over trials": lambda: ol.simulate_randomized_halving(
            cls, Xa, ya, n_trials, np.random.default_rng(1)
        ),
        "floor: one read of the held labels": lambda: np.count_nonzero(
            cls.by_instance[Xa][:, held] != (ya == 1)[:, None], axis=0
        ),
    }
    scale = {}
    if not SMOKE:
        trials_loop = 200
        fns["one run() per trial"] = lambda: [
            ol.run(ol.RandomizedHalving(cls, np.random.default_rng(i)), Xa, ya) for i in range(trials_loop)
        ]
        scale["one run() per trial"] = n_trials / trials_loop
    rows(side_by_side(fns), scale)


if __name__ == "__main__":
    main()
