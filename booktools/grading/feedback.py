"""The feedback folder: one Markdown file per submission, named safely, replaced as a whole."""

from __future__ import annotations

import glob
import hashlib
import os
import re
import secrets
import shutil
import sys
from pathlib import Path

from booktools.grading.answers import problems_markdown
from booktools.grading.rubric import feedback_text, written_total
from booktools.grading.text import fmt_score, markdown_text

# -- the outputs -----------------------------------------------------------------------------------


def _score_line(row: dict, max_score: float, written) -> str:
    """The header's score: the automatic one, or with merged written marks the total (issue 37)."""
    automatic = f"{fmt_score(row['score'])}/{fmt_score(max_score)}"
    if written is None:
        return f"**Score:** {automatic}  "
    got, most, complete = float(written[0]), float(written[1]), written[2]
    if not complete:
        return (
            f"**Score:** {automatic} automatic + written answers not all marked yet "
            f"({fmt_score(got)}/{fmt_score(most)} so far): no total yet  "
        )
    total = f"{fmt_score(float(row['score']) + got)}/{fmt_score(max_score + most)}"
    return f"**Score:** {automatic} automatic + {fmt_score(got)}/{fmt_score(most)} written = **{total}**  "


# How much of the hidden tests a student's feedback shows (grade --feedback-detail, issue 37).
DETAIL = {
    "full": "each check with its points and, for a failed one, what differed (the first differing round or entry)",
    "checks": "each check's name and points, pass or fail, but not what differed: no hidden instance is shown",
    "score": "only the score and the status",
}


def feedback_markdown(row: dict, max_score: float, title: str, written=None, detail: str = "full") -> str:
    """A submission's feedback file: header (submission, score, status), checks, cell errors, problems.

    ``written`` (issue 37), after ``--merge-manual``: ``(points, max points, every question marked)``
    of the written answers (``rubric.written_total``), so the header shows the total. ``detail``, one of
    :data:`DETAIL`: how much of the hidden tests the student sees (the lecturer's choice).
    """
    if detail not in DETAIL:
        raise ValueError(f"detail: expected one of {', '.join(DETAIL)}, got {detail!r}")
    lines = [
        f"# {markdown_text(title)}",
        "",
        f"**Submission:** {markdown_text(row['submission'])}  ",
        _score_line(row, max_score, written),
        f"**Status:** {row['status']}",
        "",
    ]
    if detail == "score":
        return "\n".join(lines)
    if row["checks"]:
        lines += ["| check | points | result |", "|---|---|---|"]
        for check in row["checks"]:
            mark = "pass" if check.passed else "**FAIL**"
            said = f": {markdown_text(check.message)}" if detail == "full" else ""
            lines.append(
                f"| {markdown_text(check.name)} | {fmt_score(check.points)}/{fmt_score(check.max_points)} | "
                f"{mark}{said} |"
            )
    else:
        lines.append(markdown_text(row["feedback"]))
    errors = [str(error) for error in row.get("cell_errors") or []]
    if errors:  # every cell ran; what these errors left undefined is named in the checks above
        lines += ["", "**Errors in the notebook's cells** (the other cells ran):", ""]
        lines += [f"- {markdown_text(error)}" for error in errors]
    problems = problems_markdown(row.get("answer_problems") or [])
    return "\n".join(lines) + "\n" + ("\n" + problems if problems else "")


def merged_feedback(row: dict, max_score: float, title: str, marks, questions, detail: str = "full") -> str:
    """The feedback file after ``--merge-manual`` (issue 37): the total in the header, then the checks,
    then each written question's marks with every comment under its rubric item.

    ``marks`` are the student's ``{question id: ManualMark}``; the row's ``unanswered`` questions
    (answer cell as handed out) are said to be "not answered", not "no answer cell".
    """
    head = feedback_markdown(row, max_score, title, written=written_total(marks, questions), detail=detail)
    return head + "\n" + feedback_text(marks, questions, unanswered=tuple(row.get("unanswered") or ()))


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
