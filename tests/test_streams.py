"""Tests for onlinelib.streams: random_stream, one_per_round_adversary, adaptive_adversary, ones_halfcube."""

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from examples import EIGHT
from onlinelib import (
    SOA,
    AdaptiveRun,
    ConceptClass,
    Halving,
    RandomizedHalving,
    Trace,
    adaptive_adversary,
    all_concepts,
    littlestone_dimension,
    monotone_disjunctions,
    one_per_round_adversary,
    random_stream,
    run,
    singletons,
    thresholds,
)
from onlinelib.streams import halfcube_vote_sums, ones_halfcube

PROPERTY = settings(max_examples=80, deadline=None, database=None)


CLASSES = [
    thresholds(1),
    thresholds(7),
    thresholds(20),
    singletons(5),
    singletons(4, include_empty=False),
    all_concepts(3),
    monotone_disjunctions(3),
    monotone_disjunctions(4, max_terms=2),
    ConceptClass(EIGHT, name="eight"),
]


class ReturnsZero:
    def predict(self, x):
        return 0

    def update(self, x, y):
        pass


def version_space_sizes(cls, X, y):
    return run(Halving(cls), X, y, observe={"|V|": lambda L: L.size}).observed["|V|"].astype(int)


# =========================================================================== random_stream
def test_random_stream_shapes_and_labels():
    cls = thresholds(9)
    X, y = random_stream(cls, 4, 200, np.random.default_rng(0))
    assert X.shape == (200,) and y.shape == (200,)
    assert np.issubdtype(X.dtype, np.integer) and y.dtype == np.int8
    assert X.min() >= 0 and X.max() < cls.n_instances
    np.testing.assert_array_equal(y, np.where(X >= 4, 1, -1))
    # 200 uniform draws over 9 points hit every point (miss probability < 9 * (8/9)^200 < 1e-9)
    assert set(X.tolist()) == set(range(9))


def test_random_stream_reproducible_and_seed_dependent():
    cls = all_concepts(4)
    a = random_stream(cls, 5, 50, np.random.default_rng(7))
    b = random_stream(cls, 5, 50, np.random.default_rng(7))
    c = random_stream(cls, 5, 50, np.random.default_rng(8))
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])


def test_random_stream_length_one_and_numpy_length():
    X, y = random_stream(thresholds(3), 0, np.int64(1), np.random.default_rng(0))
    assert len(X) == 1 and y[0] == 1  # concept 0 labels every point +1


@pytest.mark.parametrize("target", [-1, 4])
def test_random_stream_rejects_target_outside_class(target):
    with pytest.raises(ValueError, match="target must be a concept of thresholds on 3 points"):
        random_stream(thresholds(3), target, 5, np.random.default_rng(0))


@pytest.mark.parametrize("length", [0, -2, 2.0, True])
def test_random_stream_rejects_bad_length(length):
    with pytest.raises(ValueError, match="length must be a positive integer"):
        random_stream(thresholds(3), 0, length, np.random.default_rng(0))


@pytest.mark.parametrize("rng", [0, None])
def test_random_stream_rejects_non_generator(rng):
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        random_stream(thresholds(3), 0, 5, rng)


def test_random_stream_rejects_non_class():
    with pytest.raises(TypeError, match="concept_class must be"):
        random_stream(np.eye(3, dtype=bool), 0, 5, np.random.default_rng(0))


# =========================================================================== one_per_round_adversary
@pytest.mark.parametrize(
    "target, X, y",
    [
        (0, [2, 1, 0], [1, 1, 1]),
        (1, [0, 2, 1], [-1, 1, 1]),
        (3, [0, 1, 2], [-1, -1, -1]),
    ],
)
def test_one_per_round_thresholds_3_by_hand(target, X, y):
    # rows s = 0..3: [1,1,1], [0,1,1], [0,0,1], [0,0,0]; the lowest eligible instance is used
    Xa, ya = one_per_round_adversary(thresholds(3), target)
    np.testing.assert_array_equal(Xa, X)
    np.testing.assert_array_equal(ya, y)
    assert Xa.dtype == np.int64 and ya.dtype == np.int8


@pytest.mark.parametrize(
    "cls",
    [thresholds(1), thresholds(10), singletons(6), singletons(6, include_empty=False), all_concepts(1)],
    ids=lambda c: c.name,
)
def test_one_per_round_removes_exactly_one_concept_per_round(cls):
    for target in range(cls.size):
        for rng in (None, np.random.default_rng(target)):
            X, y = one_per_round_adversary(cls, target, rng)
            assert len(X) == cls.size - 1
            np.testing.assert_array_equal(y, cls.labels(target, X))
            sizes = version_space_sizes(cls, X, y)
            np.testing.assert_array_equal(sizes, np.arange(cls.size, 0, -1))


def test_one_per_round_with_rng_is_random_and_reproducible():
    cls = singletons(12)
    a = one_per_round_adversary(cls, 12, np.random.default_rng(1))[0]
    b = one_per_round_adversary(cls, 12, np.random.default_rng(1))[0]
    c = one_per_round_adversary(cls, 12)[0]
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(c, np.arange(12))  # deterministic: lowest instance first
    assert sorted(a.tolist()) == list(range(12)) and not np.array_equal(a, c)


def test_one_per_round_stops_at_duplicates_of_target():
    cls = ConceptClass([[0, 0], [0, 0], [1, 0], [1, 1]])  # concepts 0 and 1 are identical
    X, y = one_per_round_adversary(cls, 0)
    assert len(X) == 2
    np.testing.assert_array_equal(version_space_sizes(cls, X, y), [4, 3, 2])


def test_one_per_round_single_concept_gives_empty_stream():
    # Surprising but documented-consistent: |C| - 1 = 0 rounds. Such a stream cannot be
    # passed to run() or randomized_halving_expected_mistakes (they reject empty streams).
    X, y = one_per_round_adversary(ConceptClass([[1, 0]]), 0)
    assert X.shape == (0,) and y.shape == (0,)


@pytest.mark.parametrize("target", [0, 5])
def test_one_per_round_impossible_on_all_concepts_3(target):
    # every instance splits all_concepts(3) into two halves of 4: no instance removes exactly one
    with pytest.raises(ValueError, match=rf"admits no one-per-round sequence for target {target}: at round 1"):
        one_per_round_adversary(all_concepts(3), target)


def test_one_per_round_impossible_later_names_round():
    # target [0,0,0]: round 1 uses x = 0 to remove [1,0,0]; then the two identical rows
    # [0,1,1] disagree with the target on x = 1 and x = 2 together, so nothing removes just one.
    cls = ConceptClass([[0, 0, 0], [1, 0, 0], [0, 1, 1], [0, 1, 1]])
    with pytest.raises(ValueError, match=r"at round 2 no instance eliminates exactly one of the 3 concepts left"):
        one_per_round_adversary(cls, 0)


@pytest.mark.parametrize("target", [-1, 4, 10])
def test_one_per_round_rejects_target_outside_class(target):
    with pytest.raises(ValueError, match="target must be a concept of thresholds on 3 points"):
        one_per_round_adversary(thresholds(3), target)


def test_one_per_round_rejects_non_generator_and_non_class():
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        one_per_round_adversary(thresholds(3), 0, 42)
    with pytest.raises(TypeError, match="concept_class must be"):
        one_per_round_adversary(np.eye(3, dtype=bool), 0)


# =========================================================================== adaptive_adversary
@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.name)
def test_adaptive_adversary_soa_exactly_ldim(cls):
    d = littlestone_dimension(cls)
    result = adaptive_adversary(SOA(cls), cls)
    assert isinstance(result, AdaptiveRun) and isinstance(result.trace, Trace)
    assert result.trace.n_mistakes == d
    assert len(result.X) == d  # every round is a mistake


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.name)
@pytest.mark.parametrize("kind", ["halving", "soa"])
def test_adaptive_adversary_stream_consistent_and_replayable(cls, kind):
    make = Halving if kind == "halving" else SOA
    result = adaptive_adversary(make(cls), cls)
    assert result.trace.n_mistakes >= littlestone_dimension(cls)
    np.testing.assert_array_equal(result.trace.predictions, -result.trace.labels)
    np.testing.assert_array_equal(result.y, result.trace.labels)
    np.testing.assert_array_equal(result.y, cls.labels(result.target, result.X))
    # the target is the only concept left (up to duplicates)
    h = Halving(cls)
    for x, y in zip(result.X.tolist(), result.y.tolist(), strict=True):
        h.update(x, y)
    assert h.alive[result.target]
    assert (cls.table[h.alive] == cls.table[result.target]).all()
    # a deterministic learner replayed on the stream does exactly the same thing
    if len(result.X):
        assert run(make(cls), result.X, result.y) == result.trace


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.name)
@pytest.mark.parametrize("redraw", ["on_elimination", "every_round"])
def test_adaptive_adversary_randomized_halving_at_least_ldim(cls, redraw):
    d = littlestone_dimension(cls)
    for seed in range(3):
        result = adaptive_adversary(RandomizedHalving(cls, np.random.default_rng(seed), redraw), cls)
        assert result.trace.n_mistakes >= d
        np.testing.assert_array_equal(result.y, cls.labels(result.target, result.X))


def test_adaptive_adversary_halving_on_thresholds_7_by_hand():
    # Ldim(thresholds(7)) = 3 = floor(lg 8): both learners lose exactly 3 times.
    assert adaptive_adversary(Halving(thresholds(7)), thresholds(7)).trace.n_mistakes == 3


def test_adaptive_adversary_single_concept_class():
    cls = ConceptClass([[1, 0, 1]])
    result = adaptive_adversary(Halving(cls), cls)
    assert result.target == 0 and len(result.X) == 0 and result.trace.n_mistakes == 0


def test_adaptive_adversary_errors():
    with pytest.raises(TypeError, match="learner must have predict"):
        adaptive_adversary(object(), thresholds(3))
    with pytest.raises(TypeError, match="concept_class must be"):
        adaptive_adversary(Halving(thresholds(3)), np.eye(3, dtype=bool))
    with pytest.raises(ValueError, match=r"ReturnsZero.predict must return -1 or \+1, returned 0"):
        adaptive_adversary(ReturnsZero(), thresholds(3))


@st.composite
def tables(draw, max_concepts=8, max_instances=5):
    n_c = draw(st.integers(1, max_concepts))
    n_x = draw(st.integers(1, max_instances))
    return draw(hnp.arrays(np.bool_, (n_c, n_x)))


@PROPERTY
@given(tables(), st.integers(0, 2**32 - 1))
def test_property_adaptive_adversary(table, seed):
    cls = ConceptClass(table)
    d = littlestone_dimension(cls)
    soa = adaptive_adversary(SOA(cls), cls)
    assert soa.trace.n_mistakes == d
    np.testing.assert_array_equal(soa.y, cls.labels(soa.target, soa.X))
    halving = adaptive_adversary(Halving(cls), cls)
    assert halving.trace.n_mistakes >= d
    np.testing.assert_array_equal(halving.y, cls.labels(halving.target, halving.X))
    if len(halving.X):
        assert run(Halving(cls), halving.X, halving.y) == halving.trace
    rh = adaptive_adversary(RandomizedHalving(cls, np.random.default_rng(seed)), cls)
    assert rh.trace.n_mistakes >= d


@PROPERTY
@given(st.sampled_from(["thresholds", "singletons"]), st.integers(1, 25), st.data())
def test_property_one_per_round(kind, m, data):
    cls = thresholds(m) if kind == "thresholds" else singletons(m)
    target = data.draw(st.integers(0, cls.size - 1))
    seed = data.draw(st.none() | st.integers(0, 2**32 - 1))
    X, y = one_per_round_adversary(cls, target, None if seed is None else np.random.default_rng(seed))
    assert len(X) == cls.size - 1
    np.testing.assert_array_equal(y, cls.labels(target, X))
    np.testing.assert_array_equal(version_space_sizes(cls, X, y), np.arange(cls.size, 0, -1))


@PROPERTY
@given(tables(max_concepts=10, max_instances=6), st.data())
def test_property_random_stream_consistent(table, data):
    cls = ConceptClass(table)
    target = data.draw(st.integers(0, cls.size - 1))
    length = data.draw(st.integers(1, 40))
    X, y = random_stream(cls, target, length, np.random.default_rng(data.draw(st.integers(0, 2**32 - 1))))
    assert len(X) == length
    np.testing.assert_array_equal(y, np.where(table[target, X], 1, -1))


# -- ones_halfcube (chapter 7's inner loop) -----------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 10])
def test_ones_halfcube_rows_lie_in_the_positive_halfcube(n):
    U = ones_halfcube(n, 500, np.random.default_rng(n))
    assert U.shape == (500, n) and U.dtype == np.int8
    assert set(np.unique(U)) <= {-1, 1}
    assert (U.sum(axis=1) >= 0).all()
    assert ones_halfcube(n, 0, np.random.default_rng(0)).shape == (0, n)


@pytest.mark.parametrize("n", [3, 4])
def test_ones_halfcube_is_uniform(n):
    """Odd n (flipped draws) and even n (redrawn draws): each positive vertex within 5 sigma of its share.

    n = 3: the 4 vertices with at most one -1; n = 4: the 11 with at most two -1s (sum 4, 2 or 0).
    """
    draws = 40_000
    U = ones_halfcube(n, draws, np.random.default_rng(11 + n))
    vertices, counts = np.unique(U, axis=0, return_counts=True)
    cube = np.array(np.meshgrid(*[[-1, 1]] * n)).reshape(n, -1).T
    positive = cube[cube.sum(axis=1) >= 0]
    assert len(vertices) == len(positive) == {3: 4, 4: 11}[n]
    p = 1 / len(positive)
    sigma = np.sqrt(draws * p * (1 - p))
    assert np.all(np.abs(counts - draws * p) < 5 * sigma), counts


@pytest.mark.parametrize("n", [3, 4, 9, 12])
def test_halfcube_vote_sums_of_single_draws_are_uniform_on_the_halfcube(n):
    """per_group = 1: each group's sum is one draw; every positive vertex within 5 sigma of its share
    (n = 9 and 12: the bits cross a byte boundary and the last byte is partly masked)."""
    draws = 40_000 if n <= 4 else 200_000
    U = halfcube_vote_sums(n, draws, 1, np.random.default_rng(21 + n))
    assert U.shape == (draws, n) and set(np.unique(U)) <= {-1, 1} and (U.sum(axis=1) >= 0).all()
    vertices, counts = np.unique(U, axis=0, return_counts=True)
    cube = np.array(np.meshgrid(*[[-1, 1]] * n)).reshape(n, -1).T
    positive = cube[cube.sum(axis=1) >= 0]
    assert len(vertices) == len(positive)
    p = 1 / len(positive)
    sigma = np.sqrt(draws * p * (1 - p))
    assert np.all(np.abs(counts - draws * p) < 5 * sigma), counts


@pytest.mark.parametrize("n", [5, 6])
def test_halfcube_vote_sums_match_summed_draws_in_law(n):
    """Group sums of 50 draws against ones_halfcube's, coordinate by coordinate: means and variances
    within 5 standard errors (the two draw their bits differently, so agreement is in law)."""
    groups, per = 4000, 50
    fast = halfcube_vote_sums(n, groups, per, np.random.default_rng(1))
    slow = ones_halfcube(n, groups * per, np.random.default_rng(2)).reshape(groups, per, n).sum(axis=1)
    assert fast.shape == slow.shape == (groups, n) and fast.dtype == np.int64
    assert np.all((fast + per) % 2 == 0)  # a sum of 50 signs is even
    se = np.sqrt(slow.var(axis=0) / groups * 2)
    assert np.all(np.abs(fast.mean(axis=0) - slow.mean(axis=0)) < 5 * se)
    assert np.all(np.abs(fast.var(axis=0) / slow.var(axis=0) - 1) < 5 * np.sqrt(2 / groups) * 2)
    assert halfcube_vote_sums(n, 0, per, np.random.default_rng(0)).shape == (0, n)
    assert not halfcube_vote_sums(n, 3, 0, np.random.default_rng(0)).any()


def test_halfcube_vote_sums_bad_input():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"^n must be an integer >= 1, got 0$"):
        halfcube_vote_sums(0, 2, 2, rng)
    with pytest.raises(ValueError, match=r"^groups must be an integer >= 0, got -1$"):
        halfcube_vote_sums(3, -1, 2, rng)
    with pytest.raises(ValueError, match=r"^per_group must be an integer >= 0, got -2$"):
        halfcube_vote_sums(3, 2, -2, rng)
    with pytest.raises(TypeError, match=r"^rng must be a numpy.random.Generator, .*got int$"):
        halfcube_vote_sums(3, 2, 2, 0)


def test_ones_halfcube_bad_input():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"^n must be an integer >= 1, got 0$"):
        ones_halfcube(0, 5, rng)
    with pytest.raises(TypeError, match=r"^n must be an integer >= 1, got 3\.0$"):
        ones_halfcube(3.0, 5, rng)
    with pytest.raises(ValueError, match=r"^size must be an integer >= 0, got -1$"):
        ones_halfcube(3, -1, rng)
    with pytest.raises(TypeError, match=r"^size must be an integer >= 0, got True$"):
        ones_halfcube(3, True, rng)
    with pytest.raises(TypeError, match=r"^rng must be a numpy.random.Generator, .*got int$"):
        ones_halfcube(3, 5, 0)
