"""VC dimension and shattering (onlinelib.version_space; book chapter 1, theorem "Ldim is at least VC")."""

import numpy as np
import pytest

import onlinelib as ol


@pytest.mark.parametrize("m", [1, 2, 5, 16, 40])
def test_thresholds_and_singletons_have_vc_one(m):
    assert ol.vc_dimension(ol.thresholds(m)) == 1
    assert ol.vc_dimension(ol.singletons(m)) == 1


@pytest.mark.parametrize("m", [1, 3, 6])
def test_all_concepts_have_vc_m(m):
    assert ol.vc_dimension(ol.all_concepts(m)) == m


@pytest.mark.parametrize("n", [1, 3, 4])
def test_monotone_disjunctions_have_vc_n(n):
    assert ol.vc_dimension(ol.monotone_disjunctions(n)) == n


def test_one_concept_has_vc_zero():
    cls = ol.ConceptClass(np.array([[True, False, True]]))
    assert ol.vc_dimension(cls) == 0


def test_vc_at_most_ldim_on_random_classes():
    rng = np.random.default_rng(0)
    for _ in range(30):
        cls = ol.ConceptClass(np.unique(rng.random((10, 5)) < 0.5, axis=0))
        vc = ol.vc_dimension(cls)
        assert vc <= ol.littlestone_dimension(cls) <= ol.halving_bound(cls.size)
        # brute force: some set of size vc is shattered and no set of size vc + 1 is
        from itertools import combinations

        instances = range(cls.n_instances)
        assert any(ol.shatters(cls, list(s)) for s in combinations(instances, vc))
        assert not any(ol.shatters(cls, list(s)) for s in combinations(instances, vc + 1))


def test_shatters():
    cls = ol.thresholds(5)
    assert ol.shatters(cls, [])
    assert ol.shatters(cls, [3])
    assert not ol.shatters(cls, [1, 3])
    assert ol.shatters(ol.all_concepts(4), [0, 2, 3])


def test_shatters_errors():
    cls = ol.thresholds(5)
    with pytest.raises(ValueError, match="points must be distinct"):
        ol.shatters(cls, [1, 1])
    with pytest.raises(ValueError, match="points"):
        ol.shatters(cls, [7])
    with pytest.raises(ValueError, match="1-d"):
        ol.shatters(cls, [[0, 1], [2, 3]])
    with pytest.raises(TypeError, match="concept_class"):
        ol.shatters("thresholds", [0])
    with pytest.raises(ValueError, match="at most 62"):
        ol.shatters(ol.ConceptClass(np.zeros((2, 70), dtype=bool)), list(range(63)))


def test_vc_dimension_type_error():
    with pytest.raises(TypeError, match="concept_class must be an onlinelib.ConceptClass"):
        ol.vc_dimension(np.eye(3, dtype=bool))
