"""How fast the lecturer's grader is, and that one hostile submission costs only its own row (issue 23).

Every run goes through the lecturer's command, ``python -m booktools grade FOLDER --assignment
halving --out CSV --jobs JOBS --timeout TIMEOUT`` (``booktools/grading/cli.py``), on generated honest
submissions of Assignment 1 (copies of ``tests/submissions/hostile/halving/control_correct.md``,
each with its own comment, so no two files are the same). Four parts:

1. **Throughput against the floor.** A folder of ``--throughput`` honest submissions is graded,
   side by side with the floor, in each of 3 repetitions (``timing.side_by_side``); with
   ``--unsafe`` also without the sandbox (``--unsafe-no-sandbox``: only these honest files run
   so), to show what the sandbox costs. The floor is what any grader that isolates each
   submission in an interpreter of its own pays at least: one fresh ``python -c "import
   onlinelib"`` per submission, ``--jobs`` at a time (every submission imports onlinelib, and
   the grader's judges are forked from a server that has imported it already, so they add
   milliseconds). Seconds per submission include the run's fixed cost (the reference graded,
   the grader's own probe notebook: about a second). Ratios are median (min-max) over the
   repetitions.
2. **Robustness.** ``--honest`` honest submissions with ten hostile ones mixed in, graded once,
   in the sandbox:

   * two that hang (``pipe_fill``: stops reading the grader's requests; ``hang_in_predict``);
   * two replies dear to the grader (``slow_reply``: 3.9 MB that a path-copying decoder needs
     minutes for; ``huge_reply``: 2.4 MB that ``np.asarray`` makes 3.2 GB);
   * a notebook 1,100 folders deep;
   * four that crash or exhaust a limit (``crash_first_cell``: kills its worker in cell 1;
     ``segfault``; ``memory_hog``; ``fork_bomb``);
   * one that prints megabytes.

   It prints the wall time, the time per entry, the count of each status and each hostile row.

Parts 1 to 3 check that every entry got a row and every honest submission full marks (exit status
1 if not): a grader that marks everything as an error would otherwise look fast. That is a check
of the grader's answers, not of its speed: timings are never tests.

3. **At scale** (``--scale N``, issue 35; instead of parts 1 and 2): N honest submissions graded
   once, ``--jobs`` at a time: wall time, rows per second, seconds and core-seconds per submission.
4. **Where one submission's time goes** (issue 35, ``grading_phases.py``): one honest submission graded alone,
   ``--phases`` times, through the grader's own judge (``judge.judge``, in this process), timed
   from outside by wrapping ``sandbox.Sandbox``'s methods (``stamped``): the judge's setup; the
   sandbox's start (bubblewrap, cgroups, Python up to the first message of a worker that imports
   nothing); the imports (numpy and onlinelib before the worker is ready, then jupytext and
   IPython's shell before cell 1); the student's cells; the hidden tests (requests and replies);
   the teardown; the judge process around it (``Grader.grade`` less the judge in this process).
   For comparison: ``python -I -S``, ``python -c "import numpy, onlinelib"`` and a ``fork()`` of
   a Python that has imported them and IPython. Then what stands between today and the aim of
   10,000 submissions in 10 minutes on 2 cores (16.7 rows/s: 0.12 core-s each), and what a fork
   server of a pre-imported worker would save.

``--smoke`` (``timing.SMOKE``, for ``tests/test_benchmarks.py``): part 1 on 2 honest submissions,
one repetition, the floor but no ``--unsafe`` comparison, and part 4 once (a few seconds; needs
bubblewrap, as the grader does).

Usage::

    python benchmarks/grading_speed.py [--honest 200] [--throughput 40] [--jobs 2] [--timeout 20]
                                       [--unsafe] [--phases 5] [--scale N] [--smoke]
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import csv
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from grading_phases import phases, projection
from timing import SMOKE, format_ratio, side_by_side

ROOT = Path(__file__).resolve().parents[1]
SUBMISSIONS = ROOT / "tests" / "submissions"
HONEST = SUBMISSIONS / "hostile" / "halving" / "control_correct.md"
HOSTILE = {
    "pipe_fill.md": SUBMISSIONS / "hostile" / "halving" / "pipe_fill.md",
    "hang_in_predict.md": SUBMISSIONS / "attacks" / "halving" / "hang_in_predict.md",
    "slow_reply.md": SUBMISSIONS / "hostile" / "halving" / "slow_reply.md",
    "huge_reply.md": SUBMISSIONS / "hostile" / "halving" / "huge_reply.md",
    "crash_first_cell.md": SUBMISSIONS / "hostile" / "halving" / "crash_first_cell.md",
    "segfault.md": SUBMISSIONS / "attacks" / "halving" / "segfault.md",
    "memory_hog.md": SUBMISSIONS / "halving" / "memory_hog.md",
    "fork_bomb.md": SUBMISSIONS / "attacks" / "halving" / "fork_bomb.md",
    "prints_megabytes.md": SUBMISSIONS / "halving" / "prints_megabytes.md",
}
DEEP = 1100  # levels of the deep folder (the tenth hostile entry)
REPEAT = 3


def make_folder(target: Path, honest: int, hostile: bool) -> None:
    """``honest`` honest submissions in ``target``, and with ``hostile`` the ten hostile entries."""
    honest_text = HONEST.read_text(encoding="utf-8")
    target.mkdir(parents=True)
    for i in range(honest):
        (target / f"student_{i:03d}.md").write_text(
            honest_text.replace("```{code-cell} ipython3\n", f"```{{code-cell}} ipython3\n# student {i}\n", 1),
            encoding="utf-8",
        )
    if not hostile:
        return
    for name, source in HOSTILE.items():
        shutil.copy(source, target / f"hostile_{name}")
    fd = os.open(target, os.O_RDONLY)  # the deep folder, made level by level (relative paths stay short)
    name = "hostile_deep"
    for _ in range(DEEP):
        os.mkdir(name, dir_fd=fd)
        inner = os.open(name, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd, name = inner, "d"
    with open(os.open("notebook.md", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as handle:
        handle.write(honest_text)
    os.close(fd)


def grade(folder: Path, jobs: int, timeout: float, extra: list[str]) -> list[dict]:
    """The rows of ``python -m booktools grade`` on ``folder`` (its CSV, beside the folder)."""
    out = folder.parent / f"{folder.name}{''.join(extra)}.csv"
    out.unlink(missing_ok=True)
    command = [
        sys.executable,
        "-m",
        "booktools",
        "grade",
        str(folder),
        "--assignment",
        "halving",
        "--out",
        str(out),
        "--jobs",
        str(jobs),
        "--timeout",
        str(timeout),
        *extra,
    ]
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    if not out.exists():
        raise SystemExit(f"{' '.join(command)} wrote no CSV (exit {result.returncode}):\n{result.stderr[-3000:]}")
    with out.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def floor(count: int, jobs: int) -> None:
    """``count`` fresh interpreters that import onlinelib, ``jobs`` at a time (the floor of part 1)."""
    command = [sys.executable, "-c", "import onlinelib"]

    def one(_: int) -> None:
        subprocess.run(command, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)

    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        list(pool.map(one, range(count)))


def problems(rows: list[dict], honest: int, expected_rows: int) -> str:
    """What is wrong with the rows ('' if every entry got a row and every honest one full marks)."""
    mine = [r for r in rows if r["submission"].startswith("student_")]
    wrong = [r for r in mine if r["status"] != "graded" or r["score"] != r["max_score"]]
    if len(rows) == expected_rows and len(mine) == honest and not wrong:
        return ""
    return (
        f"{len(rows)} rows (expected {expected_rows}), {len(wrong)} honest without full marks: "
        f"{[(r['submission'], r['status'], r['feedback'][:120]) for r in wrong[:5]]}"
    )


def statuses(rows: list[dict]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(collections.Counter(r["status"] for r in rows).items()))


def throughput(tmp: Path, count: int, jobs: int, timeout: float, unsafe: bool) -> bool:
    """Part 1: ``count`` honest submissions graded side by side with the floor; True if all got full marks."""
    folder = tmp / "honest"
    make_folder(folder, count, hostile=False)
    rows: dict[str, list[dict]] = {}

    def keep(key: str, fn: Callable[[], list[dict]]) -> Callable[[], None]:
        def call() -> None:
            rows[key] = fn()

        return call

    sandboxed, unsandboxed, floor_label = "grader, sandboxed", "grader, --unsafe-no-sandbox", "floor"
    cases = {sandboxed: keep("sandboxed", lambda: grade(folder, jobs, timeout, []))}
    if unsafe:
        cases[unsandboxed] = keep("unsafe", lambda: grade(folder, jobs, timeout, ["--unsafe-no-sandbox"]))
    cases[floor_label] = lambda: floor(count, jobs)
    times = side_by_side(cases, repeat=REPEAT)
    reps = len(times[floor_label])
    print(
        f"1. throughput: {count} honest submissions, --jobs {jobs}, {reps} repetition{'s' * (reps > 1)} "
        "side by side (s/submission includes the run's fixed cost)"
    )
    print(f"  {'case':30s} {'s/submission':>12s}   time / floor: median (min-max)")
    for label, t in times.items():
        ratio = "" if label == floor_label else format_ratio(t, times[floor_label])
        print(f"  {label:30s} {statistics.median(t) / count:12.3f}   {ratio}".rstrip())
    print(f'  (floor: a fresh `python -c "import onlinelib"` per submission, {jobs} at a time)')
    if unsafe:
        print(f"  the sandbox's cost: sandboxed / unsafe time {format_ratio(times[sandboxed], times[unsandboxed])}")
    ok = True
    for key, got in rows.items():
        problem = problems(got, count, count)
        print(f"  {key}: {statuses(got)}" + (f"\n  FAILED: {problem}" if problem else ""))
        ok = ok and not problem
    return ok


def robustness(tmp: Path, honest: int, jobs: int, timeout: float) -> bool:
    """Part 2: ``honest`` honest and ten hostile entries, graded once; True if every entry got its row."""
    folder = tmp / "mixed"
    make_folder(folder, honest, hostile=True)
    start = time.perf_counter()
    rows = grade(folder, jobs, timeout, [])
    wall = time.perf_counter() - start
    print(f"\n2. robustness: {honest} honest and 10 hostile submissions, --jobs {jobs}, --timeout {timeout:g}")
    print(f"  {'wall s':>8} {'s/entry':>8} {'rows':>5}  statuses")
    print(f"  {wall:8.1f} {wall / len(rows):8.2f} {len(rows):5d}  {statuses(rows)}")
    problem = problems(rows, honest, honest + len(HOSTILE) + 1)
    if problem:
        print(f"  FAILED: {problem}")
    for row in rows:
        if not row["submission"].startswith("student_"):
            print(
                f"  {row['submission'][:40]:40} {row['score']:>3}/{row['max_score']} "
                f"{row['status']:13} {row['feedback'][:90]}"
            )
    return not problem


def at_scale(tmp: Path, count: int, jobs: int, timeout: float) -> tuple[bool, float]:
    """Part 3: ``count`` honest submissions graded once; (every row right, seconds)."""
    folder = tmp / "scale"
    make_folder(folder, count, hostile=False)
    load = os.getloadavg()[0]
    start = time.perf_counter()
    rows = grade(folder, jobs, timeout, [])
    wall = time.perf_counter() - start
    print(f"\n3. at scale: {count} honest submissions, --jobs {jobs}, on {os.cpu_count()} cores")
    print(f"  {'wall s':>8} {'rows/s':>7} {'s/submission':>12} {'core-s/submission':>17}  load before, after")
    print(
        f"  {wall:8.1f} {count / wall:7.2f} {wall / count:12.3f} {wall * jobs / count:17.3f}  "
        f"{load:.1f}, {os.getloadavg()[0]:.1f}"
    )
    problem = problems(rows, count, count)
    print(f"  {statuses(rows)}" + (f"\n  FAILED: {problem}" if problem else ""))
    return not problem, wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--honest", type=int, default=200, help="honest submissions beside the hostile ones")
    parser.add_argument("--throughput", type=int, default=40, help="honest submissions of the throughput part")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("--unsafe", action="store_true", help="also grade the honest folder without the sandbox")
    parser.add_argument("--phases", type=int, default=5, help="repetitions of part 4, phase by phase (0: skip it)")
    parser.add_argument("--scale", type=int, default=0, help="grade N honest submissions once instead of parts 1-2")
    parser.add_argument("--smoke", action="store_true", help="2 honest submissions, one repetition, no comparison")
    args = parser.parse_args()
    if SMOKE:
        args.throughput, args.unsafe, args.phases, args.scale = 2, False, 1, 0
    print(f"the grader (python -m booktools grade, assignment halving) on {os.cpu_count()} cores\n")
    tmp = tempfile.mkdtemp(prefix="grading-speed-")
    rate = None
    try:
        if args.scale > 0:
            ok, wall = at_scale(Path(tmp), args.scale, args.jobs, args.timeout)
            rate = args.scale / wall
        else:
            ok = throughput(Path(tmp), args.throughput, args.jobs, args.timeout, args.unsafe)
            if not SMOKE:
                ok = robustness(Path(tmp), args.honest, args.jobs, args.timeout) and ok
        if args.phases > 0:
            projection(phases(Path(tmp), args.phases, args.timeout), rate, args.jobs)
    finally:
        subprocess.run(["rm", "-rf", tmp], check=True)  # shutil.rmtree recurses: the deep folder stops it
    print("\nevery entry got a row and every honest submission full marks" if ok else "\nFAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
