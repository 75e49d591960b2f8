"""Hidden tests of Assignment 14, shattered sets, a class with VC 1 and a large Ldim, and Opt = Ldim (chapter 1).

Lecturer edition only: the student-edition builder removes ``book/assignments/**/lecturer/``.
Run by ``python -m booktools grade SUBMISSIONS --assignment dimensions --out scores.csv``.

Four parts, each graded on its own. ``shattered_set`` (a certificate) returns a largest set of
points the class shatters, verified exactly by ``onlinelib.certificates.verify_shattered_set``:
a valid set of q points earns ``points * q / VC``, with VC computed here by
``onlinelib.vc_dimension`` and passed as the optimum. ``gap_class`` (a certificate) returns a
class on at most 2^k - 1 points with no shattered pair, and a mistake tree of it, verified by
``onlinelib.certificates_gap.verify_gap_class``: the pair test is direct and exact, the tree is
checked by ``verify_mistake_tree`` on the student's class, and a valid answer earns
``points * q / k`` for a complete mistake tree of depth q inside the tree. The two proofs
(QUESTIONS: Opt = Ldim; VC <= Ldim and the 2^k - 1 points that part (b) needs) are graded by hand.

Known gaps: ``onlinelib.certificates._missing_labelling`` (the verifier's shattering test) and
``verify_mistake_tree`` stay in the graded library, since the notebook's public checks run the
verifiers in the sandbox; a student may call them to test a set or a tree, not to find one.

Keyed instances (``booktools.grading.course_key``): the random class of part (a), drawn by
``course_rng("dimensions/shattered_set")`` from the course key, so this file does not show it. The other
classes and the depths of part (b) are named here and stay the same under every key.
"""

import itertools

import numpy as np

import onlinelib as ol
from booktools.grading import checks
from booktools.grading.course_key import course_rng

PARTS = {"shattered_set": "certificate", "gap_class": "certificate"}
TITLE = "Assignment 14: shattered sets, VC against Ldim, and Opt = Ldim (chapter 1)"
# (a) what computes VC or tests a set: vc_dimension, shatters and their pattern count. (b) what
# computes Ldim or walks down an optimal tree (the same list as Assignment 7: littlestone_bound and
# opt_upper_bounds call the stubbed littlestone_dimension), and thresholds, the class the chapter
# names for the gap. The verifiers call none of these when the optimum is given, as here.
FORBIDDEN = [
    "onlinelib.vc_dimension",
    "onlinelib.shatters",
    "onlinelib.version_space._distinct_patterns",
    "onlinelib.littlestone_dimension",
    "onlinelib.version_space._ldim",
    "onlinelib.version_space._split_dimensions",
    "onlinelib.version_space._soa_rule",
    "onlinelib.SOA",
    "onlinelib.worst_case_mistakes",
    "onlinelib.adaptive_adversary",
    "onlinelib.thresholds",
]
GAP_DEPTHS = (1, 2, 3, 5, 6, 7)  # hidden k of part (b); the public ones are 1, 2 and 4

_SOA_ITEMS = [
    {
        "id": "drop",
        "points": 1,
        "text": "A mistake of SOA lowers Ldim(V) by at least one.",
        "full": "Takes V with Ldim(V) = d and a mistake on x. Notes that x splits V (if one side were empty its "
        "Ldim would be -1, SOA would predict the other side, which holds the target, and could not err). SOA "
        "predicted the side of larger Ldim (+1 on a tie), so the side that survives is the one of smaller (or "
        "equal) Ldim: its Ldim is min(Ldim V+(x), Ldim V-(x)), and by the definition's maximum over splitting "
        "x that min is at most d - 1.",
        "half": "Reaches 'the surviving side has Ldim <= d - 1' by the contradiction 'both sides >= d would give "
        "Ldim(V) >= d + 1', but does not link the surviving side to SOA's rule (why it is the smaller one, ties "
        "included), or applies the definition to an x that may not split V without saying why SOA cannot err there.",
        "zero": "Asserts that the dimension drops without an argument, or argues about |V| (a halving of the "
        "version space) instead of Ldim(V).",
        "errors": [
            "Shows that V loses half its concepts: that is Halving's argument and bounds the mistakes by lg|C|, "
            "not by Ldim(C): 0.",
            "Treats only a strict preference (Ldim V+ > Ldim V-) and forgets the tie, where SOA predicts +1 and "
            "the survivor V- has the same Ldim as V+, still at most d - 1: at most half.",
            "Claims the surviving side has Ldim exactly d - 1: false in general (it may be smaller); accept if only "
            "<= d - 1 is used afterwards, otherwise at most half.",
            "Uses the definition's maximum for an x that does not split V (the maximum ranges over splitting x "
            "only) without the remark that SOA cannot err on such x: at most half.",
        ],
    },
    {
        "id": "count",
        "points": 1,
        "text": "Hence SOA makes at most Ldim(C) mistakes.",
        "full": "On a round without a mistake V_t is a subset of V_{t-1} and Ldim does not grow under subsets, "
        "with a reason (a mistake tree of the subset is one of the larger set, or induction on the definition). "
        "Ldim(V_t) >= 0 because the target is never removed, so V_t is never empty. So M <= Ldim(C) - Ldim(V_T) "
        "<= Ldim(C).",
        "half": "The count is right but one ingredient is missing or unjustified: monotonicity of Ldim under "
        "subsets stated without a reason, or Ldim(V_t) >= 0 without the target.",
        "zero": "No counting argument, or a count of rounds instead of mistakes.",
        "errors": [
            "Lets Ldim(V_t) fall to -1 (forgets that the target stays in V_t): the bound becomes Ldim(C) + 1 or "
            "is left unclear: at most half.",
            "Claims Ldim(V_t) is unchanged on rounds without a mistake: false (it can drop), but harmless if the "
            "count uses only <=; at most half if the count needs the equality.",
            "Says every round lowers Ldim(V_t): only a mistake must, and a correct round may keep it; if the "
            "count relies on it: at most half.",
        ],
    },
    {
        "id": "adversary",
        "points": 1,
        "text": "Every deterministic learner can be forced into Ldim(C) mistakes.",
        "full": "The adversary keeps V (the concepts consistent so far). While Ldim(V) = d >= 1 it shows an x "
        "that attains the definition's maximum, so both halves have Ldim >= d - 1; it computes the learner's "
        "prediction (the learner is deterministic) and answers the opposite label. Each round is a mistake and "
        "leaves Ldim(V) >= d - 1, so by induction the game lasts at least Ldim(C) rounds.",
        "half": "The right adversary, but the invariant that keeps the game going is missing: e.g. any splitting "
        "x is shown (which guarantees one mistake, not Ldim(C)), or the step 'both halves >= d - 1' is "
        "asserted without the definition.",
        "zero": "An adversary that does not depend on the learner's predictions, or a lower bound shown only for "
        "SOA or Halving.",
        "errors": [
            "Shows any instance that splits V: the game can end after one mistake (singletons): at most half.",
            "Shows that SOA or Halving makes Ldim(C) mistakes on some sequence: a lower bound for one learner, "
            "not for every learner: 0.",
            "Lets the adversary choose the label before the prediction is known (then it cannot force a mistake): 0.",
        ],
    },
    {
        "id": "consistent",
        "points": 1,
        "text": "The adversary's sequence is labelled by a concept of C, hence Opt(C) = Ldim(C).",
        "full": "V never becomes empty (the adversary only answers labels that some concept of V gives, both "
        "halves being nonempty), so a concept left at the end labels the whole sequence: it is a target c* of "
        "C. For a deterministic learner the sequence and c* are determined in advance, so the maximum over "
        "targets and sequences in Opt's definition is at least Ldim(C) for every learner: Opt(C) >= Ldim(C). "
        "With SOA's bound, Opt(C) <= Ldim(C).",
        "half": "Concludes Opt(C) = Ldim(C), but misses either the target (why the labels are realised by one "
        "concept of C) or the order of the quantifiers (one sequence per learner).",
        "zero": "No conclusion, or Opt = Ldim claimed from SOA's upper bound alone.",
        "errors": [
            "Never exhibits a target: answering 'the opposite' of every prediction without keeping a consistent "
            "concept is not a legal sequence of the mistake-bound model: at most half.",
            "Swaps the quantifiers: claims one sequence on which every learner errs Ldim(C) times (no such "
            "sequence need exist; the sequence depends on the learner): at most half.",
            "Concludes Opt = Ldim from the upper bound alone, or from the lower bound alone: 0.",
        ],
    },
]

_SOA_MODEL = r"""Write $V^\pm(x)$ for the concepts of $V$ that label $x$ with $\pm 1$, and $V_t$ for the
version space after round $t$ ($V_0 = \mathcal C$).

**SOA makes at most $\mathrm{Ldim}(\mathcal C)$ mistakes.** Suppose SOA errs in round $t$ on $x$,
and let $d = \mathrm{Ldim}(V_{t-1})$. Both sides of $x$ are nonempty: the target is in $V_{t-1}$, and
if one side were empty, its dimension $-1$ would be below the other side's ($\ge 0$), so SOA would
predict the nonempty side, the target's, and not err. SOA predicts the side whose dimension is at
least the other's ($+1$ on a tie), and the truth is the other side, so
$\mathrm{Ldim}(V_t) = \min(\mathrm{Ldim}\,V^+(x), \mathrm{Ldim}\,V^-(x))$. Since $x$ splits $V_{t-1}$, the
definition gives $\mathrm{Ldim}(V_{t-1}) \ge 1 + \min(\cdot,\cdot)$, so $\mathrm{Ldim}(V_t) \le d - 1$.
In a round without a mistake $V_t \subseteq V_{t-1}$, and $\mathrm{Ldim}$ is monotone: a complete tree
whose every path is realised by a concept of the subset is such a tree for the larger set. So
$\mathrm{Ldim}(V_t)$ never grows and falls by one at least at each mistake. The target is never removed,
so $V_t \neq \emptyset$ and $\mathrm{Ldim}(V_t) \ge 0$. After $M$ mistakes,
$0 \le \mathrm{Ldim}(V_t) \le \mathrm{Ldim}(\mathcal C) - M$, so $M \le \mathrm{Ldim}(\mathcal C)$.

**Every deterministic learner $L$ can be forced into $\mathrm{Ldim}(\mathcal C)$ mistakes.** The
adversary keeps $V$, starting from $\mathcal C$. While $d = \mathrm{Ldim}(V) \ge 1$, it picks an $x$
that attains the maximum in the definition, so that $x$ splits $V$ and both sides have dimension at
least $d - 1$. It computes $L$'s prediction $\hat y$ on $x$ (the history is known and $L$ is
deterministic), answers $y = -\hat y$, and sets $V \leftarrow V^{y}(x)$. Every round is a mistake; the
new $V$ is nonempty and has dimension at least $d - 1$. By induction, the game lasts at least
$\mathrm{Ldim}(\mathcal C)$ rounds before the dimension reaches 0. Any concept $c_*$ left in $V$ at the
end agrees with every label given, so the sequence is labelled by $c_* \in \mathcal C$. This
sequence and $c_*$ depend only on $L$, so
$\max_{c_*} \max_{x_1, x_2, \dots} M(L, c_*, x_1, \dots) \ge \mathrm{Ldim}(\mathcal C)$ for every
deterministic $L$: $\mathrm{Opt}(\mathcal C) \ge \mathrm{Ldim}(\mathcal C)$. With SOA,
$\mathrm{Opt}(\mathcal C) \le \mathrm{Ldim}(\mathcal C)$, hence equality."""

_VC_ITEMS = [
    {
        "id": "tree",
        "points": 1,
        "text": "VC(C) <= Ldim(C): a shattered set of k points gives a complete mistake tree of depth k.",
        "full": "Takes a shattered set {x_1, ..., x_k} and the complete tree with x_{i+1} at every node of depth "
        "i. A node at depth i is reached by labels l_1, ..., l_i of x_1, ..., x_i; each of (l_1, ..., l_i, -1) "
        "and (l_1, ..., l_i, +1) extends to a labelling of all k points, which some concept gives (shattering), "
        "so both labels of x_{i+1} are realised by concepts consistent with the path (equivalently: every "
        "root-to-leaf path is realised). Hence Ldim >= k.",
        "half": "The right tree, but the realisation is asserted without shattering (or only for the leaves "
        "without saying the definition used is the tree form), or an induction on the recursive definition "
        "that does not show V+(x_1) and V-(x_1) still shatter {x_2, ..., x_k}.",
        "zero": "No tree, or an argument through the number of concepts (2^k concepts are needed, so "
        "lg|C| >= VC), which bounds lg|C|, not Ldim.",
        "errors": [
            "Proves floor(lg|C|) >= VC(C) and stops: that is a different inequality: 0.",
            "Puts different points at nodes of the same depth and then cannot use shattering of one set for the "
            "mixed paths: at most half unless the points on every path form a shattered set.",
            "Inducts on k through V+(x_1) without showing that it shatters {x_2, ..., x_k}: at most half.",
        ],
    },
    {
        "id": "sauer",
        "points": 1,
        "text": "A class of VC dimension at most 1 on n points has at most n + 1 distinct concepts.",
        "full": "A complete proof, e.g. by induction on n: n = 1 gives at most 2 concepts. For n points, restrict "
        "the class to the first n - 1 (VC still <= 1, since a set shattered by the restrictions is shattered "
        "by C), which has at most n distinct restrictions; a restriction r is the trace of two concepts only if "
        "both labels of point n occur with r. The set D of such r shatters no point y, since otherwise C would "
        "shatter {y, n}: so |D| <= 1 and |C| <= n + |D| <= n + 1.",
        "half": "The induction is set up, but the step |D| <= 1 is asserted without the shattered pair, or the "
        "restriction's VC is not addressed; or the Sauer-Shelah lemma is quoted with d = 1 instead of proved.",
        "zero": "No proof, or a proof only for thresholds or for nested (chain) classes.",
        "errors": [
            "Proves the bound for thresholds, intervals or chains only: 0.",
            "Quotes the Sauer-Shelah lemma (the question asks for a proof): at most half.",
            "Says 'D has VC dimension 0 because C has VC dimension 1' without the pair {y, n}: at most half.",
            "Counts rows with repetitions: the claim is about distinct concepts; at most half if the proof "
            "depends on the rows being distinct without saying so.",
        ],
    },
    {
        "id": "points",
        "points": 1,
        "text": "Hence Ldim >= k with VC <= 1 needs at least 2^k - 1 points, and part (b)'s limit is tight.",
        "full": "Chains Ldim(C) <= floor(lg|C|) (chapter 1; repeated rows change neither side) with |C| <= n + 1: "
        "2^k <= 2^Ldim <= |C| <= n + 1, so n >= 2^k - 1; and notes that thresholds on 2^k - 1 points (2^k "
        "concepts, VC 1, Ldim k) meet it, so the limit of part (b) cannot be lowered.",
        "half": "The chain is right but the conclusion is off by one (n >= 2^k) or the tightness is missing; or "
        "one link is used without its source (Ldim <= floor(lg|C|)).",
        "zero": "No chain of inequalities, or an inequality in the wrong direction (at most 2^k - 1 points).",
        "errors": [
            "Concludes n >= 2^k: the class has n + 1 concepts, not n: at most half.",
            "Argues that thresholds need 2^k - 1 points, not that every class with VC <= 1 does: 0.",
            "Reverses a link (e.g. |C| >= n + 1, or 2^Ldim >= |C|) and still writes the right conclusion: 0.",
        ],
    },
]

_VC_MODEL = r"""**VC $\le$ Ldim.** Let $\{x_1, \dots, x_k\}$ be shattered. Take the complete binary tree of
depth $k$ with $x_{i+1}$ at every node of depth $i$. A node of depth $i$ is reached by labels
$\ell_1, \dots, \ell_i$ of $x_1, \dots, x_i$. For either label $\ell$ of $x_{i+1}$, the labelling
$(\ell_1, \dots, \ell_i, \ell, +1, \dots, +1)$ of the $k$ points is given by a concept (the set is
shattered), which is consistent with the path and labels $x_{i+1}$ with $\ell$. So every node is a
mistake node, every path is realised, and $\mathrm{Ldim}(\mathcal C) \ge k$.

**At most $n + 1$ concepts.** Induction on the number $n$ of points; $n = 1$ allows 2 concepts.
Let $\mathcal C$ have VC dimension at most 1 on points $1, \dots, n$, and let $\mathcal C'$ be the set
of restrictions of its concepts to $1, \dots, n-1$. A set shattered by $\mathcal C'$ is shattered by
$\mathcal C$, so $\mathrm{VC}(\mathcal C') \le 1$ and $|\mathcal C'| \le n$. A restriction $r$ comes from
two distinct concepts only if both $(r, -1)$ and $(r, +1)$ are in $\mathcal C$; let $D$ be the set of
such $r$, so $|\mathcal C| = |\mathcal C'| + |D|$. If two restrictions $r \ne r'$ of $D$ differed at some
point $y$, the four concepts $(r, \pm 1), (r', \pm 1)$ would shatter $\{y, n\}$. So $|D| \le 1$ and
$|\mathcal C| \le n + 1$.

**The points of part (b).** If $\mathrm{VC}(\mathcal C) \le 1$ and $\mathrm{Ldim}(\mathcal C) \ge k$ on $n$
points, then (repeated rows changing nothing) $2^k \le 2^{\mathrm{Ldim}(\mathcal C)} \le |\mathcal C| \le
n + 1$ by the chapter's theorem "Ldim is at least VC" (its second inequality), so $n \ge 2^k - 1$. Thresholds on $2^k - 1$ points
have $2^k$ concepts, no shattered pair and Ldim $k$, so the bound is tight."""

QUESTIONS = [
    {
        "id": "opt-ldim",
        "title": "Opt(C) = Ldim(C): SOA's upper bound and the adversary's lower bound",
        "items": _SOA_ITEMS,
        "model": _SOA_MODEL,
    },
    {
        "id": "vc-points",
        "title": "VC(C) <= Ldim(C), and the 2^k - 1 points that part (b) needs",
        "items": _VC_ITEMS,
        "model": _VC_MODEL,
    },
]


# -- the references ------------------------------------------------------------------------------------


def reference_shattered_set(table):
    """The lecturer's answer to (a): the first set, in lexicographic order, of VC(C) points the class shatters."""
    cls = ol.ConceptClass(np.asarray(table, dtype=bool))
    vc = ol.vc_dimension(cls)
    for points in itertools.combinations(range(cls.n_instances), vc):
        if ol.shatters(cls, points):
            return list(points)
    raise AssertionError(f"no shattered set of size VC = {vc}")


def reference_gap_class(k):
    """The lecturer's answer to (b): thresholds on 2^k - 1 points and the binary search over them.

    Concept s (s = 0..m, m = 2^k - 1) labels x with +1 iff x >= s. At a node where the thresholds
    lo..hi are left (a power of 2 of them), the point x = (lo + hi) // 2 sends lo..x to the side +1
    and x + 1..hi to the side -1, halving them: a complete mistake tree of depth k.
    """
    m = 2**k - 1
    table = np.arange(m)[None, :] >= np.arange(m + 1)[:, None]

    def build(lo, hi):
        if lo == hi:
            return None
        x = (lo + hi) // 2
        return [x, build(x + 1, hi), build(lo, x)]

    return table, build(0, m)


REFERENCE = {"shattered_set": reference_shattered_set, "gap_class": reference_gap_class}


# -- the classes of part (a) ------------------------------------------------------------------------------


def intervals(m):
    """The empty concept and every interval [a, b] of the points 0..m-1 (VC 2)."""
    rows = [np.zeros(m, dtype=bool)]
    for a, b in itertools.combinations_with_replacement(range(m), 2):
        row = np.zeros(m, dtype=bool)
        row[a : b + 1] = True
        rows.append(row)
    return np.array(rows)


def rectangles(side):
    """The empty concept and every axis-parallel rectangle on a side x side grid, point (i, j) = i * side + j (VC 4)."""
    rows = [np.zeros(side * side, dtype=bool)]
    spans = list(itertools.combinations_with_replacement(range(side), 2))
    for (a, b), (c, d) in itertools.product(spans, spans):
        grid = np.zeros((side, side), dtype=bool)
        grid[a : b + 1, c : d + 1] = True
        rows.append(grid.ravel())
    return np.array(rows)


def dead_end():
    """Points 1-3 shattered (VC 3); point 0 is shattered alone but with nothing else, point 4 repeats
    point 0 and point 5 is never +1: a search that grows one set greedily from point 0 stops at 1."""
    cube = np.array(list(itertools.product([False, True], repeat=3)))
    rows = np.zeros((9, 6), dtype=bool)
    rows[:8, 1:4] = cube
    rows[8, 0] = True
    rows[:, 4] = rows[:, 0]
    return rows


def repeated_columns():
    """All 8 concepts on 3 points, each column twice (VC 3: a set with both copies of a column is not
    shattered, so points 0, 1, 2 are not, while 0, 1, 3 are)."""
    table = np.array(list(itertools.product([False, True], repeat=3)))
    return table[:, [2, 0, 2, 1, 0, 1]]


def shattered_certificate(name, table, points=2.0):
    """One class of part (a): VC computed here, passed to the verifier as the optimum that earns every point."""
    table = np.asarray(table, dtype=bool)
    vc = ol.vc_dimension(ol.ConceptClass(table))
    return checks.Certificate(
        f"{name} (VC {vc})",
        args=(table,),
        verifier="shattered_set",
        params={"table": table, "optimum": vc, "max_points": int(table.shape[1])},
        points=points,
    )


def gap_certificate(k, points=2.0):
    """One k of part (b): VC <= 1, at most 2^k - 1 points, and a tree certifying Ldim >= k for every point."""
    m = 2**k - 1
    return checks.Certificate(
        f"Ldim >= {k} and VC <= 1 on at most {m} point{'s' if m > 1 else ''}",
        args=(k,),
        verifier="gap_class",
        params={"depth": k},
        points=points,
    )


def shattered_cases():
    """Nine classes, other than the public ones: 2 points each, 1 for the class of one concept."""
    rng = course_rng("dimensions/shattered_set")
    return [
        shattered_certificate("thresholds on 30 points", ol.thresholds(30).table),
        shattered_certificate("intervals on 12 points", intervals(12)),
        shattered_certificate("rectangles on a 4 x 4 grid", rectangles(4)),
        shattered_certificate("all 32 concepts on 5 points", ol.all_concepts(5).table),
        shattered_certificate("monotone disjunctions of 4 variables", ol.monotone_disjunctions(4).table),
        shattered_certificate("a point that is a dead end", dead_end()),
        shattered_certificate("all concepts on 3 points, every column twice", repeated_columns()),
        shattered_certificate("a random class of 80 concepts on 16 points", rng.random((80, 16)) < 0.5),
        shattered_certificate("a single concept", np.array([[True, False, True, True]]), points=1.0),
    ]


def gap_cases():
    """Six depths, other than the public ones' 4: 2 points each."""
    return [gap_certificate(k) for k in GAP_DEPTHS]


def public_checks():
    """The notebook's public checks, one section per part (recorded into dimensions_public.json)."""
    rng = np.random.default_rng(14)
    return {
        "shattered_set": {
            "title": "Assignment 14 (a), public checks",
            "certificates": [
                shattered_certificate("thresholds on 9 points", ol.thresholds(9).table, points=1.0),
                shattered_certificate("singletons on 6 points", ol.singletons(6).table, points=1.0),
                shattered_certificate("all 8 concepts on 3 points", ol.all_concepts(3).table, points=1.0),
                shattered_certificate("a random class of 12 concepts on 6 points", rng.random((12, 6)) < 0.5, 1.0),
            ],
        },
        "gap_class": {
            "title": "Assignment 14 (b), public checks",
            "certificates": [gap_certificate(1, 1.0), gap_certificate(2, 1.0), gap_certificate(4, 1.0)],
        },
    }


def grade(student) -> checks.GradeReport:
    """(a) each class's set verified exactly, points * q / VC; (b) each k's class and tree, points * q / k."""
    shattered = checks.verify_certificates(student["shattered_set"], shattered_cases(), title=TITLE)
    return shattered + checks.verify_certificates(student["gap_class"], gap_cases())
