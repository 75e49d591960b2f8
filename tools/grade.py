#!/usr/bin/env python3
"""Grade a folder of submitted notebooks with an assignment's hidden tests (the lecturer's command).

Usage::

    python tools/grade.py SUBMISSIONS --assignment NAME --out scores.csv \\
        [--timeout 60] [--memory-mb 1024] [--max-output-kb 256] [--jobs 1]

SUBMISSIONS is a folder of notebooks, ``.ipynb`` or MyST Markdown ``.md`` (searched
recursively; names starting with ``.`` or ``_``, and README.md, are skipped). NAME is an assignment of
``book/assignments``; its hidden tests are ``book/assignments/lecturer/NAME_hidden.py``,
which defines ``FUNCTION`` (the name the notebook must define), ``REFERENCE`` (the
reference solution) and ``grade(student) -> onlinelib.grading.GradeReport``.

Before grading, the reference solution is graded in this process and must get full
marks; its score is every row's ``max_score``.

Each submission runs in its own child process (this script with ``--worker``, a fresh
interpreter in its own session, so its process group can be killed as a whole):

1. The parent reads the notebook with jupytext and hands the child its code cells.
2. The child first lowers its own limits with ``resource.setrlimit``: address space
   (``--memory-mb``), CPU time (a backstop a little above ``--timeout``), file size and
   core dumps. (It does this itself rather than in a ``preexec_fn``, which is unsafe
   with ``--jobs`` threads; no student code has run yet at that point.)
3. It runs the cells in order with ``exec`` in one namespace, as "Run all" would.
   IPython line magics (``%...``, ``!...``) are dropped, ``%%time``/``%%capture`` cell
   magics are unwrapped, other cell magics are skipped. A cell that raises stops the
   run (a cell tagged ``raises-exception`` may raise).
4. It looks up ``FUNCTION`` and calls the hidden ``grade`` on it.

The parent reads the child's output (stdout and stderr together) and kills the whole
process group when the output exceeds ``--max-output-kb`` or the wall-clock time exceeds
``--timeout`` (which covers start-up, about 2-4 s to import onlinelib, the notebook and
the hidden tests). A submission that loops forever, raises, has a syntax error, lacks
the function, runs out of memory, prints too much or crashes gets zero with the reason,
and grading goes on with the next one.

The CSV has the columns ``submission, score, max_score, status, feedback``; status is
one of graded, timeout, memory, output, syntax_error, error, missing, unreadable,
crashed. A summary table is printed at the end.

This isolates mistakes, not malice: the child runs as the same user, with the same
files and network as the lecturer. Grade untrusted code inside a container.
"""
from __future__ import annotations

import argparse
import builtins
import concurrent.futures
import csv
import importlib.util
import json
import os
import re
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HIDDEN_DIR = ROOT / "book" / "assignments" / "lecturer"
STATUSES = ("graded", "timeout", "memory", "output", "syntax_error", "error", "missing", "unreadable", "crashed")
FIELDS = ["submission", "score", "max_score", "status", "feedback"]
_UNWRAPPED_CELL_MAGICS = ("%%time", "%%timeit", "%%capture")


# -- the hidden tests ---------------------------------------------------------------------


def load_hidden(path: Path):
    """Import a hidden-tests file and check that it defines FUNCTION, REFERENCE and grade."""
    spec = importlib.util.spec_from_file_location(f"_hidden_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in ("FUNCTION", "REFERENCE", "grade"):
        if not hasattr(module, name):
            raise SystemExit(f"{path} must define {name}")
    return module


def hidden_path(assignment: str, hidden_dir: Path) -> Path:
    if not re.fullmatch(r"[A-Za-z0-9_]+", assignment):
        raise SystemExit(f"--assignment must be a name like 'halving', got {assignment!r}")
    path = hidden_dir / f"{assignment}_hidden.py"
    if not path.is_file():
        known = sorted(p.name[: -len("_hidden.py")] for p in hidden_dir.glob("*_hidden.py"))
        raise SystemExit(f"no hidden tests for assignment {assignment!r} ({path} does not exist); known: {', '.join(known)}")
    return path


# -- the child process ------------------------------------------------------------------------


def _write_json(path: str, data: dict) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f)
    os.replace(tmp, path)


def _set_limits(memory_mb: int, timeout: float) -> None:
    import resource

    memory = memory_mb * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = int(timeout) + 5
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    size = 256 * 2**20
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))


def strip_magics(source: str) -> str | None:
    """The cell's Python code with IPython magics removed; None if the whole cell is a cell magic to skip."""
    lines = source.split("\n")
    first = lines[0].strip() if lines else ""
    if first.startswith("%%"):
        if first.split()[0] not in _UNWRAPPED_CELL_MAGICS:
            return None
        lines[0] = ""
    out = []
    for line in lines:
        stripped = line.lstrip()
        if stripped.startswith(("%", "!")):
            out.append(line[: len(line) - len(stripped)] + "pass  # IPython magic dropped by the grader")
        else:
            out.append(line)
    return "\n".join(out)


def _cell_line(exc: BaseException, filename: str) -> int | None:
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == filename:
            line = frame.lineno
    return line


def _exception_text(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    if len(text) > 300:
        text = text[:297] + "..."
    return f"{type(exc).__name__}{': ' + text if text else ''}"


def worker(cells_path: str, hidden_file: str, result_path: str, status_path: str, memory_mb: int, timeout: float) -> int:
    """Run one submission's cells, then the hidden tests; write the result as JSON."""
    _set_limits(memory_mb, timeout)
    _write_json(status_path, {"phase": "start-up"})

    def finish(status: str, reason: str, score: float = 0.0) -> int:
        _write_json(result_path, {"status": status, "score": score, "feedback": reason})
        return 0

    try:
        hidden = load_hidden(Path(hidden_file))  # imports onlinelib before the student's code runs
    except MemoryError:
        return finish("memory", f"the grader ran out of memory while starting (--memory-mb {memory_mb} is too small)")
    with open(cells_path, encoding="utf-8") as f:
        cells = json.load(f)

    def display(*objects, **kwargs):  # what a notebook has without an import
        print(*objects)

    namespace = {"__name__": "__main__", "__builtins__": builtins, "display": display}
    for cell in cells:
        number = cell["number"]
        _write_json(status_path, {"phase": "notebook", "cell": number})
        source = strip_magics(cell["source"])
        if source is None:
            continue
        filename = f"<code cell {number}>"
        try:
            code = compile(source, filename, "exec")
        except SyntaxError as exc:
            return finish("syntax_error", f"syntax error in code cell {number}, line {exc.lineno}: {exc.msg}")
        except (ValueError, MemoryError) as exc:  # e.g. null bytes in the source
            return finish("syntax_error", f"code cell {number} cannot be compiled: {_exception_text(exc)}")
        try:
            exec(code, namespace)
        except MemoryError:
            return finish("memory", f"ran out of memory (the limit is {memory_mb} MB) in code cell {number}")
        except BaseException as exc:  # SystemExit and KeyboardInterrupt too: the notebook stops here
            if "raises-exception" in cell.get("tags", ()):
                continue
            line = _cell_line(exc, filename)
            where = f"code cell {number}" + (f", line {line}" if line else "")
            return finish("error", f"{where} raised {_exception_text(exc)}")
        finally:
            sys.stdout.flush()
            sys.stderr.flush()

    name = hidden.FUNCTION
    if name not in namespace:
        return finish("missing", f"the notebook does not define {name} (keep the name of the stub)")
    student = namespace[name]
    if not callable(student):
        return finish("missing", f"{name} is a {type(student).__name__}, not a function or class")

    _write_json(status_path, {"phase": "grading"})
    try:
        report = hidden.grade(student)
    except MemoryError:
        return finish("memory", f"ran out of memory (the limit is {memory_mb} MB) during the hidden tests")
    except BaseException as exc:
        return finish("error", f"the hidden tests stopped: {_exception_text(exc)}")
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    _write_json(result_path, {
        "status": "graded",
        "score": report.score,
        "max_score": report.max_score,
        "feedback": report.feedback(),
    })
    return 0


# -- the parent ---------------------------------------------------------------------------


def read_cells(path: Path) -> list[dict]:
    """The code cells of a notebook (.ipynb or MyST .md), numbered from 1."""
    import jupytext

    notebook = jupytext.read(str(path))
    cells = []
    for cell in notebook.cells:
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(source)
        tags = list(cell.get("metadata", {}).get("tags", []))
        cells.append({"number": len(cells) + 1, "source": source, "tags": tags})
    return cells


def _child_env() -> dict:
    env = dict(os.environ)
    env.update({
        "PYTHONUNBUFFERED": "1",
        "PYTHONHASHSEED": "0",
        "MPLBACKEND": "Agg",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "NUMBA_NUM_THREADS": "1",
    })
    # the child imports onlinelib and the hidden tests from this repository
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


_LIVE: set = set()  # the children running now, killed if the lecturer interrupts the run
_LIVE_LOCK = threading.Lock()


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _phase(status_path: Path) -> str:
    status = _read_json(status_path) or {}
    phase = status.get("phase")
    if phase == "notebook":
        return f" in code cell {status.get('cell')}"
    if phase == "grading":
        return " during the hidden tests"
    if phase == "start-up":
        return " while starting (importing the libraries)"
    return ""


def grade_one(path: Path, root: Path, hidden_file: Path, args) -> dict:
    """Grade one submission in a child process; return its CSV row (without max_score)."""
    name = str(path.relative_to(root))
    row = {"submission": name, "score": 0.0, "status": "", "feedback": ""}
    try:
        cells = read_cells(path)
    except Exception as exc:
        row.update(status="unreadable", feedback=f"cannot read the notebook: {_exception_text(exc)}")
        return row
    limit = args.max_output_kb * 1024
    with tempfile.TemporaryDirectory(prefix="grade-") as tmp:
        tmp = Path(tmp)
        cells_path, result_path, status_path = tmp / "cells.json", tmp / "result.json", tmp / "status.json"
        cells_path.write_text(json.dumps(cells), encoding="utf-8")
        workdir = tmp / "work"
        workdir.mkdir()
        command = [
            sys.executable, str(Path(__file__).resolve()), "--worker", str(cells_path), str(hidden_file),
            str(result_path), str(status_path), str(args.memory_mb), str(args.timeout),
        ]
        start = time.monotonic()
        proc = subprocess.Popen(
            command, cwd=workdir, env=_child_env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, start_new_session=True,
        )
        with _LIVE_LOCK:
            _LIVE.add(proc)
        outcome, printed, tail = None, 0, b""
        try:
            with selectors.DefaultSelector() as selector:
                selector.register(proc.stdout, selectors.EVENT_READ)
                while True:
                    remaining = args.timeout - (time.monotonic() - start)
                    if remaining <= 0:
                        outcome = "timeout"
                        break
                    if not selector.select(timeout=min(remaining, 0.5)):
                        if proc.poll() is not None:
                            break  # the child is done; a leftover grandchild may hold the output open
                        continue
                    chunk = os.read(proc.stdout.fileno(), 65536)
                    if not chunk:
                        break  # end of output: the child has exited (or closed its output)
                    printed += len(chunk)
                    tail = (tail + chunk)[-2000:]
                    if printed > limit:
                        outcome = "output"
                        break
            if outcome is None:
                try:
                    proc.wait(timeout=max(0.1, args.timeout - (time.monotonic() - start)))
                except subprocess.TimeoutExpired:
                    outcome = "timeout"
        finally:
            _kill_group(proc)
            proc.wait()
            proc.stdout.close()
            with _LIVE_LOCK:
                _LIVE.discard(proc)
        elapsed = time.monotonic() - start
        if outcome == "timeout":
            row.update(status="timeout", feedback=f"timed out after {args.timeout:g} s{_phase(status_path)}")
            return row
        if outcome == "output":
            row.update(status="output", feedback=f"printed more than {args.max_output_kb} KB{_phase(status_path)}")
            return row
        result = _read_json(result_path)
        if result is None:
            code = proc.returncode
            if code is not None and code < 0:
                try:
                    signame = signal.Signals(-code).name
                except ValueError:
                    signame = f"signal {-code}"
                how = f"was killed by {signame}"
                if -code == signal.SIGXCPU:
                    how += " (CPU time limit)"
                elif -code == signal.SIGXFSZ:
                    how += " (file size limit)"
            else:
                how = f"exited with status {code}"
            last = tail.decode("utf-8", "replace").strip().splitlines()
            detail = f"; last output: {last[-1][:200]}" if last else ""
            row.update(status="crashed", feedback=f"the submission {how}{_phase(status_path)}{detail}")
            return row
        status = result.get("status")
        if status not in STATUSES:
            row.update(status="crashed", feedback=f"the worker wrote an unknown status {status!r}")
            return row
        row.update(status=status, score=float(result.get("score", 0.0)) if status == "graded" else 0.0,
                   feedback=str(result.get("feedback", "")))
        row["seconds"] = round(elapsed, 1)
        return row


def find_submissions(folder: Path) -> list[Path]:
    found = []
    for path in sorted(folder.rglob("*")):
        parts = path.relative_to(folder).parts
        if any(p.startswith((".", "_")) for p in parts) or "ipynb_checkpoints" in str(path):
            continue
        if path.name.lower() == "readme.md":
            continue
        if path.is_file() and path.suffix in (".ipynb", ".md"):
            found.append(path)
    return found


def _fmt_score(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--worker":
        cells, hidden, result, status, memory_mb, timeout = argv[1:7]
        return worker(cells, hidden, result, status, int(memory_mb), float(timeout))
    parser = argparse.ArgumentParser(
        description="Grade a folder of submitted notebooks with an assignment's hidden tests.",
    )
    parser.add_argument("submissions", type=Path, help="folder of .ipynb or MyST .md notebooks")
    parser.add_argument("--assignment", required=True, help="the assignment, e.g. halving")
    parser.add_argument("--out", type=Path, required=True, help="the CSV file to write")
    parser.add_argument("--timeout", type=float, default=60.0, help="wall-clock seconds per submission (default 60)")
    parser.add_argument("--memory-mb", type=int, default=1024, help="address-space limit per submission (default 1024)")
    parser.add_argument("--max-output-kb", type=int, default=256, help="output limit per submission (default 256)")
    parser.add_argument("--jobs", type=int, default=1, help="submissions graded at once (default 1)")
    parser.add_argument("--hidden-dir", type=Path, default=HIDDEN_DIR, help="where NAME_hidden.py lives")
    args = parser.parse_args(argv)
    if args.timeout <= 0:
        parser.error(f"--timeout must be positive, got {args.timeout}")
    if args.memory_mb < 64:
        parser.error(f"--memory-mb must be at least 64, got {args.memory_mb}")
    if args.max_output_kb < 1:
        parser.error(f"--max-output-kb must be at least 1, got {args.max_output_kb}")
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    if not args.submissions.is_dir():
        parser.error(f"{args.submissions} is not a folder")

    hidden_file = hidden_path(args.assignment, args.hidden_dir.resolve())
    hidden = load_hidden(hidden_file)
    reference = hidden.grade(hidden.REFERENCE)
    if not reference.passed or reference.max_score <= 0:
        print(reference.summary(), file=sys.stderr)
        raise SystemExit(f"the reference solution fails the hidden tests of {args.assignment!r}: fix {hidden_file}")
    max_score = reference.max_score

    submissions = find_submissions(args.submissions)
    if not submissions:
        raise SystemExit(f"no .ipynb or .md notebooks in {args.submissions}")
    print(f"grading {len(submissions)} submission(s) of {args.assignment!r} (max score {_fmt_score(max_score)}, "
          f"timeout {args.timeout:g} s, memory {args.memory_mb} MB, output {args.max_output_kb} KB)", file=sys.stderr)
    rows = []
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs)
    try:
        futures = {pool.submit(grade_one, path, args.submissions, hidden_file, args): path for path in submissions}
        for future in concurrent.futures.as_completed(futures):
            row = future.result()
            row["max_score"] = max_score
            rows.append(row)
            print(f"  {row['submission']}: {_fmt_score(row['score'])}/{_fmt_score(max_score)} [{row['status']}]",
                  file=sys.stderr)
    except KeyboardInterrupt:
        pool.shutdown(wait=False, cancel_futures=True)
        with _LIVE_LOCK:
            for proc in list(_LIVE):
                _kill_group(proc)
        print("interrupted: no scores written", file=sys.stderr)
        return 130
    pool.shutdown()
    rows.sort(key=lambda r: r["submission"])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({**row, "score": _fmt_score(row["score"]), "max_score": _fmt_score(row["max_score"])})
    width = max(len(r["submission"]) for r in rows)
    print(f"{'submission':{width}s}  {'score':>7s}  {'status':12s}  feedback")
    for r in rows:
        score = f"{_fmt_score(r['score'])}/{_fmt_score(r['max_score'])}"
        print(f"{r['submission']:{width}s}  {score:>7s}  {r['status']:12s}  {r['feedback']}")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
