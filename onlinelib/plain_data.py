"""Plain data as JSON: what crosses between the grader and a sandboxed submission (assignments).

The grader (``python -m booktools grade``) runs a student's notebook in a sandbox and talks to it
only through JSON lines; the assignments' public checks store the reference's outputs
as JSON files next to the notebooks. Both use this codec, so a value means the same on
both sides.

Plain data is: ``None``, ``bool``, ``int``, ``float`` (NaN and ±inf included), ``str``,
``Fraction``, lists, tuples, dicts with string keys, numpy scalars and numpy arrays of
a Boolean, integer or real dtype, and the Boolean kernels of chapter 6
(``onlinelib.kernels.BooleanKernel``). Nothing else can be encoded, and ``decode``
accepts nothing else: it never builds an object of an arbitrary class, so decoding what
an untrusted process sent yields data and only data.

Tagged values are one-key dicts whose key starts with ``$`` (``{"$tuple": [...]}``); a
dict with such a key is not plain data.
"""
from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = ["PlainDataError", "encode", "decode", "dumps", "loads", "MAX_DEPTH"]

MAX_DEPTH = 32  # nesting levels; deeper values are refused on both sides
_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64")


class PlainDataError(ValueError):
    """A value that is not plain data (see the module docstring), with the path to the offending part."""


def _where(path: str) -> str:
    return f" at {path}" if path else ""


def encode(value: Any, _path: str = "", _depth: int = 0) -> Any:
    """The JSON-ready form of a plain value.

    Raises
    ------
    PlainDataError
        If ``value`` (or a part of it, named by its path) is not plain data or is
        nested more than ``MAX_DEPTH`` levels deep.
    """
    if _depth > MAX_DEPTH:
        raise PlainDataError(f"nested more than {MAX_DEPTH} levels deep{_where(_path)}")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, Fraction):
        return {"$fraction": [str(value.numerator), str(value.denominator)]}
    if isinstance(value, np.generic) and value.dtype.name in _DTYPES:
        return value.item()
    if isinstance(value, np.ndarray):
        if value.dtype.name not in _DTYPES:
            raise PlainDataError(f"a numpy array of dtype {value.dtype} is not plain data{_where(_path)}")
        return {"$array": {"dtype": value.dtype.name, "shape": list(value.shape), "data": value.ravel().tolist()}}
    if isinstance(value, (list, tuple)):
        items = [encode(v, f"{_path}[{i}]", _depth + 1) for i, v in enumerate(value)]
        return items if isinstance(value, list) else {"$tuple": items}
    if isinstance(value, dict):
        out = {}
        for key, v in value.items():
            if not isinstance(key, str) or key.startswith("$"):
                raise PlainDataError(f"dict keys must be strings not starting with '$', got {key!r}{_where(_path)}")
            out[key] = encode(v, f"{_path}[{key!r}]", _depth + 1)
        return out
    from .kernels import BooleanKernel

    if type(value) is BooleanKernel:
        return {"$kernel": {"monotone": value.monotone, "max_literals": value.max_literals}}
    raise PlainDataError(f"an object of type {type(value).__name__} is not plain data{_where(_path)}")


def _expect(condition: bool, message: str, path: str) -> None:
    if not condition:
        raise PlainDataError(message + _where(path))


def decode(data: Any, _path: str = "", _depth: int = 0) -> Any:
    """The value that ``encode`` turned into ``data``; anything else raises PlainDataError."""
    _expect(_depth <= MAX_DEPTH, f"nested more than {MAX_DEPTH} levels deep", _path)
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, list):
        return [decode(v, f"{_path}[{i}]", _depth + 1) for i, v in enumerate(data)]
    _expect(isinstance(data, dict), f"an object of type {type(data).__name__} is not plain data", _path)
    tags = [k for k in data if isinstance(k, str) and k.startswith("$")]
    if not tags:
        return {k: decode(v, f"{_path}[{k!r}]", _depth + 1) for k, v in data.items()}
    _expect(len(data) == 1, "a tagged value must be a dict with one key", _path)
    tag, body = tags[0], data[tags[0]]
    if tag == "$tuple":
        _expect(isinstance(body, list), "$tuple must hold a list", _path)
        return tuple(decode(v, f"{_path}[{i}]", _depth + 1) for i, v in enumerate(body))
    if tag == "$fraction":
        _expect(isinstance(body, list) and len(body) == 2 and all(isinstance(s, str) for s in body),
                "$fraction must hold [numerator, denominator] as strings", _path)
        try:
            return Fraction(int(body[0]), int(body[1]))
        except (ValueError, ZeroDivisionError) as exc:
            raise PlainDataError(f"bad $fraction {body!r}: {exc}{_where(_path)}") from None
    if tag == "$array":
        _expect(isinstance(body, dict) and set(body) == {"dtype", "shape", "data"},
                "$array must hold dtype, shape and data", _path)
        dtype, shape, flat = body["dtype"], body["shape"], body["data"]
        _expect(dtype in _DTYPES, f"$array dtype must be one of {', '.join(_DTYPES)}, got {dtype!r}", _path)
        _expect(isinstance(shape, list) and len(shape) <= MAX_DEPTH
                and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape),
                "$array shape must be a list of sizes >= 0", _path)
        _expect(isinstance(flat, list) and len(flat) == math.prod(shape),
                "$array data must be a flat list with one entry per element", _path)
        _expect(all(isinstance(v, (bool, int, float)) for v in flat), "$array data must hold numbers", _path)
        try:
            return np.array(flat, dtype=dtype).reshape(shape)
        except (OverflowError, ValueError, TypeError) as exc:
            raise PlainDataError(f"bad $array: {exc}{_where(_path)}") from None
    if tag == "$kernel":
        _expect(isinstance(body, dict) and set(body) == {"monotone", "max_literals"}
                and isinstance(body["monotone"], bool)
                and (body["max_literals"] is None or (isinstance(body["max_literals"], int)
                                                      and not isinstance(body["max_literals"], bool)
                                                      and body["max_literals"] >= 0)),
                "$kernel must hold monotone (a bool) and max_literals (an int >= 0 or null)", _path)
        from .kernels import BooleanKernel

        return BooleanKernel(body["monotone"], body["max_literals"])
    raise PlainDataError(f"unknown tag {tag!r}{_where(_path)}")


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
