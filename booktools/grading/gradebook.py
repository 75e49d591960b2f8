"""Per student: the gradebook (one row per student) and the written answers' review and marks.

Issue 35: students are compared by ``collect.student_key`` (NFKC, case folded), so ``ALICE`` and
``alice`` are one student, flagged as a duplicate; every CSV goes through ``csvfile.write_csv``;
the review folder names no student, file or folder (the answers, keyed by submission, are stored
beside OUT as ``<out>_answers.json``, private like the key); a rubric with marks is never lost.
"""

from __future__ import annotations

import json
from pathlib import Path

from booktools.grading.answers import NOT_ATTEMPTED, extract_answers
from booktools.grading.codes import assign_codes
from booktools.grading.collect import student_key, student_of
from booktools.grading.csvfile import write_csv, write_text
from booktools.grading.feedback import merged_feedback
from booktools.grading.questions import questions_from_hidden
from booktools.grading.review import write_review
from booktools.grading.rubric import merge_rubric, merge_summary, rubric_marks
from booktools.grading.scores import Rows
from booktools.grading.text import fmt_score, printable

# -- per student: the gradebook, the written answers -----------------------------------------------------

GRADEBOOK_FIXED = ["student", "automatic"]


def _students(rows: list[dict]) -> dict[str, list[dict]]:
    """{student: their rows}, for every row that stands for a hand-in (skipped entries are no one's).

    Part of issue 35: rows whose ids have the same ``student_key`` (``ALICE``, ``alice``,
    ``ａｌｉｃｅ``) are one student, shown under the id of the first of them by submission name.
    """
    found: dict[str, list[dict]] = {}
    shown: dict[str, str] = {}
    for row in sorted(rows, key=lambda r: r["submission"]):
        if row["status"] != "skipped":
            student = student_of(row)
            found.setdefault(shown.setdefault(student_key(student), student), []).append(row)
    return found


NOT_READ = ("skipped", "rejected", "unreadable")  # statuses of entries whose file was never read for an id
SHOWN_UNDECLARED = 10


def undeclared_line(rows: list[dict]) -> str | None:
    """The console line naming the submissions that declare no student id (issue 37), or None if all do.

    A submission declares one in its metadata or front matter (``student``) or in the hand-out's
    first cell (``STUDENT_ID = "..."``); one that does not is filed under its folder or file name,
    which the LMS export may not find in the roster. Entries never read (skipped, rejected,
    unreadable) are not named. At most :data:`SHOWN_UNDECLARED` are listed, then a count.
    """
    missing = [r for r in sorted(rows, key=lambda r: r["submission"]) if r["status"] not in NOT_READ]
    missing = [r for r in missing if not r.get("student")]
    if not missing:
        return None
    shown = [f"{printable(r['submission'])} (filed as {student_of(r)})" for r in missing[:SHOWN_UNDECLARED]]
    more = f", and {len(missing) - SHOWN_UNDECLARED} more" if len(missing) > SHOWN_UNDECLARED else ""
    return (
        f"submissions that declare no student id ({len(missing)}): filed under their folder or file name; "
        f'ask for STUDENT_ID = "..." in the first cell (the hand-out has it): {", ".join(shown)}{more}'
    )


def answers_by_student(students: dict[str, list[dict]]) -> dict[str, dict[str, str]]:
    """Each student's written answers, from their one submission (none while they have two)."""
    return {s: dict(rows[0].get("answers") or {}) for s, rows in students.items() if len(rows) == 1}


def write_gradebook(path: Path, students: dict[str, list[dict]], max_score: float, questions, marks) -> list[str]:
    """One row per student, one column per question: the CSV an LMS gradebook imports.

    Columns: ``student``, ``automatic`` (the hidden tests' points), one column per written
    question (``QUESTION [max]``: the merged manual points, empty until marked), ``total`` and
    ``status`` (``ok``; ``duplicate: FILES``, a student with two submissions, whose score is left
    empty until one is removed; ``to mark``, some question not marked yet; ``changed``, an answer
    changed after it was marked; ``not attempted``, issue 37: the hand-out as given). Returns the
    students flagged as duplicates. Written by
    ``csvfile.write_csv`` (issue 35): every cell quoted, a formula start neutralised.
    """
    columns = [f"{q.id} [{fmt_score(float(q.points))}]" for q in questions]
    total_max = max_score + sum(float(q.points) for q in questions)
    table, duplicates = [], []
    for student in sorted(students):
        rows = students[student]
        if len(rows) > 1:
            duplicates.append(student)
            files = ", ".join(sorted(printable(r["submission"]) for r in rows))
            table.append([student, "", *[""] * len(columns), "", fmt_score(total_max), f"duplicate: {files}"])
            continue
        row = rows[0]
        cells, total, status = [], float(row["score"]), "ok"
        for q in questions:
            mark = (marks.get(student) or {}).get(q.id)
            if mark is None or mark.status in ("unmarked", "changed"):
                cells.append("")
                status = "changed" if mark is not None and mark.status == "changed" else "to mark"
            else:
                cells.append(fmt_score(float(mark.points)))
                total += float(mark.points)
        if row["status"] == NOT_ATTEMPTED or (row["status"] != "graded" and status == "ok"):
            status = row["status"]  # issue 37: an untouched hand-out has nothing to mark
        table.append([student, fmt_score(row["score"]), *cells, fmt_score(total), fmt_score(total_max), status])
    write_csv(path, [*GRADEBOOK_FIXED, *columns, "total", "max", "status"], table)
    return duplicates


def answers_path(out: Path) -> Path:
    """Where a run keeps the written answers it read, by submission: ``<out>_answers.json`` (issue 35).

    Beside OUT and the key, never in the review folder, which may go to a co-marker: its keys are
    the submissions' file and folder names.
    """
    return out.with_name(out.stem + "_answers.json")


def _restore_answers(rows: list[dict], stored_file: Path, legacy: Path, blank: dict[str, str]) -> None:
    """Give each row its written answers and store them all in ``stored_file`` (private).

    A rerun (``--regrade-errors``) keeps the answers of the rows it keeps, from ``stored_file`` or,
    written by a grader before issue 35, the review folder's ``answers.json`` (``legacy``), which
    is then deleted: it names the submissions. The assignment's own placeholder (``blank``, "Write
    your proof here") is no answer.
    """
    source = stored_file if stored_file.is_file() else legacy
    stored = json.loads(source.read_text(encoding="utf-8")) if source.is_file() else {}
    for row in rows:
        if "answers" not in row and isinstance(stored.get(row["submission"]), dict):
            row["answers"] = stored[row["submission"]]
        if isinstance(row.get("answers"), dict):
            row["answers"] = {
                q: text
                for q, text in row["answers"].items()
                if " ".join(text.split()) != " ".join(blank.get(q, "").split())
            }
    stored = {row["submission"]: row["answers"] for row in rows if "answers" in row}
    write_text(stored_file, json.dumps(stored, indent=1, sort_keys=True), private=True)
    legacy.unlink(missing_ok=True)


def _written_answers(args, questions, rows: "Rows", students: dict[str, list[dict]], title: str):
    """The review folder, the rubric and the merged marks; returns (lines for the lecturer, marks).

    Part of issues 27 and 35. The marks are read (``--merge-manual``, which may be the review
    folder's own filled ``rubric.csv``) before the review folder is written again, and the marks
    of the folder's ``rubric.csv`` are written back into its new template, so none are lost.
    """
    review_dir = args.review_dir or args.out.with_name(args.out.stem + "_review")
    review_dir.mkdir(parents=True, exist_ok=True)
    template = args.assignments_dir / f"{args.assignment}.md"
    blank = extract_answers(template, questions)[0] if template.is_file() else {}
    _restore_answers(rows.rows, answers_path(args.out), review_dir / "answers.json", blank)
    answers = answers_by_student(students)
    # beside the CSV, not in the review folder: that folder can go to a marker without the names
    codes = assign_codes(sorted(answers), args.out.with_name(args.out.stem + "_review_key.csv"))
    rubric = review_dir / "rubric.csv"
    marks, lines = {}, []
    if args.merge_manual:
        try:
            marks, lines = merge_rubric(args.merge_manual, questions, answers, codes)
        except (ValueError, TypeError, OSError) as exc:
            raise SystemExit(f"--merge-manual {args.merge_manual}: {exc}") from None
    filled = rubric_marks(rubric)  # write_review writes the folder's rubric again, its marks kept
    problems = {s: list(r[0].get("answer_problems") or []) for s, r in students.items() if len(r) == 1}
    write_review(review_dir, questions, answers, codes, show_names=args.review_names, title=title, problems=problems)
    if args.merge_manual:  # issue 37: say what was merged, not to merge
        lines.insert(0, merge_summary(marks, args.merge_manual, rows.feedback_dir))
        lines.insert(
            1, f"written answers: review pages in {review_dir}/ (index.html); to change a mark, edit it and merge again"
        )
    else:
        lines.insert(
            0,
            f"written answers: one review page per question in {review_dir}/ (index.html); mark them in "
            f"{rubric} (or a copy) and grade again with --merge-manual {rubric if filled else 'YOUR_COPY'}",
        )
    for student, student_marks in marks.items():
        row = students[student][0]
        path = rows.feedback_dir / rows.names[row["submission"]]
        text = merged_feedback(row, rows.max_score, rows.title, student_marks, questions, detail=rows.detail)
        path.write_text(text, encoding="utf-8")
    return lines, marks


def per_student_outputs(args, hidden, rows: "Rows", max_score: float, title: str) -> list[str]:
    """The gradebook and, for an assignment with written questions, the review pages, the rubric and
    the merged marks (``--merge-manual``); returns what the lecturer must look at, as lines."""
    questions = questions_from_hidden(getattr(hidden, "QUESTIONS", []))
    students = _students(rows.rows)
    lines, marks = [], {}
    if questions:
        lines, marks = _written_answers(args, questions, rows, students, title)
    elif args.merge_manual:
        raise SystemExit(f"--merge-manual: assignment {args.assignment!r} has no written questions (QUESTIONS)")
    gradebook = args.gradebook or args.out.with_name(args.out.stem + "_gradebook.csv")
    duplicates = write_gradebook(gradebook, students, max_score, questions, marks)
    lines.append(f"gradebook (one row per student): {gradebook}")
    undeclared = undeclared_line(rows.rows)
    if undeclared:
        lines.append(undeclared)
    if duplicates:
        lines.append(
            f"students with more than one submission ({len(duplicates)}), left without a score in the gradebook "
            f"until one file is removed: {', '.join(printable(d) for d in duplicates)}"
        )
    return lines
