"""Solutions and lecturer-only blocks in MyST Markdown and notebooks, found as the build finds them.

The student edition (``booktools/student_edition.py``) leaves out what :func:`find_removals` finds:
gated solutions (``{solution-start}`` through ``{solution-end}``), plain ``{solution}`` directives,
code cells and directives tagged or classed ``lecturer-only``, and Markdown cells whose ``+++``
marker carries the tag. Fences, directives and cell breaks are found with markdown-it-py and the
front-matter, MyST-block and colon-fence plugins, as myst-parser finds them when it builds the book,
and the Markdown content of every directive (but code cells, maths and the like) is parsed the
same way. :func:`strip_notebook` does the same for ``*.ipynb`` sources.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import yaml
from markdown_it import MarkdownIt
from mdit_py_plugins.colon_fence import colon_fence_plugin
from mdit_py_plugins.front_matter import front_matter_plugin
from mdit_py_plugins.myst_blocks import myst_block_plugin

LECTURER_TAG = "lecturer-only"

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
