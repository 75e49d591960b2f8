"""Hidden tests of Assignment 9, an adversary for Weighted Majority (chapter 5, Experts and regret).

Lecturer edition only: the student-edition builder removes ``book/assignments/**/lecturer/``.
Run by ``python -m booktools grade SUBMISSIONS --assignment wm_adversary --out scores.csv``.

A certificate assignment: the student's ``weighted_majority_stream(n_experts, eta, m)`` returns
``(P, y)``, which ``onlinelib.certificates.verify_weighted_majority_stream`` replays exactly: the
stream is valid when the best expert makes at most m mistakes, and its quality is the number M
of mistakes of deterministic Weighted Majority. The bound's floor (the verdict's ``optimum``) is
not reachable in general, so full points are set at the exact optimum, the most mistakes of any
valid stream, found by ``onlinelib.wm_search.weighted_majority_optimum`` (a memoised search over
the experts' mistake counts, whose docstring proves why it is exhaustive) and used as ``target``:
a valid stream earns ``points * M / optimum``. Every instance here is small enough for the search
(at most 1,604 states, see ``STATES``); the reference is the search's own stream.

Keyed instances: none. The (N, eta, m) of the instances are written out here and are the same under every
course key, so whoever reads this file knows them: keep it in a private folder (``--hidden-dir``) if that
matters.
"""

from fractions import Fraction
from functools import cache

from booktools.grading import checks
from onlinelib.certificates import verify_certificate
from onlinelib.wm_search import weighted_majority_optimum

FUNCTION = "weighted_majority_stream"
KIND = "certificate"  # FUNCTION returns an object, verified exactly
TITLE = "Assignment 9: an adversary for Weighted Majority (chapter 5)"
# Weighted Majority itself (a student's adversary must predict it; with the library's learner the
# adversary is a loop of three lines), the library's adversary against it, and the exact search that
# sets the targets (it returns an optimal stream). The verifier's own exact replay
# (onlinelib.certificates) stays: the notebook's public checks run it.
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
    "onlinelib.wm_search",
    "onlinelib.Halving",  # Weighted Majority with eta = 1 over the experts
    "onlinelib.version_space._VersionSpace",
]
MAX_ROUNDS = 1000
#: The most states the search may visit on an instance of this file (all of them need at most 1,604).
STATES = 5_000


@cache
def _optimum(n_experts, eta, m):
    """The exact search on one instance, once per process (the targets and the reference share it)."""
    return weighted_majority_optimum(n_experts, eta, m, max_states=STATES)


def REFERENCE(n_experts, eta, m):
    """The lecturer's adversary: an optimal stream, from the exact search over the experts' mistake counts.

    Every round is a mistake of Weighted Majority: a set of experts holding at least half the
    weight predicts +1 (ties go to +1) and the outcome is -1. The search tries, in each state of
    the mistake counts, every such set that is minimal (dropping its lightest member takes it
    below half) and keeps an expert within the budget m, and remembers the best value of each
    state; exact integer weights. See ``onlinelib.wm_search`` for why nothing else can do better.
    """
    found = _optimum(n_experts, Fraction(eta), m)
    return [list(row) for row in found.P], list(found.y)


def certificate(n_experts, eta, m, points=1.0):
    """One instance; full points at the exact optimum, checked against the verifier's replay of the reference."""
    params = {"eta": eta, "max_rounds": MAX_ROUNDS, "max_experts": n_experts, "max_best_mistakes": m}
    found = _optimum(n_experts, Fraction(eta), m)
    made = verify_certificate("weighted_majority_stream", REFERENCE(n_experts, eta, m), params)
    assert made.valid and made.quality == found.mistakes, (made.reason, found.mistakes)
    return checks.Certificate(
        f"N = {n_experts}, eta = {eta}, m = {m} (the bound's floor {made.optimum}, the optimum {found.mistakes})",
        args=(n_experts, eta, m),
        verifier="weighted_majority_stream",
        params=params,
        target=found.mistakes,
        points=points,
    )


def cases():
    """Ten instances, other than the public ones: 2 to 12 experts, rates from 1/10 to 1, budgets 0 to 5.

    On eight of them the optimum is above both what the greedy rule reaches (the heaviest experts
    within the budget err first) and what the one-step look-ahead of the earlier reference reached.
    On N = 6, eta = 2/3, m = 4 an optimal side holds exactly half the weight in unequal powers of
    1/3, a tie that a search in floats misses (it finds 13 of the 14 mistakes).
    """
    return [
        certificate(8, Fraction(1, 2), 3),
        certificate(6, Fraction(1, 2), 5),
        certificate(2, Fraction(1, 2), 4),
        certificate(5, Fraction(1, 4), 2),
        certificate(7, Fraction(1, 3), 3),
        certificate(6, Fraction(1, 5), 2),
        certificate(4, Fraction(1, 10), 3),
        certificate(10, Fraction(3, 4), 2),
        certificate(6, Fraction(2, 3), 4),
        certificate(12, 1, 0),
    ]


def public_checks():
    """The notebook's public checks (recorded into wm_adversary_public.json from this function)."""
    return {
        "title": "Assignment 9, public checks",
        "certificates": [certificate(5, Fraction(1, 2), 2), certificate(3, Fraction(1, 3), 4)],
    }


def grade(student) -> checks.GradeReport:
    """Each instance's stream replayed exactly: points * min(1, M / the optimum) for a valid stream."""
    return checks.verify_certificates(student, cases(), title=TITLE)
