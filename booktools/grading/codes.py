"""Anonymous codes for the students, kept in a private key file beside OUT (issues 27 and 35)."""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping
from pathlib import Path

from booktools.grading.collect import student_key
from booktools.grading.csvfile import read_csv, write_csv
from booktools.grading.questions import ID
from booktools.grading.text import printable, show

# -- anonymous codes ---------------------------------------------------------------------------

_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no I, L, O, 0, 1: read aloud or copied without doubt


def assign_codes(students: Iterable[str], key_path: Path) -> dict[str, str]:
    """Anonymous codes for the students, the same from run to run.

    Part of issue 27 (written answers, graded by question): the review pages show answers under
    these codes, so the lecturer marks without seeing names. Issue 35: a student is found in the
    key by the same spelling or, failing that, by :func:`~booktools.grading.collect.student_key`
    (``ALICE`` keeps the code ``alice`` was given), and the key is written by the grader's one CSV
    writer (every cell quoted, no formula start).

    Parameters
    ----------
    students : iterable of str
        The students of this run.
    key_path : Path
        The key, a CSV ``code,student`` (read if it exists). Students already in it keep their
        code; each new student gets a new random code, ``A`` and 5 characters of an unambiguous
        alphabet (from :mod:`secrets`: nothing of the name or the order). The file is then written
        back, rows sorted by code, atomically (a temporary file renamed), readable by its owner only.

    Returns
    -------
    dict
        ``{student: code}`` for every student of this run and every other student of the key
        file: each code once (a student of this run under this run's spelling).

    Raises
    ------
    ValueError
        The key file is not such a CSV (naming the row): a bad header or code, or a code or a
        student that appears twice.
    """
    key_path = Path(key_path)
    rows = _read_key(key_path) if key_path.exists() else []
    codes = {student: code for code, student in rows}
    by_identity: dict[str, str] = {}
    for code, student in rows:
        by_identity.setdefault(student_key(printable(student)), code)
    used, changed = set(codes.values()), not key_path.exists()
    taken: dict[str, str] = {}
    run: set[str] = set()
    for student in students:
        if not isinstance(student, str):
            raise TypeError(f"students must be str, got {type(student).__name__} {show(student)}")
        identity = student_key(printable(student))
        code = codes.get(student) or by_identity.get(identity)
        if code is None:
            code = _new_code(used)
            used.add(code)
            by_identity[identity] = code
            rows.append((code, student))
            changed = True
        codes[student] = code
        taken[code] = student
        run.add(student)
    # a key row whose student came under another spelling (``ALICE`` for ``alice``, a name the key
    # holds escaped) is that student of this run: each code once, under this run's spelling
    codes = {student: code for student, code in codes.items() if student in run or code not in taken}
    if changed:
        write_csv(key_path, ["code", "student"], sorted([code, student] for code, student in rows), private=True)
    return codes


def _new_code(used: set[str]) -> str:
    while True:
        code = "A" + "".join(secrets.choice(_CODE_ALPHABET) for _ in range(5))
        if code not in used:
            return code


def _read_key(path: Path) -> list[tuple[str, str]]:
    """The key's (code, student) rows in file order; a ValueError naming the row if it is malformed."""
    header, rows = read_csv(path, strip=False)  # a name is kept exactly, spaces included
    if header != ["code", "student"]:
        raise ValueError(f"{path}, row 1: expected the header ['code', 'student'], got {header}")
    key, row_of_code, row_of_student = [], {}, {}
    for number, cells in rows:
        if len(cells) != 2:
            raise ValueError(f"{path}, row {number}: expected 2 cells (code, student), got {len(cells)}: {show(cells)}")
        code, student = cells
        if not ID.fullmatch(code):
            raise ValueError(f"{path}, row {number}, column 'code': expected [A-Za-z0-9_-]{{1,40}}, got {code!r}")
        if code in row_of_code:
            raise ValueError(f"{path}, row {number}: the code {code!r} is already given in row {row_of_code[code]}")
        if student in row_of_student:
            raise ValueError(
                f"{path}, row {number}: the student {student!r} already has a code in row {row_of_student[student]}"
            )
        row_of_code[code], row_of_student[student] = number, number
        key.append((code, student))
    return key


def check_codes(answers: Mapping, codes: Mapping) -> None:
    seen = {}
    for student in answers:
        code = codes.get(student)
        if not isinstance(code, str) or not ID.fullmatch(code):
            raise ValueError(
                f"codes: student {student!r} needs a code matching [A-Za-z0-9_-]{{1,40}}, got {show(code)}"
            )
        if code in seen:
            raise ValueError(f"codes: {code!r} is the code of both {seen[code]!r} and {student!r}")
        seen[code] = student


def answer_of(answers: Mapping, student: str, question: str) -> str:
    """The student's answer to the question, or "" (answers come from a file the grader stored)."""
    mine = answers.get(student)
    text = mine.get(question) if isinstance(mine, Mapping) else None
    return text if isinstance(text, str) and text.strip() else ""
