"""The grader's guard against a function that changes its arguments in place (chapter 8).

Only the lecturer's grader uses ``unchanged_arguments`` (``booktools``: the sandboxed worker
and ``compare_functions``), for assignment ``normalized_step``; a student's notebook never runs
it. It compares with the shared ``first_difference``, with no tolerance.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from .compare import first_difference
from .inputs import check_callable


def unchanged_arguments(fn: Callable) -> Callable:
    """``fn``, made to raise ``ValueError`` when a call changed one of its arguments in place.

    Assignment ``normalized_step`` (chapter 8) asks for the new W "without changing W": its hidden
    tests set ``READ_ONLY_ARGUMENTS``, and then the grader's worker calls the student's function
    through this wrapper (where the arguments live), and ``booktools.checks.compare_functions``
    does the same in process. A changed argument is one that ``first_difference`` (with no
    tolerance) finds different from a copy taken before the call.

    Raises
    ------
    TypeError
        If ``fn`` is not callable.
    """
    check_callable(fn, "fn")
    try:
        import inspect

        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        names = []

    def call(*args, **kwargs):
        before = copy.deepcopy((args, kwargs))
        result = fn(*args, **kwargs)
        passed = [
            (names[i] if i < len(names) else f"number {i + 1}", old, new)
            for i, (old, new) in enumerate(zip(before[0], args, strict=True))
        ]
        passed += [(key, before[1][key], kwargs[key]) for key in kwargs]
        for name, old, new in passed:
            if first_difference(old, new, 0.0, 0.0) is not None:
                raise ValueError(
                    f"changed its argument {name} in place; the assignment asks for a new value "
                    "and leaves the arguments as they were (copy before changing)"
                )
        return result

    return call
