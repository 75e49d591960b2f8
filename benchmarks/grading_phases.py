"""Where one graded submission's time goes, phase by phase: part 4 of ``grading_speed.py`` (issue 35).

A helper of ``benchmarks/grading_speed.py`` (imported, not a script): the sandbox timed from outside
by wrapping ``sandbox.Sandbox``'s methods (``stamped``), the grader's own judge run in this process,
a worker that imports nothing for the bare start, the interpreter and ``fork()`` for comparison, and
what stands between today's rate and the aim of 10,000 submissions in 10 minutes on 2 cores.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HONEST = ROOT / "tests" / "submissions" / "hostile" / "halving" / "control_correct.md"
AIM_ROWS, AIM_SECONDS, AIM_CORES = 10_000, 600.0, 2  # issue 35: 10,000 submissions in 10 minutes on 2 cores
# a worker that says it is ready at once: the sandbox's start without the worker's imports
NULL_WORKER = 'import sys\nsys.stdout.write(\'{"event": "ready"}\\n\')\nsys.stdout.flush()\nsys.stdin.read()\n'
# a Python that has imported what the worker imports forks N children that answer at once: per fork, in s
FORK_PROBE = """
import json, os, sys, time
import numpy, onlinelib
from IPython.core.interactiveshell import InteractiveShell
InteractiveShell.instance()
times = []
for _ in range(int(sys.argv[1])):
    r, w = os.pipe()
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.write(w, b"r")
        os._exit(0)
    os.read(r, 1)
    os.waitpid(pid, 0)
    times.append(time.perf_counter() - start)
    os.close(r)
    os.close(w)
print(json.dumps(times))
"""


@contextlib.contextmanager
def stamped(cls):
    """Time stamps of a sandbox's life, from outside: ``cls`` is ``sandbox.Sandbox``, its methods wrapped.

    Part of issue 35; nothing of the worker or the judge changes. Yields {label: the first time},
    filled as it happens: ``start`` and ``ready`` bracket the constructor (which returns on the
    worker's ready event), ``cell`` and ``checks`` are the worker's events as the grader reads
    them, ``close`` and ``closed`` bracket the teardown.
    """
    marks: dict[str, float] = {}
    saved = {name: cls.__dict__[name] for name in ("__init__", "_event", "close")}

    def mark(label: str) -> None:
        marks.setdefault(label, time.perf_counter())

    def init(box, *args, **kwargs):
        mark("start")
        saved["__init__"](box, *args, **kwargs)
        mark("ready")

    def event(box, message):
        if message.get("event") in ("cell", "checks"):
            mark(message["event"])
        return saved["_event"](box, message)

    def close(box):
        mark("close")
        saved["close"](box)
        mark("closed")

    for name, fn in (("__init__", init), ("_event", event), ("close", close)):
        setattr(cls, name, fn)
    try:
        yield marks
    finally:
        for name, fn in saved.items():
            setattr(cls, name, fn)


def make_grader(tmp: Path, timeout: float):
    """The grader of ``python -m booktools grade ... --assignment halving --timeout TIMEOUT``, as its
    command line makes it (options parsed and checked by ``booktools.grading.cli``)."""
    from booktools.grading import cli
    from booktools.grading.isolation import find_bwrap
    from booktools.grading.library import assignment_library
    from booktools.grading.run import Grader

    parser = cli.build_parser()
    args = parser.parse_args(
        [str(tmp), "--assignment", "halving", "--out", str(tmp / "x.csv"), "--timeout", str(timeout)]
    )
    cli.check_options(parser, args)
    reference = cli.load_reference(args)
    assignment_library(reference.hidden.FORBIDDEN, "halving", tmp / "lib")
    return Grader(reference.hidden_file, "halving", tmp / "lib", args, find_bwrap(), reference.max_score)


def judged(grader, data: bytes) -> dict[str, float]:
    """One honest submission through the grader's judge in this process: seconds per phase."""
    from booktools.grading import judge, sandbox

    box = grader._box(data, ".md")
    try:
        with stamped(sandbox.Sandbox) as at:
            begin = time.perf_counter()
            deadline = time.monotonic() + grader.args.timeout
            row = judge.judge(grader.config, box / "submission", "submission.md", deadline, grader._cgroup_name())
            end = time.perf_counter()
    finally:
        shutil.rmtree(box, ignore_errors=True)
    if row["status"] != "graded" or row["score"] != grader.config.max_score:
        raise SystemExit(f"the honest submission got {row['status']} {row['score']}: {row['feedback'][:300]}")
    return {
        "setup": at["start"] - begin,
        "start": at["ready"] - at["start"],
        "shell": at["cell"] - at["ready"],
        "cells": at["checks"] - at["cell"],
        "hidden": at["close"] - at["checks"],
        "teardown": at["closed"] - at["close"],
        "total": end - begin,
    }


def null_start(grader, data: bytes, tmp: Path) -> float:
    """Seconds from starting the sandbox to the first message of a worker that imports nothing."""
    from booktools.grading import isolation, sandbox

    null = tmp / "null_worker.py"
    null.write_text(NULL_WORKER, encoding="utf-8")
    null.chmod(0o644)
    saved = isolation.WORKER, isolation.WORKER_FILES
    isolation.WORKER = null
    if saved[1] is not None:  # the files bound into the sandbox: the null worker in the worker's place
        isolation.WORKER_FILES = {(null if host == saved[0] else host): inside for host, inside in saved[1].items()}
    box = grader._box(data, ".md")
    try:
        start = time.perf_counter()
        started = sandbox.Sandbox(
            box / "submission",
            grader.library,
            grader.limits,
            time.monotonic() + 20,
            bwrap=grader.bwrap,
            name=grader._cgroup_name(),
        )
        elapsed = time.perf_counter() - start
        started.close()
    finally:
        isolation.WORKER = saved[0]
        if saved[1] is not None:
            isolation.WORKER_FILES = saved[1]
        shutil.rmtree(box, ignore_errors=True)
    return elapsed


def interpreter(code: str, isolated: bool = False) -> float:
    """Seconds a fresh ``python -c CODE`` takes (``-I -S`` if ``isolated``, as the worker starts)."""
    start = time.perf_counter()
    subprocess.run([sys.executable, *(["-I", "-S"] if isolated else []), "-c", code], check=True, cwd=ROOT)
    return time.perf_counter() - start


def fork_seconds(count: int) -> float:
    """The median time of a fork (and the child's first byte) of a Python with the worker's imports."""
    done = subprocess.run([sys.executable, "-c", FORK_PROBE, str(count)], capture_output=True, text=True, check=True)
    return statistics.median(json.loads(done.stdout.strip().splitlines()[-1]))


PHASES = {
    "setup": "judge's setup (hidden tests loaded, notebook read)",
    "start_null": "sandbox start (bwrap, cgroups, python -I -S, to its first message)",
    "imports": "imports: numpy, onlinelib (before the worker's ready)",
    "shell": "imports: jupytext (notebook read), IPython's shell (ready to cell 1)",
    "cells": "the student's cells",
    "hidden": "the judge's hidden tests (requests and replies)",
    "teardown": "sandbox teardown (kill, wait, cgroups)",
    "process": "judge process (fork server, pipe, box; Grader.grade less the judge)",
    "total": "total per submission (Grader.grade, alone)",
}


def phases(tmp: Path, repeat: int, timeout: float) -> dict[str, float]:
    """Part 4: where one submission's time goes, phase by phase (medians of ``repeat``, in s)."""
    folder = tmp / "phases"
    folder.mkdir()
    grader = make_grader(folder, timeout)
    data = HONEST.read_bytes()
    (folder / "one.md").write_bytes(data)
    judged(grader, data)  # warm-up: this process's first judge imports what the fork server has imported
    grader.grade("one.md", folder / "one.md")  # warm-up: starts the fork server
    runs, null, whole = [], [], []
    for _ in range(repeat):
        runs.append(judged(grader, data))
        null.append(null_start(grader, data, folder))
        start = time.perf_counter()
        row = grader.grade("one.md", folder / "one.md")
        whole.append(time.perf_counter() - start)
        if row["status"] != "graded":
            raise SystemExit(f"the honest submission got {row['status']}: {row['feedback'][:300]}")
    median = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    figures = {
        "setup": median["setup"],
        "start_null": statistics.median(null),
        "imports": median["start"] - statistics.median(null),
        "shell": median["shell"],
        "cells": median["cells"],
        "hidden": median["hidden"],
        "teardown": median["teardown"],
        "process": statistics.median(whole) - median["total"],
        "total": statistics.median(whole),
    }
    figures["python"] = statistics.median(interpreter("pass", isolated=True) for _ in range(repeat))
    figures["python_imports"] = statistics.median(interpreter("import numpy, onlinelib") for _ in range(repeat))
    figures["fork"] = fork_seconds(20 if repeat > 1 else 3)
    load = os.getloadavg()[0]
    print(f"\n4. one honest submission, alone, phase by phase (median of {repeat}; load average {load:.1f})")
    print(f"  {'phase':68s} {'ms':>7s}")
    for key, label in PHASES.items():
        print(f"  {label:68s} {1000 * figures[key]:7.0f}")
    for label, key in (
        ("python -I -S -c pass", "python"),
        ('python -c "import numpy, onlinelib"', "python_imports"),
        ("fork() of a Python with numpy, onlinelib and IPython's shell", "fork"),
    ):
        print(f"  {'for comparison: ' + label:68s} {1000 * figures[key]:7.1f}")
    return figures


def projection(figures: dict[str, float], rate: float | None, jobs: int) -> None:
    """What stands between today's rate and 10,000 submissions in 10 minutes on 2 cores (issue 35)."""
    aim = AIM_ROWS / AIM_SECONDS
    cold = figures["python"] + figures["imports"] + figures["shell"]  # what a pre-imported worker does not redo
    warm = figures["start_null"] - figures["python"] + figures["fork"]  # bwrap kept, Python forked pre-imported
    alone = figures["total"]
    after = alone - cold + warm
    print(f"\nthe aim: {AIM_ROWS} submissions in {AIM_SECONDS / 60:g} minutes on {AIM_CORES} cores = {aim:.1f} rows/s")
    print(f"  = {AIM_CORES / aim:.3f} core-s per submission; one alone takes {alone:.3f} s today")
    if rate is not None:
        print(f"  today at scale: {rate:.2f} rows/s with --jobs {jobs}, {aim / rate:.1f} times short")
    print(f"  the cold start (Python in the sandbox, numpy, onlinelib, IPython): {1000 * cold:.0f} ms per submission")
    print(
        f"  a fork server of a pre-imported worker (bwrap kept, then fork): {1000 * warm:.0f} ms instead, so "
        f"{after:.3f} s per submission, at best {AIM_CORES / after:.1f} rows/s on {AIM_CORES} cores"
    )
    rest = after - figures["cells"] - figures["hidden"]
    print(
        f"  what remains: the student's cells {1000 * figures['cells']:.0f} ms, the hidden tests "
        f"{1000 * figures['hidden']:.0f} ms, and {1000 * rest:.0f} ms of bwrap, judge and teardown"
    )
