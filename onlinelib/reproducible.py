"""Float arithmetic that rounds the same on every CPU, for data that is recorded or compared exactly.

numpy chooses its SIMD kernels when it starts (``np.show_runtime()`` lists them: X86_V3, X86_V4,
AVX512_ICL, ...) and OpenBLAS chooses its own per processor. Reductions (``sum``, ``np.linalg.norm``)
and BLAS products (``@``, ``np.dot``, ``einsum``) add in an order that depends on that choice, and
transcendental ufuncs (``np.exp``, ``**`` on arrays) may use other approximations: the last bit of
the result can differ from one machine to the next. Elementwise ``+ - * /`` and ``np.sqrt`` are
correctly rounded by IEEE 754 whatever the kernel, so a sum taken one column at a time, in a
fixed order, gives the same bits everywhere.

The seeded streams that the chapters glue and the assignments record (chapter 3's
``separable_stream``, Assignment 6's public checks) are built with these functions, so the same
seed gives the same numbers on every machine (``tests/test_reproducible.py`` checks this with
numpy's CPU dispatch and OpenBLAS's kernel restricted).
"""

from __future__ import annotations

import numpy as np

__all__ = ["fixed_order_dot", "fixed_order_squared_norms", "UNIT_ROUNDOFF"]

UNIT_ROUNDOFF = 2.0**-53  # u: |fl(a op b) - a op b| <= u |a op b| for + - * / and sqrt


def _rows(A: np.ndarray) -> np.ndarray:
    A = np.asarray(A, dtype=np.float64)
    if A.ndim not in (1, 2) or A.shape[-1] == 0:
        raise ValueError(f"A must be a non-empty vector or a matrix with at least one column, got shape {A.shape}")
    return A


def _column_by_column(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """sum_j A[:, j] * B[:, j], added left to right (B may have one row, broadcast to all of A's)."""
    total = A[:, 0] * B[:, 0]
    for j in range(1, A.shape[1]):
        total += A[:, j] * B[:, j]
    return total


def fixed_order_dot(A, v) -> np.ndarray | float:
    """``A @ v`` with the products added column by column, left to right, the same bits on every CPU.

    Parameters
    ----------
    A : array_like, shape (m, d) or (d,)
    v : array_like, shape (d,)

    Returns
    -------
    ndarray of float64, shape (m,), or a float when A is a vector. The rounding error of each entry is
    at most ``d * UNIT_ROUNDOFF * sum_j |A_ij v_j|`` (to first order), as for any recursive sum.
    """
    A = _rows(A)
    v = np.asarray(v, dtype=np.float64)
    if v.shape != (A.shape[-1],):
        raise ValueError(f"v must have shape ({A.shape[-1]},) to match A, got {v.shape}")
    total = _column_by_column(np.atleast_2d(A), v[None, :])
    return float(total[0]) if A.ndim == 1 else total


def fixed_order_squared_norms(A) -> np.ndarray | float:
    """Squared Euclidean norms of the rows of ``A`` (of ``A`` itself for a vector), in a fixed order.

    The same bits on every CPU, unlike ``np.linalg.norm`` and ``(A * A).sum(axis=1)``; take
    ``np.sqrt`` of the result (correctly rounded) for the norms.
    """
    A = _rows(A)
    total = _column_by_column(np.atleast_2d(A), np.atleast_2d(A))
    return float(total[0]) if A.ndim == 1 else total
