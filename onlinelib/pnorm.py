"""The p-norm algorithms of Grove, Littlestone and Schuurmans (chapter 4, "Additive against
multiplicative updates").

The algorithm keeps the sum ``theta`` of the examples y x on which it updated, and predicts
with the weights ``w = grad(1/2 ||theta||_p^2)``. With p = 2 it is the Perceptron; with
p near 2 ln N its weights depend on ``theta`` almost exponentially, as Winnow's do.
Its mistake bound (the theorem of that section) is

    M <= (p - 1) * max_t ||x_t||_p^2 * ||u||_q^2 / gamma^2,   1/p + 1/q = 1,

for any u with y_t u.x_t >= gamma > 0 on every round.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .validation import check_int, check_label, check_real, issparse

__all__ = ["PNormPerceptron", "pnorm_link", "pnorm_bound", "dual_exponent"]


def dual_exponent(p: float) -> float:
    """q with 1/p + 1/q = 1 (chapter 4, the p-norm theorem). ``p`` must be >= 2."""
    p = check_real(p, "p", 2, strict=False)
    return p / (p - 1)


def pnorm_link(theta: Any, p: float) -> np.ndarray:
    """The weights ``w = grad(1/2 ||theta||_p^2)`` of the p-norm algorithm (chapter 4).

    ``w_i = sign(theta_i) |theta_i|^(p-1) / ||theta||_p^(p-2)``, and ``w = 0`` at ``theta = 0``.
    Computed after scaling by ``max |theta_i|`` so that large p (about 2 ln N) does not
    overflow. For p = 2 it is the identity (the Perceptron).

    Raises
    ------
    ValueError
        If ``p < 2`` or ``theta`` is not a finite 1-d array.
    """
    p = check_real(p, "p", 2, strict=False)
    theta = np.asarray(theta, dtype=float)
    if theta.ndim != 1 or not np.isfinite(theta).all():
        raise ValueError(f"theta must be a finite 1-d array, got shape {theta.shape}")
    scale = np.abs(theta).max(initial=0.0)
    if scale == 0:
        return np.zeros_like(theta)
    t = theta / scale
    a = np.abs(t) ** (p - 1)
    norm = float((np.abs(t) ** p).sum()) ** (1 / p)
    return scale * np.sign(t) * a / norm ** (p - 2)


def pnorm_bound(p: float, radius_p: float, u_norm_q: float, gamma: float) -> float:
    """(p - 1) R_p^2 ||u||_q^2 / gamma^2: the p-norm algorithm's mistake bound (chapter 4).

    Grove, Littlestone and Schuurmans (2001), Theorem 1 in the book's section
    "Additive against multiplicative updates". ``radius_p`` is max_t ||x_t||_p,
    ``u_norm_q`` is ||u||_q with 1/p + 1/q = 1, and ``gamma`` is min_t y_t u.x_t > 0.
    For p = 2 it is Novikoff's bound.
    """
    p = check_real(p, "p", 2, strict=False)
    r = check_real(radius_p, "radius_p", 0)
    u = check_real(u_norm_q, "u_norm_q", 0)
    g = check_real(gamma, "gamma", 0)
    return (p - 1) * r**2 * u**2 / g**2


class PNormPerceptron:
    """The p-norm algorithm of Grove, Littlestone and Schuurmans (chapter 4).

    Keeps ``theta`` (starting at 0) and the weights ``w = pnorm_link(theta, p)``.
    Predicts +1 iff ``w.x >= 0`` and, like the book's Perceptron, updates
    ``theta <- theta + y x`` whenever ``y w.x <= 0``; ``n_updates`` counts these
    updates, which the theorem bounds. With ``bias=True`` a constant feature 1 is
    appended to every instance (its weight is the last entry).

    Ties. The sign of w.x is the sign of sum_i sign(theta_i) abs(theta_i)^(p-1) x_i
    (the norm factor is positive). When p is a whole number and theta and x hold
    whole numbers, that sum is computed in exact integer arithmetic, so a score of
    exactly 0 (predict +1, and update whatever the label) is decided as the rule
    says: the floating-point w.x can come out a rounding error either side of 0
    (theta = (1, -3), p = 3, x = (9, 1) gives -4.4e-16). Otherwise the decision
    uses the floating-point score, and an exact tie may be decided by rounding.

    Parameters
    ----------
    n_features : int
        N >= 1.
    p : float
        p >= 2; p = 2 is the Perceptron, p = 2 ln N the Winnow-like end.
    bias : bool
    """

    def __init__(self, n_features: int, p: float, bias: bool = False):
        self.n_features = check_int(n_features, "n_features", 1)
        self.p = check_real(p, "p", 2, strict=False)
        self.use_bias = bool(bias)
        self.theta = np.zeros(self.n_features + self.use_bias)
        self.weights = np.zeros_like(self.theta)
        self.n_updates = 0

    def _row(self, x: Any) -> np.ndarray:
        if issparse(x):
            x = x.toarray()
        x = np.asarray(x, dtype=float).ravel()
        if x.shape != (self.n_features,):
            raise ValueError(f"x must have {self.n_features} entries, got shape {x.shape}")
        if not np.isfinite(x).all():
            raise ValueError("x must be finite (no NaN or inf)")
        return np.append(x, 1.0) if self.use_bias else x

    def score(self, x: Any) -> float:
        """w.x (with the constant feature when ``bias=True``), in floating point."""
        return float(self.weights @ self._row(x))

    def _decision(self, z: np.ndarray) -> float:
        """A number with the sign of w.z: exact (an int) when p, theta and z are whole, else w.z in floats."""
        if float(self.p).is_integer() and np.all(z == np.round(z)) and np.all(self.theta == np.round(self.theta)):
            power = int(self.p) - 1
            largest = int(np.abs(self.theta).max(initial=0)) ** power * int(np.abs(z).sum())
            if largest < 2**62:  # every partial sum fits in int64: exact and fast
                t = self.theta.astype(np.int64)
                return int((np.sign(t) * np.abs(t) ** power) @ z.astype(np.int64))
            active = np.flatnonzero(z)
            pairs = zip(self.theta[active].tolist(), z[active].tolist(), strict=True)
            return sum((1 if t > 0 else -1) * abs(int(t)) ** power * int(v) for t, v in pairs if t != 0)
        return float(self.weights @ z)

    def predict(self, x: Any) -> int:
        return 1 if self._decision(self._row(x)) >= 0 else -1

    def update(self, x: Any, y: Any) -> None:
        y = check_label(y)
        z = self._row(x)
        if int(y) * self._decision(z) <= 0:
            self.theta += int(y) * z
            self.weights = pnorm_link(self.theta, self.p)
            self.n_updates += 1
