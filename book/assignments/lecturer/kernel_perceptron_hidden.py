"""Hidden tests of Assignment 4, the kernel Perceptron (chapter 6, Boolean kernels).

Lecturer edition only: the student-edition builder removes ``book/assignments/**/lecturer/``.
Run by ``python -m booktools grade SUBMISSIONS --assignment kernel_perceptron --out scores.csv``.

Keyed instances (``booktools.grading.course_key``): the three random DNF streams, the Theorem 4 family and the
either-tie-rule stream, drawn by ``course_rng("kernel_perceptron/...")``, the DNF streams until each has a
score of 0 with the label +1; the two streams on n = 70 are hand-made.
"""

import numpy as np

import onlinelib as ol
from booktools.grading import checks
from booktools.grading.course_key import course_rng, draw_until

FUNCTION = "KernelPerceptronLearner"
KIND = "learner"  # FUNCTION builds a learner, which stays in the sandbox and is played round by round
TITLE = "Assignment 4: kernel Perceptron (chapter 6)"
# What the student writes: absent from the library a graded notebook sees (the kernels stay). The
# Perceptron (and the p-norm algorithm with p = 2, which is the Perceptron) over the kernel's explicit
# features is the kernel Perceptron where the features fit in memory (tests/test_library_shortcut.py).
FORBIDDEN = [
    "onlinelib.KernelPerceptron",
    "onlinelib.Perceptron",
    "onlinelib.PNormPerceptron",
    "onlinelib._kernels_boolean",  # the kernel Perceptron's compiled engine
]


def REFERENCE(n_features, kernel):
    """The reference solution: onlinelib's KernelPerceptron (predicts +1 iff the score is >= 0)."""
    return ol.KernelPerceptron(n_features, kernel)


def margin_rule_differs(n_features, kernel):
    """A condition on a stream (X, y): some round has a score of exactly 0 and the label +1.

    There the reference predicts +1 and is right, so it leaves M alone, while the primal margin rule
    (update when y * score <= 0) adds the example: the slip shows on every stream this holds of.
    """

    def condition(stream):
        reference = REFERENCE(n_features, kernel)
        margin = ol.KernelPerceptron(n_features, kernel, convention="margin")
        for x, label in zip(*stream, strict=True):
            reference.update(x, int(label))
            margin.update(x, int(label))
            if reference.n_updates != margin.n_updates:
                return True
        return False

    return condition


def dnf_stream(rng, n_features, kernel, terms, length, **options):
    """A random DNF stream (keyed) on which the primal margin rule slips (``margin_rule_differs``)."""
    return draw_until(
        rng,
        lambda rng: ol.monotone_dnf_stream(n_features, terms, length, rng, **options),
        margin_rule_differs(n_features, kernel),
        f"a DNF stream on {n_features} variables with a score of 0 and the label +1",
    )


def streams():
    """Six streams, one point each. Keyed (``course_rng``): the three random DNF streams, each drawn until it
    has a round with a score of 0 and the label +1, and the Theorem 4 family; the last two are hand-made."""
    rng = course_rng("kernel_perceptron/streams")
    out = []
    X, y = dnf_stream(rng, 8, ol.monotone_monomials(), [[0, 1, 2], [3, 4], [5, 6, 7]], 60)
    out.append(
        checks.Stream(
            "monotone DNF on 8 variables, monotone monomials",
            X,
            y,
            params={"n_features": 8, "kernel": ol.monotone_monomials()},
        )
    )
    X, y = dnf_stream(rng, 7, ol.all_conjunctions(), [[0, 6], [2]], 50, density=0.4)
    out.append(
        checks.Stream(
            "DNF on 7 variables, all conjunctions", X, y, params={"n_features": 7, "kernel": ol.all_conjunctions()}
        )
    )
    X, y = dnf_stream(rng, 9, ol.bounded_conjunctions(2), [[1, 2], [4, 8]], 60)
    out.append(
        checks.Stream(
            "DNF on 9 variables, conjunctions of at most 2 literals",
            X,
            y,
            params={"n_features": 9, "kernel": ol.bounded_conjunctions(2)},
        )
    )
    family = ol.constant_weight_family(16, 4, 1, 12, rng)
    X, y = ol.theorem4_stream(family)
    out.append(
        checks.Stream("Theorem 4 stream, n = 16", X, y, params={"n_features": 16, "kernel": ol.monotone_monomials()})
    )
    # n = 70: 2^70 does not fit in int64, so the scores must be exact Python ints.
    n = 70
    X = np.zeros((4, n), dtype=np.uint8)
    X[1] = 1
    X[2, :69] = 1
    X[3, :35] = 1
    y = np.array([-1, 1, -1, -1], dtype=np.int8)
    out.append(
        checks.Stream(
            "n = 70, kernel values beyond 2^63", X, y, params={"n_features": n, "kernel": ol.monotone_monomials()}
        )
    )
    X, y = float_rounding_stream()
    out.append(
        checks.Stream(
            "n = 70, a score of -1 that float sums round to 0 (+1)",
            X,
            y,
            params={"n_features": 70, "kernel": ol.monotone_monomials()},
        )
    )
    return out


def float_rounding_stream():
    """Four mistakes, then an instance x whose exact score is -2^58 + 2^59 - 1 - 2^58 = -1 (predict -1).

    M = [A (-1), B (+1), z (-1), C (-1)] with |A & x| = 58, |B & x| = 59, z disjoint from x and
    |C & x| = 58. Summed in floats in M's order, 2^58 - 1 rounds to 2^58 and the score to 0 (+1);
    in the reverse order -2^58 - 1 rounds to -2^58, and again 0; pairwise too. Only the exact
    Python-int sum (or math.fsum) gives -1. The kernel values stay below 2^63.
    """
    n = 70
    X = np.zeros((5, n), dtype=np.uint8)
    X[0, 0:58] = 1  # A: predicted +1 (score 0), labelled -1
    X[1, 0:59] = X[1, 60:70] = 1  # B: score -2^58, labelled +1
    X[2, 60:70] = 1  # z: score -1 + 2^10, labelled -1
    X[3, 1:59] = 1  # C: score -2^57 + 2^58 - 1, labelled -1
    X[4, 0:60] = 1  # x: score -1, labelled -1 (a correct prediction, no update)
    return X, np.array([-1, 1, -1, -1, -1], dtype=np.int8)


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
            checks.Stream("monotone DNF on 6 variables, random", X, y, params={"n_features": 6, "kernel": kernel}),
            checks.Stream("scores equal to 0", X_ties, y_ties, params={"n_features": 6, "kernel": kernel}),
        ],
    }


def positive_rule(n_features, kernel):
    """The kernel Perceptron with the other tie rule: +1 only for a score above 0 (not the assignment's)."""
    return ol.KernelPerceptron(n_features, kernel, convention="positive")


def either_tie_rule_stream() -> checks.Stream:
    """A stream for the dual-form update alone (issue 36, partial credit). Round 1 of every stream has
    M empty and a score of exactly 0, so the tie rule decides round 1 of every other stream, and a
    learner with "score > 0" differs from the reference there, whatever the stream. On this one a
    learner earns its point by matching the reference under either tie rule."""
    rng = course_rng("kernel_perceptron/either_tie_rule")
    X, y = dnf_stream(rng, 8, ol.monotone_monomials(), [[0, 1], [2, 5, 7]], 50)
    return checks.Stream(
        "monotone DNF on 8 variables, either tie rule",
        X,
        y,
        params={"n_features": 8, "kernel": ol.monotone_monomials()},
    )


def grade(student) -> checks.GradeReport:
    """One point per stream: predictions and |M| in every round; on the last stream either tie rule."""
    observe = {"n_updates": lambda learner: learner.n_updates}
    report = checks.compare_learners(student, REFERENCE, streams(), observe=observe, title=TITLE)
    either = checks.compare_learners(student, REFERENCE, [either_tie_rule_stream()], observe=observe)
    if not either.passed:
        other = checks.compare_learners(student, positive_rule, [either_tie_rule_stream()], observe=observe)
        either = other if other.passed else either
    return report + either
