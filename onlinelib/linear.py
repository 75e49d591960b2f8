"""Linear-threshold learners: the Perceptron, Winnow1, Winnow2 and the Elimination learner.

Book chapters 2-4 ("Disjunctions and Winnow1", "The Perceptron", "Winnow").

All four are *conservative* and *mistake-driven*: their state changes only on
the rounds their rule says so, every mistake is such a round, and nothing
changes in between. ``onlinelib.run`` uses this: it asks the learner to ``scan``
ahead with a compiled kernel for the first round that changes the state, applies
the ordinary ``update`` there, and carries on. The Perceptron, Winnow1 and Winnow2
go further: their ``play`` runs the whole stream in compiled code, updates included,
which ``run`` uses when nothing is observed. The trace is identical to the
example-by-example loop, because the score of a row is *defined* as the
sequential sum computed by ``onlinelib._kernels`` (see there), which is the same
number whether one row or a million are scored, and the compiled updates are the
same floating-point operations as ``update``'s.

A CSR stream is read where it is: a float64 or Boolean CSR matrix is not copied,
and the kernels check each row's canonical form (sorted, distinct, in-range column
indices; no stored zeros) as they read it. Only a stream that breaks it is copied,
once, into canonical form.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._lazy import LazyModule
from .validation import check_int, check_label, check_real, issparse

_kernels: Any = LazyModule("onlinelib._kernels", globals(), "_kernels")  # numba, loaded at first use

__all__ = [
    "Perceptron",
    "Winnow1",
    "Winnow2",
    "Elimination",
    "as_sparse_rows",
    "winnow1_default_threshold",
    "winnow2_default_threshold",
]


def winnow1_default_threshold(n_features: int) -> float:
    """Winnow1's default threshold theta = n/2 (chapter 2, "Disjunctions and Winnow1").

    With it the mistake bound n/theta + 2k(lg theta + 1) of the chapter's Theorem "Winnow1"
    becomes 2 + 2k lg n for a target with k relevant variables among n. ``Winnow1``, its
    bound and the chapter's adversaries all default to this one value.

    Raises
    ------
    TypeError, ValueError
        If ``n_features`` is not an integer >= 1.
    """
    return check_int(n_features, "n_features", low=1) / 2


def winnow2_default_threshold(n_features: int) -> float:
    """Winnow2's default threshold theta = n (chapter 4, "Winnow2").

    With it and alpha = 2, Littlestone's bound (``winnow2_bound``) reads 2 + 3k(lg n + 1) for a
    target with k relevant variables among n; the lecture notes' form is
    ``Winnow2(n, alpha=1 + beta, theta=n)``. ``Winnow2``, the chapter's adversaries and its
    experiments all default to this one value.

    Raises
    ------
    TypeError, ValueError
        If ``n_features`` is not an integer >= 1.
    """
    return float(check_int(n_features, "n_features", low=1))


def as_sparse_rows(rows: Any, n_features: int) -> Any:
    """Turn a list of active-index arrays into a Boolean CSR matrix with ``n_features`` columns.

    Row t of the result has ones exactly at the indices ``rows[t]``. A scipy
    sparse matrix is copied into canonical float64 CSR form (sorted indices,
    duplicates summed, stored zeros removed), after a shape check. Used by
    ``Winnow2`` and ``Winnow1`` for sparse streams (chapter 4).

    Raises
    ------
    ValueError
        If an index is outside [0, n_features), or an index repeats within a row.
    """
    import scipy.sparse as sp

    n_features = check_int(n_features, "n_features", low=1)
    if sp.issparse(rows):
        matrix = sp.csr_matrix(rows, dtype=np.float64, copy=True)
        if matrix.ndim != 2 or matrix.shape[1] != n_features:
            raise ValueError(f"X must have {n_features} columns, got shape {matrix.shape}")
        matrix.sum_duplicates()  # sorted indices, as the kernels expect
        matrix.eliminate_zeros()  # explicitly stored zeros are not active features
        return matrix
    arrays = [np.asarray(r) if np.size(r) else np.zeros(0, dtype=np.int64) for r in rows]
    if any(a.ndim != 1 for a in arrays):
        raise ValueError("X given as a list of sparse rows must hold 1-D arrays of active feature indices")
    lengths = np.fromiter((a.size for a in arrays), dtype=np.int64, count=len(arrays))
    indices = np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.int64)
    if indices.size and (indices.dtype == bool or not np.issubdtype(indices.dtype, np.integer)):
        raise TypeError(f"sparse rows must be arrays of integer feature indices, got dtype {indices.dtype}")
    indices = indices.astype(np.int64)
    if indices.size and (indices.min() < 0 or indices.max() >= n_features):
        bad = indices[(indices < 0) | (indices >= n_features)][0]
        raise ValueError(f"sparse rows must hold feature indices in [0, {n_features}), got {bad}")
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    matrix = sp.csr_matrix((np.ones(indices.size, dtype=np.float64), indices, indptr), shape=(len(arrays), n_features))
    matrix.sum_duplicates()  # also sorts the indices of each row, as the kernels expect
    if matrix.nnz != indices.size:
        raise ValueError("a sparse row lists the same feature index twice")
    return matrix


class _ThresholdLearner:
    """Shared machinery of the linear-threshold learners.

    A subclass sets ``weights``, ``bias``, ``threshold``, ``orientation`` and
    ``positive_at_threshold`` (the prediction is +1 where orientation * (score -
    threshold) > 0, or = 0 when ties go to +1), may override
    ``_flag_at_zero_margin``, and implements ``_change(row, y, score)``, which
    ``update`` calls on exactly the rounds whose signed margin
    orientation * (score - threshold) * y is negative, or zero with
    ``_flag_at_zero_margin(y)``.
    """

    boolean_inputs = False
    positive_at_threshold = False
    orientation = 1  # predictions are +1 on the side orientation * (score - threshold) > 0

    def __init__(self, n_features: int):
        self.n_features = check_int(n_features, "n_features", low=1)
        self.bias = 0.0
        self.rounds = 0

    # -- input handling ---------------------------------------------------------
    def prepare(self, X: Any) -> Any:
        """The stream ``X`` in the form ``scan`` reads: a 2-D float array or a CSR matrix.

        ``X`` may be an array of shape (T, n_features), a scipy sparse matrix, or a
        list of 1-D arrays of active feature indices (sparse Boolean rows). A list
        whose rows form a (T, n_features) array is read as dense rows; pass a CSR
        matrix (``as_sparse_rows``) to make index rows unambiguous. A CSR matrix of
        float64 or bool entries is returned as it is (no copy); its rows are checked
        by the kernels that read them. Other sparse formats and types are converted.
        """
        if issparse(X):
            import scipy.sparse as sp

            # a csr_array is wrapped as a csr_matrix (whose rows stay 2-D), sharing its arrays
            usable = X.format == "csr" and X.dtype in (np.float64, np.bool_)
            if usable:
                matrix = X if isinstance(X, sp.csr_matrix) else sp.csr_matrix(X)
            else:
                matrix = sp.csr_matrix(X, dtype=np.float64)
            if matrix.ndim != 2 or matrix.shape[1] != self.n_features:
                raise ValueError(f"X must have {self.n_features} columns, got shape {matrix.shape}")
            return matrix
        if isinstance(X, (list, tuple)) and not _is_dense_rows(X, self.n_features):
            return as_sparse_rows(X, self.n_features)
        arr = np.asarray(X)
        if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
            raise TypeError(f"X must be a numeric array of shape (T, {self.n_features}), got dtype {arr.dtype}")
        if arr.ndim != 2 or arr.shape[1] != self.n_features:
            raise ValueError(f"X must have shape (T, {self.n_features}), got {arr.shape}")
        if self.boolean_inputs:
            _check_boolean(arr, "X")
        return np.ascontiguousarray(arr, dtype=np.float64)

    def _row(self, x: Any) -> Any:
        """One instance as a 1-D float array, or a 1-row CSR matrix; checked."""
        if type(x) is np.ndarray and x.dtype == np.float64 and x.shape == (self.n_features,):
            # the common case (a row of a prepared stream): only the value checks remain
            if self.boolean_inputs:
                _check_boolean(x, "x")
            elif not np.isfinite(x).all():
                raise ValueError(f"x must be finite, got NaN or inf in round {self.rounds + 1}")
            return x
        if issparse(x):
            import scipy.sparse as sp

            row = sp.csr_matrix(x, dtype=np.float64)
            if not row.has_canonical_format or (row.data == 0).any():
                row = row.copy()
                row.sum_duplicates()
                row.eliminate_zeros()
            if row.shape != (1, self.n_features):
                raise ValueError(f"x must be one row with {self.n_features} features, got shape {row.shape}")
            if self.boolean_inputs and not np.all(row.data == 1):
                raise ValueError("x must be Boolean: every stored entry of a sparse row must be 1")
            if not np.isfinite(row.data).all():
                raise ValueError(f"x must be finite, got NaN or inf in round {self.rounds + 1}")
            return row
        arr = np.asarray(x)
        if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
            raise TypeError(f"x must be a numeric vector of length {self.n_features}, got dtype {arr.dtype}")
        if arr.shape != (self.n_features,):
            raise ValueError(f"x must have shape ({self.n_features},), got {arr.shape}")
        if self.boolean_inputs:
            _check_boolean(arr, "x")
        arr = arr.astype(np.float64, copy=False)
        if not np.isfinite(arr).all():
            raise ValueError(f"x must be finite, got NaN or inf in round {self.rounds + 1}")
        return arr

    # -- the score and the decisions ----------------------------------------------
    def _score_row(self, row: Any) -> float:
        """The score w.x + b of a checked row, in the order the kernels define."""
        if isinstance(row, np.ndarray):
            s = _kernels.dense_score(row, self.weights, self.bias)
        else:  # a 1-row CSR matrix with sorted indices
            s = _kernels.sparse_score(row.indices, row.data, self.weights, self.bias)
        if not math.isfinite(s):
            raise ValueError(f"the score w.x + b is {s}: x or the weights are too large")
        return s

    def score(self, x: Any) -> float:
        """The score w.x + b of one instance."""
        return self._score_row(self._row(x))

    def _flag_at_zero_margin(self, y: int) -> bool:
        """Whether a round whose score equals the threshold exactly changes the state (a tie mistake)."""
        return (not self.positive_at_threshold) if y > 0 else self.positive_at_threshold

    def _predict_score(self, score: float) -> int:
        side = self.orientation * (score - self.threshold)
        return 1 if side > 0 or (side == 0 and self.positive_at_threshold) else -1

    def predict(self, x: Any) -> int:
        return self._predict_score(self._score_row(self._row(x)))

    def update(self, x: Any, y: Any) -> None:
        """The learner's update for one labelled example (a no-op unless the rule says so)."""
        row = self._row(x)
        label = check_label(y)
        score = self._score_row(row)
        self.rounds += 1
        if self._changes_on(score, label):
            self._change(row, label, score)

    def _changes_on(self, score: float, y: int) -> bool:
        """Whether a round with this score and label changes the state (see the class docstring)."""
        margin = self.orientation * (score - self.threshold) * y
        return margin < 0 or (margin == 0 and self._flag_at_zero_margin(y))

    # -- the engine's interface (see onlinelib.run) --------------------------------
    def skip(self, n_rounds: int) -> None:
        """Account for ``n_rounds`` rounds on which ``update`` would change nothing."""
        self.rounds += n_rounds

    def scan(self, X: Any, y: np.ndarray, start: int) -> tuple[int, int]:
        """The first round at or after ``start`` on which ``update`` would change the state.

        ``X`` is a prepared stream (``prepare``) and ``y`` its labels (int8).
        Returns ``(j, prediction)``: the round's index and the prediction made on
        it, or ``(len(y), 0)`` if there is none. Every mistake changes the state,
        so rounds start..j-1 are all predicted correctly. Exact: the kernel
        computes the same scores as ``predict`` and ``update``.
        """
        flags = (self._flag_at_zero_margin(-1), self._flag_at_zero_margin(1))
        args = (self.weights, float(self.bias), float(self.threshold), float(self.orientation)) + flags
        first = start
        if isinstance(X, np.ndarray):
            j, code, score = _kernels.first_change_dense(X[start:], y[start:], *args)
            j += start
        else:
            while True:
                j, code, score = _kernels.first_change_sparse(
                    X.indptr, X.indices, X.data, y, start, *args, self.boolean_inputs
                )
                if code != _kernels.NOT_CANONICAL:
                    break
                # a row stored out of canonical form (unsorted, repeated or zero entries): scored as update would
                score = self._score_row(self._row(X[j : j + 1]))
                if self._changes_on(score, int(y[j])):
                    code = _kernels.CHANGE
                    break
                start = j + 1
        if code == _kernels.NONE:
            return len(y), 0
        if code != _kernels.CHANGE:
            self.skip(j - first)  # the rounds before the bad one were played, as in the loop
            _raise_for_row(code, j, X, self.n_features)
        return j, self._predict_score(score)


class _CompiledRule(_ThresholdLearner):
    """A threshold learner whose update rule is also compiled, so ``play`` runs a whole stream.

    A subclass names its rule (``_rule``, one of ``onlinelib._kernels``' ADDITIVE,
    ELIMINATE, MULTIPLY) and records the number of changes on positive and on
    negative labels in ``_count_changes``.
    """

    _rule = "ADDITIVE"
    alpha = 2.0
    use_bias = False

    def _count_changes(self, on_positive: int, on_negative: int) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def play(self, X: Any, y: np.ndarray) -> np.ndarray:
        """Play a prepared stream (``prepare``) with int8 labels ``y``; return the predictions.

        The same trace and final state as calling ``predict`` and ``update`` on each row,
        in compiled code (``onlinelib._kernels.play_dense`` / ``play_sparse``); ``run``
        uses it when nothing is observed. A CSR stream with a row out of canonical form
        is copied once into canonical form from that row on.

        Raises
        ------
        ValueError
            At the first row that cannot be scored (NaN or inf, a non-Boolean entry for
            Winnow, a column index out of range), after playing the rows before it.
        """
        predictions = y.copy()
        counts = np.zeros(2, dtype=np.int64)
        state = np.array([float(self.bias)])
        flags = (self._flag_at_zero_margin(-1), self._flag_at_zero_margin(1))
        rule = (getattr(_kernels, self._rule), float(self.alpha), bool(self.use_bias))
        common = (self.weights, state, float(self.threshold), float(self.orientation), *flags)
        common += (bool(self.positive_at_threshold), *rule)
        start = 0
        while True:
            if isinstance(X, np.ndarray):
                i, code = _kernels.play_dense(X, y, start, *common, predictions, counts)
            else:
                i, code = _kernels.play_sparse(
                    X.indptr, X.indices, X.data, y, start, *common, self.boolean_inputs, predictions, counts
                )
            if code != _kernels.NOT_CANONICAL:
                break
            X, start = _canonical_copy(X), i
        self.bias = float(state[0])
        self.rounds += i
        self._count_changes(int(counts[0]), int(counts[1]))
        if code != _kernels.NONE:
            _raise_for_row(code, i, X, self.n_features)
        return predictions


def _canonical_copy(X: Any) -> Any:
    """A CSR stream copied into canonical form: sorted indices, duplicates summed, no stored zeros."""
    import scipy.sparse as sp

    matrix = sp.csr_matrix(X, dtype=np.float64, copy=True)
    matrix.sum_duplicates()
    matrix.eliminate_zeros()
    return matrix


def _raise_for_row(code: int, i: int, X: Any, n_features: int) -> None:
    """The error for the row i at which a kernel stopped with ``code``."""
    if code == _kernels.NOT_FINITE:
        raise ValueError(f"x must be finite: the score of round {i + 1} is not (NaN or inf in x, or values too large)")
    if code == _kernels.NOT_BOOLEAN:
        data = X.data[X.indptr[i] : X.indptr[i + 1]]
        bad = data[data != 1][0]
        raise ValueError(
            f"X must be Boolean: every stored entry of a sparse row must be 1, got {bad!r} in round {i + 1}"
        )
    if code == _kernels.BAD_INDEX:
        raise ValueError(f"X must hold column indices in [0, {n_features}): round {i + 1} has one outside")
    raise ValueError(f"X is not a valid CSR matrix: indptr[{i}:{i + 2}] is decreasing or past the stored entries")


def _is_dense_rows(X: Any, n_features: int) -> bool:
    """True if a list of rows forms a (T, n_features) array; otherwise it is read as index rows."""
    try:
        return len(X) > 0 and all(np.ndim(r) == 1 and len(r) == n_features for r in X)
    except TypeError:
        return False


def _check_boolean(arr: np.ndarray, name: str) -> None:
    if arr.dtype == bool:
        return
    if arr.size and not ((arr == 0) | (arr == 1)).all():
        bad = arr[(arr != 0) & (arr != 1)].flat[0]
        raise ValueError(f"{name} must be Boolean (entries 0 or 1), got {bad!r}")


class Perceptron(_CompiledRule):
    """Rosenblatt's Perceptron (chapter 3, Novikoff's theorem).

    Starts at w = 0. Predicts +1 iff w.x + b >= 0 (so a score of exactly 0 is a +1
    prediction), and updates w <- w + y x (and b <- b + y when ``bias=True``)
    whenever y (w.x + b) <= 0. The update condition includes the rounds with
    score 0 and label +1, which are not mistakes: Novikoff's bound counts these
    updates, so ``n_updates >= n_mistakes`` and both are at most R^2/gamma^2.

    Parameters
    ----------
    n_features : int
    bias : bool
        Learn a bias b as the weight of a constant feature 1 (so R counts it:
        ||(x, 1)||^2 = ||x||^2 + 1).
    """

    positive_at_threshold = True
    _rule = "ADDITIVE"

    def __init__(self, n_features: int, bias: bool = False):
        super().__init__(n_features)
        self.weights = np.zeros(self.n_features)
        self.use_bias = bool(bias)
        self.threshold = 0.0
        self.n_updates = 0

    def _flag_at_zero_margin(self, y: int) -> bool:
        return True  # y (w.x + b) <= 0 includes a zero score, whatever the label

    def _change(self, row: Any, y: int, score: float) -> None:
        if isinstance(row, np.ndarray):
            self.weights += y * row
        else:
            self.weights[row.indices] += y * row.data
        if self.use_bias:
            self.bias += y
        self.n_updates += 1

    def _count_changes(self, on_positive: int, on_negative: int) -> None:
        self.n_updates += on_positive + on_negative


class _Winnow(_CompiledRule):
    """What Winnow1 and Winnow2 share: Boolean inputs, weights starting at 1, a threshold, promotions."""

    boolean_inputs = True

    def __init__(self, n_features: int, theta: float | None, default_theta: float):
        super().__init__(n_features)
        self.threshold = default_theta if theta is None else check_real(theta, "theta", 0)
        self.weights = np.ones(self.n_features)
        self.promotions = 0

    @property
    def theta(self) -> float:
        return self.threshold

    @staticmethod
    def _active(row: Any) -> np.ndarray:
        """The indices of the features that are 1 in a checked row."""
        return np.flatnonzero(row) if isinstance(row, np.ndarray) else row.indices


class Winnow1(_Winnow):
    """Littlestone's Winnow1 for monotone disjunctions (chapter 2, Lemmas 1-3).

    Weights start at 1 and the threshold is ``theta`` (default n/2, see
    ``winnow1_default_threshold``). Predicts +1 iff w.x > theta. On a false negative
    every active weight is doubled (a *promotion*); on a false positive every active
    weight is set to 0 (an *elimination*). Mistakes are at most
    n/theta + 2k(lg theta + 1) for a target with k relevant variables.

    Attributes
    ----------
    promotions, eliminations : int
        The lecture's u and v.
    """

    _rule = "ELIMINATE"

    def __init__(self, n_features: int, theta: float | None = None):
        super().__init__(n_features, theta, default_theta=winnow1_default_threshold(n_features))
        self.eliminations = 0

    def _count_changes(self, on_positive: int, on_negative: int) -> None:
        self.promotions += on_positive
        self.eliminations += on_negative

    def _change(self, row: Any, y: int, score: float) -> None:
        active = self._active(row)
        if y == 1:
            self.weights[active] *= 2.0
            self.promotions += 1
        else:
            self.weights[active] = 0.0
            self.eliminations += 1


class Winnow2(_Winnow):
    """Littlestone's Winnow with promotion and demotion by a factor alpha (chapter 4).

    Weights start at 1. Predicts +1 iff w.x > theta (or >= theta with
    ``positive_at_threshold=True``, the convention of Khardon, Roth and Servedio).
    On a false negative the active weights are multiplied by alpha; on a false
    positive they are divided by alpha. The lecture notes' form with factor
    1 + beta is ``Winnow2(n, alpha=1 + beta, theta=n)``.

    Weights and scores are floating-point numbers. Unless alpha is a power of 2,
    a score that equals theta exactly (chapter 4's adversaries aim at such scores) may come out a
    rounding error above or below it, and the prediction on such a tie is then
    decided by rounding, not by the rule above. Claims that rest on ties or on
    exact mistake counts should replay the stream with
    ``onlinelib.adversaries.winnow2_exact_replay`` (weights alpha^e, exact scores).

    Inputs are Boolean: dense rows in {0,1}^n, or sparse rows (a CSR matrix, or a
    list of active-index arrays, which ``run`` converts with ``as_sparse_rows``).

    Parameters
    ----------
    n_features : int
    alpha : float
        The promotion factor, > 1.
    theta : float, optional
        The threshold, > 0; default n_features (``winnow2_default_threshold``).
    positive_at_threshold : bool
        Whether a score exactly equal to theta predicts +1.

    Attributes
    ----------
    promotions, demotions : int
        The proof's m+ and m- (mistakes on positive and on negative examples).
    """

    _rule = "MULTIPLY"

    def __init__(
        self, n_features: int, alpha: float = 2.0, theta: float | None = None, positive_at_threshold: bool = False
    ):
        super().__init__(n_features, theta, default_theta=winnow2_default_threshold(n_features))
        self.alpha = check_real(alpha, "alpha", 1)
        self.positive_at_threshold = bool(positive_at_threshold)
        self.demotions = 0

    def _change(self, row: Any, y: int, score: float) -> None:
        active = self._active(row)
        if y == 1:
            self.weights[active] *= self.alpha
            self.promotions += 1
        else:
            self.weights[active] /= self.alpha
            self.demotions += 1

    def _count_changes(self, on_positive: int, on_negative: int) -> None:
        self.promotions += on_positive
        self.demotions += on_negative


class Elimination(_ThresholdLearner):
    """The Elimination learner for conjunctions, and for disjunctions by duality (chapter 2).

    For ``target="conjunction"`` it keeps a set of literals, at first all 2n of
    x_1, not x_1, ..., x_n, not x_n (or only x_1..x_n with ``monotone=True``),
    and predicts +1 iff every kept literal is true. On a false negative it drops
    the literals the example falsifies. The target's literals are never dropped,
    so it never errs on a negative example, and it makes at most n + 1 - k
    mistakes (n - k if monotone) for a target with k literals.

    For ``target="disjunction"`` it learns the complement: not(x_i1 or ... or x_ik)
    is the conjunction of the literals not x_ij, learned from the flipped labels.

    Raises ``ValueError`` on a false positive, since no target of the class can
    produce one: the stream is inconsistent.
    """

    boolean_inputs = True

    def __init__(self, n_features: int, target: str = "conjunction", monotone: bool = False):
        super().__init__(n_features)
        if target not in ("conjunction", "disjunction"):
            raise ValueError(f"target must be 'conjunction' or 'disjunction', got {target!r}")
        self.target = target
        self.monotone = bool(monotone)
        self.flip = -1 if target == "disjunction" else 1
        # The learned conjunction holds iff score > -1/2; for a disjunction target the
        # prediction is its negation, so the +1 side is flipped.
        self.orientation = self.flip
        # Literal masks: a kept positive literal x_i needs x_i = 1, a negative one x_i = 0.
        # For a disjunction the learned conjunction is over negative literals, so a
        # "monotone" disjunction keeps only the negative literals.
        self.positive_literals = np.ones(self.n_features, dtype=bool)
        self.negative_literals = np.ones(self.n_features, dtype=bool)
        if self.monotone:
            (self.negative_literals if target == "conjunction" else self.positive_literals)[:] = False
        self.threshold = -0.5  # score = -(number of kept literals violated); +1 iff none is violated
        self.n_mistakes = 0
        self._sync_weights()

    def _sync_weights(self) -> None:
        # violated literals = sum over kept positive literals of (1 - x_i) + sum over kept negative of x_i
        #                   = P - x.p + x.q  with p, q the literal masks; score = x.(p - q) - P.
        self.weights = self.positive_literals.astype(float) - self.negative_literals.astype(float)
        self.bias = -float(np.count_nonzero(self.positive_literals))

    @property
    def n_literals(self) -> int:
        return int(np.count_nonzero(self.positive_literals) + np.count_nonzero(self.negative_literals))

    def _change(self, row: Any, y: int, score: float) -> None:
        dense = row if isinstance(row, np.ndarray) else row.toarray().ravel()
        if y * self.flip == -1:
            kind = "false positive" if self.target == "conjunction" else "false negative"
            raise ValueError(
                f"the stream is consistent with no {self.target} of literals: a {kind} at round {self.rounds}"
            )
        self.positive_literals &= dense == 1
        self.negative_literals &= dense == 0
        self.n_mistakes += 1
        self._sync_weights()
