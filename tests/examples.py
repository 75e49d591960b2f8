"""Test data and helpers shared by several test modules."""

# The front matter that makes a .md file a MyST notebook (what conftest.py and the build look for).
MYST_HEADER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---
"""

# Littlestone dimension 2, but an adversary forces Halving to 3 = floor(lg 8) mistakes,
# so Halving is not optimal on it (found by the search in chapter 1).
EIGHT = [
    [0, 1, 0, 1, 1],
    [1, 0, 0, 0, 1],
    [1, 0, 0, 1, 1],
    [1, 0, 1, 1, 0],
    [1, 0, 1, 1, 1],
    [1, 1, 0, 0, 0],
    [1, 1, 0, 1, 0],
    [1, 1, 1, 1, 0],
]


# The limits of a sandbox started directly by a test (booktools.grading.sandbox.Sandbox): the grader's
# defaults, with a deadline of 60 s that only guards liveness.
SANDBOX_LIMITS = {
    "memory_mb": 1024,
    "cpu_seconds": 60,
    "file_mb": 16,
    "processes": 16,
    "tmpfs_mb": 64,
    "output_bytes": 2**16,
    "reply_bytes": 2**20,
    "timeout": 60,
}


def state(learner):
    """Everything a run of a linear-threshold learner changes, for exact comparisons."""
    out = {"weights": learner.weights.copy(), "bias": learner.bias, "rounds": learner.rounds}
    for name in ("n_updates", "promotions", "eliminations", "demotions", "n_mistakes", "n_literals"):
        if hasattr(learner, name):
            out[name] = getattr(learner, name)
    return out


def need_browser() -> str:
    """The system's Chromium; skip without it, or fail instead when BROWSER_CHECK_REQUIRED is set (as in CI)."""
    import os

    import pytest

    from booktools import browser_check

    executable = browser_check.find_browser()
    if executable is None:
        reason = "no Chromium found (apt-get install -y chromium, or set $CHROMIUM)"
        if os.environ.get("BROWSER_CHECK_REQUIRED"):
            pytest.fail(reason + ", and BROWSER_CHECK_REQUIRED is set")
        pytest.skip(reason)
    return executable


def python_calls(fn):
    """(what fn() returned, the Python function calls it made): a count of work, the same on any machine.

    cProfile's count without built-ins: every call of a Python function and every step of a
    generator, so a loop over the entries of a value in Python counts once per entry at least.
    """
    import cProfile
    import pstats

    profile = cProfile.Profile(builtins=False)
    result = profile.runcall(fn)
    return result, pstats.Stats(profile).total_calls


def run_grade(folder, out, hidden_dir, *extra, assignment="demo"):
    """``python -m booktools grade FOLDER`` on an assignment whose hidden file and notebook are in
    ``hidden_dir`` (a test's own), two jobs at a time; the completed process."""
    import subprocess
    import sys
    from pathlib import Path

    command = [sys.executable, "-m", "booktools", "grade", str(folder), "--assignment", assignment, "--out", str(out)]
    command += ["--hidden-dir", str(hidden_dir), "--assignments-dir", str(hidden_dir), "--jobs", "2", *extra]
    root = Path(__file__).resolve().parents[1]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=root)


def run_in_graded_library(name, forbidden, folder, code, shortcuts, *, imports="", env=None):
    """A notebook's ``code`` run with the graded copy of onlinelib first on the path (the library a
    graded notebook of assignment ``name`` sees, without ``forbidden``), next to its public checks,
    then each of ``shortcuts`` (Python statements) tried after ``imports``. Checked here: the run
    exits 0, the notebook used nothing removed, the graded copy was the one imported, and every
    shortcut raised ForbiddenInAssignment. Returns its standard output (the public checks' summaries)."""
    import os
    import shutil
    import subprocess
    import sys
    import textwrap
    from pathlib import Path

    from booktools.grading.library import assignment_library

    folder = Path(folder)
    assignments = Path(__file__).resolve().parents[1] / "book" / "assignments"
    assignment_library(forbidden, name, folder / "lib")
    shutil.copyfile(assignments / f"{name}_public.json", folder / f"{name}_public.json")
    library = str(folder / "lib")
    probes = "\n".join(
        textwrap.dedent(
            f"""
            try:
                {shortcut}
            except _forbidden.ForbiddenInAssignment:
                blocked.append({shortcut!r})
            """
        )
        for shortcut in shortcuts
    )
    script = (
        "import onlinelib\n"
        + code
        + "\nfrom onlinelib import _forbidden\nassert not _forbidden.USED, _forbidden.USED\n"
        + f"assert onlinelib.__file__.startswith({library!r}), onlinelib.__file__\n"
        + imports
        + "\nblocked = []\n"
        + probes
        + f"\nassert len(blocked) == {len(shortcuts)}, blocked\nprint('shortcuts blocked:', len(blocked))\n"
    )
    done = subprocess.run(  # the graded copy first on the path, as the grader's worker has it
        [sys.executable, "-c", script],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": library, **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert f"shortcuts blocked: {len(shortcuts)}" in done.stdout, done.stdout
    return done.stdout


def assignment_names(kinds=None, *, one_part=False) -> list[str]:
    """The book's assignments, discovered from ``book/assignments/lecturer/*_hidden.py`` (issue 37).

    Tests take their assignments from here rather than from a list of names, so an assignment added
    with ``python -m booktools new-assignment`` is tested with no test edited (and fails them until
    its hidden file is written). ``kinds``: only assignments all of whose parts are of these kinds
    (``"learner"``, ``"function"``, ``"certificate"``); ``one_part``: only those with ``FUNCTION``
    and ``KIND`` rather than ``PARTS``. Sorted by name.
    """
    from pathlib import Path

    from booktools.grading.hidden import hidden_parts, load_hidden

    lecturer = Path(__file__).resolve().parents[1] / "book" / "assignments" / "lecturer"
    names = []
    for path in sorted(lecturer.glob("*_hidden.py")):
        hidden = load_hidden(path)
        parts = hidden_parts(hidden)
        if one_part and hasattr(hidden, "PARTS"):
            continue
        if kinds is not None and not set(parts.values()) <= set(kinds):
            continue
        names.append(path.name[: -len("_hidden.py")])
    return names
