"""The most mistakes an adversary can force on deterministic Weighted Majority: an exact search (chapter 5).

Chapter 5's theorem "Weighted Majority" (``thm-ex5-wma``) bounds the mistakes M of deterministic
Weighted Majority with rate eta by [ln N + m ln(1/(1-eta))] / ln(1/(1-eta/2)) when the best of the
N experts makes m mistakes. The bound is not met with equality in general, and no closed form
for the largest M is known to the book; :func:`weighted_majority_optimum` finds it exactly for
small (N, eta, m) by a memoised search, and builds a stream that forces it. Assignment 9
(``wm_adversary``) scores its students' adversaries against that optimum.

**The game.** A stream is seen through the experts' mistake counts c = (c_1, ..., c_N): Weighted
Majority weighs expert i by (1-eta)^{c_i}, predicts +1 iff the weight on +1 is at least the
weight on -1, and a round adds one mistake to every expert in the set S of experts that erred.
Write w(S) for the weight of S and W for the total.

1. *What a round can do.* If 2 w(S) >= W, the round "S predicts +1, the others -1, outcome -1" is a
   mistake of Weighted Majority in which exactly S errs (on a tie the vote goes to +1). If
   2 w(S) < W, no round in which exactly S errs is a mistake: Weighted Majority follows the side
   holding more weight, which is the side that is right. So a round is a set S, and it can be a
   mistake iff 2 w(S) >= W.
2. *Fewer mistakes of the experts never hurt the adversary.* Let V(c) be the most mistakes of
   Weighted Majority over all continuations from the counts c that end with some expert within
   m mistakes. If c <= c' entrywise then V(c) >= V(c'); it is enough to show it for
   c' = c + e_j. Replay a continuation from c' (its sets S_1, S_2, ...) from c, round by round,
   with the same sets, except in the first round that is a mistake from c' and leaves j out:
   there play S + {j}. Until that round the records differ in expert j alone, which is one
   mistake behind from c, so heavier by some d > 0, and W is larger by d too. A mistake S that
   holds j stays one: 2 w(S) gains 2d and W only d. The set S + {j} is a mistake: 2 w(S + {j})
   = 2 w'(S) + 2 w'(j) + 2d >= W' + d = W. After it the records agree, and the rest is copied.
   So the replay makes every mistake the original makes, and it ends with counts at most the
   original's, so within the budget too, after as many rounds.
3. *Consequences.* A round that is not a mistake (2 w(S) < W, or 2 w(S) >= W played as a correct
   round) only raises counts, so deleting it loses nothing: some optimal stream errs in every
   round. Among the mistake sets, a superset raises more counts, so only the sets that are
   minimal under inclusion (dropping their lightest member takes them below half) need be
   tried. And V depends on c only through the multiset of counts, since the experts are
   interchangeable; a state is the sorted tuple of counts.

**The search.** V(state) = max(0, max over minimal S with 2 w(S) >= W that leave an expert within
m of 1 + V(state + 1_S)), memoised on the sorted counts, with exact integer weights proportional
to (1-eta)^c (a^c b^(K-c) for 1 - eta = a/b and K the largest count), so every tie is exact.
A minimal set is given by how many experts of each count it takes; the count groups are tried
from the heaviest, and the lightest group a set uses fixes how many of it the set needs.

**The state space.** Every mistake multiplies W by at most 1 - eta/2 and W stays at least
(1-eta)^m while some expert is within budget, so the search is at most B = floor(bound) rounds
deep, and no count exceeds B: at most C(N + B, N) states (sorted tuples of N counts in [0, B]).
The states actually reached are far fewer (at most 1,604 on the instances of Assignment 9; see
the tests), but they grow fast with N and as eta shrinks (N = 8, eta = 1/5, m = 2 needs more
than 20,000, N = 10, eta = 1/10, m = 1 more than 100,000); a search that meets more than
``max_states`` states stops with a ``ValueError``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from .certificates import _lecturer_eta, _wma_bound_floor

__all__ = ["MAX_STATES", "WeightedMajorityOptimum", "weighted_majority_optimum"]

#: The most states :func:`weighted_majority_optimum` visits by default before it gives up.
MAX_STATES = 100_000


class WeightedMajorityOptimum(NamedTuple):
    """The exact optimum of the adversary against Weighted Majority, and a stream that forces it.

    ``mistakes`` is the largest number of mistakes M of Weighted Majority over all valid streams;
    ``P`` (T rows of N ints ±1) and ``y`` (T ints ±1) a stream with exactly M mistakes (T = M, or
    one correct round when M = 0); ``states`` the number of states the search solved; ``bound``
    the floor of chapter 5's bound.
    """

    mistakes: int
    P: list[list[int]]
    y: list[int]
    states: int
    bound: int


def _check_int(value: Any, name: str, low: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int >= {low}, got {value!r}")
    if value < low:
        raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    return int(value)


def _groups(state: tuple[int, ...]) -> tuple[list[int], list[int]]:
    """The distinct counts of a sorted state (ascending: heaviest first) and how many experts have each."""
    values, sizes = [state[0]], [1]
    for c in state[1:]:
        if c == values[-1]:
            sizes[-1] += 1
        else:
            values.append(c)
            sizes.append(1)
    return values, sizes


def _minimal_sides(state: tuple[int, ...], a: int, b: int, m: int) -> list[tuple[int, ...]]:
    """Every minimal mistake set of a state, as how many experts it takes from each count group.

    A set is minimal iff it holds at least half the weight and dropping its lightest member
    takes it below half. With L the lightest group it uses and h the weight it takes from the
    heavier groups (h below half), it takes from group L the fewest experts that reach half.
    Only sets after which some expert is still within the budget m are returned.
    """
    values, sizes = _groups(state)
    top = values[-1]
    weights = [a**v * b ** (top - v) for v in values]
    total = sum(w * n for w, n in zip(weights, sizes, strict=True))
    rest = [0] * (len(values) + 1)  # rest[j]: the weight of the groups j, j + 1, ... (the lighter ones)
    for j in range(len(values) - 1, -1, -1):
        rest[j] = rest[j + 1] + weights[j] * sizes[j]
    found: list[tuple[int, ...]] = []
    prefix: list[int] = []

    def extend(held: int) -> None:  # prefix: how many of each group before L = len(prefix)
        light = len(prefix)
        if 2 * (held + rest[light]) < total:  # also when light == len(values): no group is left
            return
        w = weights[light]
        if w > 0:  # the fewest experts of group `light` that bring the set to half the weight
            need = -((2 * held - total) // (2 * w))
            if 1 <= need <= sizes[light]:
                side = (*prefix, need) + (0,) * (len(values) - light - 1)
                if values[0] < m or (values[0] == m and side[0] < sizes[0]):  # an expert stays within m
                    found.append(side)
        for k in range(sizes[light] + 1):  # take k of this group, then a lighter group is the lightest
            if 2 * (held + k * w) >= total:
                break
            prefix.append(k)
            extend(held + k * w)
            prefix.pop()

    extend(0)
    return found


def _after(state: tuple[int, ...], side: tuple[int, ...]) -> tuple[int, ...]:
    """The sorted counts after the experts of ``side`` (how many of each group) each make a mistake."""
    values, sizes = _groups(state)
    out: list[int] = []
    for v, n, k in zip(values, sizes, side, strict=True):
        out += [v] * (n - k) + [v + 1] * k
    return tuple(sorted(out))


def _solve(n: int, eta: Fraction, m: int, max_states: int) -> dict[tuple[int, ...], tuple[int, Any]]:
    """V(state) for every state reachable from N zero counts, with the best side: {state: (V, side)}.

    An iterative depth-first search (no recursion limit): a state is solved once all its
    successors are.
    """
    a, b = (1 - eta).numerator, (1 - eta).denominator
    root = (0,) * n
    solved: dict[tuple[int, ...], tuple[int, Any]] = {}
    stack = [(root, _minimal_sides(root, a, b, m), 0, (0, None))]
    while stack:
        state, sides, i, best = stack[-1]
        if i < len(sides):
            nxt = _after(state, sides[i])
            if nxt in solved:
                value = 1 + solved[nxt][0]
                stack[-1] = (state, sides, i + 1, max(best, (value, sides[i]), key=lambda p: p[0]))
            else:
                if len(solved) + len(stack) > max_states:
                    raise ValueError(
                        f"max_states = {max_states} is too small for n_experts = {n}, eta = {eta}, m = {m}: the "
                        f"search met more than {max_states} states of the experts' mistake counts, so the "
                        "instance is too large to search exactly (raise max_states, or take fewer experts, a "
                        "larger eta or a smaller m)"
                    )
                stack.append((nxt, _minimal_sides(nxt, a, b, m), 0, (0, None)))
        else:
            solved[state] = best
            stack.pop()
    return solved


def _stream(n: int, solved: dict, mistakes: int) -> tuple[list[list[int]], list[int]]:
    """The optimal stream: from N zero counts, the best side of each state predicts +1, the outcome is -1."""
    if mistakes == 0:  # a stream needs a round: one on which every expert, and so the vote, is right
        return [[1] * n], [1]
    counts, P = [0] * n, []
    state = tuple(counts)
    while solved[state][0] > 0:
        side = solved[state][1]
        values, _ = _groups(state)
        wrong = []
        for v, k in zip(values, side, strict=True):  # the first k experts of each count group err
            wrong += [i for i, c in enumerate(counts) if c == v][:k]
        P.append([1 if i in wrong else -1 for i in range(n)])
        counts = [c + (i in wrong) for i, c in enumerate(counts)]
        state = _after(state, side)
    return P, [-1] * len(P)


def weighted_majority_optimum(
    n_experts: int, eta: Any, m: int, *, max_states: int = MAX_STATES
) -> WeightedMajorityOptimum:
    """The most mistakes any stream forces on deterministic Weighted Majority, and such a stream (chapter 5).

    Searches every stream of expert advice and outcomes on which the best of ``n_experts``
    experts makes at most ``m`` mistakes, for the largest number of mistakes of Weighted
    Majority with rate ``eta`` (weights (1-eta)^mistakes, ties to +1), as the module's
    docstring describes and proves: only rounds that are mistakes of Weighted Majority, with
    minimal wrong sides, over the sorted mistake counts, in exact integer arithmetic. It
    never exceeds the floor of ``onlinelib.wma_bound`` (Theorem ``thm-ex5-wma``), and is
    below it on most instances.

    Parameters
    ----------
    n_experts : int >= 1
        The number N of experts.
    eta : int or Fraction in (0, 1]
        The rate, exact (a float is refused: the search would be of a different rate).
    m : int >= 0
        The most mistakes the best expert may make; 0 when eta = 1.
    max_states : int >= 1, keyword-only
        The most states (sorted tuples of mistake counts) the search may visit.

    Returns
    -------
    WeightedMajorityOptimum
        The optimum M, a stream (P, y) of ints ±1 that forces exactly M mistakes (the book's
        exact replay, ``onlinelib.certificates.verify_weighted_majority_stream``, counts M on
        it), the states solved and the floor of the bound.

    Raises
    ------
    TypeError, ValueError
        If an argument is out of its domain; if eta = 1 and m > 0 (an expert's first mistake
        takes all its weight, and once every expert has erred each vote is a tie that the
        adversary can make a mistake: the maximum is infinite); or if the search meets more than
        ``max_states`` states (the instance is too large to search).
    """
    n = _check_int(n_experts, "n_experts", 1)
    m = _check_int(m, "m", 0)
    max_states = _check_int(max_states, "max_states", 1)
    eta = _lecturer_eta(eta)
    if eta == 1 and m > 0:
        raise ValueError(
            f"m must be 0 when eta = 1, got m = {m}: every expert's first mistake takes its whole weight, and once "
            "all have erred every vote is a tie, so Weighted Majority can be made to err forever"
        )
    solved = _solve(n, eta, m, max_states)
    mistakes = solved[(0,) * n][0]
    P, y = _stream(n, solved, mistakes)
    return WeightedMajorityOptimum(mistakes, P, y, len(solved), _wma_bound_floor(n, m, eta))
