"""Tests for onlinelib.concepts: ConceptClass and the class constructors."""

from math import comb

import numpy as np
import pytest

from onlinelib import ConceptClass, all_concepts, littlestone_dimension, monotone_disjunctions, singletons, thresholds


# --------------------------------------------------------------------------- constructors, by hand
def test_thresholds_3_table():
    cls = thresholds(3)
    np.testing.assert_array_equal(
        cls.table,
        [
            [1, 1, 1],  # x >= 0
            [0, 1, 1],  # x >= 1
            [0, 0, 1],  # x >= 2
            [0, 0, 0],  # x >= 3: all -1
        ],
    )
    assert cls.table.dtype == bool
    assert cls.size == len(cls) == 4
    assert cls.n_instances == 3
    assert cls.concept_names == ["x >= 0", "x >= 1", "x >= 2", "x >= 3"]
    assert cls.name == "thresholds on 3 points"
    np.testing.assert_array_equal(cls.instances, [0, 1, 2])


def test_thresholds_1_table():
    np.testing.assert_array_equal(thresholds(1).table, [[1], [0]])


def test_singletons_3_with_and_without_empty():
    with_empty = singletons(3)
    np.testing.assert_array_equal(with_empty.table, [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0]])
    assert with_empty.concept_names == ["{0}", "{1}", "{2}", "empty"]
    assert with_empty.name == "singletons on 3 points + empty"
    without = singletons(3, include_empty=False)
    np.testing.assert_array_equal(without.table, np.eye(3, dtype=bool))
    assert without.concept_names == ["{0}", "{1}", "{2}"]
    assert without.size == 3 and without.n_instances == 3


def test_monotone_disjunctions_2_table_and_instances():
    cls = monotone_disjunctions(2)
    # instance i has bit j = (i >> j) & 1
    np.testing.assert_array_equal(cls.instances, [[0, 0], [1, 0], [0, 1], [1, 1]])
    # concepts ordered by the integer whose bits mark the variables: false, x1, x2, x1 v x2
    assert cls.concept_names == ["false", "x1", "x2", "x1 v x2"]
    np.testing.assert_array_equal(
        cls.table,
        [
            [0, 0, 0, 0],
            [0, 1, 0, 1],
            [0, 0, 1, 1],
            [0, 1, 1, 1],
        ],
    )


@pytest.mark.parametrize("n", [1, 3, 5])
def test_monotone_disjunctions_instance_encoding(n):
    cls = monotone_disjunctions(n)
    assert cls.instances.shape == (2**n, n)
    for i in range(2**n):
        assert list(cls.instances[i]) == [(i >> j) & 1 for j in range(n)]
    # the disjunction x_j alone is positive exactly on the instances with bit j set
    for j in range(n):
        row = cls.table[cls.concept_names.index(f"x{j + 1}")]
        np.testing.assert_array_equal(row, [(i >> j) & 1 for i in range(2**n)])


@pytest.mark.parametrize("n", range(1, 7))
def test_monotone_disjunctions_max_terms_sizes(n):
    for k in range(n + 1):
        cls = monotone_disjunctions(n, max_terms=k)
        assert cls.size == sum(comb(n, j) for j in range(k + 1))
        assert cls.n_instances == 2**n
        assert cls.name == f"monotone disjunctions of <= {k} of {n} variables"
    assert monotone_disjunctions(n).size == 2**n


def test_monotone_disjunctions_max_terms_table():
    cls = monotone_disjunctions(3, max_terms=1)
    assert cls.concept_names == ["false", "x1", "x2", "x3"]
    np.testing.assert_array_equal(cls.table[3], [0, 0, 0, 0, 1, 1, 1, 1])
    assert monotone_disjunctions(3, max_terms=0).concept_names == ["false"]
    assert not monotone_disjunctions(3, max_terms=0).table.any()


def test_monotone_disjunctions_encode():
    cls = monotone_disjunctions(2)
    assert cls.encode([1, 0]) == 1
    assert cls.encode([0, 1]) == 2
    np.testing.assert_array_equal(cls.encode([[0, 1], [1, 1], [0, 0]]), [2, 3, 0])
    with pytest.raises(ValueError, match=r"vectors\[1\] = \[2, 0\] is not an instance"):
        cls.encode([[0, 1], [2, 0]])


def test_all_concepts_2_table():
    cls = all_concepts(2)
    # concept j labels instance i positive iff bit i of j is 1
    np.testing.assert_array_equal(cls.table, [[0, 0], [1, 0], [0, 1], [1, 1]])
    assert cls.name == "all concepts on 2 points"


@pytest.mark.parametrize("m", [1, 3, 5])
def test_all_concepts_rows_distinct_and_complete(m):
    cls = all_concepts(m)
    assert cls.size == 2**m
    assert len({tuple(r) for r in cls.table.tolist()}) == 2**m


# --------------------------------------------------------------------------- ConceptClass
def test_conceptclass_from_01_ints_and_floats():
    a = ConceptClass([[0, 1], [1, 1], [0, 0]])
    b = ConceptClass(np.array([[0.0, 1.0], [1.0, 1.0], [0.0, 0.0]]))
    for cls in (a, b):
        assert cls.table.dtype == bool
        np.testing.assert_array_equal(cls.table, [[0, 1], [1, 1], [0, 0]])
        np.testing.assert_array_equal(cls.by_instance, cls.table.T)
    assert a.name == "class of 3 concepts"
    assert repr(a) == "ConceptClass('class of 3 concepts', concepts=3, instances=2)"
    assert a.concept_names is None


def test_conceptclass_table_is_read_only():
    cls = thresholds(3)
    with pytest.raises(ValueError):
        cls.table[0, 0] = False
    with pytest.raises(ValueError):
        cls.by_instance[0, 0] = False


def test_conceptclass_copies_caller_table():
    table = np.zeros((3, 2), dtype=bool)
    cls = ConceptClass(table)
    table[0, 0] = True
    assert not cls.table.any()


@pytest.mark.parametrize("shape", [(1, 3), (3, 1)])
def test_conceptclass_copies_caller_table_degenerate_shapes(shape):
    table = np.zeros(shape, dtype=bool)
    cls = ConceptClass(table)
    table[0, 0] = True
    assert not cls.table.any()


def test_conceptclass_custom_instances_and_names():
    cls = ConceptClass([[1, 0]], name="tiny", instances=["a", "b"], concept_names=["first"])
    assert cls.name == "tiny"
    assert list(cls.instances) == ["a", "b"]
    assert cls.concept_names == ["first"]


def test_to_text():
    assert thresholds(2).to_text() == "x >= 0: + +\nx >= 1: - +\nx >= 2: - -"
    # without concept names the rows are called c0, c1, ...
    assert ConceptClass([[1, 0], [0, 0]]).to_text() == "c0: + -\nc1: - -"
    text = singletons(4).to_text(max_concepts=2)
    assert text == "{0}: + - - -\n{1}: - + - -\n... and 3 more concepts"


def test_labels():
    cls = thresholds(3)
    y = cls.labels(2, [0, 1, 2, 2])
    np.testing.assert_array_equal(y, [-1, -1, 1, 1])
    assert y.dtype == np.int8
    np.testing.assert_array_equal(cls.labels(0, np.array([2, 0])), [1, 1])


def test_index_of():
    cls = thresholds(3)
    assert cls.index_of([0, 1, 1]) == 1
    assert cls.index_of([False, False, False]) == 3
    with pytest.raises(ValueError, match="the given concept is not in thresholds on 3 points"):
        cls.index_of([1, 0, 1])
    with pytest.raises(ValueError, match=r"table_row must have shape \(3,\)"):
        cls.index_of([1, 1])


def test_check_instance_accepts_integers():
    cls = thresholds(3)
    assert cls.check_instance(2) == 2
    assert cls.check_instance(np.int64(0)) == 0
    assert cls.check_instance(np.array(1)) == 1
    assert type(cls.check_instance(np.int32(1))) is int


@pytest.mark.parametrize(
    "x, exc, match",
    [
        (-1, ValueError, r"x must be an instance of thresholds on 3 points, an integer in \[0, 3\), got -1"),
        (3, ValueError, r"x must be an instance of .*got 3"),
        (1.0, TypeError, r"x must be an instance index"),
        (True, TypeError, r"x must be an instance index"),
        (np.array([0, 1]), TypeError, r"x must be an instance index"),
    ],
)
def test_check_instance_errors(x, exc, match):
    with pytest.raises(exc, match=match):
        thresholds(3).check_instance(x)


def test_check_instances():
    cls = thresholds(3)
    out = cls.check_instances([0, 2, 1])
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out, [0, 2, 1])
    with pytest.raises(ValueError, match=r"X must be a 1-D array of instance indices, got shape \(1, 2\)"):
        cls.check_instances([[0, 1]])
    with pytest.raises(TypeError, match="X must hold integer instance indices, got dtype float64"):
        cls.check_instances([0.0, 1.0])
    with pytest.raises(TypeError, match="X must hold integer instance indices, got dtype bool"):
        cls.check_instances([True, False])
    with pytest.raises(ValueError, match=r"X must hold instances of .*\[0, 3\), got -1"):
        cls.check_instances([0, -1])
    with pytest.raises(ValueError, match=r"X must hold instances of .*got 3"):
        cls.check_instances([3, 0])


def test_check_concept():
    cls = thresholds(3)
    assert cls.check_concept(np.int64(3)) == 3
    with pytest.raises(ValueError, match=r"target must be a concept of .*\[0, 4\), got 4"):
        cls.check_concept(4)
    with pytest.raises(ValueError, match=r"target must be a concept of .*got -1"):
        cls.check_concept(-1)
    with pytest.raises(TypeError, match="target must be a concept index"):
        cls.check_concept(1.0)
    with pytest.raises(TypeError, match="target must be a concept index"):
        cls.check_concept(True)


def test_check_mask():
    cls = thresholds(3)
    mask = np.array([True, False, True, True])
    np.testing.assert_array_equal(cls.check_mask(mask), mask)
    with pytest.raises(ValueError, match=r"mask must be a Boolean array of shape \(4,\)"):
        cls.check_mask([True, False])
    with pytest.raises(ValueError, match=r"mask must be a Boolean array of shape \(4,\)"):
        cls.check_mask([1, 0, 1, 1])


@pytest.mark.parametrize("target", [-1, 4])
def test_labels_target_out_of_range(target):
    with pytest.raises(ValueError, match="target must be a concept of"):
        thresholds(3).labels(target, [0])


def test_labels_instance_out_of_range():
    with pytest.raises(ValueError, match="X must hold instances of"):
        thresholds(3).labels(0, [0, 3])


# --------------------------------------------------------------------------- bad tables
@pytest.mark.parametrize(
    "table, match",
    [
        (np.zeros((0, 3)), "table must hold at least one concept"),
        (np.zeros((3, 0)), "table must have at least one instance"),
        ([1, 0, 1], r"table must be 2-D \(n_concepts, n_instances\), got shape \(3,\)"),
        (np.zeros((2, 2, 2)), r"table must be 2-D"),
        ([[0, 2], [1, 0]], r"table must hold Boolean entries \(True/False or 0/1\), got 2 at concept 0, instance 1$"),
        ([[0, 0.5]], "table must hold Boolean entries .*got 0.5 at concept 0, instance 1"),
        ([[0, np.nan]], "table must hold Boolean entries .*got nan at concept 0, instance 1"),
        ([["a", "b"]], r"table must hold Boolean entries \(True/False or 0/1\), got dtype <U1"),
        ([[1, 1], [-1, 1]], r"got -1 at concept 1, instance 0 \(a ±1 labelling\? use table == 1\)"),
    ],
)
def test_conceptclass_rejects_bad_tables(table, match):
    with pytest.raises(ValueError, match=match):
        ConceptClass(table)


def test_conceptclass_rejects_wrong_instances_and_names_lengths():
    with pytest.raises(ValueError, match=r"instances must have one entry per column \(2\), got 3"):
        ConceptClass([[0, 1]], instances=[0, 1, 2])
    with pytest.raises(ValueError, match=r"concept_names must have one entry per concept \(1\), got 2"):
        ConceptClass([[0, 1]], concept_names=["a", "b"])


@pytest.mark.parametrize(
    "make, arg, exc, match",
    [
        (thresholds, 0, ValueError, r"m must be an integer >= 1, got 0"),
        (thresholds, True, TypeError, r"m must be an integer"),
        (thresholds, 2.0, TypeError, r"m must be an integer"),
        (singletons, 0, ValueError, r"m must be an integer >= 1"),
        (monotone_disjunctions, 0, ValueError, r"n must be an integer in \[1, 12\], got 0"),
        (monotone_disjunctions, 13, ValueError, r"n must be an integer in \[1, 12\], got 13"),
        (all_concepts, 0, ValueError, r"m must be an integer in \[1, 16\], got 0"),
        (all_concepts, 17, ValueError, r"m must be an integer in \[1, 16\], got 17"),
    ],
)
def test_constructor_size_errors(make, arg, exc, match):
    with pytest.raises(exc, match=match):
        make(arg)


@pytest.mark.parametrize("k", [-1, 4])
def test_monotone_disjunctions_max_terms_out_of_range(k):
    with pytest.raises(ValueError, match=rf"max_terms must be an integer in \[0, 3\], got {k}"):
        monotone_disjunctions(3, max_terms=k)


def test_monotone_disjunctions_max_terms_type():
    with pytest.raises(TypeError, match="max_terms must be an integer"):
        monotone_disjunctions(3, max_terms=1.5)


def test_ldim_cache_is_per_class():
    # Two classes with the same shape but different tables must not share Ldim results.
    a = ConceptClass([[0, 0], [0, 0], [0, 0], [0, 0]])
    b = all_concepts(2)
    assert littlestone_dimension(a) == 0
    assert littlestone_dimension(b) == 2
