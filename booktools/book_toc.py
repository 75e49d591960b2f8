"""The book's table of contents (``_toc.yml``): the one reader that every tool uses.

The student edition, the browser check, the Binder check and the build tests all need
the pages of the book in order; they take them from here.
"""
from __future__ import annotations

from pathlib import Path

import yaml


def toc_entries(entry) -> list[str]:
    """Every ``root`` and ``file`` entry of a _toc.yml structure (or part of one), in order."""
    found = []
    if isinstance(entry, dict):
        for key, value in entry.items():
            if key in ("file", "root") and isinstance(value, str):
                found.append(value)
            else:
                found.extend(toc_entries(value))
    elif isinstance(entry, list):
        for item in entry:
            found.extend(toc_entries(item))
    return found


def toc_sources(toc: Path) -> list[Path]:
    """The source file (``.md`` or ``.ipynb``) of every entry of the ``toc`` file, in order."""
    data = yaml.safe_load(Path(toc).read_text(encoding="utf-8"))
    files = []
    for entry in toc_entries(data):
        base = Path(toc).parent / entry
        matches = [base] if base.suffix else [base.with_suffix(s) for s in (".md", ".ipynb")]
        files += [m for m in matches if m.is_file()][:1]
    return files
