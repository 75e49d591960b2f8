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
repeats its search (the tests compare the two). Its proof instruments
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

from ..adversaries import beam_adversary, winnow2_exact_replay, winnow_certificate, winnow_certificate_stream
from ..bounds import notes_winnow_bound, notes_winnow_bound_sign, winnow2_bound
from ..linear import Perceptron, Winnow2, winnow2_default_threshold
from ..plotting import BOUND_LABELS, BOUND_STYLES
from ..protocol import run
from ..streams import disjunction_stream
from ..validation import Interval, check_int, check_real, check_rng, check_scalar

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


# -- the notes' bound: counterexamples found offline ----------------------------------------------

#: The search that found each stored stream: ``beam_adversary(N, alpha, rng=np.random.default_rng(0),
#: width=16, n_random=2, positive_at_threshold=...)``, target x_0, theta = N.
NOTES_SEARCH = {"seed": 0, "width": 16, "n_random": 2}

#: (alpha, N) -> (positive_at_threshold of the search, the stream as ``winnow_certificate`` text).
NOTES_COUNTEREXAMPLES: dict[tuple[float, int], tuple[bool, str]] = {
    (1.5, 40): (
        False,
        (
            "+0:39;-1:27;+0:25,1:9;+0:1,1:11,2:9;-0:1,1:9,2:4,3:5;--1:1,0:7,1:6,2:6,3:3;+0:1,1:8,2:9,3:1;+-2:1,"
            "-1:4,0:5,1:1,2:3,3:4,4:1;--1:2,0:2,1:5,2:4,3:3,4:2;+-1:2,0:5,1:5,2:3,3:2,4:1;+0:1,2:1,4:2,5:2;+-2:1,"
            "0:2,1:5,2:2,3:1,4:1;+-1:1,2:1,6:1;--2:1,-1:1,1:2,2:7,3:6;--3:1,-2:1,0:3,1:6,2:2,3:3,4:1,5:1;--4:1,"
            "-1:1,0:2,1:2,2:3,3:1,4:1,5:1,6:1;--5:1,-3:1,2:1,4:1,5:2,7:1;--6:1,-2:1,2:2,3:4,4:2,6:1;--7:1,-4:1,"
            "-1:1,1:6,2:7,3:2,5:1;+-8:1,1:1;--7:1,-5:1,0:10,1:12,2:3,4:1"
        ),
    ),
    (1.6, 192): (
        True,
        (
            "+0:190;-0:1,1:120;+-1:1,0:100,1:56;+0:12,1:58,2:33;-0:9,1:68,2:29;--1:4,0:29,1:12,2:28,3:17;--2:4,"
            "-1:21,0:25,1:28,2:26,3:10;+-3:2,-2:18,-1:30,0:46,1:30,2:20,3:4;--3:2,-2:5,-1:26,0:38,1:59,2:16;--4:1,"
            "-3:4,-2:17,-1:25,0:39,1:11,2:14,3:17,4:1;+-5:1,-3:1,-1:37,0:31,1:19,2:22,3:6,4:3;+-4:6,-3:11,-2:25,"
            "-1:9,0:20,1:19,2:10,3:8,4:5,5:2;--3:10,-2:14,-1:20,0:14,1:21,2:15,3:12,4:3,6:1;--4:5,-3:8,-2:17,"
            "-1:12,0:18,1:17,2:14,3:8,4:2,5:3,6:1;+-5:4,-4:7,-3:17,-2:16,-1:17,0:22,1:16,2:14,3:7,4:3,5:2;+-4:7,"
            "-3:9,-2:11,-1:16,0:17,1:17,2:9,3:4,4:4,5:2,6:1;--5:1,-4:1,-3:8,-2:8,-1:8,0:8,1:10,2:13,3:9,4:6,5:3,"
            "6:1;+-6:1,-4:3,-3:4,-2:8,-1:11,0:8,1:19,2:14,3:4,4:3,5:1,6:1;--5:2,-4:4,-3:5,-2:4,-1:6,0:16,1:11,"
            "2:10,3:10,4:4,5:3,7:1;+-4:3,-3:3,-2:4,-1:2,0:10,1:3,2:9,3:9,4:2,5:3;+-4:1,-1:1,3:1,6:3,7:1;--6:1,"
            "-5:1,0:1,4:1,5:1,6:3,7:3,8:1;--7:1,-6:1,-3:1,1:1,3:1,4:7,5:6,6:3,7:1;+-8:1,-6:1,-4:1,-1:1,0:2,2:1,"
            "3:1,4:1;--7:2,-4:1,-2:1,1:1,3:8,4:15,5:4,6:1;--8:2,-5:1,-4:2,-3:7,-2:7,-1:20,0:11,1:14,2:19,3:21,"
            "4:1;--9:2,-6:1,-5:5,-4:7,-3:10,-2:15,-1:14,0:11,1:21,2:25,3:11,4:3;--10:2,-4:1,-1:19,0:32,1:36,2:20,"
            "3:7,5:1"
        ),
    ),
    (1.6, 384): (
        True,
        (
            "+0:382;-0:1,1:240;+0:155,1:142;--1:1,0:41,1:86,2:80;--2:1,-1:33,0:85,1:105,2:43;+-3:1,-2:31,-1:89,"
            "0:140,1:78,2:19;--2:1,-1:1,1:66,2:78,3:19;+-1:1,0:73,1:161,2:19;--3:1,-2:3,-1:18,0:53,1:39,2:84,"
            "3:10;+-4:1,-3:2,-2:15,-1:54,0:49,1:79,2:60,3:2;--3:2,-2:4,-1:18,0:40,1:40,2:53,3:32;--4:2,-3:2,-2:10,"
            "-1:33,0:49,1:58,2:46,3:21,4:2;+-5:1,-3:1,-1:1,0:11,1:89,2:60,3:16;--5:1,-4:1,-3:7,-2:26,-1:34,0:43,"
            "1:4,2:46,3:32,4:8;--6:1,-5:1,-1:1,1:1,2:71,3:36,4:8;+-3:1,0:35,1:123,2:40,3:8;--7:1,-6:1,-4:6,-3:19,"
            "-2:26,-1:44,0:4,1:21,2:72,3:21,4:5;+-8:1,-5:5,-4:16,-3:25,-2:47,-1:20,0:18,1:55,2:55,3:14,4:2;+-7:1,"
            "-4:1,-2:1,3:54,4:15,5:2;--7:1,-6:1,-5:1,-4:5,-3:14,-2:22,-1:24,0:12,1:20,2:36,3:6,4:17,5:8;--8:1,"
            "-7:1,-6:1,-5:3,-4:11,-3:18,-2:22,-1:25,0:17,1:31,2:21,3:9,4:20,5:3,6:2;+-7:1,-5:1,-1:1,2:1,3:16,"
            "4:28,5:6;+-6:3,-5:5,-4:10,-3:16,-2:19,-1:17,0:25,1:13,2:8,3:4,4:6,5:9,6:2;--9:1,-5:6,-4:11,-3:17,"
            "-2:21,-1:15,0:15,1:27,2:11,3:4,4:7,5:8,6:6,7:1;--10:1,-6:5,-5:5,-4:16,-3:17,-2:22,-1:25,0:30,1:23,"
            "2:16,3:18,4:4,5:9,6:3;--11:1,-8:1,-7:3,-6:3,-5:12,-4:7,-3:16,-2:28,-1:13,0:20,1:16,2:14,3:4,4:12,"
            "5:10,6:3,7:1;--12:1,-9:1,-6:1,-1:1,1:1,2:12,3:19,4:18,5:10,6:3;--13:1,-10:1,-8:3,-7:6,-6:13,-5:17,"
            "-4:34,-3:46,-2:28,-1:43,0:45,1:47,2:25,3:16,4:7,5:3;+-9:1,-7:1,-5:1,-1:1,0:38,1:31,2:17,3:9,4:6;"
            "+-14:1,-11:1,-9:2,-8:3,-7:7,-6:8,-5:12,-4:13,-3:6,-2:10,-1:11,0:4,1:7,2:8,3:5,4:3,5:1;--13:1,-8:1,"
            "-6:1,-3:1,0:1,1:32,2:30,3:20,4:11,5:8,6:1"
        ),
    ),
    (1.7, 2048): (
        True,
        (
            "+0:2046;+0:1,1:1203;+1:1,2:707;-1:263,2:163,3:230;+0:103,1:282,2:213,3:172;+0:36,1:180,2:192,3:151,"
            "4:48;-0:34,1:112,2:162,3:128,4:70,5:10;--1:11,0:48,1:139,2:156,3:117,4:57,5:18;--2:7,-1:25,0:102,"
            "1:131,2:155,3:140,4:53,5:9;--3:4,-2:7,-1:59,0:129,1:161,2:178,3:139,4:44,5:3;--4:1,-3:4,-2:44,-1:100,"
            "0:163,1:219,2:216,3:102,4:34,5:2;+-4:1,2:179,3:191,4:59,5:6;+-5:1,-4:4,-3:20,-2:50,-1:104,0:155,"
            "1:209,2:74,3:60,4:66,5:21,6:3;--4:1,-3:1,-1:1,1:1,4:1,5:94,6:24,7:3;+-5:1,-3:1,1:1,3:1,4:173,5:34,"
            "6:3;--4:2,-3:5,-2:32,-1:63,0:102,1:123,2:101,3:61,4:25,5:38,6:11,7:2;+-3:16,-2:42,-1:70,0:121,1:116,"
            "2:88,3:47,4:35,5:41,6:10;--5:1,-1:1,2:1,5:17,6:56,7:11;--6:1,-5:1,-4:3,-3:12,-2:34,-1:60,0:92,1:121,"
            "2:84,3:48,4:47,5:55,6:2;--7:1,-6:1,-5:1,-4:7,-3:25,-2:49,-1:83,0:125,1:149,2:99,3:70,4:54,5:33,6:2;"
            "+-6:1,-1:1,1:1,4:49,5:95,6:7;--8:1,-7:1,-5:1,-3:1,4:1,5:1,6:72,7:7;--9:1,-8:1,-6:1,-5:5,-4:16,-3:30,"
            "-2:57,-1:90,0:111,1:117,2:95,3:73,4:25,5:37,6:12;+-10:1,1:1,2:1,4:7,5:95,6:18;--9:1,-6:1,0:1,3:1,"
            "6:54,7:18;+-10:1,-7:1,-4:1,2:1,4:1,5:19,6:59;--9:2,-6:1,-3:1,1:1,2:1,4:1,6:1,7:49;+-10:2,-7:1,2:1,"
            "5:1,6:43,7:10;+-9:1,-5:2,-4:16,-3:14,-2:30,-1:47,0:65,1:53,2:43,3:18,4:15,5:8,6:5,7:7;--9:1,-8:1,"
            "-6:1,-2:1,7:21,8:17;--10:1,-9:1,-7:1,-6:2,-5:6,-4:10,-3:36,-2:71,-1:93,0:118,1:98,2:70,3:51,4:29,"
            "5:17,6:17,7:8;+-11:1,-10:1,-7:2,-5:3,-4:3,-3:8,-2:5,-1:15,0:19,1:13,2:9,3:15,4:4,5:5,6:1,7:2;--10:1,"
            "-9:1,-6:5,-5:7,-4:24,-3:40,-2:60,-1:91,0:94,1:87,2:70,3:36,4:26,5:19,6:16,7:8,8:2;--11:1,-10:1,-8:1,"
            "-7:3,-6:5,-5:16,-4:32,-3:64,-2:91,-1:131,0:132,1:134,2:74,3:40,4:32,5:16,6:17,7:6;--12:1,-11:1,-5:1,"
            "-3:1,-1:1,2:1,4:14,5:47,6:25,7:16;--13:1,-12:1,-9:1,-8:3,-7:5,-6:11,-5:30,-4:53,-3:93,-2:155,-1:167,"
            "0:176,1:122,2:88,3:65,4:54,5:12,6:12;--14:1,-13:1,-10:1,-9:1,-6:1,1:69,2:139,3:119,4:59,5:25,6:4;"
            "--15:1,-14:1,-9:1,-3:1,-2:270,-1:341,0:358,1:292,2:119,3:59,4:25,5:4"
        ),
    ),
    (1.7, 4096): (
        True,
        (
            "+0:4094;-0:1,1:2409;+-1:1,0:2409,1:991;+1:723,2:991;-0:1,1:2380,2:17;--1:1,2:1,3:833;--2:1,0:1263,"
            "1:9,2:827,3:87;--3:1,-1:1,0:19,1:836,2:798,3:71;+-4:1,-2:1,-1:1235,0:1853,1:775,2:67;+-3:1,-1:29,"
            "0:791,1:1061,2:446,3:38;+-1:8,0:239,1:686,2:549,3:192,4:17;--2:1,-1:4,0:109,1:353,2:467,3:272,4:70,"
            "5:8;--3:1,-2:2,-1:44,0:204,1:464,2:484,3:249,4:51,5:2;--4:1,-3:2,-2:22,-1:116,0:357,1:542,2:484,"
            "3:175,4:51,5:4;+-3:1,1:1,2:711,3:308,4:55,5:3;--5:1,-4:2,-3:5,-2:56,-1:207,0:388,1:468,2:31,3:261,"
            "4:122,5:25,6:1;--6:1,-4:1,-3:34,-2:127,-1:316,0:482,1:364,2:150,3:267,4:98,5:12,6:1;--7:1,-5:2,-4:21,"
            "-3:91,-2:251,-1:491,0:524,1:322,2:248,3:229,4:72,5:13;+-8:1,-6:1,-2:1,0:121,1:509,2:410,3:246,4:66,"
            "5:7,6:1;--7:1,-6:1,-5:10,-4:60,-3:174,-2:380,-1:458,0:331,1:67,2:236,3:203,4:120,5:29,6:3,7:1;+-7:1,"
            "-6:6,-5:39,-4:137,-3:322,-2:484,-1:451,0:233,1:169,2:286,3:200,4:90,5:25,6:3;+-6:4,-5:17,-4:58,-3:149,"
            "-2:274,-1:356,0:271,1:150,2:158,3:166,4:116,5:39,6:13;--8:1,-6:1,-5:10,-4:31,-3:93,-2:178,-1:250,"
            "0:253,1:159,2:124,3:131,4:106,5:67,6:14,7:4;--9:1,-7:1,-6:4,-5:21,-4:54,-3:126,-2:225,-1:287,0:224,"
            "1:173,2:133,3:147,4:107,5:56,6:14,7:4;--10:1,-7:1,-6:1,-2:1,1:1,3:1,4:207,5:87,6:33,7:8;+-6:1,-4:1,"
            "-1:1,1:1,3:479,4:105,5:33,6:8;--11:1,-6:1,-5:1,-3:1,1:1,4:177,5:105,6:33,7:8;+-12:1,-2:1,0:1,4:370,"
            "5:33,6:8;--11:1,-8:2,-7:4,-6:9,-5:36,-4:89,-3:185,-2:258,-1:261,0:210,1:164,2:132,3:97,4:14,5:139,"
            "6:10,7:3;+-12:1,-8:1,-7:3,-6:19,-5:49,-4:118,-3:195,-2:272,-1:251,0:206,1:152,2:142,3:63,4:66,5:91,"
            "6:6,7:1;+-8:1,-7:3,-6:15,-5:30,-4:75,-3:105,-2:158,-1:148,0:136,1:117,2:103,3:70,4:45,5:52,6:28,"
            "7:4;+-9:1,-7:2,-6:6,-5:25,-4:46,-3:69,-2:103,-1:128,0:117,1:88,2:69,3:55,4:39,5:29,6:22,7:5,8:1;"
            "--11:1,-8:2,-7:1,-6:3,-5:25,-4:46,-3:130,-2:164,-1:199,0:179,1:138,2:104,3:85,4:54,5:65,6:26,7:15,"
            "8:2;+-9:1,-7:2,-6:9,-5:8,-4:31,-3:34,-2:56,-1:52,0:58,1:38,2:51,3:18,4:12,5:21,6:7,7:6;--12:1,-8:1,"
            "-6:1,-4:1,0:1,1:1,3:1,5:1,6:60,7:39,8:13,9:1;--13:1,-9:1,-8:1,-5:1,0:1,1:1,5:35,6:124,7:13,8:1;--14:1,"
            "-10:1,-9:1,-7:2,-6:12,-5:36,-4:100,-3:155,-2:186,-1:212,0:198,1:159,2:126,3:114,4:93,5:114,6:3;--15:1,"
            "-11:1,-10:1,-9:2,-8:1,-7:6,-6:25,-5:66,-4:133,-3:197,-2:226,-1:264,0:207,1:179,2:141,3:114,4:125,"
            "5:82,6:3,7:1;--16:1,-12:1,-11:1,-7:1,-4:1,-2:1,0:1,2:1,3:28,4:231,5:129,6:8;--17:1,-13:1,-12:1,-9:1,"
            "-8:7,-7:27,-6:60,-5:148,-4:219,-3:315,-2:362,-1:340,0:283,1:243,2:229,3:303,4:88,5:6;--18:1,-14:1,"
            "-13:1,-9:1,-8:1,-4:1,-1:214,0:423,1:368,2:413,3:266,4:47,5:2"
        ),
    ),
    (1.7, 8192): (
        True,
        (
            "+0:8190;+0:1,1:4817;-1:3374,2:850;+1:1,2:2833;-0:1280,1:301,2:428,3:1051;--1:596,0:1050,1:449,2:765,"
            "3:777;--2:331,-1:924,0:962,1:693,2:945,3:542;--3:218,-2:818,-1:1207,0:1012,1:1065,2:938,3:330;+-4:1,"
            "-3:1,-2:1229,-1:1577,0:1578,1:1417,2:759,3:133;+-4:117,-3:524,-2:201,-1:728,0:902,1:907,2:808,3:443,"
            "4:73;--4:44,-3:215,-2:276,-1:291,0:570,1:658,2:597,3:469,4:204,5:32;--5:24,-4:138,-3:312,-2:355,"
            "-1:484,0:775,1:786,2:679,3:414,4:157,5:20;+-6:17,-5:107,-4:289,-3:384,-2:515,-1:834,0:927,1:887,"
            "2:678,3:354,4:123,5:16;+-6:4,-5:31,-4:114,-3:237,-2:283,-1:395,0:582,1:631,2:554,3:384,4:187,5:60,"
            "6:9;--6:1,-4:1,0:1,2:1,4:309,5:255,6:67,7:9;--7:1,-6:1,-5:19,-4:65,-3:144,-2:232,-1:340,0:453,1:543,"
            "2:540,3:554,4:214,5:25,6:3;--8:1,-7:1,-6:6,-5:42,-4:120,-3:217,-2:332,-1:419,0:579,1:644,2:662,3:482,"
            "4:166,5:25,6:3;+-5:1,-1:1,2:721,3:749,4:238,5:23,6:3;+-7:1,-5:1,-1:1,3:1,4:486,5:238,6:23,7:3;+-9:1,"
            "-7:2,-6:20,-5:55,-4:121,-3:181,-2:255,-1:357,0:441,1:480,2:181,3:226,4:75,5:144,6:78,7:5,8:1;--8:2,"
            "-7:2,-6:13,-5:38,-4:76,-3:137,-2:190,-1:260,0:303,1:342,2:204,3:182,4:105,5:126,6:64,7:33;--9:1,"
            "-7:4,-6:19,-5:49,-4:116,-3:167,-2:258,-1:297,0:402,1:315,2:267,3:164,4:126,5:109,6:77,7:14,8:3,9:1;"
            "--10:1,-9:1,-7:1,-1:1,0:1,5:45,6:210,7:52,8:5;--11:1,-8:2,-7:10,-6:33,-5:92,-4:148,-3:258,-2:357,"
            "-1:439,0:485,1:434,2:236,3:228,4:185,5:188,6:17,7:2;+-12:1,-9:1,-8:9,-7:22,-6:80,-5:133,-4:220,-3:355,"
            "-2:448,-1:548,0:549,1:439,2:299,3:253,4:218,5:125,6:15,7:1;--11:1,-10:1,-9:1,-8:2,-7:16,-6:32,-5:73,"
            "-4:151,-3:243,-2:281,-1:377,0:433,1:374,2:273,3:192,4:182,5:138,6:43,7:10,8:1;--12:1,-11:1,-10:1,"
            "-9:1,-8:10,-7:21,-6:63,-5:145,-4:194,-3:277,-2:386,-1:466,0:462,1:378,2:310,3:218,4:180,5:127,6:51,"
            "7:2;--13:1,-12:1,-10:1,-9:7,-8:20,-7:46,-6:107,-5:180,-4:288,-3:385,-2:531,-1:550,0:506,1:470,2:342,"
            "3:249,4:167,5:115,6:35,7:4;+-13:1,-11:1,-4:1,-2:1,0:1,3:354,4:353,5:159,6:34,7:2;--14:1,-11:1,-10:3,"
            "-9:10,-8:30,-7:75,-6:128,-5:186,-4:308,-3:403,-2:438,-1:477,0:421,1:331,2:236,3:39,4:139,5:157,6:66,"
            "7:19;+-15:1,-12:1,-11:1,-10:10,-9:23,-8:56,-7:102,-6:156,-5:288,-4:408,-3:462,-2:532,-1:508,0:441,"
            "1:367,2:185,3:87,4:178,5:118,6:60,7:6,8:1;--14:1,-12:1,-10:3,-9:16,-8:19,-7:67,-6:121,-5:166,-4:258,"
            "-3:353,-2:406,-1:431,0:398,1:313,2:216,3:107,4:111,5:120,6:62,7:29,8:4;--15:1,-13:1,-11:3,-10:10,"
            "-9:13,-8:62,-7:89,-6:168,-5:271,-4:356,-3:439,-2:510,-1:478,0:431,1:320,2:198,3:137,4:130,5:138,"
            "6:64,7:14,8:1,9:1;--16:1,-14:1,-11:1,-2:1,4:229,5:190,6:87,7:31,8:3;+-15:1,-9:1,-8:1,-2:1,-1:1,2:159,"
            "3:503,4:259,5:87,6:31,7:3;+-17:1,-14:1,-12:1,-11:5,-10:12,-9:29,-8:60,-7:124,-6:179,-5:245,-4:352,"
            "-3:385,-2:417,-1:420,0:342,1:243,2:91,3:57,4:192,5:101,6:37,7:18;--16:1,-11:1,-8:1,-6:1,-4:1,-2:1,"
            "2:1,3:1,5:72,6:151,7:50,8:21;--17:1,-13:1,-12:1,-11:5,-10:8,-9:35,-8:58,-7:126,-6:194,-5:298,-4:343,"
            "-3:490,-2:493,-1:519,0:440,1:315,2:186,3:97,4:212,5:206,6:27,7:5;--18:1,-14:1,-13:1,-12:6,-11:4,"
            "-10:19,-9:62,-8:119,-7:180,-6:295,-5:389,-4:541,-3:622,-2:583,-1:547,0:464,1:324,2:162,3:165,4:262,"
            "5:147,6:17,7:11;--19:1,-13:1,-9:1,-7:1,0:1,1:167,2:283,3:404,4:319,5:120,6:22,7:5;+-20:1,-13:1,-11:1,"
            "-7:1,-6:1,-3:1,-1:1,0:329,1:488,2:404,3:319,4:120,5:22,6:5;--19:1,-15:1,-14:2,-13:3,-12:7,-11:16,"
            "-10:75,-9:119,-8:204,-7:314,-6:458,-5:616,-4:748,-3:752,-2:735,-1:632,0:349,1:248,2:366,3:303,4:241,"
            "5:93,6:18,7:4;+-20:1,-16:1,-15:2,-14:3,-13:4,-12:7,-11:29,-10:56,-9:102,-8:162,-7:227,-6:324,-5:384,"
            "-4:419,-3:438,-2:365,-1:268,0:165,1:195,2:203,3:144,4:82,5:22,6:1,7:1;--19:1,-15:1,-13:1,-7:1,-6:1,"
            "-4:1,0:60,1:417,2:417,3:401,4:233,5:105,6:29,7:1,8:1"
        ),
    ),
}


class NotesCounterexample(NamedTuple):
    """A stored stream replayed against the notes' bound 2 + 3(lg N + 1) (chapter 4, ``replay_notes_counterexample``).

    ``mistakes`` and ``mistakes_other`` are exact counts under the search's tie
    convention and under the other one; ``ties`` counts the rounds whose exact
    score equals theta when the stream is replayed under the search's convention
    (when it is 0 the other convention takes the same path, so the two counts are
    equal); ``float_mistakes`` is what ``onlinelib.Winnow2`` (floating point, the
    search's convention) makes; ``notes_sign`` is the exact sign of
    ``mistakes - notes_bound`` (0 or +1 contradicts the notes' strict bound).
    """

    alpha: float
    n_features: int
    positive_at_threshold: bool
    X: np.ndarray
    y: np.ndarray
    mistakes: int
    mistakes_other: int
    promotions: int
    ties: int
    float_mistakes: int
    notes_bound: float
    notes_sign: int


def _stored(alpha: Any, n_features: Any) -> tuple[float, int, bool, str]:
    alpha = check_real(alpha, "alpha", 1)
    n = check_int(n_features, "n_features", 1)
    if (alpha, n) not in NOTES_COUNTEREXAMPLES:
        raise ValueError(f"(alpha, n_features) must be one of {sorted(NOTES_COUNTEREXAMPLES)}, got {(alpha, n)}")
    ties_positive, text = NOTES_COUNTEREXAMPLES[alpha, n]
    return alpha, n, ties_positive, text


def replay_notes_counterexample(alpha: float, n_features: int) -> NotesCounterexample:
    """Replay the stored stream for (alpha, N) on Winnow(alpha, N), exactly and in floats (chapter 4).

    The stream is rebuilt from its certificate text and replayed with
    ``winnow2_exact_replay`` under both tie conventions; the counts are exact.
    """
    alpha, n, ties_positive, text = _stored(alpha, n_features)
    X, y = winnow_certificate_stream(n, text)
    counts, ties = {}, {}
    for convention in (ties_positive, not ties_positive):
        predicted, _, scores = winnow2_exact_replay(X, y, alpha, n, positive_at_threshold=convention)
        counts[convention] = int(np.count_nonzero(predicted != y))
        ties[convention] = sum(score == n for score in scores)
    learner = Winnow2(n, alpha, n, positive_at_threshold=ties_positive)
    made = counts[ties_positive]
    return NotesCounterexample(
        alpha=alpha,
        n_features=n,
        positive_at_threshold=ties_positive,
        X=X,
        y=y,
        mistakes=made,
        mistakes_other=counts[not ties_positive],
        promotions=int(np.count_nonzero(y == 1)),
        ties=ties[ties_positive],
        float_mistakes=run(learner, X, y).n_mistakes,
        notes_bound=float(notes_winnow_bound(n, 1)),
        notes_sign=notes_winnow_bound_sign(made, n, 1),
    )


def refind_notes_counterexample(alpha: float, n_features: int) -> str:
    """Repeat the beam search that found the stored stream for (alpha, N) and return its certificate text.

    Chapter 4's tests compare it with ``NOTES_COUNTEREXAMPLES``; at N = 8192 the
    search takes about 20 s, which is why the chapter replays the stored text.
    """
    alpha, n, ties_positive, _ = _stored(alpha, n_features)
    found = beam_adversary(
        n,
        alpha,
        rng=np.random.default_rng(NOTES_SEARCH["seed"]),
        width=NOTES_SEARCH["width"],
        n_random=NOTES_SEARCH["n_random"],
        positive_at_threshold=ties_positive,
    )
    return winnow_certificate(found.X, found.y)
