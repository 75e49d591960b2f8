"""Example streams: the instances and labels that the chapters run their learners on.

* Chapter 1: ``random_stream``, instances of a finite class's domain labelled by a target.
* Chapters 2-4: ``separable_stream`` (a margin and a radius), ``perceptron_lower_bound_stream``
  (Novikoff's bound met exactly) and ``disjunction_stream`` (a monotone disjunction).
* Chapter 5: ``iid_experts``, ``planted_best_expert`` and ``concept_experts``.
* Chapter 6: ``monotone_dnf_labels`` and ``monotone_dnf_stream``.
* Chapter 7: ``positive_halfcube`` (and ``check_sign_vector``).

The adversaries, which choose a stream to force mistakes, are in ``onlinelib.adversaries``.
"""

from __future__ import annotations

import numpy as np

from .concepts import ConceptClass, check_concept_class
from .reproducible import UNIT_ROUNDOFF, fixed_order_dot, fixed_order_squared_norms
from .validation import Interval, check_int, check_real, check_rng, check_scalar

__all__ = [
    "random_stream",
    "separable_stream",
    "perceptron_lower_bound_stream",
    "disjunction_stream",
    "iid_experts",
    "planted_best_expert",
    "concept_experts",
    "monotone_dnf_labels",
    "monotone_dnf_stream",
    "check_sign_vector",
    "positive_halfcube",
    "ones_halfcube",
    "halfcube_vote_sums",
]


def random_stream(
    concept_class: ConceptClass, target: int, length: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``length`` instances drawn uniformly (with replacement) and labelled by ``target``.

    Returns
    -------
    X : ndarray of int64, shape (length,)
        Instance indices.
    y : ndarray of int8, shape (length,)
        Labels in {-1, +1}.
    """
    cls = check_concept_class(concept_class)
    target = cls.check_concept(target)
    if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or length < 1:
        raise ValueError(f"length must be a positive integer, got {length!r}")
    rng = check_rng(rng)
    X = rng.integers(cls.n_instances, size=int(length))
    return X, cls.labels(target, X)


# -- linear-threshold streams (chapters 2-4) -----------------------------------------


def separable_stream(
    n_features: int, length: int, margin: float, rng: np.random.Generator, radius: float = 1.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A linearly separable stream with margin at least ``margin`` and radius ``radius`` (chapter 3).

    Draws a target w* uniformly on the sphere, then points uniformly in the ball of the given
    radius, keeping those with ``|<w*, x>| >= margin`` (rejection sampling, vectorised), and labels
    them sign(<w*, x>). A point uniform in the d-ball is the first d coordinates of a point uniform
    on the sphere in d + 2 dimensions (Voelker, Gosmann and Stewart, 2017), so only normal draws,
    products, sums and square roots are needed: with ``onlinelib.reproducible`` they round the same
    on every CPU, and the same seed gives the same stream on every machine.

    The hypotheses of Novikoff's theorem hold exactly for the floats returned, not only up to
    rounding: ``||w*|| <= 1`` (it is 1 to within ``(d + 6) 2^-52``), and every example has
    ``||x|| <= radius`` and ``y <w*, x> >= margin`` in exact arithmetic (points within the
    rounding error bound of either limit are redrawn; ``tests/test_streams.py`` checks this with
    fractions).

    Returns
    -------
    X : ndarray, shape (length, n_features)
    y : ndarray of int8, shape (length,)
    w_star : ndarray, shape (n_features,), of norm at most 1 and at least 1 - (d + 6) 2^-52
    """
    d = check_int(n_features, "n_features", low=1)
    length = check_int(length, "length", low=1)
    radius = check_real(radius, "radius", 0.0)
    margin = check_real(margin, "margin", 0.0)
    if margin >= radius:
        raise ValueError(f"margin must be smaller than radius ({radius}), got {margin}")
    rng = check_rng(rng)
    u = UNIT_ROUNDOFF
    g = rng.standard_normal(d)
    # Scaled just below 1 by more than the normalisation's rounding error, so ||w*|| <= 1 exactly.
    w_star = g * ((1.0 - (d + 4) * 2 * u) / np.sqrt(fixed_order_squared_norms(g)))
    # A computed <w*, x> is within (d u / (1 - d u)) |w*| |x| < 2 d u radius of the exact one; the
    # norm test leaves room for the rounding of |z_head|^2, |z|^2, the square root and two products.
    dot_slack = 2 * d * u * radius
    norm_slack = 2 * (d + 6) * u
    kept: list[np.ndarray] = []
    n_kept = n_drawn = 0
    while n_kept < length:
        if n_drawn >= 10**6 and n_kept < 1e-4 * n_drawn:
            raise ValueError(
                f"margin {margin} is too large for {d} dimensions and radius {radius}: "
                f"only {n_kept} of {n_drawn} uniform points in the ball had |<w*, x>| >= margin"
            )
        batch = max(1024, 2 * (length - n_kept))
        z = rng.standard_normal((batch, d + 2))
        head = fixed_order_squared_norms(z[:, :d])
        whole = head + z[:, d] * z[:, d] + z[:, d + 1] * z[:, d + 1]
        points = z[:, :d] * (radius / np.sqrt(whole))[:, None]
        n_drawn += batch
        score = np.abs(fixed_order_dot(points, w_star))
        points = points[(score >= margin + dot_slack) & (head <= (1.0 - norm_slack) * whole)]
        kept.append(points)
        n_kept += len(points)
    X = np.concatenate(kept)[:length]
    y = np.where(fixed_order_dot(X, w_star) > 0, 1, -1).astype(np.int8)
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
        p = 1 - 2 ** (-1 / k)
        if density is not None:
            p = check_scalar(density, "density", Interval(float, 0, 1, "neither"))
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
        raise ValueError(
            f"best_mistakes must be smaller than horizon ({T}) so that other experts can do worse, got {m}"
        )
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


def concept_experts(concept_class: ConceptClass, X) -> np.ndarray:
    """The concepts of a finite class as experts: P[t, c] = c(x_t) (chapter 5, the link to Halving)."""
    cls = check_concept_class(concept_class)
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
    if (
        isinstance(density, bool)
        or not isinstance(density, (int, float, np.integer, np.floating))
        or not 0 < density < 1
    ):
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
    return w * ones_halfcube(len(w), size, rng)


_POPCOUNT = np.array([bin(b).count("1") for b in range(256)], dtype=np.int16)


def halfcube_vote_sums(n: int, groups: int, per_group: int, rng: np.random.Generator) -> np.ndarray:
    """Sums of ``per_group`` independent uniform half-cube draws, for each of ``groups`` groups (chapter 7).

    Equal in law to ``ones_halfcube(n, groups * per_group, rng).reshape(groups,
    per_group, n).sum(axis=1)``, without the draws ever being stored one entry per
    byte: the bits come packed from ``rng`` (8 coordinates per random byte), a
    row's sum is a popcount, and a compiled loop adds each row with the sign that
    maps it into the half-cube (odd n: flipped when its sum is negative; even n:
    such rows are redrawn). Directed Drift's batch modes tally their votes with it.

    Returns
    -------
    ndarray of int64, shape (groups, n)
    """
    n = check_int(n, "n", low=1)
    groups = check_int(groups, "groups", low=0)
    per_group = check_int(per_group, "per_group", low=0)
    rng = check_rng(rng)
    from . import _kernels  # numba, loaded at the first batch update

    nbytes, tail = (n + 7) // 8, n % 8
    keep = np.uint8((0xFF00 >> tail) & 0xFF) if tail else np.uint8(0xFF)  # the first n bits of the last byte

    def draw(count: int) -> tuple[np.ndarray, np.ndarray]:
        raw = rng.integers(0, 256, size=(count, nbytes), dtype=np.uint8)
        raw[:, -1] &= keep
        return raw, 2 * _POPCOUNT[raw].sum(axis=1, dtype=np.int64) - n

    raw, sums = draw(groups * per_group)
    if n % 2 == 0:
        bad = np.flatnonzero(sums < 0)
        while bad.size:
            raw[bad], sums[bad] = draw(bad.size)
            bad = bad[sums[bad] < 0]
    signs = np.where(sums < 0, -1, 1).astype(np.int64)
    out = np.zeros((groups, n), dtype=np.int64)
    if groups and per_group:
        _kernels.halfcube_column_sums(raw, n, signs, per_group, out)
    return out


def ones_halfcube(n: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """Uniform draws from the positive half-cube of w* = (1, ..., 1): at least half the entries are +1.

    ``positive_halfcube`` for the all-ones w*: Directed Drift (chapter 7) draws its examples
    relative to the teacher with it, in its inner loop. For odd n a draw with a negative sum
    is flipped (a bijection onto the half-cube); for even n it is redrawn, since flipping
    would draw the sum-zero vertices half as often as the others.

    Parameters
    ----------
    n : int
        The dimension, >= 1.
    size : int
        The number of draws, >= 0.
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of int8, shape (size, n), entries in {-1, 1}, every row sum >= 0
    """
    n = check_int(n, "n", low=1)
    size = check_int(size, "size", low=0)
    rng = check_rng(rng)
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
