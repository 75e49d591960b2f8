"""Launch buttons from one repository setting, and an ``.ipynb`` download on every chapter.

**One setting.** ``repository.url`` in ``_config.yml`` (a GitHub or GitLab repository URL)
turns on the Binder and Live Code (Thebe) buttons and the repository link on every chapter.
The providers and the interface come from ``launch_buttons`` in ``_config.yml``. Left
empty, the site has no launch buttons at all, rather than buttons that point at a
repository that does not exist. (sphinx-book-theme would otherwise crash on an empty URL,
and jupyter-book's default URL is its own repository.)

**Downloads.** Each chapter's executed notebook (``_build/jupyter_execute``, the one the
page was rendered from) is copied to ``_sources/``, with a first cell (``download_note``) that
says what running it needs, where the book's repository is (``repository.url``) and the
commands: ``pip install "./[notebooks]"`` in a clone (the ``notebooks`` extra of
pyproject.toml brings Jupyter and everything a chapter imports), or, when ``repository.url`` is
set, the same install straight from the repository. The copy is offered in the page's download
menu next to the ``.md`` source. sphinx-book-theme does this only when launch buttons are on;
here it is done for every chapter. The student edition is built from stripped sources, so
its notebooks have no solutions.

**One stdout per cell.** With ``nb_merge_streams`` (``_config.yml``) myst-nb 1.4 merges a
cell's stream outputs for the page by appending each later block to the first one *in place*,
then saves the notebook, which keeps the later blocks too: every block after the first was in
the ``.ipynb`` twice. ``setup`` makes myst-nb merge copies (``merge_streams_on_copies``), so the
saved notebook keeps each block once, as the kernel printed it, and the page is unchanged.

**Stray copies.** A ``book/x.ipynb`` beside ``book/x.md`` (say from ``jupytext --to ipynb``)
would take the chapter's place in the build and in its Binder link, since both are the
document ``book/x``. The ``.md`` is the source, so the build stops with an error naming the
copy (and conftest.py does not run it as a second copy of the chapter's tests).
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

import nbformat
from myst_nb.core import render as myst_nb_render
from myst_nb.core.utils import coalesce_streams
from sphinx.errors import ExtensionError

SETTING = "repository.url in _config.yml"
# pyproject.toml's [project] name and the extra that brings Jupyter and what every chapter imports
# (`pip install onlinelib` would fetch an unrelated package from PyPI).
DISTRIBUTION = "onlinelib-book"
EXTRA = "notebooks"
JUPYTER_BOOK_DEFAULT_URL = "https://github.com/executablebooks/jupyter-book"
_REPOSITORY = re.compile(r"^https://(github\.com|gitlab\.com)/[\w.-]+/[\w.-]+/?$")


def repository_url(theme_options: dict) -> str:
    """The book's repository URL, or "" if it is not set.

    Raises
    ------
    sphinx.errors.ExtensionError
        If the URL is set but is not ``https://github.com/ORG/REPO`` (or gitlab.com).
    """
    url = str(theme_options.get("repository_url") or "").strip()
    if url in ("", JUPYTER_BOOK_DEFAULT_URL):
        return ""
    if not _REPOSITORY.match(url):
        raise ExtensionError(
            f"{SETTING} must be a repository URL like https://github.com/ORG/REPO "
            f"(Binder builds from GitHub or GitLab), got {url!r}"
        )
    return url


def _configure_buttons(app, config):
    options = config.html_theme_options
    if repository_url(options):
        options["use_repository_button"] = True
    else:
        options["launch_buttons"] = {}
        options["use_repository_button"] = False
        options.pop("repository_url", None)


def download_note(url: str) -> str:
    """The first cell of every downloaded notebook: what running it needs, where the repository is
    and the commands, for the repository URL ``url`` (``""`` when ``repository.url`` is not set).

    Raises
    ------
    TypeError
        If ``url`` is not a str.
    ValueError
        If ``url`` is neither ``""`` nor ``https://github.com/ORG/REPO`` (or gitlab.com).
    """
    if not isinstance(url, str):
        raise TypeError(f"url must be a str (the repository URL, or '' when it is not set), got {url!r}")
    if url and not _REPOSITORY.match(url):
        raise ValueError(f"url must be '' or a repository URL like https://github.com/ORG/REPO, got {url!r}")
    url = url.rstrip("/")
    needs = (
        "**To run this notebook**, a chapter of *Online Learning: Mistake Bounds, Proofs and Code*, "
        "you need Python 3.11 or later, JupyterLab, and the book's package `onlinelib` with what the "
        f"chapters import (myst-nb, ipywidgets): the `{EXTRA}` extra of the book's repository "
        "installs them all."
    )
    clone = f'`pip install "./[{EXTRA}]"`; then `jupyter lab`, and open this file.'
    if url:
        where = (
            f"The repository is {url}. In a virtual environment, either "
            f'`pip install "{DISTRIBUTION}[{EXTRA}] @ git+{url}"`, or in a clone '
            f"(`git clone {url}`), from its root, {clone}"
        )
    else:
        where = (
            "The install needs a copy of the book's repository (a `git clone` of it, or its source archive; "
            "this site does not say where it is published, so ask whoever gave you this notebook). "
            f"In a virtual environment, from the root of that copy, {clone}"
        )
    read = (
        "(Not `pip install onlinelib`: that is an unrelated package on PyPI.) The chapter is written "
        "in MyST Markdown: JupyterLab renders most of its theorem and proof boxes, exercises and "
        "citations with jupyterlab-myst, which the install brings; other Jupyters show them as raw "
        "markup (`{prf:theorem}`, `{cite}`, `(label)=`), and the book's website shows them rendered."
    )
    return "\n\n".join([needs, where, read])


def _executed(app, pagename) -> Path | None:
    if "kernelspec" not in app.env.metadata.get(pagename, {}):
        return None  # a plain page, not a notebook
    executed = Path(app.outdir).parent / "jupyter_execute" / f"{pagename}.ipynb"
    return executed if executed.is_file() else None


def _offer_notebook(app, pagename, templatename, context, doctree):
    if _executed(app, pagename):
        context["ipynb_source"] = f"{pagename}.ipynb"


def _write_notebook(app, pagename, templatename, context, doctree):
    executed = _executed(app, pagename)
    if not executed:
        return
    target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    nb = nbformat.read(executed, as_version=4)
    note = download_note(repository_url(app.config.html_theme_options))
    nb.cells.insert(0, nbformat.v4.new_markdown_cell(note, metadata={"tags": ["download-note"]}))
    nbformat.write(nb, target)


def merge_streams_on_copies(outputs: list) -> list:
    """myst-nb's ``coalesce_streams`` (the page's one output box per stream) on copies of ``outputs``.

    The original appends each later stream block to the first one in place, and myst-nb then
    saves the notebook whose cells hold these outputs: the saved first block would repeat the
    later ones, which the notebook also keeps.
    """
    return coalesce_streams([copy.deepcopy(output) for output in outputs])


def _merge_streams_on_copies_in_myst_nb():
    if myst_nb_render.coalesce_streams not in (coalesce_streams, merge_streams_on_copies):
        raise ExtensionError(
            "notebook_links: myst_nb.core.render no longer calls myst_nb.core.utils.coalesce_streams; "
            "check whether myst-nb still merges a cell's streams in place (merge_streams_on_copies)"
        )
    myst_nb_render.coalesce_streams = merge_streams_on_copies


def notebook_copies(srcdir: Path) -> list[str]:
    """Every ``.ipynb`` under ``srcdir`` with a ``.md`` of the same name beside it (relative paths)."""
    srcdir = Path(srcdir)
    return sorted(
        str(p.relative_to(srcdir))
        for p in srcdir.rglob("*.ipynb")
        if p.with_suffix(".md").is_file() and "_build" not in p.relative_to(srcdir).parts
    )


def _refuse_notebook_copies(app, config):
    copies = notebook_copies(app.srcdir)
    if copies:
        raise ExtensionError(
            f"{', '.join(copies)}: a notebook copy of the .md chapter beside it (from jupytext --to ipynb?). "
            "It would replace the chapter in the build and in its launch buttons; the .md is the source, "
            "so delete the copy (or keep it outside book/)."
        )


def setup(app):
    _merge_streams_on_copies_in_myst_nb()
    app.connect("config-inited", _refuse_notebook_copies)
    app.connect("config-inited", _configure_buttons)
    # Before sphinx-book-theme (priority 501) builds the download menu from the context, and after
    # its launch buttons (501), which copy the notebook without the note to the same file.
    app.connect("html-page-context", _offer_notebook, priority=500)
    app.connect("html-page-context", _write_notebook, priority=502)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
