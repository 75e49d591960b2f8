"""Chapter 3 ("The Perceptron"): its streams, the experiment and its figure.

* ``tie_stream``: a separable stream of small-integer vectors, whose scores
  are exact integers, so that the tie rule of the Perceptron matters often.
* ``acceptance_rate``: the fraction of the ball that ``separable_stream``
  keeps for a margin, used to refuse settings it would take ages to sample.
* ``random_rotation``: a uniformly random orthogonal matrix.
* ``perceptron_stream``: the explorer's three streams (random separable, the
  lower-bound sequence, and the lower-bound sequence in a rotated basis).
* ``compare_perceptron`` runs the Perceptron on one of them with the proof's
  instruments (``onlinelib.potential_observers``) and returns plain numbers;
  ``plot_perceptron_comparison`` draws them, and
  ``onlinelib.explorers.perceptron_explorer`` redraws the figure for other settings.
"""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
from scipy.special import betainc

from ..bounds import perceptron_bound
from ..linear import Perceptron
from ..observers import per_update, potential_observers
from ..protocol import run
from ..streams import perceptron_lower_bound_stream, separable_stream
from ..validation import check_int, check_real, check_rng

__all__ = [
    "STREAM_KINDS",
    "MAX_FEATURES",
    "MAX_LENGTH",
    "MIN_ACCEPTANCE",
    "acceptance_rate",
    "random_rotation",
    "tie_stream",
    "perceptron_stream",
    "compare_perceptron",
    "plot_perceptron_comparison",
]

STREAM_KINDS = ("random separable", "lower bound", "rotated lower bound")
MAX_FEATURES = 2000  # the lower-bound sequence needs floor(R^2/gamma^2) features
MAX_LENGTH = 1_000_000
MIN_ACCEPTANCE = 1e-3  # separable_stream rejects points; refuse hopeless settings


def acceptance_rate(n_features: int, margin: float, radius: float = 1.0) -> float:
    """The fraction of the ball that ``separable_stream`` keeps: ``P(|<w*, x>| >= margin)``.

    For x uniform in the d-dimensional ball of radius R, t = <w*, x>/R has
    density proportional to (1 - t^2)^((d-1)/2) on [-1, 1], so the fraction is
    the regularised incomplete beta function I_{1-(margin/R)^2}((d+1)/2, 1/2).
    It falls off like exp(-d (margin/R)^2 / 2): in high dimension almost every
    point is close to every hyperplane through the origin.
    """
    d = check_int(n_features, "n_features", 1, MAX_FEATURES)
    margin = check_real(margin, "margin", 0)
    radius = check_real(radius, "radius", 0)
    if margin >= radius:
        return 0.0
    return float(betainc((d + 1) / 2, 0.5, 1 - (margin / radius) ** 2))


def random_rotation(n: int, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random n x n orthogonal matrix (QR of a Gaussian matrix, with the sign fix)."""
    n = check_int(n, "n", 1, MAX_FEATURES)
    rng = check_rng(rng)
    q, r = np.linalg.qr(rng.standard_normal((n, n)))
    return q * np.where(np.diag(r) < 0, -1.0, 1.0)


def tie_stream(
    n_features: int, length: int, rng: np.random.Generator, max_weight: int = 2
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A separable stream in {-1, 0, 1}^d on which the Perceptron meets many exact ties (chapter 3).

    Draws an integer separator v with entries in [-max_weight, max_weight],
    not all 0, and instances uniform on {-1, 0, 1}^d, keeps those with
    <v, x> != 0 and labels them sign(<v, x>). Every score the Perceptron computes
    is then an integer (exactly represented), so scores of exactly 0 -- where
    the tie rule decides -- occur often, not only in the first round. The unit
    separator w* = v/||v|| has margin at least 1/||v||.

    Returns
    -------
    X : ndarray of float64, shape (length, n_features), entries in {-1, 0, 1}
    y : ndarray of int8, shape (length,)
    w_star : ndarray, shape (n_features,), unit norm
    """
    d = check_int(n_features, "n_features", 1, MAX_FEATURES)
    length = check_int(length, "length", 1, MAX_LENGTH)
    max_weight = check_int(max_weight, "max_weight", 1, 1000)
    rng = check_rng(rng)
    v = np.zeros(d, dtype=np.int64)
    while not v.any():
        v = rng.integers(-max_weight, max_weight + 1, size=d)
    kept: list[np.ndarray] = []
    n_kept = 0
    while n_kept < length:
        batch = rng.integers(-1, 2, size=(max(256, 2 * (length - n_kept)), d))
        batch = batch[batch @ v != 0]
        kept.append(batch)
        n_kept += len(batch)
    X = np.concatenate(kept)[:length]
    y = np.where(X @ v > 0, 1, -1).astype(np.int8)
    return X.astype(np.float64), y, v / np.linalg.norm(v)


def perceptron_stream(
    kind: str, margin: float, n_features: int, rng: np.random.Generator, length: int = 2000, radius: float = 1.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One of the explorer's streams, with a unit separator w* (chapter 3).

    * ``"random separable"``: ``separable_stream(n_features, length, margin, rng, radius)``.
    * ``"lower bound"``: ``perceptron_lower_bound_stream(margin, radius)``, the
      k = floor(R^2/gamma^2) examples R e_1, ..., R e_k labelled -1, padded with
      zero features up to ``n_features`` if that is larger than k.
    * ``"rotated lower bound"``: the same sequence and w* in a uniformly random
      orthonormal basis. In exact arithmetic nothing changes; in floating point
      the exact ties of the lower-bound sequence become scores of order 1e-16
      whose sign rounding decides.

    ``length`` is used by the random stream only; the lower-bound kinds have k
    rounds and max(n_features, k) features.

    Raises
    ------
    ValueError
        For an unknown kind, parameters out of range (margin must be < radius
        for random streams and <= radius otherwise), a random stream whose
        margin keeps less than ``MIN_ACCEPTANCE`` of the ball (see
        ``acceptance_rate``; ``separable_stream`` would take very long), or a
        lower-bound sequence that needs more than ``MAX_FEATURES`` features.
    TypeError
        For arguments of the wrong type (e.g. ``rng`` not a Generator).
    """
    if kind not in STREAM_KINDS:
        raise ValueError(f"kind must be one of {STREAM_KINDS}, got {kind!r}")
    margin = check_real(margin, "margin", 0)
    radius = check_real(radius, "radius", 0)
    n_features = check_int(n_features, "n_features", 1, MAX_FEATURES)
    length = check_int(length, "length", 1, MAX_LENGTH)
    rng = check_rng(rng)
    if kind == "random separable":
        if margin >= radius:
            raise ValueError(f"margin must be smaller than radius ({radius}) for a random stream, got {margin}")
        rate = acceptance_rate(n_features, margin, radius)
        if rate < MIN_ACCEPTANCE:
            raise ValueError(
                f"margin {margin} is too large for a random separable stream in {n_features} dimensions: "
                f"only a fraction {rate:.2g} of the ball lies that far from a hyperplane "
                f"(at least {MIN_ACCEPTANCE:g} is needed); use a smaller margin or dimension"
            )
        return separable_stream(n_features, length, margin, rng, radius)
    if margin > radius:
        raise ValueError(f"margin must be at most radius ({radius}), got {margin}")
    if (radius / margin) ** 2 > MAX_FEATURES + 1:
        raise ValueError(
            f"the lower-bound sequence needs floor(R^2/gamma^2) features, at most {MAX_FEATURES}; "
            f"margin {margin} with radius {radius} needs {(radius / margin) ** 2:.0f}: use a larger margin"
        )
    X, y, w_star = perceptron_lower_bound_stream(margin, radius)
    k = len(y)
    if k > MAX_FEATURES:
        raise ValueError(f"the lower-bound sequence needs {k} > {MAX_FEATURES} features: use a larger margin")
    d = max(n_features, k)
    if d > k:
        X = np.hstack([X, np.zeros((k, d - k))])
        w_star = np.concatenate([w_star, np.zeros(d - k)])
    if kind == "rotated lower bound":
        Q = random_rotation(d, rng)
        X, w_star = X @ Q.T, Q @ w_star
    return X, y, w_star


def compare_perceptron(
    kind: str,
    margin: float,
    n_features: int,
    rng: np.random.Generator,
    length: int = 2000,
    radius: float = 1.0,
) -> dict[str, Any]:
    """Run the Perceptron on one stream and measure Novikoff's quantities (chapter 3's explorer).

    The stream comes from ``perceptron_stream``. R and gamma are *measured* on
    it (R = max ||x_t||, gamma = min y_t <w*, x_t> for its unit w*), and the
    bound is R^2/gamma^2 for these measured values; ``nominal_bound`` is
    radius^2/margin^2 for the parameters asked for.

    Returns
    -------
    dict with keys ``kind``, ``n_features`` (features used), ``length``
    (rounds), ``radius`` and ``margin`` (measured), ``nominal_radius``,
    ``nominal_margin``, ``bound``, ``nominal_bound``, ``mistakes``,
    ``updates``, ``norm2`` and ``alignment`` (||w_k||^2 and <w*, w_k> after
    k = 0..U updates, as arrays), and ``note`` (a sentence, or "").
    """
    X, y, w_star = perceptron_stream(kind, margin, n_features, rng, length, radius)
    learner = Perceptron(X.shape[1])
    trace = run(learner, X, y, observe=potential_observers(w_star), method="blocks")
    measured_radius = float(np.sqrt(np.max(np.einsum("ij,ij->i", X, X))))
    measured_margin = float(np.min(y * (X @ w_star)))
    note = ""
    if kind != "random separable" and n_features < X.shape[1]:
        note = (
            f"The lower-bound sequence needs {X.shape[1]} features, more than the "
            f"{n_features} asked for, so {X.shape[1]} were used."
        )
    return {
        "kind": kind,
        "n_features": int(X.shape[1]),
        "length": len(y),
        "radius": measured_radius,
        "margin": measured_margin,
        "nominal_radius": float(radius),
        "nominal_margin": float(margin),
        "bound": perceptron_bound(measured_radius, measured_margin),
        "nominal_bound": perceptron_bound(radius, margin),
        "mistakes": trace.n_mistakes,
        "updates": int(learner.n_updates),
        "norm2": per_update(trace, "||w||^2"),
        "alignment": per_update(trace, "<w*,w>"),
        "note": note,
    }


def plot_perceptron_comparison(result: dict[str, Any], axes: Any = None) -> np.ndarray:
    """Three panels for a ``compare_perceptron`` result (chapter 3).

    Left: ||w_k||^2 against k R^2 (step 2 of the proof). Middle: <w*, w_k>
    against k gamma and ||w_k|| (steps 3 and 4). Right: mistakes and updates
    against the bound R^2/gamma^2. Returns the three axes.
    """
    if axes is None:
        _, axes = plt.subplots(1, 3, figsize=(10.5, 3.6), gridspec_kw={"width_ratios": [1, 1, 0.8]})
    axes = np.asarray(axes).ravel()
    if axes.size != 3:
        raise ValueError(f"axes must hold 3 axes, got {axes.size}")
    R, gamma = result["radius"], result["margin"]
    norm2, alignment = result["norm2"], result["alignment"]
    k = np.arange(len(norm2))
    ax = axes[0]
    ax.plot(k, k * R**2, "k--", label=r"$kR^2$")
    ax.plot(k, norm2, "o-", color="C0", ms=3, label=r"$\|w_k\|^2$")
    ax.set(xlabel="updates $k$", title="potential: upper bound")
    ax.legend(fontsize=8)
    ax = axes[1]
    ax.plot(k, np.sqrt(norm2), "o-", color="C0", ms=3, label=r"$\|w_k\|$")
    ax.plot(k, alignment, "o-", color="C1", ms=3, label=r"$\langle w^*, w_k\rangle$")
    ax.plot(k, k * gamma, "k:", label=r"$k\gamma$")
    ax.set(xlabel="updates $k$", title="alignment: lower bound")
    ax.legend(fontsize=8)
    ax = axes[2]
    names = ["mistakes", "updates"]
    values = [result["mistakes"], result["updates"]]
    ax.bar(names, values, color=["C3", "C2"], alpha=0.85)
    for i, value in enumerate(values):
        ax.text(i, value, str(value), ha="center", va="bottom", fontsize=9)
    ax.axhline(result["bound"], color="black", linestyle="--", label=rf"$R^2/\gamma^2$ = {result['bound']:.4g}")
    ax.set_ylim(0, 1.25 * max(result["bound"], max(values)) + 0.5)
    ax.legend(fontsize=8, loc="upper right")
    ax.set_title(f"{result['kind']}, d = {result['n_features']}, T = {result['length']}", fontsize=10)
    return axes
