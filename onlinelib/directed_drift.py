"""Directed Drift, its batch variants and its exact Markov chain (book chapter 7, "Binary weights").

Fang and Venkatesh learn a target w* in {-1,1}^n from positive examples only:
u drawn uniformly from the half-cube {u : <w*, u> >= 0} (``streams.positive_halfcube``).
The hypothesis w makes a mistake on u iff <w, u> < 0.

* ``DirectedDrift`` runs Algorithm D (steps D1-D5): on a mistake, flip one
  coordinate chosen uniformly among those where w and u disagree; stop once
  ``ceil(sqrt(pi n / 2) ln(1/delta))`` examples in a row were classified
  correctly (step D3), or run on until w = w*. With ``batch="single"`` (D4')
  or ``batch="multi"`` (D4'') a mistake draws m - 1 further examples that only
  vote. ``simulate`` runs many independent copies: without a batch all of them
  advance together, one example per step (a trials x n state); the batch modes
  run them one after the other in compiled code (``onlinelib._kernels_drift``).
* ``DirectedDriftChain`` is the exact law of the Hamming distance d between w
  and w* under Algorithm D: a birth-death chain (MATH.md section 1.3). It gives
  P(mistake | d), the probability p_d that a mistake's flip is good, the
  expected number of mistakes from any start, and the probability that step
  D3 stops at a wrong w, in exact fractions for small n and in log-space floats
  up to n = 801 and beyond.

Internally the simulator works in coordinates relative to w* (w_i w*_i), in which
w* = (1, ..., 1); the algorithm is equivariant under flipping the sign of a
coordinate, so this changes nothing but the cost.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from ._lazy import LazyModule
from .streams import check_sign_vector, ones_halfcube
from .validation import Interval, check_int, check_rng, check_scalar

__all__ = [
    "DirectedDrift",
    "DriftRun",
    "DirectedDriftChain",
    "confidence_threshold",
    "single_bit_batch_size",
    "multi_bit_batch_size",
    "halfcube_size",
]

BATCH_MODES = (None, "single", "multi")
MULTI_RULES = ("literal", "majority", "double")


_compiled: Any = LazyModule("onlinelib._kernels_drift", globals(), "_compiled")  # numba, loaded at first use


def confidence_threshold(n: int, delta: float) -> int:
    """The run of correct predictions after which step D3 stops: ceil(sqrt(pi n / 2) ln(1/delta)), at least 1."""
    n = check_int(n, "n", low=1)
    delta = check_scalar(delta, "delta", Interval(float, 0, 1, "neither"))
    return max(1, math.ceil(math.sqrt(math.pi * n / 2) * math.log(1 / delta)))


def single_bit_batch_size(n: int) -> int:
    """m = ceil((pi/2) n ln n), the source's batch size for D4' (natural logarithm)."""
    n = check_int(n, "n", low=2)
    return max(1, math.ceil(math.pi / 2 * n * math.log(n)))


def multi_bit_batch_size(n: int) -> int:
    """m = ceil(pi n ln n), the source's batch size for D4'' (natural logarithm)."""
    n = check_int(n, "n", low=2)
    return max(1, math.ceil(math.pi * n * math.log(n)))


def halfcube_size(n: int) -> int:
    """``|B+|`` = 2^(n-1) for odd n and 2^(n-1) + C(n, n/2)/2 for even n (ties are positive)."""
    n = check_int(n, "n", low=1)
    return 2 ** (n - 1) + (math.comb(n, n // 2) // 2 if n % 2 == 0 else 0)


# -- simulation -----------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class DriftRun:
    """The outcome of ``DirectedDrift.simulate``: one entry per independent run.

    Attributes
    ----------
    mistakes : ndarray of int64
        Examples classified wrongly (votes drawn by a batch update are not classified and never count).
    examples : ndarray of int64
        All examples drawn, votes included.
    flips, bad_flips : ndarray of int64
        Coordinates flipped, and how many of those flips made a right coordinate wrong.
    stopped : ndarray of bool
        Step D3 stopped the run.
    finished : ndarray of bool
        The run ended (stopped, or reached w* when running on); False if it hit ``max_examples``.
    initial_distance, final_distance : ndarray of int64
        Hamming distance between w and w* at the start and at the end.
    w : ndarray of int8, shape (trials, n)
        The final hypotheses.
    """

    mistakes: np.ndarray
    examples: np.ndarray
    flips: np.ndarray
    bad_flips: np.ndarray
    stopped: np.ndarray
    finished: np.ndarray
    final_distance: np.ndarray
    w: np.ndarray
    initial_distance: np.ndarray

    @property
    def trials(self) -> int:
        return len(self.mistakes)

    def mean_and_sem(self, name: str = "mistakes") -> tuple[float, float]:
        """The mean of a per-run quantity and its standard error (sd / sqrt(trials))."""
        values = np.asarray(getattr(self, name), dtype=float)
        sem = values.std(ddof=1) / math.sqrt(len(values)) if len(values) > 1 else float("nan")
        return float(values.mean()), float(sem)

    def __repr__(self) -> str:
        mean, sem = self.mean_and_sem()
        return (
            f"DriftRun(trials={self.trials}, mean mistakes={mean:.2f} ± {sem:.2f}, finished={int(self.finished.sum())})"
        )


class DirectedDrift:
    """Algorithm D of Fang and Venkatesh (Directed Drift), with its batch variants (chapter 7).

    Parameters
    ----------
    n : int
        The dimension.
    delta : float in (0, 1), optional
        The confidence parameter of step D3: stop after ``confidence_threshold(n,
        delta)`` correct predictions in a row. None runs on until w = w*, which
        the simulator knows (no mistake can happen after that).
    batch : {None, "single", "multi"}
        None: step D4, flip one coordinate chosen uniformly among those where w
        and the mistaken example u disagree. "single" (D4'): draw m - 1 more
        positive examples, tally for every coordinate k the votes
        b_k = #{examples of the batch (u included) with u_k != w_k}, and flip the
        coordinate with the most votes. "multi" (D4''): flip the
        floor((1 - Y)/2) coordinates with the most votes, where Y = <w, u> < 0.
        Ties between equal tallies are broken uniformly at random (the source
        does not say). The m - 1 extra examples are votes only: they are not
        classified, never count as mistakes, and do not touch the D3 counter.
    m : int >= 1, optional
        The batch size; defaults to ``single_bit_batch_size(n)`` or
        ``multi_bit_batch_size(n)``.
    multi_rule : {"literal", "majority", "double"}
        Other readings of D4'' for the chapter's investigation: "literal" flips
        floor((1 - Y)/2) coordinates; "majority" flips every coordinate with a
        strict majority of disagreeing votes (b_k > m/2); "double" flips twice
        the literal count (at most n).

    Notes
    -----
    How ``simulate`` spends its time (``benchmarks/directed_drift_speed.py``; medians
    and ranges of 3 repetitions).

    * Without a batch, a step costs a few numpy calls whatever the number of runs,
      so all runs advance together, vectorised over runs: 400 runs at n = 11 take
      1/41 (1/40-1/41) of the time of the per-trial loop (``simulate`` with one
      run, called once per run).
    * In the batch modes the cost is the m - 1 votes of each update: about
      (pi/2) n ln n (D4') or pi n ln n (D4'') examples of n bits per mistake, the
      same work whichever way the runs are ordered, so vectorising over runs
      saves nothing. The runs are simulated one after the other in one compiled
      loop that draws the examples as packed bits and tallies the votes 64
      coordinates at a time: at n = 201, about 30 ns per example drawn, votes
      included, of which drawing the random bits alone takes 30%. So a call with
      16 runs is *not* faster than 16 calls with one run each (per-trial loop /
      ``simulate``, per example drawn: 1.03 (1.03-1.04) for D4', 1.05
      (1.05-1.05) for D4''). It is 8.2 (7.6-8.6) and 8.1 (8.0-8.4) times as fast
      as the numpy engine it replaced, which advanced the runs together and
      summed the votes with ``streams.halfcube_vote_sums`` (and which was only
      1.37 and 1.28 times as fast as its own per-trial loop).
    """

    def __init__(
        self,
        n: int,
        delta: float | None = None,
        *,
        batch: str | None = None,
        m: int | None = None,
        multi_rule: str = "literal",
    ):
        self.n = check_int(n, "n", low=1)
        self.delta = None if delta is None else check_scalar(delta, "delta", Interval(float, 0, 1, "neither"))
        if batch not in BATCH_MODES:
            raise ValueError(f"batch must be one of {BATCH_MODES}, got {batch!r}")
        self.batch = batch
        if multi_rule not in MULTI_RULES:
            raise ValueError(f"multi_rule must be one of {MULTI_RULES}, got {multi_rule!r}")
        self.multi_rule = multi_rule
        if batch is None:
            if m is not None and check_int(m, "m", low=1) != 1:
                raise ValueError(
                    f"m is the batch size of the batch modes; without batch it must be None or 1, got {m!r}"
                )
            self.m = 1
        elif m is None:
            self.m = (single_bit_batch_size if batch == "single" else multi_bit_batch_size)(max(self.n, 2))
        else:
            self.m = check_int(m, "m", low=1)
        self.threshold = None if self.delta is None else confidence_threshold(self.n, self.delta)

    def __repr__(self) -> str:
        return f"DirectedDrift(n={self.n}, delta={self.delta}, batch={self.batch!r}, m={self.m})"

    def simulate(
        self, w_star: Any, trials: int, rng: np.random.Generator, *, w0: Any = None, max_examples: int = 10**8
    ) -> DriftRun:
        """Run ``trials`` independent copies of the algorithm (chapter 7, Algorithm D and D4', D4'').

        Without a batch the runs advance together, one example per step; with a
        batch they run one after the other in compiled code (see the class Notes).
        Either way the runs are independent and the same ``rng`` state gives the
        same runs: every random draw comes from ``rng``, in a fixed order.

        Parameters
        ----------
        w_star : array_like in {-1, 1}^n
        trials : int >= 1
        rng : numpy.random.Generator
        w0 : array_like in {-1, 1}^n or (trials, n), optional
            The starting hypotheses; default uniformly random, independently per run.
        max_examples : int
            A run that has drawn this many examples is abandoned (``finished`` False).
            The cap is checked before each example, so the votes of a batch update,
            or the rest of D3's run at w = w*, may take a run past it.
        """
        w_star = check_sign_vector(w_star)
        if len(w_star) != self.n:
            raise ValueError(f"w_star must have length n = {self.n}, got {len(w_star)}")
        trials = check_int(trials, "trials", low=1)
        rng = check_rng(rng)
        max_examples = check_int(max_examples, "max_examples", low=1)
        if w0 is None:
            W = (2 * rng.integers(0, 2, size=(trials, self.n), dtype=np.int8) - 1) * w_star
        else:
            shape = np.shape(w0)
            if shape not in ((self.n,), (1, self.n), (trials, self.n)):
                raise ValueError(
                    f"w0 must have shape (n,) = ({self.n},) or (trials, n) = ({trials}, {self.n}), got {shape}"
                )
            W = np.array(np.broadcast_to(check_sign_vector(np.ravel(w0), "w0").reshape(shape), (trials, self.n)))
        W = (W * w_star).astype(np.int8)  # relative coordinates: right = +1, wrong = -1
        initial_distance = (W < 0).sum(axis=1).astype(np.int64)
        mistakes, examples, flips, bad_flips, run = (np.zeros(trials, dtype=np.int64) for _ in range(5))
        stopped = np.zeros(trials, dtype=bool)
        finished = np.zeros(trials, dtype=bool)
        if self.batch is not None:  # one compiled run after the other (see the class docstring)
            rule = _compiled.RULES[self.batch, self.multi_rule if self.batch == "multi" else "literal"]
            threshold = 0 if self.threshold is None else self.threshold
            _compiled.simulate_batch(
                W, rng, self.m, rule, threshold, max_examples, mistakes, examples, flips, bad_flips, stopped, finished
            )
        else:
            self._simulate_plain(W, rng, max_examples, mistakes, examples, flips, bad_flips, run, stopped, finished)
        return DriftRun(
            mistakes=mistakes,
            examples=examples,
            flips=flips,
            bad_flips=bad_flips,
            stopped=stopped,
            finished=finished,
            final_distance=(W < 0).sum(axis=1).astype(np.int64),
            w=(W * w_star).astype(np.int8),
            initial_distance=initial_distance,
        )

    def _simulate_plain(self, W, rng, max_examples, mistakes, examples, flips, bad_flips, run, stopped, finished):
        """Algorithm D (step D4), every unfinished run advanced by one example per step (vectorised)."""
        trials = len(W)
        active = np.ones(trials, dtype=bool)
        self._settle(W, active, finished, stopped, examples, run)
        while active.any():
            idx = np.flatnonzero(active)
            over = examples[idx] >= max_examples
            if over.any():
                active[idx[over]] = False
                idx = idx[~over]
                if idx.size == 0:
                    break
            U = ones_halfcube(self.n, idx.size, rng)
            Y = (W[idx] * U).sum(axis=1, dtype=np.int64)
            examples[idx] += 1
            right = Y >= 0
            ok = idx[right]
            run[ok] += 1
            if self.threshold is not None:
                done = ok[run[ok] >= self.threshold]
                stopped[done] = finished[done] = True
                active[done] = False
            wrong = ~right
            bad = idx[wrong]
            if bad.size:
                mistakes[bad] += 1
                run[bad] = 0
                self._update(W, bad, U[wrong], rng, flips, bad_flips)
                self._settle(W, active, finished, stopped, examples, run, only=bad)

    def _settle(self, W, active, finished, stopped, examples, run, only=None) -> None:
        """Runs at w = w* make no more mistakes: finish them (D3 then stops after the rest of its run)."""
        idx = np.flatnonzero(active) if only is None else only
        at_target = idx[(W[idx] > 0).all(axis=1)]
        if at_target.size == 0:
            return
        if self.threshold is not None:
            examples[at_target] += self.threshold - run[at_target]
            run[at_target] = self.threshold
            stopped[at_target] = True
        finished[at_target] = True
        active[at_target] = False

    def _update(self, W, bad, U, rng, flips, bad_flips) -> None:
        """Step D4 for the runs ``bad``: flip one coordinate chosen uniformly where w and u disagree."""
        disagree = W[bad] != U
        keys = rng.random(disagree.shape)
        keys[~disagree] = -1.0
        self._flip(W, bad, np.argmax(keys, axis=1)[:, None], np.ones((bad.size, 1), dtype=bool), flips, bad_flips)

    @staticmethod
    def _flip(W, rows, chosen, keep, flips, bad_flips) -> None:
        """Flip W[rows[i], chosen[i, j]] wherever keep[i, j]; count flips and bad flips (right -> wrong)."""
        r, c = np.nonzero(keep)
        target_rows, target_cols = rows[r], chosen[r, c]
        bad_flips[rows] += np.bincount(r, weights=W[target_rows, target_cols] > 0, minlength=rows.size).astype(np.int64)
        flips[rows] += keep.sum(axis=1)
        W[target_rows, target_cols] *= -1


# -- the exact chain -------------------------------------------------------------------------


class DirectedDriftChain:
    """The Hamming distance of Algorithm D as an exact birth-death chain (chapter 7; MATH.md 1.3).

    With w* = (1, ..., 1) and d wrong coordinates, split an example u uniform on
    the half-cube into K = #{right coordinates with u = +1} and
    L = #{wrong coordinates with u = +1}. Then <w*, u> = X + Y and
    <w, u> = X - Y with X = 2K - (n - d), Y = 2L - d; u has weight
    C(n-d, K) C(d, L) / ``|B+|`` when X + Y >= 0. A mistake (X < Y) flips a
    coordinate uniformly among the L + (n - d - K) that disagree with w; it is
    good (d -> d - 1) with probability L / (L + n - d - K).

    Parameters
    ----------
    n : int >= 1
    exact : bool, optional
        Fractions (exact) or floats in log space. Default: exact for n <= 40.
    """

    def __init__(self, n: int, exact: bool | None = None):
        self.n = check_int(n, "n", low=1)
        self.exact = self.n <= 40 if exact is None else bool(exact)
        if self.exact:
            self._mistake, self._down = _exact_rates(self.n)
        else:
            self._log_mistake, self._log_down = _log_rates(self.n)

    # -- transition probabilities -------------------------------------------------
    def mistake_probability(self, d: int) -> Any:
        """P(mistake | distance d): a Fraction if exact, else a float (0 at d = 0)."""
        d = check_int(d, "d", low=0, high=self.n)
        if self.exact:
            return self._mistake[d]
        return math.exp(self._log_mistake[d])

    def good_flip_probability(self, d: int) -> Any:
        """p_d = P(d -> d - 1 | mistake at d), for 1 <= d <= n (p_n = 1)."""
        d = check_int(d, "d", low=1, high=self.n)
        if self.exact:
            return self._down[d] / self._mistake[d]
        return math.exp(self._log_down[d] - self._log_mistake[d])

    def transition_matrix(self) -> np.ndarray:
        """P[d, d'] for one *example* (not one mistake): stay, move down or move up; rows sum to 1.

        Floats, shape (n + 1, n + 1); state 0 is absorbing.
        """
        P = np.zeros((self.n + 1, self.n + 1))
        P[0, 0] = 1.0
        for d in range(1, self.n + 1):
            q = float(self.mistake_probability(d))
            p = float(self.good_flip_probability(d))
            P[d, d - 1] = q * p
            if d < self.n:
                P[d, d + 1] = q * (1 - p)
            P[d, d] = 1 - P[d].sum()
        return P

    # -- expected mistakes -------------------------------------------------------------
    def _log_steps(self) -> np.ndarray:
        """log T_d, T_d = expected mistakes to go from d to d - 1 (float, log space), d = 1..n."""
        log_T = np.zeros(self.n + 1)
        for d in range(self.n - 1, 0, -1):
            log_p = (
                math.log(float(self.good_flip_probability(d)))
                if self.exact
                else self._log_down[d] - self._log_mistake[d]
            )
            log_q = math.log1p(-math.exp(log_p)) if log_p < 0 else -math.inf
            log_T[d] = np.logaddexp(0.0, log_q + log_T[d + 1]) - log_p
        return log_T

    def _exact_steps(self) -> list[Fraction]:
        T = [Fraction(0)] * (self.n + 1)
        T[self.n] = Fraction(1)
        for d in range(self.n - 1, 0, -1):
            p = self.good_flip_probability(d)
            T[d] = (1 + (1 - p) * T[d + 1]) / p
        return T

    def expected_mistakes(self, d0: int | None = None) -> Any:
        """E[M | d0], or E[M] from a uniformly random w0 when d0 is None.

        T_n = 1 and T_d = (1 + (1 - p_d) T_{d+1}) / p_d; E[M | d0] = T_1 + ... + T_d0.
        A Fraction if exact, else a float (which overflows to inf beyond about
        n = 1000; use ``log_expected_mistakes``).
        """
        if not self.exact:
            return math.exp(self.log_expected_mistakes(d0))
        T = self._exact_steps()
        cumulative = [Fraction(0)]
        for d in range(1, self.n + 1):
            cumulative.append(cumulative[-1] + T[d])
        if d0 is not None:
            return cumulative[check_int(d0, "d0", low=0, high=self.n)]
        return sum(Fraction(math.comb(self.n, d), 2**self.n) * cumulative[d] for d in range(self.n + 1))

    def log_expected_mistakes(self, d0: int | None = None) -> float:
        """ln E[M | d0] (or from a random start), computed in log space: fine for n in the thousands."""
        from scipy.special import gammaln, logsumexp  # here, not at import: onlinelib stays light

        log_T = self._log_steps()
        log_cum = np.full(self.n + 1, -np.inf)
        for d in range(1, self.n + 1):
            log_cum[d] = np.logaddexp(log_cum[d - 1], log_T[d])
        if d0 is not None:
            return float(log_cum[check_int(d0, "d0", low=0, high=self.n)])
        log_weights = (
            gammaln(self.n + 1)
            - gammaln(np.arange(self.n + 1) + 1)
            - gammaln(self.n - np.arange(self.n + 1) + 1)
            - self.n * math.log(2)
        )
        return float(logsumexp(log_weights[1:] + log_cum[1:]))

    # -- the stopping rule D3 ---------------------------------------------------------------
    def sojourn_stop_probability(self, d: int, threshold: int) -> float:
        """P(a run of ``threshold`` correct predictions before the next mistake | distance d) = (1 - q_d)^threshold."""
        d = check_int(d, "d", low=0, high=self.n)
        threshold = check_int(threshold, "threshold", low=1)
        q = float(self.mistake_probability(d)) if self.exact else math.exp(self._log_mistake[d])
        return math.exp(threshold * math.log1p(-q)) if q < 1 else 0.0

    def correct_stop_probability(self, delta: float, d0: int | None = None) -> float:
        """P(step D3 stops with w = w*), from d0 or a uniformly random start (floats; chapter 7).

        The complement of :meth:`wrong_stop_probability`, solved as its own system rather than as
        ``1 - wrong``: in doubles, ``1 - wrong`` is 0 or a multiple of 2^-53 once the true value is
        below about 1e-16 (at n = 101, delta = 0.1 it is about 5e-18). With f_0 = 1 and
        f_d = (1 - s_d)(p_d f_{d-1} + (1 - p_d) f_{d+1}) for d >= 1, the elimination of
        :meth:`wrong_stop_probability` gives f_d = a_d + b_d f_{d+1} with every a_d, b_d a ratio of
        non-negative terms, so tiny values keep their relative accuracy.
        """
        from scipy.special import gammaln  # here, not at import: onlinelib stays light

        threshold = confidence_threshold(self.n, delta)
        n = self.n
        a, b, g = np.zeros(n + 1), np.zeros(n + 1), np.ones(n + 1)
        a[0] = 1.0  # f_0 = 1: at w = w* no mistake comes, and D3 stops there
        for d in range(1, n + 1):
            s = self.sojourn_stop_probability(d, threshold)
            p = float(self.good_flip_probability(d))
            c = (1 - s) * p
            e = (1 - s) * (1 - p) if d < n else 0.0
            pivot = s + e + c * g[d - 1]  # 1 - c b_{d-1}, as a sum of non-negative terms
            a[d] = c * a[d - 1] / pivot
            b[d] = e / pivot
            g[d] = (s + c * g[d - 1]) / pivot
        f = np.zeros(n + 1)
        f[0], f[n] = 1.0, a[n]
        for d in range(n - 1, 0, -1):
            f[d] = a[d] + b[d] * f[d + 1]
        f = np.clip(f, 0.0, 1.0)  # rounding only
        if d0 is not None:
            return float(f[check_int(d0, "d0", low=0, high=n)])
        log_weights = gammaln(n + 1) - gammaln(np.arange(n + 1) + 1) - gammaln(n - np.arange(n + 1) + 1)
        weights = np.exp(log_weights - n * math.log(2))
        return float(np.clip(weights @ f / weights.sum(), 0.0, 1.0))

    def wrong_stop_probability(self, delta: float, d0: int | None = None) -> float:
        """P(step D3 stops with w != w*), from d0 or a uniformly random start (floats).

        Each sojourn at distance d >= 1 (the examples between two mistakes) ends
        the run at a wrong w with probability s_d = (1 - q_d)^T*; otherwise a
        mistake moves d down with probability p_d and up otherwise. So
        h_0 = 0 and h_d = s_d + (1 - s_d)(p_d h_{d-1} + (1 - p_d) h_{d+1}), a
        tridiagonal linear system.
        """
        from scipy.special import gammaln  # here, not at import: onlinelib stays light

        threshold = confidence_threshold(self.n, delta)
        n = self.n
        # The system is exponentially ill-conditioned (a general solver is wrong by 1e-3 at n = 200):
        # eliminate from d = 1 upwards, h_d = a_d + b_d h_{d+1}, also keeping g_d = 1 - b_d, so that the
        # pivot 1 - c_d b_{d-1} = s_d + e_d + c_d g_{d-1} is a sum of non-negative terms.
        a, b, g = np.zeros(n + 1), np.zeros(n + 1), np.ones(n + 1)
        for d in range(1, n + 1):
            s = self.sojourn_stop_probability(d, threshold)
            p = float(self.good_flip_probability(d))
            c = (1 - s) * p
            e = (1 - s) * (1 - p) if d < n else 0.0
            pivot = s + e + c * g[d - 1]
            a[d] = (s + c * a[d - 1]) / pivot
            b[d] = e / pivot
            g[d] = (s + c * g[d - 1]) / pivot
        h = np.zeros(n + 1)
        h[n] = a[n]
        for d in range(n - 1, 0, -1):
            h[d] = a[d] + b[d] * h[d + 1]
        h = np.clip(h, 0.0, 1.0)  # rounding only
        if d0 is not None:
            return float(h[check_int(d0, "d0", low=0, high=n)])
        weights = np.exp(
            gammaln(n + 1) - gammaln(np.arange(n + 1) + 1) - gammaln(n - np.arange(n + 1) + 1) - n * math.log(2)
        )
        return float(np.clip(weights @ h / weights.sum(), 0.0, 1.0))  # a probability, up to rounding


@lru_cache(maxsize=256)
def _exact_rates(n: int) -> tuple[list[Fraction], list[Fraction]]:
    """P(mistake | d) and P(mistake and a good flip | d), d = 0..n, as Fractions (O(n^3) integer work)."""
    Z = halfcube_size(n)
    mistake, down = [Fraction(0)], [Fraction(0)]
    for d in range(1, n + 1):
        total_mistake, total_down = 0, Fraction(0)
        for K in range(n - d + 1):
            X = 2 * K - (n - d)
            for L in range(d + 1):
                Y = 2 * L - d
                if X + Y >= 0 and X < Y:
                    c = math.comb(n - d, K) * math.comb(d, L)
                    total_mistake += c
                    total_down += Fraction(c * L, L + n - d - K)
        mistake.append(Fraction(total_mistake, Z))
        down.append(total_down / Z)
    return mistake, down


@lru_cache(maxsize=256)
def _log_rates(n: int) -> tuple[np.ndarray, np.ndarray]:
    """ln P(mistake | d) and ln P(mistake and a good flip | d), d = 0..n, in floats."""
    from scipy.special import logsumexp  # here, not at import: onlinelib stays light

    A = np.arange(
        (n + 1) // 2, n + 1
    )  # |B+| = sum_{A >= n/2} C(n, A), A = agreements with w* (ties A = n/2 count fully)
    log_Z = float(logsumexp(_log_comb(n, A)))
    log_mistake = np.full(n + 1, -np.inf)
    log_down = np.full(n + 1, -np.inf)
    for d in range(1, n + 1):
        K = np.arange(n - d + 1)[:, None]
        L = np.arange(d + 1)[None, :]
        X, Y = 2 * K - (n - d), 2 * L - d
        region = (X + Y >= 0) & (X < Y)
        log_c = _log_comb(n - d, K) + _log_comb(d, L)
        log_mistake[d] = logsumexp(log_c[region]) - log_Z
        good = region & (L > 0)
        share = np.log(np.broadcast_to(L, region.shape)[good]) - np.log((L + n - d - K)[good])
        log_down[d] = logsumexp(log_c[good] + share) - log_Z if good.any() else -np.inf
    return log_mistake, log_down


def _log_comb(n: Any, k: Any) -> np.ndarray:
    from scipy.special import gammaln  # here, not at import: onlinelib stays light

    return gammaln(np.asarray(n) + 1) - gammaln(np.asarray(k) + 1) - gammaln(np.asarray(n) - np.asarray(k) + 1)
