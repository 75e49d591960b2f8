"""Every representation of a certificate gets one verdict, in the notebook and in the grader (issue 36, item 1).

A certificate assignment's public check verifies the object the student's function returns in the
notebook's own process; the grader verifies it in its judge, after the value crossed the sandbox's
transport (``onlinelib.plain_data``). The assignments' texts allow many forms of one certificate:
lists or tuples, numpy arrays of integer, float or object dtype (an object array of ints and
Fractions), numpy integer scalars, exactly representable floats (numpy ones too) at their exact
value, strings "p/q", mistake trees whose nodes are lists or tuples and whose subtrees are shared by
several parents (counted once per occurrence against the node cap). A cycle must be refused.

The tests draw certificates of each verifier of ``onlinelib.certificates``, valid and invalid (a
wrong type in one place, a label 0, a point out of range, a cycle, ...), each rendered in a
representation drawn among those. One drawing code (``Choices``) serves hypothesis (derandomised, a
bounded number of examples, shrinking) in process and a seeded ``numpy.random.Generator`` for the
grader's corpus (reproducible: hypothesis mixes the constants of the project's own modules into its
draws, so its examples move when another module changes). The tests require:

* in process: the public check's verdict (points, and the message: validity, quality, reason) of the
  object equals the verdict of what the transport carries (``plain_data.loads(dumps(...))``);
  a value the transport refuses is one the check refuses too (0 points, and a cycle or a size is
  named as such on both sides);
* through the sandbox: ONE ``python -m booktools grade`` run of a hidden-tests file of this test's
  own (one ``checks.Certificate`` per drawn case) on a notebook whose code rebuilds every drawn
  object (``_Emitter`` writes the Python source, shared subtrees, cycles and object arrays
  included); each check's points in the scores CSV (column ``NAME [MAX]``) and its message in the
  feedback file equal the in-process check's;
* ``plain_data`` round trip: decode(encode(v)) is v (numpy scalars as Python ones, dtypes kept);
* a control: a lossy transport (Fractions as floats) makes the comparison fail;
* the gaps this test found between the verifier and the transport (``CROSSING``): an object array
  of floats or strings, a longdouble, a namedtuple or OrderedDict result, namedtuple tree nodes, an
  ``np.matrix``. The verifier alone gives each a verdict other than the grader's (the control);
  the public check, which verifies what the transport hands over (``plain_data.transported``), the
  grader's.

Messages are compared after ``_normalised``: the in-process message may name a numpy scalar
(``np.float64(1.0) (float64)``) where the grader's names the Python scalar the transport made of
it (``1.0 (float)``). Found and fixed in ``plain_data`` by these tests: float16 arrays and scalars
were refused (allowed: "a float dtype"); an ``np.matrix`` was encoded as data its own decoder refused;
a cycle was reported as "nested more than 32 levels"; a shared subtree of exponential expansion
ran the worker out of memory (the whole submission's zero) instead of failing its check; an int over
4300 digits crashed the worker's reply.
"""

from __future__ import annotations

import collections
import csv
import math
import re
import shutil
from fractions import Fraction
from functools import cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import onlinelib as ol
from booktools.grading.text import printable, scrub
from examples import EIGHT, MYST_HEADER, run_grade
from onlinelib import plain_data
from onlinelib.grading import Certificate, check_certificate

INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
FLOAT_DTYPES = ("float16", "float32", "float64")
POINTS = 3.0
SETTINGS = dict(
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)

# -- the instances (the lecturer's parameters), as plain data -------------------------------------------


def _table(cls) -> list:
    return np.asarray(cls.table if isinstance(cls, ol.ConceptClass) else cls, dtype=bool).tolist()


@cache
def classes() -> dict:
    """Small classes: {name: (table, Ldim, VC)}."""
    tables = {
        "eight": _table(EIGHT),
        "thresholds5": _table(ol.thresholds(5)),
        "all3": _table(ol.all_concepts(3)),
        "singletons4": _table(ol.singletons(4)),
    }
    out = {}
    for name, table in tables.items():
        cls = ol.ConceptClass(np.array(table))
        out[name] = (table, ol.littlestone_dimension(cls), ol.vc_dimension(cls))
    return out


def tree_params(name: str) -> dict:
    table, ldim, _ = classes()[name]
    return {"table": table, "optimum": ldim, "max_nodes": 40}


def set_params(name: str) -> dict:
    table, _, vc = classes()[name]
    return {"table": table, "optimum": vc, "max_points": 5}


PERCEPTRON = [(2, 1), (Fraction(5, 2), 1), (3, Fraction(3, 2))]  # (R, gamma)
WM = [(Fraction(1, 2), 2), (1, 0)]  # (eta, max_best_mistakes)
KERNEL_N = 8

# -- rendering one value in a representation the texts allow ---------------------------------------------


def _fits(values, dtype: str) -> bool:
    info = np.iinfo(dtype)
    return all(info.min <= v <= info.max for v in values)


def _exact_in(q: Fraction, dtype: str) -> bool:
    """Whether the float of ``dtype`` nearest to q is q itself."""
    try:
        f = float(q)
    except OverflowError:
        return False
    with np.errstate(over="ignore"):
        value = np.dtype(dtype).type(f)
    return bool(np.isfinite(value)) and Fraction(float(value)) == q


def _object_array(items, shape) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    for i, item in enumerate(items):
        out[i] = item
    return out.reshape(shape)


def _array_dtypes(values: list, kind: str) -> list[str]:
    """The numpy dtypes an array of these values (kind "int", "bit" or "rational") may have and hold them exactly."""
    if kind == "rational":
        dtypes = [d for d in FLOAT_DTYPES if all(_exact_in(q, d) for q in values)]
        if all(q.denominator == 1 for q in values):
            dtypes += [d for d in INT_DTYPES if _fits([int(q) for q in values], d)]
        return dtypes
    dtypes = [d for d in INT_DTYPES if _fits(values, d)]
    if kind == "bit" and all(v in (0, 1) for v in values):
        dtypes += ["bool"] * 4  # as likely as all the integer dtypes together: the text names Boolean arrays
    return dtypes


class Renderer:
    """Draws a representation of a canonical certificate (ints, Fractions, lists): what a student may
    return for it. With ``mangle``, some scalars get a kind the verifiers refuse there (a bool, a float
    for an int, a string, None, NaN, a complex): an invalid certificate that the transport carries,
    or, for a complex or an array of strings, one it refuses."""

    def __init__(self, c: Choices, mangle: bool):
        self.c, self.mangle = c, mangle

    def pick(self, options):
        return self.c.pick(options)

    def mangled(self) -> bool:
        return self.mangle and self.c.integer(0, 3) == 0

    def int(self, v: int):
        """An int place (a label, a point, a prediction, a 0/1 entry): an int or a numpy integer."""
        if self.mangled():
            return self.pick([True, np.True_, float(v), np.float64(v), str(v), None, Fraction(v), [v]])
        return self.pick([v] + [np.dtype(d).type(v) for d in INT_DTYPES if _fits([v], d)])

    def rational(self, q: Fraction):
        """A rational place (an entry of X or u): int, numpy integer, Fraction, "p/q", exact float."""
        if self.mangled():
            return self.pick([float("nan"), float("inf"), True, None, f"{q.numerator}/0", "1/2/3", complex(q)])
        options = [q, f"{q.numerator}/{q.denominator}"]
        if q.denominator == 1:
            options += [int(q), str(int(q))] + [np.dtype(d).type(int(q)) for d in INT_DTYPES if _fits([int(q)], d)]
        if _exact_in(q, "float64"):
            options.append(float(q))
        return self.pick(options + [np.dtype(d).type(float(q)) for d in FLOAT_DTYPES if _exact_in(q, d)])

    def exact_item(self, v, kind: str):
        """An entry of an object array: an int, a numpy integer or a Fraction (what the texts allow there)."""
        if kind == "rational" and v.denominator != 1:
            return v
        v = int(v)
        return self.pick([v, np.int64(v)] + ([Fraction(v)] if kind == "rational" else []))

    def array(self, rows: list, kind: str, shape: tuple):
        """A numpy array of an exact dtype, or an object array; None if no dtype holds the values."""
        flat = [v for row in rows for v in row] if len(shape) == 2 else rows
        if self.c.boolean():
            return _object_array([self.exact_item(v, kind) for v in flat], shape)
        dtypes = _array_dtypes(flat, kind)
        if not dtypes:
            return None
        dtype = self.pick(dtypes)
        return np.array([float(v) if np.dtype(dtype).kind == "f" else int(v) for v in flat], dtype=dtype).reshape(shape)

    def vector(self, values: list, kind: str):
        """A 1-D sequence: a list or tuple of rendered scalars, or an array (exact dtype or object)."""
        form = self.pick(["list", "list", "tuple", "array"])
        if form == "array" and (made := self.array(values, kind, (len(values),))) is not None:
            return made
        scalar = self.rational if kind == "rational" else self.int
        items = [scalar(v) for v in values]
        return tuple(items) if form == "tuple" else items

    def table(self, rows: list[list], kind: str):
        """A 2-D table: a numpy array, or a list or tuple of rows each rendered on its own; mangled,
        rarely an array of complex numbers or strings (which no verifier takes and the transport refuses)."""
        width = len(rows[0]) if rows else 0
        rectangular = rows and all(len(row) == width for row in rows)
        if rectangular and self.mangled() and self.c.boolean():
            dtype = self.pick(["complex128", "U8"])
            return np.array([[complex(v) if dtype == "complex128" else str(v) for v in row] for row in rows], dtype)
        form = self.pick(["rows", "tuple_rows", "array"])
        if form == "array" and rectangular and (made := self.array(rows, kind, (len(rows), width))) is not None:
            return made
        rendered = [self.vector(row, kind) for row in rows]
        return tuple(rendered) if form == "tuple_rows" else rendered

    def parts(self, names: tuple, parts: list):
        """The result of a verifier with several student arguments: a tuple (the texts), a list or a dict."""
        form = self.pick(["tuple", "tuple", "list", "dict"])
        if form == "dict":
            return dict(zip(names, parts, strict=True))
        return tuple(parts) if form == "tuple" else list(parts)

    def tree(self, tree, made: dict | None):
        """Nodes as lists or tuples, points as ints or numpy integers; ``made``: equal subtrees built once
        and shared (hash-consing, as a memoised construction or CPython's folded tuple literals give)."""
        if type(tree) is not list or len(tree) != 3:
            return tree
        x = self.int(tree[0])
        children = [self.tree(child, made) for child in tree[1:]]
        node = (tuple if self.c.boolean() else list)([x, *children])
        if made is None:
            return node
        key = (type(node), type(x), repr(x), *map(id, children))
        return made.setdefault(key, node)


# -- drawing certificates, valid and invalid ---------------------------------------------------------------


class Choices:
    """The random choices of the drawing code: from hypothesis (``draw``: shrinking, in process) or
    from a seeded ``numpy.random.Generator`` (``rng``: the grader's corpus, reproducible whatever
    hypothesis's version and whatever constants the project's modules hold, which hypothesis mixes in)."""

    def __init__(self, *, draw=None, rng: np.random.Generator | None = None):
        self.draw, self.rng = draw, rng

    def integer(self, low: int, high: int) -> int:
        """An int in [low, high]."""
        return self.draw(st.integers(low, high)) if self.draw else int(self.rng.integers(low, high + 1))

    def pick(self, options: list):
        return options[self.integer(0, len(options) - 1)] if self.rng else self.draw(st.sampled_from(options))

    def boolean(self) -> bool:
        return self.integer(0, 1) == 1

    def permutation(self, n: int) -> list[int]:
        return self.draw(st.permutations(range(n))) if self.draw else [int(i) for i in self.rng.permutation(n)]


def draw_tree(c: Choices, table: np.ndarray, members: np.ndarray, depth: int, used: frozenset, slips: bool):
    """A canonical tree (nested lists of ints, None leaves) over the version space ``members``: mistake
    nodes; with ``slips``, sometimes a point that is not one (out of range, repeated, one-sided), a
    wrong arity, a leaf that is not None, or both children the same object."""
    n_points = table.shape[1]
    good = [x for x in range(n_points) if x not in used and 0 < table[members, x].sum() < members.sum()]
    if depth == 0 or not good or c.integer(0, 5) == 0:
        return c.pick([0, [], "leaf"]) if slips and c.integer(0, 9) == 0 else None
    slip = slips and c.integer(0, 5) == 0
    x = c.integer(-1, n_points) if slip else c.pick(good)
    inside = 0 <= x < n_points
    minus = draw_tree(c, table, members & ~table[:, x] if inside else members, depth - 1, used | {x}, slips)
    if slip and c.boolean():
        plus = minus  # one object as both children
    else:
        plus = draw_tree(c, table, members & table[:, x] if inside else members, depth - 1, used | {x}, slips)
    if slip and c.integer(0, 3) == 0:
        return c.pick([[x, minus], [x, minus, plus, None]])
    return [x, minus, plus]


def _list_nodes(tree, ancestors=()):
    """(list node, its ancestors and itself) for every list node of an acyclic tree."""
    if type(tree) not in (list, tuple):
        return
    here = (*ancestors, tree)
    if type(tree) is list:
        yield tree, here
    for child in tree[1:]:
        yield from _list_nodes(child, here)


def _faults(c: Choices) -> tuple[bool, bool]:
    """(slips in the values, mangled representations): each in about a third of the certificates."""
    return c.integer(0, 2) == 0, c.integer(0, 2) == 0


def tree_case(c: Choices):
    name = c.pick(sorted(classes()))
    table = np.array(classes()[name][0], dtype=bool)
    slips, mangle = _faults(c)
    tree = draw_tree(c, table, np.ones(len(table), dtype=bool), c.integer(1, 4), frozenset(), slips)
    rendered = Renderer(c, mangle).tree(tree, {} if c.boolean() else None)
    nodes = [(node, path) for node, path in _list_nodes(rendered) if len(node) == 3]
    if nodes and slips and c.boolean():  # a cycle: a list node's child is the node or an ancestor
        node, path = c.pick(nodes)
        node[c.pick([1, 2])] = c.pick(path)
    return "mistake_tree", tree_params(name), rendered


def set_case(c: Choices):
    name = c.pick(sorted(classes()))
    n_points = len(classes()[name][0][0])
    slips, mangle = _faults(c)
    points = c.permutation(n_points)[: c.integer(0, min(4, n_points))]
    if slips:
        points.insert(c.integer(0, len(points)), c.pick([-1, n_points, *points, 0]))
    return "shattered_set", set_params(name), Renderer(c, mangle).vector(points, "int")


SMALL_RATIONALS = [Fraction(v) for v in (0, 1, -1, 2, -2, 3)] + [
    Fraction(1, 2),
    Fraction(-3, 4),
    Fraction(5, 2),
    Fraction(1, 3),
    Fraction(-2, 3),
    Fraction(1, 10),
    Fraction(3, 2),
]


def perceptron_case(c: Choices):
    radius, margin = (Fraction(v) for v in c.pick(PERCEPTRON))
    slips, mangle = _faults(c)
    if not slips or c.boolean():  # the book's construction: x_t = sigma R e_i, u = signs (scaled)
        d = c.integer(1, min(math.floor(radius**2 / margin**2), 4))
        signs = [c.pick([-1, 1]) for _ in range(d)]
        scale = c.pick([Fraction(1), Fraction(3, 4), Fraction(1, 2)]) if slips else Fraction(1)
        X, y = [], []
        coordinates = c.permutation(d) + [c.integer(0, d - 1) for _ in range(c.integer(0, 2))]
        for i in coordinates[: c.integer(1, d + 2)]:  # every coordinate once: the bound, if d = k
            sigma = c.pick([-1, 1])
            X.append([sigma * radius * scale if j == i else Fraction(0) for j in range(d)])
            y.append(sigma * signs[i])
        factor = c.pick([Fraction(1), Fraction(3, 2), Fraction(1, 3)])  # u need not be a unit vector
        u = [s * factor for s in signs]
    else:
        d = c.integer(1, 3)
        X = [[c.pick(SMALL_RATIONALS) for _ in range(d)] for _ in range(c.integer(0, 5))]
        y = [c.pick([-1, 1, 1, 0]) for _ in X]
        u = [c.pick(SMALL_RATIONALS) for _ in range(d)]
    if X and slips and c.boolean():  # one entry changed
        X[c.integer(0, len(X) - 1)][c.integer(0, d - 1)] += c.pick([Fraction(1, 4), Fraction(-1, 3), Fraction(1)])
    render = Renderer(c, mangle)
    parts = [render.table(X, "rational"), render.vector(y, "int"), render.vector(u, "rational")]
    params = {"radius": radius, "margin": margin, "max_rounds": 10, "max_dim": 5}
    return "perceptron_stream", params, render.parts(("X", "y", "u"), parts)


def wm_case(c: Choices):
    eta, budget = c.pick(WM)
    slips, mangle = _faults(c)
    n, T = c.integer(1, 4), c.integer(1, 7)
    y = [c.pick([-1, 1]) for _ in range(T)]
    P = [[c.pick([-1, 1]) for _ in range(n)] for _ in range(T)]
    if c.boolean():  # an expert that is always right: valid more often
        for row, label in zip(P, y, strict=True):
            row[0] = label
    if slips:
        bad, choice = c.pick([0, 2, -2]), c.pick(["P", "y", "ragged", "empty"])
        if choice == "P":
            P[c.integer(0, T - 1)][c.integer(0, n - 1)] = bad
        elif choice == "y":
            y[c.integer(0, T - 1)] = bad
        elif choice == "ragged":
            P[-1].append(1)
        else:
            P, y = [], []
    render = Renderer(c, mangle)
    parts = [render.table(P, "int"), render.vector(y, "int")]
    params = {"eta": Fraction(eta), "max_rounds": 10, "max_experts": 5, "max_best_mistakes": budget}
    return "weighted_majority_stream", params, render.parts(("P", "y"), parts)


def kernel_case(c: Choices):
    n = KERNEL_N
    slips, mangle = _faults(c)
    rows = []
    for _ in range(c.integer(1, 7)):
        kind = c.pick(["zeros", "ones", "random", "random", "random"])
        rows.append([int(kind == "ones")] * n if kind != "random" else [c.integer(0, 1) for _ in range(n)])
    y = [1 if all(row) else -1 for row in rows]
    if slips:
        choice = c.pick(["label", "entry", "short", "empty"])
        if choice == "label":
            y[c.integer(0, len(y) - 1)] *= -1
        elif choice == "entry":
            rows[0][c.integer(0, n - 1)] = 2
        elif choice == "short":
            rows[-1].pop()
        else:
            rows, y = [], []
    render = Renderer(c, mangle)
    parts = [render.table(rows, "bit"), render.vector(y, "int")]
    return "kernel_perceptron_stream", {"n": n, "max_rounds": 10, "optimum": 4}, render.parts(("X", "y"), parts)


CASES = {
    "mistake_tree": tree_case,
    "shattered_set": set_case,
    "perceptron_stream": perceptron_case,
    "weighted_majority_stream": wm_case,
    "kernel_perceptron_stream": kernel_case,
}
DRAWS = {name: st.composite(lambda draw, make=make: make(Choices(draw=draw)))() for name, make in CASES.items()}

# -- the comparison -------------------------------------------------------------------------------------------

_NUMPY_SCALAR = re.compile(r"np\.[a-z]\w*\(([^()]*)\)|np\.(True|False)_")
_TYPE_NAME = re.compile(r" \((?:bool_?|int\d*|uint\d+|float\d*|longdouble|str|Fraction|NoneType|list)\)")


def _normalised(message: str) -> str:
    """A check's message with numpy scalars written as the Python scalars the transport makes of them."""
    message = _NUMPY_SCALAR.sub(lambda m: m.group(1) if m.group(1) is not None else m.group(2), message)
    return _TYPE_NAME.sub("", message)


def certificate(i: int, verifier: str, params: dict) -> Certificate:
    return Certificate(f"case {i:03d}", args=(i,), verifier=verifier, params=params, points=POINTS)


def in_process(obj, cert: Certificate):
    """The public check of ``obj`` in the notebook's process (the function returns the object itself)."""
    return check_certificate(lambda *args: obj, cert)


def carried(obj):
    """What the grader's judge receives: the value through plain_data, or the PlainDataError."""
    try:
        return plain_data.loads(plain_data.dumps(obj))
    except plain_data.PlainDataError as exc:
        return exc


def refusal_class(reason: str) -> str | None:
    """The condition a refusal names on both sides, if it is one both can name."""
    return "cycle" if "cycle" in reason else "too large" if "too large" in reason else None


def mismatch(obj, cert: Certificate, transport=carried, *, one_defect: bool = False) -> str | None:
    """How the in-process verdict of ``obj`` differs from the one after ``transport``, or None.

    A value the transport refuses must be one the public check refuses; with ``one_defect`` (the
    object has no other defect) it must also name the same condition (a cycle, a size). A drawn
    object may have another defect that the verifier meets first (a bool point above a cycle)."""
    local = in_process(obj, cert)
    moved = transport(obj)
    if isinstance(moved, plain_data.PlainDataError):
        if local.points != 0 or local.passed:
            return f"the transport refuses it ({moved}) but the public check gives {local.points}: {local.message}"
        kind = refusal_class(moved.reason)
        if one_defect and kind and kind not in local.message:
            return f"the transport refuses it as {kind!r} ({moved}), the public check: {local.message}"
        return None
    remote = in_process(moved, cert)
    if (local.passed, local.points) != (remote.passed, remote.points):
        return (
            f"points {local.points} in process, {remote.points} after the transport: {local.message} | {remote.message}"
        )
    if _normalised(local.message) != _normalised(remote.message):
        return f"messages differ: {local.message!r} | {remote.message!r}"
    return None


@pytest.mark.parametrize("verifier", sorted(DRAWS))
def test_the_public_check_and_the_transported_value_agree(verifier):
    """In process, with shrinking: every drawn certificate's verdict survives the transport."""

    @settings(max_examples=60, **SETTINGS)
    @given(DRAWS[verifier])
    def agree(case):
        name, params, obj = case
        problem = mismatch(obj, certificate(0, name, params))
        assert problem is None, problem

    agree()


# -- the notebook's source of the drawn objects ---------------------------------------------------------------


def scalar_source(v) -> str:
    """Python source that rebuilds the scalar ``v`` exactly, its type included."""
    if v is None or type(v) in (bool, str):
        return repr(v)
    if type(v) is int:
        return repr(v) if v.bit_length() < 512 else f"int({hex(v)!r}, 0)"
    if type(v) is float:
        return repr(v) if math.isfinite(v) else f"float({repr(v)!r})"
    if type(v) is complex:
        return f"complex({scalar_source(v.real)}, {scalar_source(v.imag)})"
    if type(v) is Fraction:
        return f"Fraction({scalar_source(v.numerator)}, {scalar_source(v.denominator)})"
    if isinstance(v, np.generic):
        return f"np.{type(v).__name__}({scalar_source(v.item())})"
    raise TypeError(f"no source for {type(v).__name__}")


class _Emitter:
    """The body of a function that rebuilds an object: one statement per container, children first, so a
    container reached twice (a shared subtree) is built once. A list is made empty first and filled
    after its items, so an item may be the list itself or hold it (a cycle); a cycle closing on a tuple
    is put in place once the tuple exists."""

    def __init__(self):
        self.lines: list[str] = []
        self.names: dict[int, str] = {}
        self.building: set[int] = set()
        self.fixups: list[tuple[str, int, int]] = []

    def name(self, v) -> str:
        self.names[id(v)] = name = f"v{len(self.names)}"
        return name

    def expr(self, v) -> str:
        if not isinstance(v, (list, tuple, dict, np.ndarray)):
            return scalar_source(v)
        if id(v) in self.names:
            return self.names[id(v)]
        if type(v) is list:
            name = self.name(v)
            self.lines.append(f"    {name} = []")
            items, back = [], []
            for i, item in enumerate(v):
                if id(item) in self.building:  # a cycle closing on a tuple: set once the tuple exists
                    back.append((i, id(item)))
                    items.append("None")
                else:
                    items.append(self.expr(item))
            self.lines.append(f"    {name}.extend([{', '.join(items)}])")
            self.fixups += [(name, i, target) for i, target in back]
            return name
        self.building.add(id(v))
        if isinstance(v, np.ndarray) and v.dtype == object:
            source = f"_objects([{', '.join(self.expr(item) for item in v.ravel().tolist())}], {v.shape!r})"
        elif isinstance(v, np.ndarray):
            items = ", ".join(scalar_source(item) for item in np.asarray(v).ravel().tolist())
            source = f"np.array([{items}], dtype={v.dtype.str!r}).reshape({v.shape!r})"
            if type(v) is np.matrix:
                source = f"_matrix({source})"
        elif isinstance(v, dict):
            source = "{" + ", ".join(f"{k!r}: {self.expr(item)}" for k, item in v.items()) + "}"
        else:
            items = [self.expr(item) for item in v]
            source = "({},)".format(items[0]) if len(items) == 1 else "({})".format(", ".join(items))
        self.building.discard(id(v))
        name = self.name(v)
        self.lines.append(f"    {name} = {source}")
        return name

    def function(self, name: str, obj) -> str:
        result = self.expr(obj)
        fixups = [f"    {holder}[{i}] = {self.names[target]}" for holder, i, target in self.fixups]
        return "\n".join([f"def {name}():", *self.lines, *fixups, f"    return {result}", ""])


PRELUDE = '''import numpy as np
from fractions import Fraction


def _objects(items, shape):
    """An object array holding ``items`` as they are."""
    out = np.empty(len(items), dtype=object)
    for i, item in enumerate(items):
        out[i] = item
    return out.reshape(shape)


def _matrix(array):
    """An np.matrix (a subclass of ndarray), without its PendingDeprecationWarning."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        return np.matrix(array)

'''


exec(PRELUDE, _prelude := {})
_matrix = _prelude["_matrix"]


def notebook_code(objects: list) -> str:
    functions = [_Emitter().function(f"_case_{i}", obj) for i, obj in enumerate(objects)]
    listing = ", ".join(f"_case_{i}" for i in range(len(objects)))
    tail = f"_CASES = [{listing}]\n\n\ndef certificate(i):\n    return _CASES[i]()\n"
    return PRELUDE + "\n\n".join(functions) + "\n\n" + tail


def same(a, b, pairs=None) -> bool:
    """Equal values of the same types all the way down (dtypes, numpy scalar types, NaN, -0.0), cycles included."""
    pairs = set() if pairs is None else pairs
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        if a.dtype != b.dtype or a.shape != b.shape:
            return False
        if a.dtype == object:
            return all(same(x, y, pairs) for x, y in zip(a.ravel().tolist(), b.ravel().tolist(), strict=True))
        return bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if isinstance(a, (list, tuple, dict)):
        if (id(a), id(b)) in pairs:
            return True
        pairs.add((id(a), id(b)))
        if len(a) != len(b):
            return False
        if isinstance(a, dict):
            return list(a) == list(b) and all(same(a[k], b[k], pairs) for k in a)
        return all(same(x, y, pairs) for x, y in zip(a, b, strict=True))
    if isinstance(a, (float, np.floating)):
        if a != a or b != b:
            return a != a and b != b
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)  # -0.0 is not 0.0
    return a == b


def test_the_emitted_source_rebuilds_every_representation():
    objects = [case[2] for case in drawn_cases()]
    namespace = {}
    exec(notebook_code(objects), namespace)
    for i, obj in enumerate(objects):
        assert same(namespace["certificate"](i), obj), (i, notebook_code([obj]))


def features(obj) -> set[str]:
    """The representations inside ``obj``: containers, array dtypes, scalar types, shared parts, cycles."""
    found, seen, on_path = set(), set(), set()

    def walk(v):
        if isinstance(v, (list, tuple, dict, np.ndarray)):
            if id(v) in on_path:
                found.add("cycle")
                return
            if id(v) in seen:
                found.add("shared")
                return
            seen.add(id(v))
        if isinstance(v, np.ndarray):
            found.update({f"array of {v.dtype.name}", f"{v.ndim}-D array"})
            for item in v.ravel().tolist() if v.dtype == object else []:
                found.add(f"in an object array: {type(item).__name__}")
            return
        if isinstance(v, (list, tuple, dict)):
            found.add(type(v).__name__)
            on_path.add(id(v))
            for item in v.values() if isinstance(v, dict) else v:
                walk(item)
            on_path.discard(id(v))
            return
        found.add("p/q" if isinstance(v, str) and re.fullmatch(r"-?\d+/[1-9]\d*", v) else type(v).__name__)

    walk(obj)
    return found


def test_the_draws_reach_every_representation_the_texts_allow():
    reached = set().union(*(features(obj) for _, _, obj in drawn_cases()))
    wanted = {"list", "tuple", "dict", "shared", "cycle", "int", "Fraction", "float", "p/q", "NoneType"}
    wanted |= {"1-D array", "2-D array", *(f"array of {d}" for d in (*INT_DTYPES, *FLOAT_DTYPES, "bool", "object"))}
    wanted |= {f"in an object array: {t}" for t in ("int", "Fraction", "int64")}
    wanted |= set(INT_DTYPES) | set(FLOAT_DTYPES)  # numpy scalars
    assert wanted <= reached, sorted(wanted - reached)


# -- the fixed cases: the limits, and what the transport must carry that a draw rarely reaches -------------------


def _caterpillar(length: int):
    """A valid tree of singletons: x_k = k, the minus side goes on, the plus side is a leaf."""
    tree = None
    for k in reversed(range(length)):
        tree = [k, tree, None]
    return tree


def _dag(depth: int):
    """A complete tree of ``depth`` levels made of ``depth`` lists: each node's two children are one object."""
    node = None
    for k in range(depth):
        node = (k % 3, node, node)
    return node


def fixed_cases() -> list[tuple[str, dict, object]]:
    self_cycle = [0, None, None]
    self_cycle[2] = self_cycle
    through_tuple = [1, None, None]
    through_tuple[1] = (0, through_tuple, None)
    singletons = {"table": _table(ol.singletons(32)), "optimum": 1, "max_nodes": 200}
    R, gamma = PERCEPTRON[0]
    perceptron = {"radius": R, "margin": gamma, "max_rounds": 10, "max_dim": 5}
    rows = [[0] * 8, [1] * 8, [1, 1, 0, 0, 0, 0, 0, 0], [0, 0, 1, 1, 0, 0, 0, 0]]
    return [
        ("mistake_tree", tree_params("all3"), self_cycle),
        ("mistake_tree", tree_params("all3"), through_tuple),
        ("mistake_tree", tree_params("all3"), _dag(7)),  # 255 nodes per occurrence, 40 allowed: carried, refused
        ("mistake_tree", tree_params("all3"), _dag(24)),  # 2^25 - 1 nodes per occurrence: the transport's limit
        ("mistake_tree", singletons, _caterpillar(32)),  # 32 lists deep: the transport's MAX_DEPTH
        ("mistake_tree", singletons, _caterpillar(31)),  # the deepest the hidden classes (<= 31 points) allow
        ("perceptron_stream", perceptron, (np.array([[2, 0], [0, 2]], dtype=np.float16), [1, 1], [1, 1])),
        ("perceptron_stream", perceptron, ([[2, 0]], [1], [10**5000, 1])),  # Python refuses its JSON text
        ("perceptron_stream", perceptron, ([[2, 0]], [1], [Fraction(1, 3**6000), 1])),
        ("kernel_perceptron_stream", {"n": 8, "max_rounds": 10, "optimum": 4}, (_matrix(rows), [-1, 1, -1, -1])),
        ("kernel_perceptron_stream", {"n": 8, "max_rounds": 10, "optimum": 4}, (np.array(rows, bool), [-1, 1, -1, -1])),
        *(("shattered_set", set_params("all3"), np.array([0, 2], dtype=d)) for d in INT_DTYPES),
        *(("perceptron_stream", perceptron, (np.eye(2, dtype=d) * 2, [1, 1], np.ones(2, d))) for d in FLOAT_DTYPES),
    ]


def test_the_transport_stops_at_its_depth_and_refuses_what_is_too_deep():
    """A valid tree 32 lists deep crosses; 33 deep it is refused (the hidden classes have at most 31 points)."""
    assert plain_data.loads(plain_data.dumps(_caterpillar(32))) == _caterpillar(32)
    with pytest.raises(plain_data.PlainDataError, match="nested more than 32"):
        plain_data.dumps(_caterpillar(33))


# -- one sandboxed grading run of every case --------------------------------------------------------------------

PER_VERIFIER = 70  # certificates drawn per verifier for the grader's corpus
SEED = 20260736


@cache
def drawn_cases() -> tuple:
    """The grader's corpus: PER_VERIFIER certificates of each verifier drawn by the same code as the
    hypothesis tests, from a seeded generator (the same on every run), then the fixed cases."""
    rng = np.random.default_rng(SEED)
    drawn = [CASES[verifier](Choices(rng=rng)) for verifier in sorted(CASES) for _ in range(PER_VERIFIER)]
    return tuple(drawn + fixed_cases())


HIDDEN = '''"""Hidden tests of tests/test_certificate_representations.py: one certificate per drawn case."""
from pathlib import Path

from booktools.grading import checks
from onlinelib import plain_data

FUNCTION = "certificate"
KIND = "certificate"
TITLE = "certificate representations"
FORBIDDEN = []
CASES = plain_data.loads(Path(__file__).with_name("cases.json").read_text(encoding="utf-8"))
CERTIFICATES = [
    checks.Certificate(f"case {i:03d}", args=(i,), verifier=verifier, params=params, points=POINTS)
    for i, (verifier, params) in enumerate(CASES)
]


def REFERENCE(i):
    return None


def grade(student):
    if student is REFERENCE:  # the run's scale: every case's points
        return checks.GradeReport([checks.Check(c.name, True, c.points, c.points, "") for c in CERTIFICATES], TITLE)
    return checks.verify_certificates(student, CERTIFICATES, title=TITLE)
'''


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The grader's scores row and feedback lines of the one notebook that returns every case."""
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: the grader needs it")
    cases = drawn_cases()
    top = tmp_path_factory.mktemp("representations")
    hidden_dir = top / "lecturer"
    hidden_dir.mkdir()
    (hidden_dir / "demo_hidden.py").write_text(HIDDEN.replace("POINTS", repr(POINTS)), encoding="utf-8")
    (hidden_dir / "cases.json").write_text(plain_data.dumps([[v, p] for v, p, _ in cases]), encoding="utf-8")
    folder = top / "submissions"
    folder.mkdir()
    code = notebook_code([obj for _, _, obj in cases])
    (folder / "certs.md").write_text(MYST_HEADER + "\n```{code-cell} ipython3\n" + code + "```\n", encoding="utf-8")
    out = top / "out" / "scores.csv"
    result = run_grade(folder, out, hidden_dir, "--timeout", "300")
    assert result.returncode == 0, result.stderr[-3000:]
    with out.open(newline="", encoding="utf-8") as handle:
        (row,) = list(csv.DictReader(handle))
    lines = (out.with_name("scores_feedback") / "certs.md").read_text(encoding="utf-8").splitlines()
    messages = {}
    for line in lines:
        if line.startswith("| case "):
            name, _, result_cell = line[2:-2].split(" | ", 2)
            messages[name] = re.sub(r"\\([\\`*_\[\]<>|&])", r"\1", result_cell.split(": ", 1)[1])
    return row, messages


def test_the_grader_gives_every_drawn_certificate_the_public_checks_verdict(graded):
    row, messages = graded
    assert row["status"] == "graded", row
    cases = drawn_cases()
    namespace = {}
    exec(notebook_code([obj for _, _, obj in cases]), namespace)
    problems, kinds = [], collections.Counter()
    for i, (verifier, params, _) in enumerate(cases):
        cert = certificate(i, verifier, params)
        obj = namespace["certificate"](i)  # built by the notebook's own code
        local = in_process(obj, cert)
        points, message = float(row[f"{cert.name} [{POINTS:g}]"]), messages[cert.name]
        moved = carried(obj)
        if isinstance(moved, plain_data.PlainDataError):
            kinds["refused by the transport"] += 1
            ok = points == local.points == 0 and "not plain data" in message and moved.reason[:40] in message
        else:
            kind = "invalid" if local.message.startswith("invalid:") else "full" if local.passed else "partial"
            kinds[kind] += 1
            kinds[verifier, kind != "invalid"] += 1
            expected = printable(scrub(local.message))
            ok = points == local.points and _normalised(message) == _normalised(expected)
        if not ok:
            problems.append(
                f"{cert.name} ({verifier}): grader {points}: {message} | notebook {local.points}: {local.message}"
            )
    assert not problems, "\n".join(problems[:10]) + f"\n({len(problems)} cases differ)"
    # the draws reach every kind of verdict, and each verifier both valid and invalid certificates
    assert min(kinds[k] for k in ("full", "partial", "invalid", "refused by the transport")) >= 5, kinds
    assert all(kinds[v, True] >= 3 and kinds[v, False] >= 3 for v in DRAWS), kinds


def test_every_fixed_case_gets_the_same_verdict_in_process():
    for verifier, params, obj in fixed_cases():
        problem = mismatch(obj, certificate(0, verifier, params), one_defect=True)
        assert problem is None, (verifier, problem)


# -- the control: a lossy transport is caught ------------------------------------------------------------------


def _lossy(obj):
    """A transport that sends Fractions and "p/q" strings as floats (as a JSON codec without $fraction would)."""

    def lose(v):
        if isinstance(v, Fraction) or (isinstance(v, str) and re.fullmatch(r"-?\d+/[1-9]\d*", v)):
            return float(Fraction(v))
        if isinstance(v, np.ndarray) and v.dtype == object:
            return np.array([lose(x) for x in v.ravel().tolist()], dtype=float).reshape(v.shape)
        if isinstance(v, (list, tuple)):
            return type(v)(lose(x) for x in v)
        if isinstance(v, dict):
            return {k: lose(x) for k, x in v.items()}
        return v

    return carried(lose(obj))


def test_control_a_lossy_transport_makes_the_comparison_fail():
    cases = [c for c in drawn_cases() if c[0] == "perceptron_stream"]
    assert all(mismatch(obj, certificate(i, v, p)) is None for i, (v, p, obj) in enumerate(cases))
    caught = [i for i, (v, p, obj) in enumerate(cases) if mismatch(obj, certificate(i, v, p), _lossy) is not None]
    assert len(caught) >= 3, caught


# -- plain_data: a round trip keeps every value, and its types where they matter ------------------------------------


def _plain(v):
    """What decode(encode(v)) must be: numpy scalars as Python scalars, an array subclass as its array."""
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray) and v.dtype == object:
        return _object_array([_plain(x) for x in v.ravel().tolist()], v.shape)
    if isinstance(v, np.ndarray):
        return np.asarray(v)
    if isinstance(v, (list, tuple)):
        return type(v)(_plain(x) for x in v)
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return v


_DTYPES = [np.dtype(d) for d in ("bool", *INT_DTYPES, *FLOAT_DTYPES)]
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**200), 2**200),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.fractions(max_denominator=10**30),
    st.sampled_from(_DTYPES).flatmap(lambda d: hnp.from_dtype(d).map(d.type)),
)
_arrays = st.sampled_from(_DTYPES).flatmap(
    lambda d: hnp.arrays(d, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
)
_object_arrays = st.lists(
    st.one_of(st.integers(-(2**70), 2**70), st.fractions(), st.integers(-5, 5).map(np.int16)), max_size=6
).map(lambda items: _object_array(items, (len(items),)))
_keys = st.text(max_size=5).filter(lambda k: not k.startswith("$"))
_values = st.recursive(
    st.one_of(_scalars, _arrays, _object_arrays),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(_keys, inner, max_size=3),
        inner.map(lambda part: [part, (part, part)]),  # one object in three places
    ),
    max_leaves=12,
)


@settings(max_examples=150, **SETTINGS)
@given(_values)
def test_plain_data_round_trip_keeps_values_and_dtypes(value):
    back = plain_data.loads(plain_data.dumps(value))
    assert same(back, _plain(value)), (value, back)
    assert same(plain_data.decode(plain_data.encode(value)), _plain(value))


def test_plain_data_refuses_cycles_and_exponential_sharing_by_name():
    cycle = [1, [2]]
    cycle[1].append(cycle)
    with pytest.raises(plain_data.PlainDataError, match=r"contains itself \(a cycle\).* at \[1\]\[1\]"):
        plain_data.encode(cycle)
    with pytest.raises(plain_data.PlainDataError, match="too large: the parts that occur more than once"):
        plain_data.encode(_dag(30))
    shared = [np.zeros(1000)] * 3000  # 3 million entries written for 1000 distinct ones
    with pytest.raises(plain_data.PlainDataError, match="too large"):
        plain_data.encode(shared)
    assert plain_data.decode(plain_data.encode(_dag(12))) == _dag(12)  # 8191 occurrences: within the limit
    chain = _caterpillar(31)  # 31 levels below its root: in a list it fits, one level further down it does not
    assert plain_data.decode(plain_data.encode([chain, chain])) == [chain, chain]
    with pytest.raises(plain_data.PlainDataError, match=r"nested more than 32 levels deep at \[1\]\[0\]"):
        plain_data.encode([chain, [chain]])
    with pytest.raises(plain_data.PlainDataError, match="too large: an int of 16610 bits"):
        plain_data.encode({"u": [10**5000]})


# -- the known gaps: representations one side accepts and the other refuses (a change of certificates.py) ----------

Result = collections.namedtuple("Result", "X y u")
Node = collections.namedtuple("Node", "x minus plus")
_PERCEPTRON = {"radius": 2, "margin": 1, "max_rounds": 10, "max_dim": 5}
CROSSING = {
    # the texts: "an object array holds ints and Fractions"; the transport refuses floats and strings in
    # one (tests/test_grade_sandbox.py), the verifier takes them: the notebook passes, the grader gives 0
    "object array of floats": ("perceptron_stream", _PERCEPTRON, (np.array([[2.0, 0.0]], dtype=object), [1], [1, 1])),
    "object array of strings": ("perceptron_stream", _PERCEPTRON, (np.array([["2", "0"]], dtype=object), [1], [1, 1])),
    # a longdouble is read through float() (rounded) in the notebook and refused by the transport
    "longdouble entries": ("perceptron_stream", _PERCEPTRON, ([[np.longdouble(2), 0]], [1], [1, 1])),
    # subclasses: the verifier wants exactly list/tuple/dict, the transport carries them as such
    "namedtuple result": ("perceptron_stream", _PERCEPTRON, Result([[2, 0]], [1], [1, 1])),
    "OrderedDict result": (
        "perceptron_stream",
        _PERCEPTRON,
        collections.OrderedDict(X=[[2, 0]], y=[1], u=[1, 1]),
    ),
    "namedtuple nodes": ("mistake_tree", {"table": _table(ol.singletons(4)), "optimum": 1}, Node(0, None, None)),
    # np.matrix rows are 2-D in the notebook, plain rows after the transport
    "np.matrix table": ("weighted_majority_stream", {"eta": 1}, (_matrix([[1, -1], [1, -1]]), [-1, -1])),
}


@pytest.mark.parametrize("name", list(CROSSING))
def test_what_the_verifier_alone_and_the_grader_disagree_on_the_public_check_decides_as_the_grader(name):
    """The public check verifies the object as the sandbox hands it over (issue 36), so it agrees with
    the grader; the control: the verifier on the object as the notebook holds it does not."""
    from onlinelib.certificates import verify_certificate

    verifier, params, obj = CROSSING[name]
    assert mismatch(obj, certificate(0, verifier, params)) is None
    moved = carried(obj)
    raw = verify_certificate(verifier, obj, dict(params))
    if isinstance(moved, plain_data.PlainDataError):
        assert raw.valid, f"control: the verifier alone refuses {name} too ({raw.reason})"
    else:
        crossed = verify_certificate(verifier, moved, dict(params))
        assert (raw.valid, raw.quality) != (crossed.valid, crossed.quality), f"control: {name} agrees without the fix"
