"""Plain data as JSON: what crosses between the grader and a sandboxed submission (assignments).

The grader (``python -m booktools grade``) runs a student's notebook in a sandbox and talks to it
only through JSON lines; the assignments' public checks store the reference's outputs
as JSON files next to the notebooks. Both use this codec, so a value means the same on
both sides.

Plain data is: ``None``, ``bool``, ``int`` (of at most ``MAX_INT_BITS`` bits), ``float``
(NaN and ±inf included), ``str``, ``Fraction``, lists, tuples, dicts with string keys, numpy
scalars and numpy arrays of a Boolean, integer or real dtype (float16 to float64; a subclass
such as ``np.matrix`` as the array it views), numpy arrays of dtype object holding ints and
Fractions (issue 36), and the Boolean kernels of chapter 6 (``onlinelib.kernels.BooleanKernel``).
Nothing else can be encoded, and ``decode`` accepts nothing else: it never builds an object of
an arbitrary class, so decoding what an untrusted process sent yields data and only data.

A part that occurs in several places (a subtree shared by several parents) arrives once per
occurrence, as separate copies, so the receiver reads and counts it as the sender's code does
(``onlinelib.certificates``: a shared subtree counts against a node cap once per occurrence); a
value that contains itself is refused (issue 36). Every such value of a certificate crosses with
the verdict it has in the notebook (``tests/test_certificate_representations.py``).

Tagged values are one-key dicts whose key starts with ``$`` (``{"$tuple": [...]}``); a
dict with such a key is not plain data.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = [
    "PlainDataError",
    "encode",
    "decode",
    "dumps",
    "loads",
    "transported",
    "not_plain_data",
    "MAX_DEPTH",
    "MAX_INT_BITS",
    "MAX_REPEATED",
]

MAX_DEPTH = 32  # nesting levels; deeper values are refused on both sides
MAX_INT_BITS = 8192  # bits of an int, a numerator or a denominator (Python refuses JSON ints over 4300 digits)
MAX_REPEATED = 2**21  # values written again for parts that occur more than once (see ``encode``)
_DTYPES = (
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
)


class PlainDataError(ValueError):
    """A value that is not plain data (see the module docstring), with the path to the offending part.

    The path is built only when the error is raised (one segment per level on the way out), so
    encoding and decoding cost time linear in the size of the data, whatever its keys.
    """

    def __init__(self, message: str, path: tuple = ()):
        self.reason, self.path = message, tuple(path)
        super().__init__(message + _where(self.path))

    def inside(self, segment) -> "PlainDataError":
        """The same error one level further out: ``segment`` (an index or a key) goes in front of the path."""
        return PlainDataError(self.reason, (segment, *self.path))


def _where(path: tuple) -> str:
    if not path:
        return ""
    parts = []
    for segment in path:
        if isinstance(segment, int):
            parts.append(f"[{segment}]")
        else:  # a key: shown clipped, never copied whole into a message
            text = segment if len(segment) <= 40 else segment[:37] + "..."
            parts.append(f"[{text!r}]")
    return " at " + "".join(parts)


def encode(value: Any) -> Any:
    """The JSON-ready form of a plain value.

    A part that occurs in several places (a subtree shared by several parents) is encoded once and
    its form written at each place, so that the receiver reads one copy per occurrence, as the
    sender's code sees it. The occurrences after the first may hold at most ``MAX_REPEATED`` values
    in all (an array counts its size): a small object whose expansion is exponential is refused at
    once instead of filling the receiver's memory. A container inside itself (a cycle) is refused as
    such. Time is linear in the size of the distinct parts.

    Raises
    ------
    PlainDataError
        If ``value`` (or a part of it, named by its path) is not plain data, is nested more than
        ``MAX_DEPTH`` levels deep, contains itself, holds an int (or a Fraction's numerator or
        denominator) of more than ``MAX_INT_BITS`` bits, or repeats shared parts beyond ``MAX_REPEATED``.
    """
    return _Encoder().value(value, 0)


class _Encoder:
    """One ``encode`` call: the containers on the current path (a cycle), the forms of those already
    encoded (a shared part: its form, its size in values counted once per occurrence, and its height),
    the values counted so far (per occurrence), those of the shared parts written again, and the
    deepest level reached below the current container."""

    __slots__ = ("on_path", "done", "total", "repeated", "reach")

    def __init__(self):
        self.on_path: set[int] = set()
        self.done: dict[int, tuple[Any, int, int]] = {}
        self.total = self.repeated = self.reach = 0

    def value(self, value: Any, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise PlainDataError(f"nested more than {MAX_DEPTH} levels deep")
        self.total += 1
        if depth > self.reach:
            self.reach = depth
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, int):
            return _checked_int(int(value))
        if isinstance(value, float):
            return float(value)
        if isinstance(value, Fraction):
            _checked_int(value.numerator)
            _checked_int(value.denominator)
            return {"$fraction": [str(value.numerator), str(value.denominator)]}
        if isinstance(value, np.generic) and value.dtype.name in _DTYPES:
            return value.item()
        if isinstance(value, (list, tuple, dict, np.ndarray)):
            return self.container(value, depth)
        from .kernels import BooleanKernel

        if type(value) is BooleanKernel:
            return {"$kernel": {"monotone": value.monotone, "max_literals": value.max_literals}}
        raise PlainDataError(f"an object of type {type(value).__name__} is not plain data")

    def container(self, value: Any, depth: int) -> Any:
        """A list, tuple, dict or array: refused if it is on its own path, its form again if encoded before."""
        key = id(value)
        if key in self.done:
            return self.again(key, depth)
        if key in self.on_path:
            raise PlainDataError("a value that contains itself (a cycle) is not plain data")
        start, outer = self.total, self.reach
        self.reach = depth
        self.on_path.add(key)
        try:
            if isinstance(value, np.ndarray):
                form = self.array(value, depth)
            elif isinstance(value, dict):
                form = self.mapping(value, depth)
            else:
                items = []
                for i, item in enumerate(value):
                    try:
                        items.append(self.value(item, depth + 1))
                    except PlainDataError as exc:
                        raise exc.inside(i) from None
                form = items if isinstance(value, list) else {"$tuple": items}
        finally:
            self.on_path.discard(key)
        self.done[key] = (form, self.total - start + 1, self.reach - depth)
        self.reach = max(outer, self.reach)
        return form

    def again(self, key: int, depth: int) -> Any:
        """The form of a part encoded before, at another place: counted, and as deep as it is here."""
        form, size, height = self.done[key]
        if depth + height > MAX_DEPTH:
            raise PlainDataError(f"nested more than {MAX_DEPTH} levels deep")
        self.repeated += size
        self.total += size - 1  # sizes count every occurrence (value() counted this one's first value)
        if self.repeated > MAX_REPEATED:
            raise PlainDataError(
                f"too large: the parts that occur more than once hold more than {MAX_REPEATED} values "
                "counted once per occurrence"
            )
        self.reach = max(self.reach, depth + height)
        return form

    def mapping(self, value: dict, depth: int) -> dict:
        out = {}
        for key, v in value.items():
            if not isinstance(key, str) or key.startswith("$"):
                shown = repr(key) if not isinstance(key, str) or len(key) <= 40 else repr(key[:37] + "...")
                raise PlainDataError(f"dict keys must be strings not starting with '$', got {shown}")
            try:
                out[key] = self.value(v, depth + 1)
            except PlainDataError as exc:
                raise exc.inside(key) from None
        return out

    def array(self, value: np.ndarray, depth: int) -> dict:
        if isinstance(value, np.ma.MaskedArray):
            raise PlainDataError("a masked array is not plain data (give the array of its values)")
        value = np.asarray(value)  # a subclass (np.matrix) as the array it views
        if value.dtype == object:
            return self.object_array(value, depth)
        if value.dtype.name not in _DTYPES:
            raise PlainDataError(f"a numpy array of dtype {value.dtype} is not plain data")
        self.total += value.size
        return {"$array": {"dtype": value.dtype.name, "shape": list(value.shape), "data": value.ravel().tolist()}}

    def object_array(self, value: np.ndarray, depth: int) -> dict:
        """A numpy array of dtype object whose entries are exact scalars (ints, numpy integers, Fractions):
        the form the certificate assignments allow for exact numbers (issue 36). Anything else inside,
        a float, a list or an object, is refused with its place."""
        flat = []
        for i, item in enumerate(value.ravel().tolist()):
            if isinstance(item, bool) or not isinstance(item, (int, np.integer, Fraction)):
                raise PlainDataError(
                    f"a numpy array of dtype object may hold only ints and Fractions, got {type(item).__name__}"
                ).inside(i)
            try:
                flat.append(self.value(item, depth + 1))
            except PlainDataError as exc:
                raise exc.inside(i) from None
        return {"$objects": {"shape": list(value.shape), "data": flat}}


def _checked_int(value: int) -> int:
    """``value`` if it has at most ``MAX_INT_BITS`` bits (JSON text of a larger int is refused by Python)."""
    if value.bit_length() > MAX_INT_BITS:
        raise PlainDataError(f"too large: an int of {value.bit_length()} bits (at most {MAX_INT_BITS})")
    return value


def _expect(condition: bool, message: str) -> None:
    if not condition:
        raise PlainDataError(message)


def decode(data: Any, _depth: int = 0) -> Any:
    """The value that ``encode`` turned into ``data``; anything else raises PlainDataError.

    Time and memory are linear in the size of ``data`` (the grader decodes what an untrusted
    submission sent, so no part of it may cost more than its own size: a megabyte-long key
    is not copied once per element, an ``$array`` is built only from numbers).
    """
    _expect(_depth <= MAX_DEPTH, f"nested more than {MAX_DEPTH} levels deep")
    if data is None or isinstance(data, (bool, float, str)):
        return data
    if isinstance(data, int):
        _expect(data.bit_length() <= MAX_INT_BITS, f"too large: an int of {data.bit_length()} bits")
        return data
    if isinstance(data, list):
        return _each(data, decode, _depth)
    _expect(isinstance(data, dict), f"an object of type {type(data).__name__} is not plain data")
    tags = [k for k in data if isinstance(k, str) and k.startswith("$")]
    if not tags:
        out = {}
        for key, v in data.items():
            try:
                out[key] = decode(v, _depth + 1)
            except PlainDataError as exc:
                raise exc.inside(key) from None
        return out
    _expect(len(data) == 1, "a tagged value must be a dict with one key")
    tag, body = tags[0], data[tags[0]]
    if tag == "$tuple":
        _expect(isinstance(body, list), "$tuple must hold a list")
        return tuple(_each(body, decode, _depth))
    if tag == "$fraction":
        _expect(
            isinstance(body, list) and len(body) == 2 and all(isinstance(s, str) for s in body),
            "$fraction must hold [numerator, denominator] as strings",
        )
        try:
            value = Fraction(int(body[0]), int(body[1]))
        except (ValueError, ZeroDivisionError) as exc:
            raise PlainDataError(f"bad $fraction: {str(exc)[:100]}") from None
        _expect(
            max(value.numerator.bit_length(), value.denominator.bit_length()) <= MAX_INT_BITS,
            f"too large: a $fraction of more than {MAX_INT_BITS} bits",
        )
        return value
    if tag == "$array":
        _expect(
            isinstance(body, dict) and set(body) == {"dtype", "shape", "data"}, "$array must hold dtype, shape and data"
        )
        dtype, shape, flat = body["dtype"], body["shape"], body["data"]
        _expect(
            isinstance(dtype, str) and dtype in _DTYPES,
            f"$array dtype must be one of {', '.join(_DTYPES)}, got {str(dtype)[:40]!r}",
        )
        _check_shape("$array", shape, flat)
        _expect(all(type(v) in (bool, int, float) for v in flat), "$array data must hold numbers")
        try:
            with np.errstate(over="raise"):  # 1e300 as float16 is refused, not turned into inf
                return np.array(flat, dtype=dtype).reshape(shape)
        except (OverflowError, ValueError, TypeError, FloatingPointError) as exc:
            raise PlainDataError(f"bad $array: {str(exc)[:100]}") from None
    if tag == "$objects":
        return _decode_object_array(body, _depth)
    if tag == "$kernel":
        _expect(
            isinstance(body, dict)
            and set(body) == {"monotone", "max_literals"}
            and isinstance(body["monotone"], bool)
            and (
                body["max_literals"] is None
                or (
                    isinstance(body["max_literals"], int)
                    and not isinstance(body["max_literals"], bool)
                    and body["max_literals"] >= 0
                )
            ),
            "$kernel must hold monotone (a bool) and max_literals (an int >= 0 or null)",
        )
        from .kernels import BooleanKernel

        return BooleanKernel(body["monotone"], body["max_literals"])
    raise PlainDataError(f"unknown tag {tag[:40]!r}")


def _check_shape(tag: str, shape: Any, flat: Any) -> None:
    """An array's shape (sizes >= 0, at most MAX_DEPTH of them) and its flat data, one entry per element."""
    _expect(
        isinstance(shape, list)
        and len(shape) <= MAX_DEPTH
        and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape),
        f"{tag} shape must be a list of sizes >= 0",
    )
    _expect(
        isinstance(flat, list) and len(flat) == math.prod(shape),
        f"{tag} data must be a flat list with one entry per element",
    )


def _decode_object_array(body: Any, depth: int) -> np.ndarray:
    """The object array of ``_Encoder.object_array``: a shape and the flat entries, each an int or a Fraction."""
    _expect(isinstance(body, dict) and set(body) == {"shape", "data"}, "$objects must hold shape and data")
    shape, flat = body["shape"], body["data"]
    _check_shape("$objects", shape, flat)
    items = _each(flat, decode, depth)
    _expect(
        all(isinstance(v, (int, Fraction)) and not isinstance(v, bool) for v in items),
        "$objects data must hold ints and fractions",
    )
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out.reshape(shape)


def _each(items, convert, depth: int) -> list:
    """``convert`` (encode or decode) applied to each item one level deeper; an error names its index."""
    out = []
    for i, v in enumerate(items):
        try:
            out.append(convert(v, depth + 1))
        except PlainDataError as exc:
            raise exc.inside(i) from None
    return out


def dumps(value: Any) -> str:
    """``encode`` then one line of JSON (no newline inside; NaN and ±inf as JSON extensions)."""
    return json.dumps(encode(value), separators=(",", ":"), allow_nan=True)


def loads(text: str | bytes) -> Any:
    """Parse one JSON document and ``decode`` it; malformed JSON raises PlainDataError."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise PlainDataError(f"not valid JSON: {exc}") from None
    return decode(data)


def not_plain_data(exc: PlainDataError) -> str:
    """The message of a student's value that cannot cross the sandbox: the grader's worker and the
    public checks (:func:`transported`) say the same."""
    return f"returned something that is not plain data: {exc} (return numbers, arrays, lists, tuples, dicts or strings)"


def transported(value: Any) -> Any:
    """``value`` as the grader receives it from a sandboxed notebook: encoded, then decoded.

    A certificate's public check verifies this, not the student's object itself, so the notebook and
    the grader see the same data by construction (issue 36): a namedtuple arrives as a tuple, an
    ``np.matrix`` as an array, a shared subtree once per occurrence, an object array of floats not
    at all. Raises TypeError with the worker's message (:func:`not_plain_data`) if it cannot cross.
    """
    try:
        return decode(encode(value))
    except PlainDataError as exc:
        raise TypeError(not_plain_data(exc)) from None
