"""Speed of the kernel Perceptron (chapter 6, Theorems 3 and 4): the default engine against the loop.

Run:  python benchmarks/kernel_perceptron_speed.py         (about two minutes)
      python benchmarks/kernel_perceptron_speed.py --smoke (smallest sizes, one repetition, no peers or verdicts)

1. The crossover table. ``onlinelib.run(KernelPerceptron(...), X, y)`` (the default,
   ``scan``'s compiled pass) against its floor, ``method="loop"`` (``predict`` then
   ``update``, one round at a time), on streams from few mistakes per round to a mistake
   on every round: random monotone-DNF streams with label noise, the Theorem 4 streams of
   the chapter (every round a mistake), a long stream with few mistakes, streams of one
   and two rounds, a tie-heavy stream whose scores are often exactly 0 at kernel values
   near 2^80, and n = 1100, where kernel values overflow doubles. The default must never be
   slower: the table prints loop time / default time as the median (min-max) of 3
   repetitions, each side measured moments apart (``timing.side_by_side``), beside the
   loop's own time, the mistakes per round and the final ``|M|``. Every row first checks
   that both traces are equal.
2. The target of the Boolean-kernels issue: 2,000 examples with n = 100 in under 2 s
   (PASS/MISS), with a plain Python kernel Perceptron as peer (a loop over the mistakes in
   exact integers, what a first implementation looks like).
3. At n = 10, where the 3^10 = 59,049 features can be listed: the primal Perceptron on the
   explicit feature map as peer.

Timings are not tests: the script asserts equal traces, never times.
"""

from __future__ import annotations

import numpy as np

import onlinelib as ol
from onlinelib.hardness import theorem4_max_size
from timing import SMOKE, format_ratio, ratio_summary, side_by_side, timed

REPEAT = 3


def python_kernel_perceptron(X: np.ndarray, y: np.ndarray, monotone: bool) -> int:
    """The kernel Perceptron with a Python loop over the stored mistakes (the plain peer)."""
    rows = [tuple(int(v) for v in x) for x in X]
    support: list[tuple[tuple[int, ...], int]] = []
    mistakes = 0
    for x, label in zip(rows, y.tolist(), strict=True):
        score = 0
        for z, sign in support:
            same = sum(1 for a, b in zip(x, z, strict=True) if (a == b == 1 if monotone else a == b))
            score += sign * 2**same
        prediction = 1 if score >= 0 else -1
        if prediction != label:
            mistakes += 1
            support.append((x, label))
    return mistakes


def dnf_stream(n: int, T: int, noise: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Uniform instances labelled by x1x2 v x3x4x5 v x6x7, each label flipped with probability ``noise``."""
    X = rng.integers(0, 2, (T, n), dtype=np.uint8)
    y = ol.monotone_dnf_labels(X, [[0, 1], [2, 3, 4], [5, 6]])
    return X, np.where(rng.random(T) < noise, -y, y).astype(np.int8)


def theorem4(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The chapter's Theorem 4 stream with a = n/4, b = n/8 and the full family t = 2^(n/8)."""
    a, b = n // 4, n // 8
    family = ol.constant_weight_family(n, a, b, theorem4_max_size(a, b), np.random.default_rng(1))
    return ol.theorem4_stream(family)


def crossover_cases() -> list[tuple[str, int, ol.BooleanKernel, np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(0)
    cases = []
    T = 200 if SMOKE else 2000
    for n in (20,) if SMOKE else (20, 100):
        for noise in (0.0, 0.1, 0.5):
            X, y = dnf_stream(n, T, noise, rng)
            for name, kernel in (("all", ol.all_conjunctions()), ("<=2 lit", ol.bounded_conjunctions(2))):
                cases.append((f"DNF, noise {noise}, {name}", n, kernel, X, y))
    for n in (48,) if SMOKE else (64, 80, 96):
        X, y = theorem4(n)
        cases.append(("Theorem 4 stream", n, ol.monotone_monomials(), X, y))
    T_long = 2000 if SMOKE else 20_000
    X, y = dnf_stream(20, T_long, 0.0, rng)
    cases.append(("long, few mistakes, <=2 lit", 20, ol.bounded_conjunctions(2), X, y))
    for T_tiny in (1, 2):  # all negative: the empty M predicts +1, so round 1 is a mistake
        X = rng.integers(0, 2, (T_tiny, 8), dtype=np.uint8)
        cases.append((f"{T_tiny} round(s)", 8, ol.all_conjunctions(), X, -np.ones(T_tiny, np.int8)))
    n_ties = 80
    patterns = rng.integers(0, 2, (2, n_ties), dtype=np.uint8)
    T_ties = 100 if SMOKE else 400
    X = patterns[rng.integers(0, 2, T_ties)]
    y = np.where(rng.random(T_ties) < 0.5, 1, -1).astype(np.int8)
    cases.append(("ties: 2 patterns, K ~ 2^80", n_ties, ol.all_conjunctions(), X, y))
    if not SMOKE:
        X, y = dnf_stream(1100, 300, 0.5, rng)
        cases.append(("K past the doubles", 1100, ol.all_conjunctions(), X, y))
    return cases


def crossover() -> None:
    print("1. Default engine against its floor, method='loop' (loop time / default time, median (min-max) of 3)")
    print(f"   {'stream':30s} {'n':>5s} {'T':>6s} {'mistakes/T':>10s} {'|M|':>5s} {'loop s':>8s}   loop/default")
    worst = None
    for name, n, kernel, X, y in crossover_cases():
        learner = ol.KernelPerceptron(n, kernel)
        expected = ol.run(learner, X, y, method="loop")
        if ol.run(ol.KernelPerceptron(n, kernel), X, y) != expected:
            raise AssertionError(f"{name}: the default engine's trace differs from the loop's")
        inner = 100 if len(y) <= 10 else 1  # steady the microsecond cases
        times = side_by_side(
            {
                "loop": lambda n=n, kernel=kernel, X=X, y=y: ol.run(
                    ol.KernelPerceptron(n, kernel), X, y, method="loop"
                ),
                "default": lambda n=n, kernel=kernel, X=X, y=y: ol.run(ol.KernelPerceptron(n, kernel), X, y),
            },
            repeat=REPEAT,
            inner=inner,
        )
        low = ratio_summary(times["loop"], times["default"])[1]
        worst = low if worst is None else min(worst, low)
        print(
            f"   {name:30s} {n:5d} {len(y):6d} {expected.n_mistakes / len(y):10.3f} {learner.n_updates:5d} "
            f"{min(times['loop']):8.4f}   {format_ratio(times['loop'], times['default'])}"
        )
    print(f"   smallest ratio over all rows and repetitions: {worst:.3g}")


def target() -> None:
    rng = np.random.default_rng(0)
    n, T = 100, 2000
    X, y = dnf_stream(n, T, 0.0, rng)
    kernel = ol.all_conjunctions()
    print(f"\n2. All conjunctions (3^{n} features), T = {T} examples, n = {n}")
    t_run = timed(lambda: ol.run(ol.KernelPerceptron(n, kernel), X, y))
    trace = ol.run(ol.KernelPerceptron(n, kernel), X, y)
    t_python = timed(lambda: python_kernel_perceptron(X, y, monotone=False), repeat=1)
    same = python_kernel_perceptron(X, y, monotone=False) == trace.n_mistakes
    print(
        f"   onlinelib.run                    {t_run:7.3f} s   target < 2 s: {'PASS' if t_run < 2 else 'MISS'}"
        f"   mistakes {trace.n_mistakes}"
    )
    print(
        f"   plain Python kernel Perceptron   {t_python:7.3f} s   ratio {t_python / t_run:6.1f}x"
        f"   mistakes {'EQUAL' if same else 'DIFFERENT'}"
    )


def primal() -> None:
    rng = np.random.default_rng(1)
    n, T = 10, 2000
    X, y = dnf_stream(n, T, 0.0, rng)
    kernel = ol.all_conjunctions()
    print(f"\n3. n = {n}: dual against primal on the explicit feature map ({kernel.dimension(n):,} features)")
    phi = kernel.feature_map(X).astype(np.float64)
    times = side_by_side(
        {
            "dual": lambda: ol.run(ol.KernelPerceptron(n, kernel, "margin"), X, y),
            "primal": lambda: ol.run(ol.Perceptron(phi.shape[1]), phi, y),
        },
        repeat=REPEAT,
    )
    t_map = timed(lambda: kernel.feature_map(X), repeat=1)
    print(
        f"   kernel Perceptron {min(times['dual']):.4f} s; primal Perceptron on phi(X) {min(times['primal']):.4f} s, "
        f"primal/dual {format_ratio(times['primal'], times['dual'])} (+ {t_map:.3f} s to build phi)"
    )


def main() -> None:
    ol.run(ol.KernelPerceptron(4, ol.all_conjunctions()), np.eye(4, dtype=np.uint8), np.ones(4, np.int8))  # compile
    crossover()
    if not SMOKE:  # the peers and the verdict
        target()
        primal()


if __name__ == "__main__":
    main()
