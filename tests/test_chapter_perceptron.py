"""Tests for onlinelib.chapters.perceptron (chapter 3: the Perceptron's streams, experiment, figure) and its explorer."""

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from onlinelib import Perceptron, run  # noqa: E402
from onlinelib.chapters.perceptron import (  # noqa: E402
    MAX_FEATURES,
    MIN_ACCEPTANCE,
    STREAM_KINDS,
    acceptance_rate,
    compare_perceptron,
    perceptron_stream,
    plot_perceptron_comparison,
    random_rotation,
    tie_stream,
)

# Float comparisons below use a relative tolerance of 1e-12: each compared value is
# the result of a handful of floating-point operations, whose rounding is ~1e-16.
RTOL = 1e-12


# --------------------------------------------------------------------------- rotation
@pytest.mark.parametrize("n", [1, 2, 7, 50])
def test_random_rotation_is_orthogonal(n):
    Q = random_rotation(n, np.random.default_rng(n))
    assert Q.shape == (n, n)
    # Q^T Q = I up to rounding of a length-n dot product (~n * 1e-16)
    np.testing.assert_allclose(Q.T @ Q, np.eye(n), rtol=0, atol=1e-12)
    assert abs(abs(np.linalg.det(Q)) - 1) <= 1e-10


def test_random_rotation_reproducible_and_uniform_in_sign():
    a = random_rotation(5, np.random.default_rng(3))
    b = random_rotation(5, np.random.default_rng(3))
    assert np.array_equal(a, b)
    # with the sign fix, Q[0, 0] is symmetric about 0 over draws (Haar measure); 4 SE band, fixed seed
    rng = np.random.default_rng(0)
    first = np.array([random_rotation(3, rng)[0, 0] for _ in range(4000)])
    assert abs(first.mean()) <= 4 * first.std() / math.sqrt(len(first))


@pytest.mark.parametrize(
    "n, rng, exc, match",
    [
        (0, np.random.default_rng(0), ValueError, r"n must be an integer in \[1, 2000\], got 0"),
        (MAX_FEATURES + 1, np.random.default_rng(0), ValueError, r"n must be an integer in \[1, 2000\]"),
        (2.0, np.random.default_rng(0), TypeError, r"n must be an integer"),
        (True, np.random.default_rng(0), TypeError, r"n must be an integer"),
        (3, 0, TypeError, r"rng must be a numpy.random.Generator"),
    ],
)
def test_random_rotation_errors(n, rng, exc, match):
    with pytest.raises(exc, match=match):
        random_rotation(n, rng)


# --------------------------------------------------------------------------- tie_stream
@pytest.mark.parametrize("d", [1, 3, 8, 25])
def test_tie_stream_is_separable_integer_data(d):
    X, y, w_star = tie_stream(d, 500, np.random.default_rng(d))
    assert X.shape == (500, d) and X.dtype == np.float64
    assert y.shape == (500,) and y.dtype == np.int8
    assert set(np.unique(X)) <= {-1.0, 0.0, 1.0}
    assert abs(np.linalg.norm(w_star) - 1) <= RTOL
    # w* is v/||v|| for an integer v with entries in [-2, 2]: recover v and check exactly
    v = np.round(w_star / np.min(np.abs(w_star[w_star != 0])))
    scores = X @ v
    assert (scores != 0).all() and np.array_equal(np.sign(scores), y)
    # margin of the unit separator: at least 1/||v|| (up to rounding)
    margin = np.min(y * (X @ w_star))
    assert margin >= (1 - RTOL) / np.linalg.norm(v)


def test_tie_stream_produces_ties():
    X, y, w_star = tie_stream(8, 2000, np.random.default_rng(1))
    learner = Perceptron(8)
    trace = run(learner, X, y)
    assert learner.n_updates > trace.n_mistakes  # updates at score 0 with label +1
    assert np.array_equal(trace.predictions, run(Perceptron(8), X, y, method="loop").predictions)


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(n_features=0), ValueError, r"n_features must be an integer in \[1, 2000\], got 0"),
        (dict(length=0), ValueError, r"length must be an integer in \[1, 1000000\], got 0"),
        (dict(length=10.0), TypeError, r"length must be an integer"),
        (dict(max_weight=0), ValueError, r"max_weight must be an integer in \[1, 1000\]"),
        (dict(rng="seed"), TypeError, r"rng must be a numpy.random.Generator"),
    ],
)
def test_tie_stream_errors(kwargs, exc, match):
    arguments = dict(n_features=4, length=10, rng=np.random.default_rng(0))
    with pytest.raises(exc, match=match):
        tie_stream(**(arguments | kwargs))


# --------------------------------------------------------------------------- acceptance
@pytest.mark.parametrize("d, margin", [(1, 0.3), (2, 0.3), (10, 0.2), (30, 0.1)])
def test_acceptance_rate_matches_sampling(d, margin):
    rng = np.random.default_rng(d)
    n = 200_000
    directions = rng.standard_normal((n, d))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    points = directions * rng.random(n)[:, None] ** (1 / d)
    frequency = np.mean(np.abs(points[:, 0]) >= margin)
    rate = acceptance_rate(d, margin)
    # binomial standard error; 4 SE band with a fixed seed
    assert abs(frequency - rate) <= 4 * math.sqrt(rate * (1 - rate) / n)


def test_acceptance_rate_closed_forms():
    assert acceptance_rate(1, 0.25) == pytest.approx(0.75, rel=RTOL)  # uniform on [-1, 1]
    # d = 3: <w*, x> has density (3/4)(1 - t^2) on [-1, 1], so P(|t| >= a) = (1 - a)^2 (2 + a) / 2
    assert acceptance_rate(3, 0.5) == pytest.approx(0.3125, rel=RTOL)
    assert acceptance_rate(4, 2.0, radius=2.0) == 0.0
    assert acceptance_rate(4, 0.2, radius=2.0) == pytest.approx(acceptance_rate(4, 0.1), rel=RTOL)


# --------------------------------------------------------------------------- perceptron_stream
def test_perceptron_stream_random():
    X, y, w_star = perceptron_stream("random separable", 0.2, 6, np.random.default_rng(0), length=300, radius=2.0)
    assert X.shape == (300, 6)
    assert np.linalg.norm(X, axis=1).max() <= 2.0
    assert np.min(y * (X @ w_star)) >= 0.2


@pytest.mark.parametrize("n_features", [1, 25, 40])
def test_perceptron_stream_lower_bound_padding(n_features):
    X, y, w_star = perceptron_stream("lower bound", 0.2, n_features, np.random.default_rng(0))
    k = 25  # (1/0.2)^2
    assert X.shape == (k, max(n_features, k)) and y.tolist() == [-1] * k
    assert np.array_equal(X[:, :k], np.eye(k)) and not X[:, k:].any()
    assert abs(np.linalg.norm(w_star) - 1) <= RTOL


def test_perceptron_stream_rotated_keeps_geometry():
    X0, y0, w0 = perceptron_stream("lower bound", 0.25, 20, np.random.default_rng(0))
    X, y, w_star = perceptron_stream("rotated lower bound", 0.25, 20, np.random.default_rng(0))
    assert np.array_equal(y, y0)
    # Gram matrix and margins are preserved up to rounding (~d * 1e-16)
    np.testing.assert_allclose(X @ X.T, X0 @ X0.T, rtol=0, atol=1e-12)
    np.testing.assert_allclose(X @ w_star, X0 @ w0, rtol=0, atol=1e-12)
    assert not np.array_equal(X, X0)


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (
            dict(kind="noisy"),
            ValueError,
            r"kind must be one of \('random separable', 'lower bound', 'rotated lower bound'\)",
        ),
        (dict(margin=0), ValueError, r"margin must be a finite real number > 0, got 0.0"),
        (dict(margin=-0.1), ValueError, r"margin must be a finite real number > 0"),
        (dict(margin=float("nan")), ValueError, r"margin must be a finite real number > 0"),
        (dict(margin="0.1"), TypeError, r"margin must be a real number > 0"),
        (dict(radius=0), ValueError, r"radius must be a finite real number > 0"),
        (dict(margin=1.0), ValueError, r"margin must be smaller than radius \(1.0\) for a random stream, got 1.0"),
        (dict(margin=0.9, n_features=50), ValueError, r"margin 0.9 is too large .* in 50 dimensions"),
        (dict(kind="lower bound", margin=1.5), ValueError, r"margin must be at most radius \(1.0\), got 1.5"),
        (dict(kind="lower bound", margin=0.01), ValueError, r"needs floor\(R\^2/gamma\^2\) features, at most 2000"),
        (dict(n_features=0), ValueError, r"n_features must be an integer in \[1, 2000\]"),
        (dict(n_features=2.5), TypeError, r"n_features must be an integer"),
        (dict(length=0), ValueError, r"length must be an integer in \[1, 1000000\]"),
        (dict(rng=None), TypeError, r"rng must be a numpy.random.Generator"),
    ],
)
def test_perceptron_stream_errors(kwargs, exc, match):
    arguments = dict(kind="random separable", margin=0.1, n_features=5, rng=np.random.default_rng(0))
    with pytest.raises(exc, match=match):
        perceptron_stream(**(arguments | kwargs))


def test_lower_bound_at_radius_is_one_example():
    X, y, _ = perceptron_stream("lower bound", 1.0, 1, np.random.default_rng(0))
    assert X.shape == (1, 1) and y.tolist() == [-1]


# --------------------------------------------------------------------------- compare_perceptron
KEYS = {
    "kind",
    "n_features",
    "length",
    "radius",
    "margin",
    "nominal_radius",
    "nominal_margin",
    "bound",
    "nominal_bound",
    "mistakes",
    "updates",
    "norm2",
    "alignment",
    "note",
}


def test_compare_random_obeys_every_step():
    result = compare_perceptron("random separable", 0.1, 10, np.random.default_rng(0))
    assert set(result) == KEYS
    assert result["kind"] == "random separable" and result["n_features"] == 10 and result["length"] == 2000
    assert result["note"] == ""
    assert result["radius"] <= 1.0 and result["margin"] >= 0.1
    assert result["nominal_bound"] == pytest.approx(100.0, rel=RTOL)
    assert result["bound"] == pytest.approx(result["radius"] ** 2 / result["margin"] ** 2, rel=RTOL)
    assert result["bound"] <= result["nominal_bound"]
    assert 1 <= result["mistakes"] <= result["updates"] <= result["bound"]
    U = result["updates"]
    k = np.arange(U + 1)
    assert len(result["norm2"]) == len(result["alignment"]) == U + 1
    assert result["norm2"][0] == result["alignment"][0] == 0
    # the proof's inequalities, with a rounding slack of 1e-9 relative (sums of <= 2000 products)
    assert (result["norm2"] <= k * result["radius"] ** 2 * (1 + 1e-9)).all()
    assert (result["alignment"] >= k * result["margin"] * (1 - 1e-9)).all()
    assert (result["alignment"] <= np.sqrt(result["norm2"]) * (1 + 1e-9)).all()


@pytest.mark.parametrize("margin, radius, k", [(0.5, 1.0, 4), (0.1, 1.0, 100), (0.5, 2.0, 16), (0.3, 1.0, 11)])
def test_compare_lower_bound_meets_bound(margin, radius, k):
    result = compare_perceptron("lower bound", margin, 3, np.random.default_rng(0), radius=radius)
    assert result["mistakes"] == result["updates"] == result["length"] == k
    assert result["n_features"] == k
    assert f"needs {k} features, more than the 3 asked for" in result["note"]
    # the sequence's own margin is R/sqrt(k), so its bound is exactly k (up to rounding)
    assert result["bound"] == pytest.approx(k, rel=RTOL)
    assert result["radius"] == radius
    np.testing.assert_allclose(result["norm2"], np.arange(k + 1) * radius**2, rtol=RTOL)


def test_compare_lower_bound_no_note_when_dimension_suffices():
    result = compare_perceptron("lower bound", 0.5, 10, np.random.default_rng(0))
    assert result["n_features"] == 10 and result["note"] == "" and result["updates"] == 4


def test_compare_rotated_loses_ties():
    result = compare_perceptron("rotated lower bound", 0.1, 1, np.random.default_rng(0))
    assert result["length"] == 100
    assert result["updates"] == result["mistakes"] < 100  # rounding decides the ties
    assert result["updates"] >= 1  # the first score is exactly 0
    assert result["bound"] == pytest.approx(100, rel=1e-9)


def test_compare_reproducible():
    a = compare_perceptron("random separable", 0.2, 5, np.random.default_rng(9), length=500)
    b = compare_perceptron("random separable", 0.2, 5, np.random.default_rng(9), length=500)
    assert a.keys() == b.keys()
    for key in a:
        if isinstance(a[key], np.ndarray):
            assert np.array_equal(a[key], b[key])
        else:
            assert a[key] == b[key]


def test_compare_errors_propagate():
    with pytest.raises(ValueError, match=r"kind must be one of"):
        compare_perceptron("adversarial", 0.1, 5, np.random.default_rng(0))
    with pytest.raises(TypeError, match=r"rng must be a numpy.random.Generator"):
        compare_perceptron("random separable", 0.1, 5, 0)
    with pytest.raises(ValueError, match=r"too large for a random separable stream"):
        compare_perceptron("random separable", 0.5, 200, np.random.default_rng(0))
    assert acceptance_rate(200, 0.5) < MIN_ACCEPTANCE


# --------------------------------------------------------------------------- plotting and explorer
def test_plot_perceptron_comparison():
    result = compare_perceptron("lower bound", 0.25, 1, np.random.default_rng(0))
    axes = plot_perceptron_comparison(result)
    assert len(axes) == 3
    bars = axes[2].patches
    assert [b.get_height() for b in bars] == [16, 16]
    left_lines = axes[0].get_lines()
    np.testing.assert_array_equal(left_lines[1].get_ydata(), result["norm2"])
    legend = [t.get_text() for t in axes[2].get_legend().get_texts()]
    assert legend == [r"$R^2/\gamma^2$ = 16"]
    assert "lower bound" in axes[2].get_title() and "d = 16" in axes[2].get_title()


def test_plot_perceptron_comparison_given_axes_and_errors():
    result = compare_perceptron("random separable", 0.3, 3, np.random.default_rng(0), length=100)
    fig, axes = plt.subplots(3, 1)
    out = plot_perceptron_comparison(result, axes)
    assert list(out) == list(axes) and len(fig.axes) == 3
    _, two = plt.subplots(1, 2)
    with pytest.raises(ValueError, match=r"axes must hold 3 axes, got 2"):
        plot_perceptron_comparison(result, two)


def test_perceptron_explorer_builds():
    pytest.importorskip("ipywidgets")
    from onlinelib.explorers import perceptron_explorer

    panel = perceptron_explorer(seed=4)
    kind_box, margin_box, dim_box, seed_box, button = panel.children[:5]
    assert kind_box.value == "random separable" and tuple(kind_box.options) == STREAM_KINDS
    assert margin_box.value == pytest.approx(0.1, rel=RTOL)
    assert dim_box.value == 10 and seed_box.value == 4
    # drawn on demand: a button, and nothing computed when the panel is created
    assert button.description == "Draw"
    assert panel.kwargs == {} and panel.out.outputs == ()


@pytest.mark.parametrize("kind", STREAM_KINDS)
@pytest.mark.parametrize("margin_exponent", ["min", "max"])
@pytest.mark.parametrize("dimension", ["min", "max"])
def test_perceptron_explorer_draws_every_corner(kind, margin_exponent, dimension, capsys):
    # ipywidgets swallows exceptions raised while redrawing, so call the drawing function itself.
    pytest.importorskip("ipywidgets")
    from onlinelib.explorers import perceptron_explorer

    panel = perceptron_explorer()
    plt.close("all")
    margin_box, dim_box = panel.children[1], panel.children[2]
    margin = 10 ** getattr(margin_box, margin_exponent)
    n_features = getattr(dim_box, dimension)
    panel.f(kind=kind, margin=margin, n_features=n_features, seed=1)
    printed = capsys.readouterr().out
    if "too large" in printed:  # refused with a message instead of sampling for ages
        assert kind == "random separable" and acceptance_rate(n_features, margin) < MIN_ACCEPTANCE
        assert not plt.get_fignums()
    else:
        assert plt.get_fignums(), "the explorer drew no figure"
        assert "updates" in printed
