"""Exact verifiers for certificates: mathematical objects a student constructs (certificate assignments).

A certificate assignment asks for an object rather than code: a mistake tree that
witnesses a Littlestone dimension, a shattered set, a stream on which the Perceptron
makes many updates, a stream on which Weighted Majority errs often, a stream labelled by
x1...xn on which the kernel Perceptron over all monotone monomials errs often (chapter 6,
Theorem 4). The later assignments' verifiers live in modules of their own, registered here in
``VERIFIERS``: a class with VC dimension at most 1 and a deep mistake tree
(``certificates_gap``), a Winnow2 stream beyond the notes' bound (``certificates_winnow``), Directed
Drift's exact rates and output probabilities (``certificates_drift``); what all share is in
``certificates_base``. Each verifier checks one kind of object exactly and returns a
:class:`Verdict`, plain data the grader can score and show:

- ``valid``: whether the object satisfies every condition of its definition;
- ``quality``: what it certifies (0 if invalid), e.g. the depth of a mistake tree;
- ``optimum``: the best quality any object can reach for this instance of the problem;
- ``score``: ``min(quality / optimum, 1)`` as a Fraction (1 for a valid object when the
  optimum is 0, 0 if invalid);
- ``reason``: for an invalid object, the condition that failed and where (the path of
  the node, the round, the point); for a valid one a one-line summary.

**Student data is untrusted.** A verifier never raises on it: a wrong type or shape, a
label other than ±1, a float where an int is expected, a NaN, a bool, an index out of
range or an object over the size limit gives ``valid=False`` with the reason. Sizes are
checked before anything deep is walked (``len`` of a container is checked before its
items are read, nodes are counted against a budget), and every traversal is iterative,
so a huge or cyclic object is rejected quickly and without a recursion error.

**Everything is exact.** A rational a student gives may be a Python int, a numpy integer,
a ``fractions.Fraction``, a string ``"p/q"`` / ``"p"`` or a finite float, taken at its exact
binary value (``Fraction(0.1)`` is not 1/10; issue 36): every condition is decided in exact
arithmetic on the numbers given, never in floating point (a float comparison that rounded
across a threshold once produced a false counterexample in this book). Point indices,
labels and 0/1 entries are ints. A numerator or denominator may have at most ``MAX_BITS`` bits.

**Lecturer arguments are trusted but checked.** A bad table, radius, margin or rate
raises ``TypeError``/``ValueError`` naming the argument, its domain and the value.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from .certificates_base import (  # noqa: F401 (the helpers, shared with the later verifiers' modules)
    _FRACTION_TEXT,
    _MAX_TEXT,
    MAX_BITS,
    MAX_DENOMINATOR_BITS,
    Verdict,
    _boolean_masks,
    _check_limit,
    _check_optimum,
    _describe,
    _int_text,
    _invalid,
    _Reject,
    _student_fraction,
    _student_int,
    _student_sequence,
    _valid,
)
from .certificates_drift import verify_drift
from .certificates_gap import verify_gap_class
from .certificates_winnow import verify_winnow2_stream
from .concepts import ConceptClass
from .version_space import littlestone_dimension, vc_dimension

__all__ = [
    "Verdict",
    "MAX_BITS",
    "verify_mistake_tree",
    "verify_shattered_set",
    "verify_perceptron_stream",
    "verify_weighted_majority_stream",
    "MAX_KERNEL_VARIABLES",
    "verify_kernel_perceptron_stream",
    "VERIFIERS",
    "verify_certificate",
]


def _concept_class(table: Any) -> ConceptClass:
    """The lecturer's class: a ConceptClass or a Boolean (n_concepts, n_points) table (raises if bad)."""
    if isinstance(table, ConceptClass):
        return table
    if not isinstance(table, (np.ndarray, list, tuple)):
        raise TypeError(f"table must be a Boolean array (n_concepts, n_points) or a ConceptClass, got {table!r}")
    return ConceptClass(table)


def _path_text(labels: list[int]) -> str:
    inner = ", ".join(f"{label:+d}" for label in labels)
    return f"({inner},)" if len(labels) == 1 else f"({inner})"


# -- chapter 1: mistake trees and the Littlestone dimension ---------------------------------------


def verify_mistake_tree(table: Any, tree: Any, *, max_nodes: int = 100_000, optimum: int | None = None) -> Verdict:
    """Check a mistake tree of a finite class: a certificate that Ldim(C) >= the depth of the largest complete
    tree inside it (chapter 1).

    Chapter 1 ("Mistake bounds", the SOA section) defines the Littlestone dimension by
    mistake trees: every internal node holds an instance x and both labels of x are
    possible for some concept consistent with the labels on the way to the node, so an
    adversary that walks down the tree forces a mistake at every node.

    Parameters
    ----------
    table : array_like of bool, shape (n_concepts, n_points), or onlinelib.ConceptClass
        The class (the lecturer's; an invalid table raises).
    tree : nested lists (the student's)
        ``None`` is a leaf; an internal node is ``[x, subtree_if_label_minus1, subtree_if_label_plus1]``
        with ``x`` an int point index (a tuple is accepted too).
    max_nodes : int, keyword-only
        The most nodes (internal nodes and leaves) the tree may have; counted first, with an
        early stop, so a larger object is rejected quickly.
    optimum : int, keyword-only, optional
        Ldim of the class, if the lecturer has it already (the search is exponential in the
        worst case; a grader scoring many submissions computes it once). Default: computed.

    Returns
    -------
    Verdict
        Valid iff the object is a finite tree (no node inside itself; a subtree shared by several
        parents is read, and counted against ``max_nodes``, once per occurrence), every node
        has the shape above, every x is a point index, no point repeats on a root-to-leaf path
        and every internal node is a mistake node. ``quality`` is the depth of the largest
        complete tree inside it, at any node (a subtree certifies Ldim of a subclass, a lower
        bound on Ldim(C)); ``optimum`` is ``onlinelib.littlestone_dimension`` of the class. A path is
        written as the labels from the root, e.g. ``(+1, -1)``; the root's is ``()``.

    Raises
    ------
    TypeError, ValueError
        If ``table`` is not a valid concept class or ``max_nodes`` is not an int >= 1.
    """
    cls = _concept_class(table)
    max_nodes = _check_limit(max_nodes, "max_nodes")
    optimum = littlestone_dimension(cls) if optimum is None else _check_optimum(optimum)
    try:
        quality, n_internal = _check_tree(cls, tree, max_nodes)
    except _Reject as reject:
        return _invalid(optimum, str(reject))
    return _valid(
        quality,
        optimum,
        f"a mistake tree with {n_internal} internal nodes holding a complete mistake tree of depth {quality}: "
        f"Ldim >= {quality} (Ldim = {optimum})",
    )


def _check_tree(cls: ConceptClass, tree: Any, max_nodes: int) -> tuple[int, int]:
    """Both passes over the tree; returns (largest complete depth, number of internal nodes) or raises _Reject."""
    # Pass 1: shape, types, ranges, cycles and the node budget, depth first with the minus side
    # first (pre-order). Each node is recorded as (parent index, label), so that a path is rebuilt
    # only for a message. A subtree shared by several parents (memoised, or a tuple literal CPython
    # folds into one object) is read once per occurrence, as the grader's copy of it is, and counts
    # against max_nodes each time; an object inside itself is a cycle. In pre-order the first d
    # entries of ``ancestors`` are always the objects above a node of depth d.
    nodes: list[tuple[int, int]] = []
    points: list[int] = []  # x of each node, -1 for a leaf
    node_depth: list[int] = []
    ancestors: list[int] = []  # id() of the objects on the path to the current node
    on_path_ids: set[int] = set()  # the same ids, to test membership in O(1)
    stack: list[tuple[Any, int, int]] = [(tree, -1, 0)]

    def where(index: int) -> str:
        labels = []
        while nodes[index][0] >= 0:
            parent, label = nodes[index]
            labels.append(label)
            index = parent
        return f"node at path {_path_text(labels[::-1])}"

    while stack:
        obj, parent, label = stack.pop()
        if len(nodes) >= max_nodes:
            raise _Reject(f"the tree is too large: more than {max_nodes} nodes (max_nodes = {max_nodes})")
        index = len(nodes)
        nodes.append((parent, label))
        d = 0 if parent < 0 else node_depth[parent] + 1
        node_depth.append(d)
        while len(ancestors) > d:
            on_path_ids.discard(ancestors.pop())
        if obj is None:
            points.append(-1)
            continue
        if type(obj) not in (list, tuple):  # exactly: a subclass could run code on len or indexing
            raise _Reject(
                f"{where(index)}: a node must be None (a leaf) or a list [x, minus, plus], got {_describe(obj)}"
            )
        if id(obj) in on_path_ids:
            raise _Reject(f"{where(index)}: this node contains itself (a cycle): a tree is finite")
        ancestors.append(id(obj))
        on_path_ids.add(id(obj))
        if len(obj) != 3:
            raise _Reject(f"{where(index)}: a node must be a list [x, minus, plus] of length 3, got length {len(obj)}")
        try:
            x = _student_int(obj[0], "its point x")
        except _Reject as reject:
            raise _Reject(f"{where(index)}: {reject}") from None
        if not 0 <= x < cls.n_instances:
            raise _Reject(
                f"{where(index)}: point {_int_text(x)} is out of range, the points are 0..{cls.n_instances - 1}"
            )
        points.append(x)
        stack.append((obj[2], index, 1))
        stack.append((obj[1], index, -1))

    # Pass 2, in the same pre-order: the points and consistent concepts along the current path.
    # The concepts are index arrays: the nodes of one depth have disjoint version spaces, so a
    # level costs at most |C| in all and the pass O(|C| depth + nodes).
    # A node of depth d follows its parent and the parent's earlier descendants only, all of depth
    # >= d, so the first d entries of the path lists are always this node's ancestors.
    by_instance = cls.by_instance
    depth = [0] * len(nodes)
    path_labels: list[int] = []  # labels of the edges from the root
    path_points: list[int] = []  # x of the ancestors
    path_members: list[np.ndarray] = []  # indices of the concepts consistent with the path to each ancestor
    on_path: set[int] = set()
    n_internal = 0
    for index, (parent, label) in enumerate(nodes):
        d = 0 if parent < 0 else depth[parent] + 1
        depth[index] = d
        while len(path_points) > d:
            on_path.discard(path_points.pop())
            path_members.pop()
        del path_labels[max(d - 1, 0) :]
        if d:
            path_labels.append(label)
            above = path_members[d - 1]
            positive = by_instance[path_points[d - 1]][above]
            members = above[positive] if label == 1 else above[~positive]
        else:
            members = np.arange(cls.size)
        x = points[index]
        if x < 0:
            continue
        n_internal += 1
        if x in on_path:
            raise _Reject(f"node at path {_path_text(path_labels)}: point {x} repeats on its path")
        n_positive = int(np.count_nonzero(by_instance[x][members]))
        for side, count in ((-1, len(members) - n_positive), (1, n_positive)):
            if count == 0:
                raise _Reject(
                    f"node at path {_path_text(path_labels)}: label {side:+d} of point {x} is realised by no "
                    "concept consistent with the path"
                )
        path_points.append(x)
        path_members.append(members)
        on_path.add(x)
    return _largest_complete_depth(nodes, points), n_internal


def _largest_complete_depth(nodes: list[tuple[int, int]], points: list[int]) -> int:
    """The depth of the largest complete mistake tree inside a valid tree, at any node (issue 36).

    A node's subtree is a mistake tree of the concepts consistent with the path to it, a subclass
    of C, so its complete depth (0 at a leaf, else 1 + the smaller of its two sides') is a lower
    bound on Ldim(C) wherever the node is: a leaf at depth 1 beside a complete depth-2 subtree
    certifies Ldim >= 2, not 1. Nodes are in pre-order, so each child comes after its parent.
    """
    complete = [0] * len(nodes)
    smaller_side: list[int | None] = [None] * len(nodes)
    for index in range(len(nodes) - 1, -1, -1):
        if points[index] >= 0:
            complete[index] = 1 + (smaller_side[index] or 0)
        parent = nodes[index][0]
        if parent >= 0:
            side = smaller_side[parent]
            smaller_side[parent] = complete[index] if side is None else min(side, complete[index])
    return max(complete, default=0)


# -- chapter 1: shattered sets and the VC dimension -----------------------------------------------


def verify_shattered_set(table: Any, points: Any, *, max_points: int = 64, optimum: int | None = None) -> Verdict:
    """Check a set of points shattered by a finite class: a certificate that VC(C) >= its size (chapter 1).

    Chapter 1, section "Chapter 1 and statistical learning": a set is shattered when the
    class realises all ``2^k`` labellings of its ``k`` points.

    Parameters
    ----------
    table : array_like of bool, shape (n_concepts, n_points), or onlinelib.ConceptClass
        The class (the lecturer's).
    points : list of int (the student's)
        Distinct point indices; the empty list is shattered.
    max_points : int, keyword-only
        The longest list accepted (checked before its items are read).
    optimum : int, keyword-only, optional
        VC(C), if the lecturer has it already: ``onlinelib.vc_dimension`` is exponential
        (minutes for the 65536 concepts of ``all_concepts(16)``). Default: computed.

    Returns
    -------
    Verdict
        ``quality`` = the number of points; ``optimum`` = ``onlinelib.vc_dimension`` of the
        class. An invalid set's reason names a labelling no concept realises, e.g.
        ``(+1, -1)`` for points ``(3, 5)``.

    Raises
    ------
    TypeError, ValueError
        If ``table`` is not a valid concept class or ``max_points`` is not an int >= 1.
    """
    cls = _concept_class(table)
    max_points = _check_limit(max_points, "max_points")
    optimum = vc_dimension(cls) if optimum is None else _check_optimum(optimum)
    try:
        items = _student_sequence(points, "points", max_points, what="point indices")
        pts: list[int] = []
        for i, item in enumerate(items):
            x = _student_int(item, f"points[{i}]")
            if not 0 <= x < cls.n_instances:
                raise _Reject(f"points[{i}] = {_int_text(x)} is out of range, the points are 0..{cls.n_instances - 1}")
            if x in pts:
                raise _Reject(f"points[{i}] = {x} repeats points[{pts.index(x)}]: the points must be distinct")
            pts.append(x)
        missing = _missing_labelling(cls, pts)
        if missing is not None:
            raise _Reject(
                f"the labelling {_path_text(missing)} of points {_path_text_plain(pts)} is realised by no concept"
            )
    except _Reject as reject:
        return _invalid(optimum, str(reject))
    return _valid(len(pts), optimum, f"{len(pts)} points shattered: VC >= {len(pts)} (VC = {optimum})")


def _path_text_plain(values: list[int]) -> str:
    inner = ", ".join(str(v) for v in values)
    return f"({inner},)" if len(values) == 1 else f"({inner})"


def _missing_labelling(cls: ConceptClass, pts: list[int]) -> list[int] | None:
    """A labelling of ``pts`` (±1 each) that no concept realises, the smallest in binary order; None if shattered."""
    k = len(pts)
    if k == 0:
        return None
    rows = np.unique(cls.table[:, pts], axis=0)  # the realised patterns, at most |C|
    if len(rows) == 2**k:
        return None
    weights = [1 << i for i in range(k)]
    realised = {sum(w for w, bit in zip(weights, row, strict=True) if bit) for row in rows.tolist()}
    code = 0
    while code in realised:
        code += 1
    return [1 if code >> i & 1 else -1 for i in range(k)]


# -- chapter 3: streams on which the Perceptron meets Novikoff's bound ------------------------------


def _lecturer_fraction(value: Any, name: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer, Fraction)):
        raise TypeError(f"{name} must be an exact positive rational (int or Fraction), got {value!r}")
    value = Fraction(int(value)) if isinstance(value, np.integer) else Fraction(value)
    if value <= 0:
        raise ValueError(f"{name} must be positive, got {value}")
    return value


def _rational_rows(X: Any, max_rounds: int, dim: int) -> list[list[Fraction]]:
    if isinstance(X, np.ndarray):
        if X.ndim != 2:
            raise _Reject(f"X must be a (T, d) table of rationals, got an array of shape {X.shape}")
        if X.dtype.kind not in "iufO":
            raise _Reject(f"X must hold rationals (ints, Fractions or floats), got an array of dtype {X.dtype}")
    rows = _student_sequence(X, "X", max_rounds, what="rows", ndim=2, kinds="iufO")
    if not rows:
        raise _Reject("X must hold at least one row, got none")
    result = []
    for t, row in enumerate(rows, start=1):
        entries = _student_sequence(row, f"X row {t}", dim, what="rationals", kinds="iufO")
        if len(entries) != dim:
            raise _Reject(f"round {t}: x has {len(entries)} entries, u has {dim}")
        result.append([_student_fraction(e, f"round {t}: x[{i}]") for i, e in enumerate(entries)])
    return result


def _common_denominator(values: list[Fraction], name: str) -> int:
    lcm = 1
    for v in values:
        lcm = math.lcm(lcm, v.denominator)
        if lcm.bit_length() > MAX_DENOMINATOR_BITS:
            raise _Reject(f"{name} is too large: the common denominator has more than {MAX_DENOMINATOR_BITS} bits")
    return lcm


def verify_perceptron_stream(
    X: Any,
    y: Any,
    u: Any,
    radius: Any,
    margin: Any,
    *,
    max_rounds: int = 10_000,
    max_dim: int = 64,
) -> Verdict:
    """Check a stream with radius R and margin gamma and count the Perceptron's updates on it (chapter 3).

    Chapter 3 (the Perceptron, Theorem "Novikoff") bounds the updates by R^2 / gamma^2 when
    every ``||x_t|| <= R`` and a unit vector separates the stream with margin gamma. The
    student gives a stream and a separator u (any length; the margin is that of u/||u||)
    and scores by how many updates the book's Perceptron makes: w = 0, predict +1 iff
    w.x >= 0, update w += y x iff y w.x <= 0 (a score of 0 always updates).

    Parameters
    ----------
    X : (T, d) rationals; y : (T,) labels ±1; u : (d,) rationals (the student's)
        Rationals are ints, numpy integers, Fractions, strings "p/q" or finite floats (at their
        exact binary value); numpy arrays of an integer, float or object dtype are accepted.
    radius, margin : int or Fraction (the lecturer's)
        R > 0 and gamma > 0.
    max_rounds, max_dim : int, keyword-only
        The most rows T and the most coordinates d.

    Returns
    -------
    Verdict
        Valid iff every ``||x_t||^2 <= R^2``, ``y_t <u, x_t> > 0`` and
        ``(y_t <u, x_t>)^2 >= gamma^2 ||u||^2``, all checked exactly. ``quality`` = the
        number of updates, replayed exactly; ``optimum`` = ``floor(R^2 / gamma^2)``.

    Raises
    ------
    TypeError, ValueError
        If radius or margin is not a positive int/Fraction, or a limit is not an int >= 1.
    """
    radius = _lecturer_fraction(radius, "radius")
    margin = _lecturer_fraction(margin, "margin")
    max_rounds = _check_limit(max_rounds, "max_rounds")
    max_dim = _check_limit(max_dim, "max_dim")
    r2, g2 = radius * radius, margin * margin
    optimum = math.floor(r2 / g2)
    try:
        u_list = _student_sequence(u, "u", max_dim, what="rationals", kinds="iufO")
        if not u_list:
            raise _Reject("u must have at least one coordinate, got none")
        u_exact = [_student_fraction(v, f"u[{i}]") for i, v in enumerate(u_list)]
        rows = _rational_rows(X, max_rounds, len(u_exact))
        labels = _student_sequence(y, "y", max_rounds, what="labels")
        if len(labels) != len(rows):
            raise _Reject(f"y must have one label per row of X ({len(rows)}), got {len(labels)}")
        ys = []
        for t, label in enumerate(labels, start=1):
            value = _student_int(label, f"round {t}: y")
            if value not in (-1, 1):
                raise _Reject(f"round {t}: y = {_int_text(value)} is not a label ±1")
            ys.append(value)
        if not any(u_exact):
            raise _Reject("u must not be the zero vector")
        # Integer coordinates: U = u * Du and Xi_t = x_t * L, so <u, x_t> = <U, Xi_t> / (Du L).
        du = _common_denominator(u_exact, "u")
        big_u = [int(v * du) for v in u_exact]
        scale = _common_denominator([e for row in rows for e in row], "X")
        ints = [[int(e * scale) for e in row] for row in rows]
        u_norm2 = Fraction(sum(v * v for v in big_u), du * du)
        for t, (row, label) in enumerate(zip(ints, ys, strict=True), start=1):
            norm2 = Fraction(sum(v * v for v in row), scale * scale)
            if norm2 > r2:
                raise _Reject(f"round {t}: ||x||^2 = {norm2} > R^2 = {r2}: x lies outside the radius R = {radius}")
            score = Fraction(label * sum(a * b for a, b in zip(big_u, row, strict=True)), du * scale)
            if score <= 0:
                raise _Reject(f"round {t}: y <u, x> = {score} <= 0: u does not separate the stream")
            if score * score < g2 * u_norm2:
                raise _Reject(
                    f"round {t}: y <u, x> = {score} < gamma ||u|| (squared: {score * score} < "
                    f"gamma^2 ||u||^2 = {g2 * u_norm2}): the margin of u/||u|| is below gamma = {margin}"
                )
        # The Perceptron on the scaled rows: scaling every x by L > 0 scales w by L, same updates.
        w = [0] * len(big_u)
        updates = 0
        for row, label in zip(ints, ys, strict=True):
            if label * sum(a * b for a, b in zip(w, row, strict=True)) <= 0:
                w = [a + label * b for a, b in zip(w, row, strict=True)]
                updates += 1
    except _Reject as reject:
        return _invalid(optimum, str(reject))
    return _valid(
        updates,
        optimum,
        f"{len(rows)} rounds within radius {radius} and margin {margin}: the Perceptron updates {updates} "
        f"times, Novikoff's bound floor(R^2/gamma^2) = {optimum}",
    )


# -- chapter 5: streams on which Weighted Majority errs often -------------------------------------


def _lecturer_eta(eta: Any) -> Fraction:
    if isinstance(eta, bool) or not isinstance(eta, (int, np.integer, Fraction)):
        raise TypeError(f"eta must be an exact rational in (0, 1] (int or Fraction), got {eta!r}")
    eta = Fraction(int(eta)) if isinstance(eta, np.integer) else Fraction(eta)
    if not 0 < eta <= 1:
        raise ValueError(f"eta must be in (0, 1] (the weights are (1 - eta)^mistakes), got {eta}")
    return eta


def _wma_bound_floor(n: int, m: int, eta: Fraction) -> int | None:
    """floor([ln N + m ln(1/(1-eta))] / ln(1/(1-eta/2))), exactly; None when the bound is infinite.

    k <= that bound iff (1 - eta)^m <= N (1 - eta/2)^k, a comparison of rationals, decided
    in integers. A float estimate gives the starting k; exact steps move it to the answer.
    """
    rate, half = 1 - eta, 1 - eta / 2
    if rate == 0:
        if m > 0:
            return None
        return n.bit_length() - 1  # 1 <= N 2^-k

    def ok(k: int) -> bool:  # (a/b)^m <= N (c/d)^k, i.e. a^m d^k <= N c^k b^m
        return rate.numerator**m * half.denominator**k <= n * half.numerator**k * rate.denominator**m

    estimate = (math.log(n) - m * math.log(float(rate))) / -math.log(float(half))
    k = max(0, math.floor(estimate))
    while k > 0 and not ok(k):
        k -= 1
    while ok(k + 1):
        k += 1
    return k


_CHAINS: dict[float, list[float]] = {}


def _float_chain(r: float, top: int) -> list[float]:
    """fl(r^e) for e = 0..top by a plain chain of products (no ``pow``, whose accuracy IEEE does not fix),
    set to 0 from the first product below 2^-1000, so that no weight is ever subnormal (chapter 5's lemma)."""
    if r not in _CHAINS and len(_CHAINS) >= 16:  # one rate per stream: keep the memory bounded
        _CHAINS.clear()
    chain = _CHAINS.setdefault(r, [1.0])
    while len(chain) <= top:
        w = chain[-1] * r
        chain.append(w if w >= 2.0**-1000 else 0.0)
    return chain


def _wma_vote_sign(counts: list[int], advice: list[int], eta: Fraction) -> int:
    """The sign (-1, 0, +1) of sum_i p_i (1 - eta)^{c_i}, exactly (a float first, integers on a near-tie)."""
    low = min(counts)
    excess = [c - low for c in counts]
    rate = 1 - eta
    powers = _float_chain(float(rate), max(excess))
    weights = [powers[e] for e in excess]
    vote = math.fsum(w * p for w, p in zip(weights, advice, strict=True))
    total = math.fsum(weights)
    # Lemma "the float vote" of chapter 5, hypotheses (H1), (H2): each weight is within
    # gamma_(2e) = 2e 2^-53 / (1 - 2e 2^-53) of rate^e (the rounding of rate, then e products), or 0
    # with rate^e < 2^-999; total >= 1 (an expert with e = 0); fsum is correctly rounded. The
    # tolerance, (max e + 2N + 4) 2^-50 total + N 1e-300, exceeds the lemma's margin
    # (2 max e + N) 2^-53 total + N 2^-999 by a factor of at least 4.
    tolerance = total * (max(excess) + 2 * len(counts) + 4) * 2.0**-50 + len(counts) * 1e-300
    if abs(vote) > tolerance:
        return 1 if vote > 0 else -1
    net: dict[int, int] = {}
    for e, p in zip(excess, advice, strict=True):
        net[e] = net.get(e, 0) + p
    net = {e: v for e, v in net.items() if v}
    if not net:
        return 0
    a, b = rate.numerator, rate.denominator
    top = max(net)
    exact = sum(v * a**e * b ** (top - e) for e, v in net.items())  # the vote times b^top / (1-eta)^low
    return (exact > 0) - (exact < 0)


def verify_weighted_majority_stream(
    P: Any,
    y: Any,
    eta: Any,
    *,
    max_rounds: int = 10_000,
    max_experts: int = 64,
    max_best_mistakes: int | None = None,
) -> Verdict:
    """Replay deterministic Weighted Majority on a student's expert advice and count its mistakes (chapter 5).

    Chapter 5 (prediction with expert advice, Theorem "Weighted Majority") proves
    M <= [ln N + m ln(1/(1-eta))] / ln(1/(1-eta/2)) for the mistakes M of Weighted Majority
    and m of the best of the N experts (``onlinelib.bounds.wma_bound``). The student gives
    advice and outcomes and scores by how close M comes to that bound. The replay is the
    book's (``onlinelib.experts``): every weight starts at 1 and is multiplied by 1 - eta on
    each of its expert's mistakes; the prediction is +1 iff the weight voting +1 is at least
    the weight voting -1 (ties go to +1), decided exactly.

    Parameters
    ----------
    P : (T, N) ints ±1 (the student's)
        ``P[t][i]`` is expert i's prediction in round t + 1.
    y : (T,) ints ±1 (the student's)
        The outcomes.
    eta : int or Fraction in (0, 1] (the lecturer's)
        The rate, exact (a float is refused: the replay would be of a different rate).
    max_rounds, max_experts : int, keyword-only
        The most rounds T and experts N.
    max_best_mistakes : int >= 0, keyword-only, optional
        The most mistakes the best expert may make (an assignment that asks for a stream with
        m <= max_best_mistakes); a stream whose best expert errs more is invalid.

    Returns
    -------
    Verdict
        ``quality`` = M; ``optimum`` = the floor of the bound above with the stream's m (0 for
        an invalid stream, whose m is not known),
        computed exactly (k <= bound iff (1 - eta)^m <= N (1 - eta/2)^k). The reason
        reports M, m and N. With eta = 1 the bound is finite (floor(lg N)) only when some
        expert makes no mistake; a stream whose best expert errs is then invalid.

    Raises
    ------
    TypeError, ValueError
        If eta is not an exact rational in (0, 1] or a limit is not an int >= 1.

    Notes
    -----
    The vote is computed in floats first and, within the error bound of chapter 5's Lemma "the float vote" of a tie, again in
    integers; a near-tie with a very uneven record costs big-integer powers of eta's
    numerator and denominator, so keep the lecturer's eta a simple fraction such as 1/2.
    """
    eta = _lecturer_eta(eta)
    max_rounds = _check_limit(max_rounds, "max_rounds")
    max_experts = _check_limit(max_experts, "max_experts")
    if max_best_mistakes is not None:
        if isinstance(max_best_mistakes, bool) or not isinstance(max_best_mistakes, (int, np.integer)):
            raise TypeError(f"max_best_mistakes must be an int >= 0 or None, got {max_best_mistakes!r}")
        if max_best_mistakes < 0:
            raise ValueError(f"max_best_mistakes must be an int >= 0 or None, got {max_best_mistakes!r}")
    optimum = 0
    try:
        if isinstance(P, np.ndarray) and P.ndim != 2:
            raise _Reject(f"P must be a (T, N) table of ±1, got an array of shape {P.shape}")
        rows = _student_sequence(P, "P", max_rounds, what="rows", ndim=2)
        if not rows:
            raise _Reject("P must hold at least one round, got none")
        labels = _student_sequence(y, "y", max_rounds, what="labels")
        if len(labels) != len(rows):
            raise _Reject(f"y must have one outcome per row of P ({len(rows)}), got {len(labels)}")
        n = None
        advice: list[list[int]] = []
        outcomes: list[int] = []
        for t, (row, label) in enumerate(zip(rows, labels, strict=True), start=1):
            items = _student_sequence(row, f"P row {t}", max_experts, what="predictions")
            if n is None:
                n = len(items)
                if n == 0:
                    raise _Reject("P must have at least one expert (column), got none")
            if len(items) != n:
                raise _Reject(f"round {t}: {len(items)} expert predictions, round 1 has {n}")
            values = [_student_int(v, f"round {t}: P[{i}]") for i, v in enumerate(items)]
            for i, v in enumerate(values):
                if v not in (-1, 1):
                    raise _Reject(f"round {t}: expert {i} predicts {_int_text(v)}, not a label ±1")
            outcome = _student_int(label, f"round {t}: y")
            if outcome not in (-1, 1):
                raise _Reject(f"round {t}: y = {_int_text(outcome)} is not a label ±1")
            advice.append(values)
            outcomes.append(outcome)
        counts = [0] * n
        mistakes = 0
        for values, outcome in zip(advice, outcomes, strict=True):
            prediction = 1 if _wma_vote_sign(counts, values, eta) >= 0 else -1
            mistakes += prediction != outcome
            counts = [c + (v != outcome) for c, v in zip(counts, values, strict=True)]
        best = min(counts)
        if max_best_mistakes is not None and best > max_best_mistakes:
            raise _Reject(
                f"the best expert makes m = {best} mistakes, more than the m <= {int(max_best_mistakes)} asked for"
            )
        bound = _wma_bound_floor(n, best, eta)
        if bound is None:
            raise _Reject(
                f"the best expert makes m = {best} > 0 mistakes and with eta = 1 the bound is infinite: "
                "with eta = 1 (Halving over the experts) some expert must make no mistake"
            )
        optimum = bound
    except _Reject as reject:
        return _invalid(optimum, str(reject))
    return _valid(
        mistakes,
        optimum,
        f"{len(advice)} rounds, N = {n} experts: Weighted Majority (eta = {eta}) makes M = {mistakes} mistakes, "
        f"the best expert m = {best}; the bound's floor is {optimum}",
    )


# -- chapter 6: streams on which the kernel Perceptron errs often (Boolean kernels, Theorem 4) -------

#: The most variables n of ``verify_kernel_perceptron_stream`` (row masks and kernel values are
#: Python ints of up to n bits; 256 keeps the replay of 2000 x 2000 kernel values fast).
MAX_KERNEL_VARIABLES = 256


def _lecturer_variables(n: Any) -> int:
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"n must be an int in [1, {MAX_KERNEL_VARIABLES}] (the number of variables), got {n!r}")
    if not 1 <= n <= MAX_KERNEL_VARIABLES:
        raise ValueError(f"n must be an int in [1, {MAX_KERNEL_VARIABLES}] (the number of variables), got {n!r}")
    return int(n)


def _lecturer_best_known(optimum: Any) -> int:
    if isinstance(optimum, (bool, np.bool_)) or not isinstance(optimum, (int, np.integer)):
        raise TypeError(f"optimum must be an int >= 0 (the best known mistake count) or None, got {optimum!r}")
    if optimum < 0:
        raise ValueError(f"optimum must be an int >= 0 (the best known mistake count) or None, got {optimum!r}")
    return int(optimum)


def verify_kernel_perceptron_stream(
    X: Any,
    y: Any,
    n: Any,
    *,
    max_rounds: int = 2000,
    optimum: int | None = None,
) -> Verdict:
    """Replay the kernel Perceptron over all monotone monomials on a stream labelled by x1...xn (chapter 6).

    Chapter 6 (Boolean kernels, Theorem 4 of Khardon, Roth and Servedio) shows that the
    Perceptron run over all ``2^n`` monotone monomials, with the kernel
    ``K(x, z) = 2^samepos(x, z)``, can make exponentially many mistakes on the single
    monomial ``x1 x2 ... xn``: after ``0^n`` (label -1) and ``1^n`` (+1), every row of a
    family of weight-``a`` rows with pairwise intersections ``<= b``, labelled -1, is a
    mistake while ``(t - 1) 2^b <= 2^a - 1`` (2 + t mistakes). The student gives such a
    stream and scores by the mistakes the replay counts.

    The replay is the book's (``onlinelib.KernelPerceptron`` with its default convention
    ``"nonnegative"``): the mistakes M are kept with their labels; the score of x is
    ``f(x) = sum_{z in M} S(z) K(x, z)``; the prediction is +1 iff ``f(x) >= 0`` (a score
    of 0 predicts +1); on a mistake x joins M with its label y.

    It is exact: rows are Python-int bitmasks, ``samepos`` is ``(x & z).bit_count()``, a
    kernel value is ``1 << samepos`` and every score is a sum of Python ints, so no score is
    rounded or overflows whatever n and the number of mistakes (no floats anywhere: a float
    sum of kernel values up to ``2^n`` stops being exact once it passes ``2^53``).

    Parameters
    ----------
    X : (T, n) entries 0/1 (the student's)
        Rows as lists or tuples of Python ints (or numpy integers) 0 and 1, or a numpy
        integer or Boolean array. Python bools in a list are refused (a bool is not an int
        here, as everywhere in this module), so are floats, NaN, strings and other values:
        the reason names the round and the coordinate.
    y : (T,) ints ±1 (the student's)
        The labels; each must be the target's: +1 iff the row is all ones, else -1.
    n : int in [1, MAX_KERNEL_VARIABLES] (the lecturer's)
        The number of variables (``MAX_KERNEL_VARIABLES`` = 256).
    max_rounds : int, keyword-only
        The most rounds T (checked before any row is read).
    optimum : int >= 0, keyword-only, optional
        The best known mistake count for this n (e.g. the greedy code construction's
        2 + t); default None: unknown, then ``optimum`` is 0 in the Verdict and a valid
        stream scores 1 (the grader's own target decides the points).

    Returns
    -------
    Verdict
        Valid iff X and y have the same number T >= 1 of rounds, every row has n entries
        0/1, every label is ±1 and agrees with ``x1 x2 ... xn`` (the first disagreeing round
        is named). ``quality`` = the number of mistakes of the replay. An empty stream is
        invalid, as for the other stream verifiers.

    Raises
    ------
    TypeError, ValueError
        If n is not an int in [1, 256], max_rounds is not an int >= 1 or optimum is not
        None or an int >= 0.

    Notes
    -----
    The replay costs one ``bit_count`` and one shift per earlier mistake and round: 0.3-0.6 s
    (measured, list or array input) for 2000 rounds that are all mistakes at n = 64, under 1 s
    at n = 256.
    """
    n = _lecturer_variables(n)
    max_rounds = _check_limit(max_rounds, "max_rounds")
    best = 0 if optimum is None else _lecturer_best_known(optimum)
    try:
        masks = _boolean_masks(X, n, max_rounds)
        labels = _student_sequence(y, "y", max_rounds, what="labels")
        if len(labels) != len(masks):
            raise _Reject(f"y must have one label per row of X ({len(masks)}), got {len(labels)}")
        full = (1 << n) - 1
        ys = []
        for t, (mask, label) in enumerate(zip(masks, labels, strict=True), start=1):
            value = _student_int(label, f"round {t}: y")
            if value not in (-1, 1):
                raise _Reject(f"round {t}: y = {_int_text(value)} is not a label ±1")
            if mask == full and value != 1:
                raise _Reject(f"round {t}: x is all ones, so the target x1...xn labels it +1, got y = -1")
            if mask != full and value != -1:
                i = (~mask & full & -(~mask & full)).bit_length() - 1  # the first coordinate that is 0
                raise _Reject(f"round {t}: x[{i}] = 0, so the target x1...xn labels x -1, got y = +1")
            ys.append(value)
        # The replay. M is kept as {row mask: sum of the labels of its mistakes}, so a repeated
        # row costs one kernel value per round (f is linear in M); the sums are Python ints.
        support: dict[int, int] = {}
        mistakes = 0
        for mask, label in zip(masks, ys, strict=True):
            score = sum(c << (mask & z).bit_count() for z, c in support.items())
            if (1 if score >= 0 else -1) != label:
                support[mask] = support.get(mask, 0) + label
                mistakes += 1
    except _Reject as reject:
        return _invalid(best, str(reject))
    reason = (
        f"{len(masks)} rounds over n = {n} variables, consistent with x1...xn: the kernel Perceptron "
        f"(monotone-monomial kernel) makes {mistakes} mistakes"
    )
    if optimum is not None:
        reason += f", the best known is {best}"
    return _valid(mistakes, best, reason)


# -- one entry point for the grader and the public checks ----------------------------------------------

#: The verifiers by name, and how the object a student's function returns is spread over the
#: verifier's student arguments (one object, or the named parts of a tuple or dict).
VERIFIERS = {
    "mistake_tree": (verify_mistake_tree, ("table",), ("tree",)),
    "shattered_set": (verify_shattered_set, ("table",), ("points",)),
    "perceptron_stream": (verify_perceptron_stream, (), ("X", "y", "u")),
    "weighted_majority_stream": (verify_weighted_majority_stream, (), ("P", "y")),
    "kernel_perceptron_stream": (verify_kernel_perceptron_stream, (), ("X", "y")),
    "gap_class": (verify_gap_class, (), ("table", "tree")),  # chapter 1, Assignment 14
    "winnow2_stream": (verify_winnow2_stream, (), ("X", "y", "relevant")),  # chapter 4, Assignment 13
    "drift_exact": (verify_drift, ("kind",), ("answer",)),  # chapter 7, Assignment 15
}


def verify_certificate(verifier: str, obj: Any, params: Any) -> Verdict:
    """Check the object a student's function returned with the verifier named ``verifier`` (issue 27).

    The certificate assignments' hidden tests and public checks (``onlinelib.grading.Certificate``)
    call this. A verifier with one student argument takes ``obj`` itself (a mistake tree, a
    list of points); one with several takes them from a tuple or list in their order, or from a
    dict by name: ``(X, y, u)`` or ``{"X": ..., "y": ..., "u": ...}`` for ``perceptron_stream``,
    ``(P, y)`` for ``weighted_majority_stream``, ``(X, y)`` for ``kernel_perceptron_stream``.

    Parameters
    ----------
    verifier : str
        A key of ``VERIFIERS``: ``"mistake_tree"``, ``"shattered_set"``, ``"perceptron_stream"``,
        ``"weighted_majority_stream"`` or ``"kernel_perceptron_stream"``.
    obj : object (the student's)
    params : mapping (the lecturer's)
        The verifier's other arguments by name, e.g. ``{"table": C, "optimum": 3}`` or
        ``{"radius": 4, "margin": 1, "max_dim": 32}`` or ``{"n": 16, "optimum": 6}``.

    Returns
    -------
    Verdict
        An object of the wrong form is invalid with the reason, as every other defect.

    Raises
    ------
    TypeError, ValueError
        If ``verifier`` is unknown or ``params`` is not a mapping of the verifier's arguments
        (lecturer errors, raised as the verifiers raise them).
    """
    if not isinstance(verifier, str) or verifier not in VERIFIERS:
        raise ValueError(f"verifier must be one of {sorted(VERIFIERS)}, got {verifier!r}")
    if not isinstance(params, dict):
        raise TypeError(f"params must be a dict of the verifier's arguments, got {type(params).__name__}")
    function, lecturer_first, student_names = VERIFIERS[verifier]
    params = dict(params)
    missing = [name for name in lecturer_first if name not in params]
    if missing:
        raise ValueError(f"params of verifier {verifier!r} must give {missing}")
    first = [params.pop(name) for name in lecturer_first]
    if len(student_names) == 1:
        parts = [obj]
    else:
        wanted = ", ".join(student_names)
        if type(obj) is dict:
            if set(obj) != set(student_names):
                keys = ", ".join(sorted(map(_describe, obj))[:6])
                return _invalid(0, f"the result must be a dict with the keys {wanted}, got the keys {keys}")
            parts = [obj[name] for name in student_names]
        elif type(obj) in (list, tuple):
            if len(obj) != len(student_names):
                return _invalid(0, f"the result must be ({wanted}), got a {type(obj).__name__} of {len(obj)} items")
            parts = list(obj)
        else:
            return _invalid(0, f"the result must be a tuple ({wanted}) or a dict of them, got {_describe(obj)}")
    return function(*first, *parts, **params)
