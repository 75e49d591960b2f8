"""Reproduce what Binder does with this repository, then run every chapter as Binder would.

This is the Binder reproduction of issue 8 ("Binder and downloads"; the README's section
*Opening a chapter as a notebook*). Binder (repo2docker) builds the session from the folder
``binder/`` (it then ignores the root's requirements.txt, runtime.txt and postBuild): the Python
of ``binder/runtime.txt``, ``pip install -r binder/requirements.txt`` run from the repository
root (so its ``-e .`` is the repository), then ``binder/postBuild``. ``binder/requirements.txt``
is only what a reader needs (onlinelib, JupyterLab with jupytext and jupyterlab-myst, the kernel,
ipywidgets, myst-nb), at the pins of the book's ``requirements.txt`` (issue 25; ``make
requirements`` writes both). A reader then opens a MyST chapter in JupyterLab, where jupytext's
server extension serves the ``.md`` file as a notebook, and runs all its cells in the chapter's
folder. Usage::

    python -m booktools binder-check --fresh-venv          # a new venv as Binder's, then the check in it
    python -m booktools binder-check                       # the check in the current environment
    python -m booktools binder-check --jobs 1 book/winnow.md book/assignments/rwma.md

The check has two parts.

1. The environment is the one Binder builds (:func:`check_environment`): ``binder/runtime.txt``
   names the running interpreter's ``python-X.Y``; every pin of ``binder/requirements.txt`` is
   the pin of ``requirements.txt``; the installed distributions are exactly the pins of
   ``binder/requirements.txt``, in both directions (missing, extra and different
   versions are all reported; pip, setuptools, wheel and the editable project itself,
   ``onlinelib-book`` in pyproject.toml, are ignored); jupytext's Jupyter server extension is
   enabled, its JupyterLab extension and jupyterlab-myst are installed (and not disabled); the
   ``python3`` kernel runs this interpreter.
2. Every notebook page of ``_toc.yml`` (:func:`chapters`) is opened through jupytext's
   contents manager, built the way the server extension builds it, and executed with
   nbclient in the chapter's folder (:func:`execute_chapter`); ``--jobs`` chapters run at
   once, each in its own worker process and kernel (:func:`run_chapters`). Any error output
   fails the chapter, and the report names the chapter, the cell and the error.

One line per chapter (wall time, code cells) and a total are printed; the exit status is 0
only if the environment and every chapter passed. With ``--fresh-venv`` the check makes a
virtual environment in a temporary directory, installs ``binder/requirements.txt`` into it
exactly as repo2docker does (from the repository root, so that ``-e .`` installs onlinelib),
runs ``binder/postBuild`` for it and re-runs itself there (``python -m booktools binder-check``
with that environment's Python, in the repository root), with the chapters listed here: Binder's
environment has no TOC parser (sphinx-external-toc), so run ``--fresh-venv`` from the book's
environment (``.venv/bin/python``). ``tests/test_binder.py`` imports the functions below; with
``BINDER_CHECK=1`` it runs the whole check.

Only the standard library is imported at module level; the other imports happen inside the
functions that need them.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Binder's environment: repo2docker reads binder/ when it exists and then ignores the root's files.
REQUIREMENTS = ROOT / "binder" / "requirements.txt"
RUNTIME = ROOT / "binder" / "runtime.txt"
POSTBUILD = ROOT / "binder" / "postBuild"
# The book's whole toolchain, whose pins Binder's repeat.
BOOK_REQUIREMENTS = ROOT / "requirements.txt"
TOC = ROOT / "_toc.yml"
PYPROJECT = ROOT / "pyproject.toml"


def _project_name() -> str:
    """The distribution name of onlinelib, from pyproject.toml (it is not the import name)."""
    import tomllib

    with open(PYPROJECT, "rb") as handle:
        return tomllib.load(handle)["project"]["name"]


# Installed by venv/pip themselves, or the project (the `-e .` line): not pinned.
IGNORED_DISTRIBUTIONS = frozenset({"pip", "setuptools", "wheel", _project_name()})
# jupytext 1.19 installs these: the server extension (enabled by
# etc/jupyter/jupyter_server_config.d/jupytext.json) and the JupyterLab extension.
JUPYTEXT_SERVER_EXTENSION = "jupyterlab_jupytext"
JUPYTEXT_LABEXTENSION = "jupyterlab-jupytext"
# Renders MyST (theorem boxes, admonitions, citations, maths) in the notebook's Markdown cells.
MYST_LABEXTENSION = "jupyterlab-myst"
DEFAULT_TIMEOUT = 300  # seconds per cell, as `execute.timeout` in _config.yml


# --------------------------------------------------------------------------- environment


def _text(source: str | os.PathLike) -> str:
    """The text of ``source``: a path-like is read; a ``str`` is the text itself."""
    if isinstance(source, os.PathLike):
        return Path(source).read_text(encoding="utf-8")
    return source


def parse_requirements(requirements: str | os.PathLike = REQUIREMENTS) -> tuple[dict[str, tuple[str, str]], list[str]]:
    """The exact pins of a requirements file.

    Parameters
    ----------
    requirements : str or path-like
        The file (a path-like object) or its text (a ``str``).

    Returns
    -------
    pins : dict
        PEP 503 name → (name as written, version), one per ``name==version`` line.
    problems : list of str
        Lines that are neither a comment, the editable project (``-e .``) nor an exact pin
        (one ``==`` of a version without ``*``, no extras, URL or environment marker).
    """
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    pins: dict[str, tuple[str, str]] = {}
    problems: list[str] = []
    for number, raw in enumerate(_text(requirements).splitlines(), 1):
        line = raw.split("#", 1)[0].strip()  # pip's comments (pip-compile's "# via" notes)
        if not line or line in ("-e .", "--editable ."):
            continue
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            requirement = None
        specifiers = list(requirement.specifier) if requirement else []
        if not (
            requirement
            and len(specifiers) == 1
            and specifiers[0].operator == "=="
            and "*" not in specifiers[0].version
            and not requirement.extras
            and requirement.url is None
            and requirement.marker is None
        ):
            problems.append(f"requirements line {number} is not an exact pin `name==version`: {raw.strip()!r}")
            continue
        pins[canonicalize_name(requirement.name)] = (requirement.name, specifiers[0].version)
    return pins, problems


def installed_distributions() -> dict[str, tuple[str, str]]:
    """PEP 503 name → (name, version) of every distribution importable by this interpreter.

    When a name is installed twice on ``sys.path`` the first one wins, as for ``import``.
    """
    from importlib.metadata import distributions

    from packaging.utils import canonicalize_name

    found: dict[str, tuple[str, str]] = {}
    for dist in distributions():
        name = dist.metadata["Name"]
        if name:
            found.setdefault(canonicalize_name(name), (name, dist.version))
    return found


def check_runtime(runtime: str | os.PathLike = RUNTIME, version_info=None) -> list[str]:
    """Problems with Binder's ``runtime.txt``: it must read ``python-X.Y``, the running Python's major.minor.

    Binder picks the Python version from this file (issue 8); a mismatch means that the
    reproduction, or CI, is not testing the Python that readers get.
    """
    version_info = version_info or sys.version_info
    text = _text(runtime).strip()
    match = re.fullmatch(r"python-(\d+)\.(\d+)", text)
    if not match:
        return [f"runtime.txt should be `python-X.Y`, not {text!r}"]
    wanted = tuple(map(int, match.groups()))
    running = tuple(version_info[:2])
    if wanted != running:
        return [f"runtime.txt asks for Python {wanted[0]}.{wanted[1]}, but this is Python {running[0]}.{running[1]}"]
    return []


def check_packages(requirements: str | os.PathLike = REQUIREMENTS, installed: dict | None = None) -> list[str]:
    """Differences between the pins of a requirements file and the installed distributions.

    Parameters
    ----------
    requirements : str or path-like
        The requirements file (path-like; by default Binder's) or its text (``str``).
    installed : dict, optional
        PEP 503 name → (name, version); by default :func:`installed_distributions`.

    Returns
    -------
    list of str
        One line per missing, extra or mismatched distribution, naming it and both versions
        (Binder installs exactly the pins, so an extra package would hide a missing pin).
    """
    from packaging.utils import canonicalize_name

    pins, problems = parse_requirements(requirements)
    if installed is None:
        installed = installed_distributions()
    installed = {canonicalize_name(k): v for k, v in installed.items()}
    for key in sorted(pins.keys() - IGNORED_DISTRIBUTIONS):
        name, version = pins[key]
        if key not in installed:
            problems.append(f"missing: {name}=={version} is pinned but not installed")
        elif installed[key][1] != version:
            problems.append(f"mismatch: {name} is pinned at {version} but {installed[key][1]} is installed")
    for key in sorted(installed.keys() - pins.keys() - IGNORED_DISTRIBUTIONS):
        name, version = installed[key]
        problems.append(f"extra: {name}=={version} is installed but not pinned")
    return problems


def check_same_pins(
    requirements: str | os.PathLike = REQUIREMENTS, book_requirements: str | os.PathLike = BOOK_REQUIREMENTS
) -> list[str]:
    """Pins of Binder's ``requirements`` that are not the pins of the book's ``book_requirements``.

    Both come from one resolution (``make requirements``), so Binder runs the chapters with the
    versions the book was built and tested with. Each argument is a path-like or the file's text.
    Lines that are not exact pins are left to :func:`check_packages`.
    """
    pins, _ = parse_requirements(requirements)
    book_pins, _ = parse_requirements(book_requirements)
    problems = []
    for key in sorted(pins):
        name, version = pins[key]
        if key not in book_pins:
            problems.append(
                f"pin: Binder's {name}=={version} is not pinned in requirements.txt (run make requirements)"
            )
        elif book_pins[key][1] != version:
            problems.append(
                f"pin: Binder's {name}=={version} is {name}=={book_pins[key][1]} in requirements.txt "
                "(run make requirements)"
            )
    return problems


def labextension_dir(name: str = JUPYTEXT_LABEXTENSION) -> Path | None:
    """The installed (prebuilt) JupyterLab extension ``name``, as JupyterLab finds it, or None."""
    from jupyter_core.paths import jupyter_path

    for base in jupyter_path("labextensions"):
        candidate = Path(base) / name
        if (candidate / "package.json").is_file():
            return candidate
    return None


def disabled_labextensions() -> set[str]:
    """JupyterLab extensions disabled in any ``labconfig/page_config.json`` on the Jupyter config path."""
    import json

    from jupyter_core.paths import jupyter_config_path

    disabled = set()
    for base in jupyter_config_path():
        page_config = Path(base) / "labconfig" / "page_config.json"
        if page_config.is_file():
            entries = json.loads(page_config.read_text(encoding="utf-8")).get("disabledExtensions", {})
            disabled |= {name for name, off in entries.items() if off}
    return disabled


def check_jupyter() -> list[str]:
    """Problems with the Jupyter side: what makes JupyterLab open a MyST chapter as a notebook.

    * jupytext's server extension (``jupyterlab_jupytext``) is enabled in the merged
      ``jupyter_server_config.d`` files on the Jupyter config path, read the way Jupyter
      Server reads them; jupytext 1.19 installs
      ``<prefix>/etc/jupyter/jupyter_server_config.d/jupytext.json`` for this;
    * its JupyterLab extension is installed (``<prefix>/share/jupyter/labextensions/jupyterlab-jupytext``);
    * ``jupyterlab-myst`` is installed and not disabled, so that the chapters' MyST (theorems,
      admonitions, citations) renders in the notebook instead of showing as raw markup;
    * the ``python3`` kernel runs this interpreter (``python`` in its argv is replaced by
      ``sys.executable`` when a kernel is launched).
    """
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
    from jupyter_core.paths import jupyter_config_path
    from jupyter_server.extension.config import ExtensionConfigManager

    problems = []
    manager = ExtensionConfigManager(read_config_path=jupyter_config_path())
    if not manager.enabled(JUPYTEXT_SERVER_EXTENSION):
        problems.append(
            f"jupytext's server extension {JUPYTEXT_SERVER_EXTENSION} is not enabled: the server would "
            f"open the .md chapters as text (expected {sys.prefix}/etc/jupyter/jupyter_server_config.d/jupytext.json)"
        )
    elif importlib.util.find_spec(JUPYTEXT_SERVER_EXTENSION) is None:
        problems.append(f"the server extension {JUPYTEXT_SERVER_EXTENSION} is enabled but not importable")
    if labextension_dir() is None:
        problems.append(
            f"jupytext's JupyterLab extension is not installed (no {JUPYTEXT_LABEXTENSION}/package.json under "
            "any share/jupyter/labextensions): no 'Jupytext Notebook' viewer"
        )
    if labextension_dir(MYST_LABEXTENSION) is None:
        problems.append(f"{MYST_LABEXTENSION} is not installed: JupyterLab shows the chapters' MyST markup raw")
    elif MYST_LABEXTENSION in disabled_labextensions():
        problems.append(
            f"{MYST_LABEXTENSION} is installed but disabled (jupyter labextension enable {MYST_LABEXTENSION})"
        )
    try:
        argv = KernelSpecManager().get_kernel_spec("python3").argv
    except NoSuchKernel:
        problems.append("there is no python3 kernel")
    else:
        exe = argv[0] if argv else ""
        aliases = {"python", f"python{sys.version_info[0]}", f"python{sys.version_info[0]}.{sys.version_info[1]}"}
        if exe not in aliases and not (os.path.exists(exe) and os.path.samefile(exe, sys.executable)):
            problems.append(f"the python3 kernel runs {exe!r}, not this interpreter {sys.executable}")
    return problems


def check_environment(
    requirements: str | os.PathLike = REQUIREMENTS,
    runtime: str | os.PathLike = RUNTIME,
    installed: dict | None = None,
    book_requirements: str | os.PathLike = BOOK_REQUIREMENTS,
) -> list[str]:
    """Everything by which this environment differs from the one Binder builds (issues 8 and 25).

    Parameters
    ----------
    requirements, runtime : str or path-like
        ``binder/requirements.txt`` and ``binder/runtime.txt`` (path-like objects) or their text (``str``).
    installed : dict, optional
        PEP 503 name → (name, version) to compare with instead of the installed distributions.
    book_requirements : str or path-like
        The book's ``requirements.txt``, whose pins Binder's must repeat.

    Returns
    -------
    list of str
        The problems found by :func:`check_runtime`, :func:`check_same_pins`,
        :func:`check_packages` and :func:`check_jupyter`; empty if there are none.
    """
    return (
        check_runtime(runtime)
        + check_same_pins(requirements, book_requirements)
        + check_packages(requirements, installed)
        + check_jupyter()
    )


# --------------------------------------------------------------------------- chapters


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
    try:
        nb = open_chapter(path, root)
    except Exception as err:  # noqa: BLE001 - tornado.web.HTTPError from the contents manager, ValueError
        raise ChapterError(f"{path}: JupyterLab cannot open it as a notebook: {err}") from None
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
    # A cell tagged `raises-exception` passes nbclient, but stops "Run All" in JupyterLab.
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                where = _describe_cell(path, nb, index)
                raise ChapterError(f"{where}{output.get('ename')}: {output.get('evalue')}")
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


# --------------------------------------------------------------------------- command line


def fresh_venv_run(args: list[str]) -> int:
    """Make a venv in a temporary directory, build Binder's environment in it, re-run this check there."""
    with tempfile.TemporaryDirectory(prefix="binder-check-") as tmp:
        venv = Path(tmp) / "venv"
        start = time.perf_counter()
        print(f"== creating {venv} with {sys.executable}", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        python = venv / "bin" / "python"
        env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        env.pop("PYTHONPATH", None)
        # As repo2docker: `pip install -r binder/requirements.txt` from the repository root, then
        # binder/postBuild, with this environment's python first on PATH.
        requirements = REQUIREMENTS.relative_to(ROOT).as_posix()
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "-r", requirements], cwd=ROOT, env=env, check=True
        )
        subprocess.run(
            [str(POSTBUILD)],
            cwd=ROOT,
            check=True,
            env={**env, "NB_PYTHON_PREFIX": str(venv), "PATH": f"{venv / 'bin'}{os.pathsep}{env['PATH']}"},
        )
        print(f"== installed {requirements} in {time.perf_counter() - start:.0f} s", flush=True)
        rerun = [str(python), "-m", "booktools", "binder-check", *args]
        return subprocess.run(rerun, cwd=ROOT, env=env, check=False).returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--fresh-venv", action="store_true", help="build Binder's environment (binder/) in a new venv and run there"
    )
    parser.add_argument("--jobs", type=int, default=2, help="chapters executed at once (default 2)")
    parser.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT, help="seconds per cell (default 300)")
    parser.add_argument("chapters", nargs="*", help="chapters to run (default: every notebook page of _toc.yml)")
    args = parser.parse_args(argv)

    if args.fresh_venv:
        # Listed here: Binder's environment has no TOC parser. The re-run starts in ROOT.
        chosen = [str(Path(p).resolve()) for p in args.chapters] or [str(ROOT / p) for p in chapters()]
        return fresh_venv_run(["--jobs", str(args.jobs), "--timeout", str(args.timeout), *chosen])

    print(f"== environment: {sys.executable} (Python {sys.version.split()[0]})", flush=True)
    problems = check_environment()
    for problem in problems:
        print(f"  - {problem}")
    print(f"== environment: {'OK' if not problems else f'{len(problems)} problem(s)'}", flush=True)

    paths = [Path(p).resolve().relative_to(ROOT).as_posix() for p in args.chapters] or chapters()
    print(
        f"== executing {len(paths)} chapters through jupytext's contents manager and nbclient, {args.jobs} at a time",
        flush=True,
    )
    start = time.perf_counter()
    outcomes = run_chapters(paths, jobs=args.jobs, timeout=args.timeout, report=lambda o: print(o.line(), flush=True))
    wall = time.perf_counter() - start
    passed = [o for o in outcomes if o.ok]
    failed = [o for o in outcomes if not o.ok]
    cells = sum(o.result.code_cells for o in passed)
    busy = sum(o.result.seconds for o in passed)
    print(
        f"== total: {len(passed)}/{len(outcomes)} chapters passed, {cells} code cells, "
        f"{wall:.1f} s wall with --jobs {args.jobs} (sum of chapter times {busy:.1f} s)"
    )
    for outcome in failed:
        print(f"\nFAILED {outcome.error}")
    if problems:
        print("\nThe environment differs from Binder's:\n  - " + "\n  - ".join(problems))
    return 0 if not problems and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
