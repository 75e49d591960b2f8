"""Hidden tests of Assignment 4, the kernel Perceptron (chapter 6, Boolean kernels).

Lecturer edition only: the student-edition builder removes ``book/assignments/**/lecturer/``.
Run by ``python -m booktools grade SUBMISSIONS --assignment kernel_perceptron --out scores.csv``.
"""
import numpy as np

import onlinelib as ol
from onlinelib import grading

FUNCTION = "KernelPerceptronLearner"
KIND = "learner"  # FUNCTION builds a learner, which stays in the sandbox and is played round by round
TITLE = "Assignment 4: kernel Perceptron (chapter 6)"
# What the student writes: absent from the library a graded notebook sees (the kernels stay).
FORBIDDEN = ["onlinelib.KernelPerceptron", "onlinelib.Perceptron"]


def REFERENCE(n_features, kernel):
    """The reference solution: onlinelib's KernelPerceptron (predicts +1 iff the score is >= 0)."""
    return ol.KernelPerceptron(n_features, kernel)


def streams():
    rng = np.random.default_rng(20260404)
    out = []
    X, y = ol.monotone_dnf_stream(8, [[0, 1, 2], [3, 4], [5, 6, 7]], 60, rng)
    out.append(grading.Stream("monotone DNF on 8 variables, monotone monomials", X, y,
                              params={"n_features": 8, "kernel": ol.monotone_monomials()}))
    X, y = ol.monotone_dnf_stream(7, [[0, 6], [2]], 50, rng, density=0.4)
    out.append(grading.Stream("DNF on 7 variables, all conjunctions", X, y,
                              params={"n_features": 7, "kernel": ol.all_conjunctions()}))
    X, y = ol.monotone_dnf_stream(9, [[1, 2], [4, 8]], 60, rng)
    out.append(grading.Stream("DNF on 9 variables, conjunctions of at most 2 literals", X, y,
                              params={"n_features": 9, "kernel": ol.bounded_conjunctions(2)}))
    family = ol.constant_weight_family(16, 4, 1, 12, rng)
    X, y = ol.theorem4_stream(family)
    out.append(grading.Stream("Theorem 4 stream, n = 16", X, y,
                              params={"n_features": 16, "kernel": ol.monotone_monomials()}))
    # n = 70: 2^70 does not fit in int64, so the scores must be exact Python ints.
    n = 70
    X = np.zeros((4, n), dtype=np.uint8)
    X[1] = 1
    X[2, :69] = 1
    X[3, :35] = 1
    y = np.array([-1, 1, -1, -1], dtype=np.int8)
    out.append(grading.Stream("n = 70, kernel values beyond 2^63", X, y,
                              params={"n_features": n, "kernel": ol.monotone_monomials()}))
    return out


def public_checks():
    """The notebook's public checks, recorded from the reference by `python -m booktools grade --write-public-checks`."""
    rng = np.random.default_rng(4)
    kernel = ol.monotone_monomials()
    X, y = ol.monotone_dnf_stream(6, [[0, 1], [2, 3, 4]], 40, rng)
    X_ties = np.array([[0] * 6, [1] * 6, [0] * 6, [1] * 6, [0] * 6], dtype=np.uint8)
    y_ties = np.array([-1, 1, -1, 1, -1], dtype=np.int8)
    return {
        "title": "Assignment 4, public checks",
        "observe": {"n_updates": "n_updates"},
        "streams": [
            grading.Stream("monotone DNF on 6 variables, random", X, y, params={"n_features": 6, "kernel": kernel}),
            grading.Stream("scores equal to 0", X_ties, y_ties, params={"n_features": 6, "kernel": kernel}),
        ],
    }


def grade(student) -> grading.GradeReport:
    """One point per stream: predictions and |M| in every round."""
    return grading.compare_learners(
        student, REFERENCE, streams(), observe={"n_updates": lambda learner: learner.n_updates}, title=TITLE
    )
