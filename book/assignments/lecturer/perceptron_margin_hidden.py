"""Hidden tests of Assignment 8, many Perceptron updates in the plane (chapter 3, Perceptron).

Lecturer edition only: the student-edition builder removes ``book/assignments/**/lecturer/``.
Run by ``python -m booktools grade SUBMISSIONS --assignment perceptron_margin --out scores.csv``.

A certificate assignment: the student's ``perceptron_plane_stream(radius, margin)`` returns
``(X, y, u)`` with rows and u of at most two coordinates, which
``onlinelib.certificates.verify_perceptron_stream`` checks exactly (radius, separation, margin of
u/||u||, at most ``max_dim = 2`` coordinates) before it replays the Perceptron and counts its
updates U. A valid stream earns ``points * min(1, U / target)``, ``target = ceil(R^2 / (2 gamma^2))``
(:func:`plane_optimum`): the most updates a stream of rationals in the plane allows, so full
points mean an optimal stream. The chapter's stream R e_1, ..., R e_k needs k = floor(R^2/gamma^2)
coordinates: in the plane it is refused (k > 2) or makes at most 2 updates.

Why the target is the optimum (the proof, for the lecturer; the notebook states the result and
the invariant). Write z_t = y_t x_t: the Perceptron updates iff <w, z_t> <= 0 and then adds z_t,
and rows without an update change nothing, so only the update rows z_1, ..., z_N matter. Let
u^ = u/||u|| and v a unit vector orthogonal to it; z_j = p_j u^ + q_j v with p_j >= gamma (the
margin) and p_j^2 + q_j^2 <= R^2, so |q_j| <= S = sqrt(R^2 - gamma^2). After j updates
w_j = A_j u^ + B_j v with A_j >= j gamma; let b_j = |B_j|.

* Update j + 1 (j >= 1) needs A_j p + B_j q <= 0, so B_j q <= -j gamma^2 < 0: q has the sign
  opposite to B_j and b_j |q| >= j gamma^2, hence b_j >= j gamma^2 / S.
* Invariant: b_j <= S - (j - 1) gamma^2 / S. True for j = 1 (b_1 = |q_1| <= S). If the update
  flips the sign of B, b_{j+1} = |q| - b_j <= S - j gamma^2 / S; if not, b_{j+1} = b_j - |q| <=
  b_j - j gamma^2 / b_j <= b_j - j gamma^2 / S (as b_j <= S).
* So update j + 1 needs j gamma^2 / S <= S - (j - 1) gamma^2 / S, i.e. 2 j gamma^2 <= R^2:
  N - 1 <= R^2 / (2 gamma^2), N <= floor(R^2 / (2 gamma^2)) + 1 (the real optimum).
* When r = R^2/gamma^2 is an even integer, the last of these updates (j = r/2) needs equality all
  along, in particular |q_{j+1}| = S with p_{j+1} = gamma: <u, z> = gamma ||u|| makes ||u|| rational
  (u, z rational), then S = |det(u, z)| / ||u|| is rational, and r - 1 = (S/gamma)^2 and r =
  (R/gamma)^2 are squares of rationals that are integers, hence of integers, whose difference is 1:
  r = 1, not even. So with rationals N <= r/2 there. Both cases: N <= ceil(r/2).
* Reached by :func:`REFERENCE`: p = gamma, |q| = Q rational with (2n - 1) gamma^2 <= Q^2 <=
  R^2 - gamma^2 (n = ceil(r/2) - 1; the interval is not empty because 2n <= r, and has positive
  length unless both ends coincide, which needs r = 2n, excluded above), B alternating between
  b_1 and b_1 - Q with b_1 chosen so that both signs of B stay large enough.

``tests/test_certificate_assignments.py`` checks the target on every case (the reference reaches
it) and, independently of this proof, that no stream of grid points in the plane exceeds it.

Keyed instances: none. The radii and margins are written out here and are the same under every course key, so
whoever reads this file knows them: keep it in a private folder (``--hidden-dir``) if that matters.
"""

import math
from fractions import Fraction

from booktools.grading import checks

FUNCTION = "perceptron_plane_stream"
KIND = "certificate"  # FUNCTION returns an object, verified exactly
TITLE = "Assignment 8: many Perceptron updates in the plane (chapter 3)"
# The library's constructions of the chapter's tight stream: the fixed sequence R e_1, ..., R e_k
# and the adversary that builds the same rows. Neither solves the plane (they need k coordinates),
# and a notebook that hands them in gets a refused stream; they are removed so that the notebook
# text's promise ("write the construction yourself") holds for every construction the library has.
FORBIDDEN = [
    "onlinelib.perceptron_lower_bound_stream",
    "onlinelib.margin_adversary",
]
MAX_ROUNDS = 1000
DIM = 2


def plane_optimum(radius, margin) -> int:
    """ceil(R^2 / (2 gamma^2)): the most Perceptron updates a stream of rationals in the plane allows.

    Chapter 3 (Perceptron), Novikoff's theorem restricted to two dimensions; the proof is in the
    module's docstring. Exact: R and gamma are ints or Fractions with 0 < gamma <= R.
    """
    radius, margin = _checked(radius, margin)
    return math.ceil(radius**2 / (2 * margin**2))


def _checked(radius, margin) -> tuple[Fraction, Fraction]:
    for name, value in (("radius", radius), ("margin", margin)):
        if isinstance(value, bool) or not isinstance(value, int | Fraction):
            raise TypeError(f"{name} must be a positive int or Fraction, got {type(value).__name__} {value!r}")
    radius, margin = Fraction(radius), Fraction(margin)
    if not 0 < margin <= radius:
        raise ValueError(
            f"radius and margin must satisfy 0 < margin <= radius, got radius = {radius}, margin = {margin}"
        )
    return radius, margin


def _rational_root_between(low, high) -> Fraction:
    """A rational Q >= 0 with low <= Q^2 <= high (0 <= low <= high, rationals, low < high unless both 0)."""
    if high == 0:
        return Fraction(0)
    scale = 1
    while True:  # floor(sqrt(high) * scale) / scale is at most sqrt(high) and tends to it
        q = Fraction(math.isqrt(high.numerator * scale * scale // high.denominator), scale)
        if q * q >= low:
            return q
        scale *= 2


def REFERENCE(radius, margin):
    """The lecturer's stream: ceil(R^2/(2 gamma^2)) updates in the plane, in exact rationals.

    u = (1, 0); every row is (gamma, q) labelled +1, the first with q = b_1 and then q = -Q, +Q, ...
    so that B (the second coordinate of w) alternates between b_1 > 0 and b_1 - Q < 0. Update j + 1
    needs |B_j| Q >= j gamma^2 (the first coordinate of w_j is j gamma), met by b_1 >= j_odd gamma^2 / Q
    and Q - b_1 >= j_even gamma^2 / Q, the largest odd and even j <= n; both hold when
    (2n - 1) gamma^2 <= Q^2, and Q^2 <= R^2 - gamma^2 keeps every row in the radius.
    """
    radius, margin = _checked(radius, margin)
    n = plane_optimum(radius, margin) - 1  # updates after the first
    g2 = margin * margin
    if n == 0:
        return [[margin, Fraction(0)]], [1], [1, 0]
    q = _rational_root_between((2 * n - 1) * g2, radius * radius - g2)
    largest_odd = n if n % 2 else n - 1
    first = largest_odd * g2 / q
    rows, b = [[margin, first]], first
    for _ in range(n):
        step = -q if b > 0 else q
        rows.append([margin, step])
        b += step
    return rows, [1] * len(rows), [1, 0]


def certificate(radius, margin, points=1.0):
    """One instance of the problem; full points at the plane's optimum ceil(R^2/(2 gamma^2))."""
    target = plane_optimum(radius, margin)
    return checks.Certificate(
        f"R = {radius}, gamma = {margin}, in the plane (R^2/gamma^2 = {Fraction(radius) ** 2 / Fraction(margin) ** 2}, "
        f"full points at N* = {target})",
        args=(radius, margin),
        verifier="perceptron_stream",
        params={"radius": radius, "margin": margin, "max_rounds": MAX_ROUNDS, "max_dim": DIM},
        target=target,
        points=points,
    )


def cases():
    """Eight instances, other than the public ones: R^2/gamma^2 an even integer (the real optimum one
    more, at an irrational point), an odd integer, not an integer, at most 2 (one or two updates), and
    one with 200 updates; integer and fractional R and gamma."""
    return [
        certificate(4, 1),  # 16: 8 (the real optimum 9 needs (1, sqrt 15))
        certificate(Fraction(7, 2), Fraction(1, 2)),  # 49: 25
        certificate(7, 2),  # 49/4: 7
        certificate(Fraction(10, 3), 1),  # 100/9: 6
        certificate(1, Fraction(1, 6)),  # 36: 18
        certificate(Fraction(5, 4), 1),  # 25/16: 1
        certificate(2, Fraction(3, 2)),  # 16/9: 1
        certificate(20, 1),  # 400: 200
    ]


def public_checks():
    """The notebook's public checks, recorded from the reference (see the brief's recipe)."""
    return {
        "title": "Assignment 8, public checks",
        "certificates": [certificate(3, 1), certificate(2, 1), certificate(Fraction(5, 2), Fraction(2, 3))],
    }


def grade(student) -> checks.GradeReport:
    """Each instance's stream verified exactly: points * min(1, updates / ceil(R^2/(2 gamma^2)))."""
    return checks.verify_certificates(student, cases(), title=TITLE)
