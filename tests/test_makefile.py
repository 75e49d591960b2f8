"""The README's `make book`, as a newcomer found it (issue 17): a library change must reach the pages.

Sphinx re-reads only the pages whose source changed, so before the fix a second `make book`
after a change in onlinelib/ executed nothing, said "build succeeded" and kept the old outputs.
Here a one-page book, with the repository's Makefile and a stand-in onlinelib/, is built three
times: the page prints a number that lives in the library.
"""
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from examples import MYST_HEADER

ROOT = Path(__file__).resolve().parents[1]
PAGE = MYST_HEADER + """
# A page whose output comes from the library

```{code-cell} ipython3
import runpy
print("value is", runpy.run_path("../onlinelib/value.py")["VALUE"])
```
"""


def _make_book(book: Path, venv: Path) -> subprocess.CompletedProcess:
    done = subprocess.run(["make", "book", f"VENV={venv}"], cwd=book, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def _page(book: Path) -> str:
    return (book / "_build" / "html" / "book" / "page.html").read_text(encoding="utf-8")


def _later(path: Path, seconds: float):
    """Move a file's modification time forward (a change 'after' the build, whatever the clock's grain)."""
    t = time.time() + seconds
    os.utime(path, (t, t))


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_book_reruns_every_chapter_after_a_library_change(tmp_path):
    book = tmp_path / "book"
    (book / "book").mkdir(parents=True)
    (book / "onlinelib").mkdir()
    (book / "_ext").mkdir()
    shutil.copy(ROOT / "Makefile", book / "Makefile")
    for name in ("requirements.txt", "pyproject.toml"):
        (book / name).write_text("")
    (book / "_config.yml").write_text("title: Stale test\nexecute:\n  execute_notebooks: force\n"
                                      "only_build_toc_files: true\nexclude_patterns: [_build, venv]\n")
    (book / "_toc.yml").write_text("format: jb-book\nroot: book/page\n")
    (book / "book" / "page.md").write_text(PAGE)
    (book / "onlinelib" / "value.py").write_text("VALUE = 1111\n")
    (book / "onlinelib" / "__pycache__").mkdir()  # as the first build's imports leave it
    # The Makefile's venv: this test's own environment, already installed.
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    for tool in ("python", "jupyter-book", "pytest"):
        (venv / "bin" / tool).symlink_to(Path(sys.executable).with_name(tool))
    (venv / ".installed").touch()

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
