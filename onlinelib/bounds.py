"""Closed-form mistake bounds, one function per theorem.

Chapter 1: the trivial bounds on Opt(C), Halving's floor(lg |C|), Randomized
Halving's H_r - 1 (both in closed form and as the solution of the lecture's
recurrence), and the Littlestone dimension.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from .concepts import ConceptClass
from .version_space import _check_class, littlestone_dimension

__all__ = [
    "halving_bound",
    "harmonic_number",
    "randomized_halving_bound",
    "randomized_halving_recurrence",
    "littlestone_bound",
    "opt_upper_bounds",
]


def _check_size(n: Any, name: str) -> int:
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"{name} must be a positive integer, got {n!r}")
    if n < 1:
        raise ValueError(f"{name} must be a positive integer (a class has at least one concept), got {n}")
    return int(n)


def halving_bound(n_concepts: int) -> int:
    """floor(lg |C|): Halving's mistake bound (chapter 1, Theorem "Halving"). Exact integer arithmetic."""
    return _check_size(n_concepts, "n_concepts").bit_length() - 1


def harmonic_number(r: int) -> Fraction:
    """H_r = 1 + 1/2 + ... + 1/r, exactly."""
    r = _check_size(r, "r")
    return sum((Fraction(1, i) for i in range(1, r + 1)), Fraction(0))


def randomized_halving_bound(n_concepts: int) -> Fraction:
    """H_r - 1 for r = |C|: Randomized Halving's expected-mistake bound, exactly.

    (Chapter 1, Theorem "Randomized Halving"; it is at most ln r, so the lecture's
    "ln |C| + O(1)" needs no O(1).)
    """
    return harmonic_number(_check_size(n_concepts, "n_concepts")) - 1


def randomized_halving_recurrence(r_max: int) -> list[Fraction]:
    """[M_1, ..., M_{r_max}] from the lecture's recurrence, solved step by step in fractions.

    M_1 = 0 and M_r = (r-1)/r + (M_1 + ... + M_{r-1})/r: the held concept is the
    last one to be eliminated with probability 1/r (no more mistakes), and is
    otherwise the i-th for i < r (one mistake, then r - i concepts remain). It
    does not use the closed form, so comparing it with ``randomized_halving_bound``
    checks the telescoping step of the proof.
    """
    r_max = _check_size(r_max, "r_max")
    values = [Fraction(0)]
    prefix = Fraction(0)
    for r in range(2, r_max + 1):
        prefix += values[-1]
        values.append(Fraction(r - 1, r) + prefix / r)
    return values


def littlestone_bound(concept_class: ConceptClass) -> int:
    """Ldim(C) = Opt(C): SOA's mistake bound and every deterministic learner's lower bound."""
    return littlestone_dimension(_check_class(concept_class))


def opt_upper_bounds(concept_class: ConceptClass) -> dict[str, int]:
    """The chain of upper bounds on Opt(C) from chapter 1, for one class.

    Returns ``{"|X|": ..., "|C| - 1": ..., "floor(lg |C|)": ..., "Ldim(C)": ...}``.
    Opt(C) equals the last; the first three are the "trivial" bounds.
    """
    cls = _check_class(concept_class)
    return {
        "|X|": cls.n_instances,
        "|C| - 1": cls.size - 1,
        "floor(lg |C|)": halving_bound(cls.size),
        "Ldim(C)": littlestone_bound(cls),
    }
