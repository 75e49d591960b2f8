"""No library shortcut (issue 23, item 5): what onlinelib already holds cannot be handed in.

An assignment asks for one learner or function that the library also contains, directly or as a
special case of something more general: Weighted Majority with eta = 1 over a concept table is
Halving, Winnow2 with its demotion overridden is Winnow1, the Perceptron over explicit monomial
features is the kernel Perceptron (where the features fit in memory), Randomized Halving's exact
expectation is RWMA's with eta = 1, ``DirectedDriftChain`` solves the drift recursion, and
``NormalizedPerceptron`` (or the Perceptron, its weights rescaled) takes the normalized step.
``SHORTCUTS`` writes each of them as a student would hand it in, a few lines wrapping the library.

1. The control, in this process and without ``FORBIDDEN``: each shortcut really earns marks under
   the hidden file's ``grade``, and exactly the marks recorded here (full, or the part of the
   hidden tests where the shortcut is equivalent). A "shortcut" that earned nothing would prove
   nothing. ``NOT_SHORTCUTS`` lists the library parts that look close but are not equivalent
   (they earn 0 without any ``FORBIDDEN``), so nothing needs removing for them.
2. Through the grader (``python -m booktools grade``, bubblewrap, one run per assignment with
   ``--jobs 2``): every shortcut notebook gets 0 with status ``forbidden`` under the hidden file's
   ``FORBIDDEN``, while an honest notebook graded beside them keeps full marks (so ``FORBIDDEN``
   does not remove what an honest solution needs: ``ConceptClass``, the streams, the kernels,
   numpy).

The notebooks are made at test time from ``SHORTCUTS`` and the MyST header of
``tests/submissions/attacks/halving/control_correct.md``.
"""

from __future__ import annotations

import csv
import functools
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from booktools.grading.hidden import load_hidden
from booktools.grading.isolation import find_bwrap
from booktools.grading.library import resolve_forbidden

ROOT = Path(__file__).resolve().parents[1]
LECTURER = ROOT / "book" / "assignments" / "lecturer"
NAMES = ["halving", "winnow1", "rwma", "kernel_perceptron", "drift_chain", "normalized_step"]
FULL = "full"
# seconds per submission: nothing graded here hangs (a shortcut is refused as soon as it is called),
# so the deadline is room for a loaded machine, never waited out: every status below must be exact
TIMEOUT = 120

IMPORTS = """\
import math
from fractions import Fraction

import numpy as np

import onlinelib as ol
"""

# assignment -> shortcut -> (notebook code defining the FUNCTION, the marks it earns without FORBIDDEN)
SHORTCUTS = {
    "halving": {
        "Halving": (
            """
def HalvingLearner(table):
    return ol.Halving(ol.ConceptClass(table))
""",
            FULL,
        ),
        "WeightedMajority, eta = 1, over the concept table": (
            """
class HalvingLearner:
    def __init__(self, table):
        self.advice = np.where(np.asarray(table, dtype=bool), 1, -1).T  # advice[x] = every concept's label
        self.wma = ol.WeightedMajority(self.advice.shape[1], 1.0)

    @property
    def size(self):
        return int((self.wma.expert_mistakes == 0).sum())

    def predict(self, x):
        return self.wma.predict(self.advice[int(x)])

    def update(self, x, y):
        self.wma.update(self.advice[int(x)], y)
""",
            FULL,
        ),
        "weighted_majority_run, eta = 1, over the history": (
            """
class HalvingLearner:
    def __init__(self, table):
        self.advice = np.where(np.asarray(table, dtype=bool), 1, -1).T
        self.P, self.y = [], []

    def run(self, extra=()):
        rows = self.P + [row for row, _ in extra]
        labels = self.y + [label for _, label in extra]
        return ol.weighted_majority_run(np.array(rows), np.array(labels), 1.0)

    @property
    def size(self):
        if not self.P:
            return self.advice.shape[1]
        return int((self.run().expert_mistakes == 0).sum())

    def predict(self, x):
        return int(self.run([(self.advice[int(x)], 1)]).predictions[-1])

    def update(self, x, y):
        self.P.append(self.advice[int(x)])
        self.y.append(int(y))
""",
            FULL,
        ),
        "SOA (it predicts as Halving does on every hidden stream)": (
            """
def HalvingLearner(table):
    return ol.SOA(ol.ConceptClass(table))
""",
            FULL,
        ),
        "the version space of the library (private)": (
            """
from onlinelib import version_space


class HalvingLearner:
    def __init__(self, table):
        self.cls = ol.ConceptClass(table)
        self.space = version_space._VersionSpace(self.cls)
        self.rounds = 0

    @property
    def size(self):
        return self.space.size

    def predict(self, x):
        return 1 if 2 * self.space.positives(int(x)) >= self.space.size else -1

    def update(self, x, y):
        self.rounds += 1
        self.space.restrict(int(x), int(y), self.rounds)
""",
            FULL,
        ),
    },
    "winnow1": {
        "Winnow1": (
            """
def Winnow1Learner(n, theta=None):
    return ol.Winnow1(n, theta)
""",
            FULL,
        ),
        "Winnow2, alpha = 2, its demotion replaced by an elimination": (
            """
class Winnow1Learner:
    def __init__(self, n, theta=None):
        self.w2 = ol.Winnow2(n, alpha=2.0, theta=n / 2 if theta is None else theta)
        self.eliminations = 0

    @property
    def weights(self):
        return self.w2.weights

    @property
    def promotions(self):
        return self.w2.promotions

    def predict(self, x):
        return self.w2.predict(x)

    def update(self, x, y):
        if self.predict(x) == 1 and y == -1:
            self.w2.weights[np.asarray(x) == 1] = 0.0
            self.eliminations += 1
        else:
            self.w2.update(x, y)
""",
            FULL,
        ),
        "the library's Winnow base class (private)": (
            """
from onlinelib import linear


class Winnow1Learner(linear._Winnow):
    def __init__(self, n, theta=None):
        super().__init__(n, theta, n / 2)
        self.eliminations = 0

    def _change(self, row, y, score):
        active = self._active(row)
        if y == 1:
            self.weights[active] *= 2.0
            self.promotions += 1
        else:
            self.weights[active] = 0.0
            self.eliminations += 1
""",
            FULL,
        ),
        "the library's compiled update (private)": (
            """
from onlinelib import _kernels


class Winnow1Learner:
    def __init__(self, n, theta=None):
        self.weights = np.ones(n)
        self.theta = n / 2 if theta is None else float(theta)
        self.counts = np.zeros(2, dtype=np.int64)

    promotions = property(lambda self: int(self.counts[0]))
    eliminations = property(lambda self: int(self.counts[1]))

    def predict(self, x):
        return 1 if _kernels.dense_score(np.asarray(x, dtype=float), self.weights, 0.0) > self.theta else -1

    def update(self, x, y):
        row = np.asarray(x, dtype=float)[None, :]
        label = np.array([y], dtype=np.int8)
        args = (self.theta, 1.0, False, True, False, _kernels.ELIMINATE, 2.0, False)
        _kernels.play_dense(row, label, 0, self.weights, np.zeros(1), *args, label.copy(), self.counts)
""",
            FULL,
        ),
    },
    "rwma": {
        "weighted_majority_run": (
            """
def rwma_mistake_probabilities(P, y, eta):
    return ol.weighted_majority_run(P, y, eta).wrong_fraction
""",
            FULL,
        ),
        "WeightedMajority.wrong_fraction, round by round": (
            """
def rwma_mistake_probabilities(P, y, eta):
    P, y = np.asarray(P), np.asarray(y)
    learner = ol.WeightedMajority(P.shape[1], eta)
    out = []
    for row, label in zip(P, y):
        out.append(learner.wrong_fraction(row, int(label)))
        learner.update(row, int(label))
    return np.array(out)
""",
            FULL,
        ),
        "RandomizedWeightedMajority.wrong_fraction, round by round": (
            """
def rwma_mistake_probabilities(P, y, eta):
    P, y = np.asarray(P), np.asarray(y)
    learner = ol.RandomizedWeightedMajority(P.shape[1], eta, np.random.default_rng(0))
    out = []
    for row, label in zip(P, y):
        out.append(learner.wrong_fraction(row, int(label)))
        learner.update(row, int(label))
    return np.array(out)
""",
            FULL,
        ),
        "the experts' private run": (
            """
from onlinelib import experts


def rwma_mistake_probabilities(P, y, eta):
    return experts._run(np.asarray(P), np.asarray(y), float(eta))[1]
""",
            FULL,
        ),
        "Randomized Halving's exact expectation (eta = 1 only)": (
            """
def rwma_mistake_probabilities(P, y, eta):
    if eta != 1:
        raise NotImplementedError("only eta = 1 (Randomized Halving)")
    P, y = np.asarray(P), np.asarray(y)
    experts = ol.ConceptClass(P.T == 1)  # the experts as concepts over the rounds
    totals = [ol.randomized_halving_expected_mistakes(experts, np.arange(t), y[:t]) if t else Fraction(0)
              for t in range(len(y) + 1)]
    return np.array([float(b - a) for a, b in zip(totals, totals[1:])])
""",
            1,
        ),
        "Halving's votes over the experts (eta = 1 only)": (
            """
def rwma_mistake_probabilities(P, y, eta):
    if eta != 1:
        raise NotImplementedError("only eta = 1 (Halving)")
    P, y = np.asarray(P), np.asarray(y)
    learner = ol.Halving(ol.ConceptClass(P.T == 1))
    out = []
    for t, label in enumerate(y):
        negative, positive = learner.votes(t)
        out.append((negative if label == 1 else positive) / learner.size)
        learner.update(t, int(label))
    return np.array(out)
""",
            1,
        ),
    },
    "kernel_perceptron": {
        "KernelPerceptron": (
            """
def KernelPerceptronLearner(n_features, kernel):
    return ol.KernelPerceptron(n_features, kernel)
""",
            FULL,
        ),
        "KernelPerceptron with the primal Perceptron's rule (convention 'margin')": (
            """
def KernelPerceptronLearner(n_features, kernel):
    return ol.KernelPerceptron(n_features, kernel, convention="margin")
""",
            3,
        ),
        "Perceptron over the kernel's explicit features, updated on mistakes": (
            """
class KernelPerceptronLearner:
    def __init__(self, n_features, kernel):
        self.kernel = kernel
        self.p = ol.Perceptron(len(kernel.feature_map([[0] * n_features])[0]))

    @property
    def n_updates(self):
        return self.p.n_updates

    def phi(self, x):
        return self.kernel.feature_map([x])[0].astype(float)

    def predict(self, x):
        return self.p.predict(self.phi(x))

    def update(self, x, y):
        if self.predict(x) != y:
            self.p.update(self.phi(x), y)
""",
            5,
        ),
        "PNormPerceptron, p = 2, over the explicit features, updated on mistakes": (
            """
class KernelPerceptronLearner:
    def __init__(self, n_features, kernel):
        self.kernel = kernel
        self.p = ol.PNormPerceptron(len(kernel.feature_map([[0] * n_features])[0]), 2)

    @property
    def n_updates(self):
        return self.p.n_updates

    def phi(self, x):
        return self.kernel.feature_map([x])[0].astype(float)

    def predict(self, x):
        return self.p.predict(self.phi(x))

    def update(self, x, y):
        if self.predict(x) != y:
            self.p.update(self.phi(x), y)
""",
            5,
        ),
    },
    "drift_chain": {
        "DirectedDriftChain with p_d overridden": (
            """
class Chain(ol.DirectedDriftChain):
    def __init__(self, p):
        self.p = list(p)
        self.n, self.exact = len(self.p), True

    def good_flip_probability(self, d):
        return self.p[d - 1]


def expected_mistakes(p):
    chain = Chain(p)
    return [chain.expected_mistakes(d) for d in range(len(p) + 1)]
""",
            4,
        ),
        "DirectedDriftChain(len(p)), whatever p is": (
            """
def expected_mistakes(p):
    chain = ol.DirectedDriftChain(len(p))
    return [chain.expected_mistakes(d) for d in range(len(p) + 1)]
""",
            2,
        ),
    },
    "normalized_step": {
        "normalized_perceptron_step": (
            """
from onlinelib.learning_curves import normalized_perceptron_step


def normalized_step(W, S, label, eta):
    W, S = np.asarray(W, dtype=float), np.asarray(S, dtype=float)
    return normalized_perceptron_step(W[None, :], S[None, :], np.array([float(label)]), float(eta), len(W))[0]
""",
            FULL,
        ),
        "NormalizedPerceptron started at W": (
            """
from onlinelib.learning_curves import NormalizedPerceptron


def normalized_step(W, S, label, eta):
    learner = NormalizedPerceptron(len(W), float(eta), W_init=W)
    learner.update(S, label)
    return learner.W
""",
            8,
        ),
        "NoiseRobustPerceptron with T = 0, started at W": (
            """
from onlinelib.learning_curves import NoiseRobustPerceptron


def normalized_step(W, S, label, eta):
    learner = NoiseRobustPerceptron(len(W), float(eta), T=np.zeros(len(W)), W_init=W)
    learner.update(S, label)
    return learner.W
""",
            8,
        ),
        "the Perceptron, its weights W N / eta": (
            """
def normalized_step(W, S, label, eta):
    W = np.asarray(W, dtype=float)
    if eta == 0:
        return W / np.linalg.norm(W)
    p = ol.Perceptron(len(W))
    p.weights = W * len(W) / eta
    if p.predict(S) != label:
        p.update(np.asarray(S, dtype=float), label)
    return p.weights / np.linalg.norm(p.weights)
""",
            FULL,
        ),
        "PNormPerceptron, p = 2, its weights W N / eta": (
            """
def normalized_step(W, S, label, eta):
    W = np.asarray(W, dtype=float)
    if eta == 0:
        return W / np.linalg.norm(W)
    p = ol.PNormPerceptron(len(W), 2)
    p.theta = W * len(W) / eta
    p.weights = p.theta.copy()
    if p.predict(S) != label:
        p.update(S, label)
    return p.weights / np.linalg.norm(p.weights)
""",
            FULL,
        ),
    },
}

# Library parts that look like shortcuts but are not equivalent: 0 marks without any FORBIDDEN.
NOT_SHORTCUTS = {
    "halving": {
        "RandomizedHalving": """
def HalvingLearner(table):
    return ol.RandomizedHalving(ol.ConceptClass(table), np.random.default_rng(0))
""",
    },
    "winnow1": {
        "Winnow2, alpha = 2 (demotes instead of eliminating)": """
def Winnow1Learner(n, theta=None):
    return ol.Winnow2(n, alpha=2.0, theta=n / 2 if theta is None else theta)
""",
        "Elimination for disjunctions": """
def Winnow1Learner(n, theta=None):
    return ol.Elimination(n, "disjunction", monotone=True)
""",
    },
    "rwma": {
        "simulate_randomized_weighted_majority, one trial a round": """
def rwma_mistake_probabilities(P, y, eta):
    P, y = np.asarray(P), np.asarray(y)
    trials = ol.simulate_randomized_weighted_majority(P[:1], y[:1], eta, 1000, np.random.default_rng(0))
    return np.full(len(y), trials.mean())
""",
    },
    "kernel_perceptron": {
        "MonomialWinnow": """
def KernelPerceptronLearner(n_features, kernel):
    learner = ol.MonomialWinnow(min(n_features, 14))
    learner.n_updates = 0
    return learner
""",
    },
    "drift_chain": {},
    "normalized_step": {},
}

# An honest solution per assignment, graded beside the shortcuts: it must keep full marks.
HONEST = {
    "halving": """
class HalvingLearner:
    def __init__(self, table):
        self.cls = ol.ConceptClass(table)
        self.table = np.asarray(table, dtype=bool)
        self.alive = np.ones(self.cls.size, dtype=bool)

    @property
    def size(self):
        return int(self.alive.sum())

    def predict(self, x):
        return 1 if 2 * int(self.table[self.alive, int(x)].sum()) >= self.size else -1

    def update(self, x, y):
        self.alive &= self.table[:, int(x)] == (y == 1)
""",
    "winnow1": """
class Winnow1Learner:
    def __init__(self, n, theta=None):
        self.weights = np.ones(n)
        self.theta = n / 2 if theta is None else theta
        self.promotions = self.eliminations = 0

    def predict(self, x):
        return 1 if self.weights @ np.asarray(x) > self.theta else -1

    def update(self, x, y):
        guess = self.predict(x)
        active = np.asarray(x) == 1
        if guess == -1 and y == 1:
            self.weights[active] *= 2
            self.promotions += 1
        elif guess == 1 and y == -1:
            self.weights[active] = 0
            self.eliminations += 1
""",
    "rwma": """
def rwma_mistake_probabilities(P, y, eta):
    P, y = np.asarray(P), np.asarray(y)
    wrong = P != y[:, None]
    before = np.cumsum(wrong, axis=0) - wrong
    w = (1 - eta) ** (before - before.min(axis=1, keepdims=True))
    return (w * wrong).sum(axis=1) / w.sum(axis=1)
""",
    "kernel_perceptron": """
class KernelPerceptronLearner:
    def __init__(self, n_features, kernel):
        self.kernel = kernel
        self.M = []

    @property
    def n_updates(self):
        return len(self.M)

    def predict(self, x):
        return 1 if sum(s * int(self.kernel(x, z)) for z, s in self.M) >= 0 else -1

    def update(self, x, y):
        if self.predict(x) != y:
            self.M.append((np.array(x), int(y)))
""",
    "drift_chain": """
def expected_mistakes(p):
    p = list(p)
    n = len(p)
    one = Fraction(1) if all(isinstance(v, (int, Fraction)) for v in p) else 1.0
    T = [0 * one] * (n + 1)
    T[n] = one / p[n - 1]
    for d in range(n - 1, 0, -1):
        T[d] = (one + (one - p[d - 1]) * T[d + 1]) / p[d - 1]
    out = [0 * one]
    for d in range(1, n + 1):
        out.append(out[-1] + T[d])
    return out
""",
    "normalized_step": """
def normalized_step(W, S, label, eta):
    W, S = np.asarray(W, dtype=float), np.asarray(S, dtype=float)
    wrong = (1 if W @ S >= 0 else -1) != label
    new = W + (eta / len(W)) * wrong * label * S
    return new / np.linalg.norm(new)
""",
}


@functools.lru_cache(maxsize=None)
def hidden(name):
    return load_hidden(LECTURER / f"{name}_hidden.py")


def build(name, code):
    """The notebook's FUNCTION, defined by running its code here (with the whole library)."""
    namespace = {"__name__": "__main__"}
    exec(IMPORTS, namespace)
    exec(textwrap.dedent(code), namespace)
    return namespace[hidden(name).FUNCTION]


def in_process(name, code):
    return hidden(name).grade(build(name, code))


def expected_marks(name, marks):
    return hidden(name).grade(hidden(name).REFERENCE).max_score if marks == FULL else marks


def describe(report) -> str:
    failed = report.failures
    return f"{report.score:g}/{report.max_score:g}" + (
        f", first failure {failed[0].name}: {failed[0].message[:120]}" if failed else ""
    )


@pytest.mark.parametrize("name", NAMES)
def test_each_shortcut_really_earns_its_marks_without_forbidden(name):
    """The control: without FORBIDDEN (this process, the whole library) each shortcut earns what is recorded."""
    problems = []
    for label, (code, marks) in SHORTCUTS[name].items():
        report = in_process(name, code)
        if report.score != expected_marks(name, marks) or report.score <= 0:
            problems.append(f"{label}: expected {marks}, got {describe(report)}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", NAMES)
def test_what_is_not_a_shortcut_earns_nothing(name):
    problems = []
    for label, code in NOT_SHORTCUTS[name].items():
        report = in_process(name, code)
        if report.score != 0:
            problems.append(f"{label}: {describe(report)}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", NAMES)
def test_the_honest_notebook_code_earns_full_marks(name):
    report = in_process(name, HONEST[name])
    assert report.passed, report.summary()


def test_forbidden_names_resolve():
    for name in NAMES:
        resolve_forbidden(hidden(name).FORBIDDEN)


# -- through the grader -----------------------------------------------------------------------


def header() -> str:
    text = (ROOT / "tests" / "submissions" / "attacks" / "halving" / "control_correct.md").read_text(encoding="utf-8")
    return text[: text.index("---", 3) + 3] + "\n"


def notebook(title: str, code: str) -> str:
    return (
        f"{header()}\n# {title}\n\n```{{code-cell}} ipython3\n{IMPORTS}```\n\n"
        f"```{{code-cell}} ipython3\n{textwrap.dedent(code).strip()}\n```\n"
    )


def slug(label: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in label.lower()).strip("_")[:60]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    runs = {}

    def run(name):
        if name not in runs:
            folder = tmp_path_factory.mktemp(f"shortcuts_{name}") / "submissions"
            folder.mkdir()
            files = {"honest.md": None}
            (folder / "honest.md").write_text(notebook("An honest solution", HONEST[name]), encoding="utf-8")
            for label, (code, _) in SHORTCUTS[name].items():
                file = f"shortcut_{slug(label)}.md"
                (folder / file).write_text(notebook(f"Shortcut: {label}", code), encoding="utf-8")
                files[file] = label
            out = folder.parent / "scores.csv"
            result = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "booktools",
                    "grade",
                    str(folder),
                    "--assignment",
                    name,
                    "--out",
                    str(out),
                    "--jobs",
                    "2",
                    "--timeout",
                    str(TIMEOUT),
                ],
                capture_output=True,
                text=True,
                timeout=600,
                cwd=ROOT,
            )
            assert result.returncode == 0, result.stderr[-3000:]
            with out.open(newline="", encoding="utf-8") as handle:
                rows = {row["submission"]: row for row in csv.DictReader(handle)}
            runs[name] = (rows, files)
        return runs[name]

    return run


@pytest.mark.skipif(
    find_bwrap() is None,
    reason="bubblewrap is not installed (apt-get install bubblewrap); .ci/run installs it",
)
@pytest.mark.parametrize("name", NAMES)
def test_no_shortcut_scores_through_the_grader(graded, name):
    rows, files = graded(name)
    assert set(rows) == set(files), "every notebook gets a row"
    honest = rows["honest.md"]
    assert (honest["status"], honest["score"]) == ("graded", honest["max_score"]), honest
    assert float(honest["max_score"]) == hidden(name).grade(hidden(name).REFERENCE).max_score
    problems = []
    for file, label in files.items():
        if label is None:
            continue
        row = rows[file]
        if float(row["score"]) != 0 or row["status"] != "forbidden" or "uses onlinelib." not in row["feedback"]:
            problems.append(f"{label}: {row['status']} {row['score']}/{row['max_score']}: {row['feedback'][:200]}")
    assert not problems, "\n".join(problems)
