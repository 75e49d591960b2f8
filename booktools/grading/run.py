"""Grading one submission: a judge process per notebook, retried once on a grader failure."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from booktools.grading import sandbox
from booktools.grading.collect import read_notebook
from booktools.grading.hidden import public_checks_path
from booktools.grading.isolation import CgroupLimits
from booktools.grading.judge import JudgeConfig, run_judge
from booktools.grading.scores import GRADER_ERROR

# -- grading one submission -----------------------------------------------------------------------

_COUNTER = itertools.count()
PROBE_NOTEBOOK = {
    "cells": [
        {
            "cell_type": "code",
            "metadata": {},
            "outputs": [],
            "execution_count": None,
            "source": "from __future__ import annotations\nimport numpy as np\nimport onlinelib",
        },
        {
            "cell_type": "code",
            "metadata": {},
            "outputs": [],
            "execution_count": None,
            "source": "def grader_probe(n: int) -> list:\n    return [n, 2.5, 'ok', np.arange(3)]",
        },
    ],
    "metadata": {"kernelspec": {"name": "python3", "language": "python", "display_name": "Python 3"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}


class Grader:
    """Everything one grading run shares: the hidden tests, the library copy and the limits."""

    def __init__(self, hidden_file: Path, assignment: str, library: Path, args, bwrap: str | None, max_score: float):
        self.assignment, self.library, self.args, self.bwrap = assignment, library, args, bwrap
        self.public = public_checks_path(assignment, args.assignments_dir)
        self.limits = {
            "memory_mb": args.memory_mb,
            "cpu_seconds": args.cpu_seconds,
            "file_mb": 16,
            "processes": args.max_processes,
            "tmpfs_mb": 64,
            "output_bytes": args.max_output_kb * 1024,
            "reply_bytes": 4 * 2**20,
            "timeout": args.timeout,
        }
        self.config = JudgeConfig(
            hidden_file,
            assignment,
            library,
            self.limits,
            bwrap,
            max_score,
            args.judge_memory_mb,
            args.max_notebook_mb * 2**20,
        )

    def _box(self, data: bytes, suffix: str) -> Path:
        """A fresh private folder holding the notebook as ``submission/submission<suffix>`` and the public checks."""
        box = Path(tempfile.mkdtemp(prefix="grade-"))  # 0700: only the grader reaches into it
        inner = box / "submission"
        inner.mkdir(mode=0o755)
        inner.chmod(0o755)
        notebook = inner / ("submission" + suffix)
        notebook.write_bytes(data)
        notebook.chmod(0o644)
        if self.public.is_file():
            shutil.copyfile(self.public, inner / self.public.name)
            (inner / self.public.name).chmod(0o644)
        return box

    def _cgroup_name(self) -> str:
        return f"{CgroupLimits.PREFIX}{os.getpid()}-{next(_COUNTER)}"

    def check_environment(self) -> None:
        """Run a known notebook through the whole pipeline before any submission; stop the run if it fails.

        A grader that cannot run notebooks (a Python without jupytext or IPython, a broken
        sandbox, a library that does not import) would otherwise give every student 0.
        """
        box = self._box(json.dumps(PROBE_NOTEBOOK).encode("utf-8"), ".ipynb")
        probe = None
        try:
            probe = sandbox.Sandbox(
                box / "submission",
                self.library,
                dict(self.limits, timeout=max(60.0, self.args.timeout)),
                time.monotonic() + max(60.0, self.args.timeout),
                bwrap=self.bwrap,
                name=self._cgroup_name(),
            )
            where = "/submission/submission.ipynb" if self.bwrap else str(box / "submission" / "submission.ipynb")
            outcome = probe.run_notebook(where, "grader_probe", "function")
            if outcome["status"] != "ok":
                raise SystemExit(
                    f"the grader cannot run notebooks here, so nothing was graded: its own test "
                    f"notebook got {outcome['status']}: {sandbox._clean(outcome.get('reason', ''), 400)}"
                )
            value = probe.value(outcome)(4)
            if not (isinstance(value, list) and value[:3] == [4, 2.5, "ok"] and list(value[3]) == [0, 1, 2]):
                raise SystemExit(
                    f"the grader cannot run notebooks here, so nothing was graded: its test "
                    f"notebook returned {sandbox._clean(repr(value), 200)}"
                )
        except (sandbox.SandboxFailure, sandbox.RemoteError) as failure:
            raise SystemExit(
                f"the grader cannot run notebooks here, so nothing was graded: its own test notebook "
                f"failed ({getattr(failure, 'status', 'error')}): {sandbox._clean(failure, 400)}"
            ) from None
        finally:
            if probe is not None:
                probe.close()
            shutil.rmtree(box, ignore_errors=True)

    def grade(self, name: str, path: Path) -> dict:
        """Grade one notebook; its row (with the checks for the feedback file). Never raises but for ^C.

        The grading runs in a judge process (``booktools/grading/judge.py``). A ``grader-error`` (the
        worker died before the student's code ran, or the grader itself failed) is retried once.
        """
        row = {"submission": name, "score": 0.0, "status": "", "feedback": "", "checks": []}
        data, problem = read_notebook(path, self.args.max_notebook_mb * 2**20)
        if problem:
            row["status"], row["feedback"] = problem
            return row
        for _attempt in (1, 2):
            box = None
            try:
                box = self._box(data, path.suffix)
                row.update(run_judge(self.config, box / "submission", "submission" + path.suffix, self._cgroup_name()))
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # a fault of the grader itself must not cost the other rows
                row.update(
                    status=GRADER_ERROR,
                    score=0.0,
                    checks=[],
                    feedback=f"the grader failed on this submission: {type(exc).__name__}: {sandbox._clean(exc, 200)}",
                )
            finally:
                if box is not None:
                    shutil.rmtree(box, ignore_errors=True)
            if row["status"] != GRADER_ERROR:
                return row
        row["feedback"] = f"{row['feedback']} (tried twice; not the student's fault: regrade with --regrade-errors)"
        return row
