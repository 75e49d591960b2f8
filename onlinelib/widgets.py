"""Interactive explorers for the chapters (ipywidgets), and the computations behind them.

Each explorer has a pure ``compare_*`` function that does the work and returns
plain numbers, so the chapter can draw the same figure statically (for the
rendered book, where no kernel runs) and tests can check it.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .bounds import halving_bound, randomized_halving_bound
from .concepts import ConceptClass, all_concepts, monotone_disjunctions, singletons, thresholds
from .plotting import draw_on_demand
from .protocol import run
from .validation import check_rng
from .streams import adaptive_adversary, one_per_round_adversary, random_stream
from .version_space import (
    SOA,
    Halving,
    RandomizedHalving,
    littlestone_dimension,
    randomized_halving_expected_mistakes,
    simulate_randomized_halving,
)

__all__ = ["CLASS_MAKERS", "ADVERSARIES", "compare_mistakes", "mistake_explorer"]

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


def mistake_explorer(seed: int = 0):
    """An ipywidgets panel: pick a class, its size and an adversary; see mistakes against bounds.

    Needs a live kernel (Jupyter, JupyterLab or Binder). The chapter shows the
    figure at the default setting statically above it.
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    from .plotting import plot_mistake_comparison

    class_box = widgets.Dropdown(options=list(CLASS_MAKERS), value="thresholds", description="class")
    size_box = widgets.IntSlider(value=31, min=1, max=127, description="size")
    adversary_box = widgets.Dropdown(options=list(ADVERSARIES), value="one per round", description="adversary")
    seed_box = widgets.IntSlider(value=seed, min=0, max=99, description="seed")

    def limit_size(change: dict) -> None:
        _, low, high, unit = CLASS_MAKERS[change["new"]]
        size_box.min, size_box.max = low, high
        size_box.value = min(max(size_box.value, low), high)
        size_box.description = unit

    class_box.observe(limit_size, names="value")

    def draw(class_name: str, size: int, adversary: str, seed: int) -> None:
        result = compare_mistakes(class_name, size, adversary, np.random.default_rng(seed), n_trials=1000)
        plot_mistake_comparison(result)
        if result["note"]:
            print(result["note"])
        plt.show()

    return draw_on_demand(
        draw, class_name=class_box, size=size_box, adversary=adversary_box,
        seed=seed_box,
    )
