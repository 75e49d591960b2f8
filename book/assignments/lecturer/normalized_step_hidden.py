"""Hidden tests of Assignment 6, the normalized perceptron step (chapter 8, Learning curves, Eq. 2).

Lecturer edition only: the student-edition builder removes ``book/assignments/**/lecturer/``.
Run by ``tools/grade.py --assignment normalized_step``.
"""
import numpy as np

from onlinelib import grading

FUNCTION = "normalized_step"
REFERENCE = grading.reference_normalized_step
TITLE = "Assignment 6: normalized perceptron step (chapter 8)"


def _unit(v):
    return v / np.linalg.norm(v)


def cases():
    rng = np.random.default_rng(20260606)
    out = []
    for N, eta in ((50, 0.5), (200, 3.0)):
        W = _unit(rng.normal(size=N))
        S = rng.normal(size=N)
        label = -1 if W @ S >= 0 else 1
        out.append(grading.Case(f"a mistake, N = {N}, eta = {eta}", (W, S, label, eta)))
    W = _unit(rng.normal(size=30))
    out.append(grading.Case("a mistake with eta = 0: W unchanged", (W, -W, 1, 0.0)))
    out.append(grading.Case("N = 1, a mistake", (np.array([1.0]), np.array([2.0]), -1, 5.0)))
    e = np.eye(10)
    out.append(grading.Case("W . S = 0 and label +1: correct, no change", (e[3], e[7], 1, 1.0)))
    out.append(grading.Case("W . S = 0 and label -1: a mistake", (_unit(e[0] + e[1]), e[0] - e[1], -1, 4.0)))
    return out


def grade(student) -> grading.GradeReport:
    """One point per case: every entry of the new W within 1e-9 (relative)."""
    return grading.compare_functions(student, REFERENCE, cases(), title=TITLE)
