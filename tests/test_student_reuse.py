"""The student edition reuses the full build's outputs, and only where they are still right (issue 28).

A stand-in repository with three chapters is built as `make book` builds it, then as `make student`
does. Each chapter prints a run id (``time.time_ns()``), so a page shows whether its code ran in
the student build or came from the full one:

* ``kept.md`` has no code in its solution: its student page shows the full build's run;
* ``stripped.md`` loses a solution's code cell after all its other code: the kept cell ran first
  in the full build, exactly as it runs without the solution, so its output is reused;
* ``middle.md`` loses a solution's code cell with a kept cell after it: it runs in the student build;
* after a change to the library (newer than the full build's run) all of them run again;
* ``--execute-all`` runs them all;
* a page whose code fails without the removed solution fails the student build, though the full
  build passed: reuse never hides a page that does not run.
"""

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat

from examples import MYST_HEADER

ROOT = Path(__file__).resolve().parents[1]
JUPYTER_BOOK = str(Path(sys.executable).with_name("jupyter-book"))
RUN = """
```{{code-cell}} ipython3
import time
from myst_nb import glue
print("{name} run", time.time_ns())
glue("{name}_value", "{name}-glued", display=False)
```

The value glued by this page: {{glue:text}}`{name}_value`.
"""
SOLUTION = """
```{{exercise}} Say it
:label: {label}
Print it.
```

````{{solution-start}} {label}
:class: dropdown
````

```{{code-cell}} ipython3
{code}
```

````{{solution-end}}
````
"""


def _repository(folder: Path, middle_after: str = RUN.format(name="middle")) -> Path:
    """Pages kept (solution in words), stripped (solution code last) and middle (code after the solution's)."""
    repo = folder / "repo"
    (repo / "book").mkdir(parents=True)
    (repo / "onlinelib").mkdir()
    (repo / "onlinelib" / "library.py").write_text("VALUE = 1\n")
    (repo / "_config.yml").write_text(
        "title: Reuse test\nexecute:\n  execute_notebooks: force\n  raise_on_error: true\n"
        "only_build_toc_files: true\nexclude_patterns: [_build]\n"
        "sphinx:\n  extra_extensions: [sphinx_exercise]\n  local_extensions:\n    glue_cells: _ext\n"
    )
    (repo / "_ext").mkdir()
    shutil.copy(ROOT / "_ext" / "glue_cells.py", repo / "_ext" / "glue_cells.py")
    (repo / "_toc.yml").write_text(
        "format: jb-book\nroot: book/kept\nchapters:\n- file: book/stripped\n- file: book/middle\n"
    )
    words = SOLUTION.format(label="ex-kept", code="").replace("```{code-cell} ipython3\n\n```\n", "In words.\n")
    (repo / "book" / "kept.md").write_text(MYST_HEADER + "\n# Kept\n" + RUN.format(name="kept") + words)
    # the solution glues a value of its own, which must not reach the student edition
    solved = 'from myst_nb import glue\nglue("answer", "solution-only-glued-value", display=False)'
    (repo / "book" / "stripped.md").write_text(
        MYST_HEADER + "\n# Stripped\n" + RUN.format(name="stripped") + SOLUTION.format(label="ex-s", code=solved)
    )
    (repo / "book" / "middle.md").write_text(
        MYST_HEADER + "\n# Middle\n" + SOLUTION.format(label="ex-m", code="SOLVED = True") + middle_after
    )
    return repo


def _build_full(repo: Path) -> None:
    """The full build, every page executed (as `make book` does after a library change)."""
    done = subprocess.run([JUPYTER_BOOK, "build", "--all", "."], cwd=repo, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "build succeeded" in done.stdout, done.stdout[-3000:] + done.stderr[-3000:]


def _build_student(repo: Path, *options: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "booktools", "student-edition", "--root", str(repo), "--not-strict", *options],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _text(page: Path) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))


def _run_id(html_root: Path, page: str) -> str:
    html = (html_root / "book" / f"{page}.html").read_text(encoding="utf-8")
    return re.search(rf"{page} run (\d+)", html).group(1)


def test_unchanged_chapters_keep_the_full_builds_outputs_and_the_rest_run(tmp_path):
    repo = _repository(tmp_path)
    _build_full(repo)
    full = {page: _run_id(repo / "_build" / "html", page) for page in ("kept", "stripped", "middle")}
    student_html = repo / "_build" / "student" / "_build" / "html"

    done = _build_student(repo)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "reused for 2 of 3 notebooks" in done.stdout
    assert "book/middle.md runs: it keeps code that comes after code the student edition removed" in done.stdout
    assert _run_id(student_html, "kept") == full["kept"]  # the full build's outputs
    # the solution's code came last: the kept cell ran first in the full build, as it would here
    assert _run_id(student_html, "stripped") == full["stripped"]
    assert _run_id(student_html, "middle") != full["middle"]  # run in the student build
    # The kept cells' glued values are back in the pages; the solution's is in no file of the student build.
    for page in ("kept", "stripped", "middle"):
        assert f"The value glued by this page: {page}-glued." in _text(student_html / "book" / f"{page}.html")
    assert (
        "solution-only-glued-value" in (repo / "_build" / "jupyter_execute" / "book" / "stripped.glue.json").read_text()
    )
    leaks = [p for p in (repo / "_build" / "student").rglob("*") if p.is_file() and b"solution-only" in p.read_bytes()]
    assert not leaks, leaks

    # The library changed after the full build ran: nothing of it is reused.
    library = repo / "onlinelib" / "library.py"
    library.write_text("VALUE = 2\n")
    later = time.time() + 5
    os.utime(library, (later, later))
    stale = _build_student(repo)
    assert stale.returncode == 0, stale.stdout[-3000:] + stale.stderr[-3000:]
    assert "reused for 0 of 3 notebooks" in stale.stdout
    assert "book/kept.md runs: onlinelib/library.py changed after the full build executed it" in stale.stdout
    assert _run_id(student_html, "kept") != full["kept"]

    # Built again, the full build is newer than the change: reused again; --execute-all reuses nothing.
    _build_full(repo)
    rebuilt = _run_id(repo / "_build" / "html", "kept")
    assert _build_student(repo).returncode == 0 and _run_id(student_html, "kept") == rebuilt
    assert _build_student(repo, "--execute-all").returncode == 0 and _run_id(student_html, "kept") != rebuilt


def test_a_page_that_fails_without_its_solution_still_fails_the_student_build(tmp_path):
    # The full page defines SOLVED in the solution and uses it afterwards: the student page cannot run.
    repo = _repository(tmp_path, middle_after="\n```{code-cell} ipython3\nprint(SOLVED)\n```\n")
    _build_full(repo)
    done = _build_student(repo)
    assert done.returncode != 0
    assert "NameError" in done.stdout + done.stderr


def _glue_output(name: str, value: str) -> dict:
    """An output of ``glue(name, value, display=False)``, as the kernel writes it."""
    return nbformat.v4.new_output(
        "display_data",
        data={"application/papermill.record/text/plain": repr(value)},
        metadata={"scrapbook": {"name": name, "mime_prefix": "application/papermill.record/"}},
    )


def test_the_executed_notebook_records_which_cell_glued_each_value():
    from myst_nb.core.execute import base as execute_base

    from _ext import glue_cells

    stream = nbformat.v4.new_output("stream", name="stdout", text="a line\n")
    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell("# A page"),
            nbformat.v4.new_code_cell("print(...); glue('x', ...)", outputs=[stream, _glue_output("x", "1")]),
            nbformat.v4.new_code_cell("glue('y', ...)", outputs=[_glue_output("y", "2")]),
        ]
    )
    assert glue_cells.glue_positions(notebook) == {"x": [0, 1], "y": [1, 0]}

    glue_cells.setup(None)
    glue_cells.setup(None)  # loaded twice (two builds in one process): wrapped once
    wrapper = execute_base.extract_glue_data
    assert wrapper.recording and not getattr(wrapper.__closure__[0].cell_contents, "recording", False)
    data = execute_base.extract_glue_data(notebook, [1, 2, 3], logger=None)
    assert set(data) == {"x", "y"} and notebook.metadata[glue_cells.METADATA_KEY] == {"x": [0, 1], "y": [1, 0]}
    assert [len(cell.get("outputs", [])) for cell in notebook.cells] == [0, 1, 0]  # myst-nb took them out
