"""Speed of the version-space learners (chapter 1), against plain-Python peers in the same run.

Run:  .venv/bin/python benchmarks/version_space_speed.py

Prints seconds and ratios; it asserts nothing (timings are not tests). The targets from
the foundation issue are: Halving over 2^16 concepts for 10^4 rounds in about a second or
less, and littlestone_dimension for thresholds on 63 points and for monotone disjunctions over
4 variables in under a second each.
"""

from __future__ import annotations

import numpy as np

import onlinelib as ol
from timing import timed


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


def main() -> None:
    rng = np.random.default_rng(0)
    big = ol.all_concepts(16)
    X, y = ol.random_stream(big, 12345, 10_000, rng)
    print("Halving on all concepts over 16 points (|C| = 65536), 10^4 rounds")
    print("  (a) a random stream: V collapses to the target within a few dozen rounds")
    t_ours = timed(lambda: ol.run(ol.Halving(big), X, y), repeat=3)
    t_mask = timed(lambda: ol.run(MaskHalving(big.table), X, y), repeat=3)
    t_list = timed(lambda: ol.run(ListHalving(big.table), X, y), repeat=1)
    print(f"    onlinelib.Halving (mask -> index) {t_ours:7.3f} s")
    print(f"    numpy Boolean-mask Halving        {t_mask:7.3f} s   ratio {t_mask / t_ours:5.1f}x")
    print(f"    Python-list Halving               {t_list:7.3f} s   ratio {t_list / t_ours:5.1f}x")
    t_obs = timed(lambda: ol.run(ol.Halving(big), X, y, observe={"|V|": lambda L: L.size}), repeat=3)
    print(f"    onlinelib.Halving, observe |V|    {t_obs:7.3f} s")

    print("  (b) a stream that keeps |V| = 2^15: instance 0 over and over")
    X0 = np.zeros(10_000, dtype=np.int64)
    y0 = big.labels(1, X0)
    t_ours = timed(lambda: ol.run(ol.Halving(big), X0, y0), repeat=3)
    t_mask = timed(lambda: ol.run(MaskHalving(big.table), X0, y0), repeat=3)
    n_list = 30  # every round costs the same here, so a prefix measures the per-round cost
    t_list = timed(lambda: ol.run(ListHalving(big.table), X0[:n_list], y0[:n_list]), repeat=1) / n_list * len(y0)
    print(f"    onlinelib.Halving (mask -> index) {t_ours:7.3f} s")
    print(f"    numpy Boolean-mask Halving        {t_mask:7.3f} s   ratio {t_mask / t_ours:5.1f}x")
    print(
        f"    Python-list Halving               {t_list:7.3f} s   ratio {t_list / t_ours:5.1f}x  (from {n_list} rounds)"
    )

    print("\nLittlestone dimension (cold cache each time: a fresh class object)")
    for label, make in [
        ("thresholds on 63 points (64 concepts)", lambda: ol.thresholds(63)),
        ("monotone disjunctions, n = 4 (16)", lambda: ol.monotone_disjunctions(4)),
        ("monotone disjunctions, n = 8 (256)", lambda: ol.monotone_disjunctions(8)),
        ("all concepts on 10 points (1024)", lambda: ol.all_concepts(10)),
    ]:
        t = timed(lambda make=make: ol.littlestone_dimension(make()), repeat=3)
        print(f"  {label:40s} Ldim = {ol.littlestone_dimension(make()):2d}  {t * 1e3:8.2f} ms")
    small = ol.thresholds(9)
    t_fast = timed(lambda: ol.littlestone_dimension(ol.thresholds(9)), repeat=3)
    t_slow = timed(lambda: naive_ldim(small.table, list(range(small.size))), repeat=1)
    print(
        f"  thresholds on 9 points: memoised+pruned {t_fast * 1e3:.2f} ms, "
        f"plain recursion {t_slow * 1e3:.0f} ms, ratio {t_slow / t_fast:.0f}x"
    )

    print("\nRandomized Halving Monte Carlo, thresholds(99), one-per-round stream, 10^4 trials")
    cls = ol.thresholds(99)
    Xa, ya = ol.one_per_round_adversary(cls, 37)
    t_vec = timed(lambda: ol.simulate_randomized_halving(cls, Xa, ya, 10_000, np.random.default_rng(1)), repeat=3)
    trials_loop = 200
    t_loop = timed(
        lambda: [ol.run(ol.RandomizedHalving(cls, np.random.default_rng(i)), Xa, ya) for i in range(trials_loop)],
        repeat=1,
    )
    per_trial_loop = t_loop / trials_loop
    print(f"  vectorised over trials  {t_vec:.3f} s for 10^4 trials")
    print(f"  one run() per trial     {per_trial_loop * 1e4:.3f} s for 10^4 trials (extrapolated from {trials_loop})")
    print(f"  ratio {per_trial_loop * 1e4 / t_vec:.0f}x")


if __name__ == "__main__":
    main()
