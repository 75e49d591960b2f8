"""Hidden tests of Assignment 2, Winnow1 and its lemmas (chapter 2, Winnow1).

Lecturer edition only: the student-edition builder removes ``book/assignments/**/lecturer/``.
Run by ``python -m booktools grade SUBMISSIONS --assignment winnow1 --out scores.csv``.

Two parts. The code (``Winnow1Learner``): seven streams compared round by round with
``onlinelib.Winnow1`` (weights, promotions, eliminations), one point each. Then the chapter's
lemmas measured on the student's own learner, one point per stream, counted only on a stream where
the learner made the reference's mistakes and its promotions and eliminations (the proof's u and v)
in every round: a bound that a learner meets by doing nothing (weights all 1, u = v = 0) earns
nothing on its own. The written proof of the chapter's three lemmas and its theorem (``QUESTIONS``,
issue 36) is graded by hand against the rubric below.

Keyed instances (``booktools.grading.course_key``): the five random disjunction streams, drawn by
``course_rng("winnow1/streams")``; the promotion adversary's stream and the stream of ties at theta = 4 are
hand-made.
"""

import math

import numpy as np

import onlinelib as ol
from booktools.grading import checks
from booktools.grading.course_key import course_rng, draw_until

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


# The written part (issue 36): the proof of chapter 2's lemmas (lem-w1-weight-budget,
# lem-w1-largest-weight, lem-w1-relevant-weights) and of its theorem (thm-w1-winnow1), marked by hand.
QUESTIONS = [
    {
        "id": "winnow1_lemmas",
        "title": "Winnow1's lemmas and its mistake bound u + v <= n/Theta + 2k(lg Theta + 1)",
        "items": [
            {
                "id": "weight_budget",
                "points": 1,
                "text": "Weight budget: 0 <= W_t <= n + (u_t - v_t) Theta, hence v <= n/Theta + u",
                "full": "Says a promotion happens only after the prediction -1, so the active weights sum to "
                "w.x <= Theta, and doubling them adds exactly w.x to W; an elimination happens only after "
                "the prediction +1, so it removes w.x > Theta. Starts from W_0 = n, notes that rounds "
                "without a mistake change no weight, gets W_t <= n + (u_t - v_t) Theta, and justifies "
                "W_t >= 0 (weights are only doubled or set to 0), which gives v <= n/Theta + u.",
                "half": "Both changes of W are bounded and added up correctly, but one step is missing or "
                "unjustified: the bound w.x <= Theta in a promotion (or w.x > Theta in an elimination) "
                "is asserted without pointing to the prediction, or W_t >= 0 is never stated, so the "
                "bound on v does not follow from what is written.",
                "zero": "No bound on how a promotion or an elimination changes the total weight W, or "
                "bounds that do not follow (Theta added per doubled weight, an elimination said to "
                "remove at most Theta), or the statement of the lemma restated without an argument.",
                "errors": [
                    "Bounds each doubled weight by Theta and says a promotion adds up to Theta per active "
                    "variable (k Theta or |x| Theta in all): the lemma needs the sum w.x <= Theta; at most half.",
                    "Concludes v <= n/Theta + u from W_t <= n + (u - v) Theta without W_t >= 0 (the "
                    "weights never go negative): half.",
                    "Argues from the label instead of the prediction (a promotion is on a positive example, "
                    "so ...): the label says nothing about w.x; only the prediction -1 gives w.x <= Theta, "
                    "and only the prediction +1 gives w.x > Theta; at most half.",
                    "Runs the induction over rounds but counts every round as a promotion or an "
                    "elimination: a correct round changes no weight; half if that is the only gap.",
                ],
            },
            {
                "id": "largest_weight",
                "points": 1,
                "text": "Largest weight: w_i <= max(1, 2 Theta) at all times",
                "full": "A weight changes only by doubling (in a promotion, when its variable is on) or by "
                "being set to 0. When w_i is doubled, w_i <= w.x <= Theta, because the other active "
                "weights are >= 0 and the prediction was -1; so it becomes at most 2 Theta. A weight "
                "never doubled is still 1 (or 0). Hence w_i <= max(1, 2 Theta) after every round.",
                "half": "The doubling step is right in substance but one piece is missing: w_i <= w.x without "
                "the nonnegativity of the other active weights, or the weights never doubled (which stay "
                "at 1, more than 2 Theta when Theta < 1/2) are left out of the conclusion.",
                "zero": "No argument that a weight can only be doubled from at most Theta, or a claim that "
                "does not hold (every weight stays <= Theta).",
                "errors": [
                    "Claims w_i < 2 Theta strictly, or w_i <= Theta at all times: a weight equal to Theta "
                    "can be doubled to exactly 2 Theta (the promotion adversary does it); at most half.",
                    "Bounds w_i by w.x without saying that the other active weights are nonnegative: half.",
                    "States w_i <= 2 Theta for every Theta, forgetting the initial weight 1 (the max with 1 "
                    "matters for Theta < 1/2): half if the rest is right.",
                ],
            },
            {
                "id": "relevant_weights",
                "points": 1,
                "text": "Relevant weights: never zeroed, each promotion doubles one; some relevant i has lg w_i >= u/k",
                "full": "An elimination needs the label -1, and an example labelled -1 by a monotone "
                "disjunction has every relevant variable equal to 0, so no relevant weight is active in an "
                "elimination and none is ever set to 0. A promotion needs the label +1, so some relevant "
                "variable is 1 and its weight is doubled. So each relevant weight is 2^(d_i), with d_i the "
                "promotions that doubled it, the d_i add up to at least u, and the largest of these at most "
                "k numbers is at least their average, at least u/k.",
                "half": "The counting (sum of d_i >= u, then the largest is at least the average) is right, "
                "but the claim that relevant weights are never set to 0 is assumed or asserted without "
                "the reason; or the reason is given and the averaging step is missing or wrong.",
                "zero": "No link between the promotions and the relevant weights, or an argument that uses "
                "the bound being proved.",
                "errors": [
                    "Says every promotion doubles every relevant weight: only the relevant variables that are "
                    "on in the example are doubled, at least one of them; at most half.",
                    "Counts the doublings of a relevant weight without first showing it is never set to 0 "
                    "(a zeroed weight is not 2^(d_i)): at most half.",
                    "Averages over all n variables, or over the variables on in one example, instead of the "
                    "at most k relevant ones: half.",
                    "Argues from the prediction instead of the label (an elimination is a false positive: the "
                    "label -1 is what keeps the relevant variables off): half if the rest is right.",
                ],
            },
            {
                "id": "mistake_bound",
                "points": 1,
                "text": "The theorem: u <= k(lg Theta + 1), v <= n/Theta + u, u + v <= n/Theta + 2k(lg Theta + 1)",
                "full": "Takes the relevant i with lg w_i >= u/k, bounds w_i <= 2 Theta by the largest-weight "
                "lemma, using Theta >= 1/2 so that max(1, 2 Theta) = 2 Theta, and gets u/k <= lg(2 Theta) = "
                "lg Theta + 1. Adds v <= n/Theta + u from the weight budget to reach u + v <= n/Theta + "
                "2k(lg Theta + 1), the number of mistakes, and 2 + 2k lg n at Theta = n/2.",
                "half": "The chain of the three lemmas is right but one step is missing or wrong: Theta >= 1/2 "
                "never used, the +1 in lg Theta + 1 lost, or u is bounded and the bound on the mistakes "
                "u + v never formed.",
                "zero": "The three lemmas are never combined into a bound on u, or the bound reached does not "
                "follow from them (checked on runs of the code instead of proved, or the theorem restated).",
                "errors": [
                    "Uses w_i <= Theta instead of 2 Theta and gets u <= k lg Theta: not what the lemmas give; "
                    "at most half.",
                    "Adds u <= k(lg Theta + 1) and v <= n/Theta + u as if v's bound did not contain u again, "
                    "reaching n/Theta + k(lg Theta + 1): half.",
                    "Never uses Theta >= 1/2, which turns max(1, 2 Theta) into 2 Theta (for Theta < 1/2 the "
                    "stated k(lg Theta + 1) is negative, so the theorem needs it): half if the rest is right.",
                ],
            },
        ],
        "model": r"""Write $x_i \in \{0,1\}$, $W_t = \sum_i w_i$ after round $t$, $u_t, v_t$ for the promotions
and eliminations so far, and $S$ ($|S| \le k$) for the target's variables.

**Weight budget.** No weight changes in a round without a mistake. A promotion follows a prediction of
$-1$, which by the strict test means $w\cdot x \le \Theta$; it doubles exactly the weights of the
variables that are on, whose sum is $w\cdot x$, so $W$ grows by $w \cdot x \le \Theta$. An elimination
follows a prediction of $+1$, that is $w\cdot x > \Theta$, and sets those same weights to $0$, so $W$
drops by $w\cdot x > \Theta$. From $W_0 = n$, by induction over the mistakes,
$W_t \le n + u_t\Theta - v_t\Theta$. Doubling and zeroing never make a weight negative, so $W_t \ge 0$,
and dividing $0 \le n + (u - v)\Theta$ by $\Theta > 0$ gives $v \le n/\Theta + u$.

**Largest weight.** By induction: initially every $w_i = 1$. A weight set to $0$ is at most the bound.
A weight doubled in a promotion belongs to a variable that is on, so $w_i \le w\cdot x$ (all the other
terms are $\ge 0$) and $w\cdot x \le \Theta$; after the doubling $w_i \le 2\Theta$. So
$w_i \le \max(1, 2\Theta)$ throughout, and equality $w_i = 2\Theta$ can occur.

**Relevant weights.** An elimination happens only on an example labelled $-1$. The target is the
disjunction of the $x_i$, $i \in S$, so on such an example $x_i = 0$ for every $i \in S$: no relevant weight
is touched, and no relevant weight is ever $0$. A promotion happens only on an example labelled $+1$, so
$x_i = 1$ for some $i \in S$ and that weight is doubled. A relevant weight is therefore $2^{d_i}$, with
$d_i$ the number of promotions that doubled it, and each promotion raises $\sum_{i\in S} d_i$ by at least
one: $\sum_{i \in S} d_i \ge u$. Some $i \in S$ has $d_i \ge u/|S| \ge u/k$, that is $\lg w_i \ge u/k$.

**The bound.** Take that $i$. With $\Theta \ge 1/2$ we have $\max(1, 2\Theta) = 2\Theta$, so
$u/k \le \lg w_i \le \lg(2\Theta) = \lg\Theta + 1$ and $u \le k(\lg\Theta + 1)$. The budget gives
$v \le n/\Theta + u \le n/\Theta + k(\lg\Theta + 1)$. Every mistake is a promotion or an elimination, so
the mistakes number $u + v \le n/\Theta + 2k(\lg\Theta + 1)$; at $\Theta = n/2$ this is $2 + 2k\lg n$.
""",
    }
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


def without_scores_at_theta(n, theta, X, y):
    """The stream (X, y) without the rounds where the reference's score w.x equals theta (issue 36).

    A score equal to theta is the one condition on which the strict test w.x > theta decides the
    prediction. Rounds are dropped in order while the reference is played, so in every round kept
    its score differs from theta; the labels stay the target's. Exact: the weights are 0 or powers
    of 2 and every theta here a multiple of 1/2, so each score and the comparison are exact floats.
    """
    learner = REFERENCE(n, theta)
    keep = []
    for t, (x, label) in enumerate(zip(X, y, strict=True)):
        if float(np.dot(learner.weights, x)) != learner.theta:
            keep.append(t)
            learner.update(x, int(label))
    return X[keep], y[keep]


def scores_reach(n, theta, value):
    """A condition on a stream (X, y, relevant): some round gives the reference the score ``value`` exactly.

    Exact for the same reason as ``without_scores_at_theta``. A keyed stream is drawn until it holds,
    so that the slip its name stands for (the tie rule, a threshold rounded up) shows on it.
    """

    def condition(stream):
        learner = REFERENCE(n, theta)
        for x, label in zip(stream[0], stream[1], strict=True):
            if float(np.dot(learner.weights, x)) == value:
                return True
            learner.update(x, int(label))
        return False

    return condition


def keyed(rng, draw, n, theta, value, what):
    """``draw(rng)`` again until the reference scores exactly ``value`` in some round (``scores_reach``)."""
    return draw_until(rng, draw, scores_reach(n, theta, value), f"{what} with a score of {value:g}")


def streams():
    """Seven streams, two points each (the agreement and the lemmas).

    Partial credit (issue 36): the first two streams are random with every score different from
    theta, and the last two have thresholds that are not integers (so no integer score equals them):
    a wrong tie rule (w.x >= theta) costs only the three streams with scores equal to theta. A
    threshold rounded to an integer costs only the last two, and an ignored theta argument only the
    three that give one.

    Keyed (``course_rng``): the five random streams; the three that stand for a slip are drawn until
    the reference scores exactly theta (n = 24), 18 (n = 35) or 3 (n = 12) in some round.
    """
    rng = course_rng("winnow1/streams")
    out = []
    X, y, rel = ol.disjunction_stream(32, 3, 200, rng)
    X, y = without_scores_at_theta(32, None, X, y)
    out.append(
        checks.Stream("n = 32, k = 3, random, no score equal to theta", X, y, params={"n": 32}, info={"relevant": rel})
    )
    X, y, rel = ol.disjunction_stream(20, 1, 120, rng, active=6)
    X, y = without_scores_at_theta(20, None, X, y)
    out.append(
        checks.Stream(
            "n = 20, k = 1, six active bits, no score equal to theta", X, y, params={"n": 20}, info={"relevant": rel}
        )
    )
    X, y, rel = keyed(rng, lambda rng: ol.disjunction_stream(24, 4, 150, rng), 24, 3, 3, "n = 24")
    out.append(
        checks.Stream(
            "n = 24, k = 4, theta = 3 given, scores equal to theta",
            X,
            y,
            params={"n": 24, "theta": 3},
            info={"relevant": rel},
        )
    )
    X, y, rel = ol.winnow1_promotion_adversary(32, 3)
    out.append(
        checks.Stream(
            "n = 32, k = 3, promotion adversary, scores equal to theta", X, y, params={"n": 32}, info={"relevant": rel}
        )
    )
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
            "n = 16, theta = 4 given, scores equal to theta",
            X,
            y,
            params={"n": n, "theta": 4},
            info={"relevant": np.array([9])},
        )
    )
    # n odd: the default theta = n/2 = 17.5 is not an integer. Scores are integers (weights are 0 or
    # powers of 2), so a score of 18 is +1 here and -1 for a threshold rounded up to 18.
    X, y, rel = keyed(rng, lambda rng: ol.disjunction_stream(35, 2, 60, rng, active=18), 35, None, 18, "n = 35")
    out.append(
        checks.Stream(
            "n = 35 (odd), default theta = 17.5 (not an integer), 18 active bits",
            X,
            y,
            params={"n": 35},
            info={"relevant": rel},
        )
    )
    # A threshold that is not an integer, given explicitly: scores of 3 are +1 (3 > 2.5).
    X, y, rel = keyed(rng, lambda rng: ol.disjunction_stream(12, 2, 60, rng, active=3), 12, 2.5, 3, "n = 12")
    out.append(
        checks.Stream(
            "n = 12, k = 2, theta = 2.5 given (not an integer), three active bits",
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
