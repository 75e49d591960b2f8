"""How fast the lecturer's grader is, and that one hostile submission costs only its own row (issue 23).

Grades a folder of ``--honest`` generated honest submissions of Assignment 1 (copies of
``tests/submissions/hostile/halving/control_correct.md``, each with its own comment, so no two
files are the same) with ten hostile ones mixed in, by the lecturer's command
``python -m booktools grade --jobs JOBS``:

* two that hang (``pipe_fill``: stops reading the grader's requests; ``hang_in_predict``);
* two replies dear to the grader (``slow_reply``: 3.9 MB that a path-copying decoder needs
  minutes for; ``huge_reply``: 2.4 MB that ``np.asarray`` makes 3.2 GB);
* a notebook 1,100 folders deep;
* four that crash or exhaust a limit (``crash_first_cell``: kills its worker in cell 1;
  ``segfault``; ``memory_hog``; ``fork_bomb``);
* one that prints megabytes.

It prints the wall time, the time per submission, the count of each status, and checks that
every entry got a row and every honest submission full marks (exit status 1 if not). Optionally
``--unsafe`` grades the same folder without the sandbox, to show what the sandbox costs.

Usage::

    python benchmarks/grading_speed.py [--honest 200] [--jobs 2] [--timeout 20] [--unsafe]
"""

from __future__ import annotations

import argparse
import collections
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUBMISSIONS = ROOT / "tests" / "submissions"
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


def make_folder(target: Path, honest: int) -> None:
    honest_text = (SUBMISSIONS / "hostile" / "halving" / "control_correct.md").read_text(encoding="utf-8")
    target.mkdir(parents=True)
    for i in range(honest):
        (target / f"student_{i:03d}.md").write_text(
            honest_text.replace("```{code-cell} ipython3\n", f"```{{code-cell}} ipython3\n# student {i}\n", 1),
            encoding="utf-8",
        )
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


def grade(folder: Path, jobs: int, timeout: float, extra: list[str]) -> tuple[float, list[dict], str]:
    out = folder.parent / f"{folder.name}{'-'.join(extra)}.csv"
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
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - start
    if not out.exists():
        raise SystemExit(f"{' '.join(command)} wrote no CSV (exit {result.returncode}):\n{result.stderr[-3000:]}")
    with out.open(newline="", encoding="utf-8") as handle:
        return wall, list(csv.DictReader(handle)), result.stderr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--honest", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("--unsafe", action="store_true", help="also grade without the sandbox, for comparison")
    args = parser.parse_args()
    print(
        f"grading {args.honest} honest and 10 hostile halving submissions with --jobs {args.jobs}, "
        f"--timeout {args.timeout:g} on {os.cpu_count()} cores"
    )
    ok = True
    tmp = tempfile.mkdtemp()
    try:
        folder = Path(tmp) / "submissions"
        make_folder(folder, args.honest)
        modes = {"sandbox": []} | ({"unsafe": ["--unsafe-no-sandbox"]} if args.unsafe else {})
        print(f"\n{'mode':8} {'wall s':>8} {'s/submission':>13} {'rows':>5}  statuses")
        for mode, extra in modes.items():
            wall, rows, stderr = grade(folder, args.jobs, args.timeout, extra)
            statuses = collections.Counter(row["status"] for row in rows)
            print(
                f"{mode:8} {wall:8.1f} {wall / len(rows):13.2f} {len(rows):5d}  "
                + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items()))
            )
            honest = [r for r in rows if r["submission"].startswith("student_")]
            wrong = [r for r in honest if r["status"] != "graded" or r["score"] != r["max_score"]]
            expected_rows = args.honest + len(HOSTILE) + 1
            if len(rows) != expected_rows or len(honest) != args.honest or wrong:
                ok = False
                print(
                    f"  FAILED: {len(rows)} rows (expected {expected_rows}), {len(wrong)} honest without full "
                    f"marks: {[(r['submission'], r['status'], r['feedback'][:120]) for r in wrong[:5]]}"
                )
            for row in rows:
                if not row["submission"].startswith("student_"):
                    print(
                        f"  {row['submission'][:40]:40} {row['score']:>3}/{row['max_score']} "
                        f"{row['status']:13} {row['feedback'][:90]}"
                    )
    finally:
        subprocess.run(["rm", "-rf", tmp], check=True)  # shutil.rmtree recurses: the deep folder stops it
    print("\nevery entry got a row and every honest submission full marks" if ok else "\nFAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
