"""The book's one plot style: a colour per learner, a line style and a typeset label per bound.

Every chapter module (``onlinelib.chapters``) draws with these, so a learner or a bound looks
the same wherever it appears. The keys are the names the chapters' results use: the learners
and bounds of chapter 1 (``compare_mistakes``), Winnow1 and Elimination (chapter 2), the bounds
of Winnow(alpha, theta) (chapter 4) and of (Randomized) Weighted Majority (chapter 5).
``axes_row`` gives a figure's row of axes.
"""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np

__all__ = ["LEARNER_COLORS", "BOUND_LABELS", "BOUND_STYLES", "axes_row"]

LEARNER_COLORS = {
    # chapter 1
    "Halving": "#1f77b4",
    "SOA": "#2ca02c",
    "Randomized Halving (keep)": "#ff7f0e",
    "Randomized Halving (redraw)": "#d62728",
    # chapter 2
    "Winnow1": "#1f77b4",
    "Elimination": "#d62728",
}
BOUND_LABELS = {  # the bounds' keys as typeset in the legend
    # chapter 1
    "floor(lg |C|)": r"$\lfloor \lg |C| \rfloor$",
    "Ldim(C)": r"$\mathrm{Ldim}(C)$",
    "H_|C| - 1": r"$H_{|C|} - 1$",
    # chapter 4
    "Littlestone": "Littlestone's bound",
    "promotion part k(1 + log_a theta)": r"$k(1+\log_\alpha\theta)$ (bound on $m^+$)",
    "notes 2 + 3k(lg N + 1)": r"notes: $2+3k(\lg N+1)$",
}
BOUND_STYLES = {
    # chapter 1
    "floor(lg |C|)": dict(color="black", linestyle="--"),
    "Ldim(C)": dict(color="#2ca02c", linestyle=":"),
    "H_|C| - 1": dict(color="#ff7f0e", linestyle="-."),
    # chapter 4
    "Littlestone": dict(color="black", linestyle="--"),
    "promotion part k(1 + log_a theta)": dict(color="#1f77b4", linestyle=":"),
    "notes 2 + 3k(lg N + 1)": dict(color="#d62728", linestyle="-."),
    # chapter 5
    "WMA exact": dict(color="C0", linestyle="--"),
    "WMA standard": dict(color="C0", linestyle=":"),
    "RWMA exact": dict(color="C1", linestyle="--"),
    "RWMA standard": dict(color="C1", linestyle=":"),
}


def axes_row(axes: Any, count: int, figsize: tuple[float, float]) -> np.ndarray:
    """``count`` axes side by side: the given ones (checked) or a new figure's (chapters 6-8)."""
    if axes is None:
        _, axes = plt.subplots(1, count, figsize=figsize)
    axes = np.atleast_1d(np.asarray(axes, dtype=object)).ravel()
    if axes.size != count:
        raise ValueError(f"axes must hold {count} axes, got {axes.size}")
    return axes
