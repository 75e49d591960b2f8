"""Tests for onlinelib.version_space: Halving, SOA, Randomized Halving, Ldim, worst-case search."""

from fractions import Fraction
from functools import lru_cache

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from examples import EIGHT
from onlinelib import (
    SOA,
    ConceptClass,
    Halving,
    RandomizedHalving,
    all_concepts,
    harmonic_number,
    littlestone_dimension,
    monotone_disjunctions,
    one_per_round_adversary,
    randomized_halving_expected_mistakes,
    run,
    simulate_randomized_halving,
    singletons,
    thresholds,
    worst_case_mistakes,
)

VARIANTS = ("on_elimination", "every_round")
PROPERTY = settings(max_examples=100, deadline=None, database=None)


# On instance 0, the +1 side (5 concepts: singletons on x1..x4 plus empty, Ldim 1) is larger,
# but the -1 side (all 4 concepts on x1, x2, Ldim 2) has the larger Ldim: Halving says +1, SOA -1.
SPLIT = [
    [1, 1, 0, 0, 0],
    [1, 0, 1, 0, 0],
    [1, 0, 0, 1, 0],
    [1, 0, 0, 0, 1],
    [1, 0, 0, 0, 0],
    [0, 0, 0, 0, 0],
    [0, 1, 0, 0, 0],
    [0, 0, 1, 0, 0],
    [0, 1, 1, 0, 0],
]


def floor_lg(n: int) -> int:
    return n.bit_length() - 1


def naive_ldim(table) -> int:
    """Plain recursive Ldim from the definition (no pruning), memoised on index sets."""
    table = np.asarray(table, dtype=bool)
    n_instances = table.shape[1]

    @lru_cache(maxsize=None)
    def ld(V: frozenset) -> int:
        if not V:
            return -1
        if len(V) == 1:
            return 0
        best = 0
        for x in range(n_instances):
            V1 = frozenset(c for c in V if table[c, x])
            V0 = V - V1
            if V0 and V1:
                best = max(best, 1 + min(ld(V0), ld(V1)))
        return best

    return ld(frozenset(range(table.shape[0])))


@st.composite
def class_target_stream(draw, max_concepts=10, max_instances=6, max_length=40):
    n_concepts = draw(st.integers(1, max_concepts))
    n_instances = draw(st.integers(1, max_instances))
    table = draw(hnp.arrays(np.bool_, (n_concepts, n_instances)))
    target = draw(st.integers(0, n_concepts - 1))
    X = np.array(draw(st.lists(st.integers(0, n_instances - 1), min_size=1, max_size=max_length)), dtype=np.int64)
    cls = ConceptClass(table)
    return cls, target, X, cls.labels(target, X)


@st.composite
def small_tables(draw, max_concepts=7, max_instances=6):
    n_concepts = draw(st.integers(1, max_concepts))
    n_instances = draw(st.integers(1, max_instances))
    return draw(hnp.arrays(np.bool_, (n_concepts, n_instances)))


# thresholds(3): rows s = 0..3 are [1,1,1], [0,1,1], [0,0,1], [0,0,0].
# X = [2, 0, 2], y = [+1, -1, -1]: V_1 = {0,1,2}, V_2 = {1,2}, V_3 = {} (both have x2 = 1).
BAD_X, BAD_Y = [2, 0, 2], [1, -1, -1]
EMPTY_AT_3 = (
    r"consistent with no concept of thresholds on 3 points: the version space became empty at round 3 \(x = 2, y = -1\)"
)


def make_learner(kind, cls, seed=0):
    if kind == "halving":
        return Halving(cls)
    if kind == "soa":
        return SOA(cls)
    return RandomizedHalving(cls, np.random.default_rng(seed), redraw=kind)


ALL_KINDS = ["halving", "soa", *VARIANTS]


# =========================================================================== Halving
def test_halving_predictions_by_hand_with_tie_rule():
    h = Halving(thresholds(3))
    assert h.votes(0) == (3, 1)
    assert h.predict(0) == -1  # 1 of 4 votes +1
    assert h.votes(1) == (2, 2)
    assert h.predict(1) == 1  # tie -> +1
    assert h.predict(2) == 1  # 3 of 4
    h.update(1, -1)  # V = {2, 3}
    np.testing.assert_array_equal(h.version_space, [2, 3])
    assert h.size == 2 and h.rounds == 1
    assert h.votes(2) == (1, 1)
    assert h.predict(2) == 1  # tie again -> +1
    assert h.predict(0) == -1  # unanimous
    h.update(2, -1)  # V = {3}
    np.testing.assert_array_equal(h.version_space, [3])
    assert [h.predict(x) for x in range(3)] == [-1, -1, -1]


@pytest.mark.parametrize("kind", ["halving", "soa", "on_elimination"])
def test_version_space_views(kind):
    learner = make_learner(kind, thresholds(5))  # rows s = 0..5, c_s(x) = +1 iff x >= s
    learner.update(2, -1)  # V = {3, 4, 5}
    np.testing.assert_array_equal(learner.version_space, [3, 4, 5])
    np.testing.assert_array_equal(learner.alive, [False, False, False, True, True, True])
    assert learner.alive.dtype == bool
    assert [learner.contains(c) for c in range(6)] == [False, False, False, True, True, True]
    assert learner.contains(np.int64(4)) is True
    # the views are copies: changing them does not change the learner
    vs = learner.version_space
    vs[:] = 0
    mask = learner.alive
    mask[:] = True
    assert learner.size == 3 and not learner.contains(0)


@pytest.mark.parametrize("kind", ["halving", "soa", "on_elimination"])
def test_version_space_views_after_collapse(kind):
    # thresholds(40) has 41 concepts; x = 38 labelled -1 leaves V = {39, 40}, a tiny fraction of C
    learner = make_learner(kind, thresholds(40))
    learner.update(38, -1)
    np.testing.assert_array_equal(learner.version_space, [39, 40])
    np.testing.assert_array_equal(np.flatnonzero(learner.alive), [39, 40])
    assert learner.contains(40) and not learner.contains(0)
    assert learner.size == 2
    learner.update(39, -1)
    np.testing.assert_array_equal(learner.version_space, [40])
    assert learner.predict(0) == -1


@pytest.mark.parametrize(
    "n_points, x",
    [
        pytest.param(5, 2, id="large V"),
        pytest.param(40, 38, id="small V"),
    ],
)
def test_version_space_returns_a_copy(n_points, x):
    # the returned index array must not be the learner's own state
    h = Halving(thresholds(n_points))
    h.update(x, -1)
    before = h.version_space.copy()
    vs = h.version_space
    vs[:] = 0
    np.testing.assert_array_equal(h.version_space, before)
    assert not h.contains(0)


def test_contains_rejects_bad_concept():
    h = Halving(thresholds(3))
    with pytest.raises(ValueError, match=r"concept must be a concept of thresholds on 3 points.*got 4"):
        h.contains(4)
    with pytest.raises(TypeError, match="concept must be a concept index"):
        h.contains(1.0)


def test_halving_reset():
    h = Halving(thresholds(3))
    h.update(1, 1)
    assert h.size == 2
    h.reset()
    assert h.size == 4 and h.rounds == 0
    assert h.alive.all()


def test_halving_accepts_numpy_integer_instances():
    h = Halving(thresholds(3))
    h.update(np.int64(1), np.int8(-1))
    assert h.size == 2


# =========================================================================== SOA
def test_soa_predictions_by_hand_on_thresholds():
    s = SOA(thresholds(3))
    assert s.ldim == 2
    assert s.dimensions(1) == (1, 1)
    assert s.predict(1) == 1  # tie -> +1
    assert s.dimensions(0) == (1, 0)  # xi_0 = {1,2,3}, xi_1 = {0}
    assert s.predict(0) == -1
    assert s.dimensions(2) == (0, 1)  # xi_0 = {3}, xi_1 = {0,1,2}
    assert s.predict(2) == 1
    s.update(1, -1)
    s.update(2, -1)  # V = {3}
    assert s.ldim == 0
    assert s.dimensions(0) == (0, -1)  # empty side has Ldim -1
    assert s.predict(0) == -1


def test_soa_differs_from_halving():
    cls = ConceptClass(SPLIT)
    assert Halving(cls).votes(0) == (4, 5)
    assert Halving(cls).predict(0) == 1
    assert SOA(cls).dimensions(0) == (2, 1)
    assert SOA(cls).predict(0) == -1


# =========================================================================== Randomized Halving
def test_randomized_halving_keeps_concept_until_eliminated():
    cls = thresholds(3)
    rh = RandomizedHalving(cls, np.random.default_rng(5))
    assert rh.held is None and rh.draws == 0
    p = rh.predict(1)
    h = rh.held
    assert rh.draws == 1 and rh.alive[h]
    assert p == cls.labels(h, [1])[0]
    # a label the held concept agrees with keeps it, and no new draw happens
    rh.update(1, int(cls.labels(h, [1])[0]))
    assert rh.held == h
    rh.predict(0)
    assert rh.draws == 1
    # find an instance that splits V and answer against the held concept: it is eliminated
    x = next(x for x in range(3) if 0 < cls.by_instance[x][rh.alive].sum() < rh.size)
    rh.update(x, -int(cls.labels(h, [x])[0]))
    assert rh.held is None and not rh.alive[h]
    rh.predict(0)
    assert rh.draws == 2 and rh.alive[rh.held]


def test_randomized_halving_every_round_redraws():
    rh = RandomizedHalving(thresholds(7), np.random.default_rng(1), redraw="every_round")
    for t, x in enumerate([0, 6, 3], start=1):
        rh.predict(x)
        assert rh.draws == t
        rh.update(x, -1)  # consistent with the all -1 concept x >= 7
        assert rh.held is None


def test_randomized_halving_reset():
    rh = RandomizedHalving(thresholds(3), np.random.default_rng(0))
    rh.predict(0)
    rh.update(1, 1)
    rh.reset()
    assert rh.held is None and rh.draws == 0 and rh.rounds == 0 and rh.size == 4


@pytest.mark.parametrize("redraw", VARIANTS)
def test_randomized_halving_same_seed_same_trace(redraw):
    cls = thresholds(20)
    X, y = one_per_round_adversary(cls, 7)
    obs = {"held": lambda L: -1 if L.held is None else L.held}
    a = run(RandomizedHalving(cls, np.random.default_rng(11), redraw), X, y, observe=obs)
    b = run(RandomizedHalving(cls, np.random.default_rng(11), redraw), X, y, observe=obs)
    assert a == b


@pytest.mark.parametrize("redraw", VARIANTS)
def test_randomized_halving_learner_monte_carlo(redraw):
    # The learner class itself (not the vectorised simulator), through run(), on the
    # one-per-round stream of thresholds(9): E[M] = H_10 - 1 = 1.9290 exactly.
    # Tolerance: 4 standard errors of the sample mean (fixed seed, so deterministic;
    # a correct implementation fails for a fresh seed with probability < 1e-4).
    cls = thresholds(9)
    X, y = one_per_round_adversary(cls, 4)
    rng = np.random.default_rng(2024)
    n = 1500
    counts = np.array([run(RandomizedHalving(cls, rng, redraw), X, y).n_mistakes for _ in range(n)])
    expected = float(harmonic_number(10) - 1)
    se = counts.std(ddof=1) / np.sqrt(n)
    assert abs(counts.mean() - expected) <= 4 * se


# =========================================================================== Littlestone dimension
@pytest.mark.parametrize("m", range(1, 64))
def test_ldim_thresholds(m):
    assert littlestone_dimension(thresholds(m)) == floor_lg(m + 1)


@pytest.mark.parametrize("m", [1, 2, 3, 7, 20])
def test_ldim_singletons(m):
    assert littlestone_dimension(singletons(m)) == 1
    assert littlestone_dimension(singletons(m, include_empty=False)) == (0 if m == 1 else 1)


@pytest.mark.parametrize("m", range(1, 7))
def test_ldim_all_concepts(m):
    assert littlestone_dimension(all_concepts(m)) == m


@pytest.mark.parametrize("n", range(1, 6))
def test_ldim_monotone_disjunctions(n):
    assert littlestone_dimension(monotone_disjunctions(n)) == n


def test_ldim_with_mask_and_edge_cases():
    cls = thresholds(7)
    assert littlestone_dimension(cls, np.zeros(8, dtype=bool)) == -1
    one = np.zeros(8, dtype=bool)
    one[3] = True
    assert littlestone_dimension(cls, one) == 0
    assert littlestone_dimension(cls, np.array([True, True, True, False, False, False, False, False])) == 1
    assert littlestone_dimension(cls, [True] * 4 + [False] * 4) == 2
    # duplicates only: no instance splits V
    assert littlestone_dimension(ConceptClass([[0, 1], [0, 1], [0, 1]])) == 0


def test_ldim_eight_concept_class_and_worst_cases():
    cls = ConceptClass(EIGHT)
    assert littlestone_dimension(cls) == 2
    assert worst_case_mistakes(cls, "soa") == 2
    assert worst_case_mistakes(cls, "halving") == 3
    assert worst_case_mistakes(cls) == 3  # default learner is Halving


def test_ldim_split_class_matches_reference():
    assert littlestone_dimension(ConceptClass(SPLIT)) == naive_ldim(SPLIT)


@pytest.mark.parametrize(
    "cls",
    [
        thresholds(1),
        thresholds(7),
        thresholds(12),
        singletons(6),
        singletons(4, False),
        all_concepts(3),
        monotone_disjunctions(2),
        monotone_disjunctions(3, max_terms=1),
    ],
    ids=lambda c: c.name,
)
def test_worst_case_mistakes_named_classes(cls):
    d = littlestone_dimension(cls)
    assert worst_case_mistakes(cls, "soa") == d
    assert d <= worst_case_mistakes(cls, "halving") <= floor_lg(cls.size)


def test_worst_case_single_concept_is_zero():
    cls = ConceptClass([[1, 0, 1]])
    assert worst_case_mistakes(cls, "halving") == worst_case_mistakes(cls, "soa") == 0


# =========================================================================== exact expectation
def test_expected_mistakes_by_hand():
    t2 = thresholds(2)  # rows [1,1], [0,1], [0,0]
    # target 1, X = [0, 1]: f_1 = 1/3 (row 0 errs), f_2 = 1/2 (row 2 errs of {1,2})
    e = randomized_halving_expected_mistakes(t2, [0, 1], [-1, 1])
    assert isinstance(e, Fraction)
    assert e == Fraction(5, 6)
    # target 2, X = [0, 0]: f_1 = 1/3, then the repeated instance is unanimous: f_2 = 0
    assert randomized_halving_expected_mistakes(t2, [0, 0], [-1, -1]) == Fraction(1, 3)
    # two concepts eliminated at once: all_concepts(2), target 0, X = [0, 1]: 2/4 + 1/2
    assert randomized_halving_expected_mistakes(all_concepts(2), [0, 1], [-1, -1]) == Fraction(1)
    # a single concept is never wrong
    assert randomized_halving_expected_mistakes(ConceptClass([[1, 0]]), [0, 1], [1, -1]) == 0


def test_expected_mistakes_one_per_round_thresholds_2():
    X, y = one_per_round_adversary(thresholds(2), 1)
    assert randomized_halving_expected_mistakes(thresholds(2), X, y) == Fraction(5, 6) == harmonic_number(3) - 1


# =========================================================================== simulation
def test_simulate_shape_and_range():
    cls = thresholds(10)
    X, y = one_per_round_adversary(cls, 3)
    for redraw in VARIANTS:
        out = simulate_randomized_halving(cls, X, y, 500, np.random.default_rng(0), redraw)
        assert out.shape == (500,)
        assert np.issubdtype(out.dtype, np.integer)
        assert out.min() >= 0 and out.max() <= len(y)


def test_simulate_two_concepts_bernoulli_half():
    # thresholds(1) = {[1], [0]}; one round labelled by concept 0: a mistake iff concept 1 was drawn.
    out = simulate_randomized_halving(thresholds(1), [0], [1], 10_000, np.random.default_rng(3))
    assert set(np.unique(out)) == {0, 1}
    # tolerance: 4 standard errors, SE = 0.5 / sqrt(10000) = 0.005
    assert abs(out.mean() - 0.5) <= 4 * 0.005


@pytest.mark.parametrize("redraw", VARIANTS)
def test_simulate_monte_carlo_matches_harmonic_bound(redraw):
    # One-per-round adversary on thresholds(49), |C| = 50: E[M] = H_50 - 1 = 3.4992 exactly.
    # Tolerance: |mean - (H_50 - 1)| <= 4 standard errors of the mean (SE estimated from the
    # sample). With a fixed seed this is deterministic; for a fresh seed a correct
    # implementation would fail with probability < 1e-4 (two-sided normal tail at 4 SE).
    cls = thresholds(49)
    X, y = one_per_round_adversary(cls, 25)
    n = 20_000
    counts = simulate_randomized_halving(cls, X, y, n, np.random.default_rng(12345), redraw)
    expected = float(harmonic_number(50) - 1)
    se = counts.std(ddof=1) / np.sqrt(n)
    assert 0 < se < 0.05
    assert abs(counts.mean() - expected) <= 4 * se


@pytest.mark.parametrize("redraw", VARIANTS)
def test_simulate_reproducible(redraw):
    cls = thresholds(15)
    X, y = one_per_round_adversary(cls, 2)
    a = simulate_randomized_halving(cls, X, y, 1000, np.random.default_rng(9), redraw)
    b = simulate_randomized_halving(cls, X, y, 1000, np.random.default_rng(9), redraw)
    np.testing.assert_array_equal(a, b)


# =========================================================================== inconsistent streams
@pytest.mark.parametrize("kind", ALL_KINDS)
def test_inconsistent_stream_update_names_round_and_keeps_state(kind):
    learner = make_learner(kind, thresholds(3))
    for x, y in zip(BAD_X[:2], BAD_Y[:2], strict=True):
        learner.predict(x)
        learner.update(x, y)
    learner.predict(BAD_X[2])
    alive_before = learner.alive.copy()
    held_before = getattr(learner, "held", None)
    with pytest.raises(ValueError, match=EMPTY_AT_3):
        learner.update(BAD_X[2], BAD_Y[2])
    np.testing.assert_array_equal(learner.alive, alive_before)
    np.testing.assert_array_equal(learner.version_space, [1, 2])
    assert getattr(learner, "held", None) == held_before


@pytest.mark.parametrize("kind", ALL_KINDS)
def test_inconsistent_stream_update_keeps_round_counter(kind):
    # a failed update must not advance the round counter (a retry would misname the round)
    learner = make_learner(kind, thresholds(3))
    learner.update(BAD_X[0], BAD_Y[0])
    learner.update(BAD_X[1], BAD_Y[1])
    with pytest.raises(ValueError, match="empty at round 3"):
        learner.update(BAD_X[2], BAD_Y[2])
    assert learner.rounds == 2
    with pytest.raises(ValueError, match="empty at round 3"):
        learner.update(BAD_X[2], BAD_Y[2])


@pytest.mark.parametrize("kind", ALL_KINDS)
def test_inconsistent_stream_run_names_round(kind):
    with pytest.raises(ValueError, match=EMPTY_AT_3):
        run(make_learner(kind, thresholds(3)), BAD_X, BAD_Y)


def test_inconsistent_stream_expected_mistakes_names_round():
    with pytest.raises(ValueError, match=EMPTY_AT_3):
        randomized_halving_expected_mistakes(thresholds(3), BAD_X, BAD_Y)


@pytest.mark.parametrize("redraw", VARIANTS)
def test_inconsistent_stream_simulate_names_round(redraw):
    with pytest.raises(ValueError, match=EMPTY_AT_3):
        simulate_randomized_halving(thresholds(3), BAD_X, BAD_Y, 10, np.random.default_rng(0), redraw)


def test_inconsistent_first_round():
    # no concept of singletons(2, no empty) is negative on both points
    with pytest.raises(ValueError, match="empty at round 2"):
        run(Halving(singletons(2, include_empty=False)), [0, 1], [-1, -1])


# =========================================================================== bad input
@pytest.mark.parametrize("maker", [Halving, SOA, lambda c: RandomizedHalving(c, np.random.default_rng(0))])
def test_learners_reject_non_class(maker):
    with pytest.raises(
        TypeError,
        match=r"concept_class must be an onlinelib.ConceptClass, got ndarray "
        r"\(wrap a Boolean table as onlinelib.ConceptClass\(table\)\)",
    ):
        maker(np.eye(3, dtype=bool))
    with pytest.raises(TypeError, match=r"got str$"):
        maker("thresholds")


@pytest.mark.parametrize("kind", ALL_KINDS)
@pytest.mark.parametrize(
    "x, y, exc, match",
    [
        (-1, 1, ValueError, r"x must be an instance of .*got -1"),
        (3, 1, ValueError, r"x must be an instance of .*got 3"),
        (1.0, 1, TypeError, r"x must be an instance index"),
        (0, 0, ValueError, r"y must hold labels in \{-1, \+1\}.*2\*y - 1"),
        (0, 2, ValueError, r"y must hold labels in \{-1, \+1\}"),
        (0, float("nan"), ValueError, r"y must hold labels in \{-1, \+1\}, got NaN"),
        (0, True, TypeError, r"y must hold the labels -1 and \+1 as numbers"),
    ],
)
def test_update_rejects_bad_example_without_changing_state(kind, x, y, exc, match):
    learner = make_learner(kind, thresholds(3))
    with pytest.raises(exc, match=match):
        learner.update(x, y)
    assert learner.size == 4 and learner.rounds == 0


@pytest.mark.parametrize("kind", ALL_KINDS)
@pytest.mark.parametrize("x, exc", [(-1, ValueError), (3, ValueError), (2.0, TypeError), (np.float64(1), TypeError)])
def test_predict_rejects_instance_outside_domain(kind, x, exc):
    with pytest.raises(exc, match="x must be an instance"):
        make_learner(kind, thresholds(3)).predict(x)


@pytest.mark.parametrize("rng", [0, None, np.random.RandomState(0)])
def test_randomized_halving_rejects_non_generator(rng):
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        RandomizedHalving(thresholds(3), rng)


def test_randomized_halving_rejects_unknown_redraw():
    with pytest.raises(ValueError, match=r"redraw must be one of \('on_elimination', 'every_round'\), got 'never'"):
        RandomizedHalving(thresholds(3), np.random.default_rng(0), redraw="never")


def sim(**kw):
    args = dict(concept_class=thresholds(3), X=[0, 1], y=[-1, 1], n_trials=10, rng=np.random.default_rng(0))
    args.update(kw)
    return simulate_randomized_halving(**args)


@pytest.mark.parametrize("n_trials, error", [(0, ValueError), (-3, ValueError), (True, TypeError), (2.5, TypeError)])
def test_simulate_rejects_bad_n_trials(n_trials, error):
    with pytest.raises(error, match=rf"n_trials must be an integer >= 1, got {n_trials!r}"):
        sim(n_trials=n_trials)


@pytest.mark.parametrize("rng", [0, None])
def test_simulate_rejects_non_generator(rng):
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        sim(rng=rng)


def test_simulate_rejects_unknown_redraw():
    with pytest.raises(ValueError, match="redraw must be one of"):
        sim(redraw="sometimes")


def test_simulate_rejects_non_class():
    with pytest.raises(TypeError, match="concept_class must be"):
        sim(concept_class=np.eye(2, dtype=bool))


STREAM_ERRORS = [
    ([0, 1], [0, 1], ValueError, r"y must hold labels in \{-1, \+1\}"),
    ([0, 1], [1, 2], ValueError, r"y must hold labels in \{-1, \+1\}"),
    ([0, 1], [1.0, np.nan], ValueError, r"y must hold labels .*NaN"),
    ([0, 1], np.array([True, False]), TypeError, r"y must hold the labels -1 and \+1 as numbers"),
    ([0, 1], [[1, 1]], ValueError, r"y must be one-dimensional"),
    ([], [], ValueError, r"the stream is empty"),
    ([0, 1, 2], [1, 1], ValueError, r"X and y must have one entry per round"),
    ([0, -1], [1, 1], ValueError, r"X must hold instances of thresholds on 3 points"),
    ([0, 3], [1, 1], ValueError, r"X must hold instances of .*got 3"),
    ([0.0, 1.0], [1, 1], TypeError, r"X must hold integer instance indices"),
]


@pytest.mark.parametrize("X, y, exc, match", STREAM_ERRORS)
def test_expected_mistakes_rejects_bad_stream(X, y, exc, match):
    with pytest.raises(exc, match=match):
        randomized_halving_expected_mistakes(thresholds(3), X, y)


@pytest.mark.parametrize("X, y, exc, match", STREAM_ERRORS)
def test_simulate_rejects_bad_stream(X, y, exc, match):
    with pytest.raises(exc, match=match):
        sim(X=X, y=y)


def test_littlestone_dimension_errors():
    cls = thresholds(3)
    with pytest.raises(ValueError, match=r"mask must be a Boolean array of shape \(4,\)"):
        littlestone_dimension(cls, np.ones(3, dtype=bool))
    with pytest.raises(ValueError, match=r"mask must be a Boolean array of shape \(4,\)"):
        littlestone_dimension(cls, np.ones((4, 1), dtype=bool))
    with pytest.raises(ValueError, match=r"mask must be a Boolean array"):
        littlestone_dimension(cls, [1, 1, 0, 0])
    with pytest.raises(TypeError, match="concept_class must be"):
        littlestone_dimension(np.eye(3, dtype=bool))


def test_worst_case_mistakes_errors():
    with pytest.raises(ValueError, match=r"learner must be one of \('halving', 'soa'\), got 'winnow'"):
        worst_case_mistakes(thresholds(3), "winnow")
    with pytest.raises(TypeError, match="concept_class must be"):
        worst_case_mistakes([[0, 1]], "soa")


# =========================================================================== properties
@PROPERTY
@given(class_target_stream())
def test_property_halving_bound_invariant_and_target_alive(case):
    cls, target, X, y = case
    tr = run(Halving(cls), X, y, observe={"|V|": lambda L: L.size, "target": lambda L: L.alive[target]})
    assert tr.n_mistakes <= floor_lg(cls.size)
    # proof invariant |V_t| <= |C| / 2^{M_t}, in integers, on every round t = 0..T
    sizes = tr.observed["|V|"].astype(np.int64)
    assert np.all(sizes * 2**tr.mistakes_so_far <= cls.size)
    assert np.all(tr.observed["target"] == 1)


@PROPERTY
@given(class_target_stream())
def test_property_soa_bound_and_target_alive(case):
    cls, target, X, y = case
    d = littlestone_dimension(cls)
    tr = run(SOA(cls), X, y, observe={"ldim": lambda L: L.ldim, "target": lambda L: L.alive[target]})
    assert tr.n_mistakes <= d
    # each mistake lowers Ldim(V): Ldim(V_t) <= Ldim(C) - M_t on every round
    assert np.all(tr.observed["ldim"] <= d - tr.mistakes_so_far)
    assert np.all(tr.observed["target"] == 1)


@PROPERTY
@given(class_target_stream(), st.sampled_from(VARIANTS), st.integers(0, 2**32 - 1))
def test_property_randomized_halving_target_alive(case, redraw, seed):
    cls, target, X, y = case
    learner = RandomizedHalving(cls, np.random.default_rng(seed), redraw)
    tr = run(learner, X, y, observe={"target": lambda L: L.alive[target]})
    assert np.all(tr.observed["target"] == 1)
    # each mistake eliminates the held concept, so at most |C| - 1 mistakes
    assert tr.n_mistakes <= cls.size - 1


@PROPERTY
@given(class_target_stream(max_length=15), st.sampled_from(VARIANTS), st.integers(0, 2**32 - 1))
def test_property_randomized_halving_predicts_with_a_concept_of_V(case, redraw, seed):
    cls, target, X, y = case
    learner = RandomizedHalving(cls, np.random.default_rng(seed), redraw)
    for x, label in zip(X.tolist(), y.tolist(), strict=True):
        p = learner.predict(x)
        assert learner.held is not None and learner.alive[learner.held]
        assert p == (1 if cls.table[learner.held, x] else -1)
        learner.update(x, label)


@PROPERTY
@given(
    class_target_stream(max_concepts=64, max_instances=8, max_length=30),
    st.sampled_from(ALL_KINDS),
    st.integers(0, 2**32 - 1),
)
def test_property_version_space_matches_brute_force(case, kind, seed):
    # Classes of up to 64 concepts, so V shrinks to a small fraction of C (any internal
    # sparse representation is exercised). After every round V must be exactly the set of
    # rows that agree with every example so far.
    cls, target, X, y = case
    learner = make_learner(kind, cls, seed)
    consistent = np.ones(cls.size, dtype=bool)
    for x, label in zip(X.tolist(), y.tolist(), strict=True):
        p = learner.predict(x)
        if kind == "halving":
            pos = int(cls.table[consistent, x].sum())
            assert p == (1 if 2 * pos >= consistent.sum() else -1)
        learner.update(x, label)
        consistent &= cls.table[:, x] == (label == 1)
        np.testing.assert_array_equal(learner.version_space, np.flatnonzero(consistent))
        np.testing.assert_array_equal(learner.alive, consistent)
        assert learner.size == consistent.sum()
        assert learner.contains(target)
    assert learner.rounds == len(X)


@PROPERTY
@given(class_target_stream(max_concepts=64, max_instances=8))
def test_property_halving_bound_large_classes(case):
    cls, target, X, y = case
    tr = run(Halving(cls), X, y, observe={"|V|": lambda L: L.size})
    assert tr.n_mistakes <= floor_lg(cls.size)
    assert np.all(tr.observed["|V|"].astype(np.int64) * 2**tr.mistakes_so_far <= cls.size)


@PROPERTY
@given(class_target_stream(max_concepts=64, max_instances=8))
def test_property_expected_mistakes_matches_reference_large_classes(case):
    cls, target, X, y = case
    consistent = np.ones(cls.size, dtype=bool)
    expected = Fraction(0)
    for x, label in zip(X.tolist(), y.tolist(), strict=True):
        keep = consistent & (cls.table[:, x] == (label == 1))
        expected += Fraction(int(consistent.sum() - keep.sum()), int(consistent.sum()))
        consistent = keep
    assert randomized_halving_expected_mistakes(cls, X, y) == expected


@PROPERTY
@given(small_tables())
def test_property_ldim_matches_naive_reference(table):
    cls = ConceptClass(table)
    d = littlestone_dimension(cls)
    assert d == naive_ldim(table)
    assert 0 <= d <= floor_lg(cls.size)
    assert d <= cls.n_instances


@PROPERTY
@given(small_tables(max_concepts=7), st.data())
def test_property_ldim_of_subsets_matches_reference(table, data):
    cls = ConceptClass(table)
    mask = data.draw(hnp.arrays(np.bool_, (cls.size,)))
    expected = naive_ldim(table[mask]) if mask.any() else -1
    assert littlestone_dimension(cls, mask) == expected


@PROPERTY
@given(small_tables(max_concepts=10))
def test_property_ldim_at_most_floor_lg(table):
    cls = ConceptClass(table)
    assert littlestone_dimension(cls) <= floor_lg(cls.size)


@settings(max_examples=60, deadline=None, database=None)
@given(small_tables(max_concepts=8, max_instances=5))
def test_property_worst_case_soa_equals_ldim(table):
    cls = ConceptClass(table)
    d = littlestone_dimension(cls)
    assert worst_case_mistakes(cls, "soa") == d
    assert d <= worst_case_mistakes(cls, "halving") <= floor_lg(cls.size)


@PROPERTY
@given(
    st.sampled_from(["thresholds", "singletons", "singletons-no-empty"]),
    st.integers(1, 30),
    st.data(),
)
def test_property_one_per_round_expectation_is_harmonic(kind, m, data):
    # singletons(1) without the empty concept has a single concept and an empty stream: use m >= 2
    cls = {"thresholds": thresholds, "singletons": singletons}.get(kind, lambda m: singletons(m + 1, False))(m)
    target = data.draw(st.integers(0, cls.size - 1))
    seed = data.draw(st.none() | st.integers(0, 2**32 - 1))
    X, y = one_per_round_adversary(cls, target, None if seed is None else np.random.default_rng(seed))
    assert randomized_halving_expected_mistakes(cls, X, y) == harmonic_number(cls.size) - 1


@PROPERTY
@given(class_target_stream())
def test_property_expected_mistakes_at_most_harmonic(case):
    cls, target, X, y = case
    e = randomized_halving_expected_mistakes(cls, X, y)
    assert 0 <= e <= harmonic_number(cls.size) - 1
