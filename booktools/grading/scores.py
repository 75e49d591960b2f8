"""The scores CSV: a row per submission, written as soon as it is graded, and a column per check.

Every cell goes through ``csvfile.CsvWriter`` (issue 35): quoted, printable, no formula start.
"""

from __future__ import annotations

import dataclasses
import sys
import threading
from pathlib import Path

from booktools.grading.answers import NOT_ATTEMPTED
from booktools.grading.collect import student_of
from booktools.grading.csvfile import CsvWriter, read_csv, write_csv
from booktools.grading.feedback import FeedbackFolder, feedback_markdown
from booktools.grading.text import fmt_score, printable, scrub, scrubbed

GRADER_ERROR = "grader-error"
STATUSES = (
    "graded",
    NOT_ATTEMPTED,  # issue 37: the hand-out as given, 0 points
    "forbidden",
    "timeout",
    "memory",
    "output",
    "syntax_error",
    "error",
    "missing",
    "crashed",
    "protocol",
    "unreadable",
    "rejected",
    "skipped",
    GRADER_ERROR,
)

FIELDS = ["submission", "student", "score", "max_score", "status", "feedback"]


@dataclasses.dataclass(frozen=True)
class CheckColumn:
    """One per-check column of the CSV: a check of the reference's report, in its order."""

    header: str  # "NAME [MAX]", printable (the writer neutralises it); a name that repeats gets " (2)", ...
    name: str
    occurrence: int  # 1 for the first check of that name, 2 for the second, ...
    max_points: float


def check_columns(report) -> list[CheckColumn]:
    """The per-check columns of a run: one per check of the reference's report, in its order."""
    columns, seen, headers = [], {}, set(FIELDS)
    for check in report.checks:
        name = scrub(check.name)
        seen[name] = seen.get(name, 0) + 1
        shown = name if seen[name] == 1 else f"{name} ({seen[name]})"
        header = printable(f"{shown} [{fmt_score(check.max_points)}]")
        while header in headers:  # a check whose own name looks like "x (2)": never two columns alike
            header = printable(f"{shown} (again) [{fmt_score(check.max_points)}]")
            shown += " (again)"
        headers.add(header)
        columns.append(CheckColumn(header, name, seen[name], float(check.max_points)))
    return columns


def check_cells(row: dict, columns: list[CheckColumn]) -> dict[str, str]:
    """The row's per-check cells: the points earned on each column's check, empty unless it was graded.

    A graded submission whose report lacks a check of the reference earned 0 on it; a check the
    reference does not have is in the feedback only.
    """
    if row.get("status") != "graded":
        return {column.header: "" for column in columns}
    earned, seen = {}, {}
    for check in row.get("checks", []):
        seen[check.name] = seen.get(check.name, 0) + 1
        earned[(check.name, seen[check.name])] = check.points
    return {column.header: fmt_score(earned.get((column.name, column.occurrence), 0.0)) for column in columns}


def most_failed(rows: list[dict], columns: list[CheckColumn], top: int = 3) -> str | None:
    """ "most failed checks: NAME (k of n), ..." for the ``top`` checks failed most often (None if none is).

    n counts the submissions graded on that check (a cell that is not empty), k those of them that
    earned less than its maximum.
    """
    counts = []
    for index, column in enumerate(columns):
        failed = graded = 0
        for row in rows:
            cell = (row.get("check_cells") or {}).get(column.header, "")
            try:
                points = float(cell)
            except ValueError:
                continue
            graded += 1
            failed += points < column.max_points
        if failed:
            counts.append((-failed, index, column, graded))
    if not counts:
        return None
    shown = [f"{printable(c.name)} ({-k} of {n})" for k, _, c, n in sorted(counts, key=lambda x: x[:2])[:top]]
    return "most failed checks: " + ", ".join(shown)


class Rows:
    """Writes each row to the CSV (and its feedback file) as soon as it is graded.

    The CSV's columns are ``FIELDS`` and then one per check of the reference (``columns``).
    ``kept`` rows (``--regrade-errors``: the rows of the last run that are not regraded) go into
    the CSV as they are, per-check cells included; their feedback files are carried over into the
    new feedback folder (``carried``: {old file name: new file name}). ``names`` are the run's
    feedback file names (``feedback_names``).
    """

    def __init__(
        self,
        out: Path,
        feedback: FeedbackFolder,
        max_score: float,
        title: str,
        columns: list[CheckColumn],
        names: dict[str, str],
        kept: list[dict] = (),
        carried: dict[str, str] | None = None,
        detail: str = "full",
    ):
        self.out, self.feedback, self.max_score, self.title = out, feedback, max_score, title
        self.detail = detail  # how much of the hidden tests the feedback files show (feedback.DETAIL)
        self.columns, self.names = columns, names
        self.fields = [*FIELDS, *(c.header for c in columns)]
        self.rows: list[dict] = list(kept)
        self.lock = threading.Lock()
        feedback.carry_over(carried or {})
        out.parent.mkdir(parents=True, exist_ok=True)
        self.file = open(out, "w", newline="", encoding="utf-8")
        self.writer = CsvWriter(self.file)
        self.writer.writerow(self.fields)
        for row in self.rows:
            self.writer.writerow(self.cells(row))
        self.file.flush()

    @property
    def feedback_dir(self) -> Path:
        """Where the feedback files are now (the new folder until ``finish``, then its final place)."""
        return self.feedback.path

    def cells(self, row: dict) -> list[str]:
        """The row's values in the order of ``fields``; the writer makes each a safe cell (issue 35)."""
        kept = row.get("check_cells") or {}
        fixed = [
            row["submission"],
            student_of(row),
            fmt_score(row["score"]),
            fmt_score(self.max_score),
            row["status"],
            row["feedback"],
        ]
        return [*fixed, *(kept.get(column.header, "") for column in self.columns)]

    def add(self, row: dict) -> None:
        row = scrubbed(row)
        row["check_cells"] = check_cells(row, self.columns)
        with self.lock:
            self.rows.append(row)
            self.writer.writerow(self.cells(row))
            self.file.flush()
            path = self.feedback_dir / self.names[row["submission"]]
            path.write_text(feedback_markdown(row, self.max_score, self.title, detail=self.detail), encoding="utf-8")
            print(
                f"  {printable(row['submission'])}: {fmt_score(row['score'])}/{fmt_score(self.max_score)} [{row['status']}]",
                file=sys.stderr,
                flush=True,
            )

    def finish(self) -> None:
        """Rewrite the CSV sorted by submission (atomically: the unsorted file stays until then), and
        put the new feedback folder in place."""
        if not self.file.closed:
            self.file.close()
            self.rows.sort(key=lambda r: r["submission"])
            write_csv(self.out, self.fields, [self.cells(row) for row in self.rows])
        self.feedback.swap()

    def close(self) -> None:
        """After an interruption: the CSV as far as it got and the feedback folder to match."""
        if not self.file.closed:
            self.file.close()
        self.feedback.swap()


def read_previous_rows(out: Path) -> tuple[list[dict], list[str]]:
    """The rows of an earlier run's CSV (``--regrade-errors``) and its per-check headers.

    The CSV must start with the columns ``FIELDS``; the columns after them are the per-check ones,
    whose cells each row keeps (``check_cells``) as they are. Cells are read back as the writer was
    given them (``csvfile.read_csv`` undoes the neutralisation of formulas, issue 35): a submission
    is its name made printable.
    """
    if not out.is_file():
        raise SystemExit(f"--regrade-errors needs the CSV of an earlier run, and {out} does not exist")
    try:
        fields, table = read_csv(out, exact=True)
    except ValueError as exc:
        raise SystemExit(f"{out} is not a grades file of this grader ({exc})") from None
    if fields[: len(FIELDS)] != FIELDS or len(set(fields)) != len(fields):
        raise SystemExit(f"{out} is not a grades file of this grader (its columns are {fields})")
    headers = fields[len(FIELDS) :]
    rows = []
    for number, cells in table:
        row = dict(zip(fields, cells + [""] * (len(fields) - len(cells)), strict=False))
        try:
            score = float(row["score"])
        except ValueError:
            raise SystemExit(f"{out}: row {number} has no score ({row['score']!r})") from None
        rows.append(
            {
                "submission": row["submission"],
                "student": row["student"],
                "score": score,
                "status": row["status"],
                "feedback": row["feedback"],
                "checks": [],
                "check_cells": {header: row[header] for header in headers},
            }
        )
    return rows, headers
