"""The README's `make book` and `make test`, as newcomers found them.

Issue 17: a library change must reach the pages. Sphinx re-reads only the pages whose source
changed, so before the fix a second `make book` after a change in onlinelib/ executed nothing,
said "build succeeded" and kept the old outputs. Here a one-page book, with the repository's
Makefile and a stand-in onlinelib/, is built three times: the page prints a number that lives in
the library.

Issue 25: the wrong Python stops make at once with one line that says what to do, a venv made by
another Python is made again (not kept failing), the install says what it does before its quiet
minutes, and the build's output keeps its progress, warnings and errors but not the two parser
configurations myst and myst-nb print. The interpreters here are stand-ins: the real one, told to
report another version, whose `-m venv` makes a venv that only logs what pip is asked.

Issue 28: a change to one chapter's own module (onlinelib/chapters/<name>.py) re-runs only the
pages that use it, and re-reads the page that quotes their glued values (_ext/chapter_modules.py),
on a stand-in book of two chapters and an errata page; with the extension left out, the control
shows the stale page the test would catch.
"""

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from examples import MYST_HEADER

ROOT = Path(__file__).resolve().parents[1]
PAGE = (
    MYST_HEADER
    + """
# A page whose output comes from the library

```{code-cell} ipython3
import runpy
print("value is", runpy.run_path("../onlinelib/value.py")["VALUE"])
```
"""
)


needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _make(repo: Path, goal: str, environment: dict | None = None, **variables) -> subprocess.CompletedProcess:
    """`make goal NAME=value ...` in ``repo``, as from a shell: not as a sub-make of the `make test` running
    this (whose variables, VENV=... in CI, would pass down in MAKEFLAGS); ``environment`` adds variables."""
    command = ["make", goal, *(f"{name}={value}" for name, value in variables.items())]
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}
    env.update(environment or {})
    return subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, timeout=300, check=False)


def _make_book(book: Path, venv: Path) -> subprocess.CompletedProcess:
    # The kernels import the stand-in onlinelib/ of a book that has one, not the installed one.
    environment = {"PYTHONPATH": str(book)} if (book / "onlinelib" / "__init__.py").exists() else None
    done = _make(book, "book", environment, VENV=venv, PYTHON=sys.executable)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def _one_page_book(folder: Path, page: str) -> tuple[Path, Path]:
    """A repository with the real Makefile and one page, and a venv of this test's own tools, installed."""
    book = folder / "book"
    (book / "book").mkdir(parents=True)
    (book / "onlinelib").mkdir()
    (book / "_ext").mkdir()
    shutil.copy(ROOT / "Makefile", book / "Makefile")
    for name in ("requirements.txt", "pyproject.toml"):
        (book / name).write_text("")
    (book / "_config.yml").write_text(
        "title: Stale test\nexecute:\n  execute_notebooks: force\n"
        "only_build_toc_files: true\nexclude_patterns: [_build, venv]\n"
    )
    (book / "_toc.yml").write_text("format: jb-book\nroot: book/page\n")
    (book / "book" / "page.md").write_text(page)
    venv = folder / "venv"
    (venv / "bin").mkdir(parents=True)
    for tool in ("python", "jupyter-book", "pytest"):
        (venv / "bin" / tool).symlink_to(Path(sys.executable).with_name(tool))
    (venv / ".installed").touch()
    return book, venv


def _page(book: Path) -> str:
    return (book / "_build" / "html" / "book" / "page.html").read_text(encoding="utf-8")


def _later(path: Path, seconds: float):
    """Move a file's modification time forward (a change 'after' the build, whatever the clock's grain)."""
    t = time.time() + seconds
    os.utime(path, (t, t))


@needs_make
def test_make_book_reruns_every_chapter_after_a_library_change(tmp_path):
    book, venv = _one_page_book(tmp_path, PAGE)
    (book / "onlinelib" / "value.py").write_text("VALUE = 1111\n")
    (book / "onlinelib" / "__pycache__").mkdir()  # as the first build's imports leave it

    _make_book(book, venv)
    assert "value is 1111" in _page(book)

    # Only caches changed (bytecode, numba's index and data, as `make test` writes them): nothing runs again.
    for name in ("value.cpython-312.pyc", "value.f-1.py312.nbi", "value.f-1.py312.1.nbc"):
        (book / "onlinelib" / "__pycache__" / name).write_bytes(b"cache")
        _later(book / "onlinelib" / "__pycache__" / name, 5)
    _later(book / "onlinelib" / "__pycache__", 5)
    again = _make_book(book, venv)
    assert "every chapter runs again" not in again.stdout
    assert "value is 1111" in _page(book)

    (book / "onlinelib" / "value.py").write_text("VALUE = 2222\n")  # the page's source is unchanged
    _later(book / "onlinelib" / "value.py", 5)
    changed = _make_book(book, venv)
    assert "value is 2222" in _page(book) and "value is 1111" not in _page(book)
    assert "onlinelib, _ext or the requirements changed since the last build" in changed.stdout


CHAPTER_PAGE = (
    MYST_HEADER
    + """
# Chapter {name}

```{{code-cell}} ipython3
import time
from myst_nb import glue
import onlinelib
from onlinelib.chapters import {name} as chapter
print("{name}: chapter value", chapter.VALUE, "library value", onlinelib.VALUE, "run", time.time_ns())
glue("{name}_value", chapter.VALUE, display=False)
```
"""
)
ERRATA_PAGE = MYST_HEADER + "\n# Errata\n\nChapter a's value is {glue:text}`a.md::a_value:d`.\n"


def _two_chapter_book(folder: Path, extension: bool = True) -> tuple[Path, Path]:
    """The stand-in book with chapters a and b, each with its module in onlinelib/chapters/, and an
    errata page pasting a value glued by chapter a; ``extension``: with _ext/chapter_modules.py."""
    book, venv = _one_page_book(folder, CHAPTER_PAGE.format(name="a"))
    (book / "book" / "page.md").rename(book / "book" / "a.md")
    (book / "book" / "b.md").write_text(CHAPTER_PAGE.format(name="b"))
    (book / "book" / "errata.md").write_text(ERRATA_PAGE)
    (book / "_toc.yml").write_text("format: jb-book\nroot: book/a\nchapters:\n- file: book/b\n- file: book/errata\n")
    if extension:
        shutil.copy(ROOT / "_ext" / "chapter_modules.py", book / "_ext" / "chapter_modules.py")
        with (book / "_config.yml").open("a") as config:
            config.write("sphinx:\n  local_extensions:\n    chapter_modules: _ext\n")
    (book / "onlinelib" / "chapters").mkdir()
    (book / "onlinelib" / "__init__.py").write_text("VALUE = 10\n")
    (book / "onlinelib" / "chapters" / "__init__.py").write_text("")
    for name in "ab":
        (book / "onlinelib" / "chapters" / f"{name}.py").write_text(f"VALUE = {ord(name)}1\n")  # a: 971, b: 981
    return book, venv


def _shown(book: Path, page: str) -> str:
    """What a built page shows: its output line (with the run's id) or its sentence."""
    html = re.sub(r"<[^>]+>", "", (book / "_build" / "html" / "book" / f"{page}.html").read_text(encoding="utf-8"))
    return re.search(r"(\w: chapter value .*? run \d+|Chapter a.s value is \S+)", html).group(1)


def _change(path: Path, text: str) -> None:
    path.write_text(text)
    _later(path, 5)


@needs_make
def test_a_chapter_module_change_reruns_only_the_pages_that_use_it(tmp_path):
    book, venv = _two_chapter_book(tmp_path)
    _make_book(book, venv)
    a1, b1 = _shown(book, "a"), _shown(book, "b")
    assert a1.startswith("a: chapter value 971 library value 10") and b1.startswith("b: chapter value 981")
    assert _shown(book, "errata") == "Chapter a’s value is 971."

    # Chapter a's module: chapter a runs again and the errata page shows its new value; b does not run.
    _change(book / "onlinelib" / "chapters" / "a.py", "VALUE = 972\n")
    changed = _make_book(book, venv)
    assert "every chapter runs again" not in changed.stdout
    assert _shown(book, "a").startswith("a: chapter value 972")
    assert _shown(book, "b") == b1  # the same run: not executed again
    assert _shown(book, "errata") == "Chapter a’s value is 972."

    # The rest of the library: every chapter runs again.
    _change(book / "onlinelib" / "__init__.py", "VALUE = 20\n")
    everything = _make_book(book, venv)
    assert "every chapter runs again" in everything.stdout
    assert _shown(book, "a").startswith("a: chapter value 972 library value 20")
    assert _shown(book, "b").startswith("b: chapter value 981 library value 20")

    # A change to chapter a's page alone (not its module): the errata page shows its new value too.
    page = book / "book" / "a.md"
    _change(page, page.read_text().replace("chapter.VALUE, display", "chapter.VALUE + 1, display"))
    _make_book(book, venv)
    assert _shown(book, "errata") == "Chapter a’s value is 973."


@needs_make
def test_without_the_extension_a_chapter_module_change_would_leave_stale_pages(tmp_path):
    """The control: the same change with _ext/chapter_modules.py left out runs nothing again."""
    book, venv = _two_chapter_book(tmp_path, extension=False)
    _make_book(book, venv)
    a1 = _shown(book, "a")
    _change(book / "onlinelib" / "chapters" / "a.py", "VALUE = 972\n")
    _make_book(book, venv)
    assert _shown(book, "a") == a1 and _shown(book, "errata") == "Chapter a’s value is 971."


@needs_make
def test_make_book_drops_the_parser_configurations_and_keeps_progress_and_warnings(tmp_path):
    book, venv = _one_page_book(tmp_path, MYST_HEADER + "\n# A page\n\nSee {ref}`no-such-label`.\n")
    done = _make_book(book, venv)
    assert "MdParserConfig(" not in done.stdout + done.stderr and "NbParserConfig(" not in done.stdout + done.stderr
    assert "reading sources" in done.stdout and "build succeeded, 1 warning" in done.stdout
    assert "WARNING: undefined label: 'no-such-label'" in done.stderr
    # the control: jupyter-book itself prints both configurations, on every build
    raw = subprocess.run(
        [str(venv / "bin" / "jupyter-book"), "build", "."],
        cwd=book,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert "MdParserConfig(" in raw.stdout and "NbParserConfig(" in raw.stdout, raw.stdout[-3000:]


# -- the interpreter ------------------------------------------------------------------------------------

STAND_IN = """#!/bin/sh
# A stand-in for Python {version}: the real interpreter, whose sitecustomize reports {version}.
# `-m venv DIR` makes a stand-in venv: its python is this script, its pip logs its arguments.
if [ "$1" = -m ] && [ "$2" = venv ]; then
  mkdir -p "$3/bin" && echo "version = {version}" > "$3/pyvenv.cfg" && cp "$0" "$3/bin/python" || exit 1
  printf '#!/bin/sh\\necho "$*" >> "%s/pip.log"\\ncase "$*" in *" -r "*) echo "Obtaining file:///repo (from -r requirements.txt (line 7))"; echo "Collecting alpha==1.0"; echo "  Using cached alpha"; echo "Processing /wheels/beta-2.0-py3-none-any.whl (from -r requirements.txt)";; esac\\n' "$3" > "$3/bin/pip" && chmod +x "$3/bin/pip"
  exit
fi
PYTHONPATH={site} exec {real} "$@"
"""


def _stand_in(folder: Path, version: str) -> Path:
    """An interpreter that says it is Python ``version`` (sys.version, sys.version_info) at its own path."""
    folder.mkdir(parents=True)
    path = folder / "python"
    numbers = tuple(int(n) for n in version.split("."))
    (folder / "sitecustomize.py").write_text(
        f"import sys\nsys.version_info = {numbers + ('final', 0)!r}\nsys.version = {version + ' (stand-in)'!r}\n"
        f"sys.executable = {str(path)!r}\n"
    )
    path.write_text(STAND_IN.format(version=version, site=folder, real=sys.executable))
    path.chmod(0o755)
    return path


def _minor(python: Path) -> str:
    return subprocess.run(
        [str(python), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def _repository(folder: Path) -> Path:
    repo = folder / "repo"
    repo.mkdir()
    shutil.copy(ROOT / "Makefile", repo / "Makefile")
    (repo / "requirements.txt").write_text("# pinned\n-e .\nnumpy==2.4.6\n    # via onlinelib-book\nscipy==1.17.1\n")
    (repo / "binder").mkdir()
    for name in ("pyproject.toml", "requirements.in", "binder/requirements.in"):
        (repo / name).write_text("")
    return repo


def test_the_stand_ins_report_their_version(tmp_path):
    assert _minor(_stand_in(tmp_path / "a", "3.10.12")) == "3.10"
    assert _minor(_stand_in(tmp_path / "b", "3.12.1")) == "3.12"


@needs_make
@pytest.mark.parametrize("goal", ["book", "test", "requirements"])
def test_an_old_python_stops_make_at_once_with_one_line(tmp_path, goal):
    repo, venv = _repository(tmp_path), tmp_path / "venv"
    old = _stand_in(tmp_path / "python3.10", "3.10.12")
    done = _make(repo, goal, PYTHON=old, VENV=venv)
    assert done.returncode != 0 and done.stdout == "", done.stdout
    ours = [line for line in done.stderr.splitlines() if not line.startswith("make: ***")]
    assert ours == [f"this book needs Python >= 3.11; found 3.10.12 at {old}; run e.g. `make {goal} PYTHON=python3.11`"]
    assert not venv.exists() and not (repo / "_build").exists()


@needs_make
def test_a_missing_python_is_named(tmp_path):
    repo = _repository(tmp_path)
    done = _make(repo, "book", PYTHON=tmp_path / "python3.11", VENV=tmp_path / "venv")
    assert done.returncode != 0
    assert (
        f"this book needs Python >= 3.11; found no {tmp_path / 'python3.11'} command; "
        "run e.g. `make book PYTHON=python3.11`"
    ) in done.stderr.splitlines()


@needs_make
@pytest.mark.parametrize("made_by, finished", [("3.10.12", False), ("3.12.1", True), ("broken", False)])
def test_a_venv_of_another_python_is_made_again(tmp_path, made_by, finished):
    """A 3.10 venv from an attempt that failed in pip, a finished 3.12 one, and one whose Python is gone."""
    repo, venv = _repository(tmp_path), tmp_path / "venv"
    if made_by == "broken":
        subprocess.run([str(_stand_in(tmp_path / "gone", "3.11.1")), "-m", "venv", str(venv)], check=True)
        (venv / "bin" / "python").write_text("#!/bin/sh\nexit 127\n")
        what = "a Python that no longer runs"
    else:
        subprocess.run([str(_stand_in(tmp_path / "other", made_by)), "-m", "venv", str(venv)], check=True)
        what = "Python " + ".".join(made_by.split(".")[:2])
    if finished:
        (venv / ".installed").touch()
    python = _stand_in(tmp_path / "python3.11", "3.11.7")
    target = f"{venv}/.installed"

    done = _make(repo, target, PYTHON=python, VENV=venv)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == [
        f"{venv} has {what}, not 3.11 ({python}): making it again",
        f"installing 3 packages into {venv} (about 2 minutes the first time)",
        "  [1/3] onlinelib-book (this repository, editable)",  # the progress: a numbered line per pin
        "  [2/3] alpha==1.0",
        "  [3/3] beta-2.0-py3-none-any.whl",
    ]
    assert _minor(venv / "bin" / "python") == "3.11" and (venv / ".installed").exists()
    log = (venv / "pip.log").read_text().splitlines()
    assert [re.sub(r"pip==\S+", "pip==X", line) for line in log] == [
        "install --quiet --disable-pip-version-check pip==X",
        "install --disable-pip-version-check --progress-bar off -r requirements.txt",
    ]
    # made once: the next run keeps it
    again = _make(repo, target, PYTHON=python, VENV=venv)
    assert again.returncode == 0 and "making it again" not in again.stdout and "installing" not in again.stdout
    assert (venv / "pip.log").read_text().splitlines() == log


@needs_make
def test_a_folder_that_is_not_a_venv_is_never_removed(tmp_path):
    repo, venv = _repository(tmp_path), tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    shutil.copy(_stand_in(tmp_path / "other", "3.10.12"), venv / "bin" / "python")
    (venv / "notes.txt").write_text("mine")
    done = _make(repo, "book", PYTHON=_stand_in(tmp_path / "python3.11", "3.11.7"), VENV=venv)
    assert done.returncode != 0
    assert f"{venv} is not a virtual environment: remove it, or pass VENV=..." in done.stderr.splitlines()
    assert (venv / "notes.txt").read_text() == "mine"
