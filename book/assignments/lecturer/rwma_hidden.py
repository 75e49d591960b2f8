"""Hidden tests of Assignment 3, RWMA's exact expected mistakes (chapter 5, Experts and regret).

Lecturer edition only: the student-edition builder removes ``book/assignments/**/lecturer/``.
Run by ``python -m booktools grade SUBMISSIONS --assignment rwma --out scores.csv``.

Keyed instances (``booktools.grading.course_key``): all six streams, drawn by ``course_rng("rwma/cases")``.
"""

import functools
from fractions import Fraction

import numpy as np

import onlinelib as ol
from booktools.grading import checks
from booktools.grading.course_key import course_rng
from onlinelib.experts import check_expert_stream

FUNCTION = "rwma_mistake_probabilities"
KIND = "function"  # FUNCTION returns data (the grader calls it on its cases)
TITLE = "Assignment 3: RWMA expected mistakes (chapter 5)"
# What the student writes: absent from the library a graded notebook sees. With eta = 1, RWMA over the
# experts is Randomized Halving, whose exact expectation (and Halving's votes) give F_t, so the
# version space goes too (tests/test_library_shortcut.py).
FORBIDDEN = [
    "onlinelib.weighted_majority_run",
    "onlinelib.simulate_randomized_weighted_majority",
    "onlinelib.WeightedMajority",
    "onlinelib.RandomizedWeightedMajority",
    "onlinelib.experts._run",
    "onlinelib.experts._weight_rows",
    "onlinelib.experts._log_weights",
    "onlinelib.experts._vote",
    "onlinelib.experts._integer_powers",  # the vote's weights (1 - eta)^k
    "onlinelib.certificates._float_chain",
    "onlinelib.chapters.experts",  # exact_wma_replay is a whole Weighted Majority
    "onlinelib._kernels_experts",  # the compiled Weighted Majority engine and RWMA Monte Carlo
    "onlinelib.Halving",
    "onlinelib.randomized_halving_expected_mistakes",
    "onlinelib.version_space._VersionSpace",
]


def REFERENCE(P, y, eta):
    """The reference solution: F_t, the probability that RWMA errs in round t, for t = 1..T.

    Computed exactly and rounded once: with 1 - eta = n / d (d a power of 2, as for every float)
    and k_i = c_i - min_j c_j (c_i: expert i's mistakes before round t), the weights are
    proportional to the integers n^k_i d^(K - k_i), K = max_i k_i, and F_t is the quotient of two
    integer sums (Python's int / int rounds correctly). ``onlinelib.weighted_majority_run``
    computes the same F_t to about 1e-16 (relative), summing in an order its compiled kernel
    picks for the CPU; this exact form gives the recorded public checks the same bits on every
    machine (``tests/test_reproducible.py``). With eta = 1 only the experts with the fewest
    mistakes carry weight (0^0 = 1), as in the library.
    """
    P, y = check_expert_stream(P, y)
    n, d = (1 - Fraction(float(eta))).as_integer_ratio()
    wrong = P != y[:, None]
    counts = np.zeros(P.shape[1], dtype=np.int64)
    out = np.empty(len(y))
    power_n = functools.cache(lambda k: n**k)  # each power computed once
    power_d = functools.cache(lambda k: d**k)
    for t in range(len(y)):
        k = (counts - counts.min()).tolist()
        top = max(k)
        weights = [power_n(ki) * power_d(top - ki) for ki in k]
        out[t] = sum(w for w, bad in zip(weights, wrong[t].tolist(), strict=True) if bad) / sum(weights)
        counts += wrong[t]
    return out


def cases():
    rng = course_rng("rwma/cases")
    out = []
    P, y = ol.iid_experts(200, rng.uniform(0.3, 0.9, size=8), rng)
    out.append(checks.Case("eight i.i.d. experts, eta = 0.25", (P, y, 0.25)))
    P, y = ol.planted_best_expert(150, 6, 10, rng)
    out.append(checks.Case("planted best expert (10 mistakes), eta = 0.5", (P, y, 0.5)))
    P, y = ol.wma_adversary(120, 7, 0.3, rng)
    out.append(checks.Case("the Weighted Majority adversary, eta = 0.3", (P, y, 0.3)))
    P, y = ol.planted_best_expert(60, 4, 0, rng)
    out.append(checks.Case("a perfect expert, eta = 1", (P, y, 1.0)))
    P, y = ol.iid_experts(30, [0.6], rng)
    out.append(checks.Case("a single expert", (P, y, 0.5)))
    P, y = ol.iid_experts(3000, [0.55, 0.5, 0.45, 0.4], rng)
    out.append(checks.Case("3000 rounds, eta = 0.9 (the weights underflow unless rescaled)", (P, y, 0.9)))
    return out


def public_checks():
    """The notebook's public checks, recorded from the reference by `python -m booktools grade --write-public-checks`."""
    rng = np.random.default_rng(3)
    P1, y1 = ol.iid_experts(50, [0.9, 0.7, 0.5, 0.3], rng)
    P2, y2 = ol.planted_best_expert(40, 5, 0, rng)
    return {
        "title": "Assignment 3, public checks",
        "rounds": True,
        "cases": [
            checks.Case("four i.i.d. experts, eta = 0.5", (P1, y1, 0.5)),
            checks.Case("four i.i.d. experts, eta = 0.1", (P1, y1, 0.1)),
            checks.Case("a perfect expert among 5, eta = 1 (Randomized Halving)", (P2, y2, 1.0)),
        ],
    }


def grade(student) -> checks.GradeReport:
    """One point per case: F_t must match to 1e-9 (relative) in every round."""
    return checks.compare_functions(student, REFERENCE, cases(), rounds=True, title=TITLE)
