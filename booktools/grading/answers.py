"""Taking the written answers out of a submission, untrusted (issue 27: written answers, graded by question).

Issue 35 ("lost answers"): the extractor reads every notebook the grader accepts (``max_bytes``
defaults to the grader's ``--max-notebook-mb`` default, and the grader passes its own), and every
answer it cannot read is a problem with its reason, shown to the marker (``write_review(problems=)``)
and to the student (:func:`problems_markdown`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from booktools.grading.questions import Question, check_questions
from booktools.grading.text import markdown_text, show

# -- taking the answers out of a submission ----------------------------------------------------

#: The largest notebook read by default: the grader's default ``--max-notebook-mb`` (16), so that every
#: notebook the grader accepts has its answers read (issue 35: a 2.5 MB executed notebook lost them).
DEFAULT_MAX_BYTES = 16 * 2**20
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
    metadata: object  # a str: why the cell cannot be read (shown as it is)
    source: str | None  # None: not text
    where: str  # "cell 3" or "cell 3 (line 12)"


def _clean(text: str) -> str:
    return _UNWANTED.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))


def extract_answers(
    path: Path,
    questions: Sequence[Question],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
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
    max_bytes : int
        A larger file is not read (one problem says why, with both sizes). The grader passes its
        ``--max-notebook-mb``, so that every notebook it grades has its answers read (issue 35).
    max_cells : int
        A notebook with more cells is not read (one problem says why).
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
        ``answer``, a cell that is not a JSON object or whose metadata or tags are malformed, an
        answer cut; or the one reason the file could not be read at all (too big, not JSON, cut
        short, not a notebook). Never empty when an answer cell was there but could not be used.
    """
    known = {q.id for q in check_questions(questions)}
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
    except MemoryError:  # the judge's memory budget (issue 35: said, rather than a judge that dies)
        return {}, ["the notebook could not be read for answers within the grader's memory: its answers were not read"]
    except json.JSONDecodeError as exc:
        at_end = exc.pos >= len(exc.doc.rstrip()) or exc.msg.startswith("Unterminated string")
        cut = " (it ends too early: cut short?)" if at_end else ""
        return {}, [f"the notebook could not be read: JSONDecodeError: {show(str(exc), 200)}{cut}"]
    except (OSError, ValueError, TypeError) as exc:
        return {}, [f"the notebook could not be read: {type(exc).__name__}: {show(str(exc), 200)}"]

    parts = _answer_parts(cells, known, problems)
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


def _answer_parts(cells: list[_Cell], known: set[str], problems: list[str]) -> dict[str, list[str]]:
    """``{question: [answer cell source, ...]}`` in notebook order; what cannot be used goes to ``problems``."""
    parts: dict[str, list[str]] = {}
    for cell in cells:
        if isinstance(cell.metadata, str):  # a +++ line whose JSON is broken: the reason
            problems.append(f"{cell.where}: {cell.metadata}")
            continue
        malformed = _malformed(cell)
        if malformed:
            problems.append(malformed)
            continue
        metadata = cell.metadata if isinstance(cell.metadata, dict) else {}
        tags = metadata.get("tags")
        if not isinstance(tags, list) or "answer" not in tags:
            continue
        question = metadata.get("question")
        if cell.kind != "markdown":
            problems.append(
                f"{cell.where} is a {show(cell.kind)} cell tagged 'answer': ignored (written answers go in Markdown cells)"
            )
        elif not isinstance(question, str) or question not in known:
            given = f"is {show(question)}" if "question" in metadata else "is missing"
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
    return parts


def _malformed(cell: _Cell) -> str | None:
    """Why a cell cannot be checked for an answer at all (issue 35: said, not skipped), or None."""
    if cell.metadata is not None and not isinstance(cell.metadata, dict):
        return f"{cell.where}: its metadata is not a JSON object ({show(cell.metadata)}): it cannot be an answer"
    tags = cell.metadata.get("tags") if isinstance(cell.metadata, dict) else None
    if tags is not None and not isinstance(tags, list):
        return f'{cell.where}: its "tags" are not a list ({show(tags)}): it cannot be an answer'
    return None


def _size(count: int) -> str:
    """A file size for a reader: ``2.5 MB (2621440 bytes)``."""
    return f"{round(count / 2**20, 1):g} MB ({count} bytes)"


def _read_text(path: Path, max_bytes: int, problems: list[str]) -> str:
    if path.is_symlink():
        raise _Unreadable(f"{path.name!r} is a symbolic link: not read")
    if not path.is_file():
        raise _Unreadable(f"{path.name!r} is not a regular file: not read")
    size = path.stat().st_size
    if size > max_bytes:
        raise _Unreadable(
            f"the notebook is {_size(size)}, more than the {_size(max_bytes)} read for answers: its answers were not read"
        )
    with path.open("rb") as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:  # it grew since stat
        raise _Unreadable(
            f"the notebook is more than the {_size(max_bytes)} read for answers: its answers were not read"
        )
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
            why = f"it is {show(cell)}, not a JSON object: skipped (an answer in it could not be read)"
            cells.append(_Cell(None, why, None, f"cell {number}"))
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
        return f"the metadata after +++ is not valid JSON ({show(content)}): the cell cannot be an answer"
    return (
        metadata
        if isinstance(metadata, dict)
        else f"the metadata after +++ is not a JSON object ({show(content)}): the cell cannot be an answer"
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


def problems_markdown(problems: Sequence[str]) -> str:
    """A submission's answer problems as a section of the student's feedback file (Markdown).

    Part of issue 35 (lost answers): the student learns why an answer was not read (the same
    reasons the marker sees on the review pages). ``""`` when there are none; each reason escaped
    (:func:`~booktools.grading.text.markdown_text`), as a reason may quote the notebook.
    """
    if not problems:
        return ""
    lines = ["**Written answers: problems reading your notebook** (an answer not read counts as no answer)", ""]
    lines += [f"- {markdown_text(str(problem))}" for problem in problems]
    return "\n".join(lines) + "\n"


def answer_digest(text: str) -> str:
    """A short fingerprint of an answer (16 hex digits of its SHA-256), to notice it changed since marked.

    Part of issue 27 (written answers, graded by question).
    """
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


# -- the hand-out as it was given: "not attempted" and "not answered" (issue 37) --------------------------

NOT_ATTEMPTED = "not attempted"
# A cell that only names the student (``STUDENT_ID = "s123"``, comments): filled in or not, it is no attempt.
_IDENTITY_LINE = re.compile(r"""\s*(?:#.*|[A-Za-z_]\w*\s*=\s*(?:"[^"\\\n]*"|'[^'\\\n]*'|None)\s*(?:#.*)?)?""")


def _normal(text: str) -> str:
    """A code cell's source with line ends, trailing spaces and blank lines made alike (what Jupyter changes)."""
    lines = (line.rstrip() for line in _clean(text).split("\n"))
    return "\n".join(line for line in lines if line)


def _words(text: str) -> str:
    """An answer's text with all white space made alike, as the gradebook compares it with the placeholder."""
    return " ".join(_clean(text).split())


@dataclass(frozen=True)
class HandOut:
    """What an assignment's notebook holds as handed out: its code cells and its answer placeholders.

    ``code`` holds the normalised sources of the template's code cells (with and without their MyST
    option lines, which an ``.ipynb`` keeps in the metadata); ``placeholders`` holds, per question,
    the normalised text of its answer cells joined, and of each of them.
    """

    code: frozenset
    placeholders: tuple  # ((question, joined text, frozenset of cell texts), ...)

    def placeholder(self, question: object) -> tuple[str | None, frozenset]:
        """The question's placeholder (joined, cells); (None, empty) for a question without one."""
        found = [(joined, cells) for q, joined, cells in self.placeholders if q == question]
        return found[0] if found else (None, frozenset())


def _without_options(source: str) -> str:
    """A MyST code cell's source without its leading option lines (``:tags: [...]`` or a ``---`` block)."""
    lines = source.split("\n")
    if lines and lines[0].strip() == "---" and "---" in (line.strip() for line in lines[1:]):
        return "\n".join(lines[[line.strip() for line in lines].index("---", 1) + 1 :])
    while lines and re.match(r"\s*:[\w-]+:", lines[0]):
        lines.pop(0)
    return "\n".join(lines)


def handout_of(template: Path, questions: Sequence[Question] = ()) -> HandOut | None:
    """The hand-out of an assignment, from its MyST notebook ``template`` (trusted: the lecturer's).

    Part of issue 37. None when the template is missing or unreadable (then no submission is untouched).
    """
    try:
        cells = _myst_cells(Path(template).read_text(encoding="utf-8"), 100_000)
    except (OSError, ValueError, _Unreadable):
        return None
    sources = [c.source for c in cells if c.kind == "code" and c.source]
    code = frozenset(_normal(text) for source in sources for text in (source, _without_options(source))) - {""}
    parts = _answer_parts(cells, {q.id for q in check_questions(questions)}, [])
    placeholders = tuple(
        (q, _words("\n\n".join(texts)), frozenset(_words(text) for text in texts)) for q, texts in sorted(parts.items())
    )
    return HandOut(code, placeholders)


def _notebook_cells(path: Path, max_bytes: int) -> list[_Cell] | None:
    """The cells of a submission (untrusted), or None if it cannot be read."""
    try:
        text = _read_text(Path(path), max_bytes, [])
        suffix = Path(path).suffix.lower()
        if suffix == ".ipynb":
            return _ipynb_cells(text, 5000)
        return _myst_cells(text, 5000) if suffix == ".md" else None
    except (_Unreadable, RecursionError, MemoryError, OSError, ValueError, TypeError):
        return None


def untouched_answers(answers: dict[str, str], handout: HandOut | None) -> list[str]:
    """The questions whose answer is the hand-out's placeholder: "not answered" (the cell is there)."""
    if handout is None:
        return []
    return sorted(q for q, text in answers.items() if _words(text) == handout.placeholder(q)[0])


def is_untouched(path: Path, handout: HandOut | None, max_bytes: int = DEFAULT_MAX_BYTES) -> bool:
    """True if the submission ``path`` (untrusted) is the hand-out as it was given: not attempted.

    Part of issue 37. It is, when it has at least one code cell, every code cell is empty, one of the
    hand-out's or only names the student (``NAME = "text"`` lines), and every answer cell is empty or
    the hand-out's placeholder (other Markdown cells are not read: the grader reads no answer there).
    Only a label: the grader relabels a row so only when it earned 0, which the file cannot change.
    """
    if handout is None:
        return False
    cells = _notebook_cells(path, max_bytes)
    if not cells:
        return False
    seen_code = False
    for cell in cells:
        if cell.source is None:
            return False
        source = _normal(cell.source)
        metadata = cell.metadata if isinstance(cell.metadata, dict) else {}
        tags = metadata.get("tags") if isinstance(metadata.get("tags"), list) else []
        if cell.kind == "code":
            seen_code = True
            if (
                source
                and source not in handout.code
                and not all(_IDENTITY_LINE.fullmatch(s) for s in source.split("\n"))
            ):
                return False
        elif cell.kind == "markdown" and "answer" in tags and source:
            if _words(cell.source) not in handout.placeholder(metadata.get("question"))[1]:
                return False
    return seen_code


def unanswered_questions(
    path: Path, answers: dict[str, str], handout: HandOut | None, max_bytes: int = DEFAULT_MAX_BYTES
) -> list[str]:
    """The questions the submission ``path`` (untrusted) has an answer cell for but did not answer.

    Part of issue 37: its cells are empty or hold the hand-out's placeholder (``answers`` is what
    :func:`extract_answers` read). The feedback calls them "not answered"; a question without any
    answer cell is "no answer cell".
    """
    cells = _notebook_cells(path, max_bytes) or []
    present = set()
    for cell in cells:
        metadata = cell.metadata if isinstance(cell.metadata, dict) else {}
        tags = metadata.get("tags") if isinstance(metadata.get("tags"), list) else []
        if cell.kind == "markdown" and "answer" in tags and isinstance(metadata.get("question"), str):
            present.add(metadata["question"])
    placeholder = set(untouched_answers(answers, handout))
    return sorted(q for q in present if q not in answers or q in placeholder)
