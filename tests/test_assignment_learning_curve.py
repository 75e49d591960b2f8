"""Tests of Assignment 16, ``learning_curve`` (chapter 8, Learning curves; issue 36).

Three parts: (a) a written derivation of the overlap ODE of the normalized perceptron with label
noise p and of its fixed point (``QUESTIONS``, graded by hand); (b) ``learning_curve``, eps_g(alpha)
from that ODE, and (c) ``residual_error``, its limit at a constant rate, both compared with the
library's ODE solution to a relative ``RTOL`` = 1e-4.

What is checked:

* the reference earns every point, the notebook's stubs none ("not implemented yet");
* the reference is the library's ODE, and right: it agrees with an independent integration
  (DOP853, rtol 1e-13) and a different fixed-point computation to 1e-8, and at p = 0 with the
  chapter's ``fixed_point_error``;
* the tolerance is justified as the hidden file says: honest integrators (RK4 at step 0.01,
  ``solve_ivp`` at rtol 1e-10 and even 1e-8) miss by less than RTOL/10, and every derivation error
  of the rubric, as code, misses every case it fails by more than 20 RTOL;
* honest solutions written from the notebook's text (a hand-written RK4, ``solve_ivp`` on R, LSODA
  on the angle theta = arccos R; brentq in theta, bisection in R, a long integration; lists, arrays,
  tuples, numpy floats) earn full marks, and pass the notebook's public checks;
* mutants (the derivation errors, the coding slips, crude integrators, the wrong root, the
  small-eta formulas) score below full marks; the one-condition slips score strictly between 0
  and full and fail exactly the cases where their condition occurs; a solution that does nothing
  scores 0;
* the recorded public checks are current, and the same bits under a restricted numpy/BLAS dispatch;
* ``FORBIDDEN`` resolves, the library's shortcut earns full marks without it and is blocked with it,
  the small-eta formula is no shortcut, and the notebook's public checks still run in the graded
  library;
* the answer cell matches ``QUESTIONS``, whose items have 0 / ½ / 1 descriptors and common errors,
  and the model derivation's formulas agree with the library;
* ``python -m booktools grade`` (bubblewrap) gives a correct notebook full automatic marks, a wrong
  one (the (1 - p) slip) part of them, the untouched notebook 0 and the shortcut ``forbidden``.
"""

import csv
import hashlib
import math
import os
import re
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

import jupytext
import numpy as np
import pytest
from scipy import integrate, optimize

import onlinelib as ol
from booktools.grading.answers import extract_answers
from booktools.grading.hidden import hidden_parts, load_hidden, public_checks_path, public_checks_text
from booktools.grading.library import resolve_forbidden
from booktools.grading.questions import questions_from_hidden
from examples import run_in_graded_library

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = ROOT / "book" / "assignments"
NAME = "learning_curve"
PARTS = ("learning_curve", "residual_error")
SQRT_2PI = math.sqrt(2 * math.pi)


@cache
def hidden():
    return load_hidden(ASSIGNMENTS / "lecturer" / f"{NAME}_hidden.py")


def full_marks():
    return hidden().grade(hidden().REFERENCE).max_score


def all_cases():
    """Every hidden case as (part, Case)."""
    return [("learning_curve", c) for c in hidden().curve_cases()] + [
        ("residual_error", c) for c in hidden().residual_cases()
    ]


# -- honest code, written from the notebook's text (not from the reference) ---------------------------

PRELUDE = "import math\n\nimport numpy as np\nfrom scipy import integrate, optimize\n"

# A hand-written RK4 at step 0.01 (landing on alpha = 1 and on every requested alpha), lists out.
RK4 = '''
def _rate(alpha, eta, z):
    return eta if alpha <= 1 else eta * alpha ** (-z)


def _F(R, rate, p):
    """dR/dalpha of part (a)."""
    R = min(1.0, max(-1.0, R))
    mistakes = p + (1 - 2 * p) * math.acos(R) / math.pi
    return (1 - 2 * p) * rate / math.sqrt(2 * math.pi) * (1 - R * R) - rate**2 / 2 * R * mistakes


def learning_curve(alphas, eta, z=0.0, p=0.0, R0=0.0):
    stops = sorted(set(float(a) for a in alphas) | ({1.0} if max(alphas) > 1 else set()))
    R, a, at = float(R0), 0.0, {}
    for stop in stops:
        n = max(1, math.ceil((stop - a) / 0.01))
        h = (stop - a) / n
        for i in range(n if stop > a else 0):
            t = a + i * h
            k1 = _F(R, _rate(t, eta, z), p)
            k2 = _F(R + h / 2 * k1, _rate(t + h / 2, eta, z), p)
            k3 = _F(R + h / 2 * k2, _rate(t + h / 2, eta, z), p)
            k4 = _F(R + h * k3, _rate(t + h, eta, z), p)
            R += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        a, at[stop] = stop, min(1.0, max(-1.0, R))
    return [p + (1 - 2 * p) * math.acos(at[float(x)]) / math.pi for x in alphas]


def residual_error(eta, p=0.0):
    """The root of F written in theta = arccos R (cos theta rounds small angles to R = 1), divided by
    theta (theta = 0 is a root when p = 0)."""
    def g(theta):
        mistakes = p + (1 - 2 * p) * theta / math.pi
        s, c = math.sin(theta), math.cos(theta)
        return ((1 - 2 * p) * eta / math.sqrt(2 * math.pi) * s * s - eta**2 / 2 * c * mistakes) / theta

    theta = optimize.brentq(g, 1e-9, math.pi / 2, xtol=1e-15, rtol=1e-15)
    return p + (1 - 2 * p) * theta / math.pi
'''

# solve_ivp on R, stopped at the kink, an array out; the fixed point by bisection in R, a numpy float.
IVP = """
SQ = math.sqrt(2 * math.pi)


def drift(R, rate, p):
    mistakes = p + (1 - 2 * p) * math.acos(R) / math.pi
    return (1 - 2 * p) * rate / SQ * (1 - R * R) - rate**2 / 2 * R * mistakes


def error_of(R, p):
    return p + (1 - 2 * p) * math.acos(R) / math.pi


def rate_at(alpha, eta, z):
    return eta if alpha <= 1 else eta * alpha ** (-z)


def learning_curve(alphas, eta, z=0.0, p=0.0, R0=0.0):
    alphas = np.asarray(alphas, dtype=float)

    def rhs(a, y):
        return [drift(min(1.0, max(-1.0, y[0])), rate_at(a, eta, z), p)]

    out = np.empty(len(alphas))
    R = R0
    for lo, hi in ((0.0, min(1.0, alphas[-1])), (1.0, alphas[-1])):
        if hi <= lo:
            continue
        inside = (alphas >= lo) & (alphas <= hi)
        sol = integrate.solve_ivp(rhs, (lo, hi), [R], dense_output=True, rtol=1e-11, atol=1e-13)
        out[inside] = [error_of(min(1.0, max(-1.0, r)), p) for r in sol.sol(alphas[inside])[0]]
        R = sol.y[0, -1]
    out[alphas == 0] = error_of(R0, p)
    return out


def residual_error(eta, p=0.0):
    R = optimize.bisect(lambda R: drift(R, eta, p), 0.0, 1 - 1e-13, xtol=1e-16, rtol=1e-15, maxiter=200)
    return np.float64(error_of(R, p))
"""

# LSODA (odeint) on the angle theta = arccos R, a tuple out; the fixed point as the long-time limit.
ANGLE = """
def _theta_dot(theta, alpha, eta, z, p):
    rate = eta if alpha <= 1 else eta * alpha ** (-z)
    s, c = math.sin(theta), math.cos(theta)
    return -(1 - 2 * p) * rate / math.sqrt(2 * math.pi) * s + rate**2 / 2 * c * (p + (1 - 2 * p) * theta / math.pi) / s


def learning_curve(alphas, eta, z=0.0, p=0.0, R0=0.0):
    times = [0.0] + [float(a) for a in alphas]
    thetas = integrate.odeint(
        lambda y, a: [_theta_dot(y[0], a, eta, z, p)], [math.acos(R0)], times,
        tcrit=[1.0], rtol=1e-12, atol=1e-14, mxstep=100000,
    )[1:, 0]
    return tuple(float(p + (1 - 2 * p) * th / math.pi) for th in thetas)


def residual_error(eta, p=0.0):
    last = learning_curve([4000.0 / eta], eta, 0.0, p, 0.0)[0]
    return last
"""

HONEST = {"rk4": RK4, "ivp": IVP, "angle": ANGLE}


@cache
def solution(variant):
    """{part: function} of an honest variant, executed with the notebook's imports."""
    namespace = {}
    exec(PRELUDE + HONEST[variant], namespace)
    return {part: namespace[part] for part in PARTS}


def grade(student):
    return hidden().grade(student)


# -- the hidden tests: the reference earns every point, the stubs none -------------------------------


def notebook():
    return jupytext.read(ASSIGNMENTS / f"{NAME}.md")


def code_cells():
    return [c.source for c in notebook().cells if c.cell_type == "code"]


def stub_part(cell):
    for part in PARTS:
        if re.search(rf"^def {part}\b", cell, re.M):
            return part
    return None


def test_the_reference_gets_full_marks_and_the_stubs_zero():
    report = grade(hidden().REFERENCE)
    assert report.passed and report.max_score == 14, report.summary()
    assert set(hidden_parts(hidden())) == set(PARTS)
    cells = code_cells()
    stubs = [cell for cell in cells if stub_part(cell)]
    assert sorted(stub_part(cell) for cell in stubs) == sorted(PARTS)
    assert all("raise NotImplementedError" in cell and "# YOUR CODE HERE" in cell for cell in stubs)
    namespace = {}
    for cell in cells:
        if "load_public_checks" not in cell:
            exec(cell, namespace)
    report = grade({part: namespace[part] for part in PARTS})
    assert report.score == 0 and len(report.checks) == 14, report.summary()
    assert all("not implemented yet" in check.message for check in report.checks), report.summary()


# -- the reference is the library's ODE, and right ------------------------------------------------------


def _independent_curve(alphas, eta, z=0.0, p=0.0, R0=0.0):
    """DOP853 at rtol 1e-13 on R, in two pieces split at the kink alpha = 1, written here from the model answer."""

    def F(a, y):
        rate = eta if a <= 1 else eta * a ** (-z)
        R = min(1.0, max(-1.0, y[0]))
        eps = p + (1 - 2 * p) * math.acos(R) / math.pi
        return [(1 - 2 * p) * rate / SQRT_2PI * (1 - R * R) - rate**2 / 2 * R * eps]

    out = []
    for alpha in alphas:
        R, pieces = R0, [(0.0, min(alpha, 1.0)), (1.0, alpha)]
        for lo, hi in pieces:
            if hi > lo:
                R = integrate.solve_ivp(F, (lo, hi), [R], method="DOP853", rtol=1e-13, atol=1e-15).y[0, -1]
        out.append(p + (1 - 2 * p) * math.acos(min(1.0, R)) / math.pi)
    return out


def _independent_residual(eta, p=0.0):
    """The root of Q(theta) = eta sqrt(2 pi)/(2 (1 - 2p)) (the model answer's monotone ratio), by brentq."""
    target = eta * SQRT_2PI / (2 * (1 - 2 * p))

    def q(theta):
        return math.sin(theta) ** 2 / (math.cos(theta) * (p + (1 - 2 * p) * theta / math.pi)) - target

    theta = optimize.brentq(q, 1e-12, math.pi / 2 - 1e-12, xtol=1e-16, rtol=1e-15)
    return p + (1 - 2 * p) * theta / math.pi


def relative_gap(expected, actual):
    e, a = np.atleast_1d(np.asarray(expected, float)), np.atleast_1d(np.asarray(actual, float))
    return float(np.max(np.abs(a - e) / np.abs(e)))


def test_the_reference_agrees_with_an_independent_solution_to_1e8():
    for part, case in all_cases():
        expected = hidden().REFERENCE[part](*case.args, **case.kwargs)
        other = (_independent_curve if part == "learning_curve" else _independent_residual)(*case.args, **case.kwargs)
        assert relative_gap(expected, other) < 1e-8, (case.name, expected, other)
    for eta in (0.2, 1.0, 3.0):  # p = 0 is the library's fixed_point_error, and the curve's end
        assert hidden().REFERENCE["residual_error"](eta) == ol.fixed_point_error(eta)
        end = hidden().REFERENCE["learning_curve"]([3000.0 / eta], eta, R0=-0.9)[0]
        assert abs(end / ol.fixed_point_error(eta) - 1) < 1e-8


def test_the_librarys_ode_is_the_model_answers():
    """The reference integrates ``ode_rhs`` with p (through integrate_R) and roots its drift: that right-hand
    side is the model answer's F, and at p = 0 the chapter's Eq. 4."""
    for R in (-0.7, 0.0, 0.4, 0.95):
        for eta, p in ((1.0, 0.0), (0.3, 0.2), (2.5, 0.45)):
            eps = p + (1 - 2 * p) * math.acos(R) / math.pi
            model = (1 - 2 * p) * eta / SQRT_2PI * (1 - R * R) - eta**2 / 2 * R * eps
            assert math.isclose(ol.ode_rhs(R, eta, p), model, rel_tol=1e-12, abs_tol=1e-15)
        eq4 = (1 - R * R) / SQRT_2PI - R * math.acos(R) / (2 * math.pi)
        assert math.isclose(ol.ode_rhs(R, 1.0), eq4, rel_tol=1e-12, abs_tol=1e-15)


def test_the_model_answers_small_eta_laws_hold():
    """Part (a)'s limits, on the reference: eta/sqrt(2 pi^3) for p = 0, and for fixed p > 0
    eps_inf - p ~ (1/pi) sqrt(p (1 - 2p) eta sqrt(pi/2)), whose relative error shrinks like sqrt(eta)."""
    residual = hidden().REFERENCE["residual_error"]
    assert abs(residual(1e-3) / (1e-3 / math.sqrt(2 * math.pi**3)) - 1) < 1e-6
    p = 0.1
    gaps = []
    for eta in (1e-2, 1e-4, 1e-6):
        law = math.sqrt(p * (1 - 2 * p) * eta * math.sqrt(math.pi / 2)) / math.pi
        gaps.append(abs((residual(eta, p) - p) / law - 1))
    assert gaps[0] < 0.1 and gaps[1] < gaps[0] / 5 and gaps[2] < gaps[1] / 5, gaps


# -- the tolerance: honest integrators are 10 times inside it, derivation errors 20 times outside --------


def _rk4_curve(step):
    namespace = {}
    exec(PRELUDE + RK4.replace("/ 0.01)", f"/ {step})"), namespace)
    return namespace["learning_curve"]


def _ivp_curve(rtol, atol, method="RK45"):
    def learning_curve(alphas, eta, z=0.0, p=0.0, R0=0.0):
        return _independent_curve_with(alphas, eta, z, p, R0, rtol=rtol, atol=atol, method=method)

    return learning_curve


def _independent_curve_with(alphas, eta, z, p, R0, **options):
    def F(a, y):
        rate = eta if a <= 1 else eta * a ** (-z)
        R = min(1.0, max(-1.0, y[0]))
        return [
            (1 - 2 * p) * rate / SQRT_2PI * (1 - R * R) - rate**2 / 2 * R * (p + (1 - 2 * p) * math.acos(R) / math.pi)
        ]

    sol = integrate.solve_ivp(F, (0.0, alphas[-1]), [R0], t_eval=alphas, **options)
    return [p + (1 - 2 * p) * math.acos(min(1.0, max(-1.0, R))) / math.pi for R in sol.y[0]]


def curve_gap(student):
    """The largest relative gap of ``student`` to the reference over the hidden curves."""
    gaps = []
    for _, case in all_cases()[:8]:
        gaps.append(
            relative_gap(
                hidden().REFERENCE["learning_curve"](*case.args, **case.kwargs), student(*case.args, **case.kwargs)
            )
        )
    return max(gaps)


@pytest.mark.parametrize(
    ("method", "student"),
    [
        ("RK4, step 0.01", lambda: _rk4_curve(0.01)),
        ("solve_ivp RK45, rtol 1e-10", lambda: _ivp_curve(1e-10, 1e-12)),
        ("solve_ivp DOP853, rtol 1e-10", lambda: _ivp_curve(1e-10, 1e-12, "DOP853")),
        ("solve_ivp RK45, rtol 1e-8", lambda: _ivp_curve(1e-8, 1e-10)),
    ],
)
def test_an_allowed_integrator_misses_by_less_than_a_tenth_of_the_tolerance(method, student):
    """Not split at the kink: solve_ivp as a student first writes it still passes at these tolerances."""
    gap = curve_gap(student())
    assert gap < hidden().RTOL / 10, (method, gap)


@pytest.mark.parametrize(
    ("method", "student"),
    [("solve_ivp at its defaults", lambda: _ivp_curve(1e-3, 1e-6)), ("RK4, step 0.5", lambda: _rk4_curve(0.5))],
)
def test_a_too_crude_integrator_fails(method, student):
    assert (
        grade({"learning_curve": student(), "residual_error": hidden().REFERENCE["residual_error"]}).score
        < full_marks()
    )


# -- mutants: the rubric's derivation errors and the usual slips, as code --------------------------------

# Each mutant is the honest IVP source with one edit (old, new, count), or its own source.
DERIVATION_ERRORS = {
    "missing factor 2: eta^2/pi": ("rate**2 / 2 * R", "rate**2 * R"),
    "sqrt(2/pi) for 1/sqrt(2 pi)": ("rate / SQ", "rate * math.sqrt(2 / math.pi)"),
    "wrong sign of the eta^2 term": ("- rate**2 / 2 * R", "+ rate**2 / 2 * R"),
    "arcsin for arccos in the mistake rate": (
        "p + (1 - 2 * p) * math.acos(R) / math.pi\n    return (1",
        "p + (1 - 2 * p) * math.asin(R) / math.pi\n    return (1",
    ),
    "arcsin for arccos everywhere": ("math.acos(R)", "math.asin(R)"),
    "the eta^2 term dropped": (" - rate**2 / 2 * R * mistakes", ""),
    "the -R h part forgotten: (1 - R) for (1 - R^2)": ("(1 - R * R)", "(1 - R)"),
}
SLIPS = {  # one condition each: the cases where it occurs fail, the others pass
    "(1 - p) for (1 - 2p)": (("(1 - 2 * p) * rate", "(1 - p) * rate"), lambda kw: kw.get("p", 0) > 0),
    "p left out of the mistake rate": (
        ("mistakes = p + (1 - 2 * p) * math.acos(R) / math.pi", "mistakes = math.acos(R) / math.pi"),
        lambda kw: kw.get("p", 0) > 0,
    ),
    "the teacher's error reported": (
        ("return p + (1 - 2 * p) * math.acos(R) / math.pi", "return math.acos(R) / math.pi"),
        lambda kw: kw.get("p", 0) > 0,
    ),
    "the schedule ignored (a constant rate)": (
        ("eta if alpha <= 1 else eta * alpha ** (-z)", "eta"),
        lambda kw: kw.get("z", 0) > 0,
    ),
    "the schedule as (1 + alpha)^-z": (
        ("eta if alpha <= 1 else eta * alpha ** (-z)", "eta * (1 + alpha) ** (-z)"),
        lambda kw: kw.get("z", 0) > 0,
    ),
    "the start R0 ignored": (("R = R0\n", "R = 0.0\n"), lambda kw: kw.get("R0", 0) != 0),
    "the root R = 1 for p = 0": (("0.0, 1 - 1e-13", "0.0, 1.0"), lambda kw: kw.get("p", 0) == 0),
}
OTHERS = {
    "solve_ivp at its default tolerances": (", rtol=1e-11, atol=1e-13)", ")"),
    "the overlap R* returned for eps_inf": ("return np.float64(error_of(R, p))", "return R"),
    "Euler at step 1e-3": None,
    "the small-eta formulas for the fixed point": None,
    "the small-angle quadratic for the fixed point": None,
}


def mutant(edit):
    old, new = edit
    assert old in IVP, old
    namespace = {}
    exec(PRELUDE + IVP.replace(old, new), namespace)
    return {part: namespace[part] for part in PARTS}


def _euler():
    student = dict(solution("ivp"))

    def learning_curve(alphas, eta, z=0.0, p=0.0, R0=0.0):
        R, a, out, h = R0, 0.0, [], 1e-3
        for target in alphas:
            while a < target - 1e-12:
                rate = eta if a <= 1 else eta * a ** (-z)
                R += h * (
                    (1 - 2 * p) * rate / SQRT_2PI * (1 - R * R)
                    - rate**2 / 2 * R * (p + (1 - 2 * p) * math.acos(R) / math.pi)
                )
                a += h
            out.append(p + (1 - 2 * p) * math.acos(min(1.0, R)) / math.pi)
        return out

    student["learning_curve"] = learning_curve
    return student


def _small_eta():
    def residual_error(eta, p=0.0):
        if p == 0:
            return eta / math.sqrt(2 * math.pi**3)
        return p + math.sqrt(p * (1 - 2 * p) * eta * math.sqrt(math.pi / 2)) / math.pi

    return {**solution("ivp"), "residual_error": residual_error}


def _quadratic():
    def residual_error(eta, p=0.0):
        a, b, c = (1 - 2 * p) / SQRT_2PI, eta * (1 - 2 * p) / (2 * math.pi), eta * p / 2
        return p + (1 - 2 * p) * (b + math.sqrt(b * b + 4 * a * c)) / (2 * a) / math.pi

    return {**solution("ivp"), "residual_error": residual_error}


def all_mutants():
    out = {name: mutant(edit) for name, edit in DERIVATION_ERRORS.items()}
    out |= {name: mutant(edit) for name, (edit, _) in SLIPS.items()}
    out |= {name: mutant(edit) for name, edit in OTHERS.items() if edit is not None}
    out["Euler at step 1e-3"] = _euler()
    out["the small-eta formulas for the fixed point"] = _small_eta()
    out["the small-angle quadratic for the fixed point"] = _quadratic()
    return out


@pytest.fixture(scope="module")
def mutant_reports():
    return {name: grade(student) for name, student in all_mutants().items()}


@pytest.mark.parametrize("variant", list(HONEST))
def test_honest_solutions_get_full_marks(variant):
    report = grade(solution(variant))
    assert report.passed and report.max_score == full_marks(), (variant, report.summary())


def test_every_mutant_scores_below_full_marks(mutant_reports):
    assert len(mutant_reports) >= 8
    table = "\n".join(
        f"{name:48s} {r.score:4.0f}/{r.max_score:.0f}  first failure: {(r.failures or [None])[0] and r.failures[0].name}"
        for name, r in mutant_reports.items()
    )
    assert all(r.score < full_marks() for r in mutant_reports.values()), table
    print(table)


def test_the_one_condition_slips_fail_exactly_where_their_condition_occurs(mutant_reports):
    names = [case.name for _, case in all_cases()]
    for slip, (_, occurs) in SLIPS.items():
        report = mutant_reports[slip]
        expected = {case.name for _, case in all_cases() if occurs(dict(case.kwargs))}
        # the root R = 1 matters only to (c); the curve cases with p = 0 are fine
        if slip == "the root R = 1 for p = 0":
            expected = {
                case.name for part, case in all_cases() if part == "residual_error" and occurs(dict(case.kwargs))
            }
        failed = {check.name for check in report.checks if not check.passed}
        assert failed == expected, (slip, sorted(failed ^ expected))
        assert 0 < report.score < full_marks(), (slip, report.summary())
        assert len(report.checks) == len(names)


def test_derivation_errors_miss_by_more_than_20_times_the_tolerance():
    """The hidden file's claim: each rubric error, as code, misses every curve it fails by >= 2e-2 and
    every fixed point by >= 2e-3 (20 RTOL), and fails nearly every case."""
    smallest = {"learning_curve": math.inf, "residual_error": math.inf}
    noise_errors = ("(1 - p) for (1 - 2p)", "p left out of the mistake rate", "the teacher's error reported")
    for name, edit in [*DERIVATION_ERRORS.items(), *((n, SLIPS[n][0]) for n in noise_errors)]:
        student = mutant(edit)
        for part, case in all_cases():
            expected = hidden().REFERENCE[part](*case.args, **case.kwargs)
            try:
                gap = relative_gap(expected, student[part](*case.args, **case.kwargs))
            except ValueError:  # brentq or bisect finds no sign change: the mutant's F has no interior root
                continue
            if gap > hidden().RTOL:
                smallest[part] = min(smallest[part], gap)
        if name in DERIVATION_ERRORS:  # the noise errors keep the cases without noise (the slips' test)
            assert grade(student).score == 0, (name, grade(student).summary())
    assert smallest["learning_curve"] > 2e-2 and smallest["residual_error"] > 20 * hidden().RTOL, smallest


def test_the_small_eta_laws_are_at_least_ten_tolerances_from_every_hidden_fixed_point(mutant_reports):
    for name in ("the small-eta formulas for the fixed point", "the small-angle quadratic for the fixed point"):
        student = all_mutants()[name]["residual_error"]
        for part, case in all_cases():
            if part == "residual_error":
                gap = relative_gap(
                    hidden().REFERENCE[part](*case.args, **case.kwargs), student(*case.args, **case.kwargs)
                )
                assert gap > 10 * hidden().RTOL, (name, case.name, gap)


def test_a_solution_that_does_nothing_scores_zero():
    def learning_curve(alphas, eta, z=0.0, p=0.0, R0=0.0):  # the student never moves
        return [p + (1 - 2 * p) * math.acos(R0) / math.pi for _ in alphas]

    def residual_error(eta, p=0.0):  # the best possible error
        return p

    assert grade({"learning_curve": learning_curve, "residual_error": residual_error}).score == 0


# -- the notebook and its public checks --------------------------------------------------------------------


def test_the_public_checks_are_current():
    assert public_checks_path(NAME).read_text(encoding="utf-8") == public_checks_text(hidden())


def test_the_public_checks_are_the_same_bits_under_a_restricted_dispatch():
    """numpy at its baseline and OpenBLAS's oldest kernel give the same recorded file (the reference
    uses scalar math and LSODA's own end points)."""
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    groups = [name for name in __cpu_dispatch__ if __cpu_features__.get(name)]
    env = {**os.environ, "NPY_DISABLE_CPU_FEATURES": " ".join(groups), "OPENBLAS_CORETYPE": "Prescott"}
    code = (
        "import hashlib\nfrom booktools.grading.hidden import HIDDEN_DIR, load_hidden, public_checks_text\n"
        f"print(hashlib.sha256(public_checks_text(load_hidden(HIDDEN_DIR / '{NAME}_hidden.py')).encode()).hexdigest())"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == hashlib.sha256(public_checks_text(hidden()).encode()).hexdigest()


@pytest.mark.parametrize("fill", ["reference", *HONEST])
def test_the_public_checks_pass_in_the_notebook(fill, capsys, monkeypatch):
    monkeypatch.chdir(ASSIGNMENTS)
    namespace = {}
    for cell in code_cells():
        part = stub_part(cell)
        if part is None:
            exec(cell, namespace)
        elif fill == "reference":
            namespace[part] = hidden().REFERENCE[part]
        else:
            namespace[part] = solution(fill)[part]
    out = capsys.readouterr().out
    assert out.count("All checks passed.") == 2 and "FAIL" not in out, out


def test_the_notebooks_claim_about_solve_ivps_defaults_holds(monkeypatch):
    monkeypatch.chdir(ASSIGNMENTS)
    public = ol.grading.load_public_checks(f"{NAME}_public.json", part="learning_curve")
    assert public.run(_ivp_curve(1e-3, 1e-6), rtol=1e-4).score == 0
    assert public.run(_rk4_curve(0.01), rtol=1e-4).passed


def test_the_notebook_has_its_header_and_never_mentions_the_hidden_tests():
    text = (ASSIGNMENTS / f"{NAME}.md").read_text(encoding="utf-8")
    assert "lecturer" not in text.lower() and "_hidden" not in text and "REFERENCE" not in text
    assert "(asg-learning-curve)=\n# Assignment 16: " in text
    assert re.search(
        r"^\*Part: Learning curves\. Chapter: \{ref\}`ch-learning-curves`\.\*\n\n"
        r"\*Difficulty: advanced\. Expected time: about 6 hours\.\*$",
        text,
        re.M,
    )
    assert "rtol=1e-4" in text and str(hidden().RTOL) == "0.0001"


def test_the_answer_cell_matches_the_questions_and_the_rubric_is_complete():
    questions = questions_from_hidden(hidden().QUESTIONS)
    assert [q.id for q in questions] == ["noisy-ode"] and questions[0].points == 5
    cells = [c for c in notebook().cells if c.cell_type == "markdown" and "answer" in c.metadata.get("tags", [])]
    assert [c.metadata["question"] for c in cells] == ["noisy-ode"]
    answers, problems = extract_answers(ASSIGNMENTS / f"{NAME}.md", questions)
    assert not problems and set(answers) == {"noisy-ode"}
    for question in questions:
        assert len(question.model) >= 400
        for item in question.items:
            assert item.has_descriptors and item.errors and len({item.full, item.half, item.zero}) == 3, item.id
            assert item.levels == (0, item.points / 2, item.points)
    # the rubric names the derivation errors the mutants above make
    errors = " ".join(e for item in questions[0].items for e in item.errors)
    for phrase in ("factor 2", "sqrt(2/pi)", "arcsin", "(1 - p)", "sign", "R = 1"):
        assert phrase in errors, phrase


def test_the_model_answers_ode_is_the_one_graded():
    """The model derivation's display of F, read off its LaTeX, is the library's ode_rhs."""
    model = hidden().QUESTIONS[0]["model"]
    assert r"(1-2p)\,\frac{\eta}{\sqrt{2\pi}}\,(1 - R^2)" in model
    assert r"\frac{\eta^2}{2}\,R\,\Big(p + (1-2p)\,\frac{\arccos R}{\pi}\Big)" in model
    assert r"\frac{1}{\pi}\sqrt{p\,(1-2p)\,\eta\,\sqrt{\pi/2}}" in model


# -- FORBIDDEN: the library's solution is removed, the public checks still run ----------------------------

SHORTCUT = """
def learning_curve(alphas, eta, z=0.0, p=0.0, R0=0.0):
    rate = eta if z == 0 else (lambda a: eta if a <= 1 else eta * a ** (-z))
    R = ol.integrate_R(alphas, rate, R0, p=p)
    return [p + (1 - 2 * p) * math.acos(min(1.0, r)) / math.pi for r in R]


def residual_error(eta, p=0.0):
    if p == 0:
        return ol.fixed_point_error(eta)
    R = optimize.brentq(lambda R: ol.ode_rhs(R, eta, p), 0.0, 1.0, xtol=1e-15)
    return p + (1 - 2 * p) * math.acos(R) / math.pi
"""
PROBES = [
    "ol.ode_rhs(0.5, 1.0)",
    "ol.integrate_R([1.0], 1.0, 0.0)",
    "ol.fixed_point_error(1.0)",
    "onlinelib.learning_curves.theory._rhs_d(0.5, 1.0)",
    "onlinelib.chapters.learning_curves.explore_learning_curve(alpha_max=2, runs=2, N=5)",
]


def test_forbidden_resolves_to_the_librarys_ode():
    assert resolve_forbidden(hidden().FORBIDDEN) == {
        "onlinelib.learning_curves.theory": {"ode_rhs", "integrate_R", "fixed_point_error", "_rhs_d"}
    }


def test_without_forbidden_the_shortcut_earns_full_marks_and_the_small_eta_formula_does_not():
    namespace = {"ol": ol}
    exec(PRELUDE + SHORTCUT, namespace)
    assert grade({part: namespace[part] for part in PARTS}).passed
    # not a shortcut: the library's small-eta formula is 1e-3 or more off at every hidden eta
    near = {**solution("rk4"), "residual_error": lambda eta, p=0.0: ol.small_eta_fixed_point(eta) if p == 0 else p}
    assert grade(near).score == 8


def test_the_graded_library_blocks_the_shortcuts_and_runs_the_public_checks(tmp_path):
    cells = [
        HONEST["rk4"] if stub_part(cell) == "learning_curve" else "" if stub_part(cell) else cell
        for cell in code_cells()
    ]
    code = "import onlinelib as ol\nimport onlinelib.chapters.learning_curves\n" + PRELUDE
    code += "\n\n".join(cell for cell in cells if cell)
    out = run_in_graded_library(NAME, hidden().FORBIDDEN, tmp_path, code, PROBES, env={"MPLBACKEND": "Agg"})
    assert out.count("All checks passed.") == 2, out


# -- python -m booktools grade (bubblewrap) ---------------------------------------------------------------

DERIVATION = (
    "One step: $N\\,E[\\Delta R] = \\eta E[\\epsilon\\sigma(h_0 - Rh)] - \\frac{\\eta^2}{2} R E[\\epsilon]$; "
    "with noise the first expectation is $(1-2p)(1-R^2)/\\sqrt{2\\pi}$."
)


def _submission(code=None, *, imports="", answer=True):
    """The notebook with both stubs replaced by ``code`` (None: left as they are), as MyST text."""
    nb = notebook()
    first = True
    for cell in nb.cells:
        if cell.cell_type == "code" and stub_part(cell.source) and code is not None:
            cell.source = (code if first else "# (defined above)").strip()
            first = False
        elif cell.cell_type == "code" and "import numpy as np" in cell.source and imports:
            cell.source = cell.source + "\n" + imports
        elif answer and cell.metadata.get("question") == "noisy-ode":
            cell.source = DERIVATION
    return jupytext.writes(nb, fmt="md:myst")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """One grading run: a correct notebook, a wrong one (the (1 - p) slip), the untouched one, a shortcut."""
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: the grader needs it")
    base = tmp_path_factory.mktemp("learning-curve-grade")
    folder = base / "submissions"
    folder.mkdir()
    (folder / "correct.md").write_text(_submission(RK4), encoding="utf-8")
    wrong = IVP.replace(*SLIPS["(1 - p) for (1 - 2p)"][0])
    (folder / "wrong.md").write_text(_submission(wrong), encoding="utf-8")
    (folder / "untouched.md").write_text((ASSIGNMENTS / f"{NAME}.md").read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "shortcut.md").write_text(_submission(SHORTCUT, imports="import onlinelib as ol"), encoding="utf-8")
    out = base / "scores.csv"
    command = [sys.executable, "-m", "booktools", "grade", str(folder), "--assignment", NAME, "--out", str(out)]
    done = subprocess.run(
        [*command, "--jobs", "2", "--timeout", "300"], cwd=ROOT, capture_output=True, text=True, timeout=900
    )
    rows = {}
    if out.is_file():
        with out.open(newline="", encoding="utf-8") as handle:
            rows = {row["submission"]: row for row in csv.DictReader(handle)}
    return done, rows, out


def test_the_grader_gives_a_correct_notebook_full_automatic_marks_and_collects_the_derivation(graded):
    done, rows, out = graded
    assert done.returncode == 0 and rows, done.stderr[-3000:]
    correct = rows["correct.md"]
    assert correct["status"] == "graded", correct
    assert float(correct["score"]) == float(correct["max_score"]) == full_marks()
    answers = out.with_name(out.stem + "_answers.json").read_text(encoding="utf-8")
    assert "One step:" in answers


def test_the_grader_gives_wrong_code_less_and_the_stubs_zero(graded):
    done, rows, out = graded
    wrong, untouched = rows["wrong.md"], rows["untouched.md"]
    assert wrong["status"] == "graded" and 0 < float(wrong["score"]) < full_marks(), wrong
    assert float(wrong["score"]) == 7, wrong  # the seven cases without noise
    assert untouched["status"] == "not attempted" and float(untouched["score"]) == 0, untouched  # issue 37
    assert "not implemented yet" in untouched["feedback"], untouched


def test_the_grader_refuses_the_librarys_shortcut(graded):
    done, rows, out = graded
    shortcut = rows["shortcut.md"]
    assert shortcut["status"] == "forbidden" and float(shortcut["score"]) == 0, shortcut
