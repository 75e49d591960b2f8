"""Grade a folder of submitted notebooks with an assignment's hidden tests (the lecturer's command).

Usage::

    python -m booktools grade SUBMISSIONS --assignment NAME --out scores.csv \\
        [--timeout 60] [--memory-mb 1024] [--max-output-kb 256] [--jobs 1] \\
        [--feedback-dir DIR] [--unsafe-no-sandbox]
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
is up, the whole sandbox dies, children and ``setsid`` daemons included. Without
bubblewrap (Debian package ``bubblewrap``) the grader stops, unless
``--unsafe-no-sandbox`` is given (the same protocol, but with your own rights).

**Every file gets a row.** SUBMISSIONS is searched recursively, symbolic links are not
followed, and every entry gets a row written as soon as it is graded: notebooks
(``.ipynb`` and MyST ``.md``) are graded; symbolic links, special files, files over
``--max-notebook-mb``, files that are not UTF-8 and non-Python notebooks are rejected
with the reason; other files and hidden entries are listed as skipped. CSV cells that a
spreadsheet would read as a formula are neutralised and control characters escaped.
Besides the CSV, ``--feedback-dir`` (default: next to the CSV, ``<out>_feedback/``) gets
one Markdown file per submission with each check, its points and its message.

The CSV has the columns ``submission, score, max_score, status, feedback``; status is one
of graded, forbidden, timeout, memory, output, syntax_error, error, missing, crashed,
protocol, unreadable, rejected, skipped. Before grading, the reference solution is graded
in this process and must get full marks; its score is every row's ``max_score``.

``--write-public-checks`` records each assignment's public checks (the hidden file's
``public_checks()``) from the reference into ``book/assignments/NAME_public.json``, which
the student notebooks read; ``--check`` only verifies the files are current.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import csv
import importlib.util
import itertools
import json
import os
import re
import shutil
import stat
import sys
import tempfile
import threading
import time
from pathlib import Path

from booktools import grade_sandbox as sandbox

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = ROOT / "book" / "assignments"
HIDDEN_DIR = ASSIGNMENTS / "lecturer"
STATUSES = ("graded", "forbidden", "timeout", "memory", "output", "syntax_error", "error", "missing", "crashed",
            "protocol", "unreadable", "rejected", "skipped")
FIELDS = ["submission", "score", "max_score", "status", "feedback"]
NOTEBOOK_SUFFIXES = (".ipynb", ".md")


# -- the hidden tests ---------------------------------------------------------------------


def load_hidden(path: Path):
    """Import a hidden-tests file and check that it defines FUNCTION, KIND, REFERENCE, FORBIDDEN and grade.

    A hidden-tests file is the lecturer's, in any folder (``--hidden-dir``), not a module of a
    package: it is imported from its path, as pytest imports a test file. The tests load them
    through this function too.
    """
    spec = importlib.util.spec_from_file_location(f"_hidden_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in ("FUNCTION", "KIND", "REFERENCE", "FORBIDDEN", "grade"):
        if not hasattr(module, name):
            raise SystemExit(f"{path} must define {name}")
    if module.KIND not in ("learner", "function"):
        raise SystemExit(f"{path}: KIND must be 'learner' or 'function', got {module.KIND!r}")
    return module


def hidden_path(assignment: str, hidden_dir: Path) -> Path:
    if not re.fullmatch(r"[A-Za-z0-9_]+", assignment):
        raise SystemExit(f"--assignment must be a name like 'halving', got {assignment!r}")
    path = hidden_dir / f"{assignment}_hidden.py"
    if not path.is_file():
        known = sorted(p.name[: -len("_hidden.py")] for p in hidden_dir.glob("*_hidden.py"))
        raise SystemExit(f"no hidden tests for assignment {assignment!r} ({path} does not exist); known: {', '.join(known)}")
    return path


def public_checks_path(assignment: str, assignments: Path = ASSIGNMENTS) -> Path:
    return assignments / f"{assignment}_public.json"


def public_checks_text(hidden) -> str:
    """The public-checks file of one assignment, recorded from its reference."""
    from onlinelib import grading

    data = grading.record_public_checks(hidden.REFERENCE, **hidden.public_checks())
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
        print(f"{target.relative_to(ROOT) if target.is_relative_to(ROOT) else target}: "
              f"{'up to date' if current == text else ('STALE' if check else 'written')}", file=sys.stderr)
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


def find_submissions(folder: Path) -> list[tuple[str, Path, tuple[str, str] | None]]:
    """Every entry under ``folder``: (name, path, None to grade it, or (status, reason)). Symlinks are not followed."""
    found = []

    def walk(directory: Path, prefix: str) -> None:
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            found.append((prefix or ".", directory, ("rejected", f"cannot list the folder: {exc.strerror}")))
            return
        for entry in entries:
            name = prefix + entry.name
            path = Path(entry.path)
            if entry.is_symlink():
                found.append((name, path, ("rejected", "a symbolic link, not followed: hand in the notebook itself")))
            elif entry.is_dir(follow_symlinks=False):
                if entry.name.startswith("."):
                    found.append((name + "/", path, ("skipped", "a hidden folder, not searched")))
                else:
                    walk(path, name + "/")
            elif not entry.is_file(follow_symlinks=False):
                found.append((name, path, ("rejected", "not a regular file")))
            elif entry.name.startswith("."):
                found.append((name, path, ("skipped", "a hidden file, not graded")))
            elif path.suffix not in NOTEBOOK_SUFFIXES:
                found.append((name, path, ("skipped", "not a notebook (.ipynb or .md)")))
            else:
                found.append((name, path, None))

    walk(folder, "")
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
            return None, ("rejected", f"larger than the {max_bytes // 2**20} MB limit for a notebook ({info.st_size} bytes)")
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


class Grader:
    """Everything one grading run shares: the hidden tests, the library copy and the limits."""

    def __init__(self, hidden, assignment: str, library: Path, args, bwrap: str | None, max_score: float):
        self.hidden, self.assignment, self.library, self.args = hidden, assignment, library, args
        self.bwrap, self.max_score = bwrap, max_score
        self.public = public_checks_path(assignment, args.assignments_dir)
        self.limits = {
            "memory_mb": args.memory_mb, "cpu_seconds": int(args.timeout) + 5, "file_mb": 16,
            "processes": args.max_processes, "tmpfs_mb": 64, "output_bytes": args.max_output_kb * 1024,
            "reply_bytes": 4 * 2**20, "timeout": args.timeout,
        }

    def grade(self, name: str, path: Path) -> dict:
        """Grade one notebook; its row (with the checks for the feedback file). Never raises but for ^C."""
        row = {"submission": name, "score": 0.0, "status": "", "feedback": "", "checks": []}
        data, problem = read_notebook(path, self.args.max_notebook_mb * 2**20)
        if problem:
            row["status"], row["feedback"] = problem
            return row
        box = Path(tempfile.mkdtemp(prefix="grade-"))  # 0700: only the grader reaches into it
        try:
            inner = box / "submission"
            inner.mkdir(mode=0o755)
            inner.chmod(0o755)
            notebook = inner / ("submission" + path.suffix)
            notebook.write_bytes(data)
            notebook.chmod(0o644)
            if self.public.is_file():
                shutil.copyfile(self.public, inner / self.public.name)
                (inner / self.public.name).chmod(0o644)
            return self._run(row, inner, notebook.name)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # a fault of the grader itself must not cost the other rows
            row.update(status="crashed", score=0.0, feedback=f"the grader failed on this submission: "
                       f"{type(exc).__name__}: {sandbox._clean(exc, 200)}")
            return row
        finally:
            shutil.rmtree(box, ignore_errors=True)

    def _run(self, row: dict, inner: Path, notebook: str) -> dict:
        deadline = time.monotonic() + self.args.timeout
        box = None
        try:
            box = sandbox.Sandbox(inner, self.library, self.limits, deadline, bwrap=self.bwrap,
                                  name=f"{sandbox.CgroupLimits.PREFIX}{os.getpid()}-{next(_COUNTER)}")
            where = f"/submission/{notebook}" if self.bwrap else str(inner / notebook)
            outcome = box.run_notebook(where, self.hidden.FUNCTION, self.hidden.KIND)
            if outcome["status"] != "ok":
                status = outcome["status"] if outcome["status"] in STATUSES else "error"
                row.update(status=status, feedback=sandbox._clean(outcome.get("reason", ""), 400))
            else:
                student = box.value(outcome)
                report = self.hidden.grade(student)
                score, _ = report.clamp()
                row.update(status="graded", score=min(score, self.max_score), feedback=report.feedback(),
                           checks=report.checks)
        except sandbox.SandboxFailure as failure:
            row.update(status=failure.status, score=0.0, feedback=failure.reason)
        except Exception as exc:  # the hidden tests stopped on something the student's code returned
            row.update(status="error", score=0.0,
                       feedback=f"the hidden tests stopped: {type(exc).__name__}: {sandbox._clean(exc, 300)}")
        finally:
            if box is not None:
                box.close()
        if box is not None and box.forbidden:
            names = ", ".join(box.forbidden[:3])
            row.update(status="forbidden", score=0.0, checks=[],
                       feedback=f"uses {names}, which assignment {self.assignment!r} asks you to write yourself")
        return row


# -- the outputs -----------------------------------------------------------------------------------


def feedback_markdown(row: dict, max_score: float, title: str) -> str:
    lines = [f"# {markdown_text(title)}", "", f"**Submission:** {markdown_text(row['submission'])}  ",
             f"**Score:** {_fmt(row['score'])}/{_fmt(max_score)}  ", f"**Status:** {row['status']}", ""]
    if row["checks"]:
        lines += ["| check | points | result |", "|---|---|---|"]
        for check in row["checks"]:
            mark = "pass" if check.passed else "**FAIL**"
            lines.append(f"| {markdown_text(check.name)} | {_fmt(check.points)}/{_fmt(check.max_points)} | "
                         f"{mark}: {markdown_text(check.message)} |")
    else:
        lines.append(markdown_text(row["feedback"]))
    return "\n".join(lines) + "\n"


def feedback_name(submission: str, taken: set) -> str:
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", submission.replace("/", "__")).strip("._") or "submission"
    name, i = base[:120] + ".md", 2
    while name in taken:
        name, i = f"{base[:120]}-{i}.md", i + 1
    taken.add(name)
    return name


class Rows:
    """Writes each row to the CSV (and its feedback file) as soon as it is graded."""

    def __init__(self, out: Path, feedback_dir: Path, max_score: float, title: str):
        self.out, self.feedback_dir, self.max_score, self.title = out, feedback_dir, max_score, title
        self.rows: list[dict] = []
        self.lock = threading.Lock()
        self.names: set = set()
        out.parent.mkdir(parents=True, exist_ok=True)
        feedback_dir.mkdir(parents=True, exist_ok=True)
        self.file = open(out, "w", newline="", encoding="utf-8")
        self.writer = csv.DictWriter(self.file, fieldnames=FIELDS, extrasaction="ignore")
        self.writer.writeheader()
        self.file.flush()

    def cells(self, row: dict) -> dict:
        return {"submission": csv_cell(row["submission"]), "score": _fmt(row["score"]),
                "max_score": _fmt(self.max_score), "status": row["status"], "feedback": csv_cell(row["feedback"])}

    def add(self, row: dict) -> None:
        with self.lock:
            self.rows.append(row)
            self.writer.writerow(self.cells(row))
            self.file.flush()
            path = self.feedback_dir / feedback_name(row["submission"], self.names)
            path.write_text(feedback_markdown(row, self.max_score, self.title), encoding="utf-8")
            print(f"  {printable(row['submission'])}: {_fmt(row['score'])}/{_fmt(self.max_score)} [{row['status']}]",
                  file=sys.stderr, flush=True)

    def finish(self) -> None:
        """Rewrite the CSV sorted by submission (atomically: the unsorted file stays until then)."""
        self.file.close()
        self.rows.sort(key=lambda r: r["submission"])
        tmp = self.out.with_name(self.out.name + ".tmp")
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=FIELDS)
            writer.writeheader()
            for row in self.rows:
                writer.writerow(self.cells(row))
        os.replace(tmp, self.out)


# -- the command line -------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Grade a folder of submitted notebooks with an assignment's hidden tests, each in a sandbox.",
    )
    parser.add_argument("submissions", type=Path, nargs="?", help="folder of .ipynb or MyST .md notebooks")
    parser.add_argument("--assignment", help="the assignment, e.g. halving")
    parser.add_argument("--out", type=Path, help="the CSV file to write")
    parser.add_argument("--feedback-dir", type=Path, help="one Markdown feedback file per submission "
                        "(default: OUT's name with _feedback, next to it)")
    parser.add_argument("--timeout", type=float, default=60.0, help="wall-clock seconds per submission (default 60)")
    parser.add_argument("--memory-mb", type=int, default=1024, help="memory per process of a submission (default 1024)")
    parser.add_argument("--max-output-kb", type=int, default=256, help="output limit per submission (default 256)")
    parser.add_argument("--max-notebook-mb", type=int, default=16, help="largest notebook file graded (default 16)")
    parser.add_argument("--max-processes", type=int, default=16, help="processes and threads per submission (default 16)")
    parser.add_argument("--jobs", type=int, default=1, help="submissions graded at once (default 1)")
    parser.add_argument("--hidden-dir", type=Path, default=HIDDEN_DIR, help="where NAME_hidden.py lives")
    parser.add_argument("--assignments-dir", type=Path, default=ASSIGNMENTS, help="where NAME_public.json lives")
    parser.add_argument("--unsafe-no-sandbox", action="store_true",
                        help="run submissions without bubblewrap, with your own rights (only for code you trust)")
    parser.add_argument("--write-public-checks", action="store_true",
                        help="record every assignment's public checks from its reference into NAME_public.json")
    parser.add_argument("--check", action="store_true", help="with --write-public-checks: only check they are current")
    args = parser.parse_args(argv)
    if args.write_public_checks:
        return write_public_checks(args.check, args.hidden_dir.resolve(), args.assignments_dir.resolve())
    for option in ("submissions", "assignment", "out"):
        if getattr(args, option) is None:
            parser.error(f"{'SUBMISSIONS' if option == 'submissions' else '--' + option} is required")
    if args.timeout <= 0:
        parser.error(f"--timeout must be positive, got {args.timeout}")
    for option, low in (("memory_mb", 256), ("max_output_kb", 1), ("max_notebook_mb", 1), ("max_processes", 4),
                        ("jobs", 1)):
        if getattr(args, option) < low:
            parser.error(f"--{option.replace('_', '-')} must be at least {low}, got {getattr(args, option)}")
    if not args.submissions.is_dir():
        parser.error(f"{args.submissions} is not a folder")

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

    entries = find_submissions(args.submissions)
    if not entries:
        raise SystemExit(f"{args.submissions} is empty")
    feedback_dir = args.feedback_dir or args.out.with_name(args.out.stem + "_feedback")
    title = getattr(hidden, "TITLE", args.assignment)
    work = Path(tempfile.mkdtemp(prefix="grade-library-"))
    try:
        removed = sandbox.assignment_library(hidden.FORBIDDEN, args.assignment, work / "lib")
        grader = Grader(hidden, args.assignment, work / "lib", args, bwrap, max_score)
        print(f"grading {sum(e[2] is None for e in entries)} notebook(s) of {args.assignment!r} "
              f"(max score {_fmt(max_score)}, timeout {args.timeout:g} s, memory {args.memory_mb} MB, "
              f"output {args.max_output_kb} KB, {'UNSAFE: no sandbox' if bwrap is None else 'sandbox: bubblewrap'}; "
              f"removed for the students: {', '.join(f'{m} ({n})' for m, n in removed.items())})", file=sys.stderr)
        rows = Rows(args.out, feedback_dir, max_score, title)
        for name, path, problem in entries:
            if problem is not None:
                rows.add({"submission": name, "score": 0.0, "status": problem[0], "feedback": problem[1], "checks": []})
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
        shutil.rmtree(work, ignore_errors=True)

    width = min(60, max(len(printable(r["submission"])) for r in rows.rows))
    print(f"{'submission':{width}s}  {'score':>7s}  {'status':12s}  feedback")
    for r in rows.rows:
        score = f"{_fmt(r['score'])}/{_fmt(max_score)}"
        print(f"{printable(r['submission']):{width}s}  {score:>7s}  {r['status']:12s}  {printable(r['feedback'])}")
    print(f"wrote {args.out} and {len(rows.rows)} feedback files in {feedback_dir}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
