"""The verdicts of the assignments' checks: ``Check``, ``GradeReport`` and the message helpers.

Every assignment (chapters 1-8) reports its checks as ``Check`` results gathered in a
``GradeReport``; a student's notebook prints ``report.summary()``, the grader records
``report.clamp()`` and ``report.feedback()``. A message is clipped to one bounded line, and an
exception the student's code raised is described in words (``_describe_exception``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..validation import check_real

_MAX_MESSAGE = 600  # characters of one check's message


@dataclass(frozen=True)
class Check:
    """The verdict of one check (every assignment, chapters 1-8).

    Attributes
    ----------
    name : str
        What was checked, e.g. the stream or case name.
    passed : bool
    points : float
        The points earned: ``max_points`` if passed, else 0.
    max_points : float
    message : str
        Why it failed (the first differing round, expected and actual values), or
        a short confirmation.
    """

    name: str
    passed: bool
    points: float
    max_points: float
    message: str


def _fmt_points(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


class GradeReport:
    """A list of ``Check`` results with a score (every assignment, chapters 1-8).

    Reports add up: ``report_a + report_b`` holds the checks of both, under
    the first one's title.

    Parameters
    ----------
    checks : iterable of Check
    title : str
        Shown by ``summary``, e.g. "Assignment 1: Halving (chapter 1)".
    """

    def __init__(self, checks: Iterable[Check] = (), title: str = ""):
        self.checks: list[Check] = list(checks)
        for i, check in enumerate(self.checks):
            if not isinstance(check, Check):
                raise TypeError(f"checks[{i}] must be a Check, got {type(check).__name__}")
        self.title = str(title)

    @property
    def score(self) -> float:
        """The points earned."""
        return float(sum(c.points for c in self.checks))

    @property
    def max_score(self) -> float:
        """The points available."""
        return float(sum(c.max_points for c in self.checks))

    @property
    def passed(self) -> bool:
        """True if every check passed."""
        return all(c.passed for c in self.checks)

    @property
    def failures(self) -> list[Check]:
        """The checks that failed."""
        return [c for c in self.checks if not c.passed]

    def add(self, name: str, passed: bool, message: str = "", points: float = 1.0) -> Check:
        """Append a check decided elsewhere (e.g. a custom test in a lecturer file) and return it."""
        points = check_real(points, "points", 0.0, strict=False)
        check = Check(
            str(name), bool(passed), points if passed else 0.0, points, _clip(message or ("ok" if passed else "failed"))
        )
        self.checks.append(check)
        return check

    def __add__(self, other: "GradeReport") -> "GradeReport":
        if not isinstance(other, GradeReport):
            return NotImplemented
        return GradeReport(self.checks + other.checks, self.title or other.title)

    def clamp(self) -> tuple[float, float]:
        """(score, max_score) with the score forced into [0, max_score] (what the grader records)."""
        top = max(0.0, self.max_score)
        return min(max(self.score, 0.0), top), top

    def summary(self) -> str:
        """A readable multi-line summary: the score, then one line per check."""
        head = f"{self.title}: " if self.title else ""
        lines = [f"{head}{_fmt_points(self.score)}/{_fmt_points(self.max_score)} points"]
        for c in self.checks:
            mark = "pass" if c.passed else "FAIL"
            lines.append(f"  [{mark}] {c.name} ({_fmt_points(c.points)}/{_fmt_points(c.max_points)}): {c.message}")
        if self.checks and self.passed:
            lines.append("All checks passed.")
        return "\n".join(lines)

    def feedback(self, max_chars: int = 2000) -> str:
        """One line for a grades file: the score and what failed (or "all checks passed")."""
        text = f"{_fmt_points(self.score)}/{_fmt_points(self.max_score)}: "
        if self.passed:
            text += "all checks passed"
        else:
            text += "; ".join(f"FAIL {c.name}: {c.message}" for c in self.failures)
        text = " ".join(text.split())
        return text if len(text) <= max_chars else text[: max_chars - 3] + "..."

    def to_dict(self) -> dict:
        """The report as plain data (JSON-serialisable)."""
        return {
            "title": self.title,
            "score": self.score,
            "max_score": self.max_score,
            "checks": [c.__dict__.copy() for c in self.checks],
        }

    def __repr__(self) -> str:
        return f"GradeReport({self.title!r}, score={_fmt_points(self.score)}/{_fmt_points(self.max_score)}, checks={len(self.checks)})"


def _clip(message: str) -> str:
    message = " ".join(str(message).split())
    return message if len(message) <= _MAX_MESSAGE else message[: _MAX_MESSAGE - 3] + "..."


def _pass(name: str, points: float, message: str) -> Check:
    return Check(name, True, points, points, _clip(message))


def _fail(name: str, points: float, message: str) -> Check:
    return Check(name, False, 0.0, points, _clip(message))


def _describe_exception(exc: Exception, where: str = "") -> str:
    """What the student's code raised, in words (the grader's RemoteError carries the type it raised)."""
    if isinstance(exc, NotImplementedError):
        return f"not implemented yet{f' ({where})' if where else ''}"
    try:
        text = str(exc)[:300].strip()
        name = str(getattr(exc, "remote_type", None) or type(exc).__name__)[:80]
    except Exception:  # a student's exception whose __str__ raises
        text, name = "", type(exc).__name__
    if len(text) > 200:
        text = text[:197] + "..."
    return f"{where + ' ' if where else ''}raised {name}{': ' + text if text else ''}"
