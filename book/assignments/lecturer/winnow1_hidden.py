"""Hidden tests of Assignment 2, Winnow1 and its lemmas (chapter 2, Winnow1).

Lecturer edition only: the student-edition builder removes ``book/assignments/**/lecturer/``.
Run by ``python -m booktools grade SUBMISSIONS --assignment winnow1 --out scores.csv``.

Five streams compared round by round with ``onlinelib.Winnow1`` (weights, promotions,
eliminations), then the chapter's invariants measured on the student's own learner.
"""
import math

import numpy as np

from onlinelib import grading
import onlinelib as ol

FUNCTION = "Winnow1Learner"
KIND = "learner"  # FUNCTION builds a learner, which stays in the sandbox and is played round by round
TITLE = "Assignment 2: Winnow1 (chapter 2)"
# What the student writes (Winnow1 and what it is built from): absent from the library a graded notebook sees.
FORBIDDEN = [
    "onlinelib.Winnow1", "onlinelib.Winnow2", "onlinelib.linear._Winnow", "onlinelib.linear._ThresholdLearner",
]


def REFERENCE(n, theta=None):
    """The reference solution: onlinelib's Winnow1 (attributes weights, promotions, eliminations)."""
    return ol.Winnow1(n, theta)

STATE = {
    "weights": lambda learner: learner.weights,
    "promotions": lambda learner: learner.promotions,
    "eliminations": lambda learner: learner.eliminations,
}


def streams():
    rng = np.random.default_rng(20260202)
    out = []
    X, y, rel = ol.disjunction_stream(32, 3, 200, rng)
    out.append(grading.Stream("n = 32, k = 3, random", X, y, params={"n": 32}, info={"relevant": rel}))
    X, y, rel = ol.disjunction_stream(20, 1, 120, rng, active=6)
    out.append(grading.Stream("n = 20, k = 1, six active bits", X, y, params={"n": 20}, info={"relevant": rel}))
    X, y, rel = ol.disjunction_stream(24, 4, 150, rng)
    out.append(grading.Stream("n = 24, k = 4, theta = 3", X, y, params={"n": 24, "theta": 3}, info={"relevant": rel}))
    X, y, rel = ol.winnow1_promotion_adversary(32, 3)
    out.append(grading.Stream("n = 32, k = 3, promotion adversary", X, y, params={"n": 32}, info={"relevant": rel}))
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
    out.append(grading.Stream("n = 16, theta = 4, scores equal to theta", X, y, params={"n": n, "theta": 4},
                              info={"relevant": np.array([9])}))
    return out


def _theta(stream):
    return stream.params.get("theta", stream.params["n"] / 2)


def weight_budget(learner, stream):
    """Lemma (weight budget): W_t <= n + (u_t - v_t) theta."""
    return float(np.sum(learner.weights)), stream.params["n"] + (learner.promotions - learner.eliminations) * _theta(stream)


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
            grading.Stream("n = 16, k = 2, random stream", X, y, params={"n": 16}),
            grading.Stream("n = 16, k = 2, promotion adversary", X_adv, y_adv, params={"n": 16}),
        ],
    }


def grade(student) -> grading.GradeReport:
    """5 points for agreeing with the reference, 5 for the invariants."""
    data = streams()
    report = grading.compare_learners(student, REFERENCE, data, observe=STATE, title=TITLE)
    return report + grading.check_bounds(student, data, BOUNDS)
