"""Every benchmark script still runs: each ``benchmarks/*.py`` once with ``--smoke``.

Benchmarks are not tests (their timings assert nothing), so nothing else would notice a script
that no longer runs after the library or the grader changed under it. In smoke mode
(``benchmarks/timing.py``'s ``SMOKE``) a script runs its smallest sizes once, without peers or
verdicts, in a few seconds. The scripts are found by glob, so a new one is covered as soon as it
exists; each is its own test, so pytest-xdist can run them side by side.

Each runs as a reader would run it, ``python benchmarks/NAME.py --smoke`` from the repository's
root (the script's folder on ``sys.path``, so ``import timing`` works). The optional peers of
``benchmarks/requirements.txt`` (river, scikit-learn) are not installed in CI, and smoke mode
must not need them: here they are hidden even where they are installed, by stand-ins first on
the path that fail to import.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
HELPERS = {"timing.py", "grading_phases.py"}  # imported by the scripts, not scripts
SCRIPTS = sorted(path.name for path in BENCHMARKS.glob("*.py") if path.name not in HELPERS)
PEERS = ("river", "sklearn")  # benchmarks/requirements.txt's peers, as imported
TIMEOUT = 300  # seconds; a smoke run takes a few


def text(part: str | bytes | None) -> str:
    """Output as text (``TimeoutExpired`` may hold bytes even with ``text=True``)."""
    return part.decode(errors="replace") if isinstance(part, bytes) else part or ""


def test_the_scripts_are_found():
    assert "grading_speed.py" in SCRIPTS and "timing.py" not in SCRIPTS, SCRIPTS


@pytest.fixture(scope="module")
def without_peers(tmp_path_factory) -> Path:
    """A folder whose ``river`` and ``sklearn`` fail to import as missing packages do."""
    folder = tmp_path_factory.mktemp("no-peers")
    for name in PEERS:
        (folder / name).mkdir()
        (folder / name / "__init__.py").write_text(
            f"raise ModuleNotFoundError({name!r} + ' is hidden: smoke mode must not need the peers', name={name!r})\n",
            encoding="utf-8",
        )
    return folder


@pytest.mark.parametrize("script", SCRIPTS)
def test_smoke_run(script, without_peers):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(without_peers), env.get("PYTHONPATH")]))
    env.setdefault("MPLBACKEND", "Agg")
    command = [sys.executable, str(Path("benchmarks") / script), "--smoke"]
    try:
        result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as timeout:
        out, err = (text(part) for part in (timeout.output, timeout.stderr))
        pytest.fail(f"{' '.join(command)} ran over {TIMEOUT} s; its output so far:\n{out[-3000:]}\n{err[-6000:]}")
    assert result.returncode == 0, (
        f"{' '.join(command)} exited with {result.returncode}\n"
        f"--- stderr (the end) ---\n{result.stderr[-6000:]}\n--- stdout (the end) ---\n{result.stdout[-3000:]}"
    )
