"""Argument checks shared by every module, so bad input gets the same clear message everywhere.

Scalars go through one checker, ``check_scalar``, with the allowed domain written as an
``Interval`` (the pattern of scikit-learn's ``check_scalar``): the message always names the
argument, the domain and the value given, for example
``eta must be a finite real number in (0, 1], got 1.5``. ``check_int`` and ``check_real``
are its two common shapes. The array checks (labels, Boolean instances, streams) and the
random generator check follow. The two checks that need the ``Learner`` protocol
(``check_learner``, ``check_prediction``) are in ``protocol``.
"""

from __future__ import annotations

import math
import numbers
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "Interval",
    "check_scalar",
    "check_int",
    "check_real",
    "check_rng",
    "check_labels",
    "check_label",
    "check_stream",
    "check_boolean_rows",
    "issparse",
]

_CLOSED = ("both", "left", "right", "neither")


@dataclass(frozen=True)
class Interval:
    """A domain for ``check_scalar``: integers or reals between ``left`` and ``right``.

    Parameters
    ----------
    kind : {int, float}
        ``int`` accepts Python and numpy integers (not bools); ``float`` accepts any real
        number (ints included) and rejects NaN and infinities.
    left, right : number or None
        The ends; ``None`` leaves that side unbounded.
    closed : {"both", "left", "right", "neither"}
        Which ends belong to the interval.
    """

    kind: type
    left: float | None = None
    right: float | None = None
    closed: str = "both"

    def __post_init__(self) -> None:
        if self.kind not in (int, float):
            raise TypeError(f"Interval kind must be int or float, got {self.kind!r}")
        if self.closed not in _CLOSED:
            raise ValueError(f"Interval closed must be one of {_CLOSED}, got {self.closed!r}")
        if self.left is not None and self.right is not None and self.left > self.right:
            raise ValueError(f"Interval needs left <= right, got {self.left} > {self.right}")

    def __contains__(self, value: float) -> bool:
        if value != value:  # NaN lies in no interval
            return False
        left_closed = self.closed in ("both", "left")
        right_closed = self.closed in ("both", "right")
        if self.left is not None and (value < self.left or (value == self.left and not left_closed)):
            return False
        if self.right is not None and (value > self.right or (value == self.right and not right_closed)):
            return False
        return True

    def __str__(self) -> str:
        """The domain in words: ``in [1, 5]``, ``in (0, 1]``, ``>= 1``, ``> 0.0`` or ``""``."""
        left_closed = self.closed in ("both", "left")
        right_closed = self.closed in ("both", "right")
        if self.left is not None and self.right is not None:
            return f"in {'[' if left_closed else '('}{self.left}, {self.right}{']' if right_closed else ')'}"
        if self.left is not None:
            return f"{'>=' if left_closed else '>'} {self.left}"
        if self.right is not None:
            return f"{'<=' if right_closed else '<'} {self.right}"
        return ""


def check_scalar(value: Any, name: str, domain: Interval, *, why: str = "") -> int | float:
    """Return ``value`` as an ``int`` or ``float`` after checking that it lies in ``domain``.

    Parameters
    ----------
    value : Any
        What the caller passed.
    name : str
        The argument's name, used in the message.
    domain : Interval
        The allowed values.
    why : str, optional
        A short reason shown in brackets after the domain, e.g. ``"0 never learns"``.

    Raises
    ------
    TypeError
        If ``value`` is not a number of the interval's kind (bools are not numbers here).
    ValueError
        If it is NaN, infinite (for reals) or outside the interval.
    """
    exact = type(value) is domain.kind  # plain int or float: skip the slower abstract-class checks
    if domain.kind is int:
        if not exact and (isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral)):
            raise TypeError(_message(name, domain, why, value))
        number = int(value)
        if number not in domain:
            raise ValueError(_message(name, domain, why, value))
        return number
    if not exact and (isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real)):
        raise TypeError(_message(name, domain, why, value))
    try:
        number = float(value)
    except OverflowError:  # e.g. 10**400 or Fraction(10**400): too large for a float
        raise ValueError(_message(name, domain, why, value, finite=True)) from None
    if not math.isfinite(number) or number not in domain:
        raise ValueError(_message(name, domain, why, number, finite=True))
    return number


def _message(name: str, domain: Interval, why: str, value: Any, finite: bool = False) -> str:
    """The error text of ``check_scalar``, built only when a check fails."""
    words = "an integer" if domain.kind is int else "a finite real number" if finite else "a real number"
    where = f" {domain}" if str(domain) else ""
    reason = f" ({why})" if why else ""
    return f"{name} must be {words}{where}{reason}, got {value!r}"


def check_int(value: Any, name: str, low: int | None = None, high: int | None = None) -> int:
    """Return ``value`` as an int after checking that it is an integer in [low, high]."""
    if (
        (type(value) is int or isinstance(value, np.integer))
        and (low is None or value >= low)
        and (high is None or value <= high)
    ):
        return int(value)  # the common case, without building an Interval (called once per round in places)
    return check_scalar(value, name, Interval(int, low, high))


def check_real(value: Any, name: str, low: float | None = None, *, strict: bool = True) -> float:
    """Return ``value`` as a finite float after checking that it is > ``low`` (>= if not ``strict``)."""
    if type(value) is float and math.isfinite(value) and (low is None or value > low or (value == low and not strict)):
        return value  # the common case, without building an Interval
    return check_scalar(value, name, Interval(float, low, None, "neither" if strict else "left"))


def check_labels(y: Any, name: str = "y") -> np.ndarray:
    """Return ``y`` as an int8 array after checking that every entry is -1 or +1.

    Raises
    ------
    TypeError
        If ``y`` is not numeric.
    ValueError
        If an entry is NaN or not in {-1, +1}; the message names ``name``.
    """
    arr = np.asarray(y)
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number):
        raise TypeError(f"{name} must hold the labels -1 and +1 as numbers, got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.floating) and np.isnan(arr).any():
        raise ValueError(f"{name} must hold labels in {{-1, +1}}, got NaN")
    bad = (arr != 1) & (arr != -1)
    if bad.any():
        first = arr[bad].flat[0].item()
        hint = " (labels in {0, 1}? map them with 2*y - 1)" if first == 0 else ""
        raise ValueError(f"{name} must hold labels in {{-1, +1}}, got {first!r}{hint}")
    return arr.astype(np.int8)


def check_label(y: Any, name: str = "y") -> int:
    """Return one label as an int after checking that it is -1 or +1 (fast for plain ints)."""
    if isinstance(y, (int, np.integer)) and not isinstance(y, (bool, np.bool_)) and (y == 1 or y == -1):
        return int(y)
    return int(check_labels(np.asarray([y]), name=name)[0])


def check_rng(rng: Any, name: str = "rng") -> np.random.Generator:
    """Check that ``rng`` is a ``numpy.random.Generator`` (the book's only source of randomness)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"{name} must be a numpy.random.Generator, e.g. numpy.random.default_rng(0); got {type(rng).__name__}"
        )
    return rng


def issparse(x: Any) -> bool:
    """Whether ``x`` is a scipy sparse matrix or array, without importing scipy.sparse.

    If scipy.sparse has not been imported, nothing can be one of its matrices; so
    ``import onlinelib`` and dense streams never pay for loading it.
    """
    module = sys.modules.get("scipy.sparse")
    return module is not None and module.issparse(x)


def check_stream(X: Any, y: Any) -> tuple[Any, np.ndarray]:
    """Check a labelled stream: at least one round, one label per instance, labels ±1.

    ``X`` may be an array (converted with ``np.asarray``) or a scipy sparse matrix
    (kept as it is); its first axis indexes the rounds.
    """
    if not issparse(X):
        X = np.asarray(X)
        if X.ndim == 0:
            raise ValueError(f"X must be a sequence of instances (one per round), got a scalar {X!r}")
    y = check_labels(y)
    if y.ndim != 1:
        raise ValueError(f"y must be one-dimensional (one label per round), got shape {y.shape}")
    n_rows = X.shape[0]
    if n_rows == 0:
        raise ValueError("the stream is empty: X and y must hold at least one round")
    if n_rows != len(y):
        raise ValueError(f"X and y must have one entry per round, got {n_rows} instances and {len(y)} labels")
    return X, y


def check_boolean_rows(X: Any, name: str = "X", n_features: int | None = None) -> np.ndarray:
    """Return ``X`` as a 2-D uint8 array after checking that every entry is 0 or 1.

    A single instance (1-D) becomes one row. With ``n_features`` the number of
    columns is checked too. Used by the Boolean-kernel chapter.
    """
    arr = np.asarray(X)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise TypeError(f"{name} must be a numeric 0/1 array, got dtype {arr.dtype}")
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise ValueError(f"{name} must be one instance (1-D) or a matrix of instances (2-D), got shape {arr.shape}")
    if n_features is not None and arr.shape[1] != n_features:
        raise ValueError(f"{name} must have {n_features} features per instance, got shape {arr.shape}")
    if arr.dtype != bool:
        if np.issubdtype(arr.dtype, np.floating) and np.isnan(arr).any():
            raise ValueError(f"{name} must be Boolean (entries 0 or 1), got NaN")
        bad = (arr != 0) & (arr != 1)
        if bad.any():
            raise ValueError(f"{name} must be Boolean (entries 0 or 1), got {arr[bad].flat[0].item()!r}")
    return arr.astype(np.uint8)
