"""Chapter 4 ("Winnow"): the race against the Perceptron, the experiment and its figure.

* ``bernoulli_rows`` and ``race`` run the Perceptron and Winnow on the same
  random streams, chunk by chunk, with the fast engine of ``onlinelib.run``.
* ``compare_winnow`` counts Winnow(alpha, theta)'s promotions and demotions on
  random streams and on the sequence of ``onlinelib.beam_adversary``, against
  the bounds, and returns plain numbers; ``plot_winnow_comparison`` draws them,
  and ``onlinelib.explorers.winnow_explorer`` redraws the figure for other settings.

The chapter's adversaries (``exhaustive_adversary``, ``beam_adversary``,
``promotion_adversary``) are in ``onlinelib.adversaries``; ``winnow2_exact_replay``,
re-exported here for the chapter, replays a stream on Winnow in exact rational
arithmetic (the chapter asserts every adversary count with it), and ``notes_winnow_bound_sign``
(``onlinelib.bounds``) decides M against the notes' bound exactly. ``NOTES_COUNTEREXAMPLES``
stores, as ``onlinelib.winnow_certificate`` text, the beam-search streams that contradict the
notes' strict bound M < 2 + 3(lg N + 1) at sizes too slow to search while the page builds;
``replay_notes_counterexample`` replays one exactly, and ``refind_notes_counterexample``
repeats its search (the tests compare the two); they live in ``winnow_certificates`` and are
re-exported here. Its proof instruments
(``proof_observables``) in ``onlinelib.observers``. Conventions as in
``onlinelib.linear.Winnow2``: weights start at 1, the prediction is +1 iff
w.x > theta (or >= theta with ``positive_at_threshold``), promotions multiply
the active weights by alpha, demotions divide them.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp

from ..adversaries import beam_adversary, winnow2_exact_replay
from ..bounds import notes_winnow_bound, notes_winnow_bound_sign, winnow2_bound
from ..linear import Perceptron, Winnow2, winnow2_default_threshold
from ..plotting import BOUND_LABELS, BOUND_STYLES
from ..protocol import run
from ..streams import disjunction_stream
from ..validation import Interval, check_int, check_real, check_rng, check_scalar
from .winnow_certificates import (
    NOTES_COUNTEREXAMPLES,
    NotesCounterexample,
    refind_notes_counterexample,
    replay_notes_counterexample,
)

__all__ = [
    "RUN_NAMES",
    "RaceResult",
    "bernoulli_rows",
    "race",
    "compare_winnow",
    "plot_winnow_comparison",
    "winnow2_exact_replay",
    "notes_winnow_bound_sign",
    "NOTES_COUNTEREXAMPLES",
    "NotesCounterexample",
    "replay_notes_counterexample",
    "refind_notes_counterexample",
]

#: Bernoulli densities: probabilities strictly between 0 and 1.
DENSITY = Interval(float, 0, 1, "neither")


def bernoulli_rows(n_rows: int, n_features: int, density: float, rng: np.random.Generator) -> sp.csr_matrix:
    """A CSR matrix of i.i.d. Bernoulli(``density``) bits, drawn in time proportional to its ones.

    The positions of the ones in the row-major order of the matrix are the
    partial sums of i.i.d. geometric gaps, which is exactly a Bernoulli process;
    so this has the same distribution as ``rng.random((n_rows, n_features)) <
    density`` but never builds the dense matrix (chapter 4's experiment uses
    n_features up to 16 384).
    """
    m = check_int(n_rows, "n_rows", 1)
    n = check_int(n_features, "n_features", 1)
    p = check_scalar(density, "density", DENSITY)
    rng = check_rng(rng)
    total = m * n
    draw = int(p * total + 6 * math.sqrt(p * total) + 16)
    positions = np.cumsum(rng.geometric(p, size=draw)) - 1
    while positions[-1] < total:
        more = np.cumsum(rng.geometric(p, size=draw)) + positions[-1]
        positions = np.concatenate([positions, more])
    positions = positions[positions < total]
    rows, cols = np.divmod(positions, n)
    index_type = np.int32 if total < 2**31 else np.int64
    indptr = np.searchsorted(rows, np.arange(m + 1)).astype(index_type)
    data = np.ones(positions.size, dtype=np.float64)
    return sp.csr_matrix((data, cols.astype(index_type), indptr), shape=(m, n))


class RaceResult(NamedTuple):
    """Mistakes of Winnow and of the Perceptron on one stream (``race``).

    ``*_late`` count the mistakes in the last quarter of the stream: a learner
    that still errs there has not converged. ``positive`` is the fraction of
    positive examples, ``active`` the mean and ``max_active`` the largest
    number of ones in an example (Novikoff's bound for the Perceptron uses
    R^2 = max_active + 1).
    """

    winnow: int
    perceptron: int
    winnow_late: int
    perceptron_late: int
    positive: float
    active: float
    max_active: int


def race(
    n_features: int,
    n_relevant: int,
    length: int,
    rng: np.random.Generator,
    *,
    alpha: float = 2.0,
    theta: float | None = None,
    density: float | None = None,
    chunk: int = 1000,
) -> RaceResult:
    """Winnow(alpha, theta) and the Perceptron (with bias) on the same random disjunction stream.

    Chapter 4, "Irrelevant attributes". The target is a monotone disjunction of
    ``n_relevant`` variables chosen at random; the examples are i.i.d. Bernoulli
    bits with P(x_i = 1) = ``density`` (default 1 - 2^(-1/k), which makes half of
    them positive). Both learners see the same {0,1} vectors; the Perceptron
    also learns a bias (it predicts +1 iff w.x + b >= 0). The stream is drawn and
    played ``chunk`` rows at a time with the fast exact engine, so memory stays
    small for N = 16 384.
    """
    n = check_int(n_features, "n_features", 1)
    k = check_int(n_relevant, "n_relevant", 1, n)
    length = check_int(length, "length", 1)
    chunk = check_int(chunk, "chunk", 1)
    rng = check_rng(rng)
    alpha = check_real(alpha, "alpha", 1)
    theta = winnow2_default_threshold(n) if theta is None else check_real(theta, "theta", 0)
    p = 1 - 2 ** (-1 / k) if density is None else check_scalar(density, "density", DENSITY)
    relevant = np.sort(rng.choice(n, size=k, replace=False))
    winnow, perceptron = Winnow2(n, alpha, theta), Perceptron(n, bias=True)
    late_start = length - length // 4
    counts = np.zeros((2, 2), dtype=np.int64)  # [learner, early/late]
    positives = ones = most = 0
    for start in range(0, length, chunk):
        m = min(chunk, length - start)
        X = bernoulli_rows(m, n, p, rng)
        y = np.where(np.asarray(X[:, relevant].sum(axis=1)).ravel() > 0, 1, -1).astype(np.int8)
        positives += int(np.count_nonzero(y == 1))
        ones += X.nnz
        most = max(most, int(np.diff(X.indptr).max()))
        late = np.arange(start, start + m) >= late_start
        for row, learner in enumerate((winnow, perceptron)):
            wrong = run(learner, X, y).mistakes
            counts[row, 0] += np.count_nonzero(wrong & ~late)
            counts[row, 1] += np.count_nonzero(wrong & late)
    return RaceResult(
        winnow=int(counts[0].sum()),
        perceptron=int(counts[1].sum()),
        winnow_late=int(counts[0, 1]),
        perceptron_late=int(counts[1, 1]),
        positive=positives / length,
        active=ones / length,
        max_active=most,
    )


RUN_NAMES = ("random streams (mean)", "random streams (worst)", "adversary")


def compare_winnow(
    alpha: float,
    theta: float | None,
    n_features: int,
    n_relevant: int,
    rng: np.random.Generator,
    *,
    n_streams: int = 20,
    length: int = 1000,
    width: int = 6,
) -> dict[str, Any]:
    """Winnow(alpha, theta)'s promotions and demotions on random and adversarial streams, against the bounds.

    Chapter 4's explorer. The target is a monotone disjunction of the first
    ``n_relevant`` of ``n_features`` variables. Runs: ``n_streams`` random
    streams (``onlinelib.disjunction_stream`` with half the examples positive,
    ``length`` rounds each), reported as the mean (with its standard error)
    and the worst stream; and the sequence of ``onlinelib.beam_adversary`` (beam
    ``width``). Bounds: Littlestone's (alpha/(alpha-1)) N/theta +
    k (alpha+1)(1 + log_alpha theta) (for theta >= 1/alpha), its promotion part
    k (1 + log_alpha theta), and the lecture notes' 2 + 3k(lg N + 1), which is
    only proved for alpha = 2 and theta = N.

    Returns
    -------
    dict with keys ``alpha``, ``theta``, ``n_features``, ``n_relevant``,
    ``runs`` (name -> {"promotions", "demotions", "mistakes"}), ``stderr`` (of
    the random streams' mean mistakes), ``n_streams``, ``bounds`` (name ->
    value) and ``notes_violated`` (whether the worst random stream or the adversary
    reaches the notes' bound, which the notes state as strict, M < 2 + 3k(lg N + 1);
    decided exactly by ``onlinelib.notes_winnow_bound_sign``).
    """
    n = check_int(n_features, "n_features", 1, 4096)
    k = check_int(n_relevant, "n_relevant", 1, n)
    alpha = check_real(alpha, "alpha", 1)
    theta = winnow2_default_threshold(n) if theta is None else check_real(theta, "theta", 0)
    if alpha * theta < 1:
        raise ValueError(
            f"theta must be at least 1 / alpha = {1 / alpha:.6g} (Littlestone's bound needs "
            f"1 + log_alpha theta >= 0), got {theta}"
        )
    rng = check_rng(rng)
    n_streams = check_int(n_streams, "n_streams", 2)
    length = check_int(length, "length", 1)
    width = check_int(width, "width", 1)
    counts = np.zeros((n_streams, 2), dtype=np.int64)
    for s in range(n_streams):
        X, y, _ = disjunction_stream(n, k, length, rng, sparse=True)
        learner = Winnow2(n, alpha, theta)
        run(learner, X, y)
        counts[s] = learner.promotions, learner.demotions
    totals = counts.sum(axis=1)
    worst = counts[int(np.argmax(totals))]
    adversary = beam_adversary(n, alpha, theta, rng=rng, n_relevant=k, width=width, n_random=1)
    runs = {
        RUN_NAMES[0]: {
            "promotions": float(counts[:, 0].mean()),
            "demotions": float(counts[:, 1].mean()),
            "mistakes": float(totals.mean()),
        },
        RUN_NAMES[1]: {"promotions": float(worst[0]), "demotions": float(worst[1]), "mistakes": float(worst.sum())},
        RUN_NAMES[2]: {
            "promotions": float(adversary.promotions),
            "demotions": float(adversary.demotions),
            "mistakes": float(adversary.mistakes),
        },
    }
    bounds = {
        "Littlestone": float(winnow2_bound(n, k, alpha, theta)),
        "promotion part k(1 + log_a theta)": float(k * (1 + math.log(theta) / math.log(alpha))),
        "notes 2 + 3k(lg N + 1)": float(notes_winnow_bound(n, k)),
    }
    most = int(max(worst.sum(), adversary.mistakes))  # whole counts (the mean is not one)
    return {
        "alpha": alpha,
        "theta": theta,
        "n_features": n,
        "n_relevant": k,
        "runs": runs,
        "stderr": float(totals.std(ddof=1) / math.sqrt(n_streams)),
        "n_streams": n_streams,
        "bounds": bounds,
        "notes_violated": notes_winnow_bound_sign(most, n, k) >= 0,
    }


def plot_winnow_comparison(result: dict[str, Any], ax: Any = None) -> Any:
    """Stacked bars of promotions (m+) and demotions (m-) per run, with the three bounds.

    ``result`` is what ``compare_winnow`` returns. The mean over random streams
    carries a 95% confidence interval: the standard error times the 97.5%
    quantile of Student's t with ``n_streams - 1`` degrees of freedom.
    """
    from scipy.stats import t as student_t  # here, not at import: scipy.stats takes about 0.3 s

    if ax is None:
        _, ax = plt.subplots(figsize=(7.5, 3.8))
    names = list(result["runs"])
    promotions = np.array([result["runs"][r]["promotions"] for r in names])
    demotions = np.array([result["runs"][r]["demotions"] for r in names])
    positions = np.arange(len(names))
    ax.bar(positions, promotions, color="#2ca02c", alpha=0.85, label="promotions $m^+$")
    errors = np.zeros(len(names))
    errors[0] = student_t.ppf(0.975, result["n_streams"] - 1) * result["stderr"]
    ax.bar(
        positions,
        demotions,
        bottom=promotions,
        color="#ff7f0e",
        alpha=0.85,
        label="demotions $m^-$",
        yerr=errors,
        capsize=4,
    )
    for pos, total in zip(positions, promotions + demotions, strict=True):
        ax.text(pos, total, f"{total:.1f}".rstrip("0").rstrip("."), ha="center", va="bottom", fontsize=9)
    for name, value in result["bounds"].items():
        ax.axhline(value, label=f"{BOUND_LABELS.get(name, name)} = {value:.3g}", **BOUND_STYLES.get(name, {}))
    ax.set_xticks(positions, [name.replace(" (", "\n(") for name in names], fontsize=9)
    ax.set_ylabel("mistakes")
    verdict = "notes' bound VIOLATED" if result["notes_violated"] else "notes' bound holds here"
    ax.set_title(
        f"Winnow($\\alpha$={result['alpha']:.3g}, $\\theta$={result['theta']:.4g}), "
        f"N={result['n_features']}, k={result['n_relevant']}: {verdict}",
        fontsize=10,
    )
    top = max(float((promotions + demotions).max() + errors.max()), max(result["bounds"].values()))
    ax.set_ylim(0, 1.3 * top + 1)
    ax.legend(loc="upper left", fontsize=8, framealpha=0.9, ncol=2)
    return ax
