"""Let pytest run the book's chapters under nbval.

Chapters are MyST Markdown notebooks (``book/*.md`` that myst-nb reads as notebooks:
``booktools.notebooks.is_myst_notebook``). nbval only collects ``.ipynb`` files, so this hook
collects those ``.md`` files too and reads them through jupytext. Plain Markdown pages (the
introduction, the errata, the bibliography) have no notebook header and are not collected.
"""

import os
from types import SimpleNamespace
from unittest import mock

import nbval.plugin

from _ext.kernel_profile import PROFILE_DIR
from booktools.notebooks import is_myst_notebook, read_notebook

# nbval's kernels use the book's IPython profile, as the build's do (_ext/kernel_profile.py).
os.environ["IPYTHONDIR"] = str(PROFILE_DIR)


class MystNotebookFile(nbval.plugin.IPyNbFile):
    """nbval's collector, reading the notebook with jupytext instead of nbformat."""

    def collect(self):
        # IPyNbFile.collect calls nbformat.read(path, as_version=4); swap in
        # jupytext's reader for that call only.
        reader = SimpleNamespace(read=read_notebook)
        with mock.patch.object(nbval.plugin, "nbformat", reader):
            yield from super().collect()


def pytest_ignore_collect(collection_path, config):
    """A notebook copy of a MyST chapter (``x.ipynb`` beside ``x.md``) is not run a second time."""
    if collection_path.suffix == ".ipynb" and collection_path.with_suffix(".md").is_file():
        return True
    return None


def pytest_collect_file(file_path, parent):
    option = parent.config.option
    if (option.nbval or option.nbval_lax) and file_path.suffix == ".md" and is_myst_notebook(file_path):
        return MystNotebookFile.from_parent(parent, path=file_path)
    return None
