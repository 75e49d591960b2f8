"""The chapters as a Binder reader runs them: opened by jupytext's contents manager, then executed.

Part 2 of the Binder check (``booktools/binder_check.py``, issue 8). A reader opens a MyST chapter
in JupyterLab, where jupytext's server extension serves the ``.md`` file as a notebook, and runs
all its cells in the chapter's folder. :func:`execute_chapter` does exactly that with nbclient;
:func:`run_chapters` runs several at once.

:func:`check_executed_chapter` is the same check without running the chapter a second time
(issue 34): when the strict build's kernels ran in Binder's environment (``.ci/run`` points the
build's ``python3`` kernel there with ``JUPYTER_PATH``), the build's executed notebook
(``_build/jupyter_execute/<chapter>.ipynb``) is what "Run All" gives on Binder, provided that it
holds the very code cells that JupyterLab shows, each executed, with no error, by this
interpreter's Python, and is newer than the chapter and the library.

Only the standard library is imported at module level.
"""

from __future__ import annotations

import asyncio
import platform
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOC = ROOT / "_toc.yml"
DEFAULT_TIMEOUT = 300  # seconds per cell, as `execute.timeout` in _config.yml


def chapters(toc: Path = TOC) -> list[str]:
    """The notebook pages of ``_toc.yml``, as paths relative to the repository root (``book/winnow.md``).

    These are the pages a Binder reader can run: the numbered chapters, the assignments and
    the status page. Plain pages (introduction, errata, bibliography, API reference, lecturer
    guide, ...) are not notebooks (``booktools.notebooks.is_myst_notebook``, the rule nbval
    uses), and ``book/assignments/lecturer/`` is not in the TOC.
    """
    # Imported here: with --fresh-venv this module first runs under any python3, without PyYAML.
    from booktools.notebooks import is_myst_notebook
    from booktools.toc import toc_sources

    root = Path(toc).resolve().parent
    return [p.resolve().relative_to(root).as_posix() for p in toc_sources(toc) if is_myst_notebook(p)]


def binder_contents_manager(root: Path = ROOT):
    """The contents manager of a Jupyter server on Binder, rooted at ``root``.

    Jupyter Server's default class (``ServerApp.contents_manager_class``, an
    ``AsyncLargeFileManager``) wrapped by jupytext exactly as its server extension
    ``jupyterlab_jupytext.load_jupyter_server_extension`` wraps it.
    """
    from jupyter_server.serverapp import ServerApp
    from jupytext import (
        build_async_jupytext_contents_manager_class,
        build_sync_jupytext_contents_manager_class,
    )

    base = ServerApp.contents_manager_class.default_value
    if asyncio.iscoroutinefunction(base.get):
        cls = build_async_jupytext_contents_manager_class(base)
    else:  # pragma: no cover - older Jupyter servers
        cls = build_sync_jupytext_contents_manager_class(base)
    return cls(root_dir=str(root))


def open_chapter(path: str, root: Path = ROOT):
    """The notebook that JupyterLab on Binder shows for ``path`` (relative to ``root``).

    Raises
    ------
    ValueError
        If the server would not open the file as a notebook (jupytext not in charge).
    tornado.web.HTTPError
        If jupytext cannot read it (the server would answer 500).
    """
    import nbformat

    manager = binder_contents_manager(root)
    model = manager.get(path)
    if asyncio.iscoroutine(model):
        model = asyncio.run(model)
    if model["type"] != "notebook":
        raise ValueError(f"{path}: the Jupyter server opens it as a {model['type']!r}, not as a notebook")
    return nbformat.from_dict(model["content"])


@dataclass
class ChapterResult:
    """One executed chapter: its path, wall time in seconds and number of code cells."""

    path: str
    seconds: float
    code_cells: int


class ChapterError(Exception):
    """A chapter failed on Binder: the message names the chapter, the cell and the error."""


def _describe_cell(path: str, nb, index: int | None) -> str:
    if index is None or not 0 <= index < len(nb.cells):
        return f"{path}: "
    cell = nb.cells[index]
    code_number = sum(c.cell_type == "code" for c in nb.cells[: index + 1])
    lines = cell.source.strip().splitlines()
    head = "\n".join("    | " + line for line in lines[:4]) + ("\n    | ..." if len(lines) > 4 else "")
    return f"{path}: cell {index} (code cell {code_number}):\n{head}\n  "


def _opened(path: str, root: Path):
    """:func:`open_chapter`, any failure a :class:`ChapterError` naming the chapter."""
    try:
        return open_chapter(path, root)
    except Exception as err:  # noqa: BLE001 - tornado.web.HTTPError from the contents manager, ValueError
        raise ChapterError(f"{path}: JupyterLab cannot open it as a notebook: {err}") from None


def _stop_at_error_output(path: str, nb) -> None:
    """Raise :class:`ChapterError` at the first error output of ``nb``: it would stop "Run All" in
    JupyterLab, even in a cell tagged `raises-exception` (which nbclient and myst-nb let pass)."""
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                where = _describe_cell(path, nb, index)
                raise ChapterError(f"{where}{output.get('ename')}: {output.get('evalue')}")


def execute_chapter(path: str, timeout: int = DEFAULT_TIMEOUT, root: Path = ROOT) -> ChapterResult:
    """Open a chapter as Binder's JupyterLab does and run all its cells, as "Run All" does.

    The notebook comes from :func:`open_chapter`; nbclient executes it in a fresh ``python3``
    kernel whose working directory is the chapter's folder, as in Jupyter.

    Parameters
    ----------
    path : str
        The chapter, relative to ``root`` (``book/winnow.md``).
    timeout : int
        Seconds allowed per cell.
    root : Path
        The repository root (the Jupyter server's root directory).

    Returns
    -------
    ChapterResult

    Raises
    ------
    ChapterError
        On any error output, a timeout or a dead kernel, naming the chapter, the cell index,
        the first lines of the cell's source and the error's name and value.
    """
    from nbclient import NotebookClient
    from nbclient.exceptions import (
        CellExecutionError,
        CellTimeoutError,
        DeadKernelError,
    )

    start = time.perf_counter()
    nb = _opened(path, root)
    current: list[int | None] = [None]

    def on_cell_start(cell, cell_index):
        current[0] = cell_index

    client = NotebookClient(
        nb,
        kernel_name="python3",
        timeout=timeout,
        resources={"metadata": {"path": str((Path(root) / path).parent)}},
        on_cell_start=on_cell_start,
    )
    try:
        client.execute()
    except CellExecutionError as err:
        where = _describe_cell(path, nb, current[0])
        raise ChapterError(f"{where}{err.ename}: {err.evalue}") from None
    except CellTimeoutError:
        raise ChapterError(f"{_describe_cell(path, nb, current[0])}timed out after {timeout} s") from None
    except DeadKernelError as err:
        raise ChapterError(f"{_describe_cell(path, nb, current[0])}the kernel died: {err}") from None
    _stop_at_error_output(path, nb)
    code_cells = sum(cell.cell_type == "code" for cell in nb.cells)
    return ChapterResult(path, time.perf_counter() - start, code_cells)


@dataclass
class Outcome:
    """The outcome of one chapter in :func:`run_chapters`: a result, or the error message."""

    path: str
    result: ChapterResult | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def line(self) -> str:
        if self.ok:
            r = self.result
            return f"  ok    {r.seconds:6.1f} s  {r.code_cells:3d} code cells  {self.path}"
        return f"  FAIL  {self.error.splitlines()[0].rstrip(':')}"


def _run_one(path: str, timeout: int, root: str) -> Outcome:
    """Worker-process entry: never raises, so that the message survives the trip back."""
    try:
        return Outcome(path, result=execute_chapter(path, timeout, Path(root)))
    except ChapterError as err:
        return Outcome(path, error=str(err))
    except Exception as err:  # noqa: BLE001 - reported, not hidden
        return Outcome(path, error=f"{path}: {type(err).__name__}: {err}")


def run_chapters(paths, jobs: int = 2, timeout: int = DEFAULT_TIMEOUT, root: Path = ROOT, report=None) -> list[Outcome]:
    """Execute chapters with :func:`execute_chapter`, ``jobs`` at a time, each in its own process.

    Parameters
    ----------
    paths : iterable of str
        Chapters relative to ``root``.
    jobs : int
        Worker processes (each runs one kernel at a time).
    timeout : int
        Seconds allowed per cell.
    root : Path
        The repository root.
    report : callable, optional
        Called with each :class:`Outcome` as soon as it is known.

    Returns
    -------
    list of Outcome
        In the order of ``paths``.
    """
    paths = list(paths)
    outcomes = {}
    # spawn: fresh workers, nothing inherited from a parent that may hold threads or event loops.
    with ProcessPoolExecutor(max_workers=max(1, jobs), mp_context=get_context("spawn")) as pool:
        futures = [pool.submit(_run_one, p, timeout, str(root)) for p in paths]
        for future in as_completed(futures):
            outcome = future.result()
            outcomes[outcome.path] = outcome
            if report:
                report(outcome)
    return [outcomes[p] for p in paths]


def _newest_source(path: str, root: Path) -> tuple[float, Path]:
    """The newest modification time among the chapter and onlinelib's modules, and that file."""
    candidates = [Path(root) / path, *sorted((Path(root) / "onlinelib").rglob("*.py"))]
    return max((p.stat().st_mtime, p) for p in candidates if p.exists())


def check_executed_chapter(path: str, build: Path, root: Path = ROOT) -> ChapterResult:
    """Check a chapter through the notebook that a build executed, as "Run All" on Binder would have.

    Parameters
    ----------
    path : str
        The chapter, relative to ``root`` (``book/winnow.md``).
    build : Path
        The build's output folder (``_build``): the notebook is ``build/jupyter_execute/<path>.ipynb``.
    root : Path
        The repository root.

    Returns
    -------
    ChapterResult
        With the time the comparison took.

    Raises
    ------
    ChapterError
        If the notebook is missing or older than the chapter or a module of onlinelib, its code
        cells are not those JupyterLab shows (in order, character for character), a code cell was
        not executed, a cell has an error output, or another Python version executed it.
    """
    import nbformat

    start = time.perf_counter()
    executed_path = Path(build) / "jupyter_execute" / Path(path).with_suffix(".ipynb")
    if not executed_path.is_file():
        raise ChapterError(f"{path}: the build in {build} did not execute it (no {executed_path})")
    newest, source = _newest_source(path, Path(root))
    if executed_path.stat().st_mtime < newest:
        raise ChapterError(f"{path}: the build's notebook is older than {source}: build the book again")
    shown = _opened(path, root)
    executed = nbformat.read(executed_path, as_version=4)
    shown_code = [cell for cell in shown.cells if cell.cell_type == "code"]
    run_code = [cell for cell in executed.cells if cell.cell_type == "code"]
    for number, (mine, theirs) in enumerate(zip(shown_code, run_code, strict=False), 1):
        if mine.source != theirs.source:
            raise ChapterError(f"{path}: code cell {number} in JupyterLab is not the cell the build executed")
    if len(shown_code) != len(run_code):
        raise ChapterError(f"{path}: JupyterLab shows {len(shown_code)} code cells, the build executed {len(run_code)}")
    for index, cell in enumerate(executed.cells):
        if cell.cell_type == "code" and cell.source.strip() and cell.get("execution_count") is None:
            raise ChapterError(f"{_describe_cell(path, executed, index)}was not executed by the build")
    _stop_at_error_output(path, executed)
    version = executed.metadata.get("language_info", {}).get("version")
    if version != platform.python_version():
        raise ChapterError(
            f"{path}: executed by Python {version}, not by this environment's {platform.python_version()}"
        )
    return ChapterResult(path, time.perf_counter() - start, len(run_code))


def check_executed(paths, build: Path, root: Path = ROOT, report=None) -> list[Outcome]:
    """:func:`check_executed_chapter` for each of ``paths``; the outcomes in their order (``report``
    is called with each as soon as it is known)."""
    outcomes = []
    for path in paths:
        try:
            outcome = Outcome(path, result=check_executed_chapter(path, build, root))
        except ChapterError as err:
            outcome = Outcome(path, error=str(err))
        outcomes.append(outcome)
        if report:
            report(outcome)
    return outcomes
