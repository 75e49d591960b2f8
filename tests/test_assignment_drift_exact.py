"""Tests of Assignment 15, ``drift_exact`` (chapter 7, Directed Drift; issue 36).

Three parts: (a) ``drift_rates``, the exact rates q_d and p_d of the distance chain, compared exactly
(half for q, half for p, per dimension); (b) ``correct_output_probability``, the exact probability
that Algorithm D with the stopping rule D3 outputs w*, verified by substitution into the first-step
equations (``onlinelib.certificates_drift``); (c) a written proof (QUESTIONS, graded by hand).

What is checked: the reference earns every point and the notebook's stubs none; the reference agrees
with the library (``DirectedDriftChain``) and with an independent dense solve; the recorded public
checks are current and pass with the reference and with honest code in the notebook; honest
solutions written from the notebook's text, in every representation it allows, earn full marks,
also after the grader's transport; plausible wrong solutions (mutants) lose points, with the right
reason, and the one-character slips keep some; a solution that does nothing scores 0; the verifier
refuses malformed answers without raising and raises on bad lecturer arguments; ``FORBIDDEN``
resolves and removes the shortcuts while the public checks still run; the answer cell matches
``QUESTIONS`` (0/½/1 descriptors, errors, a model proof), and the bound of part (c) holds on the
exact values of part (b); and ``python -m booktools grade`` (bubblewrap) gives a correct notebook
full automatic marks and a wrong one less.
"""

import csv
import math
import re
import shutil
from fractions import Fraction
from functools import cache
from pathlib import Path

import jupytext
import numpy as np
import pytest

import onlinelib as ol
from booktools.grading import checks
from booktools.grading.answers import extract_answers
from booktools.grading.hidden import load_hidden, public_checks_path, public_checks_text
from booktools.grading.library import resolve_forbidden
from booktools.grading.questions import questions_from_hidden
from examples import python_calls, run_grade, run_in_graded_library
from onlinelib import plain_data
from onlinelib.certificates import verify_certificate
from onlinelib.certificates_drift import MAX_ANSWER_BITS, verify_drift, verify_drift_output, verify_drift_rates

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = ROOT / "book" / "assignments"
LECTURER = ASSIGNMENTS / "lecturer"
NAME = "drift_exact"
PARTS = ("drift_rates", "correct_output_probability")


@cache
def hidden():
    return load_hidden(LECTURER / f"{NAME}_hidden.py")


def full_marks():
    return hidden().grade(hidden().REFERENCE).max_score


def notebook():
    return jupytext.read(ASSIGNMENTS / f"{NAME}.md")


def code_cells():
    return [c.source for c in notebook().cells if c.cell_type == "code"]


def stub_part(cell):
    return next((part for part in PARTS if re.search(rf"^def {part}\b", cell, re.M)), None)


# -- honest solutions, written from the notebook's text (not from the reference) ------------------------

PRELUDE = "import itertools\nimport math\nfrom fractions import Fraction\n\nimport numpy as np\n"

RATES = {
    # count the vertices by (k, l): k plus signs on the right coordinates, l on the wrong ones
    "by_signs": '''
def drift_rates(n):
    """Group the vertices by their plus signs on the right (k) and wrong (l) coordinates; w* = 1."""
    size = sum(math.comb(n, a) for a in range(n + 1) if 2 * a >= n)  # |B+|: a agreements with w*
    q, p = [], []
    for d in range(1, n + 1):
        errors, good = 0, Fraction(0)
        for k in range(n - d + 1):
            for l in range(d + 1):
                star = (2 * k - (n - d)) + (2 * l - d)  # <w*, u>
                score = (2 * k - (n - d)) - (2 * l - d)  # <w, u>: w is -1 on the d wrong coordinates
                if star >= 0 and score < 0:
                    count = math.comb(n - d, k) * math.comb(d, l)
                    errors += count
                    good += Fraction(count * l, l + (n - d - k))  # |J| = l + (n - d - k)
        q.append(Fraction(errors, size))
        p.append(good / errors)
    return q, p
''',
    # group by the disagreements instead: r among the right coordinates, m among the wrong ones;
    # answers as strings "p/q", |B+| from the library
    "by_disagreements_strings": '''
def drift_rates(n):
    """|J| = r + m; <w, u> = n - 2(r + m); <w*, u> = n - 2d - 2r + 2m. Returned as strings."""
    size = ol.halfcube_size(n)
    q, p = [], []
    for d in range(1, n + 1):
        errors, good = 0, Fraction(0)
        for r in range(n - d + 1):
            for m in range(d + 1):
                if n - 2 * d - 2 * r + 2 * m >= 0 and n - 2 * (r + m) < 0:
                    count = math.comb(n - d, r) * math.comb(d, m)
                    errors += count
                    good += Fraction(count * m, r + m)
        q.append(f"{Fraction(errors, size)}")
        p.append(str(good / errors))
    return q, p
''',
    # list the cube for small n (a first, obviously right version), group for large n; a dict of
    # numpy object arrays
    "enumerate_small_dict": '''
import itertools


def drift_rates(n):
    """Brute force over the 2^n vertices up to n = 12, then counting by the number of plus signs."""
    q, p = [], []
    if n <= 12:
        cube = list(itertools.product((-1, 1), repeat=n))
        positive = [u for u in cube if sum(u) >= 0]  # w* = (1, ..., 1); ties are positive
        for d in range(1, n + 1):
            w = [-1] * d + [1] * (n - d)
            shares = []
            for u in positive:
                if sum(a * b for a, b in zip(w, u)) < 0:
                    J = [j for j in range(n) if w[j] != u[j]]
                    shares.append(Fraction(sum(1 for j in J if j < d), len(J)))
            q.append(Fraction(len(shares), len(positive)))
            p.append(sum(shares) / len(shares))
    else:
        size = sum(math.comb(n, a) for a in range(n + 1) if 2 * a >= n)
        for d in range(1, n + 1):
            errors, good = 0, Fraction(0)
            for k in range(n - d + 1):
                for l in range(d + 1):
                    if 2 * k - n + 2 * l >= 0 and 2 * k - n + 2 * d - 2 * l < 0:
                        count = math.comb(n - d, k) * math.comb(d, l)
                        errors += count
                        good += Fraction(count * l, l + n - d - k)
            q.append(Fraction(errors, size))
            p.append(good / errors)
    return {"q": np.array(q, dtype=object), "p": np.array(p, dtype=object)}
''',
}

OUTPUTS = {
    # eliminate upwards, g_d = a_d + b_d g_{d+1}, then back-substitute
    "eliminate": '''
def correct_output_probability(q, p, T):
    """One sojourn at d: no stop with probability 1 - (1 - q_d)^T, then d - 1 or d + 1."""
    n = len(q)
    a, b = [Fraction(1)], [Fraction(0)]
    for d in range(1, n + 1):
        go = 1 - (1 - Fraction(q[d - 1])) ** T
        down = go * Fraction(p[d - 1])
        up = go * (1 - Fraction(p[d - 1])) if d < n else Fraction(0)
        a.append(down * a[-1] / (1 - down * b[-1]))
        b.append(up / (1 - down * b[-1]))
    g = [None] * (n + 1)
    g[n] = a[n]
    for d in range(n - 1, -1, -1):
        g[d] = a[d] + b[d] * g[d + 1]
    return g
''',
    # the whole linear system, solved by Gauss-Jordan elimination in Fractions; a numpy object array
    "dense_gauss": '''
def correct_output_probability(q, p, T):
    """(n + 1) equations: g_0 = 1, g_d - c_d g_{d-1} - e_d g_{d+1} = 0."""
    n = len(q)
    A = [[Fraction(0)] * (n + 2) for _ in range(n + 1)]
    A[0][0], A[0][n + 1] = Fraction(1), Fraction(1)
    for d in range(1, n + 1):
        keep = 1 - (1 - Fraction(q[d - 1])) ** T
        A[d][d] = Fraction(1)
        A[d][d - 1] = -keep * Fraction(p[d - 1])
        if d < n:
            A[d][d + 1] = -keep * (1 - Fraction(p[d - 1]))
    for col in range(n + 1):
        pivot = next(r for r in range(col, n + 1) if A[r][col] != 0)
        A[col], A[pivot] = A[pivot], A[col]
        A[col] = [v / A[col][col] for v in A[col]]
        for r in range(n + 1):
            if r != col and A[r][col] != 0:
                factor = A[r][col]
                A[r] = [x - factor * y for x, y in zip(A[r], A[col])]
    return np.array([A[d][n + 1] for d in range(n + 1)], dtype=object)
''',
    # the probability of a wrong output h_d (h_0 = 0, h_d = s_d + (1 - s_d)(...)), by shooting on
    # h_1, then g = 1 - h; as strings
    "wrong_then_complement_strings": '''
def correct_output_probability(q, p, T):
    """h_d = h^0_d + h_1 h^1_d is affine in the unknown h_1; the equation at d = n fixes h_1."""
    n = len(q)
    s = [None] + [(1 - Fraction(x)) ** T for x in q]
    P = [None] + [Fraction(x) for x in p]
    const, slope = [Fraction(0), Fraction(0)], [Fraction(0), Fraction(1)]  # h_0 = 0, h_1 = h_1
    for d in range(1, n):  # the equation at d gives h_{d+1}
        # h_d = s_d + (1 - s_d)(p_d h_{d-1} + (1 - p_d) h_{d+1}), solved for h_{d+1}
        const.append(((const[d] - s[d]) / (1 - s[d]) - P[d] * const[d - 1]) / (1 - P[d]))
        slope.append((slope[d] / (1 - s[d]) - P[d] * slope[d - 1]) / (1 - P[d]))
    # at d = n (p_n = 1): h_n = s_n + (1 - s_n) h_{n-1}
    c = const[n] - s[n] - (1 - s[n]) * const[n - 1]
    k = slope[n] - (1 - s[n]) * slope[n - 1]
    h1 = -c / k
    return [str(1 - (const[d] + slope[d] * h1)) for d in range(n + 1)]
''',
}


def _define(code, name):
    namespace = {"ol": ol}
    exec(PRELUDE + code, namespace)
    return namespace[name]


@cache
def honest(part, variant):
    return _define((RATES if part == "drift_rates" else OUTPUTS)[variant], part)


HONEST = [("drift_rates", v) for v in RATES] + [("correct_output_probability", v) for v in OUTPUTS]
CORRECT = {"drift_rates": RATES["by_signs"], "correct_output_probability": OUTPUTS["eliminate"]}


def solutions(**replace):
    found = {part: honest(part, "by_signs" if part == "drift_rates" else "eliminate") for part in PARTS}
    found.update(replace)
    return found


def part_points(report, part):
    """(earned, max) of one part's checks in a report of both parts (rates first, then outputs)."""
    k = len(hidden().rate_certificates())
    chosen = report.checks[:k] if part == "drift_rates" else report.checks[k:]
    return sum(c.points for c in chosen), sum(c.max_points for c in chosen)


# -- the reference and the stubs --------------------------------------------------------------------------


def test_the_reference_earns_every_point_and_the_stubs_none():
    report = hidden().grade(hidden().REFERENCE)
    assert report.passed and report.max_score == 14, report.summary()
    namespace = {}
    cells = code_cells()
    stubs = [i for i, cell in enumerate(cells) if stub_part(cell)]
    assert [stub_part(cells[i]) for i in stubs] == list(PARTS)
    for i in stubs:
        assert "raise NotImplementedError" in cells[i] and "# YOUR CODE HERE" in cells[i]
    for cell in cells[: stubs[-1] + 1]:
        if "load_public_checks" not in cell:
            exec(cell, namespace)
    report = hidden().grade({part: namespace[part] for part in PARTS})
    assert report.score == 0 and len(report.checks) == 14, report.summary()
    assert all("not implemented yet" in c.message for c in report.checks), report.summary()


def test_the_reference_agrees_with_the_library_and_with_a_dense_solve():
    """The rates equal DirectedDriftChain's for n <= 30; g = 1 - the library's P(wrong output) (floats, its
    own elimination) for the chapter's chains, and g equals an independent dense Fraction solve."""
    for n in range(1, 31):
        chain = ol.DirectedDriftChain(n)
        q, p = hidden().reference_rates(n)
        assert q == [chain.mistake_probability(d) for d in range(1, n + 1)], n
        assert p == [chain.good_flip_probability(d) for d in range(1, n + 1)], n
        assert p[0] == (Fraction(2, n + 1) if n % 2 else Fraction(2, n + 2)), (n, p[0])
    for n, delta in ((3, 0.1), (5, 0.1), (8, 0.05), (11, 0.01), (12, 0.2)):
        chain = ol.DirectedDriftChain(n)
        q, p = hidden().reference_rates(n)
        g = hidden().reference_output(q, p, ol.confidence_threshold(n, delta))
        for d in range(n + 1):
            # 1e-12: the library solves in doubles; the values are far from 0
            assert abs((1 - float(g[d])) - chain.wrong_stop_probability(delta, d0=d)) <= 1e-12, (n, d)
    dense = honest("correct_output_probability", "dense_gauss")
    for certificate in hidden().output_certificates():
        assert list(dense(*certificate.args)) == hidden().reference_output(*certificate.args), certificate.name


def test_the_recorded_public_checks_are_current():
    assert public_checks_path(NAME).read_text(encoding="utf-8") == public_checks_text(hidden())


def test_the_public_checks_pass_with_the_reference_and_with_honest_code(capsys, monkeypatch):
    monkeypatch.chdir(ASSIGNMENTS)
    for fill in ("reference", "honest"):
        namespace = {}
        reports = []
        for cell in code_cells():
            part = stub_part(cell)
            if part and fill == "reference":
                namespace[part] = hidden().REFERENCE[part]
            else:
                exec(CORRECT[part] if part else cell, namespace)
            if "load_public_checks" in cell:
                reports.append(namespace["report"])
        assert len(reports) == 2 and all(r.passed and len(r.checks) == 2 for r in reports), reports
        out = capsys.readouterr().out
        assert out.count("All checks passed.") == 2 and "FAIL" not in out, out


# -- honest solutions in every representation the text allows -----------------------------------------------


@pytest.mark.parametrize(("part", "variant"), HONEST)
def test_honest_solutions_earn_every_point_also_after_the_transport(part, variant, monkeypatch):
    student = honest(part, variant)
    report = hidden().grade(solutions(**{part: student}))
    assert report.passed and report.score == full_marks(), report.summary()
    monkeypatch.chdir(ASSIGNMENTS)
    public = ol.grading.load_public_checks(f"{NAME}_public.json", part=part)
    assert public.run(student).passed
    for certificate in hidden().rate_certificates() if part == "drift_rates" else hidden().output_certificates():
        carried = plain_data.loads(plain_data.dumps(student(*certificate.args)))  # what the judge receives
        assert verify_certificate("drift_exact", carried, dict(certificate.params)).score == 1, certificate.name


# -- mutants -----------------------------------------------------------------------------------------------


def _rates(n, *, ties=True, strict=True, size=None, share="mean", j_extra=0, good="l", law="uniform"):
    """The rates with one knob turned away from the truth (the defaults give the truth)."""
    total = Fraction(0)  # |B+|, the ties weighing 1/2 under the sign-flip law
    for a in range(n + 1):  # a plus signs among n: <w*, u> = 2a - n
        if 2 * a - n > 0 or (ties and 2 * a == n):
            weight = Fraction(1, 2) if (law == "signflip" and 2 * a == n) else Fraction(1)
            total += weight * math.comb(n, a)
    if size is not None:
        total = Fraction(size)
    q, p = [], []
    for d in range(1, n + 1):
        errors, good_sum, l_sum, j_sum = Fraction(0), Fraction(0), Fraction(0), Fraction(0)
        for k in range(n - d + 1):
            for l in range(d + 1):
                X, Y = 2 * k - (n - d), 2 * l - d
                positive = X + Y > 0 or (ties and X + Y == 0)
                mistake = X < Y if strict else X <= Y
                if positive and mistake:
                    weight = math.comb(n - d, k) * math.comb(d, l)
                    if law == "signflip" and X + Y == 0:
                        weight = Fraction(weight, 2)
                    size_j = l + n - d - k + j_extra
                    hits = l if good == "l" else d - l
                    errors += weight
                    good_sum += Fraction(weight * hits, size_j) if size_j else 0
                    l_sum += weight * hits
                    j_sum += weight * size_j
        q.append(errors / total)
        p.append(good_sum / errors if share == "mean" else l_sum / j_sum)
    return q, p


RATE_MUTANTS = {
    # ties <w*, u> = 0 left out of B+ (the half-cube read as strict)
    "ties_negative": lambda n: _rates(n, ties=False),
    # a score <w, u> = 0 counted as a mistake
    "zero_score_is_a_mistake": lambda n: _rates(n, strict=False),
    # |B+| = 2^(n-1) for every n (right for odd n only)
    "half_cube_size_odd_formula": lambda n: _rates(n, size=2 ** (n - 1)),
    # the law of the sign-flip sampler (ties half as likely)
    "sign_flip_law": lambda n: _rates(n, law="signflip"),
    # p_d as a ratio of expectations E[L]/E[|J|] over the mistakes instead of E[L/|J|]
    "ratio_of_expectations": lambda n: _rates(n, share="ratio"),
    # |J| one too large
    "J_off_by_one": lambda n: _rates(n, j_extra=1),
    # the wrong coordinates that agree with u counted as good (d - L instead of L)
    "agreeing_wrong_coordinates": lambda n: _rates(n, good="d-l"),
    # floats where Fractions are asked for
    "floats": lambda n: tuple([float(v) for v in side] for side in _rates(n)),
    # q_0..q_(n-1) instead of q_1..q_n
    "q_shifted": lambda n: ([Fraction(0)] + _rates(n)[0][:-1], _rates(n)[1]),
    # the bad-flip probability 1 - p_d
    "bad_flips": lambda n: (_rates(n)[0], [1 - v for v in _rates(n)[1]]),
}


def _system(q, p, T, *, shift=0, stop_in_bad_branch=True, g0=1, s_rule="stay", index=0, wrong=False):
    """g by a dense Fraction solve of the first-step equations, with one knob turned (defaults: the truth)."""
    n = len(q)
    q = [Fraction(v) for v in q]
    p = [Fraction(v) for v in p]
    A = [[Fraction(0)] * (n + 2) for _ in range(n + 1)]
    A[0][0], A[0][n + 1] = Fraction(1), Fraction(1 - g0 if wrong else g0)
    for d in range(1, n + 1):
        rate = q[min(d - 1 + index, n - 1)]
        stop = (1 - rate) ** (T + shift) if s_rule == "stay" else 1 - (1 - rate) ** T
        go = 1 - stop
        A[d][d] = Fraction(1)
        A[d][d - 1] = -go * p[d - 1]
        if d < n:
            A[d][d + 1] = -(go if stop_in_bad_branch else 1) * (1 - p[d - 1])
        A[d][n + 1] = stop if wrong else Fraction(0)
    for col in range(n + 1):
        pivot = next(r for r in range(col, n + 1) if A[r][col] != 0)
        A[col], A[pivot] = A[pivot], A[col]
        A[col] = [v / A[col][col] for v in A[col]]
        for r in range(n + 1):
            if r != col and A[r][col] != 0:
                factor = A[r][col]
                A[r] = [x - factor * y for x, y in zip(A[r], A[col], strict=True)]
    return [A[d][n + 1] for d in range(n + 1)]


def _float_solve(q, p, T):
    n = len(q)
    A, b = np.eye(n + 1), np.zeros(n + 1)
    b[0] = 1.0
    for d in range(1, n + 1):
        go = 1 - (1 - float(q[d - 1])) ** T
        A[d, d - 1] = -go * float(p[d - 1])
        if d < n:
            A[d, d + 1] = -go * (1 - float(p[d - 1]))
    return np.linalg.solve(A, b)


OUTPUT_MUTANTS = {
    # (1 - q_d)^(T - 1) and (1 - q_d)^(T + 1): the threshold off by one
    "threshold_minus_one": lambda q, p, T: _system(q, p, T, shift=-1),
    "threshold_plus_one": lambda q, p, T: _system(q, p, T, shift=1),
    # after a bad flip the next sojourn cannot stop the run (the stop forgotten on that branch)
    "no_stop_after_a_bad_flip": lambda q, p, T: _system(q, p, T, stop_in_bad_branch=False),
    # the probability of a wrong output h_d instead of g_d
    "wrong_output_probability": lambda q, p, T: _system(q, p, T, wrong=True),
    # 1 - (1 - q_d)^T for the stop: the probability of a mistake within T examples
    "stop_is_a_mistake_within_T": lambda q, p, T: _system(q, p, T, s_rule="mistake"),
    # the rates read one place off: q_(d+1) at distance d
    "q_index_off_by_one": lambda q, p, T: _system(q, p, T, index=1),
    # the boundary g_0 = 0 (a run at w* never "outputs" anything)
    "g0_zero": lambda q, p, T: _system(q, p, T, g0=0),
    # floats: numpy's solve
    "floats": _float_solve,
    # D3 ignored: every run reaches w*
    "ignores_D3": lambda q, p, T: [1] * (len(q) + 1),
}
# The one-character slips: each must keep some points of its part (on the instances it does not touch).
SLIPS = {
    "drift_rates": ["ties_negative", "zero_score_is_a_mistake", "half_cube_size_odd_formula", "J_off_by_one"],
    "correct_output_probability": ["threshold_minus_one", "threshold_plus_one", "no_stop_after_a_bad_flip"],
}


def test_the_mutants_knobs_at_their_defaults_give_the_truth():
    """The mutants are the honest computations with one thing changed: unchanged, they are exact."""
    for n in (1, 2, 5, 6, 9):
        assert list(_rates(n)) == list(hidden().reference_rates(n)), n
    for certificate in hidden().output_certificates():
        assert _system(*certificate.args) == hidden().reference_output(*certificate.args), certificate.name


@pytest.mark.parametrize("mutant", list(RATE_MUTANTS))
def test_rate_mutants_lose_points(mutant):
    report = hidden().grade(solutions(drift_rates=RATE_MUTANTS[mutant]))
    earned, most = part_points(report, "drift_rates")
    assert earned < most, (mutant, report.summary())
    assert part_points(report, "correct_output_probability") == (7, 7)  # the other part is untouched
    for certificate, check in zip(hidden().rate_certificates(), report.checks, strict=False):
        n = certificate.args[0]
        if not check.passed and not check.message.startswith("raised"):  # (no mistake at n = 2 without ties)
            assert re.search(r"[qp]_\d+ is ", check.message) and "the exact value is" in check.message, check
        if mutant in ("ties_negative", "zero_score_is_a_mistake", "half_cube_size_odd_formula", "sign_flip_law"):
            assert check.passed == (n % 2 == 1), (mutant, n, check)  # only ties go wrong
    if mutant in SLIPS["drift_rates"]:
        assert earned > 0, (mutant, report.summary())
    print(f"{mutant}: {earned}/{most}")


def test_rate_mutants_earn_exactly_half_where_only_one_side_is_wrong():
    report = hidden().grade(solutions(drift_rates=RATE_MUTANTS["half_cube_size_odd_formula"]))
    for certificate, check in zip(hidden().rate_certificates(), report.checks, strict=False):
        if certificate.args[0] % 2 == 0:  # q wrong, p (a ratio, the size cancels) right
            assert check.points == 0.5 and "every p_d exact; q_1 is" in check.message, check
    report = hidden().grade(solutions(drift_rates=RATE_MUTANTS["floats"]))
    for certificate, check in zip(hidden().rate_certificates(), report.checks, strict=False):
        n = certificate.args[0]
        if n == 1:  # q_1 = p_1 = 1: exact as floats
            assert check.passed, check
        elif n % 2:  # q_d has the denominator 2^(n-1), exact as a float; p_d is not dyadic
            assert check.points == 0.5 and "every q_d exact; p_" in check.message, check
    assert any("the float" in k.message and "whose exact value is" in k.message for k in report.checks)


@pytest.mark.parametrize("mutant", list(OUTPUT_MUTANTS))
def test_output_mutants_lose_points(mutant):
    report = hidden().grade(solutions(correct_output_probability=OUTPUT_MUTANTS[mutant]))
    earned, most = part_points(report, "correct_output_probability")
    assert earned < most, (mutant, report.summary())
    assert part_points(report, "drift_rates") == (7, 7)
    for check in report.checks[7:]:
        if not check.passed:
            assert check.points == 0 and check.message.startswith("invalid: "), check
            assert "g_0 is" in check.message or "not consistent at distance d =" in check.message, check
    if mutant in SLIPS["correct_output_probability"]:
        assert earned > 0, (mutant, report.summary())
    if mutant == "floats":
        assert any("equal in floating point, but not exactly" in c.message for c in report.checks[7:]), report.summary()
    print(f"{mutant}: {earned}/{most}")


def test_a_solution_that_does_nothing_scores_zero():
    def nothing(*args):
        return None

    report = hidden().grade({"drift_rates": nothing, "correct_output_probability": nothing})
    assert report.score == 0 and all(
        c.message.startswith("invalid: the result must be") or "g must be" in c.message for c in report.checks
    ), report.summary()
    report = hidden().grade({part: checks.MissingPart(part, "") for part in PARTS})
    assert report.score == 0


# -- the verifier on malformed answers and bad lecturer arguments ---------------------------------------------


def test_the_verifier_refuses_malformed_answers_without_raising():
    q, p = hidden().reference_rates(4)
    params = {"n": 4, "q": q, "p": p}
    cases = {
        "a string": ("the result must be a tuple (q, p)", "q, p"),
        "three lists": ("the result must be (q, p), got a tuple of 3 items", (q, p, p)),
        "wrong keys": ("the result must be (q, p) or a dict with the keys q and p", {"q": q, "r": p}),
        "short q": ("q must hold 4 numbers, got 3", (q[:3], p)),
        "long p": ("p must hold 4 numbers, got 5", (q, [*p, 1])),
        "huge list": ("q is too large: 1000 rationals, the limit is 65", ([0] * 1000, p)),
        "a bool": ("q[0] must be an exact rational", ([True, *q[1:]], p)),
        "NaN": ("got NaN", ([float("nan"), *q[1:]], p)),
        "huge": ("is too large", ([Fraction(1, 2 ** (MAX_ANSWER_BITS + 1)), *q[1:]], p)),
        "bad string": ('must be an exact rational "p/q"', (["1/2x", *q[1:]], p)),
        "float array": (None, (np.array([float(v) for v in q]), p)),
    }
    assert verify_drift_rates(np.array([q, p], dtype=object), **params).score == 1  # a (2, n) array: the rows
    for label, (reason, answer) in cases.items():
        verdict = verify_drift_rates(answer, **params)
        if reason is None:  # floats are their exact values: q of n = 4 is not dyadic, so q is wrong, p right
            assert verdict.valid and verdict.quality == 1, (label, verdict)
        else:
            assert not verdict.valid and reason in verdict.reason, (label, verdict)
    q5, p5, T = [Fraction(1, 2), 1], [Fraction(1, 4), 1], 2
    g = hidden().reference_output(q5, p5, T)
    assert verify_drift_output(g, q5, p5, T).valid
    assert verify_drift_output([str(v) for v in g], q5, p5, T).valid
    assert "g must hold 3 numbers, got 2" in verify_drift_output(g[:2], q5, p5, T).reason
    assert "g_0 is 0" in verify_drift_output([0, *g[1:]], q5, p5, T).reason
    assert (
        "not consistent at distance d = 1"
        in verify_drift_output([1, g[1] + Fraction(1, 10**9), g[2]], q5, p5, T).reason
    )
    assert verify_certificate("drift_exact", g, {"kind": "correct_output", "q": q5, "p": p5, "threshold": T}).valid


def test_bad_lecturer_arguments_raise_naming_the_argument():
    q, p = hidden().reference_rates(3)
    with pytest.raises(ValueError, match="kind must be one of"):
        verify_drift("rate", (q, p), n=3, q=q, p=p)
    with pytest.raises(ValueError, match=r"n must be an int in \[1, 64\]"):
        verify_drift_rates((q, p), 0, q, p)
    with pytest.raises(TypeError, match="n must be an int"):
        verify_drift_rates((q, p), 3.0, q, p)
    with pytest.raises(ValueError, match="q must hold n = 4 probabilities, got 3"):
        verify_drift_rates((q, p), 4, q, p)
    with pytest.raises(TypeError, match=r"q\[0\] must be an exact probability"):
        verify_drift_output([1, 1, 1, 1], [0.5, *q[1:]], p, 3)
    with pytest.raises(ValueError, match=r"p\[2\] = p_n must be 1"):
        verify_drift_output([1, 1, 1, 1], q, [*p[:2], Fraction(1, 2)], 3)
    with pytest.raises(ValueError, match=r"q\[1\] must be in \(0, 1\]"):
        verify_drift_output([1, 1, 1, 1], [q[0], 0, q[2]], p, 3)
    with pytest.raises(ValueError, match="threshold must be an int in"):
        verify_drift_output([1, 1, 1, 1], q, p, 0)


def test_the_largest_answer_is_verified_with_bounded_work():
    """n = 64 entries of MAX_ANSWER_BITS bits each: a few Python calls per entry, counted, not timed."""
    q, p = [Fraction(1, 3)] * 64, [Fraction(1, 2)] * 63 + [Fraction(1)]
    big = [Fraction(1)] + [Fraction(2 ** (MAX_ANSWER_BITS - 1) - 1, 2 ** (MAX_ANSWER_BITS - 1))] * 64
    verdict, calls = python_calls(lambda: verify_drift_output(big, q, p, 20))
    assert not verdict.valid and "not consistent at distance d = 1" in verdict.reason
    assert calls < 64 * 60, calls
    verdict, calls = python_calls(lambda: verify_drift_rates((q, p), 64, q, p))
    assert verdict.score == 1 and calls < 64 * 60, calls


# -- what FORBIDDEN removes ---------------------------------------------------------------------------------

SHORTCUTS = [
    "ol.DirectedDriftChain(5)",
    "ol.DirectedDriftChain(5, exact=False).wrong_stop_probability(0.1)",
    "onlinelib.directed_drift._exact_rates(5)",
    "onlinelib.directed_drift._log_rates(5)",
    "onlinelib.chapters.directed_drift.enumerate_rates(5, 1)",
    "onlinelib.chapters.directed_drift.explore_drift(5, 0.1, 'D (one bit)', None, 2, np.random.default_rng(0))",
]


def test_forbidden_entries_resolve():
    resolved = resolve_forbidden(hidden().FORBIDDEN)
    assert resolved == {
        "onlinelib.directed_drift": {"DirectedDriftChain", "_exact_rates", "_log_rates"},
        "onlinelib.chapters.directed_drift": {"enumerate_rates"},
    }, resolved


def test_the_graded_library_removes_the_shortcuts_and_keeps_what_the_public_checks_need(tmp_path):
    cells = [CORRECT[stub_part(cell)] if stub_part(cell) else cell for cell in code_cells()]
    imports = (
        "assert ol.halfcube_size(4) == 11 and ol.confidence_threshold(9, 0.1) == 9\n"
        "import onlinelib.chapters.directed_drift, onlinelib.directed_drift"
    )
    out = run_in_graded_library(
        NAME, hidden().FORBIDDEN, tmp_path, PRELUDE + "\n\n".join(cells), SHORTCUTS, imports=imports
    )
    assert out.count("All checks passed.") == 2, out


# -- the written question -------------------------------------------------------------------------------------


def test_the_answer_cell_matches_the_question_and_the_rubric_is_complete():
    questions = questions_from_hidden(hidden().QUESTIONS)
    assert [q.id for q in questions] == ["wrong_output"] and questions[0].points == 4
    for raw in hidden().QUESTIONS:
        assert raw["model"].strip() and "$$" in raw["model"]
        for item in raw["items"]:
            assert all(isinstance(item[key], str) and item[key].strip() for key in ("text", "full", "half", "zero"))
            assert item["errors"] and all(isinstance(e, str) and e.strip() for e in item["errors"])
    assert all(item.has_descriptors for item in questions[0].items)
    cells = [c for c in notebook().cells if c.cell_type == "markdown" and "answer" in c.metadata.get("tags", [])]
    assert [c.metadata["question"] for c in cells] == ["wrong_output"]
    assert "Write your proof here" in cells[0].source
    answers, problems = extract_answers(ASSIGNMENTS / f"{NAME}.md", questions)
    assert not problems and set(answers) == {"wrong_output"}, (answers, problems)


def test_the_notebook_and_its_public_checks_hold_no_model_or_descriptor_text():
    """The rubric stays with the lecturer: no line (25+ characters, compared in lower-case words) of the
    model proof, a descriptor or a common error appears in the notebook or its public checks."""

    def words(text):
        return " ".join(re.findall(r"[a-z0-9]+", text.lower()))

    handed_out = [
        words((ASSIGNMENTS / f"{NAME}{suffix}").read_text(encoding="utf-8")) for suffix in (".md", "_public.json")
    ]
    secrets = []
    for question in questions_from_hidden(hidden().QUESTIONS):
        secrets.append(question.model)
        for item in question.items:
            secrets += [item.full, item.half, item.zero, *item.errors]
    checked = 0
    for secret in secrets:
        for line in secret.splitlines():
            piece = words(line)
            if len(piece) >= 25:
                checked += 1
                assert all(piece not in text for text in handed_out), line
    assert checked >= 30, checked


def test_the_bound_of_part_c_holds_on_the_exact_values_of_part_b():
    """g_d <= p_1 / (p_1 + (1 - p_1) s_1) for every d >= 1, n <= 14 and six thresholds, exactly; and the
    bound is attained at n = 1 (g_1 = 1 - s_1 <= 1 = the bound only when s_1 = 0, q_1 = 1)."""
    tight = 0
    for n in range(1, 15):
        q, p = hidden().reference_rates(n)
        for T in (1, 2, 3, 5, 8, 13):
            g = hidden().reference_output(q, p, T)
            s1 = (1 - q[0]) ** T
            bound = p[0] / (p[0] + (1 - p[0]) * s1)
            assert all(value <= bound for value in g[1:]), (n, T)
            tight += g[1] == bound
    assert tight == 6  # n = 1: q_1 = 1, s_1 = 0, g_1 = 1 for every T


# -- the grader, end to end (bubblewrap) -------------------------------------------------------------------


PROOF = (
    "A run from $d_0 \\ge 1$ that outputs $w^*$ passes through a sojourn at distance 1; from it, "
    "$r \\le (1 - s_1)(p_1 + (1 - p_1) r)$, so $r \\le p_1/(p_1 + (1 - p_1) s_1)$."
)


def _submission(code, proof=True):
    """The notebook with its stubs replaced by ``code`` ({part: source}), as MyST text."""
    nb = notebook()
    for cell in nb.cells:
        part = stub_part(cell.source) if cell.cell_type == "code" else None
        if part in code:
            cell.source = code[part].strip()
        elif proof and cell.cell_type == "markdown" and cell.metadata.get("question") == "wrong_output":
            cell.source = PROOF
    return jupytext.writes(nb, fmt="md:myst")


WRONG = {  # a tie slip in (a) and the threshold off by one in (b): partial marks
    "drift_rates": RATES["by_signs"].replace("if star >= 0 and score < 0", "if star > 0 and score < 0"),
    "correct_output_probability": OUTPUTS["eliminate"].replace("** T", "** (T - 1)"),
}


def test_the_wrong_submission_is_the_mutants_it_claims_to_be():
    assert WRONG["drift_rates"] != RATES["by_signs"] and WRONG["correct_output_probability"] != OUTPUTS["eliminate"]
    report = hidden().grade({part: _define(WRONG[part], part) for part in PARTS})
    assert 0 < report.score < full_marks(), report.summary()


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: the grader needs it")
    base = tmp_path_factory.mktemp("drift-exact-grade")
    kit = base / "kit"  # the hidden file and the public checks, as run_grade wants them in one folder
    kit.mkdir()
    shutil.copyfile(LECTURER / f"{NAME}_hidden.py", kit / f"{NAME}_hidden.py")
    shutil.copyfile(ASSIGNMENTS / f"{NAME}_public.json", kit / f"{NAME}_public.json")
    # the hand-out beside its public checks, as in book/assignments: "not attempted" is judged against it
    shutil.copyfile(ASSIGNMENTS / f"{NAME}.md", kit / f"{NAME}.md")
    folder = base / "submissions"
    folder.mkdir()
    (folder / "correct.md").write_text(_submission(CORRECT), encoding="utf-8")
    variants = {"drift_rates": RATES["enumerate_small_dict"], "correct_output_probability": OUTPUTS["dense_gauss"]}
    (folder / "variants.md").write_text(_submission(variants), encoding="utf-8")
    (folder / "wrong.md").write_text(_submission(WRONG), encoding="utf-8")
    (folder / "untouched.md").write_text((ASSIGNMENTS / f"{NAME}.md").read_text(encoding="utf-8"), encoding="utf-8")
    out = base / "scores.csv"
    done = run_grade(folder, out, kit, "--timeout", "300", assignment=NAME)
    rows = {}
    if out.is_file():
        with out.open(newline="", encoding="utf-8") as handle:
            rows = {row["submission"]: row for row in csv.DictReader(handle)}
    return done, rows, out


def test_the_grader_gives_correct_code_full_automatic_marks_and_wrong_code_less(graded):
    done, rows, out = graded
    assert done.returncode == 0 and rows, done.stderr[-3000:]
    for name in ("correct.md", "variants.md"):
        row = rows[name]
        assert row["status"] == "graded" and float(row["score"]) == float(row["max_score"]) == full_marks(), row
    wrong = rows["wrong.md"]
    local = hidden().grade({part: _define(WRONG[part], part) for part in PARTS}).score
    assert wrong["status"] == "graded" and float(wrong["score"]) == local and 0 < local < full_marks(), wrong
    untouched = rows["untouched.md"]
    assert untouched["status"] == "not attempted" and float(untouched["score"]) == 0, untouched  # issue 37
    assert "not implemented yet" in untouched["feedback"], untouched
    answers = out.with_name(out.stem + "_answers.json").read_text(encoding="utf-8")
    assert "passes through a sojourn at distance 1" in answers, answers[:500]
