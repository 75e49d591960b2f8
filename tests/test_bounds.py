"""Tests for onlinelib.bounds: the closed-form mistake bounds of chapter 1."""

import math
from fractions import Fraction

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from onlinelib import (
    ConceptClass,
    all_concepts,
    halving_bound,
    harmonic_number,
    littlestone_bound,
    littlestone_dimension,
    monotone_disjunctions,
    notes_winnow_bound,
    opt_upper_bounds,
    randomized_halving_bound,
    randomized_halving_recurrence,
    singletons,
    thresholds,
)
from onlinelib.bounds import notes_winnow_bound_sign


def test_harmonic_number_small_values():
    assert harmonic_number(1) == 1
    assert harmonic_number(2) == Fraction(3, 2)
    assert harmonic_number(4) == Fraction(25, 12)
    assert isinstance(harmonic_number(4), Fraction)
    assert harmonic_number(np.int64(3)) == Fraction(11, 6)


def test_harmonic_number_matches_direct_sum():
    for r in range(1, 80):
        assert harmonic_number(r) == sum(Fraction(1, i) for i in range(1, r + 1))


def test_randomized_halving_bound():
    assert randomized_halving_bound(1) == 0
    assert randomized_halving_bound(2) == Fraction(1, 2)
    assert randomized_halving_bound(4) == Fraction(13, 12)
    for r in range(1, 100):
        assert randomized_halving_bound(r) == harmonic_number(r) - 1


def test_randomized_halving_bound_at_most_ln():
    # H_r - 1 <= ln r; exact Fraction against float log, tolerance 0 (the gap is >= 0.19 for r >= 2).
    assert randomized_halving_bound(1) == 0 == math.log(1)
    for r in range(2, 300):
        assert float(randomized_halving_bound(r)) < math.log(r)


def test_randomized_halving_recurrence_equals_closed_form():
    values = randomized_halving_recurrence(60)
    assert len(values) == 60
    assert all(isinstance(v, Fraction) for v in values)
    assert values == [harmonic_number(r) - 1 for r in range(1, 61)]
    assert randomized_halving_recurrence(1) == [0]
    assert randomized_halving_recurrence(3) == [0, Fraction(1, 2), Fraction(5, 6)]


@pytest.mark.parametrize("n, expected", [(1, 0), (2, 1), (3, 1), (4, 2), (7, 2), (8, 3), (9, 3), (1023, 9), (1024, 10)])
def test_halving_bound_values(n, expected):
    assert halving_bound(n) == expected


def test_halving_bound_exact_for_large_integers():
    # float log2 would round 2**53 - 1 up to 53
    assert halving_bound(2**53 - 1) == 52
    assert halving_bound(2**53) == 53
    assert halving_bound(2**200 + 1) == 200


def test_littlestone_bound():
    assert littlestone_bound(thresholds(7)) == 3
    assert littlestone_bound(singletons(9)) == 1
    assert littlestone_bound(all_concepts(4)) == 4


@pytest.mark.parametrize(
    "cls, expected",
    [
        (thresholds(7), {"|X|": 7, "|C| - 1": 7, "floor(lg |C|)": 3, "Ldim(C)": 3}),
        (singletons(5), {"|X|": 5, "|C| - 1": 5, "floor(lg |C|)": 2, "Ldim(C)": 1}),
        (monotone_disjunctions(2), {"|X|": 4, "|C| - 1": 3, "floor(lg |C|)": 2, "Ldim(C)": 2}),
        (ConceptClass([[1, 0, 0, 1]]), {"|X|": 4, "|C| - 1": 0, "floor(lg |C|)": 0, "Ldim(C)": 0}),
    ],
    ids=["thresholds(7)", "singletons(5)", "disjunctions(2)", "one concept"],
)
def test_opt_upper_bounds_by_hand(cls, expected):
    bounds = opt_upper_bounds(cls)
    assert bounds == expected
    assert list(bounds) == ["|X|", "|C| - 1", "floor(lg |C|)", "Ldim(C)"]


@settings(max_examples=80, deadline=None, database=None)
@given(st.integers(1, 8), st.integers(1, 6), st.data())
def test_property_opt_upper_bounds_chain(n_concepts, n_instances, data):
    table = data.draw(hnp.arrays(np.bool_, (n_concepts, n_instances)))
    bounds = opt_upper_bounds(ConceptClass(table))
    ldim = bounds["Ldim(C)"]
    assert ldim == littlestone_dimension(ConceptClass(table))
    assert ldim <= min(bounds["|X|"], bounds["|C| - 1"], bounds["floor(lg |C|)"])
    assert bounds["floor(lg |C|)"] <= bounds["|C| - 1"]


CLASS_SIZE = r" \(a class has at least one concept\)"


@pytest.mark.parametrize(
    "fn, name, why",
    [
        (halving_bound, "n_concepts", CLASS_SIZE),
        (harmonic_number, "r", ""),
        (randomized_halving_bound, "n_concepts", CLASS_SIZE),
        (randomized_halving_recurrence, "r_max", ""),
    ],
)
def test_size_errors(fn, name, why):
    with pytest.raises(ValueError, match=rf"^{name} must be an integer >= 1{why}, got 0$"):
        fn(0)
    with pytest.raises(ValueError, match=rf"^{name} must be an integer >= 1{why}, got -4$"):
        fn(-4)
    with pytest.raises(TypeError, match=rf"^{name} must be an integer >= 1{why}, got True$"):
        fn(True)
    with pytest.raises(TypeError, match=rf"^{name} must be an integer >= 1{why}, got 2.0$"):
        fn(2.0)


def test_randomized_halving_bound_rejects_zero():
    with pytest.raises(ValueError, match="n_concepts must be an integer >= 1"):
        randomized_halving_bound(0)


def test_halving_bound_zero():
    with pytest.raises(ValueError, match="n_concepts must be an integer >= 1"):
        halving_bound(0)


def test_harmonic_number_zero_and_bool():
    with pytest.raises(ValueError, match="r must be an integer >= 1"):
        harmonic_number(0)
    with pytest.raises(TypeError, match="r must be an integer >= 1, got True"):
        harmonic_number(True)
    with pytest.raises(TypeError, match="r must be an integer >= 1"):
        harmonic_number(np.bool_(True))


@pytest.mark.parametrize("fn", [littlestone_bound, opt_upper_bounds])
def test_class_argument_errors(fn):
    with pytest.raises(TypeError, match="concept_class must be an onlinelib.ConceptClass"):
        fn(np.eye(3, dtype=bool))


# -- the notes' Winnow bound, decided exactly (chapter 4) ---------------------------------------------


@pytest.mark.parametrize(
    ("mistakes", "n", "k", "sign"),
    [
        (38, 2048, 1, 0),  # 2 + 3(11 + 1) = 38 exactly: meets the strict bound
        (37, 2048, 1, -1),
        (39, 2048, 1, 1),
        (28, 192, 1, 1),  # 27.75...
        (27, 192, 1, -1),
        (21, 40, 1, 1),  # 20.97...
        (20, 32, 1, 0),  # 2 + 3 * 6
        (11, 4, 1, 0),
        (0, 1, 1, -1),
        (2, 1, 0, 0),  # k = 0: the bound is 2
        (3, 1, 0, 1),
        (68, 1024, 2, 0),  # 2 + 6 * 11
    ],
)
def test_notes_winnow_bound_sign_exact(mistakes, n, k, sign):
    assert notes_winnow_bound_sign(mistakes, n, k) == sign


def test_notes_winnow_bound_sign_agrees_with_floats_away_from_ties():
    for n in range(1, 300):
        for k in (1, 2, 3):
            bound = notes_winnow_bound(n, k)
            for m in range(0, 3 * k * 10 + 10):
                if abs(m - bound) > 1e-9:
                    assert notes_winnow_bound_sign(m, n, k) == (1 if m > bound else -1), (m, n, k)
                else:  # a whole-number bound: N a power of 2
                    assert notes_winnow_bound_sign(m, n, k) == 0 and n & (n - 1) == 0, (m, n, k)


@pytest.mark.parametrize(
    ("args", "exc", "match"),
    [
        ((-1, 4, 1), ValueError, "mistakes"),
        ((3, 0, 1), ValueError, "n_features"),
        ((3, 4, -1), ValueError, "n_relevant"),
        ((2.5, 4, 1), TypeError, "mistakes"),
    ],
)
def test_notes_winnow_bound_sign_bad_input(args, exc, match):
    with pytest.raises(exc, match=match):
        notes_winnow_bound_sign(*args)
