"""Chapter 1 ("Mistake bounds"): Halving, SOA and Randomized Halving against the bounds.

``compare_mistakes`` runs the four learners on one class and one adversary and returns plain
numbers; ``plot_mistake_comparison`` draws them as the chapter's figure, which the explorer
(``onlinelib.explorers.mistake_explorer``) redraws for other settings.
"""

from __future__ import annotations

from typing import Any, Callable

import matplotlib.pyplot as plt
import numpy as np

from ..adversaries import adaptive_adversary, one_per_round_adversary
from ..bounds import halving_bound, randomized_halving_bound
from ..concepts import ConceptClass, all_concepts, monotone_disjunctions, singletons, thresholds
from ..plotting import BOUND_LABELS, BOUND_STYLES, LEARNER_COLORS
from ..protocol import run
from ..streams import random_stream
from ..validation import check_rng
from ..version_space import (
    SOA,
    Halving,
    RandomizedHalving,
    littlestone_dimension,
    randomized_halving_expected_mistakes,
    simulate_randomized_halving,
)

__all__ = ["CLASS_MAKERS", "ADVERSARIES", "compare_mistakes", "plot_mistake_comparison"]

# name -> (constructor, smallest size, largest size, what the size means)
CLASS_MAKERS: dict[str, tuple[Callable[[int], ConceptClass], int, int, str]] = {
    "thresholds": (thresholds, 1, 127, "points"),
    "singletons + empty": (singletons, 1, 127, "points"),
    "all concepts": (all_concepts, 1, 7, "points"),
    "monotone disjunctions": (monotone_disjunctions, 1, 5, "variables"),
}
ADVERSARIES = ("random", "one per round", "adaptive")


def compare_mistakes(
    class_name: str,
    size: int,
    adversary: str,
    rng: np.random.Generator,
    n_trials: int = 2000,
    rounds: int = 200,
) -> dict[str, Any]:
    """Mistakes of Halving, SOA and both Randomized Halving variants on one class and adversary.

    Chapter 1's explorer. Oblivious adversaries ("random": ``rounds`` uniform
    instances; "one per round": ``one_per_round_adversary``) fix one stream; the
    randomised learners are simulated ``n_trials`` times on it (vectorised) and
    their exact expectation is reported too. The "adaptive" adversary plays each
    learner separately (``adaptive_adversary``), and the randomised learners are
    averaged over ``min(n_trials, 50)`` games.

    Returns
    -------
    dict with keys ``class``, ``size`` (``|C|``), ``adversary``, ``rounds`` (a
    description), ``mistakes`` and ``stderr`` (per learner), ``expected`` (exact
    expectations, oblivious adversaries only), ``bounds`` and ``note``.
    """
    if class_name not in CLASS_MAKERS:
        raise ValueError(f"class_name must be one of {list(CLASS_MAKERS)}, got {class_name!r}")
    if adversary not in ADVERSARIES:
        raise ValueError(f"adversary must be one of {ADVERSARIES}, got {adversary!r}")
    make, low, high, unit = CLASS_MAKERS[class_name]
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or not low <= size <= high:
        raise ValueError(f"size must be an integer number of {unit} in [{low}, {high}] for {class_name}, got {size!r}")
    rng = check_rng(rng)
    cls = make(int(size))
    target = int(rng.integers(cls.size))
    bounds = {
        "floor(lg |C|)": float(halving_bound(cls.size)),
        "Ldim(C)": float(littlestone_dimension(cls)),
        "H_|C| - 1": float(randomized_halving_bound(cls.size)),
    }
    mistakes: dict[str, float] = {}
    stderr: dict[str, float] = {}
    expected: dict[str, float] = {}
    note = ""
    variants = {"Randomized Halving (keep)": "on_elimination", "Randomized Halving (redraw)": "every_round"}

    if adversary == "adaptive":
        for name, learner in (("Halving", Halving(cls)), ("SOA", SOA(cls))):
            mistakes[name] = adaptive_adversary(learner, cls).trace.n_mistakes
        games = min(n_trials, 50)
        for name, redraw in variants.items():
            counts = np.array(
                [adaptive_adversary(RandomizedHalving(cls, rng, redraw), cls).trace.n_mistakes for _ in range(games)]
            )
            mistakes[name], stderr[name] = counts.mean(), counts.std(ddof=1) / np.sqrt(games)
        description = "stream chosen per learner"
        note = "The adaptive adversary sees each prediction, so every round is a mistake."
    else:
        if adversary == "random":
            X, y = random_stream(cls, target, rounds, rng)
        else:
            try:
                X, y = one_per_round_adversary(cls, target)
            except ValueError:
                X, y = random_stream(cls, target, rounds, rng)
                adversary = "random (no one-per-round sequence exists)"
                note = f"{cls.name} has no one-per-round sequence for this target; a random stream is used."
        mistakes["Halving"] = run(Halving(cls), X, y).n_mistakes
        mistakes["SOA"] = run(SOA(cls), X, y).n_mistakes
        exact = float(randomized_halving_expected_mistakes(cls, X, y))
        for name, redraw in variants.items():
            counts = simulate_randomized_halving(cls, X, y, n_trials, rng, redraw)
            mistakes[name], stderr[name] = counts.mean(), counts.std(ddof=1) / np.sqrt(n_trials)
            expected[name] = exact
        description = f"T = {len(y)} rounds"
    return {
        "class": class_name,
        "size": cls.size,
        "adversary": adversary,
        "rounds": description,
        "mistakes": mistakes,
        "stderr": stderr,
        "expected": expected,
        "bounds": bounds,
        "note": note,
    }


def plot_mistake_comparison(result: dict[str, Any], ax: plt.Axes | None = None) -> plt.Axes:
    """Bar chart of each learner's mistakes against the bounds (chapter 1's explorer figure).

    ``result`` is the dictionary returned by ``compare_mistakes``.
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
    for pos, value in zip(positions, values, strict=True):
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
