"""The timing helper the benchmark scripts share."""

from __future__ import annotations

import time


def timed(fn, repeat: int = 3) -> float:
    """The best of ``repeat`` wall-clock times of ``fn()``, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best
