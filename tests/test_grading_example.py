"""The lecturer guide's recorded grading example runs as printed and gives the recorded gradebook (issue 27).

The guide (book/guide_for_lecturers.md, "A recorded example") grades the three hand-ins of
``docs/grading-example/submissions/``, shows the review page of the written question, merges the
marks of ``docs/grading-example/marks.csv`` and prints ``docs/grading-example/gradebook.csv``. This
test takes the commands from the guide's bash blocks as they stand (only the output folder is moved
to a temporary one, and ``.venv/bin/python`` is this interpreter), runs them from the repository's
root and compares the gradebook with the recorded file, so the guide cannot drift from the grader.

The hand-ins are Assignment 10's notebook as it stands, with each student's class and proof
(``HAND_INS``): a test checks that they are, and ``python tests/test_grading_example.py`` rewrites
them after a change to the assignment; then grade them as the guide's first commands do, and
``python tests/test_grading_example.py OUT/scores_review/rubric.csv`` fills that run's rubric
template with the marks below into ``marks.csv``; the guide's merge then gives the gradebook to
record. Every mark is a
level of its rubric item (0, half, full: issue 36), and the answers get the levels the item's
descriptors give (``MARKS``, with the reason for each).
"""

from __future__ import annotations

import csv
import json
import re
import shlex
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "book" / "guide_for_lecturers.md"
EXAMPLE = ROOT / "docs" / "grading-example"
NOTEBOOK = ROOT / "book" / "assignments" / "perceptron_proofs.md"
HIDDEN = ROOT / "book" / "assignments" / "lecturer" / "perceptron_proofs_hidden.py"
OUT = "/tmp/grading-example"

# -- the three hand-ins -------------------------------------------------------------------------------

_CLASS = '''class PerceptronLearner:
    """The Perceptron: w = 0; predict +1 iff <w, x> >= 0; if y <w, x> <= 0 then w += y x."""

    def __init__(self, n_features):
        self.weights = np.zeros(n_features)
        self.n_updates = 0

    def predict(self, x):
        return 1 if float(np.dot(self.weights, x)) >= 0 else -1

    def update(self, x, y):
        if y * float(np.dot(self.weights, x)) <= 0:
            self.weights = self.weights + y * np.asarray(x, dtype=float)
            self.n_updates += 1'''
# Ben updates only when the prediction is wrong (a score of 0 with the label +1 is then no update),
# the misreading his proof repeats; Chen predicts -1 on a score of 0.
_BEN_CLASS = _CLASS.replace(
    "        if y * float(np.dot(self.weights, x)) <= 0:",
    "        if self.predict(x) != y:  # a mistake: update",
)
_CHEN_CLASS = _CLASS.replace("float(np.dot(self.weights, x)) >= 0 else", "float(np.dot(self.weights, x)) > 0 else")

_ADA_PROOF = r"""Let $w^*$ be the unit vector of the hypothesis and $w_k$ the weights after $k$ updates, $w_0 = 0$.

*Growth of the norm.* An update happens only when $y_t\langle w_{k}, x_t\rangle \le 0$, so

$$\|w_{k+1}\|^2 = \|w_k\|^2 + 2 y_t \langle w_k, x_t\rangle + \|x_t\|^2 \le \|w_k\|^2 + R^2,$$

using the update condition and the radius; by induction $\|w_k\|^2 \le k R^2$.

*Progress along $w^*$.* $\langle w^*, w_{k+1}\rangle = \langle w^*, w_k\rangle + y_t\langle w^*, x_t\rangle \ge \langle w^*, w_k\rangle + \gamma$
by the margin, so $\langle w^*, w_k\rangle \ge k\gamma$.

*Combining.* By Cauchy–Schwarz and $\|w^*\| = 1$, $k\gamma \le \langle w^*, w_k\rangle \le \|w_k\| \le \sqrt{k}\,R$.
For $k = 0$ there is nothing to prove; for $k \ge 1$, dividing by $\sqrt{k}$ gives $\sqrt{k}\,\gamma \le R$,
hence $k \le R^2/\gamma^2$. Rounds without an update leave $w$ unchanged, so they change neither bound;
every mistake is an update, so the mistakes are at most $R^2/\gamma^2$ as well."""
_BEN_PROOF = r"""Each update adds $y_t x_t$, and since the prediction was wrong, $\|w_{k+1}\|^2 \le \|w_k\|^2 + R^2$,
so $\|w_k\|^2 \le kR^2$. The weights also move towards $w^*$ by at least $\gamma$ each time.
So the number of updates is bounded by $R^2/\gamma^2$."""

# file: (the class, the proof or None for an answer cell deleted, the notebook's metadata "student")
HAND_INS = {
    "ada.md": (_CLASS, _ADA_PROOF, None),
    "handin.ipynb": (_BEN_CLASS, _BEN_PROOF, "ben"),
    "chen/perceptron_proofs.md": (_CHEN_CLASS, None, None),
}


def hand_in_text(name: str) -> str:
    """The hand-in ``name`` as it must read: Assignment 10's notebook with the student's class in the
    stub's cell and the proof in the answer cell (the cell deleted for None). Cell ids are numbered,
    so the .ipynb is the same on every run."""
    code, proof, student = HAND_INS[name]
    notebook = jupytext.read(NOTEBOOK)
    cells = []
    for cell in notebook.cells:
        if cell.cell_type == "code" and cell.source.startswith("class PerceptronLearner:"):
            cell.source = code
        if cell.metadata.get("question") == "novikoff":
            if proof is None:
                continue
            cell.source = proof
        cells.append(cell)
    notebook.cells = cells
    if name.endswith(".md"):
        return jupytext.writes(notebook, fmt="md:myst")
    notebook.metadata.pop("jupytext", None)
    notebook.metadata["jupytext"] = {"default_lexer": "ipython3"}
    notebook.metadata["student"] = student
    for number, cell in enumerate(notebook.cells, start=1):
        cell["id"] = f"cell-{number}"
    return jupytext.writes(notebook, fmt="ipynb")


def write_hand_ins() -> None:
    """Rewrite docs/grading-example/submissions/ from the notebook as it stands."""
    for name in HAND_INS:
        path = EXAMPLE / "submissions" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(hand_in_text(name), encoding="utf-8")


def test_the_hand_ins_are_the_current_assignment_with_the_students_answers():
    for name in HAND_INS:
        recorded = (EXAMPLE / "submissions" / name).read_text(encoding="utf-8")
        assert recorded == hand_in_text(name), f"{name} is stale: run `python tests/test_grading_example.py`"
    ben = json.loads((EXAMPLE / "submissions" / "handin.ipynb").read_text(encoding="utf-8"))
    assert ben["metadata"]["student"] == "ben"


# -- the marks: levels of the rubric, as its descriptors give them ------------------------------------

# (student, item): (the mark, why the item's descriptors give it, the marker's comment)
MARKS = {
    ("ada", "potential"): (1, "expands the square, drops the cross term by the update condition, uses R, inducts", ""),
    ("ada", "alignment"): (1, "computes the gain with the margin and inducts", ""),
    ("ada", "cauchy_schwarz"): (1, "Cauchy-Schwarz with ||w*|| = 1, in the right direction", ""),
    ("ada", "combine"): (
        1,
        "k = 0 apart, rounds without an update, mistakes <= updates",
        "Complete and clear; every hypothesis is named where it is used.",
    ),
    ("ben", "potential"): (
        0,
        "the zero descriptor: the inequality asserted without expanding the square",
        "asserts ||w_{k+1}||^2 <= ||w_k||^2 + R^2 without expanding the square, and from 'the prediction "
        "was wrong' instead of the update condition y<w, x> <= 0; ||x|| <= R is never used",
    ),
    ("ben", "alignment"): (
        Fraction(1, 2),
        "the half descriptor: the gain of gamma stated, not computed",
        "'moves towards w* by at least gamma' needs the computation with the margin",
    ),
    ("ben", "cauchy_schwarz"): (
        0,
        "the zero descriptor: no link between alignment and length",
        "Cauchy-Schwarz is missing",
    ),
    ("ben", "combine"): (
        0,
        "the zero descriptor: the conclusion asserted, not derived",
        "the two bounds are never combined into k <= R^2/gamma^2",
    ),
}


def write_marks(template: Path) -> None:
    """Fill a grading run's ``rubric.csv`` (``template``) with MARKS into docs/grading-example/marks.csv,
    as a marker fills a copy of it (Chen's rows keep their "no answer")."""
    from booktools.grading.csvfile import read_csv, write_csv

    with (EXAMPLE / "scores_review_key.csv").open(newline="", encoding="utf-8") as handle:
        student_of = {row["code"]: row["student"] for row in csv.DictReader(handle)}
    header, rows = read_csv(template, exact=True)
    filled = []
    for _, cells in rows:
        row = dict(zip(header, cells, strict=True))
        mark = MARKS.get((student_of[row["code"]], row["item"]))
        if mark is not None:
            row["points"], row["comment"] = str(mark[0]), mark[2]
        filled.append([row[name] for name in header])
    write_csv(EXAMPLE / "marks.csv", header, filled)


def _marks() -> tuple[dict, dict]:
    """({(student, item): points or None}, {(student, item): comment}) from marks.csv and the key."""
    with (EXAMPLE / "scores_review_key.csv").open(newline="", encoding="utf-8") as handle:
        student_of = {row["code"]: row["student"] for row in csv.DictReader(handle)}
    points, comments = {}, {}
    with (EXAMPLE / "marks.csv").open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            key = (student_of[row["code"]], row["item"])
            points[key] = Fraction(row["points"]) if row["points"].strip() else None
            comments[key] = row["comment"]
    return points, comments


def test_every_recorded_mark_is_a_level_of_its_rubric_item():
    from booktools.grading.hidden import load_hidden
    from booktools.grading.questions import questions_from_hidden

    (question,) = questions_from_hidden(load_hidden(HIDDEN).QUESTIONS)
    items = {item.id: item for item in question.items}
    points, comments = _marks()
    assert {item for _, item in points} == set(items)
    for (student, item), given in points.items():
        if student == "chen":  # his answer cell was deleted: no mark, the reason in the comment
            assert given is None and comments[student, item] == "no answer"
            continue
        assert items[item].has_descriptors and given in items[item].levels, (student, item, given)
        assert given == MARKS[student, item][0], (student, item, given, MARKS[student, item])
        assert comments[student, item] == MARKS[student, item][2], (student, item)


def test_the_descriptors_decide_the_marks_of_the_recorded_answers():
    """What the descriptors look for, read off the answers themselves: Ben never expands
    ||w + y x||^2 (no cross term 2y<w, x>), never uses ||x|| <= R and argues from the wrong prediction,
    so his potential step is 0 (it had full credit before issue 36); he states the gain of gamma
    without computing it (half); Ada treats k = 0 and names the update condition (full)."""
    ben, ada = _BEN_PROOF, _ADA_PROOF
    assert "prediction was wrong" in ben and not re.search(r"2\s*y", ben) and r"\|x" not in ben
    assert "Cauchy" not in ben and r"\ge" not in ben and "k\\gamma" not in ben
    assert "update happens only when" in ada and re.search(r"2\s*y_t", ada) and "k = 0" in ada
    points, comments = _marks()
    assert points["ben", "potential"] == 0 and "without expanding the square" in comments["ben", "potential"]
    assert "prediction was wrong" in comments["ben", "potential"]
    assert points["ben", "alignment"] == Fraction(1, 2) and points["ben", "cauchy_schwarz"] == 0
    assert sum(points[key] for key in points if key[0] == "ben") == Fraction(1, 2)
    assert sum(points[key] for key in points if key[0] == "ada") == 4


# -- the guide's commands -----------------------------------------------------------------------------


def guide_commands() -> list[str]:
    """The shell lines of the guide's bash blocks that belong to the recorded example."""
    blocks = re.findall(r"```bash\n(.*?)```", GUIDE.read_text(encoding="utf-8"), flags=re.S)
    lines = [line for block in blocks for line in block.splitlines() if OUT in line]
    assert len(lines) == 4, f"the guide's example has mkdir, cp and two grading commands: {lines}"
    return lines


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="the grader's sandbox needs bubblewrap")
def test_the_guides_example_gives_the_recorded_gradebook(tmp_path):
    out = tmp_path / "grading-example"
    for line in guide_commands():
        words = [w.replace(OUT, str(out)) for w in shlex.split(line)]
        if words[0] == ".venv/bin/python":
            words[0] = sys.executable
        result = subprocess.run(words, cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, f"{line}\n{result.stderr[-3000:]}"
    got = (out / "scores_gradebook.csv").read_text(encoding="utf-8")
    assert got == (EXAMPLE / "gradebook.csv").read_text(encoding="utf-8")
    page = (out / "scores_review" / "novikoff.html").read_text(encoding="utf-8")
    assert "Cauchy" in page and "No answer" in page
    # the markers' page shows the descriptors and the common errors (issue 36)
    assert "Argues from the mistake" in page and "Reverses Cauchy-Schwarz" in page
    ben = (out / "scores_feedback" / "handin.md").read_text(encoding="utf-8")
    assert "Cauchy-Schwarz is missing" in ben and "0.5/4" in ben
    assert "Argues from the mistake" not in ben  # the descriptors stay with the markers
    # the rubric template of this run is the one marks.csv was filled from: same rows, same answers
    with (out / "scores_review" / "rubric.csv").open(newline="", encoding="utf-8") as handle:
        template = [(r["code"], r["item"], r["description"], r["answer_sha"]) for r in csv.DictReader(handle)]
    with (EXAMPLE / "marks.csv").open(newline="", encoding="utf-8") as handle:
        marked = [(r["code"], r["item"], r["description"], r["answer_sha"]) for r in csv.DictReader(handle)]
    assert template == marked


def test_the_recorded_files_are_those_the_guide_names():
    text = GUIDE.read_text(encoding="utf-8")
    for name in ("scores_review_key.csv", "marks.csv", "gradebook.csv", "review-novikoff.png"):
        assert (EXAMPLE / name).is_file() and name in text
    hand_ins = sorted(p.relative_to(EXAMPLE / "submissions").as_posix() for p in (EXAMPLE / "submissions").rglob("*.*"))
    assert hand_ins == sorted(HAND_INS) == ["ada.md", "chen/perceptron_proofs.md", "handin.ipynb"]


if __name__ == "__main__":
    # python tests/test_grading_example.py: the hand-ins; ... RUBRIC_CSV: marks.csv from a grading run's template
    if len(sys.argv) > 1:
        write_marks(Path(sys.argv[1]))
        print(f"wrote {EXAMPLE / 'marks.csv'} from {sys.argv[1]}")
    else:
        write_hand_ins()
        print(f"wrote {', '.join(HAND_INS)} into {EXAMPLE / 'submissions'}")
