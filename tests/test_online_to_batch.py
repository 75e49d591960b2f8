"""Online-to-batch conversion (onlinelib.online_to_batch; book chapter 1, theorem "Online to batch")."""

import math

import numpy as np
import pytest

import onlinelib as ol


def _setup(m=7, target=0, T=20, seed=0):
    cls = ol.thresholds(m)
    c_star = cls.labels(target, np.arange(cls.n_instances))
    D = np.full(cls.n_instances, 1 / cls.n_instances)
    X = np.random.default_rng(seed).integers(cls.n_instances, size=T)
    return cls, c_star, D, X


def test_errors_match_a_direct_computation():
    cls, c_star, D, X = _setup()
    errors, mistakes = ol.hypothesis_errors(ol.Halving(cls), X, c_star[X], c_star, D)
    # replay: the predictor before round t+1 is Halving after the first t examples
    for t in range(len(X)):
        learner = ol.Halving(cls)
        for x in X[:t]:
            learner.update(int(x), int(c_star[x]))
        h = np.array([learner.predict(z) for z in range(cls.n_instances)])
        assert errors[t] == pytest.approx(D[h != c_star].sum(), abs=1e-12)
        assert mistakes[t] == (h[X[t]] != c_star[X[t]])
    assert mistakes.sum() <= ol.halving_bound(cls.size)
    assert errors[0] > 0 and errors[-1] <= errors[0]


def test_identity_in_expectation():
    """E[mean_t err(h_t)] = E[M_T]/T: a paired Monte Carlo test at 4 standard errors."""
    cls = ol.thresholds(7)
    D = np.linspace(1, 2, cls.n_instances)
    D /= D.sum()
    rng = np.random.default_rng(1)
    diffs = []
    for _ in range(200):
        target = int(rng.integers(cls.size))
        c_star = cls.labels(target, np.arange(cls.n_instances))
        X = rng.choice(cls.n_instances, size=12, p=D)
        errors, mistakes = ol.hypothesis_errors(ol.Halving(cls), X, c_star[X], c_star, D)
        diffs.append(errors.mean() - mistakes.mean())
    diffs = np.array(diffs)
    assert abs(diffs.mean()) <= 4 * diffs.std(ddof=1) / math.sqrt(len(diffs))


def test_bound():
    assert ol.online_to_batch_bound(4, 40) == pytest.approx(0.1)
    assert ol.online_to_batch_bound(4, 400, 0.1) == pytest.approx(0.1)
    assert ol.online_to_batch_bound(0, 5) == 0.0


@pytest.mark.parametrize(
    "args, err, match",
    [
        ((-1, 10), ValueError, "mistake_bound"),
        ((1.5, 10), TypeError, "mistake_bound"),
        ((3, 0), ValueError, "n_examples"),
        ((3, 10, 0), ValueError, r"delta must be a finite real number in \(0, 1\], got 0\.0"),
        ((3, 10, 1.5), ValueError, r"delta must be a finite real number in \(0, 1\], got 1\.5"),
        ((3, 10, "0.1"), TypeError, r"delta must be a real number in \(0, 1\], got '0\.1'"),
    ],
)
def test_bound_errors(args, err, match):
    with pytest.raises(err, match=match):
        ol.online_to_batch_bound(*args)


def test_hypothesis_errors_bad_input():
    cls, c_star, D, X = _setup()
    good = dict(X=X, y=c_star[X], target_labels=c_star, distribution=D)
    with pytest.raises(TypeError, match="learner must have predict"):
        ol.hypothesis_errors(object(), **good)
    with pytest.raises(ValueError, match="distribution must have shape"):
        ol.hypothesis_errors(ol.Halving(cls), **{**good, "distribution": D[:-1]})
    with pytest.raises(ValueError, match="sum to 1"):
        ol.hypothesis_errors(ol.Halving(cls), **{**good, "distribution": 2 * D})
    with pytest.raises(ValueError, match="instance indices in"):
        ol.hypothesis_errors(ol.Halving(cls), **{**good, "X": X + 100})
    with pytest.raises(ValueError, match="one label per instance"):
        ol.hypothesis_errors(ol.Halving(cls), **{**good, "y": c_star[X][:-1]})
    bad_y = c_star[X].copy()
    bad_y[0] = -bad_y[0]
    with pytest.raises(ValueError, match="disagrees with target_labels at round 1"):
        ol.hypothesis_errors(ol.Halving(cls), **{**good, "y": bad_y})
    with pytest.raises(ValueError, match="target_labels"):
        ol.hypothesis_errors(ol.Halving(cls), **{**good, "target_labels": np.zeros(7)})
    with pytest.raises(ValueError, match="X must be a non-empty 1-d array"):
        ol.hypothesis_errors(ol.Halving(cls), **{**good, "X": X.astype(float)})
