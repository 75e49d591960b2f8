"""Boolean kernels and the kernel Perceptron (book chapter 6, "Boolean kernels").

A Boolean kernel K(x, z) counts the conjunctions satisfied by both x and z, so
that K(x, z) = phi(x) . phi(z) for the 0/1 feature map phi that lists every
conjunction of a family (Khardon, Roth and Servedio 2005):

======================================  ===================================  ==============================
kernel                                  K(x, z)                              features (with the empty one)
======================================  ===================================  ==============================
``all_conjunctions()``                  2 ** same(x, z)                      3 ** n
``monotone_monomials()``                2 ** samepos(x, z)                   2 ** n
``bounded_conjunctions(k)``             sum_{l<=k} C(same(x, z), l)          sum_{l<=k} C(n, l) 2 ** l
``monotone_bounded_conjunctions(k)``    sum_{l<=k} C(samepos(x, z), l)       sum_{l<=k} C(n, l)
======================================  ===================================  ==============================

where same(x, z) counts the coordinates on which x and z agree and samepos(x, z)
those on which both are 1. A kernel depends on x and z only through that count,
so a Gram block is a table lookup of a matrix of counts (one matrix product).

Arithmetic is exact. Kernel values are Python ints in a lookup table; a Gram
block is an int64 array when every possible value fits in int64 (for example
n <= 62 for the two full kernels) and an object array of Python ints otherwise.
``KernelPerceptron`` applies the same rule to its scores, which are sums of up to
``|M|`` kernel values, so no score ever overflows or is rounded. Its block engine
(``scan``, used by ``onlinelib.run``) decides rounds from certified floating-point sums
and falls back to these exact integers whenever the floats cannot certify the sign
(see ``onlinelib._kernels_boolean``).
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache
from typing import Any

import numpy as np

from ._lazy import LazyModule
from .hardness import check_convention
from .validation import check_boolean_rows, check_int, check_label

__all__ = [
    "BooleanKernel",
    "all_conjunctions",
    "monotone_monomials",
    "bounded_conjunctions",
    "monotone_bounded_conjunctions",
    "KernelPerceptron",
    "max_margin_dual",
    "MAX_EXPLICIT_FEATURES",
    "MAX_EXPLICIT_DIMENSION",
]

#: The largest n for which every kernel's explicit features can be listed (3^12 of them).
MAX_EXPLICIT_FEATURES = 12
#: The most features ``BooleanKernel.features`` lists; bounded kernels reach it only at larger n.
MAX_EXPLICIT_DIMENSION = 3**MAX_EXPLICIT_FEATURES

_INT64_LIMIT = 2**63 - 1


_compiled: Any = LazyModule("onlinelib._kernels_boolean", globals(), "_compiled")  # numba, loaded at first use


class BooleanKernel:
    """A kernel over {0,1}^n that counts the conjunctions two instances both satisfy.

    Build one with ``all_conjunctions``, ``monotone_monomials``,
    ``bounded_conjunctions`` or ``monotone_bounded_conjunctions`` (chapter 6,
    "Kernels for conjunctions").

    Calling the kernel on two instances returns a Python int; on two matrices
    of instances (rows) it returns their Gram block (see ``gram``).

    Attributes
    ----------
    monotone : bool
        True if only monotone monomials (no negated literals) are features, so
        the kernel counts samepos; False if it counts same.
    max_literals : int or None
        The largest number of literals in a feature, or None for no limit.
    """

    def __init__(self, monotone: bool, max_literals: int | None = None):
        self.monotone = bool(monotone)
        self.max_literals = None if max_literals is None else check_int(max_literals, "k", low=0)

    @property
    def name(self) -> str:
        base = "monotone_monomials" if self.monotone else "all_conjunctions"
        if self.max_literals is None:
            return base
        return ("monotone_bounded_conjunctions" if self.monotone else "bounded_conjunctions") + f"({self.max_literals})"

    def __repr__(self) -> str:
        return self.name if self.max_literals is not None else self.name + "()"

    # -- values ---------------------------------------------------------------
    def value(self, count: int) -> int:
        """K as a function of the count c = same(x, z) (or samepos): the number of features both satisfy.

        Each feature both instances satisfy is a choice of at most ``max_literals``
        of the c agreeing coordinates (with the literal forced by the common value),
        so the value is sum_{l <= k} C(c, l), which is 2 ** c without a limit.
        """
        count = check_int(count, "count", low=0)
        return _value(count, self.max_literals)

    def table(self, n_features: int) -> tuple[int, ...]:
        """The values K for counts 0..n_features, as Python ints."""
        return _table(check_int(n_features, "n_features", low=1), self.max_literals)

    def dimension(self, n_features: int) -> int:
        """The number of features (conjunctions, the empty one included) over n_features variables."""
        n = check_int(n_features, "n_features", low=1)
        k = n if self.max_literals is None else min(n, self.max_literals)
        per_literal = 1 if self.monotone else 2
        return sum(math.comb(n, l) * per_literal**l for l in range(k + 1))

    def counts(self, X: Any, Z: Any) -> np.ndarray:
        """same(x, z) (or samepos(x, z) for a monotone kernel) for every pair of rows, as int64.

        ``X`` and ``Z`` are instances (1-D) or matrices of instances (rows) in
        {0,1}^n; the result has shape (rows of X, rows of Z).
        """
        A = check_boolean_rows(X, "X")
        B = check_boolean_rows(Z, "Z", n_features=A.shape[1])
        return _counts(A, B, self.monotone)

    def gram(self, X: Any, Z: Any) -> np.ndarray:
        """The Gram block K(x_i, z_j): int64 if every value fits, else an object array of Python ints."""
        A = check_boolean_rows(X, "X")
        B = check_boolean_rows(Z, "Z", n_features=A.shape[1])
        return _lookup(_counts(A, B, self.monotone), _table(A.shape[1], self.max_literals))

    def __call__(self, x: Any, z: Any) -> Any:
        """K(x, z): a Python int for two instances, the Gram block for matrices."""
        block = self.gram(x, z)
        if np.ndim(x) == 1 and np.ndim(z) == 1:
            return int(block[0, 0])
        return block

    # -- explicit features (for checking, small n) ---------------------------------
    def features(self, n_features: int) -> tuple[np.ndarray, np.ndarray]:
        """The conjunctions, as bit masks of their positive and negated literals.

        Returns ``(positive, negated)``, two int64 arrays of length
        ``dimension(n_features)``: feature f is the conjunction of x_i for the
        bits i of ``positive[f]`` and of (not x_i) for the bits of ``negated[f]``.
        Features are ordered by number of literals, so the empty conjunction
        (the constant feature 1) comes first.

        Raises
        ------
        ValueError
            If there are more than MAX_EXPLICIT_DIMENSION = 3^12 = 531,441
            features (all conjunctions over 12 variables), or n_features > 62.
        """
        n = check_int(n_features, "n_features", low=1)
        dimension = self.dimension(n)
        if dimension > MAX_EXPLICIT_DIMENSION or n > 62:
            raise ValueError(
                f"explicit features are limited to {MAX_EXPLICIT_DIMENSION} features (all conjunctions "
                f"over {MAX_EXPLICIT_FEATURES} variables) and n_features <= 62; {self!r} over "
                f"n_features = {n} has {dimension}; use the kernel itself"
            )
        return _features(n, self.monotone, self.max_literals)

    def feature_names(self, n_features: int) -> list[str]:
        """Readable names of the features, e.g. '1' (empty), 'x1', 'x2 ¬x3' (1-based indices)."""
        positive, negated = self.features(n_features)
        names = []
        for p, q in zip(positive.tolist(), negated.tolist(), strict=True):
            literals = [("" if p >> i & 1 else "¬") + f"x{i + 1}" for i in range(n_features) if (p | q) >> i & 1]
            names.append(" ".join(literals) or "1")
        return names

    def feature_map(self, X: Any) -> np.ndarray:
        """phi(x) for every row: an (rows, dimension) uint8 array, 1 where the conjunction holds."""
        A = check_boolean_rows(X, "X")
        positive, negated = self.features(A.shape[1])
        masks = A.astype(np.int64) @ (np.int64(1) << np.arange(A.shape[1], dtype=np.int64))
        masks = masks[:, None]
        holds = ((masks & positive) == positive) & ((masks & negated) == 0)
        return holds.astype(np.uint8)


@lru_cache(maxsize=None)
def _value(count: int, max_literals: int | None) -> int:
    if max_literals is None or max_literals >= count:
        return 2**count
    return sum(math.comb(count, l) for l in range(max_literals + 1))


@lru_cache(maxsize=256)
def _table(n: int, max_literals: int | None) -> tuple[int, ...]:
    return tuple(_value(c, max_literals) for c in range(n + 1))


@lru_cache(maxsize=64)
def _table_array(table: tuple[int, ...], as_int64: bool) -> np.ndarray:
    if as_int64:  # only the values that fit: indexing past them raises instead of overflowing
        return np.array([v for v in table if v <= _INT64_LIMIT], dtype=np.int64)
    return np.array(table, dtype=object)


def _lookup(counts: np.ndarray, table: tuple[int, ...], bound: int | None = None) -> np.ndarray:
    """table[counts], as int64 if ``bound`` (default: the largest value) fits in int64, else as Python ints.

    Callers that sum the values pass a bound on the largest possible |sum|.
    """
    return _table_array(table, (table[-1] if bound is None else bound) <= _INT64_LIMIT)[counts]


def _counts(A: np.ndarray, B: np.ndarray, monotone: bool) -> np.ndarray:
    # Float matrix products use BLAS and are exact here: every count is at most n < 2**53.
    A = A.astype(np.float64)
    B = B.astype(np.float64)
    both_one = A @ B.T
    if not monotone:  # same = both one + both zero = n - |A| - |B| + 2 (A.B)
        both_one = A.shape[1] - A.sum(axis=1)[:, None] - B.sum(axis=1)[None, :] + 2.0 * both_one
    return np.rint(both_one).astype(np.int64)


@lru_cache(maxsize=32)
def _features(n: int, monotone: bool, max_literals: int | None) -> tuple[np.ndarray, np.ndarray]:
    k = n if max_literals is None else min(n, max_literals)
    positive_parts, negated_parts = [], []
    for size in range(k + 1):  # conjunctions with exactly `size` literals, built directly
        variables = np.array(list(itertools.combinations(range(n), size)), dtype=np.int64).reshape(
            math.comb(n, size), size
        )
        var_masks = (np.int64(1) << variables).reshape(len(variables), size)
        signs = [(1,) * size] if monotone else list(itertools.product((1, -1), repeat=size))
        for sign in signs:  # which of the chosen variables appear negated
            negated_bits = np.array(sign, dtype=np.int64).reshape(1, size) < 0
            positive_parts.append((var_masks * ~negated_bits).sum(axis=1))
            negated_parts.append((var_masks * negated_bits).sum(axis=1))
    positive = np.concatenate(positive_parts).astype(np.int64)
    negated = np.concatenate(negated_parts).astype(np.int64)
    order = np.lexsort((negated, positive | negated, _popcount(positive | negated)))  # size, variables, signs
    positive, negated = positive[order], negated[order]
    positive.setflags(write=False)
    negated.setflags(write=False)
    return positive, negated


def _popcount(masks: np.ndarray) -> np.ndarray:
    return np.unpackbits(masks.astype(">u8").view(np.uint8).reshape(-1, 8), axis=1).sum(axis=1)


def all_conjunctions() -> BooleanKernel:
    """K(x, z) = 2 ** same(x, z): all 3 ** n conjunctions of literals (chapter 6)."""
    return BooleanKernel(monotone=False)


def monotone_monomials() -> BooleanKernel:
    """K(x, z) = 2 ** samepos(x, z): all 2 ** n monotone monomials (chapter 6, Theorem 4)."""
    return BooleanKernel(monotone=True)


def bounded_conjunctions(k: int) -> BooleanKernel:
    """K(x, z) = sum_{l<=k} C(same(x, z), l): conjunctions of at most k literals (chapter 6).

    Raises
    ------
    TypeError, ValueError
        If k is not an integer >= 0.
    """
    return BooleanKernel(monotone=False, max_literals=check_int(k, "k", low=0))  # k=None is not "no limit"


def monotone_bounded_conjunctions(k: int) -> BooleanKernel:
    """K(x, z) = sum_{l<=k} C(samepos(x, z), l): monotone monomials of at most k variables (chapter 6)."""
    return BooleanKernel(monotone=True, max_literals=check_int(k, "k", low=0))


CONVENTIONS = ("nonnegative", "positive", "margin")
#: ``KernelPerceptron.scan`` scores the last SHORT_SCAN round(s) of a stream one by one: for a
#: single round the compiled pass costs more to set up (about 7 us) than it saves; from two
#: rounds on it is faster than the loop (measured, see the class Notes).
SHORT_SCAN = 1


class KernelPerceptron:
    """The Perceptron run over the features of a Boolean kernel, in its dual form (chapter 6, Theorem 3).

    The weight vector over the (exponentially many) features is
    w = sum_{z in M} S(z) phi(z), where M holds the examples on which the
    learner updated and S(z) is the label of z, so the score of x is
    w . phi(x) = sum_{z in M} S(z) K(x, z). A prediction costs ``|M|`` kernel
    values, each O(n): ``O(|M| n)`` time, whatever the number of features.

    Parameters
    ----------
    n_features : int
        n, the number of Boolean variables.
    kernel : BooleanKernel
    convention : {"nonnegative", "positive", "margin"}
        ``"nonnegative"`` (default, Khardon, Roth and Servedio): predict +1 iff
        score >= 0 and update on mistakes. ``"positive"``: predict +1 iff score > 0
        and update on mistakes. ``"margin"``: predict +1 iff score >= 0 and update
        whenever y * score <= 0, exactly the rule of ``onlinelib.Perceptron``, so
        its trace equals the primal Perceptron's on ``kernel.feature_map(X)``.

    Attributes
    ----------
    n_updates : int
        ``|M|``.
    kernel_evaluations : int
        The number of kernel values computed so far (the cost measure of Theorem
        3): ``|M|`` per scored round. Example by example (``predict`` then
        ``update``, or ``run`` with ``method="loop"``) ``update`` reuses the score
        ``predict`` computed, and so does a repeated row with no update between;
        the block engine of ``run`` scores every round once against the ``|M|`` of
        that round, so on a stream of distinct rows both engines count the same.

    Notes
    -----
    Scores are exact integers (see the module docstring). ``onlinelib.run`` uses
    the block engine (``scan``): one compiled pass over the rest of the stream
    plays the learner round by round, with every instance packed into 64-bit
    words so that a kernel value is a popcount and a table lookup, and records
    the rounds that update; ``run`` then applies those updates one by one. Each
    decision rests on the sign of an exact integer score, certified from a
    floating-point sum or else recomputed in Python integers (see
    ``onlinelib._kernels_boolean``), so the trace is the loop's, bit for bit.
    The pass costs the loop's ``|M|`` kernel values per round, without the
    loop's Python work per round, so it is faster at every mistake rate
    (``benchmarks/kernel_perceptron_speed.py``, loop time / default time, medians
    of 3): 8-22x on the Theorem 4 streams at n = 64-96, which err on every
    round; 23-50x on random DNF streams with 12-50% mistakes (n = 20, 100); about
    80x on 20,000 rounds with 2% mistakes; 7x on a tie-heavy stream whose scores
    need the exact fallback. Only a single round is scored directly
    (``SHORT_SCAN``), as the loop does it (1.04x); two rounds already gain 1.3x.
    The previous engine, which kept every future score and added one Gram column
    per update, lost to the loop from about one mistake in two rounds on (0.6x
    on the Theorem 4 streams).
    """

    def __init__(self, n_features: int, kernel: BooleanKernel, convention: str = "nonnegative"):
        self.n_features = check_int(n_features, "n_features", low=1)
        if not isinstance(kernel, BooleanKernel):
            raise TypeError(
                f"kernel must be a BooleanKernel (e.g. onlinelib.monotone_monomials()), got {type(kernel).__name__}"
            )
        self.kernel = kernel
        self.convention = check_convention(convention, CONVENTIONS)
        self._table = kernel.table(self.n_features)
        self._support = np.empty((16, self.n_features), dtype=np.uint8)
        self._signs = np.empty(16, dtype=np.int8)
        self.n_updates = 0
        self.rounds = 0
        self.kernel_evaluations = 0
        self._plan: _Plan | None = None  # the updates the block engine found ahead (see scan)
        self._packed: tuple | None = None  # (X, its rows packed in 64-bit words) for scan
        self._last_score: tuple | None = None  # (|M|, x, score) of the last score computed

    # -- state ----------------------------------------------------------------
    @property
    def support_vectors(self) -> np.ndarray:
        """The examples in M, in the order they were added (a read-only view)."""
        view = self._support[: self.n_updates]
        view.flags.writeable = False
        return view

    @property
    def support_labels(self) -> np.ndarray:
        """S(z) for the examples in M."""
        return self._signs[: self.n_updates].copy()

    def primal_weights(self) -> np.ndarray:
        """w = sum_{z in M} S(z) phi(z) over ``kernel.features`` (explicit; n <= 12)."""
        phi = self.kernel.feature_map(self._support[: self.n_updates]).astype(np.int64)
        return self._signs[: self.n_updates].astype(np.int64) @ phi

    # -- prediction -------------------------------------------------------------
    def _row(self, x: Any) -> np.ndarray:
        if type(x) is np.ndarray and x.dtype == np.uint8 and x.shape == (self.n_features,):
            if (x > 1).any():
                raise ValueError(f"x must be Boolean (entries 0 or 1), got {x[x > 1][0]!r}")
            return x
        arr = np.asarray(x)
        if arr.shape != (self.n_features,):
            raise ValueError(f"x must be one instance of shape ({self.n_features},), got shape {arr.shape}")
        return check_boolean_rows(arr, "x", n_features=self.n_features)[0]

    def _score_row(self, row: np.ndarray) -> int:
        k = self.n_updates
        last = self._last_score
        if last is not None and last[0] == k and np.array_equal(last[1], row):
            return last[2]  # update right after predict on the same x: nothing has changed
        self.kernel_evaluations += k
        if k == 0:
            return 0
        counts = _counts(self._support[:k], row[None, :], self.kernel.monotone)[:, 0]
        values = _lookup(counts, self._table, bound=k * self._largest_value(row[None, :]))
        signs = self._signs[:k]
        if values.dtype == np.int64:
            score = int(signs.astype(np.int64) @ values)
        else:
            score = int(values[signs > 0].sum()) - int(values[signs < 0].sum())
        self._last_score = (k, row.copy(), score)
        return score

    def _largest_value(self, rows: np.ndarray) -> int:
        """A bound on K(x, z) for the given rows x and any z: samepos(x, z) <= |x| for a monotone kernel."""
        if self.kernel.monotone and len(rows):
            return self._table[int(rows.sum(axis=1, dtype=np.int64).max())]
        return self._table[-1]

    def score(self, x: Any) -> int:
        """sum_{z in M} S(z) K(x, z), exactly."""
        return self._score_row(self._row(x))

    def _predict_score(self, score: int) -> int:
        if self.convention == "positive":
            return 1 if score > 0 else -1
        return 1 if score >= 0 else -1

    def _updates_on(self, score: int, y: int) -> bool:
        if self.convention == "margin":
            return y * score <= 0
        return self._predict_score(score) != y

    def predict(self, x: Any) -> int:
        return self._predict_score(self.score(x))

    def update(self, x: Any, y: Any) -> None:
        """Add (x, y) to M if the convention's update rule fires on it."""
        plan = self._plan
        if plan is not None and plan.expects(self.n_updates, x, y):
            # the update scan found, in the very state it was found from: it fires, no score needed
            # (x equals a row of the prepared stream and y its label, so both are valid)
            self.rounds += 1
            self._append(x, y)
            return
        row = self._row(x)
        label = check_label(y)
        self.rounds += 1
        if self._updates_on(self._score_row(row), label):
            self._plan = None  # an update scan did not plan: its plan is for another M
            self._append(row, label)

    def _append(self, row: np.ndarray, label: int) -> None:
        if self.n_updates == len(self._signs):
            self._support = np.concatenate([self._support, np.empty_like(self._support)])
            self._signs = np.concatenate([self._signs, np.empty_like(self._signs)])
        self._support[self.n_updates] = row
        self._signs[self.n_updates] = label
        self.n_updates += 1

    # -- the engine's interface (see onlinelib.run) --------------------------------
    def prepare(self, X: Any) -> np.ndarray:
        """The stream as a checked (T, n_features) uint8 array (a new stream: scan's plan is dropped)."""
        arr = np.asarray(X)
        if arr.ndim != 2:
            raise ValueError(f"X must be a matrix of instances of shape (T, {self.n_features}), got shape {arr.shape}")
        self._plan = self._packed = None
        return check_boolean_rows(arr, "X", n_features=self.n_features)

    def skip(self, n_rounds: int) -> None:
        """Account for ``n_rounds`` rounds on which ``update`` would change nothing."""
        self.rounds += n_rounds

    def scan(self, X: np.ndarray, y: np.ndarray, start: int) -> tuple[int, int]:
        """The first round j >= start on which ``update`` would add to M, and its prediction.

        The block engine of ``onlinelib.run`` (chapter 6, Theorem 3). One compiled
        pass plays rounds ``start``, ``start + 1``, ... to the end of the stream
        as if ``update`` were applied on every round that fires, and keeps that
        plan: as long as ``update`` is then called on exactly the planned rounds
        (as ``run`` does), each later ``scan`` is a lookup and each planned
        ``update`` needs no score. Any other update, a start outside the plan or
        another stream starts a new pass from the current state. ``X`` must be
        the prepared stream (``prepare``), unchanged while it is scanned.
        Returns ``(len(y), 0)`` if no round from ``start`` on updates.
        """
        plan = self._plan
        if plan is None or plan.X is not X or plan.y is not y or not plan.covers(start, self.n_updates):
            if len(y) - start <= SHORT_SCAN:
                return self._scan_rows(X, y, start)
            plan = self._plan = self._make_plan(X, y, start)
        i = self.n_updates - plan.k0
        if i == len(plan.rounds):
            return len(y), 0
        return plan.rounds[i], plan.predictions[i]

    def _scan_rows(self, X: np.ndarray, y: np.ndarray, start: int) -> tuple[int, int]:
        """scan, round by round with the exact scores of ``score`` (for the last few rounds of a stream)."""
        self._plan = None
        for j in range(start, len(y)):
            score = self._score_row(X[j])  # kept in _last_score: update on X[j] reuses it
            if self._updates_on(score, int(y[j])):
                return j, self._predict_score(score)
        return len(y), 0

    def _make_plan(self, X: np.ndarray, y: np.ndarray, start: int) -> _Plan:
        """Play rounds start.. of (X, y) from the current state in compiled code; see ``scan``."""
        T, k0 = len(y), self.n_updates
        if self._packed is None or self._packed[0] is not X:
            self._packed = (X, _compiled.pack_rows(X))
        rows = self._packed[1]
        labels = np.ascontiguousarray(y, dtype=np.int8)
        length = max(0, T - start)
        capacity = k0 + length
        sup = np.empty((capacity, rows.shape[1]), dtype=np.uint64)
        sup[:k0] = _compiled.pack_rows(self._support[:k0])
        signs = np.empty(capacity, dtype=np.float64)
        signs[:k0] = self._signs[:k0]
        rounds = np.empty(length, dtype=np.int64)
        predictions = np.empty(length, dtype=np.int8)
        table = _float_table(self._table)
        code = CONVENTIONS.index(self.convention)
        t, k, m = start, k0, 0
        while t < T:
            t, k, m, evaluations = _compiled.plan_updates(
                rows,
                labels,
                t,
                sup,
                signs,
                k,
                m,
                rounds,
                predictions,
                table,
                self.n_features,
                self.kernel.monotone,
                code,
            )
            self.kernel_evaluations += evaluations
            if t == T:
                break
            # the floats could not certify this round's sign: its exact score in Python ints
            score = self._exact_score(rows[t], sup[:k], signs[:k])
            self.kernel_evaluations += k
            label = int(labels[t])
            if self._updates_on(score, label):
                sup[k], signs[k], rounds[m], predictions[m] = rows[t], label, t, self._predict_score(score)
                k, m = k + 1, m + 1
            t += 1
        return _Plan(X, y, start, k0, rounds[:m].tolist(), predictions[:m].tolist())

    def _exact_score(self, row: np.ndarray, sup: np.ndarray, signs: np.ndarray) -> int:
        """sum_i signs[i] K(x, z_i) in Python ints, for a packed row x and packed z_i."""
        if self.kernel.monotone:
            counts = np.bitwise_count(sup & row).sum(axis=1, dtype=np.int64)
        else:
            counts = self.n_features - np.bitwise_count(sup ^ row).sum(axis=1, dtype=np.int64)
        # the signed number of members of M at each count: exact in doubles (at most |M| < 2^53)
        tally = np.bincount(counts, weights=signs, minlength=self.n_features + 1)
        return sum(int(tally[c]) * self._table[c] for c in np.flatnonzero(tally).tolist())


class _Plan:
    """The updates ``KernelPerceptron.scan`` found ahead on a stream, from one state.

    Starting at round ``start`` with ``k0`` members of M, the learner updates on
    rounds ``rounds[0] < rounds[1] < ...`` (Python ints) and on no round in between,
    predicting ``predictions[i]`` on round ``rounds[i]``; this holds as long as the
    updates applied since are exactly those of ``rounds[:i]``, i = |M| - k0.
    """

    __slots__ = ("X", "y", "start", "k0", "rounds", "predictions", "labels")

    def __init__(self, X: np.ndarray, y: np.ndarray, start: int, k0: int, rounds: list, predictions: list):
        self.X, self.y, self.start, self.k0 = X, y, start, k0
        self.rounds, self.predictions = rounds, predictions
        self.labels = y[rounds].tolist()

    def covers(self, start: int, n_updates: int) -> bool:
        """Whether the plan answers scan(start) with |M| = n_updates: the i-th planned update lies
        before ``start`` (i = n_updates - k0) and the next one, if any, at or after it."""
        i = n_updates - self.k0
        if not 0 <= i <= len(self.rounds):
            return False
        before = self.rounds[i - 1] if i else self.start - 1
        after = self.rounds[i] if i < len(self.rounds) else len(self.y)
        return before < start <= after

    def expects(self, n_updates: int, x: Any, y: Any) -> bool:
        """Whether (x, y) is the next planned update, M being in the planned state: y is that
        round's label as an int and x that round's row as a uint8 array (as ``run`` passes them)."""
        i = n_updates - self.k0
        if not 0 <= i < len(self.rounds) or type(y) is not int or y != self.labels[i]:
            return False
        row = self.X[self.rounds[i]]
        return type(x) is np.ndarray and x.dtype == row.dtype and x.shape == row.shape and x.tobytes() == row.tobytes()


@lru_cache(maxsize=64)
def _float_table(table: tuple[int, ...]) -> np.ndarray:
    """The kernel values as doubles, correctly rounded, inf beyond the largest double."""
    values = []
    for v in table:
        try:
            values.append(float(v))
        except OverflowError:
            values.append(math.inf)
    out = np.array(values, dtype=np.float64)
    out.setflags(write=False)
    return out


def max_margin_dual(gram: Any, y: Any) -> np.ndarray:
    """The hard-margin (maximum-margin, no bias) dual coefficients for a positive definite Gram matrix (chapter 6).

    Maximises sum(a) - a' Q a / 2 over a >= 0, with Q_ij = y_i y_j G_ij. With
    the Cholesky factor Q = R'R this is the non-negative least-squares problem
    min ||R a - R'^{-1} 1|| (scipy's ``nnls``, an active-set method that ends
    at the exact optimum up to rounding). The hypothesis is
    sign(sum_i a_i y_i K(x_i, z)); it separates the sample with every margin
    y_i f(x_i) >= 1, equal to 1 where a_i > 0. Scaling G by c scales a by 1/c
    and leaves the hypothesis unchanged, so a Gram matrix of huge kernel values
    may be passed divided by a power of two.

    Raises
    ------
    ValueError
        If the Gram matrix is not square, not finite, or not positive definite,
        or y is not a +-1 vector of matching length.
    """
    from scipy.linalg import LinAlgError, cholesky, solve_triangular
    from scipy.optimize import nnls

    G = np.asarray(gram, dtype=np.float64)
    labels = np.asarray(y)
    if G.ndim != 2 or G.shape[0] != G.shape[1] or G.shape[0] == 0:
        raise ValueError(f"gram must be a non-empty square matrix, got shape {G.shape}")
    if not np.all(np.isfinite(G)):
        raise ValueError("gram must be finite (divide huge kernel values by a power of two first)")
    if labels.shape != (G.shape[0],) or not np.all(np.isin(labels, (-1, 1))):
        raise ValueError(f"y must hold one label in {{-1, +1}} per row of gram ({G.shape[0]}), got {labels!r}")
    Q = labels[:, None] * labels[None, :] * G
    try:
        R = cholesky(Q)
    except LinAlgError:
        raise ValueError(
            "gram must be positive definite (distinct points under a strictly positive definite kernel)"
        ) from None
    alpha, _ = nnls(R, solve_triangular(R, np.ones(len(labels)), trans="T"))
    return alpha
