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

    {"op": "run", "notebook": PATH, "function": NAME, "kind": "learner" or "function"}
                                                        run every code cell, then look NAME up
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

Usage (inside the sandbox): ``python -I grade_worker.py LIBDIR LIMITS_JSON``. This file runs as a
script, by path (``grade_sandbox.py`` bind-mounts it into the sandbox), and imports nothing of
``booktools``: the sandbox holds nothing else of the repository. Putting LIBDIR first on
``sys.path`` is how the sandbox hands the submission the assignment's copy of ``onlinelib``;
it is the one ``sys.path`` change of the course tools.
"""
import builtins
import json
import os
import resource
import sys
import traceback

_UNWRAPPED_CELL_MAGICS = ("%%time", "%%timeit", "%%capture")


def set_limits(limits: dict) -> None:
    """Lower this process's limits before any student code runs (children inherit them)."""
    memory = limits["memory_mb"] * 2**20
    cpu = int(limits["cpu_seconds"])
    fsize = limits["file_mb"] * 2**20
    for name, value in (
        ("RLIMIT_AS", (memory, memory)),
        ("RLIMIT_CPU", (cpu, cpu)),
        ("RLIMIT_FSIZE", (fsize, fsize)),
        ("RLIMIT_CORE", (0, 0)),
        ("RLIMIT_NOFILE", (256, 256)),
        # Counted per user namespace, so this sandbox's processes and threads only.
        ("RLIMIT_NPROC", (limits["processes"], limits["processes"])),
    ):
        resource.setrlimit(getattr(resource, name), value)


def strip_magics(source: str):
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
    import jupytext

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


class Worker:
    def __init__(self, reply_fd: int, memory_mb: int, reply_bytes: int):
        self.memory_mb, self.reply_bytes = memory_mb, reply_bytes
        self.out = os.fdopen(reply_fd, "w", encoding="utf-8", buffering=1)
        self.objects = {}  # ref -> object kept here
        self.function_ref = None  # the assignment's class or function, once the notebook has run
        self.kind = "function"  # "learner": what FUNCTION builds stays here; "function": it returns data

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
            message = {"id": message.get("id"), "forbidden": message["forbidden"],
                       **self.error(ValueError(f"returned {size / 2**20:.1f} MB of data, more than the "
                                               f"limit of {self.reply_bytes // 1024} KB"))}
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
            return {"outcome": {"status": "memory",
                                "reason": f"ran out of memory (the limit is {self.memory_mb} MB) while reading the notebook"}}
        except BaseException as exc:
            return {"outcome": {"status": "unreadable", "reason": f"cannot read the notebook: {exception_text(exc)}"}}

        def display(*objects, **kwargs):  # what a notebook has without an import
            print(*objects)

        namespace = {"__name__": "__main__", "__builtins__": builtins, "display": display}
        for cell in cells:
            number = cell["number"]
            self.send({"event": "cell", "cell": number})
            source = strip_magics(cell["source"])
            if source is None:
                continue
            filename = f"<code cell {number}>"
            try:
                code = compile(source, filename, "exec")
            except SyntaxError as exc:
                return {"outcome": {"status": "syntax_error",
                                    "reason": f"syntax error in code cell {number}, line {exc.lineno}: {exc.msg}"}}
            except (ValueError, MemoryError) as exc:  # e.g. null bytes in the source
                return {"outcome": {"status": "syntax_error",
                                    "reason": f"code cell {number} cannot be compiled: {exception_text(exc)}"}}
            try:
                exec(code, namespace)
            except MemoryError:
                return {"outcome": {"status": "memory",
                                    "reason": f"ran out of memory (the limit is {self.memory_mb} MB) in code cell {number}"}}
            except BaseException as exc:  # SystemExit and KeyboardInterrupt too: the notebook stops here
                if "raises-exception" in cell["tags"]:
                    continue
                line = None
                for frame in traceback.extract_tb(exc.__traceback__):
                    if frame.filename == filename:
                        line = frame.lineno
                where = f"code cell {number}" + (f", line {line}" if line else "")
                return {"outcome": {"status": "error", "reason": f"{where} raised {exception_text(exc)}"}}
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
        self.send({"event": "checks"})
        name = request["function"]
        if name not in namespace:
            return {"outcome": {"status": "missing", "reason": f"the notebook does not define {name} (keep the name of the stub)"}}
        target = namespace[name]
        if not callable(target):
            return {"outcome": {"status": "missing",
                                "reason": f"{name} is a {type(target).__name__}, not a function or class"}}
        kept = self.keep(target)
        self.function_ref = kept["ref"]
        self.kind = request.get("kind", "function")
        return {"outcome": {"status": "ok", **kept}}

    def call(self, request: dict) -> dict:
        from onlinelib import plain_data

        target = self.objects[request["ref"]]
        args = plain_data.decode(request["args"])
        kwargs = plain_data.decode(request["kwargs"])
        result = target(*args, **kwargs)
        # the learner that a learner assignment's class builds stays here; everything else must be data
        return self.reply_value(result, keep=request["ref"] == self.function_ref and self.kind == "learner")

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
            raise TypeError(f"returned something that is not plain data: {exc} "
                            "(return numbers, arrays, lists, tuples, dicts or strings)") from None

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
    set_limits(limits)
    reply_fd = os.dup(1)
    os.dup2(2, 1)  # the student's prints go to the grader's capped output pipe, not the replies
    sys.path.insert(0, libdir)  # the assignment's copy of onlinelib, without the parts to be written
    import numpy  # noqa: F401  (imported before the notebook, as a kernel would have it)
    import onlinelib  # noqa: F401

    worker = Worker(reply_fd, limits["memory_mb"], limits["reply_bytes"])
    worker.send({"event": "ready"})
    worker.serve(sys.stdin)
    return 0


if __name__ == "__main__":
    sys.exit(main())
