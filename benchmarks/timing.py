"""The timing helpers the benchmark scripts share.

Every script accepts ``--smoke``: the smallest sizes, no peers, one repetition and no
verdicts, so CI can run each script once and a script that no longer runs cannot go
unnoticed (``tests/test_benchmarks.py``). ``SMOKE`` is true in that mode.

Timings are never tests. A script reports *ratios* against a floor or a peer measured in
the same process, repetition by repetition (``side_by_side``), as the median and the range
of the repetitions (``ratio_summary``), so that a loaded machine moves both sides together.
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Callable

SMOKE = "--smoke" in sys.argv[1:]


def timed(fn: Callable[[], object], repeat: int = 3) -> float:
    """The best of ``repeat`` wall-clock times of ``fn()``, in seconds (one call in smoke mode)."""
    best = float("inf")
    for _ in range(1 if SMOKE else repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def side_by_side(fns: dict[str, Callable[[], object]], repeat: int = 3, inner: int = 1) -> dict[str, list[float]]:
    """Wall-clock times of each function, the functions interleaved within each repetition.

    Repetition r calls every function of ``fns`` in turn, each ``inner`` times (keeping the
    best of those ``inner`` calls, to steady the millisecond cases), so ``times[a][r] /
    times[b][r]`` compares two functions measured moments apart. One repetition, one
    inner call in smoke mode.
    """
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(1 if SMOKE else repeat):
        for name, fn in fns.items():
            best = float("inf")
            for _ in range(1 if SMOKE else inner):
                start = time.perf_counter()
                fn()
                best = min(best, time.perf_counter() - start)
            times[name].append(best)
    return times


def ratio_summary(numerator: list[float], denominator: list[float]) -> tuple[float, float, float]:
    """(median, min, max) of the per-repetition ratios numerator[r] / denominator[r]."""
    ratios = [a / b for a, b in zip(numerator, denominator, strict=True)]
    return statistics.median(ratios), min(ratios), max(ratios)


def format_ratio(numerator: list[float], denominator: list[float]) -> str:
    """A ratio as 'median (min-max)' over the repetitions, e.g. '0.83 (0.79-0.88)'."""
    median, low, high = ratio_summary(numerator, denominator)
    return f"{median:.3g} ({low:.3g}-{high:.3g})"
