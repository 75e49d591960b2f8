"""The exact engines of onlinelib.run against the example-by-example loop.

The block engine (method="blocks") jumps from one state change to the next with the
learners' compiled ``scan``; ``play`` (method="auto" for the Perceptron, Winnow1 and
Winnow2) runs the whole stream, updates included, in compiled code. Their Traces, final
states and observables must equal the loop's exactly (tolerance 0), on data built to hit
ties (scores exactly at the threshold) and rounding-sensitive sums, and on every form a
CSR stream can arrive in: canonical or not (unsorted, repeated or stored-zero entries),
csr_array, bool entries, 64-bit indices.
"""

import tracemalloc

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from examples import state
from onlinelib import (
    Elimination,
    Halving,
    Perceptron,
    Winnow1,
    Winnow2,
    disjunction_stream,
    perceptron_lower_bound_stream,
    promotion_adversary,
    run,
    thresholds,
    winnow1_promotion_adversary,
)

PROPERTY = settings(max_examples=150, deadline=None, database=None)
LABELS = st.sampled_from([-1, 1])
FORMS = ["dense", "csr", "csr_array", "int64", "unsorted", "stored_zeros", "duplicates"]
BOOLEAN_FORMS = FORMS + ["bool"]


def in_form(X, form):
    """The stream X (dense) in one of the forms ``run`` accepts, with the same rows."""
    X = np.asarray(X)
    if form == "dense":
        return X
    T, n = X.shape
    if form == "stored_zeros":  # every entry stored, the zeros too
        return sp.csr_matrix((X.astype(float).ravel(), np.tile(np.arange(n), T), np.arange(0, T * n + 1, n)), (T, n))
    M = sp.csr_matrix(X.astype(bool if form == "bool" else float))
    if form in ("csr", "bool"):
        return M
    if form == "csr_array":
        return sp.csr_array(M)
    if form == "int64":
        M.indices, M.indptr = M.indices.astype(np.int64), M.indptr.astype(np.int64)
        return M
    if form == "unsorted":  # each row's entries in decreasing column order
        order = np.concatenate([np.arange(M.indptr[i + 1] - 1, M.indptr[i] - 1, -1) for i in range(T)] + [[]])
        order = order.astype(np.int64)
        return sp.csr_matrix((M.data[order], M.indices[order], M.indptr), M.shape)
    assert form == "duplicates"  # each entry stored as two halves in the same column
    return sp.csr_matrix((np.repeat(M.data / 2, 2), np.repeat(M.indices, 2), 2 * M.indptr), M.shape)


def outcome(make, X, y, method, observe=None):
    """(trace, final state), or ("error", type, message) if the run raises."""
    learner = make()
    try:
        trace = run(learner, X, y, method=method, observe=observe)
    except (ValueError, TypeError) as exc:
        return ("error", type(exc), str(exc))
    return trace, state(learner)


def assert_engine_equals_loop(make, X, y, observe=None):
    loop = outcome(make, X, y, "loop", observe)
    blocks = outcome(make, X, y, "blocks", observe)
    assert type(loop[0]) is type(blocks[0])
    if loop[0] == "error":
        assert loop == blocks
        return loop
    assert blocks[0] == loop[0]  # Trace equality: predictions, labels, every observable
    assert blocks[1].keys() == loop[1].keys()
    for key, value in loop[1].items():
        if key == "weights":
            np.testing.assert_array_equal(blocks[1][key], value)  # exact
        else:
            assert blocks[1][key] == value, key
    if observe is None:
        auto = outcome(make, X, y, "auto")
        assert auto[0] == loop[0]
    return loop


# -- strategies ------------------------------------------------------------------------------


@st.composite
def int_stream(draw, max_n=7, max_t=60):
    """Entries in {-2..2}: integer scores, so w.x + b hits 0 exactly on many rounds."""
    n = draw(st.integers(1, max_n))
    T = draw(st.integers(1, max_t))
    X = draw(hnp.arrays(np.int64, (T, n), elements=st.integers(-2, 2)))
    y = draw(hnp.arrays(np.int8, T, elements=LABELS))
    return X, y


@st.composite
def float_stream(draw, max_n=7, max_t=60):
    n = draw(st.integers(1, max_n))
    T = draw(st.integers(1, max_t))
    kind = draw(st.sampled_from(["decimal", "any"]))
    if kind == "decimal":  # 0.1 + 0.2 - 0.3 != 0: the sign of such sums depends on the summation order
        elements = st.sampled_from([-0.3, -0.2, -0.1, 0.0, 0.1, 0.2, 0.3, 0.7, -1e-3, 1e16])
    else:
        elements = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
    X = draw(hnp.arrays(np.float64, (T, n), elements=elements))
    y = draw(hnp.arrays(np.int8, T, elements=LABELS))
    return X, y


@st.composite
def boolean_stream(draw, max_n=9, max_t=60, consistent=False):
    n = draw(st.integers(1, max_n))
    T = draw(st.integers(1, max_t))
    X = draw(hnp.arrays(np.uint8, (T, n), elements=st.integers(0, 1)))
    if consistent:  # labelled by a monotone disjunction
        relevant = draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n))
        y = np.where(X[:, relevant].any(axis=1), 1, -1).astype(np.int8)
    else:
        y = draw(hnp.arrays(np.int8, T, elements=LABELS))
    return X, y


# -- Perceptron ------------------------------------------------------------------------------


@PROPERTY
@given(int_stream(), st.booleans(), st.sampled_from(FORMS))
def test_perceptron_integer_ties(data, bias, form):
    X, y = data
    assert_engine_equals_loop(lambda: Perceptron(X.shape[1], bias=bias), in_form(X, form), y)


@PROPERTY
@given(float_stream(), st.booleans(), st.sampled_from(FORMS))
def test_perceptron_float_data(data, bias, form):
    X, y = data
    assert_engine_equals_loop(lambda: Perceptron(X.shape[1], bias=bias), in_form(X, form), y)


@pytest.mark.parametrize("position", [1, 2, 7, 8, 9, 15, 16, 17])  # inside and after the 8-row blocks
@pytest.mark.parametrize("sparse", [False, True])
def test_perceptron_score_order_decides_a_tie(position, sparse):
    # After round 1 (score 0: update) w = (1,1,1). The row (0.1, 0.3, -0.4) then scores
    # (0.1 + 0.3) + -0.4 = 0.0 exactly in the defined order (summed backwards it is -2.8e-17):
    # a tie, so +1 and an update, a mistake since y = -1. Rows (1,1,1) with y = +1 score 3: nothing.
    X = np.ones((position + 3, 3))
    X[position] = [0.1, 0.3, -0.4]
    y = np.ones(position + 3, dtype=int)
    y[position] = -1
    Xin = sp.csr_matrix(X) if sparse else X
    trace, st_ = assert_engine_equals_loop(lambda: Perceptron(3), Xin, y)
    np.testing.assert_array_equal(trace.mistake_rounds, [position + 1])
    assert st_["n_updates"] == 2
    np.testing.assert_array_equal(st_["weights"], [1 - 0.1, 1 - 0.3, 1 + 0.4])


def test_perceptron_int_data_has_ties_and_non_mistake_updates():
    # the strategy above is meant to hit score 0 often: check that a typical stream does
    rng = np.random.default_rng(3)
    X = rng.integers(-2, 3, size=(200, 4))
    y = rng.choice([-1, 1], size=200)
    p = Perceptron(4)
    trace, _ = assert_engine_equals_loop(lambda: Perceptron(4), X, y)
    run(p, X, y, method="loop")
    assert p.n_updates > trace.n_mistakes  # some updates were at score 0 with label +1


def test_perceptron_long_separable_stream():
    rng = np.random.default_rng(11)
    w = rng.standard_normal(20)
    X = rng.standard_normal((3000, 20))
    y = np.where(X @ w > 0, 1, -1)
    _, st_ = assert_engine_equals_loop(lambda: Perceptron(20, bias=True), X, y)
    assert st_["n_updates"] > 10  # a nontrivial run


# -- Boolean learners ------------------------------------------------------------------------


ALPHAS = st.one_of(st.sampled_from([2.0, 3.0, 1.5, 1.25]), st.floats(1.01, 5.0))
THETAS = st.one_of(st.sampled_from([1.0, 2.0, 3.0, 4.0, 0.5, 1.5]), st.floats(0.1, 10.0))


@PROPERTY
@given(boolean_stream(), THETAS | st.none(), st.sampled_from(BOOLEAN_FORMS))
def test_winnow1(data, theta, form):
    X, y = data
    assert_engine_equals_loop(lambda: Winnow1(X.shape[1], theta=theta), in_form(X, form), y)


@PROPERTY
@given(boolean_stream(), ALPHAS, THETAS | st.none(), st.booleans(), st.sampled_from(BOOLEAN_FORMS))
def test_winnow2(data, alpha, theta, tie_positive, form):
    X, y = data
    Xin = in_form(X, form)

    def make():
        return Winnow2(X.shape[1], alpha=alpha, theta=theta, positive_at_threshold=tie_positive)

    assert_engine_equals_loop(make, Xin, y)


@PROPERTY
@given(
    st.one_of(boolean_stream(), boolean_stream(consistent=True)),
    st.sampled_from(["conjunction", "disjunction"]),
    st.booleans(),
    st.sampled_from(BOOLEAN_FORMS),
)
def test_elimination_including_inconsistent_streams(data, target, monotone, form):
    # random labels usually make the stream inconsistent: both methods must then raise the same error
    X, y = data
    Xin = in_form(X, form)
    assert_engine_equals_loop(lambda: Elimination(X.shape[1], target=target, monotone=monotone), Xin, y)


@pytest.mark.parametrize("tie_positive", [False, True])
def test_winnow2_long_sparse_stream(tie_positive):
    X, y, _ = disjunction_stream(2000, 5, 3000, np.random.default_rng(5), active=20, sparse=True)

    def make():
        return Winnow2(2000, alpha=2.0, theta=2000.0, positive_at_threshold=tie_positive)

    trace, st_ = assert_engine_equals_loop(make, X, y)
    assert st_["promotions"] > 0 and trace.n_mistakes > 5


def test_winnow1_many_exact_ties():
    # theta = 2 with integer weights: rows with two active unit weights score exactly theta
    rng = np.random.default_rng(8)
    X = (rng.random((500, 6)) < 0.35).astype(np.uint8)
    y = np.where(X[:, [0, 3]].any(axis=1), 1, -1)
    trace, _ = assert_engine_equals_loop(lambda: Winnow1(6, theta=2), X, y)
    assert trace.n_mistakes > 0
    ties = 0
    w = Winnow1(6, theta=2)
    for x, label in zip(X, y, strict=True):
        ties += w.score(x) == 2.0
        w.update(x, label)
    assert ties > 0


# -- observables -----------------------------------------------------------------------------


OBSERVE_PERCEPTRON = {
    "sum w": lambda L: L.weights.sum(),
    "|w|^2": lambda L: float(L.weights @ L.weights),
    "updates": lambda L: L.n_updates,
    "b": lambda L: L.bias,
}
OBSERVE_WINNOW = {
    "sum w": lambda L: L.weights.sum(),
    "max w": lambda L: L.weights.max(),
    "u": lambda L: L.promotions,
}


@PROPERTY
@given(int_stream(), st.booleans())
def test_observables_perceptron(data, bias):
    X, y = data
    trace, _ = assert_engine_equals_loop(lambda: Perceptron(X.shape[1], bias=bias), X, y, OBSERVE_PERCEPTRON)
    assert set(trace.observed) == set(OBSERVE_PERCEPTRON)
    assert all(len(v) == len(y) + 1 for v in trace.observed.values())


@PROPERTY
@given(boolean_stream(consistent=True), ALPHAS, st.booleans())
def test_observables_winnow2(data, alpha, tie_positive):
    X, y = data

    def make():
        return Winnow2(X.shape[1], alpha=alpha, theta=2.0, positive_at_threshold=tie_positive)

    assert_engine_equals_loop(make, X, y, OBSERVE_WINNOW)


def test_observables_hand_checked_and_auto_uses_the_loop_when_observing():
    # Winnow1 n = 4, theta = 2 on the stream of test_linear's hand-worked case:
    # sum w after each round: 4, 5, 7, 7, 4, 4, 4.
    X = [[1, 0, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0], [0, 1, 1, 1], [0, 1, 1, 0], [1, 1, 0, 0]]
    y = [1, 1, 1, -1, -1, 1]
    observe = {"sum w": lambda L: L.weights.sum(), "rounds": lambda L: L.rounds}
    expected_sum = [4, 5, 7, 7, 4, 4, 4]
    for method in ("loop", "auto"):
        trace = run(Winnow1(4), X, y, observe=observe, method=method)
        np.testing.assert_array_equal(trace.observed["sum w"], expected_sum)
        np.testing.assert_array_equal(trace.observed["rounds"], np.arange(7))  # evaluated every round
    # the engine evaluates observables only after state changes (documented): a round counter is stale
    trace = run(Winnow1(4), X, y, observe=observe, method="blocks")
    np.testing.assert_array_equal(trace.observed["sum w"], expected_sum)
    np.testing.assert_array_equal(trace.observed["rounds"], [0, 1, 2, 2, 4, 4, 4])


def test_auto_without_observe_uses_the_engine():
    X, y, _ = disjunction_stream(30, 2, 400, np.random.default_rng(2))
    for method, expect_scan in (("auto", False), ("blocks", True), ("loop", False)):
        learner = Winnow2(30)
        found, played = [], []
        original, original_play = learner.scan, learner.play

        def spy(X, y, start, original=original, found=found):
            j, prediction = original(X, y, start)
            assert j >= start
            found.append(j)
            return j, prediction

        def spy_play(X, y, original_play=original_play, played=played):
            played.append(len(y))
            return original_play(X, y)

        learner.scan, learner.play = spy, spy_play
        trace = run(learner, X, y, method=method)
        assert bool(found) == expect_scan
        assert played == ([400] if method == "auto" else [])  # auto plays the whole stream in one call
        if expect_scan:  # one scan per state change, and at most one more that runs to the end
            changes = [j for j in found if j < 400]
            assert found[: len(changes)] == changes and len(found) - len(changes) in (0, 1)
            np.testing.assert_array_equal(np.array(changes) + 1, trace.mistake_rounds)
            assert len(changes) == learner.promotions + learner.demotions
        assert learner.rounds == 400


def test_engine_continues_a_trained_learner():
    rng = np.random.default_rng(4)
    X = rng.integers(-2, 3, size=(80, 3)).astype(float)
    y = rng.choice([-1, 1], size=80)
    a, b = Perceptron(3, bias=True), Perceptron(3, bias=True)
    ta = [run(a, X[:50], y[:50], method="loop"), run(a, X[50:], y[50:], method="loop")]
    tb = [run(b, X[:50], y[:50], method="blocks"), run(b, X[50:], y[50:], method="blocks")]
    assert ta == tb
    np.testing.assert_array_equal(a.weights, b.weights)
    assert (a.bias, a.n_updates, a.rounds) == (b.bias, b.n_updates, b.rounds) and a.rounds == 80


# -- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("row", [0, 5, 12])  # in the first block of 8 rows, and in the tail
@pytest.mark.parametrize("sparse", [False, True])
def test_non_finite_x_engine_names_the_round_and_loop_raises(bad, row, sparse):
    X = np.ones((14, 3))
    X[row, 1] = bad
    y = np.ones(14, dtype=int)
    Xin = sp.csr_matrix(X) if sparse else X
    with pytest.raises(ValueError, match=rf"x must be finite.*round {row + 1}\b"):
        run(Perceptron(3), Xin, y, method="blocks")
    with pytest.raises(ValueError, match="x must be finite"):
        run(Perceptron(3), Xin, y, method="loop")
    with pytest.raises(ValueError, match=rf"round {row + 1}\b"):
        run(Perceptron(3), Xin, y)  # auto


def test_non_finite_x_after_learning_named_by_the_engine():
    # w != 0 by then; inf * w is still not finite
    X = np.array([[1.0, 0.0]] * 9 + [[np.inf, 0.0]])
    y = np.ones(10, dtype=int)
    with pytest.raises(ValueError, match=r"round 10\b"):
        run(Perceptron(2), X, y, method="blocks")


@pytest.mark.parametrize("method", ["fast", "Loop", "", None, 1])
def test_unknown_method(method):
    with pytest.raises(ValueError, match="method must be one of"):
        run(Perceptron(2), [[0.0, 1.0]], [1], method=method)


def test_blocks_needs_a_learner_with_scan():
    with pytest.raises(ValueError, match=r"method='blocks'.*scan.*Halving"):
        run(Halving(thresholds(3)), [0, 1], [1, 1], method="blocks")
    # auto falls back to the loop for such a learner
    assert run(Halving(thresholds(3)), [0, 1], [1, 1], method="auto") == run(
        Halving(thresholds(3)), [0, 1], [1, 1], method="loop"
    )


def test_observe_not_callable():
    with pytest.raises(TypeError, match=r"observe\['w'\]"):
        run(Perceptron(2), [[0.0, 1.0]], [1], observe={"w": 3}, method="blocks")


# -- the compiled play engine: adversarial streams, no copy of the stream, errors -----------------


@pytest.mark.parametrize("form", BOOLEAN_FORMS)
@pytest.mark.parametrize(
    "alpha, theta, tie_positive", [(2.0, 16.0, False), (2.0, 16.0, True), (3.0, 10.0, False), (1.5, 7.0, True)]
)
def test_winnow2_on_its_promotion_adversary(form, alpha, theta, tie_positive):
    # every round of this stream is a promotion, the last ones at scores equal to theta (ties)
    n = 24
    result = promotion_adversary(n, 3, alpha, theta, positive_at_threshold=tie_positive)
    X = np.vstack([result.X, winnow1_promotion_adversary(n, 2, 8)[0]])
    y = np.concatenate([result.y, np.ones(len(X) - len(result.y), dtype=np.int8)])

    def make():
        return Winnow2(n, alpha=alpha, theta=theta, positive_at_threshold=tie_positive)

    trace, st_ = assert_engine_equals_loop(make, in_form(X, form), y)
    assert trace.mistakes[: len(result.y)].all() and st_["promotions"] >= len(result.y) > 0


@pytest.mark.parametrize("form", FORMS)
def test_perceptron_on_the_margin_adversary_stream(form):
    # every score is exactly 0: each round an update, and a mistake whenever the label is -1
    X, y, _ = perceptron_lower_bound_stream(0.25, 1.0)
    trace, st_ = assert_engine_equals_loop(lambda: Perceptron(X.shape[1]), in_form(X, form), y)
    assert st_["n_updates"] == len(y) == 16


def test_play_reads_a_canonical_csr_stream_where_it_is():
    # 1.6 MB of data and 0.8 MB of indices: run may allocate its labels, predictions and the
    # weights (a few hundred kB), never a copy of the stream
    X, y, _ = disjunction_stream(5000, 3, 10_000, np.random.default_rng(1), active=20, sparse=True)
    before = (X.data.copy(), X.indices.copy(), X.indptr.copy())
    learner = Winnow2(5000)
    assert learner.prepare(X).data is X.data  # no copy
    run(Winnow2(5000), X[:10], y[:10])  # compile (or load) the kernels outside the measurement
    tracemalloc.start()
    trace = run(learner, X, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    stream_bytes = X.data.nbytes + X.indices.nbytes
    assert peak < stream_bytes / 4, f"run allocated {peak} bytes at its peak; the stream holds {stream_bytes}"
    assert trace.n_mistakes > 0
    for array, saved in zip((X.data, X.indices, X.indptr), before, strict=True):
        np.testing.assert_array_equal(array, saved)  # the caller's stream is untouched
    assert not hasattr(X, "_has_canonical_format") or X.has_canonical_format


@pytest.mark.parametrize("form", ["unsorted", "stored_zeros", "duplicates"])
def test_play_copies_a_non_canonical_stream_without_touching_it(form):
    rng = np.random.default_rng(2)
    X = (rng.random((40, 6)) < 0.4).astype(np.uint8)
    y = np.where(X[:, :2].any(axis=1), 1, -1)
    Xin = in_form(X, form)
    saved = (Xin.data.copy(), Xin.indices.copy(), Xin.indptr.copy())
    expected = run(Winnow2(6), X, y)
    assert run(Winnow2(6), Xin, y) == expected
    for array, before in zip((Xin.data, Xin.indices, Xin.indptr), saved, strict=True):
        np.testing.assert_array_equal(array, before)


def _raw_csr(data, indices, indptr, n):
    """A CSR matrix with exactly these arrays, unchecked (as a careless or hostile caller may build)."""
    M = sp.csr_matrix((1, n))
    M.data, M.indices, M.indptr = np.asarray(data, float), np.asarray(indices, np.int32), np.asarray(indptr, np.int32)
    M._shape = (len(indptr) - 1, n)
    return M


@pytest.mark.parametrize("method", ["auto", "blocks"])
@pytest.mark.parametrize("make", [lambda: Perceptron(3), lambda: Winnow2(3), lambda: Winnow1(3)])
@pytest.mark.parametrize(
    "indices, indptr, match",
    [
        ([0, 3], [0, 1, 2], r"column indices in \[0, 3\): round 2 "),
        ([0, -1], [0, 1, 2], r"column indices in \[0, 3\): round 2 "),
        ([0, 1], [0, 2, 1], r"not a valid CSR matrix: indptr\[1:3\]"),
        ([0, 1], [0, 1, 5], r"not a valid CSR matrix: indptr\[1:3\]"),
    ],
)
def test_play_and_scan_reject_a_broken_csr_stream(method, make, indices, indptr, match):
    X = _raw_csr(np.ones(len(indices)), indices, indptr, 3)
    learner = make()
    with pytest.raises(ValueError, match=match):
        run(learner, X, [1, 1], method=method)
    assert learner.rounds == 1  # the first round was played


@pytest.mark.parametrize("method", ["auto", "blocks", "loop"])
@pytest.mark.parametrize("cls", [Winnow1, Winnow2])
@pytest.mark.parametrize("bad", [2.0, -1.0, 0.5, np.nan, np.inf])
def test_winnow_names_the_round_of_a_non_boolean_sparse_entry(method, cls, bad):
    X = sp.csr_matrix(np.array([[1.0, 0, 1], [0, 1, 0], [0, 0, 1], [1, 0, 0]]))
    X.data[2] = bad  # row 2 (round 2)
    match = r"X must be Boolean.*round 2\b" if method != "loop" else "x must be Boolean"
    learner = cls(3)
    with pytest.raises(ValueError, match=match):
        run(learner, X, [1, -1, 1, 1], method=method)
    assert learner.rounds == 1


def test_play_rejects_a_learner_play_with_bad_predictions():
    class Broken(Perceptron):
        def play(self, X, y):
            return np.zeros(len(y), dtype=np.int8)

    with pytest.raises(ValueError, match=r"Broken.play must return 3 predictions, each -1 or \+1"):
        run(Broken(2), np.ones((3, 2)), [1, 1, 1])
