"""The habits of the code base (issue 25, item 9): lint, format and spelling, all clean.

From the repository root, with the settings of ``pyproject.toml`` (``[tool.ruff]``,
``[tool.codespell]``) and the versions ``requirements.txt`` pins:

* ``ruff check .`` reports nothing: pycodestyle, pyflakes, bugbear (``zip()`` without ``strict=``,
  closures over loop variables, ...) and import order;
* ``ruff format --check .`` would change no file;
* ``codespell`` finds no misspelling in the prose or the code.

``.pre-commit-config.yaml`` runs the same three before a commit. Each tool is found next to the
interpreter running the tests (the virtual environment's bin/) or on PATH; its tests are skipped,
with the reason, when it is missing. Controls give each tool a file with known faults and require
it to report them, with the project's settings, so a check that checks nothing (a wrong flag, a
configuration that is not read, an exclusion that swallows the code base) cannot pass.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "pyproject.toml"

# One fault of each rule family the configuration selects: I001 (imports out of order), F401
# (unused imports), E711 (comparison to None), W291 (trailing whitespace), B905 (zip() without
# strict=) and B023 (a closure over a loop variable). The `\n` escape writes the trailing spaces.
FAULTY_PYTHON = """\
import sys
import os


def pairs(rows, labels):
    if rows == None:
        return []  \n    return list(zip(rows, labels))


def closures(items):
    out = []
    for item in items:
        out.append(lambda: item)
    return out
"""
FAULTY_CODES = ("I001", "F401", "E711", "W291", "B905", "B023")

MISSPELLED = "teh"  # codespell:ignore (the control below needs one misspelling)

# 104 characters: formatted as it stands at the project's line length (120), split at ruff's default (88).
LONG_LINE = "value = some_function_name(argument_one, argument_two, argument_three, argument_four, argument_five)\n"


def _tool(name: str) -> str | None:
    """The executable ``name``: next to this interpreter (its venv's bin/), else on PATH."""
    beside = Path(sys.executable).parent / name
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which(name)


def _require(name: str) -> str:
    path = _tool(name)
    if path is None:
        pytest.skip(
            f"{name} is not installed (pip install -r requirements.txt): neither next to {sys.executable} nor on PATH"
        )
    return path


def _run(command: list[str], cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300)


def _ruff(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    # --no-cache: a test run writes nothing into the repository
    return _run([_require("ruff"), *args, "--no-cache"], cwd)


def _pinned(package: str) -> str:
    pins = re.findall(rf"^{re.escape(package)}==(\S+)", (ROOT / "requirements.txt").read_text(encoding="utf-8"), re.M)
    assert len(pins) == 1, f"requirements.txt must pin {package} once, found {pins}"
    return pins[0]


# --------------------------------------------------------------------------- the code base


def test_ruff_check_reports_nothing():
    done = _ruff("check", "--quiet", "--output-format", "concise", ".")
    assert done.returncode == 0 and not done.stdout.strip(), f"ruff check . found:\n{done.stdout}{done.stderr}"


def test_ruff_format_would_change_nothing():
    done = _ruff("format", "--check", "--quiet", "--output-format", "concise", ".")
    assert done.returncode == 0 and not done.stdout.strip(), (
        f"ruff format --check . would reformat (run `ruff format .`):\n{done.stdout}{done.stderr}"
    )


def test_codespell_reports_nothing():
    done = _run([_require("codespell")])
    assert done.returncode == 0 and not done.stdout.strip(), f"codespell found:\n{done.stdout}{done.stderr}"


def test_the_tools_are_the_pinned_versions():
    # another version of ruff formats and lints differently: the checks above hold for the pins
    ruff = _ruff("--version").stdout.split()
    assert ruff[-1] == _pinned("ruff"), f"{_tool('ruff')} is {' '.join(ruff)}; requirements.txt pins {_pinned('ruff')}"
    codespell = _run([_require("codespell"), "--version"]).stdout.strip()
    assert codespell == _pinned("codespell"), (
        f"{_tool('codespell')} is {codespell}; requirements.txt pins {_pinned('codespell')}"
    )


def test_ruff_sees_the_code_base_and_not_the_excluded_folders():
    # CONTROL for the exclusions: they must not swallow the code base, and must keep out what they name
    done = _ruff("check", "--show-files", ".")
    assert done.returncode == 0, done.stderr
    files = {Path(line.strip()).relative_to(ROOT).as_posix() for line in done.stdout.splitlines() if line.strip()}
    python = {f for f in files if f.endswith(".py")}
    for expected in (
        "onlinelib/grading/compare.py",
        "booktools/grading/cli.py",
        "_ext/notebook_links.py",
        "conftest.py",
        "benchmarks/timing.py",
        "tests/test_code_style.py",
        "book/assignments/lecturer/halving_hidden.py",
    ):
        assert expected in python, f"ruff does not check {expected}"
    assert len(python) >= 100, f"ruff checks only {len(python)} Python files"
    for excluded in ("tests/submissions/", "docs/grading-example/", "_build/", ".venv/", "node_modules/"):
        assert not any(f.startswith(excluded) for f in files), f"ruff checks files under {excluded}"


# --------------------------------------------------------------------------- controls


def test_control_ruff_check_reports_each_kind_of_fault(tmp_path):
    bad = tmp_path / "faulty.py"
    bad.write_text(FAULTY_PYTHON, encoding="utf-8")
    done = _ruff("check", "--config", str(CONFIG), "--output-format", "concise", str(bad), cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    for code in FAULTY_CODES:
        assert f" {code} " in done.stdout, f"ruff check did not report {code}:\n{done.stdout}"
    # and the same file, corrected, passes
    bad.write_text(
        "def pairs(rows, labels):\n"
        "    if rows is None:\n"
        "        return []\n"
        "    return list(zip(rows, labels, strict=True))\n",
        encoding="utf-8",
    )
    done = _ruff("check", "--config", str(CONFIG), "--quiet", str(bad), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_control_ruff_format_reports_an_unformatted_file_and_reads_the_line_length(tmp_path):
    bad = tmp_path / "unformatted.py"
    bad.write_text("x=[1,2 ,3]\n", encoding="utf-8")
    done = _ruff("format", "--check", "--config", str(CONFIG), str(bad), cwd=tmp_path)
    assert done.returncode == 1 and "unformatted.py" in done.stdout, done.stdout + done.stderr
    long = tmp_path / "long.py"
    long.write_text(LONG_LINE, encoding="utf-8")
    assert 88 < len(LONG_LINE) - 1 <= 120
    done = _ruff("format", "--check", "--config", str(CONFIG), str(long), cwd=tmp_path)
    assert done.returncode == 0, f"a {len(LONG_LINE) - 1}-character line at line-length 120:\n{done.stdout}"
    done = _ruff("format", "--check", "--isolated", str(long), cwd=tmp_path)
    assert done.returncode == 1, f"ruff's default line length (88) must split it:\n{done.stdout}{done.stderr}"


def test_control_codespell_reports_a_misspelling_and_reads_the_configuration(tmp_path):
    codespell = _require("codespell")
    bad = tmp_path / "bad.md"
    bad.write_text(f"The learner makes a mistake on {MISSPELLED} first round.\n", encoding="utf-8")
    done = _run([codespell, str(bad)])
    assert done.returncode != 0 and f"{MISSPELLED} ==> the" in done.stdout, done.stdout + done.stderr
    # the words of ignore-words-list pass when codespell runs from the root (its configuration)...
    words = tmp_path / "words.md"
    words.write_text("The rows are regraded; %whos lists the names.\n", encoding="utf-8")
    done = _run([codespell, str(words)])
    assert done.returncode == 0, f"pyproject.toml's [tool.codespell] was not read:\n{done.stdout}{done.stderr}"
    # ...and are misspellings without it
    done = _run([codespell, str(words)], cwd=tmp_path)
    assert done.returncode != 0 and "regraded" in done.stdout, done.stdout + done.stderr
