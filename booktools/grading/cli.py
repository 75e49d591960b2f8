"""Grade a folder of submitted notebooks with an assignment's hidden tests (the lecturer's command).

Usage::

    python -m booktools grade SUBMISSIONS --assignment NAME --out scores.csv \\
        [--timeout 60] [--cpu-seconds 65] [--memory-mb 1024] [--max-output-kb 256] [--jobs 1] \\
        [--judge-memory-mb 1024] [--feedback-dir DIR] [--regrade-errors] [--force] [--unsafe-no-sandbox] \\
        [--shard K/N]
    python -m booktools grade --merge-shards OUT1 ... OUTN --out scores.csv [--assignment NAME] [--force] \\
        [--feedback-dir DIR] [--gradebook CSV] [--review-dir DIR] [--review-names] [--merge-manual RUBRIC_CSV]
    python -m booktools grade --write-public-checks [--assignment NAME] [--check]

**Two processes, data between them.** Each submission runs in its own sandboxed worker
(``booktools/grading/worker.py`` under bubblewrap, see ``booktools/grading/sandbox.py``): the notebook's
code cells run there, in order, every one of them even after one raised (an error costs only the
parts it left undefined, named in the feedback). The hidden tests
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
own (``booktools/grading/judge.py``), under the submission's deadline and a memory budget
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
not attempted (the hand-out as given, unchanged, which earned 0), forbidden, timeout, memory, output,
syntax_error, error, missing, crashed, protocol, unreadable, rejected, skipped, grader-error. Before
grading, the reference solution is graded in this process and must get full marks; its score is every
row's ``max_score`` and its checks are the columns. The run ends with the three checks failed most
often ("most failed checks: NAME (k of n)").

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
a filled copy of that rubric into the gradebook and the feedback files (``booktools/grading/gradebook.py``).

**Grading at any scale** (issue 35). ``--shard K/N`` grades the entries whose name relative to
SUBMISSIONS hashes to K (SHA-256, see ``shard.py``) and writes a record ``<out>_shard.json`` beside
OUT; ``--merge-shards OUT1 ... OUTN --out OUT`` writes from the records what one run over the whole
folder would have written. The lecturer guide ("Grading a large class") has the commands, a GitHub
Actions matrix and a Slurm array job.

``--write-public-checks`` records each assignment's public checks (the hidden file's
``public_checks()``) from the reference into ``book/assignments/NAME_public.json``, which
the student notebooks read (with ``--assignment NAME``, that one's alone); ``--check`` only
verifies the files are current.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import os
import shutil
import sys
import tempfile
from pathlib import Path

from booktools.grading import shard
from booktools.grading.answers import handout_of
from booktools.grading.collect import find_submissions
from booktools.grading.csvfile import csv_cell
from booktools.grading.feedback import DETAIL, FEEDBACK_MARKER, FeedbackFolder, check_feedback_dir, feedback_names
from booktools.grading.gradebook import per_student_outputs
from booktools.grading.hidden import ASSIGNMENTS, HIDDEN_DIR, hidden_path, load_hidden, write_public_checks
from booktools.grading.isolation import CgroupLimits, check_bwrap, find_bwrap, missing_bwrap_message
from booktools.grading.library import assignment_library
from booktools.grading.questions import questions_from_hidden
from booktools.grading.run import Grader
from booktools.grading.scores import GRADER_ERROR, Rows, check_columns, most_failed, read_previous_rows
from booktools.grading.text import fmt_score, printable

# -- the command line -------------------------------------------------------------------------------


def _run_options(parser: argparse.ArgumentParser) -> None:
    """What to grade, where the grades go, and the limits of one submission."""
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
        "--shard",
        metavar="K/N",
        help="grade only shard K of N of SUBMISSIONS (a hash of each entry's name); merge with --merge-shards",
    )


def _output_options(parser: argparse.ArgumentParser) -> None:
    """Grading again, the per-student outputs, the merge of shards and the public checks."""
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
        "--feedback-detail",
        choices=list(DETAIL),
        default="full",
        help="what the students' feedback files show: "
        + "; ".join(f"{name}: {what}" for name, what in DETAIL.items())
        + " (default: full)",
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
    parser.add_argument(
        "--merge-shards",
        type=Path,
        nargs="+",
        metavar="SHARD_OUT",
        help="write into --out what one run over the whole folder would have written, from the OUTs of all "
        "its --shard runs",
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
        help="record every assignment's public checks (only NAME's with --assignment NAME) from its reference "
        "into NAME_public.json",
    )
    parser.add_argument("--check", action="store_true", help="with --write-public-checks: only check they are current")


def build_parser() -> argparse.ArgumentParser:
    """The grader's options (issue 35: ``--shard`` and ``--merge-shards`` beside the run's own)."""
    parser = argparse.ArgumentParser(
        description="Grade a folder of submitted notebooks with an assignment's hidden tests, each in a sandbox.",
    )
    _run_options(parser)
    _output_options(parser)
    return parser


def check_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Stop (``parser.error``, exit status 2) on a missing or out-of-range option of a grading run.

    A step of ``main`` (issue 35); ``--shard K/N`` becomes the pair (K, N).
    """
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
    if args.shard is not None:
        try:
            args.shard = shard.parse_shard(args.shard)
        except ValueError as exc:
            parser.error(str(exc))
    if not args.submissions.is_dir():
        parser.error(f"{args.submissions} is not a folder")
    if args.merge_manual is not None and not args.merge_manual.is_file():
        parser.error(f"--merge-manual: {args.merge_manual} is not a file (a filled copy of the review's rubric.csv)")


def check_outputs(parser: argparse.ArgumentParser, args: argparse.Namespace, inputs: list[Path], again: str) -> Path:
    """The feedback folder, after stopping if OUT's outputs may not be written (an earlier run's, without
    consent; a feedback folder that would hold ``inputs``, OUT or the review, or that is not the grader's).

    A step of ``main`` and of the merge (issue 35); ``again`` names the ways of consent besides
    ``--force`` in the message.
    """
    feedback_dir = args.feedback_dir or args.out.with_name(args.out.stem + "_feedback")
    # an earlier run's grades: OUT, or a feedback folder of the grader's (the CSV may have been moved)
    earlier = args.out if os.path.lexists(args.out) else feedback_dir
    if os.path.lexists(args.out) or (feedback_dir / FEEDBACK_MARKER).is_file():
        if not (args.force or args.regrade_errors or args.merge_manual is not None):
            parser.error(
                f"{earlier} exists (an earlier run's grades): nothing was graded. Add --force to grade again "
                f"and replace {args.out} and the feedback folder {feedback_dir}; {again}"
            )
    review_dir = args.review_dir or args.out.with_name(args.out.stem + "_review")
    keep_out = [args.out, *inputs, review_dir, Path.cwd()]
    keep_out += [p for p in (args.gradebook, args.merge_manual) if p is not None]
    problem = check_feedback_dir(feedback_dir, keep_out)
    if problem:
        parser.error(problem)
    return feedback_dir


# -- the steps of a run ---------------------------------------------------------------------------------


def prepare_sandbox(args: argparse.Namespace) -> str | None:
    """The bubblewrap to run submissions in (None with ``--unsafe-no-sandbox``); stop if there is none.

    A step of ``main`` (issue 35).
    """
    if args.unsafe_no_sandbox:
        print("WARNING: --unsafe-no-sandbox: students' code runs with your rights, files and network", file=sys.stderr)
        return None
    bwrap = find_bwrap()
    if bwrap is None:
        raise SystemExit(missing_bwrap_message())
    check_bwrap(bwrap)
    CgroupLimits.remove_stale()
    return bwrap


@dataclasses.dataclass
class Reference:
    """The assignment's hidden tests and what grading its reference solution gave: the run's scale."""

    hidden_file: Path
    hidden: object
    max_score: float
    columns: list
    title: str


def load_reference(args: argparse.Namespace) -> Reference:
    """Load the hidden tests and grade the reference, which must get full marks (else stop).

    A step of ``main`` (issue 35); the reference's score and checks are the run's scale and columns.
    """
    hidden_file = hidden_path(args.assignment, args.hidden_dir.resolve())
    hidden = load_hidden(hidden_file)
    reference = hidden.grade(hidden.REFERENCE)
    if not reference.passed or reference.max_score <= 0:
        print(reference.summary(), file=sys.stderr)
        raise SystemExit(f"the reference solution fails the hidden tests of {args.assignment!r}: fix {hidden_file}")
    title = getattr(hidden, "TITLE", args.assignment)
    return Reference(hidden_file, hidden, reference.max_score, check_columns(reference), title)


@dataclasses.dataclass
class Plan:
    """The entries a run grades, the rows it keeps, and its feedback file names."""

    entries: list
    kept: list
    names: dict
    carried: dict
    listing: dict
    kept_records: dict


def select_entries(args: argparse.Namespace, reference: Reference, earlier: dict | None) -> Plan:
    """The entries of SUBMISSIONS this run grades: its shard's, and with ``--regrade-errors`` only
    those of OUT's grader-error rows (the other rows of OUT are kept, with their feedback files).

    A step of ``main`` (issue 35). ``earlier`` is OUT's shard record (``--regrade-errors --shard``),
    whose rows stand for the kept rows in the new record.
    """
    entries = find_submissions(args.submissions)
    if not entries:
        raise SystemExit(f"{args.submissions} is empty")
    seen = shard.listing(entries)
    entries = shard.select(entries, args.shard)
    kept, before = [], {}
    if args.regrade_errors:
        previous, headers = read_previous_rows(args.out)
        # the CSV holds the names as cells (printable, neutralised): back to the names found, where the file
        # is still there (both sides made cells, whether the reader gives back the cell or the printable name)
        found = {csv_cell(name): name for name, _path, _problem in entries}
        for row in previous:
            row["submission"] = found.get(csv_cell(row["submission"]), row["submission"])
        again = {row["submission"] for row in previous if row["status"] == GRADER_ERROR}
        kept = [row for row in previous if row["submission"] not in again]
        entries = [entry for entry in entries if entry[0] in again]
        if headers != [c.header for c in reference.columns]:
            print(
                f"note: the checks of the hidden tests are not those of {args.out}'s columns; the kept rows "
                "keep their scores, and their cells of checks they were not graded on are empty",
                file=sys.stderr,
            )
        before = feedback_names(row["submission"] for row in previous)  # the earlier run's file names
        print(f"regrading the {len(entries)} row(s) of {args.out} with status {GRADER_ERROR}", file=sys.stderr)
    names = feedback_names([row["submission"] for row in kept] + [name for name, _path, _problem in entries])
    carried = {before[row["submission"]]: names[row["submission"]] for row in kept}  # its kept feedback files
    return Plan(entries, kept, names, carried, seen, shard.kept_records(args.out, earlier, kept))


def grade_entries(args: argparse.Namespace, bwrap: str | None, reference: Reference, plan: Plan, feedback_dir: Path):
    """Grade the plan's entries (``--jobs`` at a time), each row written as soon as it is graded.

    A step of ``main`` (issue 35). Returns the ``Rows``, or None if the run was interrupted (^C:
    the rows graded so far are in OUT).
    """
    work = Path(tempfile.mkdtemp(prefix="grade-library-"))
    try:
        removed = assignment_library(reference.hidden.FORBIDDEN, args.assignment, work / "lib")
        grader = Grader(reference.hidden_file, args.assignment, work / "lib", args, bwrap, reference.max_score)
        # the notebook as handed out, so the judges can say "not attempted" and "not answered" (issue 37)
        questions = questions_from_hidden(getattr(reference.hidden, "QUESTIONS", []))
        handout = handout_of(args.assignments_dir / f"{args.assignment}.md", questions)
        grader.config = dataclasses.replace(grader.config, handout=handout)
        grader.check_environment()
        print(
            f"grading {sum(e[2] is None for e in plan.entries)} notebook(s) of {args.assignment!r} "
            f"(max score {fmt_score(reference.max_score)}, timeout {args.timeout:g} s, memory {args.memory_mb} MB, "
            f"output {args.max_output_kb} KB, {'UNSAFE: no sandbox' if bwrap is None else 'sandbox: bubblewrap'}; "
            f"removed for the students: {', '.join(f'{m} ({n})' for m, n in removed.items())})",
            file=sys.stderr,
        )
        shard.forget_manifest(args.out)  # OUT is replaced: an earlier shard record of it no longer holds
        rows = Rows(
            args.out,
            FeedbackFolder(feedback_dir),
            reference.max_score,
            reference.title,
            reference.columns,
            plan.names,
            plan.kept,
            plan.carried,
            detail=args.feedback_detail,
        )
        try:
            for name, _path, problem in plan.entries:
                if problem is not None:
                    rows.add(
                        {"submission": name, "score": 0.0, "status": problem[0], "feedback": problem[1], "checks": []}
                    )
            pool = concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs)
            try:
                futures = [pool.submit(grader.grade, name, path) for name, path, problem in plan.entries if not problem]
                for future in concurrent.futures.as_completed(futures):
                    rows.add(future.result())
            except KeyboardInterrupt:
                pool.shutdown(wait=False, cancel_futures=True)
                print(f"interrupted: the rows graded so far are in {args.out}", file=sys.stderr)
                return None
            pool.shutdown()
            rows.finish()
        finally:
            rows.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return rows


def report(args: argparse.Namespace, rows: Rows, columns: list, max_score: float, flagged: list[str]) -> int:
    """Print every row and what the lecturer must look at; the exit status (3 if rows need regrading).

    The last step of ``main`` and of the merge (issue 35).
    """
    width = min(60, max([len(printable(r["submission"])) for r in rows.rows] + [10]))
    print(f"{'submission':{width}s}  {'score':>7s}  {'status':12s}  feedback")
    for r in rows.rows:
        score = f"{fmt_score(r['score'])}/{fmt_score(max_score)}"
        print(f"{printable(r['submission']):{width}s}  {score:>7s}  {r['status']:12s}  {printable(r['feedback'])}")
    print(f"wrote {args.out} and {len(rows.rows)} feedback files in {rows.feedback_dir}", file=sys.stderr)
    for line in flagged:
        print(line, file=sys.stderr)
    failed = most_failed(rows.rows, columns)
    if failed:
        print(failed, file=sys.stderr)
    errors = [r["submission"] for r in rows.rows if r["status"] == GRADER_ERROR]
    if errors:
        cut = f" --shard {args.shard[0]}/{args.shard[1]}" if getattr(args, "shard", None) else ""
        print(
            f"regrade these ({len(errors)}: the grader failed, not the students; they have no score yet): "
            f"{', '.join(printable(e) for e in errors)}\n  python -m booktools grade {args.submissions} "
            f"--assignment {args.assignment} --out {args.out}{cut} --regrade-errors",
            file=sys.stderr,
        )
        return 3
    return 0


def merge_command(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``--merge-shards OUT1 ... OUTN --out OUT``: the outputs of one run, from its shards (issue 35)."""
    shard.check_merge_options(parser, args)
    inputs = [p for out in args.merge_shards for p in (out, shard.manifest_path(out))]
    feedback_dir = check_outputs(parser, args, inputs, "or --merge-manual MARKS.csv to merge with your marks")
    rows, columns, max_score, flagged = shard.merge_shards(args, feedback_dir)
    return report(args, rows, columns, max_score, flagged)


def main(argv: list[str] | None = None) -> int:
    """``python -m booktools grade``: parse, check, prepare, grade, write the per-student outputs, report.

    Each step is a function of its own (issue 35); ``--merge-shards`` and ``--write-public-checks``
    are commands of their own.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.write_public_checks:
        try:
            return write_public_checks(
                args.check, args.hidden_dir.resolve(), args.assignments_dir.resolve(), only=args.assignment
            )
        except ValueError as exc:
            parser.error(str(exc))
    if args.merge_shards is not None:
        return merge_command(parser, args)
    check_options(parser, args)
    feedback_dir = check_outputs(
        parser,
        args,
        [args.submissions],
        "--regrade-errors to regrade only its grader-error rows; or --merge-manual MARKS.csv to grade again "
        "with your marks merged",
    )
    earlier = shard.earlier_record(args)
    bwrap = prepare_sandbox(args)
    reference = load_reference(args)
    plan = select_entries(args, reference, earlier)
    rows = grade_entries(args, bwrap, reference, plan, feedback_dir)
    if rows is None:
        return 130
    flagged = per_student_outputs(args, reference.hidden, rows, reference.max_score, reference.title)
    if args.shard is not None:
        path = shard.write_manifest(args, reference, plan.listing, rows.rows, plan.kept_records)
        flagged.append(f"shard {args.shard[0]}/{args.shard[1]}: its record for --merge-shards is {path}")
    return report(args, rows, reference.columns, reference.max_score, flagged)


if __name__ == "__main__":
    sys.exit(main())
