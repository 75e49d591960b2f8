"""The margin lower bound for every learner, and the Perceptron's hinge-loss bound (chapter 3).

``margin_adversary`` plays any learner with ``predict``/``update`` against the
adaptive adversary of the chapter's section "The bound is tight for every
learner": it shows R e_1, ..., R e_k with k = floor(R^2 / gamma^2) and answers
the opposite of each prediction. Every round is a mistake, and the labels it
chose are separated by the unit vector sum_t y_t e_t / sqrt(k) with margin
R / sqrt(k) >= gamma. ``exact_novikoff_bound`` evaluates ||u||^2 R^2 / xi^2 in
exact rational arithmetic, so a check ``U <= bound`` needs no floating-point
slack. ``hinge_losses`` and ``perceptron_hinge_bound`` serve the section "The
Perceptron without a separating vector".
"""
from __future__ import annotations

import math
from fractions import Fraction
from numbers import Rational, Real
from typing import Any, NamedTuple

import numpy as np

from .protocol import Learner, Trace, check_learner, check_prediction
from .validation import check_int, check_labels, check_real

__all__ = [
    "MarginAdversaryRun",
    "margin_adversary",
    "exact_novikoff_bound",
    "hinge_losses",
    "perceptron_hinge_bound",
]

MAX_ADVERSARY_ROUNDS = 10_000


def _exact_positive(value: Any, name: str) -> Fraction:
    """``value`` (int, float or Fraction) as an exact positive Fraction."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Real, np.integer, np.floating)):
        raise TypeError(f"{name} must be a real number > 0 (int, float or Fraction), got {value!r}")
    if isinstance(value, Rational):
        exact = Fraction(value)
    else:
        as_float = float(value)
        if not math.isfinite(as_float):
            raise ValueError(f"{name} must be a finite real number > 0, got {value!r}")
        exact = Fraction(as_float)
    if exact <= 0:
        raise ValueError(f"{name} must be a finite real number > 0, got {value!r}")
    return exact


class MarginAdversaryRun(NamedTuple):
    """The result of ``margin_adversary``.

    Attributes
    ----------
    X : ndarray, shape (k, n_features)
        The instances R e_1, ..., R e_k (R = float(radius)).
    y : ndarray of int8, shape (k,)
        The labels the adversary chose, y_t = -(the learner's prediction).
    w_star : ndarray, shape (n_features,)
        The unit separator sum_t y_t e_t / sqrt(k); its margin is R / sqrt(k) >= gamma.
    u : ndarray of int64, shape (n_features,)
        The integer separator sum_t y_t e_t (margin xi = R, ||u||^2 = k), for exact checks.
    trace : Trace
        Predictions and labels: every round is a mistake.
    """

    X: np.ndarray
    y: np.ndarray
    w_star: np.ndarray
    u: np.ndarray
    trace: Trace


def margin_adversary(learner: Learner, margin: Any, radius: Any = 1, n_features: int | None = None) -> MarginAdversaryRun:
    """Force floor(R^2 / gamma^2) mistakes on any deterministic learner (chapter 3, Theorem "margin lower bound").

    Shows x_t = R e_t for t = 1, ..., k with k = floor(R^2 / gamma^2), computed
    exactly, asks the learner for its prediction p_t and answers y_t = -p_t. The
    learner errs in every round; whatever it predicted, the unit vector
    w* = sum_t y_t e_t / sqrt(k) has y_t <w*, x_t> = R / sqrt(k) >= gamma and
    ||x_t|| = R. So margin-gamma halfspaces of radius R in n_features >= k
    dimensions have Littlestone dimension at least k (chapter 1). On the
    Perceptron every score is 0, it predicts +1, and the stream is the
    fixed-label sequence ``perceptron_lower_bound_stream``.

    Parameters
    ----------
    learner : object with ``predict(x)`` and ``update(x, y)``
        A fresh learner taking real vectors of length ``n_features``.
    margin : int, float or Fraction, 0 < margin <= radius
        gamma, taken as the exact rational value of the number given (a float
        0.1 is slightly above 1/10; pass ``Fraction(1, 10)`` for 1/10).
    radius : int, float or Fraction, > 0
        R. The instances hold ``float(radius)``, and k is computed from that
        float's exact value, so the margin guarantee holds exactly for the
        returned arrays.
    n_features : int, optional
        The learner's dimension d >= k (default k).

    Raises
    ------
    TypeError
        If ``learner`` lacks ``predict``/``update`` or a number has the wrong type.
    ValueError
        If margin > radius, n_features < k, or k > 10^4.
    """
    check_learner(learner)
    gamma = _exact_positive(margin, "margin")
    r_float = float(_exact_positive(radius, "radius"))
    if not math.isfinite(r_float) or r_float <= 0:
        raise ValueError(f"radius must be a real number > 0 representable as a float, got {radius!r}")
    r_exact = Fraction(r_float)
    if gamma > r_exact:
        raise ValueError(f"margin must be at most radius ({r_float}), got {margin!r}")
    k = math.floor(r_exact**2 / gamma**2)
    if k > MAX_ADVERSARY_ROUNDS:
        raise ValueError(f"margin {margin!r} needs k = {k} > {MAX_ADVERSARY_ROUNDS} rounds (a dense k x d stream); use a larger margin")
    d = k if n_features is None else check_int(n_features, "n_features", low=1)
    if d < k:
        raise ValueError(f"n_features must be at least floor(R^2/gamma^2) = {k}, got {d}")
    X = np.zeros((k, d))
    predictions = np.empty(k, dtype=np.int8)
    for t in range(k):
        X[t, t] = r_float
        x = X[t].copy()  # the learner may keep a reference to x
        p = check_prediction(learner.predict(x), learner, t + 1)
        predictions[t] = p
        learner.update(x, -p)
    labels = (-predictions).astype(np.int8)
    u = np.zeros(d, dtype=np.int64)
    u[:k] = labels
    w_star = u / math.sqrt(k)
    return MarginAdversaryRun(X, labels, w_star, u, Trace(predictions=predictions, labels=labels))


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
    for row, label in zip(X, y.tolist()):
        nz = np.flatnonzero(row)
        values = row.tolist()
        entries = [Fraction(values[i]) for i in nz.tolist()]
        radius2 = max(radius2, sum((e * e for e in entries), Fraction(0)))
        score = label * sum((e * u_exact[i] for e, i in zip(entries, nz.tolist())), Fraction(0))
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
