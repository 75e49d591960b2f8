"""Tests of the grader's parts: the plain-data codec, the stubbed library, the sandbox and its proxies.

tests/test_grading.py grades the honest test submissions end to end and
tests/test_grade_attacks.py the hostile ones; this file tests each part on its own.
"""

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import onlinelib as ol
from booktools.grading import checks, sandbox
from booktools.grading.collect import find_submissions, read_notebook
from booktools.grading.csvfile import csv_cell
from booktools.grading.hidden import load_hidden, write_public_checks
from booktools.grading.isolation import CgroupLimits, find_bwrap
from booktools.grading.library import assignment_library, resolve_forbidden
from booktools.grading.text import markdown_text
from examples import SANDBOX_LIMITS, assignment_names
from onlinelib import grading, plain_data

ROOT = Path(__file__).resolve().parents[1]
LECTURER = ROOT / "book" / "assignments" / "lecturer"
# the one-part code assignments (a learner or a function), discovered: a new one is tested too (issue 37)
NAMES = assignment_names(("learner", "function"), one_part=True)


def hidden_tests(name):
    """An assignment's hidden tests, loaded as the grader loads them."""
    return load_hidden(LECTURER / f"{name}_hidden.py")


HAVE_BWRAP = find_bwrap() is not None
needs_bwrap = pytest.mark.skipif(
    not HAVE_BWRAP and not os.environ.get("CI"),
    reason="bubblewrap is not installed (apt-get install bubblewrap); CI installs it and runs these",
)


# -- the plain-data codec ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,
        3,
        -(2**80),
        0.1,
        float("inf"),
        "text",
        Fraction(-7, 3),
        [1, [2.5, "a"]],
        (1, (2,)),
        {"a": [1, 2], "b": {"c": None}},
        np.int8(-3),
        np.float64(0.25),
        np.arange(6, dtype=np.uint8).reshape(2, 3),
        np.array([True, False]),
        np.zeros((0, 4)),
        np.array([[Fraction(1, 2), 3], [np.int64(-4), Fraction(7, 3)]], dtype=object),  # issue 36
        np.empty((0, 2), dtype=object),
        ol.monotone_monomials(),
        ol.bounded_conjunctions(2),
    ],
)
def test_plain_data_round_trip(value):
    back = plain_data.loads(plain_data.dumps(value))
    if isinstance(value, np.ndarray):
        assert back.dtype == value.dtype and back.shape == value.shape and np.array_equal(back, value)
    elif isinstance(value, ol.kernels.BooleanKernel):
        assert (back.monotone, back.max_literals) == (value.monotone, value.max_literals)
    elif isinstance(value, np.generic):
        assert back == value.item() and type(back) is type(value.item())
    else:
        assert back == value and type(back) is type(value)
    assert plain_data.loads(plain_data.dumps(float("nan"))) != plain_data.loads(plain_data.dumps(float("nan")))


class Sneaky:
    def __eq__(self, other):
        return True


@pytest.mark.parametrize(
    "value, pattern",
    [
        (Sneaky(), "an object of type Sneaky is not plain data"),
        ([1, {"k": object()}], r"an object of type object is not plain data at \[1\]\['k'\]"),
        (np.array([object()]), "dtype object may hold only ints and Fractions, got object at \\[0\\]"),
        (np.array([1.5], dtype=object), "dtype object may hold only ints and Fractions, got float"),
        (np.array([True], dtype=object), "dtype object may hold only ints and Fractions, got bool"),
        ({1: 2}, "dict keys must be strings"),
        ({"$tuple": [1]}, "dict keys must be strings not starting with"),
        (1 + 2j, "an object of type complex is not plain data"),
    ],
)
def test_plain_data_refuses_what_is_not_data(value, pattern):
    with pytest.raises(plain_data.PlainDataError, match=pattern):
        plain_data.encode(value)


@pytest.mark.parametrize(
    "text, pattern",
    [
        ('{"$exec": "import os"}', "unknown tag '\\$exec'"),
        ('{"$tuple": [1], "x": 2}', "one key"),
        ('{"$array": {"dtype": "object", "shape": [1], "data": [1]}}', "dtype must be one of"),
        ('{"$array": {"dtype": "int8", "shape": [3], "data": [1]}}', "one entry per element"),
        ('{"$array": {"dtype": "int8", "shape": [1], "data": [1000]}}', "bad \\$array"),
        ('{"$array": {"dtype": "int8", "shape": [1], "data": ["1"]}}', "must hold numbers"),
        ('{"$fraction": ["1", "0"]}', "bad \\$fraction"),
        ('{"$objects": {"shape": [2], "data": [1, 2.5]}}', "must hold ints and fractions"),
        ('{"$objects": {"shape": [3], "data": [1, 2]}}', "one entry per element"),
        ('{"$objects": {"shape": [1], "data": [[1]]}}', "must hold ints and fractions"),
        ('{"$objects": {"shape": [1]}}', "must hold shape and data"),
        ('{"$kernel": {"monotone": 1, "max_literals": null}}', "\\$kernel must hold"),
        ("[" * 40 + "]" * 40, "nested more than 32"),
        ("[" * 100000 + "]" * 100000, "not valid JSON|nested more than"),
        ("1" * 5000, "not valid JSON"),
        ("{", "not valid JSON"),
    ],
)
def test_plain_data_decode_refuses_malformed_input(text, pattern):
    with pytest.raises(plain_data.PlainDataError, match=pattern):
        plain_data.loads(text)


# -- no reference solution in the installed library ------------------------------------------------


def test_the_library_holds_no_reference_solution():
    assert not [name for name in dir(grading) if name.startswith("reference")]
    text = "".join(path.read_text(encoding="utf-8") for path in sorted((ROOT / "onlinelib" / "grading").glob("*.py")))
    assert "def reference_" not in text and "Halving(" not in text


@pytest.mark.parametrize("name", NAMES)
def test_hidden_files_define_the_reference_and_what_to_remove(name):
    hidden = hidden_tests(name)
    targets = resolve_forbidden(hidden.FORBIDDEN)
    assert targets and all(module.startswith("onlinelib.") for module in targets)
    assert hidden.grade(hidden.REFERENCE).passed


@pytest.mark.parametrize(
    "names, pattern",
    [
        (["numpy.sum"], "must name a part of onlinelib"),
        (["onlinelib"], "cannot remove all of onlinelib"),
        (["onlinelib.NoSuchThing"], "onlinelib has no 'NoSuchThing'"),
        (["onlinelib.__version__"], "is not a class, function or method"),
    ],
)
def test_resolve_forbidden_bad_entries(names, pattern):
    with pytest.raises(ValueError, match=pattern):
        resolve_forbidden(names)


# -- the public checks are data, recorded from the references ---------------------------------------


def test_public_checks_files_are_current(tmp_path):
    """The committed NAME_public.json files equal what the references record now."""
    assert write_public_checks(check=True) == 0
    for path in (ROOT / "book" / "assignments").glob("*_public.json"):
        shutil.copyfile(path, tmp_path / path.name)
    stale = tmp_path / "rwma_public.json"
    data = json.loads(stale.read_text())
    data["cases"][0]["expected"]["$array"]["data"][3] += 1e-6
    stale.write_text(json.dumps(data))
    assert write_public_checks(check=True, assignments=tmp_path) == 1
    assert write_public_checks(check=False, assignments=tmp_path) == 0
    assert stale.read_text() == (ROOT / "book" / "assignments" / "rwma_public.json").read_text()


def test_public_checks_of_one_assignment_touch_no_other_file(tmp_path):
    """``--write-public-checks --assignment NAME`` (issue 37): adding an assignment rewrites only its file."""
    for path in (ROOT / "book" / "assignments").glob("*_public.json"):
        shutil.copyfile(path, tmp_path / path.name)
    for name in ("rwma", "halving"):
        (tmp_path / f"{name}_public.json").write_text("stale\n")
    assert write_public_checks(check=True, assignments=tmp_path, only="rwma") == 1
    assert write_public_checks(check=False, assignments=tmp_path, only="rwma") == 0
    assert (tmp_path / "rwma_public.json").read_text() == (
        ROOT / "book" / "assignments" / "rwma_public.json"
    ).read_text()
    assert (tmp_path / "halving_public.json").read_text() == "stale\n"  # the control: not this assignment's
    with pytest.raises(ValueError, match="--assignment 'nope': there is no nope_hidden.py in"):
        write_public_checks(check=True, assignments=tmp_path, only="nope")
    done = subprocess.run(
        [sys.executable, "-m", "booktools", "grade", "--write-public-checks", "--check", "--assignment", "nope"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 2 and "there is no nope_hidden.py" in done.stderr, done.stderr


def test_public_checks_catch_a_wrong_learner_and_bad_files(tmp_path):
    public = grading.load_public_checks(ROOT / "book" / "assignments" / "halving_public.json")
    hidden = hidden_tests("halving")
    assert public.run(hidden.REFERENCE).passed

    class TiesDown:
        def __init__(self, table):
            self.learner = hidden.REFERENCE(table)

        size = property(lambda self: self.learner.size)

        def predict(self, x):
            negative, positive = self.learner.votes(x)
            return 1 if positive > negative else -1

        def update(self, x, y):
            self.learner.update(x, y)

    report = public.run(TiesDown)
    assert not report.passed and "first difference at round 1 (prediction): expected +1, got -1" in report.summary()
    with pytest.raises(FileNotFoundError, match="keep it next to the notebook"):
        grading.load_public_checks(tmp_path / "halving_public.json")
    (tmp_path / "bad.json").write_text('{"format": 2}')
    with pytest.raises(ValueError, match="public checks written by record_public_checks"):
        grading.load_public_checks(tmp_path / "bad.json")
    with pytest.raises(ValueError, match="exactly one of streams"):
        checks.record_public_checks(hidden.REFERENCE)


# -- the library a submission sees ---------------------------------------------------------------------


def _in_library(lib: Path, code: str) -> subprocess.CompletedProcess:
    """Run ``code`` with ``lib`` first on the import path, as the sandboxed worker has it.

    ``-s -P``: no user site and no current folder on the path, only PYTHONPATH's ``lib`` before the
    environment's packages (the worker puts LIBDIR first in the same place)."""
    env = dict(os.environ, PYTHONPATH=str(lib))
    return subprocess.run(
        [sys.executable, "-s", "-P", "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120, env=env
    )


@pytest.mark.parametrize("name", NAMES)
def test_the_stubbed_library_imports_and_every_removed_part_raises(name, tmp_path):
    hidden = hidden_tests(name)
    removed = assignment_library(hidden.FORBIDDEN, name, tmp_path / "lib")
    assert sum(removed.values()) >= len(hidden.FORBIDDEN)
    code = f"""
        import importlib
        import onlinelib, onlinelib.learning_curves
        from onlinelib._forbidden import ForbiddenInAssignment, USED
        assert onlinelib.__file__.startswith({str(tmp_path)!r}), onlinelib.__file__
        def targets(name):
            try:  # a whole module: each function and class defined in it
                module = importlib.import_module(name)
            except ImportError:
                module, _, attribute = name.rpartition(".")
                return [getattr(importlib.import_module(module), attribute)]
            return [v for v in vars(module).values() if callable(v) and getattr(v, "__module__", "") == name]
        attempts = [
            lambda target: target(),
            lambda target: type("Sub", (target,), {{}})() if isinstance(target, type) else target(1),
        ]
        for name in {hidden.FORBIDDEN!r}:
            assert targets(name), name
            for target in targets(name):
                for attempt in attempts:
                    try:
                        attempt(target)
                    except ForbiddenInAssignment as exc:
                        assert "asks you to write" in str(exc)
                    else:
                        raise SystemExit(name + " still works")
        print(len(USED))
    """
    result = _in_library(tmp_path / "lib", code)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) >= 2 * len(hidden.FORBIDDEN)


def test_the_stubbed_library_holds_none_of_the_removed_code(tmp_path):
    hidden = hidden_tests("halving")
    assignment_library(hidden.FORBIDDEN, "halving", tmp_path / "lib")
    original = (ROOT / "onlinelib" / "version_space.py").read_text(encoding="utf-8")
    copy = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "lib").rglob("*.py"))
    assert "def votes" in original and "def votes" not in copy  # Halving.votes is gone, source and all
    assert "_majority(positives" in original and "_majority(positives" not in copy
    assert not [
        p for p in (tmp_path / "lib").rglob("*.pyc") if "version_space" in p.name and b"votes" in p.read_bytes()
    ]
    # and what the chapters and the streams need still works there
    result = _in_library(
        tmp_path / "lib",
        """
        import numpy as np, onlinelib as ol
        X, y = ol.random_stream(ol.thresholds(7), 3, 10, np.random.default_rng(0))
        print(len(X), ol.littlestone_dimension(ol.thresholds(7)))
    """,
    )
    assert result.returncode == 0 and result.stdout.split() == ["10", "3"], result.stderr


# -- the sandbox ------------------------------------------------------------------------------------------

PROBE_MARK = f"written by the sandbox probe of pid {os.getpid()}"
PROBE = r"""
import os, socket, sys

def probe():
    out = {"uid": os.getuid(), "cwd": os.getcwd(), "root": sorted(os.listdir("/"))}
    out["repository"] = sorted(os.listdir(REPO)) if os.path.isdir(REPO) else []
    out["pid"] = os.getpid()
    out["proc"] = os.path.exists("/proc")
    for path in ("/etc/passwd", REPO + "/README.md", "/usr/evil", "/submission/evil", "/dev/shm/evil", "/evil", "/tmp/ok"):
        try:
            with open(path, "a") as f:
                f.write(MARK)
            out[path] = "written"
        except OSError as exc:
            out[path] = type(exc).__name__
    try:
        socket.create_connection(("127.0.0.1", 22), timeout=1)
        out["network"] = "connected"
    except OSError as exc:
        out["network"] = type(exc).__name__
    return out


class Learner:
    def __init__(self, n):
        self.n = n
        self.weights = [1.0] * n

    def predict(self, x):
        return 1

    def update(self, x, y):
        if y == -1:
            raise ValueError("negative label")

    def not_data(self):
        return object()

    def too_big(self):
        return list(range(300_000))


def make_object(n):
    return object()
"""


LIMITS = SANDBOX_LIMITS


def notebook_box(tmp_path: Path, cells: list[str]) -> tuple[Path, Path]:
    """A submission folder holding a notebook of these code cells, and the halving assignment's library."""
    hidden = hidden_tests("halving")
    assignment_library(hidden.FORBIDDEN, "halving", tmp_path / "lib")
    inner = tmp_path / "box"
    inner.mkdir(mode=0o755)
    notebook = {
        "cells": [
            {"cell_type": "code", "metadata": {}, "source": cell, "outputs": [], "execution_count": None}
            for cell in cells
        ],
        "metadata": {"kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (inner / "submission.ipynb").write_text(json.dumps(notebook))
    for path in (tmp_path, inner, inner / "submission.ipynb"):
        path.chmod(0o755)
    return inner, tmp_path / "lib"


def start_sandbox(inner: Path, lib: Path, limits: dict, bwrap: str | None) -> sandbox.Sandbox:
    return sandbox.Sandbox(
        inner,
        lib,
        limits,
        time.monotonic() + limits["timeout"],
        bwrap=bwrap,
        name=f"onlinelib-grade-test-{os.getpid()}",
    )


@pytest.fixture
def box(tmp_path):
    inner, lib = notebook_box(tmp_path, [PROBE.replace("REPO", repr(str(ROOT))).replace("MARK", repr(PROBE_MARK))])
    boxes = []
    found_bwrap = find_bwrap()

    def start(function, bwrap=found_bwrap, kind="learner"):
        sb = start_sandbox(inner, lib, LIMITS, bwrap)
        boxes.append(sb)
        where = "/submission/submission.ipynb" if bwrap else str(inner / "submission.ipynb")
        outcome = sb.run_notebook(where, function, kind)
        assert outcome["status"] == "ok", outcome
        return sb, sb.value(outcome)

    yield start
    for sb in boxes:
        sb.close()
    assert not (tmp_path / "box" / "evil").exists()


# A loop that spins ends after its CPU seconds (here 1), not at the deadline (60 s, a liveness
# guard): the same work on an idle machine and a loaded one, so the status is exact. Catching
# SIGXCPU buys two seconds more, then the kernel kills the process.
SPIN = "while True:\n    pass"
IGNORE_XCPU = "import signal\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\n" + SPIN


@needs_bwrap
@pytest.mark.parametrize(
    "cells, status, reason",
    [
        (["x = 1", SPIN], "timeout", r"^used more than its 1 s of CPU time in code cell 2$"),
        ([IGNORE_XCPU], "crashed", r"^the submission was killed by SIGKILL in code cell 1\b"),
    ],
)
def test_a_loop_that_spins_ends_at_its_cpu_seconds(tmp_path, cells, status, reason):
    import re

    inner, lib = notebook_box(tmp_path, cells)
    sb = start_sandbox(inner, lib, dict(LIMITS, cpu_seconds=1), find_bwrap())
    try:
        with pytest.raises(sandbox.SandboxFailure) as info:
            sb.run_notebook("/submission/submission.ipynb", "anything")
    finally:
        sb.close()
    assert (info.value.status, info.value.infrastructure) == (status, False), info.value.reason
    assert re.search(reason, info.value.reason), info.value.reason


@needs_bwrap
def test_the_sandbox_is_sealed(box):
    _, probe = box("probe")
    seen = probe()
    assert seen["uid"] == 65534 and seen["cwd"] == "/tmp/work"
    assert seen["repository"] == [], f"the repository is visible in the sandbox: {seen['repository']}"
    # its own PID namespace (bwrap's init is 1, the worker 2), and no /proc: its mountinfo would
    # name the host folders behind the bind mounts
    assert seen["pid"] <= 3 and not seen["proc"], seen
    assert seen["/tmp/ok"] == "written"
    for path in ("/etc/passwd", "/usr/evil", "/submission/evil", "/dev/shm/evil", "/evil"):
        assert seen[path] != "written", (path, seen)
    # The repository's README is judged on this machine: for a checkout under /tmp its path inside
    # the sandbox is on the sandbox's own writable /tmp, where a write proves nothing (issue 25).
    # The mark, not the whole file, because people may edit the README while this runs.
    assert PROBE_MARK not in (ROOT / "README.md").read_text(encoding="utf-8"), (
        f"the sandbox wrote into {ROOT}/README.md (the probe saw: {seen[f'{ROOT}/README.md']})"
    )
    assert seen["network"] in ("OSError", "ConnectionRefusedError") or "Unreachable" in seen["network"], seen
    # the Python environment is under /grader (or /usr), never at its path on this machine
    assert set(seen["root"]) <= {
        "bin",
        "dev",
        "etc",
        "grader",
        "lib",
        "lib32",
        "lib64",
        "sbin",
        "submission",
        "tmp",
        "usr",
    }, seen["root"]


@needs_bwrap
def test_remote_objects_behave_like_local_ones_but_return_only_data(box):
    _, learner_class = box("Learner")
    learner = learner_class(3)
    assert learner.n == 3 and learner.weights == [1.0, 1.0, 1.0] and learner.predict(np.zeros(3)) == 1
    assert callable(learner.predict) and getattr(learner, "nope", None) is None
    learner.update(np.zeros(3), 1)
    with pytest.raises(sandbox.RemoteError, match="negative label") as info:
        learner.update(np.zeros(3), -1)
    assert info.value.remote_type == "ValueError"
    with pytest.raises(sandbox.RemoteError, match="not plain data"):
        learner.not_data()
    with pytest.raises(AttributeError):
        learner.weights = 0

    class Local:
        def __init__(self, n):
            pass

        def predict(self, x):
            return 1

        def update(self, x, y):
            pass

    report = checks.compare_learners(learner_class, Local, [("s", np.zeros((2, 3)), [1, -1], {"n": 3})])
    assert report.checks[0].message == "round 2: update raised ValueError: negative label"
    # a reply over reply_bytes (1 MB here) fails that call only, with its size; the next call works
    with pytest.raises(sandbox.RemoteError, match=r"returned 1\.\d MB of data, more than the limit of 1024 KB"):
        learner.too_big()
    assert learner.predict(np.zeros(3)) == 1


def test_a_function_assignment_gets_data_back_never_an_object(box):
    _, make_object = box("make_object", kind="function")
    with pytest.raises(sandbox.RemoteError, match="an object of type object is not plain data"):
        make_object(2)
    _, learner_class = box("Learner", kind="learner")
    assert "in the sandbox" in repr(learner_class(2))


def test_the_unsafe_mode_speaks_the_same_protocol(box):
    _, learner_class = box("Learner", bwrap=None)
    assert learner_class(2).weights == [1.0, 1.0]


# -- the command line and its outputs ----------------------------------------------------------------------


@pytest.mark.skipif(
    os.geteuid() != 0 or not Path("/sys/fs/cgroup/pids/cgroup.procs").exists(),
    reason="needs root and the cgroup v1 pids controller (as in CI)",
)
def test_cgroups_of_a_dead_grader_are_removed_and_a_live_ones_kept():
    prefix = Path("/sys/fs/cgroup/pids") / CgroupLimits.PREFIX
    dead_pid = 2**22 + 1  # above pid_max's ceiling, so no process has it
    dead, alive = Path(f"{prefix}{dead_pid}-1"), Path(f"{prefix}{os.getpid()}-999")
    dead.mkdir()
    alive.mkdir()
    try:
        CgroupLimits.remove_stale()
        assert not dead.exists() and alive.exists()
    finally:
        for path in (dead, alive):
            if path.exists():
                path.rmdir()


def test_without_bubblewrap_the_grader_stops_and_names_the_package(tmp_path):
    (tmp_path / "subs").mkdir()
    env = dict(os.environ, PATH=str(tmp_path))  # no bwrap on this PATH
    command = [
        sys.executable,
        "-m",
        "booktools",
        "grade",
        str(tmp_path / "subs"),
        "--assignment",
        "halving",
        "--out",
        str(tmp_path / "s.csv"),
    ]
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, cwd=ROOT)
    assert result.returncode != 0
    assert "apt-get install bubblewrap" in result.stderr and "--unsafe-no-sandbox" in result.stderr


@pytest.mark.parametrize(
    "text, cell",
    [
        ('=HYPERLINK("http://x")', '\'=HYPERLINK("http://x")'),
        ("+1", "'+1"),
        ("-2", "'-2"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "\\tx"),
        ("\r=1", "\\r=1"),
        ("a\nb\x1b[31m", "a\\nb\\x1b[31m"),
        ("plain", "plain"),
    ],
)
def test_csv_cells_are_text(text, cell):
    assert csv_cell(text) == cell


def test_markdown_feedback_is_literal():
    assert markdown_text("[x](http://e) <b>*|") == "\\[x\\](http://e) \\<b\\>\\*\\|"


def test_find_submissions_gives_every_entry_a_row(tmp_path):
    (tmp_path / "a.md").write_text("x")
    (tmp_path / "README.md").write_text("x")
    (tmp_path / "_draft.md").write_text("x")
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / ".hidden.md").write_text("x")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.ipynb").write_text("{}")
    (tmp_path / ".ipynb_checkpoints").mkdir()
    (tmp_path / "link.md").symlink_to(tmp_path / "a.md")
    (tmp_path / "dirlink").symlink_to(tmp_path / "sub")
    os.mkfifo(tmp_path / "pipe.md")
    found = {name: problem for name, _, problem in find_submissions(tmp_path)}
    assert found["a.md"] is None and found["README.md"] is None and found["_draft.md"] is None
    assert found["sub/b.ipynb"] is None
    assert found["notes.txt"][0] == "skipped" and found[".hidden.md"][0] == "skipped"
    assert found[".ipynb_checkpoints/"][0] == "skipped"
    assert found["link.md"][0] == "rejected" and found["dirlink"][0] == "rejected"
    assert found["pipe.md"] == ("rejected", "not a regular file")


def test_read_notebook_caps_the_size_before_parsing(tmp_path):
    big = tmp_path / "big.md"
    big.write_bytes(b"x" * (2 * 2**20 + 1))
    data, problem = read_notebook(big, 2 * 2**20)
    assert data is None and problem[0] == "rejected" and "2 MB limit" in problem[1]
    (tmp_path / "latin.md").write_bytes("caf\xe9".encode("latin-1"))
    assert read_notebook(tmp_path / "latin.md", 2**20) == (None, ("unreadable", "not UTF-8 text (byte 3)"))
    (tmp_path / "link.md").symlink_to(big)
    assert read_notebook(tmp_path / "link.md", 2**30)[1][0] == "rejected"
