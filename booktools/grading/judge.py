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
``grader-error`` (retried once by the run, then listed under "regrade these"), and ``not attempted``
(issue 37: the hand-out as given, 0 points, whatever the status it would have had).
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import resource
import time
from pathlib import Path

import numpy  # noqa: F401  (imported once in the fork server, not in every judge)

import onlinelib  # noqa: F401
from booktools.grading import checks, sandbox
from booktools.grading.answers import (
    DEFAULT_MAX_BYTES,
    NOT_ATTEMPTED,
    HandOut,
    extract_answers,
    is_untouched,
    unanswered_questions,
)
from booktools.grading.collect import notebook_student
from booktools.grading.hidden import hidden_parts, load_hidden
from booktools.grading.isolation import CgroupLimits
from booktools.grading.questions import questions_from_hidden
from booktools.grading.scores import GRADER_ERROR

JUDGE_GRACE = 5.0  # seconds after the deadline for a judge to close its sandbox and send its row


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
    max_notebook_bytes: int = DEFAULT_MAX_BYTES  # the grader's --max-notebook-mb: answers are read up to it
    handout: HandOut | None = None  # the notebook as handed out: "not attempted", "not answered" (issue 37)


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


def judge(config: JudgeConfig, box: Path, notebook: str, deadline: float, cgroup_name: str) -> dict:
    """Grade the notebook ``box/notebook`` in a sandbox: its row (status, score, feedback, checks).

    The row also carries the student id the notebook declares (``student``, or None) and, for an
    assignment with QUESTIONS, the written answers (``answers``: {question id: Markdown}) with
    ``answer_problems``, read from the file before any of its code runs (so a notebook whose code
    fails still has its proofs marked), and a graded row the reasons of its cells' errors
    (``cell_errors``, at most 10; its feedback names the first three).
    """
    row = {"score": 0.0, "status": "", "feedback": "", "checks": []}
    hidden = load_hidden(config.hidden_path)
    row["student"] = notebook_student(box / notebook)
    questions = questions_from_hidden(getattr(hidden, "QUESTIONS", []))
    if questions:
        row["answers"], row["answer_problems"] = extract_answers(
            box / notebook, questions, max_bytes=config.max_notebook_bytes
        )
        row["unanswered"] = unanswered_questions(
            box / notebook, row["answers"], config.handout, config.max_notebook_bytes
        )
    student_box = None
    try:
        student_box = sandbox.Sandbox(
            box, config.library, config.limits, deadline, bwrap=config.bwrap, name=cgroup_name
        )
        where = f"/submission/{notebook}" if config.bwrap else str(box / notebook)
        row.update(_run_and_grade(hidden, student_box, where, config.max_score))
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
    return _not_attempted(row, config, box / notebook)


def _not_attempted(row: dict, config: JudgeConfig, path: Path) -> dict:
    """The row, labelled ``not attempted`` if the notebook is the hand-out as given and earned 0 (issue 37).

    Only a label on a zero: a row with points, a grader error (to be graded again) or a use of what the
    assignment forbids keeps its status.
    """
    if (
        row["status"] in (GRADER_ERROR, "forbidden")
        or row["score"] != 0
        or not is_untouched(path, config.handout, config.max_notebook_bytes)
    ):
        return row
    why = "not attempted: the notebook is the assignment as handed out (no code or answer cell changed)"
    return dict(row, status=NOT_ATTEMPTED, feedback=f"{why}; {row['feedback']}" if row["feedback"] else why)


def _run_and_grade(hidden, student_box: sandbox.Sandbox, where: str, max_score: float) -> dict:
    """Run the notebook ``where`` in ``student_box`` and grade what it defines: the row's status, score,
    feedback and checks.

    An error in a cell costs only what that cell left undefined (the worker runs every cell and
    records each error). One part (FUNCTION): if the notebook defines it, it is graded, and the
    feedback lists the cells' errors after the checks; else the row has the status and reason of
    the error that left it undefined (or ``missing``). Several parts (PARTS): each part the notebook
    does not define becomes a ``checks.MissingPart`` whose reason is that error, and the others are
    graded as usual.
    """
    read_only = bool(getattr(hidden, "READ_ONLY_ARGUMENTS", False))
    several = hasattr(hidden, "PARTS")
    if several:
        outcome = student_box.run_notebook(where, None)
    else:
        outcome = student_box.run_notebook(where, hidden.FUNCTION, _worker_kind(hidden.KIND), read_only=read_only)
    if outcome["status"] != "ok":
        return {"status": outcome["status"], "feedback": sandbox._clean(outcome.get("reason", ""), 400)}
    if several:
        student = {name: _part(student_box, name, kind, read_only) for name, kind in hidden_parts(hidden).items()}
    else:
        student = student_box.value(outcome)
    report = hidden.grade(student)
    score, _ = report.clamp()
    errors, total = cell_errors(outcome)
    return {
        "status": "graded",
        "score": min(score, max_score),
        "feedback": report.feedback() + cell_errors_text(errors, total),
        "checks": list(report.checks),
        "cell_errors": errors,
    }


def _part(student_box: sandbox.Sandbox, name: str, kind: str, read_only: bool):
    """One part of an assignment of several: the student's function or class, or a ``checks.MissingPart``
    whose reason names the cell error that left it undefined."""
    found = student_box.lookup(name, _worker_kind(kind), read_only=read_only)
    if found["status"] == "ok":
        return student_box.value(found)
    reason = sandbox._clean(found.get("reason", ""), 300)
    if isinstance(found.get("cell"), int):  # the error of the cell that would have defined it
        reason = f"{name} is not defined: {reason}"
    return checks.MissingPart(name, reason)


SHOWN_CELL_ERRORS = 3  # the cell errors a row's feedback names (the worker reports up to 10, all in the row's
# "cell_errors", for the feedback file)


def cell_errors(outcome: dict) -> tuple[list[str], int]:
    """The cells' errors of a run (``outcome["cell_errors"]``, untrusted): their reasons, each one line
    of at most 300 characters (the first 10), and how many there were in all."""
    errors = outcome.get("cell_errors")
    errors = errors[:10] if isinstance(errors, list) else []
    reasons = [sandbox._clean(error.get("reason", ""), 300) for error in errors if isinstance(error, dict)]
    reasons = [reason for reason in reasons if reason]
    total = outcome.get("cell_errors_total")
    total = total if isinstance(total, int) and not isinstance(total, bool) else 0
    return reasons, max(total, len(reasons))


def cell_errors_text(reasons: list[str], total: int) -> str:
    """The end of a graded row's feedback that names the cells' errors: ``"; errors in the notebook's
    cells: code cell 4, line 2 raised ZeroDivisionError: division by zero"``, the first
    ``SHOWN_CELL_ERRORS`` and how many more; "" if there were none."""
    if not reasons:
        return ""
    shown = reasons[:SHOWN_CELL_ERRORS]
    more = max(total, len(reasons)) - len(shown)
    text = "; ".join(shown) + (f"; and {more} more" if more else "")
    return f"; errors in the notebook's cells: {text}"


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
        _CONTEXT.set_forkserver_preload(["booktools.grading.judge"])
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
            CgroupLimits.remove_named(cgroup_name)  # its sandbox died with it; its cgroups did not
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
