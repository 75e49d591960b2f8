"""Scaffold a new assignment (issue 37): its notebook, a hidden file to fill in, its TOC entry and index row.

Usage::

    python -m booktools new-assignment NAME --chapter CHAPTER_LABEL [--title TITLE] [--function FUNCTION]
        [--difficulty introductory|intermediate|advanced] [--hours N] [--root DIR]

Writes, under the repository ``--root`` (default: this one):

* ``book/assignments/NAME.md``: the student's notebook, with the header lines the index test reads
  (``*Part: ... Chapter: ...*`` and ``*Difficulty: ... Expected time: ...*``), the label
  ``asg-NAME`` (``_`` as ``-``), the next free assignment number, a stub of ``FUNCTION`` (default
  NAME) that raises ``NotImplementedError``, and the public-checks cell;
* ``book/assignments/lecturer/NAME_hidden.py``: a skeleton whose ``REFERENCE``, ``cases`` and
  ``public_checks`` raise ``NotImplementedError`` saying what to write. It is never a stub that
  passes: until it is filled in, grading, ``--write-public-checks`` and ``make test`` fail on it;
* a ``- file: book/assignments/NAME`` line at the end of the assignments in ``_toc.yml``;
* a row of ``book/assignments/index.md``'s table, after the rows of the same chapter, whose
  points are ``TODO`` until the hidden tests give them (``tests/test_assignments_index.py``
  computes them and fails until the row agrees).

Nothing is written when NAME is not a lowercase identifier, or names an assignment, hidden file or
label that exists, or CHAPTER_LABEL is no numbered chapter's label. Then it prints the next steps.
"""

from __future__ import annotations

import argparse
import keyword
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
DIFFICULTIES = ("introductory", "intermediate", "advanced")
_NAME = re.compile(r"[a-z][a-z0-9_]*")
_ROW = re.compile(r"^\| \{ref\}`A(\d+) <asg-[a-z0-9-]+>` — [^|]+ \| \{ref\}`(\d+) <ch-[a-z0-9-]+>` \|")

NOTEBOOK = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
    format_version: 0.13
    jupytext_version: 1.19.6
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

({label})=
# Assignment {number}: {title}

*Part: {part}. Chapter: {{ref}}`{chapter}`.*

*Difficulty: {difficulty}. Expected time: about {hours} {hour_word}.*

```{{admonition}} Your task
:class: tip

Complete the function `{function}` below, then run the public checks at the end. Keep the name and
the signature: the grader calls it on its own inputs.
```

TODO (lecturer): state the task: what `{function}` receives, what it returns, and what the hidden
tests try.

```{{code-cell}} ipython3
import numpy as np

from onlinelib import grading
```

```{{code-cell}} ipython3
def {function}(*args):
    \"\"\"TODO (lecturer): the signature and what it returns.\"\"\"
    # YOUR CODE HERE
    raise NotImplementedError
```

## Public checks

The public checks compare your code with the reference's outputs, recorded in
{{download}}`{name}_public.json`. Keep that file next to this notebook (download it with
the notebook if you work elsewhere).

```{{code-cell}} ipython3
public = grading.load_public_checks("{name}_public.json")
report = public.run({function})
print(report.summary())
```
"""

HIDDEN = '''"""Hidden tests of Assignment {number}, {title} (chapter {chapter_number}, {part}).

Lecturer edition only: the student-edition builder removes ``book/assignments/**/lecturer/``.
Run by ``python -m booktools grade SUBMISSIONS --assignment {name} --out scores.csv``.

TODO (lecturer): this file was made by ``python -m booktools new-assignment`` and is a skeleton.
Write REFERENCE, ``cases`` and ``public_checks`` (and FORBIDDEN); until then every use of it
fails on purpose (grading, ``--write-public-checks``, ``make test``), so a new assignment is never
graded by tests that were not written. See halving_hidden.py or normalized_step_hidden.py.
"""

from booktools.grading import checks

FUNCTION = "{function}"
KIND = "function"  # "learner" for a class played round by round, "certificate" for an object to verify
TITLE = "Assignment {number}: {title} (chapter {chapter_number})"
FORBIDDEN = []  # TODO: the onlinelib names the student writes here (removed from their library)

TODO = "assignment {name!r} is a skeleton: write REFERENCE, cases() and public_checks() in {name}_hidden.py"


def REFERENCE(*args):
    """TODO: the reference solution of {function}."""
    raise NotImplementedError(TODO)


def cases():
    """TODO: the hidden cases (``checks.Case(description, arguments)``), from a course-keyed rng."""
    raise NotImplementedError(TODO)


def public_checks():
    """TODO: the notebook's public cases, recorded by ``python -m booktools grade --write-public-checks``."""
    raise NotImplementedError(TODO)


def grade(student) -> checks.GradeReport:
    """Compare the student's function with the reference on the hidden cases."""
    return checks.compare_functions(student, REFERENCE, cases(), title=TITLE)
'''


@dataclass(frozen=True)
class Chapter:
    """A numbered chapter of ``_toc.yml``: its label, number (in TOC order) and part caption."""

    label: str
    number: int
    part: str


def chapters(root: Path) -> dict[str, Chapter]:
    """The numbered chapters of the book at ``root``, by label (``ch-experts``), from ``_toc.yml``."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    found, number = {}, 0
    for part in toc.get("parts", []):
        if not part.get("numbered"):
            continue
        for chapter in part.get("chapters", []):
            number += 1
            text = (root / f"{chapter['file']}.md").read_text(encoding="utf-8")
            label = re.search(r"^\((ch-[a-z0-9-]+)\)=$", text, re.M)
            if label:
                found[label[1]] = Chapter(label[1], number, part["caption"])
    return found


def check_name(name: str, root: Path) -> None:
    """Raise ValueError if NAME cannot be a new assignment of the book at ``root``."""
    if not _NAME.fullmatch(name) or keyword.iskeyword(name) or name == "index":
        raise ValueError(f"NAME must be a lowercase identifier such as 'winnow3' (letters, digits, _), got {name!r}")
    assignments = root / "book" / "assignments"
    for path in (assignments / f"{name}.md", assignments / "lecturer" / f"{name}_hidden.py"):
        if path.exists():
            raise ValueError(f"NAME {name!r}: {path} exists already; choose another name")
    label = f"asg-{name.replace('_', '-')}"
    for path in assignments.glob("*.md"):
        if f"({label})=" in path.read_text(encoding="utf-8"):
            raise ValueError(f"NAME {name!r}: the label {label} is used by {path} already; choose another name")


def next_number(root: Path) -> int:
    """One more than the highest ``# Assignment N:`` of the assignments' notebooks."""
    numbers = [
        int(match[1])
        for path in (root / "book" / "assignments").glob("*.md")
        for match in re.finditer(r"^# Assignment (\d+):", path.read_text(encoding="utf-8"), re.M)
    ]
    return max(numbers, default=0) + 1


def add_to_toc(text: str, name: str) -> str:
    """``_toc.yml``'s text with ``- file: book/assignments/NAME`` after its last assignment."""
    lines = text.splitlines(keepends=True)
    last = max(
        (i for i, line in enumerate(lines) if re.match(r"\s*- file: book/assignments/(?!index\b)", line)), default=None
    )
    if last is None:
        raise ValueError("_toc.yml has no '- file: book/assignments/...' entry to add the assignment after")
    indent = lines[last][: len(lines[last]) - len(lines[last].lstrip())]
    lines.insert(last + 1, f"{indent}- file: book/assignments/{name}\n")
    return "".join(lines)


def add_index_row(text: str, row: str, chapter_number: int) -> str:
    """The index's text with ``row`` after the last row of a chapter numbered ``chapter_number`` or less."""
    lines = text.splitlines(keepends=True)
    rows = [(i, int(match[2])) for i, line in enumerate(lines) if (match := _ROW.match(line))]
    if not rows:
        raise ValueError("book/assignments/index.md has no table of assignments to add a row to")
    before = [i for i, number in rows if number <= chapter_number]
    at = (before[-1] + 1) if before else rows[0][0]
    lines.insert(at, row + "\n")
    return "".join(lines)


def scaffold(root: Path, name: str, chapter_label: str, title: str, function: str, difficulty: str, hours: int):
    """Write the new assignment's files into the book at ``root``; return the paths written or changed.

    Raises ValueError (nothing written) for a bad or taken NAME, an unknown chapter or FUNCTION.
    """
    check_name(name, root)
    known = chapters(root)
    if chapter_label not in known:
        raise ValueError(f"--chapter must be a numbered chapter's label, one of {sorted(known)}; got {chapter_label!r}")
    if not function.isidentifier() or keyword.iskeyword(function):
        raise ValueError(f"--function must be a Python name, got {function!r}")
    if not title.strip() or not title.isprintable() or any(c in title for c in '"\\`'):
        raise ValueError(f'--title must be one line of text without ", \\ or `, got {title!r}')
    chapter = known[chapter_label]
    number = next_number(root)
    label = f"asg-{name.replace('_', '-')}"
    assignments = root / "book" / "assignments"
    toc = add_to_toc((root / "_toc.yml").read_text(encoding="utf-8"), name)
    row = (
        f"| {{ref}}`A{number} <{label}>` — `{function}`: TODO | {{ref}}`{chapter.number} <{chapter.label}>` "
        f"| code | TODO | — | {difficulty} | {hours} h |"
    )
    index = add_index_row((assignments / "index.md").read_text(encoding="utf-8"), row, chapter.number)
    fields = dict(
        name=name,
        label=label,
        number=number,
        title=title,
        part=chapter.part,
        chapter=chapter.label,
        chapter_number=chapter.number,
        difficulty=difficulty,
        hours=hours,
        hour_word="hour" if hours == 1 else "hours",
        function=function,
    )
    notebook, hidden = assignments / f"{name}.md", assignments / "lecturer" / f"{name}_hidden.py"
    hidden.parent.mkdir(parents=True, exist_ok=True)
    notebook.write_text(NOTEBOOK.format(**fields), encoding="utf-8")
    hidden.write_text(HIDDEN.format(**fields), encoding="utf-8")
    (root / "_toc.yml").write_text(toc, encoding="utf-8")
    (assignments / "index.md").write_text(index, encoding="utf-8")
    return [notebook, hidden, root / "_toc.yml", assignments / "index.md"]


def next_steps(name: str) -> str:
    """What the lecturer does after the scaffold, as printed."""
    return f"""next steps for {name}:
  1. write the task in book/assignments/{name}.md (its TODO), and its stub's signature;
  2. write REFERENCE, cases() and public_checks() (and FORBIDDEN) in book/assignments/lecturer/{name}_hidden.py:
     until then it fails on purpose;
  3. record its public checks (only its own file is written):
       .venv/bin/python -m booktools grade --write-public-checks --assignment {name}
  4. fill in its row of book/assignments/index.md (the TODOs: what the student writes, the automatic points);
     tests/test_assignments_index.py says what the row must hold;
  5. run the tests of the assignments: .venv/bin/pytest tests/test_assignments_index.py tests/test_grading.py"""


def main(argv: list[str] | None = None) -> int:
    """``python -m booktools new-assignment NAME --chapter LABEL``: scaffold an assignment, print the next steps."""
    parser = argparse.ArgumentParser(
        description="Scaffold a new assignment: its notebook, a hidden-tests skeleton that fails until written, "
        "its _toc.yml entry and its row in the assignments index."
    )
    parser.add_argument("name", metavar="NAME", help="the assignment's name: a lowercase identifier, e.g. winnow3")
    parser.add_argument("--chapter", required=True, help="the label of its chapter, e.g. ch-experts")
    parser.add_argument("--title", help="its title (default: NAME)")
    parser.add_argument("--function", help="the name the student's notebook defines (default: NAME)")
    parser.add_argument("--difficulty", choices=DIFFICULTIES, default="intermediate")
    parser.add_argument("--hours", type=int, default=3, help="the expected time in hours (default 3)")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository to write into (default: this one)")
    args = parser.parse_args(argv)
    if args.hours < 1:
        parser.error(f"--hours must be at least 1, got {args.hours}")
    try:
        written = scaffold(
            args.root.resolve(),
            args.name,
            args.chapter,
            args.title or args.name.replace("_", " "),
            args.function or args.name,
            args.difficulty,
            args.hours,
        )
    except (ValueError, OSError) as exc:
        parser.error(str(exc))
    for path in written:
        print(f"wrote {path}", file=sys.stderr)
    print(next_steps(args.name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
