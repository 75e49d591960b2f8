"""Speed of the Directed Drift simulator (chapter 7, "Binary weights"), against a floor and a peer.

Run:  python benchmarks/directed_drift_speed.py         (about two minutes)
      python benchmarks/directed_drift_speed.py --smoke (smallest sizes, one repetition, no peer)

1. The batch modes D4' ("single") and D4'' ("multi") at n = 201, 16 runs from random
   starts to w = w*. ``simulate(w_star, 16, rng)`` runs them one after the other in one
   compiled loop; it is set beside
   - the per-trial loop, ``simulate(w_star, 1, rng)`` once per seed, per example drawn (its
     runs are other runs): about 1, since one call with 16 runs does the work of 16 calls (it
     is not vectorised over runs: the cost is the m - 1 votes of each update, the same work
     whichever way the runs are ordered);
   - the floor: the random bits of every example the runs drew, ceil(n / 64) 64-bit words
     each, from the same kind of generator (PCG64's ``random_raw``), the least any exact
     simulator must draw;
   - the peer (not in smoke mode): a plain numpy simulation of as many runs, one run at a
     time, each update's votes summed by ``streams.halfcube_vote_sums`` as the simulator's
     previous engine summed them.
2. Plain Directed Drift (step D4, no batch) at n = 11, 400 runs to w = w*: all runs advanced
   together, one example per step (a trials x n state), against the per-trial loop.
3. The exact chain in log space at n = 801.

Every ratio is the median (min-max) of 3 repetitions, each side measured moments apart
(``timing.side_by_side``). Timings are not tests: the script asserts nothing about them.
"""

from __future__ import annotations

import numpy as np

from onlinelib.directed_drift import DirectedDrift, DirectedDriftChain
from onlinelib.streams import halfcube_vote_sums, ones_halfcube
from timing import SMOKE, format_ratio, side_by_side, timed

REPEAT = 3


def numpy_batch_runs(drift: DirectedDrift, trials: int, seed: int) -> np.ndarray:
    """The peer: each run on its own in numpy, the votes summed by ``halfcube_vote_sums``; returns mistakes."""
    rng = np.random.default_rng(seed)
    n, m = drift.n, drift.m
    mistakes = np.zeros(trials, dtype=np.int64)
    for trial in range(trials):
        w = (2 * rng.integers(0, 2, size=n) - 1).astype(np.int64)
        while (w < 0).any():
            u = ones_halfcube(n, 1, rng)[0].astype(np.int64)
            Y = int(w @ u)
            if Y >= 0:
                continue
            mistakes[trial] += 1
            colsum = u + halfcube_vote_sums(n, 1, m - 1, rng)[0]
            tally = (m - w * colsum) // 2
            noisy = tally + rng.random(n)
            if drift.batch == "single":
                w[np.argmax(noisy)] *= -1
            else:
                w[np.argsort(-noisy)[: (1 - Y) // 2]] *= -1
    return mistakes


def random_bits(words: int, seed: int) -> None:
    """The floor: ``words`` uniform 64-bit words from a PCG64 generator, in blocks of 2^16."""
    bits = np.random.default_rng(seed).bit_generator
    for start in range(0, words, 1 << 16):
        bits.random_raw(min(1 << 16, words - start))


def batch_modes() -> None:
    n, trials = (25, 4) if SMOKE else (201, 16)
    w_star = np.ones(n, dtype=np.int8)
    words = (n + 63) // 64  # 64-bit words per example drawn
    print(
        f"1. Directed Drift batch modes, n = {n}, {trials} runs to w = w* (ratios: median (min-max) of "
        f"{1 if SMOKE else REPEAT})"
    )
    for mode in ("single", "multi"):
        drift = DirectedDrift(n, batch=mode)
        drift.simulate(w_star, 1, np.random.default_rng(0))  # compile (numba, cached on disk)
        examples = int(drift.simulate(w_star, trials, np.random.default_rng(0)).examples.sum())
        per_trial = sum(int(drift.simulate(w_star, 1, np.random.default_rng(s)).examples.sum()) for s in range(trials))
        fns = {
            "simulate": lambda drift=drift: drift.simulate(w_star, trials, np.random.default_rng(0)),
            "per-trial": lambda drift=drift: [
                drift.simulate(w_star, 1, np.random.default_rng(s)) for s in range(trials)
            ],
            "floor": lambda examples=examples: random_bits(examples * words, 0),
        }
        if not SMOKE:
            fns["peer"] = lambda drift=drift: numpy_batch_runs(drift, trials, 0)
        times = side_by_side(fns, repeat=REPEAT)
        result = drift.simulate(w_star, trials, np.random.default_rng(0))
        mean, sem = result.mean_and_sem()
        print(
            f"   {mode:6s} m = {drift.m:5d}: simulate {trials / min(times['simulate']):7.2f} runs/s, "
            f"{min(times['simulate']) / examples * 1e9:.0f} ns per example drawn ({examples / trials:,.0f} examples and "
            f"{mean:.1f} ± {sem:.1f} mistakes per run)"
        )
        # the per-trial loop plays other runs (other seeds): compare the time per example drawn
        scaled = [t * examples / per_trial for t in times["per-trial"]]
        print(f"      per-trial loop / simulate   {format_ratio(scaled, times['simulate'])}   (per example drawn)")
        print(
            f"      floor / simulate            {format_ratio(times['floor'], times['simulate'])}   "
            f"(the random bits alone, {words} x 64 per example)"
        )
        if "peer" in times:
            print(
                f"      numpy peer / simulate       {format_ratio(times['peer'], times['simulate'])}   (as many runs, one at a time)"
            )


def plain_mode() -> None:
    n, trials, some = (7, 40, 10) if SMOKE else (11, 400, 40)
    drift = DirectedDrift(n)
    w_star = np.ones(n, dtype=np.int8)
    times = side_by_side(
        {
            "simulate": lambda: drift.simulate(w_star, trials, np.random.default_rng(0)),
            "per-trial": lambda: [drift.simulate(w_star, 1, np.random.default_rng(s)) for s in range(some)],
        },
        repeat=REPEAT,
    )
    per_trial = [t * trials / some for t in times["per-trial"]]  # scaled from `some` runs to `trials`
    print(f"\n2. Plain Directed Drift, n = {n}, {trials} runs to w = w*, all advanced together")
    print(
        f"   simulate {min(times['simulate']):6.2f} s; per-trial loop / simulate {format_ratio(per_trial, times['simulate'])}"
        f" (the loop timed on {some} runs, scaled)"
    )


def chain() -> None:
    n = 101 if SMOKE else 801
    t_chain = timed(lambda: DirectedDriftChain(n).log_expected_mistakes(), repeat=1)
    value = DirectedDriftChain(n).log_expected_mistakes()
    print(f"\n3. Exact chain in log space, n = {n}: {t_chain:.2f} s (ln E[M] = {value:.1f}, E[M] ~ e^{value / n:.3f}n)")


def main() -> None:
    batch_modes()
    plain_mode()
    chain()


if __name__ == "__main__":
    main()
