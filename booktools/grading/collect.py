"""Finding the submissions in a folder: every entry gets a row, nothing is followed or read twice."""

from __future__ import annotations

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


def notebook_student(path: Path) -> str | None:
    """The student id a notebook declares: ``student: ID`` in a MyST notebook's front matter, or the
    ``.ipynb`` metadata field ``student``; None if it declares none (or one that is not an id).

    Read from the student's file, so bounded: the front matter is searched in the first 64 KB. The
    file is read as ``utf-8-sig`` (a byte-order mark is no part of the front matter), and the id
    is taken in its NFKC form (a full-width ``ａｌｉｃｅ`` is ``alice``) before it is checked
    against :data:`STUDENT_ID` (issue 35).
    """
    try:
        if path.suffix == ".md":
            with open(path, encoding="utf-8-sig", errors="replace") as handle:
                head = handle.read(65536)
            end = head.find("\n---", 3)
            match = _FRONT_MATTER_STUDENT.match(head[: end + 1]) if head.startswith("---") and end > 0 else None
            value = match.group(1) if match else None
        else:
            value = json.loads(path.read_bytes().decode("utf-8-sig")).get("metadata", {}).get("student")
    except (OSError, ValueError, AttributeError, RecursionError):
        return None
    if not isinstance(value, str):
        return None
    value = unicodedata.normalize("NFKC", value)
    return value if STUDENT_ID.fullmatch(value) else None
