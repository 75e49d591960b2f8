"""Finding the submissions in a folder: every entry gets a row, nothing is followed or read twice."""

from __future__ import annotations

import ast
import itertools
import json
import os
import re
import stat
import unicodedata
from pathlib import Path

from booktools.grading.text import printable

MAX_DEPTH = 32  # folders below SUBMISSIONS searched; a deeper folder gets one "skipped" row
MAX_ENTRIES = 20_000  # entries listed in all; past that, one "skipped" row for the rest

NOTEBOOK_SUFFIXES = (".ipynb", ".md")

# -- finding the submissions -------------------------------------------------------------------


def find_submissions(
    folder: Path, max_depth: int = MAX_DEPTH, max_entries: int = MAX_ENTRIES
) -> list[tuple[str, Path, tuple[str, str] | None]]:
    """Every entry under ``folder``: (name, path, None to grade it, or (status, reason)).

    Symbolic links are not followed. The walk is iterative and bounded: a folder nested deeper
    than ``max_depth`` gets one "skipped" row instead of being searched, and after
    ``max_entries`` entries one "skipped" row stands for the rest of the folder being listed
    (a cloned classroom repository can hold anything).
    """
    found: list[tuple[str, Path, tuple[str, str] | None]] = []
    stack = [(folder, "", 0)]
    while stack:
        directory, prefix, depth = stack.pop()
        try:
            with os.scandir(directory) as listing:
                entries = list(itertools.islice(listing, max_entries - len(found) + 1))
        except OSError as exc:
            found.append((prefix or ".", directory, ("rejected", f"cannot list the folder: {exc.strerror}")))
            continue
        if len(found) + len(entries) > max_entries:
            found.append(
                (
                    prefix or "./",
                    directory,
                    (
                        "skipped",
                        f"more than {max_entries} entries in the submissions folder: the rest of this "
                        "folder and any folder after it were not searched",
                    ),
                )
            )
            break
        subfolders = []
        for entry in sorted(entries, key=lambda e: e.name):
            name = prefix + entry.name
            path = Path(entry.path)
            if entry.is_symlink():
                found.append((name, path, ("rejected", "a symbolic link, not followed: hand in the notebook itself")))
            elif entry.is_dir(follow_symlinks=False):
                if entry.name.startswith("."):
                    found.append((name + "/", path, ("skipped", "a hidden folder, not searched")))
                elif depth + 1 > max_depth:
                    found.append(
                        (name + "/", path, ("skipped", f"nested more than {max_depth} folders deep, not searched"))
                    )
                else:
                    subfolders.append((path, name + "/", depth + 1))
            elif not entry.is_file(follow_symlinks=False):
                found.append((name, path, ("rejected", "not a regular file")))
            elif entry.name.startswith("."):
                found.append((name, path, ("skipped", "a hidden file, not graded")))
            elif path.suffix not in NOTEBOOK_SUFFIXES:
                found.append((name, path, ("skipped", "not a notebook (.ipynb or .md)")))
            else:
                found.append((name, path, None))
        stack.extend(reversed(subfolders))
    return found


def read_notebook(path: Path, max_bytes: int) -> tuple[bytes | None, tuple[str, str] | None]:
    """The file's bytes, read without following a symlink and never more than ``max_bytes`` + 1."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        return None, ("rejected", f"cannot open it: {exc.strerror}")
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None, ("rejected", "not a regular file")
        if info.st_size > max_bytes:
            return None, (
                "rejected",
                f"larger than the {max_bytes // 2**20} MB limit for a notebook ({info.st_size} bytes)",
            )
        chunks, total = [], 0
        while total <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > max_bytes:
            return None, ("rejected", f"larger than the {max_bytes // 2**20} MB limit for a notebook")
    finally:
        os.close(fd)
    data = b"".join(chunks)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, ("unreadable", f"not UTF-8 text (byte {exc.start})")
    return data, None


def student_of(row: dict) -> str:
    """The student a row belongs to: the id the notebook declares (``student:`` in its front matter or
    metadata), else the first folder of its path (a folder per student), else the file's stem.

    Made printable (issue 35): the id is written into CSV files as it is returned, and read back
    the same. Two ids are the same student when their :func:`student_key` is the same.
    """
    declared = row.get("student")
    if declared:
        return printable(declared)
    first, _, rest = row["submission"].partition("/")
    return printable(first if rest else Path(first).stem)


def student_key(student: str) -> str:
    """What two student ids are compared by (issue 35): Unicode NFKC, then ``casefold()``.

    ``ALICE``, ``alice`` and the full-width ``ａｌｉｃｅ`` are one student, as a spreadsheet lookup
    (which ignores case) or an LMS would take them.
    """
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", student).casefold())


STUDENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}")
_FRONT_MATTER_STUDENT = re.compile(r"\A---[ \t]*\n(?:.*\n)*?student:[ \t]*[\"']?([^\"'\n]*?)[\"']?[ \t]*\n")

#: The variable the hand-out's first code cell asks the student to set (issue 37): ``STUDENT_ID = "s1234567"``.
STUDENT_ID_VARIABLE = "STUDENT_ID"
ID_CELLS = 3  # the first code cells searched for STUDENT_ID
MAX_ID_CELL_CHARS = 4096  # a longer cell is not parsed: the hand-out's cell is one line
HEAD_CHARS = 65536  # how much of a MyST notebook is searched (front matter and first cells)


def _checked_id(value) -> str | None:
    """``value`` in its NFKC form, stripped, if it is a student id (:data:`STUDENT_ID`); else None."""
    if not isinstance(value, str) or len(value) > 1024:
        return None
    value = unicodedata.normalize("NFKC", value).strip()
    return value if STUDENT_ID.fullmatch(value) else None


def assigned_student_id(source: str) -> str | None:
    """The id a code cell's ``source`` assigns to ``STUDENT_ID``, read with :mod:`ast`, never run (issue 37).

    Only a top-level ``STUDENT_ID = "..."`` (or ``STUDENT_ID: str = "..."``) whose value is a
    string literal counts, and only if that string is an id (:data:`STUDENT_ID`). The first
    assignment to ``STUDENT_ID`` decides: a call, a name, an f-string or any other expression is
    rejected (None), never evaluated. A source longer than :data:`MAX_ID_CELL_CHARS`, or one
    that does not parse (too deeply nested, null bytes, not Python), gives None.
    """
    if not isinstance(source, str) or len(source) > MAX_ID_CELL_CHARS or STUDENT_ID_VARIABLE not in source:
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id == STUDENT_ID_VARIABLE:
            is_literal = isinstance(value, ast.Constant) and isinstance(value.value, str)
            return _checked_id(value.value) if is_literal else None
    return None


def _ipynb_code_cells(notebook) -> list[str]:
    """The sources of the first :data:`ID_CELLS` code cells of a parsed ``.ipynb`` (odd shapes skipped)."""
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    sources = []
    for cell in cells if isinstance(cells, list) else []:
        if len(sources) == ID_CELLS:
            break
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source")
        if isinstance(source, list) and all(isinstance(line, str) for line in source):
            source = "".join(source) if sum(map(len, source)) <= MAX_ID_CELL_CHARS else None
        sources.append(source if isinstance(source, str) else "")
    return sources


_FENCE = re.compile(r"(`{3,}|~{3,})\{code-cell\}")
_CELL_OPTION = re.compile(r":[\w-]+:")


def _myst_code_cells(head: str) -> list[str]:
    """The sources of the first :data:`ID_CELLS` ``{code-cell}`` blocks of a MyST notebook's text.

    One pass over the lines (bounded by ``head``'s length); a cell's options (``:tags: ...``
    lines, or a ``---`` block) are left out of its source.
    """
    sources, fence, body = [], None, []
    for line in head.splitlines():
        if fence is None:
            match = _FENCE.match(line)
            if match:
                fence, body = match.group(1), []
        elif line.rstrip() == fence[0] * len(line.rstrip()) and len(line.rstrip()) >= len(fence):
            if body and body[0].strip() == "---":
                end = next((i for i in range(1, len(body)) if body[i].strip() == "---"), len(body) - 1)
                body = body[end + 1 :]
            while body and _CELL_OPTION.match(body[0]):
                body = body[1:]
            sources.append("\n".join(body))
            fence = None
            if len(sources) == ID_CELLS:
                break
        else:
            body.append(line)
    return sources


def notebook_student(path: Path) -> str | None:
    """The student id a notebook declares, or None if it declares none that is an id.

    In this order (issue 37): ``student: ID`` in a MyST notebook's front matter, or the
    ``.ipynb`` metadata field ``student``; then ``STUDENT_ID = "ID"`` in one of the first
    :data:`ID_CELLS` code cells (the hand-out's first cell asks for it), read by
    :func:`assigned_student_id` without running anything. :func:`student_of` falls back on the
    folder, then the file's stem.

    Read from the student's file, so bounded: a MyST notebook is searched in its first 64 KB. The
    file is read as ``utf-8-sig`` (a byte-order mark is no part of the front matter), and the id
    is taken in its NFKC form (a full-width ``ａｌｉｃｅ`` is ``alice``) before it is checked
    against :data:`STUDENT_ID` (issue 35).
    """
    try:
        if path.suffix == ".md":
            with open(path, encoding="utf-8-sig", errors="replace") as handle:
                head = handle.read(HEAD_CHARS)
            end = head.find("\n---", 3)
            match = _FRONT_MATTER_STUDENT.match(head[: end + 1]) if head.startswith("---") and end > 0 else None
            declared = _checked_id(match.group(1)) if match else None
            cells = _myst_code_cells(head[end + 4 :] if head.startswith("---") and end > 0 else head)
        else:
            notebook = json.loads(path.read_bytes().decode("utf-8-sig"))
            metadata = notebook.get("metadata") if isinstance(notebook, dict) else None
            declared = _checked_id(metadata.get("student")) if isinstance(metadata, dict) else None
            cells = _ipynb_code_cells(notebook)
    except (OSError, ValueError, AttributeError, RecursionError):
        return None
    if declared:
        return declared
    return next(filter(None, map(assigned_student_id, cells)), None)
