"""Speed of Weighted Majority and RWMA's Monte Carlo (chapter 5) against their floors, in one run.

Run:  .venv/bin/python benchmarks/experts_speed.py          (about 15 s)
      .venv/bin/python benchmarks/experts_speed.py --smoke  (tiny sizes, no peers, no verdicts)

The target of issue 26: Weighted Majority over T = 10^6 rounds and N = 100 experts at
>= 0.3 of its floor, one read of the advice P: ``P.sum()`` on the (T, N) int8 matrix, one
numpy pass, single-threaded. The ratio floor / ours is the median (min-max) of 3
repetitions, each side measured moments apart (``timing.side_by_side``). Cases:

1. ``weighted_majority_run`` on iid experts with accuracies in [0.5, 0.8] (the target), and
   on experts that are all coin flips, which keeps every expert's weight in play for long
   (the engine's dense mode, its slowest).
2. ``WeightedMajority.play``, what ``run(WeightedMajority(...), P, y)`` calls when nothing is
   observed, and ``run`` itself, on the target stream.
3. Peers, from a prefix of the stream (they cost the same every round): a plain numpy
   per-round loop and the per-round class through ``run(..., method="loop")``; the mistakes
   of the loop and of onlinelib on the prefix must be equal.
4. RWMA's Monte Carlo, T = 2000, N = 100, 10^4 trials, against its floor: drawing its
   2 * 10^7 uniforms with ``rng.random((T, n_trials))`` (it must draw as many, in the same
   order, to give the same numbers as before).

Prints seconds and ratios with PASS/MISS next to each target; asserts nothing about time.
"""

from __future__ import annotations

import numpy as np

import onlinelib as ol
from timing import SMOKE, format_ratio, ratio_summary, side_by_side, timed


def size(full: int, smoke: int) -> int:
    return smoke if SMOKE else full


def verdict(ratio: tuple[float, float, float], target: float) -> str:
    """PASS/MISS on the median ratio (none in smoke mode)."""
    return "" if SMOKE else ("  PASS" if ratio[0] >= target else "  MISS") + f" (target >= {target})"


def numpy_loop(P: np.ndarray, y: np.ndarray, eta: float) -> int:
    """Weighted Majority one round at a time with numpy (the plain peer); its mistakes.

    Multiplicative weights renormalised every round (so they never underflow), the float
    vote's sign, ties to +1 (no exact decision of near-ties: on these streams none occurs).
    """
    w = np.ones(P.shape[1])
    mistakes = 0
    for t in range(len(y)):
        prediction = 1 if w @ P[t] >= 0 else -1
        mistakes += prediction != y[t]
        w[P[t] != y[t]] *= 1 - eta
        w /= w.max()
    return mistakes


def run_calls_play() -> bool:
    """Whether ``onlinelib.run`` hands a whole stream to the learner's ``play`` (method "auto", nothing observed)."""
    calls = []

    class Probe(ol.WeightedMajority):
        def play(self, X, y):
            calls.append(1)
            return super().play(X, y)

    ol.run(Probe(2, 0.5), [[1, -1]], [1])
    return bool(calls)


def floor_case(label: str, P: np.ndarray, y: np.ndarray, eta: float, target: float | None) -> None:
    """weighted_majority_run against one read of P, side by side."""
    times = side_by_side({"floor": lambda: P.sum(), "ours": lambda: ol.weighted_majority_run(P, y, eta)}, repeat=3)
    ratio = ratio_summary(times["floor"], times["ours"])
    tail = verdict(ratio, target) if target is not None else ""
    print(f"  {label}")
    print(f"    floor, one read of P (P.sum())   {min(times['floor']) * 1e3:8.1f} ms")
    print(f"    onlinelib.weighted_majority_run  {min(times['ours']) * 1e3:8.1f} ms")
    print(f"    floor / ours  {format_ratio(times['floor'], times['ours'])}{tail}")


def main() -> None:
    rng = np.random.default_rng(0)
    T, N, eta = size(10**6, 2000), size(100, 10), 0.5
    P, y = ol.iid_experts(T, rng.uniform(0.5, 0.8, N), rng)
    ol.weighted_majority_run(P[:10], y[:10], eta)  # loads (or compiles) the kernels, untimed
    result = ol.weighted_majority_run(P, y, eta)
    print(f"1. Weighted Majority, T = {T:,} rounds, N = {N} experts, eta = {eta}, P int8 {P.nbytes / 1e6:.0f} MB")
    floor_case("iid experts, accuracies in [0.5, 0.8] (the target)", P, y, eta, 0.3)
    print(f"    M = {result.mistakes}, m = {result.best_expert_mistakes}, RWMA E[M] = {result.expected_mistakes:.1f}")
    P_flat, y_flat = ol.iid_experts(T, np.full(N, 0.5), rng)
    floor_case("coin-flip experts (every weight in play: the dense mode)", P_flat, y_flat, eta, None)

    print("\n2. WeightedMajority through play (what run calls when nothing is observed)")
    fns = {"floor": lambda: P.sum()}
    if hasattr(ol.WeightedMajority, "play"):
        fns["play"] = lambda: ol.WeightedMajority(N, eta).play(P, y)
    if run_calls_play():
        fns["run"] = lambda: ol.run(ol.WeightedMajority(N, eta), P, y)
    times = side_by_side(fns, repeat=3)
    for name, label in (
        ("play", "WeightedMajority(N, eta).play(P, y)"),
        ("run", "ol.run(WeightedMajority(N, eta), P, y)"),
    ):
        if name not in times:
            print(f"    {label:40s} not measured: no play, or run does not call it (round by round: case 3)")
            continue
        ratio = ratio_summary(times["floor"], times[name])
        print(f"    {label:40s} {min(times[name]) * 1e3:8.1f} ms   floor / ours  "
              f"{format_ratio(times['floor'], times[name])}{verdict(ratio, 0.3)}")  # fmt: skip

    if not SMOKE:
        prefix = 20_000  # the per-round peers cost the same every round, so a prefix measures them
        t_loop = timed(lambda: numpy_loop(P[:prefix], y[:prefix], eta), repeat=1) * T / prefix
        t_class = timed(
            lambda: ol.run(ol.WeightedMajority(N, eta), P[:prefix], y[:prefix], method="loop"), repeat=1
        )  # fmt: skip
        t_class *= T / prefix
        t_floor = timed(lambda: P.sum())
        print(f"\n3. Peers (from {prefix:,} rounds), seconds for the whole stream; floor {t_floor * 1e3:.1f} ms")
        for label, seconds in (("plain numpy per-round loop", t_loop), ("run(..., method='loop')", t_class)):
            print(f"    {label:40s} {seconds:8.1f} s    floor / peer  {t_floor / seconds:.2g}")
        same = numpy_loop(P[:prefix], y[:prefix], eta) == ol.weighted_majority_run(P[:prefix], y[:prefix], eta).mistakes
        print(f"    mistakes on the prefix: numpy loop and onlinelib {'EQUAL' if same else 'DIFFERENT'}")

    T2, trials = size(2000, 200), size(10_000, 100)
    print(f"\n4. Randomized Weighted Majority Monte Carlo, T = {T2}, N = {N}, {trials:,} trials")
    P2, y2 = ol.iid_experts(T2, rng.uniform(0.5, 0.8, N), rng)
    ol.simulate_randomized_weighted_majority(P2[:5], y2[:5], eta, 3, np.random.default_rng(1))
    times = side_by_side(
        {
            "floor": lambda: np.random.default_rng(1).random((T2, trials)),
            "ours": lambda: ol.simulate_randomized_weighted_majority(P2, y2, eta, trials, np.random.default_rng(1)),
            "exact": lambda: ol.weighted_majority_run(P2, y2, eta),
        },
        repeat=3,
    )
    ratio = ratio_summary(times["floor"], times["ours"])
    print(f"    floor, the draws (rng.random((T, n_trials)))  {min(times['floor']) * 1e3:8.1f} ms")
    print(f"    simulate_randomized_weighted_majority         {min(times['ours']) * 1e3:8.1f} ms")
    print(f"    floor / ours  {format_ratio(times['floor'], times['ours'])}{verdict(ratio, 0.3)}")
    print(f"    exact expectation, no sampling (weighted_majority_run)  {min(times['exact']) * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
