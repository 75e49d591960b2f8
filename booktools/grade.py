"""Grade a folder of submitted notebooks with an assignment's hidden tests (the lecturer's command).

Usage::

    python -m booktools grade SUBMISSIONS --assignment NAME --out scores.csv \\
        [--timeout 60] [--cpu-seconds 65] [--memory-mb 1024] [--max-output-kb 256] [--jobs 1] \\
        [--judge-memory-mb 1024] [--feedback-dir DIR] [--regrade-errors] [--force] [--unsafe-no-sandbox]
    python -m booktools grade --write-public-checks [--check]

**Two processes, data between them.** Each submission runs in its own sandboxed worker
(``booktools/grade_worker.py`` under bubblewrap, see ``booktools/grade_sandbox.py``): the notebook's
code cells run there, in order, as "Run all" would. The hidden tests
(``book/assignments/lecturer/NAME_hidden.py``), the reference solution, the streams and
adversaries and the scoring run only here, in the grader. The two exchange JSON lines:
the grader asks the worker to build the student's learner and to call ``predict``,
``update`` and read the observed attributes, or to call the student's function, and
checks every reply as plain data of bounded size (``onlinelib.plain_data``). The worker
never holds an expected value, the reference or the hidden tests, and cannot write a
result: the grader alone scores, and a score lies in [0, max].

**The sandbox** has its own user, PID, network, IPC and mount namespaces, uid 65534
with no capabilities, a size-capped tmpfs as its only writable place, the Python
environment read-only, and nothing of the repository, ``lecturer/`` or the other
submissions. The parts of ``onlinelib`` the assignment asks the student to write (the
hidden file's ``FORBIDDEN``, e.g. ``onlinelib.version_space`` for Halving) are replaced
there by stubs, so a submission that uses them gets 0 with that reason. When the time
is up, the whole sandbox dies, children and ``setsid`` daemons included. Each of its processes
also has ``--cpu-seconds`` of CPU time from its first cell on: a loop that spins ends there (status
``timeout``), after the same work whatever the machine's load. Without
bubblewrap (Debian package ``bubblewrap``) the grader stops, unless
``--unsafe-no-sandbox`` is given (the same protocol, but with your own rights).

**One submission costs only its own row.** The grader's own work on a submission (the sandbox,
the requests, decoding and comparing the replies, the hidden tests) runs in a judge process of its
own (``booktools/judge.py``), under the submission's deadline and a memory budget
(``--judge-memory-mb``). Before the first submission a small notebook of the grader's own goes
through the whole pipeline; if it fails, the run stops having graded nothing. A failure of the
grader itself (the worker died before the student's first cell, the hidden tests raised) is
retried once and then recorded as ``grader-error``, never as the student's zero: the run lists
those rows ("regrade these") and exits with status 3, and ``--regrade-errors`` grades only them
again, keeping every other row of OUT and its feedback file. Feedback is scrubbed of the paths of
this machine (repository, Python, home, temporary folders).

**Every file gets a row.** SUBMISSIONS is searched without recursion (at most 32 folders deep and
20,000 entries; one "skipped" row stands for what is left out), symbolic links are not
followed, and every entry gets a row written as soon as it is graded: notebooks
(``.ipynb`` and MyST ``.md``) are graded; symbolic links, special files, files over
``--max-notebook-mb``, files that are not UTF-8 and non-Python notebooks are rejected
with the reason; other files and hidden entries are listed as skipped. CSV cells that a
spreadsheet would read as a formula are neutralised and control characters escaped.
Besides the CSV, ``--feedback-dir`` (default: next to the CSV, ``<out>_feedback/``) gets
one Markdown file per submission with each check, its points and its message, named after the
submission without its suffix (``alice.ipynb`` → ``alice.md``, ``s1/work.ipynb`` →
``s1__work.md``), with a short hash of the full name added when that name would be ambiguous or
unsafe (``alice.md`` beside ``alice.ipynb``: the rule is ``feedback_names``).

The CSV has the columns ``submission, student, score, max_score, status, feedback`` and then one
per check of the hidden tests, ``NAME [MAX]`` in the order of the reference's report, holding the
points the submission earned on it (empty unless its status is graded); status is one of graded,
forbidden, timeout, memory, output, syntax_error, error, missing, crashed, protocol, unreadable,
rejected, skipped, grader-error. Before grading, the reference solution is graded in this process
and must get full marks; its score is every row's ``max_score`` and its checks are the columns.
The run ends with the three checks failed most often ("most failed checks: NAME (k of n)").

**Grading again.** An existing OUT (or feedback folder) stops the run before it grades anything,
unless ``--force`` (grade again and replace them), ``--regrade-errors`` or ``--merge-manual`` (which
is given only to grade again, so it implies consent) is given. The feedback folder is replaced as
a whole: the run writes into a new folder beside it and renames it into place at the end, so no
file of an earlier run is left beside the new ones (``--regrade-errors`` copies the kept rows'
files into it). Every feedback folder the grader makes holds the marker file
``.onlinelib-feedback``, and the grader deletes only such a folder (or an empty one): a
``--feedback-dir`` that exists with other files and no marker is refused, as is one that would
hold OUT, the submissions or the current folder.

**Per student** (issue 27): each row belongs to a student (the id the notebook declares, else its
first folder, else its file's stem); ``--gradebook`` (default ``<out>_gradebook.csv``) gets one row
per student and one column per written question, and a student with two files is flagged, not
counted twice. An assignment with written questions (the hidden file's ``QUESTIONS``) also gets
``--review-dir`` (default ``<out>_review/``): one HTML page per question with every answer
(anonymous codes, maths typeset offline) and the blank rubric; ``--merge-manual MARKS.csv`` merges
a filled copy of that rubric into the gradebook and the feedback files (``booktools/manual.py``).

``--write-public-checks`` records each assignment's public checks (the hidden file's
``public_checks()``) from the reference into ``book/assignments/NAME_public.json``, which
the student notebooks read; ``--check`` only verifies the files are current.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import csv
import dataclasses
import glob
import hashlib
import itertools
import json
import os
import re
import secrets
import shutil
import stat
import sys
import tempfile
import threading
import time
from pathlib import Path

from booktools import grade_sandbox as sandbox
from booktools import manual
from booktools.judge import GRADER_ERROR, JudgeConfig, load_hidden, run_judge

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = ROOT / "book" / "assignments"
HIDDEN_DIR = ASSIGNMENTS / "lecturer"
STATUSES = (
    "graded",
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
MAX_DEPTH = 32  # folders below SUBMISSIONS searched; a deeper folder gets one "skipped" row
MAX_ENTRIES = 20_000  # entries listed in all; past that, one "skipped" row for the rest
FIELDS = ["submission", "student", "score", "max_score", "status", "feedback"]
NOTEBOOK_SUFFIXES = (".ipynb", ".md")


# -- the hidden tests ---------------------------------------------------------------------


def hidden_path(assignment: str, hidden_dir: Path) -> Path:
    if not re.fullmatch(r"[A-Za-z0-9_]+", assignment):
        raise SystemExit(f"--assignment must be a name like 'halving', got {assignment!r}")
    path = hidden_dir / f"{assignment}_hidden.py"
    if not path.is_file():
        known = sorted(p.name[: -len("_hidden.py")] for p in hidden_dir.glob("*_hidden.py"))
        raise SystemExit(
            f"no hidden tests for assignment {assignment!r} ({path} does not exist); known: {', '.join(known)}"
        )
    return path


def public_checks_path(assignment: str, assignments: Path = ASSIGNMENTS) -> Path:
    return assignments / f"{assignment}_public.json"


def public_checks_text(hidden) -> str:
    """The public-checks file of one assignment, recorded from its reference."""
    from booktools.checks import record_public_checks

    if hasattr(hidden, "PARTS"):  # one section per part: load_public_checks(path, part=NAME)
        data = {
            "format": 1,
            "kind": "parts",
            "parts": {
                name: record_public_checks(hidden.REFERENCE[name], **kwargs)
                for name, kwargs in hidden.public_checks().items()
            },
        }
    else:
        data = record_public_checks(hidden.REFERENCE, **hidden.public_checks())
    return json.dumps(data, indent=None, separators=(",", ":"), allow_nan=True) + "\n"


def write_public_checks(check: bool, hidden_dir: Path = HIDDEN_DIR, assignments: Path = ASSIGNMENTS) -> int:
    stale = []
    for path in sorted(hidden_dir.glob("*_hidden.py")):
        hidden = load_hidden(path)
        if not hasattr(hidden, "public_checks"):
            continue
        name = path.name[: -len("_hidden.py")]
        target = public_checks_path(name, assignments)
        text = public_checks_text(hidden)
        current = target.read_text(encoding="utf-8") if target.is_file() else None
        if current != text:
            stale.append(target)
            if not check:
                target.write_text(text, encoding="utf-8")
        print(
            f"{target.relative_to(ROOT) if target.is_relative_to(ROOT) else target}: "
            f"{'up to date' if current == text else ('STALE' if check else 'written')}",
            file=sys.stderr,
        )
    if check and stale:
        print("public checks are stale: run `python -m booktools grade --write-public-checks`", file=sys.stderr)
        return 1
    return 0


# -- text that reaches the CSV, the terminal and the feedback files -----------------------------


def printable(text: str) -> str:
    """Control characters (and other unprintable ones) escaped, e.g. a newline as \\n."""
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in str(text))


def csv_cell(value) -> str:
    """A CSV cell a spreadsheet shows as text: no formula (=, +, -, @ or a tab/CR first), no control characters."""
    text = printable(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text  # tab and CR are escaped already


def markdown_text(text: str) -> str:
    """Untrusted text as literal Markdown (no links, HTML or emphasis)."""
    return re.sub(r"([\\`*_\[\]<>|&])", r"\\\1", printable(text))


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


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


# -- grading one submission -----------------------------------------------------------------------

_COUNTER = itertools.count()
PROBE_NOTEBOOK = {
    "cells": [
        {
            "cell_type": "code",
            "metadata": {},
            "outputs": [],
            "execution_count": None,
            "source": "from __future__ import annotations\nimport numpy as np\nimport onlinelib",
        },
        {
            "cell_type": "code",
            "metadata": {},
            "outputs": [],
            "execution_count": None,
            "source": "def grader_probe(n: int) -> list:\n    return [n, 2.5, 'ok', np.arange(3)]",
        },
    ],
    "metadata": {"kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}


class Grader:
    """Everything one grading run shares: the hidden tests, the library copy and the limits."""

    def __init__(self, hidden_file: Path, assignment: str, library: Path, args, bwrap: str | None, max_score: float):
        self.assignment, self.library, self.args, self.bwrap = assignment, library, args, bwrap
        self.public = public_checks_path(assignment, args.assignments_dir)
        self.limits = {
            "memory_mb": args.memory_mb,
            "cpu_seconds": args.cpu_seconds,
            "file_mb": 16,
            "processes": args.max_processes,
            "tmpfs_mb": 64,
            "output_bytes": args.max_output_kb * 1024,
            "reply_bytes": 4 * 2**20,
            "timeout": args.timeout,
        }
        self.config = JudgeConfig(hidden_file, assignment, library, self.limits, bwrap, max_score, args.judge_memory_mb)

    def _box(self, data: bytes, suffix: str) -> Path:
        """A fresh private folder holding the notebook as ``submission/submission<suffix>`` and the public checks."""
        box = Path(tempfile.mkdtemp(prefix="grade-"))  # 0700: only the grader reaches into it
        inner = box / "submission"
        inner.mkdir(mode=0o755)
        inner.chmod(0o755)
        notebook = inner / ("submission" + suffix)
        notebook.write_bytes(data)
        notebook.chmod(0o644)
        if self.public.is_file():
            shutil.copyfile(self.public, inner / self.public.name)
            (inner / self.public.name).chmod(0o644)
        return box

    def _cgroup_name(self) -> str:
        return f"{sandbox.CgroupLimits.PREFIX}{os.getpid()}-{next(_COUNTER)}"

    def check_environment(self) -> None:
        """Run a known notebook through the whole pipeline before any submission; stop the run if it fails.

        A grader that cannot run notebooks (a Python without jupytext or IPython, a broken
        sandbox, a library that does not import) would otherwise give every student 0.
        """
        box = self._box(json.dumps(PROBE_NOTEBOOK).encode("utf-8"), ".ipynb")
        probe = None
        try:
            probe = sandbox.Sandbox(
                box / "submission",
                self.library,
                dict(self.limits, timeout=max(60.0, self.args.timeout)),
                time.monotonic() + max(60.0, self.args.timeout),
                bwrap=self.bwrap,
                name=self._cgroup_name(),
            )
            where = "/submission/submission.ipynb" if self.bwrap else str(box / "submission" / "submission.ipynb")
            outcome = probe.run_notebook(where, "grader_probe", "function")
            if outcome["status"] != "ok":
                raise SystemExit(
                    f"the grader cannot run notebooks here, so nothing was graded: its own test "
                    f"notebook got {outcome['status']}: {sandbox._clean(outcome.get('reason', ''), 400)}"
                )
            value = probe.value(outcome)(4)
            if not (isinstance(value, list) and value[:3] == [4, 2.5, "ok"] and list(value[3]) == [0, 1, 2]):
                raise SystemExit(
                    f"the grader cannot run notebooks here, so nothing was graded: its test "
                    f"notebook returned {sandbox._clean(repr(value), 200)}"
                )
        except (sandbox.SandboxFailure, sandbox.RemoteError) as failure:
            raise SystemExit(
                f"the grader cannot run notebooks here, so nothing was graded: its own test notebook "
                f"failed ({getattr(failure, 'status', 'error')}): {sandbox._clean(failure, 400)}"
            ) from None
        finally:
            if probe is not None:
                probe.close()
            shutil.rmtree(box, ignore_errors=True)

    def grade(self, name: str, path: Path) -> dict:
        """Grade one notebook; its row (with the checks for the feedback file). Never raises but for ^C.

        The grading runs in a judge process (``booktools/judge.py``). A ``grader-error`` (the
        worker died before the student's code ran, or the grader itself failed) is retried once.
        """
        row = {"submission": name, "score": 0.0, "status": "", "feedback": "", "checks": []}
        data, problem = read_notebook(path, self.args.max_notebook_mb * 2**20)
        if problem:
            row["status"], row["feedback"] = problem
            return row
        for _attempt in (1, 2):
            box = None
            try:
                box = self._box(data, path.suffix)
                row.update(run_judge(self.config, box / "submission", "submission" + path.suffix, self._cgroup_name()))
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # a fault of the grader itself must not cost the other rows
                row.update(
                    status=GRADER_ERROR,
                    score=0.0,
                    checks=[],
                    feedback=f"the grader failed on this submission: {type(exc).__name__}: {sandbox._clean(exc, 200)}",
                )
            finally:
                if box is not None:
                    shutil.rmtree(box, ignore_errors=True)
            if row["status"] != GRADER_ERROR:
                return row
        row["feedback"] = f"{row['feedback']} (tried twice; not the student's fault: regrade with --regrade-errors)"
        return row


# -- the outputs -----------------------------------------------------------------------------------


def feedback_markdown(row: dict, max_score: float, title: str) -> str:
    lines = [
        f"# {markdown_text(title)}",
        "",
        f"**Submission:** {markdown_text(row['submission'])}  ",
        f"**Score:** {_fmt(row['score'])}/{_fmt(max_score)}  ",
        f"**Status:** {row['status']}",
        "",
    ]
    if row["checks"]:
        lines += ["| check | points | result |", "|---|---|---|"]
        for check in row["checks"]:
            mark = "pass" if check.passed else "**FAIL**"
            lines.append(
                f"| {markdown_text(check.name)} | {_fmt(check.points)}/{_fmt(check.max_points)} | "
                f"{mark}: {markdown_text(check.message)} |"
            )
    else:
        lines.append(markdown_text(row["feedback"]))
    return "\n".join(lines) + "\n"


FEEDBACK_MARKER = ".onlinelib-feedback"  # in every feedback folder the grader made, and only there
FEEDBACK_MARKER_TEXT = (
    "This folder was made by `python -m booktools grade`: grading again (--force, --regrade-errors,\n"
    "--merge-manual) replaces it as a whole. Keep your own files elsewhere.\n"
)
_HASHED = re.compile(r"-[0-9a-f]{10}$")  # the tail of a name that carries a hash
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def _feedback_base(submission: str) -> str:
    """The submission's path without its suffix, its folders joined by ``__`` (not yet made safe)."""
    folder, _, leaf = submission.rstrip("/").rpartition("/")
    dot = leaf.rfind(".")
    stem = leaf[:dot] if dot > 0 else leaf
    return (f"{folder}/{stem}" if folder else stem).replace("/", "__")


def feedback_names(submissions) -> dict[str, str]:
    """The feedback file of each submission of one run: ``{submission: file name}``.

    The rule: the submission's path with its suffix replaced by ``.md`` and its folders joined by
    ``__`` (``alice.md`` → ``alice.md``, ``alice.ipynb`` → ``alice.md``, ``s1/work.ipynb`` →
    ``s1__work.md``), kept as it is when that name is *plain*: only ``A-Z a-z 0-9 . _ -``, not
    starting or ending with ``.``, ``_`` or ``-``, at most 120 characters, not ending like a hash,
    and no other submission of the run has the same one (ignoring case, for file systems that do).
    Otherwise the name is made safe (other characters become ``_``, cut to 120) and gets ``-`` and
    the first 10 hex digits of the SHA-256 of the full submission name: ``alice.md`` and
    ``alice.ipynb`` in one folder become ``alice-<hash of "alice.md">.md`` and
    ``alice-<hash of "alice.ipynb">.md``; ``a b.md`` becomes ``a_b-<hash>.md``.

    So two submissions never share a name (a plain name is unique in the run and never ends like a
    hashed one; hashed names differ by their hash), and each is under 140 characters, of safe
    characters only, never hidden. A submission keeps its name from run to run as long as the set
    of names does: the name depends on the other submissions only when they collide, by design
    (never overwriting one student's feedback with another's matters more than a name that stays
    the same when a clashing file is added later). ``--regrade-errors`` renames the kept files if
    that happens.
    """
    names = list(dict.fromkeys(submissions))
    bases = {name: _feedback_base(name) for name in names}
    clashes: dict[str, int] = {}
    for base in bases.values():
        clashes[base.casefold()] = clashes.get(base.casefold(), 0) + 1
    found = {}
    for name, base in bases.items():
        safe = _UNSAFE.sub("_", base).strip("._-")
        if safe == base and 0 < len(safe) <= 120 and not _HASHED.search(safe) and clashes[base.casefold()] == 1:
            found[name] = safe + ".md"
        else:
            digest = hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:10]
            found[name] = f"{(safe or 'submission')[:120].rstrip('._-') or 'submission'}-{digest}.md"
    return found


def feedback_name(submission: str, others=()) -> str:
    """The feedback file's name of one submission among ``others`` (the run's other submissions)."""
    return feedback_names([submission, *others])[submission]


def host_paths() -> list[tuple[str, str]]:
    """Paths of this machine that feedback must not show, each with its neutral stand-in (longest first)."""
    places = {
        str(ROOT): "<repository>",
        os.path.realpath(ROOT): "<repository>",
        sys.prefix: "<python>",
        os.path.realpath(sys.prefix): "<python>",
        sys.base_prefix: "<python>",
        os.path.realpath(sys.base_prefix): "<python>",
        str(Path.home()): "<home>",
        tempfile.gettempdir(): "<tmp>",
        os.path.realpath(tempfile.gettempdir()): "<tmp>",
    }
    system = {"", "/", "/usr", "/usr/local", "/tmp"}
    return sorted(
        ((path, label) for path, label in places.items() if path.rstrip("/") not in system),
        key=lambda item: -len(item[0]),
    )


_HOST_PATHS = host_paths()
_TEMPORARY = re.compile(r"/(?:tmp|var/tmp)/grade-[A-Za-z0-9_]+")


def scrub(text: str) -> str:
    """``text`` with the paths of this machine (repository, Python, home, temporary folders) replaced.

    The sandbox shows the submission only neutral paths; this is the last line of defence for
    anything that reaches the feedback anyway.
    """
    text = _TEMPORARY.sub("<tmp>", str(text))
    for path, label in _HOST_PATHS:
        text = text.replace(path, label)
    return text


def scrubbed(row: dict) -> dict:
    """The row with its feedback and every check's message scrubbed of this machine's paths."""
    checks = [dataclasses.replace(c, name=scrub(c.name), message=scrub(c.message)) for c in row.get("checks", [])]
    return dict(row, feedback=scrub(row["feedback"]), checks=checks)


@dataclasses.dataclass(frozen=True)
class CheckColumn:
    """One per-check column of the CSV: a check of the reference's report, in its order."""

    header: str  # "NAME [MAX]", made a safe CSV cell; a name that repeats gets " (2)", " (3)", ...
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
        header = csv_cell(f"{shown} [{_fmt(check.max_points)}]")
        while header in headers:  # a check whose own name looks like "x (2)": never two columns alike
            header = csv_cell(f"{shown} (again) [{_fmt(check.max_points)}]")
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
    return {column.header: _fmt(earned.get((column.name, column.occurrence), 0.0)) for column in columns}


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


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def clear_leftovers(final: Path) -> list[Path]:
    """Delete the half-written feedback folders of runs that were killed (``.NAME.new-PID-RANDOM``).

    Only a folder that holds the grader's marker and whose process no longer runs goes; a run
    still writing its own keeps it. Returns the folders deleted.
    """
    gone = []
    for path in final.parent.glob(f".{glob.escape(final.name)}.new-*"):
        pid = path.name.rsplit(".new-", 1)[1].split("-", 1)[0]
        if path.is_symlink() or not pid.isdigit() or _running(int(pid)) or not (path / FEEDBACK_MARKER).is_file():
            continue
        shutil.rmtree(path, ignore_errors=True)
        gone.append(path)
    return gone


class FeedbackFolder:
    """The grader's feedback folder, written afresh and swapped in as a whole at the end of the run.

    The run writes into a new folder beside ``final`` (``.NAME.new-PID-RANDOM``, holding the marker
    file ``.onlinelib-feedback``) and ``swap`` renames it into place, so no feedback file of an
    earlier run survives beside the new ones. The old folder is deleted only if it holds the marker
    (the grader made it) or is empty; ``check_feedback_dir`` refuses any other folder before the run.
    """

    def __init__(self, final: Path):
        self.final = final
        final.parent.mkdir(parents=True, exist_ok=True)
        clear_leftovers(final)
        self.path = final.with_name(f".{final.name}.new-{os.getpid()}-{secrets.token_hex(4)}")
        self.path.mkdir()
        (self.path / FEEDBACK_MARKER).write_text(FEEDBACK_MARKER_TEXT, encoding="utf-8")
        self.swapped = False

    def carry_over(self, names: dict[str, str]) -> None:
        """Copy the earlier run's feedback files ``{old name: new name}`` into the new folder."""
        for old, new in names.items():
            source = self.final / old
            if source.is_file() and not source.is_symlink():
                shutil.copyfile(source, self.path / new)

    def swap(self) -> None:
        """Put the new folder in the place of ``final``; delete the old one if the grader made it."""
        if self.swapped:
            return
        old = None
        if os.path.lexists(self.final):
            old = self.final.with_name(f".{self.final.name}.old-{os.getpid()}-{secrets.token_hex(4)}")
            os.rename(self.final, old)
        os.rename(self.path, self.final)
        self.path, self.swapped = self.final, True
        if old is not None:
            if (old / FEEDBACK_MARKER).is_file() and not old.is_symlink():
                shutil.rmtree(old, ignore_errors=True)
            else:
                try:
                    old.rmdir()  # an empty folder only
                except OSError:
                    print(f"the earlier feedback folder was not the grader's: it is now {old}", file=sys.stderr)


def check_feedback_dir(folder: Path, keep_out: list[Path]) -> str | None:
    """Why the grader may not replace ``folder`` with its feedback, or None if it may.

    It may if ``folder`` does not exist, is an empty folder, or holds the marker file of a feedback
    folder the grader made, and if it holds none of ``keep_out`` (the CSV, the submissions, ...).
    """
    where = folder.resolve()
    for path in keep_out:
        target = Path(os.path.abspath(path))
        if target == where or where in target.parents or target.resolve() == where or where in target.resolve().parents:
            return f"the feedback folder {folder} would hold {path}: the grader replaces that folder as a whole"
    if folder.is_symlink() or (os.path.lexists(folder) and not folder.is_dir()):
        return f"the feedback folder {folder} exists and is not a folder"
    if folder.is_dir() and not (folder / FEEDBACK_MARKER).is_file() and any(folder.iterdir()):
        return (
            f"the feedback folder {folder} exists and was not made by this grader (it has no {FEEDBACK_MARKER} "
            "file); the grader replaces its feedback folder as a whole, so it will not use this one: name a new "
            "--feedback-dir, or move that folder away"
        )
    return None


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
    ):
        self.out, self.feedback, self.max_score, self.title = out, feedback, max_score, title
        self.columns, self.names = columns, names
        self.fields = [*FIELDS, *(c.header for c in columns)]
        self.rows: list[dict] = list(kept)
        self.lock = threading.Lock()
        feedback.carry_over(carried or {})
        out.parent.mkdir(parents=True, exist_ok=True)
        self.file = open(out, "w", newline="", encoding="utf-8")
        self.writer = csv.DictWriter(self.file, fieldnames=self.fields, extrasaction="ignore")
        self.writer.writeheader()
        for row in self.rows:
            self.writer.writerow(self.cells(row))
        self.file.flush()

    @property
    def feedback_dir(self) -> Path:
        """Where the feedback files are now (the new folder until ``finish``, then its final place)."""
        return self.feedback.path

    def cells(self, row: dict) -> dict:
        kept = row.get("check_cells") or {}
        return {
            "submission": csv_cell(row["submission"]),
            "student": csv_cell(student_of(row)),
            "score": _fmt(row["score"]),
            "max_score": _fmt(self.max_score),
            "status": row["status"],
            "feedback": csv_cell(row["feedback"]),
            **{column.header: csv_cell(kept.get(column.header, "")) for column in self.columns},
        }

    def add(self, row: dict) -> None:
        row = scrubbed(row)
        row["check_cells"] = check_cells(row, self.columns)
        with self.lock:
            self.rows.append(row)
            self.writer.writerow(self.cells(row))
            self.file.flush()
            path = self.feedback_dir / self.names[row["submission"]]
            path.write_text(feedback_markdown(row, self.max_score, self.title), encoding="utf-8")
            print(
                f"  {printable(row['submission'])}: {_fmt(row['score'])}/{_fmt(self.max_score)} [{row['status']}]",
                file=sys.stderr,
                flush=True,
            )

    def finish(self) -> None:
        """Rewrite the CSV sorted by submission (atomically: the unsorted file stays until then), and
        put the new feedback folder in place."""
        if not self.file.closed:
            self.file.close()
            self.rows.sort(key=lambda r: r["submission"])
            tmp = self.out.with_name(self.out.name + ".tmp")
            with open(tmp, "w", newline="", encoding="utf-8") as f:
                writer = csv.DictWriter(f, fieldnames=self.fields)
                writer.writeheader()
                for row in self.rows:
                    writer.writerow(self.cells(row))
            os.replace(tmp, self.out)
        self.feedback.swap()

    def close(self) -> None:
        """After an interruption: the CSV as far as it got and the feedback folder to match."""
        if not self.file.closed:
            self.file.close()
        self.feedback.swap()


def student_of(row: dict) -> str:
    """The student a row belongs to: the id the notebook declares (``student:`` in its front matter or
    metadata), else the first folder of its path (a folder per student), else the file's stem."""
    declared = row.get("student")
    if declared:
        return declared
    first, _, rest = row["submission"].partition("/")
    return first if rest else Path(first).stem


# -- per student: the gradebook, the written answers -----------------------------------------------------

GRADEBOOK_FIXED = ["student", "automatic"]


def _students(rows: list[dict]) -> dict[str, list[dict]]:
    """{student: their rows}, for every row that stands for a hand-in (skipped entries are no one's)."""
    found: dict[str, list[dict]] = {}
    for row in rows:
        if row["status"] != "skipped":
            found.setdefault(student_of(row), []).append(row)
    return found


def answers_by_student(students: dict[str, list[dict]]) -> dict[str, dict[str, str]]:
    """Each student's written answers, from their one submission (none while they have two)."""
    return {s: dict(rows[0].get("answers") or {}) for s, rows in students.items() if len(rows) == 1}


def write_gradebook(path: Path, students: dict[str, list[dict]], max_score: float, questions, marks) -> list[str]:
    """One row per student, one column per question: the CSV an LMS gradebook imports.

    Columns: ``student``, ``automatic`` (the hidden tests' points), one column per written
    question (``QUESTION [max]``: the merged manual points, empty until marked), ``total`` and
    ``status`` (``ok``; ``duplicate: FILES``, a student with two submissions, whose score is left
    empty until one is removed; ``to mark``, some question not marked yet; ``changed``, an answer
    changed after it was marked). Returns the students flagged as duplicates.
    """
    columns = [f"{q.id} [{_fmt(float(q.points))}]" for q in questions]
    fields = [*GRADEBOOK_FIXED, *columns, "total", "max", "status"]
    duplicates = []
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(fields)
        total_max = max_score + sum(float(q.points) for q in questions)
        for student in sorted(students):
            rows = students[student]
            if len(rows) > 1:
                duplicates.append(student)
                files = ", ".join(sorted(printable(r["submission"]) for r in rows))
                writer.writerow(
                    [csv_cell(student), "", *[""] * len(columns), "", _fmt(total_max), csv_cell(f"duplicate: {files}")]
                )
                continue
            row = rows[0]
            cells, total, status = [], float(row["score"]), "ok"
            for q in questions:
                mark = (marks.get(student) or {}).get(q.id)
                if mark is None or mark.status in ("unmarked", "changed"):
                    cells.append("")
                    status = "changed" if mark is not None and mark.status == "changed" else "to mark"
                else:
                    cells.append(_fmt(float(mark.points)))
                    total += float(mark.points)
            if row["status"] != "graded" and status == "ok":
                status = row["status"]
            writer.writerow([csv_cell(student), _fmt(row["score"]), *cells, _fmt(total), _fmt(total_max), status])
    os.replace(tmp, path)
    return duplicates


def per_student_outputs(args, hidden, rows: "Rows", max_score: float, title: str) -> list[str]:
    """The gradebook and, for an assignment with written questions, the review pages, the rubric and
    the merged marks (``--merge-manual``); returns what the lecturer must look at, as lines."""
    questions = manual.questions_from_hidden(getattr(hidden, "QUESTIONS", []))
    students = _students(rows.rows)
    lines, marks = [], {}
    if questions:
        review_dir = args.review_dir or args.out.with_name(args.out.stem + "_review")
        review_dir.mkdir(parents=True, exist_ok=True)
        stored_file = review_dir / "answers.json"  # a rerun (--regrade-errors) keeps the answers of rows it keeps
        stored = json.loads(stored_file.read_text(encoding="utf-8")) if stored_file.is_file() else {}
        for row in rows.rows:
            if "answers" not in row and isinstance(stored.get(row["submission"]), dict):
                row["answers"] = stored[row["submission"]]
        # the assignment's own placeholder ("Write your proof here") is no answer
        template = args.assignments_dir / f"{args.assignment}.md"
        blank = manual.extract_answers(template, questions)[0] if template.is_file() else {}
        for row in rows.rows:
            if isinstance(row.get("answers"), dict):
                row["answers"] = {
                    q: text
                    for q, text in row["answers"].items()
                    if " ".join(text.split()) != " ".join(blank.get(q, "").split())
                }
        stored = {row["submission"]: row["answers"] for row in rows.rows if "answers" in row}
        stored_file.write_text(json.dumps(stored, indent=1, sort_keys=True), encoding="utf-8")
        answers = answers_by_student(students)
        # beside the CSV, not in the review folder: that folder can go to a marker without the names
        codes = manual.assign_codes(sorted(answers), args.out.with_name(args.out.stem + "_review_key.csv"))
        manual.write_review(review_dir, questions, answers, codes, show_names=args.review_names, title=title)
        lines.append(
            f"written answers: one review page per question in {review_dir}/ (index.html); mark them in a copy of "
            f"{review_dir / 'rubric.csv'} and grade again with --merge-manual YOUR_COPY"
        )
        if args.merge_manual:
            try:
                marks, notes = manual.merge_rubric(args.merge_manual, questions, answers, codes)
            except (ValueError, TypeError, OSError) as exc:
                raise SystemExit(f"--merge-manual {args.merge_manual}: {exc}") from None
            lines += notes
            for student, student_marks in marks.items():
                row = students[student][0]
                path = rows.feedback_dir / rows.names[row["submission"]]
                text = feedback_markdown(row, rows.max_score, rows.title)
                path.write_text(text + "\n" + manual.feedback_text(student_marks, questions), encoding="utf-8")
    elif args.merge_manual:
        raise SystemExit(f"--merge-manual: assignment {args.assignment!r} has no written questions (QUESTIONS)")
    gradebook = args.gradebook or args.out.with_name(args.out.stem + "_gradebook.csv")
    duplicates = write_gradebook(gradebook, students, max_score, questions, marks)
    lines.append(f"gradebook (one row per student): {gradebook}")
    if duplicates:
        lines.append(
            f"students with more than one submission ({len(duplicates)}), left without a score in the gradebook "
            f"until one file is removed: {', '.join(printable(d) for d in duplicates)}"
        )
    return lines


def read_previous_rows(out: Path) -> tuple[list[dict], list[str]]:
    """The rows of an earlier run's CSV (``--regrade-errors``) and its per-check headers.

    The CSV must start with the columns ``FIELDS``; the columns after them are the per-check ones,
    whose cells each row keeps (``check_cells``) as they are.
    """
    if not out.is_file():
        raise SystemExit(f"--regrade-errors needs the CSV of an earlier run, and {out} does not exist")
    with out.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        fields = reader.fieldnames or []
        if fields[: len(FIELDS)] != FIELDS or len(set(fields)) != len(fields):
            raise SystemExit(f"{out} is not a grades file of this grader (its columns are {reader.fieldnames})")
        headers = fields[len(FIELDS) :]
        rows = []
        for row in reader:
            try:
                score = float(row["score"])
            except (TypeError, ValueError):
                raise SystemExit(f"{out}: row {reader.line_num} has no score ({row['score']!r})") from None
            rows.append(
                {
                    "submission": row["submission"],
                    "student": row["student"],
                    "score": score,
                    "status": row["status"],
                    "feedback": row["feedback"],
                    "checks": [],
                    "check_cells": {header: row[header] or "" for header in headers},
                }
            )
        return rows, headers


# -- the command line -------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Grade a folder of submitted notebooks with an assignment's hidden tests, each in a sandbox.",
    )
    parser.add_argument("submissions", type=Path, nargs="?", help="folder of .ipynb or MyST .md notebooks")
    parser.add_argument("--assignment", help="the assignment, e.g. halving")
    parser.add_argument("--out", type=Path, help="the CSV file to write")
    parser.add_argument(
        "--feedback-dir",
        type=Path,
        help="one Markdown feedback file per submission (default: OUT's name with _feedback, next to it)",
    )
    parser.add_argument("--timeout", type=float, default=60.0, help="wall-clock seconds per submission (default 60)")
    parser.add_argument(
        "--cpu-seconds",
        type=int,
        help="CPU seconds per process of a submission (default: --timeout + 5); a loop that spins ends here, "
        "whatever the machine's load",
    )
    parser.add_argument("--memory-mb", type=int, default=1024, help="memory per process of a submission (default 1024)")
    parser.add_argument("--max-output-kb", type=int, default=256, help="output limit per submission (default 256)")
    parser.add_argument("--max-notebook-mb", type=int, default=16, help="largest notebook file graded (default 16)")
    parser.add_argument(
        "--max-processes", type=int, default=16, help="processes and threads per submission (default 16)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="submissions graded at once (default 1)")
    parser.add_argument(
        "--judge-memory-mb",
        type=int,
        default=1024,
        help="memory for the grader's own work on one submission's replies (default 1024)",
    )
    parser.add_argument(
        "--regrade-errors",
        action="store_true",
        help="regrade only the rows of OUT (an earlier run) whose status is grader-error",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="grade again into an existing OUT, replacing it and its feedback folder (--regrade-errors and "
        "--merge-manual need no --force)",
    )
    parser.add_argument(
        "--gradebook", type=Path, help="one row per student (default: OUT's name with _gradebook.csv, next to it)"
    )
    parser.add_argument(
        "--review-dir",
        type=Path,
        help="written answers: the review pages and the rubric (default: OUT's name with _review, next to it)",
    )
    parser.add_argument(
        "--review-names", action="store_true", help="show the students' ids on the review pages (default: anonymous)"
    )
    parser.add_argument(
        "--merge-manual",
        type=Path,
        metavar="RUBRIC_CSV",
        help="merge the marks of a filled copy of the review's rubric.csv into the gradebook and the feedback",
    )
    parser.add_argument("--hidden-dir", type=Path, default=HIDDEN_DIR, help="where NAME_hidden.py lives")
    parser.add_argument("--assignments-dir", type=Path, default=ASSIGNMENTS, help="where NAME_public.json lives")
    parser.add_argument(
        "--unsafe-no-sandbox",
        action="store_true",
        help="run submissions without bubblewrap, with your own rights (only for code you trust)",
    )
    parser.add_argument(
        "--write-public-checks",
        action="store_true",
        help="record every assignment's public checks from its reference into NAME_public.json",
    )
    parser.add_argument("--check", action="store_true", help="with --write-public-checks: only check they are current")
    args = parser.parse_args(argv)
    if args.write_public_checks:
        return write_public_checks(args.check, args.hidden_dir.resolve(), args.assignments_dir.resolve())
    for option in ("submissions", "assignment", "out"):
        if getattr(args, option) is None:
            parser.error(f"{'SUBMISSIONS' if option == 'submissions' else '--' + option} is required")
    if args.timeout <= 0:
        parser.error(f"--timeout must be positive, got {args.timeout}")
    if args.cpu_seconds is None:
        args.cpu_seconds = int(args.timeout) + 5
    for option, low in (
        ("memory_mb", 256),
        ("max_output_kb", 1),
        ("max_notebook_mb", 1),
        ("cpu_seconds", 1),
        ("max_processes", 4),
        ("jobs", 1),
        ("judge_memory_mb", 256),
    ):
        if getattr(args, option) < low:
            parser.error(f"--{option.replace('_', '-')} must be at least {low}, got {getattr(args, option)}")
    if not args.submissions.is_dir():
        parser.error(f"{args.submissions} is not a folder")
    if args.merge_manual is not None and not args.merge_manual.is_file():
        parser.error(f"--merge-manual: {args.merge_manual} is not a file (a filled copy of the review's rubric.csv)")
    feedback_dir = args.feedback_dir or args.out.with_name(args.out.stem + "_feedback")
    # an earlier run's grades: OUT, or a feedback folder of the grader's (the CSV may have been moved)
    earlier = args.out if os.path.lexists(args.out) else feedback_dir
    if os.path.lexists(args.out) or (feedback_dir / FEEDBACK_MARKER).is_file():
        if not (args.force or args.regrade_errors or args.merge_manual is not None):
            parser.error(
                f"{earlier} exists (an earlier run's grades): nothing was graded. Add --force to grade again "
                f"and replace {args.out} and the feedback folder {feedback_dir}; --regrade-errors to regrade only "
                "its grader-error rows; or --merge-manual MARKS.csv to grade again with your marks merged"
            )
    review_dir = args.review_dir or args.out.with_name(args.out.stem + "_review")
    keep_out = [args.out, args.submissions, review_dir, Path.cwd()]
    keep_out += [p for p in (args.gradebook, args.merge_manual) if p is not None]
    problem = check_feedback_dir(feedback_dir, keep_out)
    if problem:
        parser.error(problem)

    bwrap = None
    if args.unsafe_no_sandbox:
        print("WARNING: --unsafe-no-sandbox: students' code runs with your rights, files and network", file=sys.stderr)
    else:
        bwrap = sandbox.find_bwrap()
        if bwrap is None:
            raise SystemExit(sandbox.missing_bwrap_message())
        sandbox.check_bwrap(bwrap)
        sandbox.CgroupLimits.remove_stale()

    hidden_file = hidden_path(args.assignment, args.hidden_dir.resolve())
    hidden = load_hidden(hidden_file)
    reference = hidden.grade(hidden.REFERENCE)
    if not reference.passed or reference.max_score <= 0:
        print(reference.summary(), file=sys.stderr)
        raise SystemExit(f"the reference solution fails the hidden tests of {args.assignment!r}: fix {hidden_file}")
    max_score = reference.max_score
    columns = check_columns(reference)

    entries = find_submissions(args.submissions)
    if not entries:
        raise SystemExit(f"{args.submissions} is empty")
    kept, before = [], {}
    if args.regrade_errors:
        previous, headers = read_previous_rows(args.out)
        # the CSV holds the names as neutralised cells: back to the names found, where the file is still there
        found = {csv_cell(name): name for name, _path, _problem in entries}
        for row in previous:
            row["submission"] = found.get(row["submission"], row["submission"])
        again = {row["submission"] for row in previous if row["status"] == GRADER_ERROR}
        kept = [row for row in previous if row["submission"] not in again]
        entries = [entry for entry in entries if entry[0] in again]
        if headers != [c.header for c in columns]:
            print(
                f"note: the checks of the hidden tests are not those of {args.out}'s columns; the kept rows "
                "keep their scores, and their cells of checks they were not graded on are empty",
                file=sys.stderr,
            )
        before = feedback_names(row["submission"] for row in previous)  # the earlier run's file names
        print(f"regrading the {len(entries)} row(s) of {args.out} with status {GRADER_ERROR}", file=sys.stderr)
    names = feedback_names([row["submission"] for row in kept] + [name for name, _path, _problem in entries])
    carried = {before[row["submission"]]: names[row["submission"]] for row in kept}  # its kept feedback files
    title = getattr(hidden, "TITLE", args.assignment)
    work = Path(tempfile.mkdtemp(prefix="grade-library-"))
    try:
        removed = sandbox.assignment_library(hidden.FORBIDDEN, args.assignment, work / "lib")
        grader = Grader(hidden_file, args.assignment, work / "lib", args, bwrap, max_score)
        grader.check_environment()
        print(
            f"grading {sum(e[2] is None for e in entries)} notebook(s) of {args.assignment!r} "
            f"(max score {_fmt(max_score)}, timeout {args.timeout:g} s, memory {args.memory_mb} MB, "
            f"output {args.max_output_kb} KB, {'UNSAFE: no sandbox' if bwrap is None else 'sandbox: bubblewrap'}; "
            f"removed for the students: {', '.join(f'{m} ({n})' for m, n in removed.items())})",
            file=sys.stderr,
        )
        rows = Rows(args.out, FeedbackFolder(feedback_dir), max_score, title, columns, names, kept, carried)
        try:
            for name, _path, problem in entries:
                if problem is not None:
                    rows.add(
                        {"submission": name, "score": 0.0, "status": problem[0], "feedback": problem[1], "checks": []}
                    )
            pool = concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs)
            try:
                futures = [pool.submit(grader.grade, name, path) for name, path, problem in entries if problem is None]
                for future in concurrent.futures.as_completed(futures):
                    rows.add(future.result())
            except KeyboardInterrupt:
                pool.shutdown(wait=False, cancel_futures=True)
                print(f"interrupted: the rows graded so far are in {args.out}", file=sys.stderr)
                return 130
            pool.shutdown()
            rows.finish()
        finally:
            rows.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    flagged = per_student_outputs(args, hidden, rows, max_score, title)

    width = min(60, max([len(printable(r["submission"])) for r in rows.rows] + [10]))
    print(f"{'submission':{width}s}  {'score':>7s}  {'status':12s}  feedback")
    for r in rows.rows:
        score = f"{_fmt(r['score'])}/{_fmt(max_score)}"
        print(f"{printable(r['submission']):{width}s}  {score:>7s}  {r['status']:12s}  {printable(r['feedback'])}")
    print(f"wrote {args.out} and {len(rows.rows)} feedback files in {feedback_dir}", file=sys.stderr)
    for line in flagged:
        print(line, file=sys.stderr)
    failed = most_failed(rows.rows, columns)
    if failed:
        print(failed, file=sys.stderr)
    errors = [r["submission"] for r in rows.rows if r["status"] == GRADER_ERROR]
    if errors:
        print(
            f"regrade these ({len(errors)}: the grader failed, not the students; they have no score yet): "
            f"{', '.join(printable(e) for e in errors)}\n  python -m booktools grade {args.submissions} "
            f"--assignment {args.assignment} --out {args.out} --regrade-errors",
            file=sys.stderr,
        )
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
