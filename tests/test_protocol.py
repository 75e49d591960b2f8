"""Tests for onlinelib.protocol: Trace, run and its argument checks (the shared checks: test_validation.py)."""

import numpy as np
import pytest

from onlinelib import Halving, Learner, Trace, run, thresholds


class Echo:
    """Predicts the last label it was told (+1 before any update); counts updates."""

    def __init__(self):
        self.last = 1
        self.n_updates = 0
        self.seen = []

    def predict(self, x):
        return self.last

    def update(self, x, y):
        self.last = y
        self.n_updates += 1
        self.seen.append((x, y))


class ReturnsZero:
    def __init__(self, bad_round=1):
        self.t = 0
        self.bad_round = bad_round

    def predict(self, x):
        self.t += 1
        return 0 if self.t == self.bad_round else 1

    def update(self, x, y):
        pass


class NoUpdate:
    def predict(self, x):
        return 1


def hand_trace(observed=None):
    return Trace(
        predictions=np.array([1, -1, 1, 1], dtype=np.int8),
        labels=np.array([1, 1, -1, 1], dtype=np.int8),
        observed=observed if observed is not None else {},
    )


# --------------------------------------------------------------------------- Trace
def test_trace_properties_by_hand():
    tr = hand_trace()
    assert len(tr) == 4
    np.testing.assert_array_equal(tr.mistakes, [False, True, True, False])
    np.testing.assert_array_equal(tr.cumulative, [0, 1, 2, 2])
    np.testing.assert_array_equal(tr.mistakes_so_far, [0, 0, 1, 2, 2])
    assert tr.n_mistakes == 2
    assert isinstance(tr.n_mistakes, int)
    np.testing.assert_array_equal(tr.mistake_rounds, [2, 3])


def test_trace_without_mistakes():
    tr = Trace(predictions=np.array([1, -1], dtype=np.int8), labels=np.array([1, -1], dtype=np.int8))
    assert tr.n_mistakes == 0
    assert tr.mistake_rounds.size == 0
    np.testing.assert_array_equal(tr.mistakes_so_far, [0, 0, 0])


def test_trace_repr():
    tr = hand_trace({"|V|": np.arange(5.0)})
    assert repr(tr) == "Trace(rounds=4, mistakes=2, observed: |V|)"
    assert repr(hand_trace()) == "Trace(rounds=4, mistakes=2, observed: none)"


def test_trace_equality():
    obs = {"a": np.array([0.0, 1, 2, 3, 4])}
    assert hand_trace() == hand_trace()
    assert hand_trace(obs) == hand_trace({"a": obs["a"].copy()})
    # differing predictions
    other = Trace(predictions=np.array([1, 1, 1, 1], dtype=np.int8), labels=hand_trace().labels)
    assert hand_trace() != other
    # differing labels
    other = Trace(predictions=hand_trace().predictions, labels=np.array([1, 1, 1, 1], dtype=np.int8))
    assert hand_trace() != other
    # differing observed keys / values
    assert hand_trace(obs) != hand_trace()
    assert hand_trace(obs) != hand_trace({"b": obs["a"]})
    assert hand_trace(obs) != hand_trace({"a": obs["a"] + 1})
    # not a Trace
    assert hand_trace() != "a trace"
    assert hand_trace().__eq__(3) is NotImplemented


def test_trace_is_frozen():
    tr = hand_trace()
    with pytest.raises(AttributeError):
        tr.labels = np.zeros(4)


# --------------------------------------------------------------------------- run
def test_learner_protocol_isinstance():
    assert isinstance(Echo(), Learner)
    assert isinstance(Halving(thresholds(2)), Learner)
    assert not isinstance(NoUpdate(), Learner)
    assert not isinstance(object(), Learner)


def test_run_echo_by_hand():
    X = [10, 20, 30, 40, 50]
    y = [1, -1, -1, 1, 1]
    learner = Echo()
    tr = run(learner, X, y, observe={"updates": lambda L: L.n_updates, "last": lambda L: L.last})
    # Echo predicts +1, then the previous label.
    np.testing.assert_array_equal(tr.predictions, [1, 1, -1, -1, 1])
    np.testing.assert_array_equal(tr.labels, y)
    assert tr.predictions.dtype == np.int8 and tr.labels.dtype == np.int8
    np.testing.assert_array_equal(tr.mistake_rounds, [2, 4])
    assert learner.seen == list(zip(X, y, strict=True))
    # observed arrays have T + 1 entries; index 0 is before the first round
    assert set(tr.observed) == {"updates", "last"}
    np.testing.assert_array_equal(tr.observed["updates"], [0, 1, 2, 3, 4, 5])
    np.testing.assert_array_equal(tr.observed["last"], [1, 1, -1, -1, 1, 1])
    assert all(v.shape == (6,) for v in tr.observed.values())


def test_run_halving_observe_version_space_size():
    cls = thresholds(3)  # rows s=0..3: [1,1,1], [0,1,1], [0,0,1], [0,0,0]
    tr = run(Halving(cls), [1, 0, 2], [-1, -1, 1], observe={"|V|": lambda L: L.size})
    # x=1: 2 of 4 vote +1, tie -> +1 (mistake, V={2,3}); x=0: all -1 (right);
    # x=2: 1 of 2 votes +1, tie -> +1 (right, V={2}).
    np.testing.assert_array_equal(tr.predictions, [1, -1, 1])
    np.testing.assert_array_equal(tr.observed["|V|"], [4, 2, 2, 1])
    assert tr.n_mistakes == 1


@pytest.mark.parametrize("observe", [lambda L: 1, [lambda L: 1], "size"])
def test_run_rejects_observe_that_is_not_a_mapping(observe):
    with pytest.raises(
        TypeError,
        match=r"observe must be a mapping of names to callables taking the learner, "
        r"e.g. observe=\{'size': lambda L: L.size\}, got ",
    ):
        run(Halving(thresholds(4)), [0, 1], [1, 1], observe=observe)


def test_run_without_observe_has_empty_observed():
    tr = run(Echo(), [0], [1])
    assert tr.observed == {}
    assert len(tr) == 1


def test_run_accepts_float_labels_and_numpy_arrays():
    tr = run(Echo(), np.arange(3), np.array([1.0, -1.0, 1.0]))
    np.testing.assert_array_equal(tr.labels, [1, -1, 1])
    assert tr.labels.dtype == np.int8


# --------------------------------------------------------------------------- run errors
def test_run_rejects_learner_without_update():
    with pytest.raises(TypeError, match="learner must have predict"):
        run(NoUpdate(), [0], [1])
    with pytest.raises(TypeError, match="learner must have predict"):
        run(object(), [0], [1])


@pytest.mark.parametrize("bad_round", [1, 3])
def test_run_rejects_prediction_zero_naming_round(bad_round):
    with pytest.raises(
        ValueError, match=rf"ReturnsZero.predict must return -1 or \+1, returned 0 in round {bad_round}"
    ):
        run(ReturnsZero(bad_round), [0, 1, 2], [1, 1, 1])


def test_run_rejects_non_callable_observable():
    with pytest.raises(TypeError, match=r"observe\['size'\] must be a callable"):
        run(Echo(), [0], [1], observe={"size": 3})


@pytest.mark.parametrize(
    "y, exc, match",
    [
        ([0, 1, 1], ValueError, r"y must hold labels in \{-1, \+1\}.*map them with 2\*y - 1"),
        ([1, 2, 1], ValueError, r"y must hold labels in \{-1, \+1\}, got .*2"),
        ([1.0, np.nan, 1.0], ValueError, r"y must hold labels in \{-1, \+1\}, got NaN"),
        (np.array([True, False, True]), TypeError, r"y must hold the labels -1 and \+1 as numbers.*bool"),
        (["a", "b", "c"], TypeError, r"y must hold the labels -1 and \+1 as numbers"),
        ([[1, 1, 1]], ValueError, r"y must be one-dimensional"),
        ([1, 1], ValueError, r"X and y must have one entry per round, got 3 instances and 2 labels"),
    ],
)
def test_run_rejects_bad_labels_before_touching_learner(y, exc, match):
    learner = Halving(thresholds(3))
    with pytest.raises(exc, match=match):
        run(learner, [0, 1, 2], y)
    assert learner.rounds == 0 and learner.size == 4


def test_run_rejects_empty_stream():
    with pytest.raises(ValueError, match="the stream is empty"):
        run(Echo(), [], [])


def test_run_rejects_scalar_X():
    with pytest.raises(ValueError, match="X must be a sequence of instances"):
        run(Echo(), 3, [1])


@pytest.mark.parametrize(
    "x, exc, match",
    [
        (-1, ValueError, r"x must be an instance of thresholds on 3 points, an integer in \[0, 3\), got -1"),
        (3, ValueError, r"x must be an instance of .*\[0, 3\), got 3"),
        (1.0, TypeError, r"x must be an instance index"),
    ],
)
def test_run_rejects_instance_outside_domain(x, exc, match):
    with pytest.raises(exc, match=match):
        run(Halving(thresholds(3)), [0, x], [1, 1])


def test_the_block_engines_contract_is_a_protocol():
    """BlockLearner names what method="blocks" needs; the learners that have it are exactly
    the conservative ones with scan and skip (issue 18: run used to look them up by getattr)."""
    from onlinelib import Elimination, KernelPerceptron, Perceptron, Winnow1, Winnow2, all_conjunctions
    from onlinelib.protocol import BlockLearner

    engines = [Perceptron(3), Winnow1(3), Winnow2(3), Elimination(3), KernelPerceptron(3, all_conjunctions())]
    assert all(isinstance(L, BlockLearner) for L in engines)
    assert not isinstance(Halving(thresholds(4)), BlockLearner) and not isinstance(Echo(), BlockLearner)

    class ScanOnly(Echo):  # half the contract is not the contract
        def scan(self, X, y, start):
            return len(y), 1

    assert not isinstance(ScanOnly(), BlockLearner)
    with pytest.raises(ValueError, match=r"method='blocks' needs a BlockLearner .*ScanOnly has none"):
        run(ScanOnly(), [0, 1], [1, -1], method="blocks")
    assert run(ScanOnly(), [0, 1], [1, -1]).n_mistakes == 1  # "auto" falls back to the loop
