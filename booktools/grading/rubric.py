"""The rubric: a blank template, and the lecturer's marks merged (issue 27; digests and kept marks, issue 35)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from booktools.grading.answers import answer_digest
from booktools.grading.codes import answer_of, check_codes
from booktools.grading.csvfile import read_csv, write_csv
from booktools.grading.questions import Question, check_questions, fmt_points, parse_number

# -- the rubric: a blank template, and the lecturer's marks merged ------------------------------

_RUBRIC_COLUMNS = ["code", "question", "item", "description", "max_points", "points", "comment", "answer_sha"]
_NO_ANSWER = "no answer cell for this question"
DIGEST_PREFIX = "h"  # answer_sha = "h" + 16 hex digits: no spreadsheet reads it as a number (issue 35)


def rubric_digest(text: str) -> str:
    """The ``answer_sha`` a rubric row holds for an answer: ``h`` and 16 hex digits (issue 35).

    The letter first keeps every spreadsheet from reading it as a number: a bare digest of digits
    only (about 1 answer in 1,850), or of digits and one ``e`` (about 1 in 1,300, read as
    ``1E+15``-style scientific notation), would come back as ``9.35758E+15`` and never match again.
    """
    digest = answer_digest(text)
    return digest if digest.startswith(DIGEST_PREFIX) else DIGEST_PREFIX + digest


def same_answer(answer_sha: str, text: str) -> bool:
    """True if a rubric row's ``answer_sha`` is the digest of ``text``: ``h`` + hex, or the bare hex
    digest of rubrics written before issue 35 (any case, spaces around ignored)."""
    cell = answer_sha.strip().lower()
    return cell.removeprefix(DIGEST_PREFIX) == rubric_digest(text).removeprefix(DIGEST_PREFIX)


def write_rubric_template(
    path: Path,
    questions: Sequence[Question],
    answers: Mapping[str, Mapping[str, str]],
    codes: Mapping[str, str],
    *,
    keep: Mapping[tuple[str, str, str], tuple[str, str, str]] | None = None,
) -> None:
    """Write the blank rubric: the CSV the lecturer fills in with points.

    Part of issue 27 (written answers, graded by question), and of issue 35 (``keep``, the digest's
    letter, the one CSV writer).

    Parameters
    ----------
    path : Path
        The CSV (UTF-8), columns ``code, question, item, description, max_points, points, comment,
        answer_sha``: one row per (student with a submission, question, rubric item), sorted by
        question (in the order of ``questions``), then code, then item. ``points`` and ``comment``
        are blank; ``answer_sha`` is :func:`rubric_digest` of the answer, or blank with the comment
        ``no answer`` when the student has none. Written by ``csvfile.write_csv``: every cell
        quoted, a formula start neutralised with ``'``.
    questions, answers, codes
        As for :func:`write_review`.
    keep : mapping, optional
        Marks to keep, as :func:`rubric_marks` reads them from a filled rubric: a row whose (code,
        question, item) has marks there for the same answer (the same ``answer_sha``) gets their
        ``points`` and ``comment``, so a rubric with marks written again loses none of them.
    """
    questions = check_questions(questions)
    check_codes(answers, codes)
    keep = keep or {}
    students = sorted(answers, key=lambda student: codes[student])
    rows = []
    for question in questions:
        for student in students:
            text = answer_of(answers, student, question.id)
            digest = rubric_digest(text) if text else ""
            for item in question.items:
                points, comment = "", "" if text else "no answer"
                kept = keep.get((codes[student], question.id, item.id))
                if text and kept is not None and same_answer(kept[2], text):
                    points, comment = kept[0], kept[1]
                rows.append(
                    [codes[student], question.id, item.id, item.text, fmt_points(item.points), points, comment, digest]
                )
    write_csv(Path(path), _RUBRIC_COLUMNS, rows)


def rubric_marks(path: Path) -> dict[tuple[str, str, str], tuple[str, str, str]]:
    """The marks a filled rubric holds: ``{(code, question, item): (points, comment, answer_sha)}``.

    Part of issue 35: what :func:`write_rubric_template` keeps when it writes a rubric that has
    marks again. Only rows with points, or a comment other than ``no answer``, count; a file that
    cannot be read, or lacks a column, holds none (the review keeps such a file aside).
    """
    try:
        header, rows = read_csv(Path(path))
    except (OSError, ValueError):
        return {}
    names = ("code", "question", "item", "points", "comment", "answer_sha")
    if any(name not in header for name in names):
        return {}
    column = [header.index(name) for name in names]
    marks = {}
    for _number, cells in rows:
        code, question, item, points, comment, sha = (cells[i] if i < len(cells) else "" for i in column)
        if points or comment not in ("", "no answer"):
            marks.setdefault((code, question, item), (points, comment, sha))
    return marks


@dataclass(frozen=True)
class ManualMark:
    """A student's mark for one written question, from the lecturer's rubric.

    ``status`` is ``"marked"`` (every item has points), ``"unmarked"`` (some item has none yet:
    ``points`` is the sum of those given so far), ``"no answer"`` (0 points) or ``"changed"`` (the
    answer is not the one that was marked: the marks are not applied, 0 points until it is marked
    again). ``items`` holds (description, points given or None, max points) in rubric order, and
    ``comments`` the lecturer's comments in that order; ``item_comments`` (issue 37) holds each
    item's comment ("" for none), in the order of ``items``, so the feedback shows it under its item.
    """

    question: str
    points: Fraction
    max_points: Fraction
    items: tuple[tuple[str, Fraction | None, Fraction], ...]
    comments: tuple[str, ...]
    status: str
    item_comments: tuple[str, ...] = ()


def merge_rubric(
    rubric_path: Path,
    questions: Sequence[Question],
    answers: Mapping[str, Mapping[str, str]],
    codes: Mapping[str, str],
) -> tuple[dict[str, dict[str, ManualMark]], list[str]]:
    """Read the lecturer's filled rubric into marks, answer by answer.

    Part of issue 27 (written answers, graded by question).

    Parameters
    ----------
    rubric_path : Path
        A filled copy of :func:`write_rubric_template`'s CSV (or the review folder's own
        ``rubric.csv``, filled: it is read before the run writes it again): the ``points`` column holds ints,
        decimals (``1.5``, or ``1,5``) or fractions (``1/2``); a blank cell is not marked yet. The
        columns ``code, question, item, max_points, points, comment, answer_sha`` are needed (in any
        order; ``description`` is not read); ``,`` ``;`` or tab separated, UTF-8.
    questions, answers
        As for :func:`write_review`.
    codes : mapping
        ``{student: code}`` for every student of the key, as :func:`assign_codes` returns: a code
        in the rubric that is not among them is an error.

    Returns
    -------
    marks : dict
        ``{student: {question id: ManualMark}}`` for every student of ``answers`` and every question.
        A question the student has no answer for is ``"no answer"``, 0 points, whatever the rubric
        says. An answer whose digest differs from its rows' ``answer_sha`` (``h`` + hex, or the bare
        hex of older rubrics: :func:`same_answer`) and that has points is ``"changed"``: its marks
        are not applied.
    notes : list of str
        What the lecturer should know: rubric rows of codes without a submission in this run
        (ignored), submissions that have no rows in the rubric (not marked yet).

    Raises
    ------
    ValueError
        Naming the file, the row and the column, what was expected and what was found: a missing
        column, an unknown code, question or item, points that are not a number or not within
        [0, max_points], a (code, question, item) given twice, or a ``max_points`` that is not the
        hidden file's (the rubric changed since the template was made).
    """
    rubric_path = Path(rubric_path)
    questions = check_questions(questions)
    check_codes(answers, codes)
    by_id = {question.id: question for question in questions}
    student_of = {code: student for student, code in codes.items()}
    header, rows = read_csv(rubric_path)
    needed = [name for name in _RUBRIC_COLUMNS if name != "description"]
    missing = [name for name in needed if name not in header]
    if missing:
        raise ValueError(
            f"{rubric_path}, row 1: missing column(s) {missing}; expected the template's columns "
            f"{_RUBRIC_COLUMNS}, got {header}"
        )
    column = {name: header.index(name) for name in needed}

    given: dict[tuple[str, str, str], tuple[int, Fraction | None, str, str]] = {}
    orphans: Counter[str] = Counter()
    for number, cells in rows:
        value = {name: cells[i] if i < len(cells) else "" for name, i in column.items()}
        code, qid, item_id = value["code"], value["question"], value["item"]
        points = _checked_row(rubric_path, number, value, student_of, by_id)
        key = (code, qid, item_id)
        if key in given:
            raise ValueError(
                f"{rubric_path}, row {number}: code {code!r}, question {qid!r}, item {item_id!r} is already "
                f"marked in row {given[key][0]}; expected each (code, question, item) once"
            )
        given[key] = (number, points, value["comment"], value["answer_sha"])
        if student_of[code] not in answers:
            orphans[code] += 1

    marks = {
        student: {q.id: _mark(q, answer_of(answers, student, q.id), codes[student], given) for q in questions}
        for student in answers
    }
    return marks, _merge_notes(orphans, given, questions, answers, codes)


def _merge_notes(orphans: Counter, given: Mapping, questions, answers: Mapping, codes: Mapping) -> list[str]:
    """What the lecturer should know after a merge: rubric rows of codes without a submission in this
    run (ignored), and submissions with answers but no rows (not marked yet)."""
    notes = [
        f"rubric rows for code {code} ({n} rows) have no submission in this run (ignored)"
        for code, n in sorted(orphans.items())
    ]
    marked_codes = {key[0] for key in given}
    notes += [
        f"code {codes[student]} has no rows in the rubric (a submission newer than the template?): not marked yet"
        for student in sorted(answers, key=lambda s: codes[s])
        if codes[student] not in marked_codes and any(answer_of(answers, student, q.id) for q in questions)
    ]
    return notes


def _checked_row(path: Path, number: int, value: Mapping[str, str], student_of: Mapping, by_id: Mapping):
    """The points of one rubric row (None: not marked yet), after checking its code, question, item,
    max_points and points; a ValueError names the file, the row, the column, what was expected and
    what was given."""
    fail = _row_error(path, number, value)
    code, qid, item_id = value["code"], value["question"], value["item"]
    if code not in student_of:
        raise fail("code", "a code of the key (a student's anonymous code)")
    question = by_id.get(qid)
    if question is None:
        raise fail("question", f"one of the questions {list(by_id)}")
    item = next((item for item in question.items if item.id == item_id), None)
    if item is None:
        raise fail("item", f"one of the items of question {qid!r}, {[item.id for item in question.items]}")
    if parse_number(value["max_points"]) != item.points:
        raise fail(
            "max_points",
            f"{fmt_points(item.points)}, the hidden file's points for {qid}/{item_id} (the rubric changed since "
            "this file was made: make the template again, or correct the hidden file)",
        )
    if not value["points"]:
        return None
    points = parse_number(value["points"])
    if points is None:
        raise fail("points", "a number such as 2, 1.5 or 1/2, or a blank cell (not marked)")
    if item.has_descriptors and points not in item.levels:
        levels = ", ".join(fmt_points(level) for level in item.levels)
        raise fail("points", f"one of the rubric's levels for {qid}/{item_id}: {levels} (none, half, full)")
    if not 0 <= points <= item.points:
        raise fail("points", f"a number within [0, {fmt_points(item.points)}]")
    return points


def _row_error(path: Path, number: int, value: Mapping[str, str]):
    """A function making the ValueError for one cell of the row: file, row, column, expected, given."""

    def fail(name: str, expected: str) -> ValueError:
        return ValueError(f"{path}, row {number}, column {name!r}: expected {expected}, got {value[name]!r}")

    return fail


def _mark(question: Question, text: str, code: str, given: Mapping) -> ManualMark:
    if not text:
        items = tuple((item.text, Fraction(0), item.points) for item in question.items)
        return ManualMark(question.id, Fraction(0), question.points, items, (_NO_ANSWER,), "no answer")
    rows = [given.get((code, question.id, item.id)) for item in question.items]
    points = [row[1] if row else None for row in rows]
    changed = any(row and not same_answer(row[3], text) for row in rows)
    if changed and any(p is not None for p in points):
        items = tuple((item.text, None, item.points) for item in question.items)
        return ManualMark(question.id, Fraction(0), question.points, items, (), "changed")
    if changed:  # rows made for another answer, but nothing marked: the answer is simply not marked yet
        points = [None] * len(points)
        rows = [None] * len(rows)
    items = tuple((item.text, p, item.points) for item, p in zip(question.items, points, strict=True))
    each = tuple(row[2] if row and row[2] and row[2] != "no answer" else "" for row in rows)
    status = "unmarked" if None in points else "marked"
    total = sum((p for p in points if p is not None), Fraction(0))
    return ManualMark(question.id, total, question.points, items, tuple(c for c in each if c), status, each)


NOT_ANSWERED = "not answered"  # issue 37: an answer cell left as handed out (or empty)


def feedback_text(marks: Mapping[str, ManualMark], questions: Sequence[Question], unanswered=()) -> str:
    """A student's marks for the written questions, as Markdown for the feedback file.

    Part of issue 27 (written answers, graded by question), and of issue 37 (each comment under its
    item; "not answered"). Per question: ``**Written answer <title>:** 3/4``, then ``- <item>: 1/1``
    per rubric item, the lecturer's comment on that item indented under it; or that it is not marked
    yet, that it was not answered (its answer cell is there but as handed out, or empty: the
    questions ``unanswered``, 0), that there was no answer cell (0), or that the answer changed
    after it was marked (to be marked again).
    """
    lines: list[str] = []
    for question in check_questions(questions):
        mark = marks.get(question.id)
        if mark is None:
            continue
        head = f"**Written answer {question.title}:**"
        total = fmt_points(question.points)
        if mark.status == "no answer":
            lines += [f"{head} {NOT_ANSWERED if question.id in unanswered else _NO_ANSWER}: 0/{total}", ""]
            continue
        if mark.status == "changed":
            lines += [f"{head} your answer changed after it was marked: to be marked again (0/{total} for now)", ""]
            continue
        lines += [
            f"{head} " + ("not marked yet" if mark.status == "unmarked" else f"{fmt_points(mark.points)}/{total}")
        ]
        lines.append("")
        each = mark.item_comments or ("",) * len(mark.items)
        for (text, points, maximum), comment in zip(mark.items, each, strict=False):
            shown = "not marked yet" if points is None else f"{fmt_points(points)}/{fmt_points(maximum)}"
            lines.append(f"- {text}: {shown}")
            lines += [f"  > {line}" for line in comment.splitlines() if line.strip()]
        if mark.comments and not mark.item_comments:  # a mark made without per-item comments
            lines += ["", "Comments:", ""] + [f"- {comment}" for comment in mark.comments]
        lines.append("")
    return "\n".join(lines)


def written_total(marks: Mapping[str, ManualMark], questions: Sequence[Question]) -> tuple[Fraction, Fraction, bool]:
    """The written questions' points so far, their maximum, and whether every one is marked (issue 37).

    A question not answered counts 0 and is marked; one not marked yet (its points so far count), or
    changed since it was marked (0), is not (as the gradebook's ``to mark`` and ``changed``).
    """
    got, most, complete = Fraction(0), Fraction(0), True
    for question in check_questions(questions):
        most += question.points
        mark = marks.get(question.id)
        complete = complete and mark is not None and mark.status not in ("unmarked", "changed")
        if mark is not None and mark.status != "changed":  # a changed answer's marks are not applied
            got += mark.points
    return got, most, complete


def merge_summary(marks: Mapping[str, Mapping[str, ManualMark]], rubric: Path, feedback_dir: Path) -> str:
    """What ``--merge-manual`` did, for the console (issue 37): how many students' marks went where."""
    answers = [mark for student in marks.values() for mark in student.values() if mark.status != "no answer"]
    marked = sum(mark.status == "marked" for mark in answers)
    waiting = sum(mark.status in ("unmarked", "changed") for mark in answers)
    text = (
        f"merged the written marks of {len(marks)} student(s) from {rubric}: {marked} answer(s) marked"
        f"{f', {waiting} not marked yet (or changed since)' if waiting else ''}; the totals are in the gradebook "
        f"and in the header of {len(marks)} feedback file(s) in {feedback_dir}, each comment under its rubric item"
    )
    return text
