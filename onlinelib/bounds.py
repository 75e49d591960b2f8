"""Closed-form mistake bounds, one function per theorem.

Chapter 1: the trivial bounds on Opt(C), Halving's ``floor(lg |C|)``, Randomized
Halving's H_r - 1 (both in closed form and as the solution of the lecture's
recurrence), and the Littlestone dimension. Chapters 2-4: Novikoff's bound for
the Perceptron, Winnow1's, Littlestone's Winnow(alpha, theta) bound, the notes'
alpha = 2 bound (and an exact test of it), Winnow's bound for threshold targets with a margin, and the
Elimination bound; for the Perceptron also Novikoff's bound in exact rational arithmetic and the
hinge-loss bound without a separating vector (chapter 3). Chapter 5: the bounds of (Randomized)
Weighted Majority.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from .concepts import ConceptClass, check_concept_class
from .experts import check_eta
from .linear import winnow1_default_threshold
from .validation import Interval, check_int, check_labels, check_real, check_scalar
from .version_space import littlestone_dimension

__all__ = [
    "halving_bound",
    "harmonic_number",
    "randomized_halving_bound",
    "randomized_halving_recurrence",
    "littlestone_bound",
    "opt_upper_bounds",
    "perceptron_bound",
    "exact_novikoff_bound",
    "hinge_losses",
    "perceptron_hinge_bound",
    "winnow1_bound",
    "winnow2_bound",
    "notes_winnow_bound",
    "notes_winnow_bound_sign",
    "winnow2_margin_bound",
    "elimination_bound",
    "wma_bound",
    "wma_bound_standard",
    "rwma_bound",
    "rwma_bound_standard",
    "tuned_eta",
    "rwma_tuned_regret_bound",
]


#: Sizes and counts that must be at least 1.
SIZE = Interval(int, 1)
#: Why a class size must be at least 1, shown in the message.
CLASS_SIZE = "a class has at least one concept"


def halving_bound(n_concepts: int) -> int:
    """``floor(lg |C|)``: Halving's mistake bound (chapter 1, Theorem "Halving"). Exact integer arithmetic."""
    return check_scalar(n_concepts, "n_concepts", SIZE, why=CLASS_SIZE).bit_length() - 1


def harmonic_number(r: int) -> Fraction:
    """H_r = 1 + 1/2 + ... + 1/r, exactly."""
    r = check_scalar(r, "r", SIZE)
    return sum((Fraction(1, i) for i in range(1, r + 1)), Fraction(0))


def randomized_halving_bound(n_concepts: int) -> Fraction:
    """H_r - 1 for r = ``|C|``: Randomized Halving's expected-mistake bound, exactly.

    (Chapter 1, Theorem "Randomized Halving"; it is at most ln r, so the lecture's
    ``ln |C| + O(1)`` needs no O(1).)
    """
    return harmonic_number(check_scalar(n_concepts, "n_concepts", SIZE, why=CLASS_SIZE)) - 1


def randomized_halving_recurrence(r_max: int) -> list[Fraction]:
    """[M_1, ..., M_{r_max}] from the lecture's recurrence, solved step by step in fractions.

    M_1 = 0 and M_r = (r-1)/r + (M_1 + ... + M_{r-1})/r: the held concept is the
    last one to be eliminated with probability 1/r (no more mistakes), and is
    otherwise the i-th for i < r (one mistake, then r - i concepts remain). It
    does not use the closed form, so comparing it with ``randomized_halving_bound``
    checks the telescoping step of the proof.
    """
    r_max = check_scalar(r_max, "r_max", SIZE)
    values = [Fraction(0)]
    prefix = Fraction(0)
    for r in range(2, r_max + 1):
        prefix += values[-1]
        values.append(Fraction(r - 1, r) + prefix / r)
    return values


def littlestone_bound(concept_class: ConceptClass) -> int:
    """Ldim(C) = Opt(C): SOA's mistake bound and every deterministic learner's lower bound."""
    return littlestone_dimension(check_concept_class(concept_class))


def opt_upper_bounds(concept_class: ConceptClass) -> dict[str, int]:
    """The chain of upper bounds on Opt(C) from chapter 1, for one class.

    Returns ``{"|X|": ..., "|C| - 1": ..., "floor(lg |C|)": ..., "Ldim(C)": ...}``.
    Opt(C) equals the last; the first three are the "trivial" bounds.
    """
    cls = check_concept_class(concept_class)
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


def _check_linear_data(X: Any, y: Any, u: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    X = np.asarray(X)
    if X.dtype == object or not np.issubdtype(X.dtype, np.number):
        raise TypeError(f"X must be a numeric array of shape (T, d), got dtype {X.dtype}")
    if X.ndim != 2 or X.shape[0] == 0:
        raise ValueError(f"X must have shape (T, d) with T >= 1, got {X.shape}")
    y = check_labels(y)
    if len(y) != X.shape[0]:
        raise ValueError(f"y must have one label per row of X ({X.shape[0]}), got {len(y)}")
    u = np.asarray(u)
    if u.dtype == object or not np.issubdtype(u.dtype, np.number):
        raise TypeError(f"u must be a numeric vector of length {X.shape[1]}, got dtype {u.dtype}")
    if u.shape != (X.shape[1],):
        raise ValueError(f"u must have shape ({X.shape[1]},), got {u.shape}")
    if not (np.isfinite(X).all() and np.isfinite(u).all()):
        raise ValueError("X and u must be finite, got NaN or inf")
    return X, y, u


def exact_novikoff_bound(X: Any, y: Any, u: Any) -> Fraction:
    """||u||^2 R^2 / xi^2 in exact rational arithmetic (chapter 3, Corollary "unnormalised form").

    Every float is a rational number, so R^2 = max_t ||x_t||^2,
    xi = min_t y_t <u, x_t> and ||u||^2 are computed without rounding (sums over
    the nonzero entries only). A test ``U <= exact_novikoff_bound(X, y, u)``
    then needs no tolerance, even when the bound is an integer or just below one.

    Raises
    ------
    ValueError
        If the shapes disagree, a value is not finite, or u does not separate
        the stream (xi <= 0).
    """
    X, y, u = _check_linear_data(X, y, u)
    u_exact = [Fraction(v) for v in u.tolist()]  # Python ints or floats: exact
    radius2 = Fraction(0)
    xi: Fraction | None = None
    for row, label in zip(X, y.tolist(), strict=True):
        nz = np.flatnonzero(row)
        values = row.tolist()
        entries = [Fraction(values[i]) for i in nz.tolist()]
        radius2 = max(radius2, sum((e * e for e in entries), Fraction(0)))
        score = label * sum((e * u_exact[i] for e, i in zip(entries, nz.tolist(), strict=True)), Fraction(0))
        xi = score if xi is None or score < xi else xi
    if xi is None or xi <= 0:
        raise ValueError(f"u must separate the stream (min_t y_t <u, x_t> > 0), got {float(xi)!r}")
    return sum((v * v for v in u_exact), Fraction(0)) * radius2 / xi**2


def hinge_losses(X: Any, y: Any, u: Any) -> np.ndarray:
    """The hinge losses max(0, 1 - y_t <u, x_t>) of a comparison vector u, one per round (chapter 3, Theorem "hinge-loss bound").

    Raises
    ------
    TypeError, ValueError
        If X, y or u is not numeric, the shapes disagree or a value is not finite.
    """
    X, y, u = _check_linear_data(X, y, u)
    return np.maximum(0.0, 1.0 - y * (X.astype(np.float64) @ u.astype(np.float64)))


def perceptron_hinge_bound(radius: float, u_norm: float, hinge_loss: float) -> float:
    """The Perceptron's update bound against any u (chapter 3, Theorem "hinge-loss bound").

    With a = R ||u|| and L the total hinge loss of u over the update rounds (or,
    weaker, over all rounds), the number U of updates satisfies
    U - a sqrt(U) - L <= 0, so

        U <= ((a + sqrt(a^2 + 4 L)) / 2)^2,

    which is at most a^2 + L + a sqrt(L) and at most (a + sqrt(L))^2. With L = 0
    (u separates with margin 1) it is Novikoff's R^2 ||u||^2.

    Raises
    ------
    TypeError, ValueError
        If radius <= 0, u_norm < 0 or hinge_loss < 0, or one is not a finite real.
    """
    radius = check_real(radius, "radius", 0.0)
    u_norm = check_real(u_norm, "u_norm", 0.0, strict=False)
    hinge_loss = check_real(hinge_loss, "hinge_loss", 0.0, strict=False)
    a = radius * u_norm
    return ((a + math.sqrt(a * a + 4.0 * hinge_loss)) / 2.0) ** 2


def winnow1_bound(n_features: int, n_relevant: int, theta: float | None = None) -> float:
    """n/theta + 2k(lg theta + 1): Winnow1's mistake bound (chapter 2; Rivest's lecture, Lemmas 1-3).

    Default theta = n/2, where it equals 2 + 2k lg n.
    """
    n = check_int(n_features, "n_features", low=1)
    k = check_int(n_relevant, "n_relevant", low=0)
    theta = winnow1_default_threshold(n) if theta is None else check_real(theta, "theta", 0.0)
    return n / theta + 2 * k * (np.log2(theta) + 1)


def winnow2_bound(n_features: int, n_relevant: int, alpha: float, theta: float) -> float:
    """Littlestone's bound for Winnow(alpha, theta) on a k-literal monotone disjunction (chapter 4).

    (alpha / (alpha - 1)) * N / theta + k (alpha + 1)(1 + log_alpha theta), valid for
    every alpha > 1 and theta >= 1 / alpha (Khardon, Roth and Servedio, Theorem 2,
    state theta >= 1). For 1/alpha <= theta < 1 it still holds: a relevant weight
    starts at 1 > theta and is never demoted, so it is never promoted (m+ = 0),
    while 1 + log_alpha theta >= 0 keeps the promotion term non-negative. Below
    1/alpha that term is negative and the formula is no bound.
    """
    n = check_int(n_features, "n_features", low=1)
    k = check_int(n_relevant, "n_relevant", low=0)
    alpha = check_real(alpha, "alpha", 1.0)
    theta = check_real(theta, "theta", 0.0)
    if alpha * theta < 1:
        raise ValueError(
            f"theta must be at least 1 / alpha = {1 / alpha:.6g} for the bound (1 + log_alpha theta >= 0), got {theta}"
        )
    return alpha / (alpha - 1) * n / theta + k * (alpha + 1) * (1 + np.log(theta) / np.log(alpha))


def notes_winnow_bound(n_features: int, n_relevant: int) -> float:
    """2 + 3k(log2 N + 1): the Kitani notes' Winnow bound, proved for alpha = 2 only.

    Their Eq. 42 is strict, M < 2 + 3k(log2 N + 1); a stream with M mistakes
    contradicts it as soon as M >, or M =, this value (``notes_winnow_bound_sign``
    decides which, exactly). Chapter 4 shows by adversary searches that it fails for
    alpha < 2 with theta = N.
    """
    n = check_int(n_features, "n_features", low=1)
    k = check_int(n_relevant, "n_relevant", low=0)
    return 2 + 3 * k * (np.log2(n) + 1)


def notes_winnow_bound_sign(mistakes: int, n_features: int, n_relevant: int) -> int:
    """The sign of M - (2 + 3k(log2 N + 1)), decided exactly (chapter 4, the notes' Eq. 42).

    -1 if M is below the notes' bound, 0 if it equals it, +1 if it exceeds it. With
    d = M - 2 - 3k this is -1 when d < 0, and otherwise the sign of 2^d - N^(3k),
    compared as Python integers, so a bound that is a whole number (N a power of 2)
    is met or missed without rounding. The notes' bound is strict, so a sign of 0 or
    +1 contradicts it.
    """
    m = check_int(mistakes, "mistakes", low=0)
    n = check_int(n_features, "n_features", low=1)
    k = check_int(n_relevant, "n_relevant", low=0)
    d = m - 2 - 3 * k
    if d < 0:
        return -1
    difference = 2**d - n ** (3 * k)
    return (difference > 0) - (difference < 0)


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
        raise ValueError(
            f"alpha must be below 1 / (1 - delta) = {1 / (1 - delta):.6g} for delta = {delta!r}, got {alpha!r}"
        )
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


def wma_bound(n_experts: int, best_mistakes: int, eta: float) -> float:
    """[ln N + m ln(1/(1-eta))] / ln(1/(1-eta/2)): Weighted Majority's exact bound (chapter 5).

    Valid for eta in (0, 1]. At eta = 1 it is lg N when the best expert makes no
    mistake (Weighted Majority is then Halving) and infinite otherwise.
    """
    n, m = _check_experts(n_experts, best_mistakes)
    eta = check_eta(eta, why="for this bound")
    if eta == 1.0:
        return math.log2(n) if m == 0 else math.inf
    return (math.log(n) - m * math.log1p(-eta)) / -math.log1p(-eta / 2)


def wma_bound_standard(n_experts: int, best_mistakes: int, eta: float) -> float:
    """2(1 + eta) m + 2 ln N / eta: the textbook form of Weighted Majority's bound, for eta <= 1/2."""
    n, m = _check_experts(n_experts, best_mistakes)
    eta = check_eta(eta, high=0.5, why="for this bound")
    return 2 * (1 + eta) * m + 2 * math.log(n) / eta


def rwma_bound(n_experts: int, best_mistakes: int, eta: float) -> float:
    """[ln N + m ln(1/(1-eta))] / eta: Randomized Weighted Majority's exact bound on E[M] (chapter 5)."""
    n, m = _check_experts(n_experts, best_mistakes)
    eta = check_eta(eta, why="for this bound")
    if eta == 1.0:
        return math.log(n) if m == 0 else math.inf
    return (math.log(n) - m * math.log1p(-eta)) / eta


def rwma_bound_standard(n_experts: int, best_mistakes: int, eta: float) -> float:
    """(1 + eta) m + ln N / eta: the textbook form of RWMA's bound on E[M], for eta <= 1/2."""
    n, m = _check_experts(n_experts, best_mistakes)
    eta = check_eta(eta, high=0.5, why="for this bound")
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
