"""Hidden tests of Assignment 7, a mistake tree of depth Ldim (chapter 1, Mistake bounds).

Lecturer edition only: the student-edition builder removes ``book/assignments/**/lecturer/``.
Run by ``python -m booktools grade SUBMISSIONS --assignment mistake_tree --out scores.csv``.

A certificate assignment: the student's ``mistake_tree(table)`` returns a tree, which
``onlinelib.certificates.verify_mistake_tree`` checks exactly (the grader runs it in its judge, on
the plain data the sandbox returned). A valid tree whose largest complete mistake tree (at any
node) has depth q earns ``points * q / Ldim``; an invalid one earns 0 and is told which node broke which condition.
Ldim is computed here once per class and passed as ``optimum``, so nothing searches twice.

Keyed instances (``booktools.grading.course_key``): the random class, drawn by
``course_rng("mistake_tree/cases")``; the other classes are named here.
"""

import numpy as np

import onlinelib as ol
from booktools.grading import checks
from booktools.grading.course_key import course_rng

FUNCTION = "mistake_tree"
KIND = "certificate"  # FUNCTION returns an object, verified exactly
TITLE = "Assignment 7: a mistake tree of depth Ldim (chapter 1)"
# What computes Ldim, or walks down an optimal tree, goes: littlestone_dimension and its memoised
# search (_ldim, _split_dimensions), SOA (whose dimensions() and ldim are Ldim of the two halves),
# worst_case_mistakes (the game value with learner="soa" is Ldim of any table one builds), and
# adaptive_adversary, which picks the instance with min(Ldim(V+), Ldim(V-)) = Ldim(V) - 1 in every
# round: playing it against learners that predict the opposite of a chosen path traces the whole
# tree. The verifier itself calls none of these when the optimum is given, as in the public checks.
FORBIDDEN = [
    "onlinelib.littlestone_dimension",
    "onlinelib.version_space._ldim",
    "onlinelib.version_space._split_dimensions",
    "onlinelib.version_space._soa_rule",
    "onlinelib.SOA",
    "onlinelib.worst_case_mistakes",
    "onlinelib.adaptive_adversary",
]
MAX_NODES = 10_000  # a valid tree has at most 2 |C| - 1 nodes (its leaves' version spaces are disjoint)


def REFERENCE(table):
    """The lecturer's construction: a complete mistake tree of depth Ldim(C), from Ldim of the halves.

    At a node with version space V and depth d still to build, take the first instance x that
    splits V with Ldim(V+(x)) >= d - 1 and Ldim(V-(x)) >= d - 1 (one exists by the definition
    of Ldim), and build both subtrees of depth d - 1.
    """
    cls = ol.ConceptClass(np.asarray(table, dtype=bool))

    def build(mask, depth):
        if depth == 0:
            return None
        for x in range(cls.n_instances):
            plus, minus = mask & cls.table[:, x], mask & ~cls.table[:, x]
            if (
                plus.any()
                and minus.any()
                and min(ol.littlestone_dimension(cls, plus), ol.littlestone_dimension(cls, minus)) >= depth - 1
            ):
                return [x, build(minus, depth - 1), build(plus, depth - 1)]
        raise AssertionError(f"no instance keeps depth {depth - 1} on both sides")

    everything = np.ones(cls.size, dtype=bool)
    return build(everything, ol.littlestone_dimension(cls))


def table_of(cls):
    """The Boolean (n_concepts, n_points) table of a ConceptClass."""
    return np.array(cls.table, dtype=bool)


def intervals(m):
    """The empty concept and every interval [a, b] of the points 0..m-1."""
    rows = [np.zeros(m, dtype=bool)]
    for a in range(m):
        for b in range(a, m):
            row = np.zeros(m, dtype=bool)
            row[a : b + 1] = True
            rows.append(row)
    return np.array(rows)


def certificate(name, table, points=2.0):
    """One class: Ldim computed here, passed to the verifier as the optimum that earns every point."""
    table = np.asarray(table, dtype=bool)
    ldim = ol.littlestone_dimension(ol.ConceptClass(table))
    return checks.Certificate(
        f"{name} (Ldim {ldim})",
        args=(table,),
        verifier="mistake_tree",
        params={"table": table, "optimum": ldim, "max_nodes": MAX_NODES},
        points=points,
    )


def cases():
    """Seven classes, other than the public ones: 2 points each, 1 for Ldim 0 and Ldim 1.

    At most 31 points each: a valid tree never repeats a point on a path, so it is at most 31
    lists deep, and the grader's transport (onlinelib.plain_data) refuses values nested more than
    32 levels. A deeper class would let a valid but lopsided tree pass the notebook's check and
    fail in the grader.
    """
    rng = course_rng("mistake_tree/cases")
    random_class = rng.random((60, 14)) < 0.5
    return [
        certificate("thresholds on 31 points", table_of(ol.thresholds(31))),
        certificate("intervals on 14 points", intervals(14)),
        certificate("all 64 concepts on 6 points", table_of(ol.all_concepts(6))),
        certificate("monotone disjunctions of 4 variables", table_of(ol.monotone_disjunctions(4))),
        certificate("a random class of 60 concepts on 14 points", random_class),
        certificate("singletons on 12 points", table_of(ol.singletons(12)), points=1.0),
        certificate("a single concept", np.array([[True, False, False, True, False]]), points=1.0),
    ]


def public_checks():
    """The notebook's public checks, recorded from the reference by `python -m booktools grade --write-public-checks`."""
    rng = np.random.default_rng(7)
    return {
        "title": "Assignment 7, public checks",
        "certificates": [
            certificate("thresholds on 15 points", table_of(ol.thresholds(15)), points=1.0),
            certificate("singletons on 5 points", table_of(ol.singletons(5)), points=1.0),
            certificate("a random class of 12 concepts on 6 points", rng.random((12, 6)) < 0.5, points=1.0),
        ],
    }


def grade(student) -> checks.GradeReport:
    """Each class's tree verified exactly: points * min(1, largest complete depth / Ldim) for a valid tree."""
    return checks.verify_certificates(student, cases(), title=TITLE)
