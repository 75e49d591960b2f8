"""Hidden tests of Assignment 10, the Perceptron and Novikoff's theorem (chapter 3, Perceptron).

Lecturer edition only: the student-edition builder removes ``book/assignments/**/lecturer/``.
Run by ``python -m booktools grade SUBMISSIONS --assignment perceptron_proofs --out scores.csv``.

Three parts. ``PerceptronLearner`` (code) is played round by round against ``onlinelib.Perceptron``,
its weights and its number of updates compared after every round (one point per stream).
``perceptron_stream`` (a certificate) is verified exactly by
``onlinelib.certificates.verify_perceptron_stream``: full points at floor(R^2/gamma^2) updates.
The proof of Novikoff's theorem (QUESTIONS) is graded by hand against the rubric below.
"""

from fractions import Fraction
from pathlib import Path

import numpy as np

import onlinelib as ol
from booktools.grading import checks
from booktools.grading.hidden import load_hidden

PARTS = {"PerceptronLearner": "learner", "perceptron_stream": "certificate"}
TITLE = "Assignment 10: the Perceptron and Novikoff's theorem (chapter 3)"
# The Perceptron and what it is built from (the threshold-learner base classes, whose subclass needs
# only a three-line update, and the compiled scans); the p-norm algorithm with p = 2 is the
# Perceptron. The tight stream's two constructions go too (Assignment 8 forbids the same).
FORBIDDEN = [
    "onlinelib.Perceptron",
    "onlinelib.PNormPerceptron",
    "onlinelib.linear._ThresholdLearner",
    "onlinelib.linear._CompiledRule",
    "onlinelib._kernels",
    "onlinelib.perceptron_lower_bound_stream",
    "onlinelib.margin_adversary",
]
QUESTIONS = [
    {
        "id": "novikoff",
        "title": "Novikoff's theorem: at most R^2/gamma^2 updates",
        "items": [
            (
                "potential",
                "Shows ||w_k||^2 <= ||w_{k-1}||^2 + R^2 from the update condition y <w_{k-1}, x> <= 0 and "
                "||x|| <= R (expanding the square), hence ||w_k||^2 <= k R^2 by induction from w_0 = 0.",
                1,
            ),
            (
                "alignment",
                "Shows <w*, w_k> >= <w*, w_{k-1}> + gamma from the margin condition, hence <w*, w_k> >= k gamma.",
                1,
            ),
            (
                "cauchy_schwarz",
                "Bounds the alignment by the length, <w*, w_k> <= ||w*|| ||w_k|| = ||w_k|| (Cauchy-Schwarz and "
                "||w*|| = 1), and uses it in the right direction.",
                1,
            ),
            (
                "combine",
                "Combines the three into k gamma <= sqrt(k) R, so k <= R^2/gamma^2; the induction runs over "
                "updates (rounds without an update change nothing), and mistakes are at most updates.",
                1,
            ),
        ],
    }
]


class ReferencePerceptron:
    """The book's Perceptron as the hidden tests see it: onlinelib.Perceptron with weights and n_updates."""

    def __init__(self, n_features):
        self._learner = ol.Perceptron(n_features)

    @property
    def weights(self):
        return self._learner.weights.copy()

    @property
    def n_updates(self):
        return self._learner.n_updates

    def predict(self, x):
        return self._learner.predict(x)

    def update(self, x, y):
        self._learner.update(x, y)


# Assignment 8's hidden file, beside this one (lecturer material too): its construction, and its
# instances (full points at floor(R^2/gamma^2)).
_ASSIGNMENT_8 = load_hidden(Path(__file__).with_name("perceptron_margin_hidden.py"))
reference_stream = _ASSIGNMENT_8.REFERENCE
certificate = _ASSIGNMENT_8.certificate


REFERENCE = {"PerceptronLearner": ReferencePerceptron, "perceptron_stream": reference_stream}
STATE = {"weights": lambda learner: learner.weights, "n_updates": lambda learner: learner.n_updates}


def integer_stream(n_features, length, rng, max_weight=2):
    """Instances in {-1, 0, 1}^d labelled by an integer separator: every score is an exact integer, so
    scores of exactly 0 (an update whatever the label) come often."""
    v = np.zeros(n_features, dtype=np.int64)
    while not v.any():
        v = rng.integers(-max_weight, max_weight + 1, size=n_features)
    X = rng.integers(-1, 2, size=(4 * length, n_features))
    X = X[X @ v != 0][:length]
    return X.astype(np.float64), np.where(X @ v > 0, 1, -1).astype(np.int8)


def streams():
    """Six streams: random separable, integer (many exact ties), the tight sequence, noisy labels, zero rows."""
    rng = np.random.default_rng(20261010)
    out = []
    X, y, _ = ol.separable_stream(8, 300, 0.1, rng)
    out.append(checks.Stream("separable, d = 8, margin 0.1, 300 rounds", X, y, params={"n_features": 8}))
    X, y, _ = ol.separable_stream(3, 200, 0.05, rng, radius=5.0)
    out.append(checks.Stream("separable, d = 3, radius 5, 200 rounds", X, y, params={"n_features": 3}))
    X, y = integer_stream(6, 200, rng)
    out.append(checks.Stream("integer instances, d = 6, exact ties", X, y, params={"n_features": 6}))
    X, y, _ = ol.perceptron_lower_bound_stream(0.25, 1.0)
    out.append(checks.Stream("R e_1, ..., R e_16 labelled -1 (every score 0)", X, y, params={"n_features": 16}))
    X = rng.normal(size=(150, 5))
    y = np.where(rng.random(150) < 0.5, 1, -1).astype(np.int8)
    out.append(checks.Stream("random labels (not separable), d = 5", X, y, params={"n_features": 5}))
    X = rng.integers(-2, 3, size=(40, 4)).astype(np.float64)
    X[::5] = 0.0  # the zero vector: score 0, an update that leaves w as it is
    y = np.where(rng.random(40) < 0.5, 1, -1).astype(np.int8)
    out.append(checks.Stream("zero rows among integer rows, d = 4", X, y, params={"n_features": 4}))
    return out


def certificates():
    """Four instances, other than the public one: integer and fractional R and gamma, d equal to the bound."""
    return [
        certificate(2, Fraction(1, 2), 20),
        certificate(Fraction(7, 3), 1, 8),
        certificate(5, 2, 6),
        certificate(Fraction(3, 4), Fraction(1, 4), 9),
    ]


def public_checks():
    """The notebook's public checks, one section per part, recorded by `python -m booktools grade --write-public-checks`."""
    rng = np.random.default_rng(10)
    X, y, _ = ol.separable_stream(4, 60, 0.1, rng)
    X_ties = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [-1.0, 1.0], [1.0, 1.0], [2.0, -1.0]])
    y_ties = np.array([-1, 1, 1, -1, 1, 1], dtype=np.int8)
    return {
        "PerceptronLearner": {
            "title": "Assignment 10 (a), public checks",
            "observe": {"weights": "weights", "n_updates": "n_updates"},
            "streams": [
                checks.Stream("separable, d = 4, 60 rounds", X, y, params={"n_features": 4}),
                checks.Stream("scores equal to 0", X_ties, y_ties, params={"n_features": 2}),
            ],
        },
        "perceptron_stream": {
            "title": "Assignment 10 (b), public checks",
            "certificates": [certificate(3, 1, 10), certificate(Fraction(5, 3), Fraction(1, 2), 12)],
        },
    }


def grade(student) -> checks.GradeReport:
    """(a) the learner against the reference, weights and n_updates in every round; (b) the streams verified."""
    learner = checks.compare_learners(
        student["PerceptronLearner"], REFERENCE["PerceptronLearner"], streams(), observe=STATE, title=TITLE
    )
    return learner + checks.verify_certificates(student["perceptron_stream"], certificates())
