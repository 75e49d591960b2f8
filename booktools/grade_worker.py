"""The sandboxed side of the grader: runs one student notebook and answers the grader's requests.

``python -m booktools grade`` starts this script inside the sandbox (``booktools/grade_sandbox.py``) and
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

Each code cell runs through IPython's shell, as Jupyter runs it (``notebook_shell``): magics
that make sense offline (``%time``, ``%%capture``, ``%matplotlib``...), ``from __future__``
imports carried across cells, top-level ``await``, ``display`` and the value of a cell's last
expression (printed, like the student's output). Magics and ``!`` commands that reach outside
the notebook (a shell, files, other code, package installers) fail their cell with a reason that
names them: ``LINE_MAGICS`` and ``CELL_MAGICS`` list those allowed.

Usage (inside the sandbox): ``python -I -S grade_worker.py LIBDIR LIMITS_JSON``; the site folders
are in LIMITS_JSON's ``site_dirs``, at their neutral paths (without the sandbox, ``-S`` is left
out). Requests arrive on standard input, which the worker moves to another descriptor before any
student code runs (``input()`` gets end of file). This file runs as a script, by path (``grade_sandbox.py`` bind-mounts it into the sandbox), and imports nothing of
``booktools``: the sandbox holds nothing else of the repository. Putting LIBDIR first on
``sys.path`` is how the sandbox hands the submission the assignment's copy of ``onlinelib``;
it is the one ``sys.path`` change of the course tools.
"""

import json
import math
import os
import resource
import sys
import traceback

# The magics a graded notebook may use: each makes sense offline and runs only code the
# notebook shows. Everything else is refused with a reason (an allow-list, so that a magic
# IPython adds later is refused too). `obj?` and `obj??` are %pinfo and %pinfo2.
LINE_MAGICS = frozenset(
    {
        "time",
        "timeit",
        "matplotlib",
        "config",
        "precision",
        "pprint",
        "xmode",
        "colors",
        "autoawait",
        "who",
        "whos",
        "who_ls",
        "pinfo",
        "pinfo2",
        "pdoc",
        "pdef",
        "psource",
        "psearch",
        "env",
        "set_env",
        "pwd",
    }
)
CELL_MAGICS = frozenset(
    {
        "time",
        "timeit",
        "capture",
        "html",
        "HTML",
        "markdown",
        "latex",
        "svg",
        "SVG",
        "javascript",
        "js",
    }
)
# Common in notebook templates, harmless, and with nothing to do in a run from top to bottom:
# accepted and skipped, so that they cost nobody marks.
SKIPPED_LINE_MAGICS = frozenset({"load_ext autoreload", "reload_ext autoreload", "autoreload"})
# Why the common refused ones are refused; any other magic gets the general reason.
WHY_REFUSED = {
    **dict.fromkeys(
        (
            "!",
            "sx",
            "system",
            "bash",
            "sh",
            "script",
            "perl",
            "ruby",
            "python",
            "python2",
            "python3",
            "pypy",
            "alias",
            "unalias",
            "rehashx",
            "killbgscripts",
        ),
        "runs a shell command",
    ),
    **dict.fromkeys(("pip", "conda", "mamba", "micromamba", "uv"), "installs packages"),
    **dict.fromkeys(
        (
            "run",
            "load",
            "loadpy",
            "load_ext",
            "reload_ext",
            "unload_ext",
            "aimport",
            "edit",
            "ed",
            "macro",
            "rerun",
            "recall",
            "rep",
            "history",
            "hist",
            "code_wrap",
            "writefile",
            "file",
            "save",
            "store",
            "logstart",
            "logon",
            "logoff",
            "logstop",
            "logstate",
            "cd",
            "pushd",
            "popd",
            "dirs",
            "dhist",
            "bookmark",
            "pycat",
            "pfile",
            "notebook",
            "pastebin",
        ),
        "runs code or uses files from outside the notebook",
    ),
    **dict.fromkeys(("debug", "pdb"), "starts the interactive debugger"),
}
# Where %time and %%time compile the code they time.
TIMED_CODE = ("<timed exec>", "<timed eval>")


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
    text = " ".join(str(exc).split())
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


class RefusedMagic(Exception):
    """A magic or shell command that a graded notebook may not use; the message names it and says why."""


def refusal(shown: str, name: str) -> str:
    """Why ``shown`` (e.g. ``!ls`` or ``%run x.py``, whose magic is ``name``) is refused, for the student."""
    shown = " ".join(shown.split())
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    if name in WHY_REFUSED:
        return f"`{shown}` {WHY_REFUSED[name]}, which a graded notebook may not do; remove it"
    return (
        f"`{shown}` is not one of the magics the grader runs (those that make sense offline, such as "
        "%time, %timeit, %%capture and %matplotlib); remove it"
    )


def notebook_shell():
    """IPython's shell, set up to run a notebook's cells in the sandbox as Jupyter runs them.

    IPython is imported here, after the worker is ready: 0.05 to 0.08 s of CPU. The shell
    keeps no history, creates no IPython folder or profile (nothing is written under $HOME),
    uses no colours and shows only the text form of outputs, which go to standard output
    (the grader's capped pipe). Its magics, ``!`` commands and ``get_ipython()`` methods that
    run them pass through the allow-lists above: a refusal is recorded in ``shell.refused``
    (the message and the line of the running cell) before it raises ``RefusedMagic``, so
    that the cell fails even if the student's code catches the exception.

    Returns
    -------
    InteractiveShell
        The process's IPython shell, whose ``user_ns`` is the notebook's namespace. Run a
        cell with ``shell.run_notebook_cell(name, source)``.
    """
    import warnings

    from IPython.core.compilerop import CachingCompiler
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets import Type
    from traitlets.config import Config

    class CellCompiler(CachingCompiler):
        """IPython's compiler (it carries ``from __future__`` imports across cells), naming a cell as asked."""

        next_name = None

        def get_code_name(self, raw_code, transformed_code, number):
            # only the notebook's own cell gets its name; a cell %%capture runs inside it keeps IPython's
            name, self.next_name = self.next_name, None
            return name or super().get_code_name(raw_code, transformed_code, number)

    class GradingShell(InteractiveShell):
        compiler_class = Type(CellCompiler)
        cell_name = cell_source = None  # the running cell's filename and source
        refused = None  # (message, line) of the running cell's first refused magic

        def init_ipython_dir(self, ipython_dir):
            pass  # no ~/.ipython: nothing here needs a profile

        def init_profile_dir(self, profile_dir):
            self.profile_dir = None

        def init_virtualenv(self):
            pass  # the grader has set sys.path

        def enable_gui(self, gui=None):
            pass  # %matplotlib runs as %matplotlib inline: there is no screen to draw on

        def ask_exit(self):
            raise SystemExit  # exit() and quit() stop the notebook, as a script's would

        def showtraceback(self, *args, **kwargs):
            pass  # the worker reports the error itself, in one line

        showsyntaxerror = showindentationerror = showtraceback

        def run_notebook_cell(self, name: str, source: str):
            """Run one cell as Jupyter would, its code named ``name`` in tracebacks; IPython's ExecutionResult."""
            self.cell_name = self.compile.next_name = name
            self.cell_source, self.refused = source, None
            return self.run_cell(source, store_history=True)

        def refuse(self, shown: str, name: str):
            message = refusal(shown, name)
            if self.refused is None:
                self.refused = (message, cell_line(traceback.extract_stack(), self.cell_name, self.cell_source))
            raise RefusedMagic(message)

        def system(self, cmd):
            self.refuse("!" + cmd, "!")

        system_piped = system_raw = system

        def getoutput(self, cmd, split=True, depth=0):
            self.refuse("!" + cmd, "!")

        def run_line_magic(self, magic_name, line, _stack_depth=1):
            if magic_name == "autoreload" or f"{magic_name} {line.strip()}" in SKIPPED_LINE_MAGICS:
                return None
            if magic_name == "matplotlib":
                line = "inline"
            elif magic_name not in LINE_MAGICS:
                self.refuse(f"%{magic_name} {line}", magic_name)
            # one frame deeper than IPython expects: %time runs its statement in the caller's scope
            return super().run_line_magic(magic_name, line, _stack_depth + 1)

        def run_cell_magic(self, magic_name, line, cell):
            if magic_name not in CELL_MAGICS:
                self.refuse(f"%%{magic_name} {line}", magic_name)
            return super().run_cell_magic(magic_name, line, cell)

        def find_magic(self, magic_name, magic_kind="line"):
            allowed = LINE_MAGICS if magic_kind == "line" else CELL_MAGICS
            return super().find_magic(magic_name, magic_kind) if magic_name in allowed else None

        def find_line_magic(self, magic_name):
            return self.find_magic(magic_name, "line")

        def find_cell_magic(self, magic_name):
            return self.find_magic(magic_name, "cell")

    config = Config()
    config.HistoryManager.enabled = False
    config.HistoryManager.hist_file = ":memory:"
    config.InteractiveShell.colors = "nocolor"
    config.DisplayFormatter.active_types = ["text/plain"]  # no PNG of every figure: nobody looks at it
    warnings.filterwarnings("ignore", "To exit: use 'exit', 'quit', or Ctrl-D", UserWarning)
    shell = GradingShell.instance(config=config)
    shell.set_hook(
        "show_in_pager",
        lambda _shell, data, start=0, screen_lines=0: print(
            data.get("text/plain", "") if isinstance(data, dict) else data
        ),
    )
    return shell


def leading_blank_lines(source: str) -> int:
    """How many blank lines start the cell: IPython drops them, so its line numbers are off by this many."""
    count = 0
    for line in source.splitlines():
        if line and not line.isspace():
            break
        count += 1
    return count


def cell_line(frames, cell_name: str, source: str):
    """The line of the cell (its own numbering) that a stack or a traceback was at; None if not in the cell.

    Parameters
    ----------
    frames : list of traceback.FrameSummary
        The frames, outermost first (``traceback.extract_tb`` or ``extract_stack``).
    cell_name, source : str
        The filename of the cell's code, and the cell's source.
    """
    line = base = None
    for frame in frames:
        if frame.filename == cell_name:
            line = base = frame.lineno
        elif frame.filename in TIMED_CODE and base is not None:
            # %%time's body starts on the line after the magic, %time's statement is on the magic's line
            line = base + frame.lineno - (0 if source.lstrip().startswith("%%") else 1)
    return None if line is None else line + leading_blank_lines(source)


def run_cell(shell, cell: dict, memory_mb: int):
    """Run one code cell in ``shell``; the outcome that stops the notebook, or None to go on."""
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
        where = f"code cell {number}" + (
            f", line {before.lineno + leading_blank_lines(source)}" if before.lineno else ""
        )
        return {"status": "syntax_error", "reason": f"syntax error in {where}: {before.msg}"}
    if before is not None:  # e.g. null bytes in the source
        return {"status": "syntax_error", "reason": f"code cell {number} cannot be compiled: {exception_text(before)}"}
    if "raises-exception" in cell["tags"]:
        return None
    if shell.refused is not None:
        message, line = shell.refused
        where = f"code cell {number}" + (f", line {line}" if line else "")
        return {"status": "error", "reason": f"{where}: {message}"}
    if error is not None:  # SystemExit and KeyboardInterrupt too: the notebook stops here
        line = cell_line(traceback.extract_tb(error.__traceback__), name, source)
        where = f"code cell {number}" + (f", line {line}" if line else "")
        return {"status": "error", "reason": f"{where} raised {exception_text(error)}"}
    return None


class Worker:
    def __init__(self, reply_fd: int, memory_mb: int, reply_bytes: int):
        self.memory_mb, self.reply_bytes = memory_mb, reply_bytes
        self.out = os.fdopen(reply_fd, "w", encoding="utf-8", buffering=1)
        self.objects = {}  # ref -> object kept here
        self.learner_refs = set()  # the refs of learner classes: what they build stays here; others return data
        self.namespace = None  # the notebook's variables, once it has run

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
        for cell in cells:
            self.send({"event": "cell", "cell": cell["number"]})
            stop = run_cell(shell, cell, self.memory_mb)
            if stop is not None:
                return {"outcome": stop}
        self.send({"event": "checks"})
        self.namespace = shell.user_ns
        if request.get("function") is None:
            return {"outcome": {"status": "ok"}}
        return self.lookup(request)

    def lookup(self, request: dict) -> dict:
        name, namespace = request["function"], self.namespace
        if namespace is None:
            return {"outcome": {"status": "missing", "reason": "the notebook has not run"}}
        if not isinstance(name, str) or name not in namespace:
            return {
                "outcome": {
                    "status": "missing",
                    "reason": f"the notebook does not define {name} (keep the name of the stub)",
                }
            }
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
            raise TypeError(
                f"returned something that is not plain data: {exc} "
                "(return numbers, arrays, lists, tuples, dicts or strings)"
            ) from None

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
