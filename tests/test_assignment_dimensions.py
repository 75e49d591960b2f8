"""Tests of Assignment 14, ``dimensions`` (chapter 1): a largest shattered set, a class with VC <= 1 and
Ldim >= k, and two written proofs (Opt = Ldim; VC <= Ldim and the 2^k - 1 points part (b) needs).

* the reference earns every point and the notebook's stubs none ("not implemented yet"); a solution
  that returns nothing earns nothing;
* the notebook's public checks pass with the reference filled in and with correct code written from
  the notebook's text (``SOLUTIONS``, in every representation the text allows: lists, tuples, numpy
  arrays of bool or int, tuple nodes, repeated rows, and another class than thresholds);
* plausible wrong answers (mutants) lose points with the right reason, and the common slips keep
  partial credit; the verifier of part (b) (``onlinelib.certificates_gap``) is tested directly;
* ``FORBIDDEN`` resolves, the graded library blocks every shortcut and still runs the public checks;
* the answer cells match ``QUESTIONS``, whose items all have their descriptors, errors and a model;
* ``python -m booktools grade`` (with bubblewrap) gives correct code full automatic marks, a wrong
  notebook less, a notebook missing a part only that part's loss, and collects the proofs.
"""

import csv
import re
import shutil
import subprocess
import sys
from fractions import Fraction
from functools import cache
from pathlib import Path

import jupytext
import numpy as np
import pytest

import onlinelib as ol
from booktools.grading import checks
from booktools.grading.answers import extract_answers
from booktools.grading.hidden import load_hidden, public_checks_text
from booktools.grading.library import resolve_forbidden
from booktools.grading.questions import questions_from_hidden
from examples import run_in_graded_library
from onlinelib.certificates import verify_certificate
from onlinelib.certificates_gap import MAX_GAP_DEPTH, verify_gap_class

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = ROOT / "book" / "assignments"
NAME = "dimensions"
PARTS = ("shattered_set", "gap_class")


@cache
def hidden():
    return load_hidden(ASSIGNMENTS / "lecturer" / f"{NAME}_hidden.py")


@cache
def shattered_cases():
    return tuple(hidden().shattered_cases())


@cache
def gap_cases():
    return tuple(hidden().gap_cases())


@cache
def full_report():
    return hidden().grade(hidden().REFERENCE)


def part_points(report, part):
    """(earned, max) of one part: the first len(shattered_cases()) checks are part (a)'s."""
    n = len(shattered_cases())
    chosen = report.checks[:n] if part == "shattered_set" else report.checks[n:]
    return sum(c.points for c in chosen), sum(c.max_points for c in chosen)


# -- correct code, written from the notebook's text (not from the reference) -----------------------------

PRELUDE = "import itertools\n\nimport numpy as np\n"
SOLUTIONS = {
    "shattered_set": '''
def shattered_set(table):
    """Level by level: the shattered sets of size j + 1 extend those of size j (all their subsets shattered)."""
    table = np.asarray(table, dtype=bool)
    n_points = table.shape[1]

    def shattered(points):
        return len({tuple(row) for row in table[:, list(points)].tolist()}) == 2 ** len(points)

    level = [()]
    while True:
        known = set(level)
        grown = [
            base + (x,)
            for base in level
            for x in range(base[-1] + 1 if base else 0, n_points)
            if all((base + (x,))[:i] + (base + (x,))[i + 1 :] in known for i in range(len(base)))
            and shattered(base + (x,))
        ]
        if not grown:
            return list(level[0])
        level = grown
''',
    "gap_class": '''
def gap_class(k):
    """Thresholds on m = 2^k - 1 points (concept s says +1 on x >= s) and binary search over s."""
    m = 2 ** k - 1
    table = [[1 if x >= s else 0 for x in range(m)] for s in range(m + 1)]

    def search(lo, hi):  # the thresholds lo..hi are consistent with the path
        if lo == hi:
            return None
        x = (lo + hi - 1) // 2  # +1 keeps s <= x, i.e. lo..x; -1 keeps x + 1..hi: halves of equal size
        return [x, search(x + 1, hi), search(lo, x)]

    return table, search(0, m)
''',
}

# Other representations and constructions the text allows, each run after the solution above in the
# same cell (so the name is redefined): every one must earn full marks in the notebook and in the grader.
VARIANTS = {
    # depth first over shattered sets with the patterns as integer codes; returns a numpy int array
    ("shattered_set", "numpy_codes"): """
def shattered_set(table):
    table = np.asarray(table).astype(bool)
    n_concepts, n_points = table.shape
    limit = n_concepts.bit_length() - 1  # a shattered set of j points needs 2^j concepts
    best = ()

    def extend(points, codes):
        nonlocal best
        if len(points) > len(best):
            best = points
        if len(points) == limit:
            return
        for x in range(points[-1] + 1 if points else 0, n_points):
            grown = codes * 2 + table[:, x]
            if len(np.unique(grown)) == 2 ** (len(points) + 1):
                extend(points + (x,), grown)

    extend((), np.zeros(n_concepts, dtype=np.int64))
    return np.array(best, dtype=np.int64)
""",
    # from the largest size that 2^j <= |C| allows down, the first shattered combination; a tuple
    ("shattered_set", "tuple_top_down"): """
def shattered_set(table):
    rows = [tuple(bool(v) for v in row) for row in np.asarray(table)]
    n_points = len(rows[0])
    for size in range(len(set(rows)).bit_length() - 1, 0, -1):
        for points in itertools.combinations(range(n_points), size):
            if len({tuple(r[x] for x in points) for r in rows}) == 2 ** size:
                return points
    return ()
""",
    # another class than thresholds: the 2^k leaves of a complete binary tree as concepts, its 2^k - 1
    # inner nodes as points; a leaf says +1 on a node iff it lies in the node's right subtree. A numpy
    # bool table, and tuple nodes
    ("gap_class", "tree_leaves"): """
def gap_class(k):
    inner = 2 ** k - 1  # heap order: the children of node v are 2v + 1 and 2v + 2
    table = np.zeros((2 ** k, inner), dtype=bool)
    for leaf in range(2 ** k):
        v = inner + leaf
        while v > 0:
            parent = (v - 1) // 2
            table[leaf, parent] = v == 2 * parent + 2
            v = parent

    def node(v):
        return None if v >= inner else (v, node(2 * v + 1), node(2 * v + 2))

    return table, node(0)
""",
    # thresholds the other way round (+1 on x < s) as a numpy int8 array with two repeated all-negative
    # rows, and a tree whose equal subtrees are shared
    ("gap_class", "int8_repeated_rows_shared"): """
def gap_class(k):
    m = 2 ** k - 1
    table = (np.arange(m)[None, :] < np.arange(m + 1)[:, None]).astype(np.int8)
    table = np.vstack([table, np.zeros((2, m), dtype=np.int8)])
    made = {}

    def search(lo, hi):
        if lo == hi:
            return None
        if (lo, hi) not in made:
            x = (lo + hi) // 2
            made[lo, hi] = [x, search(lo, x), search(x + 1, hi)]
        return made[lo, hi]

    return table, search(0, m)
""",
}

PROOFS = {
    "opt-ldim": "SOA: on a mistake at $x$ the survivor is the side of smaller dimension, so "
    "$\\mathrm{Ldim}(V_t) \\le \\mathrm{Ldim}(V_{t-1}) - 1$. The adversary answers the opposite label.",
    "vc-points": "Put $x_{i+1}$ at depth $i$; shattering realises every path. Sauer for $d = 1$: "
    "$|\\mathcal C| \\le n + 1$, so $2^k \\le n + 1$.",
}


def solution(part, variant=None):
    namespace = {}
    exec(PRELUDE + SOLUTIONS[part] + (VARIANTS[part, variant] if variant else ""), namespace)
    return namespace[part]


def solutions(**replace):
    return {**{part: solution(part) for part in PARTS}, **replace}


def notebook():
    return jupytext.read(ASSIGNMENTS / f"{NAME}.md")


def code_cells():
    return [c.source for c in notebook().cells if c.cell_type == "code"]


def stub_part(cell):
    return next((p for p in PARTS if re.search(rf"^def {p}\b", cell, re.M)), None)


# -- the reference, the stubs, nothing --------------------------------------------------------------------


def test_the_reference_earns_every_point_and_the_stubs_none():
    report = full_report()
    assert report.passed and report.max_score == 29, report.summary()
    assert part_points(report, "shattered_set") == (17, 17) and part_points(report, "gap_class") == (12, 12)
    vcs = [c.params["optimum"] for c in shattered_cases()]
    assert vcs == [1, 2, 4, 5, 4, 3, 3, 5, 0], vcs  # the VC dimensions the text's scoring divides by
    namespace = {}
    cells = code_cells()
    stubs = [cell for cell in cells if stub_part(cell)]
    assert [stub_part(cell) for cell in stubs] == list(PARTS)
    for cell in stubs:
        assert "raise NotImplementedError" in cell and "# YOUR CODE HERE" in cell
    for cell in cells:
        if "load_public_checks" not in cell:
            exec(cell, namespace)
    report = hidden().grade({part: namespace[part] for part in PARTS})
    assert report.score == 0 and all("not implemented yet" in c.message for c in report.checks), report.summary()


def test_a_solution_that_returns_nothing_earns_nothing():
    report = hidden().grade({"shattered_set": lambda table: None, "gap_class": lambda k: None})
    assert report.score == 0, report.summary()
    assert all("invalid" in c.message for c in report.checks), report.summary()


def test_the_public_checks_are_recorded_from_the_hidden_file_and_hold_the_optimum():
    text = (ASSIGNMENTS / f"{NAME}_public.json").read_text(encoding="utf-8")
    assert text == public_checks_text(hidden())
    public = ol.grading.load_public_checks(ASSIGNMENTS / f"{NAME}_public.json", part="shattered_set")
    assert all("optimum" in c.params for c in public.certificates)  # no VC computed in the notebook


@pytest.mark.parametrize("fill", ["reference", "solution"])
def test_public_checks_pass_with_correct_code(fill, capsys, monkeypatch):
    monkeypatch.chdir(ASSIGNMENTS)  # the notebook reads dimensions_public.json from its folder
    namespace = {}
    for cell in code_cells():
        part = stub_part(cell)
        if part and fill == "reference":
            namespace[part] = hidden().REFERENCE[part]
        else:
            exec(SOLUTIONS[part] if part else cell, namespace)
    out = capsys.readouterr().out
    assert out.count("All checks passed.") == 2 and "FAIL" not in out, out
    assert namespace["report"].passed and len(namespace["report"].checks) == 3


def test_the_notebook_is_listed_and_never_mentions_the_hidden_tests():
    text = (ASSIGNMENTS / f"{NAME}.md").read_text(encoding="utf-8")
    assert "lecturer" not in text and "_hidden" not in text
    assert "(asg-dimensions)=\n# Assignment 14:" in text
    assert "*Difficulty: intermediate. Expected time: about 5 hours.*" in text


# -- correct code in every representation the text allows -------------------------------------------------


@pytest.mark.parametrize(("part", "variant"), [(p, None) for p in PARTS] + list(VARIANTS))
def test_correct_code_earns_every_point_in_the_notebook_after_the_transport_and_in_the_hidden_tests(
    part, variant, monkeypatch
):
    student = solution(part, variant)
    monkeypatch.chdir(ASSIGNMENTS)
    public = ol.grading.load_public_checks(f"{NAME}_public.json", part=part)
    assert public.run(student).passed
    # every check verifies what the sandbox hands over (plain_data.transported), so this is also the
    # verdict after the transport
    report = hidden().grade(solutions(**{part: student}))
    assert report.passed and report.max_score == full_report().max_score, report.summary()


# -- mutants: plausible wrong answers lose points, with the reason ---------------------------------------


def run(part, mutant):
    """The hidden checks of one part on ``mutant``: [(certificate, check)], and (earned, max) of the part."""
    cases = shattered_cases() if part == "shattered_set" else gap_cases()
    report = checks.verify_certificates(mutant, list(cases))
    whole = hidden().grade(solutions(**{part: mutant}))
    assert part_points(whole, part) == (report.score, report.max_score)  # graded on its own
    other = PARTS[1 - PARTS.index(part)]
    assert part_points(whole, other)[0] == part_points(whole, other)[1]
    return list(zip(cases, report.checks, strict=True)), report.score, report.max_score


def _reference_set(table):
    return hidden().REFERENCE["shattered_set"](table)


def test_shattered_set_mutants():
    scores = {}

    def first_points(table):  # the first VC points, as if every set of that size were shattered
        return list(range(len(_reference_set(table))))

    results, scores["first points"], full = run("shattered_set", first_points)
    dead_end = dict((c.name, check) for c, check in results)["a point that is a dead end (VC 3)"]
    assert dead_end.points == 0 and "is realised by no concept" in dead_end.message, dead_end

    def greedy(table):  # grows one set from point 0 and stops when no point extends it: maximal, not maximum
        table = np.asarray(table, dtype=bool)
        chosen = []
        for x in range(table.shape[1]):
            if len(np.unique(table[:, chosen + [x]], axis=0)) == 2 ** (len(chosen) + 1):
                chosen.append(x)
        return chosen

    results, scores["greedy"], _ = run("shattered_set", greedy)
    dead_end = dict((c.name, check) for c, check in results)["a point that is a dead end (VC 3)"]
    assert dead_end.points == 2.0 * Fraction(1, 3) and "1 of the 3 that earn every point" in dead_end.message

    def one_short(table):  # the search stops one level early
        return _reference_set(table)[:-1]

    results, scores["one short"], _ = run("shattered_set", one_short)
    for certificate, check in results:
        vc = certificate.params["optimum"]
        assert check.points == (certificate.points if vc == 0 else certificate.points * Fraction(vc - 1, vc))

    def one_based(table):  # points counted from 1
        return [x + 1 for x in _reference_set(table)]

    results, scores["one based"], _ = run("shattered_set", one_based)
    thirty = dict((c.name, check) for c, check in results)["thresholds on 30 points (VC 1)"]
    assert thirty.passed  # any single point is shattered by thresholds, so the slip costs only some classes
    assert any("is out of range, the points are 0.." in check.message for _, check in results)

    def padded(table):  # a set padded with a repeated point up to the size floor(lg |C|)
        table = np.asarray(table, dtype=bool)
        found = _reference_set(table)
        size = len(np.unique(table, axis=0)).bit_length() - 1
        return found + [found[0]] * (size - len(found)) if found else found

    results, scores["padded"], _ = run("shattered_set", padded)
    assert any("must be distinct" in check.message for _, check in results)

    def floats(table):
        return [float(x) for x in _reference_set(table)]

    results, scores["floats"], _ = run("shattered_set", floats)
    assert all(check.points == 0 and "(float)" in check.message for c, check in results if c.params["optimum"])

    def mask(table):  # a Boolean mask of the points instead of their indices
        table = np.asarray(table, dtype=bool)
        chosen = np.zeros(table.shape[1], dtype=bool)
        chosen[_reference_set(table)] = True
        return chosen

    results, scores["mask"], _ = run("shattered_set", mask)
    assert all(check.points == 0 and "must hold exact" in check.message for _, check in results)

    assert all(score < full for score in scores.values()), scores
    for slip in ("greedy", "one short", "one based"):  # common slips keep partial credit
        assert scores[slip] > 0, scores


def _reference_gap(k):
    return hidden().REFERENCE["gap_class"](k)


def _map_tree(tree, fn):
    return None if tree is None else fn([tree[0], _map_tree(tree[1], fn), _map_tree(tree[2], fn)])


def _truncate(tree, depth):
    return (
        None if tree is None or depth == 0 else [tree[0], _truncate(tree[1], depth - 1), _truncate(tree[2], depth - 1)]
    )


def test_gap_class_mutants():
    scores = {}

    def singletons(k):  # VC 1 on 2^k - 1 points too, but Ldim 1: one level of tree
        m = 2**k - 1
        table = np.vstack([np.eye(m, dtype=bool), np.zeros((1, m), dtype=bool)])
        return table, [0, None, None]

    results, scores["singletons"], full = run("gap_class", singletons)
    for certificate, check in results:
        k = certificate.params["depth"]
        assert check.points == certificate.points * Fraction(1, k), (k, check)

    def all_concepts(k):  # Ldim k on only k points, but every set is shattered
        table = np.array(np.meshgrid(*[[False, True]] * k, indexing="ij")).reshape(k, -1).T

        def build(depth):  # point j at every node of depth j
            return None if depth == k else [depth, build(depth + 1), build(depth + 1)]

        return table, build(0)

    results, scores["all concepts"], _ = run("gap_class", all_concepts)
    for certificate, check in results:
        if certificate.params["depth"] == 1:
            assert check.passed, check
        else:
            assert check.points == 0 and "the class shatters points (0, 1)" in check.message, check
            assert "VC dimension is at least 2" in check.message

    def intervals(k):  # VC 2: the empty concept and every interval of the 2^k - 1 points
        table = hidden().intervals(2**k - 1)
        return table, _reference_gap(k)[1]

    results, scores["intervals"], _ = run("gap_class", intervals)
    wider = [c for cert, c in results if cert.params["depth"] > 1]  # VC 2, and from k = 5 also too many rows
    assert all(c.points == 0 and ("shatters points" in c.message or "the limit is" in c.message) for c in wider)
    assert any("shatters points" in c.message for c in wider) and any("rows (concepts)" in c.message for c in wider)

    def one_point_too_many(k):  # thresholds on 2^k points
        m = 2**k
        return np.arange(m)[None, :] >= np.arange(m + 1)[:, None], _reference_gap(k)[1]

    results, scores["one point too many"], _ = run("gap_class", one_point_too_many)
    assert all(c.points == 0 and "the limit is" in c.message for _, c in results)

    def swapped(k):  # the subtrees of -1 and +1 exchanged
        table, tree = _reference_gap(k)
        return table, _map_tree(tree, lambda n: [n[0], n[2], n[1]])

    results, scores["swapped"], _ = run("gap_class", swapped)
    for certificate, check in results:  # at k = 1 both subtrees are leaves: swapping changes nothing
        if certificate.params["depth"] == 1:
            assert check.passed, check
        else:
            assert check.points == 0 and "realised by no concept consistent with the path" in check.message, check

    def one_level_short(k):
        table, tree = _reference_gap(k)
        return table, _truncate(tree, k - 1)

    results, scores["one level short"], _ = run("gap_class", one_level_short)
    for certificate, check in results:
        k = certificate.params["depth"]
        assert check.points == certificate.points * Fraction(k - 1, k), (k, check)

    def midpoint_off_by_one(k):  # x = (lo + hi) // 2 + 1 (kept inside lo..hi - 1): valid but lopsided
        m = 2**k - 1
        table = np.arange(m)[None, :] >= np.arange(m + 1)[:, None]

        def build(lo, hi):
            if lo == hi:
                return None
            x = min((lo + hi) // 2 + 1, hi - 1) if hi - lo > 1 else lo
            return [x, build(x + 1, hi), build(lo, x)]

        return table, build(0, m)

    results, scores["midpoint off by one"], _ = run("gap_class", midpoint_off_by_one)
    assert any(0 < c.points < cert.points for cert, c in results), results

    def floats(k):
        table, tree = _reference_gap(k)
        return table.astype(float), tree

    results, scores["floats"], _ = run("gap_class", floats)
    assert all(c.points == 0 and "dtype float64" in c.message and "dtype=bool" in c.message for _, c in results)

    def ragged(k):  # the last row one entry short
        table, tree = _reference_gap(k)
        rows = table.tolist()
        rows[-1] = rows[-1][:-1]
        return rows, tree

    results, scores["ragged"], _ = run("gap_class", ragged)
    assert all(c.points == 0 and "every row must have one per point" in c.message for _, c in results)

    def tree_only(k):
        return _reference_gap(k)[1]

    results, scores["tree only"], _ = run("gap_class", tree_only)
    assert all(c.points == 0 and "the result must be (table, tree)" in c.message for _, c in results)

    assert all(score < full for score in scores.values()), scores
    for slip in ("singletons", "one level short", "midpoint off by one", "all concepts"):
        assert scores[slip] > 0, scores


def test_the_gap_verifier_on_small_cases():
    table, tree = _reference_gap(3)
    assert verify_gap_class(table, tree, depth=3).score == 1
    assert verify_gap_class(table.tolist(), tree, depth=3).valid
    assert verify_gap_class(table.astype(np.uint8), tree, depth=3).valid
    assert verify_gap_class(np.array(table, dtype=object), tree, depth=3).valid
    assert verify_certificate("gap_class", {"table": table, "tree": tree}, {"depth": 3}).valid
    # a pair of points shattered by four rows added to thresholds: named with a concept for each labelling
    extra = np.vstack([table, np.eye(7, dtype=bool)[[0]]])  # +1 on point 0 only: with thresholds, (0, 1) shattered
    verdict = verify_gap_class(extra, tree, depth=3)
    assert not verdict.valid and "shatters points (0, 1): concepts 2, 1, 8, 0 label them" in verdict.reason
    # entries other than 0/1, empty tables, a wrong shape: invalid, never an exception
    for bad, reason in [
        (table.astype(np.int64) * 2, "must be True/False or the int 0 or 1, got 2"),
        ([[True, 2.0, False]], "is the float 2.0"),
        ([], "no row"),
        ([[]], "table[0] is empty"),
        (np.zeros((2, 0), dtype=bool), "no column"),
        (np.zeros(3, dtype=bool), "2-D"),
        ("0101", "must be a list of rows"),
        ([[None]], "must be True/False or the int 0 or 1, got None"),
    ]:
        verdict = verify_gap_class(bad, None, depth=3)
        assert not verdict.valid and reason in verdict.reason, (bad, verdict.reason)
    assert not verify_gap_class(np.ones((17, 3), dtype=bool), None, depth=3).valid  # over 2^(k+1) rows
    assert verify_gap_class(np.ones((17, 3), dtype=bool), None, depth=3, max_concepts=17).valid
    # the lecturer's arguments raise, naming the argument
    for depth in (0, MAX_GAP_DEPTH + 1, True, 2.0):
        with pytest.raises(ValueError, match="depth must be an int"):
            verify_gap_class(table, tree, depth=depth)
    with pytest.raises(ValueError, match="max_points"):
        verify_gap_class(table, tree, depth=3, max_points=0)


def test_the_gap_verifier_agrees_with_the_library_on_random_classes():
    """No shattered pair exactly when the library's VC dimension is at most 1, on random small classes."""
    rng = np.random.default_rng(36)
    seen = set()
    for _ in range(300):
        table = rng.random((int(rng.integers(1, 9)), int(rng.integers(1, 6)))) < rng.uniform(0.1, 0.9)
        verdict = verify_gap_class(table, None, depth=3, max_points=8, max_concepts=16)
        vc = ol.vc_dimension(ol.ConceptClass(table))
        assert verdict.valid == (vc <= 1), (table, verdict.reason, vc)
        seen.add(verdict.valid)
    assert seen == {True, False}


# -- what the graded library removes ---------------------------------------------------------------------

SHORTCUTS = [
    "ol.vc_dimension(C)",
    "ol.shatters(C, [0])",
    "onlinelib.version_space._distinct_patterns(C, np.arange(2))",
    "ol.littlestone_dimension(C)",
    "ol.SOA(C)",
    "ol.worst_case_mistakes(C, 'soa')",
    "ol.adaptive_adversary(ol.Halving(C), C)",
    "ol.thresholds(7)",
    "ol.bounds.littlestone_bound(C)",
    "ol.opt_upper_bounds(C)",
    "onlinelib.version_space._ldim(C, np.arange(3))",
    "onlinelib.certificates.verify_shattered_set(C, [0])",  # without the optimum it computes VC
]


def test_forbidden_entries_resolve():
    resolved = resolve_forbidden(hidden().FORBIDDEN)
    assert set(resolved) == {"onlinelib.version_space", "onlinelib.concepts", "onlinelib.adversaries"}, resolved


def test_the_graded_library_blocks_the_shortcuts_and_still_runs_the_public_checks(tmp_path):
    cells = [SOLUTIONS[stub_part(cell)] if stub_part(cell) else cell for cell in code_cells()]
    imports = "import onlinelib.chapters.mistake_bounds\nC = ol.ConceptClass(np.eye(3, dtype=bool))"
    out = run_in_graded_library(
        NAME, hidden().FORBIDDEN, tmp_path, PRELUDE + "\n\n".join(cells), SHORTCUTS, imports=imports
    )
    assert out.count("All checks passed.") == 2, out


# -- the written questions -------------------------------------------------------------------------------


def test_the_answer_cells_match_the_questions_and_every_item_has_its_descriptors():
    questions = questions_from_hidden(hidden().QUESTIONS)
    assert [q.id for q in questions] == ["opt-ldim", "vc-points"]
    assert [q.points for q in questions] == [4, 3]
    for raw in hidden().QUESTIONS:
        assert len(raw["model"]) > 500 and "$" in raw["model"], raw["id"]
        for item in raw["items"]:
            assert item["points"] == 1
            assert all(isinstance(item[key], str) and len(item[key]) > 40 for key in ("full", "half", "zero"))
            assert item["errors"] and all(isinstance(e, str) and e.strip() for e in item["errors"])
    cells = [c for c in notebook().cells if c.cell_type == "markdown" and "answer" in c.metadata.get("tags", [])]
    assert [c.metadata["question"] for c in cells] == ["opt-ldim", "vc-points"]
    assert all("Write your proof here" in c.source for c in cells)
    answers, problems = extract_answers(ASSIGNMENTS / f"{NAME}.md", questions)
    assert not problems and set(answers) == {"opt-ldim", "vc-points"}, (answers, problems)
    text = (ASSIGNMENTS / f"{NAME}.md").read_text(encoding="utf-8")
    assert all(raw["model"][:60] not in text for raw in hidden().QUESTIONS)  # the model stays with the lecturer


# -- python -m booktools grade, in the sandbox ------------------------------------------------------------


def _submission(*, replace=None, drop=None, proof=True):
    """The notebook with correct code (``replace``: {part: other code}), a part ``drop``ped with its checks."""
    nb = notebook()
    kept = []
    for cell in nb.cells:
        if cell.cell_type == "code":
            part = stub_part(cell.source)
            if drop is not None and (part == drop or f'part="{drop}"' in cell.source):
                continue
            if part:
                cell.source = ((replace or {}).get(part) or SOLUTIONS[part]).strip()
        elif proof and cell.metadata.get("question") in PROOFS:
            cell.source = PROOFS[cell.metadata["question"]]
        kept.append(cell)
    nb.cells = kept
    return jupytext.writes(nb, fmt="md:myst")


WRONG = {  # a greedy search and the singletons: partial credit in both parts
    "shattered_set": """
def shattered_set(table):
    table = np.asarray(table, dtype=bool)
    chosen = []
    for x in range(table.shape[1]):
        if len(np.unique(table[:, chosen + [x]], axis=0)) == 2 ** (len(chosen) + 1):
            chosen.append(x)
    return chosen
""",
    "gap_class": """
def gap_class(k):
    m = 2 ** k - 1
    return np.vstack([np.eye(m, dtype=bool), np.zeros((1, m), dtype=bool)]), [0, None, None]
""",
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: the grader needs it")
    folder = tmp_path_factory.mktemp("dimensions-grades") / "submissions"
    folder.mkdir()
    (folder / "correct.md").write_text(_submission(), encoding="utf-8")
    (folder / "untouched.md").write_text((ASSIGNMENTS / f"{NAME}.md").read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "wrong.md").write_text(_submission(replace=WRONG), encoding="utf-8")
    (folder / "no_gap_class.md").write_text(_submission(drop="gap_class"), encoding="utf-8")
    variants = {"numpy_codes": "shattered_set", "tree_leaves": "gap_class"}
    for variant, part in variants.items():
        code = SOLUTIONS[part] + VARIANTS[part, variant]
        (folder / f"{variant}.md").write_text(_submission(replace={part: code}), encoding="utf-8")
    out = folder.parent / "scores.csv"
    command = [sys.executable, "-m", "booktools", "grade", str(folder), "--assignment", NAME, "--out", str(out)]
    done = subprocess.run(
        [*command, "--jobs", "2", "--timeout", "300"], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    with out.open(newline="", encoding="utf-8") as handle:
        rows = {row["submission"]: row for row in csv.DictReader(handle)}
    return done, rows, out


def test_the_grader_gives_correct_code_full_automatic_marks_and_a_wrong_notebook_less(graded):
    done, rows, out = graded
    assert done.returncode == 0, done.stderr[-3000:]
    full = full_report().max_score
    for name in ("correct.md", "numpy_codes.md", "tree_leaves.md"):
        row = rows[name]
        assert row["status"] == "graded" and float(row["score"]) == float(row["max_score"]) == full, row
    untouched = rows["untouched.md"]
    assert untouched["status"] == "not attempted" and float(untouched["score"]) == 0, untouched  # issue 37
    assert "not implemented yet" in untouched["feedback"], untouched
    wrong = rows["wrong.md"]
    expected = hidden().grade({part: solution_from(WRONG[part], part) for part in PARTS}).score
    # scores.csv writes 4 decimals (fmt_score): at most 5e-5 from the exact score, whatever the instances
    assert wrong["status"] == "graded" and float(wrong["score"]) == pytest.approx(expected, abs=5e-5), wrong
    assert 0 < expected < full, wrong
    missing = rows["no_gap_class.md"]
    assert missing["status"] == "graded", missing
    assert float(missing["score"]) == pytest.approx(part_points(full_report(), "shattered_set")[0]), missing
    assert "gap_class" in missing["feedback"], missing
    answers = out.with_name(out.stem + "_answers.json").read_text(encoding="utf-8")
    for proof in PROOFS.values():
        assert proof[:30] in answers.replace("\\\\", "\\"), answers[:500]


def solution_from(code, part):
    namespace = {}
    exec(PRELUDE + code, namespace)
    return namespace[part]
