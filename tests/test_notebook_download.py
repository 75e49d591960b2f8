"""A chapter downloaded from the site runs as its first cell says (issue 25, item 3).

Every downloaded ``.ipynb`` starts with a cell (``_ext/notebook_links.py``) that says to install
the ``notebooks`` extra of pyproject.toml from the book's repository, then run ``jupyter lab``.
The fast tests check that the extra brings every package a chapter or ``onlinelib`` imports,
at versions requirements.txt's pins satisfy, and, once the book is built, that no downloaded
notebook repeats a cell's printed lines. With ``DOWNLOAD_CHECK=1`` (CI, after the build), the
check a reader would make: one chapter's download, a fresh venv, the first cell's ``pip install``
run literally in a copy of the repository, then the notebook executed with
``jupyter nbconvert --execute`` in that venv. The installs are held to requirements.txt's pins
(``PIP_CONSTRAINT``), so the check runs the versions the book was built with.
``DOWNLOAD_BUILD`` names another build's ``--path-output`` (default: the repository, _build/html).
"""

import ast
import importlib.metadata
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import jupytext
import nbformat
import pytest
from myst_nb.core.utils import coalesce_streams
from packaging.requirements import Requirement

from booktools import binder_chapters

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
HTML = Path(os.environ.get("DOWNLOAD_BUILD", ROOT)).resolve() / "_build" / "html"
CHAPTER = "book/mistake_bounds"  # the fastest chapter (about 25 s)
# What a copy of the repository leaves out: the .gitignore's build products and environments.
NOT_IN_A_CLONE = shutil.ignore_patterns(
    ".git",
    ".venv",
    "venv",
    "_build",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    ".hypothesis",
    ".pytest_cache",
    ".ipynb_checkpoints",
)

needs_build = pytest.mark.skipif(
    not (HTML / "index.html").exists(),
    reason=f"the book has not been built in {HTML.parent.parent} (set DOWNLOAD_BUILD to a build's --path-output)",
)


def repeated_stdout_blocks(cell) -> list[int]:
    """Indices (among the cell's stdout blocks) of blocks whose text an earlier block already holds."""
    blocks = [o.text for o in cell.get("outputs", []) if o.output_type == "stream" and o.name == "stdout"]
    return [j for j, block in enumerate(blocks) if block.strip() and any(block.strip() in b for b in blocks[:j])]


def _notebook_repeats(nb) -> list[str]:
    return [
        f"cell {i}: stdout blocks {found}"
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "code" and (found := repeated_stdout_blocks(cell))
    ]


# --------------------------------------------------------------------------- the extra


def _imports(source: str) -> set[str]:
    """Top-level module names that ``source`` imports (IPython magics and shell lines dropped)."""
    code = "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def _third_party(modules: set[str]) -> set[str]:
    return {m for m in modules if m not in sys.stdlib_module_names and m not in ("onlinelib", "__future__")}


def _distribution(module: str, providers: dict) -> str:
    assert providers.get(module), f"no installed distribution provides the module {module!r}"
    return providers[module][0].lower().replace("_", "-")


def _names(requirements: list[str]) -> set[str]:
    return {Requirement(r).name.lower().replace("_", "-") for r in requirements}


def test_the_extra_brings_every_module_a_notebook_or_onlinelib_imports():
    """Each third-party import of a notebook page (chapters, assignments) or of onlinelib comes from a
    dependency of onlinelib-book or from its ``notebooks`` extra."""
    chapter_imports = set()
    for path in binder_chapters.chapters():
        for cell in jupytext.read(ROOT / path).cells:
            if cell.cell_type == "code":
                chapter_imports |= _imports(cell.source)
    library_imports = set()
    for path in (ROOT / "onlinelib").rglob("*.py"):
        library_imports |= _imports(path.read_text(encoding="utf-8"))
    modules = _third_party(chapter_imports | library_imports)
    assert {"myst_nb", "ipywidgets", "numpy"} <= modules, modules  # the imports the extra exists for
    installable = _names(PROJECT["dependencies"]) | _names(PROJECT["optional-dependencies"]["notebooks"])
    providers = importlib.metadata.packages_distributions()
    found = {m: _distribution(m, providers) for m in modules}
    missing = {m: d for m, d in found.items() if d not in installable}
    assert not missing, f"imported but installed by neither the dependencies nor the notebooks extra: {missing}"


def test_the_extra_has_jupyter_and_keeps_the_widgets_extra():
    extras = PROJECT["optional-dependencies"]
    assert {"jupyterlab", "ipykernel", "jupyterlab-myst", "myst-nb", "ipywidgets"} <= _names(extras["notebooks"])
    assert extras["widgets"] == ["ipywidgets>=8"]


def test_requirements_pins_satisfy_the_extra():
    """The book is built and tested with requirements.txt: its pins must be allowed by the extra."""
    pins = dict(re.findall(r"^([A-Za-z0-9._-]+)==(\S+)$", (ROOT / "requirements.txt").read_text(), re.MULTILINE))
    pins = {name.lower().replace("_", "-"): version for name, version in pins.items()}
    for text in PROJECT["optional-dependencies"]["notebooks"]:
        requirement = Requirement(text)
        name = requirement.name.lower()
        assert name in pins, f"{text}: not pinned in requirements.txt"
        assert requirement.specifier.contains(pins[name]), f"{text}: requirements.txt pins {name}=={pins[name]}"


# --------------------------------------------------------------------------- one stdout per cell


def _cell(*texts):
    outputs = [nbformat.v4.new_output("stream", name="stdout", text=text) for text in texts]
    return nbformat.v4.new_code_cell(outputs=outputs)


def test_the_repeat_check_finds_myst_nbs_in_place_merge():
    """Planted: the outputs myst-nb's own merge leaves behind (its first block grows in place)."""
    cell = _cell("every_round 2.9\n", "on_elimination 2.8\n", "done\n")
    assert repeated_stdout_blocks(cell) == []
    coalesce_streams(cell.outputs)  # myst-nb 1.4's merge for the page, unpatched
    assert cell.outputs[0].text == "every_round 2.9\non_elimination 2.8\ndone\n"
    assert repeated_stdout_blocks(cell) == [1, 2]
    # a line printed twice within one block, or stderr, is no repeat
    assert repeated_stdout_blocks(_cell("n = 1\nn = 1\n", "n = 2\n")) == []


@needs_build
def test_no_downloaded_notebook_repeats_a_stdout_block():
    downloads = sorted((HTML / "_sources").rglob("*.ipynb"))
    assert len(downloads) >= 8, downloads
    repeats = {
        str(p.relative_to(HTML)): found
        for p in downloads
        if (found := _notebook_repeats(nbformat.read(p, as_version=4)))
    }
    assert not repeats, f"downloaded notebooks repeat printed lines (rebuild after _ext changes?): {repeats}"


# --------------------------------------------------------------------------- the reader's check


def _download(page: str) -> Path:
    """The .ipynb that the page's download menu links to."""
    html = (HTML / f"{page}.html").read_text(encoding="utf-8")
    link = re.search(r'href="([^"]+\.ipynb)"', html)
    assert link, f"{page}.html offers no .ipynb download"
    return (HTML / page).parent.joinpath(link.group(1)).resolve()


def _commands(note: str) -> list[str]:
    return re.findall(r"`([^`]+)`", note)


def _reader_env(venv: Path) -> dict:
    """A shell with the venv activated, and none of this test run's Jupyter or Python settings (pip's stay:
    they say how to reach the package index)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "IPYTHON", "PYTHON", "VIRTUAL_ENV"))}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    return env


def _run(argv, cwd, env, timeout, what):
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{what} failed ({argv}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout + done.stderr


@needs_build
@pytest.mark.skipif(
    not os.environ.get("DOWNLOAD_CHECK"),
    reason="the downloaded-notebook check (fresh venv, install, execute: a few minutes) runs "
    "with DOWNLOAD_CHECK=1 (CI does)",
)
def test_a_downloaded_chapter_runs_as_its_first_cell_says(tmp_path):
    download = _download(CHAPTER)
    nb = nbformat.read(download, as_version=4)
    assert not _notebook_repeats(nb), _notebook_repeats(nb)
    note = nb.cells[0]
    assert note.metadata.get("tags") == ["download-note"], note.source[:200]
    commands = _commands(note.source)
    installs = [c for c in commands if c.startswith("pip install ") and "./[" in c]
    assert len(installs) == 1 and "jupyter lab" in commands, commands
    argv = shlex.split(installs[0])

    clone = tmp_path / "repository"
    shutil.copytree(ROOT, clone, ignore=NOT_IN_A_CLONE)
    reader = tmp_path / "downloads"  # where the reader saved the notebook, outside the repository
    reader.mkdir()
    shutil.copy(download, reader / download.name)
    venv = tmp_path / "venv"
    env = _reader_env(venv)
    constraints = tmp_path / "pins.txt"
    pins = re.findall(r"^[A-Za-z0-9._-]+==\S+$", (ROOT / "requirements.txt").read_text(), re.MULTILINE)
    constraints.write_text("\n".join(pins) + "\n")

    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    made = time.monotonic()
    _run(
        argv,
        clone,
        env | {"PIP_CONSTRAINT": str(constraints), "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
        1800,
        "the first cell's install",
    )
    installed = time.monotonic()
    # `jupyter lab` is there, with jupyterlab-myst enabled, and python3 is the venv's own kernel.
    _run(["jupyter", "lab", "--version"], reader, env, 120, "jupyter lab")
    extensions = _run(["jupyter", "labextension", "list"], reader, env, 120, "jupyter labextension list")
    assert re.search(r"jupyterlab-myst v\S+ (\x1b\[\d+m)?enabled", extensions), extensions
    kernels = _run(["jupyter", "kernelspec", "list"], reader, env, 120, "jupyter kernelspec list")
    assert re.search(rf"python3\s+{re.escape(str(venv))}/", kernels), kernels
    _run(
        [
            "jupyter",
            "nbconvert",
            "--to",
            "notebook",
            "--execute",
            "--ExecutePreprocessor.timeout=600",
            "--output",
            "executed.ipynb",
            download.name,
        ],
        reader,
        env,
        1200,
        "executing the notebook",
    )
    executed_at = time.monotonic()
    print(
        f"\n{CHAPTER}.ipynb: venv {made - started:.1f} s, install {installed - made:.1f} s, "
        f"execute {executed_at - installed:.1f} s"
    )

    ran = nbformat.read(reader / "executed.ipynb", as_version=4)
    code = [c for c in ran.cells if c.cell_type == "code" and c.source.strip()]
    assert len(code) > 20 and all(c.execution_count for c in code), "not every code cell ran"
    errors = [o for c in code for o in c.outputs if o.output_type == "error"]
    assert not errors, errors[0]
    assert not _notebook_repeats(ran), _notebook_repeats(ran)
