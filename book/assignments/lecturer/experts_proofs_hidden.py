"""Hidden tests of Assignment 11, Weighted Majority and its mistake bound (chapter 5, Experts and regret).

Lecturer edition only: the student-edition builder removes ``book/assignments/**/lecturer/``.
Run by ``python -m booktools grade SUBMISSIONS --assignment experts_proofs --out scores.csv``.

Two parts. ``weighted_majority_predictions`` (code) is compared round by round with
``onlinelib.weighted_majority_run``, whose ties are decided exactly (one point per case). The proof
of the bound (QUESTIONS) is graded by hand against the rubric below: each item has 0 / half / full
descriptors and the common errors, and the question a model proof for the markers. (Until issue 36
a part (b) asked for an adversary against Weighted Majority: that is Assignment 9's task, and is
gone. With it went the reason to leave the certificate checks' exact vote in the graded library.)

Keyed instances (``booktools.grading.course_key``): the six random streams of part (a), drawn by
``course_rng("experts_proofs/cases")``; the stream decided by the far-behind expert is hand-made.
"""

import itertools
from fractions import Fraction

import numpy as np

import onlinelib as ol
from booktools.grading import checks
from booktools.grading.course_key import course_rng

PARTS = {"weighted_majority_predictions": "function"}
TITLE = "Assignment 11: Weighted Majority and its mistake bound (chapter 5)"
# Weighted Majority in every form the library has it (with eta = 1 over the experts it is Halving),
# its engine and exact vote, and the certificate checks' exact vote (whose verifier replays Weighted
# Majority; the notebook's public checks compare predictions and never call it).
FORBIDDEN = [
    "onlinelib.WeightedMajority",
    "onlinelib.RandomizedWeightedMajority",
    "onlinelib.weighted_majority_run",
    "onlinelib.simulate_randomized_weighted_majority",
    "onlinelib.experts._run",
    "onlinelib.experts._vote",
    "onlinelib.experts._weight_rows",
    "onlinelib.experts._log_weights",
    "onlinelib.experts._exact_vote_sign",
    "onlinelib._kernels_experts",
    "onlinelib.Halving",
    "onlinelib.version_space._VersionSpace",
    "onlinelib.certificates._wma_vote_sign",
    "onlinelib.experts._integer_powers",  # the vote's weights (1 - eta)^k
    "onlinelib.certificates._float_chain",
    "onlinelib.chapters.experts",  # exact_wma_replay is a whole Weighted Majority
]
WM_MODEL = r"""
Write $w_{t,i} = (1-\eta)^{c_{t,i}}$ for the weight of expert $i$ before round $t$ ($c_{t,i}$ its
mistakes so far) and $\Phi_t = \sum_i w_{t,i}$ for the potential, so $\Phi_1 = N$. Let $M$ be
Weighted Majority's mistakes and $m$ those of the best expert, after $T$ rounds.

**Upper bound.** In round $t$ let $W^+$ and $W^-$ be the weights of the experts predicting $+1$
and $-1$. Weighted Majority predicts $+1$ iff $W^+ \ge W^-$. If it errs, the experts that agreed
with it were wrong too, and they hold at least half of $\Phi_t$: on a wrong $+1$ (outcome $-1$)
the wrong experts hold $W^+ \ge \Phi_t/2$, including a tie $W^+ = W^- = \Phi_t/2$, which the tie
rule decides as $+1$; on a wrong $-1$, $W^- > W^+$, so $W^- > \Phi_t/2$. Every wrong expert's
weight is multiplied by $1-\eta$, so the potential loses $\eta$ times the wrong weight:

$$
\Phi_{t+1} \le \Phi_t - \eta\,\frac{\Phi_t}{2} = \Bigl(1-\frac{\eta}{2}\Bigr)\Phi_t .
$$

In a round without a mistake of Weighted Majority, weights only shrink or stay, so
$\Phi_{t+1} \le \Phi_t$. Hence $\Phi_{T+1} \le N (1-\eta/2)^M$.

**Lower bound.** All weights are positive ($\eta < 1$), so the potential is at least the weight of
the best expert: $\Phi_{T+1} \ge (1-\eta)^m$.

**The exact bound.** So $(1-\eta)^m \le N (1-\eta/2)^M$. Both sides are positive; taking
logarithms (an increasing function),

$$
m \ln(1-\eta) \le \ln N + M \ln\Bigl(1-\frac{\eta}{2}\Bigr),
\qquad\text{i.e.}\qquad
M \ln\frac{1}{1-\eta/2} \le \ln N + m \ln\frac{1}{1-\eta} ,
$$

and since $\ln\frac{1}{1-\eta/2} > 0$ (as $0 < 1 - \eta/2 < 1$) dividing by it keeps the direction:

$$
M \le \frac{\ln N + m \ln\frac{1}{1-\eta}}{\ln\frac{1}{1-\eta/2}} .
$$

**Two inequalities.** For $0 < x < 1$, $\ln\frac{1}{1-x} = \sum_{n \ge 1} x^n/n$ (the series
converges absolutely). All its terms are positive, so $\ln\frac{1}{1-x} \ge x$; with $x = \eta/2$,
$\ln\frac{1}{1-\eta/2} \ge \eta/2$. For $0 < \eta \le \frac12$,

$$
\ln\frac{1}{1-\eta} = \eta + \sum_{n \ge 2}\frac{\eta^n}{n} \le \eta + \frac{1}{2}\sum_{n \ge 2}\eta^n
= \eta + \frac{\eta^2}{2(1-\eta)} \le \eta + \eta^2 ,
$$

the last step because $1 - \eta \ge \frac12$. (Alternatively, $f(\eta) = \eta + \eta^2 + \ln(1-\eta)$
has $f(0) = 0$ and $f'(\eta) = 1 + 2\eta - \frac{1}{1-\eta} = \frac{\eta(1-2\eta)}{1-\eta} \ge 0$ on
$[0, \frac12]$.) The second inequality fails for larger $\eta$: at $\eta = 0.7$,
$\ln\frac{1}{0.3} \approx 1.204 > 1.19$.

**The standard form.** The numerator of the exact bound is nonnegative, so replacing the
denominator by the smaller positive $\eta/2$ and the numerator by the larger $\ln N + m(\eta+\eta^2)$
can only increase the right-hand side:

$$
M \le \frac{\ln N + m(\eta + \eta^2)}{\eta/2} = 2(1+\eta)\,m + \frac{2\ln N}{\eta} .
$$
"""
QUESTIONS = [
    {
        "id": "wm-bound",
        "title": "Weighted Majority's mistake bound, exact and standard",
        "items": [
            {
                "id": "upper",
                "points": 2,
                "text": "Phi_T <= N (1 - eta/2)^M: a mistake puts at least half the weight on the wrong side",
                "full": "Defines the potential (the total weight, N at the start), shows from the prediction rule "
                "that on a mistake of Weighted Majority the experts that were wrong hold at least half of it, "
                "treating the tie (a tie is predicted +1, so on outcome -1 the wrong side holds exactly half), "
                "computes that the potential then drops by eta times that weight, so by a factor at most "
                "1 - eta/2, says it never increases in the other rounds, and concludes Phi <= N (1 - eta/2)^M.",
                "half": "The factor 1 - eta/2 per mistake and Phi <= N (1 - eta/2)^M, with exactly one step "
                "unjustified: 'at least half' asserted without the prediction rule, or the tie not treated "
                "('more than half'), or the rounds without a mistake not addressed (or Phi said to stay the "
                "same in them), or the drop computed wrongly but the right factor stated.",
                "zero": "No upper bound on the potential; or a factor that does not follow (the whole potential "
                "times 1 - eta, 'at most half the weight is wrong'); or half of the experts counted instead of "
                "half of the weight; or two or more of the steps above unjustified.",
                "errors": [
                    "Says the wrong side holds 'more than half' the weight and ignores the tie: with ties to +1, "
                    "a tie followed by the outcome -1 is a mistake with exactly half on the wrong side. At most "
                    "half.",
                    "Multiplies the whole potential by 1 - eta on a mistake (Phi_{t+1} <= (1 - eta) Phi_t): only "
                    "the wrong experts lose weight, so this is false. Zero.",
                    "Counts experts instead of weight ('at least half of the experts were wrong'). Zero.",
                    "Says the potential is unchanged when Weighted Majority is right (experts that erred still "
                    "lose weight; only 'does not increase' is true). At most half.",
                ],
            },
            {
                "id": "lower",
                "points": 1,
                "text": "Phi_T >= (1 - eta)^m, the best expert's weight",
                "full": "Bounds the potential below by one term of the sum, the best expert's weight (1 - eta)^m, "
                "saying why a sum of positive weights is at least one of them and that m counts that expert's "
                "mistakes.",
                "half": "Phi >= (1 - eta)^m stated with the right m but without saying why (the weights are "
                "positive, the sum is at least one term), or written as an equality.",
                "zero": "No lower bound, or a wrong one: N (1 - eta)^m (every expert as good as the best), or m "
                "taken as all the experts' mistakes, or the worst expert's weight.",
                "errors": [
                    "Writes Phi >= N (1 - eta)^m, as if every expert made only m mistakes. Zero.",
                    "Uses for m the mistakes of Weighted Majority or of all experts together. Zero.",
                ],
            },
            {
                "id": "exact",
                "points": 1,
                "text": "Logarithms with the right signs: M <= [ln N + m ln(1/(1-eta))] / ln(1/(1-eta/2))",
                "full": "Combines (1 - eta)^m <= N (1 - eta/2)^M, takes logarithms (increasing), and divides by "
                "ln(1/(1 - eta/2)) > 0, saying why it is positive, or by the negative ln(1 - eta/2) with the "
                "inequality reversed, reaching the stated bound.",
                "half": "The stated bound is reached, but the sign of the divisor is not justified, or two sign "
                "slips cancel (a division by ln(1 - eta/2) < 0 without reversing, then an unexplained flip).",
                "zero": "The final inequality is wrong (reversed, or with ln(1 - eta/2) in the denominator), or "
                "the bound is stated without combining the two bounds.",
                "errors": [
                    "Divides by ln(1 - eta/2), which is negative, without reversing the inequality: zero if the "
                    "result is wrong, at most half if it is right by a second, unexplained flip.",
                    "Takes the logarithm of a sum as the sum of logarithms (ln Phi = sum of ln w_i). Zero.",
                ],
            },
            {
                "id": "log_inequalities",
                "points": 1,
                "text": "Proves ln(1/(1-eta/2)) >= eta/2 and ln(1/(1-eta)) <= eta + eta^2 for 0 < eta <= 1/2",
                "full": "Proves both: the first for every x in (0, 1) (e.g. the series sum x^n/n has positive "
                "terms, or ln z <= z - 1) applied at x = eta/2; the second using eta <= 1/2 (e.g. the tail "
                "sum_{n>=2} eta^n/n <= eta^2/(2(1 - eta)) <= eta^2, or f = eta + eta^2 + ln(1 - eta) with "
                "f(0) = 0 and f' = eta(1 - 2 eta)/(1 - eta) >= 0).",
                "half": "One of the two proved and the other only stated or proved with a gap (a series tail "
                "bounded without summing it, a derivative whose sign is not checked on (0, 1/2]).",
                "zero": "Both only stated, or 'proved' by a few values, a plot, or a Taylor expansion truncated "
                "without a bound on the remainder.",
                "errors": [
                    "Truncates the Taylor series (ln(1/(1 - eta)) ~ eta + eta^2/2) and calls it a proof: without "
                    "a bound on the remainder it is not an inequality. That inequality counts as unproved.",
                    "Checks the inequalities at a few values of eta or on a plot. That inequality counts as unproved.",
                    "Never uses eta <= 1/2 in the second inequality, which fails for larger eta (eta = 0.7: "
                    "ln(1/0.3) = 1.204 > 1.19): the argument cannot be right. That inequality counts as "
                    "unproved.",
                ],
            },
            {
                "id": "standard",
                "points": 1,
                "text": "Substitutes them: M <= 2(1 + eta) m + 2 ln N / eta",
                "full": "Replaces the denominator by the smaller eta/2 and the numerator by the larger "
                "ln N + m(eta + eta^2), says why each replacement can only increase the bound (positive "
                "denominator, nonnegative numerator), and simplifies to 2(1 + eta) m + 2 ln N / eta.",
                "half": "The right result, but the direction of the substitutions not justified, or an algebra "
                "slip in the last simplification that changes a constant.",
                "zero": "A substitution in the wrong direction (an upper bound in the denominator, a lower bound "
                "in the numerator), or the result only stated.",
                "errors": [
                    "Uses an upper bound of ln(1/(1 - eta/2)) in the denominator (e.g. eta): the inequality goes "
                    "the wrong way. Zero.",
                    "Applies the standard form for eta > 1/2, where ln(1/(1 - eta)) <= eta + eta^2 fails. At "
                    "most half.",
                ],
            },
        ],
        "model": WM_MODEL,
    }
]


def reference_predictions(P, y, eta):
    """The reference for part (a): Weighted Majority's predictions, ties to +1 and decided exactly."""
    return ol.weighted_majority_run(P, y, eta).predictions


REFERENCE = {"weighted_majority_predictions": reference_predictions}


# -- the cases ------------------------------------------------------------------------------------------


def tie_stream(n_experts, eta, length, rng):
    """Advice chosen, where it can be, so that the vote is an exact tie between unequal weights (two sides
    whose multisets of mistake counts differ; ties go to +1), and the outcome that keeps the experts'
    mistake counts closest together (so that ties stay possible)."""
    eta = Fraction(eta)
    counts, P, y = [0] * n_experts, [], []
    signs = list(itertools.product((-1, 1), repeat=n_experts))
    for _ in range(length):
        weights = [(1 - eta) ** c for c in counts]
        ties = [
            s
            for s in signs
            if sum(w * p for w, p in zip(weights, s, strict=True)) == 0
            and sorted(c for c, p in zip(counts, s, strict=True) if p > 0)
            != sorted(c for c, p in zip(counts, s, strict=True) if p < 0)
        ]
        advice = ties[rng.integers(len(ties))] if ties else signs[rng.integers(len(signs))]
        spreads = {}
        for outcome in (-1, 1):
            after = [c + (p != outcome) for c, p in zip(counts, advice, strict=True)]
            spreads[outcome] = (max(after) - min(after), rng.random())
        outcome = min(spreads, key=spreads.get)
        P.append(advice)
        y.append(outcome)
        counts = [c + (p != outcome) for c, p in zip(counts, advice, strict=True)]
    return np.array(P, dtype=np.int8), np.array(y, dtype=np.int8)


def far_behind_stream(behind=1200):
    """Two leading experts that always agree with the outcome, a third that is always wrong; then the
    leaders disagree: the vote is 1 against 1 + (1/2)^behind, and the far-behind expert decides (-1)."""
    P = [[1, 1, -1], [-1, -1, 1]] * (behind // 2) + [[1, -1, -1], [1, -1, 1], [-1, 1, 1]]
    y = [1, -1] * (behind // 2) + [-1, 1, 1]
    return np.array(P, dtype=np.int8), np.array(y, dtype=np.int8)


def cases():
    """Seven streams, other than the public ones (one point each)."""
    rng = course_rng("experts_proofs/cases")
    out = []
    P, y = ol.iid_experts(300, rng.uniform(0.3, 0.9, size=8), rng)
    out.append(checks.Case("eight i.i.d. experts, eta = 0.5", (P, y, 0.5)))
    P, y = ol.planted_best_expert(400, 6, 10, rng)
    out.append(checks.Case("planted best expert (10 mistakes), eta = 0.25", (P, y, 0.25)))
    P, y = tie_stream(5, Fraction(1, 2), 80, rng)
    out.append(checks.Case("exact ties between unequal weights, N = 5, eta = 0.5", (P, y, 0.5)))
    P, y = tie_stream(7, Fraction(3, 4), 60, rng)
    out.append(checks.Case("exact ties between unequal weights, N = 7, eta = 0.75", (P, y, 0.75)))
    P, y = ol.planted_best_expert(80, 9, 0, rng)
    out.append(checks.Case("a perfect expert among 9, eta = 1 (Halving)", (P, y, 1.0)))
    P, y = ol.iid_experts(2000, [0.55, 0.5, 0.45, 0.4], rng)
    out.append(checks.Case("2000 rounds, eta = 0.5 (weights below 2^-1074 unless rescaled)", (P, y, 0.5)))
    P, y = far_behind_stream()
    out.append(checks.Case("a tie of the leaders decided by an expert 1200 mistakes behind", (P, y, 0.5)))
    return out


def public_checks():
    """The notebook's public checks, one section per part, recorded by `python -m booktools grade --write-public-checks`."""
    rng = np.random.default_rng(11)
    P1, y1 = ol.iid_experts(60, [0.9, 0.7, 0.6, 0.4], rng)
    P2, y2 = tie_stream(3, Fraction(1, 2), 30, rng)
    return {
        "weighted_majority_predictions": {
            "title": "Assignment 11 (a), public checks",
            "rounds": True,
            "cases": [
                checks.Case("four i.i.d. experts, eta = 0.3", (P1, y1, 0.3)),
                checks.Case("exact ties between unequal weights, N = 3, eta = 0.5", (P2, y2, 0.5)),
            ],
        },
    }


def grade(student) -> checks.GradeReport:
    """(a) the predictions against the reference in every round (one point per case)."""
    return checks.compare_functions(
        student["weighted_majority_predictions"],
        REFERENCE["weighted_majority_predictions"],
        cases(),
        rounds=True,
        title=TITLE,
    )
