"""``python -m booktools lms`` (issue 37): the grader's gradebooks as one course-wide CSV for Canvas or Moodle.

The gradebooks are written by the grader's own ``write_gradebook``. Each export is checked against
its LMS's documented format (see ``booktools/grading/lms.py`` for the sources): Canvas's identity
columns in their order, the ``Points Possible`` row, ``Name (id)`` for an assignment the roster
export has; Moodle's rows all as long as the header, an identifier in every row, every grade a
number or empty. A student with no submission is blank, never 0; every student left blank or out
is named on the console.
"""

import csv
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from booktools.grading import lms
from booktools.grading.csvfile import write_csv
from booktools.grading.gradebook import _students, write_gradebook
from booktools.grading.questions import questions_from_hidden
from booktools.grading.rubric import ManualMark

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = questions_from_hidden([{"id": "proof", "title": "Proof", "items": [("a", "first", 1), ("b", "second", 2)]}])


def _row(submission, score, student=None, status="graded"):
    row = {"submission": submission, "score": score, "status": status, "feedback": "", "checks": []}
    if student:
        row["student"] = student
    return row


def _mark(points, status="marked"):
    return {"proof": ManualMark("proof", Fraction(points), Fraction(3), (), (), status)}


@pytest.fixture
def books(tmp_path) -> dict[str, Path]:
    """Three assignments as the grader writes them: halving (automatic only), winnow (with a written
    question, marks merged), drift (a duplicate and a timeout)."""
    halving = tmp_path / "halving_gradebook.csv"
    rows = [_row("a.ipynb", 4.0, "s1"), _row("b.ipynb", 2.5, "S2"), _row("z.ipynb", 1.0, "zed")]
    write_gradebook(halving, _students(rows), 5.0, (), {})
    winnow = tmp_path / "winnow_gradebook.csv"
    rows = [_row("a.ipynb", 3.0, "s1"), _row("b.ipynb", 1.0, "s2"), _row("c.ipynb", 2.0, "s3")]
    marks = {"s1": _mark("2.5"), "s2": _mark(0, "no answer")}  # s3 not marked yet: "to mark"
    write_gradebook(winnow, _students(rows), 4.0, QUESTIONS, marks)
    drift = tmp_path / "drift_gradebook.csv"
    rows = [_row("a.ipynb", 0.0, "s1", "timeout"), _row("d.md", 1.0, "s4"), _row("d.ipynb", 2.0, "s4")]
    write_gradebook(drift, _students(rows), 10.0, (), {})
    return {"halving": halving, "winnow": winnow, "drift": drift}


CANVAS_ROSTER = [
    ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "halving (4711)", "Current Score", "Final Score"],
    ["    Points Possible", "", "", "", "", "5", "(read only)", "(read only)"],
    ["            Manual Posting", "", "", "", "", "Manual Posting", "", ""],
    ["Ådne, Åse 😀", "101", "s1", "ase", "Sec A", "", "", ""],
    ['=HYPERLINK("http://x"), Bob', "102", "s2", "bob", "Sec A", "", "", ""],
    ["Chan, Cat", "103", "s3", "cat", "Sec B", "", "", ""],
    ["Dup, One", "104", "s4", "d1", "Sec B", "", "", ""],
    ["Dup, Two", "105", "s4", "d2", "Sec B", "", "", ""],
    ["Never, Handed", "106", "s9", "nh", "Sec B", "", "", ""],
    ["Ghost, No Id", "", "", "", "Sec B", "", "", ""],
]


def _roster(tmp_path: Path, table: list[list[str]], name: str = "roster.csv") -> Path:
    path = tmp_path / name
    write_csv(path, table[0], table[1:])
    return path


def _read(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def _is_grade(cell: str) -> bool:
    try:
        return cell == "" or float(cell) >= 0
    except ValueError:
        return False


def assert_canvas_format(table: list[list[str]], assignments: int) -> None:
    """Canvas's gradebook import: Student, ID, SIS User ID, SIS Login ID, Section, then the assignments;
    the Points Possible row under the header; every score a number or blank."""
    header = table[0]
    assert header[:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert len(header) == 5 + assignments
    assert table[1][0] == "Points Possible" and table[1][1:5] == ["", "", "", ""]
    assert all(float(cell) > 0 for cell in table[1][5:])
    assert not any(
        re.search("Current Score|Current Points|Final Score|Final Points|Final Grade", c) for c in header[5:]
    )
    for row in table[2:]:
        assert len(row) == len(header)
        assert row[1] or row[2] or row[3], "Canvas finds a student by ID, SIS User ID or SIS Login ID"
        assert all(_is_grade(cell) for cell in row[5:]), row


def assert_moodle_format(table: list[list[str]], match: str) -> None:
    """Moodle's grade import: rows as long as the header (else "csvweirdcolumns"), more than one column
    (a line of one cell is skipped), the user column never empty, every grade a number or empty."""
    header = table[0]
    assert len(header) >= 2 and len(set(header)) == len(header)
    column = header.index(match)
    for row in table[1:]:
        assert len(row) == len(header)
        assert row[column], "a row without its user would take the previous row's user"


def test_canvas_with_its_roster(books, tmp_path, capsys):
    out = tmp_path / "canvas.csv"
    roster = _roster(tmp_path, CANVAS_ROSTER)
    args = ["--canvas", str(out), str(books["halving"]), str(books["winnow"]), f"Drift 3={books['drift']}"]
    assert lms.main([*args, "--roster", str(roster)]) == 0
    table = _read(out)
    assert_canvas_format(table, 3)
    assert table[0] == [
        "Student",
        "ID",
        "SIS User ID",
        "SIS Login ID",
        "Section",
        "halving (4711)",
        "winnow",
        "Drift 3",
    ]
    assert table[1] == ["Points Possible", "", "", "", "", "5", "7", "10"]
    by_id = {row[1]: row[5:] for row in table[2:]}
    assert list(by_id) == ["101", "102", "103", "104", "105", "106"], "the roster's order, every roster student"
    assert by_id["101"] == ["4", "5.5", "0"], "winnow: 3 automatic + 2.5 marked; drift: a timeout is a real 0"
    assert by_id["102"] == ["2.5", "1", ""], "S2 and s2 are one student; no drift submission: blank, not 0"
    assert by_id["103"] == ["", "", ""], "winnow still to mark: blank"
    assert by_id["104"] == by_id["105"] == ["", "", ""], "an id two roster rows share is nobody's"
    assert by_id["106"] == ["", "", ""]
    assert table[2][0] == "Ådne, Åse 😀", "unicode names kept"
    raw = out.read_text(encoding="utf-8")
    assert '"\'=HYPERLINK(""http://x""), Bob"' in raw, "a name that starts a formula is neutralised"
    err = capsys.readouterr().err
    assert "column 'SIS User ID': 4 of 5 students found" in err
    assert "not in the roster" in err and "zed (halving 1)" in err
    assert "ids that several roster rows share, left blank (1): s4" in err
    assert "winnow: no score yet, left blank (1): s3 (to mark)" in err
    assert "Drift 3: no submission, left blank (3): s2, s3, s9" in err
    assert "new assignments (points from the Points Possible row): winnow, Drift 3" in err
    assert "roster rows without an id to match, left out (1): Ghost, No Id" in err


def test_canvas_without_a_roster_writes_the_ids_as_sis_user_ids(books, tmp_path, capsys):
    out = tmp_path / "canvas.csv"
    assert lms.main(["--canvas", str(out), str(books["halving"]), str(books["drift"])]) == 0
    table = _read(out)
    assert_canvas_format(table, 2)
    assert table[0][5:] == ["halving", "drift"]
    assert [row[:5] for row in table[2:]] == [
        ["S2", "", "S2", "", ""],
        ["s1", "", "s1", "", ""],
        ["s4", "", "s4", "", ""],
        ["zed", "", "zed", "", ""],
    ]
    assert [row[5:] for row in table[2:]] == [["2.5", ""], ["4", "0"], ["", ""], ["1", ""]]
    assert "no --roster" in capsys.readouterr().err
    assert lms.main(["--canvas", str(out), str(books["halving"]), "--match", "SIS Login ID"]) == 0
    assert _read(out)[2][:5] == ["S2", "", "", "S2", ""]


MOODLE_ROSTER = [
    ["First name", "Last name", "ID number", "Institution", "Department", "Email address", "Assignment: halving"],
    ["Åse", "Ådne", "", "Uni", "CS", "s1", "-"],
    ["Bob", "=cmd|' /C calc'!A0", "", "Uni", "CS", "S2@x.org", "-"],
    ["Cat", "Chan", "", "Uni", "CS", "s3", "-"],
    ["No", "Mail", "", "Uni", "CS", "", "-"],
    ["Eve", "Minus", "", "Uni", "CS", "-eve@x.org", "-"],
]


def test_moodle_with_its_grade_export_as_roster(books, tmp_path, capsys):
    out = tmp_path / "moodle.csv"
    roster = _roster(tmp_path, MOODLE_ROSTER)
    assert lms.main(["--moodle", str(out), str(books["halving"]), str(books["winnow"]), "--roster", str(roster)]) == 0
    table = _read(out)
    assert_moodle_format(table, "Email address")
    assert table[0] == ["First name", "Last name", "ID number", "Email address", "halving", "winnow"]
    assert [row[3:] for row in table[1:]] == [
        ["s1", "4", "5.5"],
        ["S2@x.org", "", ""],
        ["s3", "", ""],
        ["'-eve@x.org", "", ""],
    ]
    assert table[1][:2] == ["Åse", "Ådne"]
    assert "\"'=cmd|' /C calc'!A0\"" in out.read_text(encoding="utf-8")
    err = capsys.readouterr().err
    assert "column 'Email address'" in err, "the column that finds the most students"
    assert "the id '-eve@x.org' starts like a formula" in err
    assert "map from 'Email address' to 'useremail'" in err
    assert "roster rows without an id to match, left out (1): No Mail" in err
    assert "not in the roster" in err and "S2 (halving 2.5, winnow 1)" in err and "zed (halving 1)" in err


def test_moodle_without_a_roster_and_one_student_in_two_spellings(tmp_path):
    first, second = tmp_path / "a_gradebook.csv", tmp_path / "b_gradebook.csv"
    write_gradebook(first, _students([_row("x.md", 2.0, "ALICE"), _row("y.md", 1.0, "ｂｏｂ")]), 2.0, (), {})
    write_gradebook(second, _students([_row("x.md", 1.5, "alice")]), 2.0, (), {})
    out = tmp_path / "moodle.csv"
    assert lms.main(["--moodle", str(out), str(first), str(second)]) == 0
    table = _read(out)
    assert_moodle_format(table, "ID number")
    assert table == [["ID number", "a", "b"], ["ALICE", "2", "1.5"], ["ｂｏｂ", "1", ""]]


def test_every_student_left_out_is_named_and_only_blanks_are_counted(tmp_path, capsys):
    path = tmp_path / "big_gradebook.csv"
    rows = [_row(f"{i}.md", 1.0, f"s{i:02d}") for i in range(25)]
    write_gradebook(path, _students(rows), 2.0, (), {})
    roster = _roster(tmp_path, [CANVAS_ROSTER[0][:5], ["Only, One", "1", "x99", "", ""]])
    assert lms.main(["--canvas", str(tmp_path / "c.csv"), str(path), "--roster", str(roster)]) == 0
    err = capsys.readouterr().err
    assert "left out (25): " in err and all(f"s{i:02d} (big 1)" in err for i in range(25)), "none cut"
    assert "big: no submission, left blank (1): x99" in err


def test_an_assignment_named_like_a_formula_is_neutralised(books, tmp_path):
    out = tmp_path / "canvas.csv"
    assert lms.main(["--canvas", str(out), f"=1+2={books['halving']}"]) == 0
    assert out.read_text(encoding="utf-8").splitlines()[0].endswith('"\'=1+2"')


def test_a_file_that_checks_nothing_would_pass_is_caught(books, tmp_path):
    """The format checks can fail: a zero for a missing submission, a row of the wrong length."""
    out = tmp_path / "canvas.csv"
    lms.main(["--canvas", str(out), str(books["halving"]), str(books["drift"])])
    table = _read(out)
    with pytest.raises(AssertionError):
        assert_canvas_format([table[0], *table[2:]], 2)  # no Points Possible row
    with pytest.raises(AssertionError):
        assert_moodle_format([["ID number", "a"], ["", "1"]], "ID number")
    with pytest.raises(AssertionError):
        assert_moodle_format([["ID number", "a"], ["s1", "1", "2"]], "ID number")


@pytest.mark.parametrize(
    "content, message",
    [
        ('"name","score"\n"a","1"\n', "not a gradebook of the grader: expected the columns student"),
        ('"student","total","max","status"\n"a","lots","5","ok"\n', "row 2: expected a number, got 'lots'"),
        ('"student","total","max","status"\n"a","-1","5","ok"\n', "expected a number of points of 0 or more"),
        ('"student","total","max","status"\n"a","1","5","ok"\n"b","1","6","ok"\n', "expected one max"),
        ('"student","total","max","status"\n', "the gradebook has no students"),
        ('"student","total","max","status"\n"","1","5","ok"\n', "row 2: no student"),
        (b"\xff\xfe", "expected UTF-8 text"),
    ],
)
def test_a_bad_gradebook_is_named_with_its_row(tmp_path, capsys, content, message):
    path = tmp_path / "bad_gradebook.csv"
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    with pytest.raises(SystemExit) as raised:
        lms.main(["--canvas", str(tmp_path / "out.csv"), str(path)])
    assert raised.value.code == 2
    err = capsys.readouterr().err
    assert message in err and str(path) in err
    assert not (tmp_path / "out.csv").exists()


def test_bad_options_are_named(books, tmp_path, capsys):
    out = str(tmp_path / "out.csv")
    cases = [
        (["--canvas", out, str(tmp_path / "nope.csv")], "nope.csv: no such gradebook file"),
        (["--canvas", out, f"={books['halving']}"], "expected PATH or NAME=PATH"),
        (["--canvas", out, str(books["halving"]), f"HALVING={books['drift']}"], "two gradebooks are named 'HALVING'"),
        (["--canvas", out, str(books["halving"]), "--match", "Email"], "--match 'Email': expected one of"),
        (["--canvas", out, "--moodle", out, str(books["halving"])], "not allowed with argument"),
        ([str(books["halving"])], "one of the arguments --canvas --moodle is required"),
        (["--canvas", str(tmp_path / "out.txt"), str(books["halving"])], "expected a .csv file name"),
        (["--canvas", out, f"Student={books['halving']}"], "an assignment is named like an identity column: student"),
        (["--canvas", out, str(books["halving"]), "--roster", str(tmp_path / "r.csv")], "r.csv: no such roster"),
        (["--canvas", out, f"Final Score={books['halving']}"], "a column Canvas reads as its own total"),
    ]
    for argv, message in cases:
        with pytest.raises(SystemExit) as raised:
            lms.main(argv)
        assert raised.value.code == 2, argv
        assert message in capsys.readouterr().err, argv
    roster = _roster(tmp_path, [["Name", "Mail"], ["a", "b"]])
    with pytest.raises(SystemExit):
        lms.main(["--canvas", out, str(books["halving"]), "--roster", str(roster)])
    assert "a canvas roster needs one of the columns SIS User ID, SIS Login ID, ID" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        lms.main(["--canvas", str(roster), str(books["halving"]), "--roster", str(roster)])
    assert "would overwrite the roster" in capsys.readouterr().err
    assert not Path(out).exists()


def test_the_command_line_help_and_run(books, tmp_path):
    run = lambda *a: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "booktools", "lms", *a], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    helped = run("--help")
    assert helped.returncode == 0 and helped.stdout.startswith("usage: python -m booktools lms ")
    out = tmp_path / "m.csv"
    done = run("--moodle", str(out), str(books["halving"]))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"wrote {out}: 3 students, 1 assignments, for Moodle"
