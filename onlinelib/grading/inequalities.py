"""``check_bounds``: a proof's inequalities measured on the student's learner after every round.

This is the book's way of re-running a proof on a learner (the lemmas of chapter 2, Winnow1, in
assignment ``winnow1``): each bound measures both sides on the learner's state, ``lhs <= rhs``,
before round 1 and after every update. A student's notebook runs it on the public streams; the
hidden tests, on their own.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..validation import check_real
from .inputs import Stream, check_callable, check_items, checked_stream
from .results import GradeReport, _describe_exception, _fail, _pass
from .show import _fmt


def check_bounds(
    factory: Callable,
    streams: Sequence[Stream | tuple],
    bounds: Mapping[str, Callable[[Any, Stream], tuple[Any, Any]]],
    *,
    points: float = 1.0,
    rtol: float = 1e-9,
    title: str = "",
) -> GradeReport:
    """Run the student's learner and check the inequalities of a proof after every round.

    This is the book's way of re-running a proof (see any chapter, e.g. the
    lemmas of chapter 2, Winnow1, in assignment ``winnow1``): each bound measures
    both sides on the learner's state, ``lhs <= rhs``, before round 1 and after every update.

    Parameters
    ----------
    factory : callable
        Builds a fresh learner with ``factory(**stream.params)``.
    streams : sequence of Stream or tuple (name, X, y[, params])
    bounds : mapping of str to callable
        ``bound(learner, stream) -> (lhs, rhs)``; it holds if lhs <= rhs (up to
        ``rtol`` relative). The name is shown in the report, e.g.
        "Lemma (weight budget): W <= n + (u - v) theta".
    points : float
        Points of each bound.
    rtol : float >= 0
    title : str

    Returns
    -------
    GradeReport
        One check per bound, over all streams; a failed check names the stream,
        the first round where lhs > rhs and both sides.

    Raises
    ------
    TypeError, ValueError
        If ``factory`` or a bound is not callable, ``streams`` or ``bounds`` is
        empty or malformed, or ``points``/``rtol`` is negative.
    """
    check_callable(factory, "factory")
    checked = [checked_stream(item, i) for i, item in enumerate(check_items(streams, "streams"))]
    if not isinstance(bounds, Mapping) or not bounds:
        raise (TypeError if not isinstance(bounds, Mapping) else ValueError)(
            f"bounds must be a non-empty mapping of names to functions (learner, stream) -> (lhs, rhs), got {bounds!r}"
        )
    check_callable(factory, "factory")
    checked = [checked_stream(item, i) for i, item in enumerate(check_items(streams, "streams"))]
    _check_bound_functions(bounds)
    points = check_real(points, "points", 0.0, strict=False)
    rtol = check_real(rtol, "rtol", 0.0, strict=False)
    failures: dict[str, str] = {}
    for stream, X, y in checked:
        if len(failures) == len(bounds):
            break
        if not _run_stream(factory, bounds, stream, X, y, rtol, failures):
            break
    report = GradeReport(title=title)
    for key in bounds:
        if key in failures:
            report.checks.append(_fail(key, points, failures[key]))
        else:
            report.checks.append(_pass(key, points, f"holds after every round of {len(checked)} stream(s)"))
    return report


def _check_bound_functions(bounds: Any) -> None:
    """Raise TypeError or ValueError unless ``bounds`` is a non-empty mapping of names to functions
    (``check_bounds``, chapter 2)."""
    if not isinstance(bounds, Mapping) or not bounds:
        raise (TypeError if not isinstance(bounds, Mapping) else ValueError)(
            f"bounds must be a non-empty mapping of names to functions (learner, stream) -> (lhs, rhs), got {bounds!r}"
        )
    for key, fn in bounds.items():
        if not callable(fn):
            raise TypeError(
                f"bounds[{key!r}] must be a function (learner, stream) -> (lhs, rhs), got {type(fn).__name__}"
            )


def _run_stream(
    factory: Callable, bounds: Mapping[str, Callable], stream: Stream, X: Any, y: Any, rtol: float, failures: dict
) -> bool:
    """Play a fresh learner on one stream and measure the bounds still standing (``check_bounds``,
    chapter 2). Records each bound's first failure in ``failures``; False if the learner could not
    be built (every bound has then failed, and no further stream is played)."""
    try:
        learner = factory(**copy.deepcopy(dict(stream.params)))
    except Exception as exc:
        message = f"stream {stream.name!r}: " + _describe_exception(exc, "building the learner")
        for key in bounds:
            failures.setdefault(key, message)
        return False
    live = [key for key in bounds if key not in failures]
    _measure(bounds, learner, stream, live, "before round 1", rtol, failures)
    for t in range(len(y)):
        if not live:
            break
        try:
            learner.predict(copy.deepcopy(X[t]))  # the protocol: predict, then update
            learner.update(copy.deepcopy(X[t]), int(y[t]))
        except Exception as exc:
            message = f"stream {stream.name!r}: " + _describe_exception(exc, f"round {t + 1}: the learner")
            for key in live:
                failures[key] = message
            live.clear()
            break
        _measure(bounds, learner, stream, live, f"after round {t + 1}", rtol, failures)
    return True


def _measure(
    bounds: Mapping[str, Callable],
    learner: Any,
    stream: Stream,
    live: list[str],
    when: str,
    rtol: float,
    failures: dict,
) -> None:
    """Measure both sides of every bound in ``live`` on the learner's state; a bound that fails
    (or whose measurement raises) goes from ``live`` into ``failures`` (``check_bounds``, chapter 2)."""
    for key in list(live):
        try:
            lhs, rhs = bounds[key](learner, stream)
            lhs, rhs = float(lhs), float(rhs)
        except Exception as exc:
            failures[key] = f"stream {stream.name!r}, {when}: measuring it " + _describe_exception(exc)
            live.remove(key)
            continue
        slack = rtol * abs(rhs) if math.isfinite(rhs) else 0.0
        if not lhs <= rhs + slack:
            failures[key] = f"fails on stream {stream.name!r} {when}: left side {_fmt(lhs)} > right side {_fmt(rhs)}"
            live.remove(key)
