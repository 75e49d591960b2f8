"""The book's table of contents (``_toc.yml``), read by ``sphinx_external_toc``: the parser of the build.

The student edition, the browser check, the PDF edition, the Binder check and the build
tests all need the pages of the book in order; they take them from here, so that a page is
in the book for a tool exactly when jupyter-book's own TOC parser puts it there.
"""

from __future__ import annotations

from pathlib import Path

from sphinx_external_toc.parsing import parse_toc_data, parse_toc_yaml


def _in_order(site_map) -> list[str]:
    """The documents of a site map, each before its children, children in TOC order."""
    found = []

    def visit(docname: str) -> None:
        found.append(docname)
        for child in site_map[docname].child_files():
            visit(child)

    visit(site_map.root.docname)
    return found


def toc_entries(toc: dict) -> list[str]:
    """Every page of a _toc.yml structure (``yaml.safe_load`` of the file), in reading order.

    Parameters
    ----------
    toc : dict
        The whole table of contents, as loaded from ``_toc.yml``.

    Returns
    -------
    list of str
        The ``root`` and every ``file`` entry, as written (``book/winnow``), each before its
        ``sections``.

    Raises
    ------
    sphinx_external_toc.parsing.MalformedError
        If ``toc`` is not a table of contents jupyter-book would accept.
    """
    return _in_order(parse_toc_data(toc))


def toc_globs(toc: dict) -> list[str]:
    """Every ``glob`` pattern of a _toc.yml structure, sorted."""
    return sorted(parse_toc_data(toc).globs())


def toc_sources(toc: Path) -> list[Path]:
    """The source file (``.md`` or ``.ipynb``) of every entry of the ``toc`` file, in reading order.

    An entry written without a suffix is the first of ``NAME.md`` and ``NAME.ipynb`` that
    exists; an entry whose file does not exist is left out.
    """
    files = []
    for entry in _in_order(parse_toc_yaml(toc)):
        base = Path(toc).parent / entry
        matches = [base] if base.suffix else [base.with_suffix(s) for s in (".md", ".ipynb")]
        files += [m for m in matches if m.is_file()][:1]
    return files
