"""Speed of Weighted Majority over long runs (chapter 5), against peers measured in the same run.

Run:  .venv/bin/python benchmarks/experts_speed.py

The target from the experts issue: T = 10^6 rounds with N = 100 experts in under 2 s,
with vectorised weight updates. Peers: a plain numpy per-round loop (multiplicative
weights, renormalised every round so they never underflow) and onlinelib's own
per-round ``WeightedMajority`` driven by ``run``. Prints seconds and ratios; asserts nothing.
"""

from __future__ import annotations

import numpy as np

import onlinelib as ol
from timing import timed


def numpy_loop(P: np.ndarray, y: np.ndarray, eta: float) -> int:
    """Weighted Majority one round at a time with numpy (the plain peer)."""
    w = np.ones(P.shape[1])
    mistakes = 0
    for t in range(len(y)):
        prediction = 1 if w @ P[t] >= 0 else -1
        mistakes += prediction != y[t]
        w[P[t] != y[t]] *= 1 - eta
        w /= w.max()
    return mistakes


def main() -> None:
    rng = np.random.default_rng(0)
    T, N, eta = 10**6, 100, 0.5
    P, y = ol.iid_experts(T, rng.uniform(0.5, 0.8, N), rng)
    print(f"Weighted Majority, T = {T:,} rounds, N = {N} experts, eta = {eta}")
    t_ours = timed(lambda: ol.weighted_majority_run(P, y, eta))
    result = ol.weighted_majority_run(P, y, eta)
    print(f"  onlinelib.weighted_majority_run    {t_ours:7.3f} s   target < 2 s: {'PASS' if t_ours < 2 else 'MISS'}")
    print(f"    M = {result.mistakes}, m = {result.best_expert_mistakes}, RWMA E[M] = {result.expected_mistakes:.1f}")

    prefix = 20_000  # the per-round peers cost the same every round, so a prefix measures them
    t_loop = timed(lambda: numpy_loop(P[:prefix], y[:prefix], eta), repeat=1) * T / prefix
    t_class = timed(lambda: ol.run(ol.WeightedMajority(N, eta), P[:prefix], y[:prefix]), repeat=1) * T / prefix
    print(
        f"  plain numpy per-round loop          {t_loop:7.1f} s   ratio {t_loop / t_ours:6.1f}x  (from {prefix:,} rounds)"
    )
    print(
        f"  onlinelib.run(WeightedMajority)     {t_class:7.1f} s   ratio {t_class / t_ours:6.1f}x  (from {prefix:,} rounds)"
    )
    same = numpy_loop(P[:prefix], y[:prefix], eta) == ol.weighted_majority_run(P[:prefix], y[:prefix], eta).mistakes
    print(f"  mistakes on the prefix: numpy loop and onlinelib {'EQUAL' if same else 'DIFFERENT'}")

    print(f"\nRandomized Weighted Majority Monte Carlo, T = 2000, N = {N}, 10^4 trials")
    P2, y2 = ol.iid_experts(2000, rng.uniform(0.5, 0.8, N), rng)
    t_mc = timed(lambda: ol.simulate_randomized_weighted_majority(P2, y2, eta, 10_000, np.random.default_rng(1)))
    t_exact = timed(lambda: ol.weighted_majority_run(P2, y2, eta))
    print(f"  vectorised simulation   {t_mc:.3f} s;  exact expectation (no sampling) {t_exact * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
