"""The course tooling's command line, ``python -m booktools COMMAND`` (issue 18), run as a lecturer runs it.

Each test starts the command in a fresh Python from the repository root, as the README and
the lecturer guide show it: the list of commands, every command's ``--help``, and the exit
status 2 with the list for a command that does not exist. A test keeps the rule that
neither the tools nor the tests change ``sys.path`` or load our own code from a file path, and
the last ones feed bad input to the helpers every tool shares: the TOC reader
(``booktools.toc``) and the notebook test (``booktools.notebooks.is_myst_notebook``).
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from sphinx_external_toc.parsing import MalformedError

from booktools.__main__ import COMMANDS
from booktools.notebooks import is_myst_notebook
from booktools.toc import toc_entries, toc_sources
from examples import MYST_HEADER

ROOT = Path(__file__).resolve().parents[1]


def booktools(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "booktools", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def test_help_lists_every_command():
    result = booktools("--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: python -m booktools COMMAND")
    listed = re.findall(r"^  (\S+)  ", result.stdout, flags=re.MULTILINE)
    assert (
        listed
        == list(COMMANDS)
        == [
            "grade",
            "student-edition",
            "handout",
            "pdf",
            "browser-check",
            "binder-check",
            "similarity",
            "slides",
            "release",
            "lms",
            "new-assignment",
            "tolerances",
        ]
    )


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

    Two exceptions, both mechanisms of the grader: the sandboxed worker (``grading/worker.py``) puts
    the assignment's stubbed copy of onlinelib first on its own ``sys.path``, and the grader imports
    the lecturer's hidden-tests files from their folder (``hidden.load_hidden``)."""
    allowed = {
        ("booktools/grading/worker.py", "sys.path.insert"),
        ("booktools/grading/hidden.py", "spec_from_file_location"),
    }
    pattern = re.compile(r"sys\.path\.(insert|append|extend)|sys\.path\s*\+?=|spec_from_file_location")
    files = [
        ROOT / "conftest.py",
        *sorted((ROOT / "booktools").rglob("*.py")),
        *sorted((ROOT / "tests").rglob("*.py")),
        *sorted((ROOT / "_ext").glob("*.py")),
    ]
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


@pytest.mark.parametrize(
    "toc, message",
    [
        ({}, "'root' key not found"),
        ({"format": "jb-book", "chapters": [{"file": "a"}]}, "'root' key not found"),
        ({"format": "nope", "root": "intro"}, "'format' key value not recognised: 'nope'"),
        ({"format": "jb-book", "root": "intro", "chapters": "a"}, "not a mapping"),
    ],
)
def test_a_malformed_toc_raises(toc, message):
    with pytest.raises(MalformedError, match=message):
        toc_entries(toc)


def test_a_toc_file_that_is_missing_or_not_yaml_raises(tmp_path):
    with pytest.raises(FileNotFoundError, match="_toc.yml"):
        toc_sources(tmp_path / "_toc.yml")
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: [intro\n", encoding="utf-8")
    with pytest.raises(yaml.YAMLError):
        toc_sources(tmp_path / "_toc.yml")
    (tmp_path / "_toc.yml").write_text("format: jb-book\nchapters: []\n", encoding="utf-8")
    with pytest.raises(MalformedError, match="'root' key not found"):
        toc_sources(tmp_path / "_toc.yml")


def test_is_myst_notebook_on_bad_and_plain_files(tmp_path):
    assert not is_myst_notebook(tmp_path / "missing.md")
    assert not is_myst_notebook(tmp_path)  # a folder: OSError, not a notebook
    latin1 = tmp_path / "latin1.md"
    latin1.write_bytes(MYST_HEADER.encode("utf-8") + "# Caf\u00e9\n".encode("latin-1"))
    assert not is_myst_notebook(latin1)
    plain = tmp_path / "plain.md"
    plain.write_text("# Introduction\n\nNo notebook header here.\n", encoding="utf-8")
    assert not is_myst_notebook(plain)
    chapter = tmp_path / "chapter.md"
    chapter.write_text(MYST_HEADER + "# A chapter\n", encoding="utf-8")
    assert is_myst_notebook(chapter)
    assert is_myst_notebook(str(chapter))
