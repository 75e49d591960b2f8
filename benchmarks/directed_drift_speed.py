"""Speed of the Directed Drift simulator (chapter 7), against peers measured in the same run.

Run:  .venv/bin/python benchmarks/directed_drift_speed.py

The target from the binary-weights issue: trials per second for the batch modes
at n = 201, vectorised across trials (a trials x n state advanced together),
against a loop that runs one trial at a time through the same code. Also the
exact chain at n = 801. Prints seconds and ratios; asserts nothing.
"""

from __future__ import annotations

import numpy as np

from onlinelib.directed_drift import DirectedDrift, DirectedDriftChain
from timing import timed


def main() -> None:
    n, trials = 201, 16
    w_star = np.ones(n, dtype=np.int8)
    print(f"Directed Drift batch modes, n = {n}, {trials} trials")
    for mode in ("single", "multi"):
        drift = DirectedDrift(n, batch=mode)
        t_vec = timed(lambda drift=drift: drift.simulate(w_star, trials, np.random.default_rng(0)), repeat=1)
        t_loop = timed(
            lambda drift=drift: [drift.simulate(w_star, 1, np.random.default_rng(s)) for s in range(trials)], repeat=1
        )
        result = drift.simulate(w_star, trials, np.random.default_rng(0))
        mean, sem = result.mean_and_sem()
        print(
            f"  {mode:6s} m = {drift.m:5d}: vectorised {trials / t_vec:7.2f} trials/s, per-trial loop "
            f"{trials / t_loop:7.2f} trials/s, ratio {t_loop / t_vec:5.2f}x   (mistakes {mean:.1f} ± {sem:.1f})"
        )

    n_plain, trials_plain = 11, 400
    drift = DirectedDrift(n_plain)
    w_star = np.ones(n_plain, dtype=np.int8)
    t_vec = timed(lambda: drift.simulate(w_star, trials_plain, np.random.default_rng(0)), repeat=1)
    some = 40
    t_loop = timed(lambda: [drift.simulate(w_star, 1, np.random.default_rng(s)) for s in range(some)], repeat=1)
    t_loop *= trials_plain / some
    print(f"\nPlain Directed Drift, n = {n_plain}, {trials_plain} trials run to w = w*")
    print(
        f"  vectorised {t_vec:6.2f} s, per-trial loop {t_loop:6.2f} s (from {some} trials), ratio {t_loop / t_vec:5.1f}x"
    )

    t_chain = timed(lambda: DirectedDriftChain(801).log_expected_mistakes(), repeat=1)
    print(f"\nExact chain in log space, n = 801: {t_chain:.2f} s")


if __name__ == "__main__":
    main()
