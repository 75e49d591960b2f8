"""Soft committee machines learned on-line: Saad and Solla's order-parameter ODEs (book chapter 8).

A student with ``K`` hidden units outputs ``sum_i g(x_i)``, ``x_i = J_i . xi``, and learns a teacher
``sum_n g(y_n)``, ``y_n = B_n . xi``, with ``g(x) = erf(x / sqrt(2))`` and inputs ``xi ~ N(0, I_N)``,
by on-line gradient descent ``J_i <- J_i + (eta/N) delta_i xi``, ``delta_i = g'(x_i) (teacher - student)``.
With ``Q = (J_i . J_k)``, ``R = (J_i . B_n)`` and ``T = (B_n . B_m)`` the large-N dynamics is

    dR_in/d alpha = eta <delta_i y_n>,
    dQ_ik/d alpha = eta <delta_i x_k + delta_k x_i> + eta^2 <delta_i delta_k>,

closed because every average is over the Gaussian fields ``(x, y)`` whose covariance is built from
``Q, R, T``; for the erf activation the averages are arcsin expressions (Saad & Solla 1995). The
module gives the three averages (``erf_i2``, ``erf_i3``, ``erf_i4``), the error ``committee_error``, the
ODE ``committee_rhs`` and ``integrate_committee`` (batched over several starts).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import integrate

from ..validation import Interval, check_scalar

__all__ = [
    "erf_i2",
    "erf_i3",
    "erf_i4",
    "committee_covariance",
    "committee_error",
    "committee_rhs",
    "integrate_committee",
]

_POSITIVE = Interval(float, 0, None, "neither")


def _check_cov(C: Any) -> np.ndarray:
    C = np.asarray(C, dtype=float)
    if C.ndim < 2 or C.shape[-1] != C.shape[-2] or not np.all(np.isfinite(C)):
        raise ValueError(f"C must be a finite (..., n, n) covariance array, got shape {np.shape(C)}")
    return C


def erf_i2(C: Any) -> np.ndarray:
    """``<g(z_a) g(z_b)>`` for all index pairs, ``g(x) = erf(x/sqrt2)`` (Chapter 8, committee theorem).

    ``(2/pi) arcsin(C_ab / sqrt((1 + C_aa)(1 + C_bb)))``: since ``g(x) = E_zeta sgn(x + zeta)`` for a
    standard normal ``zeta``, this is Sheppard's formula for two signs.

    Parameters
    ----------
    C : array_like, shape (..., n, n)
        Covariance of the Gaussian fields ``z``.
    """
    C = _check_cov(C)
    d = 1.0 + np.diagonal(C, axis1=-2, axis2=-1)
    return 2 / np.pi * np.arcsin(C / np.sqrt(d[..., :, None] * d[..., None, :]))


def erf_i3(C: Any) -> np.ndarray:
    """``<g'(z_a) z_b g(z_c)>`` for all index triples ``[..., a, b, c]`` (Saad & Solla 1995).

    ``(2/pi) (C_bc (1 + C_aa) - C_ab C_ac) / ((1 + C_aa) sqrt((1 + C_aa)(1 + C_cc) - C_ac^2))``.
    """
    C = _check_cov(C)
    d = 1.0 + np.diagonal(C, axis1=-2, axis2=-1)
    d_aa = d[..., :, None, None]
    dcc = d[..., None, None, :]
    cab = C[..., :, :, None]
    cac = C[..., :, None, :]
    cbc = C[..., None, :, :]
    lam3 = d_aa * dcc - cac**2
    return 2 / np.pi * (cbc * d_aa - cab * cac) / (d_aa * np.sqrt(lam3))


def erf_i4(C: Any) -> np.ndarray:
    """``<g'(z_a) g'(z_b) g(z_c) g(z_d)>`` for all index quadruples ``[..., a, b, c, d]`` (Saad & Solla 1995).

    ``(4/pi^2) arcsin(L0 / sqrt(L1 L2)) / sqrt(L4)`` with ``L4 = (1 + C_aa)(1 + C_bb) - C_ab^2`` and
    ``L0, L1, L2`` the polynomials in ``C`` of the reference (``L1`` for ``c``, ``L2`` for ``d``).
    """
    C = _check_cov(C)
    n = C.shape[-1]
    one = 1.0 + np.diagonal(C, axis1=-2, axis2=-1)
    s = (slice(None),) * (C.ndim - 2)
    a, b, c, d = (np.arange(n).reshape(shape) for shape in ((n, 1, 1, 1), (1, n, 1, 1), (1, 1, n, 1), (1, 1, 1, n)))

    def cv(i: np.ndarray, j: np.ndarray) -> np.ndarray:
        return C[s + (i, j)]

    d_aa, dbb, dcc, ddd = one[s + (a,)], one[s + (b,)], one[s + (c,)], one[s + (d,)]
    cab, cac, cad, cbc, cbd, ccd = cv(a, b), cv(a, c), cv(a, d), cv(b, c), cv(b, d), cv(c, d)
    lam4 = d_aa * dbb - cab**2
    lam0 = lam4 * ccd - cbc * cbd * d_aa - cac * cad * dbb + cab * cac * cbd + cab * cad * cbc
    lam1 = lam4 * dcc - cbc**2 * d_aa - cac**2 * dbb + 2 * cab * cac * cbc
    lam2 = lam4 * ddd - cbd**2 * d_aa - cad**2 * dbb + 2 * cab * cad * cbd
    return 4 / np.pi**2 / np.sqrt(lam4) * np.arcsin(np.clip(lam0 / np.sqrt(lam1 * lam2), -1.0, 1.0))


def committee_covariance(Q: Any, R: Any, T: Any) -> np.ndarray:
    """The covariance ``[[Q, R], [R^T, T]]`` of the fields ``(x_1..x_K, y_1..y_M)``, batched over leading axes."""
    Q, R, T = (np.asarray(v, dtype=float) for v in (Q, R, T))
    if (
        Q.shape[-1] != Q.shape[-2]
        or R.shape[-2] != Q.shape[-1]
        or T.shape[-1] != T.shape[-2]
        or (R.shape[-1] != T.shape[-1])
    ):
        raise ValueError(f"Q, R, T must have shapes (K, K), (K, M), (M, M), got {Q.shape}, {R.shape}, {T.shape}")
    shape = np.broadcast_shapes(Q.shape[:-2], R.shape[:-2], T.shape[:-2])
    K, M = R.shape[-2:]
    C = np.empty(shape + (K + M, K + M))
    C[..., :K, :K] = Q
    C[..., :K, K:] = R
    C[..., K:, :K] = np.swapaxes(R, -1, -2)
    C[..., K:, K:] = T
    return C


def _signs(K: int, M: int) -> np.ndarray:
    return np.concatenate([-np.ones(K), np.ones(M)])  # teacher minus student


def committee_error(Q: Any, R: Any, T: Any) -> Any:
    """Generalization error ``(1/2) <(student - teacher)^2>`` of a soft committee machine (Chapter 8).

    ``(1/pi) sum_ab w_a w_b arcsin(C_ab / sqrt((1 + C_aa)(1 + C_bb)))`` with ``w = (-1, .., -1, 1, .., 1)``.
    """
    C = committee_covariance(Q, R, T)
    K, M = np.shape(R)[-2:]
    w = _signs(K, M)
    out = 0.5 * np.einsum("a,b,...ab->...", w, w, erf_i2(C))
    return float(out) if np.ndim(out) == 0 else out


def committee_rhs(Q: Any, R: Any, T: Any, eta: float) -> tuple[np.ndarray, np.ndarray]:
    """``(dQ/d alpha, dR/d alpha)`` of Saad and Solla's ODEs for erf units (Chapter 8, committee theorem).

    Parameters
    ----------
    Q, R, T : array_like, shapes (..., K, K), (..., K, M), (..., M, M)
    eta : float
        Learning rate, > 0.
    """
    eta = float(check_scalar(eta, "eta", _POSITIVE))
    C = committee_covariance(Q, R, T)
    K, M = np.shape(R)[-2:]
    w = _signs(K, M)
    i3 = erf_i3(C)[..., :K, :, :]  # [i, b, c]: <g'(x_i) z_b g(z_c)>
    d_z = np.einsum("...ibc,c->...ib", i3, w)  # <delta_i z_b>
    i4 = erf_i4(C)[..., :K, :K, :, :]
    dd = np.einsum("...ikcd,c,d->...ik", i4, w, w)  # <delta_i delta_k>
    dxk = d_z[..., :K]
    dQ = eta * (dxk + np.swapaxes(dxk, -1, -2)) + eta**2 * dd
    dR = eta * d_z[..., K:]
    return dQ, dR


def integrate_committee(
    alphas: Any, Q0: Any, R0: Any, T: Any, eta: float, rtol: float = 1e-9
) -> tuple[np.ndarray, np.ndarray]:
    """Integrate the committee ODEs from ``alpha = 0``, batched over the leading axes of ``Q0``, ``R0``.

    Parameters
    ----------
    alphas : array_like of float
        Increasing recording times > 0.
    Q0, R0 : array_like, shapes (B, K, K) and (B, K, M) (or without the batch axis)
        Starts; every ``Q0`` must be positive definite.
    T : array_like, shape (M, M)
        Teacher overlaps.
    eta : float
        Learning rate, > 0.
    rtol : float, default 1e-9
        Relative tolerance of ``solve_ivp`` (DOP853).

    Returns
    -------
    Q, R : ndarray, shapes (B, len(alphas), K, K) and (B, len(alphas), K, M)
    """
    eta = float(check_scalar(eta, "eta", _POSITIVE))
    Q0, R0, T = (np.asarray(v, dtype=float) for v in (Q0, R0, T))
    single = Q0.ndim == 2
    if single:
        Q0, R0 = Q0[None], R0[None]
    committee_covariance(Q0, R0, T)  # shape check
    if np.any(np.linalg.eigvalsh(Q0) <= 0):
        raise ValueError("Q0 must be positive definite (student overlaps of independent vectors)")
    alphas = np.atleast_1d(np.asarray(alphas, dtype=float))
    if alphas.ndim != 1 or alphas.size == 0 or np.any(alphas <= 0) or np.any(np.diff(alphas) <= 0):
        raise ValueError(f"alphas must be a nonempty increasing 1-D array of times > 0, got {alphas!r}")
    B, K, M = R0.shape

    def f(_: float, y: np.ndarray) -> np.ndarray:
        Q = y[: B * K * K].reshape(B, K, K)
        R = y[B * K * K :].reshape(B, K, M)
        dQ, dR = committee_rhs(Q, R, T, eta)
        return np.concatenate([dQ.ravel(), dR.ravel()])

    y0 = np.concatenate([Q0.ravel(), R0.ravel()])
    sol = integrate.solve_ivp(f, (0.0, alphas[-1]), y0, method="DOP853", t_eval=alphas, rtol=rtol, atol=1e-12)
    if not sol.success:  # pragma: no cover - defensive
        raise RuntimeError(f"solve_ivp failed: {sol.message}")
    Q = sol.y[: B * K * K].T.reshape(len(alphas), B, K, K).swapaxes(0, 1)
    R = sol.y[B * K * K :].T.reshape(len(alphas), B, K, M).swapaxes(0, 1)
    return (Q[0], R[0]) if single else (Q, R)
