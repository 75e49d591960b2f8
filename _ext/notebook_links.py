"""Launch buttons from one repository setting, and an ``.ipynb`` download on every chapter.

**One setting.** ``repository.url`` in ``_config.yml`` (a GitHub or GitLab repository URL)
turns on the Binder and Live Code (Thebe) buttons and the repository link on every chapter.
The providers and the interface come from ``launch_buttons`` in ``_config.yml``. Left
empty, the site has no launch buttons at all, rather than buttons that point at a
repository that does not exist. (sphinx-book-theme would otherwise crash on an empty URL,
and jupyter-book's default URL is its own repository.)

**Downloads.** Each chapter's executed notebook (``_build/jupyter_execute``, the one the
page was rendered from) is copied to ``_sources/``, with a first cell that says what a Jupyter
without MyST shows and what to install (``DOWNLOAD_NOTE``), and offered in the page's download
menu next to the ``.md`` source. sphinx-book-theme does this only when launch buttons are on;
here it is done for every chapter. The student edition is built from stripped sources, so
its notebooks have no solutions.

**Stray copies.** A ``book/x.ipynb`` beside ``book/x.md`` (say from ``jupytext --to ipynb``)
would take the chapter's place in the build and in its Binder link, since both are the
document ``book/x``. The ``.md`` is the source, so the build stops with an error naming the
copy (and conftest.py does not run it as a second copy of the chapter's tests).
"""
from __future__ import annotations

import re
from pathlib import Path

import nbformat

from sphinx.errors import ExtensionError

SETTING = "repository.url in _config.yml"
# The first cell of every downloaded notebook: what a Jupyter without MyST shows, and what to install.
DOWNLOAD_NOTE = """\
**How to read this notebook.** It is a chapter of *Online Learning: Mistake Bounds, Proofs and Code*,
written in MyST Markdown. A Jupyter that does not render MyST shows the theorem and proof boxes,
exercises, citations and cross-references as raw markup (`{prf:theorem}`, `{cite}`, `(label)=`):
in JupyterLab, `pip install jupyterlab-myst` renders most of them, and the book's website shows the
chapter fully rendered. Running the cells needs `onlinelib`: in a clone of the book's repository,
`pip install ".[widgets]"` (not `pip install onlinelib`, an unrelated package on PyPI)."""
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
            f"(Binder builds from GitHub or GitLab), got {url!r}")
    return url


def _configure_buttons(app, config):
    options = config.html_theme_options
    if repository_url(options):
        options["use_repository_button"] = True
    else:
        options["launch_buttons"] = {}
        options["use_repository_button"] = False
        options.pop("repository_url", None)


def _offer_notebook(app, pagename, templatename, context, doctree):
    if "kernelspec" not in app.env.metadata.get(pagename, {}):
        return  # a plain page, not a notebook
    executed = Path(app.outdir).parent / "jupyter_execute" / f"{pagename}.ipynb"
    if not executed.is_file():
        return
    target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    nb = nbformat.read(executed, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_markdown_cell(DOWNLOAD_NOTE, metadata={"tags": ["download-note"]}))
    nbformat.write(nb, target)
    context["ipynb_source"] = f"{pagename}.ipynb"


def notebook_copies(srcdir: Path) -> list[str]:
    """Every ``.ipynb`` under ``srcdir`` with a ``.md`` of the same name beside it (relative paths)."""
    srcdir = Path(srcdir)
    return sorted(str(p.relative_to(srcdir)) for p in srcdir.rglob("*.ipynb")
                  if p.with_suffix(".md").is_file() and "_build" not in p.relative_to(srcdir).parts)


def _refuse_notebook_copies(app, config):
    copies = notebook_copies(app.srcdir)
    if copies:
        raise ExtensionError(
            f"{', '.join(copies)}: a notebook copy of the .md chapter beside it (from jupytext --to ipynb?). "
            "It would replace the chapter in the build and in its launch buttons; the .md is the source, "
            "so delete the copy (or keep it outside book/).")


def setup(app):
    app.connect("config-inited", _refuse_notebook_copies)
    app.connect("config-inited", _configure_buttons)
    # Before sphinx-book-theme (priority 501) builds the download menu from the context.
    app.connect("html-page-context", _offer_notebook, priority=500)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
