"""Let pytest run the book's chapters under nbval.

Chapters are MyST Markdown notebooks (``book/*.md`` that myst-nb reads as notebooks:
``booktools.notebooks.is_myst_notebook``). nbval only collects ``.ipynb`` files, so this hook
collects those ``.md`` files too and reads them through jupytext. Plain Markdown pages (the
introduction, the errata, the bibliography) have no notebook header and are not collected.

CI runs each chapter once (issue 34): ``.ci/run`` builds the book strictly beside ``make test``
and sets ``CHAPTERS_FROM_BUILD`` to the folder that build ends in (``_build``). The chapters'
items then check the build's executed notebooks instead of running a kernel: each waits until the
build is in place (``.ci/run`` writes ``.strict-build-status`` there, 0, after the build passed and
was moved in), and each code cell must be in the executed notebook with the same source,
executed, with no error output.
"""

import json
import os
import time
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

import nbformat
import nbval.plugin
import pytest

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


BUILD_WAIT = 3600  # seconds: a liveness guard for the strict build (it takes about 3 minutes)


def built_notebook(chapter: Path, build: Path) -> nbformat.NotebookNode:
    """The strict build's executed notebook of ``chapter``, once the build has ended without error."""
    status = build / ".strict-build-status"
    deadline = time.monotonic() + BUILD_WAIT
    while not status.is_file():
        if time.monotonic() > deadline:
            pytest.fail(f"the strict build in {build} did not end within {BUILD_WAIT} s")
        time.sleep(1)
    code = status.read_text().strip()
    if code != "0":
        pytest.fail(f"the strict build in {build} failed (exit status {code}); its log says why")
    executed = build / "jupyter_execute" / chapter.relative_to(Path(__file__).parent).with_suffix(".ipynb")
    if not executed.is_file():
        pytest.fail(f"the strict build did not execute {chapter.name}: no {executed}")
    return nbformat.read(executed, as_version=4)


class BuiltChapterFile(pytest.File):
    """A chapter checked through the strict build's executed notebook (``CHAPTERS_FROM_BUILD``)."""

    def collect(self):
        cells = [cell for cell in read_notebook(self.path).cells if cell.cell_type == "code"]
        for number, cell in enumerate(cells):
            yield BuiltCell.from_parent(self, name=f"Cell {number}", number=number, source=cell.source)

    def executed_cells(self) -> list:
        if not hasattr(self, "_cells"):
            build = Path(os.environ["CHAPTERS_FROM_BUILD"])
            self._cells = [c for c in built_notebook(self.path, build).cells if c.cell_type == "code"]
        return self._cells


class BuiltCell(pytest.Item):
    """One code cell: in the executed notebook, same source, executed, no error output."""

    def __init__(self, *, number: int, source: str, **kwargs):
        super().__init__(**kwargs)
        self.number, self.source = number, source

    def runtest(self):
        cells = self.parent.executed_cells()
        if self.number >= len(cells):
            pytest.fail(f"the executed notebook has {len(cells)} code cells; the chapter has more")
        cell = cells[self.number]
        if cell.source.strip() != self.source.strip():
            pytest.fail(f"code cell {self.number} of the executed notebook is not the chapter's:\n{cell.source[:500]}")
        if cell.get("execution_count") is None:
            pytest.fail(f"code cell {self.number} was not executed by the build")
        errors = [output for output in cell.get("outputs", []) if output.get("output_type") == "error"]
        if errors:
            pytest.fail(json.dumps(errors[0], indent=1)[:3000])

    def reportinfo(self):
        return self.path, self.number, f"{self.path.name}::{self.name} (from the strict build)"


def pytest_collect_file(file_path, parent):
    option = parent.config.option
    if file_path.suffix != ".md" or not is_myst_notebook(file_path):
        return None
    if os.environ.get("CHAPTERS_FROM_BUILD"):
        return BuiltChapterFile.from_parent(parent, path=file_path)
    if option.nbval or option.nbval_lax:
        return MystNotebookFile.from_parent(parent, path=file_path)
    return None
