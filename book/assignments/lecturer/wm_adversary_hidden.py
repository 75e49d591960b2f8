"""Hidden tests of Assignment 9, an adversary for Weighted Majority (chapter 5, Experts and regret).

Lecturer edition only: the student-edition builder removes ``book/assignments/**/lecturer/``.
Run by ``python -m booktools grade SUBMISSIONS --assignment wm_adversary --out scores.csv``.

A certificate assignment: the student's ``weighted_majority_stream(n_experts, eta, m)`` returns
``(P, y)``, which ``onlinelib.certificates.verify_weighted_majority_stream`` replays exactly: the
stream is valid when the best expert makes at most m mistakes, and its quality is the number M
of mistakes of deterministic Weighted Majority. The bound's floor (the verdict's optimum) is not
reachable in general, so full points are set at the mistakes of the lecturer's adversary
(``REFERENCE``) on the same instance, computed here from its stream: ``target``.
"""

import itertools
from fractions import Fraction

from booktools.grading import checks
from onlinelib.certificates import verify_certificate

FUNCTION = "weighted_majority_stream"
KIND = "certificate"  # FUNCTION returns an object, verified exactly
TITLE = "Assignment 9: an adversary for Weighted Majority (chapter 5)"
# Weighted Majority itself (a student's adversary must predict it; with the library's learner the
# adversary is a loop of three lines) and the library's adversary against it. The verifier's own
# exact replay (onlinelib.certificates) stays: the notebook's public checks run it.
FORBIDDEN = [
    "onlinelib.WeightedMajority",
    "onlinelib.RandomizedWeightedMajority",
    "onlinelib.weighted_majority_run",
    "onlinelib.simulate_randomized_weighted_majority",
    "onlinelib.wma_adversary",
    "onlinelib.experts._run",
    "onlinelib.experts._vote",
    "onlinelib.experts._exact_vote_sign",
    "onlinelib._kernels_experts",
    "onlinelib.Halving",  # Weighted Majority with eta = 1 over the experts
    "onlinelib.version_space._VersionSpace",
]
MAX_ROUNDS = 1000


def _weights(counts, a, b):
    """Integer weights proportional to (a/b)^c for the mistake counts c: a^c b^(top - c)."""
    top = max(counts)
    return [a**c * b ** (top - c) for c in counts]


def _alive_after(counts, wrong, m):
    return any(c + (i in wrong) <= m for i, c in enumerate(counts))


def _greedy(counts, weights, m):
    """The wrong side: every expert past its budget, then the heaviest ones left until it holds half the weight."""
    total = sum(weights)
    wrong = {i for i, c in enumerate(counts) if c > m}
    held = sum(weights[i] for i in wrong)
    for i in sorted((i for i, c in enumerate(counts) if c <= m), key=lambda i: (-weights[i], i)):
        if 2 * held >= total:
            break
        wrong.add(i)
        held += weights[i]
    return wrong if 2 * held >= total and _alive_after(counts, wrong, m) else None


def _greedy_rounds(counts, m, a, b, limit):
    counts, rounds = list(counts), 0
    while rounds < limit:
        wrong = _greedy(counts, _weights(counts, a, b), m)
        if wrong is None:
            break
        counts = [c + (i in wrong) for i, c in enumerate(counts)]
        rounds += 1
    return rounds


def _choices(counts, weights, m):
    """Every wrong side worth trying: all experts past their budget and a minimal set of the others
    that brings it to half the weight, one per distinct multiset of counts afterwards."""
    total = sum(weights)
    dead = {i for i, c in enumerate(counts) if c > m}
    alive = [i for i, c in enumerate(counts) if c <= m]
    base = sum(weights[i] for i in dead)
    seen = set()
    for size in range(len(alive) + 1):
        for extra in itertools.combinations(alive, size):
            held = base + sum(weights[i] for i in extra)
            if 2 * held < total or any(2 * (held - weights[i]) >= total for i in extra):
                continue
            wrong = dead | set(extra)
            key = tuple(sorted(c + (i in wrong) for i, c in enumerate(counts)))
            if key not in seen and _alive_after(counts, wrong, m):
                seen.add(key)
                yield wrong


def REFERENCE(n_experts, eta, m):
    """The lecturer's adversary: Weighted Majority errs in every round, the best expert at most m times.

    Each round, the experts on one side (they predict +1) hold at least half the weight, so
    Weighted Majority predicts +1 (ties go to +1) and the outcome is -1: every round is a
    mistake, and the experts of that side take one. The side is all experts already past the
    budget m (their mistakes cost nothing) and a minimal set of the others; among these sets it
    takes the one after which the greedy rule (the heaviest experts within budget first) lasts
    longest, and it stops when no side leaves an expert within budget. Exact integer weights.
    """
    eta = Fraction(eta)
    a, b = (1 - eta).numerator, (1 - eta).denominator
    counts, P = [0] * n_experts, []
    while len(P) < MAX_ROUNDS:
        weights = _weights(counts, a, b)
        best = None
        for wrong in _choices(counts, weights, m):
            after = [c + (i in wrong) for i, c in enumerate(counts)]
            value = _greedy_rounds(after, m, a, b, MAX_ROUNDS - len(P) - 1)
            if best is None or value > best[0]:
                best = (value, wrong)
        if best is None:
            break
        P.append([1 if i in best[1] else -1 for i in range(n_experts)])
        counts = [c + (i in best[1]) for i, c in enumerate(counts)]
    return P, [-1] * len(P)


def certificate(n_experts, eta, m, points=1.0):
    """One instance; full points at the reference adversary's own number of mistakes on it."""
    params = {"eta": eta, "max_rounds": MAX_ROUNDS, "max_experts": n_experts, "max_best_mistakes": m}
    made = verify_certificate("weighted_majority_stream", REFERENCE(n_experts, eta, m), params)
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


def cases():
    """Eight instances, other than the public ones: rates from 1/10 to 1 (Halving, m = 0)."""
    return [
        certificate(8, Fraction(1, 2), 3),
        certificate(6, Fraction(1, 2), 5),
        certificate(2, Fraction(1, 2), 4),
        certificate(5, Fraction(1, 4), 2),
        certificate(7, Fraction(1, 3), 3),
        certificate(6, Fraction(1, 5), 2),
        certificate(10, Fraction(1, 10), 1),
        certificate(12, 1, 0),
    ]


def public_checks():
    """The notebook's public checks, recorded from the reference by `python -m booktools grade --write-public-checks`."""
    return {
        "title": "Assignment 9, public checks",
        "certificates": [certificate(4, Fraction(1, 2), 2), certificate(3, Fraction(1, 3), 4)],
    }


def grade(student) -> checks.GradeReport:
    """Each instance's stream replayed exactly: points * min(1, M / the book's adversary's M) for a valid stream."""
    return checks.verify_certificates(student, cases(), title=TITLE)
