"""The course tooling's command line, ``python -m booktools COMMAND`` (issue 18), run as a lecturer runs it.

Each test starts the command in a fresh Python from the repository root, as the README and
the lecturer guide show it: the list of commands, every command's ``--help``, and the exit
status 2 with the list for a command that does not exist. A last test keeps the rule that
neither the tools nor the tests change ``sys.path`` or load our own code from a file path.
"""
import re
import subprocess
import sys
from pathlib import Path

import pytest

from booktools.__main__ import COMMANDS

ROOT = Path(__file__).resolve().parents[1]


def booktools(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "booktools", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def test_help_lists_every_command():
    result = booktools("--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: python -m booktools COMMAND")
    listed = re.findall(r"^  (\S+)  ", result.stdout, flags=re.MULTILINE)
    assert listed == list(COMMANDS) == ["grade", "student-edition", "pdf", "browser-check", "binder-check"]


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_command_has_help(command):
    result = booktools(command, "--help")
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.startswith(f"usage: python -m booktools {command} "), result.stdout[:300]
    assert "--help" in result.stdout


def test_grade_help_names_its_options():
    result = booktools("grade", "--help")
    assert result.returncode == 0, result.stderr
    for option in ("--assignment", "--out", "--timeout", "--jobs", "--unsafe-no-sandbox", "--write-public-checks"):
        assert option in result.stdout, option


def test_an_unknown_command_exits_2_with_the_list():
    result = booktools("grdae", "--assignment", "halving")
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith("booktools: unknown command 'grdae'")
    assert all(f"  {name}  " in result.stderr for name in COMMANDS), result.stderr


def test_no_tool_or_test_changes_the_import_path():
    """Tests import ``booktools.x`` and ``_ext.x``; tools import each other as ``booktools.x``.

    Two exceptions, both mechanisms of the grader: the sandboxed worker (``grade_worker.py``) puts
    the assignment's stubbed copy of onlinelib first on its own ``sys.path``, and the grader imports
    the lecturer's hidden-tests files from their folder (``grade.load_hidden``)."""
    allowed = {("booktools/grade_worker.py", "sys.path.insert"), ("booktools/grade.py", "spec_from_file_location")}
    pattern = re.compile(r"sys\.path\.(insert|append|extend)|sys\.path\s*\+?=|spec_from_file_location")
    files = [ROOT / "conftest.py", *sorted((ROOT / "booktools").glob("*.py")), *sorted((ROOT / "tests").rglob("*.py")),
             *sorted((ROOT / "_ext").glob("*.py"))]
    found = []
    for path in files:
        if path == Path(__file__).resolve():
            continue
        rel = path.relative_to(ROOT).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            match = pattern.search(line)
            if match and (rel, match.group(0)) not in allowed:
                found.append(f"{rel}:{number}: {line.strip()}")
    assert not found, "\n".join(found)
