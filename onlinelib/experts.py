"""Prediction with expert advice: Weighted Majority and Randomized Weighted Majority (chapter 5).

N experts each predict a label in {-1, +1} every round; the learner combines
them. Both algorithms start every weight at 1 and multiply the weight of each
expert that errs by (1 - eta). So after t rounds expert i has weight
(1 - eta)^{c_i(t)}, where c_i(t) is the number of mistakes it has made: the
weights depend on the experts' records only, never on the learner's own
predictions. That is what lets a whole run be computed with array operations.

Weights are kept as logarithms, c_i ln(1 - eta), and normalised by the largest
one before exponentiating, so a run of 10^6 rounds never underflows. With
eta = 1 a wrong expert's weight becomes 0 for good: Weighted Majority is then
the Halving algorithm over the experts, and Randomized Weighted Majority is
Randomized Halving (chapter 1).

Conventions: ``P`` is a (T, N) matrix of expert predictions (entries ±1) and
``y`` the (T,) outcomes (±1). Weighted Majority predicts +1 when the weight
voting +1 is at least the weight voting -1 (ties go to +1, as in Halving).

How the vote is decided, exactly. A float ``eta`` is a binary fraction, so
1 - eta = a / 2^q exactly, with integers a and q, and every weight
(1 - eta)^c is an exact rational number. The vote S = sum_i p_i (1 - eta)^{c_i}
is first computed in floating point; its error is below (2e-13 + N 2^-53) Phi,
where Phi is the total weight. Whenever abs(S) <= (2e-9 + 4 N 2^-53) Phi
(``_tie_tolerance``), the sign of S is recomputed in exact integer arithmetic: with e_i = c_i - min_j c_j and
E = max_i e_i, S times (2^q)^E / (1 - eta)^{min c} is the integer
sum_i p_i a^{e_i} 2^{q (E - e_i)}. So the prediction, ties included, is that of
Weighted Majority with the rate eta *as the float holds it*: at eta = 1/2 (or
any eta whose binary expansion is finite, like 0.25 or 0.375) this is the
rate itself; for eta = 0.1, whose decimal has no finite binary expansion, it is
the nearest double 0.1000000000000000055..., and a weighted sum that vanishes
at exactly 1/10 need not vanish at that double, so the two rules can differ
on such a tie (they never differ on a vote that is not a near-tie). With eta = 1
the weights are 0 and 1 and the float vote is already an exact integer.
``wrong_fraction`` (F_t) and ``log_potential`` stay floating-point
measurements, accurate to about 1e-16 relative.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from .validation import Interval, check_int, check_label, check_labels, check_rng, check_scalar

__all__ = [
    "WeightedMajority",
    "RandomizedWeightedMajority",
    "ExpertsRun",
    "weighted_majority_run",
    "simulate_randomized_weighted_majority",
    "check_eta",
    "check_expert_stream",
]

_CHUNK_ELEMENTS = 2**22  # rounds x experts per chunk: about 32 MB of float64


_ETA_WHY = "0 never learns; above 1 weights turn negative"


def check_eta(eta: Any, name: str = "eta", *, high: float = 1, closed: str = "right", why: str = _ETA_WHY) -> float:
    """Return the learning rate ``eta`` as a float after checking that it is in (0, 1] (chapter 5).

    eta = 0 would never learn, and eta > 1 would make weights negative. eta = 1 is
    allowed: it zeroes a wrong expert (Halving). The *standard* bounds further
    need eta <= 1/2; they pass ``high=0.5``.

    Parameters
    ----------
    eta : Any
        What the caller passed.
    name : str
        The argument's name, used in the message.
    high : float, keyword-only
        The right end of the domain, in (0, 1]; default 1.
    closed : {"right", "neither"}, keyword-only
        ``"right"`` (default): eta = ``high`` is allowed, (0, high]; ``"neither"``: (0, high).
        0 is never allowed.
    why : str, keyword-only
        The reason shown in brackets after the domain.

    Raises
    ------
    TypeError
        If ``eta`` is not a real number (bools are not).
    ValueError
        If it is NaN, infinite or outside the domain.
    """
    return check_scalar(eta, name, Interval(float, 0, high, closed), why=why)


def check_expert_stream(P: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """Check expert predictions P (T, N) and outcomes y (T,), all entries ±1."""
    P = np.asarray(P)
    if P.ndim != 2 or P.shape[0] == 0 or P.shape[1] == 0:
        raise ValueError(f"P must be a (T, N) matrix of expert predictions with T, N >= 1, got shape {P.shape}")
    P = check_labels(P, name="P")
    y = check_labels(y, name="y")
    if y.shape != (P.shape[0],):
        raise ValueError(f"y must have one outcome per round of P ({P.shape[0]}), got shape {y.shape}")
    return P, y


def _log_factor(eta: float) -> float:
    return -math.inf if eta == 1.0 else math.log1p(-eta)


def _log_weights(counts: np.ndarray, log_factor: float) -> np.ndarray:
    """c ln(1 - eta), with (1 - eta)^0 = 1 also when eta = 1."""
    if math.isinf(log_factor):
        return np.where(counts > 0, -np.inf, 0.0)
    return counts * log_factor


_MAX_TABLE = 2**20


def _power_table(log_factor: float) -> np.ndarray | None:
    """(1 - eta)^k for k = 0, 1, ... until it underflows to 0 (the last entry is 0).

    None when that would take more than 2^20 entries (eta below about 7e-4):
    the weights are then computed with exp, which gives the same numbers.
    """
    k_zero = int(math.ceil(-746.0 / log_factor)) + 1  # exp(x) == 0 for x < -745.2
    if k_zero >= _MAX_TABLE:
        return None
    return np.exp(np.arange(k_zero + 1) * log_factor)


def _weight_rows(counts: np.ndarray, log_factor: float, table: np.ndarray | None, first_round: int) -> np.ndarray:
    """Rows of weights (1 - eta)^{c_i} divided by the row's largest, from mistake counts c.

    Dividing by the largest weight, (1 - eta)^{min_i c_i}, keeps the weights from
    underflowing; the powers come from a table when there is one (the same
    numbers as exp, much faster). With eta = 1 only the experts with no mistake
    keep weight 1.
    """
    if math.isinf(log_factor):  # eta = 1
        weights = (counts == 0).astype(np.float64)
        empty = ~weights.any(axis=1)
        if empty.any():
            raise ValueError(
                f"every expert has weight 0 in round {first_round + int(np.argmax(empty))}: with eta = 1 "
                "(Halving) the stream must have an expert that never errs"
            )
        return weights
    excess = counts - counts.min(axis=1, keepdims=True)
    if table is None:
        return np.exp(excess * log_factor)
    return np.take(table, excess, mode="clip")


def _vote(weights: np.ndarray, P: np.ndarray) -> np.ndarray:
    """S = sum_i w_i P_i per row: the +1 side weighs (Phi + S)/2, the -1 side (Phi - S)/2."""
    return np.einsum("ij,ij->i", weights, P)


# |S_float - S| <= _TIE_TOLERANCE * Phi, with a wide margin: each weight is exp(k ln(1 - eta)) with
# |k ln(1 - eta)| <= 746 (smaller weights are 0 and weigh less than 1e-320 each, against Phi >= 1),
# so its relative error is at most 746 * 2 * 2^-53 + 2^-53 < 2e-13, and the sum of N terms adds at
# most N 2^-53 Phi. The tolerance below is 10^4 times 2e-13 plus 4 times the summation term; a row
# whose float vote is within it of 0 is decided exactly (``_exact_vote_sign``).
def _tie_tolerance(n_experts: int) -> float:
    return 2e-9 + 4 * n_experts * 2.0**-53


def _exact_rate(eta: float) -> tuple[int, int]:
    """(a, q) with 1 - eta = a / 2^q exactly: a float is a binary fraction n / 2^q."""
    num, den = float(eta).as_integer_ratio()
    q = den.bit_length() - 1
    if den != 1 << q:  # cannot happen for a float; guards a change of check_eta
        raise ValueError(f"eta must be a binary fraction (a float), got {eta!r}")
    return den - num, q


def _exact_vote_sign(counts: np.ndarray, advice: np.ndarray, rate: tuple[int, int]) -> int:
    """The sign (-1, 0 or +1) of sum_i p_i (1 - eta)^{c_i}, in exact integer arithmetic.

    With 1 - eta = a / 2^q, e_i = c_i - min c and E = max e_i, the vote times the
    positive number 2^{qE} / (1 - eta)^{min c} is sum_e n_e a^e 2^{q(E - e)}, where n_e
    sums the advice of the experts with e_i = e. When every n_e is 0 the vote is
    an exact tie without any big integer (equal weights cancel in pairs).
    """
    a, q = rate
    excess = counts - counts.min()
    net: dict[int, int] = {}
    for e, p in zip(excess.tolist(), advice.tolist(), strict=True):
        net[e] = net.get(e, 0) + p
    net = {e: n for e, n in net.items() if n}
    if not net:
        return 0
    top = max(net)
    total = sum(n * (pow(a, e) << (q * (top - e))) for e, n in net.items())
    return (total > 0) - (total < 0)


def _decide(
    vote: np.ndarray, total: np.ndarray, counts: np.ndarray, advice: np.ndarray, rate: tuple[int, int] | None
) -> np.ndarray:
    """Predictions +1 where the vote is >= 0 (ties to +1), near-ties decided exactly (see the module docstring).

    ``vote`` and ``total`` are the float S and Phi of each row, ``counts`` the
    experts' mistakes before each row and ``advice`` the rows of P. ``rate`` is
    ``_exact_rate(eta)``, or None when the float vote is exact (eta = 1).
    """
    predictions = np.where(vote >= 0, 1, -1).astype(np.int8)
    if rate is None:
        return predictions
    near = np.flatnonzero(np.abs(vote) <= _tie_tolerance(advice.shape[1]) * total)
    for row in near.tolist():
        predictions[row] = 1 if _exact_vote_sign(counts[row], advice[row], rate) >= 0 else -1
    return predictions


class ExpertsRun(NamedTuple):
    """A whole run of Weighted Majority on (P, y), with what RWMA needs too (chapter 5)."""

    predictions: np.ndarray  # (T,) Weighted Majority's predictions
    labels: np.ndarray  # (T,) the outcomes y
    wrong_fraction: np.ndarray  # (T,) F_t: the weight fraction of the experts that err in round t
    expert_mistakes: np.ndarray  # (N,) each expert's mistakes over the run
    log_potential: np.ndarray  # (T+1,) ln Phi_t, Phi_t = sum_i (1 - eta)^{c_i(t)}; Phi_0 = N

    @property
    def mistakes(self) -> int:
        """Weighted Majority's mistakes, M."""
        return int(np.count_nonzero(self.predictions != self.labels))

    @property
    def best_expert_mistakes(self) -> int:
        """The mistakes of the best expert, m."""
        return int(self.expert_mistakes.min())

    @property
    def expected_mistakes(self) -> float:
        """Randomized Weighted Majority's exact expected mistakes, sum_t F_t."""
        return float(self.wrong_fraction.sum())


def _run(P: np.ndarray, y: np.ndarray, eta: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """WMA predictions, F_t, expert mistakes and ln Phi_t for a whole stream, chunk by chunk."""
    T, N = P.shape
    log_factor = _log_factor(eta)
    table = None if math.isinf(log_factor) else _power_table(log_factor)
    rate = None if math.isinf(log_factor) else _exact_rate(eta)
    predictions = np.empty(T, dtype=np.int8)
    fraction = np.empty(T)
    counts = np.zeros(N, dtype=np.int64)  # mistakes before the current chunk
    chunk = max(1, _CHUNK_ELEMENTS // N)
    for start in range(0, T, chunk):
        stop = min(T, start + chunk)
        wrong = P[start:stop] != y[start:stop, None]
        # c_i(t) for the rounds of the chunk: mistakes strictly before round t
        before = np.cumsum(wrong, axis=0, dtype=np.int64)
        before -= wrong
        before += counts
        weights = _weight_rows(before, log_factor, table, start + 1)
        total = weights.sum(axis=1)
        vote = _vote(weights, P[start:stop])
        predictions[start:stop] = _decide(vote, total, before, P[start:stop], rate)
        # the wrong experts are those with P_i = -y: they weigh (Phi - y S) / 2
        fraction[start:stop] = np.clip((total - y[start:stop] * vote) / (2 * total), 0.0, 1.0)
        counts = before[-1] + wrong[-1]
    # Phi_{t+1} = Phi_t (1 - eta F_t): each wrong expert keeps a factor (1 - eta) of its weight.
    with np.errstate(divide="ignore"):
        steps = np.log1p(-eta * fraction)
    log_potential = math.log(N) + np.concatenate([[0.0], np.cumsum(steps)])
    return predictions, fraction, counts, log_potential


def weighted_majority_run(P: Any, y: Any, eta: float) -> ExpertsRun:
    """Weighted Majority on a whole stream, vectorised over rounds and experts (chapter 5).

    ``run.mistakes`` is M and ``run.best_expert_mistakes`` is m. The predictions are
    exact, ties included (ties go to +1; a vote within rounding of 0 is re-decided
    in integer arithmetic, see the module docstring). The same run gives
    Randomized Weighted Majority's exact expectation: against a fixed (oblivious)
    stream RWMA errs in round t with probability F_t, the weight fraction of the
    wrong experts, so E[M] = sum_t F_t (``run.expected_mistakes``), with no
    sampling. ``run.log_potential`` is ln Phi_t, for the proof's bounds
    Phi_T <= N (1 - eta/2)^M and Phi_T >= (1 - eta)^m. It is accumulated as
    ln Phi_{t+1} = ln Phi_t + ln(1 - eta F_t), with F_t computed to about 1e-16;
    so each step is accurate to about 1e-16 / (1 - eta): to 1e-10 relative for
    eta <= 1 - 1e-6, and much less when eta is within 1e-12 of 1 (eta = 1 is exact).
    """
    P, y = check_expert_stream(P, y)
    eta = check_eta(eta)
    predictions, fraction, counts, log_potential = _run(P, y, eta)
    return ExpertsRun(predictions, y, fraction, counts, log_potential)


def simulate_randomized_weighted_majority(
    P: Any, y: Any, eta: float, n_trials: int, rng: np.random.Generator
) -> np.ndarray:
    """Mistake counts of ``n_trials`` independent runs of RWMA on one stream, vectorised.

    Each round, every trial draws an expert with probability proportional to its
    weight (the weights are the same in every trial, since they depend only on
    the experts' records) and errs if that expert errs.

    Returns an int array of shape (n_trials,).
    """
    P, y = check_expert_stream(P, y)
    eta = check_eta(eta)
    rng = check_rng(rng)
    n_trials = check_int(n_trials, "n_trials", low=1)
    T, N = P.shape
    log_factor = _log_factor(eta)
    table = None if math.isinf(log_factor) else _power_table(log_factor)
    wrong = P != y[:, None]
    counts = np.zeros(N, dtype=np.int64)
    mistakes = np.zeros(n_trials, dtype=np.int64)
    for t in range(T):
        weights = _weight_rows(counts[None, :], log_factor, table, t + 1)[0]
        cumulative = np.cumsum(weights)
        picks = np.searchsorted(cumulative, rng.random(n_trials) * cumulative[-1], side="right")
        picks = np.minimum(picks, N - 1)  # guards the measure-zero draw u * total == total
        mistakes += wrong[t, picks]
        counts += wrong[t]
    return mistakes


class WeightedMajority:
    """Weighted Majority as an online learner, for ``onlinelib.run`` (chapter 5).

    ``predict(x)`` takes the N experts' predictions for one round (±1 each).
    Same rule as ``weighted_majority_run``, exact ties included (they go to +1,
    decided in integer arithmetic); use that for long streams.
    """

    def __init__(self, n_experts: int, eta: float):
        self.n_experts = check_int(n_experts, "n_experts", low=1)
        self.eta = check_eta(eta)
        self._log_factor = _log_factor(self.eta)
        self._table = None if math.isinf(self._log_factor) else _power_table(self._log_factor)
        self._rate = None if math.isinf(self._log_factor) else _exact_rate(self.eta)
        self.expert_mistakes = np.zeros(self.n_experts, dtype=np.int64)
        self.rounds = 0

    def _advice(self, x: Any) -> np.ndarray:
        x = check_labels(x, name="x")
        if x.shape != (self.n_experts,):
            raise ValueError(f"x must hold one prediction per expert, shape ({self.n_experts},), got {x.shape}")
        return x

    @property
    def weights(self) -> np.ndarray:
        """Current weights divided by the largest (so the best has weight 1)."""
        return _weight_rows(self.expert_mistakes[None, :], self._log_factor, self._table, self.rounds + 1)[0]

    @property
    def log_potential(self) -> float:
        """ln Phi = ln sum_i (1 - eta)^{c_i}."""
        lw = _log_weights(self.expert_mistakes, self._log_factor)
        top = lw.max()
        return float(top + np.log(np.exp(lw - top).sum())) if np.isfinite(top) else -math.inf

    def wrong_fraction(self, x: Any, y: Any) -> float:
        """F: the weight fraction of the experts whose prediction x_i differs from y."""
        x = self._advice(x)
        w = self.weights
        return float(w[x != check_label(y)].sum() / w.sum())

    def predict(self, x: Any) -> int:
        x = self._advice(x)
        # the same rule as weighted_majority_run (``_decide``): near-ties are decided in exact integer arithmetic
        w = self.weights
        vote = float(np.dot(w, x))
        if self._rate is not None and abs(vote) <= _tie_tolerance(self.n_experts) * float(w.sum()):
            vote = _exact_vote_sign(self.expert_mistakes, x, self._rate)
        return 1 if vote >= 0 else -1

    def update(self, x: Any, y: Any) -> None:
        x = self._advice(x)
        self.expert_mistakes += x != check_label(y)
        self.rounds += 1


class RandomizedWeightedMajority(WeightedMajority):
    """Randomized Weighted Majority: follow one expert drawn with probability w_i / Phi (chapter 5)."""

    def __init__(self, n_experts: int, eta: float, rng: np.random.Generator):
        super().__init__(n_experts, eta)
        self.rng = check_rng(rng)

    def predict(self, x: Any) -> int:
        x = self._advice(x)
        cumulative = np.cumsum(self.weights)
        pick = min(
            int(np.searchsorted(cumulative, self.rng.random() * cumulative[-1], side="right")), self.n_experts - 1
        )
        return int(x[pick])
