"""Speed of the kernel Perceptron (chapter 6), against peers measured in the same run.

Run:  .venv/bin/python benchmarks/kernel_perceptron_speed.py

The target from the Boolean-kernels issue: 2,000 examples with n = 100 in under
2 s. Peers: a plain Python kernel Perceptron (a loop over the mistakes with
exact integer kernel values, what a first implementation looks like), and, at
n = 10 where the 3^10 = 59,049 features can be listed, the primal Perceptron on
the explicit feature map. Also a long stream with few mistakes, where the score cache
of ``run`` pays off, and the Theorem 4 stream at n = 80 and 96. Prints
seconds and ratios; asserts nothing.
"""

from __future__ import annotations

import numpy as np

import onlinelib as ol
from onlinelib.hardness import theorem4_max_size
from timing import timed


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


def main() -> None:
    rng = np.random.default_rng(0)
    n, T = 100, 2000
    X = rng.integers(0, 2, (T, n), dtype=np.uint8)
    y = ol.monotone_dnf_labels(X, [[0, 1], [2, 3, 4], [5, 6]])
    kernel = ol.all_conjunctions()
    print(f"Kernel Perceptron, all conjunctions (3^{n} features), T = {T} examples, n = {n}")
    t_run = timed(lambda: ol.run(ol.KernelPerceptron(n, kernel), X, y))
    trace = ol.run(ol.KernelPerceptron(n, kernel), X, y)
    print(
        f"  onlinelib.run (score cache)        {t_run:7.3f} s   target < 2 s: {'PASS' if t_run < 2 else 'MISS'}"
        f"   mistakes {trace.n_mistakes}"
    )
    t_loop = timed(lambda: ol.run(ol.KernelPerceptron(n, kernel), X, y, method="loop"))
    print(f"  onlinelib.run(method='loop')       {t_loop:7.3f} s   ratio {t_loop / t_run:6.1f}x")
    t_python = timed(lambda: python_kernel_perceptron(X, y, monotone=False), repeat=1)
    same = python_kernel_perceptron(X, y, monotone=False) == trace.n_mistakes
    print(
        f"  plain Python kernel Perceptron     {t_python:7.3f} s   ratio {t_python / t_run:6.1f}x"
        f"   mistakes {'EQUAL' if same else 'DIFFERENT'}"
    )

    n_long, T_long = 20, 20_000
    Xl = rng.integers(0, 2, (T_long, n_long), dtype=np.uint8)
    yl = ol.monotone_dnf_labels(Xl, [[0, 1], [2, 3]])
    k2 = ol.bounded_conjunctions(2)
    print(f"\nA long stream with few mistakes: T = {T_long:,}, n = {n_long}, conjunctions of <= 2 literals")
    t_long = timed(lambda: ol.run(ol.KernelPerceptron(n_long, k2), Xl, yl))
    t_long_loop = timed(lambda: ol.run(ol.KernelPerceptron(n_long, k2), Xl, yl, method="loop"), repeat=1)
    print(
        f"  onlinelib.run (score cache)        {t_long:7.3f} s   mistakes {ol.run(ol.KernelPerceptron(n_long, k2), Xl, yl).n_mistakes}"
    )
    print(f"  onlinelib.run(method='loop')       {t_long_loop:7.3f} s   ratio {t_long_loop / t_long:6.1f}x")

    n_small, T_small = 10, 2000
    Xs = rng.integers(0, 2, (T_small, n_small), dtype=np.uint8)
    ys = ol.monotone_dnf_labels(Xs, [[0, 1], [2, 3, 4]])
    print(f"\nn = {n_small}: dual against primal on the explicit feature map ({kernel.dimension(n_small):,} features)")
    t_dual = timed(lambda: ol.run(ol.KernelPerceptron(n_small, kernel, "margin"), Xs, ys))
    phi = kernel.feature_map(Xs).astype(np.float64)
    t_primal = timed(lambda: ol.run(ol.Perceptron(phi.shape[1]), phi, ys))
    t_map = timed(lambda: kernel.feature_map(Xs), repeat=1)
    print(f"  kernel Perceptron                  {t_dual:7.3f} s")
    print(
        f"  primal Perceptron on phi(X)        {t_primal:7.3f} s   ratio {t_primal / t_dual:6.1f}x"
        f"   (+ {t_map:.3f} s to build phi)"
    )

    print("\nTheorem 4 stream (monotone monomials, a = n/4, b = n/8, t = 2^(n/8))")
    for n4 in (80, 96):
        a, b = n4 // 4, n4 // 8
        family = ol.constant_weight_family(n4, a, b, theorem4_max_size(a, b), np.random.default_rng(1))
        X4, y4 = ol.theorem4_stream(family)
        t4 = timed(
            lambda n4=n4, X4=X4, y4=y4: ol.run(ol.KernelPerceptron(n4, ol.monotone_monomials()), X4, y4), repeat=1
        )
        t4_loop = timed(
            lambda n4=n4, X4=X4, y4=y4: ol.run(ol.KernelPerceptron(n4, ol.monotone_monomials()), X4, y4, method="loop"),
            repeat=1,
        )
        mistakes = ol.run(ol.KernelPerceptron(n4, ol.monotone_monomials()), X4, y4).n_mistakes
        print(f"  n = {n4}: {mistakes} mistakes, run {t4:.3f} s, loop {t4_loop:.3f} s (ratio {t4_loop / t4:.1f}x)")


if __name__ == "__main__":
    main()
