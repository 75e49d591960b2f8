"""Example streams and adversaries (book chapter 1 and later chapters).

* ``random_stream``: instances drawn uniformly from a finite class's domain and
  labelled by a target concept.
* ``one_per_round_adversary``: an oblivious sequence that removes exactly one
  concept from the version space per round, the worst case for Randomized Halving.
* ``adaptive_adversary``: an adversary that sees each prediction before it
  labels, and forces at least Ldim(C) mistakes on any learner.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .concepts import ConceptClass
from .protocol import Learner, Trace, check_learner, check_prediction
from .validation import check_int, check_real, check_rng
from .version_space import _check_class, _ldim, _split_dimensions, _VersionSpace

__all__ = [
    "random_stream",
    "one_per_round_adversary",
    "AdaptiveRun",
    "adaptive_adversary",
    "separable_stream",
    "perceptron_lower_bound_stream",
    "disjunction_stream",
    "winnow1_promotion_adversary",
    "iid_experts",
    "planted_best_expert",
    "wma_adversary",
    "concept_experts",
    "monotone_dnf_labels",
    "monotone_dnf_stream",
    "check_sign_vector",
    "positive_halfcube",
]


def random_stream(concept_class: ConceptClass, target: int, length: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``length`` instances drawn uniformly (with replacement) and labelled by ``target``.

    Returns
    -------
    X : ndarray of int64, shape (length,)
        Instance indices.
    y : ndarray of int8, shape (length,)
        Labels in {-1, +1}.
    """
    cls = _check_class(concept_class)
    target = cls.check_concept(target)
    if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or length < 1:
        raise ValueError(f"length must be a positive integer, got {length!r}")
    rng = check_rng(rng)
    X = rng.integers(cls.n_instances, size=int(length))
    return X, cls.labels(target, X)


def one_per_round_adversary(
    concept_class: ConceptClass, target: int, rng: np.random.Generator | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """A stream, labelled by ``target``, that eliminates exactly one concept per round.

    It runs until only the target (and any concept identical to it) is left, so it
    has ``|C| - 1`` rounds when all concepts are distinct (and none for a one-concept class). Against it Randomized
    Halving makes exactly ``H_|C| - 1`` mistakes in expectation, the worst case
    (chapter 1, Theorem "Randomized Halving").

    Parameters
    ----------
    concept_class : ConceptClass
    target : int
        Index of the target concept.
    rng : numpy.random.Generator, optional
        If given, each round's instance is chosen at random among those that
        remove exactly one concept; otherwise the lowest such instance is used.

    Raises
    ------
    ValueError
        If at some round no instance removes exactly one concept (the class
        admits no such sequence from that version space), naming the round.
    """
    cls = _check_class(concept_class)
    target = cls.check_concept(target)
    if rng is not None:
        rng = check_rng(rng)
    # disagree[x, c]: concept c would be eliminated by instance x.
    disagree = cls.by_instance != cls.by_instance[:, [target]]
    duplicates = ~disagree.any(axis=0)
    alive = ~duplicates  # concepts still to eliminate
    remaining = np.count_nonzero(disagree, axis=1)
    X: list[int] = []
    while alive.any():
        eligible = np.flatnonzero(remaining == 1)
        if eligible.size == 0:
            raise ValueError(
                f"{cls.name} admits no one-per-round sequence for target {target}: at round {len(X) + 1} "
                f"no instance eliminates exactly one of the {int(alive.sum()) + int(duplicates.sum())} concepts left"
            )
        x = int(eligible[0] if rng is None else eligible[rng.integers(eligible.size)])
        (victim,) = np.flatnonzero(alive & disagree[x])
        alive[victim] = False
        remaining -= disagree[:, victim]
        X.append(x)
    X_arr = np.asarray(X, dtype=np.int64)
    return X_arr, cls.labels(target, X_arr)


class AdaptiveRun(NamedTuple):
    """The result of ``adaptive_adversary``: the stream it chose, a consistent target, and the trace."""

    X: np.ndarray
    y: np.ndarray
    target: int
    trace: Trace


def adaptive_adversary(learner: Learner, concept_class: ConceptClass) -> AdaptiveRun:
    """Run ``learner`` against the adversary that labels after seeing the prediction.

    Each round the adversary picks an instance x maximising
    min(Ldim(xi_0(V, x)), Ldim(xi_1(V, x))), which is Ldim(V) - 1, takes the
    learner's prediction and answers the opposite label. Every round is a
    mistake and Ldim(V) falls by at most one per round, so any learner, even a
    randomised one whose coin the adversary sees, makes at least Ldim(C)
    mistakes (chapter 1, SOA section: the lower bound Opt(C) >= Ldim(C)).
    The stream is consistent: it stops when one concept (up to duplicates) is
    left, which is returned as the target.

    The learner must be fresh (no examples seen), since the adversary starts from V = C.
    """
    cls = _check_class(concept_class)
    check_learner(learner)
    space = _VersionSpace(cls)
    X: list[int] = []
    predictions: list[int] = []
    labels: list[int] = []
    while (d := _ldim(cls, members := space.members())) > 0:
        ones = np.count_nonzero(cls.by_instance[:, members], axis=1)
        balance = np.minimum(ones, len(members) - ones)
        best_x, best_value = -1, -2
        for x in np.argsort(-balance, kind="stable").tolist():
            if balance[x] == 0:
                break
            value = min(_split_dimensions(cls, members, x))
            if value > best_value:
                best_x, best_value = x, value
                if value == d - 1:
                    break
        p = check_prediction(learner.predict(best_x), learner, len(X) + 1)
        learner.update(best_x, -p)
        space.restrict(best_x, -p, len(X) + 1)
        X.append(best_x)
        predictions.append(p)
        labels.append(-p)
    target = int(space.members()[0])
    trace = Trace(predictions=np.asarray(predictions, dtype=np.int8), labels=np.asarray(labels, dtype=np.int8))
    return AdaptiveRun(np.asarray(X, dtype=np.int64), trace.labels, target, trace)


# -- linear-threshold streams (chapters 2-4) -----------------------------------------


def separable_stream(
    n_features: int, length: int, margin: float, rng: np.random.Generator, radius: float = 1.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A linearly separable stream with margin at least ``margin`` and radius ``radius`` (chapter 3).

    Draws a unit target w* uniformly on the sphere, then points uniformly in the
    ball of the given radius, keeping those with ``|<w*, x>| >= margin`` (rejection
    sampling, vectorised), and labels them sign(<w*, x>). So every example has
    ||x|| <= R and y <w*, x> >= gamma, the hypotheses of Novikoff's theorem.

    Returns
    -------
    X : ndarray, shape (length, n_features)
    y : ndarray of int8, shape (length,)
    w_star : ndarray, shape (n_features,), unit norm
    """
    d = check_int(n_features, "n_features", low=1)
    length = check_int(length, "length", low=1)
    radius = check_real(radius, "radius", 0.0)
    margin = check_real(margin, "margin", 0.0)
    if margin >= radius:
        raise ValueError(f"margin must be smaller than radius ({radius}), got {margin}")
    rng = check_rng(rng)
    w_star = rng.standard_normal(d)
    w_star /= np.linalg.norm(w_star)
    kept: list[np.ndarray] = []
    n_kept = n_drawn = 0
    while n_kept < length:
        if n_drawn >= 10**6 and n_kept < 1e-4 * n_drawn:
            raise ValueError(
                f"margin {margin} is too large for {d} dimensions and radius {radius}: "
                f"only {n_kept} of {n_drawn} uniform points in the ball had |<w*, x>| >= margin"
            )
        batch = max(1024, 2 * (length - n_kept))
        directions = rng.standard_normal((batch, d))
        directions /= np.linalg.norm(directions, axis=1, keepdims=True)
        points = directions * (radius * rng.random(batch) ** (1.0 / d))[:, None]
        n_drawn += batch
        points = points[np.abs(points @ w_star) >= margin]
        kept.append(points)
        n_kept += len(points)
    X = np.concatenate(kept)[:length]
    y = np.where(X @ w_star > 0, 1, -1).astype(np.int8)
    return X, y, w_star


MAX_LOWER_BOUND_DIMENSION = 10_000


def perceptron_lower_bound_stream(margin: float, radius: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sequence on which the Perceptron meets Novikoff's bound exactly (chapter 3).

    In d = floor(R^2 / gamma^2) dimensions, present R e_1, ..., R e_d, each with
    label -1. The unit vector w* = -(1, ..., 1)/sqrt(d) separates them with margin
    R/sqrt(d) >= gamma. Every score is 0 when its example arrives (w_i is still 0),
    the Perceptron predicts +1 and errs: d mistakes, which equals R^2/gamma^2
    when that ratio is an integer (d is the largest integer with R/sqrt(d) >= gamma).
    d is limited to 10^4 (the stream is a dense d x d matrix).

    Returns X (d, d), y (d,), w_star (d,).
    """
    radius = check_real(radius, "radius", 0.0)
    margin = check_real(margin, "margin", 0.0)
    if margin > radius:
        raise ValueError(f"margin must be at most radius ({radius}), got {margin}")
    d = max(1, int(np.floor((radius / margin) ** 2)))
    if radius / np.sqrt(d + 1) >= margin:  # (R/gamma)^2 rounded down past an integer
        d += 1
    if d > MAX_LOWER_BOUND_DIMENSION:
        raise ValueError(
            f"margin {margin} needs d = {d} > {MAX_LOWER_BOUND_DIMENSION} dimensions (a dense d x d stream); use a larger margin"
        )
    X = radius * np.eye(d)
    y = -np.ones(d, dtype=np.int8)
    return X, y, -np.ones(d) / np.sqrt(d)


def disjunction_stream(
    n_features: int,
    n_relevant: int,
    length: int,
    rng: np.random.Generator,
    *,
    density: float | None = None,
    active: int | None = None,
    sparse: bool = False,
):
    """Boolean examples labelled by a monotone disjunction of ``n_relevant`` of ``n_features`` variables.

    Chapters 2 and 4. Each example is either i.i.d. bits with P(x_i = 1) =
    ``density`` (default chosen so that about half the examples are positive:
    1 - 2^(-1/k)), or, with ``active=a``, exactly a ones at uniformly random
    positions. With ``sparse=True`` the examples are returned as a CSR matrix,
    which is how ``Winnow2`` takes 10^4 features with 20 active bits. The same
    seed gives the same stream either way. With ``active=`` the stream is built
    in memory proportional to its ones; with ``density`` the dense (length, n)
    draw is made first.

    Returns
    -------
    X : ndarray of uint8 (length, n_features), or scipy.sparse.csr_matrix
    y : ndarray of int8 (length,)
    relevant : ndarray of int, the k relevant variables (sorted)
    """
    import scipy.sparse as sp

    n = check_int(n_features, "n_features", low=1)
    k = check_int(n_relevant, "n_relevant", low=1)
    if k > n:
        raise ValueError(f"n_relevant must be at most n_features ({n}), got {k}")
    length = check_int(length, "length", low=1)
    rng = check_rng(rng)
    relevant = np.sort(rng.choice(n, size=k, replace=False))
    if active is not None:
        a = check_int(active, "active", low=1)
        if a > n:
            raise ValueError(f"active must be at most n_features ({n}), got {a}")
        if density is not None:
            raise ValueError("give at most one of density and active")
        cols = _distinct_columns(n, a, length, rng)
        indptr = np.arange(0, a * length + 1, a)
        X = sp.csr_matrix((np.ones(a * length, dtype=np.float64), cols.ravel(), indptr), shape=(length, n))
    else:
        p = 1 - 2 ** (-1 / k) if density is None else float(density)
        if not 0 < p < 1:
            raise ValueError(f"density must be in (0, 1), got {density!r}")
        dense = (rng.random((length, n)) < p).astype(np.uint8)
        X = sp.csr_matrix(dense, dtype=np.float64) if sparse else dense
    positive = np.asarray((X[:, relevant] if sp.issparse(X) else X[:, relevant]).sum(axis=1)).ravel() > 0
    y = np.where(positive, 1, -1).astype(np.int8)
    if active is not None and not sparse:
        X = X.toarray().astype(np.uint8)
    return X, y, relevant


def _distinct_columns(n: int, a: int, length: int, rng: np.random.Generator) -> np.ndarray:
    """``length`` rows of ``a`` distinct columns out of n, uniform, sorted; memory O(length * a)."""
    if a * a <= n:
        # Rejection: redraw the rows that repeat a column. A row repeats with
        # probability below a^2 / (2n) <= 1/2, so a few passes suffice.
        cols = np.sort(rng.integers(n, size=(length, a)), axis=1)
        while True:
            bad = np.flatnonzero((np.diff(cols, axis=1) == 0).any(axis=1))
            if bad.size == 0:
                return cols
            cols[bad] = np.sort(rng.integers(n, size=(bad.size, a)), axis=1)
    # Many active columns: the a smallest of n random keys, a chunk of rows at a time.
    out = np.empty((length, a), dtype=np.int64)
    chunk = max(1, 2**22 // n)
    for start in range(0, length, chunk):
        keys = rng.random((min(chunk, length - start), n))
        out[start : start + len(keys)] = np.sort(np.argpartition(keys, a - 1, axis=1)[:, :a], axis=1)
    return out


def winnow1_promotion_adversary(n_features: int, n_relevant: int, theta: float | None = None):
    """The stream that makes Winnow1 promote exactly k (lg theta + 1) times (chapter 2, Lemma 3).

    Relevant variables are 0..k-1. For each in turn, the unit vector e_i is
    shown, labelled +1, until Winnow1's weight w_i exceeds theta: w_i = 1, 2, 4,
    ... is doubled floor(lg theta) + 1 times. With theta = n/2 and n a power of
    two that is lg n promotions per variable, u = k lg n in all.

    Returns X (uint8), y (int8), relevant (array).
    """
    n = check_int(n_features, "n_features", low=1)
    k = check_int(n_relevant, "n_relevant", low=1)
    if k > n:
        raise ValueError(f"n_relevant must be at most n_features ({n}), got {k}")
    theta = n / 2 if theta is None else check_real(theta, "theta", 0.0)
    if theta < 1:
        raise ValueError(f"theta must be at least 1: with theta = {theta} the initial weight 1 is never promoted")
    per_variable, weight = 0, 1.0
    while weight <= theta:  # exact: doubling 1.0 stays exact in floating point
        weight *= 2
        per_variable += 1
    rows = np.repeat(np.arange(k), per_variable)
    X = np.zeros((len(rows), n), dtype=np.uint8)
    X[np.arange(len(rows)), rows] = 1
    return X, np.ones(len(rows), dtype=np.int8), np.arange(k)


# -- expert streams (chapter 5) -------------------------------------------------------------


def _outcomes(T: int, rng: np.random.Generator) -> np.ndarray:
    return np.where(rng.random(T) < 0.5, 1, -1).astype(np.int8)


def iid_experts(horizon: int, accuracies, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Uniform outcomes and N experts, expert i right independently with probability accuracies[i].

    Returns P (T, N) and y (T,), entries ±1 (int8).
    """
    T = check_int(horizon, "horizon", low=1)
    acc = np.asarray(accuracies, dtype=float)
    if acc.ndim != 1 or acc.size == 0 or not np.all((acc >= 0) & (acc <= 1)):
        raise ValueError(f"accuracies must be a non-empty 1-D array of probabilities in [0, 1], got {accuracies!r}")
    rng = check_rng(rng)
    y = _outcomes(T, rng)
    right = rng.random((T, acc.size)) < acc
    P = np.where(right, y[:, None], -y[:, None]).astype(np.int8)
    return P, y


def planted_best_expert(horizon: int, n_experts: int, best_mistakes: int, rng: np.random.Generator):
    """Outcomes and N experts where expert 0 makes exactly m mistakes and every other expert more.

    The others guess at random (right with probability 1/2), then get extra
    mistakes where needed so that each makes at least m + 1. Returns P, y.
    """
    T = check_int(horizon, "horizon", low=1)
    n = check_int(n_experts, "n_experts", low=1)
    m = check_int(best_mistakes, "best_mistakes", low=0)
    if m >= T:
        raise ValueError(f"best_mistakes must be smaller than horizon ({T}) so that other experts can do worse, got {m}")
    rng = check_rng(rng)
    y = _outcomes(T, rng)
    wrong = rng.random((T, n)) < 0.5
    wrong[:, 0] = False
    wrong[rng.choice(T, size=m, replace=False), 0] = True
    for i in range(1, n):
        short = m + 1 - int(wrong[:, i].sum())
        if short > 0:
            wrong[rng.choice(np.flatnonzero(~wrong[:, i]), size=short, replace=False), i] = True
    P = np.where(wrong, -y[:, None], y[:, None]).astype(np.int8)
    return P, y


def wma_adversary(horizon: int, n_experts: int, eta: float, rng: np.random.Generator):
    """An adaptive adversary that makes deterministic Weighted Majority err in every round (chapter 5).

    Each round the experts' advice is drawn at random, and the outcome is set to
    the opposite of what Weighted Majority(eta) predicts on it. So M = T, while
    the best expert errs about half the time: WMA's regret grows linearly in T.
    Returns P, y.
    """
    from .experts import WeightedMajority

    T = check_int(horizon, "horizon", low=1)
    n = check_int(n_experts, "n_experts", low=1)
    rng = check_rng(rng)
    learner = WeightedMajority(n, eta)
    if learner.eta == 1.0:
        raise ValueError(
            "eta must be below 1 for this adversary: with eta = 1 (Halving) every expert soon errs "
            "and no weight is left to predict with"
        )
    P = np.where(rng.random((T, n)) < 0.5, 1, -1).astype(np.int8)
    y = np.empty(T, dtype=np.int8)
    for t in range(T):
        y[t] = -learner.predict(P[t])
        learner.update(P[t], int(y[t]))
    return P, y


def concept_experts(concept_class: ConceptClass, X) -> np.ndarray:
    """The concepts of a finite class as experts: P[t, c] = c(x_t) (chapter 5, the link to Halving)."""
    cls = _check_class(concept_class)
    X = cls.check_instances(X)
    return np.where(cls.by_instance[X], 1, -1).astype(np.int8)


# -- monotone DNF streams (chapter 6) ----------------------------------------------------


def monotone_dnf_labels(X, terms) -> np.ndarray:
    """Labels of the monotone DNF OR_T (AND_{i in T} x_i) on the rows of X (chapter 6).

    ``terms`` is a list of terms, each a list of 0-based variable indices.
    """
    from .validation import check_boolean_rows

    rows = check_boolean_rows(X, "X")
    n = rows.shape[1]
    if len(terms) == 0:
        raise ValueError("terms must hold at least one term")
    positive = np.zeros(len(rows), dtype=bool)
    for term in terms:
        idx = np.asarray(term)
        if idx.size and (idx.dtype == bool or not np.issubdtype(idx.dtype, np.integer)):
            raise TypeError(f"each term must be a list of integer variable indices, got {term!r}")
        if idx.ndim != 1 or idx.size == 0 or idx.min() < 0 or idx.max() >= n:
            raise ValueError(f"each term must be a non-empty list of variable indices in [0, {n}), got {term!r}")
        positive |= rows[:, idx].all(axis=1)
    return np.where(positive, 1, -1).astype(np.int8)


def monotone_dnf_stream(n_features: int, terms, length: int, rng: np.random.Generator, density: float = 0.5):
    """``length`` i.i.d. examples with P(x_i = 1) = ``density``, labelled by a monotone DNF (chapter 6).

    Returns
    -------
    X : ndarray of uint8, shape (length, n_features)
    y : ndarray of int8, shape (length,)
    """
    n = check_int(n_features, "n_features", low=1)
    length = check_int(length, "length", low=1)
    rng = check_rng(rng)
    if isinstance(density, bool) or not isinstance(density, (int, float, np.integer, np.floating)) or not 0 < density < 1:
        raise ValueError(f"density must be a real number in (0, 1), got {density!r}")
    X = (rng.random((length, n)) < density).astype(np.uint8)
    return X, monotone_dnf_labels(X, terms)


# -- the positive half-cube (chapter 7, Directed Drift) ------------------------------------


def check_sign_vector(w, name: str = "w_star") -> np.ndarray:
    """Return ``w`` as an int8 vector after checking that every entry is -1 or +1 (chapter 7)."""
    arr = np.asarray(w)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number):
        raise TypeError(f"{name} must be a vector in {{-1, 1}}^n of numbers, got dtype {arr.dtype}")
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty vector in {{-1, 1}}^n, got shape {arr.shape}")
    bad = (arr != 1) & (arr != -1)
    if bad.any():
        raise ValueError(f"{name} must have entries in {{-1, 1}}, got {arr[bad].flat[0].item()!r}")
    return arr.astype(np.int8)


def positive_halfcube(w_star, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` independent draws from the uniform distribution on {u in {-1,1}^n : <w*, u> >= 0}.

    Chapter 7 (Directed Drift), the setting of Fang and Venkatesh. Exact for
    every n. For odd n, <w*, u> is never 0, so replacing a uniform u of the cube
    by -u when <w*, u> < 0 is a bijection between the two halves. For even n
    that trick is not uniform (the ties <w*, u> = 0 are hit once, the other
    positive vertices twice), so rows with <w*, u> < 0 are redrawn instead
    (each draw is kept with probability >= 1/2).

    Returns
    -------
    ndarray of int8, shape (size, n), entries in {-1, 1}
    """
    w = check_sign_vector(w_star)
    size = check_int(size, "size", low=0)
    rng = check_rng(rng)
    return w * _relative_halfcube(len(w), size, rng)


def _relative_halfcube(n: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """Uniform draws from the positive half-cube of w* = (1, ..., 1): at least half the entries are +1."""
    rows = 2 * rng.integers(0, 2, size=(size, n), dtype=np.int8) - 1
    sums = rows.sum(axis=1, dtype=np.int64)
    if n % 2:
        rows[sums < 0] *= -1
        return rows
    bad = np.flatnonzero(sums < 0)
    while bad.size:
        redraw = 2 * rng.integers(0, 2, size=(bad.size, n), dtype=np.int8) - 1
        rows[bad] = redraw
        bad = bad[redraw.sum(axis=1, dtype=np.int64) < 0]
    return rows
