"""Tests for onlinelib.observers: the proof instruments of chapters 3 (Novikoff) and 4 (Littlestone)."""

import numpy as np
import pytest
import scipy.sparse as sp

from onlinelib import Perceptron, Trace, Winnow2, perceptron_lower_bound_stream, run
from onlinelib.observers import per_update, potential_observers, proof_observables

# Float comparisons below use a relative tolerance of 1e-12: each compared value is
# the result of a handful of floating-point operations, whose rounding is ~1e-16.
RTOL = 1e-12


# --------------------------------------------------------------------------- observers
def test_potential_observers_hand_run():
    # x1 = (1, 0), y = +1: score 0 -> update (tie, no mistake), w = (1, 0)
    # x2 = (0, 2), y = -1: score 0 -> mistake and update, w = (1, -2)
    # x3 = (1, 1), y = +1: score -1 -> mistake and update, w = (2, -1)
    # x4 = (1, 0), y = +1: score 2 -> no update
    X = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0], [1.0, 0.0]])
    y = np.array([1, -1, 1, 1])
    u = np.array([3.0, -1.0])
    for method in ("loop", "blocks"):
        learner = Perceptron(2)
        trace = run(learner, X, y, observe=potential_observers(u), method=method)
        assert trace.observed["updates"].tolist() == [0, 1, 2, 3, 3]
        assert trace.observed["||w||^2"].tolist() == [0, 1, 5, 5, 5]
        assert trace.observed["<w*,w>"].tolist() == [0, 3, 5, 7, 7]
        assert trace.predictions.tolist() == [1, 1, -1, 1]
        assert trace.n_mistakes == 2 and learner.n_updates == 3


def test_potential_observers_copy_w_star():
    u = np.array([1.0, 0.0])
    observers = potential_observers(u)
    u[0] = 100.0  # changing the caller's array afterwards changes nothing
    learner = Perceptron(2)
    learner.weights[:] = [2.0, 5.0]
    assert observers["<w*,w>"](learner) == 2.0


@pytest.mark.parametrize(
    "w_star, match",
    [
        (np.zeros((2, 2)), r"w_star must be a non-empty 1-D vector, got shape \(2, 2\)"),
        (np.zeros(0), r"w_star must be a non-empty 1-D vector, got shape \(0,\)"),
        (5.0, r"w_star must be a non-empty 1-D vector, got shape \(\)"),
        (np.array([1.0, np.nan]), r"w_star must be finite"),
    ],
)
def test_potential_observers_errors(w_star, match):
    with pytest.raises(ValueError, match=match):
        potential_observers(w_star)


# --------------------------------------------------------------------------- per_update
def test_per_update_picks_values_after_each_update():
    trace = Trace(
        predictions=np.array([1, 1, 1, 1], dtype=np.int8),
        labels=np.array([1, 1, 1, 1], dtype=np.int8),
        observed={"updates": np.array([0.0, 1, 1, 2, 2]), "v": np.array([10.0, 11, 12, 13, 14])},
    )
    assert per_update(trace, "v").tolist() == [10.0, 11.0, 13.0]
    assert per_update(trace, "updates").tolist() == [0.0, 1.0, 2.0]


def test_per_update_on_a_real_run_matches_update_count():
    X, y, w_star = perceptron_lower_bound_stream(0.25)
    learner = Perceptron(X.shape[1])
    trace = run(learner, X, y, observe=potential_observers(w_star), method="blocks")
    norm2 = per_update(trace, "||w||^2")
    assert len(norm2) == learner.n_updates + 1 == 17
    assert norm2.tolist() == list(range(17))  # each update adds exactly ||e_i||^2 = 1


def test_per_update_errors():
    trace = Trace(
        predictions=np.array([1, 1], dtype=np.int8),
        labels=np.array([1, 1], dtype=np.int8),
        observed={"updates": np.array([0.0, 2.0, 2.0]), "v": np.zeros(3), "late": np.array([1.0, 1.0, 2.0])},
    )
    with pytest.raises(KeyError, match=r"'w' was not observed; the trace has \['late', 'updates', 'v'\]"):
        per_update(trace, "w")
    with pytest.raises(KeyError, match=r"'count' was not observed"):
        per_update(trace, "v", counter="count")
    with pytest.raises(ValueError, match=r"observed\['updates'\] must start at 0 and rise by 0 or 1 per round"):
        per_update(trace, "v")
    with pytest.raises(ValueError, match=r"observed\['late'\] must start at 0"):
        per_update(trace, "v", counter="late")


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
    trace = run(
        Winnow2(3, 2.0, 3.0), HAND_X, HAND_Y, observe=proof_observables(HAND_X, np.array([1, 2])), method="loop"
    )
    np.testing.assert_array_equal(trace.observed["relevant demotions"], [0, 0, 1, 1, 1])
    np.testing.assert_array_equal(trace.observed["relevant promotions"], [0, 2, 2, 2, 2])


def test_proof_observables_must_be_fresh_per_run():
    """The docstring's hazard: the counting observables keep their state between runs.

    Reusing one dictionary for a second run carries over the first run's m_i and demotions, and
    compares the fresh learner's weights (all 1) with the first run's last ones (w_0 = 4), which
    counts a spurious relevant demotion. The other observables read the learner only; a fresh
    dictionary gives the first run's values again.
    """
    observe = proof_observables(HAND_X, np.array([0]))
    first = run(Winnow2(3, 2.0, 3.0), HAND_X, HAND_Y, observe=observe, method="loop")
    reused = run(Winnow2(3, 2.0, 3.0), HAND_X, HAND_Y, observe=observe, method="loop")
    fresh = run(Winnow2(3, 2.0, 3.0), HAND_X, HAND_Y, observe=proof_observables(HAND_X, np.array([0])), method="loop")
    for name in HAND_OBSERVED:
        np.testing.assert_array_equal(fresh.observed[name], first.observed[name], err_msg=name)
    for name in ("Phi", "next score", "min weight", "max relevant weight"):
        np.testing.assert_array_equal(reused.observed[name], first.observed[name], err_msg=name)
    carried = first.observed["relevant promotions"][-1]
    assert carried == 2
    for name in ("relevant promotions", "max m_i"):
        np.testing.assert_array_equal(reused.observed[name], first.observed[name] + carried, err_msg=name)
    assert (first.observed["relevant demotions"] == 0).all()
    assert (reused.observed["relevant demotions"] == 1).all()  # w_0: 4 at the end of the first run, 1 now


@pytest.mark.parametrize("relevant", [np.array([], dtype=int), np.array([[0]]), np.array([0.5]), [True]])
def test_proof_observables_bad_relevant(relevant):
    with pytest.raises(ValueError, match="relevant must be a nonempty 1-D array of feature indices"):
        proof_observables(HAND_X, relevant)
