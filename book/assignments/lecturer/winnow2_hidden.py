"""Hidden tests of Assignment 13, Winnow2, the notes' bound and Littlestone's proof (chapter 4, Winnow).

Lecturer edition only: the student-edition builder removes ``book/assignments/**/lecturer/``.
Run by ``python -m booktools grade SUBMISSIONS --assignment winnow2 --out scores.csv``.

Three parts.

* ``Winnow2Learner`` (code) is played round by round against ``ReferenceWinnow2``, the chapter's
  Winnow2 with exact weights (alpha^e, scores compared with theta as Fractions), on ten streams,
  one point each: predictions and promotions/demotions exactly, weights to a relative 1e-9 (the
  reference's weights are the exact alpha^e rounded once to a float; a float implementation is
  within 1e-13 of them after a few hundred updates, and a wrong update is off by a factor alpha).
  Four streams are free of ties (no score of the run equals theta, so a learner that predicts
  +1 at w.x = theta plays them exactly as the rule says) and six have ties, so a tie-rule slip
  costs six points and no more. Two tie streams have ties after demotions that a float sum
  rounds to the wrong side (alpha = 3/2, and the chapter's alpha = 8/5 example). The tests check that
  the reference makes the predictions of the library's exact replay,
  ``onlinelib.adversaries.winnow2_exact_replay``, on every stream, and the weights of
  ``onlinelib.Winnow2`` where its floats decide no tie.
* ``winnow2_counterexample`` (a certificate) is replayed exactly by
  ``onlinelib.certificates_winnow.verify_winnow2_stream`` at alpha = 3/2 and theta = N, on six
  values of N other than the public ones: ``points * min(1, mistakes / target)``, where target is
  the least whole number above the notes' bound 2 + 3k(lg N + 1) for the student's k (22 for
  N = 48, k = 1). The values are those where the chapter's searches break the bound; the
  reference below (the greedy search "promote first, then demote") reaches the target on each,
  checked when the instances are built.
* The proof of Littlestone's bound (QUESTIONS) is graded by hand against the rubric below.

Known gap: the exact replay inside the verifier (``onlinelib.certificates_winnow``) cannot be
removed, since the notebook's public check of part (b) runs the verifier in the sandbox.

Keyed instances (``booktools.grading.course_key``): the random rows of eight streams of part (a), drawn by
``course_rng("winnow2/streams")``; the rows that set up a tie, and the chapter's two searched sequences
(seeded 0, as in the chapter), are the same under every key, as are the sizes N of part (b).
"""

import functools
from fractions import Fraction

import numpy as np

import onlinelib as ol
from booktools.grading import checks
from booktools.grading.course_key import course_rng, current_key, draw_until
from onlinelib.certificates import verify_certificate
from onlinelib.certificates_winnow import notes_bound_target

PARTS = {"Winnow2Learner": "learner", "winnow2_counterexample": "certificate"}
TITLE = "Assignment 13: Winnow2, the notes' bound and Littlestone's proof (chapter 4)"
# Winnow2 in every form the library has it (Winnow1 is Winnow2 with the demotion replaced, and
# MonomialWinnow in chapter 6 is a subclass), the threshold-learner base classes and compiled
# kernels behind them, the exact replay, and the searches that build the counterexample (with
# the beam search's helpers: the exact scaled weights and the greedy fill).
FORBIDDEN = [
    "onlinelib.Winnow2",
    "onlinelib.Winnow1",
    "onlinelib.linear._Winnow",
    "onlinelib.linear._ThresholdLearner",
    "onlinelib.linear._CompiledRule",
    "onlinelib._kernels",
    "onlinelib.adversaries.winnow2_exact_replay",
    "onlinelib.beam_adversary",
    "onlinelib.exhaustive_adversary",
    "onlinelib.promotion_adversary",
    "onlinelib.adversaries._scaled_weights",
    "onlinelib.adversaries._fill",
    "onlinelib.adversaries._optimistic_value",
]
ALPHA = Fraction(3, 2)  # part (b): Winnow2(3/2, theta = N)
MAX_ROUNDS = 1000  # part (b): the most rows of a stream (the exact replay of 1000 rows at N = 256 takes ~0.1 s)

QUESTIONS = [
    {
        "id": "littlestone",
        "title": "Littlestone's bound for Winnow2",
        "items": [
            {
                "id": "promotion",
                "points": 1,
                "text": "A promotion raises Phi = sum_i w_i by exactly (alpha - 1) w.x, and w.x <= theta on a promotion.",
                "full": "Computes the change of Phi on a promotion as (alpha - 1) times the sum of the active weights, "
                "which is (alpha - 1) w.x with the weights before the update, and bounds w.x <= theta because a "
                "promotion happens only when the prediction was -1, i.e. w.x <= theta (ties included).",
                "half": "The increment (alpha - 1) w.x is right but w.x <= theta is asserted without saying why (the "
                "prediction -1), or the bound is stated as w.x < theta without noticing that w.x = theta is promoted.",
                "zero": "No bound on the increment, or an increment that is not (alpha - 1) w.x (e.g. w.x itself, "
                "the lecture notes' alpha = 2 value).",
                "errors": [
                    "Writes the increment as w.x (true only for alpha = 2): at most half.",
                    "Uses the weights after the update in w.x: at most half.",
                    "Writes w.x < theta and later relies on the strict inequality: at most half.",
                ],
            },
            {
                "id": "demotion",
                "points": 1,
                "text": "A demotion lowers Phi by exactly (1 - 1/alpha) w.x, and w.x > theta on a demotion.",
                "full": "Each active weight loses (1 - 1/alpha) of itself, so Phi drops by (1 - 1/alpha) w.x; a "
                "demotion happens only after a +1 prediction, so w.x > theta and the drop exceeds (1 - 1/alpha) theta.",
                "half": "The right drop but the strict inequality w.x > theta not justified by the prediction rule, "
                "or the drop written as (alpha - 1) w.x / alpha without linking it to theta.",
                "zero": "No lower bound on the drop, or a drop of the wrong size (e.g. w.x / 2 for every alpha).",
                "errors": [
                    "Writes the drop as (alpha - 1) w.x (the promotion's factor): at most half.",
                    "Claims the drop is at least (1 - 1/alpha) theta with >= and then needs > later: at most half.",
                ],
            },
            {
                "id": "demotions_bound",
                "points": 1,
                "text": "Phi > 0 throughout, which gives m- < alpha/(alpha - 1) N/theta + alpha m+.",
                "full": "Notes that weights start at 1 and stay positive (multiplied or divided by alpha > 0), so "
                "Phi > 0; sums steps 1 and 2 from Phi_0 = N to get 0 < N + m+ (alpha - 1) theta - m- (1 - 1/alpha) "
                "theta (for m- >= 1), and divides by (1 - 1/alpha) theta to get the bound (the case m- = 0 is "
                "trivial).",
                "half": "The right final inequality with one step missing: positivity of the weights not argued, "
                "or the division by (1 - 1/alpha) theta done without the rearrangement, or the inequality "
                "direction of the demotion term not justified.",
                "zero": "No bound on m-, or one that does not follow from the potential (e.g. m- <= m+).",
                "errors": [
                    "Starts from Phi_0 = 1 or Phi_0 = theta instead of N: at most half.",
                    "Uses Phi >= 0 with the weak demotion bound and ends with a strict inequality it has not "
                    "earned: at most half.",
                ],
            },
            {
                "id": "relevant_weight",
                "points": 1,
                "text": "A relevant weight is never demoted and is promoted only while it is at most theta, so it is "
                "promoted at most 1 + log_alpha theta times.",
                "full": "A negative example has every relevant variable 0, so demotions never touch a relevant "
                "weight, which is therefore alpha^{m_i}; when w_i is promoted, x_i = 1 and all weights are "
                "positive, so w_i <= w.x <= theta; the last promotion was at alpha^{m_i - 1} <= theta, so "
                "m_i <= 1 + log_alpha theta; for m_i = 0 this needs theta >= 1/alpha, the theorem's hypothesis.",
                "half": "The right count but one link missing: that relevant weights are never demoted (so "
                "w_i = alpha^{m_i}), or w_i <= w.x (positivity of the other weights), or the off-by-one "
                "(the last promotion at alpha^{m_i - 1}, giving 1 + log_alpha theta and not log_alpha theta).",
                "zero": "No per-weight count, or a bound on the total m+ from a single weight (the notes' "
                "Eq. 38 slip, 'alpha^{m+ - 1} <= theta').",
                "errors": [
                    "Confuses the total promotions m+ with one relevant weight's m_i: zero for this item.",
                    "Claims a relevant weight stays below theta (it can reach alpha theta): at most half.",
                    "Writes m_i < 1 + log_alpha theta (equality is reached when theta is a power of alpha): at most half.",
                ],
            },
            {
                "id": "combine",
                "points": 1,
                "text": "Every promotion raises some relevant weight, so m+ <= k(1 + log_alpha theta), and "
                "M = m+ + m- < alpha/(alpha - 1) N/theta + k(alpha + 1)(1 + log_alpha theta).",
                "full": "A positive example has a relevant variable equal to 1, so each promotion counts in some "
                "m_i: m+ <= sum over relevant i of m_i <= k(1 + log_alpha theta); adds m- from the third step: "
                "M < alpha/(alpha - 1) N/theta + (alpha + 1) m+, then substitutes m+.",
                "half": "The right final bound but m+ <= sum_i m_i not justified (why every promotion touches a "
                "relevant weight), or m+ = sum_i m_i claimed (a promotion may raise several relevant weights).",
                "zero": "No final bound, or one that adds the bounds in the wrong way (e.g. M <= m- alone).",
                "errors": [
                    "Claims m+ = sum_i m_i: at most half (only <= holds).",
                    "Forgets the factor alpha in front of m+ in the demotion bound, ending with k(2)(1 + "
                    "log_alpha theta): at most half.",
                ],
            },
        ],
        "model": r"""Write $\Phi = \sum_i w_i$, so $\Phi_0 = N$, and $s = w\cdot x$ for the score of a round with the
weights *before* its update.

1. *Promotion.* The active weights are multiplied by $\alpha$, so $\Phi$ grows by
   $(\alpha-1)\sum_{i: x_i=1} w_i = (\alpha - 1)s$. A promotion follows a prediction $-1$, i.e. $s \le \theta$
   (a tie $s = \theta$ is predicted $-1$), so the growth is at most $(\alpha-1)\theta$.
2. *Demotion.* Each active weight loses $(1 - 1/\alpha)w_i$, so $\Phi$ drops by $(1-1/\alpha)s$, and a demotion
   follows a prediction $+1$, i.e. $s > \theta$: the drop exceeds $(1-1/\alpha)\theta$.
3. *Demotions.* Weights start at $1$ and are only multiplied or divided by $\alpha > 0$, so $\Phi > 0$ always.
   Summing 1 and 2 over the run, for $m^- \ge 1$,
   $0 < \Phi < N + m^+(\alpha-1)\theta - m^-(1-1/\alpha)\theta$; dividing by $(1-1/\alpha)\theta = (\alpha-1)\theta/\alpha$
   gives $m^- < \frac{\alpha}{\alpha-1}\frac{N}{\theta} + \alpha m^+$ (trivially true for $m^- = 0$).
4. *One relevant weight.* A negative example has every relevant variable $0$, so no demotion touches a
   relevant weight: after $m_i$ promotions $w_i = \alpha^{m_i}$. When $w_i$ is promoted, $x_i = 1$ and all weights are
   positive, so $w_i \le s \le \theta$. The last promotion happened at $\alpha^{m_i - 1} \le \theta$, hence
   $m_i \le 1 + \log_\alpha\theta$; for $m_i = 0$ this is $\theta \ge 1/\alpha$, the hypothesis.
5. *All promotions.* A positive example has some relevant variable equal to $1$, so every promotion raises
   at least one relevant weight: $m^+ \le \sum_{i \in I} m_i \le k(1 + \log_\alpha\theta)$.

Finally $M = m^+ + m^- < \frac{\alpha}{\alpha-1}\frac{N}{\theta} + (\alpha+1)m^+
\le \frac{\alpha}{\alpha-1}\frac{N}{\theta} + k(\alpha+1)(1+\log_\alpha\theta)$. With $\alpha = 2$, $\theta = N$ this is
$2 + 3k(\lg N + 1)$, the notes' bound, which part (b) shows is not true for $\alpha = 3/2$ (there the bound is
$3 + \frac52 k(1 + \log_{3/2} N)$, larger).""",
    }
]


# -- part (a): the learner ---------------------------------------------------------------------------


class ReferenceWinnow2:
    """The chapter's Winnow2 ({prf:ref}`alg-wn-winnow`) with exact weights, as the hidden tests see it.

    Weights start at 1; predict +1 iff w.x > theta (a tie is -1); on a missed positive the active
    weights are multiplied by alpha, on a false positive divided by alpha. Each weight is kept as
    its exponent e (w = alpha^e) and every score is a Fraction, so no tie is decided by rounding
    (``onlinelib.Winnow2`` computes in floats; the tests check that this class makes the
    predictions of the library's exact replay, ``onlinelib.adversaries.winnow2_exact_replay``).
    ``weights`` are the exact values rounded once to floats.
    """

    def __init__(self, n, alpha, theta=None):
        self.n = int(n)
        self.alpha = Fraction(alpha)
        self.theta = Fraction(self.n if theta is None else theta)
        self._exponents = np.zeros(self.n, dtype=np.int64)
        self._power = {}
        self.promotions = 0
        self.demotions = 0

    def _exact(self, e):
        if e not in self._power:
            self._power[e] = self.alpha**e
        return self._power[e]

    @property
    def weights(self):
        return np.array([float(self._exact(int(e))) for e in self._exponents])

    def _active(self, x):
        return np.flatnonzero(np.asarray(x))

    def predict(self, x):
        score = sum((self._exact(int(e)) for e in self._exponents[self._active(x)]), Fraction(0))
        return 1 if score > self.theta else -1

    def update(self, x, y):
        if self.predict(x) != y:
            self._exponents[self._active(x)] += int(y)
            if y == 1:
                self.promotions += 1
            else:
                self.demotions += 1


REFERENCE_STATE = {
    "weights": lambda learner: learner.weights,
    "promotions": lambda learner: learner.promotions,
    "demotions": lambda learner: learner.demotions,
}


def _labelled(X, relevant):
    """X as uint8 rows, labelled by the disjunction of ``relevant``."""
    X = np.asarray(X, dtype=np.uint8)
    return X, np.where(X[:, relevant].any(axis=1), 1, -1).astype(np.int8)


def _dyadic(value: Fraction) -> bool:
    """True if ``value`` is a float exactly (a denominator that is a power of 2, a small numerator)."""
    return value.denominator & (value.denominator - 1) == 0 and abs(value.numerator) < 2**50


def tie_profile(n, alpha, theta, ties: bool, promotions_only: bool = False):
    """A condition on a stream (X, y): the ties its name claims, and none that floats could decide.

    Played by ``ReferenceWinnow2``. With ``ties``, some score equals theta (where the other tie rule,
    +1 at w.x = theta, first plays differently), every weight in a tied score is a float exactly (so
    a float sum gets the tie right) and every other score is more than 1e-9 (relative) from theta;
    without, every score is more than 1e-6 from theta. With ``promotions_only``, the run has no
    demotion, so a learner that counts its demotions as promotions still earns that stream's point
    (issue 36, partial credit). The keyed streams are drawn until this holds
    (``tests/test_assignment_winnow2.py`` checks it again, with ``onlinelib.Winnow2`` in floats).
    """

    def condition(stream):
        learner = ReferenceWinnow2(n, alpha, theta)
        tied = False
        for x, label in zip(*stream, strict=True):
            weights = [learner._exact(int(e)) for e in learner._exponents[learner._active(x)]]
            gap = abs(sum(weights, Fraction(0)) / learner.theta - 1)
            if gap == 0 and ties and all(_dyadic(w) for w in weights):
                tied = True
            elif gap <= (Fraction(1, 10**9) if ties else Fraction(1, 10**6)):
                return False
            learner.update(x, int(label))
        return tied == ties and not (promotions_only and learner.demotions)

    return condition


@functools.cache
def _streams(key: bytes):
    rng = course_rng("winnow2/streams", key)
    out = []

    def add(name, X, y, n, alpha, theta=None):
        params = {"n": n, "alpha": alpha} if theta is None else {"n": n, "alpha": alpha, "theta": theta}
        out.append(checks.Stream(name, np.asarray(X, dtype=np.uint8), np.asarray(y, dtype=np.int8), params=params))

    def keyed(draw, n, alpha, theta, ties, promotions_only=False):
        condition = tie_profile(n, alpha, theta, ties, promotions_only)
        return draw_until(rng, draw, condition, f"a stream on N = {n} ({ties=}, {promotions_only=})")

    def disjunction(n, k, length, **options):
        return lambda rng: ol.disjunction_stream(n, k, length, rng, **options)[:2]

    # free of ties: no score of the run equals theta (checked in the tests, exactly)
    X, y = keyed(disjunction(16, 2, 200), 16, Fraction(3, 2), 16, False)
    add("no ties: N = 16, k = 2, alpha = 3/2, theta = 16, random", X, y, 16, Fraction(3, 2), 16)
    X, y = keyed(disjunction(40, 3, 200), 40, 2, Fraction(64, 3), False)
    add("no ties: N = 40, k = 3, alpha = 2, theta = 64/3", X, y, 40, 2, Fraction(64, 3))
    X, y = keyed(disjunction(24, 1, 200), 24, Fraction(11, 10), 20, False)
    add("no ties: N = 24, k = 1, alpha = 11/10, theta = 20", X, y, 24, Fraction(11, 10), 20)
    X, y = keyed(disjunction(100, 4, 200, active=8), 100, Fraction(3, 2), 25, False)
    add("no ties: N = 100, k = 4, alpha = 3/2, theta = 25, eight ones per row", X, y, 100, Fraction(3, 2), 25)
    # with ties: some score equals theta exactly (predicted -1)
    X, y = keyed(
        lambda rng: _labelled(np.vstack([np.ones((1, 8)), ol.disjunction_stream(8, 2, 120, rng)[0]]), [2, 5]),
        8,
        2,
        None,
        True,
    )
    add("ties: N = 8, alpha = 2, theta not given (= N), the all-ones row first", X, y, 8, 2)
    promoted = np.repeat(np.eye(10, dtype=np.uint8)[:2], 5, axis=0)  # w_0, w_1 promoted while <= (3/2)^4
    X, y = keyed(
        lambda rng: _labelled(np.vstack([promoted, ol.disjunction_stream(10, 2, 100, rng)[0]]), [0, 1]),
        10,
        Fraction(3, 2),
        Fraction(81, 16),
        True,
        promotions_only=True,
    )
    add(
        "ties: N = 10, alpha = 3/2, theta = (3/2)^4, relevant unit vectors first",
        X,
        y,
        10,
        Fraction(3, 2),
        Fraction(81, 16),
    )

    def random_labels(rng):
        X = (rng.random((150, 12)) < 0.5).astype(np.uint8)
        return X, np.where(rng.random(150) < 0.5, 1, -1).astype(np.int8)

    X, y = keyed(random_labels, 12, 2, 6, True)
    add("ties: N = 12, alpha = 2, theta = 6, random labels (no target)", X, y, 12, 2, 6)
    # nine weights demoted twice to 4/9 each, then the same nine: w.x = 4 = theta exactly, predicted -1
    # (a float sum of the nine 4/9s comes out above 4, so a float learner demotes a third time)
    X = np.zeros((3, 12), dtype=np.uint8)
    X[:, 1:10] = 1
    X_more, _, _ = ol.disjunction_stream(12, 1, 60, rng)
    X, y = _labelled(np.vstack([X, X_more]), [0])
    add("ties after demotions: N = 12, alpha = 3/2, theta = 4 (floats round this tie)", X, y, 12, Fraction(3, 2), 4)
    found = ol.beam_adversary(48, 1.5, rng=np.random.default_rng(0))
    add("ties: N = 48, alpha = 3/2, theta = N, the chapter's sequence (all mistakes)", found.X, found.y, 48, ALPHA)
    found = ol.beam_adversary(192, 1.6, rng=np.random.default_rng(0))
    add(
        "ties after demotions: N = 192, alpha = 8/5, theta = N (floats round these ties)",
        found.X,
        found.y,
        192,
        Fraction(8, 5),
    )
    return tuple(out)


def streams():
    """Ten streams: four free of ties, six with scores equal to theta (two whose ties floats get wrong)."""
    return list(_streams(current_key()))


# -- part (b): the certificate ---------------------------------------------------------------------------


def reference_counterexample(n):
    """The lecturer's stream for target x_0 at alpha = 3/2, theta = N: promote first, then demote.

    While w_0 <= theta, show x_0 with the heaviest irrelevant variables that keep w.x <= theta
    (label +1, a promotion that raises Phi by as much as the rule allows). Then show negative
    examples: the heaviest irrelevant variables that keep w.x <= theta, plus the lightest one that
    pushes the score above theta (a demotion that spends as little of Phi as possible), until the
    irrelevant weights sum to at most theta. Exact throughout (Fractions).
    """
    theta = Fraction(n)
    w = [Fraction(1)] * n
    rows, labels = [], []
    while True:
        heaviest = sorted(range(1, n), key=lambda i: -w[i])
        chosen, total = ([0], w[0]) if w[0] <= theta else ([], Fraction(0))
        for i in heaviest:
            if total + w[i] <= theta:
                chosen.append(i)
                total += w[i]
        if w[0] <= theta:
            label = 1
        else:
            over = next((i for i in reversed(heaviest) if i not in chosen and total + w[i] > theta), None)
            if over is None:
                break
            chosen.append(over)
            label = -1
        for i in chosen:
            w[i] = w[i] * ALPHA if label == 1 else w[i] / ALPHA
        row = [0] * n
        for i in chosen:
            row[i] = 1
        rows.append(row)
        labels.append(label)
    return rows, labels, [0]


REFERENCE = {"Winnow2Learner": ReferenceWinnow2, "winnow2_counterexample": reference_counterexample}


def certificate(n, points=1.0):
    """One instance, N = n: full points above the notes' bound for the student's k (the verifier's optimum)."""
    params = {"n": n, "alpha": ALPHA, "max_rounds": MAX_ROUNDS}
    made = verify_certificate("winnow2_stream", reference_counterexample(n), params)
    target = notes_bound_target(n, 1)
    assert made.valid and made.quality >= target == made.optimum, (n, made)
    bound = 2 + 3 * (np.log2(n) + 1)
    return checks.Certificate(
        f"N = {n}: more than 2 + 3(lg N + 1) = {bound:.2f} mistakes for one relevant variable",
        args=(n,),
        verifier="winnow2_stream",
        params=params,
        points=points,
    )


@functools.cache
def _certificates():
    return tuple(certificate(n) for n in (40, 80, 96, 128, 192, 256))


def certificates():
    """Six instances, other than the public ones, where the chapter's searches break the bound (N = 40 to 256)."""
    return list(_certificates())


# -- the public checks and the grade ------------------------------------------------------------------


def public_checks():
    """The notebook's public checks, one section per part (recorded into winnow2_public.json)."""
    rng = np.random.default_rng(13)
    X, y, _ = ol.disjunction_stream(12, 2, 80, rng)
    X_ties, _, _ = ol.disjunction_stream(6, 1, 40, rng)
    X_ties, y_ties = _labelled(np.vstack([np.ones((1, 6)), X_ties]), [3])
    X_float = np.zeros((3, 14), dtype=np.uint8)
    X_float[:, 3:12] = 1  # nine weights demoted twice to 4/9, then w.x = 4 = theta: a tie a float sum misses
    X_more, _, _ = ol.disjunction_stream(14, 2, 40, rng)
    X_float, y_float = _labelled(np.vstack([X_float, X_more]), [0, 1])
    return {
        "Winnow2Learner": {
            "title": "Assignment 13 (a), public checks",
            "observe": {"weights": "weights", "promotions": "promotions", "demotions": "demotions"},
            "streams": [
                checks.Stream(
                    "N = 12, k = 2, alpha = 3/2, theta = 12", X, y, params={"n": 12, "alpha": ALPHA, "theta": 12}
                ),
                checks.Stream(
                    "ties: N = 6, alpha = 2, theta not given (= N)", X_ties, y_ties, params={"n": 6, "alpha": 2}
                ),
                checks.Stream(
                    "ties after demotions: N = 14, alpha = 3/2, theta = 4",
                    X_float,
                    y_float,
                    params={"n": 14, "alpha": ALPHA, "theta": 4},
                ),
            ],
        },
        "winnow2_counterexample": {
            "title": "Assignment 13 (b), public checks",
            "certificates": [certificate(48), certificate(64)],
        },
    }


def grade(student) -> checks.GradeReport:
    """(a) the learner against the exact reference on ten streams; (b) six streams replayed exactly."""
    learner = checks.compare_learners(
        student["Winnow2Learner"], ReferenceWinnow2, streams(), observe=REFERENCE_STATE, title=TITLE
    )
    return learner + checks.verify_certificates(student["winnow2_counterexample"], certificates())
