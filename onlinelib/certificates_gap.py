"""The exact verifier of a gap class: VC dimension at most 1 and Littlestone dimension at least k (chapter 1).

Chapter 1, section "Chapter 1 and statistical learning", proves VC(C) <= Ldim(C)
(the theorem "Ldim is at least VC") and shows with thresholds that the gap can be as large as we like.
Assignment 14 (``dimensions``) asks a student to build such a class on at most ``2^k - 1``
points, together with a mistake tree that certifies its Littlestone dimension. This module
checks both halves exactly:

- the class side: the student's Boolean table, its shape and every entry (``True``/``False`` or
  the ints 0/1; a float is refused, as everywhere in ``onlinelib.certificates``), and that no
  pair of points is shattered (a direct test of all pairs, so VC <= 1 without any search);
- the Littlestone side: the tree, by ``onlinelib.certificates.verify_mistake_tree`` on the
  student's table, with the asked depth passed as the optimum (nothing computes Ldim).

Student data is untrusted (never raises: an invalid object gets a Verdict with the reason);
the lecturer's arguments raise ``TypeError``/``ValueError`` naming the argument.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .certificates_base import (
    Verdict,
    _check_limit,
    _describe,
    _invalid,
    _Reject,
    _student_sequence,
    _valid,
)
from .concepts import ConceptClass

__all__ = ["MAX_GAP_DEPTH", "verify_gap_class"]

#: The deepest tree the verifier asks for: 2^10 - 1 points and 2^11 rows keep the pair test fast.
MAX_GAP_DEPTH = 10


def _lecturer_depth(depth: Any) -> int:
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or not 1 <= depth <= MAX_GAP_DEPTH:
        raise ValueError(f"depth must be an int in 1..{MAX_GAP_DEPTH} (the Ldim asked for), got {depth!r}")
    return int(depth)


def _entry(value: Any, where: str) -> bool:
    """A student's table entry as a bool: True/False (Python or numpy) or the ints 0 and 1."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)) and value in (0, 1):
        return bool(value)
    if isinstance(value, (float, np.floating)):
        raise _Reject(f"{where} is the float {_describe(value)}: entries must be True/False or the ints 0/1")
    raise _Reject(f"{where} must be True/False or the int 0 or 1, got {_describe(value)}")


def _student_table(value: Any, max_concepts: int, max_points: int) -> np.ndarray:
    """The student's table as a Boolean array (n_concepts, n_points), every row and entry checked."""
    if isinstance(value, np.ndarray):
        if value.ndim != 2:
            raise _Reject(f"table must be a 2-D array (n_concepts, n_points), got an array of shape {value.shape}")
        if value.dtype.kind == "f":
            raise _Reject(
                f"table must hold True/False or the ints 0/1, got an array of dtype {value.dtype} "
                "(np.zeros makes floats: give dtype=bool)"
            )
        if value.dtype.kind not in "biuO":
            raise _Reject(f"table must hold True/False or the ints 0/1, got an array of dtype {value.dtype}")
    rows = _student_sequence(value, "table", max_concepts, what="rows (concepts)", ndim=2, kinds="biuO")
    if not rows:
        raise _Reject("table has no row: a class needs at least one concept")
    if isinstance(value, np.ndarray) and value.dtype.kind in "biu":
        if value.shape[1] > max_points:
            raise _Reject(f"table has {value.shape[1]} points (columns), the limit is {max_points}")
        if value.shape[1] == 0:
            raise _Reject("table has no column: the class needs at least one point")
        if value.dtype.kind != "b" and not np.isin(value, (0, 1)).all():
            c, x = (int(i) for i in np.argwhere(~np.isin(value, (0, 1)))[0])
            raise _Reject(f"table[{c}][{x}] must be True/False or the int 0 or 1, got {_describe(value[c, x])}")
        return value.astype(bool)
    table = []
    width = None
    for c, row in enumerate(rows):
        row = _student_sequence(row, f"table[{c}]", max_points, what="entries (points)", kinds="biuO")
        if width is None:
            width = len(row)
            if width == 0:
                raise _Reject("table[0] is empty: the class needs at least one point")
        elif len(row) != width:
            raise _Reject(f"table[{c}] has {len(row)} entries, table[0] has {width}: every row must have one per point")
        table.append([_entry(v, f"table[{c}][{x}]") for x, v in enumerate(row)])
    return np.array(table, dtype=bool)


def _shattered_pair(table: np.ndarray) -> tuple[int, int, list[int]] | None:
    """The first pair of points (x < x', in row-major order) the class shatters, with one concept per
    labelling (-1 -1, -1 +1, +1 -1, +1 +1); None if no pair is shattered, i.e. VC <= 1.

    Each count of concepts realising a labelling of (x, x') is an entry of a matrix product of 0/1
    matrices, exact in float64 while it is below 2^53 (the rows are at most a few thousand).
    """
    pos = table.astype(np.float64)
    neg = 1.0 - pos
    shattered = (neg.T @ neg > 0) & (neg.T @ pos > 0) & (pos.T @ neg > 0) & (pos.T @ pos > 0)
    pairs = np.argwhere(np.triu(shattered, k=1))
    if len(pairs) == 0:
        return None
    x, x2 = (int(i) for i in pairs[0])
    witnesses = [
        int(np.flatnonzero((table[:, x] == a) & (table[:, x2] == b))[0])
        for a, b in ((False, False), (False, True), (True, False), (True, True))
    ]
    return x, x2, witnesses


def verify_gap_class(
    table: Any,
    tree: Any,
    *,
    depth: int,
    max_points: int | None = None,
    max_concepts: int | None = None,
) -> Verdict:
    """Check a class with VC dimension at most 1 and a mistake tree that certifies its Littlestone dimension.

    Chapter 1, the theorem "Ldim is at least VC" (VC <= Ldim) and the thresholds that make the gap as large
    as we like; Assignment 14 (``dimensions``), part (b).

    Parameters
    ----------
    table : array_like (the student's)
        The class: a Boolean array or a list of rows, shape (n_concepts, n_points), entries
        ``True``/``False`` or the ints 0/1 (no floats). Rows need not be distinct.
    tree : nested lists (the student's)
        A mistake tree of the class, as ``verify_mistake_tree`` reads it.
    depth : int, keyword-only
        The Littlestone dimension asked for, k (1 <= k <= ``MAX_GAP_DEPTH``): the optimum.
    max_points : int, keyword-only, optional
        The most points (columns); default ``2^k - 1``, the fewest with which VC <= 1 and
        Ldim >= k are possible (Sauer's lemma for VC 1 gives ``|C| <= n + 1``, and
        ``Ldim <= floor(lg |C|)``).
    max_concepts : int, keyword-only, optional
        The most rows; default ``2^(k+1)``.

    Returns
    -------
    Verdict
        Valid iff the table is well formed and within the limits, no pair of points is
        shattered (the reason of an invalid one names the pair and a concept for each of its four
        labellings), and the tree is a valid mistake tree of the table. ``quality`` is the depth
        of the largest complete mistake tree inside it (Ldim >= quality), ``optimum`` is k.

    Raises
    ------
    TypeError, ValueError
        If ``depth``, ``max_points`` or ``max_concepts`` is not an int in its range.
    """
    depth = _lecturer_depth(depth)
    max_points = 2**depth - 1 if max_points is None else _check_limit(max_points, "max_points")
    max_concepts = 2 ** (depth + 1) if max_concepts is None else _check_limit(max_concepts, "max_concepts")
    try:
        matrix = _student_table(table, max_concepts, max_points)
        pair = _shattered_pair(matrix)
        if pair is not None:
            x, x2, (a, b, c, d) = pair
            raise _Reject(
                f"the class shatters points ({x}, {x2}): concepts {a}, {b}, {c}, {d} label them (-1, -1), "
                f"(-1, +1), (+1, -1), (+1, +1), so its VC dimension is at least 2 (at most 1 is asked)"
            )
    except _Reject as reject:
        return _invalid(depth, str(reject))
    from .certificates import verify_mistake_tree  # that module registers this one: imported when called

    n_concepts, n_points = matrix.shape
    verdict = verify_mistake_tree(ConceptClass(matrix), tree, max_nodes=2 * n_concepts, optimum=depth)
    if not verdict.valid:
        return _invalid(depth, f"the tree: {verdict.reason}")
    return _valid(
        verdict.quality,
        depth,
        f"{n_concepts} concept{'s' if n_concepts > 1 else ''} on {n_points} point{'s' if n_points > 1 else ''}, "
        f"no pair shattered (VC <= 1), and a mistake tree holding "
        f"a complete one of depth {verdict.quality}: Ldim >= {verdict.quality} (asked: {depth})",
    )
