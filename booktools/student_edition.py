"""Build the student edition: the book with every solution and lecturer-only item removed.

    python -m booktools student-edition            # strip into _build/student_src, build into _build/student
    python -m booktools student-edition --no-build # only write the stripped sources

Sphinx-exercise's ``hide_solutions`` option is not used: it fails on gated solutions and
keeps their text in ``_sources``. Instead the sources are stripped before Sphinx sees them, so
no artifact of the student build (HTML pages, ``_sources``, ``searchindex.js``, the executed
notebooks in ``jupyter_execute``, the doctrees, the download files) can contain a solution.

What is removed from every MyST Markdown file (``*.md``):

* every gated solution, from its ``{solution-start}`` fence through the fence of the matching
  ``{solution-end}``, inclusive;
* every plain ``{solution}`` directive, with its content;
* every code cell tagged ``lecturer-only`` (``:tags: [lecturer-only]``, or ``tags:`` in a
  ``---`` option block);
* every directive whose ``:class:`` includes ``lecturer-only``;
* every Markdown cell whose ``+++`` marker carries the tag, e.g.
  ``+++ {"tags": ["lecturer-only"]}`` (up to the next ``+++`` or code cell).

Code fences, directives and ``+++`` markers are found as myst-parser finds them when it builds
the book: markdown-it-py with the front-matter, MyST-block and colon-fence plugins, and the
Markdown content of every directive (but code cells, maths and the like) is parsed the same way.

Files are left out of the copy if any part of their path is a directory named ``lecturer``
(e.g. ``book/assignments/a1/lecturer/``) or contains ``_lecturer`` (e.g.
``a1_lecturer.md``); entries for such files are dropped from ``_toc.yml``. Notebooks
(``*.ipynb``) in the sources lose their ``lecturer-only`` cells and their solutions too.

The stripped sources go to ``_build/student_src``; ``jupyter-book build`` then writes the
student edition under ``_build/student/_build/`` (HTML in ``_build/student/_build/html``,
executed notebooks in ``_build/student/_build/jupyter_execute``). The build is strict
(``-W -n --keep-going``). ``tests/test_student_edition.py`` then checks that no solution text
reached any file of the build.

A chapter is executed again only if it has to be. ``make book`` has just run the same code: a
student page whose code cells are the full page's, and whose executed notebook in
``_build/jupyter_execute`` is newer than the page, the library and the chapter's module, takes
its outputs from there (through a jupyter-cache, :func:`reuse_executed_outputs`); a page that
lost code to the stripping, or that the full build has not run since a change, is executed, and
must pass, as before. ``--execute-all`` executes every page afresh.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from glob import escape as glob_escape
from pathlib import Path

import yaml
from markdown_it import MarkdownIt
from mdit_py_plugins.colon_fence import colon_fence_plugin
from mdit_py_plugins.front_matter import front_matter_plugin
from mdit_py_plugins.myst_blocks import myst_block_plugin

from _ext.chapter_modules import library_files, output_sources
from booktools import student_repo
from booktools.toc import toc_entries, toc_globs

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SRC_OUT = Path("_build/student_src")
DEFAULT_OUT = Path("_build/student")
LECTURER_TAG = "lecturer-only"

# Top-level items that the book build needs besides the files named in _toc.yml.
ALWAYS_COPY = ["_config.yml", "_toc.yml", "_static", "_templates"]
# Never copied, wherever they are.
SKIP_NAMES = {"_build", "__pycache__", ".ipynb_checkpoints", ".jupyter_cache", ".git", ".DS_Store"}

# The block structure of MyST Markdown as myst-parser reads it: CommonMark, the YAML front
# matter, the notebook cell breaks (``+++``) and ``:::`` fences (colon_fence, on in _config.yml).
# Only blocks matter here, so inline parsing is off.
_MARKDOWN = (
    MarkdownIt("commonmark")
    .use(front_matter_plugin)
    .use(myst_block_plugin)
    .use(colon_fence_plugin)
    .disable(["inline", "text_join"])
)
# Where markdown-it ends a line (it reads \r\n and a lone \r as \n): a split after each line end.
_LINE_END = re.compile(r"(?<=\n)|(?<=\r)(?!\n)")
# Directives whose content is not Markdown: never looked into.
_OPAQUE = {
    "code-cell",
    "code",
    "code-block",
    "sourcecode",
    "math",
    "raw",
    "literalinclude",
    "eval-rst",
    "csv-table",
    "glue:math",
}


@dataclass
class Removed:
    """One block taken out of a source file."""

    kind: str  # "gated-solution", "solution", "lecturer-only"
    label: str  # the solution's exercise label, the directive argument, or "" if none
    body: str  # the text inside the block (without its opening and closing fences)
    start: int  # first removed line, 1-based
    end: int  # last removed line, 1-based


@dataclass
class Fence:
    """A fenced block (a code fence or a MyST directive) of a MyST Markdown file, as markdown-it finds it."""

    start: int  # index of the opening line
    close: int  # index of the closing line (the end of the text, or of the
    # enclosing block, if unterminated)
    name: str | None  # directive name, or None for a plain code fence
    arg: str
    content: int  # index of the first line of the directive's content (after options)
    options: dict
    markdown: str  # the content from line ``content`` on, without the fence's indentation


@dataclass
class _CellBreak:
    """A ``+++`` line: the start of a Markdown cell of the notebook, with its metadata text."""

    start: int
    meta: str


class SolutionSyntaxError(ValueError):
    """A solution-start without a solution-end, or the other way round."""


def _lines(text: str) -> list[str]:
    """The lines of ``text`` with their line ends, numbered as markdown-it numbers them."""
    return [line for line in _LINE_END.split(text) if line]


def _directive(info: str, colon: bool) -> tuple[str | None, str]:
    """A fence's directive name and argument: ``{name} arg`` (or ``name arg`` after ``:::``)."""
    word, arg = (info.split(maxsplit=1) + ["", ""])[:2]
    if word.startswith("{") and word.endswith("}") and len(word) > 2:
        return word[1:-1], arg.strip()
    if colon and word:  # :::name is a directive too with colon_fence
        return word, arg.strip()
    return None, ""


def _blocks(lines: list[str], text: str, offset: int, breaks: bool) -> list:
    """The fences (and, with ``breaks``, the cell breaks) of ``text``, in order.

    ``text`` is lines[offset:] up to some end (de-indented, in a directive's content): line k of
    ``text`` is ``lines[offset + k]``. Fences inside other fences are not listed (they are
    content); fences in lists and block quotes are.
    """
    found = []
    for token in _MARKDOWN.parse(text):
        if token.type == "myst_block_break" and breaks:
            found.append(_CellBreak(offset + token.map[0], token.content))
        elif token.type in ("fence", "colon_fence"):
            body = _lines(token.content)
            first, end = token.map
            closed = first + 1 + len(body) < end
            start, close = offset + first, offset + (end - 1 if closed else end)
            name, arg = _directive(token.info, token.type == "colon_fence")
            options, content = _options(lines, start + 1, close) if name is not None else ({}, start + 1)
            found.append(Fence(start, close, name, arg, content, options, "".join(body[content - start - 1 :])))
    return found


def fences(text: str) -> list[Fence]:
    """Every fenced block of MyST Markdown text in order, also those in the Markdown content of a directive."""
    lines = _lines(text)
    found: list[Fence] = []

    def walk(markdown: str, offset: int) -> None:
        for f in _blocks(lines, markdown, offset, breaks=False):
            found.append(f)
            if f.name is not None and f.name not in _OPAQUE:
                walk(f.markdown, f.content)

    walk(text, 0)
    return found


def _options(lines: list[str], lo: int, hi: int) -> tuple[dict, int]:
    """A directive's options, in ``:key: value`` lines or a ``---`` YAML block."""
    options: dict = {}
    if lo < hi and lines[lo].strip() == "---":
        end = next((j for j in range(lo + 1, hi) if lines[j].strip() == "---"), None)
        if end is not None:
            try:
                loaded = yaml.safe_load("".join(lines[lo + 1 : end]))
            except yaml.YAMLError:
                loaded = None
            if isinstance(loaded, dict):
                options = {str(k): v for k, v in loaded.items()}
            return options, end + 1
    j = lo
    while j < hi:
        m = re.match(r"^\s*:([\w-]+):\s*(.*?)\s*$", lines[j])
        if not m:
            break
        key, value = m.groups()
        try:
            options[key] = yaml.safe_load(value) if value else ""
        except yaml.YAMLError:
            options[key] = value
        j += 1
    return options, j


def _words(value) -> set[str]:
    """Tags or classes as a set of strings, from a YAML list or a space/comma separated string."""
    if value is None:
        return set()
    if isinstance(value, (list, tuple)):
        return {str(v).strip() for v in value}
    return {w for w in re.split(r"[\s,\[\]'\"]+", str(value)) if w}


def _is_lecturer_only(f: Fence) -> bool:
    return LECTURER_TAG in _words(f.options.get("tags")) | _words(f.options.get("class"))


def _marker_is_lecturer_only(meta: str | None) -> bool:
    if not meta:
        return False
    try:
        data = json.loads(meta)
    except json.JSONDecodeError:
        return LECTURER_TAG in meta
    return isinstance(data, dict) and LECTURER_TAG in _words(data.get("tags"))


def _scan(lines: list[str], markdown: str, offset: int, top: bool, out: list[Removed]) -> None:
    """Append to ``out`` the blocks to remove from ``markdown`` (one nesting level, recursing).

    ``markdown`` is the whole text (``top``) or a directive's content, whose first line is
    ``lines[offset]``; cell breaks count only at the top.
    """
    hi = offset + len(_lines(markdown))
    blocks = _blocks(lines, markdown, offset, breaks=top)
    k = 0
    while k < len(blocks):
        f = blocks[k]
        k += 1
        if isinstance(f, _CellBreak):
            if _marker_is_lecturer_only(f.meta):
                # the Markdown cell runs to the next +++ or code cell
                while k < len(blocks) and not (isinstance(blocks[k], _CellBreak) or blocks[k].name == "code-cell"):
                    k += 1
                j = blocks[k].start if k < len(blocks) else hi
                out.append(Removed("lecturer-only", "", "".join(lines[f.start + 1 : j]), f.start + 1, j))
            continue
        if f.name == "solution-end":
            raise SolutionSyntaxError(f"line {f.start + 1}: solution-end without a solution-start")
        if f.name == "solution-start":
            # the next solution-start or solution-end fence (cell breaks do not end a solution)
            k = next(
                (
                    m
                    for m in range(k, len(blocks))
                    if isinstance(blocks[m], Fence) and blocks[m].name in ("solution-start", "solution-end")
                ),
                len(blocks),
            )
            if k == len(blocks):
                raise SolutionSyntaxError(f"line {f.start + 1}: solution-start {f.arg} has no solution-end")
            end = blocks[k]
            if end.name == "solution-start":
                raise SolutionSyntaxError(
                    f"line {end.start + 1}: solution-start inside the solution opened at line {f.start + 1}"
                )
            body = "".join(lines[f.close + 1 : end.start])
            out.append(Removed("gated-solution", f.arg, body, f.start + 1, min(end.close, hi - 1) + 1))
            k += 1
            continue
        if f.name == "solution" or (f.name is not None and _is_lecturer_only(f)):
            kind = "solution" if f.name == "solution" else "lecturer-only"
            label = f.arg if f.name == "solution" else str(f.options.get("label", f.arg))
            out.append(Removed(kind, label, "".join(lines[f.content : f.close]), f.start + 1, min(f.close, hi - 1) + 1))
        elif f.name is not None and f.name not in _OPAQUE:
            _scan(lines, f.markdown, f.content, False, out)  # directive content is Markdown


def find_removals(text: str) -> list[Removed]:
    """Every block that the student edition leaves out of this MyST Markdown text, in order.

    Raises SolutionSyntaxError on an unmatched solution-start or solution-end.
    """
    out: list[Removed] = []
    _scan(_lines(text), text, 0, True, out)
    return sorted(out, key=lambda r: r.start)


def strip_solutions(text: str) -> tuple[str, list[str]]:
    """Remove solutions and lecturer-only material from MyST Markdown text.

    Returns the stripped text and the bodies of the removed blocks, in order of appearance.
    A blank line left on both sides of a removed block is kept once.
    """
    lines = _lines(text)
    removed = find_removals(text)
    keep: list[str] = []
    i = 0
    for r in removed:
        keep.extend(lines[i : r.start - 1])
        i = r.end
        if keep and not keep[-1].strip() and i < len(lines) and not lines[i].strip():
            i += 1
    keep.extend(lines[i:])
    return "".join(keep), [r.body for r in removed]


# --------------------------------------------------------------------------------------------
# Notebooks (*.ipynb) in the sources


def strip_notebook(nb: dict) -> tuple[dict, int]:
    """Drop lecturer-only cells and solutions (also gated ones spanning several cells)."""
    cells, removed, in_solution = [], 0, False
    for cell in nb.get("cells", []):
        tags = _words(cell.get("metadata", {}).get("tags"))
        if LECTURER_TAG in tags:
            removed += 1
            continue
        src = cell.get("source", "")
        src = "".join(src) if isinstance(src, list) else src
        if in_solution:
            end = next((f for f in fences(src) if f.name == "solution-end"), None)
            if end is None:
                removed += 1
                continue
            src, in_solution = "".join(_lines(src)[end.close + 1 :]), False
        if cell.get("cell_type") == "markdown":
            try:
                src, bodies = strip_solutions(src)
            except SolutionSyntaxError:
                # a solution-start whose end is in a later cell: keep what precedes it
                start = next(f.start for f in fences(src) if f.name == "solution-start")
                src, bodies = strip_solutions("".join(_lines(src)[:start]))
                in_solution = True
            removed += len(bodies)
            if not src.strip():
                continue
        cell = dict(cell, source=src)
        cells.append(cell)
    if in_solution:
        raise SolutionSyntaxError("a notebook's solution-start has no solution-end")
    return dict(nb, cells=cells), removed


# --------------------------------------------------------------------------------------------
# The copy


def is_lecturer_path(rel: Path) -> bool:
    """True for files meant for lecturers only: under a ``lecturer/`` directory, or ``*_lecturer*``."""
    return any(part.lower() == "lecturer" or fnmatch.fnmatch(part.lower(), "*_lecturer*") for part in rel.parts)


def _prune_toc(entry, gone):
    """The _toc.yml structure without entries whose file is in ``gone`` (names without suffix)."""
    if isinstance(entry, list):
        kept = []
        for item in entry:
            if isinstance(item, dict) and isinstance(item.get("file"), str) and _no_suffix(item["file"]) in gone:
                continue
            kept.append(_prune_toc(item, gone))
        return kept
    if isinstance(entry, dict):
        return {k: _prune_toc(v, gone) for k, v in entry.items()}
    return entry


def _no_suffix(name: str) -> str:
    p = Path(name)
    return str(p.with_suffix("")) if p.suffix in (".md", ".ipynb", ".rst") else str(p)


def _config_paths(config: dict) -> list[str]:
    """Local files named in _config.yml that the build reads."""
    paths = list(config.get("bibtex_bibfiles") or [])
    html = config.get("html") or {}
    paths += [v for v in (config.get("logo"), html.get("favicon")) if isinstance(v, str) and v]
    sphinx_config = (config.get("sphinx") or {}).get("config") or {}
    for key in ("html_static_path", "templates_path", "html_extra_path", "bibtex_bibfiles"):
        value = sphinx_config.get(key)
        paths += [value] if isinstance(value, str) else list(value or [])
    # folders of local Sphinx extensions (sphinx.local_extensions: {name: folder})
    local = (config.get("sphinx") or {}).get("local_extensions") or {}
    paths += [v for v in local.values() if isinstance(v, str)]
    return [p for p in paths if isinstance(p, str) and not p.startswith(("http:", "https:"))]


def student_settings(config: dict) -> dict:
    """The ``student:`` block of ``_config.yml``: the student repository's URL and the pages left out.

    ``student.repository.url`` is the repository the student site's Binder, Live Code, download and
    clone links name: one holding only the student edition (``--repo DIR`` writes it). It is never
    the full repository's ``repository.url``: left empty, the student site has no such links.
    ``student.leave_out`` lists pages (as ``_toc.yml`` names them) that only lecturers need, such as
    ``book/status``, the build record.
    """
    block = config.get("student") or {}
    if not isinstance(block, dict):
        raise SystemExit(f"_config.yml: student must be a mapping, got {block!r}")
    url = (block.get("repository") or {}).get("url") or ""
    leave_out = block.get("leave_out") or []
    if not isinstance(url, str) or not isinstance(leave_out, list) or not all(isinstance(p, str) for p in leave_out):
        raise SystemExit(
            f"_config.yml: expected student.repository.url a string and student.leave_out a list, got {block!r}"
        )
    return {"url": url.strip(), "leave_out": [_no_suffix(p) for p in leave_out]}


def make_student_sources(root: Path, dest: Path, include: list[str] = ()) -> dict:
    """Write the stripped copy of the book at ``root`` into ``dest`` (emptied first).

    Returns a summary: files copied, solutions and lecturer-only blocks removed, files left out.
    """
    root, dest = root.resolve(), dest.resolve()
    if dest == root or dest in root.parents:
        raise SystemExit(f"refusing to write the student sources over the repository: {dest}")
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8")) or {}
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8")) or {}
    tops = set(ALWAYS_COPY) | set(include)
    for name in toc_entries(toc) + toc_globs(toc) + _config_paths(config):
        top = Path(name).parts[0]
        if len(Path(name).parts) == 1 and not (root / top).exists():  # a page at the top: intro
            tops |= {p.name for p in root.glob(glob_escape(top) + ".*")}
        else:
            tops.add(top)
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)

    leave_out = set(student_settings(config)["leave_out"])
    removed_blocks: dict[str, list[Removed]] = {}
    summary = {"files": 0, "gated-solution": 0, "solution": 0, "lecturer-only": 0, "left out": []}
    sources = []
    for top in sorted(tops):
        path = root / top
        if path.is_file():
            sources.append(path)
        elif path.is_dir():
            sources += sorted(p for p in path.rglob("*") if p.is_file())
    for path in sources:
        rel = path.relative_to(root)
        if any(part in SKIP_NAMES for part in rel.parts) or (dest in path.parents):
            continue
        if is_lecturer_path(rel) or _no_suffix(rel.as_posix()) in leave_out:
            summary["left out"].append(str(rel))
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".md":
            text = path.read_text(encoding="utf-8")
            try:
                removed = find_removals(text)
                stripped, _ = strip_solutions(text)
            except SolutionSyntaxError as err:
                raise SystemExit(f"{rel}: {err}") from None
            for r in removed:
                summary[r.kind] += 1
            if removed:
                removed_blocks[str(rel)] = removed
            target.write_text(stripped, encoding="utf-8")
        elif path.suffix == ".ipynb":
            nb, n = strip_notebook(json.loads(path.read_text(encoding="utf-8")))
            summary["solution"] += n
            target.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        else:
            shutil.copy2(path, target)
        summary["files"] += 1

    gone = {_no_suffix(f) for f in summary["left out"]}
    if gone & {_no_suffix(f) for f in toc_entries(toc)}:
        (dest / "_toc.yml").write_text(yaml.safe_dump(_prune_toc(toc, gone), sort_keys=False), encoding="utf-8")
    _check_clean(dest)
    left_out = {
        f: (root / f).read_text(encoding="utf-8", errors="replace")
        for f in summary["left out"]
        if Path(f).suffix in (".md", ".ipynb")
    }
    _check_references(removed_blocks, dest, left_out)
    return summary


_DIRECTIVE_LINE = re.compile(r"^[ \t]*(`{3,}|~{3,}|:{3,})\{solution(-start|-end)?\}", re.MULTILINE)
_TAGGED = re.compile(r"^[ \t]*(:(tags|class):|tags:|\+\+\+).*" + re.escape(LECTURER_TAG), re.MULTILINE)
_LABEL_DEF = re.compile(r"^[ \t]*(?::label:|:name:|label:|name:)[ \t]*(\S+)|^\(([^)\s]+)\)=[ \t]*$", re.MULTILINE)


def _check_clean(dest: Path) -> None:
    """Fail if a solution directive or a lecturer-only tag survived in the stripped sources."""
    for path in sorted(dest.rglob("*")):
        if path.suffix == ".md":
            texts = [path.read_text(encoding="utf-8")]
        elif path.suffix == ".ipynb":
            nb = json.loads(path.read_text(encoding="utf-8"))
            texts = ["".join(c.get("source", "")) for c in nb.get("cells", [])]
            if any(LECTURER_TAG in _words(c.get("metadata", {}).get("tags")) for c in nb.get("cells", [])):
                raise SystemExit(f"{path}: a lecturer-only cell is still there after stripping")
        else:
            continue
        for text in texts:
            m = _DIRECTIVE_LINE.search(text) or _TAGGED.search(text)
            if m:
                raise SystemExit(f"{path}: '{m.group(0).strip()}' is still there after stripping")


def _check_references(removed: dict[str, list[Removed]], dest: Path, left_out: dict[str, str] | None = None) -> None:
    """Fail early if the remaining text refers to something the student edition lost.

    That is a label defined only inside a removed block or in a left-out file
    (``left_out`` maps those files to their text), or a link to a left-out page.
    """
    labels = {}
    for rel, blocks in removed.items():
        for r in blocks:
            for m in _LABEL_DEF.finditer(r.body):
                labels[m.group(1) or m.group(2)] = (rel, r.label or f"line {r.start}")
    for rel, text in (left_out or {}).items():
        for m in _LABEL_DEF.finditer(text):
            labels[m.group(1) or m.group(2)] = (rel, "a left-out file")
    pages = [Path(_no_suffix(rel)).name for rel in (left_out or {})]
    if not labels and not pages:
        return
    problems = []
    for path in sorted(dest.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        for label, (rel, owner) in labels.items():
            pattern = r"(\{[\w:-]+\}`([^`]*<)?" + re.escape(label) + r">?`|\]\(#?" + re.escape(label) + r"\))"
            if re.search(pattern, text):
                problems.append(
                    f"{path.relative_to(dest)} refers to {label}, which is defined in a removed block ({rel}, {owner})"
                )
        for page in pages:  # a Markdown link or a {doc} role to the page
            if re.search(r"(\]\(|\{doc\}`([^`]*<)?)[^)`>]*\b" + re.escape(page) + r"(\.md|\.ipynb)?[)>`#]", text):
                problems.append(f"{path.relative_to(dest)} links to {page}, a left-out lecturer page")
    if problems:
        raise SystemExit("the student edition would have broken references:\n  " + "\n  ".join(problems))


# --------------------------------------------------------------------------------------------
# Reusing the full build's outputs (issue 28): the student edition executes only what changed.

DEFAULT_EXECUTED = Path("_build/jupyter_execute")  # where `make book` leaves the executed notebooks
CACHE_NAME = ".jupyter_cache"  # the student build's jupyter-cache, under --out
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _code_cells(nb) -> list[tuple[str, dict]]:
    return [(c.source, dict(c.metadata)) for c in nb.cells if c.cell_type == "code"]


def _read_notebook(text: str, config: dict):
    """A MyST notebook's cells as myst-nb reads them in the build (with the book's MyST extensions)."""
    from myst_nb.core.read import read_myst_markdown_notebook
    from myst_parser.config.main import MdParserConfig

    extensions = ((config.get("parse") or {}).get("myst_enable_extensions")) or []
    return read_myst_markdown_notebook(text, config=MdParserConfig(enable_extensions=list(extensions)))


def reuse_executed_outputs(root: Path, src_out: Path, cache: Path, executed: Path | None = None) -> dict[str, str]:
    """Put into the jupyter-cache ``cache`` the full build's outputs of every student page that can reuse them.

    A page of the stripped sources ``src_out`` reuses the executed notebook of the full build
    (``executed``, default ``ROOT/_build/jupyter_execute``) when all of these hold:

    * its code cells, source and metadata, are the first code cells of the full page, in order:
      any code the stripping removed (solutions, lecturer-only cells) came after every cell it
      kept. The kernel runs cells in order, so the kept cells ran in the full build exactly as
      they run in the student edition, before any removed code, and their outputs are the same
      (the chapters seed every random draw);
    * the executed notebook ran exactly the full page's code, and no removed cell drew a widget
      (the page's saved widget state would hold it);
    * it records which cell glued each value (``_ext/glue_cells.py``): myst-nb keeps the values
      glued with ``display=False`` apart, and only those of kept cells go back into the page;
    * the executed notebook is newer than every file its outputs depend on
      (``_ext/chapter_modules.output_sources``: the page, the library, the chapter's module).

    The student build then runs in myst-nb's ``cache`` mode: jupyter-cache matches a page by its
    code cells and merges the stored outputs in, and executes (and checks) every page it has
    not got. Returns ``{page: "reused" or why it runs}``, for every page with code cells.
    """
    import nbformat
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    root, src_out = root.resolve(), src_out.resolve()
    executed = (executed or root / DEFAULT_EXECUTED).resolve()
    config = yaml.safe_load((src_out / "_config.yml").read_text(encoding="utf-8")) or {}
    if cache.exists():
        shutil.rmtree(cache)
    store = get_cache(str(cache))
    library = library_files(root)  # the same for every page: listed once
    verdicts = {}
    for page in sorted(src_out.rglob("*.md")):
        rel = page.relative_to(src_out)
        text = page.read_text(encoding="utf-8")
        if "{code-cell}" not in text or any(part in SKIP_NAMES for part in rel.parts):
            continue
        student = _read_notebook(text, config)
        if not _code_cells(student):
            continue
        full_page, done = root / rel, executed / rel.with_suffix(".ipynb")
        if not done.is_file():
            verdicts[str(rel)] = "runs: the full build has not executed it"
            continue
        kept, full = _code_cells(student), _code_cells(_read_notebook(full_page.read_text(encoding="utf-8"), config))
        if full[: len(kept)] != kept:
            verdicts[str(rel)] = "runs: it keeps code that comes after code the student edition removed"
            continue
        newer = [f for f in output_sources(root, full_page, library) if f.stat().st_mtime_ns >= done.stat().st_mtime_ns]
        if newer:
            verdicts[str(rel)] = f"runs: {newer[0].relative_to(root)} changed after the full build executed it"
            continue
        ran = json.loads(done.read_text(encoding="utf-8"))
        ran_cells = [c for c in ran["cells"] if c["cell_type"] == "code"]
        if ["".join(c["source"]) for c in ran_cells] != [source for source, _ in full]:
            verdicts[str(rel)] = "runs: the full build executed other code"
            continue
        if any(WIDGET_VIEW in output.get("data", {}) for c in ran_cells[len(kept) :] for output in c["outputs"]):
            verdicts[str(rel)] = "runs: code the student edition removed drew a widget (its state is the page's)"
            continue
        glued = _glued_outputs(ran, done.with_suffix(".glue.json"), len(kept))
        if glued is None:
            verdicts[str(rel)] = "runs: the full build did not record which cells glued its values (_ext/glue_cells.py)"
            continue
        code = [cell for cell in student.cells if cell.cell_type == "code"]
        for cell, ran_cell in zip(code, ran_cells, strict=False):  # the kept cells: removed ones are never read
            cell.outputs, cell.execution_count = ran_cell["outputs"], ran_cell["execution_count"]
        for (number, index), output in sorted(glued.items()):  # in order, so each lands where it was
            code[number].outputs.insert(index, output)
        for key in ("language_info", "widgets"):
            if key in ran.get("metadata", {}):
                student.metadata[key] = ran["metadata"][key]
        store.cache_notebook_bundle(
            CacheBundleIn(nbformat.from_dict(student), str(page), data={"reused_from": str(done)}),
            check_validity=False,
            overwrite=True,
        )
        verdicts[str(rel)] = "reused"
    return verdicts


def _glued_outputs(ran: dict, glue_file: Path, kept: int) -> dict[tuple[int, int], dict] | None:
    """The glue outputs myst-nb took out of the kept cells (the first ``kept`` code cells) of an executed notebook.

    ``{(code cell number, output index): output}``, each output as the kernel wrote it (its mime
    prefix put back), for the values the kept cells glued with ``display=False``; displayed ones
    are still in their cells. None if the notebook does not record where its glue outputs were
    (built without ``_ext/glue_cells.py``), or the record does not match ``glue_file``.
    """
    from _ext.glue_cells import METADATA_KEY

    positions = ran.get("metadata", {}).get(METADATA_KEY)
    data = json.loads(glue_file.read_text(encoding="utf-8")) if glue_file.is_file() else {}
    if positions is None or set(positions) != set(data):
        return None
    glued = {}
    for name, (number, index) in positions.items():
        output = data[name]
        prefix = output.get("metadata", {}).get("scrapbook", {}).get("mime_prefix", "")
        if number < kept and prefix:
            glued[(number, index)] = {**output, "data": {prefix + mime: v for mime, v in output["data"].items()}}
    return glued


def use_cache(config_path: Path, cache: Path) -> None:
    """Make a copy's build take outputs from the jupyter-cache ``cache`` (myst-nb's cache mode)."""
    config = yaml.safe_load(config_path.read_text(encoding="utf-8")) or {}
    execute = config.setdefault("execute", {})
    execute["execute_notebooks"] = "cache"
    execute["cache"] = str(cache)
    config_path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")


def _jupyter_book() -> str:
    local = Path(sys.executable).parent / "jupyter-book"
    return str(local) if local.exists() else (shutil.which("jupyter-book") or "jupyter-book")


def set_repository_url(config_path: Path, url: str) -> None:
    """Point a copy's launch buttons (``repository.url``, _ext/notebook_links.py) at ``url``.

    Binder runs a repository, not a build: a student edition whose buttons launched the full
    repository would hand out every solution. The URL is checked when the book is built.
    """
    config = yaml.safe_load(config_path.read_text(encoding="utf-8")) or {}
    config.setdefault("repository", {})["url"] = url
    config_path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")


def link_student_repository(root: Path, src_out: Path, repository_url: str | None, repo: Path | None) -> None:
    """Point the student sources' links at the student repository, and write that repository (``--repo``).

    The URL is ``repository_url`` or else ``student.repository.url`` (:func:`student_settings`); it is
    written into the copy's ``repository.url`` always, so the full repository's never carries over, and
    one equal to the full repository's is refused.
    """
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8")) or {}
    url = student_settings(config)["url"] if repository_url is None else repository_url.strip()
    full_url = str((config.get("repository") or {}).get("url") or "").strip()
    if url and full_url and url.rstrip("/") == full_url.rstrip("/"):
        raise SystemExit(
            f"the student edition's repository URL is the full repository's ({url}): its Binder and clone "
            "links would hand out every solution; use a repository made by --repo"
        )
    set_repository_url(src_out / "_config.yml", url)
    print(f"student edition's repository.url: {url!r}" + ("" if url else " (no Binder, Live Code or clone links)"))
    if repo is not None:
        made = student_repo.write_student_repo(root, src_out, repo, str(config.get("title") or "Course book"))
        print(
            f"student repository in {repo.resolve()}: {made['files']} files; "
            + (f"commit {made['commit']}" if made["commit"] else "unchanged, no commit")
            + (f"; push it to {url}" if url else "; set student.repository.url in _config.yml to where you push it")
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Build the student edition of the book: every solution and lecturer-only "
        "item removed from the sources before the (strict) build."
    )
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: the one holding booktools)")
    parser.add_argument(
        "--src-out",
        type=Path,
        default=None,
        help=f"where to write the stripped sources (default: ROOT/{DEFAULT_SRC_OUT})",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        help=f"jupyter-book --path-output (default: ROOT/{DEFAULT_OUT}); the HTML goes to OUT/_build/html",
    )
    parser.add_argument(
        "--include",
        action="append",
        default=[],
        metavar="PATH",
        help="an extra top-level file or directory to copy (repeatable)",
    )
    parser.add_argument(
        "--repository-url",
        metavar="URL",
        help="the student edition's repository.url (its Binder, Live Code and clone links): a repository "
        "holding only the student edition; default: student.repository.url of _config.yml (empty: no such "
        "links). Never the full repository's.",
    )
    parser.add_argument(
        "--repo",
        type=Path,
        metavar="DIR",
        help="also write the student repository into DIR (a git repository, made or refreshed): the student "
        "sources, onlinelib, binder/ and a student README, committed, ready to push to student.repository.url",
    )
    parser.add_argument("--no-build", action="store_true", help="only write the stripped sources")
    parser.add_argument(
        "--executed",
        type=Path,
        default=None,
        metavar="DIR",
        help=f"the full build's executed notebooks, whose outputs the student edition reuses where its code "
        f"is the same and they are newer than the library (default: ROOT/{DEFAULT_EXECUTED})",
    )
    parser.add_argument("--execute-all", action="store_true", help="reuse no outputs: execute every notebook afresh")
    parser.add_argument(
        "--not-strict", action="store_true", help="build without -W -n --keep-going (for local experiments only)"
    )
    args = parser.parse_args(argv)

    root = args.root.resolve()
    src_out = (args.src_out or root / DEFAULT_SRC_OUT).resolve()
    out = (args.out or root / DEFAULT_OUT).resolve()

    summary = make_student_sources(root, src_out, args.include)
    print(
        f"student sources in {src_out}: {summary['files']} files; removed "
        f"{summary['gated-solution']} gated solutions, {summary['solution']} other solutions, "
        f"{summary['lecturer-only']} lecturer-only blocks; left out "
        f"{len(summary['left out'])} lecturer files"
    )
    for name in summary["left out"]:
        print(f"  left out {name}")
    link_student_repository(root, src_out, args.repository_url, args.repo)
    if args.no_build:
        return 0

    if out == root or out in root.parents:
        raise SystemExit(f"refusing to build into {out}")
    if (out / "_build").exists():  # never let an older build's pages survive into this one
        shutil.rmtree(out / "_build")
    if not args.execute_all:
        cache = out / CACHE_NAME
        verdicts = reuse_executed_outputs(root, src_out, cache, args.executed)
        use_cache(src_out / "_config.yml", cache)
        reused = sorted(page for page, verdict in verdicts.items() if verdict == "reused")
        print(f"outputs of the full build reused for {len(reused)} of {len(verdicts)} notebooks; the others run:")
        for page, verdict in verdicts.items():
            if verdict != "reused":
                print(f"  {page} {verdict}")
    cmd = [_jupyter_book(), "build", str(src_out), "--path-output", str(out)]
    if not args.not_strict:
        cmd += ["-W", "-n", "--keep-going"]
    print("$", " ".join(cmd), flush=True)
    start = time.perf_counter()
    rc = subprocess.call(cmd)
    print(
        f"student edition built in {time.perf_counter() - start:.0f} s: {out / '_build' / 'html' / 'index.html'}"
        if rc == 0
        else f"student edition build failed (exit {rc})"
    )
    return rc


if __name__ == "__main__":
    sys.exit(main())
