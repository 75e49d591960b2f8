"""Hidden tests of Assignment 5, Directed Drift's expected mistakes (chapter 7, Binary weights).

Lecturer edition only: the student-edition builder removes ``book/assignments/**/lecturer/``.
Run by ``python -m booktools grade SUBMISSIONS --assignment drift_chain --out scores.csv``.

Keyed instances: none. The chains (each made for one condition) are written out here and are the same under
every course key, so whoever reads this file knows them: keep it in a private folder (``--hidden-dir``) if
that matters.
"""

import numbers
from fractions import Fraction

import onlinelib as ol
from booktools.grading import checks

FUNCTION = "expected_mistakes"
KIND = "function"  # FUNCTION returns data (the grader calls it on its cases)
TITLE = "Assignment 5: Directed Drift chain (chapter 7)"
# What the student writes: absent from the library a graded notebook sees.
FORBIDDEN = [
    "onlinelib.DirectedDriftChain",
    "onlinelib.directed_drift._exact_rates",
    "onlinelib.directed_drift._log_rates",
]


def REFERENCE(p):
    """Assignment ``drift_chain`` (chapter 7): E[M | d0 = d] for d = 0..n, from p = (p_1, ..., p_n).

    p_d is the probability that a mistake at distance d moves to d - 1 (else
    to d + 1; at d = n it stays). With T_n = 1/p_n and
    T_d = (1 + (1 - p_d) T_{d+1}) / p_d, E[M | d] = T_1 + ... + T_d. Exact
    (Fractions) when p holds ints and Fractions, floats otherwise. For the
    chain of ``DirectedDriftChain(n)``, p_d = ``good_flip_probability(d)`` and
    the result equals ``expected_mistakes(d)``.
    """
    p = list(p)
    if not p:
        raise ValueError("p must hold p_1, ..., p_n with n >= 1, got an empty list")
    for d, value in enumerate(p, start=1):
        if not isinstance(value, numbers.Number) or not 0 < value <= 1:
            raise ValueError(f"p[{d - 1}] = p_{d} must be a probability in (0, 1], got {value!r}")
    exact = all(isinstance(v, (numbers.Integral, Fraction)) for v in p)
    one = Fraction(1) if exact else 1.0
    n = len(p)
    T = [one * 0] * (n + 1)
    T[n] = one / p[n - 1]
    for d in range(n - 1, 0, -1):
        T[d] = (one + (one - p[d - 1]) * T[d + 1]) / p[d - 1]
    expected = [one * 0]
    for d in range(1, n + 1):
        expected.append(expected[-1] + T[d])
    return expected


def chain_p(n):
    chain = ol.DirectedDriftChain(n)
    return [chain.good_flip_probability(d) for d in range(1, n + 1)]


def cases():
    return [
        checks.Case("the Directed Drift chain, n = 9", (chain_p(9),)),
        checks.Case("the Directed Drift chain, n = 16", (chain_p(16),)),
        # n = 1 with p_1 != 1 (with p_1 = 1 the answer [0, 1] is what a guess E[M | d] = d gives)
        checks.Case("n = 1, p_1 = 2/5 (E[M | 1] = 5/2)", ([Fraction(2, 5)],)),
        checks.Case("p_d = 1/2 for d < 6, p_6 = 1", ([Fraction(1, 2)] * 5 + [Fraction(1)],)),
        checks.Case("p_d = 1/10 everywhere, p_n != 1", ([Fraction(1, 10)] * 3,)),
        checks.Case("float probabilities", ([0.3, 0.45, 0.6, 0.8, 1.0],)),
        # E[M | d] is about 10^360 here: beyond the largest float (1.8e308), so only Fractions are exact.
        checks.Case("tiny p_d = 1/1000, n = 120: E[M | d] beyond the largest float", ([Fraction(1, 1000)] * 120,)),
    ]


def public_checks():
    """The notebook's public checks, recorded from the reference by `python -m booktools grade --write-public-checks`."""
    return {
        "title": "Assignment 5, public checks",
        "cases": [
            checks.Case("the Directed Drift chain, n = 3", (chain_p(3),)),
            checks.Case("the Directed Drift chain, n = 5", (chain_p(5),)),
            checks.Case("every flip good, n = 4 (E[M | d] = d)", ([Fraction(1)] * 4,)),
        ],
    }


def grade(student) -> checks.GradeReport:
    """One point per case: every E[M | d] exact (or within 1e-9 relative)."""
    return checks.compare_functions(student, REFERENCE, cases(), title=TITLE)
