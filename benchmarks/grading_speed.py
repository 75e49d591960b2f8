"""How fast the lecturer's grader is (issue 14): 100 mixed submissions on 2 cores.

Grades COPIES copies of the halving test submissions (``tests/submissions/halving``: correct,
subtly wrong, untouched stub, syntax error, exception, missing class, megabytes of output
and a memory hog; the infinite loop is left out, since it only measures ``--timeout``) with
``python -m booktools grade --jobs JOBS``, three ways in the same run:

* ``sandbox``: the default, each submission in its own bubblewrap sandbox;
* ``unsafe``: ``--unsafe-no-sandbox``, the same worker and protocol without bubblewrap
  (what the sandbox itself costs);
* ``old``: with ``--old-tree PATH`` (a checkout of the design before issue 14, e.g.
  ``git worktree add /tmp/oldtree 8faf1e4``), its own grader on its own copies of the same
  submissions, with its own library first on ``PYTHONPATH``.

It prints the wall time, the time per submission and the ratio to the sandbox, and checks
that every mode gives every submission the same score (exit status 1 if not).

Usage::

    python benchmarks/grading_speed.py [--copies 100] [--jobs 2] [--old-tree /tmp/oldtree]
"""
from __future__ import annotations

import argparse
import csv
import itertools
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MIX = ["correct.ipynb", "subtly_wrong.md", "stub.md", "syntax_error.md", "raises.md",
       "missing_function.md", "prints_megabytes.md", "memory_hog.md"]


def make_folder(source: Path, copies: int, target: Path) -> None:
    target.mkdir(parents=True)
    for i, name in zip(range(copies), itertools.cycle(MIX)):
        shutil.copy(source / name, target / f"{i:03d}_{name}")


def grade(tree: Path, folder: Path, jobs: int, extra: list[str], env: dict | None = None) -> tuple[float, dict]:
    out = folder.parent / f"{folder.name}.csv"
    command = [sys.executable, str(tree / "tools" / "grade.py"), str(folder), "--assignment", "halving",
               "--out", str(out), "--jobs", str(jobs), *extra]
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{result.stderr[-2000:]}")
    with out.open(newline="", encoding="utf-8") as handle:
        scores: dict = {}
        for row in csv.DictReader(handle):
            scores.setdefault(re.sub(r"^\d+_", "", row["submission"]), []).append(
                (float(row["score"]), row["status"]))
    return wall, scores


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--old-tree", type=Path, help="a checkout of the design before issue 14")
    args = parser.parse_args()
    print(f"grading {args.copies} mixed halving submissions with --jobs {args.jobs} on {os.cpu_count()} cores")
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        make_folder(ROOT / "tests" / "submissions" / "halving", args.copies, tmp / "new")
        results["sandbox"] = grade(ROOT, tmp / "new", args.jobs, [])
        results["unsafe"] = grade(ROOT, tmp / "new", args.jobs, ["--unsafe-no-sandbox"])
        if args.old_tree:
            make_folder(args.old_tree / "tests" / "submissions" / "halving", args.copies, tmp / "old")
            env = dict(os.environ, PYTHONPATH=str(args.old_tree))
            results["old"] = grade(args.old_tree, tmp / "old", args.jobs, [], env)

    base = results["sandbox"][0]
    print(f"\n{'mode':8} {'wall s':>8} {'s/submission':>13} {'vs sandbox':>11}")
    for mode, (wall, _) in results.items():
        print(f"{mode:8} {wall:8.1f} {wall / args.copies:13.2f} {wall / base:10.2f}x")

    print(f"\n{'submission':22} " + " ".join(f"{mode:>18}" for mode in results))
    agree = True
    for name in MIX:
        cells = []
        for _, scores in results.values():
            got = sorted(set(scores.get(name, [])))
            cells.append(", ".join(f"{s:g} {st}" for s, st in got) or "-")
        distinct = {tuple(sorted({s for s, _ in scores.get(name, [])})) for _, scores in results.values()}
        agree &= len(distinct) == 1 and all(len(d) == 1 for d in distinct)
        print(f"{name:22} " + " ".join(f"{c:>18}" for c in cells))
    print("\nscores agree across modes" if agree else "\nSCORES DISAGREE across modes")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
