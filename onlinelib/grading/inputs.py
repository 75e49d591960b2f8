"""What the checks run on: ``Case``, ``Certificate``, ``Stream`` and their argument checks.

A function assignment (rwma, chapter 5; drift_chain, chapter 7; normalized_step, chapter 8) is
called on cases (``Case``), a learner assignment (halving, chapter 1; winnow1, chapter 2;
kernel_perceptron, chapter 6) is played on streams (``Stream``), and a certificate assignment
(issue 27) constructs what each ``Certificate`` asks for. ``check_callable``, ``check_items``,
``checked_input`` and ``checked_stream`` check them, for the public checks and for the hidden
tests alike: bad arguments raise ``TypeError`` or ``ValueError`` naming the argument.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..validation import check_real, check_stream


@dataclass(frozen=True)
class Case:
    """One call of the function under test (assignments rwma, drift_chain, normalized_step).

    Attributes
    ----------
    name : str
    args : tuple
        Positional arguments; each call gets its own deep copy.
    kwargs : mapping
        Keyword arguments.
    points : float
    """

    name: str
    args: tuple = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    points: float = 1.0


@dataclass(frozen=True)
class Certificate:
    """One object the student's function must construct (the certificate assignments, issue 27).

    The function is called with ``args`` and ``kwargs``; what it returns is checked exactly by
    ``onlinelib.certificates.verify_certificate(verifier, result, params)``. The check earns
    ``points * min(1, quality / target)`` for a valid object (``target``: the quality that earns
    every point, by default the verifier's optimum) and 0 for an invalid one, whose message
    says which condition failed and where.

    Attributes
    ----------
    name : str
    args : tuple
    kwargs : mapping
    verifier : str
        A name of ``onlinelib.certificates.VERIFIERS``, e.g. ``"mistake_tree"``.
    params : mapping
        The verifier's own arguments (the class, the radius and margin, the rate, limits).
    target : int or None
        The quality that earns every point; None: the verifier's optimum.
    points : float
    """

    name: str
    args: tuple = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    verifier: str = ""
    params: Mapping[str, Any] = field(default_factory=dict)
    target: int | None = None
    points: float = 1.0


@dataclass(frozen=True, eq=False)
class Stream:
    """One labelled stream for a learner's checks and ``check_bounds`` (halving, winnow1, kernel_perceptron).

    Attributes
    ----------
    name : str
        E.g. "thresholds, random (seed 3)" or "adaptive adversary".
    X : array_like, shape (T, ...)
        The instances; row t is passed to ``predict`` and ``update``.
    y : array_like of int, shape (T,)
        The labels, ±1.
    params : mapping
        Keyword arguments for the learner's class, e.g. ``{"n": 16}``.
    info : mapping
        Anything the bounds of ``check_bounds`` need (e.g. the relevant variables).
    points : float
    """

    name: str
    X: Any
    y: Any
    params: Mapping[str, Any] = field(default_factory=dict)
    info: Mapping[str, Any] = field(default_factory=dict)
    points: float = 1.0


def check_callable(fn: Any, name: str) -> Callable:
    """Return ``fn`` if it is callable, else raise TypeError naming ``name`` (shared with the hidden tests)."""
    if not callable(fn):
        raise TypeError(f"{name} must be callable (a function or a class), got {type(fn).__name__}")
    return fn


def check_items(items: Any, name: str) -> list:
    """``items`` (streams or cases) as a non-empty list, else TypeError or ValueError naming ``name``."""
    if isinstance(items, (str, bytes, Mapping)) or not hasattr(items, "__iter__"):
        raise TypeError(f"{name} must be a list, got {type(items).__name__}")
    items = list(items)
    if not items:
        raise ValueError(f"{name} must hold at least one entry, got an empty list")
    return items


def checked_input(item: Any, kind: type, where: str, form: str, sizes: range) -> Any:
    """``item`` as a ``kind`` (Stream or Case), built from a tuple ``form`` of a length in ``sizes``
    if need be; its name and points checked. Shared with the hidden tests (``cases[i]``);
    TypeError or ValueError naming ``where``."""
    if isinstance(item, tuple) and len(item) in sizes:
        item = kind(*item)
    if not isinstance(item, kind):
        raise TypeError(f"{where} must be a {kind.__name__} or a tuple {form}, got {type(item).__name__}")
    if not isinstance(item.name, str):
        raise TypeError(f"{where}.name must be a string, got {type(item.name).__name__}")
    check_real(item.points, f"{where}.points", 0.0, strict=False)
    return item


def checked_stream(item: Any, i: int) -> tuple[Stream, Any, np.ndarray]:
    """``streams[i]`` (a Stream or a tuple (name, X, y[, params])) as (stream, X, y), checked.

    Raises
    ------
    TypeError, ValueError
        If it is malformed, its X and y have different lengths or a label is not ±1; the
        message names ``streams[i]``.
    """
    where = f"streams[{i}]"
    stream = checked_input(item, Stream, where, "(name, X, y[, params])", range(3, 5))
    for attr in ("params", "info"):
        if not isinstance(getattr(stream, attr), Mapping):
            raise TypeError(f"{where}.{attr} must be a mapping, got {type(getattr(stream, attr)).__name__}")
    try:
        X, y = check_stream(stream.X, stream.y)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{where} ({stream.name!r}): {exc}") from None
    return stream, X, y
