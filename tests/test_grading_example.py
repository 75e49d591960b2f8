"""The lecturer guide's recorded grading example runs as printed and gives the recorded gradebook (issue 27).

The guide (book/guide_for_lecturers.md, "A recorded example") grades the three hand-ins of
``docs/grading-example/submissions/``, shows the review page of the written question, merges the
marks of ``docs/grading-example/marks.csv`` and prints ``docs/grading-example/gradebook.csv``. This
test takes the commands from the guide's bash blocks as they stand (only the output folder is moved
to a temporary one, and ``.venv/bin/python`` is this interpreter), runs them from the repository's
root and compares the gradebook with the recorded file, so the guide cannot drift from the grader.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "book" / "guide_for_lecturers.md"
EXAMPLE = ROOT / "docs" / "grading-example"
OUT = "/tmp/grading-example"


def guide_commands() -> list[str]:
    """The shell lines of the guide's bash blocks that belong to the recorded example."""
    blocks = re.findall(r"```bash\n(.*?)```", GUIDE.read_text(encoding="utf-8"), flags=re.S)
    lines = [line for block in blocks for line in block.splitlines() if OUT in line]
    assert len(lines) == 4, f"the guide's example has mkdir, cp and two grading commands: {lines}"
    return lines


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="the grader's sandbox needs bubblewrap")
def test_the_guides_example_gives_the_recorded_gradebook(tmp_path):
    out = tmp_path / "grading-example"
    for line in guide_commands():
        words = [w.replace(OUT, str(out)) for w in shlex.split(line)]
        if words[0] == ".venv/bin/python":
            words[0] = sys.executable
        result = subprocess.run(words, cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, f"{line}\n{result.stderr[-3000:]}"
    got = (out / "scores_gradebook.csv").read_text(encoding="utf-8")
    assert got == (EXAMPLE / "gradebook.csv").read_text(encoding="utf-8")
    page = (out / "scores_review" / "novikoff.html").read_text(encoding="utf-8")
    assert "Cauchy" in page and "No answer" in page
    ben = (out / "scores_feedback" / "handin.md").read_text(encoding="utf-8")
    assert "Cauchy-Schwarz is missing" in ben and "1.5/4" in ben


def test_the_recorded_files_are_those_the_guide_names():
    text = GUIDE.read_text(encoding="utf-8")
    for name in ("scores_review_key.csv", "marks.csv", "gradebook.csv", "review-novikoff.png"):
        assert (EXAMPLE / name).is_file() and name in text
    hand_ins = sorted(p.relative_to(EXAMPLE / "submissions").as_posix() for p in (EXAMPLE / "submissions").rglob("*.*"))
    assert hand_ins == ["ada.md", "chen/perceptron_proofs.md", "handin.ipynb"]
