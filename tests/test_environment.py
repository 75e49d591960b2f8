"""The environment `pip install -r requirements.txt` makes (`make`, CI, the README's steps by hand; issue 25).

The editable install of the project (`-e .`) is one .pth file that puts the repository root on
``sys.path``, because pyproject.toml declares the root as the packages' parent (``package-dir``).
So the course tools run from any folder of the repository (`python -m booktools` from book/ said
"No module named booktools"), and setuptools has no reason for its ten-line "Editable
installation" warning, which it prints for the meta-path finder it otherwise installs. The wheel
still holds onlinelib only (tests/test_package.py).
"""

import importlib.metadata
import site
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _booktools_help(folder: Path, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *flags, "-m", "booktools", "--help"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_course_tools_run_from_any_folder_of_the_repository():
    for folder in (ROOT / "book", ROOT / "book" / "assignments", ROOT / "tests", ROOT / "onlinelib"):
        done = _booktools_help(folder)
        assert done.returncode == 0 and done.stdout.startswith("usage: python -m booktools COMMAND"), (
            folder,
            done.stderr[-2000:],
        )
    # the control: without site-packages' .pth files (-S), book/ does not have them
    done = _booktools_help(ROOT / "book", "-S")
    assert done.returncode != 0 and "No module named booktools" in done.stderr, done.stderr[-2000:]


def test_the_editable_install_is_the_repository_on_sys_path():
    """One .pth holding the repository root, and no meta-path finder (the mode that warns)."""
    # the installed one: the repository's onlinelib_book.egg-info comes first on this sys.path
    [installed] = importlib.metadata.distributions(name="onlinelib-book", path=site.getsitepackages())
    files = installed.files
    pth = [f for f in files if f.name.endswith(".pth")]
    assert [Path(f.locate().read_text(encoding="utf-8").strip()).resolve() for f in pth] == [ROOT.resolve()], pth
    assert not [f for f in files if f.name.endswith("_finder.py")], files
