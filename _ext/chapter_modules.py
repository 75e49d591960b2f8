"""A chapter runs again when its own module changes, and no other chapter does (issue 28).

Each chapter's experiments live in one module, ``onlinelib/chapters/<name>.py``, that only that
chapter imports (``from onlinelib.chapters import winnow1 as chapter``). The Makefile re-runs every
chapter after a change to the rest of the library (it drops the saved doctrees), but leaves the
chapter modules to this extension: when Sphinx reads a page, it notes as the page's dependencies
the file of every chapter module the page names, and of every module named by a page it pastes
glued values from (``{glue:text}`winnow1.md::key```, as the errata page does), and the sources
of those pages. Sphinx re-reads, and so executes again, a page whose dependency is newer than its
last reading.

So a change to ``onlinelib/chapters/winnow1.py`` re-runs ``book/winnow1.md`` and re-reads the
errata page, which shows the new numbers; ``tests/test_makefile.py`` checks this on a stand-in book.
:func:`output_sources` states the same rule for the course tools: the student edition reuses an
executed chapter only if it is newer than every file its outputs depend on.
"""

from __future__ import annotations

import importlib.util
import posixpath
import re
from pathlib import Path

# ``onlinelib.chapters.NAME`` or ``from onlinelib.chapters import NAME``, in code or prose: a page
# that merely names a module depends on it too, which costs at most a needless re-run.
CHAPTER_MODULE = re.compile(r"\bonlinelib\.chapters(?:\.(\w+)|\s+import\s+(\w+))")
# The page part of a glue role's target: {glue:text}`winnow1.md::key:d`, {glue}`page::key`.
GLUE_SOURCE = re.compile(r"\{glue(?::\w+)?\}`([^`:]+?)::")


def module_names(source: str) -> set[str]:
    """The chapter modules a page's source names."""
    return {a or b for a, b in CHAPTER_MODULE.findall(source)} - {"__init__"}


def glue_sources(docname: str, source: str) -> set[str]:
    """The docnames of the pages whose glued values a page pastes (targets are relative to the page)."""
    found = set()
    for target in GLUE_SOURCE.findall(source):
        target = re.sub(r"\.(md|ipynb)$", "", target.strip())
        found.add(posixpath.normpath(posixpath.join(posixpath.dirname(docname), target)))
    return found


def module_file(srcdir: Path, name: str) -> Path | None:
    """The file of ``onlinelib.chapters.<name>``: the book's own copy if it has one, else the imported one."""
    local = srcdir / "onlinelib" / "chapters" / f"{name}.py"
    if local.is_file():
        return local
    try:
        spec = importlib.util.find_spec(f"onlinelib.chapters.{name}")
    except (ImportError, ValueError):
        return None
    return Path(spec.origin) if spec is not None and spec.origin else None


# What every chapter's outputs depend on: the Makefile's LIBRARY_SOURCES, less the chapter modules.
LIBRARY_WIDE = ("onlinelib", "_ext", "requirements.txt", "pyproject.toml")


def _is_cache(path: Path) -> bool:
    """Bytecode and numba caches, written by any run: no change of the library."""
    return "__pycache__" in path.parts or path.suffix == ".pyc"


def _is_chapter_module(root: Path, path: Path) -> bool:
    rel = path.relative_to(root).parts
    return len(rel) == 3 and rel[:2] == ("onlinelib", "chapters") and rel[2].endswith(".py") and rel[2] != "__init__.py"


def library_files(root: Path) -> list[Path]:
    """The files every chapter's outputs depend on: ``LIBRARY_WIDE`` under ``root``, less caches and chapter modules."""
    root, files = Path(root), []
    for name in LIBRARY_WIDE:
        top = root / name
        found = sorted(top.rglob("*")) if top.is_dir() else [top]
        files += [f for f in found if f.is_file() and not _is_cache(f) and not _is_chapter_module(root, f)]
    return files


def output_sources(root: Path, page: Path, library: list[Path] | None = None) -> list[Path]:
    """Every file the executed outputs of ``page`` (a source under ``root``) depend on.

    The page itself, the library-wide files (``library``, default ``library_files(root)``: pass
    them in when asking about many pages) and the chapter modules the page names: the rule by
    which ``make book`` re-runs a chapter.
    """
    files = [Path(page), *(library_files(root) if library is None else library)]
    for name in sorted(module_names(Path(page).read_text(encoding="utf-8"))):
        module = module_file(Path(root), name)
        if module is not None:
            files.append(module)
    return files


def note_chapter_modules(app, docname: str, source: list[str]) -> None:
    """Sphinx's source-read: record the chapter modules behind ``docname``'s outputs as its dependencies."""
    env = app.env
    text = source[0]
    names = module_names(text)
    for other in glue_sources(docname, text) - {docname}:
        path = Path(env.doc2path(other))
        if not path.is_file():
            continue  # myst-nb reports the missing page when it resolves the glue
        env.note_dependency(str(path))  # a re-run of the pasted page re-reads this one
        names |= module_names(path.read_text(encoding="utf-8"))
    for name in sorted(names):
        path = module_file(Path(app.srcdir), name)
        if path is not None:
            env.note_dependency(str(path))


def setup(app):
    app.connect("source-read", note_chapter_modules)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
