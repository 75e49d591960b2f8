"""Tests for onlinelib.linear: Perceptron, Winnow1, Winnow2, Elimination and as_sparse_rows.

Small cases are worked out by hand in the comments. Every learner is also compared,
exactly, with a plain-Python reference implementation that computes the score as the
sequential sum that onlinelib._kernels defines.
"""

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from examples import state
from onlinelib import Elimination, Perceptron, Winnow1, Winnow2, as_sparse_rows, run
from onlinelib.linear import winnow1_default_threshold, winnow2_default_threshold

PROPERTY = settings(max_examples=60, deadline=None, database=None)
METHODS = ("loop", "blocks")


def assert_same_state(a, b):
    assert a.keys() == b.keys()
    for key in a:
        if key == "weights":
            np.testing.assert_array_equal(a[key], b[key])  # exact: tolerance 0
        else:
            assert a[key] == b[key], key


# -- plain-Python references -------------------------------------------------------------


def seq_score(x, w, b):
    s = 0.0
    for xk, wk in zip(x, w, strict=True):
        s += float(xk) * float(wk)
    return s + b


def reference_perceptron(X, y, bias=False):
    w = [0.0] * len(X[0])
    b = 0.0
    preds, updates = [], 0
    for x, label in zip(X, y, strict=True):
        s = seq_score(x, w, b)
        preds.append(1 if s >= 0 else -1)
        if label * s <= 0:
            w = [wk + label * float(xk) for wk, xk in zip(w, x, strict=True)]
            if bias:
                b += label
            updates += 1
    return np.array(preds), np.array(w), b, updates


def reference_winnow(X, y, theta, factor=None, positive_at_threshold=False):
    """Winnow1 (factor=None: double / zero) or Winnow2 (multiply / divide by factor)."""
    w = [1.0] * len(X[0])
    preds, up, down = [], 0, 0
    for x, label in zip(X, y, strict=True):
        s = seq_score(x, w, 0.0)
        positive = s >= theta if positive_at_threshold else s > theta
        p = 1 if positive else -1
        preds.append(p)
        if p != label:
            for i, xi in enumerate(x):
                if xi:
                    if label == 1:
                        w[i] = w[i] * (2.0 if factor is None else factor)
                    else:
                        w[i] = 0.0 if factor is None else w[i] / factor
            up, down = up + (label == 1), down + (label == -1)
    return np.array(preds), np.array(w), up, down


# -- as_sparse_rows ----------------------------------------------------------------------


def test_as_sparse_rows_builds_csr_from_indices():
    m = as_sparse_rows([np.array([0, 2]), np.array([1]), np.array([], dtype=int)], 3)
    assert sp.issparse(m) and m.format == "csr" and m.shape == (3, 3)
    np.testing.assert_array_equal(m.toarray(), [[1, 0, 1], [0, 1, 0], [0, 0, 0]])
    assert m.dtype == np.float64


def test_as_sparse_rows_sorts_indices_within_a_row():
    m = as_sparse_rows([[2, 0, 1]], 4)
    np.testing.assert_array_equal(m.indices, [0, 1, 2])
    np.testing.assert_array_equal(m.toarray(), [[1, 1, 1, 0]])


def test_as_sparse_rows_duplicate_index():
    with pytest.raises(ValueError, match="same feature index twice"):
        as_sparse_rows([[0, 1], [2, 2]], 3)


@pytest.mark.parametrize("bad", [3, -1, 10])
def test_as_sparse_rows_out_of_range(bad):
    with pytest.raises(ValueError, match=r"\[0, 3\)") as info:
        as_sparse_rows([[0], [1, bad]], 3)
    assert str(bad) in str(info.value)


@pytest.mark.parametrize("rows", [[np.array([0.0, 1.0])], [np.array([True, False])]])
def test_as_sparse_rows_non_integer_indices(rows):
    with pytest.raises(TypeError, match="integer feature indices"):
        as_sparse_rows(rows, 3)


@pytest.mark.parametrize("n, error", [(0, ValueError), (-2, ValueError), (2.5, TypeError), (True, TypeError)])
def test_as_sparse_rows_bad_n_features(n, error):
    with pytest.raises(error, match=rf"n_features must be an integer >= 1, got {n!r}"):
        as_sparse_rows([[0]], n)


def test_as_sparse_rows_csr_passthrough():
    dense = np.array([[0, 1, 1], [1, 0, 0]], dtype=float)
    original = sp.csr_matrix(dense)
    m = as_sparse_rows(original, 3)
    assert m.format == "csr" and m is not original
    np.testing.assert_array_equal(m.toarray(), dense)
    m.data[:] = 7  # a copy: the caller's matrix is untouched
    np.testing.assert_array_equal(original.toarray(), dense)
    # other sparse formats are converted to CSR, with sorted indices
    m2 = as_sparse_rows(sp.coo_matrix(dense), 3)
    assert m2.format == "csr" and m2.has_sorted_indices
    np.testing.assert_array_equal(m2.toarray(), dense)


def test_as_sparse_rows_csr_wrong_width():
    with pytest.raises(ValueError, match="3 columns"):
        as_sparse_rows(sp.csr_matrix(np.eye(4)), 3)


def test_as_sparse_rows_empty_list():
    m = as_sparse_rows([], 5)
    assert m.shape == (0, 5) and m.nnz == 0


def test_as_sparse_rows_accepts_an_empty_python_list_row():
    m = as_sparse_rows([[0, 1], []], 3)
    np.testing.assert_array_equal(m.toarray(), [[1, 1, 0], [0, 0, 0]])


# -- Perceptron --------------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
def test_perceptron_hand_worked_ties(method):
    # w = (0,0). r1: score 0 -> +1, y = -1: mistake, w = (-1,0).
    # r2: x = (0,1), score 0 -> +1 = y: no mistake, but a tie: update, w = (-1,1).
    # r3: x = (1,1), score 0 -> +1 = y: tie, update, w = (0,2).
    # r4: x = (0,1), score 2 -> +1 = y: nothing.  r5: x = (1,-1), y = -1: score -2 -> -1 = y: nothing.
    X = [[1, 0], [0, 1], [1, 1], [0, 1], [1, -1]]
    y = [-1, 1, 1, 1, -1]
    p = Perceptron(2)
    trace = run(p, X, y, method=method)
    np.testing.assert_array_equal(trace.predictions, [1, 1, 1, 1, -1])
    assert trace.n_mistakes == 1
    assert p.n_updates == 3
    np.testing.assert_array_equal(p.weights, [0.0, 2.0])
    assert p.bias == 0.0 and p.rounds == 5


def test_perceptron_zero_score_predicts_plus_one_and_updates_whatever_the_label():
    for label in (1, -1):
        p = Perceptron(3)
        assert p.predict([1.0, 2.0, 3.0]) == 1  # w = 0: score 0
        p.update([1.0, 2.0, 3.0], label)
        assert p.n_updates == 1
        np.testing.assert_array_equal(p.weights, [label * 1.0, label * 2.0, label * 3.0])
    # a nonzero correct score does not update
    p = Perceptron(1)
    p.weights[:] = 1.0
    p.update([2.0], 1)
    assert p.n_updates == 0 and p.rounds == 1


@pytest.mark.parametrize("method", METHODS)
def test_perceptron_bias_hand_worked(method):
    # x = 0 twice with y = -1, then x = 2 with y = +1.
    # r1: score 0 -> +1, mistake: w = 0 - 0 = 0, b = -1.  r2: score -1 -> -1 = y.
    # r3: score 0*2 - 1 = -1 -> -1, y = +1: mistake: w = 2, b = 0.
    p = Perceptron(1, bias=True)
    trace = run(p, [[0.0], [0.0], [2.0]], [-1, -1, 1], method=method)
    np.testing.assert_array_equal(trace.predictions, [1, -1, -1])
    assert p.n_updates == 2 and p.bias == 0.0
    np.testing.assert_array_equal(p.weights, [2.0])
    # without a bias x = 0 always scores 0: predicted +1 and updated each time, w stays 0
    q = Perceptron(1)
    trace = run(q, [[0.0], [0.0]], [-1, -1], method=method)
    np.testing.assert_array_equal(trace.predictions, [1, 1])
    assert q.n_updates == 2 and q.weights[0] == 0.0 and q.bias == 0.0


def test_perceptron_score():
    p = Perceptron(3, bias=True)
    p.weights[:] = [0.5, -1.0, 2.0]
    p.bias = 0.25
    assert p.score([2.0, 1.0, 1.0]) == 1.0 + -1.0 + 2.0 + 0.25  # exact: dyadic rationals
    assert p.score(np.array([0, 0, 0])) == 0.25
    assert p.score(sp.csr_matrix([[0.0, 3.0, 0.0]])) == -3.0 + 0.25
    assert p.predict([0.0, 1.0, 0.0]) == -1 and p.predict([0.0, 0.0, 0.0]) == 1


def test_perceptron_score_is_the_sequential_sum():
    # ((0 + 0.1*1) + 0.2*1) + (-0.3)*1 = 5.551115123125783e-17, not 0: the order is the definition.
    p = Perceptron(3)
    p.weights[:] = 1.0
    assert p.score([0.1, 0.2, -0.3]) == (0.1 + 0.2) - 0.3
    assert p.score([-0.3, 0.1, 0.2]) == (-0.3 + 0.1) + 0.2
    assert p.score([0.1, 0.2, -0.3]) != p.score([-0.3, 0.1, 0.2])


def test_perceptron_sparse_update_touches_only_active_weights():
    p = Perceptron(4)
    p.update(sp.csr_matrix([[0.0, 2.5, 0.0, -1.0]]), -1)
    np.testing.assert_array_equal(p.weights, [0.0, -2.5, 0.0, 1.0])


# -- Winnow1 -----------------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
def test_winnow1_hand_worked(method):
    # n = 4, theta = 2, w = (1,1,1,1). r1: e_0, score 1 <= 2: promotion, w_0 = 2.
    # r2: e_0, score 2 is not > 2: promotion, w_0 = 4.  r3: e_0, score 4 > 2: correct.
    # r4: (0,1,1,1), y = -1, score 3 > 2: elimination, w = (4,0,0,0).
    # r5: (0,1,1,0), y = -1: score 0: correct.  r6: (1,1,0,0), y = +1: score 4: correct.
    X = [[1, 0, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0], [0, 1, 1, 1], [0, 1, 1, 0], [1, 1, 0, 0]]
    y = [1, 1, 1, -1, -1, 1]
    w = Winnow1(4)
    assert w.theta == 2.0
    trace = run(w, X, y, method=method)
    np.testing.assert_array_equal(trace.predictions, [-1, -1, 1, 1, -1, 1])
    np.testing.assert_array_equal(trace.mistake_rounds, [1, 2, 4])
    assert (w.promotions, w.eliminations) == (2, 1)
    np.testing.assert_array_equal(w.weights, [4.0, 0.0, 0.0, 0.0])


def test_winnow1_theta():
    assert Winnow1(5).theta == 2.5
    assert Winnow1(5, theta=3).theta == 3.0
    assert Winnow1(5, theta=np.float32(0.5)).threshold == 0.5


def test_winnow1_default_threshold_is_n_over_2():
    assert [winnow1_default_threshold(n) for n in (1, 5, np.int64(8))] == [0.5, 2.5, 4.0]
    assert all(Winnow1(n).theta == winnow1_default_threshold(n) for n in (1, 5, 64))
    for n, error in [(0, ValueError), (2.0, TypeError)]:
        with pytest.raises(error, match=rf"n_features must be an integer >= 1, got {n!r}"):
            winnow1_default_threshold(n)


def test_winnow2_default_threshold_is_n():
    values = [winnow2_default_threshold(n) for n in (1, 5, np.int64(8))]
    assert values == [1.0, 5.0, 8.0] and all(type(v) is float for v in values)
    assert all(Winnow2(n).threshold == winnow2_default_threshold(n) for n in (1, 5, 64))
    for n, error in [(0, ValueError), (2.0, TypeError)]:
        with pytest.raises(error, match=rf"n_features must be an integer >= 1, got {n!r}"):
            winnow2_default_threshold(n)


def test_winnow1_threshold_is_strict():
    w = Winnow1(3, theta=2)
    assert w.score([1, 1, 0]) == 2.0 and w.predict([1, 1, 0]) == -1
    assert w.predict([1, 1, 1]) == 1


def test_winnow1_false_positive_zeroes_only_active_weights():
    w = Winnow1(4, theta=1)
    w.weights[:] = [2.0, 4.0, 8.0, 1.0]
    w.update([0, 1, 1, 0], -1)
    np.testing.assert_array_equal(w.weights, [2.0, 0.0, 0.0, 1.0])
    assert (w.promotions, w.eliminations) == (0, 1)
    w.update([1, 0, 0, 1], 1)  # score 3 > 1: correct, nothing changes
    np.testing.assert_array_equal(w.weights, [2.0, 0.0, 0.0, 1.0])
    assert w.rounds == 2


# -- Winnow2 -----------------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
def test_winnow2_hand_worked_strict(method):
    # n = 3, alpha = 2, theta = n = 3. r1: (1,1,1), score 3 not > 3, y = +1: promote all, w = (2,2,2).
    # r2: (1,1,0), y = -1, score 4 > 3: demote, w = (1,1,2).  r3: e_2, y = +1, score 2: promote, w = (1,1,4).
    # r4: (1,0,1), y = +1, score 5: correct.
    X = [[1, 1, 1], [1, 1, 0], [0, 0, 1], [1, 0, 1]]
    y = [1, -1, 1, 1]
    w = Winnow2(3)
    assert (w.alpha, w.theta, w.positive_at_threshold) == (2.0, 3.0, False)
    trace = run(w, X, y, method=method)
    np.testing.assert_array_equal(trace.predictions, [-1, 1, -1, 1])
    assert (w.promotions, w.demotions) == (2, 1)
    np.testing.assert_array_equal(w.weights, [1.0, 1.0, 4.0])


@pytest.mark.parametrize("method", METHODS)
def test_winnow2_hand_worked_positive_at_threshold(method):
    # Same stream with +1 at w.x = theta. r1: score 3 >= 3: +1, correct.  r2: score 2: -1, correct.
    # r3: score 1, y = +1: promote, w = (1,1,2).  r4: (1,0,1): score 3 >= 3: +1, correct.
    X = [[1, 1, 1], [1, 1, 0], [0, 0, 1], [1, 0, 1]]
    y = [1, -1, 1, 1]
    w = Winnow2(3, positive_at_threshold=True)
    trace = run(w, X, y, method=method)
    np.testing.assert_array_equal(trace.predictions, [1, -1, -1, 1])
    assert (w.promotions, w.demotions) == (1, 0)
    np.testing.assert_array_equal(w.weights, [1.0, 1.0, 2.0])


@pytest.mark.parametrize(
    "positive_at_threshold, expected_prediction, expected_weights", [(False, -1, [1.0, 1.0]), (True, 1, [1 / 3, 1 / 3])]
)
def test_winnow2_tie_on_a_negative_example(positive_at_threshold, expected_prediction, expected_weights):
    w = Winnow2(2, alpha=3, theta=2, positive_at_threshold=positive_at_threshold)
    trace = run(w, [[1, 1]], [-1], method="loop")
    assert trace.predictions[0] == expected_prediction
    np.testing.assert_array_equal(w.weights, expected_weights)  # exact: 1/3 is 1.0 / 3.0 in both
    assert w.demotions == (1 if positive_at_threshold else 0)


def test_winnow2_one_plus_beta_form():
    # The notes' form: alpha = 1 + beta, theta = n. beta = 1/2, n = 4.
    # r1: all ones, score 4 <= 4, y = +1: promote, w = 1.5 each.  r2: (1,1,1,0), y = -1, score 4.5 > 4:
    # demote, w = (1,1,1,1.5).  (All values dyadic: exact.)
    beta = 0.5
    w = Winnow2(4, alpha=1 + beta, theta=4)
    run(w, [[1, 1, 1, 1], [1, 1, 1, 0]], [1, -1], method="loop")
    np.testing.assert_array_equal(w.weights, [1.0, 1.0, 1.0, 1.5])
    assert (w.promotions, w.demotions) == (1, 1)
    assert Winnow2(7, alpha=1.25).theta == 7.0


# -- Elimination -------------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
def test_elimination_conjunction_hand_worked(method):
    # target x0 and not x2, n = 3. Starts with all 6 literals: predicts -1.
    # r1: (1,0,0) +1: mistake; keep x0, not x1, not x2.  r2: (1,1,0) +1: not x1 fails: mistake; keep x0, not x2.
    # r3: (0,1,0) -1: correct.  r4: (1,1,1) -1: correct.  r5: (1,0,0) +1: correct.
    X = [[1, 0, 0], [1, 1, 0], [0, 1, 0], [1, 1, 1], [1, 0, 0]]
    y = [1, 1, -1, -1, 1]
    e = Elimination(3)
    assert e.n_literals == 6 and e.predict([1, 1, 1]) == -1
    trace = run(e, X, y, method=method)
    np.testing.assert_array_equal(trace.predictions, [-1, -1, -1, -1, 1])
    assert e.n_mistakes == 2 == 3 + 1 - 2  # the bound n + 1 - k is met
    assert e.n_literals == 2
    np.testing.assert_array_equal(e.positive_literals, [True, False, False])
    np.testing.assert_array_equal(e.negative_literals, [False, False, True])
    assert e.score([1, 1, 1]) == -1.0  # one kept literal (not x2) is violated
    assert e.score([0, 1, 1]) == -2.0


@pytest.mark.parametrize("method", METHODS)
def test_elimination_monotone_conjunction(method):
    e = Elimination(3, monotone=True)
    assert e.n_literals == 3
    assert e.predict([1, 1, 1]) == 1 and e.predict([1, 1, 0]) == -1
    trace = run(e, [[1, 1, 0], [1, 1, 1], [0, 1, 1]], [1, 1, -1], method=method)
    np.testing.assert_array_equal(trace.predictions, [-1, 1, -1])
    assert e.n_mistakes == 1 and e.n_literals == 2
    np.testing.assert_array_equal(e.positive_literals, [True, True, False])
    assert not e.negative_literals.any()


@pytest.mark.parametrize("method", METHODS)
def test_elimination_disjunction_hand_worked(method):
    # target x0 or not x2, n = 3. The hypothesis starts as the disjunction of all 6 literals (always +1).
    # r1: (0,0,1) -1: mistake; hypothesis x0 or x1 or not x2.  r2: (0,1,1) -1: x1 fires: mistake;
    # hypothesis x0 or not x2.  r3: (1,0,1) +1: correct.  r4: (0,0,0) +1: correct.
    e = Elimination(3, target="disjunction")
    assert e.predict([0, 0, 0]) == 1 and e.predict([1, 1, 1]) == 1
    trace = run(e, [[0, 0, 1], [0, 1, 1], [1, 0, 1], [0, 0, 0]], [-1, -1, 1, 1], method=method)
    np.testing.assert_array_equal(trace.predictions, [1, 1, 1, 1])
    assert e.n_mistakes == 2 and e.n_literals == 2
    assert e.predict([0, 1, 1]) == -1 and e.predict([1, 1, 1]) == 1 and e.predict([0, 1, 0]) == 1


@pytest.mark.parametrize("method", METHODS)
def test_elimination_monotone_disjunction(method):
    e = Elimination(3, target="disjunction", monotone=True)
    assert e.predict([0, 0, 0]) == -1 and e.predict([0, 0, 1]) == 1
    trace = run(e, [[0, 0, 1], [1, 0, 0], [0, 1, 0], [0, 0, 0]], [-1, 1, 1, -1], method=method)
    np.testing.assert_array_equal(trace.predictions, [1, 1, 1, -1])
    assert e.n_mistakes == 1 and e.n_literals == 2
    assert e.predict([0, 0, 1]) == -1 and e.predict([0, 1, 1]) == 1


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("sparse", [False, True])
def test_elimination_inconsistent_conjunction_stream_names_the_round(method, sparse):
    # rounds 1-2 learn x0 and not x2 (as above); round 4 is a false positive: (1,0,0) labelled -1.
    X = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 0], [1, 0, 0], [1, 1, 1]])
    y = [1, 1, -1, -1, 1]
    with pytest.raises(ValueError, match=r"conjunction.*false positive at round 4"):
        run(Elimination(3), sp.csr_matrix(X) if sparse else X, y, method=method)


@pytest.mark.parametrize("method", METHODS)
def test_elimination_inconsistent_disjunction_stream_names_the_round(method):
    X = [[0, 0, 1], [0, 1, 1], [1, 0, 1], [0, 0, 0], [0, 1, 1]]
    y = [-1, -1, 1, 1, 1]  # round 5: the learned x0 or not x2 says -1 on a positive example
    with pytest.raises(ValueError, match=r"disjunction.*round 5"):
        run(Elimination(3, target="disjunction"), X, y, method=method)


def test_elimination_disjunction_error_names_the_kind_of_mistake():
    X = [[0, 0, 1], [0, 1, 1], [1, 0, 1], [0, 0, 0], [0, 1, 1]]
    with pytest.raises(ValueError, match="false negative at round 5"):
        run(Elimination(3, target="disjunction"), X, [-1, -1, 1, 1, 1], method="loop")


@pytest.mark.parametrize("method", METHODS)
def test_elimination_inconsistent_on_first_round(method):
    # the monotone conjunction learner predicts +1 on all-ones at once; label -1 is impossible
    with pytest.raises(ValueError, match="round 1"):
        run(Elimination(2, monotone=True), [[1, 1]], [-1], method=method)


def test_elimination_bad_target():
    with pytest.raises(ValueError, match="target"):
        Elimination(3, target="dnf")


# -- dense vs sparse inputs --------------------------------------------------------------


def _learners():
    return [
        lambda n: Winnow1(n),
        lambda n: Winnow1(n, theta=1.5),
        lambda n: Winnow2(n, alpha=2.0, theta=2.0),
        lambda n: Winnow2(n, alpha=1.5, theta=3.0, positive_at_threshold=True),
        lambda n: Perceptron(n),
        lambda n: Perceptron(n, bias=True),
        lambda n: Elimination(n, target="disjunction", monotone=True),
    ]


@pytest.mark.parametrize("make", _learners())
@pytest.mark.parametrize("method", METHODS)
def test_dense_csr_and_index_lists_give_identical_traces(make, method):
    rng = np.random.default_rng(7)
    n, T = 9, 120
    X = (rng.random((T, n)) < 0.3).astype(np.uint8)
    X[0, :] = 0  # an empty row
    X[1, :3] = 1
    X[2, :] = 1
    relevant = [1, 4, 6]
    y = np.where(X[:, relevant].any(axis=1), 1, -1)
    index_rows = [np.flatnonzero(row) for row in X]
    assert len({len(r) for r in index_rows}) > 1  # ragged, so read as index lists
    forms = [X, X.astype(bool), sp.csr_matrix(X), sp.csr_array(X)]
    if make(1).boolean_inputs:  # lists of active indices are for the Boolean learners
        forms.append(index_rows)
    results = []
    for form in forms:
        learner = make(n)
        results.append((run(learner, form, y, method=method), state(learner)))
    for trace, st_ in results[1:]:
        assert trace == results[0][0]
        assert_same_state(st_, results[0][1])
    assert results[0][0].n_mistakes > 0


def test_perceptron_index_lists():
    rows = [np.array([0, 2]), np.array([1])]
    expected = run(Perceptron(3), as_sparse_rows(rows, 3), [-1, 1], method="loop")
    assert run(Perceptron(3), rows, [-1, 1], method="loop") == expected


def test_a_list_of_rows_of_length_n_is_read_as_dense_rows():
    # Ambiguous input, resolved as documented in prepare(): rows of length n_features
    # are dense rows; index rows of any other length are index rows.
    rows = [np.array([0, 1]), np.array([1, 0])]
    assert run(Winnow2(2), rows, [1, 1], method="loop") == run(Winnow2(2), np.array(rows), [1, 1], method="loop")
    index_rows = [np.array([0, 1]), np.array([1, 2])]
    expected = run(Winnow2(3), as_sparse_rows(index_rows, 3), [1, 1], method="loop")
    assert run(Winnow2(3), index_rows, [1, 1], method="loop") == expected


def test_equal_length_index_lists_are_accepted():
    trace = run(Winnow2(4), [np.array([0, 1]), np.array([2, 3])], [1, -1])
    assert len(trace) == 2


# -- exact agreement with the references -------------------------------------------------


@st.composite
def boolean_stream(draw, max_n=8, max_t=40):
    n = draw(st.integers(1, max_n))
    T = draw(st.integers(1, max_t))
    X = draw(hnp.arrays(np.uint8, (T, n), elements=st.integers(0, 1)))
    y = draw(hnp.arrays(np.int8, T, elements=st.sampled_from([-1, 1])))
    return X, y


@PROPERTY
@given(boolean_stream(), st.sampled_from([0.5, 1.0, 2.0, 3.0, 2.5, 7.0]), st.sampled_from(METHODS))
def test_winnow1_matches_reference(data, theta, method):
    X, y = data
    w = Winnow1(X.shape[1], theta=theta)
    trace = run(w, X, y, method=method)
    preds, weights, up, down = reference_winnow(X, y, theta)
    np.testing.assert_array_equal(trace.predictions, preds)
    np.testing.assert_array_equal(w.weights, weights)
    assert (w.promotions, w.eliminations) == (up, down)


@PROPERTY
@given(
    boolean_stream(),
    st.sampled_from([1.5, 2.0, 3.0, 1.1]),
    st.sampled_from([1.0, 2.0, 3.0, 4.5]),
    st.booleans(),
    st.sampled_from(METHODS),
)
def test_winnow2_matches_reference(data, alpha, theta, tie_positive, method):
    X, y = data
    w = Winnow2(X.shape[1], alpha=alpha, theta=theta, positive_at_threshold=tie_positive)
    trace = run(w, X, y, method=method)
    preds, weights, up, down = reference_winnow(X, y, theta, factor=alpha, positive_at_threshold=tie_positive)
    np.testing.assert_array_equal(trace.predictions, preds)
    np.testing.assert_array_equal(w.weights, weights)  # exact: same operations in the same order
    assert (w.promotions, w.demotions) == (up, down)


@PROPERTY
@given(st.integers(1, 6), st.integers(1, 40), st.data(), st.booleans(), st.sampled_from(METHODS))
def test_perceptron_matches_reference(n, T, data, bias, method):
    values = st.sampled_from([-2.0, -1.0, 0.0, 1.0, 2.0, 0.1, -0.3, 0.2, 1e-3])
    X = data.draw(hnp.arrays(np.float64, (T, n), elements=values))
    y = data.draw(hnp.arrays(np.int8, T, elements=st.sampled_from([-1, 1])))
    p = Perceptron(n, bias=bias)
    trace = run(p, X, y, method=method)
    preds, weights, b, updates = reference_perceptron(X, y, bias)
    np.testing.assert_array_equal(trace.predictions, preds)
    np.testing.assert_array_equal(p.weights, weights)
    assert p.bias == b and p.n_updates == updates
    assert p.n_updates >= trace.n_mistakes


# -- one-row inputs ----------------------------------------------------------------------


def test_predict_update_protocol_with_a_single_row():
    # predict/update on CSR one-row matrices and plain lists agree with the dense vector path
    for x in ([1, 0, 1], np.array([True, False, True]), sp.csr_matrix([[1, 0, 1]]), sp.csr_array([[1, 0, 1]])):
        w = Winnow2(3, theta=1.5)
        assert w.score(x) == 2.0 and w.predict(x) == 1
        w.update(x, -1)
        np.testing.assert_array_equal(w.weights, [0.5, 1.0, 0.5])


# -- bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [Perceptron, Winnow1, Winnow2, Elimination])
@pytest.mark.parametrize(
    "n, error",
    [(0, ValueError), (-1, ValueError), (2.5, TypeError), ("3", TypeError), (True, TypeError), (None, TypeError)],
)
def test_bad_n_features(cls, n, error):
    with pytest.raises(error, match=r"n_features must be an integer >= 1, got "):
        cls(n)


@pytest.mark.parametrize(
    "alpha, error",
    [
        (1.0, ValueError),
        (0.5, ValueError),
        (-2, ValueError),
        (np.inf, ValueError),
        (np.nan, ValueError),
        ("2", TypeError),
        (True, TypeError),
        (None, TypeError),
    ],
)
def test_winnow2_bad_alpha(alpha, error):
    with pytest.raises(error, match="alpha"):
        Winnow2(4, alpha=alpha)


@pytest.mark.parametrize("cls", [Winnow1, Winnow2])
@pytest.mark.parametrize(
    "theta, error",
    [
        (0, ValueError),
        (-1.0, ValueError),
        (np.inf, ValueError),
        (np.nan, ValueError),
        ("1", TypeError),
        (False, TypeError),
    ],
)
def test_winnow_bad_theta(cls, theta, error):
    with pytest.raises(error, match="theta"):
        cls(4, theta=theta)


@pytest.mark.parametrize("cls", [Winnow1, Winnow2, Elimination])
@pytest.mark.parametrize("method", METHODS)
def test_non_boolean_dense_x(cls, method):
    with pytest.raises(ValueError, match=r"X must be Boolean.*2"):
        run(cls(3), [[0, 1, 0], [0, 2, 1]], [1, -1], method=method)
    with pytest.raises(ValueError, match="X must be Boolean"):
        run(cls(3), [[0, 0.5, 0]], [1], method=method)


@pytest.mark.parametrize("cls", [Winnow1, Winnow2, Elimination])
def test_non_boolean_sparse_x(cls):
    X = sp.csr_matrix(np.array([[0, 1, 0], [0, 3, 1]], dtype=float))
    with pytest.raises(ValueError, match="X must be Boolean"):
        run(cls(3), X, [1, -1])
    with pytest.raises(ValueError, match="x must be Boolean"):
        cls(3).predict(sp.csr_matrix([[0.0, -1.0, 0.0]]))
    with pytest.raises(ValueError, match="x must be Boolean"):
        cls(3).update(np.array([0.0, 2.0, 1.0]), 1)
    with pytest.raises(ValueError, match="x must be Boolean"):
        cls(3).score([1, 1, 5])


@pytest.mark.parametrize("make", _learners())
@pytest.mark.parametrize("method", METHODS + ("auto",))
def test_labels_outside_plus_minus_one(make, method):
    with pytest.raises(ValueError, match=r"y must hold labels.*0.*2\*y - 1"):
        run(make(2), [[0, 1], [1, 0]], [1, 0], method=method)
    with pytest.raises(ValueError, match="y must hold labels"):
        run(make(2), [[0, 1]], [2], method=method)
    with pytest.raises(TypeError, match="y must hold the labels"):
        run(make(2), [[0, 1]], [True], method=method)
    with pytest.raises(ValueError, match="y"):
        make(2).update([0, 1], 0)


@pytest.mark.parametrize("make", _learners())
def test_mismatched_lengths_and_empty_stream(make):
    with pytest.raises(ValueError, match="X and y must have one entry per round"):
        run(make(2), [[0, 1], [1, 0]], [1], method="blocks")
    with pytest.raises(ValueError, match="empty"):
        run(make(2), np.zeros((0, 2)), np.zeros(0, dtype=int), method="blocks")
    with pytest.raises(ValueError, match="empty"):
        run(make(2), sp.csr_matrix((0, 2)), [], method="loop")


@pytest.mark.parametrize("make", _learners())
def test_wrong_number_of_features(make):
    with pytest.raises(ValueError, match=r"X must have shape \(T, 3\)"):
        run(make(3), np.zeros((2, 4)), [1, 1])
    with pytest.raises(ValueError, match="X must have 3 columns"):
        run(make(3), sp.csr_matrix((2, 4)), [1, 1])
    with pytest.raises(ValueError, match=r"x must have shape \(3,\)"):
        make(3).predict([0, 1])
    with pytest.raises(ValueError, match="x must be one row with 3 features"):
        make(3).score(sp.csr_matrix((1, 2)))


@pytest.mark.parametrize("make", _learners())
def test_non_numeric_x(make):
    with pytest.raises(TypeError, match="X must be a numeric array"):
        run(make(2), [["a", "b"]], [1])
    with pytest.raises(TypeError, match="x must be a numeric vector"):
        make(2).predict(["a", "b"])


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_perceptron_non_finite_x_single_round(bad):
    p = Perceptron(2)
    for x in ([1.0, bad], np.array([1.0, bad]), sp.csr_matrix([[1.0, bad]])):
        with pytest.raises(ValueError, match="x must be finite"):
            p.predict(x)
        with pytest.raises(ValueError, match="x must be finite"):
            p.update(x, 1)
    assert p.n_updates == 0 and p.rounds == 0


def test_score_overflow_is_reported():
    p = Perceptron(2)
    p.weights[:] = 1e308
    with pytest.raises(ValueError, match="score"):
        p.score([1e308, 1e308])
