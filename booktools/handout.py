"""Hand-outs: the files a student receives for one assignment (issue 28, item 7).

Usage::

    python -m booktools handout ASSIGNMENT [--out DIR] [--zip] [--assignments-dir DIR]
    python -m booktools handout --all [--out DIR] [--zip] [--assignments-dir DIR]

A hand-out is one folder holding exactly ``NAME.ipynb``, ``NAME.md`` and ``NAME_public.json``:

* ``NAME.md`` is ``book/assignments/NAME.md`` as the student edition has it: every solution and
  every lecturer-only cell or block removed by ``booktools.solution_fences.strip_solutions``, the
  student-id cells put first;
* ``NAME.ipynb`` is that stripped notebook written by jupytext: no outputs, the source's
  kernelspec, and cell ids numbered in order, so the same sources give the same files;
* ``NAME_public.json`` is copied as it is. The public checks read it from the folder the
  notebook runs in, so it sits next to the notebook.

Both notebooks open with the student-id cells (issue 37, :data:`STUDENT_ID_CELLS`): a Markdown
cell asking for the id and the code cell ``STUDENT_ID = ""``, which the grader reads without
running the notebook (``booktools.grading.collect.notebook_student``).

The default folder is ``_build/handouts/NAME/``; ``--zip`` also writes ``NAME.zip`` next to it,
whose entries are ``NAME/<file>``. ``--all`` writes ``OUT/NAME/`` (and ``OUT/NAME.zip``) for every
assignment, OUT being ``_build/handouts`` by default. No built book is needed: a hand-out is made
from the sources only. Nothing is read from ``book/assignments/lecturer/``; the written files are
checked for a solution directive or a lecturer-only tag that survived, as the student edition's
sources are. A folder that holds files other than the hand-out's own is never overwritten.
"""

from __future__ import annotations

import argparse
import re
import sys
import zipfile
from pathlib import Path

import jupytext

from booktools.notebooks import is_myst_notebook
from booktools.solution_fences import SolutionSyntaxError, strip_solutions
from booktools.student_edition import _check_clean, is_lecturer_path

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = ROOT / "book" / "assignments"
DEFAULT_OUT = ROOT / "_build" / "handouts"
# Fixed zip timestamps: the same sources give the same bytes.
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)

#: The hand-out's first cells (issue 37), MyST text: where the student writes the id of the course roster.
STUDENT_ID_CELLS = """**Your student id.** Write your student id between the quotes in the next cell, exactly as the course
roster has it, and keep the line as it is otherwise. The grader reads it from this cell without running your
notebook; without it, your work is filed under the name of your file or folder.

```{code-cell} ipython3
STUDENT_ID = ""  # your student id, as in the course roster
```

"""


def with_student_id_cells(text: str) -> str:
    """The MyST notebook ``text`` with :data:`STUDENT_ID_CELLS` as its first cells (after the front matter).

    Parameters
    ----------
    text : str
        A MyST notebook: a ``---`` front matter (the jupytext header), then its cells.

    Returns
    -------
    str
        The same text with the student-id cells inserted right after the front matter.
    """
    end = text.find("\n---", 3) if text.startswith("---") else -1
    if end < 0:
        return STUDENT_ID_CELLS + text
    cut = text.find("\n", end + 4)
    cut = len(text) if cut < 0 else cut + 1
    return text[:cut] + "\n" + STUDENT_ID_CELLS + text[cut:].lstrip("\n")


def known_assignments(assignments: Path = ASSIGNMENTS) -> list[str]:
    """The names of the assignments in ``assignments``: its MyST notebooks but ``index.md``.

    Parameters
    ----------
    assignments : Path
        The folder of the assignment notebooks (``book/assignments``).

    Returns
    -------
    list of str
        The names, sorted (``halving`` for ``halving.md``).
    """
    return sorted(
        path.stem
        for path in assignments.glob("*.md")
        if path.stem != "index" and not is_lecturer_path(Path(path.name)) and is_myst_notebook(path)
    )


def handout_files(name: str, assignments: Path = ASSIGNMENTS) -> dict[str, bytes]:
    """The files of one assignment's hand-out, by file name.

    Parameters
    ----------
    name : str
        The assignment, e.g. ``halving``.
    assignments : Path
        The folder holding ``NAME.md`` and ``NAME_public.json``.

    Returns
    -------
    dict of str to bytes
        ``NAME.ipynb``, ``NAME.md`` and ``NAME_public.json`` with their contents.

    Raises
    ------
    SystemExit
        If ``name`` is not a simple name, is not an assignment notebook of ``assignments``,
        has no public-checks file, or its solutions are not well nested.
    """
    if not re.fullmatch(r"[A-Za-z0-9_]+", name):
        raise SystemExit(f"ASSIGNMENT must be a name like 'halving', got {name!r}")
    known = known_assignments(assignments)
    if name not in known:
        raise SystemExit(
            f"no assignment {name!r}: {assignments / (name + '.md')} is not an assignment notebook; "
            f"known: {', '.join(known) or 'none'}"
        )
    source = assignments / f"{name}.md"
    public = assignments / f"{name}_public.json"
    if not public.is_file():
        raise SystemExit(
            f"assignment {name!r} has no public checks ({public} does not exist); "
            "`python -m booktools grade --write-public-checks` records them"
        )
    try:
        text, _ = strip_solutions(source.read_text(encoding="utf-8"))
    except SolutionSyntaxError as err:
        raise SystemExit(f"{source}: {err}") from None
    text = with_student_id_cells(text)
    nb = jupytext.reads(text, fmt="md:myst")
    for index, cell in enumerate(nb.cells):
        cell.id = f"cell-{index}"  # jupytext draws random ids
    return {
        f"{name}.ipynb": jupytext.writes(nb, fmt="ipynb").encode("utf-8"),
        f"{name}.md": text.encode("utf-8"),
        f"{name}_public.json": public.read_bytes(),
    }


def write_handout(name: str, out: Path, assignments: Path = ASSIGNMENTS, make_zip: bool = False) -> Path:
    """Write one assignment's hand-out into the folder ``out`` (and ``out``'s name + ``.zip``).

    Parameters
    ----------
    name : str
        The assignment, e.g. ``halving``.
    out : Path
        The hand-out's folder: made if missing; it may hold only the hand-out's own files.
    assignments : Path
        The folder holding ``NAME.md`` and ``NAME_public.json``.
    make_zip : bool
        Also write ``out.zip``, whose entries are ``NAME/<file>``.

    Returns
    -------
    Path
        The folder written.

    Raises
    ------
    SystemExit
        As :func:`handout_files`; also if ``out`` is a file or holds other files, or if a
        solution or lecturer-only tag is still in a written file.
    """
    files = handout_files(name, assignments)
    if out.exists() and not out.is_dir():
        raise SystemExit(f"{out} is a file, not a folder for the hand-out")
    if out.is_dir():
        # only an earlier hand-out may be overwritten, never a folder of other files
        other = sorted(path.name for path in out.iterdir() if path.name not in files)
        if other:
            raise SystemExit(
                f"refusing to write the hand-out of {name!r} into {out}: it holds other files "
                f"({', '.join(other[:5])}{', ...' if len(other) > 5 else ''}); choose another --out"
            )
    out.mkdir(parents=True, exist_ok=True)
    for file_name, data in files.items():
        (out / file_name).write_bytes(data)
    _check_clean(out)
    if make_zip:
        target = out.parent / f"{out.name}.zip"
        partial = target.with_name(target.name + ".part")
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
            for file_name, data in files.items():
                info = zipfile.ZipInfo(f"{name}/{file_name}", date_time=_ZIP_DATE)
                info.external_attr = 0o644 << 16
                archive.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED)
        partial.replace(target)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Write an assignment's hand-out: its notebook (.ipynb and .md) from the student "
        "edition's sources, without solutions or lecturer-only material, and its public checks."
    )
    parser.add_argument("assignment", nargs="?", metavar="ASSIGNMENT", help="the assignment, e.g. halving")
    parser.add_argument("--all", action="store_true", help="every assignment, each into OUT/NAME/")
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="the hand-out's folder (default: _build/handouts/NAME); with --all, the folder that gets "
        "one NAME/ per assignment (default: _build/handouts)",
    )
    parser.add_argument("--zip", action="store_true", help="also write a .zip of each hand-out next to its folder")
    parser.add_argument(
        "--assignments-dir",
        type=Path,
        default=ASSIGNMENTS,
        metavar="DIR",
        help="where NAME.md and NAME_public.json live (default: book/assignments)",
    )
    args = parser.parse_args(argv)
    if args.all == (args.assignment is not None):
        parser.error("name one ASSIGNMENT or give --all")
    assignments = args.assignments_dir.resolve()
    if args.all:
        names = known_assignments(assignments)
        if not names:
            raise SystemExit(f"no assignment notebooks in {assignments}")
        base = (args.out or DEFAULT_OUT).resolve()
        targets = [(name, base / name) for name in names]
    else:
        targets = [(args.assignment, (args.out or DEFAULT_OUT / args.assignment).resolve())]
    for name, out in targets:
        write_handout(name, out, assignments, args.zip)
        print(f"hand-out of {name}: {out}" + (f" and {out.name}.zip" if args.zip else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
