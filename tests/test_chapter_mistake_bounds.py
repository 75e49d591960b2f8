"""Tests for onlinelib.chapters.mistake_bounds (chapter 1: compare_mistakes and its figure) and its explorer."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402

from onlinelib import (  # noqa: E402
    SOA,
    Halving,
    harmonic_number,
    littlestone_dimension,
    one_per_round_adversary,
    run,
    thresholds,
)
from onlinelib.chapters.mistake_bounds import (  # noqa: E402
    ADVERSARIES,
    CLASS_MAKERS,
    compare_mistakes,
    plot_mistake_comparison,
)
from onlinelib.plotting import LEARNER_COLORS  # noqa: E402

LEARNERS = ["Halving", "SOA", "Randomized Halving (keep)", "Randomized Halving (redraw)"]
RANDOMISED = LEARNERS[2:]


def test_compare_one_per_round_thresholds():
    result = compare_mistakes("thresholds", 15, "one per round", np.random.default_rng(4), n_trials=4000)
    assert set(result) == {"class", "size", "adversary", "rounds", "mistakes", "stderr", "expected", "bounds", "note"}
    assert result["class"] == "thresholds" and result["size"] == 16
    assert result["adversary"] == "one per round" and result["rounds"] == "T = 15 rounds"
    assert result["note"] == ""
    assert list(result["mistakes"]) == LEARNERS
    assert set(result["stderr"]) == set(RANDOMISED) == set(result["expected"])
    h_minus_1 = float(harmonic_number(16) - 1)
    assert result["bounds"] == {"floor(lg |C|)": 4.0, "Ldim(C)": 4.0, "H_|C| - 1": h_minus_1}
    # exact expectation on a one-per-round stream is H_|C| - 1 (both are the same float computation
    # of the same Fraction, so compared with a 1e-12 relative tolerance)
    for name in RANDOMISED:
        assert result["expected"][name] == pytest.approx(h_minus_1, rel=1e-12)
        # Monte Carlo mean within 4 standard errors (fixed seed: deterministic)
        assert abs(result["mistakes"][name] - h_minus_1) <= 4 * result["stderr"][name]
        assert result["stderr"][name] > 0
    # the deterministic learners' counts are what run() gives on the one-per-round stream for some target
    cls = thresholds(15)
    streams = [one_per_round_adversary(cls, t) for t in range(cls.size)]
    assert result["mistakes"]["Halving"] in {run(Halving(cls), X, y).n_mistakes for X, y in streams}
    assert result["mistakes"]["SOA"] in {run(SOA(cls), X, y).n_mistakes for X, y in streams}


def test_compare_random_adversary():
    result = compare_mistakes("monotone disjunctions", 3, "random", np.random.default_rng(2), n_trials=3000, rounds=40)
    assert result["adversary"] == "random" and result["rounds"] == "T = 40 rounds"
    assert result["size"] == 8
    assert result["mistakes"]["Halving"] <= 3  # floor(lg 8)
    assert result["mistakes"]["SOA"] <= 3  # Ldim
    exp = result["expected"]["Randomized Halving (keep)"]
    assert exp == result["expected"]["Randomized Halving (redraw)"]
    assert exp <= float(harmonic_number(8) - 1) + 1e-12  # exact bound, float rounding slack 1e-12
    for name in RANDOMISED:
        assert abs(result["mistakes"][name] - exp) <= 4 * result["stderr"][name]  # 4 SE, fixed seed


def test_compare_adaptive_adversary():
    result = compare_mistakes("thresholds", 9, "adaptive", np.random.default_rng(0), n_trials=10)
    d = littlestone_dimension(thresholds(9))  # 3
    assert result["rounds"] == "stream chosen per learner"
    assert result["expected"] == {}
    assert "adaptive" in result["note"]
    assert result["mistakes"]["SOA"] == d
    assert result["mistakes"]["Halving"] >= d
    for name in RANDOMISED:
        # every game forces at least Ldim mistakes, so the mean over the games does too
        assert result["mistakes"][name] >= d


def test_compare_falls_back_to_random_stream():
    result = compare_mistakes("all concepts", 3, "one per round", np.random.default_rng(0), n_trials=200, rounds=30)
    assert result["adversary"] == "random (no one-per-round sequence exists)"
    assert "no one-per-round sequence" in result["note"]
    assert result["rounds"] == "T = 30 rounds"


def test_compare_reproducible():
    a = compare_mistakes("singletons + empty", 6, "one per round", np.random.default_rng(5), n_trials=300)
    b = compare_mistakes("singletons + empty", 6, "one per round", np.random.default_rng(5), n_trials=300)
    assert a == b


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(class_name="parity"), ValueError, r"class_name must be one of \['thresholds'.*got 'parity'"),
        (dict(adversary="lazy"), ValueError, r"adversary must be one of \('random', 'one per round', 'adaptive'\)"),
        (dict(size=0), ValueError, r"size must be an integer number of points in \[1, 127\] for thresholds, got 0"),
        (dict(size=128), ValueError, r"size must be an integer number of points in \[1, 127\]"),
        (dict(size=5.0), ValueError, r"size must be an integer number of points"),
        (dict(size=True), ValueError, r"size must be an integer number of points"),
        (dict(class_name="all concepts", size=8), ValueError, r"size must be .* in \[1, 7\] for all concepts, got 8"),
        (
            dict(class_name="monotone disjunctions", size=6),
            ValueError,
            r"size must be an integer number of variables in \[1, 5\]",
        ),
        (dict(rng=7), TypeError, r"rng must be a numpy.random.Generator"),
        (dict(rng=None), TypeError, r"rng must be a numpy.random.Generator"),
    ],
)
def test_compare_errors(kwargs, exc, match):
    arguments = dict(class_name="thresholds", size=5, adversary="random", rng=np.random.default_rng(0))
    with pytest.raises(exc, match=match):
        compare_mistakes(**(arguments | kwargs))


def test_class_makers_and_adversaries_consistent():
    assert ADVERSARIES == ("random", "one per round", "adaptive")
    for make, low, _high, unit in CLASS_MAKERS.values():
        assert low == 1 and unit in ("points", "variables")
        assert make(low).size >= 2


# --------------------------------------------------------------------------- plotting
def test_plot_mistake_comparison_bars():
    result = compare_mistakes("thresholds", 15, "one per round", np.random.default_rng(1), n_trials=500)
    ax = plot_mistake_comparison(result)
    assert isinstance(ax, Axes)
    bars = ax.patches
    assert len(bars) == 4
    heights = [b.get_height() for b in bars]
    # bar heights are the reported mistake counts (float64 round trip: tolerance 1e-12)
    np.testing.assert_allclose(heights, [result["mistakes"][n] for n in LEARNERS], rtol=0, atol=1e-12)
    for bar, name in zip(bars, LEARNERS, strict=True):
        assert matplotlib.colors.to_hex(bar.get_facecolor()) == LEARNER_COLORS[name]
    # tick labels name the learners (line breaks and the "Rand." abbreviation are layout choices)
    labels = [" ".join(t.get_text().split()) for t in ax.get_xticklabels()]
    assert len(labels) == 4
    for label, name in zip(labels, LEARNERS, strict=True):
        assert label in (name, name.replace("Randomized Halving", "Rand. Halving"))
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    # Ldim = floor(lg |C|) = 4 here: one line, one entry (two lines would hide each other)
    assert legend == [r"$\lfloor \lg |C| \rfloor$ = $\mathrm{Ldim}(C)$ = 4", r"$H_{|C|} - 1$ = 2.38"]
    assert len([line for line in ax.get_lines() if not line.get_label().startswith("_")]) == 2
    assert "thresholds" in ax.get_title() and "|C| = 16" in ax.get_title()
    top = max(max(heights), max(result["bounds"].values()))
    assert ax.get_ylim()[1] > top


def test_plot_mistake_comparison_uses_given_axes():
    result = compare_mistakes("singletons + empty", 4, "adaptive", np.random.default_rng(0), n_trials=5)
    fig, ax = plt.subplots()
    out = plot_mistake_comparison(result, ax=ax)
    assert out is ax
    assert len(fig.axes) == 1
    assert len(ax.patches) == 4


def test_mistake_explorer_builds_and_limits_size():
    pytest.importorskip("ipywidgets")
    from onlinelib.explorers import mistake_explorer

    panel = mistake_explorer(seed=3)
    assert {w._kwarg: w.value for w in panel.kwargs_widgets} == {
        "class_name": "thresholds",
        "size": 31,
        "adversary": "one per round",
        "seed": 3,
    }
    class_box, size_box = panel.children[0], panel.children[1]
    class_box.value = "all concepts"
    assert (size_box.min, size_box.max, size_box.value, size_box.description) == (1, 7, 7, "points")


@pytest.mark.parametrize("class_name", list(CLASS_MAKERS))
@pytest.mark.parametrize("adversary", ADVERSARIES)
def test_mistake_explorer_draws_every_setting(class_name, adversary):
    # ipywidgets swallows exceptions raised while redrawing, so call the drawing function itself.
    pytest.importorskip("ipywidgets")
    import matplotlib.pyplot as plt

    from onlinelib.explorers import mistake_explorer

    panel = mistake_explorer()
    plt.close("all")
    size = CLASS_MAKERS[class_name][2]  # the largest size the slider allows
    panel.f(class_name=class_name, size=size, adversary=adversary, seed=1)
    assert plt.get_fignums(), "the explorer drew no figure"
    plt.close("all")
