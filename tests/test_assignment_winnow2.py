"""Assignment 13, ``winnow2`` (chapter 4, Winnow): code, a certificate and a written proof.

The notebook ``book/assignments/winnow2.md`` asks for (a) ``Winnow2Learner``, the chapter's
Winnow2 with exact weights, (b) ``winnow2_counterexample(n)``, a stream labelled by a monotone
disjunction on which Winnow2 with alpha = 3/2 and theta = N makes more mistakes than the lecture
notes' bound 2 + 3k(lg N + 1), and (c) a proof of Littlestone's bound. The hidden tests are
``book/assignments/lecturer/winnow2_hidden.py``; part (b) is verified by
``onlinelib.certificates_winnow.verify_winnow2_stream``.

What is checked here:

* the reference earns every point and the notebook's stubs none ("not implemented yet"); the
  notebook's public checks pass with the reference and with honest solutions filled in; honest
  solutions written from the notebook's text, in the representations it allows, earn every point;
* the hidden streams are what the hidden file says they are: the reference makes the predictions
  of the library's exact replay on each, the "no ties" streams have no score equal to theta, the
  tie streams do (and the tie rule matters there), and the library's float ``Winnow2`` agrees
  with the reference wherever its floats decide no tie;
* every hidden and public N of part (b) is one where the library's beam search and the reference
  break the notes' bound, and a stream of promotions alone earns less than half;
* the verifier: exact targets, every kind of invalid object refused with its reason and never an
  exception, lecturer errors raised, the replay exact where floats are fooled both ways, and its
  work linear in the size of the largest object it accepts;
* mutants of (a) and (b) score below full marks, the one-character slips above zero, and a
  solution that does nothing scores zero;
* ``FORBIDDEN`` resolves, removes the library's shortcuts from the graded library and leaves what
  the public checks need; the rubric is in the new format and the answer cell matches it;
* one run of ``python -m booktools grade`` in the bubblewrap sandbox: full automatic marks for a
  correct notebook, fewer for a wrong one, none for the untouched notebook.
"""

from __future__ import annotations

import csv
import functools
import math
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import jupytext
import numpy as np
import pytest

import onlinelib as ol
from booktools.grading import checks
from booktools.grading.answers import extract_answers
from booktools.grading.hidden import hidden_parts, load_hidden, public_checks_text
from booktools.grading.library import resolve_forbidden
from booktools.grading.questions import questions_from_hidden
from examples import python_calls, run_in_graded_library
from onlinelib.adversaries import winnow2_exact_replay
from onlinelib.certificates import verify_certificate
from onlinelib.certificates_winnow import MAX_WINNOW_FEATURES, notes_bound_target, verify_winnow2_stream

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = ROOT / "book" / "assignments"
NAME = "winnow2"
LEARNER, STREAM = "Winnow2Learner", "winnow2_counterexample"
PRELUDE = "import math\nfrom fractions import Fraction\n\nimport numpy as np\n"


@functools.cache
def hidden():
    return load_hidden(ASSIGNMENTS / "lecturer" / f"{NAME}_hidden.py")


# -- honest solutions, written from the notebook's text ----------------------------------------------

LEARNERS = {
    "fractions": '''
class Winnow2Learner:
    """Weights as a list of Fractions."""

    def __init__(self, n, alpha, theta=None):
        self.alpha = Fraction(alpha)
        self.theta = Fraction(n if theta is None else theta)
        self.weights = [Fraction(1)] * n
        self.promotions = 0
        self.demotions = 0

    def predict(self, x):
        score = sum((w for w, xi in zip(self.weights, x) if xi == 1), Fraction(0))
        return 1 if score > self.theta else -1

    def update(self, x, y):
        if self.predict(x) == y:
            return
        factor = self.alpha if y == 1 else 1 / self.alpha
        self.weights = [w * factor if xi == 1 else w for w, xi in zip(self.weights, x)]
        if y == 1:
            self.promotions += 1
        else:
            self.demotions += 1
''',
    "exponents": '''
class Winnow2Learner:
    """Integer exponents e_i, w_i = alpha^e_i; weights shown as a numpy object array of Fractions."""

    def __init__(self, n, alpha, theta=None):
        self.alpha = Fraction(alpha)
        self.theta = Fraction(n) if theta is None else Fraction(theta)
        self.e = np.zeros(n, dtype=int)
        self.promotions = self.demotions = 0

    @property
    def weights(self):
        return np.array([self.alpha ** int(k) for k in self.e], dtype=object)

    def predict(self, x):
        active = np.flatnonzero(x)
        return 1 if sum(self.alpha ** int(k) for k in self.e[active]) > self.theta else -1

    def update(self, x, y):
        if self.predict(x) != y:
            self.e[np.flatnonzero(x)] += y
            self.promotions += y == 1
            self.demotions += y == -1
''',
    "float_display": '''
class Winnow2Learner:
    """Exact decisions from a dict of exponents; weights reported as floats equal to the exact ones."""

    def __init__(self, n, alpha, theta=None):
        self.n, self.alpha = n, Fraction(alpha)
        self.theta = Fraction(theta if theta is not None else n)
        self.exponent = {}
        self.promotions = 0
        self.demotions = 0

    @property
    def weights(self):
        return [float(self.alpha ** self.exponent.get(i, 0)) for i in range(self.n)]

    def predict(self, x):
        total = Fraction(0)
        for i in range(self.n):
            if x[i]:
                total += self.alpha ** self.exponent.get(i, 0)
        return -1 if total <= self.theta else 1

    def update(self, x, y):
        if self.predict(x) == y:
            return
        for i in range(self.n):
            if x[i]:
                self.exponent[i] = self.exponent.get(i, 0) + y
        if y > 0:
            self.promotions = self.promotions + 1
        else:
            self.demotions = self.demotions + 1
''',
}

STREAMS = {
    "lists": '''
def winnow2_counterexample(n):
    """Target x_0. Promote x_0 with the heaviest other variables that keep w.x <= theta, while
    w_0 <= theta; then demote sets that overshoot theta by the lightest weight possible."""
    alpha, theta = Fraction(3, 2), Fraction(n)
    w = [Fraction(1)] * n
    X, y = [], []
    while True:
        others = sorted(range(1, n), key=lambda i: w[i], reverse=True)
        if w[0] <= theta:
            active, score = [0], w[0]
        else:
            active, score = [], Fraction(0)
        for i in others:
            if score + w[i] <= theta:
                active.append(i)
                score += w[i]
        if w[0] <= theta:
            label = 1
        else:
            extra = [i for i in reversed(others) if i not in active and score + w[i] > theta]
            if not extra:
                break
            active.append(extra[0])
            label = -1
        for i in active:
            w[i] = w[i] * alpha if label == 1 else w[i] / alpha
        X.append([1 if i in active else 0 for i in range(n)])
        y.append(label)
    return X, y, [0]
''',
}
# the same stream handed in another way the text allows: an int array, the target on the last variable
# (given as a single int), labels as a numpy array
STREAM_VARIANTS = {
    "lists": "",
    "array_last_variable": """
_first = winnow2_counterexample


def winnow2_counterexample(n):
    X, y, _ = _first(n)
    X = np.array(X, dtype=np.int64)[:, ::-1]  # x_0's role moves to x_{n-1}
    return X, np.array(y), n - 1
""",
    "bool_array_tuple_relevant": """
_first = winnow2_counterexample


def winnow2_counterexample(n):
    X, y, relevant = _first(n)
    return np.array(X, dtype=bool), tuple(y), tuple(relevant)
""",
}
PROOF = (
    "Let $\\Phi = \\sum_i w_i$. A promotion adds $(\\alpha-1) w\\cdot x \\le (\\alpha-1)\\theta$, a demotion removes "
    "$(1-1/\\alpha) w\\cdot x > (1-1/\\alpha)\\theta$, and $\\Phi > 0$; each relevant weight is promoted at most "
    "$1 + \\log_\\alpha\\theta$ times."
)


def _exec(code: str, name: str):
    namespace: dict = {}
    exec(PRELUDE + code, namespace)
    return namespace[name]


def learner(variant="fractions"):
    return _exec(LEARNERS[variant], LEARNER)


def counterexample(variant="lists"):
    return _exec(STREAMS["lists"] + STREAM_VARIANTS[variant], STREAM)


def grade(learner_part=None, stream_part=None):
    return hidden().grade({LEARNER: learner_part or learner(), STREAM: stream_part or counterexample()})


def part_score(report, part):
    """(score, max) of one part of a whole grade: the learner's checks come first, then the certificates'."""
    n_streams = len(hidden().streams())
    chosen = report.checks[:n_streams] if part == LEARNER else report.checks[n_streams:]
    return sum(c.points for c in chosen), sum(c.max_points for c in chosen)


# -- the notebook -------------------------------------------------------------------------------------


def notebook():
    return jupytext.read(ASSIGNMENTS / f"{NAME}.md")


def code_cells():
    return [c.source for c in notebook().cells if c.cell_type == "code"]


def stub_part(cell):
    for part in (LEARNER, STREAM):
        if f"class {part}" in cell or f"def {part}(" in cell:
            return part
    return None


def test_the_notebook_has_the_header_parts_and_never_mentions_the_hidden_tests():
    text = (ASSIGNMENTS / f"{NAME}.md").read_text(encoding="utf-8")
    lines = text.split("\n")
    title = lines.index("# Assignment 13: Winnow2, the notes' bound and Littlestone's proof")
    assert lines[title - 1] == "(asg-winnow2)="
    assert lines[title + 2] == "*Part: Linear threshold learners. Chapter: {ref}`ch-winnow`.*"
    assert lines[title + 4] == "*Difficulty: advanced. Expected time: about 6 hours.*"
    assert "lecturer" not in text and "_hidden" not in text
    assert hidden_parts(hidden()) == {LEARNER: "learner", STREAM: "certificate"}


def test_the_reference_earns_every_point_and_the_stubs_none():
    full = hidden().grade(hidden().REFERENCE)
    assert full.passed and full.max_score == 16, full.summary()
    namespace: dict = {}
    for cell in code_cells():
        if "load_public_checks" not in cell:
            exec(cell, namespace)
    report = hidden().grade({LEARNER: namespace[LEARNER], STREAM: namespace[STREAM]})
    assert report.score == 0 and all("not implemented yet" in c.message for c in report.checks), report.summary()


def test_the_public_checks_file_is_the_one_the_hidden_file_records():
    recorded = (ASSIGNMENTS / f"{NAME}_public.json").read_text(encoding="utf-8")
    assert recorded == public_checks_text(hidden())


@pytest.mark.parametrize("fill", ["reference", "fractions", "exponents", "float_display"])
def test_the_public_checks_pass_with_correct_code(fill, capsys, monkeypatch):
    monkeypatch.chdir(ASSIGNMENTS)  # the notebook reads winnow2_public.json from the folder it runs in
    namespace: dict = {}
    for cell in code_cells():
        part = stub_part(cell)
        if part and fill == "reference":
            namespace[part] = hidden().REFERENCE[part]
        elif part:
            exec(LEARNERS[fill] if part == LEARNER else STREAMS["lists"], namespace)
        else:
            exec(cell, namespace)
    out = capsys.readouterr().out
    assert out.count("All checks passed.") == 2 and "FAIL" not in out, out


@pytest.mark.parametrize("variant", list(LEARNERS))
def test_honest_learners_earn_every_point(variant):
    report = grade(learner_part=learner(variant))
    assert report.passed, report.summary()


@pytest.mark.parametrize("variant", list(STREAM_VARIANTS))
def test_honest_streams_earn_every_point_in_the_notebook_and_in_the_hidden_tests(variant, monkeypatch):
    monkeypatch.chdir(ASSIGNMENTS)
    student = counterexample(variant)
    assert ol.grading.load_public_checks(f"{NAME}_public.json", part=STREAM).run(student).passed
    report = grade(stream_part=student)
    assert report.passed, report.summary()


# -- the hidden streams of part (a) are what the hidden file says ------------------------------------


def _run(stream, factory):
    player = factory(**stream.params)
    predictions = []
    for x, label in zip(stream.X, stream.y, strict=True):
        predictions.append(player.predict(x))
        player.update(x, int(label))
    return np.array(predictions), player


def test_the_reference_is_the_librarys_exact_winnow2_and_the_streams_have_the_ties_they_claim():
    kinds = {"no ties": 0, "ties": 0}
    for stream in hidden().streams():
        n = stream.params["n"]
        alpha, theta = Fraction(stream.params["alpha"]), Fraction(stream.params.get("theta", n))
        exact, exponents, scores = winnow2_exact_replay(stream.X, stream.y, alpha, theta)
        ties_positive, _, _ = winnow2_exact_replay(stream.X, stream.y, alpha, theta, positive_at_threshold=True)
        predictions, reference = _run(stream, hidden().ReferenceWinnow2)
        assert (predictions == exact).all(), stream.name
        assert (reference._exponents == exponents).all(), stream.name
        n_ties = sum(score == theta for score in scores)
        kind = "no ties" if stream.name.startswith("no ties") else "ties"
        kinds[kind] += 1
        if kind == "no ties":  # then ">=" plays the stream exactly as ">" does, and floats are far from theta
            assert n_ties == 0 and (ties_positive == exact).all(), stream.name
            assert min(abs(score / theta - 1) for score in scores) > 1e-6, stream.name
        else:
            assert n_ties > 0 and (ties_positive != exact).any(), stream.name
        # the library's float Winnow2: the same run (weights within 1e-9) unless a float decides a tie
        floats = ol.Winnow2(n, float(alpha), float(theta))
        trace = ol.run(floats, stream.X, stream.y)
        if "floats round" in stream.name:
            assert (trace.predictions != exact).any(), stream.name
        else:
            assert (trace.predictions == exact).all(), stream.name
            assert np.allclose(floats.weights, reference.weights, rtol=1e-12, atol=0), stream.name
            assert (floats.promotions, floats.demotions) == (reference.promotions, reference.demotions)
    assert kinds == {"no ties": 4, "ties": 6}, kinds


# -- part (b): the instances, the target and the verifier ---------------------------------------------


def test_the_target_is_the_least_whole_number_above_the_notes_bound():
    for n in range(1, 400):
        for k in (1, 2, 3, 7):
            target = notes_bound_target(n, k)
            assert 2**target > 2 ** (2 + 3 * k) * n ** (3 * k) >= 2 ** (target - 1), (n, k)  # exact
            assert target - 1 <= ol.notes_winnow_bound(n, k) + 1e-9 and ol.notes_winnow_bound(n, k) < target
    assert [notes_bound_target(n, 1) for n in (40, 48, 56, 64, 128, 256)] == [21, 22, 23, 24, 27, 30]
    for bad in (0, -1, 1.0, True):
        with pytest.raises(ValueError):
            notes_bound_target(bad, 1)


def test_every_instance_is_one_where_the_librarys_search_breaks_the_bound():
    lecturer = hidden()
    public = [c for part in lecturer.public_checks().values() for c in part.get("certificates", [])]
    instances = list(lecturer.certificates()) + public
    assert sorted(c.params["n"] for c in instances) == [40, 48, 64, 80, 96, 128, 192, 256]
    for certificate in instances:
        n, params = certificate.params["n"], certificate.params
        assert params["alpha"] == Fraction(3, 2) and "theta" not in params and certificate.target is None
        target = notes_bound_target(n, 1)
        beam = ol.beam_adversary(n, 1.5, rng=np.random.default_rng(0))
        found = verify_certificate("winnow2_stream", (beam.X, beam.y, [0]), params)
        assert found.valid and found.quality == beam.mistakes >= target == found.optimum, (n, found)
        made = verify_certificate("winnow2_stream", lecturer.REFERENCE[STREAM](n), params)
        assert made.valid and made.quality >= target, (n, made)
        promotions = ol.promotion_adversary(n, 1, 1.5)  # the naive stream: promotions of x_0 only
        naive = verify_certificate("winnow2_stream", (promotions.X, promotions.y, [0]), params)
        assert naive.quality == 1 + math.floor(math.log(n, 1.5)) and naive.score < Fraction(1, 2), (n, naive)
    # N = 56 is left out: neither search reaches its target of 23
    assert ol.beam_adversary(56, 1.5, rng=np.random.default_rng(0)).mistakes < notes_bound_target(56, 1)


def _beam(n, alpha):
    found = ol.beam_adversary(n, float(alpha), rng=np.random.default_rng(0))
    return found.X, found.y


def test_the_verifier_replays_exactly_where_floats_are_fooled_both_ways():
    # floats miss mistakes: the chapter's alpha = 8/5 sequence (ties after demotions)
    X, y = _beam(192, Fraction(8, 5))
    exact, _, _ = winnow2_exact_replay(X, y, 1.6, 192)
    verdict = verify_winnow2_stream(X, y, [0], 192, alpha=Fraction(8, 5))
    in_floats = ol.run(ol.Winnow2(192, 1.6, 192.0), X, y).n_mistakes
    assert verdict.valid and verdict.quality == int((exact != y).sum()) == len(y) > in_floats, (verdict, in_floats)
    # floats invent a mistake: nine weights demoted twice to 4/9, then w.x = 4 = theta exactly (no mistake)
    X = np.zeros((3, 12), dtype=np.uint8)
    X[:, 1:10] = 1
    y = -np.ones(3, dtype=np.int8)
    verdict = verify_winnow2_stream(X, y, [0], 12, theta=4)
    in_floats = ol.run(ol.Winnow2(12, 1.5, 4.0), X, y).n_mistakes
    assert verdict.valid and (verdict.quality, in_floats) == (2, 3), (verdict, in_floats)


INVALID = {
    "labels 0/1": (lambda X, y: (X, [(1 + v) // 2 for v in y], [0]), "is not a label ±1"),
    "a positive row labelled -1": (lambda X, y: (X, [-1] + y[1:], [0]), "so the target labels x +1, got y = -1"),
    "the wrong relevant variable": (lambda X, y: (X, y, [1]), "the target labels x"),
    "float entries": (lambda X, y: (np.array(X, dtype=float), y, [0]), "exact 0/1 entries"),
    "a float in a list": (lambda X, y: ([[float(v) for v in X[0]]] + X[1:], y, [0]), "must be an int 0 or 1"),
    "an entry 2": (lambda X, y: ([[2] + X[0][1:]] + X[1:], y, [0]), "must be 0 or 1"),
    "a short row": (lambda X, y: ([X[0][:-1]] + X[1:], y, [0]), "entries, n = 48 variables"),
    "one label short": (lambda X, y: (X, y[:-1], [0]), "one label per row"),
    "no rows": (lambda X, y: ([], [], [0]), "at least one round"),
    "no relevant variable": (lambda X, y: (X, y, []), "at least one variable"),
    "a relevant variable twice": (lambda X, y: (X, y, [0, 0]), "repeats"),
    "a relevant variable out of range": (lambda X, y: (X, y, [48]), "out of range"),
    "a bool as the relevant variable": (lambda X, y: (X, y, True), "must be a list"),
    "a float relevant index": (lambda X, y: (X, y, [0.0]), "must be an int"),
    "a label True": (lambda X, y: (X, [True] + y[1:], [0]), "must be an int"),
    "too many rows": (lambda X, y: (X + [[0] * 48] * 1000, y + [-1] * 1000, [0]), "the limit is 1000"),
    "a generator": (lambda X, y: ((row for row in X), y, [0]), "must be a list"),
}


@pytest.mark.parametrize("kind", list(INVALID))
def test_the_verifier_refuses_each_kind_of_invalid_stream_with_its_reason(kind):
    X, y, _ = hidden().REFERENCE[STREAM](48)
    make, reason = INVALID[kind]
    obj = make(X, y)
    verdict = verify_certificate("winnow2_stream", obj, {"n": 48, "alpha": Fraction(3, 2)})
    assert not verdict.valid and verdict.score == 0 and reason in verdict.reason, verdict.reason


@pytest.mark.parametrize(
    "obj",
    [None, 3, "X", [], (1, 2), {"X": 1}, ([[0] * 4], [-1]), ([[0] * 4], [-1], [0], 1), ([[np.nan] * 4], [-1], [0])],
)
def test_the_verifier_never_raises_on_student_data(obj):
    verdict = verify_certificate("winnow2_stream", obj, {"n": 4})
    assert not verdict.valid and verdict.reason


def test_the_verifier_takes_the_parts_by_name_and_raises_on_lecturer_errors():
    X, y, relevant = hidden().REFERENCE[STREAM](48)
    named = verify_certificate("winnow2_stream", {"X": X, "y": y, "relevant": relevant}, {"n": 48})
    assert named.valid and named.quality == 22 == named.optimum and named.score == 1, named
    for params, error in (
        ({"n": 48, "alpha": 1.5}, TypeError),
        ({"n": 48, "alpha": 1}, ValueError),
        ({"n": 48, "theta": 0}, ValueError),
        ({"n": 48, "theta": 48.0}, TypeError),
        ({"n": 0}, ValueError),
        ({"n": MAX_WINNOW_FEATURES + 1}, ValueError),
        ({"n": 48.0}, TypeError),
        ({"n": 48, "max_rounds": 0}, ValueError),
    ):
        with pytest.raises(error):
            verify_certificate("winnow2_stream", (X, y, relevant), params)


def test_the_largest_accepted_stream_is_verified_with_work_linear_in_its_size():
    """1000 rows at N = 256, every one a mistake where possible: counted in Python calls, not timed."""
    X, y, _ = hidden().REFERENCE[STREAM](256)
    rng = np.random.default_rng(0)
    extra = (rng.random((1000 - len(X), 256)) < 0.05).astype(np.int64)
    extra[:, 0] = 0
    rows = np.vstack([np.array(X), extra])
    labels = np.array(list(y) + [-1] * len(extra))
    params = {"n": 256, "alpha": Fraction(3, 2), "max_rounds": 1000}
    verdict, calls = python_calls(lambda: verify_certificate("winnow2_stream", (rows, labels, [0]), params))
    assert verdict.valid and verdict.quality >= 32, verdict
    assert calls < 60 * 1000, calls  # a few dozen calls per row, whatever N
    over, calls = python_calls(lambda: verify_certificate("winnow2_stream", (rows.tolist() * 50, labels, [0]), params))
    assert not over.valid and "the limit is 1000" in over.reason and calls < 100, (over.reason, calls)


# -- mutants ------------------------------------------------------------------------------------------

# part (a): (code, a one-character slip that must keep partial credit?)
LEARNER_MUTANTS = {
    "ties predicted +1 (>=)": (LEARNERS["fractions"].replace("score > self.theta", "score >= self.theta"), True),
    "promotion and demotion swapped": (
        LEARNERS["fractions"].replace(
            "self.alpha if y == 1 else 1 / self.alpha", "1 / self.alpha if y == 1 else self.alpha"
        ),
        False,
    ),
    "alpha rounded": (LEARNERS["fractions"].replace("Fraction(alpha)", "Fraction(round(alpha))"), True),
    "threshold off by one": (LEARNERS["fractions"].replace("score > self.theta", "score > self.theta - 1"), False),
    "default theta n/2": (LEARNERS["fractions"].replace("Fraction(n if theta", "Fraction(n / 2 if theta"), True),
    "update on every round": (
        LEARNERS["fractions"].replace("        if self.predict(x) == y:\n            return\n", ""),
        False,
    ),
    "every weight updated": (LEARNERS["fractions"].replace("if xi == 1 else w for", "for"), False),
    "promotions and demotions counted together": (
        LEARNERS["fractions"].replace("self.demotions += 1", "self.promotions += 1"),
        True,
    ),
    "float weights, numpy dot": (
        """
class Winnow2Learner:
    def __init__(self, n, alpha, theta=None):
        self.alpha, self.theta = float(alpha), float(n if theta is None else theta)
        self.weights = np.ones(n)
        self.promotions = self.demotions = 0

    def predict(self, x):
        return 1 if np.dot(self.weights, x) > self.theta else -1

    def update(self, x, y):
        if self.predict(x) != y:
            self.weights[x == 1] *= self.alpha if y == 1 else 1 / self.alpha
            self.promotions += y == 1
            self.demotions += y == -1
""",
        True,
    ),
}
NOTHING_LEARNER = """
class Winnow2Learner:
    def __init__(self, n, alpha, theta=None):
        self.weights, self.promotions, self.demotions = [1] * n, 0, 0

    def predict(self, x):
        return -1

    def update(self, x, y):
        pass
"""


def test_learner_mutants_lose_points_and_the_slips_keep_some():
    full = hidden().grade(hidden().REFERENCE)
    full_a = part_score(full, LEARNER)[1]
    table, wrong = [], []
    for name, (code, slip) in LEARNER_MUTANTS.items():
        report = grade(learner_part=_exec(code, LEARNER))
        score, _ = part_score(report, LEARNER)
        first = next((c.name for c in report.checks if not c.passed), "")
        table.append(f"{name}: {score:g}/{full_a:g} (first failure: {first})")
        if not score < full_a or (slip and score == 0) or part_score(report, STREAM)[0] != part_score(full, STREAM)[0]:
            wrong.append(name)
    nothing = part_score(grade(learner_part=_exec(NOTHING_LEARNER, LEARNER)), LEARNER)[0]
    print("\n".join(table))
    assert not wrong and nothing == 0, "\n".join(table) + f"\nwrong: {wrong}; does nothing: {nothing}"
    # the tie slip costs exactly the six tie streams, floats exactly the two whose ties they round
    assert _failed(LEARNER_MUTANTS["ties predicted +1 (>=)"][0]) == [
        s.name for s in hidden().streams() if s.name.startswith("ties")
    ]
    assert _failed(LEARNER_MUTANTS["float weights, numpy dot"][0]) == [
        s.name for s in hidden().streams() if "floats round" in s.name
    ]


def _failed(code):
    report = grade(learner_part=_exec(code, LEARNER))
    return [c.name for c in report.checks[: len(hidden().streams())] if not c.passed]


STREAM_MUTANTS = {
    "demotions first (greedy)": STREAMS["lists"]
    .replace(
        "        if w[0] <= theta:\n            active, score = [0], w[0]",
        "        total = sum(w[1:])\n        if w[0] <= theta and total <= theta:\n            active, score = [0], w[0]",
    )
    .replace(
        "        if w[0] <= theta:\n            label = 1",
        "        if w[0] <= theta and total <= theta:\n            label = 1",
    )
    .replace(
        "            if not extra:\n                break",
        "            if not extra:\n                if w[0] > theta:\n                    break\n                continue",
    ),
    "promotions only": """
def winnow2_counterexample(n):
    X, y, w = [], [], Fraction(1)
    while w <= n:
        X.append([1] + [0] * (n - 1))
        y.append(1)
        w *= Fraction(3, 2)
    return X, y, [0]
""",
    "a tie believed +1 in the search": '''
def winnow2_counterexample(n):
    """As the greedy search, but believing that a score of exactly theta predicts +1: promotions stay strictly
    below theta, and a negative row that fills theta exactly is taken as the cheapest demotion."""
    alpha, theta = Fraction(3, 2), Fraction(n)
    w = [Fraction(1)] * n
    X, y = [], []
    while True:
        others = sorted(range(1, n), key=lambda i: w[i], reverse=True)
        promote = w[0] < theta
        active, score = ([0], w[0]) if promote else ([], Fraction(0))
        for i in others:
            if score + w[i] < theta or (not promote and score + w[i] == theta):
                active.append(i)
                score += w[i]
        if not promote and score < theta:
            extra = [i for i in reversed(others) if i not in active and score + w[i] >= theta]
            if not extra:
                break
            active.append(extra[0])
        label = 1 if promote else -1
        for i in active:
            w[i] = w[i] * alpha if label == 1 else w[i] / alpha
        X.append([1 if i in active else 0 for i in range(n)])
        y.append(label)
    return X, y, [0]
''',
    "float entries (np.zeros)": STREAMS["lists"]
    + "\n_f = winnow2_counterexample\nwinnow2_counterexample = lambda n: (np.array(_f(n)[0], dtype=float), _f(n)[1], [0])\n",
    "labels 0/1": STREAMS["lists"]
    + "\n_f = winnow2_counterexample\nwinnow2_counterexample = lambda n: (_f(n)[0], [(v + 1) // 2 for v in _f(n)[1]], [0])\n",
    "the wrong target variable": STREAMS["lists"]
    + "\n_f = winnow2_counterexample\nwinnow2_counterexample = lambda n: (*_f(n)[:2], [1])\n",
    "N = 48 hard-coded": STREAMS["lists"]
    + "\n_f = winnow2_counterexample\nwinnow2_counterexample = lambda n: _f(48)\n",
    "padded past 1000 rows": STREAMS["lists"]
    + "\n_f = winnow2_counterexample\nwinnow2_counterexample = lambda n: (_f(n)[0] + [[0] * n] * 1000, _f(n)[1] + [-1] * 1000, [0])\n",
}
PARTIAL_STREAM_MUTANTS = {"demotions first (greedy)", "promotions only", "a tie believed +1 in the search"}
NOTHING_STREAM = "\ndef winnow2_counterexample(n):\n    return [], [], [0]\n"


def test_stream_mutants_lose_points_with_the_reason():
    full = part_score(hidden().grade(hidden().REFERENCE), STREAM)[1]
    table, wrong = [], []
    for name, code in STREAM_MUTANTS.items():
        report = checks.verify_certificates(_exec(code, STREAM), hidden().certificates())
        first = next((c.message for c in report.checks if not c.passed), "")
        table.append(f"{name}: {report.score:g}/{full:g} ({first[:100]})")
        partial = name in PARTIAL_STREAM_MUTANTS
        if not report.score < full or (partial and report.score == 0) or (not partial and report.score > 0):
            wrong.append(name)
    nothing = checks.verify_certificates(_exec(NOTHING_STREAM, STREAM), hidden().certificates()).score
    print("\n".join(table))
    assert not wrong and nothing == 0, "\n".join(table) + f"\nwrong: {wrong}; does nothing: {nothing}"


def test_the_hard_coded_stream_passes_the_public_checks_and_fails_the_hidden_ones(monkeypatch):
    monkeypatch.chdir(ASSIGNMENTS)
    student = _exec(STREAM_MUTANTS["N = 48 hard-coded"], STREAM)
    public = ol.grading.load_public_checks(f"{NAME}_public.json", part=STREAM).run(student)
    assert [c.passed for c in public.checks] == [True, False]
    report = checks.verify_certificates(student, hidden().certificates())
    assert report.score == 0 and all("n = " in c.message for c in report.checks), report.summary()


# -- FORBIDDEN and the graded library ------------------------------------------------------------------

SHORTCUTS = [
    "ol.Winnow2(4, 1.5, 4.0)",
    "ol.Winnow1(4)",
    "ol.MonomialWinnow(3)",
    "type('W', (onlinelib.linear._ThresholdLearner,), {})(3)",
    "onlinelib.adversaries.winnow2_exact_replay(np.zeros((1, 4)), np.ones(1), 1.5)",
    "onlinelib.chapters.winnow.winnow2_exact_replay(np.zeros((1, 4)), np.ones(1), 1.5)",
    "ol.beam_adversary(48, 1.5, rng=np.random.default_rng(0))",
    "ol.exhaustive_adversary(4, 1.1)",
    "ol.promotion_adversary(48, 1, 1.5)",
    "onlinelib.adversaries._fill([1, 1], [0, 1], 1)",
]


def test_forbidden_entries_resolve():
    resolved = resolve_forbidden(hidden().FORBIDDEN)
    assert resolved and all(module.startswith("onlinelib") for module in resolved)
    assert {"onlinelib.linear", "onlinelib.adversaries", "onlinelib._kernels"} <= set(resolved)


def test_the_graded_library_removes_the_shortcuts_and_keeps_what_the_public_checks_need(tmp_path):
    cells = [
        (LEARNERS["fractions"] if stub_part(cell) == LEARNER else STREAMS["lists"]) if stub_part(cell) else cell
        for cell in code_cells()
    ]
    imports = "import onlinelib.chapters.winnow, onlinelib.linear, onlinelib.adversaries"
    out = run_in_graded_library(
        NAME, hidden().FORBIDDEN, tmp_path, PRELUDE + "\n\n".join(cells), SHORTCUTS, imports=imports
    )
    assert out.count("All checks passed.") == 2, out


# -- the written question ---------------------------------------------------------------------------------


def test_the_rubric_is_in_the_new_format_and_the_answer_cell_matches_it():
    questions = questions_from_hidden(hidden().QUESTIONS)
    assert [q.id for q in questions] == ["littlestone"] and len(questions[0].items) == 5
    for raw in hidden().QUESTIONS:
        assert len(raw["model"]) > 500 and "\\log_\\alpha" in raw["model"]
        for item in raw["items"]:
            assert all(isinstance(item[key], str) and item[key].strip() for key in ("text", "full", "half", "zero"))
            assert item["errors"] and all(isinstance(e, str) and e.strip() for e in item["errors"])
    assert all(item.has_descriptors and item.points == 1 for item in questions[0].items)
    cells = [c for c in notebook().cells if c.cell_type == "markdown" and "answer" in c.metadata.get("tags", [])]
    assert [c.metadata["question"] for c in cells] == ["littlestone"]
    assert "Write your proof here" in cells[0].source
    answers, problems = extract_answers(ASSIGNMENTS / f"{NAME}.md", questions)
    assert not problems and set(answers) == {"littlestone"}, (answers, problems)
    text = (ASSIGNMENTS / f"{NAME}.md").read_text(encoding="utf-8")
    assert hidden().QUESTIONS[0]["model"][:40] not in text  # the model proof stays with the lecturer


# -- python -m booktools grade, in the sandbox -------------------------------------------------------------


def _submission(learner_code, stream_code, proof=True):
    nb = notebook()
    for cell in nb.cells:
        part = stub_part(cell.source) if cell.cell_type == "code" else None
        if part:
            cell.source = (learner_code if part == LEARNER else stream_code).strip()
        elif proof and cell.metadata.get("question") == "littlestone":
            cell.source = PROOF
    return jupytext.writes(nb, fmt="md:myst")


def test_the_sandboxed_grader_gives_full_automatic_marks_to_correct_code_and_fewer_to_wrong_code(tmp_path):
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: the grader needs it")
    folder = tmp_path / "submissions"
    folder.mkdir()
    (folder / "correct.md").write_text(_submission(LEARNERS["exponents"], STREAMS["lists"]), encoding="utf-8")
    wrong_learner = LEARNER_MUTANTS["ties predicted +1 (>=)"][0]
    (folder / "wrong.md").write_text(
        _submission(wrong_learner, STREAM_MUTANTS["demotions first (greedy)"], proof=False), encoding="utf-8"
    )
    shutil.copyfile(ASSIGNMENTS / f"{NAME}.md", folder / "untouched.md")
    out = tmp_path / "scores.csv"
    command = [sys.executable, "-m", "booktools", "grade", str(folder), "--assignment", NAME, "--out", str(out)]
    done = subprocess.run(
        command + ["--jobs", "2", "--timeout", "300"], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0 and out.is_file(), done.stderr[-3000:]
    with out.open(newline="", encoding="utf-8") as handle:
        rows = {row["submission"]: row for row in csv.DictReader(handle)}
    full = hidden().grade(hidden().REFERENCE).max_score
    correct, wrong, untouched = rows["correct.md"], rows["wrong.md"], rows["untouched.md"]
    assert correct["status"] == "graded" and float(correct["score"]) == float(correct["max_score"]) == full, correct
    assert wrong["status"] == "graded" and 0 < float(wrong["score"]) < full, wrong
    assert "ties:" in wrong["feedback"], wrong["feedback"][:2000]
    assert untouched["status"] == "not attempted" and float(untouched["score"]) == 0, untouched  # issue 37
    assert "not implemented yet" in untouched["feedback"], untouched
    answers = out.with_name(out.stem + "_answers.json").read_text(encoding="utf-8")
    assert PROOF[:30] in answers.replace("\\\\", "\\"), answers[:500]
