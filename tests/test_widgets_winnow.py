"""Tests for onlinelib.widgets_winnow: chapter 4's proof instruments, adversaries, experiments and explorer."""
import copy
import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import scipy.sparse as sp  # noqa: E402

from onlinelib import Perceptron, Winnow2, notes_winnow_bound, run, winnow2_bound  # noqa: E402
from onlinelib.widgets_winnow import (  # noqa: E402
    AdversaryResult,
    RaceResult,
    beam_adversary,
    bernoulli_rows,
    compare_winnow,
    exhaustive_adversary,
    plot_winnow_comparison,
    promotion_adversary,
    proof_observables,
    race,
)



# -- proof_observables --------------------------------------------------------------------

# N = 3, target x_0, alpha = 2, theta = 3, worked out by hand:
#   round 1: x = 111, y = +1, w.x = 3 <= 3 -> promotion, w = (2, 2, 2)
#   round 2: x = 011, y = -1, w.x = 4 >  3 -> demotion,  w = (2, 1, 1)
#   round 3: x = 100, y = +1, w.x = 2 <= 3 -> promotion, w = (4, 1, 1)
#   round 4: x = 001, y = -1, w.x = 1 <= 3 -> correct,   no change
HAND_X = np.array([[1, 1, 1], [0, 1, 1], [1, 0, 0], [0, 0, 1]], dtype=np.uint8)
HAND_Y = np.array([1, -1, 1, -1])
HAND_OBSERVED = {
    "Phi": [3, 6, 4, 6, 6],
    "next score": [3, 4, 2, 1, np.nan],
    "min weight": [1, 2, 1, 1, 1],
    "relevant demotions": [0, 0, 0, 0, 0],
    "relevant promotions": [0, 1, 1, 2, 2],
    "max m_i": [0, 1, 1, 2, 2],
    "max relevant weight": [1, 2, 2, 4, 4],
}


@pytest.mark.parametrize("form", ["dense", "csr"])
def test_proof_observables_hand_computed(form):
    X = HAND_X if form == "dense" else sp.csr_matrix(HAND_X)
    learner = Winnow2(3, 2.0, 3.0)
    trace = run(learner, X, HAND_Y, observe=proof_observables(X, np.array([0])), method="loop")
    assert list(trace.observed) == list(HAND_OBSERVED)
    for name, expected in HAND_OBSERVED.items():
        np.testing.assert_array_equal(trace.observed[name], np.array(expected, dtype=float), err_msg=name)
    assert trace.n_mistakes == 3 and learner.promotions == 2 and learner.demotions == 1


def test_proof_observables_counts_a_relevant_demotion():
    # With the "wrong" relevant set {1}, round 2 lowers w_1: the instrument must see it.
    trace = run(Winnow2(3, 2.0, 3.0), HAND_X, HAND_Y, observe=proof_observables(HAND_X, np.array([1, 2])), method="loop")
    np.testing.assert_array_equal(trace.observed["relevant demotions"], [0, 0, 1, 1, 1])
    np.testing.assert_array_equal(trace.observed["relevant promotions"], [0, 2, 2, 2, 2])


def test_proof_observables_fresh_per_run():
    observe = proof_observables(HAND_X, np.array([0]))
    first = run(Winnow2(3, 2.0, 3.0), HAND_X, HAND_Y, observe=observe, method="loop")
    second = run(Winnow2(3, 2.0, 3.0), HAND_X, HAND_Y, observe=proof_observables(HAND_X, np.array([0])), method="loop")
    for name in HAND_OBSERVED:
        np.testing.assert_array_equal(first.observed[name], second.observed[name], err_msg=name)


@pytest.mark.parametrize("relevant", [np.array([], dtype=int), np.array([[0]]), np.array([0.5]), [True]])
def test_proof_observables_bad_relevant(relevant):
    with pytest.raises(ValueError, match="relevant must be a nonempty 1-D array of feature indices"):
        proof_observables(HAND_X, relevant)


# -- exhaustive_adversary -------------------------------------------------------------------

EXACT_MAXIMA = {  # (alpha, N) -> the longest mistake sequence (chapter 4's table)
    (2.0, 2): 2, (2.0, 3): 3, (2.0, 4): 5, (2.0, 5): 6, (2.0, 6): 6,
    (1.5, 2): 2, (1.5, 3): 4, (1.5, 4): 6, (1.5, 5): 7, (1.5, 6): 9,
    (1.1, 2): 8, (1.1, 3): 12, (1.1, 4): 19,
}


def _check_sequence(result, n, alpha, theta=None, k=1, positive_at_threshold=False):
    """Every round is a Winnow mistake and the labels are those of x_0 or ... or x_{k-1}."""
    assert isinstance(result, AdversaryResult)
    assert result.X.dtype == np.uint8 and result.y.dtype == np.int8
    assert result.X.shape == (len(result.y), n)
    learner = Winnow2(n, alpha, theta, positive_at_threshold=positive_at_threshold)
    trace = run(learner, result.X, result.y) if len(result.y) else None
    if trace is not None:
        assert trace.n_mistakes == len(result.y) == result.mistakes
        np.testing.assert_array_equal(result.y, np.where(result.X[:, :k].any(axis=1), 1, -1))
    assert result.promotions + result.demotions == result.mistakes
    assert result.promotions == learner.promotions and result.demotions == learner.demotions


@pytest.mark.parametrize("alpha, n", sorted(EXACT_MAXIMA))
def test_exhaustive_known_maxima(alpha, n):
    result = exhaustive_adversary(n, alpha)
    assert result.mistakes == EXACT_MAXIMA[alpha, n]
    assert result.exact and result.states >= 1
    _check_sequence(result, n, alpha)
    assert result.mistakes <= winnow2_bound(n, 1, alpha, n)


def _brute_force_longest(learner, n, depth_left):
    """Longest run of mistakes from this state, trying every example (independent of the search)."""
    best = 0
    for bits in range(1, 2**n):
        x = np.array([(bits >> i) & 1 for i in range(n)], dtype=float)
        label = 1 if x[0] == 1 else -1
        if learner.predict(x) == label:
            continue
        if depth_left == 0:
            return 1  # only reached if the bound were wrong; makes the test fail loudly
        child = copy.deepcopy(learner)
        child.update(x, label)
        best = max(best, 1 + _brute_force_longest(child, n, depth_left - 1))
    return best


@pytest.mark.parametrize("alpha, n", [(2.0, 2), (2.0, 3), (1.5, 3), (3.0, 3), (1.1, 2)])
def test_exhaustive_matches_brute_force(alpha, n):
    depth = int(winnow2_bound(n, 1, alpha, n)) + 1
    assert exhaustive_adversary(n, alpha).mistakes == _brute_force_longest(Winnow2(n, alpha), n, depth)


def test_exhaustive_one_feature_and_tie_convention():
    # N = 1, theta = 1: w_0 = 1 is promoted once under ">" (1 <= 1), never under ">=" (1 >= 1 predicts +1).
    strict = exhaustive_adversary(1, 2.0)
    assert strict.mistakes == 1 and strict.X.tolist() == [[1]]
    ties_up = exhaustive_adversary(1, 2.0, positive_at_threshold=True)
    assert ties_up.mistakes == 0 and ties_up.X.shape == (0, 1)
    for n in (2, 3, 4):
        result = exhaustive_adversary(n, 2.0, positive_at_threshold=True)
        _check_sequence(result, n, 2.0, positive_at_threshold=True)


def test_exhaustive_other_theta():
    result = exhaustive_adversary(4, 1.5, theta=2)
    _check_sequence(result, 4, 1.5, theta=2.0)
    assert result.mistakes <= winnow2_bound(4, 1, 1.5, 2.0)


def test_exhaustive_gives_up():
    with pytest.raises(RuntimeError, match="more than max_states=5 states"):
        exhaustive_adversary(6, 1.5, max_states=5)


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(n_features=0), ValueError, r"n_features must be an integer >= 1, got 0"),
        (dict(n_features=3.0), TypeError, r"n_features must be an integer"),
        (dict(alpha=1.0), ValueError, r"alpha must be a finite real number > 1, got 1.0"),
        (dict(alpha="2"), TypeError, r"alpha must be a real number > 1"),
        (dict(alpha=math.pi), ValueError, r"alpha must be a ratio of small integers"),
        (dict(theta=-1), ValueError, r"theta must be a finite real number > 0"),
        (dict(theta=math.sqrt(2)), ValueError, r"theta must be a ratio of small integers"),
        (dict(max_states=0), ValueError, r"max_states must be an integer >= 1"),
    ],
)
def test_exhaustive_bad_input(kwargs, exc, match):
    args = dict(n_features=3, alpha=2.0)
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        exhaustive_adversary(**args)


# -- beam_adversary ---------------------------------------------------------------------------


@pytest.mark.parametrize("alpha, n", [(1.5, 4), (1.5, 5), (1.5, 6), (2.0, 5), (1.1, 3)])
def test_beam_finds_exact_optimum_on_small_cases(alpha, n):
    result = beam_adversary(n, alpha, rng=np.random.default_rng(0))
    assert not result.exact
    _check_sequence(result, n, alpha)
    assert result.mistakes == EXACT_MAXIMA[alpha, n]


def test_beam_breaks_the_notes_bound_for_alpha_one_and_a_half():
    result = beam_adversary(48, 1.5, rng=np.random.default_rng(0))
    _check_sequence(result, 48, 1.5)
    assert notes_winnow_bound(48, 1) < result.mistakes <= winnow2_bound(48, 1, 1.5, 48)


@pytest.mark.parametrize(
    "n, alpha, theta, k, ties",
    [(16, 2.0, None, 3, False), (20, 1.5, 5.0, 2, False), (12, 3.0, 40.0, 1, False), (16, 2.0, None, 1, True)],
)
def test_beam_general_settings(n, alpha, theta, k, ties):
    result = beam_adversary(n, alpha, theta, rng=np.random.default_rng(1), n_relevant=k, width=4,
                            positive_at_threshold=ties)
    _check_sequence(result, n, alpha, theta, k=k, positive_at_threshold=ties)
    assert 0 < result.mistakes <= winnow2_bound(n, k, alpha, n if theta is None else theta)


def test_beam_reproducible():
    a = beam_adversary(24, 1.5, rng=np.random.default_rng(5), width=4)
    b = beam_adversary(24, 1.5, rng=np.random.default_rng(5), width=4)
    np.testing.assert_array_equal(a.X, b.X)
    assert a.mistakes == b.mistakes and a.states == b.states


def test_beam_max_rounds_truncates():
    result = beam_adversary(16, 1.1, rng=np.random.default_rng(0), max_rounds=5)
    assert result.mistakes == 5
    _check_sequence(result, 16, 1.1)


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        (dict(n_relevant=9), ValueError, r"n_relevant must be an integer in \[1, 8\], got 9"),
        (dict(width=0), ValueError, r"width must be an integer >= 1, got 0"),
        (dict(n_random=-1), ValueError, r"n_random must be an integer >= 0"),
        (dict(rng=3), TypeError, r"rng must be a numpy.random.Generator"),
        (dict(alpha=0.5), ValueError, r"alpha must be a finite real number > 1"),
        (dict(theta=0), ValueError, r"theta must be a finite real number > 0"),
    ],
)
def test_beam_bad_input(kwargs, exc, match):
    args = dict(n_features=8, alpha=2.0, rng=np.random.default_rng(0))
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        beam_adversary(**args)


# -- promotion_adversary -----------------------------------------------------------------------


@pytest.mark.parametrize("alpha", [1.1, 1.5, 2.0, 3.0])
@pytest.mark.parametrize("n, k, theta", [(16, 1, None), (64, 3, None), (100, 2, 10.0), (5, 5, 1.0)])
def test_promotion_adversary_meets_the_promotion_bound(alpha, n, k, theta):
    result = promotion_adversary(n, k, alpha, theta)
    th = n if theta is None else theta
    floor_log = math.floor(math.log(th) / math.log(alpha) + 1e-9)  # exact powers (2^6 = 64) must not round down
    assert result.promotions == result.mistakes == k * (1 + floor_log)
    assert result.demotions == 0 and (result.y == 1).all()
    assert (result.X.sum(axis=1) == 1).all()  # unit vectors
    _check_sequence(result, n, alpha, theta, k=k)


def test_promotion_adversary_tie_convention():
    # alpha = 2, theta = 64: ">" promotes at w = 1, ..., 64 (7 times), ">=" stops at 32 (6 times).
    assert promotion_adversary(64, 1, 2.0).promotions == 7
    assert promotion_adversary(64, 1, 2.0, positive_at_threshold=True).promotions == 6


@pytest.mark.parametrize(
    "args, exc, match",
    [
        ((4, 5, 2.0), ValueError, r"n_relevant must be an integer in \[1, 4\], got 5"),
        ((4, 0, 2.0), ValueError, r"n_relevant must be an integer in \[1, 4\], got 0"),
        ((4, 1, 1.0), ValueError, r"alpha must be a finite real number > 1"),
        ((4, 1, float("nan")), ValueError, r"alpha must be a finite real number > 1"),
    ],
)
def test_promotion_adversary_bad_input(args, exc, match):
    with pytest.raises(exc, match=match):
        promotion_adversary(*args)


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
        "alpha", "theta", "n_features", "n_relevant", "runs", "stderr", "n_streams", "bounds", "notes_violated"
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
        (dict(theta=0.5), ValueError, r"theta must be at least 1"),
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
    from onlinelib.widgets_winnow import winnow_explorer

    panel = winnow_explorer(seed=2)
    assert {w._kwarg: w.value for w in panel.kwargs_widgets} == {"alpha": 1.5, "theta_over_n": 1.0, "n_features": 64, "n_relevant": 1, "seed": 2}
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
