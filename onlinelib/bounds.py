"""Closed-form mistake bounds, one function per theorem.

Chapter 1: the trivial bounds on Opt(C), Halving's ``floor(lg |C|)``, Randomized
Halving's H_r - 1 (both in closed form and as the solution of the lecture's
recurrence), and the Littlestone dimension. Chapters 2-4: Novikoff's bound for
the Perceptron, Winnow1's, Littlestone's Winnow(alpha, theta) bound, the notes'
alpha = 2 bound, Winnow's bound for threshold targets with a margin, and the
Elimination bound.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from .concepts import ConceptClass
from .validation import check_int, check_real
from .version_space import _check_class, littlestone_dimension

__all__ = [
    "halving_bound",
    "harmonic_number",
    "randomized_halving_bound",
    "randomized_halving_recurrence",
    "littlestone_bound",
    "opt_upper_bounds",
    "perceptron_bound",
    "winnow1_bound",
    "winnow2_bound",
    "notes_winnow_bound",
    "winnow2_margin_bound",
    "elimination_bound",
    "wma_bound",
    "wma_bound_standard",
    "rwma_bound",
    "rwma_bound_standard",
    "tuned_eta",
    "rwma_tuned_regret_bound",
]


def _check_size(n: Any, name: str) -> int:
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"{name} must be a positive integer, got {n!r}")
    if n < 1:
        raise ValueError(f"{name} must be a positive integer (a class has at least one concept), got {n}")
    return int(n)


def halving_bound(n_concepts: int) -> int:
    """``floor(lg |C|)``: Halving's mistake bound (chapter 1, Theorem "Halving"). Exact integer arithmetic."""
    return _check_size(n_concepts, "n_concepts").bit_length() - 1


def harmonic_number(r: int) -> Fraction:
    """H_r = 1 + 1/2 + ... + 1/r, exactly."""
    r = _check_size(r, "r")
    return sum((Fraction(1, i) for i in range(1, r + 1)), Fraction(0))


def randomized_halving_bound(n_concepts: int) -> Fraction:
    """H_r - 1 for r = ``|C|``: Randomized Halving's expected-mistake bound, exactly.

    (Chapter 1, Theorem "Randomized Halving"; it is at most ln r, so the lecture's
    ``ln |C| + O(1)`` needs no O(1).)
    """
    return harmonic_number(_check_size(n_concepts, "n_concepts")) - 1


def randomized_halving_recurrence(r_max: int) -> list[Fraction]:
    """[M_1, ..., M_{r_max}] from the lecture's recurrence, solved step by step in fractions.

    M_1 = 0 and M_r = (r-1)/r + (M_1 + ... + M_{r-1})/r: the held concept is the
    last one to be eliminated with probability 1/r (no more mistakes), and is
    otherwise the i-th for i < r (one mistake, then r - i concepts remain). It
    does not use the closed form, so comparing it with ``randomized_halving_bound``
    checks the telescoping step of the proof.
    """
    r_max = _check_size(r_max, "r_max")
    values = [Fraction(0)]
    prefix = Fraction(0)
    for r in range(2, r_max + 1):
        prefix += values[-1]
        values.append(Fraction(r - 1, r) + prefix / r)
    return values


def littlestone_bound(concept_class: ConceptClass) -> int:
    """Ldim(C) = Opt(C): SOA's mistake bound and every deterministic learner's lower bound."""
    return littlestone_dimension(_check_class(concept_class))


def opt_upper_bounds(concept_class: ConceptClass) -> dict[str, int]:
    """The chain of upper bounds on Opt(C) from chapter 1, for one class.

    Returns ``{"|X|": ..., "|C| - 1": ..., "floor(lg |C|)": ..., "Ldim(C)": ...}``.
    Opt(C) equals the last; the first three are the "trivial" bounds.
    """
    cls = _check_class(concept_class)
    return {
        "|X|": cls.n_instances,
        "|C| - 1": cls.size - 1,
        "floor(lg |C|)": halving_bound(cls.size),
        "Ldim(C)": littlestone_bound(cls),
    }


# -- linear-threshold learners (chapters 2-4) -------------------------------------------


def perceptron_bound(radius: float, margin: float, u_norm: float = 1.0) -> float:
    """Novikoff's bound ||u||^2 R^2 / xi^2 on the Perceptron's updates (chapter 3, Theorem "Novikoff").

    With a unit separator (``u_norm=1``) and margin gamma this is R^2 / gamma^2.
    ``margin`` is xi = min_t y_t <u, x_t>, measured for the given u.
    """
    radius = check_real(radius, "radius", 0.0)
    margin = check_real(margin, "margin", 0.0)
    u_norm = check_real(u_norm, "u_norm", 0.0)
    return (u_norm * radius / margin) ** 2


def winnow1_bound(n_features: int, n_relevant: int, theta: float | None = None) -> float:
    """n/theta + 2k(lg theta + 1): Winnow1's mistake bound (chapter 2; Rivest's lecture, Lemmas 1-3).

    Default theta = n/2, where it equals 2 + 2k lg n.
    """
    n = check_int(n_features, "n_features", low=1)
    k = check_int(n_relevant, "n_relevant", low=0)
    theta = n / 2 if theta is None else check_real(theta, "theta", 0.0)
    return n / theta + 2 * k * (np.log2(theta) + 1)


def winnow2_bound(n_features: int, n_relevant: int, alpha: float, theta: float) -> float:
    """Littlestone's bound for Winnow(alpha, theta) on a k-literal monotone disjunction (chapter 4).

    (alpha / (alpha - 1)) * N / theta + k (alpha + 1)(1 + log_alpha theta), valid for
    every alpha > 1 and theta >= 1 (Khardon, Roth and Servedio, Theorem 2).
    """
    n = check_int(n_features, "n_features", low=1)
    k = check_int(n_relevant, "n_relevant", low=0)
    alpha = check_real(alpha, "alpha", 1.0)
    theta = check_real(theta, "theta", 0.0)
    if theta < 1:
        raise ValueError(f"theta must be at least 1 for the bound (log_alpha theta >= 0), got {theta}")
    return alpha / (alpha - 1) * n / theta + k * (alpha + 1) * (1 + np.log(theta) / np.log(alpha))


def notes_winnow_bound(n_features: int, n_relevant: int) -> float:
    """2 + 3k(log2 N + 1): the Kitani notes' Winnow bound (their Eq. 42), proved for alpha = 2 only.

    Chapter 4 shows by an adversary search that it fails for alpha < 2 with theta = N.
    """
    n = check_int(n_features, "n_features", low=1)
    k = check_int(n_relevant, "n_relevant", low=0)
    return 2 + 3 * k * (np.log2(n) + 1)


def winnow2_margin_bound(
    n_features: int,
    u_l1: float,
    delta: float,
    alpha: float,
    theta: float,
    *,
    promotions: bool = False,
) -> float:
    """Winnow(alpha, theta) on a threshold target with a margin (chapter 4, Theorem thm-wn-margin).

    The target is given by weights u >= 0 with ``u_l1`` = sum(u): every positive
    example has u.x >= 1 and every negative one u.x <= 1 - ``delta``. With
    A = alpha N / ((alpha - 1) theta) and c = 1 - alpha (1 - delta) > 0, Winnow makes
    at most P = (u_l1 log_alpha(alpha theta) + (1 - delta) A) / c promotions (returned
    with ``promotions=True``) and at most A + (1 + alpha) P mistakes. It needs
    1 < alpha < 1 / (1 - delta) (any alpha > 1 when delta = 1) and theta >= 1 / alpha.
    For a disjunction (u = indicator of the k relevant variables, delta = 1) this is
    Littlestone's bound, ``winnow2_bound``.
    """
    n = check_int(n_features, "n_features", low=1)
    u_l1 = check_real(u_l1, "u_l1", 0.0)
    delta = check_real(delta, "delta", 0.0)
    if delta > 1:
        raise ValueError(f"delta must be a margin in (0, 1] (u.x >= 0 on 0/1 examples), got {delta!r}")
    alpha = check_real(alpha, "alpha", 1.0)
    contraction = 1 - alpha * (1 - delta)
    if contraction <= 0:
        raise ValueError(f"alpha must be below 1 / (1 - delta) = {1 / (1 - delta):.6g} "
                         f"for delta = {delta!r}, got {alpha!r}")
    theta = check_real(theta, "theta", 0.0)
    if alpha * theta < 1:
        raise ValueError(f"theta must be at least 1 / alpha = {1 / alpha:.6g}, got {theta!r}")
    a = alpha * n / ((alpha - 1) * theta)
    most_promotions = (u_l1 * math.log(alpha * theta) / math.log(alpha) + (1 - delta) * a) / contraction
    return most_promotions if promotions else a + (1 + alpha) * most_promotions


def elimination_bound(n_features: int, n_literals: int, monotone: bool = False) -> int:
    """n + 1 - k (n - k if monotone): the Elimination learner's mistake bound (chapter 2).

    The first mistake removes n of the 2n literals (one of each pair x_i, not x_i)
    and every later one removes at least one literal outside the k of the target.
    """
    n = check_int(n_features, "n_features", low=1)
    k = check_int(n_literals, "n_literals", low=0)
    if k > n:
        raise ValueError(f"n_literals must be at most n_features ({n}), got {k}")
    return n - k if monotone else n + 1 - k


# -- prediction with expert advice (chapter 5) ---------------------------------------------


def _check_experts(n_experts: Any, best_mistakes: Any) -> tuple[int, int]:
    return check_int(n_experts, "n_experts", low=1), check_int(best_mistakes, "best_mistakes", low=0)


def _check_eta_in(eta: Any, high: float) -> float:
    eta = check_real(eta, "eta", 0.0)
    if eta > high:
        raise ValueError(f"eta must be in (0, {high:g}] for this bound, got {eta}")
    return eta


def wma_bound(n_experts: int, best_mistakes: int, eta: float) -> float:
    """[ln N + m ln(1/(1-eta))] / ln(1/(1-eta/2)): Weighted Majority's exact bound (chapter 5).

    Valid for eta in (0, 1]. At eta = 1 it is lg N when the best expert makes no
    mistake (Weighted Majority is then Halving) and infinite otherwise.
    """
    n, m = _check_experts(n_experts, best_mistakes)
    eta = _check_eta_in(eta, 1.0)
    if eta == 1.0:
        return math.log2(n) if m == 0 else math.inf
    return (math.log(n) - m * math.log1p(-eta)) / -math.log1p(-eta / 2)


def wma_bound_standard(n_experts: int, best_mistakes: int, eta: float) -> float:
    """2(1 + eta) m + 2 ln N / eta: the textbook form of Weighted Majority's bound, for eta <= 1/2."""
    n, m = _check_experts(n_experts, best_mistakes)
    eta = _check_eta_in(eta, 0.5)
    return 2 * (1 + eta) * m + 2 * math.log(n) / eta


def rwma_bound(n_experts: int, best_mistakes: int, eta: float) -> float:
    """[ln N + m ln(1/(1-eta))] / eta: Randomized Weighted Majority's exact bound on E[M] (chapter 5)."""
    n, m = _check_experts(n_experts, best_mistakes)
    eta = _check_eta_in(eta, 1.0)
    if eta == 1.0:
        return math.log(n) if m == 0 else math.inf
    return (math.log(n) - m * math.log1p(-eta)) / eta


def rwma_bound_standard(n_experts: int, best_mistakes: int, eta: float) -> float:
    """(1 + eta) m + ln N / eta: the textbook form of RWMA's bound on E[M], for eta <= 1/2."""
    n, m = _check_experts(n_experts, best_mistakes)
    eta = _check_eta_in(eta, 0.5)
    return (1 + eta) * m + math.log(n) / eta


def tuned_eta(n_experts: int, horizon: int) -> float:
    """eta = sqrt(ln N / T), capped at 1/2: the rate that gives E[regret] <= 2 sqrt(T ln N)."""
    n = check_int(n_experts, "n_experts", low=1)
    horizon = check_int(horizon, "horizon", low=1)
    return min(0.5, math.sqrt(math.log(n) / horizon)) if n > 1 else 0.5


def rwma_tuned_regret_bound(n_experts: int, horizon: int) -> float:
    """2 sqrt(T ln N): RWMA's expected regret with eta = sqrt(ln N / T) when that is <= 1/2."""
    n = check_int(n_experts, "n_experts", low=1)
    horizon = check_int(horizon, "horizon", low=1)
    return 2 * math.sqrt(horizon * math.log(n))
