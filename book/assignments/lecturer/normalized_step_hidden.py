"""Hidden tests of Assignment 6, the normalized perceptron step (chapter 8, Learning curves, Eq. 2).

Lecturer edition only: the student-edition builder removes ``book/assignments/**/lecturer/``.
Run by ``python -m booktools grade SUBMISSIONS --assignment normalized_step --out scores.csv``.

Keyed instances (``booktools.grading.course_key``): the random W and S of five cases, drawn by
``course_rng("normalized_step/cases")``; the label of each is set from them, so each case stays a mistake or a
correct prediction as its name says. The cases with W . S = 0 and N = 1 are hand-made.
"""

import numpy as np

from booktools.grading import checks
from booktools.grading.course_key import course_rng
from onlinelib.reproducible import fixed_order_dot, fixed_order_squared_norms

FUNCTION = "normalized_step"
KIND = "function"  # FUNCTION returns data (the grader calls it on its cases)
# The specification says "without changing W": a call that changes an argument fails its case
# (checked where the arguments live: in the grader's worker, and in process for the tests).
READ_ONLY_ARGUMENTS = True
TITLE = "Assignment 6: normalized perceptron step (chapter 8)"
# What the student writes: absent from the library a graded notebook sees. The Perceptron (and the
# p-norm algorithm with p = 2) with its weights set to W N / eta takes the same step on a mistake, so
# they go too (tests/test_library_shortcut.py).
FORBIDDEN = [
    "onlinelib.learning_curves.normalized_perceptron_step",
    "onlinelib.learning_curves.simulate_normalized_perceptron",
    "onlinelib.learning_curves.simulation._simulate_full",
    "onlinelib.learning_curves.simulation._simulate_reduced",
    "onlinelib.learning_curves.NormalizedPerceptron",
    "onlinelib.learning_curves.NoiseRobustPerceptron",
    "onlinelib.learning_curves.one_step_drift",
    "onlinelib.Perceptron",
    "onlinelib.PNormPerceptron",
    "onlinelib._kernels",  # the compiled reduced simulation and the Perceptron's updates
]


def REFERENCE(W, S, label, eta):
    """The reference solution (Eq. 2): W' = W + (eta/N) eps y S, eps = 1 iff sgn(W.S) != y (sgn(0) = +1), then W'/|W'|.

    ``onlinelib.learning_curves.normalized_perceptron_step`` for one run, with its dot product and norm
    summed in a fixed order (``onlinelib.reproducible``), so the recorded public checks are the same
    bits on every CPU (``tests/test_reproducible.py``).
    """
    W = np.asarray(W, dtype=float)
    S = np.asarray(S, dtype=float)
    student = 1 if fixed_order_dot(W, S) >= 0 else -1
    if student != label:
        W = W + ((float(eta) / len(W)) * float(label)) * S
    return W / np.sqrt(fixed_order_squared_norms(W))


def _unit(v):
    return v / np.sqrt(fixed_order_squared_norms(v))


def cases():
    """Unit and non-unit W (the step starts from W itself; a correct prediction returns W/|W|), ties, N = 1.

    No case has the answer W itself, so returning the input earns nothing.
    """
    rng = course_rng("normalized_step/cases")
    out = []
    for N, eta in ((50, 0.5), (200, 3.0)):
        W = _unit(rng.normal(size=N))
        S = rng.normal(size=N)
        label = -1 if fixed_order_dot(W, S) >= 0 else 1
        out.append(checks.Case(f"a mistake, N = {N}, eta = {eta}", (W, S, label, eta)))
    W = 3.0 * _unit(rng.normal(size=30))
    out.append(checks.Case("a mistake with eta = 0 and |W| = 3: returns W/|W|", (W, -W, 1, 0.0)))
    out.append(checks.Case("N = 1, a mistake", (np.array([1.0]), np.array([2.0]), -1, 5.0)))
    e = np.eye(10)
    out.append(
        checks.Case("W . S = 0 and label +1, |W| != 1: correct, returns W/|W|", (2.5 * e[3] - 0.5 * e[5], e[7], 1, 1.0))
    )
    out.append(checks.Case("W . S = 0 and label -1: a mistake", (_unit(e[0] + e[1]), e[0] - e[1], -1, 4.0)))
    W = 0.37 * _unit(rng.normal(size=40))
    S = rng.normal(size=40)
    out.append(
        checks.Case(
            "|W| = 0.37, a correct prediction: returns W/|W|", (W, S, 1 if fixed_order_dot(W, S) >= 0 else -1, 2.0)
        )
    )
    W = 4.2 * _unit(rng.normal(size=25))
    S = rng.normal(size=25)
    out.append(
        checks.Case(
            "|W| = 4.2, a mistake: W + (eta/N) label S from W itself, then W'/|W'|",
            (W, S, -1 if fixed_order_dot(W, S) >= 0 else 1, 2.0),
        )
    )
    out.append(
        checks.Case(
            "N = 1, W = [-0.5], a correct prediction: returns [-1]", (np.array([-0.5]), np.array([3.0]), -1, 1.0)
        )
    )
    return out


def public_checks():
    """The notebook's public checks, recorded from the reference by `python -m booktools grade --write-public-checks`."""
    rng = np.random.default_rng(6)
    N = 20
    W = _unit(rng.normal(size=N))
    S = rng.normal(size=N)
    e1, e2 = np.eye(N)[0], np.eye(N)[1]
    wrong = -1 if fixed_order_dot(W, S) >= 0 else 1  # the label the student gets wrong
    return {
        "title": "Assignment 6, public checks",
        "cases": [
            checks.Case("a mistake, N = 20, eta = 1", (W, S, wrong, 1.0)),
            checks.Case("a correct prediction: no change", (W, S, -wrong, 1.0)),
            checks.Case("W . S = 0 and label -1: sgn(0) = +1 is a mistake", (e1, e2, -1, 2.0)),
        ],
    }


def grade(student) -> checks.GradeReport:
    """One point per case: every entry of the new W within 1e-9 (relative), W itself unchanged."""
    return checks.compare_functions(student, REFERENCE, cases(), read_only_arguments=READ_ONLY_ARGUMENTS, title=TITLE)
