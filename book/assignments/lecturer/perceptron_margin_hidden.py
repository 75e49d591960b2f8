"""Hidden tests of Assignment 8, a stream on which the Perceptron meets Novikoff's bound (chapter 3, Perceptron).

Lecturer edition only: the student-edition builder removes ``book/assignments/**/lecturer/``.
Run by ``python -m booktools grade SUBMISSIONS --assignment perceptron_margin --out scores.csv``.

A certificate assignment: the student's ``perceptron_stream(radius, margin, dim)`` returns
``(X, y, u)``, which ``onlinelib.certificates.verify_perceptron_stream`` checks exactly (radius,
separation, margin of u/||u||, all in rationals) before it replays the Perceptron and counts its
updates. A valid stream with U updates earns ``points * min(1, U / floor(R^2/gamma^2))``. Every
case has dim >= floor(R^2/gamma^2), so the orthogonal stream R e_1, ..., R e_k reaches the bound.
"""

import math
from fractions import Fraction

from booktools.grading import checks

FUNCTION = "perceptron_stream"
KIND = "certificate"  # FUNCTION returns an object, verified exactly
TITLE = "Assignment 8: a stream that meets Novikoff's bound (chapter 3)"
# The library's constructions of the tight stream: the fixed sequence R e_1, ..., R e_k with its
# separator, and the adversary that builds the same rows against any learner (its u is exact).
# The chapter's perceptron_stream(kind="lower bound") calls the first, so it fails with it.
FORBIDDEN = [
    "onlinelib.perceptron_lower_bound_stream",
    "onlinelib.margin_adversary",
]
MAX_ROUNDS = 1000


def REFERENCE(radius, margin, dim):
    """The lecturer's construction: R e_1, ..., R e_k labelled -1, u = -(e_1 + ... + e_k), k = floor(R^2/gamma^2).

    Every score is 0 when its row arrives, so every round is an update; u/||u|| has margin
    R/sqrt(k) >= gamma because k <= R^2/gamma^2.
    """
    radius, margin = Fraction(radius), Fraction(margin)
    k = math.floor(radius**2 / margin**2)
    if not 1 <= k <= dim:
        raise ValueError(f"the construction needs 1 <= floor(R^2/gamma^2) = {k} <= dim = {dim}")
    X = [[radius if j == i else Fraction(0) for j in range(dim)] for i in range(k)]
    return X, [-1] * k, [-1] * k + [0] * (dim - k)


def certificate(radius, margin, dim, points=1.0):
    """One instance of the problem; full points at Novikoff's bound floor(R^2/gamma^2)."""
    k = math.floor(Fraction(radius) ** 2 / Fraction(margin) ** 2)
    assert 1 <= k <= dim, (radius, margin, dim)
    return checks.Certificate(
        f"R = {radius}, gamma = {margin}, d = {dim} (bound floor(R^2/gamma^2) = {k})",
        args=(radius, margin, dim),
        verifier="perceptron_stream",
        params={"radius": radius, "margin": margin, "max_rounds": MAX_ROUNDS, "max_dim": dim},
        points=points,
    )


def cases():
    """Eight instances, other than the public ones: integer and fractional R and gamma, ratios that are
    integers (the margin met with equality) and ratios that are not, and d equal to the bound."""
    return [
        certificate(3, 1, 9),
        certificate(Fraction(5, 2), Fraction(1, 2), 30),
        certificate(1, Fraction(1, 4), 20),
        certificate(7, 2, 12),
        certificate(Fraction(10, 3), 1, 15),
        certificate(4, Fraction(4, 3), 9),
        certificate(Fraction(6, 5), Fraction(1, 5), 40),
        certificate(1, 1, 3),
    ]


def public_checks():
    """The notebook's public checks, recorded from the reference by `python -m booktools grade --write-public-checks`."""
    return {
        "title": "Assignment 8, public checks",
        "certificates": [certificate(2, 1, 4), certificate(Fraction(3, 2), Fraction(1, 2), 10)],
    }


def grade(student) -> checks.GradeReport:
    """Each instance's stream verified exactly: points * min(1, updates / floor(R^2/gamma^2)) for a valid stream."""
    return checks.verify_certificates(student, cases(), title=TITLE)
