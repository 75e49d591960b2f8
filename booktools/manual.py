"""Written answers graded by hand, one question across all students at a time (issue 27: "written
answers, graded by question").

An assignment's notebook holds Markdown cells whose metadata says ``"tags": ["answer"]`` and
``"question": "<question id>"``; the lecturer's hidden-tests file declares the questions and their
rubric (``QUESTIONS``, read by :func:`questions_from_hidden`). The grader then

1. takes each submission's answers out of its notebook (:func:`extract_answers`, ``.ipynb`` or
   MyST ``.md``; everything in a submission is untrusted and nothing in it makes this raise);
2. gives each student an anonymous code that stays the same from run to run (:func:`assign_codes`);
3. writes one HTML page per question with every student's answer under its code, the maths typeset
   offline by MathJax, and a blank rubric CSV (:func:`write_review`, :func:`write_rubric_template`);
4. reads the rubric the lecturer filled in (:func:`merge_rubric`) into :class:`ManualMark` values,
   and writes each student's part of the feedback (:func:`feedback_text`).

Points are exact (:class:`fractions.Fraction`). A mark is tied to the answer it was given for by a
digest of the answer (:func:`answer_digest`, the rubric's ``answer_sha``): an answer that changed
since is not credited with the old marks.

The review pages are built so that nothing a student wrote can run or load anything: Markdown is
rendered with raw HTML disabled and links validated (markdown-it-py), images are not rendered, TeX is
typeset only inside the ``class="math"`` elements this module writes, MathJax runs with its
``ui/safe`` filter and without the ``html`` TeX extension (no ``\\href``, ``\\class``, ``\\style``,
``\\cssId``, ``\\data``) nor ``\\require`` of anything outside a fixed list, and each page has a
Content-Security-Policy with no inline scripts and no network (:data:`CSP`).

Functions only: the grader (``booktools/grade.py``, ``booktools/judge.py``) does the wiring.
"""

from __future__ import annotations

import csv
import hashlib
import html
import importlib.metadata
import importlib.util
import io
import json
import math
import os
import re
import secrets
import site
import sysconfig
import tempfile
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from fractions import Fraction
from pathlib import Path

__all__ = [
    "CSP",
    "ManualMark",
    "Question",
    "RubricItem",
    "answer_digest",
    "assign_codes",
    "extract_answers",
    "feedback_text",
    "merge_rubric",
    "questions_from_hidden",
    "write_review",
    "write_rubric_template",
]

# -- questions and their rubric ----------------------------------------------------------------

_ID = re.compile(r"[A-Za-z0-9_-]{1,40}")
_QUESTION_KEYS = ("id", "title", "items")


@dataclass(frozen=True)
class RubricItem:
    """One line of a question's rubric: ``points`` (exact, >= 0) for what ``text`` describes."""

    id: str
    text: str
    points: Fraction


@dataclass(frozen=True)
class Question:
    """A written question: its id (the answer cells' ``"question"``), its title and its rubric."""

    id: str
    title: str
    items: tuple[RubricItem, ...]

    @property
    def points(self) -> Fraction:
        """The question's maximum: the sum of its items' points."""
        return sum((item.points for item in self.items), Fraction(0))


def _fmt(value: Fraction) -> str:
    """A number as a spreadsheet reads it back exactly: ``3``, ``1.5``, or ``1/3`` (no finite decimal)."""
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    digits = 0
    while (value * 10**digits).denominator != 1:
        digits += 1
        if digits > 12:
            return f"{value.numerator}/{value.denominator}"
    scaled = str(abs(value.numerator * 10**digits // value.denominator)).rjust(digits + 1, "0")
    return f"{'-' if value < 0 else ''}{scaled[:-digits]}.{scaled[-digits:]}"


def _exact_points(value: object, where: str) -> Fraction:
    """The hidden file's points as an exact number >= 0; ``where`` names the value in errors."""
    expected = "an int, a Fraction, a string such as '1/2' or '1.5', or a short decimal float such as 0.5"
    if isinstance(value, bool):
        raise TypeError(f"{where}: points must be {expected}, got the bool {value!r}")
    if isinstance(value, int | Fraction):
        points = Fraction(value)
    elif isinstance(value, float):
        # Fraction(str(x)) is the decimal the lecturer wrote, but only while repr shows it whole:
        # 1/3 as a float (0.3333333333333333) is not a third.
        if not math.isfinite(value) or not re.fullmatch(r"-?\d+(\.\d{1,6})?", repr(value)):
            raise ValueError(f"{where}: points must be {expected} (write 1/3 as '1/3'), got {value!r}")
        points = Fraction(repr(value))
    elif isinstance(value, str):
        points = _parse_number(value)
        if points is None:
            raise ValueError(f"{where}: points must be {expected}, got {value!r}")
    else:
        raise TypeError(f"{where}: points must be {expected}, got {type(value).__name__} {_show(value)}")
    if points < 0:
        raise ValueError(f"{where}: points must be >= 0, got {value!r}")
    return points


def _parse_number(text: str) -> Fraction | None:
    """``3``, ``-1``, ``1.5``, ``1,5`` (a spreadsheet's decimal comma) or ``1/3``; None if it is none of them."""
    text = text.strip()
    if not re.fullmatch(r"-?\d{1,12}(?:[.,]\d{1,12})?|\d{1,12}/\d{1,12}", text):
        return None
    try:
        return Fraction(text.replace(",", "."))
    except ZeroDivisionError:
        return None


def _check_id(value: object, where: str, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{where}: the {what} must be a str matching [A-Za-z0-9_-]{{1,40}}, got {_show(value)}")
    if not _ID.fullmatch(value):
        raise ValueError(f"{where}: the {what} must match [A-Za-z0-9_-]{{1,40}}, got {value!r}")
    return value


def questions_from_hidden(questions: object) -> tuple[Question, ...]:
    """The written questions a hidden-tests file declares (its ``QUESTIONS``), checked.

    Part of issue 27 (written answers, graded by question).

    Parameters
    ----------
    questions : list of dict
        ``[{"id": "promotion", "title": "Prove the promotion lemma", "items": [(item id,
        description, points), ...]}, ...]``. Ids match ``[A-Za-z0-9_-]{1,40}``; question ids are
        unique (also ignoring case: each names a file ``<id>.html``) and not ``index``; item ids are
        unique within their question, and a question has at least one item. Points are exact and
        >= 0: an int, a Fraction, a string ``"1/2"`` or ``"1.5"``, or a float that is a short decimal
        (``0.5``, read as ``Fraction("0.5")``). An empty list (no written questions) is allowed.

    Returns
    -------
    tuple of Question

    Raises
    ------
    TypeError, ValueError
        Naming the entry (``QUESTIONS[1]['items'][0]``), what was expected and what was given.
    """
    if not isinstance(questions, list | tuple):
        raise TypeError(f"QUESTIONS must be a list of dicts, got {type(questions).__name__} {_show(questions)}")
    result, seen = [], {}
    for i, entry in enumerate(questions):
        where = f"QUESTIONS[{i}]"
        if not isinstance(entry, dict):
            raise TypeError(f"{where} must be a dict with keys {_QUESTION_KEYS}, got {type(entry).__name__}")
        missing = [key for key in _QUESTION_KEYS if key not in entry]
        unknown = [key for key in entry if key not in _QUESTION_KEYS]
        if missing or unknown:
            raise ValueError(
                f"{where} must have exactly the keys {_QUESTION_KEYS}; missing {missing}, unknown {unknown}"
            )
        qid = _check_id(entry["id"], f"{where}['id']", "question id")
        if qid.lower() == "index":
            raise ValueError(f"{where}['id']: 'index' is taken by the review's index.html, got {qid!r}")
        if qid.lower() in seen:
            raise ValueError(
                f"{where}['id']: {qid!r} is already the id of QUESTIONS[{seen[qid.lower()]}] (ids are compared ignoring case)"
            )
        seen[qid.lower()] = i
        title = entry["title"]
        if not isinstance(title, str) or not title.strip():
            raise (TypeError if not isinstance(title, str) else ValueError)(
                f"{where}['title'] must be a non-empty str, got {_show(title)}"
            )
        raw_items = entry["items"]
        if not isinstance(raw_items, list | tuple) or not raw_items:
            raise (TypeError if not isinstance(raw_items, list | tuple) else ValueError)(
                f"{where}['items'] must be a non-empty list of (item id, description, points), got {_show(raw_items)}"
            )
        items, item_ids = [], set()
        for j, raw in enumerate(raw_items):
            here = f"{where}['items'][{j}]"
            if not isinstance(raw, list | tuple) or len(raw) != 3:
                raise TypeError(f"{here} must be a tuple (item id, description, points), got {_show(raw)}")
            item_id = _check_id(raw[0], here, "item id")
            if item_id in item_ids:
                raise ValueError(f"{here}: the item id {item_id!r} appears twice in question {qid!r}")
            item_ids.add(item_id)
            if not isinstance(raw[1], str) or not raw[1].strip():
                raise (TypeError if not isinstance(raw[1], str) else ValueError)(
                    f"{here}: the description must be a non-empty str, got {_show(raw[1])}"
                )
            items.append(RubricItem(item_id, raw[1].strip(), _exact_points(raw[2], here)))
        result.append(Question(qid, title.strip(), tuple(items)))
    return tuple(result)


def _check_questions(questions: object) -> tuple[Question, ...]:
    """Questions as :func:`questions_from_hidden` makes them (their ids name files and go into pages)."""
    if not isinstance(questions, Sequence) or not all(isinstance(q, Question) for q in questions):
        raise TypeError(
            f"questions must be a sequence of Question (from questions_from_hidden), got {_show(questions)}"
        )
    for q in questions:
        if not _ID.fullmatch(q.id) or not all(_ID.fullmatch(item.id) for item in q.items):
            raise ValueError(f"questions: ids must match [A-Za-z0-9_-]{{1,40}}, got question {q.id!r}")
    return tuple(questions)


# -- taking the answers out of a submission ----------------------------------------------------

_MAX_PROBLEMS = 20  # a notebook of 5000 odd cells gets a short list, not 5000 lines of feedback
# Removed from answers: control characters but \n and \t, lone surrogates (from JSON "\ud800"
# escapes; they cannot be written as UTF-8), and the bidirectional overrides that make text read
# differently from what it is ("Trojan source").
_UNWANTED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")


class _Unreadable(Exception):
    """The submission cannot be read at all: its message is the one problem reported."""


@dataclass
class _Cell:
    kind: object  # "markdown", "code", "raw", or whatever an .ipynb says
    metadata: object
    source: str | None  # None: not text
    where: str  # "cell 3" or "cell 3 (line 12)"


def _show(value: object, limit: int = 60) -> str:
    """A short, printable repr of an untrusted value."""
    try:
        text = repr(value)
    except (RecursionError, ValueError):  # ValueError: an int too long to print
        text = f"<a {type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _clean(text: str) -> str:
    return _UNWANTED.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def extract_answers(
    path: Path,
    questions: Sequence[Question],
    *,
    max_bytes: int = 2**21,
    max_cells: int = 5000,
    max_answer_chars: int = 20000,
) -> tuple[dict[str, str], list[str]]:
    """The written answers of one submission, and what was wrong with its answer cells.

    Part of issue 27 (written answers, graded by question). The file is untrusted: nothing in it
    makes this raise; what cannot be used is reported in the problems.

    Parameters
    ----------
    path : Path
        The submission: a notebook ``.ipynb`` (JSON, nbformat 4) or a MyST Markdown notebook ``.md``
        (jupytext's ``md:myst``: ``+++ {"tags": ["answer"], "question": "promotion"}`` before a
        Markdown cell). Symbolic links and special files are not read.
    questions : sequence of Question
        The assignment's questions; only answers to these are taken.
    max_bytes, max_cells : int
        A larger file, or one with more cells, is not read (one problem says why).
    max_answer_chars : int
        A longer answer is cut, ending with ``[cut: N characters more]``.

    Returns
    -------
    answers : dict
        ``{question id: answer Markdown}`` for each question with a non-empty answer cell: the
        Markdown cells tagged ``answer`` whose ``"question"`` names it, joined by a blank line in
        notebook order, without control characters (but newlines and tabs). A question without an
        answer cell is absent.
    problems : list of str
        Human-readable, e.g. answer cells with an unknown question id, code cells tagged
        ``answer``, an answer cut; or the one reason the file could not be read at all.
    """
    known = {q.id for q in _check_questions(questions)}
    problems: list[str] = []
    try:
        text = _read_text(Path(path), max_bytes, problems)
        suffix = Path(path).suffix.lower()
        if suffix == ".ipynb":
            cells = _ipynb_cells(text, max_cells)
        elif suffix == ".md":
            cells = _myst_cells(text, max_cells)
        else:
            raise _Unreadable(f"not a notebook: {Path(path).name!r} is neither .ipynb nor .md")
    except _Unreadable as exc:
        return {}, [str(exc)]
    except RecursionError:
        return {}, ["the notebook could not be read: its JSON is nested too deeply"]
    except (OSError, ValueError, TypeError) as exc:
        return {}, [f"the notebook could not be read: {type(exc).__name__}: {_show(str(exc), 200)}"]

    parts: dict[str, list[str]] = {}
    for cell in cells:
        if isinstance(cell.metadata, str):  # a +++ line whose JSON is broken: the reason
            problems.append(f"{cell.where}: {cell.metadata}")
            continue
        metadata = cell.metadata if isinstance(cell.metadata, dict) else {}
        tags = metadata.get("tags")
        if not isinstance(tags, list) or "answer" not in tags:
            continue
        question = metadata.get("question")
        if cell.kind != "markdown":
            problems.append(
                f"{cell.where} is a {_show(cell.kind)} cell tagged 'answer': ignored (written answers go in Markdown cells)"
            )
        elif not isinstance(question, str) or question not in known:
            given = f"is {_show(question)}" if "question" in metadata else "is missing"
            problems.append(
                f"{cell.where} is tagged 'answer' but its \"question\" {given}; "
                f"expected one of {sorted(known)}: ignored"
            )
        elif cell.source is None:
            problems.append(f"{cell.where}: the answer to {question!r} is not text: ignored")
        elif not _clean(cell.source).strip():
            problems.append(f"{cell.where}: the answer cell for {question!r} is empty")
        else:
            parts.setdefault(question, []).append(_clean(cell.source).strip("\n"))

    answers = {}
    for question, texts in parts.items():
        answer = "\n\n".join(texts)
        if len(answer) > max_answer_chars:
            extra = len(answer) - max_answer_chars
            problems.append(f"the answer to {question!r} is longer than {max_answer_chars} characters: cut")
            answer = f"{answer[:max_answer_chars]}\n\n[cut: {extra} characters more]"
        answers[question] = answer
    if len(problems) > _MAX_PROBLEMS:
        problems[_MAX_PROBLEMS:] = [f"... and {len(problems) - _MAX_PROBLEMS} more problems with answer cells"]
    return answers, problems


def _read_text(path: Path, max_bytes: int, problems: list[str]) -> str:
    if path.is_symlink():
        raise _Unreadable(f"{path.name!r} is a symbolic link: not read")
    if not path.is_file():
        raise _Unreadable(f"{path.name!r} is not a regular file: not read")
    if path.stat().st_size > max_bytes:
        raise _Unreadable(f"the notebook has {path.stat().st_size} bytes, more than the {max_bytes} read for answers")
    with path.open("rb") as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:  # it grew since stat
        raise _Unreadable(f"the notebook has more than the {max_bytes} bytes read for answers")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        problems.append(f"the notebook is not valid UTF-8 (byte {exc.start}): undecodable bytes shown as \ufffd")
        return data.decode("utf-8-sig", errors="replace")


def _ipynb_cells(text: str, max_cells: int) -> list[_Cell]:
    notebook = json.loads(text)
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        hint = (
            " (nbformat 3: open it in Jupyter and save it again)"
            if isinstance(notebook, dict) and "worksheets" in notebook
            else ""
        )
        raise _Unreadable(f"not a Jupyter notebook: no list of cells{hint}")
    if len(notebook["cells"]) > max_cells:
        raise _Unreadable(
            f"the notebook has {len(notebook['cells'])} cells, more than the {max_cells} read for answers"
        )
    cells = []
    for number, cell in enumerate(notebook["cells"], 1):
        if not isinstance(cell, dict):
            cells.append(_Cell(None, {}, None, f"cell {number}"))
            continue
        source = cell.get("source", "")
        if isinstance(source, list) and all(isinstance(line, str) for line in source):
            source = "".join(source)
        cells.append(
            _Cell(
                cell.get("cell_type"),
                cell.get("metadata"),
                source if isinstance(source, str) else None,
                f"cell {number}",
            )
        )
    return cells


# The MyST notebook is split into cells as jupytext's md:myst reader does (``+++`` lines, top-level
# ```{code-cell}``/```{raw-cell}`` fences, front matter), by one linear scan: jupytext itself runs a
# full Markdown parse and YAML on the text, which a hostile 2 MB file makes take tens of seconds.
_MYST_CANDIDATE = re.compile(r"^ {0,3}[`~+].*$", re.M)  # the only lines that can open, close or split cells
_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_BLOCK_BREAK = re.compile(r" {0,3}(\+[+ \t]*)(.*)")


def _front_matter_end(text: str) -> int:
    """Offset just past the YAML front matter (``---`` ... ``---``), or 0 if there is none."""
    first = re.match(r"-{3,}", text)
    newline = text.find("\n")
    if not first or newline < 0:
        return 0
    close = re.compile(r"^(?: {0,3}-{%d,}[ \t]*|\.\.\.[ \t]*)$" % len(first.group()), re.M)
    found = close.search(text, newline + 1)
    return found.end() + 1 if found else 0  # unclosed: no front matter, as for markdown-it


def _myst_cells(text: str, max_cells: int) -> list[_Cell]:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    cells: list[_Cell] = []
    line_at = [0, 1]  # (offset, its line number): offsets only grow, so counting lines stays linear

    def where(offset: int) -> str:
        line_at[1] += text.count("\n", line_at[0], offset)
        line_at[0] = offset
        return f"cell {len(cells) + 1} (line {line_at[1]})"

    def add(kind: str, metadata: object, source: str, offset: int) -> None:
        cells.append(_Cell(kind, metadata, source, where(offset)))
        if len(cells) > max_cells:
            raise _Unreadable(f"the notebook has more than the {max_cells} cells read for answers")

    def flush_markdown(end: int) -> None:
        raw = text[md_start:end].rstrip()
        source = raw.lstrip("\n")
        if source:
            add("markdown", md_metadata, source, md_start + len(raw) - len(source))

    md_start = _front_matter_end(text)
    md_metadata: object = {}
    fence = None  # (marker char, length, "code"/"raw"/None, body offset, fence offset)
    for match in _MYST_CANDIDATE.finditer(text, md_start):
        line = match.group()
        if fence is not None:
            char, length, kind, body, start = fence
            stripped = line.lstrip(" ")
            run = len(stripped) - len(stripped.lstrip(char))
            if run >= length and not stripped[run:].strip(" \t"):
                if kind is not None:
                    add(kind, _fence_options(text[body : match.start()]), text[body : match.start()], start)
                    md_start, md_metadata = match.end() + 1, {}
                fence = None
            continue
        opening = _FENCE_OPEN.fullmatch(line)
        if opening and not (opening[1][0] == "`" and "`" in opening[2]):
            info = opening[2].strip()
            kind = "code" if info.startswith("{code-cell}") else "raw" if info.startswith("{raw-cell}") else None
            if kind is not None:
                flush_markdown(match.start())
            fence = (opening[1][0], len(opening[1]), kind, match.end() + 1, match.start())
            continue
        brk = _BLOCK_BREAK.fullmatch(line)
        if brk and brk[1].count("+") >= 3:
            flush_markdown(match.start())
            md_start, md_metadata = match.end() + 1, _break_metadata(brk[2].strip())
    if fence is not None and fence[2] is not None:  # an unclosed cell fence runs to the end
        add(fence[2], _fence_options(text[fence[3] :]), text[fence[3] :], fence[4])
    else:
        flush_markdown(len(text))
    return cells


def _break_metadata(content: str) -> object:
    """The cell metadata of a ``+++ {...}`` line: a dict, or a str saying why there is none."""
    if not content:
        return {}
    try:
        metadata = json.loads(content)
    except (ValueError, RecursionError):
        return f"the metadata after +++ is not valid JSON ({_show(content)}): the cell cannot be an answer"
    return (
        metadata
        if isinstance(metadata, dict)
        else f"the metadata after +++ is not a JSON object ({_show(content)}): the cell cannot be an answer"
    )


def _fence_options(body: str) -> dict:
    """A code cell's tags, from its options (``:tags: [answer]`` lines or a ``---`` YAML block).

    Only used to tell a student that a code cell tagged ``answer`` is ignored, so a small pattern
    reads them instead of YAML (whose aliases could make a tiny file expand enormously).
    """
    lines = [line[:1000] for line in body.split("\n", 200)[:200]]
    if lines and lines[0].startswith("---"):
        options = []
        for line in lines[1:]:
            if line.startswith("---"):
                break
            options.append(line)
    else:
        options = [line.lstrip()[1:] for line in _takewhile(lambda s: s.lstrip().startswith(":"), lines)]
    found = re.search(r"^[ \t]*tags[ \t]*:(.*(?:\n[ \t]*-.*)*)", "\n".join(options), re.M)
    return {"tags": re.findall(r"[\w-]+", found[1])} if found else {}


def _takewhile(predicate, items):
    for item in items:
        if not predicate(item):
            return
        yield item


def answer_digest(text: str) -> str:
    """A short fingerprint of an answer (16 hex digits of its SHA-256), to notice it changed since marked.

    Part of issue 27 (written answers, graded by question).
    """
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


# -- anonymous codes ---------------------------------------------------------------------------

_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no I, L, O, 0, 1: read aloud or copied without doubt


def assign_codes(students: Iterable[str], key_path: Path) -> dict[str, str]:
    """Anonymous codes for the students, the same from run to run.

    Part of issue 27 (written answers, graded by question): the review pages show answers under
    these codes, so the lecturer marks without seeing names.

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
        ``{student: code}`` for every student of the key file, this run's included.

    Raises
    ------
    ValueError
        The key file is not such a CSV (naming the row): a bad header or code, or a code or a
        student that appears twice.
    """
    key_path = Path(key_path)
    key = _read_key(key_path) if key_path.exists() else {}
    used, changed = set(key.values()), not key_path.exists()
    for student in students:
        if not isinstance(student, str):
            raise TypeError(f"students must be str, got {type(student).__name__} {_show(student)}")
        if student not in key:
            code = _new_code(used)
            key[student], changed = code, True
            used.add(code)
    if changed:
        rows = sorted(([code, student] for student, code in key.items()), key=lambda row: row[0])
        _write_csv(key_path, ["code", "student"], rows, private=True)
    return key


def _new_code(used: set[str]) -> str:
    while True:
        code = "A" + "".join(secrets.choice(_CODE_ALPHABET) for _ in range(5))
        if code not in used:
            return code


def _read_key(path: Path) -> dict[str, str]:
    header, rows = _read_csv(path, strip=False)  # a name is kept exactly, spaces included
    if header != ["code", "student"]:
        raise ValueError(f"{path}, row 1: expected the header ['code', 'student'], got {header}")
    key, row_of_code, row_of_student = {}, {}, {}
    for number, cells in rows:
        if len(cells) != 2:
            raise ValueError(
                f"{path}, row {number}: expected 2 cells (code, student), got {len(cells)}: {_show(cells)}"
            )
        code, student = cells
        if not _ID.fullmatch(code):
            raise ValueError(f"{path}, row {number}, column 'code': expected [A-Za-z0-9_-]{{1,40}}, got {code!r}")
        if code in row_of_code:
            raise ValueError(f"{path}, row {number}: the code {code!r} is already given in row {row_of_code[code]}")
        if student in row_of_student:
            raise ValueError(
                f"{path}, row {number}: the student {student!r} already has a code in row {row_of_student[student]}"
            )
        row_of_code[code], row_of_student[student] = number, number
        key[student] = code
    return key


def _check_codes(answers: Mapping, codes: Mapping) -> None:
    seen = {}
    for student in answers:
        code = codes.get(student)
        if not isinstance(code, str) or not _ID.fullmatch(code):
            raise ValueError(
                f"codes: student {student!r} needs a code matching [A-Za-z0-9_-]{{1,40}}, got {_show(code)}"
            )
        if code in seen:
            raise ValueError(f"codes: {code!r} is the code of both {seen[code]!r} and {student!r}")
        seen[code] = student


def _answer_of(answers: Mapping, student: str, question: str) -> str:
    """The student's answer to the question, or "" (answers come from a file the grader stored)."""
    mine = answers.get(student)
    text = mine.get(question) if isinstance(mine, Mapping) else None
    return text if isinstance(text, str) and text.strip() else ""


# -- CSV files ---------------------------------------------------------------------------------

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _to_cell(value: str) -> str:
    """A cell a spreadsheet shows as text: a leading ' before what it would read as a formula.

    A value that already starts with quotes before such a character gets one more, so that
    :func:`_from_cell` gives back exactly the value.
    """
    return "'" + value if value.lstrip("'").startswith(_FORMULA_START) else value


def _from_cell(value: str) -> str:
    return value[1:] if value.startswith("'") and value.lstrip("'").startswith(_FORMULA_START) else value


def _write_text(path: Path, text: str, *, private: bool = False) -> None:
    """Write atomically: a temporary file beside it, renamed over it."""
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(text)
        os.chmod(tmp, 0o600 if private else 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _write_csv(path: Path, header: list[str], rows: Iterable[list[str]], *, private: bool = False) -> None:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows([_to_cell(str(cell)) for cell in row] for row in rows)
    _write_text(path, buffer.getvalue(), private=private)


def _read_csv(path: Path, *, strip: bool = True) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """Header and (row number, cells) of a CSV the lecturer kept or edited; row 1 is the header.

    Blank rows are skipped; cells are stripped of spaces unless ``strip`` is false. UTF-8 with or without BOM; a header with ';' or tabs and no comma (a
    spreadsheet's regional setting) sets the separator.
    """
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: expected UTF-8 text, got an undecodable byte at offset {exc.start}") from None
    first = text.split("\n", 1)[0]
    delimiter = "," if "," in first else ";" if ";" in first else "\t" if "\t" in first else ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    rows = []
    try:
        header = [_from_cell(cell).strip().lower() for cell in next(reader, [])]
        for number, cells in enumerate(reader, 2):
            if any(cell.strip() for cell in cells):
                rows.append((number, [_from_cell(cell.strip() if strip else cell) for cell in cells]))
    except csv.Error as exc:
        raise ValueError(f"{path}, row {len(rows) + 2}: not a valid CSV row ({exc})") from None
    if not header:
        raise ValueError(f"{path}: expected a CSV file with a header row, got an empty file")
    return header, rows


# -- the review pages --------------------------------------------------------------------------

#: The pages' Content-Security-Policy: no inline script, no plugin, no frame, no image, no network.
#: Chromium opens a file:// page with it and matches ``'self'`` to the page's file: URL scheme, so
#: the two scripts in mathjax/ (the configuration and MathJax) run; styles may be inline (the page's
#: own <style> and MathJax's generated SVG styles), nothing a student writes can be HTML anyway.
CSP = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

# The TeX extensions MathJax may load when it meets their macros (autoload). Not ``html`` (\href,
# \class, \style, \cssId, \data), nor anything else: \require of a name not listed here is refused.
_TEX_EXTENSIONS = (
    "action amscd bbox boldsymbol braket bussproofs cancel cases centernot color colortbl empheq enclose "  # codespell:ignore
    "extpfeil gensymb mathtools mhchem physics textcomp textmacros unicode upgreek verb"
).split()
_UNSAFE_WITHOUT_FILTER = ("bbox", "unicode", "action")  # styles, fonts, tooltips: kept only with ui/safe

_CSS = """
:root { color-scheme: light; --ink: #1d1d1f; --muted: #5f6368; --line: #d5d5d8; --card: #fff; --bg: #f3f3f1; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 120rem; padding: 1.25rem 2rem 3rem; background: var(--bg); color: var(--ink);
       font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
a { color: #1a5fb4; }
h1 { font-size: 1.6rem; margin: 0.4rem 0 0.2rem; }
nav, .meta { color: var(--muted); font-size: 0.92rem; }
table { border-collapse: collapse; }
.rubric { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 0.6rem 1rem;
          margin: 0.8rem 0 1.4rem; max-width: 60rem; }
.rubric table, .overview { width: 100%; }
.rubric th, .rubric td, .overview th, .overview td { text-align: left; padding: 0.25rem 0.6rem 0.25rem 0;
          border-bottom: 1px solid #ececee; vertical-align: top; }
.rubric td.pts, .rubric th.pts, .overview .num { text-align: right; white-space: nowrap; }
.rubric tfoot td { border-bottom: 0; font-weight: 600; }
code.id { font-size: 0.85em; color: var(--muted); }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 34rem), 1fr)); gap: 1rem;
         align-items: start; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 0.2rem 1.1rem 0.8rem;
        min-width: 0; overflow-wrap: anywhere; }
.card h2 { display: flex; justify-content: space-between; align-items: baseline; gap: 1rem; margin: 0 -1.1rem 0.4rem;
           padding: 0.45rem 1.1rem; border-bottom: 1px solid var(--line); font-size: 1.05rem;
           font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
.card h2 small { font-weight: normal; color: var(--muted); font-size: 0.75rem; }
.answer { overflow-x: auto; }
.answer > :first-child { margin-top: 0.3rem; }
.answer > :last-child { margin-bottom: 0; }
.answer h1, .answer h2, .answer h3, .answer h4 { font-size: 1.05rem; margin: 0.9rem 0 0.3rem; border: 0; padding: 0; }
.answer pre { background: #f6f6f8; padding: 0.5rem 0.7rem; border-radius: 4px; overflow-x: auto; }
.answer code { font-size: 0.9em; }
.answer table { display: block; overflow-x: auto; }
.answer td, .answer th { border: 1px solid var(--line); padding: 0.2rem 0.5rem; }
.answer blockquote { margin-left: 0; padding-left: 0.8rem; border-left: 3px solid var(--line); color: var(--muted); }
div.math, span.math.display { display: block; overflow-x: auto; overflow-y: hidden; max-width: 100%; }
.missing { margin-top: 2rem; }
.missing h2 { font-size: 1.1rem; }
.missing ul { display: flex; flex-wrap: wrap; gap: 0.4rem 1.4rem; padding: 0; list-style: none;
              font-family: ui-monospace, Menlo, Consolas, monospace; }
"""


def _markdown():
    """The renderer of answers: CommonMark with tables, no raw HTML, no images, $ and $$ maths."""
    from markdown_it import MarkdownIt
    from markdown_it.common.utils import escapeHtml
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    def math(content: str, options: dict) -> str:  # MathJax looks for exactly these delimiters
        tex = escapeHtml(content)
        return f"\\[{tex}\\]" if options["display_mode"] else f"\\({tex}\\)"

    def display_in_paragraph(self, tokens, idx, options, env) -> str:  # a <div> cannot be inside a <p>
        return f'<span class="math display">{math(tokens[idx].content.strip(), {"display_mode": True})}</span>'

    # No labels: "$$x$$ (name)" would give an element the id the student chose. double_inline: a
    # "$$...$$" line right under a line of text (no blank line between) is display maths, as in Jupyter.
    md = MarkdownIt("commonmark", {"html": False}).enable("table").disable("image")
    md.use(dollarmath_plugin, allow_labels=False, double_inline=True, renderer=math)
    md.add_render_rule("math_inline_double", display_in_paragraph)
    return md


def _render(md, text: str) -> str:
    try:
        return md.render(text)
    except (RecursionError, ValueError, IndexError):  # never seen; a broken answer must not stop the review
        return f"<pre>{html.escape(text)}</pre>"


def _mathjax_source() -> Path | None:
    """The MathJax folder of the installed ``sphinx-mathjax-offline`` (a name Python cannot import)."""
    roots = []
    try:
        spec = importlib.util.find_spec("sphinx-mathjax-offline")
        roots += list(spec.submodule_search_locations or []) if spec else []
    except (ImportError, ValueError):
        pass
    try:
        roots.append(importlib.metadata.distribution("sphinx-mathjax-offline").locate_file("sphinx-mathjax-offline"))
    except importlib.metadata.PackageNotFoundError:
        pass
    roots += [
        Path(p) / "sphinx-mathjax-offline"
        for p in (sysconfig.get_paths()["purelib"], *getattr(site, "getsitepackages", list)())
    ]
    for root in roots:
        folder = Path(root) / "static" / "mathjax"
        if (folder / "tex-svg.js").is_file():
            return folder
    return None


def _install_mathjax(target: Path) -> bool:
    """Copy MathJax (SVG output), its ui/safe filter and the allowed TeX extensions into ``target``,
    and write its configuration ``config.js``; returns False if MathJax is not installed."""
    source = _mathjax_source()
    has_safe = source is not None and (source / "ui" / "safe.js").is_file()
    extensions = [name for name in _TEX_EXTENSIONS if has_safe or name not in _UNSAFE_WITHOUT_FILTER]
    if source is not None:
        names = ["tex-svg.js", *(["ui/safe.js"] if has_safe else [])]
        names += [f"input/tex/extensions/{name}.js" for name in extensions]
        for name in names:
            src, dst = source / name, target / name
            if not src.is_file():
                continue
            data = src.read_bytes()
            if dst.is_file() and dst.stat().st_size == len(data) and dst.read_bytes() == data:
                continue
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_bytes(data)
        extensions = [name for name in extensions if (target / f"input/tex/extensions/{name}.js").is_file()]
    target.mkdir(parents=True, exist_ok=True)
    config = {
        "tex": {
            "inlineMath": [["\\(", "\\)"]],
            "displayMath": [["\\[", "\\]"]],
            "processEscapes": False,
            "processEnvironments": False,
            "require": {"allow": {name: True for name in extensions}, "defaultAllow": False},
        },
        "options": {
            # Typeset only the elements the page marks as maths: a "\(" in a student's prose stays text.
            "processHtmlClass": "math",
            "ignoreHtmlClass": ".*",
            "enableMenu": False,
            "safeOptions": {"allow": {"URLs": "none", "classes": "safe", "cssIDs": "safe", "styles": "safe"}},
        },
        "startup": {"typeset": True},
    }
    if has_safe:
        config["loader"] = {"load": ["ui/safe"]}
    text = (
        "// MathJax's configuration for the review pages, written by booktools/manual.py. A file of its own:\n"
        "// the pages' Content-Security-Policy allows no inline script.\n"
        f"window.MathJax = {json.dumps(config, indent=2)};\n"
    )
    if not (target / "config.js").is_file() or (target / "config.js").read_text(encoding="utf-8") != text:
        _write_text(target / "config.js", text)
    return source is not None


def _page(title: str, body: str) -> str:
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>{_CSS}</style>\n"
        '<script src="mathjax/config.js" defer></script>\n'
        '<script src="mathjax/tex-svg.js" defer></script>\n'
        f"</head>\n<body>\n{body}</body>\n</html>\n"
    )


def _rubric_table(question: Question) -> str:
    rows = "".join(
        f'<tr><td>{html.escape(item.text)} <code class="id">{html.escape(item.id)}</code></td>'
        f'<td class="pts">{_fmt(item.points)}</td></tr>\n'
        for item in question.items
    )
    return (
        '<section class="rubric" aria-label="rubric"><table>\n'
        '<thead><tr><th>Rubric item</th><th class="pts">Points</th></tr></thead>\n'
        f"<tbody>\n{rows}</tbody>\n"
        f'<tfoot><tr><td>Total</td><td class="pts">{_fmt(question.points)}</td></tr></tfoot>\n'
        "</table></section>\n"
    )


def write_review(
    review_dir: Path,
    questions: Sequence[Question],
    answers: Mapping[str, Mapping[str, str]],
    codes: Mapping[str, str],
    *,
    show_names: bool = False,
    title: str = "",
) -> list[Path]:
    """Write the review pages: one HTML page per question with every student's answer to it.

    Part of issue 27 (written answers, graded by question): the lecturer marks one question
    across all students at a time, the rubric at the top of the page, in a copy of ``rubric.csv``.

    Parameters
    ----------
    review_dir : Path
        Created if needed. Gets ``index.html`` (the questions, with the number of answers and of
        students without one), ``<question id>.html`` per question, ``rubric.csv`` (the blank
        template of :func:`write_rubric_template`, written again at each run; a ``rubric.csv`` that
        has marks in it is first kept as ``rubric-<UTC time>.csv``), and ``mathjax/`` (MathJax 3's
        ``tex-svg.js`` from the installed ``sphinx-mathjax-offline``, its ``ui/safe`` filter, the
        TeX extensions it may load, and ``config.js``).
    questions : sequence of Question
    answers : mapping
        ``{student: {question id: answer Markdown}}`` for every student with a submission.
    codes : mapping
        ``{student: code}``, as :func:`assign_codes` returns.
    show_names : bool
        Label answers ``name (code)`` instead of the code alone.
    title : str
        The assignment's title, shown on the pages.

    Returns
    -------
    list of Path
        The question pages, in the order of ``questions``.

    Notes
    -----
    Answers are ordered by code, never by name or by submission. Everything a student wrote is
    escaped: Markdown without HTML, links checked by markdown-it (no ``javascript:`` or ``data:``),
    no images; ``$...$`` and ``$$...$$`` become ``<span class="math">\\(...\\)</span>`` and
    ``<div class="math">\\[...\\]</div>`` with the TeX escaped, the only places MathJax typesets.
    """
    review_dir = Path(review_dir)
    questions = _check_questions(questions)
    _check_codes(answers, codes)
    review_dir.mkdir(parents=True, exist_ok=True)
    has_mathjax = _install_mathjax(review_dir / "mathjax")
    md = _markdown()
    students = sorted(answers, key=lambda student: codes[student])
    heading = f"{title} — written answers" if title else "Written answers"

    def label(student: str) -> str:
        return f"{student} ({codes[student]})" if show_names else codes[student]

    pages, overview = [], []
    for number, question in enumerate(questions, 1):
        cards, missing = [], []
        for student in students:
            text = _answer_of(answers, student, question.id)
            if not text:
                missing.append(f"<li>{html.escape(label(student))}</li>")
                continue
            cards.append(
                f'<article class="card" id="a-{html.escape(codes[student])}">\n'
                f"<h2><span>{html.escape(label(student))}</span>"
                f'<small title="answer_sha in rubric.csv">{answer_digest(text)}</small></h2>\n'
                f'<div class="answer">\n{_render(md, text)}</div>\n</article>\n'
            )
        counts = f"{len(cards)} answers, {len(missing)} without an answer"
        nav = ['<a href="index.html">All questions</a>']
        if number > 1:
            nav.append(f'<a href="{questions[number - 2].id}.html">previous</a>')
        if number < len(questions):
            nav.append(f'<a href="{questions[number].id}.html">next</a>')
        body = (
            f"<header>\n<nav>{html.escape(heading)} · {' · '.join(nav)}</nav>\n"
            f"<h1>{html.escape(question.title)}</h1>\n"
            f'<p class="meta">Question {number} of {len(questions)}, <code>{html.escape(question.id)}</code> · '
            f"{_fmt(question.points)} points · {counts}</p>\n"
            f"{_rubric_table(question)}</header>\n"
            f'<main class="cards">\n{"".join(cards)}</main>\n'
        )
        if missing:
            body += (
                f'<section class="missing"><h2>No answer ({len(missing)}): 0 points</h2>\n'
                f"<ul>\n{''.join(missing)}\n</ul></section>\n"
            )
        page = review_dir / f"{question.id}.html"
        _write_text(page, _page(f"{question.title} — {heading}", body))
        pages.append(page)
        overview.append(
            f'<tr><td><a href="{question.id}.html">{html.escape(question.title)}</a> '
            f'<code class="id">{html.escape(question.id)}</code></td>'
            f'<td class="num">{_fmt(question.points)}</td><td class="num">{len(cards)}</td>'
            f'<td class="num">{len(missing)}</td></tr>\n'
        )

    note = (
        ""
        if has_mathjax
        else "<p><strong>MathJax was not found</strong> (sphinx-mathjax-offline): maths is shown as TeX.</p>\n"
    )
    body = (
        f"<header>\n<h1>{html.escape(heading)}</h1>\n"
        f'<p class="meta">{len(students)} submissions · answers are shown under anonymous codes, in the order of the codes</p>\n'
        f"</header>\n{note}<main>\n"
        '<table class="overview">\n<thead><tr><th>Question</th><th class="num">Points</th>'
        '<th class="num">Answers</th><th class="num">No answer</th></tr></thead>\n'
        f"<tbody>\n{''.join(overview)}</tbody>\n</table>\n"
        '<p>To mark: copy <a href="rubric.csv">rubric.csv</a>, fill in its <code>points</code> column '
        "(and <code>comment</code> if you like) question by question, with the question's page open, "
        "and merge the copy. This folder's rubric.csv is written again at each run.</p>\n</main>\n"
    )
    _write_text(review_dir / "index.html", _page(heading, body))

    rubric = review_dir / "rubric.csv"
    if rubric.is_file() and _has_marks(rubric):
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
        os.replace(rubric, review_dir / f"rubric-{stamp}.csv")
    write_rubric_template(rubric, questions, answers, codes)
    return pages


def _has_marks(rubric: Path) -> bool:
    """True if a rubric file has points or comments of the lecturer's in it (or cannot be read)."""
    try:
        header, rows = _read_csv(rubric)
    except (OSError, ValueError):
        return True
    columns = [header.index(name) for name in ("points", "comment") if name in header]
    return any(i < len(cells) and cells[i] and cells[i] != "no answer" for _, cells in rows for i in columns)


# -- the rubric: a blank template, and the lecturer's marks merged ------------------------------

_RUBRIC_COLUMNS = ["code", "question", "item", "description", "max_points", "points", "comment", "answer_sha"]
_NO_ANSWER = "no answer cell for this question"


def write_rubric_template(
    path: Path,
    questions: Sequence[Question],
    answers: Mapping[str, Mapping[str, str]],
    codes: Mapping[str, str],
) -> None:
    """Write the blank rubric: the CSV the lecturer fills in with points.

    Part of issue 27 (written answers, graded by question).

    Parameters
    ----------
    path : Path
        The CSV (UTF-8), columns ``code, question, item, description, max_points, points, comment,
        answer_sha``: one row per (student with a submission, question, rubric item), sorted by
        question (in the order of ``questions``), then code, then item. ``points`` and ``comment``
        are blank; ``answer_sha`` is :func:`answer_digest` of the answer, or blank with the comment
        ``no answer`` when the student has none. Cells a spreadsheet would read as a formula start
        with ``'``.
    questions, answers, codes
        As for :func:`write_review`.
    """
    questions = _check_questions(questions)
    _check_codes(answers, codes)
    students = sorted(answers, key=lambda student: codes[student])
    rows = []
    for question in questions:
        for student in students:
            text = _answer_of(answers, student, question.id)
            digest = answer_digest(text) if text else ""
            for item in question.items:
                comment = "" if text else "no answer"
                rows.append([codes[student], question.id, item.id, item.text, _fmt(item.points), "", comment, digest])
    _write_csv(Path(path), _RUBRIC_COLUMNS, rows)


@dataclass(frozen=True)
class ManualMark:
    """A student's mark for one written question, from the lecturer's rubric.

    ``status`` is ``"marked"`` (every item has points), ``"unmarked"`` (some item has none yet:
    ``points`` is the sum of those given so far), ``"no answer"`` (0 points) or ``"changed"`` (the
    answer is not the one that was marked: the marks are not applied, 0 points until it is marked
    again). ``items`` holds (description, points given or None, max points) in rubric order, and
    ``comments`` the lecturer's comments in that order.
    """

    question: str
    points: Fraction
    max_points: Fraction
    items: tuple[tuple[str, Fraction | None, Fraction], ...]
    comments: tuple[str, ...]
    status: str


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
        A filled copy of :func:`write_rubric_template`'s CSV: the ``points`` column holds ints,
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
        says. An answer whose digest differs from its rows' ``answer_sha`` and that has points is
        ``"changed"``: its marks are not applied.
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
    questions = _check_questions(questions)
    _check_codes(answers, codes)
    by_id = {question.id: question for question in questions}
    student_of = {code: student for student, code in codes.items()}
    header, rows = _read_csv(rubric_path)
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

        fail = _row_error(rubric_path, number, value)
        code, qid, item_id = value["code"], value["question"], value["item"]
        if code not in student_of:
            raise fail("code", "a code of the key (a student's anonymous code)")
        question = by_id.get(qid)
        if question is None:
            raise fail("question", f"one of the questions {list(by_id)}")
        item = next((item for item in question.items if item.id == item_id), None)
        if item is None:
            raise fail("item", f"one of the items of question {qid!r}, {[item.id for item in question.items]}")
        max_points = _parse_number(value["max_points"])
        if max_points != item.points:
            raise fail(
                "max_points",
                f"{_fmt(item.points)}, the hidden file's points for {qid}/{item_id} (the rubric changed since "
                "this file was made: make the template again, or correct the hidden file)",
            )
        points = None
        if value["points"]:
            points = _parse_number(value["points"])
            if points is None:
                raise fail("points", "a number such as 2, 1.5 or 1/2, or a blank cell (not marked)")
            if not 0 <= points <= item.points:
                raise fail("points", f"a number within [0, {_fmt(item.points)}]")
        key = (code, qid, item_id)
        if key in given:
            raise ValueError(
                f"{rubric_path}, row {number}: code {code!r}, question {qid!r}, item {item_id!r} is already "
                f"marked in row {given[key][0]}; expected each (code, question, item) once"
            )
        given[key] = (number, points, value["comment"], value["answer_sha"])
        if student_of[code] not in answers:
            orphans[code] += 1

    marks: dict[str, dict[str, ManualMark]] = {}
    for student in answers:
        code = codes[student]
        marks[student] = {
            question.id: _mark(question, _answer_of(answers, student, question.id), code, given)
            for question in questions
        }
    notes = [
        f"rubric rows for code {code} ({n} rows) have no submission in this run (ignored)"
        for code, n in sorted(orphans.items())
    ]
    marked_codes = {key[0] for key in given}
    notes += [
        f"code {codes[student]} has no rows in the rubric (a submission newer than the template?): not marked yet"
        for student in sorted(answers, key=lambda s: codes[s])
        if codes[student] not in marked_codes and any(_answer_of(answers, student, q.id) for q in questions)
    ]
    return marks, notes


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
    changed = any(row and row[3] != answer_digest(text) for row in rows)
    if changed and any(p is not None for p in points):
        items = tuple((item.text, None, item.points) for item in question.items)
        return ManualMark(question.id, Fraction(0), question.points, items, (), "changed")
    if changed:  # rows made for another answer, but nothing marked: the answer is simply not marked yet
        points = [None] * len(points)
        rows = [None] * len(rows)
    items = tuple((item.text, p, item.points) for item, p in zip(question.items, points, strict=True))
    comments = tuple(row[2] for row in rows if row and row[2] and row[2] != "no answer")
    status = "unmarked" if None in points else "marked"
    total = sum((p for p in points if p is not None), Fraction(0))
    return ManualMark(question.id, total, question.points, items, comments, status)


def feedback_text(marks: Mapping[str, ManualMark], questions: Sequence[Question]) -> str:
    """A student's marks for the written questions, as Markdown for the feedback file.

    Part of issue 27 (written answers, graded by question). Per question: ``**Written answer
    <title>:** 3/4``, then ``- <item>: 1/1`` per rubric item and the lecturer's comments; or that
    it is not marked yet, that there was no answer cell (0), or that the answer changed after it
    was marked (to be marked again).
    """
    lines: list[str] = []
    for question in _check_questions(questions):
        mark = marks.get(question.id)
        if mark is None:
            continue
        head = f"**Written answer {question.title}:**"
        total = _fmt(question.points)
        if mark.status == "no answer":
            lines += [f"{head} {_NO_ANSWER}: 0/{total}", ""]
            continue
        if mark.status == "changed":
            lines += [f"{head} your answer changed after it was marked: to be marked again (0/{total} for now)", ""]
            continue
        if mark.status == "unmarked":
            lines.append(f"{head} not marked yet")
        else:
            lines.append(f"{head} {_fmt(mark.points)}/{total}")
        lines += [""] + [
            f"- {text}: " + ("not marked yet" if points is None else f"{_fmt(points)}/{_fmt(maximum)}")
            for text, points, maximum in mark.items
        ]
        if mark.comments:
            lines += ["", "Comments:", ""] + [f"- {comment}" for comment in mark.comments]
        lines.append("")
    return "\n".join(lines)
