"""Tests of onlinelib.rkhs (chapter 6: PSD kernels, the representer theorem, online to batch)."""

from fractions import Fraction

import numpy as np
import pytest

import onlinelib as ol
from onlinelib import rkhs


def all_instances(n):
    return ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(np.uint8)


def test_psd_rank_on_boolean_kernels_and_a_counterexample():
    X = all_instances(4)
    for kernel, rank in (
        (ol.all_conjunctions(), 16),
        (ol.bounded_conjunctions(1), 5),
        (ol.monotone_bounded_conjunctions(2), 11),
    ):
        assert rkhs.psd_rank(np.asarray(kernel.gram(X, X), dtype=np.int64)) == (True, rank)
    d = (X[:, None, :] != X[None, :, :]).sum(axis=2)
    psd, _ = rkhs.psd_rank((d <= 1).astype(int))
    assert not psd
    assert rkhs.psd_rank([[1, 1], [1, 1]]) == (True, 1)
    assert rkhs.psd_rank([[0, 1], [1, 0]])[0] is False  # zero diagonal, nonzero row
    assert rkhs.psd_rank([[0, 0], [0, 0]]) == (True, 0)
    assert rkhs.psd_rank([[Fraction(1, 2), 1], [1, 2]]) == (True, 1)


def test_psd_rank_rejects_bad_input():
    with pytest.raises(ValueError, match="symmetric"):
        rkhs.psd_rank([[1, 2], [0, 1]])
    with pytest.raises(ValueError, match="square"):
        rkhs.psd_rank([[1, 2]])
    with pytest.raises(TypeError, match="exact"):
        rkhs.psd_rank(np.eye(2))
    with pytest.raises(TypeError, match="gram"):
        rkhs.psd_rank([["a"]])


def test_numpy_integers_do_not_overflow():
    big = np.array([[2**40, 2**40 - 1], [2**40 - 1, 2**40]], dtype=np.int64)
    assert rkhs.solve_exact(big, np.array([1, 1], dtype=np.int64)) == [Fraction(1, 2**41 - 1)] * 2
    with pytest.raises(TypeError, match="integers or Fractions"):
        rkhs.solve_exact([[1.5]], [1])


def test_solve_and_kernel_ridge_exact():
    assert rkhs.solve_exact([[2, 1], [1, 3]], [3, 5]) == [Fraction(4, 5), Fraction(7, 5)]
    assert rkhs.solve_exact([[0, 1], [1, 0]], [2, 3]) == [3, 2]
    with pytest.raises(ValueError, match="invertible"):
        rkhs.solve_exact([[1, 2], [2, 4]], [1, 1])
    with pytest.raises(ValueError, match="b must have 2"):
        rkhs.solve_exact([[1, 0], [0, 1]], [1])
    a = rkhs.kernel_ridge_exact([[1, 0], [0, 1]], [2, 4], 1)
    assert a == [1, 2]
    with pytest.raises(ValueError, match="lam must be > 0"):
        rkhs.kernel_ridge_exact([[1]], [1], 0)


def test_kdnf_mistake_bound():
    assert rkhs.kdnf_mistake_bound(10, 2, 3) == 13 * (1 + 10 + 45)
    assert rkhs.kdnf_mistake_bound(3, 5, 1) == 5 * 8
    with pytest.raises(ValueError, match="s"):
        rkhs.kdnf_mistake_bound(3, 1, 0)


def test_high_probability_bound():
    assert rkhs.online_to_batch_high_probability(10, 200, 0.05) == pytest.approx(0.05 + np.sqrt(np.log(20) / 400))
    with pytest.raises(ValueError, match="delta"):
        rkhs.online_to_batch_high_probability(1, 10, 1.0)


def test_online_to_batch_errors_matches_a_direct_replay():
    n = 6
    P = all_instances(n)
    labels = np.where(P[:, 0] & P[:, 1], 1, -1)
    kernel = ol.bounded_conjunctions(2)
    rng = np.random.default_rng(0)
    idx = rng.integers(0, len(P), 60)
    learner = ol.KernelPerceptron(n, kernel)
    trace = ol.run(learner, P[idx], labels[idx])
    out = rkhs.online_to_batch_errors(
        kernel, learner.support_vectors, learner.support_labels, np.asarray(trace.mistakes), P, labels
    )
    replay = ol.KernelPerceptron(n, kernel)
    per_round, votes = [], np.zeros(len(P), dtype=np.int64)
    for t in idx:
        pred = np.array([replay.predict(x) for x in P])
        per_round.append(int((pred != labels).sum()))
        votes += pred
        replay.update(P[t], labels[t])
    assert out["gibbs"] == Fraction(sum(per_round), len(idx) * len(P))
    assert out["vote"] == Fraction(int((np.where(votes >= 0, 1, -1) != labels).sum()), len(P))
    assert out["rounds"].sum() == len(idx) and len(out["errors"]) == trace.n_mistakes + 1
    with pytest.raises(ValueError, match="one round per support vector"):
        rkhs.online_to_batch_errors(
            kernel, learner.support_vectors, learner.support_labels, np.zeros(60, bool), P, labels
        )
    with pytest.raises(TypeError, match="BooleanKernel"):
        rkhs.online_to_batch_errors("k", learner.support_vectors, learner.support_labels, trace.mistakes, P, labels)
    with pytest.raises(ValueError, match="labels must have shape"):
        rkhs.online_to_batch_errors(
            kernel, learner.support_vectors, learner.support_labels, np.asarray(trace.mistakes), P, labels[:3]
        )
