"""Why Boolean kernels do not make DNF easy (book chapter 6, Theorems 4 and 5).

* **Theorem 4** (Khardon, Roth and Servedio 2005): the kernel Perceptron over all
  monotone monomials can make exponentially many mistakes on the target
  x_1 x_2 ... x_n. The stream is 0^n (negative), 1^n (positive), then a family
  of negative examples x^1..x^t of weight a whose pairwise intersections are at
  most b. ``constant_weight_family`` builds such families, ``theorem4_stream``
  the stream, and ``theorem4_scores`` / ``theorem4_mistakes`` /
  ``theorem4_max_size`` give the exact scores, the mistake count 2 + t and the
  condition (t - 1) 2^b <= 2^a - 1 under which it holds. ``intersection_tail``
  and ``chernoff_upper_tail`` give the numbers behind Lemma 6.
* **Theorem 5**: Winnow over all 2^m - 1 monotone monomials would learn small
  DNF with few mistakes, but its scores are weighted subset counts, and
  computing them is #P-hard. ``MonomialWinnow`` runs it by brute force for
  m <= 14, ``monomial_weight_exponents`` is the closed form
  w_T = alpha^(P_T - D_T), and ``count_2cnf`` / ``clause_violation_histogram``
  / ``counting_queries`` / ``recover_histogram`` show how scores count the
  satisfying assignments of a monotone 2-CNF. That last link is an
  *illustration* built for the book (MATH.md section 3.3), not the reduction of
  the paper, which is not reproduced here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from .linear import Winnow2
from .protocol import run
from .validation import (
    Interval,
    check_boolean_rows,
    check_int,
    check_labels,
    check_real,
    check_rng,
    check_scalar,
    issparse,
)

__all__ = [
    "CONVENTIONS",
    "check_convention",
    "check_weights",
    "SetFamily",
    "constant_weight_family",
    "check_family",
    "theorem4_stream",
    "theorem4_scores",
    "theorem4_mistakes",
    "theorem4_condition",
    "theorem4_max_size",
    "lemma6_size",
    "intersection_tail",
    "chernoff_upper_tail",
    "MAX_MONOMIAL_VARIABLES",
    "monomial_features",
    "monomial_weight_exponents",
    "MonomialWinnow",
    "MAX_COUNTING_VARIABLES",
    "count_2cnf",
    "clause_violation_histogram",
    "counting_stream",
    "counting_theta",
    "counting_queries",
    "recover_histogram",
    "threshold_instance",
    "kwp_answer",
    "count_2cnf_by_threshold",
]

CONVENTIONS = ("nonnegative", "positive")


# -- Theorem 4 -----------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class SetFamily:
    """A family of weight-a subsets of {1..n} with pairwise intersections at most b.

    Attributes
    ----------
    sets : ndarray of uint8, shape (size, n)
        The indicator vectors x^1..x^t, one per row.
    n, a, b : int
    requested : int
        The size that was asked for; ``size`` is the size reached.
    method : str
        ``"greedy"`` or ``"random"`` (see ``constant_weight_family``).
    draws : int
        Random weight-a sets drawn to build the family.
    conflicts : int
        For ``"random"``: the pairs of drawn sets that met in more than b
        elements (each cost at most one set). 0 for ``"greedy"``.
    """

    sets: np.ndarray
    n: int
    a: int
    b: int
    requested: int
    method: str
    draws: int
    conflicts: int = 0

    @property
    def size(self) -> int:
        return len(self.sets)

    def intersections(self) -> np.ndarray:
        """``|x^i ∩ x^j|`` for every pair, as an int64 matrix (diagonal = a)."""
        S = self.sets.astype(np.float64)
        return np.rint(S @ S.T).astype(np.int64)

    def __repr__(self) -> str:
        return (
            f"SetFamily(n={self.n}, a={self.a}, b={self.b}, size={self.size} of {self.requested} requested, "
            f"method={self.method!r}, draws={self.draws})"
        )


def check_weights(n: Any, a: Any, b: Any, *, max_n: int | None = None) -> tuple[int, int, int]:
    """Return ``(n, a, b)`` as ints after checking the sizes of a Theorem 4 family.

    2 <= n (<= ``max_n`` if given), 1 <= a <= n - 1 (a < n: every set is a negative
    example of x_1 ... x_n) and 0 <= b <= a - 1.

    Raises
    ------
    TypeError
        If n, a or b is not an integer.
    ValueError
        If one is out of range; the message names it, its range and its value.
    """
    n = check_int(n, "n", low=2, high=max_n)
    a = check_int(a, "a", low=1, high=n - 1)
    b = check_int(b, "b", low=0, high=a - 1)
    return n, a, b


def _random_weight_rows(count: int, n: int, a: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` independent uniformly random weight-a rows of length n."""
    keys = rng.random((count, n))
    chosen = np.argpartition(keys, a - 1, axis=1)[:, :a]
    rows = np.zeros((count, n), dtype=np.uint8)
    np.put_along_axis(rows, chosen, 1, axis=1)
    return rows


def constant_weight_family(
    n: int, a: int, b: int, size: int, rng: np.random.Generator, method: str = "greedy", max_draws: int | None = None
) -> SetFamily:
    """Random subsets of {1..n} of weight a that pairwise meet in at most b elements (Lemma 6).

    Parameters
    ----------
    n, a, b : int
        1 <= a <= n - 1 and 0 <= b < a.
    size : int
        The number of sets wanted.
    rng : numpy.random.Generator
    method : {"greedy", "random"}
        ``"greedy"``: draw uniformly random weight-a sets and keep each one that
        meets every kept set in at most b elements, until ``size`` are kept or
        ``max_draws`` (default 50 * size + 1000) have been drawn. ``"random"``:
        the construction of Lemma 6's proof; draw ``size`` independent sets, then
        go through the conflicting pairs (meeting in more than b elements) in
        order and drop the later set of each pair whose earlier set is still kept.
    max_draws : int, optional
        Only for ``"greedy"`` (``"random"`` draws exactly ``size`` sets).

    Returns
    -------
    SetFamily
        Check ``size`` against ``requested``: the family may be smaller than asked.
    """
    n, a, b = check_weights(n, a, b)
    size = check_int(size, "size", low=1)
    rng = check_rng(rng)
    if method not in ("greedy", "random"):
        raise ValueError(f"method must be 'greedy' or 'random', got {method!r}")
    if method == "random":
        rows = _random_weight_rows(size, n, a, rng)
        meet = np.triu(np.rint(rows.astype(float) @ rows.T.astype(float)) > b, k=1)
        keep = np.ones(size, dtype=bool)
        for i, j in zip(*np.nonzero(meet), strict=True):  # i < j; drop j unless i is already gone
            if keep[i]:
                keep[j] = False
        return SetFamily(rows[keep], n, a, b, size, method, draws=size, conflicts=int(meet.sum()))
    max_draws = 50 * size + 1000 if max_draws is None else check_int(max_draws, "max_draws", low=1)
    kept = np.empty((size, n), dtype=np.uint8)
    k = draws = 0
    batch = max(64, min(4096, size))
    while k < size and draws < max_draws:
        candidates = _random_weight_rows(min(batch, max_draws - draws), n, a, rng)
        draws += len(candidates)
        C = candidates.astype(np.float64)
        if k:
            candidates = candidates[(C @ kept[:k].T.astype(np.float64)).max(axis=1) <= b]
            C = candidates.astype(np.float64)
        among = C @ C.T
        chosen: list[int] = []
        for i in range(len(candidates)):
            if not chosen or among[i, chosen].max() <= b:
                chosen.append(i)
                if k + len(chosen) == size:
                    break
        kept[k : k + len(chosen)] = candidates[chosen]
        k += len(chosen)
    return SetFamily(kept[:k].copy(), n, a, b, size, method, draws=draws)


def check_family(sets: Any, a: int, b: int) -> np.ndarray:
    """Check that every row has weight a and every two rows meet in at most b elements.

    Returns the rows as uint8. Raises ``ValueError`` naming the first offending
    row or pair.
    """
    rows = check_boolean_rows(sets, "sets")
    n, a, b = check_weights(rows.shape[1], a, b)
    weights = rows.sum(axis=1)
    if (weights != a).any():
        i = int(np.flatnonzero(weights != a)[0])
        raise ValueError(f"every set must have weight a = {a}, but set {i} has weight {int(weights[i])}")
    meet = np.triu(np.rint(rows.astype(float) @ rows.T.astype(float)), k=1)
    if (meet > b).any():
        i, j = (int(v) for v in np.argwhere(meet > b)[0])
        raise ValueError(
            f"sets must pairwise meet in at most b = {b} elements, but sets {i} and {j} meet in {int(meet[i, j])}"
        )
    return rows


def theorem4_stream(
    family: SetFamily | Any, a: int | None = None, b: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The stream of Theorem 4: 0^n (label -1), 1^n (+1), then every set of the family (-1).

    All labels agree with the target x_1 x_2 ... x_n. ``family`` is a
    ``SetFamily`` or a 0/1 matrix of sets, checked with ``check_family(sets, a, b)``.

    Returns
    -------
    X : ndarray of uint8, shape (t + 2, n)
    y : ndarray of int8, shape (t + 2,)
    """
    if isinstance(family, SetFamily):
        rows = check_family(family.sets, family.a, family.b)
    else:
        if a is None or b is None:
            raise TypeError("give a and b with a matrix of sets (or pass a SetFamily)")
        rows = check_family(family, a, b)
    n = rows.shape[1]
    X = np.vstack([np.zeros((1, n), np.uint8), np.ones((1, n), np.uint8), rows])
    y = np.full(len(X), -1, dtype=np.int8)
    y[1] = 1
    return X, y


def check_convention(convention: Any, choices: tuple[str, ...] = CONVENTIONS) -> str:
    """Return ``convention`` after checking that it is one of ``choices``.

    The default choices are this module's ``CONVENTIONS`` (``"nonnegative"``: predict +1
    iff score >= 0; ``"positive"``: iff score > 0); ``onlinelib.kernels.KernelPerceptron``
    passes its own, which add ``"margin"``.

    Raises
    ------
    ValueError
        If it is not one of them; the message lists the choices and shows the value.
    """
    if convention not in choices:
        raise ValueError(f"convention must be one of {choices}, got {convention!r}")
    return convention


def theorem4_scores(family: SetFamily, convention: str = "nonnegative") -> list[int]:
    """The exact kernel-Perceptron score of each family member, if every earlier one was a mistake.

    With the convention ``"nonnegative"`` (predict +1 iff score >= 0) both 0^n and
    1^n are mistakes and f(x^j) = ``(2^a - 1) - sum_{i<j} 2^|x^i ∩ x^j|``; with
    ``"positive"`` 0^n is not a mistake and f(x^j) = ``2^a - sum_{i<j} 2^|x^i ∩ x^j|``.
    x^j is a mistake iff f(x^j) >= 0 (resp. > 0). Python ints, exact.
    """
    check_convention(convention)
    if not isinstance(family, SetFamily):
        raise TypeError(f"family must be a SetFamily (see constant_weight_family), got {type(family).__name__}")
    meet = family.intersections()
    start = 2**family.a - (1 if convention == "nonnegative" else 0)
    scores = []
    for j in range(family.size):
        scores.append(start - sum(2 ** int(v) for v in meet[j, :j]))
    return scores


def theorem4_condition(t: int, a: int, b: int, convention: str = "nonnegative") -> bool:
    """Whether (t - 1) 2^b <= 2^a - 1 (``"positive"``: (t - 1) 2^b < 2^a), the sufficient condition of Theorem 4."""
    t = check_int(t, "t", low=0)
    a = check_int(a, "a", low=1)
    b = check_int(b, "b", low=0)
    if check_convention(convention) == "nonnegative":
        return (t - 1) * 2**b <= 2**a - 1
    return (t - 1) * 2**b < 2**a


def theorem4_max_size(a: int, b: int, convention: str = "nonnegative") -> int:
    """The largest t allowed by ``theorem4_condition``: floor((2^a - 1) / 2^b) + 1 (``"positive"``: ceil(2^a / 2^b))."""
    a = check_int(a, "a", low=1)
    b = check_int(b, "b", low=0)
    if check_convention(convention) == "nonnegative":
        return (2**a - 1) // 2**b + 1
    return -(-(2**a) // 2**b)


def theorem4_mistakes(t: int, convention: str = "nonnegative") -> int:
    """The kernel Perceptron's mistakes on the Theorem 4 stream when the condition holds: 2 + t (``"positive"``: 1 + t)."""
    t = check_int(t, "t", low=0)
    return t + (2 if check_convention(convention) == "nonnegative" else 1)


def lemma6_size(n: int) -> float:
    """e^(n/9600), the real number in Lemma 6 (chapter 6; below 2 for n <= 6654).

    The lemma guarantees a family of ``math.ceil(lemma6_size(n))`` sets with
    a = n/20 and b = n/80: a family has a whole number of sets. The real value
    is returned so that thresholds such as "e^(n/9600) < 2" can be read off.
    """
    return math.exp(check_int(n, "n", low=1) / 9600)


def intersection_tail(n: int, a: int, s: int) -> float:
    """``P(|x ∩ y| >= s)`` for two independent uniformly random weight-a subsets of {1..n} (hypergeometric)."""
    n = check_int(n, "n", low=1)
    a = check_int(a, "a", low=0, high=n)
    s = check_int(s, "s", low=0)
    from scipy import stats  # here, not at import: scipy.stats costs about 0.3 s to import

    return float(stats.hypergeom(n, a, a).sf(s - 1))


def chernoff_upper_tail(mean: float, delta: float) -> float:
    """The multiplicative Chernoff bound (e^delta / (1 + delta)^(1 + delta))^mean on P(X >= (1 + delta) mean).

    Valid for sums of independent Bernoulli variables with the given mean, and
    for the hypergeometric intersection (Hoeffding 1963), which is dominated in
    convex order by the binomial. Lemma 6 uses mean n/400 and delta = 4.
    """
    mean = check_real(mean, "mean", 0.0)
    delta = check_real(delta, "delta", 0.0)
    return math.exp(mean * (delta - (1 + delta) * math.log1p(delta)))


# -- Theorem 5: Winnow over all monotone monomials ----------------------------------------

#: The largest m for which Winnow over all 2^m - 1 monomials is run by brute force.
MAX_MONOMIAL_VARIABLES = 14


def monomial_features(X: Any) -> Any:
    """phi(x) over the 2^m - 1 nonempty monotone monomials, as a Boolean CSR matrix.

    Column T - 1 stands for the monomial whose variables are the bits of T
    (T = 1..2^m - 1), and phi_T(x) = 1 iff every variable of T is 1 in x.
    """
    import scipy.sparse as sp

    rows = check_boolean_rows(X, "X")
    m = check_scalar(
        rows.shape[1], "m", Interval(int, 1, MAX_MONOMIAL_VARIABLES), why="brute force over the 2^m - 1 monomials"
    )
    masks = rows.astype(np.int64) @ (np.int64(1) << np.arange(m, dtype=np.int64))
    monomials = np.arange(1, 2**m, dtype=np.int64)
    blocks = []
    for start in range(0, len(masks), 2048):  # bounded memory: 2048 x 16383 Booleans at most
        chunk = masks[start : start + 2048, None]
        blocks.append(sp.csr_matrix((chunk & monomials) == monomials, dtype=np.float64))
    if not blocks:
        return sp.csr_matrix((0, len(monomials)), dtype=np.float64)
    return sp.vstack(blocks, format="csr")


def monomial_weight_exponents(X: Any, y: Any, mistakes: Any) -> np.ndarray:
    """P_T - D_T for every nonempty monomial T: w_T = alpha^(P_T - D_T) after Winnow's run.

    P_T (D_T) counts the mistakes on positive (negative) examples that satisfy
    T. Winnow multiplies (divides) exactly those weights by alpha, so this is the
    closed form of its weights, from the trace alone.
    """
    phi = monomial_features(X)
    y = check_labels(y).astype(np.int64)
    mistakes = np.asarray(mistakes)
    if mistakes.dtype != bool:
        raise TypeError(f"mistakes must be a Boolean array (e.g. Trace.mistakes), got dtype {mistakes.dtype}")
    if y.shape != (phi.shape[0],) or mistakes.shape != y.shape:
        raise ValueError(
            f"y and mistakes must have one entry per row of X ({phi.shape[0]}), got {y.shape} and {mistakes.shape}"
        )
    return np.rint(phi.T @ (y * mistakes)).astype(np.int64)


class MonomialWinnow(Winnow2):
    """Winnow run over all 2^m - 1 nonempty monotone monomials, by brute force (chapter 6, Theorem 5).

    The instances are x in {0,1}^m; each is expanded by ``monomial_features``
    and passed to ``Winnow2`` with N = 2^m - 1 features. The defaults are the
    choice the source suggests for Littlestone's bound: alpha = 2, theta = N,
    predict +1 iff w . phi(x) >= theta.

    Raises
    ------
    ValueError
        If m > MAX_MONOMIAL_VARIABLES (14).
    """

    def __init__(self, m: int, alpha: float = 2.0, theta: float | None = None, positive_at_threshold: bool = True):
        self.m = check_scalar(
            m, "m", Interval(int, 1, MAX_MONOMIAL_VARIABLES), why="brute force over the 2^m - 1 monomials"
        )
        super().__init__(2**self.m - 1, alpha=alpha, theta=theta, positive_at_threshold=positive_at_threshold)

    def prepare(self, X: Any) -> Any:
        if issparse(X):
            return super().prepare(X)
        return super().prepare(monomial_features(check_boolean_rows(X, "X", n_features=self.m)))

    def _row(self, x: Any) -> Any:
        if issparse(x):
            return super()._row(x)
        arr = np.asarray(x)
        if arr.shape != (self.m,):
            raise ValueError(f"x must be one instance of shape ({self.m},), got shape {arr.shape}")
        return super()._row(monomial_features(arr))

    def monomial_weight(self, variables: Any) -> float:
        """The weight of the monomial over the given (0-based) variables."""
        mask = 0
        for v in variables:
            mask |= 1 << check_int(v, "variable", low=0, high=self.m - 1)
        if mask == 0:
            raise ValueError("a monomial needs at least one variable")
        return float(self.weights[mask - 1])


# -- Theorem 5: the counting illustration ----------------------------------------------

#: The largest number of variables for brute-force counting of 2-CNF assignments.
MAX_COUNTING_VARIABLES = 20


def _check_clauses(clauses: Any, n: Any) -> tuple[np.ndarray, int]:
    n = check_int(n, "n", low=1, high=MAX_COUNTING_VARIABLES)
    arr = np.asarray(clauses)
    if arr.ndim != 2 or arr.shape[1] != 2 or len(arr) == 0:
        raise ValueError(f"clauses must be a non-empty list of pairs (i, j) of variable indices, got shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"clauses must hold integer variable indices, got dtype {arr.dtype}")
    if arr.min() < 0 or arr.max() >= n:
        raise ValueError(f"clause variables must be in [0, {n}), got {int(arr.min() if arr.min() < 0 else arr.max())}")
    return arr.astype(np.int64), n


def _violations(clauses: np.ndarray, n: int) -> np.ndarray:
    """For every assignment v in {0,1}^n (as an integer), the number of clauses (y_i or y_j) it falsifies."""
    v = np.arange(2**n, dtype=np.int64)
    count = np.zeros(2**n, dtype=np.int64)
    for i, j in clauses:
        count += ((v >> i) & 1 | (v >> j) & 1) == 0
    return count


def count_2cnf(clauses: Any, n: int) -> int:
    """The number of satisfying assignments of the monotone 2-CNF AND_c (y_i or y_j), by brute force (n <= 20)."""
    clauses, n = _check_clauses(clauses, n)
    return int(np.count_nonzero(_violations(clauses, n) == 0))


def clause_violation_histogram(clauses: Any, n: int) -> np.ndarray:
    """A_v for v = 0..r: the number of *nonempty* assignments that falsify exactly v of the r clauses.

    The empty assignment (all zeros) falsifies every clause, so #SAT = A_0 and
    the histogram sums to 2^n - 1. Brute force (n <= 20).
    """
    clauses, n = _check_clauses(clauses, n)
    return np.bincount(_violations(clauses, n)[1:], minlength=len(clauses) + 1)


def counting_stream(clauses: Any, n: int, repeats: int) -> tuple[np.ndarray, np.ndarray]:
    """Each clause's example x^c = 1^n with bits i and j cleared, ``repeats`` times, all labelled +1.

    x^c satisfies exactly the monomials that avoid y_i and y_j, that is, the
    monomials whose indicator assignment falsifies the clause. The stream is
    consistent with the monotone DNF OR_c (AND of ones(x^c)).
    """
    clauses, n = _check_clauses(clauses, n)
    repeats = check_int(repeats, "repeats", low=0)
    base = np.ones((len(clauses), n), dtype=np.uint8)
    base[np.arange(len(clauses)), clauses[:, 0]] = 0
    base[np.arange(len(clauses)), clauses[:, 1]] = 0
    X = np.tile(base, (repeats, 1))
    return X, np.ones(len(X), dtype=np.int8)


def counting_theta(n: int, r: int, alpha: float) -> float:
    """theta = 2^n alpha^(r^2) + 1: high enough that every presentation in ``counting_queries`` is a mistake.

    With it (alpha/(alpha - 1)) N/theta and (alpha + 1)(1 + log_alpha theta)
    are polynomial in n and r, as Theorem 7 of the paper requires.
    """
    n = check_int(n, "n", low=1)
    r = check_int(r, "r", low=1)
    alpha = check_real(alpha, "alpha", 1.0)
    return 2.0**n * alpha ** (r * r) + 1


def counting_queries(clauses: Any, n: int, alpha: float = 2.0) -> list[int]:
    """Q_k = w . phi(1^n) after Winnow has seen every clause example k times, for k = 0..r.

    Each presentation is a promotion, so w_T = alpha^(k v(T)) where v(T) is
    the number of clauses T's indicator falsifies, and
    Q_k = sum_v A_v alpha^(k v) (see ``clause_violation_histogram``). Runs
    ``MonomialWinnow`` by brute force. Returned as exact ints, which needs alpha
    to be an integer (2 is exact up to 2^n alpha^(r^2) < 2^53).

    This is the book's illustration of why Winnow's scores are hard, not the
    reduction of Khardon, Roth and Servedio (their gadget is not reproduced).
    """
    clauses, n = _check_clauses(clauses, n)
    n = check_scalar(
        n, "n", Interval(int, 1, MAX_MONOMIAL_VARIABLES), why="to run Winnow over the 2^n - 1 monomials by brute force"
    )
    alpha = check_real(alpha, "alpha", 1.0)
    if alpha != int(alpha):
        raise ValueError(f"alpha must be an integer > 1 so that the scores are exact integers, got {alpha}")
    r = len(clauses)
    theta = counting_theta(n, r, alpha)
    if theta >= 2.0**53:
        raise ValueError(
            f"2^n alpha^(r^2) must stay below 2^53 for exact float scores; n={n}, r={r}, alpha={alpha} is too large"
        )
    queries = []
    for k in range(r + 1):
        learner = MonomialWinnow(n, alpha=alpha, theta=theta)
        if k:
            X, y = counting_stream(clauses, n, k)
            trace = run(learner, X, y)
            if trace.n_mistakes != len(y):  # pragma: no cover - guaranteed by theta
                raise AssertionError("a presentation was not a promotion")
        score = learner.score(np.ones(n, dtype=np.uint8))
        if score != int(score):  # pragma: no cover - exact for integer alpha below 2^53
            raise AssertionError("inexact Winnow score")
        queries.append(int(score))
    return queries


def _exact_query(q: Any) -> Fraction:
    """One query value as an exact fraction (ints, Fractions and finite floats; never truncated)."""
    if isinstance(q, (int, np.integer, Fraction)) and not isinstance(q, (bool, np.bool_)):
        return Fraction(int(q)) if isinstance(q, np.integer) else Fraction(q)
    if isinstance(q, (float, np.floating)) and math.isfinite(q):
        return Fraction(float(q))
    raise TypeError(f"queries must hold exact numbers (ints, Fractions or finite floats), got {q!r}")


def recover_histogram(queries: Any, alpha: float = 2.0) -> list[Fraction]:
    """Solve Q_k = sum_{v=0..r} A_v alpha^(k v), k = 0..r, for A exactly (a Vandermonde system in fractions).

    With the queries of ``counting_queries``, A_0 is the number of satisfying
    assignments of the 2-CNF.
    """
    Q = [_exact_query(q) for q in queries]
    if not Q:
        raise ValueError("queries must hold Q_0..Q_r (at least one value)")
    alpha = Fraction(check_real(alpha, "alpha", 1.0))
    size = len(Q)
    matrix = [[alpha ** (k * v) for v in range(size)] + [Q[k]] for k in range(size)]
    for col in range(size):  # Gauss-Jordan elimination; the nodes alpha^v are distinct, so pivots are nonzero
        pivot = next(r for r in range(col, size) if matrix[r][col] != 0)
        matrix[col], matrix[pivot] = matrix[pivot], matrix[col]
        lead = matrix[col][col]
        matrix[col] = [value / lead for value in matrix[col]]
        for r in range(size):
            if r != col and matrix[r][col] != 0:
                factor = matrix[r][col]
                matrix[r] = [a - factor * b for a, b in zip(matrix[r], matrix[col], strict=True)]
    return [matrix[v][size] for v in range(size)]


# -- Theorem 5: from one threshold bit to the count -------------------------------------


def threshold_instance(
    clauses: Any, n: int, repeats: int, bound: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """A KWP(2, theta) instance whose answer is "Q_repeats >= bound" (chapter 6, the threshold step of Theorem 5).

    With B = n + repeats * r, the instance is over m = n + B variables
    y_1..y_n, u_1..u_B. It is ``counting_stream`` (u = 0) followed by the
    singleton example {u_j} presented e_j = j + d_j times (j = 0..B-1), where
    d_j is bit j of D = 2^B - bound; every example is labelled +1. The query is
    z = 1^m and theta = (2^n - 1)(2^B - 1) + 3 * 2^B - 2 - B. Every
    presentation is a promotion, after which

        w . phi(z) = Q_repeats + theta - bound,

    so Winnow's answer "w . phi(z) >= theta" is exactly "Q_repeats >= bound".
    Since Q_repeats < 2^B, ``bound`` ranges over 1..2^B.

    Returns
    -------
    X, y, z, theta
        The labelled sequence, the query and the threshold (an int), for
        ``kwp_answer``.

    This is the book's own threshold step (alpha = 2, theta part of the
    instance), not the gadget of Khardon, Roth and Servedio.
    """
    clauses, n = _check_clauses(clauses, n)
    repeats = check_int(repeats, "repeats", low=0)
    B = n + repeats * len(clauses)  # Q_repeats <= (2^n - 1) 2^(repeats r) < 2^B
    bound = check_int(bound, "bound", low=1, high=2**B)
    m = n + B
    gap = 2**B - bound
    clause_rows, _ = counting_stream(clauses, n, repeats)
    blocks = [np.hstack([clause_rows, np.zeros((len(clause_rows), B), dtype=np.uint8)])]
    for j in range(B):
        row = np.zeros(m, dtype=np.uint8)
        row[n + j] = 1
        blocks.append(np.tile(row, (j + ((gap >> j) & 1), 1)))
    X = np.vstack(blocks)
    theta = (2**n - 1) * (2**B - 1) + 3 * 2**B - 2 - B
    return X, np.ones(len(X), dtype=np.int8), np.ones(m, dtype=np.uint8), theta


def kwp_answer(X: Any, y: Any, z: Any, theta: float) -> bool:
    """KWP(2, theta) by brute force: does Winnow(2, theta) over all monomials, run on (X, y), score z at least theta?

    Runs ``MonomialWinnow`` (m <= 14 variables). With integer weights and
    scores below 2^53 the comparison is exact; so ``theta`` must be a positive real that a
    float holds exactly (an integer above 2^53 may not be), or the learner's threshold would
    differ from the one asked about.
    """
    rows = check_boolean_rows(X, "X")
    threshold = check_real(theta, "theta", low=0.0)
    if threshold != theta:
        raise ValueError(
            f"theta must be exactly representable as a float (the learner compares in floats), got {theta!r}"
        )
    learner = MonomialWinnow(rows.shape[1], alpha=2.0, theta=threshold)
    if len(rows):  # an instance may have no examples (k = 0 and D = 0 with B = 1)
        run(learner, rows, y)
    score = learner.score(check_boolean_rows(np.asarray(z)[None, :], "z", n_features=rows.shape[1])[0])
    if not score < 2.0**53:  # pragma: no cover - m <= 14 keeps every score far below
        raise ValueError(f"the score {score} is too large for exact comparison in floats")
    return bool(score >= theta)


def count_2cnf_by_threshold(clauses: Any, n: int, oracle: Any = None) -> tuple[int, list[int], int]:
    """#SAT of a monotone 2-CNF from yes/no KWP answers only (chapter 6, Theorem 5's threshold step).

    For k = 0..r, a binary search over ``bound`` in 1..2^(n + k r) with
    ``threshold_instance`` finds Q_k; ``recover_histogram`` then gives A_0 =
    #SAT. ``oracle(X, y, z, theta)`` answers each instance; the default is
    ``kwp_answer`` (brute force). The search asks sum_k (n + k r) questions,
    polynomial in n and r.

    Returns
    -------
    n_sat, queries, n_questions
        #SAT, the values Q_0..Q_r found, and how many times the oracle was asked.
    """
    clauses, n = _check_clauses(clauses, n)
    oracle = kwp_answer if oracle is None else oracle
    if not callable(oracle):
        raise TypeError(f"oracle must be callable as oracle(X, y, z, theta), got {type(oracle).__name__}")
    queries, asked = [], 0
    for k in range(len(clauses) + 1):
        low, high = 1, 2 ** (n + k * len(clauses))  # Q_k >= 1: every weight is at least 1
        while low < high:
            middle = (low + high + 1) // 2
            asked += 1
            if oracle(*threshold_instance(clauses, n, k, middle)):
                low = middle
            else:
                high = middle - 1
        queries.append(low)
    histogram = recover_histogram(queries)
    if any(a.denominator != 1 or a < 0 for a in histogram):
        raise ValueError(f"the oracle's answers are inconsistent: they give the histogram {histogram}")
    return int(histogram[0]), queries, asked
