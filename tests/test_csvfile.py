"""Every CSV file the grader writes is safe in every spreadsheet locale (issue 35).

A held-out red team found that a file name or an exception message holding ``;=...`` became a live
formula in the scores CSV, the gradebook and the review key when Excel opens them with ``;`` as its
list separator (the default in much of continental Europe): only a leading ``= + - @`` was
neutralised, and fields holding ``;`` were not quoted. Now one writer (``csvfile.CsvWriter``)
writes every CSV: every field quoted, printable, and a ``'`` before every place where a formula
could start, in a ``,`` reading or in a ``;`` one; ``read_csv`` undoes exactly that.

The tests grade a small assignment of their own with hostile file names (``x;=HYPERLINK("e.example")``,
``;@SUM(1)``, ``a,b;-2+3``, a folder ``-folder;+1``) and a submission whose exception message holds
``;=1+1`` and ``;=HYPERLINK("http://e")``, then read every CSV file the run wrote as spreadsheets would: with the ``csv`` module and
with a small Excel-like splitter, each with ``,`` and with ``;`` as the separator. No field of any
reading may start with a formula character. The control reads the same rows written the old way
(minimal quoting, only a leading ``= + - @`` neutralised) and must find formulas.
"""

from __future__ import annotations

import csv
import io
import itertools
import shutil
from pathlib import Path

import pytest

from booktools.grading.csvfile import FORMULA_CHARS, from_cell, read_csv, to_cell, write_csv
from booktools.grading.feedback import FeedbackFolder
from booktools.grading.scores import Rows
from examples import run_grade

ROOT = Path(__file__).resolve().parents[1]
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None, reason="the grader's sandbox needs bubblewrap")

HOSTILE = ['x;=HYPERLINK("e.example")', ";@SUM(1)", "a,b;-2+3"]  # file names (a "/" cannot be in one)
MESSAGE = ';=1+1 and ;=HYPERLINK("http://e")'  # what a submission's exception says

# -- reading a file as spreadsheets do ---------------------------------------------------------------


def excel_split(text: str, separator: str) -> list[list[str]]:
    """The fields of a CSV text as a spreadsheet's import takes them.

    A ``"`` opens a quoted field only at the start of a field; inside it, ``""`` is one quote and a
    lone ``"`` closes it; what follows a closing quote is added to the field up to the separator;
    a line break outside quotes ends the row.
    """
    rows, row, field = [], [], []
    quoted, at_start, i = False, True, 0
    while i < len(text):
        ch = text[i]
        i += 1
        if quoted:
            if ch == '"' and text[i : i + 1] == '"':
                field.append('"')
                i += 1
            elif ch == '"':
                quoted = False
            else:
                field.append(ch)
        elif ch == '"' and at_start:
            quoted = True
        elif ch == separator or ch in "\r\n":
            row.append("".join(field))
            field = []
            if ch != separator:
                i += ch == "\r" and text[i : i + 1] == "\n"
                rows.append(row)
                row = []
            at_start = True
            continue
        else:
            field.append(ch)
        at_start = False
    if field or row:
        rows.append([*row, "".join(field)])
    return rows


def readings(text: str) -> dict[str, list[list[str]]]:
    """The fields of a CSV text in four readings: the csv module and the splitter, with , and with ;."""
    found = {}
    for separator in (",", ";"):
        found[f"csv module, {separator!r}"] = list(csv.reader(io.StringIO(text, newline=""), delimiter=separator))
        found[f"spreadsheet, {separator!r}"] = excel_split(text, separator)
    return found


def formulas(text: str) -> list[tuple[str, str]]:
    """(reading, field) for every field of any reading that starts a formula (after spaces and quotes)."""
    return [
        (name, field)
        for name, rows in readings(text).items()
        for row in rows
        for field in row
        if field.lstrip(' "')[:1] in set(FORMULA_CHARS)
    ]


def old_csv(rows: list[list[str]]) -> str:
    """The rows written as the grader wrote its CSV files before issue 35."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    writer.writerows([["'" + cell if cell[:1] in ("=", "+", "-", "@") else cell for cell in row] for row in rows])
    return buffer.getvalue()


# -- the cells -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        ("=1+1", "'=1+1"),
        ("x;=HYPERLINK(1)", "x;'=HYPERLINK(1)"),
        (";@SUM(1)", ";'@SUM(1)"),
        ("a,b;-2+3", "a,b;'-2+3"),
        ("a; +1", "a;' +1"),  # a spreadsheet may trim the space
        ('a;""=1', 'a;\'""=1'),  # a ; reading takes ""=1 as the field =1
        ("a;", "a;'"),  # a ; reading would open a quoted field at the closing quote
        ("＝1", "'＝1"),  # full width
        ("'=1", "''=1"),  # one more quote, so that reading gives it back
        ("plain; text, 1-2", "plain; text, 1-2"),
        ("", ""),
    ],
)
def test_a_formula_start_gets_a_quote_and_reading_takes_it_away(value, cell):
    assert to_cell(value) == cell and from_cell(cell) == value


def test_reading_undoes_exactly_what_writing_did():
    alphabet = "=;' \"a-"
    for size in range(7):
        for letters in itertools.product(alphabet, repeat=size):
            value = "".join(letters)
            assert from_cell(to_cell(value)) == value, value


def test_the_writer_quotes_every_field_and_escapes_control_characters(tmp_path):
    path = tmp_path / "t.csv"
    values = ["plain", "3", "", "x;=1", "a\nb\tc", "=SUM(1)"]
    write_csv(path, ["h1", "h2", "h3", "h4", "h5", "h6"], [values])
    lines = path.read_bytes().decode("utf-8").split("\r\n")
    assert lines[1] == '"plain","3","","x;\'=1","a\\nb\\tc","\'=SUM(1)"'
    header, rows = read_csv(path, exact=True)
    assert header == ["h1", "h2", "h3", "h4", "h5", "h6"]
    assert rows == [(2, ["plain", "3", "", "x;=1", "a\\nb\\tc", "=SUM(1)"])], "the values, made printable"
    assert not formulas(path.read_bytes().decode("utf-8"))


def test_control_the_old_writer_leaves_formulas_for_a_semicolon_reading():
    text = old_csv([["status", "submission"], *(["graded", name + ".md"] for name in HOSTILE)])
    found = {field.rstrip('"') for _, field in formulas(text)}
    assert found == {'=HYPERLINK(""e.example"").md', "@SUM(1).md", "-2+3.md"}, found


def test_the_scores_csv_is_safe_while_it_is_written_row_by_row(tmp_path):
    out = tmp_path / "scores.csv"
    rows = Rows(
        out, FeedbackFolder(tmp_path / "feedback"), 2.0, "T", [], {n: f"f{i}.md" for i, n in enumerate(HOSTILE)}
    )
    for name in HOSTILE:
        rows.add({"submission": name, "score": 0.0, "status": "error", "feedback": MESSAGE, "checks": []})
    text = out.read_bytes().decode("utf-8")  # before finish: the file as a spreadsheet may open it mid-run
    assert not formulas(text), formulas(text)
    assert control_finds_formulas(out)
    rows.close()


def control_finds_formulas(path: Path) -> bool:
    """The control: the file's rows, read back and written the old way, hold a formula."""
    header, rows = read_csv(path, exact=True)
    return bool(formulas(old_csv([header, *(cells for _, cells in rows)])))


# -- a grading run with hostile names ------------------------------------------------------------------

HIDDEN = """
from booktools.grading import checks

PARTS = {"double": "function"}
TITLE = "CSV demo"
FORBIDDEN = []
QUESTIONS = [
    {"id": "why", "title": "Why", "items": [("potential", "states the potential; -and its start", 1),
                                            ("growth", "=bounds its growth", 2)]},
]
REFERENCE = {"double": lambda x: 2 * x}


def grade(student):
    cases = [checks.Case(";=1+1 two", (2,)), checks.Case("three", (3,))]
    return checks.compare_functions(student["double"], REFERENCE["double"], cases, title=TITLE)
"""

NOTEBOOK = """---
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

```{{code-cell}} ipython3
def double(x):
    {body}
```

+++ {{"tags": ["answer"], "question": "why"}}

{answer}
"""


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory):
    top = tmp_path_factory.mktemp("csv")
    hidden_dir = top / "lecturer"
    hidden_dir.mkdir()
    (hidden_dir / "demo_hidden.py").write_text(HIDDEN, encoding="utf-8")
    folder = top / "submissions"
    (folder / "-folder;+1").mkdir(parents=True)
    names = [f"{name}.md" for name in HOSTILE] + ["-folder;+1/work.md", "raiser.md"]
    for name in names:
        body = f"raise ValueError({MESSAGE!r})" if name == "raiser.md" else "return 2 * x"
        answer = f"The potential grows; -it is {name.split('.')[0][:3]}."
        (folder / name).write_text(NOTEBOOK.format(body=body, answer=answer), encoding="utf-8")
    out = top / "out" / "scores.csv"
    result = run_grade(folder, out, hidden_dir)
    return top / "out", names, result


@needs_bwrap
def test_every_csv_of_a_run_reads_without_a_formula_in_any_locale(hostile_run):
    out_dir, names, result = hostile_run
    assert result.returncode == 0, result.stderr[-3000:]
    files = sorted(p.relative_to(out_dir).as_posix() for p in out_dir.rglob("*.csv"))
    assert files == ["scores.csv", "scores_gradebook.csv", "scores_review/rubric.csv", "scores_review_key.csv"]
    for name in files:
        text = (out_dir / name).read_bytes().decode("utf-8")
        assert not formulas(text), (name, formulas(text))
        assert control_finds_formulas(out_dir / name), f"{name}: the old writer would have left a formula"


@needs_bwrap
def test_the_values_come_back_exactly(hostile_run):
    out_dir, names, result = hostile_run
    assert result.returncode == 0, result.stderr[-3000:]
    header, rows = read_csv(out_dir / "scores.csv", exact=True)
    table = {cells[0]: dict(zip(header, cells, strict=True)) for _, cells in rows}
    assert set(table) == set(names)
    assert f"raised ValueError: {MESSAGE}" in table["raiser.md"]["feedback"]
    assert ";=1+1 two [1]" in header, header
    assert table["-folder;+1/work.md"]["student"] == "-folder;+1"
    _, key = read_csv(out_dir / "scores_review_key.csv", exact=True)
    assert {cells[1] for _, cells in key} == {*HOSTILE, "-folder;+1", "raiser"}
    _, rubric = read_csv(out_dir / "scores_review" / "rubric.csv")
    assert {cells[3] for _, cells in rubric} == {"states the potential; -and its start", "=bounds its growth"}
