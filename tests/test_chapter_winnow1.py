"""Tests for onlinelib.chapters.winnow1 (chapter 2: the sparse stream, the experiment, its figure) and its explorer."""

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import scipy.sparse as sp  # noqa: E402

from onlinelib import Winnow1, run  # noqa: E402
from onlinelib.chapters.winnow1 import (  # noqa: E402
    MAX_FEATURES,
    STREAMS,
    compare_winnow1,
    default_length,
    plot_winnow1_comparison,
    sparse_disjunction_stream,
)


def rng(seed=0):
    return np.random.default_rng(seed)


def labels_of(X, relevant):
    dense = X.toarray() if sp.issparse(X) else np.asarray(X)
    return np.where(dense[:, relevant].any(axis=1), 1, -1)


# --------------------------------------------------------------------------- sparse stream
@pytest.mark.parametrize("n, k, active", [(10, 3, 0), (10, 3, 2), (10, 3, 7), (50, 5, 3), (6, 6, 0), (2000, 4, 5)])
def test_sparse_stream_structure(n, k, active):
    X, y, relevant = sparse_disjunction_stream(n, k, 400, rng(1), active=active)
    assert sp.isspmatrix_csr(X) and X.shape == (400, n) and X.has_canonical_format
    assert y.dtype == np.int8 and set(np.unique(y)) <= {-1, 1}
    assert relevant.shape == (k,) and (np.diff(relevant) > 0).all()
    assert relevant.min() >= 0 and relevant.max() < n
    dense = X.toarray()
    assert set(np.unique(dense)) <= {0.0, 1.0}
    irrelevant = np.setdiff1d(np.arange(n), relevant)
    # exactly `active` irrelevant variables on; one relevant variable exactly on positives
    assert (dense[:, irrelevant].sum(axis=1) == active).all()
    assert (dense[:, relevant].sum(axis=1) == (y == 1)).all()
    assert (labels_of(X, relevant) == y).all()


def test_sparse_stream_positive_fraction_and_extremes():
    _, y, _ = sparse_disjunction_stream(100, 3, 20_000, rng(2), p_positive=0.3)
    # binomial standard error sqrt(0.3 * 0.7 / 20000) = 0.0032; 5 SE, fixed seed
    assert abs((y == 1).mean() - 0.3) < 5 * 0.0032
    _, y0, _ = sparse_disjunction_stream(20, 2, 50, rng(3), p_positive=0)
    _, y1, _ = sparse_disjunction_stream(20, 2, 50, rng(3), p_positive=1)
    assert (y0 == -1).all() and (y1 == 1).all()


def test_sparse_stream_uses_every_irrelevant_variable_uniformly():
    n, k, active, T = 40, 4, 3, 30_000
    X, _, relevant = sparse_disjunction_stream(n, k, T, rng(4), active=active)
    counts = np.asarray(X.sum(axis=0)).ravel()
    irrelevant = np.setdiff1d(np.arange(n), relevant)
    expected = T * active / (n - k)  # 2500 per variable
    # each count is binomial with sd < sqrt(2500) = 50; allow 5 sd (fixed seed)
    assert np.abs(counts[irrelevant] - expected).max() < 5 * 50


def test_sparse_stream_reproducible():
    a = sparse_disjunction_stream(30, 3, 100, rng(7))
    b = sparse_disjunction_stream(30, 3, 100, rng(7))
    assert (a[0] != b[0]).nnz == 0 and (a[1] == b[1]).all() and (a[2] == b[2]).all()


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(n_features=0), ValueError, r"n_features must be an integer >= 1, got 0"),
        (dict(n_features=10.0), TypeError, r"n_features must be an integer >= 1, got 10.0"),
        (dict(n_features=True), TypeError, r"n_features must be an integer"),
        (dict(n_relevant=0), ValueError, r"n_relevant must be an integer in \[1, 10\], got 0"),
        (dict(n_relevant=11), ValueError, r"n_relevant must be an integer in \[1, 10\], got 11"),
        (dict(length=0), ValueError, r"length must be an integer >= 1, got 0"),
        (dict(active=8), ValueError, r"active must be an integer in \[0, 7\], got 8"),
        (dict(active=-1), ValueError, r"active must be an integer in \[0, 7\]"),
        (dict(p_positive=1.5), ValueError, r"p_positive must be a finite real number in \[0, 1\], got 1.5"),
        (dict(p_positive="half"), TypeError, r"p_positive must be a real number"),
        (dict(rng=None), TypeError, r"rng must be a numpy.random.Generator"),
    ],
)
def test_sparse_stream_errors(kwargs, exc, match):
    arguments = dict(n_features=10, n_relevant=3, length=5, rng=rng(), active=2)
    with pytest.raises(exc, match=match):
        sparse_disjunction_stream(**(arguments | kwargs))


def test_default_length():
    assert default_length(100, 4, "dense random") == 1000
    m = 96
    assert default_length(100, 4, "sparse random") == int(
        max(2 * (m / 3) * (math.log(m) + 3), 8 * 4 * (math.log2(100) + 2))
    )
    assert default_length(16, 16, "sparse random") == int(8 * 16 * 6)
    with pytest.raises(ValueError, match=r"stream must be 'sparse random' or 'dense random', got 'adaptive adversary'"):
        default_length(100, 4, "adaptive adversary")


# --------------------------------------------------------------------------- compare_winnow1
KEYS = {
    "n",
    "k",
    "theta",
    "stream",
    "rounds",
    "mistakes",
    "promotions",
    "eliminations",
    "bounds",
    "cumulative",
    "weight_sum",
    "ceiling",
    "note",
}


@pytest.mark.parametrize("stream", STREAMS)
def test_compare_every_stream(stream):
    n, k = 128, 3
    result = compare_winnow1(n, k, None, stream, rng(5))
    assert set(result) == KEYS
    assert (result["n"], result["k"], result["theta"], result["stream"]) == (n, k, 64.0, stream)
    T = result["rounds"]
    assert result["mistakes"]["Winnow1"] == result["promotions"] + result["eliminations"]
    assert result["bounds"] == {"Winnow1": 2 + 2 * k * 7, "Elimination": n - k}
    for name in ("Winnow1", "Elimination"):
        cumulative = result["cumulative"][name]
        assert cumulative.shape == (T + 1,) and cumulative[0] == 0 and cumulative[-1] == result["mistakes"][name]
        assert (np.diff(cumulative) >= 0).all()
        assert result["mistakes"][name] <= result["bounds"][name]
    W, ceiling = result["weight_sum"], result["ceiling"]
    assert W.shape == ceiling.shape == (T + 1,) and W[0] == ceiling[0] == n
    assert (W <= ceiling).all()  # Lemma 1; exact (integer weights)
    assert result["note"] == ""


def test_compare_stream_specifics():
    r = compare_winnow1(256, 4, None, "promotion adversary", rng())
    assert r["promotions"] == 4 * 8 and r["eliminations"] == 0 and r["rounds"] == 32
    r = compare_winnow1(256, 4, None, "adaptive adversary", rng())
    assert r["mistakes"]["Winnow1"] == r["rounds"] == 1 + 2 * 4 * 7
    r = compare_winnow1(256, 4, None, "elimination adversary", rng())
    assert r["mistakes"] == {"Winnow1": 0, "Elimination": 252}
    r = compare_winnow1(64, 2, None, "dense random", rng(), length=123)
    assert r["rounds"] == 123
    r = compare_winnow1(64, 2, None, "sparse random", rng())
    assert r["rounds"] == default_length(64, 2, "sparse random")


def test_compare_weight_sum_matches_the_loop():
    """The block engine's recorded weight sum equals the example-by-example loop's."""
    X, y, relevant = sparse_disjunction_stream(64, 2, default_length(64, 2, "sparse random"), rng(9))
    loop = run(Winnow1(64), X, y, observe={"W": lambda L: L.weights.sum()}, method="loop")
    result = compare_winnow1(64, 2, None, "sparse random", rng(9))
    # same seed, same draws: the same stream (checked through the recorded weights and mistakes)
    assert np.array_equal(result["weight_sum"], loop.observed["W"])
    assert np.array_equal(result["cumulative"]["Winnow1"], loop.mistakes_so_far)


def test_compare_notes_and_reproducibility():
    r = compare_winnow1(8, 8, None, "elimination adversary", rng())
    assert r["rounds"] == 1 and "k = n" in r["note"]
    r = compare_winnow1(32, 2, 0.25, "dense random", rng(), length=50)
    assert "theta < 1/2" in r["note"] and r["theta"] == 0.25
    a = compare_winnow1(100, 3, 20, "sparse random", rng(4))
    b = compare_winnow1(100, 3, 20, "sparse random", rng(4))
    assert a["mistakes"] == b["mistakes"] and np.array_equal(a["weight_sum"], b["weight_sum"])


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(n=1), ValueError, rf"n must be an integer in \[2, {MAX_FEATURES}\], got 1"),
        (dict(n=MAX_FEATURES + 1), ValueError, r"n must be an integer in \[2, 8192\]"),
        (dict(n=16.0), TypeError, r"n must be an integer in \[2, \d+\], got 16.0"),
        (dict(k=0), ValueError, r"k must be an integer in \[1, 16\], got 0"),
        (dict(k=17), ValueError, r"k must be an integer in \[1, 16\], got 17"),
        (dict(k=None), TypeError, r"k must be an integer in \[1, \d+\], got None"),
        (dict(theta=0), ValueError, r"theta must be a finite real number > 0, got 0.0"),
        (dict(theta=float("nan")), ValueError, r"theta must be a finite real number > 0, got nan"),
        (dict(theta=float("inf")), ValueError, r"theta must be a finite real number > 0"),
        (dict(theta=True), TypeError, r"theta must be a real number > 0, got True"),
        (dict(theta="8"), TypeError, r"theta must be a real number > 0"),
        (dict(stream="random"), ValueError, r"stream must be one of \('sparse random', 'dense random'"),
        (dict(rng=3), TypeError, r"rng must be a numpy.random.Generator"),
        (dict(length=0), ValueError, r"length must be an integer >= 1, got 0"),
        (dict(length=2.5), TypeError, r"length must be an integer >= 1, got 2.5"),
    ],
)
def test_compare_errors(kwargs, exc, match):
    arguments = dict(n=16, k=2, theta=None, stream="dense random", rng=rng())
    with pytest.raises(exc, match=match):
        compare_winnow1(**(arguments | kwargs))


# --------------------------------------------------------------------------- plotting and explorer
def test_plot_winnow1_comparison():
    result = compare_winnow1(64, 2, None, "adaptive adversary", rng())
    left, right = plot_winnow1_comparison(result)
    assert len(left.get_lines()) == 4 and len(right.get_lines()) == 2
    mistakes_line = left.get_lines()[0]
    np.testing.assert_array_equal(mistakes_line.get_ydata(), result["cumulative"]["Winnow1"])
    assert left.get_lines()[1].get_ydata()[0] == result["bounds"]["Winnow1"]
    legend = [t.get_text() for t in left.get_legend().get_texts()]
    assert legend[0] == f"Winnow1: {result['mistakes']['Winnow1']} mistakes"
    assert legend[3] == "Elimination bound = 62"
    assert left.get_yscale() == "symlog" and right.get_yscale() == "log"
    assert left.get_ylim()[0] == 0 and left.get_ylim()[1] > result["bounds"]["Elimination"]
    np.testing.assert_array_equal(right.get_lines()[1].get_ydata(), result["ceiling"])
    assert "n = 64" in left.get_title() and "adaptive adversary" in right.get_title()


def test_plot_uses_given_axes():
    result = compare_winnow1(32, 1, None, "promotion adversary", rng())
    fig, axes = plt.subplots(1, 2)
    out = plot_winnow1_comparison(result, axes=axes)
    assert tuple(out) == tuple(axes) and len(fig.axes) == 2


def test_explorer_builds():
    pytest.importorskip("ipywidgets")
    from onlinelib.explorers import winnow1_explorer

    panel = winnow1_explorer(seed=2)
    assert {w._kwarg: w.value for w in panel.kwargs_widgets} == {
        "lg_n": 10,
        "k": 4,
        "ratio": 0.5,
        "stream": "sparse random",
        "seed": 2,
    }


@pytest.mark.parametrize("stream", STREAMS)
@pytest.mark.parametrize("lg_n, k, ratio", [(2, 16, 1 / 16), (6, 3, 4.0)])
def test_explorer_draws_every_setting(stream, lg_n, k, ratio):
    # ipywidgets swallows exceptions raised while redrawing, so call the drawing function itself.
    pytest.importorskip("ipywidgets")
    from onlinelib.explorers import winnow1_explorer

    panel = winnow1_explorer()
    plt.close("all")
    panel.f(lg_n=lg_n, k=k, ratio=ratio, stream=stream, seed=1)  # k is clipped to n
    assert plt.get_fignums(), "the explorer drew no figure"
