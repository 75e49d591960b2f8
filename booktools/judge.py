"""One submission's grading in a process of its own (the judge), so no submission can stop the run.

Used by ``python -m booktools grade``. The grader's own work on a submission (starting its
sandbox, sending requests, decoding and comparing the replies, running the lecturer's hidden
tests on them, formatting the feedback) happens in a judge process forked for that submission
alone, which

* lives under the submission's deadline: the grading run kills it ``JUDGE_GRACE`` seconds
  after the deadline, and its sandbox dies with it (bubblewrap's ``--die-with-parent``);
* has a memory budget of its own (``RLIMIT_AS``, ``--judge-memory-mb`` above what it has
  at start), so no reply can make the grading run itself allocate gigabytes;
* sends back one row (plain Python data) through a pipe, or nothing: a judge that dies
  without a row is a failure of the grader, never the student's zero.

Why a process and not only careful code: the hidden tests are the lecturer's code (any
``NAME_hidden.py``), and they run on what the student's code returned. However carefully the
codec and the comparisons are written (``onlinelib.plain_data`` decodes in linear time, the
comparisons never convert a reply to an array unchecked), only a process can bound time and
memory for code we have not written, and only a kill is a deadline that a C loop inside numpy
cannot ignore. Judges are forked from a server that has imported numpy, onlinelib and the
sandbox already (multiprocessing's ``forkserver``), so a judge costs milliseconds, not an
interpreter's start.

Statuses a judge reports besides the student's (graded, timeout, memory, ...):
``grader-error`` (retried once by the run, then listed under "regrade these").
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import multiprocessing
import re
import resource
import time
from pathlib import Path

import numpy  # noqa: F401  (imported once in the fork server, not in every judge)

import onlinelib  # noqa: F401
from booktools import checks, manual
from booktools import grade_sandbox as sandbox

JUDGE_GRACE = 5.0  # seconds after the deadline for a judge to close its sandbox and send its row
GRADER_ERROR = "grader-error"


@dataclasses.dataclass(frozen=True)
class JudgeConfig:
    """What every judge of one grading run needs (picklable: it crosses to the fork server)."""

    hidden_path: Path
    assignment: str
    library: Path
    limits: dict
    bwrap: str | None
    max_score: float
    judge_memory_mb: int


KINDS = ("learner", "function", "certificate")


def load_hidden(path: Path):
    """Import a hidden-tests file and check what it defines.

    Every file defines REFERENCE, FORBIDDEN and ``grade``, and either FUNCTION and KIND (one part:
    ``grade`` gets the student's function or class) or PARTS, ``{name: kind}`` (an assignment of
    several parts: ``grade`` gets ``{name: the student's function or class}``, with a
    ``checks.MissingPart`` for a name the notebook does not define). A kind is "learner" (what the
    class builds stays in the sandbox), "function" or "certificate" (it returns plain data, which
    the hidden tests compare or verify). QUESTIONS, optional, lists the written answers graded by
    hand (``booktools.manual``).

    A hidden-tests file is the lecturer's, in any folder (``--hidden-dir``), not a module of a
    package: it is imported from its path, as pytest imports a test file. The tests load them
    through this function too.
    """
    spec = importlib.util.spec_from_file_location(f"_hidden_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    one_part = ("FUNCTION", "KIND") if not hasattr(module, "PARTS") else ()
    for name in (*one_part, "REFERENCE", "FORBIDDEN", "grade"):
        if not hasattr(module, name):
            raise SystemExit(f"{path} must define {name}" + (" (or PARTS)" if name in one_part else ""))
    parts = hidden_parts(module)
    if not parts or not all(isinstance(name, str) and name.isidentifier() for name in parts):
        raise SystemExit(f"{path}: PARTS must map the notebook's names to kinds, got {parts!r}")
    for name, kind in parts.items():
        if kind not in KINDS:
            raise SystemExit(f"{path}: the kind of {name} must be one of {KINDS}, got {kind!r}")
    return module


def hidden_parts(hidden) -> dict:
    """``{name: kind}`` of a hidden-tests file: its PARTS, or ``{FUNCTION: KIND}``."""
    parts = getattr(hidden, "PARTS", None)
    return dict(parts) if isinstance(parts, dict) else {hidden.FUNCTION: hidden.KIND} if parts is None else {}


def _worker_kind(kind: str) -> str:
    return "learner" if kind == "learner" else "function"  # a certificate is a function that returns data


# -- the judge's side ------------------------------------------------------------------------------------


def _limit_memory(budget_mb: int) -> None:
    """Allow this process ``budget_mb`` of address space above what it already maps (soft limit only,
    so the sandbox's worker, a child, can still set its own)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            size_kb = next(int(line.split()[1]) for line in status if line.startswith("VmSize:"))
    except (OSError, StopIteration, ValueError):
        return
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    soft = size_kb * 1024 + budget_mb * 2**20
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


STUDENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}")
_FRONT_MATTER_STUDENT = re.compile(r"\A---[ \t]*\n(?:.*\n)*?student:[ \t]*[\"']?([^\"'\n]*?)[\"']?[ \t]*\n")


def notebook_student(path: Path) -> str | None:
    """The student id a notebook declares: ``student: ID`` in a MyST notebook's front matter, or the
    ``.ipynb`` metadata field ``student``; None if it declares none (or one that is not an id).

    Read from the student's file, so bounded: the front matter is searched in the first 64 KB.
    """
    try:
        if path.suffix == ".md":
            with open(path, encoding="utf-8", errors="replace") as handle:
                head = handle.read(65536)
            end = head.find("\n---", 3)
            match = _FRONT_MATTER_STUDENT.match(head[: end + 1]) if head.startswith("---") and end > 0 else None
            value = match.group(1) if match else None
        else:
            value = json.loads(path.read_bytes()).get("metadata", {}).get("student")
    except (OSError, ValueError, AttributeError, RecursionError):
        return None
    return value if isinstance(value, str) and STUDENT_ID.fullmatch(value) else None


def judge(config: JudgeConfig, box: Path, notebook: str, deadline: float, cgroup_name: str) -> dict:
    """Grade the notebook ``box/notebook`` in a sandbox: its row (status, score, feedback, checks).

    The row also carries the student id the notebook declares (``student``, or None) and, for an
    assignment with QUESTIONS, the written answers (``answers``: {question id: Markdown}) with
    ``answer_problems``, read from the file before any of its code runs (so a notebook whose code
    fails still has its proofs marked).
    """
    row = {"score": 0.0, "status": "", "feedback": "", "checks": []}
    hidden = load_hidden(config.hidden_path)
    row["student"] = notebook_student(box / notebook)
    questions = manual.questions_from_hidden(getattr(hidden, "QUESTIONS", []))
    if questions:
        row["answers"], row["answer_problems"] = manual.extract_answers(box / notebook, questions)
    student_box = None
    try:
        student_box = sandbox.Sandbox(
            box, config.library, config.limits, deadline, bwrap=config.bwrap, name=cgroup_name
        )
        where = f"/submission/{notebook}" if config.bwrap else str(box / notebook)
        read_only = bool(getattr(hidden, "READ_ONLY_ARGUMENTS", False))
        several = hasattr(hidden, "PARTS")
        if several:
            outcome = student_box.run_notebook(where, None)
        else:
            outcome = student_box.run_notebook(where, hidden.FUNCTION, _worker_kind(hidden.KIND), read_only=read_only)
        if outcome["status"] != "ok":
            status = outcome["status"] if isinstance(outcome["status"], str) else "protocol"
            row.update(status=status, feedback=sandbox._clean(outcome.get("reason", ""), 400))
        else:
            if several:
                student = {}
                for name, kind in hidden_parts(hidden).items():
                    found = student_box.lookup(name, _worker_kind(kind), read_only=read_only)
                    if found["status"] == "ok":
                        student[name] = student_box.value(found)
                    else:
                        student[name] = checks.MissingPart(name, sandbox._clean(found.get("reason", ""), 200))
            else:
                student = student_box.value(outcome)
            report = hidden.grade(student)
            score, _ = report.clamp()
            row.update(
                status="graded",
                score=min(score, config.max_score),
                feedback=report.feedback(),
                checks=list(report.checks),
            )
    except sandbox.SandboxFailure as failure:
        status = GRADER_ERROR if failure.infrastructure else failure.status
        row.update(status=status, score=0.0, feedback=failure.reason)
    except sandbox.RemoteError as exc:  # the student's code raised where the hidden tests did not expect it
        row.update(
            status="error",
            score=0.0,
            feedback=f"the hidden tests stopped: {exc.remote_type}: {sandbox._clean(exc, 300)}",
        )
    except MemoryError:
        row.update(
            status="memory",
            score=0.0,
            checks=[],
            feedback=f"the grader's checks of this submission's replies needed more than the judge's "
            f"{config.judge_memory_mb} MB",
        )
    except Exception as exc:  # noqa: BLE001 - a fault of the hidden tests or the grader, not the student's
        row.update(
            status=GRADER_ERROR,
            score=0.0,
            checks=[],
            feedback=f"the grader failed on this submission: {type(exc).__name__}: {sandbox._clean(exc, 300)}",
        )
    finally:
        if student_box is not None:
            student_box.close()
    if student_box is not None and student_box.forbidden and row["status"] != GRADER_ERROR:
        names = ", ".join(student_box.forbidden[:3])
        row.update(
            status="forbidden",
            score=0.0,
            checks=[],
            feedback=f"uses {names}, which assignment {config.assignment!r} asks you to write yourself",
        )
    return row


def _judge_main(connection, config: JudgeConfig, box: Path, notebook: str, deadline: float, cgroup_name: str) -> None:
    """The judge process: grade, send the row, exit. A row that cannot be made is a grader error."""
    _limit_memory(config.judge_memory_mb)
    try:
        row = judge(config, box, notebook, deadline, cgroup_name)
    except MemoryError:
        row = {
            "score": 0.0,
            "status": "memory",
            "checks": [],
            "feedback": f"the grader's checks of this submission's replies needed more than the judge's "
            f"{config.judge_memory_mb} MB",
        }
    except BaseException as exc:  # noqa: BLE001 - reported as the grader's error, retried by the run
        row = {
            "score": 0.0,
            "status": GRADER_ERROR,
            "checks": [],
            "feedback": f"the grader failed on this submission: {type(exc).__name__}: {sandbox._clean(exc, 300)}",
        }
    connection.send(row)
    connection.close()


# -- the grading run's side --------------------------------------------------------------------------------

_CONTEXT = None


def _context():
    """The fork server's context, started once per grading run with the libraries imported."""
    global _CONTEXT
    if _CONTEXT is None:
        _CONTEXT = multiprocessing.get_context("forkserver")
        _CONTEXT.set_forkserver_preload(["booktools.judge"])
    return _CONTEXT


def run_judge(config: JudgeConfig, box: Path, notebook: str, cgroup_name: str) -> dict:
    """Grade one notebook in a judge process, under the submission's deadline plus ``JUDGE_GRACE``.

    Never raises (but for ^C): a judge that overruns is killed and the row says so (status
    ``timeout``); one that dies without a row gives a ``grader-error`` row.
    """
    context = _context()
    deadline = time.monotonic() + config.limits["timeout"]
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(
        target=_judge_main, args=(sender, config, box, notebook, deadline, cgroup_name), daemon=True
    )
    try:
        process.start()
        sender.close()
        row = None
        if receiver.poll(max(0.0, deadline + JUDGE_GRACE - time.monotonic())):
            try:
                row = receiver.recv()
            except (EOFError, OSError):
                row = None  # it died before sending its row
        if row is None:
            overran = process.is_alive()
            process.kill()
            process.join()
            sandbox.CgroupLimits.remove_named(cgroup_name)  # its sandbox died with it; its cgroups did not
            if overran:
                row = {
                    "score": 0.0,
                    "status": "timeout",
                    "checks": [],
                    "feedback": f"timed out after {config.limits['timeout']:g} s: the grader's checks of this "
                    f"submission's replies did not finish in time",
                }
            else:
                row = {
                    "score": 0.0,
                    "status": GRADER_ERROR,
                    "checks": [],
                    "feedback": f"the grader's judge process ended without a result (exit code {process.exitcode})",
                }
        process.join(timeout=JUDGE_GRACE)
        if process.is_alive():
            process.kill()
            process.join()
        return row
    finally:
        receiver.close()
        if process.exitcode is not None:
            process.close()
