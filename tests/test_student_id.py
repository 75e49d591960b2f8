"""The student id a notebook declares (issue 37): the hand-out's ``STUDENT_ID = "..."`` cell.

Read with ``ast`` from the first code cells, never run: only a string literal that is an id counts.
Precedence: the front matter or metadata ``student``, then ``STUDENT_ID``, then the folder, then the
file's stem. A submission that declares no id is named on the grader's console.
"""

import json
from pathlib import Path

import pytest

from booktools.grading import collect
from booktools.grading.collect import assigned_student_id, notebook_student, student_of
from booktools.grading.gradebook import undeclared_line
from examples import MYST_HEADER


def _ipynb(path: Path, *sources: str, metadata: dict | None = None) -> Path:
    cells = [{"cell_type": "markdown", "metadata": {}, "source": "Your student id"}]
    cells += [
        {"cell_type": "code", "metadata": {}, "source": s, "outputs": [], "execution_count": None} for s in sources
    ]
    nb = {"cells": cells, "metadata": metadata or {}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


def _md(path: Path, *sources: str, front: str = "") -> Path:
    header = MYST_HEADER.replace("---\n", f"---\n{front}", 1) if front else MYST_HEADER
    cells = "".join(f"\n```{{code-cell}} ipython3\n{s}\n```\n" for s in sources)
    path.write_text(header + "\n**Your student id.**\n" + cells, encoding="utf-8")
    return path


@pytest.mark.parametrize("write", [_ipynb, _md])
def test_the_id_of_the_first_cell_is_read(tmp_path, write):
    path = write(tmp_path / f"nb{'.ipynb' if write is _ipynb else '.md'}", 'STUDENT_ID = "s1234567"  # roster id')
    assert notebook_student(path) == "s1234567"


@pytest.mark.parametrize("write", [_ipynb, _md])
def test_the_untouched_empty_id_declares_no_one(tmp_path, write):
    path = write(tmp_path / f"nb{'.ipynb' if write is _ipynb else '.md'}", 'STUDENT_ID = ""', "x = 1")
    assert notebook_student(path) is None


def test_a_list_source_annotations_spaces_and_nfkc_are_read(tmp_path):
    assert notebook_student(_ipynb(tmp_path / "a.ipynb", ['STUDENT_ID = "', 's42"\n'])) == "s42"
    assert assigned_student_id('STUDENT_ID: str = "  s42 "') == "s42"
    assert assigned_student_id('STUDENT_ID = "ａｌｉｃｅ"') == "alice"
    assert assigned_student_id('STUDENT_ID = "a" "b"') == "ab", "implicit concatenation is one literal"


def test_cell_options_of_a_myst_cell_are_not_its_source(tmp_path):
    text = MYST_HEADER + '\n```{code-cell} ipython3\n:tags: [x]\n\nSTUDENT_ID = "s7"\n```\n'
    (tmp_path / "t.md").write_text(text, encoding="utf-8")
    assert notebook_student(tmp_path / "t.md") == "s7"
    text = MYST_HEADER + '\n```{code-cell} ipython3\n---\ntags: [x]\n---\nSTUDENT_ID = "s8"\n```\n'
    (tmp_path / "u.md").write_text(text, encoding="utf-8")
    assert notebook_student(tmp_path / "u.md") == "s8"


def test_precedence_metadata_then_student_id_then_folder_then_stem(tmp_path):
    both = _ipynb(tmp_path / "x.ipynb", 'STUDENT_ID = "fromcell"', metadata={"student": "frommeta"})
    assert notebook_student(both) == "frommeta"
    md = _md(tmp_path / "y.md", 'STUDENT_ID = "fromcell"', front="student: fromfront\n")
    assert notebook_student(md) == "fromfront"
    bad_meta = _ipynb(tmp_path / "z.ipynb", 'STUDENT_ID = "fromcell"', metadata={"student": "not an id!"})
    assert notebook_student(bad_meta) == "fromcell"
    assert student_of({"submission": "folder/x.ipynb", "student": None}) == "folder"
    assert student_of({"submission": "stem.ipynb", "student": None}) == "stem"


def test_only_the_first_code_cells_are_searched(tmp_path):
    late = ["x = 1"] * collect.ID_CELLS + ['STUDENT_ID = "late"']
    assert notebook_student(_ipynb(tmp_path / "a.ipynb", *late)) is None
    assert notebook_student(_md(tmp_path / "a.md", *late)) is None


ATTACKS = [
    "STUDENT_ID = open('/etc/hostname').read().strip()",
    "STUDENT_ID = __import__('pathlib').Path('PWNED').write_text('x') and 'eve'",
    'STUDENT_ID = f"{1+1}eve"',
    "STUDENT_ID = 'e' + 'v' + 'e'",
    "STUDENT_ID = NAME",
    "STUDENT_ID = ('eve',)",
    "STUDENT_ID = b'eve'",
    "STUDENT_ID = 12345",
    "STUDENT_ID = 'eve; rm -rf /'",
    "STUDENT_ID = '=HYPERLINK(\"http://x\")'",
    "STUDENT_ID = '../../etc/passwd'",
    "STUDENT_ID = '" + "a" * 65 + "'",  # longer than an id
    "STUDENT_ID = '" + "a" * 100_000 + "'",  # a giant cell is not parsed at all
    "STUDENT_ID = " + "(" * 3000 + "'eve'" + ")" * 3000,
    "STUDENT_ID = " + "-" * 3000 + "1",
    "STUDENT_ID = 'eve'\x00",
    "def f():\n    STUDENT_ID = 'eve'",  # not top level
    "if True:\n    STUDENT_ID = 'eve'",
    "STUDENT_ID = OTHER = 'eve'",  # two targets
    "STUDENT_ID = open('x')\nSTUDENT_ID = 'eve'",  # the first assignment decides
]


@pytest.mark.parametrize("source", ATTACKS, ids=range(len(ATTACKS)))
def test_an_attack_is_neither_run_nor_accepted(tmp_path, monkeypatch, source):
    monkeypatch.chdir(tmp_path)
    assert assigned_student_id(source) is None
    assert notebook_student(_ipynb(tmp_path / "a.ipynb", source)) is None
    assert notebook_student(_md(tmp_path / "a.md", source)) is None
    assert not (tmp_path / "PWNED").exists()


@pytest.mark.parametrize(
    "content",
    [
        "{}",
        "[]",
        '{"cells": 3}',
        '{"cells": [1, null, {"cell_type": "code", "source": 5}, {"cell_type": "code", "source": [1, 2]}]}',
        '{"metadata": [], "cells": [{"cell_type": "code", "source": "STUDENT_ID = \\"ok1\\""}]}',
        "[" * 100_000,
        "not json",
    ],
)
def test_odd_notebooks_do_not_crash(tmp_path, content):
    path = tmp_path / "odd.ipynb"
    path.write_text(content, encoding="utf-8")
    assert notebook_student(path) in (None, "ok1")


def test_a_myst_fence_that_never_closes_is_bounded(tmp_path):
    path = tmp_path / "open.md"
    path.write_text(MYST_HEADER + "```{code-cell} ipython3\n" * 20_000 + 'STUDENT_ID = "x"\n', encoding="utf-8")
    assert notebook_student(path) is None


def test_the_grader_names_the_submissions_that_declare_no_id():
    rows = [
        {"submission": "alice.ipynb", "status": "graded", "student": "s1"},
        {"submission": "bob/work.ipynb", "status": "graded", "student": None},
        {"submission": "carol.ipynb", "status": "error"},
        {"submission": "notes.txt", "status": "skipped"},
        {"submission": "big.ipynb", "status": "rejected"},
    ]
    line = undeclared_line(rows)
    assert line.startswith("submissions that declare no student id (2)")
    assert "bob/work.ipynb (filed as bob)" in line and "carol.ipynb (filed as carol)" in line
    assert "alice" not in line and "notes.txt" not in line and "big.ipynb" not in line
    assert undeclared_line(rows[:1]) is None
    many = [{"submission": f"s{i:03d}.ipynb", "status": "graded"} for i in range(50)]
    assert undeclared_line(many).endswith(", and 40 more")
