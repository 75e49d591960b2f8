"""Lemma "the float vote" of chapter 5: when the float sign of Weighted Majority's vote is the exact one.

Weighted Majority predicts the sign of S = sum_i p_i (1 - eta)^{c_i}. The library computes S in
floats from weights formed without ``exp`` (``_integer_powers``: a 120-bit integer chain; the
compiled engine in ``_kernels_experts``: a double-double chain from ``_rate_pair``), zeroes every
weight below 2^-960 so that none is subnormal, trusts the float sign only outside the band
``_tie_tolerance(N)`` times the total weight, and decides a vote inside it exactly in integers
(``_exact_vote_sign``, with 1 - eta = a / 2^q from ``_exact_rate``). ``vote_error_bound`` is the
lemma's margin; the chapter and the tests check that it lies inside the band for N up to 10^9.
``onlinelib.experts`` re-exports every name (the assignments' graders name them there).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .reproducible import UNIT_ROUNDOFF  # u = 2^-53: round to nearest in IEEE double, normal results
from .validation import check_int

__all__ = ["vote_error_bound"]


# The float vote is trusted only when abs(S_float) > _tie_tolerance(N) * Phi_float; otherwise it is
# decided exactly (``_exact_vote_sign``). This is Lemma "the float vote" of chapter 5
# (``vote_error_bound``): with weights that are within a relative eps of (1 - eta)^(c_i - r) or set
# to 0 when below tau, and Phi_float >= phi_min, the float sign is the exact sign as soon as
# abs(S_float) > delta(N, eps) Phi_float + (1 + eps) N tau. Both users of this tolerance meet the
# hypotheses by construction, with no exp and no subnormal weight: ``WeightedMajority.predict`` uses
# the 120-bit integer chain of ``_integer_powers`` (eps <= 2^-53 + k 2^-118 after k steps, tau =
# 2^-959, phi_min = 1), the engine the double-double chain of ``_kernels_experts`` (eps <= 2^-53 +
# 6.02 k 2^-106, tau = 2^-959, phi_min = 2^-300); tau is 2^-959, not 2^-960, because a weight is
# zeroed when its *computed* value is below 2^-960, and the exact one is then below (1 + eps) 2^-960. The assertion
# ``vote_error_bound(N, eps, tau, phi_min) < _tie_tolerance(N)`` is tested for N up to 10^9.
def _tie_tolerance(n_experts: int) -> float:
    return 2e-9 + 4 * n_experts * 2.0**-53


ZEROED_BELOW = 2.0**-960  # the weight below which the vote's weights are set to 0 (``_kernels_experts.TINY``)


def vote_error_bound(n_experts: int, eps: float, tau: float, phi_min: float) -> float:
    """The margin of Lemma "the float vote" (chapter 5), relative to the computed total weight.

    Hypotheses: S = sum_i p_i w_i with p_i = ±1 and w_i >= 0 exact; each computed weight is
    either w_hat_i with abs(w_hat_i - w_i) <= eps w_i, or 0 with w_i <= tau; S_hat and
    Phi_hat are the float sums of p_i w_hat_i and w_hat_i (N terms, any order, round to
    nearest, gradual underflow), and Phi_hat >= phi_min. Then abs(S_hat - S) <= bound *
    Phi_hat with bound = delta + (1 + eps) N tau / phi_min, delta = (gamma + eps / (1 - eps))
    / (1 - gamma), gamma = (N - 1) u / (1 - (N - 1) u); so abs(S_hat) > bound * Phi_hat
    implies sign(S_hat) = sign(S) != 0. Returns that bound (a float slightly above it: times 1 + 16 u).

    Raises
    ------
    ValueError
        If N < 1, eps or tau < 0, phi_min <= 0, or (N - 1) u or eps >= 1/2.
    """
    n = check_int(n_experts, "n_experts", low=1)
    if not (0 <= eps < 0.5):
        raise ValueError(f"eps must be in [0, 1/2) (a relative error of the weights), got {eps!r}")
    if not (tau >= 0 and phi_min > 0):
        raise ValueError(f"tau must be >= 0 and phi_min > 0, got tau = {tau!r}, phi_min = {phi_min!r}")
    k = (n - 1) * UNIT_ROUNDOFF
    if k >= 0.5:
        raise ValueError(f"n_experts must have (N - 1) 2^-53 < 1/2, got {n}")
    gamma = k / (1 - k)
    delta = (gamma + eps / (1 - eps)) / (1 - gamma)
    # the float evaluation above rounds about 8 times, each by a factor within 1 +- u: 16 u covers them
    return (delta + (1 + eps) * n * tau / phi_min) * (1 + 16 * UNIT_ROUNDOFF)


def _exact_rate(eta: float) -> tuple[int, int]:
    """(a, q) with 1 - eta = a / 2^q exactly: a float is a binary fraction n / 2^q."""
    num, den = float(eta).as_integer_ratio()
    q = den.bit_length() - 1
    if den != 1 << q:  # cannot happen for a float; guards a change of check_eta
        raise ValueError(f"eta must be a binary fraction (a float), got {eta!r}")
    return den - num, q


def _exact_vote_sign(counts: np.ndarray, advice: np.ndarray, rate: tuple[int, int]) -> int:
    """The sign (-1, 0 or +1) of sum_i p_i (1 - eta)^{c_i}, in exact integer arithmetic.

    With 1 - eta = a / 2^q, e_i = c_i - min c and E = max e_i, the vote times the
    positive number 2^{qE} / (1 - eta)^{min c} is sum_e n_e a^e 2^{q(E - e)}, where n_e
    sums the advice of the experts with e_i = e. When every n_e is 0 the vote is
    an exact tie without any big integer (equal weights cancel in pairs).
    """
    a, q = rate
    excess = counts - counts.min()
    net: dict[int, int] = {}
    for e, p in zip(excess.tolist(), advice.tolist(), strict=True):
        net[e] = net.get(e, 0) + p
    net = {e: n for e, n in net.items() if n}
    if not net:
        return 0
    top = max(net)
    total = sum(n * (pow(a, e) << (q * (top - e))) for e, n in net.items())
    return (total > 0) - (total < 0)


POWER_BITS = 120  # the mantissa length of ``_integer_powers``' chain


def _integer_powers(rate: tuple[int, int], n: int) -> np.ndarray:
    """(1 - eta)^k for k = 0..n-1 as floats, from a chain of 120-bit integer mantissas (chapter 5).

    With 1 - eta = a / 2^q, the power is kept as m 2^e with m of at most ``POWER_BITS`` bits:
    each step multiplies m by a exactly and drops the bits beyond 120 (a relative error below
    2^-119), so after k steps m 2^e is within k 2^-119 of the exact power (relatively), and the
    float, rounded once (``float(m)`` is correctly rounded, ``ldexp`` exact for a normal result), is
    within 2^-53 + k 2^-118 of it. From the first power below 2^-960 on, the entries are 0.
    """
    a, q = rate
    out = np.zeros(n)
    m, e = 1, 0
    for k in range(n):
        value = math.ldexp(float(m), e)
        if value < ZEROED_BELOW:
            break
        out[k] = value
        m *= a
        e -= q
        extra = m.bit_length() - POWER_BITS
        if extra > 0:
            m >>= extra
            e += extra
    return out


def _rate_pair(eta: float) -> tuple[float, float]:
    """1 - eta as a double-double (bh, bl): bh the nearest float, bl the (rounded) rest."""
    bh = 1.0 - eta  # correctly rounded
    return bh, float(1 - Fraction(eta) - Fraction(bh))
