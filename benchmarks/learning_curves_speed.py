"""Speed of the normalized-perceptron simulator (chapter 8), against peers measured in the same run.

Run:  .venv/bin/python benchmarks/learning_curves_speed.py [--smoke]

The learning curves of chapter 8 are Monte Carlo averages over many runs of the
normalized perceptron rule (Eq. 2), so the figure of merit is throughput in
examples x runs per second. Three simulators of the same rule are timed on the
settings of the chapter's two figures:

* ``simulate_normalized_perceptron(..., method="reduced")``: all runs advanced
  together in the exact three-coordinate reduction (3 normal draws per
  example and run, and a chi-square one on a mistake, instead of N), the updates in a numba kernel that draws
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
(timings are not tests).

The floor, timed beside them: the random numbers every example and run needs, drawn
and nothing else (``draws_floor``: the reduced method's three standard normals per
example and run, and one uniform with label noise, in the same blocks from numpy's
Generator). No simulator of these runs can draw less; the reduced method's time over
the floor's says what its arithmetic and its kernel cost on top.

The cases run side by side in each of 3 repetitions (``timing.side_by_side``); times
are medians, ratios the median (min-max) of the per-repetition ratios, as throughputs
(per example and run, since the loop gets fewer runs). numba's kernel is loaded
before any timing.

``--smoke`` (``timing.SMOKE``): both figures at alpha = 2 with 8 runs, one repetition,
no per-run loop; the agreement check is printed, not asserted (8 runs).
"""

from __future__ import annotations

import dataclasses
import math
import statistics
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
from timing import SMOKE, format_ratio, side_by_side

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


def draws_floor(s: Setting, runs: int, seed: int) -> None:
    """The floor: the random numbers every example and run needs, drawn and nothing else.

    Three standard normals per example and run (the reduced method's x0, x1 and g), and one
    uniform with label noise, in blocks of ``BLOCK`` examples from numpy's Generator, as the
    reduced method draws them; no arithmetic, and no chi-square (drawn on mistakes only).
    """
    rng = np.random.default_rng(seed)
    t = 0
    while t < s.n_examples:
        B = min(BLOCK, s.n_examples - t)
        for _ in range(3):
            rng.standard_normal((B, runs))
        if s.p > 0:
            rng.random((B, runs))
        t += B


def keep(store: dict, key: str, fn: Callable[[], Any]) -> Callable[[], None]:
    """``fn`` for ``side_by_side``, with its result kept in ``store[key]``."""

    def call() -> None:
        store[key] = fn()

    return call


def mean_sem(R: np.ndarray) -> tuple[float, float]:
    return float(R.mean()), float(R.std(ddof=1) / math.sqrt(len(R)))


def bench(s: Setting, runs: int, loop_runs: int) -> None:
    """Time the simulators and the floor on ``s`` side by side; print their rows, the ratios and the agreement check."""
    R: dict[str, np.ndarray] = {}
    cases = {
        "reduced": (runs, lambda: vectorised(s, "reduced", runs, 1)),
        "full": (runs, lambda: vectorised(s, "full", runs, 2)),
        "floor": (runs, lambda: draws_floor(s, runs, 4)),
    }
    if not SMOKE:
        cases["loop"] = (loop_runs, lambda: per_run_loop(s, loop_runs, 3))
    label = {
        "reduced": 'method="reduced"',
        "full": 'method="full"',
        "floor": "floor: the draws alone",
        "loop": "per-run loop, " + ("NormalizedPerceptron" if s.T is None else "NoiseRobustPerceptron"),
    }
    alpha = s.n_examples / s.N
    print(
        f"\n{s.name}: N = {s.N}, {s.n_examples} examples per run (alpha = {alpha:g}), p = {s.p:g}"
        + ("" if s.U is None else f", |U| = {np.linalg.norm(s.U):g}, U.W0 = {s.U @ s.W0:g}, fixed shift T")
    )
    times = side_by_side({key: keep(R, key, fn) for key, (_, fn) in cases.items()})
    # seconds per example and run, repetition by repetition: throughputs compare whatever the runs
    per = {key: [t / (n_runs * s.n_examples) for t in times[key]] for key, (n_runs, _) in cases.items()}
    print(f"  {'simulator':38s} {'runs':>5s} {'seconds':>8s} {'examples x runs/s':>18s}   mean R at alpha = {alpha:g}")
    for key, (n_runs, _) in cases.items():
        seconds = statistics.median(times[key])
        mean = "" if R[key] is None else "{:.5f} ± {:.5f}".format(*mean_sem(R[key]))
        row = f"  {label[key]:38s} {n_runs:5d} {seconds:8.3f} {n_runs * s.n_examples / seconds:18,.0f}   {mean}"
        print(row.rstrip())
    noise = " and 1 uniform" if s.p > 0 else ""
    reps = len(times["reduced"])
    print(
        f"  (median seconds of {reps} repetition{'s' * (reps > 1)} side by side; the floor draws 3 normals{noise} "
        "per example and run, nothing else)"
    )
    print(f"  throughput ratios, median (min-max): reduced/full {format_ratio(per['full'], per['reduced'])}")
    if not SMOKE:
        print(
            f"    reduced/loop {format_ratio(per['loop'], per['reduced'])}, "
            f"full/loop {format_ratio(per['loop'], per['full'])}"
        )
    print(f"  time per example and run, reduced / floor: {format_ratio(per['reduced'], per['floor'])}")
    m_red, se_red = mean_sem(R["reduced"])
    for key in ("full", "loop"):
        if key not in R:
            continue
        m, se = mean_sem(R[key])
        z = abs(m - m_red) / math.hypot(se, se_red)
        print(
            f"  check: |mean R({key}) - mean R(reduced)| = {abs(m - m_red):.5f} = {z:.2f} combined SE (< 4): "
            f"{'OK' if z < 4 else 'FAIL'}" + (" (smoke sizes: not asserted)" if SMOKE else "")
        )
        if not SMOKE:
            assert z < 4, f"{s.name}: the {key} simulator disagrees with the reduced one ({z:.2f} standard errors)"


def main() -> None:
    print("Normalized perceptron simulator (chapter 8): throughput in examples x runs per second")
    vectorised(dataclasses.replace(figure1(), n_examples=10), "reduced", 2, 0)  # numba's kernel loaded, untimed
    if SMOKE:  # the smallest sizes: alpha = 2, 8 runs, no per-run loop
        for s in (figure1(), figure2()):
            bench(dataclasses.replace(s, n_examples=2 * s.N), runs=8, loop_runs=0)
        return
    bench(figure1(), runs=256, loop_runs=64)
    bench(figure2(), runs=256, loop_runs=32)


if __name__ == "__main__":
    main()
