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

    # CI (.ci/run) runs every chapter once: Binder's environment kept, the build's kernels run there,
    # then the build's executed notebooks are checked instead of running the chapters again
    python -m booktools binder-check --fresh-venv --venv V --kernel-spec K   # before the build
    JUPYTER_PATH=K jupyter-book build .
    python -m booktools binder-check --fresh-venv --venv V --executed _build

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
   fails the chapter, and the report names the chapter, the cell and the error. With
   ``--executed BUILD`` a chapter is not run again: the notebook that a build executed with
   this environment's kernels (``--kernel-spec``) must hold the code cells JupyterLab shows,
   all executed without error (:func:`check_executed_chapter`, in ``binder_chapters.py``).

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
import hashlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Binder's environment: repo2docker reads binder/ when it exists and then ignores the root's files.
REQUIREMENTS = ROOT / "binder" / "requirements.txt"
RUNTIME = ROOT / "binder" / "runtime.txt"
POSTBUILD = ROOT / "binder" / "postBuild"
# The book's whole toolchain, whose pins Binder's repeat.
BOOK_REQUIREMENTS = ROOT / "requirements.txt"
PYPROJECT = ROOT / "pyproject.toml"

# Part 2, the chapters, is in binder_chapters.py.
from booktools.binder_chapters import DEFAULT_TIMEOUT, chapters, check_executed, run_chapters  # noqa: E402


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


# --------------------------------------------------------------------------- command line

# Written into a kept environment (--venv) once it is complete: the hash of what it was made from.
ENVIRONMENT_MARK = ".binder-environment"


def environment_recipe() -> str:
    """A hash of what Binder builds its environment from: binder/'s files and the Python that runs them."""
    digest = hashlib.sha256(sys.version.encode())
    for path in (REQUIREMENTS, RUNTIME, POSTBUILD):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def make_environment(venv: Path) -> None:
    """Build Binder's environment in a new venv at ``venv``, as repo2docker does.

    ``pip install -r binder/requirements.txt`` from the repository root (so that its ``-e .`` is
    this repository), then ``binder/postBuild`` with the venv's python first on ``PATH``.
    """
    start = time.perf_counter()
    print(f"== creating {venv} with {sys.executable}", flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("PYTHONPATH", None)
    requirements = REQUIREMENTS.relative_to(ROOT).as_posix()
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "-r", requirements], cwd=ROOT, env=env, check=True)
    subprocess.run(
        [str(POSTBUILD)],
        cwd=ROOT,
        check=True,
        env={**env, "NB_PYTHON_PREFIX": str(venv), "PATH": f"{venv / 'bin'}{os.pathsep}{env['PATH']}"},
    )
    print(f"== installed {requirements} in {time.perf_counter() - start:.0f} s", flush=True)


def kept_environment(venv: Path) -> None:
    """Binder's environment at ``venv`` (``--venv``): made there if the folder does not exist, kept
    afterwards, and reused while binder/'s files and the Python are those it was made from.

    Raises
    ------
    ValueError
        If ``venv`` exists but is not an environment this check made from today's binder/ files
        (a folder it did not make is never used or removed).
    """
    mark = venv / ENVIRONMENT_MARK
    if venv.exists():
        if mark.is_file() and mark.read_text(encoding="utf-8").strip() == environment_recipe():
            print(f"== reusing Binder's environment {venv}", flush=True)
            return
        raise ValueError(
            f"--venv: {venv} exists but is not Binder's environment made by this check from today's "
            "binder/ files; remove it or name a folder that does not exist"
        )
    make_environment(venv)
    mark.write_text(environment_recipe() + "\n", encoding="utf-8")


def write_kernel_spec(folder: Path) -> Path:
    """A ``python3`` Jupyter kernel spec that runs this interpreter, in ``folder/kernels/python3``.

    With ``JUPYTER_PATH=folder`` a build's kernels run in this environment: ``.ci/run`` points the
    strict build at Binder's environment this way, so that every chapter runs once in CI.
    """
    from ipykernel.kernelspec import get_kernel_dict

    spec = get_kernel_dict()  # argv: [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    spec["display_name"] = f"Python 3 ({sys.prefix})"
    target = Path(folder) / "kernels" / "python3"
    target.mkdir(parents=True, exist_ok=True)
    (target / "kernel.json").write_text(json.dumps(spec, indent=1) + "\n", encoding="utf-8")
    return target


def fresh_venv_run(args: list[str], venv: Path | None = None) -> int:
    """Build Binder's environment in a new venv (in a temporary folder, or kept at ``venv``), then
    re-run this check there with ``args``."""
    if venv is not None:
        kept_environment(venv)
        return _run_in(venv, args)
    with tempfile.TemporaryDirectory(prefix="binder-check-") as tmp:
        make_environment(Path(tmp) / "venv")
        return _run_in(Path(tmp) / "venv", args)


def _run_in(venv: Path, args: list[str]) -> int:
    """``python -m booktools binder-check ARGS`` with the venv's Python, in the repository root."""
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("PYTHONPATH", None)
    rerun = [str(venv / "bin" / "python"), "-m", "booktools", "binder-check", *args]
    return subprocess.run(rerun, cwd=ROOT, env=env, check=False).returncode


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--fresh-venv", action="store_true", help="build Binder's environment (binder/) in a new venv and run there"
    )
    parser.add_argument(
        "--venv",
        type=Path,
        help="with --fresh-venv: build it in this folder (which must not exist) and keep it; "
        "a folder it built from today's binder/ files is reused",
    )
    parser.add_argument(
        "--kernel-spec",
        type=Path,
        metavar="DIR",
        help="check the environment, then write a python3 kernel spec of it into DIR/kernels (for a build "
        "run with JUPYTER_PATH=DIR) instead of running the chapters",
    )
    parser.add_argument(
        "--executed",
        type=Path,
        metavar="BUILD",
        help="check the notebooks that a build in BUILD (a _build folder) executed with this environment's "
        "kernels, instead of running the chapters again",
    )
    parser.add_argument("--jobs", type=int, default=2, help="chapters executed at once (default 2)")
    parser.add_argument("--timeout", type=int, default=DEFAULT_TIMEOUT, help="seconds per cell (default 300)")
    parser.add_argument("chapters", nargs="*", help="chapters to run (default: every notebook page of _toc.yml)")
    return parser


def _report(outcomes, wall: float, how: str) -> list:
    """Print the total line of ``outcomes``; the failed ones."""
    passed = [o for o in outcomes if o.ok]
    cells = sum(o.result.code_cells for o in passed)
    print(f"== total: {len(passed)}/{len(outcomes)} chapters passed, {cells} code cells, {wall:.1f} s wall {how}")
    failed = [o for o in outcomes if not o.ok]
    for outcome in failed:
        print(f"\nFAILED {outcome.error}")
    return failed


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.venv and not args.fresh_venv:
        parser.error("--venv goes with --fresh-venv (it names where Binder's environment is built)")
    if args.kernel_spec and (args.executed or args.chapters):
        parser.error("--kernel-spec runs no chapter: give it without --executed and chapters")

    if args.fresh_venv:
        options = ["--jobs", str(args.jobs), "--timeout", str(args.timeout)]
        if args.kernel_spec:
            options += ["--kernel-spec", str(args.kernel_spec.resolve())]
        if args.executed:
            options += ["--executed", str(args.executed.resolve())]
        # Listed here: Binder's environment has no TOC parser. The re-run starts in ROOT.
        chosen = [str(Path(p).resolve()) for p in args.chapters]
        if not chosen and not args.kernel_spec:
            chosen = [str(ROOT / p) for p in chapters()]
        try:
            return fresh_venv_run([*options, *chosen], args.venv.resolve() if args.venv else None)
        except ValueError as err:
            parser.error(str(err))

    print(f"== environment: {sys.executable} (Python {sys.version.split()[0]})", flush=True)
    problems = check_environment()
    for problem in problems:
        print(f"  - {problem}")
    print(f"== environment: {'OK' if not problems else f'{len(problems)} problem(s)'}", flush=True)
    if args.kernel_spec:
        if not problems:
            print(f"== kernel spec: {write_kernel_spec(args.kernel_spec)} (use JUPYTER_PATH={args.kernel_spec})")
        return 0 if not problems else 1

    paths = [Path(p).resolve().relative_to(ROOT).as_posix() for p in args.chapters] or chapters()
    start = time.perf_counter()
    if args.executed:
        print(f"== checking {len(paths)} chapters as the build in {args.executed} executed them", flush=True)
        outcomes = check_executed(paths, args.executed, report=lambda o: print(o.line(), flush=True))
        how = "(executed once, by the build, with this environment's kernels)"
    else:
        print(
            f"== executing {len(paths)} chapters through jupytext's contents manager and nbclient, "
            f"{args.jobs} at a time",
            flush=True,
        )
        outcomes = run_chapters(
            paths, jobs=args.jobs, timeout=args.timeout, report=lambda o: print(o.line(), flush=True)
        )
        busy = sum(o.result.seconds for o in outcomes if o.ok)
        how = f"with --jobs {args.jobs} (sum of chapter times {busy:.1f} s)"
    failed = _report(outcomes, time.perf_counter() - start, how)
    if problems:
        print("\nThe environment differs from Binder's:\n  - " + "\n  - ".join(problems))
    return 0 if not problems and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
