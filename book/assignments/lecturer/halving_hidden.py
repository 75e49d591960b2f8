"""Hidden tests of Assignment 1, the Halving algorithm (chapter 1, Mistake bounds).

Lecturer edition only: the student-edition builder removes ``book/assignments/**/lecturer/``.
Run by ``python -m booktools grade SUBMISSIONS --assignment halving --out scores.csv``, which calls
``grade`` on the class the student's notebook defines under the name ``FUNCTION``.

Keyed instances (``booktools.grading.course_key``): the first four streams, drawn by
``course_rng("halving/streams")`` until each has the votes its checks need (``telling``); the adaptive
adversary's stream is the same under every key.
"""

import numpy as np

import onlinelib as ol
from booktools.grading import checks
from booktools.grading.course_key import course_rng, draw_until

FUNCTION = "HalvingLearner"
KIND = "learner"  # FUNCTION builds a learner, which stays in the sandbox and is played round by round
TITLE = "Assignment 1: Halving (chapter 1)"
# What the student writes: absent from the library a graded notebook sees. Weighted Majority with
# eta = 1 over the concept table is Halving too (tests/test_library_shortcut.py), so it goes as well.
FORBIDDEN = [
    "onlinelib.Halving",
    "onlinelib.RandomizedHalving",
    "onlinelib.SOA",
    "onlinelib.version_space._VersionSpaceLearner",
    "onlinelib.version_space._VersionSpace",
    "onlinelib.version_space._halving_rule",
    "onlinelib.version_space._majority",
    "onlinelib.WeightedMajority",
    "onlinelib.RandomizedWeightedMajority",
    "onlinelib.weighted_majority_run",
    "onlinelib.experts._run",
    "onlinelib._kernels_experts",
]


def REFERENCE(table):
    """The reference solution: onlinelib's Halving over the truth table (n_concepts, n_instances)."""
    return ol.Halving(ol.ConceptClass(table))


def _table(cls):
    return np.array(cls.by_instance.T)


def without_tied_votes(table, X, y):
    """The stream (X, y) without the rounds whose vote the reference would tie (issue 36).

    A tied vote is the one condition on which the tie rule ("ties go to +1") decides the prediction.
    Rounds are dropped in order while the version space is followed, so every round kept is a vote
    of the surviving concepts that one side wins; the labels stay the target's. Counts are exact
    integers (``Halving.votes``).
    """
    learner = REFERENCE(table)
    keep = []
    for t, (x, label) in enumerate(zip(X, y, strict=True)):
        negative, positive = learner.votes(int(x))
        if negative != positive:
            keep.append(t)
            learner.update(int(x), int(label))
    return X[keep], y[keep]


def telling(table, tie: bool):
    """A condition on a stream (X, y) of ``table``: what a keyed stream must hold for its checks to tell.

    Some vote is lost by one concept (|V| odd: a majority rounded to |V| // 2 gets it wrong), a vote
    is tied if ``tie`` (the tie rule decides it) and none if not; SOA predicts as Halving does in every
    round, and Randomized Halving (seeded 0) errs in one (tests/test_library_shortcut.py). Counts
    are exact integers (``Halving.votes``).
    """
    concepts = ol.ConceptClass(table)

    def condition(stream):
        reference = REFERENCE(table)
        soa, randomized = ol.SOA(concepts), ol.RandomizedHalving(concepts, np.random.default_rng(0))
        lost_by_one = tied = randomized_errs = False
        for x, label in zip(*stream, strict=True):
            negative, positive = reference.votes(int(x))
            lost_by_one |= (negative + positive) % 2 == 1 and positive == (negative + positive) // 2
            tied |= negative == positive
            prediction = reference.predict(int(x))
            if soa.predict(int(x)) != prediction:
                return False
            randomized_errs |= randomized.predict(int(x)) != prediction
            for learner in (reference, soa, randomized):
                learner.update(int(x), int(label))
        return lost_by_one and tied == tie and randomized_errs

    return condition


def keyed_stream(rng, cls, draw, tie: bool, what: str):
    """``draw(rng)`` (a stream of ``cls``), drawn again until it is ``telling``."""
    return draw_until(rng, draw, telling(_table(cls), tie), what)


def streams():
    """Random and adversarial streams on four classes (5 points).

    Keyed (``course_rng``): the first four, each drawn until it is ``telling``. The adaptive
    adversary's stream is made by the reference, the same under every key.

    Partial credit (issue 36): the two random streams of thresholds and disjunctions have no tied
    vote, so a wrong tie rule costs only the three streams with ties. The first four streams have
    votes lost by one concept (|V| odd), which a majority rounded to |V| // 2 gets wrong; the
    adaptive adversary's have none. On every stream SOA predicts as Halving does
    (tests/test_library_shortcut.py), and Randomized Halving (seeded 0 there) errs.
    """
    rng = course_rng("halving/streams")
    out = []
    line = ol.thresholds(31)
    X, y = keyed_stream(
        rng,
        line,
        lambda rng: without_tied_votes(_table(line), *ol.random_stream(line, target=5, length=80, rng=rng)),
        False,
        "a random stream of thresholds",
    )
    out.append(checks.Stream("thresholds on 31 points, random", X, y, params={"table": _table(line)}))
    every = ol.all_concepts(5)
    X, y = keyed_stream(
        rng,
        every,
        lambda rng: ol.random_stream(every, target=int(rng.integers(every.size)), length=50, rng=rng),
        True,
        "a random stream of all concepts on 5 points",
    )
    out.append(checks.Stream("all 32 concepts on 5 points, random, tied votes", X, y, params={"table": _table(every)}))
    disj = ol.monotone_disjunctions(4)
    X, y = keyed_stream(
        rng,
        disj,
        lambda rng: without_tied_votes(_table(disj), *ol.random_stream(disj, target=0b0011, length=60, rng=rng)),
        False,
        "a random stream of disjunctions",
    )
    out.append(checks.Stream("monotone disjunctions of 4 variables, random", X, y, params={"table": _table(disj)}))
    single = ol.singletons(12)
    # its last vote, two concepts left, is tied
    X, y = keyed_stream(
        rng, single, lambda rng: ol.one_per_round_adversary(single, target=12, rng=rng), True, "a singletons stream"
    )
    out.append(
        checks.Stream(
            "singletons on 12 points, one-per-round adversary, a tied vote at the end",
            X,
            y,
            params={"table": _table(single)},
        )
    )
    # The adaptive adversary of chapter 1, against the reference: every round is a mistake for it.
    adaptive = ol.adaptive_adversary(REFERENCE(_table(every)), every)
    out.append(
        checks.Stream(
            "all concepts on 5 points, adaptive adversary, every vote tied",
            adaptive.X,
            adaptive.y,
            params={"table": _table(every)},
        )
    )
    return out


def public_checks():
    """The notebook's public checks, recorded from the reference by `python -m booktools grade --write-public-checks`."""
    line = ol.thresholds(15)  # 16 concepts, so the first votes can tie 8 to 8
    table = _table(line)
    rng = np.random.default_rng(1)
    X, y = ol.random_stream(line, target=6, length=40, rng=rng)
    X_adv, y_adv = ol.one_per_round_adversary(line, target=9, rng=rng)
    return {
        "title": "Assignment 1, public checks",
        "observe": {"|V|": "size"},
        "streams": [
            checks.Stream("thresholds on 15 points, random stream", X, y, params={"table": table}),
            checks.Stream("thresholds on 15 points, one-per-round adversary", X_adv, y_adv, params={"table": table}),
        ],
    }


def grade(student) -> checks.GradeReport:
    """Compare the student's class with the reference: predictions and |V| in every round."""
    return checks.compare_learners(
        student, REFERENCE, streams(), observe={"|V|": lambda learner: learner.size}, title=TITLE
    )
