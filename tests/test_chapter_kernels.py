"""Tests for onlinelib.chapters.kernels (chapter 6: Boolean kernels, Theorems 3 and 4) and its explorer."""

import matplotlib

matplotlib.use("Agg")

import math  # noqa: E402
import re  # noqa: E402
from pathlib import Path  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import onlinelib as ol  # noqa: E402
from onlinelib import hardness as hd  # noqa: E402
from onlinelib.chapters.kernels import (  # noqa: E402
    MAX_FAMILY_SIZE,
    MAX_MAXIMAL_FAMILY_SETS,
    MAX_VARIABLES,
    conflict_count,
    cycle_until_clean,
    dual_cost,
    explorer_size,
    gilbert_varshamov_size,
    max_margin_experiment,
    maximal_family,
    plot_dual_cost,
    plot_mistake_growth,
    plot_theorem4,
    theorem4_experiment,
)
from onlinelib.explorers import kernels_explorer  # noqa: E402

# -- theorem4_experiment ------------------------------------------------------------------


@pytest.mark.parametrize("n", [16, 24, 32, 40, 48])
def test_theorem4_experiment_counts_and_scores(n):
    res = theorem4_experiment(n, n // 4, n // 8, np.random.default_rng(n))
    t = res["size"]
    assert t == res["requested"] == res["t_max"] == 2 ** (n // 8)
    assert res["condition"] and res["predicted"] == 2 + t
    assert res["n_mistakes"] == 2 + t and res["mistakes"].all()
    assert res["scores"][:2] == [0, -1]  # 0^n at an empty M, then 1^n
    assert res["scores"][2:] == res["formula"]
    assert res["formula"][0] == res["start"] == 2 ** (n // 4) - 1
    assert all(s >= low >= 0 for s, low in zip(res["scores"][2:], res["lower"], strict=True))
    hd.check_family(res["family"].sets, n // 4, n // 8)


def test_theorem4_experiment_matches_engine_and_hand_formula():
    res = theorem4_experiment(40, 10, 5, np.random.default_rng(3))
    trace = ol.run(ol.KernelPerceptron(40, ol.monotone_monomials()), res["X"], res["y"])
    assert np.array_equal(trace.predictions, res["predictions"])
    # the formula recomputed here from the sets, independently of hardness.theorem4_scores
    S = res["family"].sets.astype(np.int64)
    meet = S @ S.T
    for j in range(res["size"]):
        want = 2**10 - 1 - sum(2 ** int(v) for v in meet[j, :j])
        assert res["scores"][2 + j] == want


def test_theorem4_experiment_strict_convention():
    res = theorem4_experiment(32, 8, 4, np.random.default_rng(1), convention="positive")
    assert not res["mistakes"][0]  # 0^n is predicted -1 with score 0
    assert res["n_mistakes"] == 1 + res["size"] == res["predicted"]
    assert res["start"] == 2**8 and res["scores"][2:] == res["formula"]


def test_theorem4_experiment_beyond_the_condition():
    res = theorem4_experiment(48, 12, 6, np.random.default_rng(5), size=512)
    assert not res["condition"] and res["predicted"] is None
    assert 2 + res["t_max"] < res["n_mistakes"] < 2 + res["size"]
    # the recorded scores decide the recorded predictions (ties to +1)
    preds = np.where(np.array(res["scores"], dtype=object) >= 0, 1, -1)
    assert np.array_equal(preds.astype(np.int8), res["predictions"])


def test_theorem4_experiment_small_family_when_greedy_cannot_find_more():
    # weight-3 sets of {1..8} that pairwise meet in 0 elements: at most 2 exist
    res = theorem4_experiment(8, 3, 0, np.random.default_rng(0), size=5)
    assert res["requested"] == 5 and res["size"] == 2
    assert res["t_max"] == 8 and res["condition"]
    assert res["n_mistakes"] == 2 + 2


def test_theorem4_experiment_same_seed_same_result():
    a = theorem4_experiment(24, 6, 3, np.random.default_rng(9))
    b = theorem4_experiment(24, 6, 3, np.random.default_rng(9))
    assert np.array_equal(a["X"], b["X"]) and a["scores"] == b["scores"]


@pytest.mark.parametrize(
    "args, kwargs, error",
    [
        ((1, 1, 0), {}, ValueError),
        ((MAX_VARIABLES + 1, 4, 2), {}, ValueError),
        ((16, 16, 2), {}, ValueError),
        ((16, 0, 0), {}, ValueError),
        ((16, 4, 4), {}, ValueError),
        ((16, 4, -1), {}, ValueError),
        ((16.0, 4, 2), {}, TypeError),
        ((16, "4", 2), {}, TypeError),
        ((16, 4, True), {}, TypeError),
        ((16, 4, 2), {"size": 0}, ValueError),
        ((16, 4, 2), {"size": MAX_FAMILY_SIZE + 1}, ValueError),
        ((16, 4, 2), {"size": 2.5}, TypeError),
        ((16, 4, 2), {"convention": "margin"}, ValueError),
    ],
)
def test_theorem4_experiment_bad_input(args, kwargs, error):
    with pytest.raises(error):
        theorem4_experiment(*args, np.random.default_rng(0), **kwargs)


def test_theorem4_experiment_bad_rng():
    with pytest.raises(TypeError):
        theorem4_experiment(16, 4, 2, 42)


# -- cycle_until_clean -----------------------------------------------------------------------


def test_cycle_until_clean_perceptron_on_theorem4_stream():
    res = theorem4_experiment(32, 8, 4, np.random.default_rng(2))
    learner = ol.Perceptron(32, bias=True)
    out = cycle_until_clean(learner, res["X"], res["y"])
    assert out["clean"] and out["per_pass"][-1] == 0
    assert out["passes"] == len(out["per_pass"]) and out["mistakes"] == sum(out["per_pass"])
    assert ol.run(learner, res["X"], res["y"]).n_mistakes == 0
    n = 32
    assert learner.n_updates <= 4 * (n + (n - 0.5) ** 2) * (n + 1)  # Novikoff, see chapter 6


def test_cycle_until_clean_reports_failure_to_converge():
    # x and its label flipped: no learner state is right on both, so no pass is clean
    X = np.array([[1, 0], [1, 0]], dtype=np.uint8)
    y = np.array([1, -1])
    out = cycle_until_clean(ol.Perceptron(2), X, y, max_passes=3)
    assert not out["clean"] and out["passes"] == 3 and out["mistakes"] >= 3


@pytest.mark.parametrize("passes, error", [(0, ValueError), (1.5, TypeError), (True, TypeError)])
def test_cycle_until_clean_bad_max_passes(passes, error):
    with pytest.raises(error):
        cycle_until_clean(ol.Perceptron(2), np.eye(2), np.array([1, -1]), max_passes=passes)


# -- dual_cost ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kernel", [ol.all_conjunctions(), ol.monotone_monomials(), ol.bounded_conjunctions(2)])
def test_dual_cost_counts_one_kernel_value_per_support_vector(kernel):
    X, y = ol.monotone_dnf_stream(8, [[0, 1], [2, 3]], 150, np.random.default_rng(4))
    cost = dual_cost(X, y, kernel)
    assert np.array_equal(cost["evaluations"], cost["support"])
    assert cost["support"][0] == 0 and np.all(np.diff(cost["support"]) >= 0)
    assert cost["dimension"] == kernel.dimension(8) and cost["n"] == 8
    assert cost["seconds"].shape == (150,) and np.all(cost["seconds"] >= 0)
    trace = ol.run(ol.KernelPerceptron(8, kernel), X, y)
    assert cost["support"][-1] + int(trace.mistakes[-1]) == trace.n_mistakes


@pytest.mark.parametrize(
    "X, y, kernel, error",
    [
        (np.ones((3, 4)), np.ones(2), ol.monotone_monomials(), ValueError),
        (np.full((2, 4), 2), np.ones(2), ol.monotone_monomials(), ValueError),
        (np.ones((2, 4)), np.array([1, 0]), ol.monotone_monomials(), ValueError),
        (np.ones((2, 4)), np.ones(2), "monotone", TypeError),
        (np.ones((0, 4)), np.ones(0), ol.monotone_monomials(), ValueError),
    ],
)
def test_dual_cost_bad_input(X, y, kernel, error):
    with pytest.raises(error):
        dual_cost(X, y, kernel)


def test_dual_cost_bad_convention():
    with pytest.raises(ValueError):
        dual_cost(np.ones((2, 3)), np.ones(2), ol.monotone_monomials(), convention="strict")


# -- figures and the explorer ---------------------------------------------------------------------


def test_plot_theorem4_and_bad_axes():
    res = theorem4_experiment(32, 8, 4, np.random.default_rng(0), size=32)
    axes = plot_theorem4(res)
    assert len(axes) == 2 and len(axes[0].lines) >= 3 and len(axes[1].lines) >= 1
    _, one = plt.subplots()
    with pytest.raises(ValueError):
        plot_theorem4(res, axes=[one])


def test_plot_mistake_growth_slope_and_bad_input():
    n = np.arange(16, 65, 8)
    growth = {"n": n, "kernel": 2 + 2 ** (n // 8), "perceptron": n, "novikoff": n**3}
    ax = plot_mistake_growth(growth)
    assert len(ax.lines) == 4
    labels = [line.get_label() for line in ax.lines]
    assert any(label.startswith("fit: slope 0.1") for label in labels)
    with pytest.raises(ValueError):
        plot_mistake_growth({"n": n, "kernel": n})
    with pytest.raises(ValueError):
        plot_mistake_growth({**growth, "perceptron": n[:-1]})
    with pytest.raises(ValueError):
        plot_mistake_growth({**growth, "perceptron": 0 * n})


def test_plot_dual_cost():
    X, y = ol.monotone_dnf_stream(6, [[0, 1]], 50, np.random.default_rng(1))
    axes = plot_dual_cost(dual_cost(X, y, ol.monotone_monomials()))
    assert len(axes) == 2 and axes[0].get_yscale() == "log"


def test_explorer_size():
    # t_max = 256 for a = 16, b = 8: (t - 1) 2^8 <= 2^16 - 1 (or < 2^16) holds up to t = 256
    assert hd.theorem4_max_size(16, 8, "nonnegative") == hd.theorem4_max_size(16, 8, "positive") == 256
    assert explorer_size(64, 16, 8, 1.0) == 256
    assert explorer_size(64, 16, 8, 0.25) == 64
    assert explorer_size(64, 16, 8, 1e9) == MAX_FAMILY_SIZE
    assert explorer_size(8, 3, 2, 0.25) == 1  # ceil(0.25 * 2) = 1: at least one set
    with pytest.raises(ValueError, match=r"a must be an integer in \[1, 63\], got 64"):
        explorer_size(64, 64, 8, 1.0)
    with pytest.raises(ValueError, match="convention must be one of"):
        explorer_size(64, 16, 8, 1.0, "margin")
    for bad in (math.nan, math.inf, -math.inf, 0, 0.0, -1, -0.5):
        with pytest.raises(
            ValueError, match=rf"^factor must be a finite real number > 0, got {re.escape(repr(float(bad)))}$"
        ):
            explorer_size(64, 16, 8, bad)
    for bad in ("x", None, True, [1.0], 1j):
        with pytest.raises(TypeError, match=rf"^factor must be a real number > 0, got {re.escape(repr(bad))}$"):
            explorer_size(64, 16, 8, bad)
    with pytest.raises(ValueError, match=r"^factor must be a finite real number > 0, got 10{400}$"):
        explorer_size(64, 16, 8, 10**400)
    with pytest.raises(ValueError, match=r"^n must be an integer in \[2, 128\], got 129$"):
        explorer_size(129, 16, 8, 1.0)


def test_explorer_builds_without_drawing():
    pytest.importorskip("ipywidgets")
    panel = kernels_explorer()
    assert len(panel.children) >= 7  # six controls, the Draw button and the output
    with pytest.raises(ValueError):
        kernels_explorer(seed=-1)


# -- the Gilbert-Varshamov rate -----------------------------------------------------------


def _brute_conflicts(n, a, b):
    import itertools

    x = set(range(a))
    return sum(len(x & set(c)) > b for c in itertools.combinations(range(n), a))


@pytest.mark.parametrize("n, a, b", [(8, 2, 1), (10, 3, 1), (12, 4, 2), (9, 4, 0), (7, 3, 2)])
def test_conflict_count_matches_brute_force(n, a, b):
    assert conflict_count(n, a, b) == _brute_conflicts(n, a, b)
    assert gilbert_varshamov_size(n, a, b) == -(-math.comb(n, a) // _brute_conflicts(n, a, b))


@pytest.mark.parametrize("n, a, b", [(8, 2, 1), (12, 3, 1), (16, 4, 2), (10, 5, 2)])
def test_maximal_family_is_valid_maximal_and_large(n, a, b):
    import itertools

    family = maximal_family(n, a, b)
    assert family.dtype == np.uint8 and (family.sum(axis=1) == a).all()
    hd.check_family(family, a, b)
    assert len(family) >= gilbert_varshamov_size(n, a, b)
    rows = np.zeros((math.comb(n, a), n), dtype=int)
    np.put_along_axis(rows, np.array(list(itertools.combinations(range(n), a))), 1, axis=1)
    assert ((rows @ family.T.astype(int)) > b).any(axis=1).all()  # nothing can be added
    assert np.array_equal(family, maximal_family(n, a, b))  # deterministic


def test_maximal_family_small_cases_exact():
    # b = 0: disjoint pairs from 8 elements, greedy gives 4; b = a - 1 only forbids equality: all C(n, a)
    assert len(maximal_family(8, 2, 0)) == 4
    assert len(maximal_family(7, 3, 2)) == math.comb(7, 3)


def test_gv_rate_inequality_exact():
    for n in range(8, 257, 8):
        k = n // 8
        V = conflict_count(n, n // 4, n // 8)
        assert math.comb(n, n // 4) * (n + 1) * 531441**k >= V * 800000**k


@pytest.mark.parametrize("args", [(0, 1, 0), (8, 0, 0), (8, 8, 1), (8, 2, 2), (8, 2, -1)])
def test_gv_functions_reject_bad_weights(args):
    for f in (conflict_count, gilbert_varshamov_size, maximal_family):
        with pytest.raises(ValueError):
            f(*args)


def test_gv_functions_reject_bad_types():
    for f in (conflict_count, gilbert_varshamov_size, maximal_family):
        with pytest.raises(TypeError):
            f(8.5, 2, 1)


def test_maximal_family_rejects_large_n():
    assert math.comb(40, 10) > MAX_MAXIMAL_FAMILY_SETS
    with pytest.raises(ValueError, match="n"):
        maximal_family(40, 10, 5)


def test_max_margin_experiment_needs_some_n():
    with pytest.raises(ValueError, match="n_values must hold at least one n"):
        max_margin_experiment([], 10, 10, np.random.default_rng(0))


# -- issue 38: the chapter's statements --------------------------------------------------


def test_gv_guarantee_is_the_integer_and_the_closed_form_is_vacuous_at_the_run_sizes():
    from fractions import Fraction

    rho = Fraction(800000, 531441)
    assert gilbert_varshamov_size(80, 20, 10) == 1247 >= 2**10
    assert rho**10 / 81 < 1  # 2^(80 gamma) / 81 = 0.74
    assert next(n for n in range(8, 400, 8) if rho ** (n // 8) >= n + 1) == 88
    assert all(gilbert_varshamov_size(n, n // 4, n // 8) >= 2 ** (n // 8) for n in range(8, 81, 8))
    assert gilbert_varshamov_size(88, 22, 11) < 2**11


CHAPTER = (Path(__file__).resolve().parents[1] / "book" / "kernels.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "old",
    [
        "proves at least $2^{\\gamma n}/(n+1)$ mistakes for every $n$",  # needs 8 | n, adds 2, vacuous at n <= 80
        "A counting argument proves a rate for every $n$",
        "each claim is followed by a code cell",  # cited theorems are not checked
        "coin flip that the\ntheorem predicts",  # the cited theorem is about DNF with omega(1) terms
        "would learn small DNF with few mistakes",  # monotone DNF (errata item 6)
        "A sample of polynomial size is therefore almost\northogonal",  # needs n of order lg m (now proved)
        "; $Q$ is positive\ndefinite, so",  # now proved by Gershgorin
        # second pass: sum a_i / m is 0.99992 at n = 50, below 1; the bound is vacuous only with its sqrt term
        "the margin-based bound is above 1\nbefore its",
        "the same as one vote per round",  # Freund and Schapire's vote counts h_1..h_T, not h_0..h_{T-1}
        "$R^2\\|u\\|^2$ is $(s + \\frac14)",  # with margin 1/2 the bound is (4s + 1) R^2, not (s + 1/4) R^2
        "Let $K_k(x, z)",  # the chapter's name for this kernel is K_{<= k} (the lemma's)
    ],
)
def test_the_chapter_no_longer_says(old):
    assert old not in CHAPTER


def test_the_chapter_marks_what_it_cites_and_states_the_new_theory():
    assert "Theorems 5 and 7 (cited" in CHAPTER
    assert "(cited, not proved here)" in CHAPTER
    for label in ("bk-thm-psd", "bk-thm-representer", "bk-thm-kdnf", "bk-thm-o2b"):
        assert f":label: {label}" in CHAPTER
    assert "n$ a multiple of 8" in CHAPTER or "multiple of 8" in CHAPTER
