"""The interactive explorers: one ipywidgets panel per chapter, drawn on demand.

Each panel only wires its controls (sliders, menus, a *Draw* button) to the chapter's
computation and figure in ``onlinelib.chapters``: pressing *Draw* runs the chapter's
``compare_*`` (or ``explore_*``) function at the chosen setting and draws its ``plot_*``
figure. The chapter shows the same figure at the default setting statically, for the rendered
book, where no kernel runs. The panels need a live kernel (Jupyter, JupyterLab or Binder) and
ipywidgets (``pip install "./[widgets]"``), which is imported here only, when a panel is built.

* chapter 1: ``mistake_explorer`` (``onlinelib.chapters.mistake_bounds``)
* chapter 2: ``winnow1_explorer`` (``onlinelib.chapters.winnow1``)
* chapter 3: ``perceptron_explorer`` (``onlinelib.chapters.perceptron``)
* chapter 4: ``winnow_explorer`` (``onlinelib.chapters.winnow``)
* chapter 5: ``experts_explorer`` (``onlinelib.chapters.experts``)
* chapter 6: ``kernels_explorer`` (``onlinelib.chapters.kernels``)
* chapter 7: ``drift_explorer`` (``onlinelib.chapters.directed_drift``)
* chapter 8: ``learning_curve_explorer`` (``onlinelib.chapters.learning_curves``)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .validation import check_int

__all__ = [
    "draw_on_demand",
    "show_or_report",
    "mistake_explorer",
    "winnow1_explorer",
    "perceptron_explorer",
    "winnow_explorer",
    "experts_explorer",
    "kernels_explorer",
    "drift_explorer",
    "learning_curve_explorer",
]


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
    import matplotlib.pyplot as plt

    plot(result)
    plt.tight_layout()
    plt.show()


def mistake_explorer(seed: int = 0):
    """An ipywidgets panel: pick a class, its size and an adversary; see mistakes against bounds.

    Needs a live kernel (Jupyter, JupyterLab or Binder). The chapter shows the
    figure at the default setting statically above it.
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    from .chapters import mistake_bounds as chapter

    class_box = widgets.Dropdown(options=list(chapter.CLASS_MAKERS), value="thresholds", description="class")
    size_box = widgets.IntSlider(value=31, min=1, max=127, description="size")
    adversary_box = widgets.Dropdown(options=list(chapter.ADVERSARIES), value="one per round", description="adversary")
    seed_box = widgets.IntSlider(value=seed, min=0, max=99, description="seed")

    def limit_size(change: dict) -> None:
        _, low, high, unit = chapter.CLASS_MAKERS[change["new"]]
        size_box.min, size_box.max = low, high
        size_box.value = min(max(size_box.value, low), high)
        size_box.description = unit

    class_box.observe(limit_size, names="value")

    def draw(class_name: str, size: int, adversary: str, seed: int) -> None:
        result = chapter.compare_mistakes(class_name, size, adversary, np.random.default_rng(seed), n_trials=1000)
        chapter.plot_mistake_comparison(result)
        if result["note"]:
            print(result["note"])
        plt.show()

    return draw_on_demand(
        draw,
        class_name=class_box,
        size=size_box,
        adversary=adversary_box,
        seed=seed_box,
    )


def winnow1_explorer(seed: int = 0):
    """An ipywidgets panel: choose n, k, theta / n and a stream; compare Winnow1 with Elimination.

    Needs a live kernel (Jupyter, JupyterLab or Binder). The chapter shows the
    figure at the default setting statically above it.
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    from .chapters import winnow1 as chapter

    lg_n_box = widgets.IntSlider(value=10, min=2, max=12, description="lg n")
    k_box = widgets.IntSlider(value=4, min=1, max=16, description="k")
    ratio_box = widgets.SelectionSlider(
        options=[("1/16", 1 / 16), ("1/8", 1 / 8), ("1/4", 1 / 4), ("1/2", 1 / 2), ("1", 1.0), ("2", 2.0), ("4", 4.0)],
        value=1 / 2,
        description="theta / n",
    )
    stream_box = widgets.Dropdown(options=list(chapter.STREAMS), value="sparse random", description="stream")
    seed_box = widgets.IntSlider(value=seed, min=0, max=99, description="seed")

    def draw(lg_n: int, k: int, ratio: float, stream: str, seed: int) -> None:
        n = 2**lg_n
        k = min(k, n)
        result = chapter.compare_winnow1(n, k, ratio * n, stream, np.random.default_rng(seed))
        chapter.plot_winnow1_comparison(result)
        plt.tight_layout()
        if result["note"]:
            print(result["note"])
        plt.show()

    return draw_on_demand(
        draw,
        lg_n=lg_n_box,
        k=k_box,
        ratio=ratio_box,
        stream=stream_box,
        seed=seed_box,
    )


def perceptron_explorer(seed: int = 0):
    """An ipywidgets panel: pick the margin, the dimension and the stream; see the proof's quantities.

    Press "Draw" to run ``compare_perceptron`` at the chosen setting and draw
    ``plot_perceptron_comparison`` (``onlinelib.chapters.perceptron``). Needs a live kernel (Jupyter, JupyterLab or
    Binder). The chapter shows the figure at the default setting statically
    above it. A setting that cannot be sampled (see ``perceptron_stream``)
    prints the reason instead of a figure.
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    from .chapters import perceptron as chapter

    kind_box = widgets.Dropdown(options=list(chapter.STREAM_KINDS), value="random separable", description="stream")
    margin_box = widgets.FloatLogSlider(value=0.1, base=10, min=-1.3, max=-0.1, step=0.05, description="margin γ")
    dim_box = widgets.IntSlider(value=10, min=1, max=200, description="dimension")
    seed_box = widgets.IntSlider(value=seed, min=0, max=99, description="seed")

    def draw(kind: str, margin: float, n_features: int, seed: int) -> None:
        try:
            result = chapter.compare_perceptron(kind, margin, n_features, np.random.default_rng(seed))
        except ValueError as error:  # e.g. a margin too large for the dimension
            print(error)
            return
        chapter.plot_perceptron_comparison(result)
        plt.tight_layout()
        print(
            f"R = {result['radius']:.4f}, gamma = {result['margin']:.4f}: "
            f"{result['mistakes']} mistakes, {result['updates']} updates, "
            f"R^2/gamma^2 = {result['bound']:.2f}"
        )
        if result["note"]:
            print(result["note"])
        plt.show()

    return draw_on_demand(
        draw,
        kind=kind_box,
        margin=margin_box,
        n_features=dim_box,
        seed=seed_box,
    )


def winnow_explorer(seed: int = 0) -> Any:
    """An ipywidgets panel: choose alpha, theta/N, N and k; see Winnow's mistakes against the bounds.

    Needs a live kernel (Jupyter, JupyterLab or Binder); chapter 4 shows the
    figure at the default setting statically above it. theta is set as a
    multiple of N (at least 1).
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    from .chapters import winnow as chapter

    alpha_box = widgets.FloatSlider(value=1.5, min=1.05, max=4.0, step=0.05, description="alpha")
    ratio_box = widgets.FloatLogSlider(value=1.0, base=2, min=-4, max=3, step=0.5, description="theta / N")
    n_box = widgets.IntSlider(value=64, min=2, max=512, description="N")
    k_box = widgets.IntSlider(value=1, min=1, max=8, description="k")
    seed_box = widgets.IntSlider(value=seed, min=0, max=99, description="seed")

    def draw(alpha: float, theta_over_n: float, n_features: int, n_relevant: int, seed: int) -> None:
        theta = max(1.0, theta_over_n * n_features)
        k = min(n_relevant, n_features)
        result = chapter.compare_winnow(
            alpha, theta, n_features, k, np.random.default_rng(seed), n_streams=10, length=600
        )
        chapter.plot_winnow_comparison(result)
        plt.show()

    return draw_on_demand(
        draw,
        alpha=alpha_box,
        theta_over_n=ratio_box,
        n_features=n_box,
        n_relevant=k_box,
        seed=seed_box,
    )


def experts_explorer(seed: int = 0):
    """An ipywidgets panel: pick N, eta, T and the stream; see WMA, RWMA and the bounds.

    Press "Draw" to run ``compare_experts`` and draw ``plot_experts_comparison``
    (``onlinelib.chapters.experts``).
    Needs a live kernel; the chapter shows the default setting statically.
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    from .chapters import experts as chapter

    kind_box = widgets.Dropdown(options=list(chapter.STREAM_KINDS), value="adaptive", description="stream")
    n_box = widgets.IntSlider(value=10, min=2, max=200, description="experts N")
    eta_box = widgets.FloatSlider(value=0.25, min=0.01, max=0.95, step=0.01, description="eta")
    T_box = widgets.IntSlider(value=2000, min=10, max=20000, step=10, description="rounds T")
    seed_box = widgets.IntSlider(value=seed, min=0, max=99, description="seed")

    def draw(kind: str, n_experts: int, eta: float, horizon: int, seed: int) -> None:
        try:
            result = chapter.compare_experts(kind, n_experts, eta, horizon, np.random.default_rng(seed))
        except ValueError as error:
            print(error)
            return
        chapter.plot_experts_comparison(result)
        plt.tight_layout()
        print(f"M = {result['M']}, E[M] (RWMA) = {result['expected']:.2f}, m = {result['m']}")
        plt.show()

    return draw_on_demand(
        draw,
        kind=kind_box,
        n_experts=n_box,
        eta=eta_box,
        horizon=T_box,
        seed=seed_box,
    )


def kernels_explorer(seed: int = 0):
    """An ipywidgets panel for Theorem 4 (chapter 6): sliders n, a, b, the family size and the seed.

    Press "Draw" to run ``theorem4_experiment`` with ``explorer_size`` (factor * t_max,
    capped at MAX_FAMILY_SIZE) and draw ``plot_theorem4`` (``onlinelib.chapters.kernels``). Needs a live
    kernel; the chapter shows the default setting statically.
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt

    from .chapters import kernels as chapter
    from .hardness import CONVENTIONS

    seed = check_int(seed, "seed", 0)
    n_box = widgets.IntSlider(value=64, min=4, max=96, description="n")
    a_box = widgets.IntSlider(value=16, min=1, max=95, description="a")
    b_box = widgets.IntSlider(value=8, min=0, max=94, description="b")
    factor_box = widgets.FloatSlider(value=1.0, min=0.25, max=8.0, step=0.25, description="size / t_max")
    convention_box = widgets.Dropdown(options=list(CONVENTIONS), value="nonnegative", description="rule")
    seed_box = widgets.IntSlider(value=seed, min=0, max=99, description="seed")

    def draw(n: int, a: int, b: int, factor: float, convention: str, seed: int) -> None:
        try:
            size = chapter.explorer_size(n, a, b, factor, convention)
            result = chapter.theorem4_experiment(n, a, b, np.random.default_rng(seed), size, convention)
        except ValueError as error:
            print(error)
            return
        chapter.plot_theorem4(result)
        plt.tight_layout()
        predicted = "condition fails" if result["predicted"] is None else result["predicted"]
        print(
            f"t_max = {result['t_max']}, family size {result['size']}, "
            f"mistakes {result['n_mistakes']} (predicted: {predicted})"
        )
        plt.show()

    return draw_on_demand(
        draw,
        n=n_box,
        a=a_box,
        b=b_box,
        factor=factor_box,
        convention=convention_box,
        seed=seed_box,
    )


def drift_explorer(seed: int = 0):
    """An ipywidgets panel (chapter 7): n, delta, mode, m (0 = the source's), trials and the seed.

    Press "Draw" to run ``explore_drift`` and draw ``plot_explore``
    (``onlinelib.chapters.directed_drift``). Needs a
    live kernel; the chapter shows the default setting statically.
    """
    import ipywidgets as widgets

    from .chapters import directed_drift as chapter

    seed = check_int(seed, "seed", 0)
    n_box = widgets.IntSlider(value=15, min=3, max=chapter.MAX_EXPLORER_N, description="n")
    delta_box = widgets.FloatLogSlider(value=0.05, base=10, min=-4, max=-0.3, step=0.1, description="delta")
    mode_box = widgets.Dropdown(options=list(chapter.MODES), value="D (one bit)", description="mode")
    m_box = widgets.IntText(value=0, description="m (0: source)")
    trials_box = widgets.IntSlider(value=400, min=10, max=2000, step=10, description="trials")
    seed_box = widgets.IntSlider(value=seed, min=0, max=99, description="seed")

    def draw(n: int, delta: float, mode: str, m: int, trials: int, seed: int) -> None:
        show_or_report(
            lambda: chapter.explore_drift(n, delta, mode, None if m == 0 else m, trials, np.random.default_rng(seed)),
            chapter.plot_explore,
        )

    return draw_on_demand(
        draw,
        n=n_box,
        delta=delta_box,
        mode=mode_box,
        m=m_box,
        trials=trials_box,
        seed=seed_box,
    )


def learning_curve_explorer(seed: int = 0):
    """An ipywidgets panel (chapter 8 (Learning curves)): eta0, z, N, p and the seed.

    Press "Draw" to run ``explore_learning_curve`` (64 runs up to alpha = 50)
    and draw ``plot_explore`` (``onlinelib.chapters.learning_curves``). Needs a live kernel; the chapter shows the
    default setting statically (``plot_static``).
    """
    import ipywidgets as widgets

    from .chapters import learning_curves as chapter

    seed = check_int(seed, "seed", 0)
    eta0_box = widgets.FloatSlider(value=2.0, min=0.25, max=6.0, step=0.25, description="eta0")
    z_box = widgets.FloatSlider(value=1.0, min=0.25, max=1.5, step=0.05, description="z")
    n_box = widgets.Dropdown(options=list(chapter.EXPLORER_N), value=50, description="N")
    p_box = widgets.FloatSlider(value=0.0, min=0.0, max=0.5, step=0.05, description="p")
    seed_box = widgets.IntSlider(value=seed, min=0, max=99, description="seed")

    def draw(eta0: float, z: float, N: int, p: float, seed: int) -> None:
        show_or_report(lambda: chapter.explore_learning_curve(eta0, z, N, round(p, 2), seed=seed), chapter.plot_explore)

    return draw_on_demand(draw, eta0=eta0_box, z=z_box, N=n_box, p=p_box, seed=seed_box)
