"""Finite concept classes, stored as Boolean truth tables (book chapter 1).

A concept class over a finite instance set {0, 1, ..., m-1} is a Boolean matrix
with one row per concept and one column per instance: entry ``[c, x]`` is True
when concept ``c`` labels instance ``x`` positive (+1). The learners of
``version_space`` work on these tables with vectorised operations, so a version
space is just a Boolean mask over the rows.

Instances are referred to by their index. Classes over Boolean vectors (such as
monotone disjunctions) also keep the vector of each instance in ``instances``,
and ``encode`` maps vectors back to indices.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .validation import check_int

__all__ = [
    "ConceptClass",
    "thresholds",
    "singletons",
    "monotone_disjunctions",
    "all_concepts",
    "check_concept_class",
]

MAX_DISJUNCTION_VARIABLES = 12
MAX_ALL_CONCEPTS_DOMAIN = 16


class ConceptClass:
    """A finite concept class given by its truth table.

    Parameters
    ----------
    table : array_like of bool or {0, 1}, shape (n_concepts, n_instances)
        ``table[c, x]`` is True iff concept ``c`` labels instance ``x`` +1.
    name : str, optional
        A short description used in plots and messages.
    instances : ndarray, shape (n_instances, ...), optional
        What each instance is (e.g. its bit vector); defaults to the indices.
    concept_names : sequence of str, optional
        A readable name for each concept.

    Raises
    ------
    ValueError
        If the table is not two-dimensional, has no concept or no instance, or
        holds entries other than 0/1.
    """

    def __init__(self, table: Any, name: str = "", instances: Any = None, concept_names: Any = None):
        arr = np.asarray(table)
        if arr.ndim != 2:
            raise ValueError(f"table must be 2-D (n_concepts, n_instances), got shape {arr.shape}")
        if arr.shape[0] == 0:
            raise ValueError("table must hold at least one concept: an empty class has nothing to learn")
        if arr.shape[1] == 0:
            raise ValueError("table must have at least one instance (column), got 0")
        if arr.dtype != bool:
            if not np.issubdtype(arr.dtype, np.number):
                raise ValueError(f"table must hold Boolean entries (True/False or 0/1), got dtype {arr.dtype}")
            bad = ~np.isin(arr, (0, 1))
            if bad.any():
                i, j = np.argwhere(bad)[0]
                hint = " (a ±1 labelling? use table == 1)" if np.isin(arr, (-1, 1)).all() else ""
                raise ValueError(
                    f"table must hold Boolean entries (True/False or 0/1), got {arr[i, j].item()!r} "
                    f"at concept {i}, instance {j}{hint}"
                )
            arr = arr.astype(bool)
        # Stored instance-major so that the column of one instance, the thing a
        # learner reads every round, is a contiguous row.
        self.by_instance = arr.T.copy(order="C")  # a copy: the caller may change its array later
        self.by_instance.flags.writeable = False
        self.name = name or f"class of {arr.shape[0]} concepts"
        if instances is None:
            instances = np.arange(arr.shape[1])
        instances = np.asarray(instances)
        if len(instances) != arr.shape[1]:
            raise ValueError(f"instances must have one entry per column ({arr.shape[1]}), got {len(instances)}")
        self.instances = instances
        if concept_names is not None and len(concept_names) != arr.shape[0]:
            raise ValueError(
                f"concept_names must have one entry per concept ({arr.shape[0]}), got {len(concept_names)}"
            )
        self.concept_names = list(concept_names) if concept_names is not None else None
        self._ldim_cache: dict[bytes, int] = {}

    # -- sizes -----------------------------------------------------------------
    @property
    def table(self) -> np.ndarray:
        """The truth table, shape (n_concepts, n_instances) (a read-only view)."""
        return self.by_instance.T

    @property
    def size(self) -> int:
        """``|C|``, the number of concepts."""
        return self.by_instance.shape[1]

    def __len__(self) -> int:
        return self.size

    @property
    def n_instances(self) -> int:
        """``|X|``, the number of instances."""
        return self.by_instance.shape[0]

    def __repr__(self) -> str:
        return f"ConceptClass({self.name!r}, concepts={self.size}, instances={self.n_instances})"

    def to_text(self, max_concepts: int = 20) -> str:
        """The truth table as text, one line per concept: ``name: + - + ...``.

        At most ``max_concepts`` rows are shown; the rest are summarised.
        """
        names = self.concept_names or [f"c{c}" for c in range(self.size)]
        width = max(len(n) for n in names[:max_concepts])
        lines = [
            f"{names[c]:>{width}}: " + " ".join("+" if v else "-" for v in self.table[c])
            for c in range(min(self.size, max_concepts))
        ]
        if self.size > max_concepts:
            lines.append(f"... and {self.size - max_concepts} more concepts")
        return "\n".join(lines)

    # -- checks ----------------------------------------------------------------
    def check_instance(self, x: Any, name: str = "x") -> int:
        """Return ``x`` as an instance index, or raise if it is outside the domain."""
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
            arr = np.asarray(x)
            if arr.ndim == 0 and np.issubdtype(arr.dtype, np.integer):
                x = int(arr)
            else:
                raise TypeError(
                    f"{name} must be an instance index, an integer in [0, {self.n_instances}), got {x!r}; "
                    "use ConceptClass.encode to turn bit vectors into indices"
                )
        if not 0 <= x < self.n_instances:
            raise ValueError(
                f"{name} must be an instance of {self.name}, an integer in [0, {self.n_instances}), got {x}"
            )
        return int(x)

    def check_instances(self, X: Any, name: str = "X") -> np.ndarray:
        """Return ``X`` as an int array of instance indices, or raise if any is outside the domain."""
        arr = np.asarray(X)
        if arr.ndim != 1:
            raise ValueError(f"{name} must be a 1-D array of instance indices, got shape {arr.shape}")
        if arr.size and (arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer)):
            raise TypeError(f"{name} must hold integer instance indices, got dtype {arr.dtype}")
        arr = arr.astype(np.int64)
        bad = (arr < 0) | (arr >= self.n_instances)
        if bad.any():
            raise ValueError(
                f"{name} must hold instances of {self.name}, integers in [0, {self.n_instances}), got {arr[bad][0]}"
            )
        return arr

    def check_concept(self, c: Any, name: str = "target") -> int:
        """Return ``c`` as a concept index, or raise if the class has no such concept."""
        if isinstance(c, (bool, np.bool_)) or not isinstance(c, (int, np.integer)):
            raise TypeError(f"{name} must be a concept index, an integer in [0, {self.size}), got {c!r}")
        if not 0 <= c < self.size:
            raise ValueError(f"{name} must be a concept of {self.name}, an index in [0, {self.size}), got {c}")
        return int(c)

    def check_mask(self, mask: Any, name: str = "mask") -> np.ndarray:
        """Return ``mask`` as a Boolean array over the concepts, or raise."""
        arr = np.asarray(mask)
        if arr.shape != (self.size,) or arr.dtype != bool:
            raise ValueError(
                f"{name} must be a Boolean array of shape ({self.size},), got {arr.dtype} array of shape {arr.shape}"
            )
        return arr

    # -- labels ----------------------------------------------------------------
    def labels(self, target: int, X: Any) -> np.ndarray:
        """The labels (±1, int8) that concept ``target`` gives the instances ``X``."""
        target = self.check_concept(target)
        X = self.check_instances(X)
        return np.where(self.by_instance[X, target], 1, -1).astype(np.int8)

    def index_of(self, table_row: Any) -> int:
        """The index of the concept with the given truth-table row.

        Raises ``ValueError`` if no concept of the class has that row.
        """
        row = np.asarray(table_row, dtype=bool)
        if row.shape != (self.n_instances,):
            raise ValueError(f"table_row must have shape ({self.n_instances},), got {row.shape}")
        hits = np.flatnonzero((self.by_instance == row[:, None]).all(axis=0))
        if hits.size == 0:
            raise ValueError(f"the given concept is not in {self.name}")
        return int(hits[0])

    def encode(self, vectors: Any) -> np.ndarray:
        """Map instance vectors (rows of ``instances``) to their indices.

        Raises ``ValueError`` if a vector is not an instance of the class.
        """
        V = np.asarray(vectors)
        single = V.ndim == self.instances.ndim - 1
        V = V.reshape((-1,) + self.instances.shape[1:])
        flat_inst = self.instances.reshape(self.n_instances, -1)
        lookup = {tuple(r): i for i, r in enumerate(flat_inst.tolist())}
        out = np.empty(len(V), dtype=np.int64)
        for j, r in enumerate(V.reshape(len(V), -1).tolist()):
            if tuple(r) not in lookup:
                raise ValueError(f"vectors[{j}] = {r} is not an instance of {self.name}")
            out[j] = lookup[tuple(r)]
        return out[0] if single else out


def thresholds(m: int) -> ConceptClass:
    """Thresholds on a line of ``m`` points: c_s(x) = +1 iff x >= s, for s = 0..m.

    There are m + 1 concepts (s = m labels every point -1). Chapter 1 uses it
    for Ldim = floor(lg(m + 1)) and for the one-per-round adversary.
    """
    m = check_int(m, "m", 1)
    s = np.arange(m + 1)[:, None]
    x = np.arange(m)[None, :]
    return ConceptClass(x >= s, name=f"thresholds on {m} points", concept_names=[f"x >= {k}" for k in range(m + 1)])


def singletons(m: int, include_empty: bool = True) -> ConceptClass:
    """Singletons on ``m`` points, c_j(x) = +1 iff x = j, plus (by default) the empty concept.

    Chapter 1: SOA makes at most one mistake on this class although ``lg |C|`` is large.
    The empty concept, when included, is the last one (index m).
    """
    m = check_int(m, "m", 1)
    table = np.eye(m, dtype=bool)
    names = [f"{{{j}}}" for j in range(m)]
    if include_empty:
        table = np.vstack([table, np.zeros((1, m), dtype=bool)])
        names.append("empty")
    return ConceptClass(
        table, name=f"singletons on {m} points" + (" + empty" if include_empty else ""), concept_names=names
    )


def monotone_disjunctions(n: int, max_terms: int | None = None) -> ConceptClass:
    """Monotone disjunctions of at most ``max_terms`` of ``n`` Boolean variables.

    Instances are all 2^n vectors in {0,1}^n; instance index i has bit j equal to
    ``(i >> j) & 1`` (``instances[i]`` holds the vector). Concept index order
    follows the integer whose bits mark the variables in the disjunction; the
    empty disjunction (always -1) is included. Used in chapters 1 and 2.

    Parameters
    ----------
    n : int
        Number of variables, 1 <= n <= 12 (the table has 4^n entries at k = n).
    max_terms : int, optional
        Largest number k of variables in a disjunction, 0 <= k <= n; default n.
    """
    n = check_int(n, "n", 1, MAX_DISJUNCTION_VARIABLES)
    k = n if max_terms is None else check_int(max_terms, "max_terms", 0, n)
    codes = np.arange(2**n, dtype=np.int64)
    popcount = np.bitwise_count(codes.astype(np.uint64))
    subsets = codes[popcount <= k]
    table = (subsets[:, None] & codes[None, :]) != 0
    bits = ((codes[:, None] >> np.arange(n)) & 1).astype(np.int8)
    names = [" v ".join(f"x{j + 1}" for j in range(n) if s >> j & 1) or "false" for s in subsets.tolist()]
    return ConceptClass(
        table,
        name=f"monotone disjunctions of <= {k} of {n} variables",
        instances=bits,
        concept_names=names,
    )


def all_concepts(m: int) -> ConceptClass:
    """Every one of the 2^m concepts on ``m`` points (1 <= m <= 16).

    Concept j labels instance i positive iff bit i of j is 1. Its Littlestone
    dimension is m = ``lg |C|``, so Halving's bound is tight for it.
    """
    m = check_int(m, "m", 1, MAX_ALL_CONCEPTS_DOMAIN)
    codes = np.arange(2**m, dtype=np.int64)
    table = ((codes[:, None] >> np.arange(m)) & 1).astype(bool)
    return ConceptClass(table, name=f"all concepts on {m} points")


def check_concept_class(concept_class: Any) -> ConceptClass:
    """Return ``concept_class`` after checking that it is a ``ConceptClass`` (chapter 1).

    A bare Boolean table gets a hint: wrap it as ``onlinelib.ConceptClass(table)``.
    """
    if not isinstance(concept_class, ConceptClass):
        hint = (
            " (wrap a Boolean table as onlinelib.ConceptClass(table))"
            if isinstance(concept_class, (np.ndarray, list, tuple))
            else ""
        )
        raise TypeError(f"concept_class must be an onlinelib.ConceptClass, got {type(concept_class).__name__}{hint}")
    return concept_class
