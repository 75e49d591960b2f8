"""Hand-outs (issue 28, item 7): ``python -m booktools handout``, what a student receives.

Every assignment's folder holds exactly its notebook (``.ipynb`` and ``.md``) and its public
checks; the ``.md`` is the student edition's, the ``.ipynb`` is valid, has no outputs and runs top
to bottom next to its json; the zip holds the same files. Nothing of ``lecturer/`` or of a
solution gets in: a planted assignment with every kind of solution and lecturer-only block is
handed out without them. Bad names, unknown assignments and folders of other files are refused.
"""

import ast
import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from booktools import handout
from booktools.solution_fences import strip_solutions
from examples import MYST_HEADER, assignment_names

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENTS = ROOT / "book" / "assignments"
NAMES = sorted(p.stem for p in ASSIGNMENTS.glob("*.md") if p.name != "index.md")
FORBIDDEN = ("_hidden", "REFERENCE")  # and "lecturer" in any case


def booktools(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "booktools", "handout", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


@pytest.fixture(scope="module")
def handouts(tmp_path_factory) -> Path:
    """``handout --all --zip`` run once, as a lecturer runs it; the folder that holds NAME/ and NAME.zip."""
    out = tmp_path_factory.mktemp("handouts")
    result = booktools("--all", "--zip", "--out", str(out))
    assert result.returncode == 0, result.stderr[-3000:]
    return out


def _texts(folder: Path, name: str) -> dict[str, str]:
    """Every file of a hand-out, from its folder and from its zip, by where it was read."""
    texts = {str(p): p.read_text(encoding="utf-8") for p in (folder / name).iterdir()}
    with zipfile.ZipFile(folder / f"{name}.zip") as archive:
        texts |= {f"{name}.zip:{n}": archive.read(n).decode("utf-8") for n in archive.namelist()}
    return texts


def _assert_clean(texts: dict[str, str]) -> None:
    for where, text in texts.items():
        assert "lecturer" not in text.lower(), where
        for word in FORBIDDEN:
            assert word not in text, (where, word)


def _reference_lines(name: str) -> set[str]:
    """The statements (20 characters or more) of the reference solution in the hidden tests."""
    source = (ASSIGNMENTS / "lecturer" / f"{name}_hidden.py").read_text(encoding="utf-8")
    tree, lines = ast.parse(source), source.splitlines()
    names = {"REFERENCE"}
    for node in tree.body:  # REFERENCE = {"part": a_function, ...}
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
            if any(getattr(target, "id", None) == "REFERENCE" for target in node.targets):
                names |= {value.id for value in node.value.values if isinstance(value, ast.Name)}
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in names:
            for statement in ast.walk(node):
                if isinstance(statement, (ast.FunctionDef, ast.ClassDef)) or not isinstance(statement, ast.stmt):
                    continue
                if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                    continue  # docstrings
                line = lines[statement.lineno - 1].strip()
                if len(line) >= 20:
                    found.add(line)
    assert found, f"no statement of {name}'s reference found"
    return found


def test_every_assignment_has_a_notebook_and_the_tool_knows_them():
    """Discovered, not counted (issue 37): one notebook per hidden file, and the tool's list is theirs."""
    assert NAMES == assignment_names() and len(NAMES) >= 16
    assert handout.known_assignments() == NAMES


def test_all_writes_one_folder_and_one_zip_per_assignment(handouts):
    assert sorted(p.name for p in handouts.iterdir()) == sorted(NAMES + [f"{n}.zip" for n in NAMES])


@pytest.mark.parametrize("name", NAMES)
def test_each_handout_is_the_student_notebook_and_its_public_checks(handouts, name):
    folder = handouts / name
    files = {f"{name}.ipynb", f"{name}.md", f"{name}_public.json"}
    assert {p.name for p in folder.iterdir()} == files
    source = (ASSIGNMENTS / f"{name}.md").read_text(encoding="utf-8")
    expected = handout.with_student_id_cells(strip_solutions(source)[0])
    assert (folder / f"{name}.md").read_text(encoding="utf-8") == expected
    assert (folder / f"{name}_public.json").read_bytes() == (ASSIGNMENTS / f"{name}_public.json").read_bytes()
    nb = nbformat.read(folder / f"{name}.ipynb", as_version=4)
    nbformat.validate(nb)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert code and all(cell.outputs == [] and cell.execution_count is None for cell in code)
    assert nb.metadata.kernelspec == {"display_name": "Python 3", "language": "python", "name": "python3"}
    assert any(f'"{name}_public.json"' in cell.source for cell in code), "the checks read the json beside it"
    with zipfile.ZipFile(handouts / f"{name}.zip") as archive:
        assert sorted(archive.namelist()) == sorted(f"{name}/{f}" for f in files)
        for f in files:
            assert archive.read(f"{name}/{f}") == (folder / f).read_bytes(), f


def _rubric_texts(name: str) -> list[str]:
    """The model answers, descriptors and common errors of an assignment's written questions."""
    from booktools.grading.hidden import load_hidden
    from booktools.grading.questions import questions_from_hidden

    hidden = load_hidden(ASSIGNMENTS / "lecturer" / f"{name}_hidden.py")
    texts = []
    for question in questions_from_hidden(getattr(hidden, "QUESTIONS", [])):
        texts += [question.model] if question.model else []
        for item in question.items:
            texts += [item.full, item.half, item.zero, *item.errors]
    return texts


@pytest.mark.parametrize("name", NAMES)
def test_no_handout_holds_a_model_answer_or_a_rubric_descriptor(handouts, name):
    """Issue 36: the lecturer's rubric stays with the lecturer. Each text is compared in lower-case
    words, line by line (its lines of 25+ characters). A line the student notebook itself states (a
    model proof restating the theorem the notebook asks for) is public and skipped; every rubric
    text keeps at least one line that is checked, so the test cannot pass by skipping everything."""
    words = lambda text: " ".join(re.findall(r"[a-z0-9]+", text.lower()))  # noqa: E731
    public = words((ASSIGNMENTS / f"{name}.md").read_text(encoding="utf-8"))
    handed_out = {where: words(text) for where, text in _texts(handouts, name).items()}
    for secret in _rubric_texts(name):
        pieces = [words(line) for line in secret.splitlines()]
        checked = [piece for piece in pieces if len(piece) >= 25 and piece not in public]
        assert checked or not any(len(piece) >= 25 for piece in pieces), f"{name}: {secret[:80]!r} is all public"
        for piece in checked:
            for where, text in handed_out.items():
                assert piece not in text, f"{where} holds rubric or model text of {name}: {piece!r}"


@pytest.mark.parametrize("name", NAMES)
def test_no_handout_holds_lecturer_material_or_the_reference(handouts, name):
    texts = _texts(handouts, name)
    _assert_clean(texts)
    for line in _reference_lines(name):
        for where, text in texts.items():
            assert line not in text, f"{where} holds a line of the reference solution: {line!r}"


def test_the_handout_notebook_runs_top_to_bottom_next_to_its_json(handouts, tmp_path):
    """A student's folder: the notebook and its json only; "Run All" gives no error, the checks report stubs."""
    for f in ("halving.ipynb", "halving_public.json"):
        shutil.copy(handouts / "halving" / f, tmp_path / f)
    nb = nbformat.read(tmp_path / "halving.ipynb", as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [out for cell in nb.cells for out in cell.get("outputs", [])]
    assert not [out for out in outputs if out.output_type == "error"]
    printed = "".join(out.get("text", "") for out in outputs)
    assert "public checks: 0/2 points" in printed and "not implemented yet" in printed, printed


PLANTED = (
    MYST_HEADER
    + """
# Assignment 99: planted

Write `planted`.

```{code-cell} ipython3
def planted(x):
    # YOUR CODE HERE
    raise NotImplementedError
```

```{exercise} A question
:label: ex-planted

Why?
```

```{solution} ex-planted
:class: dropdown

SECRET-PLAIN-SOLUTION: because.
```

````{solution-start} ex-planted
:class: dropdown
````

SECRET-GATED-TEXT

```{code-cell} ipython3
SECRET_GATED_CODE = 1
```

````{solution-end}
````

```{code-cell} ipython3
:tags: [lecturer-only]

SECRET_TAGGED_CELL = 2
```

+++ {"tags": ["lecturer-only"]}

SECRET-MARKDOWN-CELL

+++

```{note}
:class: lecturer-only

SECRET-NOTE
```

```{code-cell} ipython3
print("public checks here")
```
"""
)


@pytest.fixture
def planted(tmp_path) -> Path:
    """A copy of book/assignments, lecturer/ included, with the assignment ``planted`` added."""
    folder = tmp_path / "assignments"
    shutil.copytree(ASSIGNMENTS, folder)
    (folder / "planted.md").write_text(PLANTED, encoding="utf-8")
    (folder / "planted_public.json").write_text(json.dumps({"format": 1}), encoding="utf-8")
    (folder / "lecturer" / "planted_hidden.py").write_text("REFERENCE = 'SECRET-HIDDEN'\n", encoding="utf-8")
    return folder


def test_solutions_and_lecturer_only_material_are_stripped(planted, tmp_path):
    assert (
        handout.main(["planted", "--assignments-dir", str(planted), "--out", str(tmp_path / "planted"), "--zip"]) == 0
    )
    texts = _texts(tmp_path, "planted")
    assert len(texts) == 6
    _assert_clean(texts)
    for where, text in texts.items():
        assert "SECRET" not in text, (where, text)
        assert "solution" not in text, where
    for name in ("planted.md", "planted.ipynb"):
        text = texts[str(tmp_path / "planted" / name)]
        assert "def planted(x)" in text and "ex-planted" in text and "public checks here" in text, name
    nb = nbformat.read(tmp_path / "planted" / "planted.ipynb", as_version=4)
    assert [cell.cell_type for cell in nb.cells] == ["markdown", "code", "markdown", "code", "markdown", "code"]


def test_the_same_sources_give_the_same_files(planted, tmp_path):
    first = handout.write_handout("planted", tmp_path / "a", planted, make_zip=True)
    second = handout.write_handout("planted", tmp_path / "b", planted, make_zip=True)
    for f in ("planted.ipynb", "planted.md", "planted_public.json"):
        assert (first / f).read_bytes() == (second / f).read_bytes(), f
    assert (tmp_path / "a.zip").read_bytes() == (tmp_path / "b.zip").read_bytes()
    handout.write_handout("planted", first, planted)  # over an earlier hand-out: fine


@pytest.mark.parametrize(
    "name", ["../halving", "lecturer/halving_hidden", "halving.md", "/etc/passwd", "a b", "", "halving\n"]
)
def test_a_name_that_is_not_a_simple_identifier_is_refused(name, tmp_path):
    with pytest.raises(SystemExit, match="ASSIGNMENT must be a name like 'halving'"):
        handout.write_handout(name, tmp_path / "out")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", ["halvign", "index", "halving_hidden", "halving_public"])
def test_an_unknown_assignment_is_refused_with_the_known_ones(name, tmp_path):
    with pytest.raises(SystemExit, match=f"no assignment '{name}'") as raised:
        handout.write_handout(name, tmp_path / "out")
    assert str(raised.value).endswith("known: " + ", ".join(NAMES))
    assert not (tmp_path / "out").exists()


def test_the_command_line_errors(tmp_path, capsys):
    bad = booktools("../lecturer/halving_hidden", "--out", str(tmp_path / "x"))
    assert bad.returncode == 1 and bad.stdout == ""
    assert bad.stderr.strip() == "ASSIGNMENT must be a name like 'halving', got '../lecturer/halving_hidden'"
    with pytest.raises(SystemExit, match="known: dimensions, drift_chain, drift_exact, experts_proofs, halving,"):
        handout.main(["halvign", "--out", str(tmp_path / "x")])
    for args in ([], ["halving", "--all"]):
        with pytest.raises(SystemExit) as raised:
            handout.main(args)
        assert raised.value.code == 2 and "name one ASSIGNMENT or give --all" in capsys.readouterr().err, args
    assert not (tmp_path / "x").exists()


def test_a_missing_public_checks_file_is_named(planted, tmp_path):
    (planted / "planted_public.json").unlink()
    with pytest.raises(SystemExit, match="'planted' has no public checks .*--write-public-checks"):
        handout.write_handout("planted", tmp_path / "out", planted)


def test_a_folder_holding_other_files_is_never_written_into(tmp_path):
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(SystemExit, match="refusing to write the hand-out of 'halving' into .*notes.txt"):
        handout.write_handout("halving", tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_the_default_folder_is_build_handouts_name(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(handout, "DEFAULT_OUT", tmp_path / "_build" / "handouts")
    assert handout.main(["halving"]) == 0
    assert sorted(p.name for p in (tmp_path / "_build" / "handouts" / "halving").iterdir()) == [
        "halving.ipynb",
        "halving.md",
        "halving_public.json",
    ]
    assert "hand-out of halving:" in capsys.readouterr().out


# -- issue 37: the hand-out's first cells ask for the student id, which the grader reads ----------------


@pytest.mark.parametrize("name", NAMES)
def test_each_handout_opens_with_the_student_id_cells(handouts, name):
    nb = nbformat.read(handouts / name / f"{name}.ipynb", as_version=4)
    first, second = nb.cells[:2]
    assert first.cell_type == "markdown" and "student id" in first.source.lower()
    assert second.cell_type == "code"
    assert second.source == 'STUDENT_ID = ""  # your student id, as in the course roster'
    md = (handouts / name / f"{name}.md").read_text(encoding="utf-8")
    assert md.index('STUDENT_ID = ""') < md.index("```{code-cell}", md.index("```{code-cell}") + 1)


def test_the_grader_reads_the_id_a_student_writes_into_the_handout(handouts, tmp_path):
    from booktools.grading.collect import notebook_student

    for suffix in (".ipynb", ".md"):
        given = handouts / "halving" / f"halving{suffix}"
        assert notebook_student(given) is None, "the hand-out as given declares no one"
        text = given.read_text(encoding="utf-8")
        if suffix == ".ipynb":
            nb = nbformat.reads(text, as_version=4)
            nb.cells[1].source = nb.cells[1].source.replace('""', '"s1234567"', 1)
            text = nbformat.writes(nb)
        else:
            text = text.replace('STUDENT_ID = ""', 'STUDENT_ID = "s1234567"', 1)
        filled = tmp_path / f"filled{suffix}"
        filled.write_text(text, encoding="utf-8")
        assert notebook_student(filled) == "s1234567", suffix


def test_the_student_id_cells_go_after_the_front_matter_only():
    text = MYST_HEADER + "\n# Title\n"
    out = handout.with_student_id_cells(text)
    assert out.startswith(MYST_HEADER) and out.endswith("# Title\n")
    assert out.count("STUDENT_ID = ") == 1
    assert handout.with_student_id_cells("# no header\n").startswith(handout.STUDENT_ID_CELLS)
