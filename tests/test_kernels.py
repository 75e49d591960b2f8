"""Tests for onlinelib.kernels: the Boolean kernels and the kernel Perceptron (chapter 6).

Every kernel is compared with the inner product of its explicit feature map, the
feature map with a plain-Python enumeration of the conjunctions, and the kernel
Perceptron with the primal ``onlinelib.Perceptron`` and with a plain-Python primal
loop on the explicit features. All arithmetic is on integers (kernel values,
scores, primal weights that are sums of +-1), so every comparison is exact:
tolerance 0.
"""

import itertools
import math

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from onlinelib import (
    BooleanKernel,
    KernelPerceptron,
    Perceptron,
    all_conjunctions,
    bounded_conjunctions,
    constant_weight_family,
    max_margin_dual,
    monotone_bounded_conjunctions,
    monotone_dnf_labels,
    monotone_monomials,
    run,
    theorem4_stream,
)
from onlinelib.kernels import MAX_EXPLICIT_DIMENSION, MAX_EXPLICIT_FEATURES

PROPERTY = settings(max_examples=40, deadline=None, database=None)
CONVENTIONS = ("nonnegative", "positive", "margin")
INT64_MAX = 2**63 - 1


# -- strategies and references -----------------------------------------------------------

kernels = st.one_of(
    st.just(all_conjunctions()),
    st.just(monotone_monomials()),
    st.integers(0, 9).map(bounded_conjunctions),
    st.integers(0, 9).map(monotone_bounded_conjunctions),
)


def boolean_matrix(n, max_rows=8, min_rows=1):
    return hnp.arrays(np.uint8, st.tuples(st.integers(min_rows, max_rows), st.just(n)), elements=st.integers(0, 1))


@st.composite
def kernel_streams(draw, max_n=10, max_len=40):
    """(kernel, X, y): labels either random or from a random monotone DNF (a realizable target)."""
    kernel = draw(kernels)
    # the 3^n explicit features of the full kernels make n = 10 the largest cheap case
    n = draw(st.integers(1, max_n))
    X = draw(boolean_matrix(n, max_rows=max_len))
    if draw(st.booleans()):
        y = np.array(draw(st.lists(st.sampled_from([-1, 1]), min_size=len(X), max_size=len(X))), dtype=np.int8)
    else:
        term = st.lists(st.integers(0, n - 1), min_size=1, max_size=3, unique=True)
        y = monotone_dnf_labels(X, draw(st.lists(term, min_size=1, max_size=3)))
    return kernel, X, y


def closed_form_value(kernel, x, z):
    """K(x, z) from the formulas of MATH.md section 3.1, counted in plain Python."""
    if kernel.monotone:
        c = sum(1 for a, b in zip(x, z, strict=True) if a == 1 and b == 1)
    else:
        c = sum(1 for a, b in zip(x, z, strict=True) if a == b)
    if kernel.max_literals is None:
        return 2**c
    return sum(math.comb(c, l) for l in range(kernel.max_literals + 1))


def closed_form_dimension(kernel, n):
    if kernel.max_literals is None:
        return 2**n if kernel.monotone else 3**n
    k = kernel.max_literals
    if kernel.monotone:
        return sum(math.comb(n, l) for l in range(min(k, n) + 1))
    return sum(math.comb(n, l) * 2**l for l in range(min(k, n) + 1))


def enumerate_conjunctions(kernel, n):
    """Every conjunction of the kernel's family as (positive mask, negated mask), by brute force."""
    out = set()
    for pos in range(2**n):
        for neg in range(2**n):
            if pos & neg or (kernel.monotone and neg):
                continue
            if kernel.max_literals is not None and bin(pos | neg).count("1") > kernel.max_literals:
                continue
            out.add((pos, neg))
    return out


def primal_reference(phi, y, convention):
    """The Perceptron on explicit features, in Python ints: w += y phi(x) when the rule fires.

    Predicts +1 iff w.phi >= 0 ("nonnegative", "margin") or > 0 ("positive"); updates on
    mistakes, or ("margin") whenever y * score <= 0.
    """
    phi = phi.astype(np.int64)  # |w_f| <= len(y): int64 is exact
    w = np.zeros(phi.shape[1], dtype=np.int64)
    predictions, scores, updates = [], [], 0
    for f, label in zip(phi, np.asarray(y).tolist(), strict=True):
        s = int(w @ f)
        p = 1 if (s > 0 if convention == "positive" else s >= 0) else -1
        predictions.append(p)
        scores.append(s)
        fires = label * s <= 0 if convention == "margin" else p != label
        if fires:
            w += label * f
            updates += 1
    return np.array(predictions), w, updates, scores


# -- the kernels -----------------------------------------------------------------------------


@PROPERTY
@given(kernels, st.integers(1, 8), st.data())
def test_kernel_equals_explicit_inner_product(kernel, n, data):
    X = data.draw(boolean_matrix(n))
    Z = data.draw(boolean_matrix(n))
    phi_x = kernel.feature_map(X).astype(np.int64)
    phi_z = kernel.feature_map(Z).astype(np.int64)
    G = kernel.gram(X, Z)
    assert G.shape == (len(X), len(Z))
    np.testing.assert_array_equal(G, phi_x @ phi_z.T)
    for i, j in [(0, 0), (len(X) - 1, len(Z) - 1)]:
        value = kernel(X[i], Z[j])
        assert type(value) is int
        assert value == int(phi_x[i] @ phi_z[j]) == closed_form_value(kernel, X[i].tolist(), Z[j].tolist())
    # the kernel is symmetric, and a matrix call returns the Gram block
    np.testing.assert_array_equal(kernel(Z, X), G.T)


@pytest.mark.parametrize(
    "kernel",
    [all_conjunctions(), monotone_monomials()]
    + [bounded_conjunctions(k) for k in (0, 1, 2, 5)]
    + [monotone_bounded_conjunctions(k) for k in (0, 1, 3, 7)],
    ids=repr,
)
@pytest.mark.parametrize("n", [1, 2, 3, 5, 6])
def test_features_are_exactly_the_conjunctions_of_the_family(kernel, n):
    positive, negated = kernel.features(n)
    pairs = list(zip(positive.tolist(), negated.tolist(), strict=True))
    assert len(pairs) == kernel.dimension(n) == closed_form_dimension(kernel, n)
    assert set(pairs) == enumerate_conjunctions(kernel, n)  # and no feature twice:
    assert len(set(pairs)) == len(pairs)
    sizes = [bin(p | q).count("1") for p, q in pairs]
    assert sizes == sorted(sizes) and pairs[0] == (0, 0)  # by size, the empty conjunction first
    names = kernel.feature_names(n)
    assert len(names) == len(pairs) == len(set(names)) and names[0] == "1"
    assert kernel.feature_map(np.zeros((1, n))).shape == (1, len(pairs))


@pytest.mark.parametrize("n", [1, 4, 9])
def test_feature_map_against_literal_by_literal_evaluation(n):
    rng = np.random.default_rng(n)
    X = rng.integers(0, 2, (12, n)).astype(np.uint8)
    for kernel in (all_conjunctions(), monotone_monomials(), bounded_conjunctions(2), monotone_bounded_conjunctions(2)):
        positive, negated = kernel.features(n)
        phi = kernel.feature_map(X)
        assert phi.dtype == np.uint8
        for r, x in enumerate(X.tolist()):
            expected = [
                int(all(x[i] == 1 for i in range(n) if p >> i & 1) and all(x[i] == 0 for i in range(n) if q >> i & 1))
                for p, q in zip(positive.tolist(), negated.tolist(), strict=True)
            ]
            assert phi[r].tolist() == expected


def test_feature_names_hand_computed():
    assert all_conjunctions().feature_names(2) == [
        "1",
        "x1",
        "¬x1",
        "x2",
        "¬x2",
        "x1 x2",
        "¬x1 x2",
        "x1 ¬x2",
        "¬x1 ¬x2",
    ]
    assert monotone_monomials().feature_names(2) == ["1", "x1", "x2", "x1 x2"]
    assert bounded_conjunctions(1).feature_names(2) == ["1", "x1", "¬x1", "x2", "¬x2"]
    assert monotone_bounded_conjunctions(2).feature_names(3) == ["1", "x1", "x2", "x3", "x1 x2", "x1 x3", "x2 x3"]


@pytest.mark.parametrize("n", [1, 2, 7, 12, 30])
def test_dimension_closed_forms(n):
    assert all_conjunctions().dimension(n) == 3**n
    assert monotone_monomials().dimension(n) == 2**n
    for k in range(0, n + 3):
        assert bounded_conjunctions(k).dimension(n) == sum(math.comb(n, l) * 2**l for l in range(min(k, n) + 1))
        assert monotone_bounded_conjunctions(k).dimension(n) == sum(math.comb(n, l) for l in range(min(k, n) + 1))
    # a bound k >= n is no bound
    assert bounded_conjunctions(n).dimension(n) == 3**n and monotone_bounded_conjunctions(n).dimension(n) == 2**n


def test_values_tables_and_counts():
    assert [all_conjunctions().value(c) for c in range(5)] == [1, 2, 4, 8, 16]
    assert bounded_conjunctions(2).table(5) == (1, 2, 4, 7, 11, 16)  # 1 + c + C(c, 2)
    assert monotone_bounded_conjunctions(0).table(3) == (1, 1, 1, 1)  # only the empty conjunction
    X = np.array([[1, 0, 1, 1], [0, 0, 0, 0]])
    Z = np.array([[1, 1, 1, 0], [0, 0, 0, 0], [1, 0, 1, 1]])
    np.testing.assert_array_equal(all_conjunctions().counts(X, Z), [[2, 1, 4], [1, 4, 1]])
    np.testing.assert_array_equal(monotone_monomials().counts(X, Z), [[2, 0, 3], [0, 0, 0]])
    assert all_conjunctions().counts(X, Z).dtype == np.int64


@pytest.mark.parametrize("n", [1, 3, 6])
def test_bounded_kernels_with_k_at_least_n_are_the_full_kernels(n):
    X = np.array(list(itertools.product([0, 1], repeat=n)), dtype=np.uint8)
    np.testing.assert_array_equal(bounded_conjunctions(n).gram(X, X), all_conjunctions().gram(X, X))
    np.testing.assert_array_equal(monotone_bounded_conjunctions(n + 1).gram(X, X), monotone_monomials().gram(X, X))


def test_names_and_repr():
    assert repr(all_conjunctions()) == "all_conjunctions()"
    assert repr(monotone_monomials()) == "monotone_monomials()"
    assert repr(bounded_conjunctions(3)) == "bounded_conjunctions(3)"
    assert monotone_bounded_conjunctions(2).name == "monotone_bounded_conjunctions(2)"
    k = bounded_conjunctions(np.int64(2))
    assert k.max_literals == 2 and type(k.max_literals) is int and not k.monotone


# -- exactness for large n ----------------------------------------------------------------------


def test_kernel_values_beyond_int64_are_exact_python_ints():
    k = all_conjunctions()
    ones, zeros = np.ones(80, np.uint8), np.zeros(80, np.uint8)
    assert k(ones, ones) == 2**80 and type(k(ones, ones)) is int
    assert k(ones, zeros) == 1
    x = ones.copy()
    x[:3] = 0
    assert k(x, ones) == 2**77
    G = k.gram(np.vstack([ones, x]), np.vstack([ones, zeros]))
    assert G.dtype == object
    assert G.tolist() == [[2**80, 1], [2**77, 2**3]]
    assert all(type(v) is int for v in G.ravel())
    assert monotone_monomials()(ones, ones) == 2**80


@pytest.mark.parametrize(
    "kernel, n, dtype",
    [
        (all_conjunctions(), 62, np.int64),  # 2**62 fits
        (all_conjunctions(), 63, object),  # 2**63 does not
        (monotone_monomials(), 62, np.int64),
        (monotone_monomials(), 63, object),
        (bounded_conjunctions(2), 200, np.int64),  # 1 + 200 + C(200, 2) = 20101
        (monotone_bounded_conjunctions(62), 70, object),  # sum_{l<=62} C(70, l) > 2**63
    ],
    ids=str,
)
def test_gram_dtype_is_int64_exactly_when_every_value_fits(kernel, n, dtype):
    rng = np.random.default_rng(n)
    X = np.vstack([np.ones(n, np.uint8), rng.integers(0, 2, (4, n)).astype(np.uint8)])
    G = kernel.gram(X, X)
    assert G.dtype == dtype
    assert G[0, 0] == kernel.table(n)[-1] == closed_form_value(kernel, [1] * n, [1] * n)
    assert [[int(v) for v in row] for row in G] == [
        [closed_form_value(kernel, a, b) for b in X.tolist()] for a in X.tolist()
    ]


def _stream_with_a_score_beyond_int64(seed=0, n=62):
    """An adaptive stream on which the "margin" kernel Perceptron (all_conjunctions, n = 62) updates
    on every example, after which the score of q = 1^n exceeds 2^63 (int64 would wrap).

    Every kernel value is at most 2^62, so each fits in int64; only their sum does not.
    Candidates are 1^n with one or two bits cleared (values 2^61 or 2^60 against q). Each
    step adds, as a positive, the nearest candidate whose score is <= 0 (an update), or, if
    there is none, the farthest candidate as a negative (its score is then > 0: an update).
    """
    kernel = all_conjunctions()
    rng = np.random.default_rng(seed)
    q = np.ones(n, np.uint8)
    learner = KernelPerceptron(n, kernel, "margin")
    X, y = [], []
    while learner.score(q) <= 2**63:
        candidates = np.ones((32, n), np.uint8)
        for c in candidates:
            c[rng.choice(n, rng.integers(1, 3), replace=False)] = 0
        scores = [learner.score(c) for c in candidates]
        distance = n - candidates.sum(axis=1)
        positive = [i for i, s in enumerate(scores) if s <= 0]
        i = min(positive, key=lambda i: distance[i]) if positive else int(np.argmax(distance))
        X.append(candidates[i])
        y.append(1 if positive else -1)
        learner.update(candidates[i], y[-1])
        assert learner.n_updates == len(y)
        assert len(y) < 500, "the construction should need about 60 updates"
    return np.array(X), np.array(y, dtype=np.int8), learner


def test_score_that_overflows_int64_is_exact():
    X, y, learner = _stream_with_a_score_beyond_int64()
    n = X.shape[1]
    q = np.ones(n, np.uint8)
    # independent exact score: sum of y * 2^same(q, x) in Python ints
    same = [int(x.sum()) for x in X]  # q = 1^n, so same(q, x) = |x|
    exact = sum(label * 2**s for label, s in zip(y.tolist(), same, strict=True))
    assert exact > INT64_MAX and max(same) <= 62
    score = learner.score(q)
    assert type(score) is int and score == exact
    # the same sum in int64 wraps around: the test is about a real overflow
    with np.errstate(over="ignore"):
        wrapped = int(np.sum(y.astype(np.int64) * (np.int64(1) << np.array(same, dtype=np.int64)), dtype=np.int64))
    assert wrapped != exact
    # both engines make the same decisions on the stream followed by (q, +1) and (q, -1): with
    # the exact positive score, (q, +1) is predicted correctly and (q, -1) is a mistake
    X2 = np.vstack([X, q, q])
    y2 = np.concatenate([y, [1, -1]]).astype(np.int8)
    traces = {}
    for method in ("loop", "auto", "blocks"):
        kp = KernelPerceptron(n, all_conjunctions(), "margin")
        traces[method] = run(kp, X2, y2, method=method)
        assert kp.n_updates == len(y) + 1
    assert traces["loop"] == traces["auto"] == traces["blocks"]
    assert traces["auto"].predictions[-2:].tolist() == [1, 1]
    assert traces["auto"].mistakes[-2:].tolist() == [False, True]


def test_kernel_perceptron_scores_with_mixed_signs_are_exact_at_n_80():
    rng = np.random.default_rng(80)
    n = 80
    X = rng.integers(0, 2, (40, n)).astype(np.uint8)
    X[::5] = 1  # some rows near 1^n, so kernel values near 2^80
    y = np.where(rng.random(40) < 0.5, 1, -1).astype(np.int8)
    for kernel in (all_conjunctions(), monotone_monomials()):
        traces = [run(KernelPerceptron(n, kernel, "nonnegative"), X, y, method=m) for m in ("loop", "auto")]
        assert traces[0] == traces[1]
        kp = KernelPerceptron(n, kernel, "nonnegative")
        run(kp, X, y)
        z = X[7]
        expected = sum(
            int(s) * closed_form_value(kernel, z.tolist(), v.tolist())
            for v, s in zip(kp.support_vectors, kp.support_labels, strict=True)
        )
        assert kp.score(z) == expected


@pytest.mark.parametrize("convention", CONVENTIONS)
def test_heavy_then_light_rows_with_a_monotone_kernel_at_n_100(convention):
    """K_mono(x, z) <= 2^|x|: heavy rows need Python ints, light rows fit in int64, and a
    stream that starts heavy and ends light moves from one to the other. Every engine must
    make the same decisions, and the scores must be the exact sums."""
    n = 100
    rng = np.random.default_rng(100)
    heavy = (rng.random((30, n)) < 0.9).astype(np.uint8)  # |x| ~ 90: values up to ~2^90
    light = np.zeros((60, n), np.uint8)
    for row in light:
        row[rng.choice(n, rng.integers(1, 12), replace=False)] = 1
    X = np.vstack([heavy, light])
    y = np.where(rng.random(len(X)) < 0.5, 1, -1).astype(np.int8)
    kernel = monotone_monomials()
    traces, learners = [], []
    for method in ("loop", "auto", "blocks"):
        kp = KernelPerceptron(n, kernel, convention)
        traces.append(run(kp, X, y, method=method))
        learners.append(kp)
    assert traces[0] == traces[1] == traces[2]
    assert traces[0].n_mistakes >= 20
    assert learners[0].n_updates == learners[1].n_updates
    kp = learners[1]
    for z in (X[0], X[-1], np.ones(n, np.uint8)):
        expected = sum(
            int(s) * 2 ** int(np.sum(z & v)) for v, s in zip(kp.support_vectors, kp.support_labels, strict=True)
        )
        assert kp.score(z) == expected
    # a second stream on the same learner, light rows only (the int64 path with |M| > 0)
    X2 = light[::-1].copy()
    y2 = -y[: len(X2)]
    a = KernelPerceptron(n, kernel, convention)
    b = KernelPerceptron(n, kernel, convention)
    run(a, X, y, method="loop")
    run(b, X, y)
    assert run(a, X2, y2, method="loop") == run(b, X2, y2)
    np.testing.assert_array_equal(a.support_vectors, b.support_vectors)


# -- the kernel Perceptron ---------------------------------------------------------------------


def test_kernel_perceptron_hand_computed():
    # monotone monomials over n = 2, features [1, x1, x2, x1 x2], predict +1 iff score >= 0:
    # 00 (-1): score 0, predict +1, mistake;  11 (+1): score -K(11, 00) = -1, mistake;
    # 10 (-1): score -K(10, 00) + K(10, 11) = -1 + 2 = 1 >= 0, mistake;
    # 01 (+1): score -1 + 2 - K(01, 10) = 0 >= 0, predicted correctly.
    kp = KernelPerceptron(2, monotone_monomials())
    X = np.array([[0, 0], [1, 1], [1, 0], [0, 1]], dtype=np.uint8)
    y = np.array([-1, 1, -1, 1])
    trace = run(kp, X, y, method="loop")
    assert trace.predictions.tolist() == [1, -1, 1, 1]
    assert kp.n_updates == 3 and kp.rounds == 4
    np.testing.assert_array_equal(kp.support_vectors, X[:3])
    assert kp.support_labels.tolist() == [-1, 1, -1]
    assert kp.primal_weights().tolist() == [-1, 0, 1, 1]
    assert kp.score([0, 1]) == 0 and kp.predict([0, 1]) == 1
    # the strict convention predicts -1 on a zero score
    strict = KernelPerceptron(2, monotone_monomials(), "positive")
    assert run(strict, X, y, method="loop").predictions.tolist()[0] == -1 and strict.predict([1, 1]) == 1


def test_kernel_evaluations_count_support_size_per_score():
    kp = KernelPerceptron(3, all_conjunctions())
    for x, label in [([0, 0, 0], -1), ([1, 1, 1], 1), ([1, 0, 1], -1)]:
        kp.update(x, label)
    assert kp.n_updates == 3
    before = kp.kernel_evaluations
    kp.predict([1, 1, 0])
    assert kp.kernel_evaluations - before == 3  # |M| values per prediction (Theorem 3)


def test_support_vectors_are_read_only_and_labels_a_copy():
    kp = KernelPerceptron(3, monotone_monomials())
    kp.update(np.array([1, 0, 1]), -1)  # score 0 >= 0 predicts +1: a mistake
    with pytest.raises(ValueError):
        kp.support_vectors[0, 0] = 0
    labels = kp.support_labels
    labels[0] = 1
    assert kp.support_labels.tolist() == [-1]
    assert kp.support_vectors.tolist() == [[1, 0, 1]]


def test_many_updates_grow_the_support_buffer():
    rng = np.random.default_rng(5)
    X = rng.integers(0, 2, (300, 6)).astype(np.uint8)
    y = np.where(rng.random(300) < 0.5, 1, -1)
    kp = KernelPerceptron(6, monotone_monomials(), "margin")
    run(kp, X, y, method="loop")
    assert kp.n_updates > 16  # beyond the initial buffer
    phi = monotone_monomials().feature_map(X)
    _, w, updates, _ = primal_reference(phi, y, "margin")
    assert kp.n_updates == updates
    np.testing.assert_array_equal(kp.primal_weights(), w)


@PROPERTY
@given(kernel_streams())
def test_margin_convention_equals_primal_perceptron_on_explicit_features(stream):
    kernel, X, y = stream
    phi = kernel.feature_map(X)
    primal = Perceptron(phi.shape[1])
    expected = run(primal, phi, y)
    for method in ("loop", "auto"):
        kp = KernelPerceptron(X.shape[1], kernel, "margin")
        trace = run(kp, X, y, method=method)
        assert trace == expected
        assert kp.n_updates == primal.n_updates and kp.rounds == primal.rounds == len(y)
        np.testing.assert_array_equal(kp.primal_weights(), primal.weights)


@PROPERTY
@given(kernel_streams(), st.sampled_from(CONVENTIONS))
def test_every_convention_equals_the_primal_reference_and_both_engines_agree(stream, convention):
    kernel, X, y = stream
    predictions, w, updates, scores = primal_reference(kernel.feature_map(X), y, convention)
    traces = []
    for method in ("loop", "auto", "blocks"):
        kp = KernelPerceptron(X.shape[1], kernel, convention)
        traces.append(run(kp, X, y, method=method))
        assert kp.n_updates == updates and kp.rounds == len(y)
        np.testing.assert_array_equal(kp.primal_weights(), w)
    assert traces[0] == traces[1] == traces[2]
    np.testing.assert_array_equal(traces[0].predictions, predictions)
    # the scores the learner computes round by round are the primal scores
    kp = KernelPerceptron(X.shape[1], kernel, convention)
    for x, label, s in zip(X, y, scores, strict=True):
        assert kp.score(x) == s
        kp.update(x, int(label))


@PROPERTY
@given(kernel_streams(max_n=7), st.sampled_from(CONVENTIONS), st.data())
def test_runs_continue_from_the_learner_state(stream, convention, data):
    """Two runs on the two halves of a stream equal one run (the fast path's cache must not leak)."""
    kernel, X, y = stream
    cut = data.draw(st.integers(1, len(y)))
    whole = KernelPerceptron(X.shape[1], kernel, convention)
    expected = run(whole, X, y, method="loop")
    split = KernelPerceptron(X.shape[1], kernel, convention)
    first = run(split, X[:cut], y[:cut])
    if cut < len(y):
        second = run(split, X[cut:], y[cut:])
        predictions = np.concatenate([first.predictions, second.predictions])
    else:
        predictions = first.predictions
    np.testing.assert_array_equal(predictions, expected.predictions)
    assert split.n_updates == whole.n_updates
    np.testing.assert_array_equal(split.support_vectors, whole.support_vectors)


@pytest.mark.parametrize(
    "kernel",
    [all_conjunctions(), monotone_monomials(), bounded_conjunctions(3), monotone_bounded_conjunctions(2)],
    ids=repr,
)
@pytest.mark.parametrize("labels", ["random", "dnf"])
def test_kernel_perceptron_equals_primal_at_n_10(kernel, labels):
    """The largest n of the issue, deterministic (hypothesis mostly draws small n)."""
    n, T = 10, 60
    rng = np.random.default_rng(10)
    X = rng.integers(0, 2, (T, n)).astype(np.uint8)
    if labels == "random":
        y = np.where(rng.random(T) < 0.5, 1, -1).astype(np.int8)
    else:
        y = monotone_dnf_labels(X, [[0, 3], [2, 5, 7], [9]])
    phi = kernel.feature_map(X)
    expected = run(Perceptron(phi.shape[1]), phi, y)
    assert expected.n_mistakes >= 5  # a stream with something to learn
    for convention in CONVENTIONS:
        predictions, w, updates, _ = primal_reference(phi, y, convention)
        if convention == "margin":
            np.testing.assert_array_equal(predictions, expected.predictions)
        traces = []
        for method in ("loop", "auto"):
            kp = KernelPerceptron(n, kernel, convention)
            traces.append(run(kp, X, y, method=method))
            np.testing.assert_array_equal(traces[-1].predictions, predictions)
            assert kp.n_updates == updates
            np.testing.assert_array_equal(kp.primal_weights(), w)
        assert traces[0] == traces[1]


@pytest.mark.parametrize("n, a, b, requested", [(8, 4, 2, 12), (10, 4, 1, 10), (10, 5, 2, 10)])
def test_theorem4_stream_kernel_equals_primal(n, a, b, requested):
    family = constant_weight_family(n, a, b, requested, np.random.default_rng(n + a))
    X, y = theorem4_stream(family)
    phi = monotone_monomials().feature_map(X)
    expected = run(Perceptron(phi.shape[1]), phi, y)
    for method in ("loop", "auto"):
        assert run(KernelPerceptron(n, monotone_monomials(), "margin"), X, y, method=method) == expected
    for convention in ("nonnegative", "positive"):
        predictions, w, _, _ = primal_reference(phi, y, convention)
        kp = KernelPerceptron(n, monotone_monomials(), convention)
        np.testing.assert_array_equal(run(kp, X, y).predictions, predictions)
        np.testing.assert_array_equal(kp.primal_weights(), w)
    # on this stream (negatives after 1^n) "margin" and "nonnegative" coincide
    assert expected == run(KernelPerceptron(n, monotone_monomials(), "nonnegative"), X, y)


@pytest.mark.parametrize("convention", CONVENTIONS)
@pytest.mark.parametrize("kernel", [monotone_monomials(), all_conjunctions()], ids=repr)
def test_scan_finds_the_first_update_from_any_start(kernel, convention):
    """The engine interface on its own: for a fixed state, scan(X, y, s) is the first j >= s on
    which update would fire (found here by brute force from exact scores), from every start s,
    in increasing order (the cached path) and then in decreasing order (cache rebuilt)."""
    n = 8
    rng = np.random.default_rng(8)
    terms = [[0, 1], [2, 5]]
    train = rng.integers(0, 2, (300, n)).astype(np.uint8)
    kp = KernelPerceptron(n, kernel, convention)
    run(kp, train, monotone_dnf_labels(train, terms))
    raw = rng.integers(0, 2, (400, n)).astype(np.uint8)
    y = monotone_dnf_labels(raw, terms)
    y[rng.choice(len(y), 6, replace=False)] *= -1  # a few label flips: rare, isolated updates
    X = kp.prepare(raw)
    scores = [kp.score(x) for x in X]
    fire = []
    for s, label in zip(scores, y.tolist(), strict=True):
        if convention == "margin":
            fire.append(label * s <= 0)
        else:
            predicted = 1 if (s > 0 if convention == "positive" else s >= 0) else -1
            fire.append(predicted != label)
    fires = np.flatnonzero(fire).tolist()
    assert 0 < len(fires) < 60
    # some update sits exactly 32 rows after a start with nothing in between (a chunk boundary)
    assert any(j >= 32 and not any(fire[j - 32 : j]) for j in fires)
    state = (kp.n_updates, kp.rounds)
    for start in list(range(len(y))) + list(range(len(y) - 1, -1, -7)):
        j, prediction = kp.scan(X, y, start)
        nxt = next((f for f in fires if f >= start), len(y))
        assert j == nxt
        if j < len(y):
            assert (
                prediction
                == kp.predict(X[j])
                == (1 if (scores[j] > 0 if convention == "positive" else scores[j] >= 0) else -1)
            )
        else:
            assert prediction == 0
    assert (kp.n_updates, kp.rounds) == state  # scan changes nothing


def test_accepts_bool_and_float_instances():
    X = np.array([[True, False, True], [False, False, True]])
    y = [1, -1]
    a = run(KernelPerceptron(3, all_conjunctions()), X, y)
    b = run(KernelPerceptron(3, all_conjunctions()), X.astype(float), y)
    assert a == b
    kp = KernelPerceptron(3, all_conjunctions())
    kp.update([1.0, 0.0, 1.0], -1)  # score 0 >= 0 predicts +1: a mistake
    assert kp.score(np.array([True, False, True])) == -8  # -K = -2^3


# -- the block engine against the loop, bit for bit (issue 26) ---------------------------------
#
# ``run``'s default engine (``KernelPerceptron.scan``) decides rounds from certified
# floating-point sums of kernel values, and falls back to exact Python integers when the
# floats cannot certify a sign. Whatever path a round takes, the trace must be the loop's.

ALL_KERNELS = [all_conjunctions(), monotone_monomials(), bounded_conjunctions(3), monotone_bounded_conjunctions(2)]


def assert_engines_agree(n, kernel, convention, X, y, probes=()):
    """Default engine == method="loop": trace, M (rows and labels, in order), counters, scores."""
    loop = KernelPerceptron(n, kernel, convention)
    fast = KernelPerceptron(n, kernel, convention)
    expected = run(loop, X, y, method="loop")
    trace = run(fast, X, y)
    assert trace == expected
    np.testing.assert_array_equal(trace.predictions, expected.predictions)
    assert (fast.n_updates, fast.rounds) == (loop.n_updates, loop.rounds)
    np.testing.assert_array_equal(fast.support_vectors, loop.support_vectors)
    np.testing.assert_array_equal(fast.support_labels, loop.support_labels)
    for z in probes:
        assert fast.score(z) == loop.score(z)
    return expected, fast


@pytest.mark.parametrize("convention", CONVENTIONS)
@pytest.mark.parametrize("kernel", ALL_KERNELS, ids=repr)
@pytest.mark.parametrize("n", [1, 7, 63, 64, 65, 128, 130, 200])
def test_engines_agree_on_random_streams_across_word_sizes(n, kernel, convention):
    """n = 1..64 fill one 64-bit word, 65..128 two and 130, 200 three or four: each has its own
    compiled loop. Random labels make about half of the rounds mistakes."""
    rng = np.random.default_rng(n)
    X = rng.integers(0, 2, (150, n)).astype(np.uint8)
    y = np.where(rng.random(150) < 0.5, 1, -1).astype(np.int8)
    expected, _ = assert_engines_agree(n, kernel, convention, X, y, probes=X[:3])
    assert expected.n_mistakes >= 20


@pytest.mark.parametrize("convention", CONVENTIONS)
@pytest.mark.parametrize("n", [16, 24, 32, 40, 48, 56, 64])
def test_engines_agree_on_the_theorem4_streams(n, convention):
    """The chapter's Theorem 4 streams (a = n/4, b = n/8, the full family): a mistake on every
    round under "nonnegative", and 1^n, whose kernel values reach 2^n, on round 2."""
    a, b = n // 4, n // 8
    family = constant_weight_family(n, a, b, 2**b, np.random.default_rng(n))
    X, y = theorem4_stream(family)
    expected, _ = assert_engines_agree(n, monotone_monomials(), convention, X, y, probes=[np.ones(n, np.uint8)])
    if convention != "positive":
        assert expected.n_mistakes == len(y)
    for kernel in (all_conjunctions(), monotone_bounded_conjunctions(1)):
        assert_engines_agree(n, kernel, convention, X, y)


def test_engines_agree_on_the_lemma6_stream_at_n_400():
    """The chapter's random-deletion family (Lemma 6's proof) at n = 400: seven words per row."""
    family = constant_weight_family(400, 20, 5, 200, np.random.default_rng(6), method="random")
    X, y = theorem4_stream(family)
    for convention in CONVENTIONS:
        expected, _ = assert_engines_agree(400, monotone_monomials(), convention, X, y)
    assert expected.n_mistakes == len(y) == 2 + family.size


@pytest.mark.parametrize("convention", CONVENTIONS)
def test_engines_agree_when_a_stream_is_replayed_until_clean(convention):
    """The chapter's cycle_until_clean: run after run on the same learner and the same stream."""
    m = 12
    rng = np.random.default_rng(11)
    X = rng.integers(0, 2, (400, m)).astype(np.uint8)
    y = monotone_dnf_labels(X, [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]])
    loop = KernelPerceptron(m, monotone_monomials(), convention)
    fast = KernelPerceptron(m, monotone_monomials(), convention)
    for _ in range(50):
        expected = run(loop, X, y, method="loop")
        assert run(fast, X, y) == expected
        np.testing.assert_array_equal(fast.support_vectors, loop.support_vectors)
        if expected.n_mistakes == 0:
            break
    assert expected.n_mistakes == 0 and loop.n_updates > 20


def _count_exact_scores(monkeypatch):
    """Count the rounds on which the block engine falls back to exact Python integers."""
    calls = []
    exact = KernelPerceptron._exact_score

    def counting(self, *args):
        calls.append(1)
        return exact(self, *args)

    monkeypatch.setattr(KernelPerceptron, "_exact_score", counting)
    return calls


@pytest.mark.parametrize("convention", CONVENTIONS)
@pytest.mark.parametrize("n", [8, 40])
def test_engines_agree_on_tie_heavy_streams_with_small_values(n, convention, monkeypatch):
    """Three patterns with random labels: many scores are exactly 0, decided by the convention's
    tie rule. The values stay below 2^53 in sum, where the doubles are exact: no fallback."""
    calls = _count_exact_scores(monkeypatch)
    rng = np.random.default_rng(n)
    patterns = rng.integers(0, 2, (3, n)).astype(np.uint8)
    X = patterns[rng.integers(0, 3, 300)]
    y = np.where(rng.random(300) < 0.5, 1, -1).astype(np.int8)
    for kernel in (monotone_monomials(), bounded_conjunctions(2)):
        assert_engines_agree(n, kernel, convention, X, y, probes=patterns)
        reference = KernelPerceptron(n, kernel, convention)
        zeros = 0
        for x, label in zip(X, y.tolist(), strict=True):
            zeros += reference.score(x) == 0
            reference.update(x, label)
        assert zeros >= 10, zeros  # the tie rule is exercised
    assert calls == []


@pytest.mark.parametrize("convention", CONVENTIONS)
def test_engines_agree_on_cancellations_the_doubles_cannot_decide(convention, monkeypatch):
    """x and its complement c at n = 80 under all conjunctions: K(x, x) = K(c, c) = 2^80 and
    K(x, c) = 1, so scores are a 2^80 + b with small integers a, b. With a = 0 the doubles
    lose b (1 - 2^80 + 2^80 sums to 0 in doubles) or even its sign: such rounds must go to the
    exact fallback, and the decisions stay the loop's."""
    calls = _count_exact_scores(monkeypatch)
    n = 80
    rng = np.random.default_rng(80)
    x = rng.integers(0, 2, n).astype(np.uint8)
    patterns = np.array([x, 1 - x], dtype=np.uint8)
    X = patterns[rng.integers(0, 2, 400)]
    y = np.where(rng.random(400) < 0.5, 1, -1).astype(np.int8)
    expected, _ = assert_engines_agree(n, all_conjunctions(), convention, X, y, probes=patterns)
    assert expected.n_mistakes >= 50 and len(calls) >= 10


def test_a_score_the_doubles_round_to_zero_is_decided_exactly():
    """M = [c (+1), x (-1), x (+1)] and the score of x is 1 - 2^80 + 2^80 = 1, which doubles
    summed in that order give as 0. "margin" updates on (x, +1) iff the score is <= 0, so
    trusting the doubles would update; the exact score does not."""
    n = 80
    x = np.zeros(n, np.uint8)
    x[::3] = 1
    c = 1 - x
    X = np.array([c, x, x, x, x], dtype=np.uint8)
    y = np.array([1, -1, 1, 1, -1], dtype=np.int8)
    # rounds: c (score 0, update), x (-1: score 1, update), x (+1: 1 - 2^80, update),
    # x (+1: score 1 > 0, no update), x (-1: score 1, update)
    expected, fast = assert_engines_agree(n, all_conjunctions(), "margin", X, y, probes=[x, c])
    assert fast.score(x) == 1 - 2**80  # M = [c (+1), x (-1), x (+1), x (-1)]
    assert expected.predictions.tolist() == [1, 1, -1, 1, 1]
    assert fast.n_updates == 4 and fast.support_labels.tolist() == [1, -1, 1, -1]
    assert float(1) + float(-(2**80)) + float(2**80) == 0.0  # what the doubles alone would say


@pytest.mark.parametrize("convention", CONVENTIONS)
def test_engines_agree_when_kernel_values_overflow_doubles(convention):
    """n = 1100 under all conjunctions: K = 2^same reaches 2^1100, past the largest double, so the
    doubles give inf or nan and every such round is decided in exact integers."""
    n = 1100
    rng = np.random.default_rng(1100)
    X = rng.integers(0, 2, (40, n)).astype(np.uint8)
    X[::7] = X[0]  # repeated rows: kernel values 2^1100
    y = np.where(rng.random(40) < 0.5, 1, -1).astype(np.int8)
    assert_engines_agree(n, all_conjunctions(), convention, X, y, probes=X[:2])


@pytest.mark.parametrize("T", [1, 2, 3])
def test_engines_agree_on_the_shortest_streams(T):
    """One round takes the direct path (SHORT_SCAN), more the compiled pass."""
    rng = np.random.default_rng(T)
    for convention in CONVENTIONS:
        for _ in range(10):
            X = rng.integers(0, 2, (T, 5)).astype(np.uint8)
            y = np.where(rng.random(T) < 0.5, 1, -1).astype(np.int8)
            assert_engines_agree(5, all_conjunctions(), convention, X, y)


def test_both_engines_count_the_same_kernel_evaluations_on_distinct_rows():
    """Theorem 3's cost: |M| kernel values per round, on either engine."""
    rng = np.random.default_rng(12)
    codes = rng.permutation(2**12)[:500]
    X = ((codes[:, None] >> np.arange(12)) & 1).astype(np.uint8)
    y = np.where(rng.random(500) < 0.3, 1, -1).astype(np.int8)
    for kernel in ALL_KERNELS:
        loop, fast = KernelPerceptron(12, kernel), KernelPerceptron(12, kernel)
        trace = run(loop, X, y, method="loop")
        assert run(fast, X, y) == trace
        steps = np.concatenate([[0], np.cumsum(trace.mistakes)[:-1]])  # |M| before each round
        assert fast.kernel_evaluations == loop.kernel_evaluations == int(steps.sum()) > 0


def test_an_update_scan_did_not_plan_drops_the_plan():
    """After scan, an update on another row changes M: the next scan must start afresh."""
    rng = np.random.default_rng(13)
    n = 10
    X = rng.integers(0, 2, (200, n)).astype(np.uint8)
    y = np.where(rng.random(200) < 0.5, 1, -1).astype(np.int8)
    kp = KernelPerceptron(n, all_conjunctions())
    Xp = kp.prepare(X)
    j, _ = kp.scan(Xp, y, 0)
    kp.update(Xp[j], int(y[j]))  # the planned update
    other = 1 - Xp[j]
    label = -kp.predict(other)  # a mistake: M grows off the plan
    kp.update(other, label)
    reference = KernelPerceptron(n, all_conjunctions())
    reference.update(X[j], int(y[j]))
    reference.update(other, label)
    assert kp.n_updates == reference.n_updates == 2
    for start in (j + 1, j + 5, 0):
        got = kp.scan(Xp, y, start)
        expected = next(
            ((t, reference.predict(X[t])) for t in range(start, 200) if reference.predict(X[t]) != y[t]), (200, 0)
        )
        assert got == expected


def test_manual_rounds_between_runs_match_the_loop():
    """run, then predict/update by hand (on and off the stream), then run again: as the loop."""
    rng = np.random.default_rng(14)
    n = 30
    X = rng.integers(0, 2, (300, n)).astype(np.uint8)
    y = np.where(rng.random(300) < 0.4, 1, -1).astype(np.int8)
    learners = [KernelPerceptron(n, bounded_conjunctions(3), "positive") for _ in range(2)]
    for kp, method in zip(learners, ("loop", "auto"), strict=True):
        kp.trace1 = run(kp, X[:100], y[:100], method=method)
        for t in range(100, 120):
            kp.predict(X[t])
            kp.update(X[t], int(y[t]))
        kp.update(X[5], -int(y[5]))
        kp.trace2 = run(kp, X[120:], y[120:], method=method)
    a, b = learners
    assert a.trace1 == b.trace1 and a.trace2 == b.trace2
    np.testing.assert_array_equal(a.support_vectors, b.support_vectors)
    assert a.rounds == b.rounds == 300 + 1


@pytest.mark.parametrize("n", [1, 8, 63, 64, 65, 127, 128, 129, 400])
def test_packed_rows_give_the_kernel_counts(n):
    from onlinelib import _kernels_boolean

    rng = np.random.default_rng(n)
    A = rng.integers(0, 2, (20, n)).astype(np.uint8)
    B = rng.integers(0, 2, (30, n)).astype(np.uint8)
    PA, PB = _kernels_boolean.pack_rows(A), _kernels_boolean.pack_rows(B)
    assert PA.shape == (20, max(1, (n + 63) // 64)) and PA.dtype == np.uint64
    both = np.bitwise_count(PA[:, None, :] & PB[None, :, :]).sum(axis=2)
    differ = np.bitwise_count(PA[:, None, :] ^ PB[None, :, :]).sum(axis=2)
    np.testing.assert_array_equal(both, monotone_monomials().counts(A, B))
    np.testing.assert_array_equal(n - differ, all_conjunctions().counts(A, B))


# -- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad, shown", [(2, "2"), (0.5, "0.5"), (-1, "-1"), (np.nan, "NaN")])
def test_non_boolean_instances(bad, shown):
    x = np.array([0, 1, bad], dtype=float if isinstance(bad, float) else int)
    k = monotone_monomials()
    with pytest.raises(ValueError, match=f"X must be Boolean \\(entries 0 or 1\\), got .*{shown}"):
        k(x, np.ones(3))
    with pytest.raises(ValueError, match=f"Z must be Boolean .*{shown}"):
        k.gram(np.ones((2, 3)), np.vstack([x, x]))
    with pytest.raises(ValueError, match=f"X must be Boolean .*{shown}"):
        k.feature_map(x)
    kp = KernelPerceptron(3, k)
    with pytest.raises(ValueError, match=f"x must be Boolean .*{shown}"):
        kp.predict(x)
    with pytest.raises(ValueError, match=f"x must be Boolean .*{shown}"):
        kp.update(x, 1)
    with pytest.raises(ValueError, match=f"X must be Boolean .*{shown}"):
        run(kp, np.vstack([np.ones(3), x]), [1, 1])
    assert kp.rounds == 0 and kp.n_updates == 0


def test_non_boolean_uint8_instance_on_the_fast_path():
    kp = KernelPerceptron(3, all_conjunctions())
    with pytest.raises(ValueError, match="x must be Boolean .*2"):
        kp.predict(np.array([0, 2, 1], dtype=np.uint8))


def test_non_numeric_instances():
    with pytest.raises(TypeError, match="X must be a numeric 0/1 array, got dtype"):
        all_conjunctions()(np.array(["a", "b"]), np.array([0, 1]))
    with pytest.raises(TypeError, match="x must be a numeric 0/1 array"):
        KernelPerceptron(2, all_conjunctions()).predict([None, 1])


def test_wrong_shapes():
    k = all_conjunctions()
    with pytest.raises(ValueError, match=r"Z must have 3 features per instance, got shape \(1, 2\)"):
        k(np.ones(3), np.ones(2))
    with pytest.raises(
        ValueError, match=r"X must be one instance \(1-D\) or a matrix of instances \(2-D\), got shape \(2, 2, 2\)"
    ):
        k.gram(np.ones((2, 2, 2)), np.ones((2, 2)))
    kp = KernelPerceptron(3, k)
    with pytest.raises(ValueError, match=r"x must be one instance of shape \(3,\), got shape \(1, 3\)"):
        kp.predict(np.ones((1, 3)))
    with pytest.raises(ValueError, match=r"x must be one instance of shape \(3,\), got shape \(4,\)"):
        kp.update(np.ones(4), 1)
    with pytest.raises(ValueError, match=r"X must be a matrix of instances of shape \(T, 3\), got shape \(3,\)"):
        run(kp, np.ones(3), [1])
    with pytest.raises(ValueError, match="X must have 3 features per instance"):
        run(kp, np.ones((2, 4)), [1, 1])
    with pytest.raises(ValueError, match="one entry per round"):
        run(kp, np.ones((2, 3)), [1, 1, 1])


@pytest.mark.parametrize("make", [bounded_conjunctions, monotone_bounded_conjunctions])
def test_bad_k(make):
    with pytest.raises(ValueError, match="k must be an integer >= 0, got -1"):
        make(-1)
    for bad in (1.5, 2.0, "2", True, None):
        with pytest.raises(TypeError, match="k must be an integer >= 0"):
            make(bad)


def test_bad_n_features_and_counts():
    k = monotone_monomials()
    with pytest.raises(ValueError, match="n_features must be an integer >= 1, got 0"):
        k.dimension(0)
    with pytest.raises(TypeError, match="n_features must be an integer"):
        k.table(2.0)
    with pytest.raises(ValueError, match="count must be an integer >= 0, got -1"):
        k.value(-1)
    with pytest.raises(ValueError, match="n_features must be an integer >= 1, got 0"):
        KernelPerceptron(0, k)


def test_explicit_features_are_limited_by_their_number():
    assert MAX_EXPLICIT_FEATURES == 12 and MAX_EXPLICIT_DIMENSION == 3**12
    k = all_conjunctions()
    assert k.features(12)[0].shape == (3**12,)
    match = (
        r"explicit features are limited to 531441 features \(all conjunctions over 12 variables\) "
        r"and n_features <= 62; all_conjunctions\(\) over n_features = 13 has 1594323"
    )
    with pytest.raises(ValueError, match=match):
        k.features(13)
    with pytest.raises(ValueError, match=match):
        k.feature_names(13)
    with pytest.raises(ValueError, match=match):
        k.feature_map(np.ones((1, 13)))
    kp = KernelPerceptron(13, k)
    kp.update(np.ones(13), -1)  # the kernel itself has no limit
    with pytest.raises(ValueError, match="explicit features are limited to 531441"):
        kp.primal_weights()
    # a bounded kernel with few features is listed at any n up to 62 ...
    small = monotone_bounded_conjunctions(1)
    assert small.features(40)[0].shape == (41,)
    assert small.feature_names(40)[:3] == ["1", "x1", "x2"]
    x = np.zeros(40, dtype=np.uint8)
    x[[3, 7]] = 1
    assert small.feature_map(x).sum() == 3  # the empty monomial, x4 and x8
    # ... but not beyond 62 variables (bit masks are int64)
    with pytest.raises(
        ValueError, match="n_features <= 62; monotone_bounded_conjunctions\\(1\\) over n_features = 63 has 64"
    ):
        small.features(63)


def test_unknown_convention_and_kernel_type():
    with pytest.raises(
        ValueError, match=r"convention must be one of \('nonnegative', 'positive', 'margin'\), got 'strict'"
    ):
        KernelPerceptron(3, all_conjunctions(), "strict")
    with pytest.raises(TypeError, match="kernel must be a BooleanKernel .* got function"):
        KernelPerceptron(3, lambda x, z: 1)
    with pytest.raises(TypeError, match="kernel must be a BooleanKernel .* got type"):
        KernelPerceptron(3, BooleanKernel)  # the class, not an instance


@pytest.mark.parametrize(
    "label, exc, match",
    [
        (0, ValueError, r"labels in \{0, 1\}\?"),
        (2, ValueError, "got 2"),
        (np.nan, ValueError, "NaN"),
        ("1", TypeError, "as numbers"),
    ],
)
def test_bad_labels_to_update(label, exc, match):
    kp = KernelPerceptron(3, all_conjunctions())
    with pytest.raises(exc, match=match):
        kp.update([1, 0, 1], label)
    assert kp.n_updates == 0 and kp.rounds == 0
    with pytest.raises(ValueError, match="y must hold labels"):
        run(kp, np.ones((2, 3)), [1, 0])


def test_kernel_evaluations_count_m_per_round_example_by_example():
    rng = np.random.default_rng(3)
    codes = rng.permutation(32)[:30]  # distinct rows: a repeated row may reuse its score
    X = ((codes[:, None] >> np.arange(5)) & 1).astype(np.uint8)
    y = rng.choice([-1, 1], 30)
    kp = KernelPerceptron(5, all_conjunctions())
    expected = 0
    for x, label in zip(X, y, strict=True):
        expected += kp.n_updates  # predict computes |M| kernel values ...
        kp.predict(x)
        kp.update(x, int(label))  # ... and update reuses that score
    assert kp.kernel_evaluations == expected > 0
    # update alone (no predict before it) computes the score itself
    before, m = kp.kernel_evaluations, kp.n_updates
    kp.update(1 - X[0], 1)
    assert kp.kernel_evaluations == before + m
    trace_loop = run(KernelPerceptron(5, all_conjunctions()), X, y, method="loop")
    assert trace_loop == run(KernelPerceptron(5, all_conjunctions()), X, y)


# -- the maximum-margin dual (chapter 6, bk-prop-max-margin) -------------------------------


@settings(max_examples=40, deadline=None, database=None)
@given(st.integers(2, 7), st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_max_margin_dual_satisfies_the_optimality_conditions(n, m, seed):
    """KKT for distinct points under the all-conjunctions kernel: a >= 0, margins >= 1, slackness."""
    rng = np.random.default_rng(seed)
    points = rng.choice(2**n, size=min(m, 2**n), replace=False)
    X = ((points[:, None] >> np.arange(n)) & 1).astype(np.uint8)
    y = rng.choice([-1, 1], size=len(X))
    gram = np.asarray(all_conjunctions().gram(X, X), dtype=np.float64)
    alpha = max_margin_dual(gram, y)
    margins = y * (gram @ (alpha * y))
    assert np.all(alpha >= 0)
    assert margins.min() >= 1 - 1e-8
    assert np.max(alpha * np.abs(margins - 1)) <= 1e-8 * max(1.0, alpha.max())
    # scaling the Gram matrix by 2^-n scales a by 2^n and keeps the hypothesis
    assert np.allclose(max_margin_dual(gram / 2**n, y), alpha * 2**n, rtol=1e-8, atol=1e-10)


def test_max_margin_dual_hand_computed():
    # two points, G = [[2, 1], [1, 2]]: same labels give a = (1/3, 1/3); opposite labels give a = (1, 1)
    G = np.array([[2.0, 1.0], [1.0, 2.0]])
    assert np.allclose(max_margin_dual(G, [1, 1]), [1 / 3, 1 / 3])
    assert np.allclose(max_margin_dual(G, [1, -1]), [1, 1])
    # a point that is already beyond the margin gets a = 0: G = [[1, 2], [2, 8]], y = (1, 1)
    alpha = max_margin_dual(np.array([[1.0, 2.0], [2.0, 8.0]]), [1, 1])
    assert np.allclose(alpha, [1, 0])


def test_max_margin_dual_errors():
    with pytest.raises(ValueError, match="square"):
        max_margin_dual(np.ones((2, 3)), [1, 1])
    with pytest.raises(ValueError, match="finite"):
        max_margin_dual(np.array([[np.inf, 0], [0, 1.0]]), [1, 1])
    with pytest.raises(ValueError, match="y must hold"):
        max_margin_dual(np.eye(2), [1, 0])
    with pytest.raises(ValueError, match="positive definite"):
        max_margin_dual(np.ones((2, 2)), [1, -1])
