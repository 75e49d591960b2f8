"""Tests for onlinelib.adversaries: the adversaries of chapters 2-4 that meet the lower bounds.

The adversaries of chapter 1 are tested in test_streams.py, those of chapter 5 in
test_expert_streams_bounds.py, and winnow1_promotion_adversary in test_linear_streams.py.
"""

import copy
import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp

import onlinelib as ol
from onlinelib import Elimination, Winnow1, Winnow2, notes_winnow_bound, run, winnow1_bound, winnow2_bound
from onlinelib.adversaries import (
    AdversaryResult,
    beam_adversary,
    elimination_adversary,
    exhaustive_adversary,
    margin_adversary,
    promotion_adversary,
    winnow1_adaptive_adversary,
    winnow2_exact_replay,
    winnow_certificate,
    winnow_certificate_stream,
)
from onlinelib.bounds import exact_novikoff_bound


def labels_of(X, relevant):
    dense = X.toarray() if sp.issparse(X) else np.asarray(X)
    return np.where(dense[:, relevant].any(axis=1), 1, -1)


# -- chapter 2: winnow1_adaptive_adversary and elimination_adversary ----------------------------


@pytest.mark.parametrize("n, k", [(16, 1), (64, 4), (256, 2), (1024, 8)])
def test_adaptive_adversary_meets_the_sharp_bound(n, k):
    X, y, relevant = winnow1_adaptive_adversary(n, k)
    assert X.dtype == np.uint8 and X.shape == (len(y), n)
    assert (relevant == np.arange(k)).all()
    assert (labels_of(X, relevant) == y).all(), "the stream is not labelled by the target"
    learner = Winnow1(n)
    trace = run(learner, X, y)
    assert trace.n_mistakes == len(y), "every round of the adversary is a mistake"
    m = int(math.log2(n))
    assert learner.promotions == k * m
    assert trace.n_mistakes == 1 + 2 * k * (m - 1)


@pytest.mark.parametrize("theta", [0.25, 0.75, 3.0, 10.0, 100.0])
def test_adaptive_adversary_other_thresholds(theta):
    n, k = 128, 3
    X, y, relevant = winnow1_adaptive_adversary(n, k, theta)
    assert (labels_of(X, relevant) == y).all()
    learner = Winnow1(n, theta)
    trace = run(learner, X, y)
    assert trace.n_mistakes == len(y)
    if theta < 1:
        # relevant weights start above theta: no promotion; every irrelevant weight is eliminated
        assert learner.promotions == 0 and learner.eliminations == n - k
    else:
        assert learner.promotions == k * (math.floor(math.log2(theta)) + 1)
        assert trace.n_mistakes <= winnow1_bound(n, k, theta)


def test_adaptive_adversary_k_equals_n_and_errors():
    X, y, _ = winnow1_adaptive_adversary(4, 4)
    assert (y == 1).all() and len(y) == 4 * 2  # lg 4 = 2 promotions each, no irrelevant variable
    with pytest.raises(ValueError, match=r"n_relevant must be an integer in \[1, 4\], got 5"):
        winnow1_adaptive_adversary(4, 5)
    with pytest.raises(ValueError, match=r"theta must be a finite real number > 0, got -1.0"):
        winnow1_adaptive_adversary(8, 2, -1.0)
    with pytest.raises(TypeError, match=r"theta must be a real number > 0, got '4'"):
        winnow1_adaptive_adversary(8, 2, "4")


@pytest.mark.parametrize("n, k", [(2, 1), (16, 3), (300, 7)])
def test_elimination_adversary(n, k):
    X, y, relevant = elimination_adversary(n, k)
    assert X.shape == (n - k, n) and (y == -1).all() and (relevant == np.arange(k)).all()
    assert (labels_of(X, relevant) == y).all()
    assert run(Elimination(n, "disjunction", monotone=True), X, y).n_mistakes == n - k
    assert run(Winnow1(n), X, y).n_mistakes == 0


def test_elimination_adversary_errors():
    with pytest.raises(ValueError, match=r"n_relevant must be an integer in \[1, 3\], got 0"):
        elimination_adversary(3, 0)
    with pytest.raises(TypeError, match=r"n_features must be an integer .*, got 3.5"):
        elimination_adversary(3.5, 1)


# -- chapter 3: margin_adversary ----------------------------------------------------------------


class AlwaysPositive:
    def predict(self, x):
        return 1

    def update(self, x, y):
        pass


class LastLabel:
    """Predicts the last label seen (+1 at the start)."""

    def __init__(self):
        self.last = 1

    def predict(self, x):
        return self.last

    def update(self, x, y):
        self.last = int(y)


@pytest.mark.parametrize(
    "margin, radius, k",
    [
        (Fraction(1, 10), 1, 100),
        (0.1, 1, 99),
        (Fraction(1, 2), 1, 4),
        (Fraction(3, 10), 3, 100),
        (Fraction(2, 5), 1, 6),
        (1, 1, 1),
    ],
)
@pytest.mark.parametrize(
    "make",
    [
        lambda d: ol.Perceptron(d),
        lambda d: AlwaysPositive(),
        lambda d: LastLabel(),
        lambda d: ol.Perceptron(d, bias=True),
    ],
)
def test_every_round_is_a_mistake_and_margin_holds(margin, radius, k, make):
    d = k + 3
    run = margin_adversary(make(d), margin, radius, n_features=d)
    assert len(run.y) == k == run.trace.n_mistakes
    assert np.array_equal(run.y, -run.trace.predictions)
    assert run.X.shape == (k, d)
    # exact: R^2 ||u||^2 / xi^2 = k <= R^2 / gamma^2
    assert exact_novikoff_bound(run.X, run.y, run.u) == k
    assert Fraction(float(radius)) ** 2 / k >= Fraction(margin) ** 2
    assert np.isclose(np.linalg.norm(run.w_star), 1.0)
    assert np.all(run.u[k:] == 0)


def test_perceptron_gets_the_fixed_label_sequence():
    run = margin_adversary(ol.Perceptron(49), Fraction(1, 7))
    X, y, w = ol.perceptron_lower_bound_stream(1 / 7)
    assert np.array_equal(run.X, X) and np.array_equal(run.y, y)
    assert np.allclose(run.w_star, w)


def test_winnow2_on_unit_vectors():
    run = margin_adversary(ol.Winnow2(64), Fraction(1, 8), n_features=64)
    assert run.trace.n_mistakes == 64


def test_adversary_errors():
    with pytest.raises(TypeError, match="learner"):
        margin_adversary(object(), 0.5)
    with pytest.raises(TypeError, match="margin"):
        margin_adversary(AlwaysPositive(), "0.5")
    with pytest.raises(TypeError, match="margin"):
        margin_adversary(AlwaysPositive(), True)
    with pytest.raises(ValueError, match="margin"):
        margin_adversary(AlwaysPositive(), -0.5)
    with pytest.raises(ValueError, match="margin"):
        margin_adversary(AlwaysPositive(), float("nan"))
    with pytest.raises(ValueError, match="radius"):
        margin_adversary(AlwaysPositive(), 0.5, radius=0)
    with pytest.raises(ValueError, match="at most radius"):
        margin_adversary(AlwaysPositive(), 2, radius=1)
    # radii that are > 0 but not a positive finite float: checked as floats, with the usual message
    with pytest.raises(ValueError, match=r"^radius must be a finite real number > 0, got 0\.0$"):
        margin_adversary(AlwaysPositive(), 0.5, radius=Fraction(1, 10**400))
    with pytest.raises(ValueError, match=r"^radius must be a finite real number > 0, got 10{400}$"):
        margin_adversary(AlwaysPositive(), 0.5, radius=10**400)
    with pytest.raises(ValueError, match="n_features"):
        margin_adversary(AlwaysPositive(), Fraction(1, 3), n_features=8)
    with pytest.raises(ValueError, match="rounds"):
        margin_adversary(AlwaysPositive(), Fraction(1, 1000))
    with pytest.raises(ValueError, match="predict"):

        class Bad(AlwaysPositive):
            def predict(self, x):
                return 0

        margin_adversary(Bad(), 0.5)


# -- exhaustive_adversary -------------------------------------------------------------------

EXACT_MAXIMA = {  # (alpha, N) -> the longest mistake sequence (chapter 4's table)
    (2.0, 2): 2,
    (2.0, 3): 3,
    (2.0, 4): 5,
    (2.0, 5): 6,
    (2.0, 6): 6,
    (1.5, 2): 2,
    (1.5, 3): 4,
    (1.5, 4): 6,
    (1.5, 5): 7,
    (1.5, 6): 9,
    (1.1, 2): 8,
    (1.1, 3): 12,
    (1.1, 4): 19,
}


def _check_sequence(result, n, alpha, theta=None, k=1, positive_at_threshold=False):
    """Every round is a Winnow mistake and the labels are those of x_0 or ... or x_{k-1}."""
    assert isinstance(result, AdversaryResult)
    assert result.X.dtype == np.uint8 and result.y.dtype == np.int8
    assert result.X.shape == (len(result.y), n)
    # Replayed in exact arithmetic: float Winnow2 may round a score equal to theta across it.
    predicted, exponents, _ = winnow2_exact_replay(
        result.X, result.y, alpha, theta, positive_at_threshold=positive_at_threshold
    )
    assert (predicted != result.y).all() and len(result.y) == result.mistakes
    if len(result.y):
        np.testing.assert_array_equal(result.y, np.where(result.X[:, :k].any(axis=1), 1, -1))
    assert result.promotions + result.demotions == result.mistakes
    assert result.promotions == int(np.count_nonzero(result.y == 1))
    np.testing.assert_array_equal(
        exponents, result.X[result.y == 1].sum(axis=0).astype(np.int64) - result.X[result.y == -1].sum(axis=0)
    )


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
    result = beam_adversary(
        n, alpha, theta, rng=np.random.default_rng(1), n_relevant=k, width=4, positive_at_threshold=ties
    )
    _check_sequence(result, n, alpha, theta, k=k, positive_at_threshold=ties)
    assert 0 < result.mistakes <= winnow2_bound(n, k, alpha, n if theta is None else theta)


def test_beam_decides_ties_exactly():
    """At alpha = 1.6, N = 192 the scores hit theta exactly; float Winnow2 rounds some ties across."""
    result = beam_adversary(192, 1.6, rng=np.random.default_rng(0))
    _check_sequence(result, 192, 1.6)
    assert result.mistakes > notes_winnow_bound(192, 1)
    _, _, scores = winnow2_exact_replay(result.X, result.y, 1.6, 192)
    assert any(score == 192 for score in scores)
    assert run(Winnow2(192, 1.6, 192), result.X, result.y).n_mistakes < result.mistakes


def test_exact_replay_decides_a_tie_as_winnow_does():
    # alpha = 1/2 + 1: weights 1.5^e; x = (1, 1) with theta = 2 scores exactly 2, a tie.
    X = np.array([[1, 1], [1, 1]], dtype=np.uint8)
    y = np.array([1, -1], dtype=np.int8)
    predicted, exponents, scores = winnow2_exact_replay(X, y, 1.5, 2.0)
    assert scores[0] == 2 and predicted[0] == -1  # w.x = theta predicts -1
    assert scores[1] == 3 and predicted[1] == 1  # 1.5 + 1.5 > 2
    np.testing.assert_array_equal(exponents, [0, 0])
    predicted, _, _ = winnow2_exact_replay(X[:1], y[:1], 1.5, 2.0, positive_at_threshold=True)
    assert predicted[0] == 1


@pytest.mark.parametrize(
    "X, y, alpha, theta, exc, match",
    [
        (np.ones((2, 2)) * 2, np.ones(2), 1.5, None, ValueError, r"X must be a 2-d array of 0s and 1s"),
        (np.ones((2, 2)), np.ones(3), 1.5, None, ValueError, r"y must hold one label"),
        (np.ones((2, 2)), np.ones(2), 1.0, None, ValueError, r"alpha must be a finite real number > 1"),
        (np.ones((2, 2)), np.ones(2), 1.5, 0.0, ValueError, r"theta must be a finite real number > 0"),
    ],
)
def test_exact_replay_bad_input(X, y, alpha, theta, exc, match):
    with pytest.raises(exc, match=match):
        winnow2_exact_replay(X, y, alpha, theta)


def test_exact_replay_other_alphas_use_the_float_value():
    # alpha = pi/2 is no small ratio: the replay uses the float's exact value, and on a random
    # stream (no ties) it agrees with Winnow2.
    rng = np.random.default_rng(3)
    X = (rng.random((300, 12)) < 0.3).astype(np.uint8)
    y = np.where(X[:, :2].any(axis=1), 1, -1).astype(np.int8)
    predicted, _, _ = winnow2_exact_replay(X, y, np.pi / 2, 12 * 0.7)
    trace = run(Winnow2(12, np.pi / 2, 12 * 0.7), X, y)
    np.testing.assert_array_equal(predicted, trace.predictions)
    result = beam_adversary(10, 1.1500000000000001, rng=np.random.default_rng(0), width=2)
    assert result.mistakes > 0


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
    a, t = Fraction(alpha).limit_denominator(1000), Fraction(th)
    floor_log = max(j for j in range(200) if a**j <= t)  # exact: 2^6 = 64 must not round down
    assert result.promotions == result.mistakes == k * (1 + floor_log)
    assert result.demotions == 0 and (result.y == 1).all()
    assert (result.X.sum(axis=1) == 1).all()  # unit vectors
    _check_sequence(result, n, alpha, theta, k=k)


def test_promotion_adversary_decides_powers_exactly():
    # 1.1^2 = 1.21 exactly, but 1.1 * 1.1 = 1.2100000000000002 in floats: w = 1.21 = theta is a
    # tie, predicted -1, so w is promoted at 1, 1.1 and 1.21 (3 times), at 1 and 1.1 with ">=".
    assert promotion_adversary(4, 1, 1.1, 1.21).promotions == 3
    assert promotion_adversary(4, 1, 1.1, 1.21, positive_at_threshold=True).promotions == 2
    _check_sequence(promotion_adversary(4, 1, 1.1, 1.21), 4, 1.1, 1.21)


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


# -- winnow_certificate: streams for the target x_0 as text (chapter 4) --------------------------------


@pytest.mark.parametrize(
    ("n", "alpha", "ties"),
    [(7, 1.5, False), (24, 1.5, True), (40, 1.5, False), (64, 2.0, False), (48, 1.6, True)],
)
def test_certificate_round_trip_keeps_every_score(n, alpha, ties):
    result = beam_adversary(n, alpha, rng=np.random.default_rng(1), width=4, positive_at_threshold=ties)
    text = winnow_certificate(result.X, result.y)
    X, y = winnow_certificate_stream(n, text)
    np.testing.assert_array_equal(y, result.y)
    # the rebuilt stream permutes irrelevant attributes of equal weight: same scores, same mistakes
    before = winnow2_exact_replay(result.X, result.y, alpha, n, positive_at_threshold=ties)
    after = winnow2_exact_replay(X, y, alpha, n, positive_at_threshold=ties)
    assert before[2] == after[2]
    np.testing.assert_array_equal(before[0], after[0])
    assert int(np.count_nonzero(after[0] != y)) == result.mistakes == len(y)
    np.testing.assert_array_equal(np.sort(before[1][1:]), np.sort(after[1][1:]))
    assert before[1][0] == after[1][0]
    assert winnow_certificate(X, y) == text  # the rebuilt stream is its own canonical form
    spaced, _ = winnow_certificate_stream(n, ";\n    ".join(text.split(";")))  # whitespace is ignored
    np.testing.assert_array_equal(spaced, X)


def test_certificate_format_by_hand():
    # N = 4, target x_0: a promotion of x_0 with all three irrelevant attributes, then a demotion of two
    X = np.array([[1, 1, 1, 1], [0, 1, 1, 0]], dtype=np.uint8)
    y = np.array([1, -1], dtype=np.int8)
    assert winnow_certificate(X, y) == "+0:3;-1:2"
    X2, y2 = winnow_certificate_stream(4, " +0:3 ;\n -1:2 ")
    np.testing.assert_array_equal(X2, X)
    np.testing.assert_array_equal(y2, y)
    X3, y3 = winnow_certificate_stream(4, "+;-0:3")  # x_0 alone, then the three irrelevant ones
    np.testing.assert_array_equal(X3, [[1, 0, 0, 0], [0, 1, 1, 1]])
    np.testing.assert_array_equal(y3, [1, -1])
    X4, y4 = winnow_certificate_stream(3, "")
    assert X4.shape == (0, 3) and y4.shape == (0,)


@pytest.mark.parametrize(
    ("X", "y", "match"),
    [
        (np.array([[1, 0], [0, 1]]), np.array([1, 1]), r"y must be the target x_0 .* round 1"),
        (np.array([[2, 0]]), np.array([1]), r"X must be a 2-d array of 0s and 1s"),
        (np.array([[1, 0]]), np.array([1, -1]), r"y must hold one label"),
        (np.zeros((1, 0)), np.array([-1]), r"at least one column"),
    ],
)
def test_certificate_bad_stream(X, y, match):
    with pytest.raises(ValueError, match=match):
        winnow_certificate(X, y)


@pytest.mark.parametrize(
    ("n", "text", "exc", "match"),
    [
        (4, "*0:1", ValueError, r"round 0 must start with '\+' or '-'"),
        (4, "+0:1;;-0:1", ValueError, r"round 1 must start"),
        (4, "+0:x", ValueError, r"round 0 has a pair '0:x', not 'exponent:count'"),
        (4, "+0:4", ValueError, r"switches on 4 variables at exponent 0, but n_features = 4 leaves 3"),
        (4, "+1:1", ValueError, r"exponent 1, but n_features = 4 leaves 0"),
        (4, "+0:0", ValueError, r"switches on 0 variables"),
        (0, "+", ValueError, r"n_features"),
        (4, b"+0:1", TypeError, r"certificate must be a str, got bytes"),
    ],
)
def test_certificate_stream_bad_input(n, text, exc, match):
    with pytest.raises(exc, match=match):
        winnow_certificate_stream(n, text)
