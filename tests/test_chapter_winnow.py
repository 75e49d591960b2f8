"""Tests for onlinelib.chapters.winnow (chapter 4: the race, the experiment, its figure) and its explorer."""

import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import scipy.sparse as sp  # noqa: E402

from onlinelib import Perceptron, Winnow2, notes_winnow_bound, run, winnow2_bound  # noqa: E402
from onlinelib.adversaries import winnow2_exact_replay  # noqa: E402
from onlinelib.bounds import notes_winnow_bound_sign  # noqa: E402
from onlinelib.chapters.winnow import (  # noqa: E402
    NOTES_COUNTEREXAMPLES,
    RaceResult,
    bernoulli_rows,
    compare_winnow,
    plot_winnow_comparison,
    race,
    refind_notes_counterexample,
    replay_notes_counterexample,
)

# -- bernoulli_rows and race ------------------------------------------------------------------


def test_bernoulli_rows_distribution():
    X = bernoulli_rows(400, 250, 0.1, np.random.default_rng(0))
    assert sp.isspmatrix_csr(X) or isinstance(X, sp.csr_matrix)
    assert X.shape == (400, 250) and X.has_canonical_format
    assert set(np.unique(X.data)) == {1.0}
    n_cells = 400 * 250
    se = math.sqrt(0.1 * 0.9 / n_cells)
    assert abs(X.nnz / n_cells - 0.1) < 5 * se  # 5 standard errors; fixed seed
    # every column and row is used about equally: no positional bias
    col_means = np.asarray(X.mean(axis=0)).ravel()
    assert abs(col_means.mean() - 0.1) < 5 * se
    row_counts = np.diff(X.indptr)
    assert abs(row_counts.mean() - 25) < 5 * math.sqrt(25 * 0.9 / 400)


def test_bernoulli_rows_reproducible_and_extreme_densities():
    a = bernoulli_rows(50, 30, 0.3, np.random.default_rng(3))
    b = bernoulli_rows(50, 30, 0.3, np.random.default_rng(3))
    assert (a != b).nnz == 0
    dense = bernoulli_rows(20, 10, 0.999, np.random.default_rng(1))
    assert dense.nnz >= 190
    sparse_ = bernoulli_rows(1, 1, 1e-6, np.random.default_rng(1))
    assert sparse_.shape == (1, 1)


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(density=0.0), ValueError, r"density must be a finite real number in \(0, 1\)"),
        (dict(density=1.0), ValueError, r"density must be a finite real number in \(0, 1\), got 1.0"),
        (dict(density="a"), TypeError, r"density must be a real number in \(0, 1\)"),
        (dict(n_rows=0), ValueError, r"n_rows must be an integer >= 1"),
        (dict(n_features=-2), ValueError, r"n_features must be an integer >= 1"),
        (dict(rng=np.random.RandomState(0)), TypeError, r"rng must be a numpy.random.Generator"),
    ],
)
def test_bernoulli_rows_bad_input(kwargs, exc, match):
    args = dict(n_rows=5, n_features=5, density=0.5, rng=np.random.default_rng(0))
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        bernoulli_rows(**args)


def _race_by_hand(n, k, length, seed, chunk, alpha=2.0):
    """race's procedure written out: same draws in the same order, one learner at a time."""
    rng = np.random.default_rng(seed)
    p = 1 - 2 ** (-1 / k)
    relevant = np.sort(rng.choice(n, size=k, replace=False))
    chunks = []
    for start in range(0, length, chunk):
        X = bernoulli_rows(min(chunk, length - start), n, p, rng)
        y = np.where(np.asarray(X[:, relevant].sum(axis=1)).ravel() > 0, 1, -1)
        chunks.append((X, y))
    X = sp.vstack([c[0] for c in chunks], format="csr")
    y = np.concatenate([c[1] for c in chunks])
    return run(Winnow2(n, alpha, float(n)), X, y), run(Perceptron(n, bias=True), X, y), X, y


def test_race_matches_a_direct_run():
    result = race(64, 2, 1000, np.random.default_rng(11), chunk=300)
    assert isinstance(result, RaceResult)
    w_trace, p_trace, X, y = _race_by_hand(64, 2, 1000, 11, 300)
    assert result.winnow == w_trace.n_mistakes and result.perceptron == p_trace.n_mistakes
    assert result.winnow_late == int(w_trace.mistakes[750:].sum())
    assert result.perceptron_late == int(p_trace.mistakes[750:].sum())
    assert result.positive == pytest.approx(np.mean(y == 1), abs=1e-12)
    assert result.max_active == int(np.diff(X.indptr).max())
    assert result.active == pytest.approx(X.nnz / 1000, abs=1e-12)
    assert result.winnow <= winnow2_bound(64, 2, 2.0, 64)


def test_race_density_and_parameters():
    result = race(40, 1, 400, np.random.default_rng(2), alpha=1.5, theta=10.0, density=0.05)
    assert result.active == pytest.approx(2.0, abs=0.5)  # 40 * 0.05 ones per example; 400 rows
    assert result.winnow <= winnow2_bound(40, 1, 1.5, 10.0)
    assert 0 <= result.winnow_late <= result.winnow and 0 <= result.perceptron_late <= result.perceptron


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(n_relevant=11), ValueError, r"n_relevant must be an integer in \[1, 10\], got 11"),
        (dict(length=0), ValueError, r"length must be an integer >= 1"),
        (dict(chunk=0), ValueError, r"chunk must be an integer >= 1"),
        (dict(density=2.0), ValueError, r"density must be a finite real number in \(0, 1\)"),
        (dict(alpha=1), ValueError, r"alpha must be a finite real number > 1"),
        (dict(rng="seed"), TypeError, r"rng must be a numpy.random.Generator"),
    ],
)
def test_race_bad_input(kwargs, exc, match):
    args = dict(n_features=10, n_relevant=2, length=50, rng=np.random.default_rng(0))
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        race(**args)


# -- compare_winnow, plot_winnow_comparison, winnow_explorer --------------------------------------


def test_compare_winnow_default_setting():
    result = compare_winnow(1.5, None, 64, 1, np.random.default_rng(0), n_streams=10, length=600)
    assert set(result) == {
        "alpha",
        "theta",
        "n_features",
        "n_relevant",
        "runs",
        "stderr",
        "n_streams",
        "bounds",
        "notes_violated",
    }
    assert result["n_streams"] == 10
    assert result["theta"] == 64.0
    assert list(result["runs"]) == ["random streams (mean)", "random streams (worst)", "adversary"]
    assert result["bounds"] == {
        "Littlestone": pytest.approx(winnow2_bound(64, 1, 1.5, 64), rel=1e-12),
        "promotion part k(1 + log_a theta)": pytest.approx(1 + math.log(64) / math.log(1.5), rel=1e-12),
        "notes 2 + 3k(lg N + 1)": pytest.approx(notes_winnow_bound(64, 1), rel=1e-12),
    }
    for values in result["runs"].values():
        assert values["mistakes"] == pytest.approx(values["promotions"] + values["demotions"], abs=1e-9)
        assert values["mistakes"] <= result["bounds"]["Littlestone"]
        assert values["promotions"] <= result["bounds"]["promotion part k(1 + log_a theta)"]
    mean, worst = result["runs"]["random streams (mean)"], result["runs"]["random streams (worst)"]
    assert mean["mistakes"] <= worst["mistakes"]
    assert result["stderr"] >= 0
    # the beam adversary breaks the notes' bound here (chapter 4)
    assert result["runs"]["adversary"]["mistakes"] > notes_winnow_bound(64, 1)
    assert result["notes_violated"] is True


def test_compare_winnow_alpha_two_respects_the_notes_bound():
    result = compare_winnow(2.0, None, 32, 2, np.random.default_rng(1), n_streams=5, length=300)
    assert result["notes_violated"] is False
    assert result["bounds"]["Littlestone"] == pytest.approx(result["bounds"]["notes 2 + 3k(lg N + 1)"], rel=1e-12)


def test_compare_winnow_reproducible():
    a = compare_winnow(3.0, 10.0, 20, 3, np.random.default_rng(4), n_streams=4, length=200)
    b = compare_winnow(3.0, 10.0, 20, 3, np.random.default_rng(4), n_streams=4, length=200)
    assert a == b


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(theta=0.4), ValueError, r"theta must be at least 1 / alpha"),
        (dict(theta=-3.0), ValueError, r"theta must be a finite real number > 0"),
        (dict(n_features=5000), ValueError, r"n_features must be an integer in \[1, 4096\]"),
        (dict(n_relevant=0), ValueError, r"n_relevant must be an integer in \[1, 16\]"),
        (dict(alpha=1.0), ValueError, r"alpha must be a finite real number > 1"),
        (dict(n_streams=1), ValueError, r"n_streams must be an integer >= 2"),
        (dict(rng=None), TypeError, r"rng must be a numpy.random.Generator"),
    ],
)
def test_compare_winnow_bad_input(kwargs, exc, match):
    args = dict(alpha=2.0, theta=None, n_features=16, n_relevant=1, rng=np.random.default_rng(0))
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        compare_winnow(**args)


def test_plot_winnow_comparison():
    result = compare_winnow(1.5, None, 16, 1, np.random.default_rng(0), n_streams=3, length=200)
    ax = plot_winnow_comparison(result)
    assert len(ax.patches) == 6  # promotions and demotions for three runs
    heights = [p.get_height() for p in ax.patches]
    runs = list(result["runs"].values())
    # stacked bars store top - bottom, so allow floating-point rounding
    assert heights[:3] == pytest.approx([r["promotions"] for r in runs], abs=1e-9)
    assert heights[3:] == pytest.approx([r["demotions"] for r in runs], abs=1e-9)
    levels = sorted(line.get_ydata()[0] for line in ax.lines if len(set(line.get_ydata())) == 1)
    assert levels == pytest.approx(sorted(result["bounds"].values()))
    # the error bar on the mean is the t-based 95% interval (3 streams: t = 4.303 with 2 d.o.f.)
    assert result["stderr"] > 0
    segment = ax.collections[0].get_segments()[0]
    half_width = (segment[1][1] - segment[0][1]) / 2
    assert half_width == pytest.approx(4.302652729911275 * result["stderr"], rel=1e-9)
    fig, own = plt.subplots()
    assert plot_winnow_comparison(result, ax=own) is own and len(fig.axes) == 1


def test_winnow_explorer_builds_and_draws():
    pytest.importorskip("ipywidgets")
    from onlinelib.explorers import winnow_explorer

    panel = winnow_explorer(seed=2)
    assert {w._kwarg: w.value for w in panel.kwargs_widgets} == {
        "alpha": 1.5,
        "theta_over_n": 1.0,
        "n_features": 64,
        "n_relevant": 1,
        "seed": 2,
    }
    plt.close("all")
    # ipywidgets swallows exceptions while redrawing, so call the drawing function itself,
    # including corners: k > N is clamped, theta/N * N < 1 is raised to 1.
    for kwargs in (
        dict(alpha=1.05, theta_over_n=1 / 16, n_features=2, n_relevant=8, seed=0),
        dict(alpha=4.0, theta_over_n=8.0, n_features=32, n_relevant=3, seed=1),
    ):
        panel.f(**kwargs)
        assert plt.get_fignums(), "the explorer drew no figure"
        plt.close("all")


def test_compare_winnow_accepts_theta_between_one_over_alpha_and_one():
    """Littlestone's bound holds for 1/alpha <= theta < 1 (bounds.winnow2_bound); so does the explorer."""
    result = compare_winnow(2.0, 0.7, 16, 2, np.random.default_rng(3), n_streams=3, length=200)
    assert result["theta"] == 0.7
    assert all(run["mistakes"] <= result["bounds"]["Littlestone"] for run in result["runs"].values())
    assert all(run["promotions"] == 0 for run in result["runs"].values())  # relevant weights start above theta


# -- the notes' bound: stored counterexamples (chapter 4, issue 38) ------------------------------------

CHAPTER = Path(__file__).resolve().parents[1] / "book" / "winnow.md"


def test_stored_counterexamples_contradict_the_notes_strict_bound():
    assert sorted(NOTES_COUNTEREXAMPLES) == [(1.5, 40), (1.6, 192), (1.6, 384), (1.7, 2048), (1.7, 4096), (1.7, 8192)]
    expected = {(1.5, 40): 21, (1.6, 192): 28, (1.6, 384): 31, (1.7, 2048): 38, (1.7, 4096): 41, (1.7, 8192): 44}
    for (alpha, n), made in expected.items():
        c = replay_notes_counterexample(alpha, n)
        assert c.mistakes == made == len(c.y), (alpha, n, c.mistakes)
        np.testing.assert_array_equal(c.y, np.where(c.X[:, 0] == 1, 1, -1))  # the target x_0
        assert c.X.shape[1] == n and c.promotions == int(np.count_nonzero(c.y == 1))
        assert c.mistakes < winnow2_bound(n, 1, alpha, n)  # Littlestone's bound holds, as it must
        assert c.notes_sign == notes_winnow_bound_sign(made, n, 1) >= 0  # the strict Eq. 42 fails
        assert c.float_mistakes == c.mistakes  # Winnow2 in floating point agrees
        if alpha > 1.5:  # no score equals theta: both tie conventions make the same mistakes
            assert c.positive_at_threshold and c.ties == 0 and c.mistakes_other == c.mistakes
    # alpha = 1.7 meets the bound exactly (a whole number for N a power of 2); alpha = 1.6 exceeds it
    assert [replay_notes_counterexample(1.7, n).notes_sign for n in (2048, 4096, 8192)] == [0, 0, 0]
    assert [replay_notes_counterexample(1.6, n).notes_sign for n in (192, 384)] == [1, 1]
    tie = replay_notes_counterexample(1.5, 40)
    assert not tie.positive_at_threshold and (tie.ties, tie.mistakes_other) == (4, 14)


def test_counterexample_ties_are_counted_on_the_search_path():
    # issue 38, second pass: the ties were counted on the path of the *other* tie convention (1 instead of 4);
    # under Winnow's rule "+1 iff w.x > theta" four positive rounds of the alpha = 1.5 stream score exactly theta
    c = replay_notes_counterexample(1.5, 40)
    _, _, scores = winnow2_exact_replay(c.X, c.y, 1.5, 40)
    tied = [t for t, score in enumerate(scores) if score == 40]
    assert len(tied) == c.ties == 4 and all(c.y[t] == 1 for t in tied)
    # on the other convention's path the first round (all ones, score theta) is no mistake at all
    predicted, _, _ = winnow2_exact_replay(c.X, c.y, 1.5, 40, positive_at_threshold=True)
    assert predicted[0] == c.y[0] == 1 and int(np.count_nonzero(predicted != c.y)) == c.mistakes_other == 14


@pytest.mark.parametrize(("alpha", "n"), [(1.5, 40), (1.6, 192), (1.6, 384), (1.7, 2048)])
def test_stored_counterexamples_are_what_the_search_finds(alpha, n):
    # N = 4096 and 8192 take 10-20 s each and are checked by the replay above
    assert refind_notes_counterexample(alpha, n) == NOTES_COUNTEREXAMPLES[alpha, n][1]


@pytest.mark.parametrize(
    ("alpha", "n", "exc", "match"),
    [
        (1.7, 1024, ValueError, r"\(alpha, n_features\) must be one of .* got \(1.7, 1024\)"),
        (1.0, 40, ValueError, r"alpha must be a finite real number > 1"),
        (1.5, 0, ValueError, r"n_features"),
        ("1.5", 40, TypeError, r"alpha"),
    ],
)
def test_notes_counterexample_bad_input(alpha, n, exc, match):
    with pytest.raises(exc, match=match):
        replay_notes_counterexample(alpha, n)
    with pytest.raises(exc, match=match):
        refind_notes_counterexample(alpha, n)


def test_chapter_text_quotes_the_notes_bound_as_strict_and_the_open_range():
    text = CHAPTER.read_text(encoding="utf-8")
    # the notes' Eq. 42 is strict; the chapter quoted it with "<=" before issue 38
    assert "M < 2 + 3k(\\lg N + 1)" in text
    assert "M \\le 2 + 3k(\\lg N + 1)," not in text
    # alpha = 1.7 reaches the strict bound, so the open range is 1.7 < alpha < 2, not 1.6 < alpha < 2
    assert "1.6 < \\alpha < 2" not in text and "$1.6$ and $2$" not in text
    assert text.count("1.7 < \\alpha < 2") >= 2
    # stale descriptions: both adversaries decide in exact arithmetic, not with Winnow2's floats
    assert "lets `Winnow2` itself decide" not in text
    assert "replayed on `ol.Winnow2`, in floating point" not in text
    # the Perceptron's fitted exponent is 0.86, not "almost in proportion to N" or "a slope close to 1"
    assert "almost in proportion to $N$" not in text and "almost like $N$" not in text
    assert "slope close to 1" not in text and "We expect $d$ close to 1" not in text
    # second pass: the alpha = 1.5, N = 40 stream has four ties, not one; alpha = 1.1 meets the strict bound at N = 2
    assert "One round scores exactly $\\theta$" not in text and "{glue:text}`wn_a15_ties:d`" in text
    assert "beats the notes' bound from $N = 3$ on" not in text
    assert "contradicts the notes' strict bound already at $N = 2$" in text
    # cited theorems (Kivinen, Warmuth and Auer's lower bound) are not checked by a cell: the text says so
    assert "each claim is followed by the code cell that checks it" not in text
    assert "We cite this lower bound and do not\ncheck it here" in text
