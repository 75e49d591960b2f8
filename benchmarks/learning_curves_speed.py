"""Speed of the normalized-perceptron simulator (chapter 8), against peers measured in the same run.

Run:  .venv/bin/python benchmarks/learning_curves_speed.py

The learning curves of chapter 8 are Monte Carlo averages over many runs of the
normalized perceptron rule (Eq. 2), so the figure of merit is throughput in
examples x runs per second. Three simulators of the same rule are timed on the
settings of the chapter's two figures:

* ``simulate_normalized_perceptron(..., method="reduced")``: all runs advanced
  together in the exact three-coordinate reduction (4 random numbers per
  example and run instead of N), the updates in a numba kernel that draws
  exactly what the earlier numpy loop drew (same seed, same bits; about 2x
  that loop's throughput);
* ``simulate_normalized_perceptron(..., method="full")``: all runs advanced
  together with every input drawn in N dimensions;
* a per-run loop, the plain peer: one ``NormalizedPerceptron`` (Figure 1) or
  ``NoiseRobustPerceptron`` with the fixed shift (Figure 2) per run, fed one
  example at a time through ``update``, with the inputs drawn with numpy a
  block of 64 examples at a time. It gets fewer runs, so that it takes a few
  seconds; its throughput does not depend on the number of runs.

Figure 1: N = 50, the optimal schedule ``power_schedule(2, 1, cap=2 sqrt(2 pi))``,
no noise, random initial students. Figure 2: N = 250, label noise p = 0.2,
inputs centred at U with |U| = 4 and U.W0 = -1.95, the noise-robust rule with the
fixed shift ``T = robust_shift(U, W0)``, started at W = W0 with
``robust_schedule(2, q0, cap=0.5)`` (MATH.md section 2.2: from a random start the
robust rule splits between the W0 and -W0 attractors).

The three simulators draw their random numbers differently, so they are
compared in law: the script asserts that the mean overlap R at the final time
of the full method and of the loop each agree with the reduced method's within
4 combined standard errors (so the speeds compared are those of equivalent
simulators), and prints that check. Prints seconds, throughputs and the ratios
reduced/full, reduced/loop and full/loop; it asserts nothing about time
(timings are not tests). Each time is the best of a few runs (one for the slowest).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from onlinelib.learning_curves import (
    NoiseRobustPerceptron,
    NormalizedPerceptron,
    power_schedule,
    robust_schedule,
    robust_shift,
    simulate_normalized_perceptron,
)
from timing import timed

BLOCK = 64


@dataclass(frozen=True)
class Setting:
    """One figure's simulation parameters."""

    name: str
    N: int
    n_examples: int
    schedule: Callable[[float], float]
    p: float = 0.0
    U: np.ndarray | None = None
    T: np.ndarray | None = None
    start_at_teacher: bool = False

    @property
    def W0(self) -> np.ndarray:
        return np.eye(self.N)[0]


def figure1() -> Setting:
    return Setting("Figure 1", 50, 50 * 50, power_schedule(2.0, 1.0, cap=2.0 * math.sqrt(2.0 * math.pi)))


def figure2() -> Setting:
    N, q0 = 250, -1.95
    W0 = np.eye(N)[0]
    U = np.zeros(N)
    U[0], U[1] = q0, math.sqrt(16.0 - q0**2)
    return Setting(
        "Figure 2",
        N,
        N * 20,
        robust_schedule(2.0, q0, cap=0.5),
        p=0.2,
        U=U,
        T=robust_shift(U, W0),
        start_at_teacher=True,
    )


def vectorised(s: Setting, method: str, runs: int, seed: int) -> np.ndarray:
    """Final overlaps R of ``runs`` runs advanced together by ``simulate_normalized_perceptron``."""
    res = simulate_normalized_perceptron(
        s.N,
        s.n_examples,
        runs,
        np.random.default_rng(seed),
        s.schedule,
        p=s.p,
        U=s.U,
        W0=s.W0,
        W_init=s.W0 if s.start_at_teacher else None,
        T=s.T,
        record=[s.n_examples / s.N],
        method=method,
    )
    return res.R[:, -1]


def per_run_loop(s: Setting, runs: int, seed: int) -> np.ndarray:
    """Final overlaps R of ``runs`` runs, one single learner at a time, one example at a time (the plain peer)."""
    rng = np.random.default_rng(seed)
    W0 = s.W0
    out = np.empty(runs)
    for i in range(runs):
        W_init = W0 if s.start_at_teacher else rng.standard_normal(s.N)
        if s.T is None:
            learner: Any = NormalizedPerceptron(s.N, s.schedule, W_init=W_init)
        else:
            learner = NoiseRobustPerceptron(s.N, s.schedule, T=s.T, W_init=W_init)
        t = 0
        while t < s.n_examples:
            B = min(BLOCK, s.n_examples - t)
            S = rng.standard_normal((B, s.N))
            if s.U is not None:
                S += s.U
            labels = np.where(S @ W0 >= 0.0, 1, -1)
            if s.p > 0:
                labels = np.where(rng.random(B) < s.p, -labels, labels)
            for x, y in zip(S, labels.tolist(), strict=True):
                learner.update(x, y)
            t += B
        out[i] = learner.W @ W0
    return out


def keep(store: dict, key: str, fn: Callable[[], np.ndarray]) -> Callable[[], None]:
    """``fn`` for ``timed``, with its result kept in ``store[key]``."""

    def call() -> None:
        store[key] = fn()

    return call


def mean_sem(R: np.ndarray) -> tuple[float, float]:
    return float(R.mean()), float(R.std(ddof=1) / math.sqrt(len(R)))


def bench(s: Setting, runs: int, loop_runs: int, repeat_full: int) -> dict[str, float]:
    """Time the three simulators on ``s``, print their rows and the agreement check; return throughputs."""
    R: dict[str, np.ndarray] = {}
    cases = [
        ("reduced", runs, 3, lambda: vectorised(s, "reduced", runs, 1)),
        ("full", runs, repeat_full, lambda: vectorised(s, "full", runs, 2)),
        ("loop", loop_runs, 1, lambda: per_run_loop(s, loop_runs, 3)),
    ]
    label = {
        "reduced": 'method="reduced"',
        "full": 'method="full"',
        "loop": "per-run loop, " + ("NormalizedPerceptron" if s.T is None else "NoiseRobustPerceptron"),
    }
    alpha = s.n_examples / s.N
    print(
        f"\n{s.name}: N = {s.N}, {s.n_examples} examples per run (alpha = {alpha:g}), p = {s.p:g}"
        + ("" if s.U is None else f", |U| = {np.linalg.norm(s.U):g}, U.W0 = {s.U @ s.W0:g}, fixed shift T")
    )
    print(f"  {'simulator':38s} {'runs':>5s} {'seconds':>8s} {'examples x runs/s':>18s}   mean R at alpha = {alpha:g}")
    speed = {}
    for key, n_runs, repeat, fn in cases:
        seconds = timed(keep(R, key, fn), repeat=repeat)
        speed[key] = n_runs * s.n_examples / seconds
        mean, sem = mean_sem(R[key])
        print(f"  {label[key]:38s} {n_runs:5d} {seconds:8.3f} {speed[key]:18,.0f}   {mean:.5f} ± {sem:.5f}")
    print(
        f"  ratios: reduced/full {speed['reduced'] / speed['full']:6.1f}x, reduced/loop "
        f"{speed['reduced'] / speed['loop']:6.1f}x, full/loop {speed['full'] / speed['loop']:6.1f}x"
    )
    m_red, se_red = mean_sem(R["reduced"])
    for key in ("full", "loop"):
        m, se = mean_sem(R[key])
        z = abs(m - m_red) / math.hypot(se, se_red)
        print(
            f"  check: |mean R({key}) - mean R(reduced)| = {abs(m - m_red):.5f} = {z:.2f} combined SE (< 4): "
            f"{'OK' if z < 4 else 'FAIL'}"
        )
        assert z < 4, f"{s.name}: the {key} simulator disagrees with the reduced one ({z:.2f} standard errors)"
    return speed


def main() -> None:
    print("Normalized perceptron simulator (chapter 8): throughput in examples x runs per second")
    bench(figure1(), runs=256, loop_runs=64, repeat_full=3)
    bench(figure2(), runs=256, loop_runs=32, repeat_full=2)


if __name__ == "__main__":
    main()
