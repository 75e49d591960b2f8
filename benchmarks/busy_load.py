"""Run a command on a busy machine: N spinning processes beside it (issue 34).

The tests must not depend on the machine's load: CI runs them on two cores beside other jobs,
and a test that asserted a time, or a grader status that only a quick machine reaches, failed
there. This script makes such a load on purpose, so a change can be tried under it::

    python benchmarks/busy_load.py -- .venv/bin/pytest -p no:cacheprovider -q tests/test_grade_robustness.py
    python benchmarks/busy_load.py --workers 4 -- .venv/bin/pytest -n 2 --dist loadfile tests/test_grading.py

It starts ``--workers`` processes (default 2, one per core of a CI runner), each a pure-Python
loop that spins until ``--seconds`` have passed (default 3600) or its parent is gone, whichever
comes first, so none can outlive this script by more than a moment even if it is killed. Then it
runs the command given after ``--`` (its output is not captured), stops the spinning processes
when the command ends, and prints the load average (1 minute) before, the highest seen while the
command ran (sampled every 5 s) and after, the command's wall time and its exit status; it exits
with that status. The load the workers add is theirs alone: other jobs on the machine add to it.

``--smoke`` (``tests/test_benchmarks.py`` runs every script so): one worker for at most 10 s
beside a trivial command (``python -c pass``) unless a command is given; exits 0 in about a second.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
import time

# A worker: spins in pure Python, checking every ~50 ms whether its time is up or its parent gone
# (then it is adopted by another process, and getppid() changes).
SPIN = """
import os, sys, time
parent, end = int(sys.argv[1]), time.monotonic() + float(sys.argv[2])
while os.getppid() == parent and time.monotonic() < end:
    for _ in range(200_000):
        pass
"""
SAMPLE_SECONDS = 5.0


def load() -> float:
    """The 1-minute load average."""
    return os.getloadavg()[0]


def start_workers(count: int, seconds: float) -> list[subprocess.Popen]:
    command = [sys.executable, "-c", SPIN, str(os.getpid()), str(seconds)]
    return [subprocess.Popen(command, stdin=subprocess.DEVNULL) for _ in range(count)]


def stop_workers(workers: list[subprocess.Popen]) -> None:
    """Stop the workers this script started (by their own pids) and reap them."""
    for worker in workers:
        if worker.poll() is None:
            worker.terminate()
    for worker in workers:
        try:
            worker.wait(timeout=10)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()


def parse(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    ours, command = (argv[: argv.index("--")], argv[argv.index("--") + 1 :]) if "--" in argv else (argv, [])
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], usage="%(prog)s [options] -- COMMAND ...")
    parser.add_argument("--workers", type=int, default=2, help="spinning processes to start (default 2)")
    parser.add_argument("--seconds", type=float, default=3600.0, help="the most seconds a worker spins (default 3600)")
    parser.add_argument("--smoke", action="store_true", help="a short run beside a trivial command")
    args = parser.parse_args(ours)
    if args.smoke:
        args.workers, args.seconds = min(args.workers, 1), min(args.seconds, 10.0)
        command = command or [sys.executable, "-c", "pass"]
    if not command:
        parser.error("give the command to run after --")
    if args.workers < 0 or args.seconds <= 0:
        parser.error("--workers must be >= 0 and --seconds positive")
    return args, command


def main(argv: list[str] | None = None) -> int:
    args, command = parse(sys.argv[1:] if argv is None else argv)
    before = load()
    workers = start_workers(args.workers, args.seconds)
    highest = [before]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(SAMPLE_SECONDS):
            highest[0] = max(highest[0], load())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    start = time.monotonic()
    try:
        process = subprocess.Popen(command)
        try:
            code = process.wait()
        except KeyboardInterrupt:  # the command got the ^C too; let it finish its own way
            process.send_signal(signal.SIGINT)
            code = process.wait()
    finally:
        wall = time.monotonic() - start
        done.set()
        stop_workers(workers)
    highest[0] = max(highest[0], load())
    print(
        f"busy_load: {args.workers} spinning worker{'s' * (args.workers != 1)} on {os.cpu_count()} CPUs; "
        f"load average (1 min) {before:.2f} before, {highest[0]:.2f} at most while the command ran, "
        f"{load():.2f} after; the command took {wall:.1f} s and exited with {code}: {' '.join(command)}",
        flush=True,
    )
    return code


if __name__ == "__main__":
    sys.exit(main())
