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
the book (``booktools/solution_fences.py``).

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
its outputs from there (through a jupyter-cache, ``booktools/output_reuse.py``); a page that
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
from glob import escape as glob_escape
from pathlib import Path

import yaml

from booktools import student_repo
from booktools.output_reuse import CACHE_NAME, DEFAULT_EXECUTED, reuse_executed_outputs, use_cache
from booktools.solution_fences import (
    LECTURER_TAG,
    Removed,
    SolutionSyntaxError,
    _words,
    find_removals,
    strip_notebook,
    strip_solutions,
)
from booktools.toc import toc_entries, toc_globs

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SRC_OUT = Path("_build/student_src")
DEFAULT_OUT = Path("_build/student")

# Top-level items that the book build needs besides the files named in _toc.yml.
ALWAYS_COPY = ["_config.yml", "_toc.yml", "_static", "_templates"]
# Never copied, wherever they are.
SKIP_NAMES = {"_build", "__pycache__", ".ipynb_checkpoints", ".jupyter_cache", ".git", ".DS_Store"}

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
