"""``python -m booktools similarity DIR --assignment NAME``: which submissions share code (issue 37).

Usage::

    python -m booktools similarity SUBMISSIONS --assignment NAME [--out REPORT_DIR] [--threshold X]
        [--hidden-dir DIR] [--max-notebook-mb 16]

SUBMISSIONS is the folder the grader takes (found and named as the grader does,
:mod:`booktools.grading.collect`). Each submission's code cells are read as plain text, never run;
a code cell identical to one of the assignment's hand-out (``book/assignments/NAME.md``) is
dropped, and every fingerprint of the hand-out's code is ignored (copydetect's "boilerplate"), so
starter code shared by all is no match. Every pair of submissions is compared, and every
submission with the source of ``onlinelib`` that the assignment asks students to write (the
modules defining the hidden file's ``FORBIDDEN`` names, e.g. ``onlinelib/version_space.py`` for
Halving; all of ``onlinelib`` when the hidden file is not found).

**How code is compared** (copydetect 0.5.0, pinned). copydetect's ``filter_code`` tokenises code with
pygments, drops comments and whitespace, and replaces identifiers by ``V``/``F``/``O`` and strings by
``S``; the fingerprints are hashed k-grams of that text (k = :data:`NOISE`), and ``compare_files``
gives each side's similarity: the share of its fingerprinted code also found in the other. So
renaming, comments and layout change nothing. Three additions, each for a measured reason
(``tests/test_similarity.py`` prints the numbers):

* *Order.* copydetect fingerprints a file as one string: reversing the methods of a short class
  keeps only about 2/3 of its fingerprints, and swapping two statements of a three-line method
  drops the pair's score below 0.45. Here code is cut into blocks (cells, ``def``/``class`` blocks
  down to methods) and statements, each statement is filtered by copydetect, a block's statements
  are put in sorted order and each block is hashed on its own: no order of blocks or statements
  changes a fingerprint. The report marks whole statements.
* *Annotations and docstrings* are blanked before filtering (parsed with :mod:`ast`, never run):
  onlinelib's code has both, and a copy from it drops them (0.49 without this, 0.78 with it).
* *Reproducibility.* copydetect hashes k-grams with Python's salted ``hash`` (``PYTHONHASHSEED``),
  so its scores change from run to run; here a k-gram's hash is 8 bytes of its BLAKE2b digest.

**Flags.** A pair is flagged when one side's similarity is at least ``--threshold`` (with onlinelib,
the submission's side) and at least :data:`MIN_MATCHED` characters of filtered code match. The
default :data:`DEFAULT_THRESHOLD` = 0.6 was chosen on the corpus of ``tests/test_similarity.py``:
9 independent honest Halving learners (8 in different styles, and the grader's own ``correct``
fixture by another author) and 55 planted copies (renamed, methods reordered, statements swapped,
comments and docstrings changed, layout changed, all at once: 6 of each honest one; one adapted from
``onlinelib/version_space.py``). Every planted copy scores 1.0 against its original but the
library copy, 0.78 against onlinelib; the highest honest pair scores 0.37 (0 of 63 independent
pairs flagged, 0 of 2016 pairs of different origin). A mask solution that shared two of its four
methods with another, line for line, scored 0.49. 0.6 lies between these, with a margin of at
least 0.18 on either side of the corpus's numbers. A flag is a reason to look at the two notebooks
side by side, not proof of copying: a short assignment leaves few ways to write the same lines.

**Outputs** in REPORT_DIR (default ``similarity-NAME``, not inside SUBMISSIONS): ``similarity.csv``,
every pair sorted by similarity (``a, student_a, b, student_b, similarity_a, similarity_b, matched,
flagged``; cells neutralised as the grader's), and ``similarity.html``, one self-contained page
(no script, no request leaving the file) with the most similar pairs' matched statements side by side,
every text from a submission HTML-escaped. Submissions that could not be read are listed with
the reason, in the console and the report.

**Untrusted input.** Nothing of a submission is executed or imported. A notebook over
``--max-notebook-mb`` is not read; at most :data:`MAX_CELLS` cells and :data:`MAX_CODE_CHARS`
characters of code are read from one (the rest is cut, and the report says so); a notebook that
is not JSON, not UTF-8 or not a notebook gets its reason, not a crash.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import importlib
import inspect
import json
import re
import sys
from pathlib import Path

import numpy as np
from copydetect.detector import compare_files

from booktools.grading.answers import _ipynb_cells, _myst_cells, _Unreadable
from booktools.grading.collect import find_submissions, notebook_student, read_notebook, student_of
from booktools.grading.hidden import ASSIGNMENTS, HIDDEN_DIR
from booktools.grading.text import show
from booktools.similarity_fingerprint import (  # noqa: F401 (used here, and re-exported for the tests)
    GUARANTEE,
    NOISE,
    Fingerprint,
    blocks,
    boilerplate_hashes,
    fingerprint,
    kgram_hashes,
    regions,
    statements,
    unannotated,
)
from booktools.similarity_report import write_outputs

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ROOT / "onlinelib"

#: The default flag threshold: between the highest honest score (0.37) and the lowest planted copy's
#: (0.78) on tests/test_similarity.py's corpus, with 0.18 of margin each side (module docstring).
DEFAULT_THRESHOLD = 0.6
MIN_MATCHED = 2 * NOISE  # filtered characters in common for a flag: a one-liner alike in two notebooks is not one
MAX_CELLS = 5000
MAX_CODE_CHARS = 100_000  # characters of code read from one submission (cut beyond, and said)
MAX_SHOWN = 200  # rows of the report's table (the CSV has every pair)


# -- what is compared --------------------------------------------------------------------------------


@dataclasses.dataclass
class Document:
    """A submission (``student`` set) or a file of onlinelib (``student`` None), and its fingerprint."""

    name: str
    student: str | None
    code: str = ""
    starts: tuple[int, ...] = (0,)
    problem: str | None = None  # why it is not compared
    note: str | None = None  # compared, with a caveat (code cut)
    fp: Fingerprint | None = None


def _normal(cell: str) -> str:
    return "\n".join(line.rstrip() for line in cell.replace("\r\n", "\n").strip().splitlines())


_CELL_OPTIONS = re.compile(r"\A(?:---\n(?:.*\n)*?---\n|(?:[ \t]*:[\w-]+:.*\n)+)")


def code_cells(path: Path, data: bytes) -> list[str]:
    """The code cells of a notebook's bytes (.ipynb JSON or MyST .md), as text; raises ValueError with
    the reason when it cannot be read as a notebook. Reads with the grader's answer extractor."""
    text = data.decode("utf-8-sig")
    try:
        cells = _ipynb_cells(text, MAX_CELLS) if path.suffix == ".ipynb" else _myst_cells(text, MAX_CELLS)
    except _Unreadable as exc:
        raise ValueError(str(exc).replace(" read for answers", "")) from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON: {show(str(exc), 200)}") from None
    except RecursionError:
        raise ValueError("its JSON is nested too deeply") from None
    sources = []
    for cell in cells:
        if cell.kind == "code" and isinstance(cell.source, str):
            source = cell.source.replace("\r\n", "\n")
            sources.append(_CELL_OPTIONS.sub("", source) if path.suffix == ".md" else source)
    return sources


def template_cells(assignment: str, assignments: Path = ASSIGNMENTS) -> list[str]:
    """The code cells of the assignment's hand-out ``book/assignments/NAME.md``; ValueError if unknown."""
    if not re.fullmatch(r"[A-Za-z0-9_]+", assignment or ""):
        raise ValueError(f"--assignment must be a name like 'halving', got {show(assignment)}")
    path = assignments / f"{assignment}.md"
    if not path.is_file():
        known = sorted(p.stem for p in assignments.glob("*.md") if p.stem != "index")
        raise ValueError(
            f"--assignment: no assignment {assignment!r} ({path} does not exist); known: {', '.join(known)}"
        )
    return code_cells(path, path.read_bytes())


def read_submission(name: str, path: Path, template: set[str], max_bytes: int) -> Document:
    """One submission as the grader names it, with its students' code: the cells not in the hand-out."""
    data, problem = read_notebook(path, max_bytes)
    if problem is not None:  # not read any further (the student id neither)
        return Document(name, student_of({"submission": name}), problem=problem[1])
    document = Document(name, student_of({"submission": name, "student": notebook_student(path)}))
    try:
        cells = [cell for cell in code_cells(path, data) if _normal(cell) not in template]
    except ValueError as exc:
        document.problem = f"cannot be read as a notebook: {exc}"
        return document
    starts, code = [], ""
    for cell in cells:
        starts.append(len(code))
        code += cell.rstrip("\n") + "\n\n"
    if len(code) > MAX_CODE_CHARS:
        document.note = f"code cut to its first {MAX_CODE_CHARS} characters (of {len(code)})"
        code = code[:MAX_CODE_CHARS]
    if not code.strip():
        document.problem = "no code of the student's own (every code cell is the hand-out's, or there is none)"
    document.code, document.starts = code, tuple(s for s in starts if s < len(code)) or (0,)
    return document


def forbidden_names(assignment: str, hidden_dir: Path) -> list[str]:
    """The hidden file's ``FORBIDDEN`` list, read without running the file; [] if there is none."""
    path = hidden_dir / f"{assignment}_hidden.py"
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return []
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "FORBIDDEN" for t in node.targets):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                return []
            return [name for name in value if isinstance(name, str)]
    return []


def library_files(names: list[str], library: Path = LIBRARY) -> list[Path]:
    """The onlinelib source files defining ``names`` (``onlinelib.X.Y``); every module when none resolves."""
    found = set()
    for name in names:
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                target = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            for part in parts[cut:]:
                target = getattr(target, part, None)
            try:
                source = Path(inspect.getsourcefile(target) or "")
            except TypeError:  # a built-in or compiled part: no Python source
                break
            if source.suffix == ".py" and source.resolve().is_relative_to(library.resolve()):
                found.add(source.resolve())
            break
    return sorted(found) or sorted(p for p in library.rglob("*.py") if p.name != "__init__.py")


# -- comparing ------------------------------------------------------------------------------------------


@dataclasses.dataclass
class Pair:
    """Two documents compared: each side's similarity, the matched filtered characters, the regions."""

    a: Document
    b: Document
    similarity_a: float
    similarity_b: float
    matched: int
    slices: tuple
    flagged: bool = False

    @property
    def score(self) -> float:
        """What flags a pair: the larger side's similarity; with onlinelib, the submission's side."""
        return self.similarity_a if self.b.student is None else max(self.similarity_a, self.similarity_b)


def compare(a: Document, b: Document, threshold: float) -> Pair:
    """Compare two fingerprinted documents (copydetect's ``compare_files``) and flag the pair."""
    matched, (sim_a, sim_b), _ = compare_files(a.fp, b.fp)
    slices = (regions(a.fp, b.fp), regions(b.fp, a.fp)) if matched else (np.zeros((2, 0)), np.zeros((2, 0)))
    pair = Pair(a, b, float(sim_a), float(sim_b), int(matched), slices)
    pair.flagged = pair.score >= threshold and pair.matched >= MIN_MATCHED
    return pair


def compare_all(submissions: list[Document], library: list[Document], threshold: float) -> list[Pair]:
    """Every pair of compared submissions and every submission with every library file, by score."""
    ready = [s for s in submissions if s.problem is None]
    pairs = [compare(a, b, threshold) for i, a in enumerate(ready) for b in ready[i + 1 :]]
    pairs += [compare(a, source, threshold) for a in ready for source in library]
    pairs.sort(key=lambda p: (-p.score, p.a.name, p.b.name))
    return pairs


def analyse(
    folder: Path, assignment: str, threshold: float, hidden_dir: Path = HIDDEN_DIR, max_bytes: int = 16 * 2**20
) -> tuple[list[Document], list[Document], list[Pair]]:
    """Read, fingerprint and compare a folder of submissions: (submissions, library files, pairs).

    Raises ValueError for an unknown assignment or a folder that is not one.
    """
    if not folder.is_dir():
        raise ValueError(f"DIR: {folder} is not a folder")
    template = template_cells(assignment)
    noise = boilerplate_hashes(template)
    normal = {_normal(cell) for cell in template}
    submissions = []
    for name, path, problem in find_submissions(folder):
        if problem is None:
            submissions.append(read_submission(name, path, normal, max_bytes))
        elif problem[0] != "skipped":
            submissions.append(Document(name, student_of({"submission": name}), problem=problem[1]))
    library = []
    for path in library_files(forbidden_names(assignment, hidden_dir)):
        code = path.read_text(encoding="utf-8")
        library.append(Document(path.relative_to(ROOT).as_posix(), None, code))
    for document in submissions + library:
        if document.problem is None:
            document.fp = fingerprint(document.name, document.code, document.starts, noise)
    return submissions, library, compare_all(submissions, library, threshold)


# -- the command -----------------------------------------------------------------------------------------


def _threshold(text: str) -> float:
    value = float(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Compare submitted notebooks with each other and with onlinelib's own source "
        "(robust to renaming, reordering, comments and layout); write a CSV and an HTML report.",
    )
    parser.add_argument("submissions", type=Path, metavar="DIR", help="folder of .ipynb or MyST .md notebooks")
    parser.add_argument("--assignment", required=True, help="the assignment, e.g. halving")
    parser.add_argument("--out", type=Path, help="report folder (default: similarity-NAME)")
    parser.add_argument(
        "--threshold",
        type=_threshold,
        default=DEFAULT_THRESHOLD,
        help=f"flag a pair when one side's similarity is at least this (default {DEFAULT_THRESHOLD})",
    )
    parser.add_argument("--hidden-dir", type=Path, default=HIDDEN_DIR, help="where NAME_hidden.py is (FORBIDDEN)")
    parser.add_argument("--max-notebook-mb", type=int, default=16, help="largest notebook read (default 16)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """``python -m booktools similarity``: compare, write the CSV and the report, print a summary."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.max_notebook_mb < 1:
        parser.error(f"--max-notebook-mb must be at least 1, got {args.max_notebook_mb}")
    if not args.submissions.is_dir():
        parser.error(f"DIR: {args.submissions} is not a folder")
    out = args.out or Path(f"similarity-{args.assignment}")
    if out.resolve().is_relative_to(args.submissions.resolve()):
        parser.error(f"--out {out} is inside DIR {args.submissions}: the report would sit among the submissions")
    try:
        submissions, library, pairs = analyse(
            args.submissions, args.assignment, args.threshold, args.hidden_dir, args.max_notebook_mb * 2**20
        )
    except ValueError as exc:
        parser.error(str(exc))
    if not submissions:
        parser.error(f"DIR: {args.submissions} holds no notebook (.ipynb or .md)")
    table, page = write_outputs(out, args.assignment, args.threshold, MIN_MATCHED, submissions, library, pairs)
    compared = sum(s.problem is None for s in submissions)
    for document in submissions:
        if document.problem or document.note:
            print(f"{show(document.name, 120)}: {document.problem or document.note}", file=sys.stderr)
    flagged = [p for p in pairs if p.flagged]
    print(
        f"{compared} submissions compared ({len(submissions) - compared} not), {len(pairs)} pairs "
        f"(with {len(library)} onlinelib files); {len(flagged)} flagged at threshold {args.threshold:g}"
    )
    for pair in flagged[:20]:
        print(f"  {pair.score:.2f}  {show(pair.a.name, 80)}  ~  {show(pair.b.name, 80)}")
    if len(flagged) > 20:
        print(f"  ... and {len(flagged) - 20} more flagged pairs in the CSV")
    print(f"report: {page}\ntable: {table}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
