"""Which files are the book's notebooks, and the notebook a MyST chapter is.

One rule for every tool: nbval (the root ``conftest.py``, which runs the chapters under
``make test``), the Binder check (``booktools/binder_check.py``) and the build tests. A
chapter is a MyST Markdown notebook exactly when myst-nb, which builds the book, reads it as
one; and the notebook a chapter is, cell by cell, is the one jupytext reads from it (as
Jupyter does on Binder, through jupytext's contents manager).
"""

from __future__ import annotations

from pathlib import Path

import jupytext
from myst_nb.core.read import is_myst_markdown_notebook


def is_myst_notebook(path: str | Path) -> bool:
    """True if the file at ``path`` is a MyST Markdown notebook, as myst-nb decides for the build.

    That is: YAML front matter with ``jupytext: text_representation: format_name: myst`` (the
    header jupytext writes) or ``file_format: mystnb``. Plain Markdown pages (the introduction,
    the errata, the bibliography) have no such header. A file that cannot be read as UTF-8 text
    is not a notebook.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return is_myst_markdown_notebook(text)


def read_notebook(fp, as_version: int = 4):
    """The notebook of an open MyST file, read by jupytext (what nbval runs and Binder opens)."""
    return jupytext.read(fp, as_version=as_version)
