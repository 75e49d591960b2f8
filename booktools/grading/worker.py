"""The sandboxed side of the grader: runs one student notebook and answers the grader's requests.

``python -m booktools grade`` starts this script inside the sandbox (``booktools/grading/sandbox.py``) and
talks to it in JSON lines: requests on standard input, replies on standard output. The
student's code prints to standard error instead (the grader reads and caps it), so a
``print`` never lands in the reply channel by accident. Nothing here is trusted by the
grader: the student's code runs in this process and may rewrite any of it, so every
reply is checked there as untrusted plain data (``onlinelib.plain_data``) and the score
is computed there alone. This process never sees an expected value, the reference,
the hidden tests or the score.

Requests (one JSON object per line, each with an ``id``)::

    {"op": "run", "notebook": PATH, "function": NAME, "kind": "learner" or "function", "read_only": BOOL}
                                                        run every code cell, then look NAME up
                                                        (read_only: a call that changes its arguments fails;
                                                        NAME null: only run the cells)
    {"op": "lookup", "function": NAME, "kind": ..., "read_only": BOOL}
                                                        look NAME up after the run (an assignment of
                                                        several parts looks each one up)
    {"op": "call", "ref": R, "args": [...], "kwargs": {...}}
    {"op": "getattr", "ref": R, "name": ATTRIBUTE}

Replies: ``{"id": ..., "value": DATA}`` (plain data of at most ``reply_bytes``), ``{"id": ...,
"ref": R, "callable": BOOL, "type": NAME}`` (an object that stays here: the learner that a
learner assignment's class builds, or a bound method),
``{"id": ..., "outcome": {...}}`` (the notebook's run) or ``{"id": ..., "error": {"type":
NAME, "message": TEXT}}``. Before each code cell the worker also writes ``{"event":
"cell", "cell": N}`` so that a timeout can name the cell. Every reply also lists the
parts of onlinelib the code tried to use that this assignment removed
(``"forbidden": [...]``).

**An error in a cell costs only the names it left undefined** (issue 35). Every code cell runs,
in order, even after one raised (an ordinary exception, a syntax error, a refused magic): the
names a raising cell bound before its error stay bound, as in Jupyter. Each error is recorded
(``run_cell``: the cell, the line, the exception's type and the reason in one line) and the run's
outcome lists the first ``MAX_CELL_ERRORS`` as ``"cell_errors"`` (with ``"cell_errors_total"``).
Looking up a name that is not defined names the error that left it undefined: the error of a cell
whose top-level code would have bound it (``worker_shell.bound_names``), as the outcome's status
(``error`` or ``syntax_error``) and reason. What ends the run as before: running out of memory
(status ``memory``), and, in the grader, a timeout, too much output or a crash. ``exit()``,
``SystemExit`` and ``KeyboardInterrupt`` stop the notebook, as a script's would: no later cell
runs, and what is defined so far is looked up.

Each code cell runs through IPython's shell, as Jupyter runs it: ``worker_shell.py`` sets it up
(the magics that make sense offline, the refusals of the others, the cells' line numbers).

Usage (inside the sandbox): ``python -I -S grade_worker.py LIBDIR LIMITS_JSON``; the site folders
are in LIMITS_JSON's ``site_dirs``, at their neutral paths (without the sandbox, ``-S`` is left
out). Requests arrive on standard input, which the worker moves to another descriptor before any
student code runs (``input()`` gets end of file). This file runs as a script, by path
(``sandbox.py`` bind-mounts it and ``worker_shell.py``, which it loads from beside itself, into the
sandbox: ``WORKER_FILES``), and imports nothing of ``booktools``: the sandbox holds nothing else of
the repository. Putting LIBDIR first on ``sys.path`` is how the sandbox hands the submission the
assignment's copy of ``onlinelib``; it is the one ``sys.path`` change of the course tools.
"""

import json
import math
import os
import resource
import sys
import traceback


def _worker_shell() -> dict:
    """The names of ``worker_shell.py``, the file beside this one, run by its path (as the tests read
    this file): the worker runs as a script (``python -I``), so its folder is not on ``sys.path``, and
    it changes nothing there."""
    import runpy

    return runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker_shell.py"))


_shell = _worker_shell()
notebook_shell, cell_line = _shell["notebook_shell"], _shell["cell_line"]
leading_blank_lines, bound_names = _shell["leading_blank_lines"], _shell["bound_names"]

MAX_CELL_ERRORS = 10  # the cell errors a run reports (the grader shows a few of them)
STOPS_THE_NOTEBOOK = ("SystemExit", "KeyboardInterrupt")  # no cell after one of these runs


def set_limits(limits: dict) -> None:
    """Lower this process's limits before any student code runs (children inherit them).

    The CPU time is limited later, by ``limit_cpu``, once the libraries are imported.
    """
    memory = limits["memory_mb"] * 2**20
    fsize = limits["file_mb"] * 2**20
    for name, value in (
        ("RLIMIT_AS", (memory, memory)),
        ("RLIMIT_FSIZE", (fsize, fsize)),
        ("RLIMIT_CORE", (0, 0)),
        ("RLIMIT_NOFILE", (256, 256)),
        # Counted per user namespace, so this sandbox's processes and threads only.
        ("RLIMIT_NPROC", (limits["processes"], limits["processes"])),
    ):
        resource.setrlimit(getattr(resource, name), value)


def limit_cpu(seconds: int) -> None:
    """Let the student's code use ``seconds`` of CPU time from now on (the libraries' import is not theirs).

    At the soft limit the kernel sends SIGXCPU, which ends the process and which the grader reports
    as a timeout; a process that ignores it is killed two seconds of CPU later. A loop that spins
    therefore ends after the same work on an idle machine and on a loaded one, usually long before
    the wall-clock deadline. A child process starts with the same limit, counted from its own zero.
    """
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = math.ceil(usage.ru_utime + usage.ru_stime) + int(seconds)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 2))


def exception_text(exc: BaseException) -> str:
    try:
        text = " ".join(str(exc).split())
    except Exception:  # noqa: BLE001 - the student's exception class may fail to say what it is
        text = "(its message cannot be read)"
    if len(text) > 300:
        text = text[:297] + "..."
    return f"{type(exc).__name__}{': ' + text if text else ''}"


def read_cells(path: str) -> list:
    """The code cells of a notebook (.ipynb or MyST .md), numbered from 1; checks it is a Python notebook."""
    # jsonschema (under nbformat) builds an RFC 3987 grammar on import if rfc3987_syntax is
    # installed: 0.8 s of every submission's time, for an "iri" format no notebook schema uses.
    sys.modules.setdefault("rfc3987_syntax", None)
    # jupytext's __init__ also imports its Jupyter server contents managers (jupyter_server and
    # tornado: 0.14 s of CPU per submission), which reading a file never uses. They are hidden
    # while jupytext is imported (it catches the ImportError), then importable again by the notebook.
    hidden = [name for name in ("jupyter_server", "tornado") if name not in sys.modules]
    sys.modules.update(dict.fromkeys(hidden, None))
    try:
        import jupytext
    finally:
        for name in hidden:
            if sys.modules.get(name, False) is None:
                del sys.modules[name]

    notebook = jupytext.read(path)
    spec = notebook.metadata.get("kernelspec") or {}
    language = spec.get("language") or (notebook.metadata.get("language_info") or {}).get("name") or "python"
    if not str(language).lower().startswith("python"):
        raise ValueError(f"the notebook's kernel language is {str(language)[:40]!r}, not Python")
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


def run_cell(shell, cell: dict, memory_mb: int):
    """Run one code cell in ``shell``; None if it ran without error, else what went wrong.

    Returns
    -------
    dict or None
        ``{"status": "memory", "reason": ...}`` (out of memory: the run ends), or the cell's error,
        ``{"status": "error" or "syntax_error", "reason": ..., "cell": N, "line": L or None,
        "type": NAME}``. A cell tagged ``raises-exception`` may raise (but not fail to compile).
    """
    number, source = cell["number"], cell["source"]
    name = f"<code cell {number}>"
    try:
        result = shell.run_notebook_cell(name, source)
        before, error = result.error_before_exec, result.error_in_exec
    except BaseException as exc:  # IPython's own machinery failed, e.g. out of memory
        before, error = None, exc
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    if isinstance(before, MemoryError) or isinstance(error, MemoryError):
        return {"status": "memory", "reason": f"ran out of memory (the limit is {memory_mb} MB) in code cell {number}"}
    if isinstance(before, SyntaxError):
        line = before.lineno + leading_blank_lines(source) if before.lineno else None
        return _cell_error(
            number, line, before, "syntax_error", f"syntax error in {_where(number, line)}: {before.msg}"
        )
    if before is not None:  # e.g. null bytes in the source
        reason = f"code cell {number} cannot be compiled: {exception_text(before)}"
        return _cell_error(number, None, before, "syntax_error", reason)
    if "raises-exception" in cell["tags"]:
        return None
    if shell.refused is not None:  # even if the student's code caught the refusal
        message, line = shell.refused
        return _cell_error(number, line, "RefusedMagic", "error", f"{_where(number, line)}: {message}")
    if error is not None:
        line = cell_line(traceback.extract_tb(error.__traceback__), name, source)
        return _cell_error(number, line, error, "error", f"{_where(number, line)} raised {exception_text(error)}")
    return None


def _where(number: int, line) -> str:
    return f"code cell {number}" + (f", line {line}" if line else "")


def _cell_error(number: int, line, error, status: str, reason: str) -> dict:
    kind = error if isinstance(error, str) else type(error).__name__
    return {"status": status, "reason": reason, "cell": number, "line": line, "type": kind[:80]}


class Worker:
    def __init__(self, reply_fd: int, memory_mb: int, reply_bytes: int):
        self.memory_mb, self.reply_bytes = memory_mb, reply_bytes
        self.out = os.fdopen(reply_fd, "w", encoding="utf-8", buffering=1)
        self.objects = {}  # ref -> object kept here
        self.learner_refs = set()  # the refs of learner classes: what they build stays here; others return data
        self.namespace = None  # the notebook's variables, once it has run
        self.cell_errors = []  # every cell's error, in order (run_cell's records)
        self.left_undefined = {}  # name -> the error of the last cell that would have bound it and did not

    # -- helpers -----------------------------------------------------------------------------
    def forbidden_used(self) -> list:
        module = sys.modules.get("onlinelib._forbidden")
        used = getattr(module, "USED", [])
        return [str(name) for name in list(used)[:10]] if isinstance(used, list) else []

    def send(self, message: dict) -> None:
        message["forbidden"] = self.forbidden_used()
        line = json.dumps(message, separators=(",", ":"), allow_nan=True)
        if len(line) > self.reply_bytes and "value" in message:
            # refused here, as one failed check; a reply that still arrives too long ends the submission
            size = len(line)
            message = {
                "id": message.get("id"),
                "forbidden": message["forbidden"],
                **self.error(
                    ValueError(
                        f"returned {size / 2**20:.1f} MB of data, more than the limit of {self.reply_bytes // 1024} KB"
                    )
                ),
            }
            line = json.dumps(message, separators=(",", ":"))
        self.out.write(line + "\n")
        self.out.flush()

    def keep(self, obj) -> dict:
        ref = len(self.objects) + 1
        self.objects[ref] = obj
        return {"ref": ref, "callable": callable(obj), "type": type(obj).__name__[:80]}

    def error(self, exc: BaseException) -> dict:
        text = " ".join(str(exc).split())
        return {"error": {"type": type(exc).__name__[:80], "message": text[:300]}}

    # -- requests --------------------------------------------------------------------------
    def run(self, request: dict) -> dict:
        try:
            cells = read_cells(request["notebook"])
        except MemoryError:
            return {
                "outcome": {
                    "status": "memory",
                    "reason": f"ran out of memory (the limit is {self.memory_mb} MB) while reading the notebook",
                }
            }
        except BaseException as exc:
            return {"outcome": {"status": "unreadable", "reason": f"cannot read the notebook: {exception_text(exc)}"}}

        # taken before any of the student's code runs, so a notebook cannot swap it
        from onlinelib.grading import unchanged_arguments

        self.unchanged_arguments = unchanged_arguments
        shell = notebook_shell()
        stop = self.run_cells(shell, cells)
        if stop is not None:
            return {"outcome": stop}
        self.send({"event": "checks"})
        self.namespace = shell.user_ns
        errors = {"cell_errors": self.cell_errors[:MAX_CELL_ERRORS], "cell_errors_total": len(self.cell_errors)}
        if request.get("function") is None:
            return {"outcome": {"status": "ok", **errors}}
        reply = self.lookup(request)
        reply["outcome"].update(errors)
        return reply

    def run_cells(self, shell, cells: list):
        """Run the code cells in order; the outcome that ends the run (out of memory), else None.

        A cell's error is recorded and the next cell runs, but for one that stops the notebook
        (``STOPS_THE_NOTEBOOK``). The names the erring cell's top-level code would bind (and, after
        a stop, the later cells') that are not bound once it has run are recorded as left
        undefined by that error.
        """
        for index, cell in enumerate(cells):
            self.send({"event": "cell", "cell": cell["number"]})
            found = run_cell(shell, cell, self.memory_mb)
            if found is None:
                continue
            if found["status"] == "memory":
                return found
            self.cell_errors.append(found)
            stops = found["type"] in STOPS_THE_NOTEBOOK
            for later in cells[index:] if stops else [cell]:  # after a stop, the cells that do not run too
                for name in bound_names(shell, later["source"]):
                    if name not in shell.user_ns:
                        self.left_undefined[name] = found
            if stops:
                break
        return None

    def undefined(self, name) -> dict:
        """The outcome of looking up a name the notebook does not define: the cell error that left it
        undefined (its status, its reason and its cell), else "missing" (after the notebook's first
        error, if a cell raised)."""
        missing = f"the notebook does not define {name} (keep the name of the stub)"
        cause = self.left_undefined.get(name) if isinstance(name, str) else None
        if cause is not None:
            return {"status": cause["status"], "reason": cause["reason"], "cell": cause["cell"]}
        if self.cell_errors:
            first = self.cell_errors[0]
            return {"status": first["status"], "reason": f"{missing}; {first['reason']}"}
        return {"status": "missing", "reason": missing}

    def lookup(self, request: dict) -> dict:
        name, namespace = request["function"], self.namespace
        if namespace is None:
            return {"outcome": {"status": "missing", "reason": "the notebook has not run"}}
        if not isinstance(name, str) or name not in namespace:
            return {"outcome": self.undefined(name)}
        target = namespace[name]
        if not callable(target):
            return {
                "outcome": {
                    "status": "missing",
                    "reason": f"{name} is a {type(target).__name__}, not a function or class",
                }
            }
        if request.get("kind") != "learner" and request.get("read_only"):
            target = self.unchanged_arguments(target)  # the assignment says its arguments stay as they were
        kept = self.keep(target)
        if request.get("kind") == "learner":
            self.learner_refs.add(kept["ref"])
        return {"outcome": {"status": "ok", **kept}}

    def call(self, request: dict) -> dict:
        from onlinelib import plain_data

        target = self.objects[request["ref"]]
        args = plain_data.decode(request["args"])
        kwargs = plain_data.decode(request["kwargs"])
        result = target(*args, **kwargs)
        # the learner that a learner assignment's class builds stays here; everything else must be data
        return self.reply_value(result, keep=request["ref"] in self.learner_refs)

    def getattr(self, request: dict) -> dict:
        value = getattr(self.objects[request["ref"]], request["name"])
        return self.reply_value(value, keep=callable(value))

    def reply_value(self, value, keep: bool) -> dict:
        from onlinelib import plain_data

        if keep and callable(value):
            return self.keep(value)
        try:
            return {"value": plain_data.encode(value)}
        except plain_data.PlainDataError as exc:
            if keep:
                return self.keep(value)
            raise TypeError(plain_data.not_plain_data(exc)) from None

    def serve(self, requests) -> None:
        for line in requests:
            try:
                request = json.loads(line)
                op, ident = request["op"], request["id"]
            except (ValueError, KeyError, TypeError):
                return  # the grader never sends this; stop
            try:
                if op == "run":
                    reply = self.run(request)
                elif op == "call":
                    reply = self.call(request)
                elif op == "getattr":
                    reply = self.getattr(request)
                elif op == "lookup":
                    reply = self.lookup(request)
                else:
                    return
            except MemoryError as exc:
                reply = self.error(exc)
            except BaseException as exc:
                reply = self.error(exc)
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
            reply["id"] = ident
            self.send(reply)


def main() -> int:
    libdir, limits = sys.argv[1], json.loads(sys.argv[2])
    if limits.get("site_dirs"):  # in the sandbox (python -I -S): the site folders, at their neutral paths
        import site

        for folder in limits["site_dirs"]:
            site.addsitedir(folder)
        site.setquit()  # exit() and quit(), as in any Python
    set_limits(limits)
    reply_fd = os.dup(1)
    os.dup2(2, 1)  # the student's prints go to the grader's capped output pipe, not the replies
    request_fd = os.dup(0)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)  # input() gets EOF at once, never the grader's requests
    os.close(devnull)
    sys.path.insert(0, libdir)  # the assignment's copy of onlinelib, without the parts to be written
    import numpy  # noqa: F401  (imported before the notebook, as a kernel would have it)

    import onlinelib  # noqa: F401

    worker = Worker(reply_fd, limits["memory_mb"], limits["reply_bytes"])
    limit_cpu(limits["cpu_seconds"])
    worker.send({"event": "ready"})
    worker.serve(os.fdopen(request_fd, "r", encoding="utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
