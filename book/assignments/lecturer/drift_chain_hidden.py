"""Hidden tests of Assignment 5, Directed Drift's expected mistakes (chapter 7, Binary weights).

Lecturer edition only: the student-edition builder removes ``book/assignments/**/lecturer/``.
Run by ``tools/grade.py --assignment drift_chain``.
"""
from fractions import Fraction

import onlinelib as ol
from onlinelib import grading

FUNCTION = "expected_mistakes"
REFERENCE = grading.reference_drift_expected_mistakes
TITLE = "Assignment 5: Directed Drift chain (chapter 7)"


def chain_p(n):
    chain = ol.DirectedDriftChain(n)
    return [chain.good_flip_probability(d) for d in range(1, n + 1)]


def cases():
    return [
        grading.Case("the Directed Drift chain, n = 9", (chain_p(9),)),
        grading.Case("the Directed Drift chain, n = 16", (chain_p(16),)),
        grading.Case("n = 1", ([Fraction(1)],)),
        grading.Case("p_d = 1/2 for d < 6, p_6 = 1", ([Fraction(1, 2)] * 5 + [Fraction(1)],)),
        grading.Case("p_d = 1/10 everywhere, p_n != 1", ([Fraction(1, 10)] * 3,)),
        grading.Case("float probabilities", ([0.3, 0.45, 0.6, 0.8, 1.0],)),
    ]


def grade(student) -> grading.GradeReport:
    """One point per case: every E[M | d] exact (or within 1e-9 relative)."""
    return grading.compare_functions(student, REFERENCE, cases(), title=TITLE)
