"""The grader's worker runs a notebook as Jupyter runs it (issue 23, item 3).

``booktools/grading/worker.py`` runs each code cell through IPython's shell: line and cell magics
that make sense offline, ``from __future__`` imports carried across cells, continuation lines
that start with ``!=`` or ``%``, top-level ``await``, ``display(...)`` and a cell's last
expression behave as in JupyterLab; magics and ``!`` commands that reach outside the notebook
fail their cell with a reason that names them. The old behaviours stay: the statuses and
reasons with the cell's own line numbers, ``raises-exception`` tags, and a ``SystemExit`` that
stops the notebook. Since issue 35 a cell's error no longer stops the notebook (the cells after it
run, and the error is recorded): ``tests/test_cell_errors.py`` tests that.

Without the sandbox, which is fast, the module's ``ran`` fixture runs every notebook of
``NOTEBOOKS`` once through the worker started as the grader starts it (``python -I
worker.py LIBDIR LIMITS``), and every cell of ``CELLS`` through the worker's own
``run_cell``, in one shell of one process. The last class grades ``tests/submissions/jupyter/``
with ``python -m booktools grade`` in the real sandbox.

Each class has a control that runs the same cells through the old worker's transformation,
``old_strip_magics`` below (a copy of the function this issue removed), or through IPython
without the worker's set-up, and shows that there the test would fail: the fixtures really
exercise what they are meant to.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import jupytext
import nbformat
import pytest

from booktools.grading.hidden import load_hidden
from booktools.grading.isolation import find_bwrap
from booktools.grading.library import assignment_library

ROOT = Path(__file__).resolve().parents[1]
WORKER = ROOT / "booktools" / "grading" / "worker.py"
JUPYTER = ROOT / "tests" / "submissions" / "jupyter"
READ_ONLY = ROOT / "tests" / "submissions" / "read_only"
LIMITS = {"memory_mb": 1024, "cpu_seconds": 60, "file_mb": 16, "processes": 256, "reply_bytes": 4 * 2**20}


# -- the control: the old worker's treatment of IPython syntax ------------------------------------


def old_strip_magics(source: str):
    """CONTROL: a copy of the worker's ``strip_magics`` before issue 23 (every line starting with
    ``%`` or ``!`` became ``pass``; a cell magic other than these three skipped its whole cell)."""
    lines = source.split("\n")
    first = lines[0].strip() if lines else ""
    if first.startswith("%%"):
        if first.split()[0] not in ("%%time", "%%timeit", "%%capture"):
            return None
        lines[0] = ""
    out = []
    for line in lines:
        stripped = line.lstrip()
        if stripped.startswith(("%", "!")):
            out.append(line[: len(line) - len(stripped)] + "pass  # IPython magic dropped by the grader")
        else:
            out.append(line)
    return "\n".join(out)


def old_run(cells) -> dict:
    """CONTROL: run cells as the old worker did (old_strip_magics, each cell compiled on its own); the namespace.

    Raises what the old worker turned into the notebook's outcome (SyntaxError, NameError...)."""
    namespace = {"__name__": "__main__"}
    for source in cells:
        source = old_strip_magics(source)
        if source is not None:
            exec(compile(source, "<old cell>", "exec", dont_inherit=True), namespace)  # not this file's __future__
    return namespace


# -- running the worker without the sandbox --------------------------------------------------------

# The parts of the notebooks below, one per feature. Each sets the names that its test reads.
TIME_MAGICS = ["%time report = 6 * 7", "%timeit -n1 -r1 pass", "%%timeit -n1 -r1\nsquare = 3 ** 2"]
CELL_MAGICS = ["%%time\nz = 5\nz * 2", "%%capture captured\nprint('kept by capture')"]
PURE_MAGICS = [
    "%who",
    "%precision 3",
    "1 / 3",
    "int?",
    "%config PlainTextFormatter.pprint = True",
    "%env GRADER_TEST=yes",
    "%load_ext autoreload\n%autoreload 2",
]
MATPLOTLIB = [
    "%matplotlib inline",
    "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.show()",
    "%matplotlib qt\nimport matplotlib\nbackend = matplotlib.get_backend()",
]
CONTINUATION = ["a, b = 1, 2\nok = (a\n      != b)\nrest = (7\n        % 3)\nsame = a \\\n    != b"]
FUTURE = [
    "from __future__ import annotations",
    "def annotated(x: UndefinedName = 1) -> AlsoUndefined:\n    pass\n\nannotations = annotated.__annotations__",
]
OUTPUTS = ["6 * 7", "display('shown by display')", "7 * 6;", "print('printed')"]
AWAIT = ["import asyncio\nawait asyncio.sleep(0)\nawaited = 'yes'"]


def code_cell(source: str, tags=()):
    return nbformat.v4.new_code_cell(source, metadata={"tags": list(tags)} if tags else {})


# name -> the code cells of a notebook (a string, or (source, tags)); the worker looks `f` up
# after the cells, and the tests call it
NOTEBOOKS = {
    "magics": TIME_MAGICS
    + CELL_MAGICS
    + PURE_MAGICS
    + MATPLOTLIB
    + ["import os\n\ndef f():\n    return [report, z, captured.stdout, os.environ['GRADER_TEST'], backend]"],
    "syntax": CONTINUATION + FUTURE + OUTPUTS + AWAIT + ["def f():\n    return [ok, rest, same, annotations, awaited]"],
    "quiet": [
        "x = 1",
        "def f():\n    import sys\n    return [sys.excepthook is sys.__excepthook__,\n"
        "            sys.displayhook is sys.__displayhook__, type(sys.stdout).__name__]",
    ],
    "system_exit": ["raise SystemExit(3)", "f = len"],
    "system_exit_tagged": [("raise SystemExit(3)", ["raises-exception"]), "f = len"],
    "missing": ["x = 1"],
}

# cells run one by one in one shell (CELL_RUNNER), each as code cell 2: name -> (source, tags, outcome)
REFUSED_BY = "{}, which a graded notebook may not do; remove it"
SHELL = REFUSED_BY.format("runs a shell command")
OUTSIDE = REFUSED_BY.format("runs code or uses files from outside the notebook")
REFUSED = {
    "shell": ("!touch ran_a_shell_command", "line 1: `!touch ran_a_shell_command` " + SHELL),
    "shell_assigned": ("files = !ls", "line 1: `!ls` " + SHELL),
    "shell_output": ("!!ls", "line 1: `!ls` " + SHELL),
    "run": ("%run x.py", "line 1: `%run x.py` " + OUTSIDE),
    "load": ("%load x", "line 1: `%load x` " + OUTSIDE),
    "pip": ("%pip install x", "line 1: `%pip install x` " + REFUSED_BY.format("installs packages")),
    "bash": ("%%bash\ntouch ran_a_shell_command", "line 1: `%%bash` " + SHELL),
    "writefile": ("%%writefile written.py\nprint(1)", "line 1: `%%writefile written.py` " + OUTSIDE),
    "system_method": ('get_ipython().system("ls")', "line 1: `!ls` " + SHELL),
    "line_magic_method": ('get_ipython().run_line_magic("run", "x")', "line 1: `%run x` " + OUTSIDE),
    "cell_magic_method": ('get_ipython().run_cell_magic("sh", "", "ls")', "line 1: `%%sh` " + SHELL),
    "getoutput_method": ("get_ipython().getoutput('ls')", "line 1: `!ls` " + SHELL),
    "sx": ("%sx ls", "line 1: `%sx ls` " + SHELL),
    "cd": ("%cd /", "line 1: `%cd /` " + OUTSIDE),
    "load_ext": ("%load_ext line_profiler", "line 1: `%load_ext line_profiler` " + OUTSIDE),
    "unknown": (
        "x = 1\n%lprun -f g g()",
        "line 2: `%lprun -f g g()` is not one of the magics the grader runs "
        "(those that make sense offline, such as %time, %timeit, %%capture and %matplotlib); remove it",
    ),
    "in_capture": ("%%capture\n!ls", "line 1: `!ls` " + SHELL),
    "in_time_cell": ("\n%%time\nx = 1\n!ls", "line 4: `!ls` " + SHELL),
    "caught": ("try:\n    get_ipython().system('ls')\nexcept Exception:\n    pass", "line 2: `!ls` " + SHELL),
}
CELLS = {
    **{
        f"refused_{name}": (cell, [], {"status": "error", "reason": f"code cell 2, {reason}"})
        for name, (cell, reason) in REFUSED.items()
    },
    "refused_tagged": ("!touch ran_a_shell_command", ["raises-exception"], None),
    "find_magic": (
        "ip = get_ipython()\nassert ip.find_line_magic('run') is None\n"
        "assert ip.find_cell_magic('bash') is None\nassert ip.find_line_magic('time') is not None",
        [],
        None,
    ),
    "syntax_error": (
        "\ndef g(:\n    pass",
        [],
        {"status": "syntax_error", "reason": "syntax error in code cell 2, line 2: invalid syntax"},
    ),
    "exception": (
        "\n\ny = 2\nraise ValueError('bad value')",
        [],
        {"status": "error", "reason": "code cell 2, line 4 raised ValueError: bad value"},
    ),
    "exception_in_time_cell": (
        "%%time\na = 1\nb = 1 / 0",
        [],
        {"status": "error", "reason": "code cell 2, line 3 raised ZeroDivisionError: division by zero"},
    ),
    "exception_in_time_line": (
        "a = 1\n%time b = 1 / 0",
        [],
        {"status": "error", "reason": "code cell 2, line 2 raised ZeroDivisionError: division by zero"},
    ),
    "raises_tagged": ("1 / 0", ["raises-exception"], None),
    "system_exit": (
        "raise SystemExit(3)",
        [],
        {"status": "error", "reason": "code cell 2, line 1 raised SystemExit: 3"},
    ),
    "exit_call": ("exit()", [], {"status": "error", "reason": "code cell 2, line 1 raised SystemExit"}),
    "keyboard_interrupt": (
        "raise KeyboardInterrupt",
        [],
        {"status": "error", "reason": "code cell 2, line 1 raised KeyboardInterrupt"},
    ),
}

# Runs CELLS through the worker's own run_cell, in one shell: faster than a worker per cell, and
# sound, as none of these cells changes what the others do.
CELL_RUNNER = """
import json, runpy, sys
worker = runpy.run_path(sys.argv[1])  # the worker's functions (its main() does not run)
shell = worker["notebook_shell"]()
with open(sys.argv[2], encoding="utf-8") as handle:
    cells = json.load(handle)
outcomes = {name: worker["run_cell"](shell, {"number": 2, "source": source, "tags": tags}, 1024)
            for name, (source, tags) in cells.items()}
with open(sys.argv[3], "w", encoding="utf-8") as handle:
    json.dump(outcomes, handle)
"""


def sandbox_like_env(folder: Path) -> dict:
    """The worker's environment in the sandbox, with its home and temporary folders in ``folder``."""
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": str(folder / "home"),
        "TMPDIR": str(folder),
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": str(folder / "matplotlib"),
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
    }


def run_worker(cells, folder: Path, library: Path) -> dict:
    """Run ``cells`` as a notebook through the worker (no sandbox), then call its ``f()``.

    Returns the run's outcome, f's reply (None if the run failed), the student's output
    (the worker's standard error), the folder it ran in and its home folder."""
    (folder / "home").mkdir(parents=True)
    notebook = nbformat.v4.new_notebook(
        metadata={"kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"}}
    )
    notebook.cells = [code_cell(*cell) if isinstance(cell, tuple) else code_cell(cell) for cell in cells]
    path = folder / "submission.ipynb"
    nbformat.write(notebook, path)
    requests = [
        {"id": 1, "op": "run", "notebook": str(path), "function": "f", "kind": "function"},
        {"id": 2, "op": "call", "ref": 1, "args": [], "kwargs": {}},
    ]
    proc = subprocess.run(
        [sys.executable, "-I", str(WORKER), str(library), json.dumps(LIMITS)],
        input="".join(json.dumps(r) + "\n" for r in requests),
        capture_output=True,
        text=True,
        env=sandbox_like_env(folder),
        cwd=folder,
        timeout=120,
    )
    replies = {reply.get("id"): reply for reply in map(json.loads, proc.stdout.splitlines())}
    outcome = replies[1]["outcome"]
    return {
        "outcome": outcome,
        "f": replies[2] if outcome["status"] == "ok" else None,
        "output": proc.stderr,
        "folder": folder,
        "home": folder / "home",
    }


def run_cells(folder: Path) -> dict:
    """Run CELLS with CELL_RUNNER in ``folder``; {"outcomes": {name: outcome or None}, "folder": ...}."""
    (folder / "home").mkdir(parents=True)
    cases = {name: [source, tags] for name, (source, tags, _) in CELLS.items()}
    (folder / "cells.json").write_text(json.dumps(cases), encoding="utf-8")
    subprocess.run(
        [sys.executable, "-I", "-c", CELL_RUNNER, str(WORKER), "cells.json", "outcomes.json"],
        env=sandbox_like_env(folder),
        cwd=folder,
        check=True,
        capture_output=True,
        timeout=120,
    )
    return {"outcomes": json.loads((folder / "outcomes.json").read_text(encoding="utf-8")), "folder": folder}


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    """Every notebook of NOTEBOOKS, and CELLS, run once: {name: run_worker's result, "cells": run_cells's}."""
    base = tmp_path_factory.mktemp("worker")
    library = base / "lib"
    assignment_library(["onlinelib.Halving"], "halving", library)
    with ThreadPoolExecutor(4) as pool:
        futures = {name: pool.submit(run_worker, cells, base / name, library) for name, cells in NOTEBOOKS.items()}
        futures["cells"] = pool.submit(run_cells, base / "cells")
        return {name: future.result() for name, future in futures.items()}


def value(result):
    """What the notebook's f() returned."""
    assert result["outcome"]["status"] == "ok", result["outcome"]
    assert "value" in result["f"], result["f"]
    return result["f"]["value"]


def check_cell(ran, name):
    """The cell's status and reason as CELLS says (run_cell's record also has its cell, line and type)."""
    outcome = ran["cells"]["outcomes"][name]
    found = None if outcome is None else {key: outcome[key] for key in ("status", "reason")}
    assert found == CELLS[name][2]
    if outcome is not None and outcome["status"] != "memory":
        assert outcome["cell"] == 2 and isinstance(outcome["type"], str), outcome
        line = re.search(r"line (\d+)", outcome["reason"])
        assert outcome["line"] == (int(line.group(1)) if line else None), outcome


# -- magics that make sense offline ---------------------------------------------------------------


class TestMagics:
    def test_line_and_cell_magics_keep_their_code(self, ran):
        report, z, captured, environ, backend = value(ran["magics"])
        assert (report, z, captured, environ) == (42, 5, "kept by capture\n", "yes")
        output = ran["magics"]["output"]
        assert output.count("Wall time") == 2 and output.count("per loop") == 2
        assert "Out[4]: 10" in output and "kept by capture" not in output

    def test_matplotlib_runs_inline_whatever_backend_is_asked(self, ran):
        assert "inline" in value(ran["magics"])[-1]  # %matplotlib qt too: there is no Qt here
        assert "<Figure size" in ran["magics"]["output"]  # shown (as text) and closed after its cell

    def test_pure_magics_and_help(self, ran):
        output = ran["magics"]["output"]
        assert "0.333" in output and "Docstring:" in output and "env: GRADER_TEST=yes" in output

    def test_control_the_old_worker_loses_the_statements(self):
        assert old_strip_magics("%time report = 6 * 7") == "pass  # IPython magic dropped by the grader"
        with pytest.raises(NameError, match="report"):
            old_run(TIME_MAGICS + ["report"])
        with pytest.raises(NameError, match="captured"):
            old_run(CELL_MAGICS + ["captured"])


# -- Python syntax that IPython parses as Python does -------------------------------------------------


class TestContinuationLines:
    def test_lines_starting_with_not_equal_or_percent(self, ran):
        assert value(ran["syntax"])[:3] == [True, 1, True]

    def test_control_the_old_worker_makes_them_a_syntax_error(self):
        assert "    pass  # IPython magic dropped" in old_strip_magics(CONTINUATION[0])
        with pytest.raises(SyntaxError):
            old_run(CONTINUATION)


class TestFutureImports:
    def test_a_future_import_holds_in_later_cells(self, ran):
        assert value(ran["syntax"])[3] == {"x": "UndefinedName", "return": "AlsoUndefined"}

    def test_control_cells_compiled_on_their_own_forget_it(self):
        with pytest.raises(NameError, match="UndefinedName"):
            old_run(FUTURE)


class TestOutputs:
    def test_last_expression_display_and_semicolon(self, ran):
        output = ran["syntax"]["output"]
        assert "Out[4]: 42" in output
        assert "'shown by display'" in output and "printed\n" in output
        assert output.count("42") == 1, output  # `7 * 6;` shows nothing, as in Jupyter

    def test_top_level_await(self, ran):
        assert value(ran["syntax"])[4] == "yes"

    def test_control_the_old_worker_shows_no_last_expression_and_refuses_await(self):
        shown = io.StringIO()
        with contextlib.redirect_stdout(shown):
            old_run(OUTPUTS[:1])
        assert shown.getvalue() == ""
        with pytest.raises(SyntaxError, match="'await' outside function"):
            old_run(AWAIT)


# -- what a graded notebook may not do ---------------------------------------------------------------


class TestRefusedMagics:
    @pytest.mark.parametrize("name", sorted(REFUSED))
    def test_the_cell_fails_with_a_reason_naming_it(self, ran, name):
        check_cell(ran, f"refused_{name}")

    def test_nothing_ran(self, ran):
        assert sorted(path.name for path in ran["cells"]["folder"].iterdir()) == ["cells.json", "home", "outcomes.json"]

    def test_find_magic_finds_only_allowed_magics(self, ran):
        check_cell(ran, "find_magic")

    def test_a_raises_exception_tag_lets_the_notebook_go_on(self, ran):
        check_cell(ran, "refused_tagged")

    def test_control_the_old_worker_ignored_them(self):
        """The old worker turned these lines into `pass` and skipped a %%bash cell: the notebook ran "fine"."""
        for name in ("shell", "run", "pip", "load_ext"):
            assert "pass  # IPython magic dropped by the grader" in old_strip_magics(REFUSED[name][0])
        assert old_strip_magics(REFUSED["bash"][0]) is None
        assert old_run([REFUSED["in_capture"][0], "ran = True"])["ran"]


# -- the worker's old behaviours -------------------------------------------------------------------------


class TestOldBehaviours:
    @pytest.mark.parametrize(
        "name",
        [
            "syntax_error",
            "exception",
            "exception_in_time_cell",
            "exception_in_time_line",
            "raises_tagged",
            "system_exit",
            "exit_call",
            "keyboard_interrupt",
        ],
    )
    def test_statuses_and_reasons(self, ran, name):
        check_cell(ran, name)

    def test_a_system_exit_stops_the_notebook(self, ran):
        """Cell 2 (f = len) does not run: f is left undefined by the SystemExit (before issue 35 the
        outcome was the same status and reason, without the cell and the list of errors)."""
        assert ran["system_exit"]["outcome"] == {
            "status": "error",
            "reason": "code cell 1, line 1 raised SystemExit: 3",
            "cell": 1,
            "cell_errors": [
                {
                    "status": "error",
                    "reason": "code cell 1, line 1 raised SystemExit: 3",
                    "cell": 1,
                    "line": 1,
                    "type": "SystemExit",
                }
            ],
            "cell_errors_total": 1,
        }

    def test_the_function_is_looked_up_after_the_cells(self, ran):
        assert ran["missing"]["outcome"] == {
            "status": "missing",
            "reason": "the notebook does not define f (keep the name of the stub)",
            "cell_errors": [],
            "cell_errors_total": 0,
        }

    def test_control_the_stopping_cell_is_what_stops_it(self, ran):
        """With the same cell tagged raises-exception, the notebook goes on and defines f."""
        assert ran["system_exit_tagged"]["outcome"]["status"] == "ok"

    def test_control_ipython_alone_numbers_lines_from_the_first_non_blank_one(self):
        """IPython drops a cell's leading blank lines: without the worker's correction, "line 4" would be "line 2"."""
        from IPython.core.inputtransformer2 import TransformerManager

        assert TransformerManager().transform_cell(CELLS["exception"][0]) == "y = 2\nraise ValueError('bad value')\n"


# -- the shell is offline: no files, no banners, no hooks left behind --------------------------------------


class TestOfflineShell:
    def test_nothing_printed_nothing_written_no_hook_left(self, ran):
        result = ran["quiet"]
        assert result["output"] == ""
        assert value(result) == [True, True, "TextIOWrapper"]
        assert not list(result["home"].iterdir())
        assert sorted(path.name for path in result["folder"].iterdir()) == ["home", "submission.ipynb"]

    def test_control_a_default_ipython_shell_writes_its_folder_in_home(self, tmp_path):
        subprocess.run(
            [
                sys.executable,
                "-I",
                "-c",
                "from IPython.core.interactiveshell import InteractiveShell\nInteractiveShell.instance()",
            ],
            env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
            check=True,
            timeout=60,
        )
        assert (tmp_path / ".ipython" / "profile_default").is_dir()


class TestReadingANotebook:
    """The worker reads a notebook without jupytext's server parts, which the notebook can still import."""

    PROBE = """
import json, runpy, sys
read_cells = runpy.run_path(sys.argv[1])["read_cells"]
cells = read_cells(sys.argv[2])
loaded = sorted(name for name in ("jupyter_server", "tornado") if name in sys.modules)
import jupyter_server, tornado.web  # the notebook's own import works as usual
print(json.dumps({"cells": len(cells), "loaded while reading": loaded, "imported": tornado.web.__name__}))
"""

    def test_jupytext_reads_without_its_server_parts_and_the_notebook_can_import_them(self):
        done = subprocess.run(
            [sys.executable, "-I", "-c", self.PROBE, str(WORKER), str(JUPYTER / "magics_correct.md")],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        seen = json.loads(done.stdout)
        expected = len([c for c in jupytext.read(JUPYTER / "magics_correct.md").cells if c.cell_type == "code"])
        assert seen == {"cells": expected, "loaded while reading": [], "imported": "tornado.web"}, seen

    def test_control_jupytext_alone_imports_them(self):
        done = subprocess.run(
            [sys.executable, "-I", "-c", "import sys, jupytext; print('tornado' in sys.modules)"],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        assert done.stdout.strip() == "True"


# -- end to end: python -m booktools grade, in the sandbox ----------------------------------------------------


def graded_rows(folder: Path, assignment: str, out: Path) -> dict:
    """``folder`` graded by the lecturer's command: {file: its CSV row}."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "booktools",
            "grade",
            str(folder),
            "--assignment",
            assignment,
            "--out",
            str(out),
            "--jobs",
            "2",
            "--timeout",
            "30",
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    with out.open(newline="", encoding="utf-8") as handle:
        return {row["submission"]: row for row in csv.DictReader(handle)}


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    """tests/submissions/jupyter graded as halving."""
    return graded_rows(JUPYTER, "halving", tmp_path_factory.mktemp("jupyter") / "scores.csv")


@pytest.fixture(scope="module")
def read_only_rows(tmp_path_factory):
    """tests/submissions/read_only graded as normalized_step, whose hidden tests set READ_ONLY_ARGUMENTS."""
    return graded_rows(READ_ONLY, "normalized_step", tmp_path_factory.mktemp("read_only") / "scores.csv")


@pytest.mark.skipif(
    find_bwrap() is None,
    reason="bubblewrap is not installed (apt-get install bubblewrap); .ci/run installs it and runs these",
)
class TestGradedInTheSandbox:
    def test_a_function_that_changes_its_argument_loses_those_cases(self, read_only_rows):
        honest, in_place = read_only_rows["copy_first.md"], read_only_rows["in_place.md"]
        assert (honest["status"], honest["score"]) == ("graded", honest["max_score"]), honest
        assert in_place["status"] == "graded" and float(in_place["score"]) < float(in_place["max_score"]), in_place
        assert "raised ValueError: changed its argument W in place" in in_place["feedback"], in_place

    def test_control_the_in_place_step_returns_the_right_values(self):
        """Without the argument check it would get full marks: its return values are right."""
        from booktools.grading import checks

        hidden = load_hidden(ROOT / "book" / "assignments" / "lecturer" / "normalized_step_hidden.py")
        namespace = {}
        exec(jupytext.read(READ_ONLY / "in_place.md").cells[-1].source, namespace)
        report = checks.compare_functions(namespace["normalized_step"], hidden.REFERENCE, hidden.cases())
        assert report.passed, report.summary()

    def test_magics_future_and_continuations_get_full_marks(self, rows):
        row = rows["magics_correct.md"]
        assert (row["status"], row["score"]) == ("graded", row["max_score"]), row

    def test_a_shell_command_fails_its_cell_with_its_reason(self, rows):
        """The `!ls` cell fails and defines nothing; the learner, in the next cell, is graded (issue 35:
        before, the refusal stopped the notebook, status error, 0)."""
        row = rows["shell_command.md"]
        assert (row["status"], row["score"]) == ("graded", row["max_score"]), row
        assert row["feedback"] == (
            f"{row['max_score']}/{row['max_score']}: all checks passed; errors in the notebook's cells: "
            "code cell 2, line 1: `!ls` runs a shell command, which a graded notebook may not do; remove it"
        )

    def test_control_the_old_worker_fails_one_and_ignores_the_other(self):
        def cells(name):
            return [cell.source for cell in jupytext.read(JUPYTER / name).cells if cell.cell_type == "code"]

        with pytest.raises(SyntaxError):  # the continuation lines of the learner
            old_run(cells("magics_correct.md"))
        assert old_strip_magics(cells("shell_command.md")[1]) == "pass  # IPython magic dropped by the grader"
