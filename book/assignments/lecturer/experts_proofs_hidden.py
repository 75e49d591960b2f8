"""Hidden tests of Assignment 11, Weighted Majority and its mistake bound (chapter 5, Experts and regret).

Lecturer edition only: the student-edition builder removes ``book/assignments/**/lecturer/``.
Run by ``python -m booktools grade SUBMISSIONS --assignment experts_proofs --out scores.csv``.

Three parts. ``weighted_majority_predictions`` (code) is compared round by round with
``onlinelib.weighted_majority_run``, whose ties are decided exactly (one point per case).
``weighted_majority_stream`` (a certificate) is replayed exactly by
``onlinelib.certificates.verify_weighted_majority_stream``; full points at the mistakes of the
lecturer's adversary on the same instance (``target``, computed here). The proof of the bound
(QUESTIONS) is graded by hand against the rubric below.

Known gap: ``onlinelib.certificates._wma_vote_sign`` (the verifier's exact vote) cannot be
removed, since the notebook's public check of part (b) runs the verifier in the sandbox.
"""

import itertools
from fractions import Fraction
from pathlib import Path

import numpy as np

import onlinelib as ol
from booktools.grading import checks
from booktools.grading.hidden import load_hidden
from onlinelib.certificates import verify_certificate

PARTS = {"weighted_majority_predictions": "function", "weighted_majority_stream": "certificate"}
TITLE = "Assignment 11: Weighted Majority and its mistake bound (chapter 5)"
# Weighted Majority in every form the library has it (with eta = 1 over the experts it is Halving),
# its engine and exact vote, and the library's adversary against it.
FORBIDDEN = [
    "onlinelib.WeightedMajority",
    "onlinelib.RandomizedWeightedMajority",
    "onlinelib.weighted_majority_run",
    "onlinelib.simulate_randomized_weighted_majority",
    "onlinelib.wma_adversary",
    "onlinelib.experts._run",
    "onlinelib.experts._vote",
    "onlinelib.experts._weight_rows",
    "onlinelib.experts._log_weights",
    "onlinelib.experts._exact_vote_sign",
    "onlinelib._kernels_experts",
    "onlinelib.Halving",
    "onlinelib.version_space._VersionSpace",
]
QUESTIONS = [
    {
        "id": "wm-bound",
        "title": "Weighted Majority's mistake bound, exact and standard",
        "items": [
            (
                "upper",
                "Defines the potential Phi_t (the total weight, Phi_0 = N, never increasing) and shows that a "
                "mistake puts at least half of it on the wrong side (with the tie rule), so Phi drops by a factor "
                "at most 1 - eta/2 per mistake: Phi_T <= N (1 - eta/2)^M.",
                2,
            ),
            ("lower", "Bounds Phi_T from below by the best expert's weight (1 - eta)^m.", 1),
            (
                "exact",
                "Combines the two and takes logarithms with the right signs to reach "
                "M <= [ln N + m ln(1/(1-eta))] / ln(1/(1-eta/2)).",
                1,
            ),
            (
                "log_inequalities",
                "Proves ln(1/(1-eta/2)) >= eta/2 and ln(1/(1-eta)) <= eta + eta^2 for 0 < eta <= 1/2 (a series, "
                "a derivative or a convexity argument), not only states them.",
                1,
            ),
            ("standard", "Substitutes them to get M <= 2(1 + eta) m + 2 ln N / eta.", 1),
        ],
    }
]
MAX_ROUNDS = 1000


def reference_predictions(P, y, eta):
    """The reference for part (a): Weighted Majority's predictions, ties to +1 and decided exactly."""
    return ol.weighted_majority_run(P, y, eta).predictions


# -- part (b): the lecturer's adversary, Assignment 9's ----------------------------------------------


# Assignment 9's hidden file, beside this one (lecturer material too): its REFERENCE is the adversary.
reference_stream = load_hidden(Path(__file__).with_name("wm_adversary_hidden.py")).REFERENCE


REFERENCE = {"weighted_majority_predictions": reference_predictions, "weighted_majority_stream": reference_stream}


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
    rng = np.random.default_rng(20261111)
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


def certificate(n_experts, eta, m, points=1.0):
    """One instance; full points at the reference adversary's own number of mistakes on it."""
    params = {"eta": eta, "max_rounds": MAX_ROUNDS, "max_experts": n_experts, "max_best_mistakes": m}
    made = verify_certificate("weighted_majority_stream", reference_stream(n_experts, eta, m), params)
    assert made.valid, made.reason
    return checks.Certificate(
        f"N = {n_experts}, eta = {eta}, m = {m} (the bound's floor {made.optimum}, "
        f"the book's adversary {made.quality})",
        args=(n_experts, eta, m),
        verifier="weighted_majority_stream",
        params=params,
        target=made.quality,
        points=points,
    )


def certificates():
    """Four instances, other than the public ones."""
    return [
        certificate(5, Fraction(1, 2), 3),
        certificate(4, Fraction(1, 3), 2),
        certificate(9, Fraction(1, 2), 1),
        certificate(3, Fraction(1, 4), 5),
    ]


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
        "weighted_majority_stream": {
            "title": "Assignment 11 (b), public checks",
            "certificates": [certificate(4, Fraction(1, 2), 1), certificate(3, Fraction(1, 2), 3)],
        },
    }


def grade(student) -> checks.GradeReport:
    """(a) the predictions against the reference in every round; (b) the streams replayed exactly."""
    predictions = checks.compare_functions(
        student["weighted_majority_predictions"],
        REFERENCE["weighted_majority_predictions"],
        cases(),
        rounds=True,
        title=TITLE,
    )
    return predictions + checks.verify_certificates(student["weighted_majority_stream"], certificates())
