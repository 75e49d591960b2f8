"""Course-wide grade files for an LMS (issue 37): Canvas's gradebook import and Moodle's grade import.

Usage::

    python -m booktools lms --canvas OUT.csv GRADEBOOK [GRADEBOOK ...] [--roster ROSTER.csv] [--match COLUMN]
    python -m booktools lms --moodle OUT.csv GRADEBOOK [GRADEBOOK ...] [--roster ROSTER.csv] [--match COLUMN]

Each GRADEBOOK is the per-assignment gradebook the grader writes (``OUT_gradebook.csv``: ``student``,
``automatic``, one column per written question, ``total``, ``max``, ``status``), given as ``PATH``
(the assignment is named by the file: ``halving_gradebook.csv`` is ``halving``) or ``NAME=PATH``.
They are joined on the student (:func:`~booktools.grading.collect.student_key`: ``ALICE`` and
``alice`` are one student) into one row per student and one column per assignment, whose cell is
the gradebook's ``total`` (the hidden tests' points plus the merged written marks).

A cell is left blank, never 0, when the student handed nothing in for that assignment, handed in
twice (``duplicate``), or still has written answers to mark (``to mark``, ``changed``); each such
case is named on the console. The roster (``--roster``) is the LMS's own export: Canvas's exported
gradebook, or Moodle's grade export or participants list. It maps the grader's ids to the LMS's
users, through the column ``--match`` names (by default the one that finds the most students);
students missing from the roster, roster students without a submission, and ids that two roster
rows share are all reported, never dropped silently. Every file is written by
``csvfile.write_csv``: quoted, and a cell that could start a formula neutralised.

The formats, as documented:

* Canvas, "How do I import grades in the Gradebook?"
  (https://community.canvaslms.com/t5/Instructor-Guide/How-do-I-import-grades-in-the-Gradebook/ta-p/807,
  summarised for instructors at
  https://teaching.resources.osu.edu/toolsets/carmencanvas/guides/calculating-final-grades/import-csv-file-carmen-grades):
  the columns ``Student``, ``ID``, ``SIS User ID``, ``SIS Login ID``, ``Section``, in this order,
  then one column per assignment. An existing assignment's column is named ``Name (assignment id)``
  as Canvas's export names it (https://nemogb-dev.github.io/nemogb-r/articles/detailed-canvas-export-info.html);
  a column named without an id creates a new assignment, whose points come from the ``Points
  Possible`` row right under the header. Canvas's importer (``app/models/gradebook_importer.rb``
  in instructure/canvas-lms) checks the header's first five cells (``Student``, ``ID``, ``SIS
  User ID``, ``SIS Login ID``, ``Section``), takes a row whose first cell holds ``Points
  Possible`` as the points, drops trailing columns named like ``Current Score`` or ``Final Grade``
  (so no assignment may be named so), and finds a student by ID, then SIS User ID, then SIS Login
  ID, then name. A blank cell where Canvas has no score is no change; where it has one, its
  preview shows the change.
* Moodle, "Grade import" (https://docs.moodle.org/311/en/Grade_import) and its importer
  (``grade/import/csv/classes/load_data.php`` in moodle/moodle): any header; at import the
  lecturer maps one column ("Map from") to a user field ("Map to": ``useridnumber``,
  ``useremail``, ``username`` or ``userid``) and each other column to a grade item or a new one.
  An empty cell (or ``-``) is "no grade", any other value must be a number, every row must have
  the header's number of cells, and the importer's code skips the user lookup of a row whose
  user field is empty, keeping the previous row's user: so no row of this file has an empty
  identifier. The grade export's identity columns (its test fixture) are ``First name``,
  ``Surname`` (``Last name`` in later versions), ``ID number``, ``Institution``, ``Department``,
  ``Email address``.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import re
import sys
from pathlib import Path

from booktools.grading.collect import student_key
from booktools.grading.csvfile import csv_cell, read_csv, write_csv
from booktools.grading.text import fmt_score, printable

CANVAS_IDENTITY = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
CANVAS_MATCH = ["SIS User ID", "SIS Login ID", "ID"]  # the columns a grader's id can be matched in
POINTS_POSSIBLE = "Points Possible"
CANVAS_NOT_STUDENTS = (POINTS_POSSIBLE, "Manual Posting")  # rows of Canvas's export under its header
CANVAS_READ_ONLY = re.compile(r"Current Score|Current Points|Final Score|Final Points|Final Grade")
MOODLE_IDENTITY = ["First name", "Last name", "Surname", "ID number", "Username", "Email address"]
MOODLE_MATCH = ["ID number", "Username", "Email address"]
MOODLE_USER_FIELD = {"ID number": "useridnumber", "Username": "username", "Email address": "useremail"}  # "Map to"
INCOMPLETE = ("to mark", "changed")  # gradebook statuses whose total lacks written marks
SHOWN = 10  # names listed per console line, then a count


@dataclasses.dataclass
class Assignment:
    """One gradebook: its name, points possible, and {student key: (grader's id, total or None, why blank)}."""

    name: str
    points: float
    scores: dict[str, tuple[str, float | None, str]]


@dataclasses.dataclass(frozen=True)
class Format:
    """What one LMS's file looks like: its identity columns, the columns an id may be matched in."""

    name: str
    identity: list[str]
    match: list[str]


CANVAS = Format("canvas", CANVAS_IDENTITY, CANVAS_MATCH)
MOODLE = Format("moodle", MOODLE_IDENTITY, MOODLE_MATCH)


# -- reading the gradebooks ---------------------------------------------------------------------------------


def gradebook_argument(text: str) -> tuple[str, Path]:
    """``NAME=PATH`` or ``PATH`` as (assignment name, path).

    An existing file's path is a bare PATH, named by its stem less ``_gradebook``; otherwise the
    text is split at its last ``=`` (a name may hold ``=``, a path then may not).
    """
    name, sep, path = text.rpartition("=")
    if not sep or Path(text).is_file():
        path, name = text, re.sub(r"_gradebook$", "", Path(text).stem)
    name = name.strip()
    if not name or not path:
        raise ValueError(f"expected PATH or NAME=PATH, got {text!r}")
    return printable(name), Path(path)


def _at(cells: list[str], index: int) -> str:
    return cells[index].strip() if index < len(cells) else ""


def _number(text: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{where}: expected a number, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{where}: expected a number of points of 0 or more, got {text!r}")
    return value


def read_gradebook(name: str, path: Path) -> Assignment:
    """One gradebook the grader wrote, as an :class:`Assignment` (ValueError naming the file and row if not one)."""
    if not path.is_file():
        raise ValueError(f"{path}: no such gradebook file")
    header, rows = read_csv(path, exact=True)
    index = {column.strip().lower(): i for i, column in enumerate(header)}
    if "student" not in index or "max" not in index or not ({"total", "automatic"} & index.keys()):
        raise ValueError(
            f"{path}: not a gradebook of the grader: expected the columns student, total (or automatic) and max, "
            f"got {', '.join(map(printable, header)) or 'none'}"
        )
    value_column = index.get("total", index.get("automatic"))
    scores: dict[str, tuple[str, float | None, str]] = {}
    points = set()
    for number, cells in rows:
        cell = dict(zip(index, (_at(cells, i) for i in index.values()), strict=True))
        student, status = cell["student"], cell.get("status", "")
        where = f"{path}, row {number}"
        if not student:
            raise ValueError(f"{where}: no student")
        if cell["max"]:
            points.add(_number(cell["max"], where + ", max"))
        total = _at(cells, value_column)
        key = student_key(student)
        if key in scores:
            scores[key] = (scores[key][0], None, f"listed twice in {path.name}")
        elif status.startswith("duplicate") or status in INCOMPLETE or not total:
            scores[key] = (student, None, status or "no total")
        else:
            scores[key] = (student, _number(total, where), "")
    if not scores:
        raise ValueError(f"{path}: the gradebook has no students")
    if len(points) != 1:
        raise ValueError(f"{path}: expected one max for every student, got {sorted(points) or 'none'}")
    return Assignment(name, points.pop(), scores)


def read_gradebooks(arguments: list[str]) -> list[Assignment]:
    """Every GRADEBOOK argument read; assignment names must differ (in any case)."""
    assignments, seen = [], {}
    for argument in arguments:
        name, path = gradebook_argument(argument)
        if name.casefold() in seen:
            raise ValueError(f"two gradebooks are named {name!r} ({seen[name.casefold()]} and {path}): use NAME=PATH")
        seen[name.casefold()] = path
        assignments.append(read_gradebook(name, path))
    return assignments


# -- the roster -------------------------------------------------------------------------------------------------


def read_roster(path: Path, lms: Format) -> tuple[list[str], list[dict[str, str]]]:
    """The roster's header and its student rows, as {column: cell}; Canvas's ``Points Possible`` row is no student."""
    if not path.is_file():
        raise ValueError(f"{path}: no such roster file")
    header, rows = read_csv(path, exact=True)
    header = [_column(lms.identity, column.strip()) or column.strip() for column in header]  # the LMS's spelling
    known = {c.lower() for c in lms.match}
    if not known & {c.lower() for c in header}:
        raise ValueError(
            f"{path}: a {lms.name} roster needs one of the columns {', '.join(lms.match)}; "
            f"got {', '.join(map(printable, header))}"
        )
    students = []
    for _, cells in rows:
        row = {column: (cells[i].strip() if i < len(cells) else "") for i, column in enumerate(header)}
        if next(iter(row.values()), "") in CANVAS_NOT_STUDENTS:
            continue
        students.append(row)
    return header, students


def _column(header: list[str], wanted: str) -> str | None:
    """The header's own spelling of the column ``wanted`` (compared in lower case)."""
    return next((c for c in header if c.lower() == wanted.lower()), None)


def choose_match(header: list[str], roster: list[dict], keys: set[str], lms: Format, asked: str | None) -> str:
    """The roster column the grader's ids are matched in: ``asked``, or the one that finds the most students."""
    present = [_column(header, c) for c in lms.match if _column(header, c)]
    if asked:
        column = _column(header, asked)
        if column is None or column not in present:
            raise ValueError(f"--match {asked!r}: expected one of the roster's columns {', '.join(present)}")
        return column
    found = [sum(student_key(row.get(c, "")) in keys for row in roster) for c in present]
    return present[found.index(max(found))]


# -- the table ----------------------------------------------------------------------------------------------------


def _names(items: list[str], limit: int | None = SHOWN) -> str:
    """``a, b, c, and 4 more``: at most ``limit`` items (all of them if None), made printable."""
    limit = len(items) if limit is None else limit
    shown = ", ".join(printable(i) for i in items[:limit])
    return shown + (f", and {len(items) - limit} more" if len(items) > limit else "")


def _canvas_columns(assignments: list[Assignment], header: list[str]) -> tuple[list[str], list[str]]:
    """Canvas's assignment columns: the roster export's ``Name (id)`` where it has the assignment; and the new ones."""
    existing = {}
    for column in header:
        match = re.fullmatch(r"(.*\S)\s*\((\d+)\)", column)
        if match:
            existing.setdefault(match.group(1).strip().casefold(), column)
    columns = [existing.get(a.name.casefold(), a.name) for a in assignments]
    new = [a.name for a, column in zip(assignments, columns, strict=True) if column == a.name]
    return columns, new


@dataclasses.dataclass
class People:
    """Who gets a row: (student key, identity cells) in the file's order, and who could not be placed."""

    header: list[str]  # the roster's columns (or the identity columns, without a roster)
    identity: list[str]  # the identity columns written
    match: str  # the column the grader's ids are matched in
    rows: list[tuple[str, dict[str, str]]]
    shown: dict[str, str]  # {student key: the grader's id}
    missing: list[str]  # keys of graded students the roster lacks
    ambiguous: list[str]  # keys several roster rows share
    lines: list[str]


def match_people(assignments: list[Assignment], lms: Format, roster_file: Path | None, asked: str | None) -> People:
    """The rows of the file: the roster's students in its order, or without a roster every graded student."""
    shown: dict[str, str] = {}
    for assignment in assignments:
        for key, (student, _, _) in assignment.scores.items():
            shown.setdefault(key, student)
    if roster_file is None:
        match = _column(lms.match, asked or lms.match[0])
        if match is None:
            raise ValueError(f"--match {asked!r}: expected one of {', '.join(lms.match)}")
        identity = lms.identity if lms is CANVAS else [match]
        rows = [(key, {"Student": shown[key], match: shown[key]}) for key in sorted(shown, key=lambda k: shown[k])]
        note = f"no --roster: the grader's ids are written in the column {match!r}"
        return People(identity, identity, match, rows, shown, [], [], [note])
    header, roster = read_roster(roster_file, lms)
    match = choose_match(header, roster, set(shown), lms, asked)
    wanted = {i.lower() for i in lms.identity}
    identity = lms.identity if lms is CANVAS else [c for c in header if c.lower() in wanted]
    counts: dict[str, int] = {}
    rows = [(student_key(row.get(match, "")), row) for row in roster]
    for key, _ in rows:
        counts[key] = counts.get(key, 0) + 1
    ambiguous = sorted(k for k, n in counts.items() if n > 1 and k)
    missing = sorted((k for k in shown if k not in counts), key=lambda k: shown[k])
    note = f"matched the grader's ids in the roster's column {match!r}: {len(shown) - len(missing)} of {len(shown)}"
    return People(header, identity, match, rows, shown, missing, ambiguous, [note + " students found"])


def build_rows(assignments: list[Assignment], lms: Format, roster_file: Path | None, asked: str | None):
    """The file's header and rows, and the console lines naming every student left blank or out."""
    people = match_people(assignments, lms, roster_file, asked)
    identity, match, lines = people.identity, people.match, people.lines
    if lms is CANVAS:
        columns, new = _canvas_columns(assignments, people.header)
        if new:
            lines.append(
                f"Canvas will create new assignments (points from the Points Possible row): {_names(new, None)}"
            )
    else:
        columns = [a.name for a in assignments]
        field = MOODLE_USER_FIELD.get(_column(list(MOODLE_USER_FIELD), match) or "", match)
        lines.append(f"in Moodle's import, map from {match!r} to {field!r}, and each assignment to its grade item")
    clash = {c.lower() for c in identity} & {c.lower() for c in columns}
    if clash:
        raise ValueError(f"an assignment is named like an identity column: {', '.join(sorted(clash))}")
    if lms is CANVAS and any(CANVAS_READ_ONLY.search(c) for c in columns):
        raise ValueError("an assignment is named like a column Canvas reads as its own total (Current/Final Score...)")
    rows, blank_id, ambiguous = [], [], set(people.ambiguous)
    no_submission: dict[str, dict[str, None]] = {a.name: {} for a in assignments}  # ordered sets
    for key, person in people.rows:
        label = person.get(match, "") or person.get("Student", "") or "?"
        if not any(person.get(column, "") for column in ([match] if lms is MOODLE else lms.match)):
            blank_id.append(_person_name(person))
            continue
        cells = []
        for assignment in assignments:
            _, value, _ = assignment.scores.get(key, ("", None, ""))
            if key in ambiguous or value is None:
                cells.append("")
                if key not in assignment.scores:
                    no_submission[assignment.name][label] = None
            else:
                cells.append(fmt_score(value))
        rows.append([person.get(column, "") for column in identity] + cells)
        if csv_cell(person.get(match, "")) != printable(person.get(match, "")):
            lines.append(f"the id {printable(person[match])!r} starts like a formula and is written with a leading '")
    if lms is CANVAS:
        rows.insert(0, [POINTS_POSSIBLE, *[""] * (len(identity) - 1), *(fmt_score(a.points) for a in assignments)])
    lines += _problem_lines(assignments, people, no_submission, blank_id, roster_file)
    return [*identity, *columns], rows, lines


def _person_name(person: dict[str, str]) -> str:
    """A roster row's name, for a line naming it: Canvas's ``Student``, or Moodle's first and last name."""
    last = person.get("Last name", person.get("Surname", ""))
    return person.get("Student") or f"{person.get('First name', '')} {last}".strip() or "(no name)"


def _scores_of(assignments: list[Assignment], key: str) -> str:
    """ "halving 5, winnow 3": a student's scores, for a line naming them."""
    scores = [(a.name, a.scores.get(key, ("", None, ""))[1]) for a in assignments]
    return ", ".join(f"{name} {fmt_score(value)}" for name, value in scores if value is not None) or "no score"


def _problem_lines(assignments, people: People, no_submission, blank_id, roster_file) -> list[str]:
    """The console lines for every cell left blank and every student left out, one line per cause."""
    lines = []
    if people.missing:
        scores = [f"{people.shown[k]} ({_scores_of(assignments, k)})" for k in people.missing]
        lines.append(f"not in the roster {roster_file}, left out ({len(scores)}): {_names(scores, None)}")
    if people.ambiguous:
        shared = people.ambiguous
        lines.append(f"ids that several roster rows share, left blank ({len(shared)}): {_names(shared, None)}")
    if blank_id:
        lines.append(f"roster rows without an id to match, left out ({len(blank_id)}): {_names(blank_id, None)}")
    for assignment in assignments:
        if no_submission[assignment.name]:
            names = list(no_submission[assignment.name])
            lines.append(f"{assignment.name}: no submission, left blank ({len(names)}): {_names(names)}")
        blank = [f"{s} ({why})" for s, value, why in assignment.scores.values() if value is None]
        if blank:
            lines.append(f"{assignment.name}: no score yet, left blank ({len(blank)}): {_names(sorted(blank), None)}")
    return lines


# -- the command -------------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    """``python -m booktools lms``: one course-wide CSV for Canvas or Moodle from the grader's gradebooks."""
    parser = argparse.ArgumentParser(
        description="Join the grader's per-assignment gradebooks into one CSV for Canvas's or Moodle's grade import: "
        "one row per student, one column per assignment (its total).",
    )
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--canvas", type=Path, metavar="OUT.csv", help="write a file for Canvas's gradebook import")
    target.add_argument("--moodle", type=Path, metavar="OUT.csv", help="write a file for Moodle's grade import")
    parser.add_argument(
        "gradebooks", nargs="+", metavar="GRADEBOOK", help="a gradebook the grader wrote, as PATH or NAME=PATH"
    )
    parser.add_argument(
        "--roster",
        type=Path,
        metavar="ROSTER.csv",
        help="the LMS's export (Canvas: its gradebook export; Moodle: its grade export or participants list)",
    )
    parser.add_argument(
        "--match",
        metavar="COLUMN",
        help="the column holding the grader's ids: Canvas 'SIS User ID', 'SIS Login ID' or 'ID'; Moodle 'ID number', "
        "'Username' or 'Email address' (default: with --roster, the one that finds the most students; "
        "without, the first)",
    )
    args = parser.parse_args(argv)
    lms, out = (CANVAS, args.canvas) if args.canvas else (MOODLE, args.moodle)
    if out.suffix.lower() != ".csv":
        parser.error(f"--{lms.name}: expected a .csv file name, got {out}")
    if args.roster is not None and args.roster.resolve() == out.resolve():
        parser.error(f"--{lms.name} {out} would overwrite the roster")
    try:
        assignments = read_gradebooks(args.gradebooks)
        header, rows, lines = build_rows(assignments, lms, args.roster, args.match)
    except (ValueError, OSError) as exc:
        parser.error(str(exc))
    out.parent.mkdir(parents=True, exist_ok=True)
    write_csv(out, header, rows)
    students = len(rows) - (lms is CANVAS)
    print(f"wrote {out}: {students} students, {len(assignments)} assignments, for {lms.name.capitalize()}")
    for line in lines:
        print(line, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
