"""Shared figure styles and the figures that chapters and widgets both draw."""
from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np

__all__ = ["LEARNER_COLORS", "BOUND_LABELS", "BOUND_STYLES", "plot_mistake_comparison", "axes_row", "draw_on_demand"]

LEARNER_COLORS = {
    "Halving": "#1f77b4",
    "SOA": "#2ca02c",
    "Randomized Halving (keep)": "#ff7f0e",
    "Randomized Halving (redraw)": "#d62728",
}
BOUND_LABELS = {  # the bounds' keys as typeset in the legend
    "floor(lg |C|)": r"$\lfloor \lg |C| \rfloor$",
    "Ldim(C)": r"$\mathrm{Ldim}(C)$",
    "H_|C| - 1": r"$H_{|C|} - 1$",
}
BOUND_STYLES = {
    "floor(lg |C|)": dict(color="black", linestyle="--"),
    "Ldim(C)": dict(color="#2ca02c", linestyle=":"),
    "H_|C| - 1": dict(color="#ff7f0e", linestyle="-."),
}


def plot_mistake_comparison(result: dict[str, Any], ax: plt.Axes | None = None) -> plt.Axes:
    """Bar chart of each learner's mistakes against the chapter-1 bounds.

    ``result`` is the dictionary returned by ``onlinelib.widgets.compare_mistakes``.
    Randomised learners show their mean with a 95% confidence interval.
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(7.5, 3.8))
    names = list(result["mistakes"])
    values = np.array([result["mistakes"][n] for n in names], dtype=float)
    errors = np.array([1.96 * result["stderr"].get(n, 0.0) for n in names])
    colors = [LEARNER_COLORS.get(n, "grey") for n in names]
    positions = np.arange(len(names))
    ax.bar(positions, values, yerr=errors, color=colors, capsize=4, alpha=0.85)
    for pos, value in zip(positions, values):
        ax.text(pos, value, f"{value:.2f}".rstrip("0").rstrip("."), ha="center", va="bottom", fontsize=9)
    # Bounds that coincide (Ldim = floor(lg |C|) on thresholds) share one line and one legend entry;
    # drawn apart, one line would hide the other.
    coinciding: dict[float, list[str]] = {}
    for label, value in result["bounds"].items():
        coinciding.setdefault(value, []).append(label)
    for value, labels in coinciding.items():
        typeset = " = ".join(BOUND_LABELS.get(label, label) for label in labels)
        ax.axhline(value, label=f"{typeset} = {value:.3g}", **BOUND_STYLES.get(labels[0], {}))
    ax.set_xticks(positions, [n.replace("Randomized Halving ", "Randomized Halving\n") for n in names], fontsize=9)
    ax.set_ylabel("mistakes (mean for randomised learners)")
    ax.set_title(f"{result['class']}, |C| = {result['size']}, {result['adversary']} adversary, {result['rounds']}")
    ax.legend(loc="upper right", fontsize=8, framealpha=0.9)
    top = max(values.max() + errors.max(), max(result["bounds"].values()))
    ax.set_ylim(0, 1.25 * top + 0.5)
    return ax


def axes_row(axes: Any, count: int, figsize: tuple[float, float]) -> np.ndarray:
    """``count`` axes side by side: the given ones (checked) or a new figure's (chapters 6 and 7)."""
    if axes is None:
        _, axes = plt.subplots(1, count, figsize=figsize)
    axes = np.atleast_1d(np.asarray(axes, dtype=object)).ravel()
    if axes.size != count:
        raise ValueError(f"axes must hold {count} axes, got {axes.size}")
    return axes


def draw_on_demand(draw: Any, **controls: Any) -> Any:
    """``ipywidgets.interactive(draw, **controls)`` that draws only when its *Draw* button is pressed.

    Every chapter's explorer is built this way. Output printed while a cell
    executes can stall nbclient for its whole timeout (jupyter/nbclient#312), so
    an explorer must not draw while the book is being built.
    """
    import ipywidgets as widgets

    return widgets.interactive(draw, {"manual": True, "manual_name": "Draw"}, **controls)


def show_or_report(compute: Any, plot: Any) -> None:
    """Draw one explorer setting: ``plot(compute())``, or print why the setting is invalid.

    An explorer's controls can combine into arguments that the computation
    rejects; its ``TypeError`` or ``ValueError`` message is printed in place of
    the figure, so the panel stays usable.
    """
    try:
        result = compute()
    except (TypeError, ValueError) as error:
        print(error)
        return
    plot(result)
    plt.tight_layout()
    plt.show()
