"""Kernels as inner products: exact positive semidefiniteness, the representer theorem, online to batch.

Chapter 6 ("Boolean kernels"), the sections on positive semidefinite kernels and
the RKHS, on conjunctions of at most k literals, and on online to batch.

* ``psd_rank`` decides in exact rational arithmetic whether a symmetric matrix
  is positive semidefinite (symmetric Gaussian elimination: every pivot of a
  PSD matrix is >= 0, and a zero pivot forces a zero row), and returns its rank.
* ``solve_exact`` and ``kernel_ridge_exact`` solve linear systems in Fractions:
  the coefficients a = (G + lam I)^{-1} y of the representer theorem for
  kernel ridge regression.
* ``kdnf_mistake_bound`` is (4s + 1) sum_{l <= k} C(n, l), Novikoff's bound for
  the kernel Perceptron with the kernel of conjunctions of at most k literals on
  an s-term k-DNF target.
* ``online_to_batch_errors`` measures, exactly over a finite distribution, the
  error of every hypothesis the kernel Perceptron held during a run, the error of
  the randomised (Gibbs) hypothesis and that of the voted hypothesis.
* ``online_to_batch_high_probability`` is M/T + sqrt(ln(1/delta)/(2T)), the
  Azuma-Hoeffding form of the conversion (Cesa-Bianchi, Conconi and Gentile 2004).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from .kernels import BooleanKernel
from .validation import check_boolean_rows, check_int, check_labels

__all__ = [
    "kdnf_mistake_bound",
    "kernel_ridge_exact",
    "online_to_batch_errors",
    "online_to_batch_high_probability",
    "psd_rank",
    "solve_exact",
]


def _exact(value: Any) -> Fraction:
    """A Fraction with Python-int parts (numpy integers would overflow inside Fraction arithmetic)."""
    if isinstance(value, np.integer):
        return Fraction(int(value))
    if isinstance(value, (float, np.floating)):
        raise TypeError(f"entries must be integers or Fractions (exact arithmetic), got the float {value!r}")
    return Fraction(value)


def _rational_matrix(matrix: Any, name: str) -> list[list[Fraction]]:
    if isinstance(matrix, np.ndarray) and matrix.dtype.kind == "f":
        raise TypeError(f"{name} must hold integers or Fractions (exact arithmetic), got dtype {matrix.dtype}")
    try:
        rows = [[_exact(v) for v in row] for row in matrix]
    except (TypeError, ValueError):
        raise TypeError(
            f"{name} must be a square matrix of integers or Fractions, got {type(matrix).__name__}"
        ) from None
    m = len(rows)
    if m == 0 or any(len(row) != m for row in rows):
        raise ValueError(
            f"{name} must be a non-empty square matrix, got row lengths {[len(r) for r in rows]} for {m} rows"
        )
    return rows


def psd_rank(gram: Any) -> tuple[bool, int]:
    """Whether a symmetric rational matrix is positive semidefinite, and its rank, exactly.

    Chapter 6, the theorem on positive semidefinite kernels. Symmetric Gaussian
    elimination in Fractions: a PSD matrix has a non-negative diagonal, a zero
    diagonal entry forces a zero row and column, and the Schur complement of a
    positive pivot is again PSD; conversely a run that meets only non-negative
    pivots writes the matrix as L D L^T with D >= 0.

    Parameters
    ----------
    gram : array_like of int or Fraction, shape (m, m)
        A symmetric matrix (an integer Gram matrix, for instance).

    Returns
    -------
    (bool, int)
        ``(True, rank)`` if the matrix is PSD; ``(False, r)`` otherwise, where r
        is the number of positive pivots found before the failure.
    """
    A = _rational_matrix(gram, "gram")
    m = len(A)
    if any(A[i][j] != A[j][i] for i in range(m) for j in range(i)):
        raise ValueError("gram must be symmetric, got an asymmetric matrix")
    rank = 0
    active = list(range(m))
    while active:
        if any(A[i][i] < 0 for i in active):
            return False, rank
        pivot = next((i for i in active if A[i][i] > 0), None)
        if pivot is None:  # zero diagonal: PSD only if the block is zero
            return all(A[i][j] == 0 for i in active for j in active), rank
        active.remove(pivot)
        p, row = A[pivot][pivot], A[pivot]
        for i in active:
            if row[i]:
                f = row[i] / p
                Ai = A[i]
                for j in active:
                    Ai[j] -= f * row[j]
        rank += 1
    return True, rank


def solve_exact(A: Any, b: Any) -> list[Fraction]:
    """The solution x of A x = b in Fractions, for an invertible rational matrix A (chapter 6).

    Raises
    ------
    ValueError
        If A is singular or b does not have one entry per row of A.
    """
    M = _rational_matrix(A, "A")
    m = len(M)
    rhs = [_exact(v) for v in b]
    if len(rhs) != m:
        raise ValueError(f"b must have {m} entries, one per row of A, got {len(rhs)}")
    rows = [row + [v] for row, v in zip(M, rhs, strict=True)]
    for c in range(m):
        p = next((r for r in range(c, m) if rows[r][c] != 0), None)
        if p is None:
            raise ValueError(f"A must be invertible, got a singular matrix (no pivot in column {c})")
        rows[c], rows[p] = rows[p], rows[c]
        for r in range(m):
            if r != c and rows[r][c]:
                f = rows[r][c] / rows[c][c]
                rows[r] = [u - f * v for u, v in zip(rows[r], rows[c], strict=True)]
    return [rows[i][m] / rows[i][i] for i in range(m)]


def kernel_ridge_exact(gram: Any, y: Any, lam: Any) -> list[Fraction]:
    """Coefficients a = (G + lam I)^{-1} y of the kernel ridge minimiser f = sum_i a_i K(., x_i).

    Chapter 6, the representer theorem: the minimiser over the RKHS of
    sum_i (f(x_i) - y_i)^2 + lam ||f||^2 lies in the span of the K(., x_i), and
    there its coefficients solve (G + lam I) a = y. Exact in Fractions.

    Parameters
    ----------
    gram : array_like of int or Fraction, shape (m, m)
        The Gram matrix K(x_i, x_j).
    y : array_like of int or Fraction, shape (m,)
        The targets.
    lam : int or Fraction
        The regularisation weight, > 0.
    """
    lam = Fraction(lam)
    if lam <= 0:
        raise ValueError(f"lam must be > 0, got {lam}")
    G = _rational_matrix(gram, "gram")
    shifted = [[v + (lam if i == j else 0) for j, v in enumerate(row)] for i, row in enumerate(G)]
    return solve_exact(shifted, y)


def kdnf_mistake_bound(n: int, k: int, s: int) -> int:
    """(4s + 1) sum_{l <= k} C(n, l): the kernel Perceptron's mistake bound on an s-term k-DNF.

    Chapter 6, the theorem on conjunctions of at most k literals: u = sum of the
    s term features minus half the empty conjunction separates with margin 1/2,
    ||u||^2 = s + 1/4, and every instance satisfies R^2 = sum_{l <= k} C(n, l)
    features, so Novikoff's bound ||u||^2 R^2 / (1/2)^2 is this integer.
    """
    n = check_int(n, "n", low=1)
    k = check_int(k, "k", low=0)
    s = check_int(s, "s", low=1)
    return (4 * s + 1) * sum(math.comb(n, l) for l in range(min(k, n) + 1))


def online_to_batch_high_probability(mistakes: int, T: int, delta: float) -> float:
    """M/T + sqrt(ln(1/delta) / (2T)): the Azuma-Hoeffding online-to-batch bound (chapter 6).

    With probability at least 1 - delta, the average true error of the
    hypotheses h_0, ..., h_{T-1} of any deterministic online learner run on T
    i.i.d. examples is at most this, where M is the number of mistakes it made.
    """
    mistakes = check_int(mistakes, "mistakes", low=0)
    T = check_int(T, "T", low=1)
    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    return mistakes / T + math.sqrt(math.log(1 / delta) / (2 * T))


def online_to_batch_errors(
    kernel: BooleanKernel, support: Any, support_labels: Any, mistakes: Any, points: Any, labels: Any
) -> dict[str, Any]:
    """Exact errors of the hypotheses a mistake-driven kernel Perceptron held during a run (chapter 6).

    The learner (``convention="nonnegative"``: predict +1 iff the score is >= 0,
    update on mistakes) holds h_j = sign(sum_{i < j} S_i K(., z_i)) after its
    first j updates. The distribution is uniform over the rows of ``points``
    (repeat a row to weigh it more), labelled by ``labels``.

    Parameters
    ----------
    kernel : BooleanKernel
        The learner's kernel.
    support : array_like of {0, 1}, shape (M, n)
        The learner's ``support_vectors``, in the order they were added.
    support_labels : array_like of {-1, +1}, shape (M,)
        The learner's ``support_labels``.
    mistakes : ndarray of bool, shape (T,)
        The run's trace of mistakes; round t used h_j, with j the mistakes before t.
    points : array_like of {0, 1}, shape (P, n)
        The support of the distribution, uniform over the rows.
    labels : array_like of {-1, +1}, shape (P,)
        The label of each point.

    Returns
    -------
    dict
        ``errors`` (int array, h_j's wrong points, j = 0..M), ``rounds`` (how many
        rounds used h_j), ``gibbs`` (Fraction: the average over rounds of h's
        error, the error of h_tau for tau uniform), ``vote`` (Fraction: the error
        of sign(sum_t h_t), +1 on a tie), ``n_points``.
    """
    if not isinstance(kernel, BooleanKernel):
        raise TypeError(f"kernel must be a BooleanKernel, got {type(kernel).__name__}")
    P = check_boolean_rows(points, "points")
    y = check_labels(labels, "labels").astype(np.int64)
    if y.shape != (len(P),):
        raise ValueError(f"labels must have shape ({len(P)},), one per point, got {y.shape}")
    S = np.asarray(check_labels(support_labels, "support_labels"), dtype=np.int64).reshape(-1)
    wrong = np.asarray(mistakes)
    if wrong.ndim != 1 or wrong.dtype != bool:
        raise TypeError(f"mistakes must be a 1-D boolean array, got dtype {wrong.dtype} and shape {wrong.shape}")
    if int(wrong.sum()) != len(S):
        raise ValueError(f"mistakes must mark one round per support vector, got {int(wrong.sum())} for {len(S)}")
    scores = np.zeros((len(P), len(S) + 1), dtype=np.int64)
    if len(S):
        Z = check_boolean_rows(support, "support", n_features=P.shape[1])
        K = np.asarray(kernel.gram(P, Z), dtype=np.int64)
        scores[:, 1:] = np.cumsum(K * S[None, :], axis=1)
    predictions = np.where(scores >= 0, 1, -1)
    errors = (predictions != y[:, None]).sum(axis=0)
    used = np.cumsum(wrong) - wrong  # updates before round t
    rounds = np.bincount(used, minlength=len(S) + 1)
    vote = np.where(predictions @ rounds >= 0, 1, -1)
    T = len(wrong)
    return {
        "errors": errors,
        "rounds": rounds,
        "gibbs": Fraction(int(errors @ rounds), T * len(P)),
        "vote": Fraction(int((vote != y).sum()), len(P)),
        "n_points": len(P),
    }
