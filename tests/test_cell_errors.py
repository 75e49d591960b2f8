"""An error in a cell costs only the parts that cell defines (issue 35).

The grader's worker (``booktools/grading/worker.py``) runs every code cell, even after one raised;
the names a raising cell bound before its error stay bound, as in Jupyter, and each error is
recorded (cell, line, type, reason). The judge (``booktools/grading/judge.py``) grades what is
defined: a one-part assignment whose function or class is defined is graded as usual, and the
feedback lists the cells' errors; one whose name is not defined gets the status and reason of the
error that left it undefined. In an assignment of several parts (``PARTS``), each part a cell's
error left undefined gets 0 with that error as its reason, and the other parts are graded. A part
is "left undefined by" a cell's error when the cell's top-level code would bind its name (``def``,
``class``, an assignment, an import) and the name is not bound once the cell has run; a cell with a
syntax error binds nothing. A timeout, running out of memory, too much output or a crash still end
the submission.

The worker (before issue 35, ``booktools/grade_worker.py`` at the commit that moved it) stopped at
the first cell that raised and returned ``{"status": "error", "reason": "code cell N, line L raised
..."}`` as the notebook's outcome, so every notebook below with an error in a cell got 0, status
``error`` (or ``syntax_error``), and no later cell ran. Each test says what that code did with its
notebook: each fails there.

The first class runs the worker as the grader starts it without the sandbox (fast); the others
grade notebooks with ``python -m booktools grade`` in the real sandbox (``--cpu-seconds 5``).
"""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from pathlib import Path

import jupytext
import nbformat
import pytest

from booktools.grading import checks
from booktools.grading.hidden import load_hidden
from booktools.grading.isolation import find_bwrap
from booktools.grading.library import assignment_library
from examples import MYST_HEADER

ROOT = Path(__file__).resolve().parents[1]
WORKER = ROOT / "booktools" / "grading" / "worker.py"
ASSIGNMENTS = ROOT / "book" / "assignments"
LIMITS = {"memory_mb": 1024, "cpu_seconds": 60, "file_mb": 16, "processes": 256, "reply_bytes": 4 * 2**20}
CPU_SECONDS = 5

IMPORTS = "import numpy as np\n\nimport onlinelib as ol\nfrom onlinelib import grading"
HALVING = """class HalvingLearner:
    def __init__(self, table):
        self.table = np.asarray(table, dtype=bool)
        self.alive = np.ones(self.table.shape[0], dtype=bool)

    @property
    def size(self):
        return int(self.alive.sum())

    def predict(self, x):
        return 1 if 2 * int(self.table[self.alive, x].sum()) >= self.size else -1

    def update(self, x, y):
        self.alive &= self.table[:, x] == (y == 1)"""
DEBUG_LINE = "print(learner.size)  # left over from debugging: there is no `learner` here"
SPIN = "while True:\n    pass"


# -- the worker, without the sandbox ------------------------------------------------------------------------


def run_worker(folder: Path, cells: list, lookups=("f",)) -> dict:
    """Run ``cells`` as a notebook through the worker (``python -I worker.py``, as the grader starts it
    without the sandbox), look up each name of ``lookups`` and call it if found; {request id: reply}."""
    library = folder / "lib"
    if not library.exists():
        assignment_library([], "halving", library)
    notebook = nbformat.v4.new_notebook(
        metadata={"kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"}}
    )
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    path = folder / f"notebook{len(list(folder.glob('notebook*')))}.ipynb"
    nbformat.write(notebook, path)
    requests = [{"id": 1, "op": "run", "notebook": str(path), "function": None}]
    for name in lookups:
        requests.append({"id": len(requests) + 1, "op": "lookup", "function": name, "kind": "function"})
    proc = subprocess.run(
        [sys.executable, "-I", str(WORKER), str(library), json.dumps(LIMITS)],
        input="".join(json.dumps(request) + "\n" for request in requests),
        capture_output=True,
        text=True,
        cwd=folder,
        timeout=120,
    )
    replies = [json.loads(line) for line in proc.stdout.splitlines()]
    return {reply["id"]: reply for reply in replies if "id" in reply}


class TestTheWorkerRunsEveryCell:
    def test_a_stray_line_after_a_definition_keeps_the_definition(self, tmp_path):
        """The old worker stopped at cell 2's NameError: outcome error, f never looked up."""
        replies = run_worker(tmp_path, [IMPORTS, "def f():\n    return 42\n\n" + DEBUG_LINE, "after = 1"])
        outcome = replies[1]["outcome"]
        assert outcome["status"] == "ok"
        assert outcome["cell_errors"] == [
            {
                "status": "error",
                "reason": "code cell 2, line 4 raised NameError: name 'learner' is not defined",
                "cell": 2,
                "line": 4,
                "type": "NameError",
            }
        ]
        assert outcome["cell_errors_total"] == 1
        assert replies[2]["outcome"]["status"] == "ok"

    def test_a_name_the_error_kept_from_being_bound_gets_that_error(self, tmp_path):
        """The old worker stopped at cell 2 with the same reason, and never ran cell 3 (g is defined there)."""
        cells = [IMPORTS, "x = 1 / 0\n\ndef f():\n    return x", "def g():\n    return 2"]
        replies = run_worker(tmp_path, cells, lookups=("f", "g"))
        assert replies[2]["outcome"] == {
            "status": "error",
            "reason": "code cell 2, line 1 raised ZeroDivisionError: division by zero",
            "cell": 2,
        }
        assert replies[3]["outcome"]["status"] == "ok"  # the cell after the error ran

    def test_a_syntax_error_defines_nothing_and_the_other_cells_run(self, tmp_path):
        """The old worker stopped at cell 2, status syntax_error; cell 3 never ran."""
        cells = [IMPORTS, "def f(:\n    return 1", "def g():\n    return 2"]
        replies = run_worker(tmp_path, cells, lookups=("f", "g"))
        assert replies[2]["outcome"] == {
            "status": "syntax_error",
            "reason": "syntax error in code cell 2, line 1: invalid syntax",
            "cell": 2,
        }
        assert replies[3]["outcome"]["status"] == "ok"

    def test_a_name_no_cell_meant_to_bind_is_missing_after_the_first_error(self, tmp_path):
        """A name no raising cell would have bound (a renamed stub) is missing; the reason adds the first error."""
        replies = run_worker(tmp_path, [IMPORTS, "raise ValueError('no')", "def other():\n    pass"])
        assert replies[2]["outcome"] == {
            "status": "error",
            "reason": "the notebook does not define f (keep the name of the stub); "
            "code cell 2, line 1 raised ValueError: no",
        }
        clean = run_worker(tmp_path, [IMPORTS, "def other():\n    pass"])
        assert clean[2]["outcome"] == {
            "status": "missing",
            "reason": "the notebook does not define f (keep the name of the stub)",
        }

    def test_the_errors_reported_are_bounded(self, tmp_path):
        """Twelve raising cells: the outcome lists the first ten and counts all twelve."""
        replies = run_worker(tmp_path, [f"raise KeyError({i})" for i in range(12)] + ["def f():\n    return 1"])
        outcome = replies[1]["outcome"]
        assert [error["cell"] for error in outcome["cell_errors"]] == list(range(1, 11))
        assert outcome["cell_errors_total"] == 12
        assert replies[2]["outcome"]["status"] == "ok"

    def test_exit_stops_the_notebook_and_names_what_it_left_undefined(self, tmp_path):
        """exit() stops the notebook as a script's would: f, defined before it, is kept; g, in a cell
        that did not run, is left undefined by it. (The old worker's outcome was error for both.)"""
        cells = ["def f():\n    return 1", "exit()", "def g():\n    return 2"]
        replies = run_worker(tmp_path, cells, lookups=("f", "g"))
        assert replies[1]["outcome"]["cell_errors_total"] == 1
        assert replies[2]["outcome"]["status"] == "ok"
        assert replies[3]["outcome"] == {
            "status": "error",
            "reason": "code cell 2, line 1 raised SystemExit",
            "cell": 2,
        }


def test_the_judge_names_the_first_three_errors_and_counts_the_rest():
    """The worker's list is untrusted: entries that are not errors are dropped, the text is one clean line."""
    from booktools.grading.judge import cell_errors, cell_errors_text

    outcome = {
        "cell_errors": [{"reason": f"code cell {i} raised\x1b[2J E"} for i in range(1, 11)] + ["junk", None],
        "cell_errors_total": 12,
    }
    reasons, total = cell_errors(outcome)
    assert (reasons[0], len(reasons), total) == ("code cell 1 raised [2J E", 10, 12)
    assert cell_errors_text(reasons, total) == (
        "; errors in the notebook's cells: code cell 1 raised [2J E; code cell 2 raised [2J E; "
        "code cell 3 raised [2J E; and 9 more"
    )
    assert cell_errors({"cell_errors": "many", "cell_errors_total": True}) == ([], 0)
    assert cell_errors_text([], 0) == ""


# -- python -m booktools grade, in the sandbox ------------------------------------------------------------------


def myst(cells: list) -> str:
    return MYST_HEADER + "".join(f"\n```{{code-cell}} ipython3\n{cell}\n```\n" for cell in cells)


def with_parts(name: str, replace: dict) -> str:
    """The assignment's notebook with the code cells ``replace`` names (the cell's number, from 1)
    replaced by the given source."""
    notebook = jupytext.read(ASSIGNMENTS / f"{name}.md")
    number = 0
    for cell in notebook.cells:
        if cell.cell_type == "code":
            number += 1
            cell.source = replace.get(number, cell.source)
    return jupytext.writes(notebook, fmt="md:myst")


# winnow2: code cell 1 imports, 2 is part (a)'s class, 3 its public checks, 4 part (b)'s function,
# 5 its public checks. Correct code for both, as a student writes it.
LEARNER = """class Winnow2Learner:
    def __init__(self, n, alpha, theta=None):
        self.alpha, self.theta = Fraction(alpha), Fraction(n if theta is None else theta)
        self.weights = [Fraction(1)] * n
        self.promotions = self.demotions = 0

    def predict(self, x):
        score = sum((w for w, xi in zip(self.weights, x) if xi == 1), Fraction(0))
        return 1 if score > self.theta else -1

    def update(self, x, y):
        if self.predict(x) != y:
            factor = self.alpha if y == 1 else 1 / self.alpha
            self.weights = [w * factor if xi == 1 else w for w, xi in zip(self.weights, x)]
            self.promotions += y == 1
            self.demotions += y == -1"""
STREAM = """def winnow2_counterexample(n):
    alpha, theta = Fraction(3, 2), Fraction(n)
    w = [Fraction(1)] * n
    X, y = [], []
    while True:  # promote x_0 with the heaviest others below theta; then demote by the lightest overshoot
        others = sorted(range(1, n), key=lambda i: w[i], reverse=True)
        active, score = ([0], w[0]) if w[0] <= theta else ([], Fraction(0))
        for i in others:
            if score + w[i] <= theta:
                active.append(i)
                score += w[i]
        label = 1
        if w[0] > theta:
            extra = [i for i in reversed(others) if i not in active and score + w[i] > theta]
            if not extra:
                break
            active.append(extra[0])
            label = -1
        for i in active:
            w[i] = w[i] * alpha if label == 1 else w[i] / alpha
        X.append([1 if i in active else 0 for i in range(n)])
        y.append(label)
    return X, y, [0]"""
STREAM_STUB = """def winnow2_counterexample(n):
    raise NotImplementedError


winnow2_counterexample(48)  # trying the stub out: it raises at the top level"""
PREDICT_LINE = LEARNER.splitlines().index("    def predict(self, x):") + 1

SUBMISSIONS = {
    "halving": {
        "stray_debug_line.md": myst([IMPORTS, HALVING + "\n\n\n" + DEBUG_LINE]),
        "error_before_class.md": myst([IMPORTS, "ratio = 1 / 0\n\n\n" + HALVING, "after = 1"]),
        "error_then_spin.md": myst([IMPORTS, DEBUG_LINE, HALVING, SPIN]),
        "correct.md": myst([IMPORTS, HALVING]),
    },
    "winnow2": {
        "part_b_stub_raises.md": with_parts("winnow2", {2: LEARNER, 4: STREAM_STUB}),
        "part_b_raises_first.md": with_parts(
            "winnow2", {2: LEARNER, 4: "assert False, 'part (b) is not done yet'\n\n" + STREAM}
        ),
        "part_a_error_first.md": with_parts("winnow2", {2: "scale = 1 / 0\n\n" + LEARNER, 4: STREAM}),
        "part_a_syntax_error.md": with_parts(
            "winnow2", {2: LEARNER.replace("def predict(self, x):", "def predict(self, x)"), 4: STREAM}
        ),
        "correct.md": with_parts("winnow2", {2: LEARNER, 4: STREAM}),
    },
}


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    """Each folder of SUBMISSIONS graded once, both runs at once: {assignment: {file: its CSV row}}."""
    if find_bwrap() is None:
        pytest.skip("bubblewrap is not installed (apt-get install bubblewrap); .ci/run installs it and runs these")
    runs = {}
    for assignment, files in SUBMISSIONS.items():
        folder = tmp_path_factory.mktemp(assignment) / "submissions"
        folder.mkdir()
        for name, text in files.items():
            (folder / name).write_text(text, encoding="utf-8")
        out = folder.parent / "scores.csv"
        command = [sys.executable, "-m", "booktools", "grade", str(folder), "--assignment", assignment]
        command += ["--out", str(out), "--jobs", "2", "--timeout", "60", "--cpu-seconds", str(CPU_SECONDS)]
        runs[assignment] = (subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE), out)
    found = {}
    for assignment, (process, out) in runs.items():
        _, stderr = process.communicate(timeout=600)
        assert process.returncode == 0, stderr.decode(errors="replace")[-3000:]
        with out.open(newline="", encoding="utf-8") as handle:
            found[assignment] = {row["submission"]: row for row in csv.DictReader(handle)}
    return found


def part_points(name: str, part: str) -> float:
    """The points of one part of an assignment of several: the reference's, with every other part missing."""
    hidden = load_hidden(ASSIGNMENTS / "lecturer" / f"{name}_hidden.py")
    student = {
        other: hidden.REFERENCE[other] if other == part else checks.MissingPart(other, "left out")
        for other in hidden.PARTS
    }
    return hidden.grade(student).score


needs_bwrap = pytest.mark.skipif(find_bwrap() is None, reason="bubblewrap is not installed")


@needs_bwrap
class TestOnePart:
    def test_a_stray_debug_line_after_a_correct_class_costs_nothing_and_is_named(self, rows):
        """(a) The old worker stopped at the debug line: status error, 0 of 5."""
        row = rows["halving"]["stray_debug_line.md"]
        assert (row["status"], row["score"]) == ("graded", row["max_score"]), row
        assert row["feedback"] == (
            f"{row['max_score']}/{row['max_score']}: all checks passed; errors in the notebook's cells: "
            "code cell 2, line 17 raised NameError: name 'learner' is not defined"
        )

    def test_an_error_before_the_definition_is_the_reason(self, rows):
        """(c) Not defined: 0, with the error that kept the class from being defined, as the old worker
        said (it gave the same row, stopping there; the control below is the cell after it running)."""
        row = rows["halving"]["error_before_class.md"]
        assert (row["status"], row["score"]) == ("error", "0"), row
        assert row["feedback"] == "code cell 2, line 1 raised ZeroDivisionError: division by zero"

    def test_a_timeout_still_ends_the_run(self, rows):
        """(d) The old worker stopped at cell 2's NameError (status error) and never reached the loop."""
        row = rows["halving"]["error_then_spin.md"]
        assert (row["status"], row["score"]) == ("timeout", "0"), row
        assert re.fullmatch(
            rf"(used more than its {CPU_SECONDS} s of CPU time|timed out after 60 s) in code cell 4", row["feedback"]
        ), row

    def test_control_a_notebook_without_errors_has_no_cell_errors_in_its_feedback(self, rows):
        row = rows["halving"]["correct.md"]
        assert row["feedback"] == f"{row['max_score']}/{row['max_score']}: all checks passed", row


@needs_bwrap
class TestSeveralParts:
    def test_a_part_b_stub_that_raises_at_the_top_level_costs_only_part_b(self, rows):
        """(b) The old worker stopped at cell 4's NotImplementedError: status error, 0 for both parts.
        Now part (a) gets its points; part (b), the stub, none, and the feedback names the error."""
        row = rows["winnow2"]["part_b_stub_raises.md"]
        points = part_points("winnow2", "Winnow2Learner")
        assert 0 < points < float(row["max_score"])
        assert (row["status"], float(row["score"])) == ("graded", points), row
        assert "not implemented yet" in row["feedback"], row
        # line 2: the line of the cell the error was raised at (in the stub, which line 5 calls)
        assert row["feedback"].endswith(
            "; errors in the notebook's cells: code cell 4, line 2 raised NotImplementedError"
        ), row

    def test_a_part_whose_cell_raises_before_its_definition_gets_0_with_that_error(self, rows):
        """(b, c) The old worker stopped at the assert (or the division) in cell 4 (or 2): 0 for both
        parts. Now the part that cell defines gets 0 with the error as its reason; the other, its points."""
        for name, lost, kept, reason in (
            ("part_b_raises_first.md", "winnow2_counterexample", "Winnow2Learner", (4, "AssertionError", "part (b)")),
            ("part_a_error_first.md", "Winnow2Learner", "winnow2_counterexample", (2, "ZeroDivisionError", "division")),
        ):
            row = rows["winnow2"][name]
            assert (row["status"], float(row["score"])) == ("graded", part_points("winnow2", kept)), row
            cell, error, message = reason
            assert f"{lost} is not defined: code cell {cell}, line 1 raised {error}: {message}" in row["feedback"], row

    def test_a_syntax_error_costs_the_part_of_its_cell(self, rows):
        """The old worker stopped at cell 2: status syntax_error, 0 for both parts."""
        row = rows["winnow2"]["part_a_syntax_error.md"]
        assert (row["status"], float(row["score"])) == ("graded", part_points("winnow2", "winnow2_counterexample"))
        message = f"Winnow2Learner is not defined: syntax error in code cell 2, line {PREDICT_LINE}: expected ':'"
        assert message in row["feedback"], row

    def test_control_correct_code_gets_every_automatic_point(self, rows):
        row = rows["winnow2"]["correct.md"]
        assert (row["status"], row["score"]) == ("graded", row["max_score"]), row
        assert "errors in the notebook's cells" not in row["feedback"], row
