#!/usr/bin/env python3
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

Files are left out of the copy if any part of their path is a directory named ``lecturer``
(e.g. ``book/assignments/a1/lecturer/``) or contains ``_lecturer`` (e.g.
``a1_lecturer.md``); entries for such files are dropped from ``_toc.yml``. Notebooks
(``*.ipynb``) in the sources lose their ``lecturer-only`` cells and their solutions too.

The stripped sources go to ``_build/student_src``; ``jupyter-book build`` then writes the
student edition under ``_build/student/_build/`` (HTML in ``_build/student/_build/html``,
executed notebooks in ``_build/student/_build/jupyter_execute``). The build is strict
(``-W -n --keep-going``) and every chapter is executed afresh. ``tests/test_student_edition.py``
then checks that no solution text reached any file of the build.
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

from booktools.book_toc import toc_entries as _toc_files

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SRC_OUT = Path("_build/student_src")
DEFAULT_OUT = Path("_build/student")
LECTURER_TAG = "lecturer-only"

# Top-level items that the book build needs besides the files named in _toc.yml.
ALWAYS_COPY = ["_config.yml", "_toc.yml", "_static", "_templates"]
# Never copied, wherever they are.
SKIP_NAMES = {"_build", "__pycache__", ".ipynb_checkpoints", ".jupyter_cache", ".git", ".DS_Store"}

# A fence line: ``` or ~~~ (code fences, MyST directives) or ::: (colon-fence directives).
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,}|:{3,})(?P<info>.*?)\s*$")
_DIRECTIVE = re.compile(r"^\{(?P<name>[^}\s]+)\}\s*(?P<arg>.*)$")
_CELL_MARKER = re.compile(r"^\+\+\+(?P<meta>\s*\{.*\})?\s*$")
# Directives whose content is not Markdown: never looked into.
_OPAQUE = {"code-cell", "code", "code-block", "sourcecode", "math", "raw", "literalinclude",
           "eval-rst", "csv-table", "glue:math"}


@dataclass
class Removed:
    """One block taken out of a source file."""

    kind: str    # "gated-solution", "solution", "lecturer-only"
    label: str   # the solution's exercise label, the directive argument, or "" if none
    body: str    # the text inside the block (without its opening and closing fences)
    start: int   # first removed line, 1-based
    end: int     # last removed line, 1-based


@dataclass
class _Fence:
    start: int           # index of the opening line
    close: int           # index of the closing line (== len(lines) if unterminated)
    name: str | None     # directive name, or None for a plain code fence
    arg: str
    content: int         # index of the first line of the directive's content (after options)
    options: dict


class SolutionSyntaxError(ValueError):
    """A solution-start without a solution-end, or the other way round."""


def _fence_at(lines: list[str], i: int, hi: int) -> _Fence | None:
    """The fenced block opened at line i, or None if line i opens none."""
    m = _FENCE.match(lines[i].rstrip("\r\n"))
    if not m:
        return None
    fence, info = m.group("fence"), m.group("info").strip()
    if fence[0] == "`" and "`" in info:   # CommonMark: not a fence
        return None
    if fence[0] == ":" and not info:       # a bare ::: line closes, it does not open
        return None
    closer = re.compile(r"^[ \t]*" + re.escape(fence[0]) + "{" + str(len(fence)) + r",}\s*$")
    close = next((j for j in range(i + 1, hi) if closer.match(lines[j].rstrip("\r\n"))), hi)
    name, arg = None, ""
    d = _DIRECTIVE.match(info)
    if d:
        name, arg = d.group("name"), d.group("arg").strip()
    elif fence[0] == ":" and info:         # :::name is a directive too with colon_fence
        name, _, arg = info.partition(" ")
    options, content = {}, i + 1
    if name is not None:
        options, content = _options(lines, i + 1, close)
    return _Fence(i, close, name, arg, content, options)


def _options(lines: list[str], lo: int, hi: int) -> tuple[dict, int]:
    """A directive's options, in ``:key: value`` lines or a ``---`` YAML block."""
    options: dict = {}
    if lo < hi and lines[lo].strip() == "---":
        end = next((j for j in range(lo + 1, hi) if lines[j].strip() == "---"), None)
        if end is not None:
            try:
                loaded = yaml.safe_load("".join(lines[lo + 1:end]))
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


def _is_lecturer_only(f: _Fence) -> bool:
    return LECTURER_TAG in _words(f.options.get("tags")) | _words(f.options.get("class"))


def _marker_is_lecturer_only(meta: str | None) -> bool:
    if not meta:
        return False
    try:
        data = json.loads(meta)
    except json.JSONDecodeError:
        return LECTURER_TAG in meta
    return isinstance(data, dict) and LECTURER_TAG in _words(data.get("tags"))


def _scan(lines: list[str], lo: int, hi: int, top: bool, out: list[Removed]) -> None:
    """Append to ``out`` the blocks to remove among lines[lo:hi] (one nesting level, recursing)."""
    i = lo
    while i < hi:
        marker = _CELL_MARKER.match(lines[i].rstrip("\r\n")) if top else None
        if marker and _marker_is_lecturer_only(marker.group("meta")):
            j = i + 1        # the Markdown cell runs to the next +++ or code cell
            while j < hi:
                if _CELL_MARKER.match(lines[j].rstrip("\r\n")):
                    break
                f = _fence_at(lines, j, hi)
                if f is not None and f.name == "code-cell":
                    break
                j = f.close + 1 if f is not None else j + 1
            out.append(Removed("lecturer-only", "", "".join(lines[i + 1:j]), i + 1, j))
            i = j
            continue
        f = _fence_at(lines, i, hi)
        if f is None:
            i += 1
            continue
        if f.name == "solution-end":
            raise SolutionSyntaxError(f"line {i + 1}: solution-end without a solution-start")
        if f.name == "solution-start":
            j = f.close + 1
            end = None
            while j < hi:
                g = _fence_at(lines, j, hi)
                if g is None:
                    j += 1
                    continue
                if g.name == "solution-start":
                    raise SolutionSyntaxError(f"line {j + 1}: solution-start inside the solution "
                                              f"opened at line {i + 1}")
                if g.name == "solution-end":
                    end = g
                    break
                j = g.close + 1
            if end is None:
                raise SolutionSyntaxError(f"line {i + 1}: solution-start {f.arg} has no solution-end")
            body = "".join(lines[f.close + 1:end.start])
            out.append(Removed("gated-solution", f.arg, body, i + 1, min(end.close, hi - 1) + 1))
            i = end.close + 1
            continue
        if f.name == "solution" or (f.name is not None and _is_lecturer_only(f)):
            kind = "solution" if f.name == "solution" else "lecturer-only"
            label = f.arg if f.name == "solution" else str(f.options.get("label", f.arg))
            out.append(Removed(kind, label, "".join(lines[f.content:f.close]), i + 1,
                               min(f.close, hi - 1) + 1))
        elif f.name is not None and f.name not in _OPAQUE:
            _scan(lines, f.content, f.close, False, out)   # directive content is Markdown
        i = f.close + 1


def find_removals(text: str) -> list[Removed]:
    """Every block that the student edition leaves out of this MyST Markdown text, in order.

    Raises SolutionSyntaxError on an unmatched solution-start or solution-end.
    """
    out: list[Removed] = []
    lines = text.splitlines(keepends=True)
    _scan(lines, 0, len(lines), True, out)
    return sorted(out, key=lambda r: r.start)


def strip_solutions(text: str) -> tuple[str, list[str]]:
    """Remove solutions and lecturer-only material from MyST Markdown text.

    Returns the stripped text and the bodies of the removed blocks, in order of appearance.
    A blank line left on both sides of a removed block is kept once.
    """
    lines = text.splitlines(keepends=True)
    removed = find_removals(text)
    keep: list[str] = []
    i = 0
    for r in removed:
        keep.extend(lines[i:r.start - 1])
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
            lines = src.splitlines(keepends=True)
            end = next((f for j in range(len(lines))
                        if (f := _fence_at(lines, j, len(lines))) and f.name == "solution-end"), None)
            if end is None:
                removed += 1
                continue
            src, in_solution = "".join(lines[end.close + 1:]), False
        if cell.get("cell_type") == "markdown":
            try:
                src, bodies = strip_solutions(src)
            except SolutionSyntaxError:
                # a solution-start whose end is in a later cell: keep what precedes it
                lines = src.splitlines(keepends=True)
                start = next(j for j in range(len(lines))
                             if (f := _fence_at(lines, j, len(lines))) and f.name == "solution-start")
                src, bodies = strip_solutions("".join(lines[:start]))
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
    return any(part.lower() == "lecturer" or fnmatch.fnmatch(part.lower(), "*_lecturer*")
               for part in rel.parts)


def _toc_globs(entry) -> list[str]:
    """Every ``glob`` pattern of a _toc.yml structure."""
    if isinstance(entry, dict):
        return [v for k, v in entry.items() if k == "glob" and isinstance(v, str)] + \
            [g for k, v in entry.items() if k != "glob" for g in _toc_globs(v)]
    if isinstance(entry, list):
        return [g for item in entry for g in _toc_globs(item)]
    return []


def _prune_toc(entry, gone):
    """The _toc.yml structure without entries whose file is in ``gone`` (names without suffix)."""
    if isinstance(entry, list):
        kept = []
        for item in entry:
            if isinstance(item, dict) and isinstance(item.get("file"), str) \
                    and _no_suffix(item["file"]) in gone:
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
    for name in _toc_files(toc) + _toc_globs(toc) + _config_paths(config):
        top = Path(name).parts[0]
        if len(Path(name).parts) == 1 and not (root / top).exists():   # a page at the top: intro
            tops |= {p.name for p in root.glob(glob_escape(top) + ".*")}
        else:
            tops.add(top)
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)

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
        if is_lecturer_path(rel):
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
    if gone & {_no_suffix(f) for f in _toc_files(toc)}:
        (dest / "_toc.yml").write_text(yaml.safe_dump(_prune_toc(toc, gone), sort_keys=False),
                                       encoding="utf-8")
    _check_clean(dest)
    left_out = {f: (root / f).read_text(encoding="utf-8", errors="replace")
                for f in summary["left out"] if Path(f).suffix in (".md", ".ipynb")}
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


def _check_references(removed: dict[str, list[Removed]], dest: Path,
                      left_out: dict[str, str] | None = None) -> None:
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
            pattern = (r"(\{[\w:-]+\}`([^`]*<)?" + re.escape(label) + r">?`|\]\(#?"
                       + re.escape(label) + r"\))")
            if re.search(pattern, text):
                problems.append(f"{path.relative_to(dest)} refers to {label}, which is defined in "
                                f"a removed block ({rel}, {owner})")
        for page in pages:  # a Markdown link or a {doc} role to the page
            if re.search(r"(\]\(|\{doc\}`([^`]*<)?)[^)`>]*\b" + re.escape(page) + r"(\.md|\.ipynb)?[)>`#]", text):
                problems.append(f"{path.relative_to(dest)} links to {page}, a left-out lecturer page")
    if problems:
        raise SystemExit("the student edition would have broken references:\n  " + "\n  ".join(problems))


# --------------------------------------------------------------------------------------------


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Build the student edition of the book: every solution and lecturer-only "
                    "item removed from the sources before the (strict) build.")
    parser.add_argument("--root", type=Path, default=ROOT,
                        help="the repository (default: the one holding this script)")
    parser.add_argument("--src-out", type=Path, default=None,
                        help=f"where to write the stripped sources (default: ROOT/{DEFAULT_SRC_OUT})")
    parser.add_argument("--out", type=Path, default=None,
                        help=f"jupyter-book --path-output (default: ROOT/{DEFAULT_OUT}); "
                             "the HTML goes to OUT/_build/html")
    parser.add_argument("--include", action="append", default=[], metavar="PATH",
                        help="an extra top-level file or directory to copy (repeatable)")
    parser.add_argument("--repository-url", metavar="URL",
                        help="the student edition's repository.url (its Binder and Live Code buttons), "
                             "e.g. a repository holding only the stripped sources; default: the book's")
    parser.add_argument("--no-build", action="store_true", help="only write the stripped sources")
    parser.add_argument("--not-strict", action="store_true",
                        help="build without -W -n --keep-going (for local experiments only)")
    args = parser.parse_args(argv)

    root = args.root.resolve()
    src_out = (args.src_out or root / DEFAULT_SRC_OUT).resolve()
    out = (args.out or root / DEFAULT_OUT).resolve()

    summary = make_student_sources(root, src_out, args.include)
    print(f"student sources in {src_out}: {summary['files']} files; removed "
          f"{summary['gated-solution']} gated solutions, {summary['solution']} other solutions, "
          f"{summary['lecturer-only']} lecturer-only blocks; left out "
          f"{len(summary['left out'])} lecturer files")
    for name in summary["left out"]:
        print(f"  left out {name}")
    if args.repository_url is not None:
        set_repository_url(src_out / "_config.yml", args.repository_url)
        print(f"student edition's repository.url: {args.repository_url!r}")
    if args.no_build:
        return 0

    if out == root or out in root.parents:
        raise SystemExit(f"refusing to build into {out}")
    if (out / "_build").exists():   # never let an older build's pages survive into this one
        shutil.rmtree(out / "_build")
    cmd = [_jupyter_book(), "build", str(src_out), "--path-output", str(out)]
    if not args.not_strict:
        cmd += ["-W", "-n", "--keep-going"]
    print("$", " ".join(cmd), flush=True)
    start = time.perf_counter()
    rc = subprocess.call(cmd)
    print(f"student edition built in {time.perf_counter() - start:.0f} s: "
          f"{out / '_build' / 'html' / 'index.html'}" if rc == 0 else
          f"student edition build failed (exit {rc})")
    return rc


if __name__ == "__main__":
    sys.exit(main())
