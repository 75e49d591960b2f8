"""``python -m booktools similarity`` (issue 37): planted copies are flagged, honest solutions are not.

The corpus: ``tests/similarity_corpus/honest_*.py`` are eight independent Halving learners written in
different styles (a mask, loops over lists, sets, index arrays, helper functions, ±1 rows, weights,
tuples with a Counter), and the grader's ``correct.ipynb`` fixture (another author's) is a ninth;
``library_copy.py`` is onlinelib's own version space and majority rule adapted to the assignment's
API. Each honest solution is planted six times, by the transformations below (identifiers renamed,
methods reordered, statements swapped, comments and docstrings changed, layout changed, all at
once), and every snippet is handed in as a notebook made from the hand-out (.ipynb or MyST .md in
turn). The measured rates are printed (``pytest -s``) and quoted in ``booktools/similarity.py``.
"""

from __future__ import annotations

import ast
import io
import json
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import jupytext
import pytest

from booktools import similarity, similarity_fingerprint
from booktools.similarity import DEFAULT_THRESHOLD, analyse, main

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(__file__).with_name("similarity_corpus")
HONEST = sorted(CORPUS.glob("honest_*.py"))
HANDOUT = ROOT / "book" / "assignments" / "halving.md"
# An honest solution by another author: the grader's own fixture, read from where it lives.
EXTERNAL = ROOT / "tests" / "submissions" / "halving" / "correct.ipynb"
API = {"HalvingLearner", "predict", "update", "size", "__init__", "self", "np", "x", "y", "table"}

# -- planting copies -----------------------------------------------------------------------------------

_WORDS = ["pool", "grid", "live", "bag", "ups", "downs", "keepers", "col", "tally", "ids", "mat", "flags"]


def rename(code: str) -> str:
    """Every name the code defines (but the API's) renamed, as a copier hiding a copy would."""
    tree = ast.parse(code)
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
    names -= API
    new = {name: f"{_WORDS[i % len(_WORDS)]}{i // len(_WORDS) or ''}_" for i, name in enumerate(sorted(names))}
    if not new:
        return code
    return re.sub(r"\b(" + "|".join(map(re.escape, new)) + r")\b", lambda m: new[m.group()], code)


def _spans(body: list[ast.stmt]) -> list[tuple[int, int]]:
    return [(min([n.lineno, *(d.lineno for d in getattr(n, "decorator_list", []))]), n.end_lineno) for n in body]


def reorder(code: str) -> str:
    """The methods of each class and the module's functions and classes in reverse order (imports stay)."""
    lines = code.splitlines()

    def reverse(body: list[ast.stmt], text: list[str]) -> list[str]:
        movable = [n for n in body if isinstance(n, ast.FunctionDef | ast.ClassDef)]
        if len(movable) < 2:
            return text
        spans = _spans(movable)
        first, last = spans[0][0], spans[-1][1]
        chunks = ["\n".join(lines[a - 1 : b]) for a, b in reversed(spans)]
        return [*text[: first - 1], *"\n\n".join(chunks).splitlines(), *text[last:]]

    tree = ast.parse(code)
    for node in sorted((n for n in tree.body if isinstance(n, ast.ClassDef)), key=lambda n: -n.lineno):
        lines = reverse(node.body, lines)
    tree = ast.parse("\n".join(lines))
    lines = reverse(tree.body, lines)
    return "\n".join(lines) + "\n"


def swap_statements(code: str) -> str:
    """In every function, the first two statements swapped (docstrings aside), when neither returns."""
    lines = code.splitlines()
    tree = ast.parse(code)
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    for node in sorted(functions, key=lambda n: -n.lineno):
        body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        if len(body) >= 2 and not any(isinstance(s, ast.Return) for s in body[:2]):
            (a1, a2), (b1, b2) = _spans(body[:2])
            lines[a1 - 1 : b2] = [*lines[b1 - 1 : b2], *lines[a1 - 1 : a2]]
    return "\n".join(lines) + "\n"


def rewrite_comments(code: str) -> str:
    """Every comment and docstring replaced by another, and a new comment above every ``def``."""
    comments = {
        (t.start[0], t.start[1])
        for t in tokenize.generate_tokens(io.StringIO(code).readline)
        if t.type == tokenize.COMMENT
    }
    out = []
    for number, line in enumerate(code.splitlines(), 1):
        for row, col in comments:
            if row == number:
                line = line[:col] + "# my own note on this line"
        line = re.sub(r'"""[^"]*"""', '"""My implementation for the assignment."""', line)
        if line.lstrip().startswith("def "):
            out.append(line[: len(line) - len(line.lstrip())] + f"# method {line.split('(')[0].split()[-1]}")
        out.append(line)
    return "\n".join(out) + "\n"


def relayout(code: str) -> str:
    """Indented by 2 instead of 4, blank lines after every block header, spaces around = and , dropped."""
    out = []
    for line in code.splitlines():
        body = line.lstrip(" ")
        body = re.sub(r" = ", "=", body)
        body = re.sub(r", ", ",", body)
        out.append(" " * ((len(line) - len(line.lstrip(" "))) // 2) + body)
        if body.endswith(":"):
            out.append("")
    return "\n".join(out) + "\n"


def everything(code: str) -> str:
    return relayout(rewrite_comments(swap_statements(reorder(rename(code)))))


PLANTS = {
    "renamed": rename,
    "reordered": reorder,
    "swapped": swap_statements,
    "comments": rewrite_comments,
    "relaid": relayout,
    "all": everything,
}


# -- the corpus as hand-ins ----------------------------------------------------------------------------


def hand_in(folder: Path, stem: str, code: str, ipynb: bool, student: str | None = None) -> Path:
    """The hand-out with its ``HalvingLearner`` cell replaced by ``code``, as .ipynb or MyST .md."""
    notebook = jupytext.read(HANDOUT)
    cell = next(c for c in notebook.cells if c.cell_type == "code" and "class HalvingLearner" in c.source)
    cell.source = code
    if student:
        notebook.metadata["student"] = student
    path = folder / f"{stem}.{'ipynb' if ipynb else 'md'}"
    jupytext.write(notebook, path, fmt="ipynb" if ipynb else "md:myst")
    return path


def originals() -> list[tuple[str, str]]:
    """(stem, code) of every original: the honest snippets, the grader's correct fixture, the library copy."""
    found = [(path.stem, path.read_text(encoding="utf-8")) for path in HONEST]
    cells = json.loads(EXTERNAL.read_text(encoding="utf-8"))["cells"]
    [external] = ["".join(c["source"]) for c in cells if "class HalvingLearner" in "".join(c["source"])]
    found.append(("honest_external", external + "\n"))
    return [*found, ("library_copy", (CORPUS / "library_copy.py").read_text(encoding="utf-8"))]


def build_corpus(folder: Path) -> dict[str, str]:
    """Every snippet handed in under ``folder``; returns {submission name: origin}."""
    origin = {}
    for number, (stem, code) in enumerate(originals()):
        path = Path(stem)
        ast.parse(code)
        hand_in(folder, path.stem, code, ipynb=number % 2 == 0)
        origin[f"{path.stem}.{'ipynb' if number % 2 == 0 else 'md'}"] = path.stem
        if path.stem.startswith("honest_"):
            for kind_number, (kind, plant) in enumerate(PLANTS.items()):
                planted = plant(code)
                ast.parse(planted)  # still Python
                assert planted != code
                ipynb = (number + kind_number) % 2 == 1
                hand_in(folder, f"{kind}_{path.stem}", planted, ipynb)
                origin[f"{kind}_{path.stem}.{'ipynb' if ipynb else 'md'}"] = path.stem
    return origin


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("submissions")
    origin = build_corpus(folder)
    submissions, library, pairs = analyse(folder, "halving", DEFAULT_THRESHOLD)
    return folder, origin, submissions, library, pairs


def classify(corpus):
    """(planted pairs, honest pairs): each (pair, score) list, from the corpus's origins."""
    _folder, origin, _submissions, _library, pairs = corpus
    planted, honest = [], []
    for pair in pairs:
        a, b = pair.a.name, pair.b.name
        if pair.b.student is None:  # with onlinelib: only the library copy is a copy
            is_copy = origin[a] == "library_copy" and b == "onlinelib/version_space.py"
            if origin[a] == "library_copy" and not is_copy:
                continue  # the copy against other modules of onlinelib: neither planted nor honest
        elif origin[a] == origin[b]:
            is_copy = a.startswith(origin[a]) or b.startswith(origin[b])  # the original and its copy
            if not is_copy:
                continue  # two copies of one original: copies too, but not what is measured
        else:
            is_copy = False
        (planted if is_copy else honest).append(pair)
    return planted, honest


# -- the measurements -------------------------------------------------------------------------------------


def test_the_corpus_is_what_the_docstring_says(corpus):
    _folder, origin, submissions, library, _pairs = corpus
    assert len(HONEST) >= 6
    assert len(submissions) == len(origin) == (len(HONEST) + 1) * (1 + len(PLANTS)) + 1
    assert all(s.problem is None for s in submissions), [(s.name, s.problem) for s in submissions if s.problem]
    assert "onlinelib/version_space.py" in {d.name for d in library}


def test_every_planted_copy_is_flagged_and_no_honest_pair(corpus):
    planted, honest = classify(corpus)
    assert len(planted) == (len(HONEST) + 1) * len(PLANTS) + 1
    missed = [(p.a.name, p.b.name, round(p.score, 3)) for p in planted if not p.flagged]
    false = [(p.a.name, p.b.name, round(p.score, 3)) for p in honest if p.flagged]
    detection = 1 - len(missed) / len(planted)
    false_rate = len(false) / len(honest)
    print(
        f"\nthreshold {DEFAULT_THRESHOLD}: detection {len(planted) - len(missed)}/{len(planted)} = {detection:.3f}; "
        f"false positives {len(false)}/{len(honest)} = {false_rate:.3f}; lowest planted score "
        f"{min(p.score for p in planted):.3f}, highest honest score {max(p.score for p in honest):.3f}"
    )
    for kind in [*PLANTS, "library"]:
        scores = [p.score for p in planted if p.a.name.startswith(kind) or p.b.name.startswith(kind)]
        print(f"  {kind}: planted scores {min(scores):.3f} .. {max(scores):.3f} ({len(scores)})")
    independent = [
        p for p in honest if p.a.name.startswith("honest_") and p.b.name.startswith(("honest_", "onlinelib/"))
    ]
    flagged = sum(p.flagged for p in independent)
    print(
        f"  independent originals only: {flagged}/{len(independent)} pairs flagged, highest score "
        f"{max(p.score for p in independent):.3f}"
    )
    top = sorted(honest, key=lambda p: -p.score)[:5]
    print("  highest honest pairs: " + "; ".join(f"{p.a.name}~{p.b.name} {p.score:.3f}" for p in top))
    assert not missed, f"planted copies not flagged: {missed}"
    assert not false, f"honest pairs flagged: {false}"


def test_the_default_threshold_sits_in_the_gap(corpus):
    """The default is between the highest honest score and the lowest planted one, with room on both sides."""
    planted, honest = classify(corpus)
    low, high = min(p.score for p in planted), max(p.score for p in honest)
    assert high + 0.1 <= DEFAULT_THRESHOLD <= low - 0.1, (high, DEFAULT_THRESHOLD, low)


def test_renaming_reordering_comments_and_layout_change_nothing_alone(corpus):
    """Each transformation alone keeps the similarity with the original at (nearly) 1."""
    planted, _honest = classify(corpus)
    for pair in planted:
        if pair.b.student is not None and not pair.a.name.startswith("all_") and not pair.b.name.startswith("all_"):
            assert pair.score >= 0.9, (pair.a.name, pair.b.name, pair.score)


def test_without_blocks_and_sorted_statements_order_costs_similarity():
    """CONTROL for fingerprinting block by block, statements sorted: as one string (copydetect's way),
    reversing the methods or swapping two statements loses a large share of the fingerprints; here, none."""
    code = (CORPUS / "honest_indices.py").read_text(encoding="utf-8")
    for moved in (reorder(code), swap_statements(code)):
        assert similarity.fingerprint("a", code).hashes == similarity.fingerprint("b", moved).hashes
        flat = [_flat_hashes(c) for c in (code, moved)]
        kept = len(flat[0] & flat[1]) / len(flat[0])
        print(f"\nfingerprinted as one string, {kept:.2f} of the fingerprints kept")
        assert kept <= 0.8, kept


def test_without_blanking_annotations_the_library_copy_scores_less(monkeypatch):
    """CONTROL for :func:`similarity.unannotated`: onlinelib's annotations and docstrings count against a copy."""
    copy = (CORPUS / "library_copy.py").read_text(encoding="utf-8")
    source = (ROOT / "onlinelib" / "version_space.py").read_text(encoding="utf-8")

    def score():
        return similarity.compare_files(similarity.fingerprint("a", copy), similarity.fingerprint("b", source))[1][0]

    blanked = score()
    monkeypatch.setattr(similarity_fingerprint, "unannotated", lambda cell: cell)
    kept = score()
    print(f"\nlibrary copy against onlinelib: {blanked:.3f} with annotations blanked, {kept:.3f} without")
    assert blanked >= DEFAULT_THRESHOLD > kept + 0.05


def test_unannotated_keeps_every_offset():
    cell = 'def f(x: int, *a: "s", y: list[int] = 3) -> dict[str, "é"]:\n    """Doc é."""\n    z: float = 2\n'
    blank = similarity.unannotated(cell)
    assert len(blank) == len(cell) and blank.count("\n") == cell.count("\n")
    assert "int" not in blank and "Doc" not in blank and "float" not in blank and "= 3" in blank
    assert similarity.unannotated("%time x: int = 1\n") == "%time x: int = 1\n"  # a magic: left alone


def _flat_hashes(code: str) -> set:
    from copydetect.utils import filter_code

    filtered, _ = filter_code(code, "a.py", "python")
    return set(similarity.kgram_hashes(filtered, similarity.NOISE).tolist())


def test_fingerprints_are_the_same_in_every_process():
    code = (CORPUS / "honest_sets.py").read_text(encoding="utf-8")
    script = (
        "import sys; from booktools.similarity import fingerprint; "
        "print(sorted(fingerprint('a', sys.stdin.read()).hashes)[:5])"
    )
    runs = {
        subprocess.run(
            [sys.executable, "-c", script],
            input=code,
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
            env={"PYTHONHASHSEED": seed, "PATH": ""},
        ).stdout
        for seed in ("1", "2")
    }
    assert len(runs) == 1 and runs.pop().startswith("[-"), runs


# -- the command, its outputs and hostile input ---------------------------------------------------------


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def small_class(folder: Path) -> None:
    folder.mkdir()
    code = (CORPUS / "honest_mask.py").read_text(encoding="utf-8")
    hand_in(folder, "alice", code, ipynb=True, student="alice01")
    hand_in(folder, "bob", rename(code), ipynb=False)
    hand_in(folder, "carol", (CORPUS / "honest_loops.py").read_text(encoding="utf-8"), ipynb=True)


def test_the_command_writes_the_csv_and_the_report(tmp_path, capsys):
    small_class(tmp_path / "in")
    code, out, _err = _run(capsys, str(tmp_path / "in"), "--assignment", "halving", "--out", str(tmp_path / "r"))
    assert code == 0
    assert "3 submissions compared" in out and f"threshold {DEFAULT_THRESHOLD:g}" in out and "1 flagged" in out
    rows = (tmp_path / "r" / "similarity.csv").read_text(encoding="utf-8").splitlines()
    assert rows[0] == '"a","student_a","b","student_b","similarity_a","similarity_b","matched","flagged"'
    assert rows[1].startswith('"alice.ipynb","alice01","bob.md","bob",') and rows[1].endswith('"yes"')
    assert all(row.endswith('"no"') for row in rows[2:])
    page = (tmp_path / "r" / "similarity.html").read_text(encoding="utf-8")
    assert "hl-a" in page and "alice01" in page


def test_the_report_makes_no_request(tmp_path, capsys):
    small_class(tmp_path / "in")
    (tmp_path / "in" / "dave.md").write_text(
        HANDOUT.read_text(encoding="utf-8").replace("raise NotImplementedError", "pass  # see https://example.org")
    )
    assert _run(capsys, str(tmp_path / "in"), "--assignment", "halving", "--out", str(tmp_path / "r"))[0] == 0
    page = (tmp_path / "r" / "similarity.html").read_text(encoding="utf-8")
    assert not re.search(r"(?i)(src|href)\s*=\s*['\"]?\s*(https?:|//)", page)
    assert not re.search(r"(?i)url\(|@import|<script|<link|<img|<iframe", page)


def test_code_is_escaped_in_the_report(tmp_path, capsys):
    folder = tmp_path / "in"
    folder.mkdir()
    code = (CORPUS / "honest_signed.py").read_text(encoding="utf-8")
    hostile = code + '\nNOTE = "</script><script>alert(1)</script><b onmouseover=x>"\n'
    hand_in(folder, "evil", hostile, ipynb=True, student="x<b>y")
    hand_in(folder, "copy<i>", hostile, ipynb=False)
    assert _run(capsys, str(folder), "--assignment", "halving", "--out", str(tmp_path / "r"))[0] == 0
    page = (tmp_path / "r" / "similarity.html").read_text(encoding="utf-8")
    assert "<script" not in page and "<b " not in page and "<i>" not in page and "<b>y" not in page
    assert "&lt;/script&gt;&lt;script&gt;" in page and "copy&lt;i&gt;" in page


def test_errors_name_the_argument(tmp_path, capsys):
    code, _out, err = _run(capsys, str(tmp_path / "nowhere"), "--assignment", "halving")
    assert code == 2 and "DIR" in err and "is not a folder" in err
    (tmp_path / "empty").mkdir()
    code, _out, err = _run(capsys, str(tmp_path / "empty"), "--assignment", "halving", "--out", str(tmp_path / "r"))
    assert code == 2 and "holds no notebook" in err
    small_class(tmp_path / "in")
    code, _out, err = _run(capsys, str(tmp_path / "in"), "--assignment", "nosuch", "--out", str(tmp_path / "r"))
    assert code == 2 and "--assignment" in err and "nosuch" in err and "halving" in err
    code, _out, err = _run(capsys, str(tmp_path / "in"), "--assignment", "../x", "--out", str(tmp_path / "r"))
    assert code == 2 and "--assignment" in err
    code, _out, err = _run(capsys, str(tmp_path / "in"), "--assignment", "halving", "--threshold", "2")
    assert code == 2 and "--threshold" in err
    code, _out, err = _run(capsys, str(tmp_path / "in"), "--assignment", "halving", "--out", str(tmp_path / "in/r"))
    assert code == 2 and "inside DIR" in err


def test_unreadable_notebooks_get_a_reason_not_a_crash(tmp_path, capsys):
    folder = tmp_path / "in"
    small_class(folder)
    (folder / "broken.ipynb").write_text('{"cells": [', encoding="utf-8")
    (folder / "list.ipynb").write_text("[1, 2]", encoding="utf-8")
    (folder / "deep.ipynb").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    (folder / "latin.md").write_bytes(b"caf\xe9")
    (folder / "big.ipynb").write_bytes(b" " * (2 * 2**20))
    (folder / "odd.ipynb").write_text(json.dumps({"cells": [7, {"cell_type": "code", "source": 3}]}))
    (folder / "untouched.md").write_text(HANDOUT.read_text(encoding="utf-8"), encoding="utf-8")
    code, out, err = _run(
        capsys, str(folder), "--assignment", "halving", "--out", str(tmp_path / "r"), "--max-notebook-mb", "1"
    )
    assert code == 0 and "3 submissions compared (7 not)" in out
    assert "broken.ipynb" in err and "not valid JSON" in err
    assert "list.ipynb" in err and "not a Jupyter notebook" in err
    assert "deep.ipynb" in err and "nested too deeply" in err
    assert "latin.md" in err and "UTF-8" in err
    assert "big.ipynb" in err and "limit" in err
    assert "untouched.md" in err and "no code of the student's own" in err
    page = (tmp_path / "r" / "similarity.html").read_text(encoding="utf-8")
    assert "broken.ipynb" in page and "not valid JSON" in page


def test_code_beyond_the_limit_is_cut_and_said(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(similarity, "MAX_CODE_CHARS", 2000)
    folder = tmp_path / "in"
    small_class(folder)
    filler = "".join(f"value_{i} = {i} * 2 + 1\n" for i in range(400))
    hand_in(folder, "long", filler, ipynb=True)
    code, _out, err = _run(capsys, str(folder), "--assignment", "halving", "--out", str(tmp_path / "r"))
    assert code == 0 and "long.ipynb': code cut to its first 2000 characters" in err


def test_cells_of_the_handout_are_not_the_students(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    path = hand_in(folder, "alice", "x = 1\n", ipynb=True)
    [document] = analyse(folder, "halving", DEFAULT_THRESHOLD)[0]
    assert document.code.strip() == "x = 1", document.code
    assert "import onlinelib" in path.read_text(encoding="utf-8")


def test_the_library_compared_comes_from_forbidden(tmp_path):
    names = similarity.forbidden_names("halving", ROOT / "book" / "assignments" / "lecturer")
    assert "onlinelib.Halving" in names
    files = {p.name for p in similarity.library_files(names)}
    assert "version_space.py" in files and "streams.py" not in files
    # no hidden file (a private lecturer kit not given): every module of onlinelib
    assert similarity.forbidden_names("halving", tmp_path) == []
    every = {p.name for p in similarity.library_files([])}
    assert {"version_space.py", "streams.py"} <= every
