"""onlinelib as a package a student can install without picking up a stranger's (issue 17).

"onlinelib" on PyPI is an unrelated project, so the distribution is named ``onlinelib-book``
(pyproject.toml) while the import name stays ``onlinelib``. The fast tests check the names and
the single version source. With ``PACKAGE_CHECK=1`` (CI) the wheel and the sdist are built
with ``python -m build``, their contents checked, and the wheel installed into a clean venv,
where onlinelib is imported from outside the repository and runs a learner.
"""

import importlib.metadata
import os
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import numpy as np
import pytest

import onlinelib

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
DISTRIBUTION = "onlinelib-book"
# Every module of the package, subpackages (chapters/, learning_curves/) included.
MODULES = sorted(p.relative_to(ROOT / "onlinelib").as_posix() for p in (ROOT / "onlinelib").rglob("*.py"))


def test_the_distribution_is_not_the_name_taken_on_pypi():
    assert PROJECT["name"] == DISTRIBUTION != "onlinelib"


def test_one_version_source():
    """setuptools-scm gives the version (pyproject.toml, from the git tag); onlinelib.__version__ is the
    installed metadata's."""
    assert PROJECT["dynamic"] == ["version"] and "version" not in PROJECT
    assert importlib.metadata.version(DISTRIBUTION) == onlinelib.__version__


def test_the_readme_installs_by_a_path():
    """No `pip install onlinelib` anywhere a reader copies commands from; a path install instead."""
    for page in (ROOT / "README.md", ROOT / "book" / "intro.md"):
        text = page.read_text(encoding="utf-8")
        assert "pip install onlinelib\n" not in text and "pip install onlinelib " not in text, page
    for page in (ROOT / "README.md", ROOT / "book" / "intro.md"):
        assert 'pip install "./[widgets]"' in page.read_text(encoding="utf-8").replace('".[widgets]"', '"./[widgets]"')


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    # no --sdist/--wheel: the wheel is built from the unpacked sdist (so the sdist must be complete),
    # and nothing is written into the repository but the egg-info the editable install already has
    done = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


needs_check = pytest.mark.skipif(
    not os.environ.get("PACKAGE_CHECK"), reason="building and installing the wheel runs with PACKAGE_CHECK=1 (CI does)"
)


@needs_check
def test_the_wheel_and_sdist_hold_the_library(dist):
    version = onlinelib.__version__
    [wheel] = dist.glob(f"onlinelib_book-{version}-py3-none-any.whl")
    [sdist] = dist.glob(f"onlinelib_book-{version}.tar.gz")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(f"onlinelib_book-{version}.dist-info/METADATA").decode()
    assert sorted(n.split("/", 1)[1] for n in names if n.startswith("onlinelib/")) == MODULES
    assert not [n for n in names if n.startswith(("tests/", "book/", "booktools/"))], names
    assert f"Name: {DISTRIBUTION}\n" in metadata and f"Version: {version}\n" in metadata
    assert "License-Expression: MIT\n" in metadata
    assert f"onlinelib_book-{version}.dist-info/licenses/LICENSE" in names
    for requirement in PROJECT["dependencies"]:
        assert f"Requires-Dist: {requirement}" in metadata
    with tarfile.open(sdist) as archive:
        members = {m.name.split("/", 1)[1] for m in archive.getmembers() if "/" in m.name}
    assert {"pyproject.toml", "README.md", "LICENSE"} <= members
    assert {f"onlinelib/{m}" for m in MODULES} <= members


@needs_check
def test_the_wheel_installs_and_runs_in_a_clean_venv(dist, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    [wheel] = dist.glob("*.whl")
    done = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "--quiet", str(wheel)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    script = (
        "import importlib.metadata, numpy as np, onlinelib as ol\n"
        "C, xs = ol.thresholds(8), [7, 0, 3, 5, 4]\n"
        "trace = ol.run(ol.Halving(C), xs, np.where(C.table[4, xs], 1, -1))\n"
        "print(ol.__file__, importlib.metadata.version('onlinelib-book'), trace.n_mistakes)\n"
    )
    ran = subprocess.run(
        [str(venv / "bin" / "python"), "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    where, version, mistakes = ran.stdout.split()
    assert Path(where).is_relative_to(venv), where  # the wheel's copy, not the repository's
    assert version == onlinelib.__version__
    C, xs = onlinelib.thresholds(8), [7, 0, 3, 5, 4]
    expected = onlinelib.run(onlinelib.Halving(C), xs, np.where(C.table[4, xs], 1, -1)).n_mistakes
    assert int(mistakes) == expected


HEAVY_MODULES = ("numba", "scipy.stats", "scipy.sparse", "scipy.special")


def test_import_onlinelib_loads_no_heavy_module():
    """`import onlinelib` stays light (issues 18 and 26): numba loads at the first compiled score,
    scipy.stats, scipy.sparse and scipy.special in the functions that need them (a dense run needs
    none of the scipy ones). Measured: 1.06 s -> 0.35 s per `python -c "import onlinelib"` (issue 18)."""
    script = (
        "import sys, onlinelib as ol\n"
        f"heavy = {HEAVY_MODULES!r}\n"
        "print(*[m in sys.modules for m in heavy])\n"
        "ol.run(ol.Perceptron(3), [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], [1, -1])\n"
        "ol.run(ol.Winnow2(3), [[1, 0, 0], [0, 1, 0]], [1, -1])\n"
        "import onlinelib.linear as lin\n"
        "print(*[m in sys.modules for m in heavy], lin._kernels is sys.modules['onlinelib._kernels'])\n"
    )
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr[-2000:]
    after_import, after_runs = ran.stdout.splitlines()
    assert after_import.split() == ["False"] * 4, dict(zip(HEAVY_MODULES, after_import.split(), strict=True))
    assert after_runs.split() == ["True", "False", "False", "False", "True"], after_runs
