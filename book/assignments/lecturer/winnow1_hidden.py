"""Hidden tests of Assignment 2, Winnow1 and its lemmas (chapter 2, Winnow1).

Lecturer edition only: the student-edition builder removes ``book/assignments/**/lecturer/``.
Run by ``python -m booktools grade SUBMISSIONS --assignment winnow1 --out scores.csv``.

Seven streams compared round by round with ``onlinelib.Winnow1`` (weights, promotions,
eliminations): one point each. Then the chapter's lemmas measured on the student's own learner,
one point per stream, counted only on a stream where the learner made the reference's mistakes
and its promotions and eliminations (the proof's u and v) in every round: a bound that a learner
meets by doing nothing (weights all 1, u = v = 0) earns nothing on its own.
"""

import math

import numpy as np

import onlinelib as ol
from booktools.grading import checks

FUNCTION = "Winnow1Learner"
KIND = "learner"  # FUNCTION builds a learner, which stays in the sandbox and is played round by round
TITLE = "Assignment 2: Winnow1 (chapter 2)"
# What the student writes (Winnow1 and what it is built from): absent from the library a graded notebook sees.
FORBIDDEN = [
    "onlinelib.Winnow1",
    "onlinelib.Winnow2",
    "onlinelib.linear._Winnow",
    "onlinelib.linear._ThresholdLearner",
    "onlinelib.linear._CompiledRule",
    "onlinelib._kernels",  # the compiled scans and updates of Winnow1, Winnow2 and the Perceptron
]


def REFERENCE(n, theta=None):
    """The reference solution: onlinelib's Winnow1 (attributes weights, promotions, eliminations)."""
    return ol.Winnow1(n, theta)


STATE = {
    "weights": lambda learner: learner.weights,
    "promotions": lambda learner: learner.promotions,
    "eliminations": lambda learner: learner.eliminations,
}
COUNTERS = {key: STATE[key] for key in ("promotions", "eliminations")}


def streams():
    rng = np.random.default_rng(20260202)
    out = []
    X, y, rel = ol.disjunction_stream(32, 3, 200, rng)
    out.append(checks.Stream("n = 32, k = 3, random", X, y, params={"n": 32}, info={"relevant": rel}))
    X, y, rel = ol.disjunction_stream(20, 1, 120, rng, active=6)
    out.append(checks.Stream("n = 20, k = 1, six active bits", X, y, params={"n": 20}, info={"relevant": rel}))
    X, y, rel = ol.disjunction_stream(24, 4, 150, rng)
    out.append(checks.Stream("n = 24, k = 4, theta = 3", X, y, params={"n": 24, "theta": 3}, info={"relevant": rel}))
    X, y, rel = ol.winnow1_promotion_adversary(32, 3)
    out.append(checks.Stream("n = 32, k = 3, promotion adversary", X, y, params={"n": 32}, info={"relevant": rel}))
    # Ties: the score equals theta exactly (theta = 4, four active weights of 1) and must predict -1.
    n = 16
    X = np.zeros((6, n), dtype=np.uint8)
    X[0, :4] = 1
    X[1, 4:8] = 1
    X[2, [0, 9]] = 1
    X[3, :4] = 1
    X[4, 9] = 1
    X[5, 10:14] = 1
    y = np.array([-1, -1, 1, -1, 1, -1], dtype=np.int8)
    out.append(
        checks.Stream(
            "n = 16, theta = 4, scores equal to theta",
            X,
            y,
            params={"n": n, "theta": 4},
            info={"relevant": np.array([9])},
        )
    )
    # n odd: the default theta = n/2 = 17.5 is not an integer. Scores are integers (weights are 0 or
    # powers of 2), so a score of 18 is +1 here and -1 for a threshold rounded up to 18.
    X, y, rel = ol.disjunction_stream(35, 2, 60, rng, active=18)
    out.append(
        checks.Stream(
            "n = 35 (odd), default theta = 17.5, 18 active bits", X, y, params={"n": 35}, info={"relevant": rel}
        )
    )
    # A threshold that is not an integer, given explicitly: scores of 3 are +1 (3 > 2.5).
    X, y, rel = ol.disjunction_stream(12, 2, 60, rng, active=3)
    out.append(
        checks.Stream(
            "n = 12, k = 2, theta = 2.5 (not an integer), three active bits",
            X,
            y,
            params={"n": 12, "theta": 2.5},
            info={"relevant": rel},
        )
    )
    return out


def _theta(stream):
    return stream.params.get("theta", stream.params["n"] / 2)


def weight_budget(learner, stream):
    """Lemma (weight budget): W_t <= n + (u_t - v_t) theta."""
    return float(np.sum(learner.weights)), stream.params["n"] + (learner.promotions - learner.eliminations) * _theta(
        stream
    )


def nonnegative(learner, stream):
    return 0.0, float(np.min(learner.weights))


def largest_weight(learner, stream):
    """Lemma (largest weight): w_i <= max(1, 2 theta)."""
    return float(np.max(learner.weights)), max(1.0, 2 * _theta(stream))


def relevant_weights(learner, stream):
    """Lemma (relevant weights): sum over relevant i of lg w_i >= u (so no relevant weight is zeroed)."""
    w = np.asarray(learner.weights, dtype=float)[stream.info["relevant"]]
    total = -math.inf if (w <= 0).any() else float(np.sum(np.log2(w)))
    return float(learner.promotions), total


def promotion_bound(learner, stream):
    """Theorem (Winnow1): u <= k (lg theta + 1)."""
    k = len(stream.info["relevant"])
    return float(learner.promotions), k * (math.log2(_theta(stream)) + 1)


BOUNDS = {
    "Lemma (weight budget): W <= n + (u - v) theta": weight_budget,
    "weights stay >= 0": nonnegative,
    "Lemma (largest weight): w_i <= max(1, 2 theta)": largest_weight,
    "Lemma (relevant weights): sum of lg w_i over relevant i >= u": relevant_weights,
    "Theorem: u <= k (lg theta + 1)": promotion_bound,
}


def public_checks():
    """The notebook's public checks, recorded from the reference by `python -m booktools grade --write-public-checks`."""
    rng = np.random.default_rng(2)
    X, y, relevant = ol.disjunction_stream(16, 2, 60, rng)
    X_adv, y_adv, relevant_adv = ol.winnow1_promotion_adversary(16, 2)
    return {
        "title": "Assignment 2, public checks",
        "observe": {"weights": "weights", "promotions": "promotions", "eliminations": "eliminations"},
        "streams": [
            checks.Stream("n = 16, k = 2, random stream", X, y, params={"n": 16}),
            checks.Stream("n = 16, k = 2, promotion adversary", X_adv, y_adv, params={"n": 16}),
        ],
    }


class _ReadOncePerRound:
    """The student's learner, each attribute read at most once between two updates.

    The five bounds read ``weights`` four times and ``promotions`` three times after every round;
    in the grader each read is a request to the student's sandbox, so this saves more than half of
    the bounds' requests (a third of the whole grade's).
    """

    def __init__(self, learner):
        self._learner, self._seen = learner, {}

    def predict(self, x):
        return self._learner.predict(x)

    def update(self, x, y):
        self._seen.clear()
        return self._learner.update(x, y)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        if name not in self._seen:
            self._seen[name] = getattr(self._learner, name)
        return self._seen[name]


def _lemmas(student, stream, agreed, report):
    """The lemmas on one stream, counted only where the learner made the reference's mistakes and counts.

    ``agreed`` is the stream's agreement check: if it passed, so does the gate. Otherwise the
    learner is played again, its predictions, promotions and eliminations compared with the
    reference's; where they differ, the lemmas are not measured and earn nothing.
    """
    name = f"lemmas on {stream.name}"
    if not agreed.passed:
        gate = checks.compare_learners(student, REFERENCE, [stream], observe=COUNTERS).checks[0]
        if not gate.passed:
            report.add(
                name,
                False,
                "not earned: the lemmas count only on a stream where the learner makes the "
                f"reference's predictions, promotions and eliminations; {gate.message}",
                stream.points,
            )
            return
    measured = checks.check_bounds(lambda **params: _ReadOncePerRound(student(**params)), [stream], BOUNDS)
    if measured.failures:
        report.add(name, False, "; ".join(f"{c.name}: {c.message}" for c in measured.failures), stream.points)
    else:
        report.add(name, True, f"all {len(BOUNDS)} hold after every round ({'; '.join(BOUNDS)})", stream.points)


def grade(student) -> checks.GradeReport:
    """One point per stream for agreeing with the reference, one per stream for the lemmas (gated, see _lemmas)."""
    data = streams()
    report = checks.compare_learners(student, REFERENCE, data, observe=STATE, title=TITLE)
    for stream, agreed in zip(data, list(report.checks), strict=True):
        _lemmas(student, stream, agreed, report)
    return report
