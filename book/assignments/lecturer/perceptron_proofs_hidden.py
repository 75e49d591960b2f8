"""Hidden tests of Assignment 10, the Perceptron and Novikoff's theorem (chapter 3, Perceptron).

Lecturer edition only: the student-edition builder removes ``book/assignments/**/lecturer/``.
Run by ``python -m booktools grade SUBMISSIONS --assignment perceptron_proofs --out scores.csv``.

Two parts. ``PerceptronLearner`` (code) is played round by round against ``onlinelib.Perceptron``,
its weights and its number of updates compared after every round (one point per stream). The
proof of Novikoff's theorem (QUESTIONS) is graded by hand against the rubric below: each item has
0 / half / full descriptors and the common errors, and the question a model proof for the
markers. (Until issue 36 a part (b) asked for a stream meeting Novikoff's bound: that was
Assignment 8's task, which the chapter's own cell answers, and is gone.)

Keyed instances (``booktools.grading.course_key``): the five random streams, drawn by
``course_rng("perceptron_proofs/streams")`` until each has a score of 0 with the label +1
(``zero_score_positive``); the stream R e_1, ..., R e_16 is hand-made.
"""

import numpy as np

import onlinelib as ol
from booktools.grading import checks
from booktools.grading.course_key import course_rng, draw_until

PARTS = {"PerceptronLearner": "learner"}
TITLE = "Assignment 10: the Perceptron and Novikoff's theorem (chapter 3)"
# The Perceptron and what it is built from (the threshold-learner base classes, whose subclass needs
# only a three-line update, and the compiled scans); the p-norm algorithm with p = 2 is the
# Perceptron.
FORBIDDEN = [
    "onlinelib.Perceptron",
    "onlinelib.PNormPerceptron",
    "onlinelib.linear._ThresholdLearner",
    "onlinelib.linear._CompiledRule",
    "onlinelib._kernels",
]
NOVIKOFF_MODEL = r"""
Let $w_0 = 0$ and let $w_k$ be the weight vector after the $k$-th update. Rounds without an update
leave $w$ unchanged, so it suffices to follow $w$ from update to update. Suppose the $k$-th update
($k \ge 1$) happens on the example $(x, y)$; then $w_k = w_{k-1} + y x$ and, by the update rule,
$y\langle w_{k-1}, x\rangle \le 0$.

**Upper bound on the length.** Expanding the square and using $y^2 = 1$,

$$
\|w_k\|^2 = \|w_{k-1}\|^2 + 2y\langle w_{k-1}, x\rangle + \|x\|^2 \le \|w_{k-1}\|^2 + R^2 ,
$$

because the middle term is $\le 0$ by the update condition (a score of exactly $0$ is an update
too, on which the prediction $+1$ may be right, so the mistake alone would not cover it) and
$\|x\|^2 \le R^2$. From $\|w_0\|^2 = 0$, by induction, $\|w_k\|^2 \le k R^2$.

**Lower bound on the alignment.** By the margin hypothesis $y\langle w^*, x\rangle \ge \gamma$,

$$
\langle w^*, w_k\rangle = \langle w^*, w_{k-1}\rangle + y\langle w^*, x\rangle \ge \langle w^*, w_{k-1}\rangle + \gamma ,
$$

and from $\langle w^*, w_0\rangle = 0$, by induction, $\langle w^*, w_k\rangle \ge k\gamma$.

**Linking them.** By the Cauchy-Schwarz inequality and $\|w^*\| = 1$,
$\langle w^*, w_k\rangle \le \|w^*\|\,\|w_k\| = \|w_k\|$. Hence

$$
k\gamma \le \langle w^*, w_k\rangle \le \|w_k\| \le \sqrt{k}\,R .
$$

For $k = 0$ the claim $k \le R^2/\gamma^2$ holds trivially. For $k \ge 1$ divide by
$\sqrt k > 0$: $\sqrt k\,\gamma \le R$, and squaring (both sides are nonnegative) gives
$k \le R^2/\gamma^2$.

The bound holds after every round, so the total number of updates is at most $R^2/\gamma^2$.
Every mistake is an update: a wrong prediction means $y\langle w, x\rangle \le 0$ (if
$\langle w, x\rangle > 0$ the prediction $+1$ is wrong only for $y = -1$; if
$\langle w, x\rangle < 0$ the prediction $-1$ is wrong only for $y = +1$; if
$\langle w, x\rangle = 0$ the product is $0$). So the mistakes are at most $R^2/\gamma^2$ too.
"""
QUESTIONS = [
    {
        "id": "novikoff",
        "title": "Novikoff's theorem: at most R^2/gamma^2 updates",
        "items": [
            {
                "id": "potential",
                "points": 1,
                "text": "||w_k||^2 <= k R^2, from the update condition and ||x|| <= R",
                "full": "Writes ||w_k||^2 = ||w_{k-1} + y x||^2 = ||w_{k-1}||^2 + 2y<w_{k-1}, x> + ||x||^2 (the "
                "square expanded), drops the cross term by the update condition y<w_{k-1}, x> <= 0 (the "
                "condition under which the update happens, not 'the prediction was wrong'), bounds ||x||^2 "
                "by R^2, and concludes ||w_k||^2 <= k R^2 by induction from w_0 = 0.",
                "half": "The square is expanded and ||w_k||^2 <= ||w_{k-1}||^2 + R^2 reached, but exactly one "
                "justification is missing or wrong: the cross term dropped 'because the prediction was "
                "wrong' or with no reason, or ||x||^2 <= R^2 not invoked, or the induction (with its start "
                "w_0 = 0) not done.",
                "zero": "No upper bound on ||w_k||; or ||w_k||^2 <= ||w_{k-1}||^2 + R^2 (or <= k R^2) asserted "
                "without expanding the square, whatever reason is given; or two or more of the "
                "justifications above missing or wrong; or a bound that does not give k R^2.",
                "errors": [
                    "Argues from the mistake ('the prediction was wrong, so y<w, x> < 0') instead of the update "
                    "condition y<w, x> <= 0: a score of exactly 0 is an update even when the prediction +1 is "
                    "right, so the argument misses those updates. At most half.",
                    "States ||w_{k+1}||^2 <= ||w_k||^2 + R^2 without the expansion ||w + yx||^2 = ||w||^2 + "
                    "2y<w, x> + ||x||^2: nothing shows where the cross term goes or where ||x|| <= R enters. "
                    "Zero, even when a reason such as the mistake or the radius is named.",
                    "Uses the triangle inequality ||w + yx|| <= ||w|| + ||x||, which gives only ||w_k|| <= kR "
                    "and then k gamma <= kR, no bound on k. Zero.",
                    "Gives the cross term the wrong sign ('2y<w, x> >= 0, so it can be dropped'). At most half.",
                    "Bounds ||x|| by R but writes ||x||^2 <= R (or forgets the square in kR^2). At most half.",
                ],
            },
            {
                "id": "alignment",
                "points": 1,
                "text": "<w*, w_k> >= k gamma, from the margin",
                "full": "Computes <w*, w_k> = <w*, w_{k-1}> + y<w*, x> from the update, bounds y<w*, x> >= gamma "
                "by the margin hypothesis (naming it), and concludes <w*, w_k> >= k gamma by induction from "
                "<w*, w_0> = 0.",
                "half": "The per-update gain of at least gamma is stated (e.g. 'w moves towards w* by at least "
                "gamma') but not computed from the update rule, or it is computed but the induction to "
                "k gamma (or its start at 0) is missing, or the margin is used without the label y.",
                "zero": "No lower bound on <w*, w_k>, or one that does not follow: from the margin of w_{k-1} "
                "instead of w*, from ||w_k|| growing, or with the inequality reversed.",
                "errors": [
                    "Uses the margin of the current weights (y<w_{k-1}, x> >= gamma) instead of the separator "
                    "w*'s. Zero.",
                    "Uses |<w*, x>| >= gamma without the label y, so the sign of the gain is not justified. At "
                    "most half.",
                    "Counts rounds instead of updates (<w*, w_t> >= t gamma after t rounds: false when a round "
                    "has no update). At most half.",
                ],
            },
            {
                "id": "cauchy_schwarz",
                "points": 1,
                "text": "<w*, w_k> <= ||w*|| ||w_k|| = ||w_k||, Cauchy-Schwarz in the right direction",
                "full": "Applies Cauchy-Schwarz as <w*, w_k> <= ||w*|| ||w_k||, uses ||w*|| = 1 to get "
                "<w*, w_k> <= ||w_k||, and chains k gamma <= <w*, w_k> <= ||w_k||.",
                "half": "The inequality <w*, w_k> <= ||w_k|| is used in the right direction but ||w*|| = 1 is "
                "not mentioned (the factor ||w*|| silently dropped), or it is used without naming "
                "Cauchy-Schwarz or any other reason.",
                "zero": "No link between the alignment and the length; or the inequality reversed "
                "(||w_k|| <= <w*, w_k>); or w_k assumed parallel to w* or of unit length.",
                "errors": [
                    "Reverses Cauchy-Schwarz (||w_k|| <= <w*, w_k>, or bounds the length by the alignment). Zero.",
                    "Drops ||w*|| without saying that w* is a unit vector. At most half.",
                    "Assumes the angle between w_k and w* is known or small ('w_k points towards w*'). Zero.",
                ],
            },
            {
                "id": "combine",
                "points": 1,
                "text": "k gamma <= sqrt(k) R gives k <= R^2/gamma^2; updates, rounds and mistakes",
                "full": "Chains k gamma <= ||w_k|| <= sqrt(k) R, treats k = 0 apart (or squares to k^2 gamma^2 <= "
                "k R^2 and divides by k >= 1), and concludes k <= R^2/gamma^2; says that rounds without an "
                "update leave w unchanged (so the induction runs over updates and the bound holds at any "
                "time) and that every mistake is an update, so the mistakes are at most R^2/gamma^2.",
                "half": "k <= R^2/gamma^2 correctly derived from the three bounds, but one or more of these is "
                "missing: the case k = 0 (a division by sqrt(k) or k with k = 0 allowed), the rounds "
                "without an update, the step from updates to mistakes.",
                "zero": "k <= R^2/gamma^2 asserted without deriving it from the bounds, or an algebra error in "
                "the derivation (k <= R/gamma, k <= R^2/gamma, squaring an inequality between numbers of "
                "unknown sign).",
                "errors": [
                    "Divides k gamma <= sqrt(k) R by sqrt(k) (or k^2 gamma^2 <= k R^2 by k) without excluding "
                    "k = 0. At most half.",
                    "Forgets to square: k <= R/gamma. Zero.",
                    "Says nothing about mistakes, or claims updates <= mistakes (the wrong direction: a score "
                    "of 0 with label +1 is an update without a mistake). At most half.",
                    "Asserts the conclusion after the two bounds ('so the number of updates is bounded by "
                    "R^2/gamma^2') without the chain. Zero.",
                ],
            },
        ],
        "model": NOVIKOFF_MODEL,
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


REFERENCE = {"PerceptronLearner": ReferencePerceptron}
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


def zero_score_positive(stream) -> bool:
    """True if some round of (X, y) gives the reference a score of exactly 0 with the label +1.

    There the reference predicts +1, is right, and still updates (y <w, x> <= 0): a learner that
    updates only on its mistakes slips there (the recorded grading example's Ben), and a stream
    without such a round would give it the point.
    """
    X, y = stream
    w = np.zeros(X.shape[1])
    for x, label in zip(X, y, strict=True):
        score = float(np.dot(w, x))
        if score == 0 and label == 1:
            return True
        if label * score <= 0:
            w = w + label * x
    return False


def separable(d, length, margin, **options):
    return lambda rng: ol.separable_stream(d, length, margin, rng, **options)[:2]


def random_labels(rng):
    X = rng.normal(size=(150, 5))
    return X, np.where(rng.random(150) < 0.5, 1, -1).astype(np.int8)


def zero_rows(rng):
    X = rng.integers(-2, 3, size=(40, 4)).astype(np.float64)
    X[::5] = 0.0  # the zero vector: score 0, an update that leaves w as it is
    return X, np.where(rng.random(40) < 0.5, 1, -1).astype(np.int8)


def streams():
    """Six streams: random separable, integer (many exact ties), the tight sequence, noisy labels, zero rows.

    The five random ones are keyed, each drawn until it has a score of 0 with the label +1
    (``zero_score_positive``); the tight sequence has none (every label is -1).
    """
    rng = course_rng("perceptron_proofs/streams")

    def keyed(draw, what):
        return draw_until(rng, draw, zero_score_positive, f"{what} with a score of 0 and the label +1")

    out = []
    X, y = keyed(separable(8, 300, 0.1), "a separable stream")
    out.append(checks.Stream("separable, d = 8, margin 0.1, 300 rounds", X, y, params={"n_features": 8}))
    X, y = keyed(separable(3, 200, 0.05, radius=5.0), "a separable stream")
    out.append(checks.Stream("separable, d = 3, radius 5, 200 rounds", X, y, params={"n_features": 3}))
    X, y = keyed(lambda rng: integer_stream(6, 200, rng), "an integer stream")
    out.append(checks.Stream("integer instances, d = 6, exact ties", X, y, params={"n_features": 6}))
    X, y, _ = ol.perceptron_lower_bound_stream(0.25, 1.0)
    out.append(checks.Stream("R e_1, ..., R e_16 labelled -1 (every score 0)", X, y, params={"n_features": 16}))
    X, y = keyed(random_labels, "a stream of random labels")
    out.append(checks.Stream("random labels (not separable), d = 5", X, y, params={"n_features": 5}))
    X, y = keyed(zero_rows, "a stream with zero rows")
    out.append(checks.Stream("zero rows among integer rows, d = 4", X, y, params={"n_features": 4}))
    return out


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
    }


def grade(student) -> checks.GradeReport:
    """(a) the learner against the reference, weights and n_updates in every round (one point per stream)."""
    return checks.compare_learners(
        student["PerceptronLearner"], REFERENCE["PerceptronLearner"], streams(), observe=STATE, title=TITLE
    )
