"""The grader's sandbox: one sealed worker process per submission, and the pipes to talk to it.

Used by ``python -m booktools grade``. Three parts:

* ``assignment_library`` writes the copy of ``onlinelib`` a submission sees: the parts the
  assignment asks the student to write (say ``onlinelib.Halving``) are replaced by stubs
  that raise ``ForbiddenInAssignment`` and record their use, so their code is nowhere in
  the sandbox however it is imported.
* ``Sandbox`` starts ``booktools/grading/worker.py`` under bubblewrap (``bwrap``): new user, PID,
  network, IPC, UTS and cgroup namespaces, uid 65534 and no capabilities, a size-capped
  tmpfs as the only writable place, the Python environment, the worker's two files
  (``WORKER_FILES``) and the library copy read-only, the submission alone in a read-only
  folder, and nothing else of the machine (no home, no repository, no other submission, no
  ``lecturer/``). The worker lowers its own limits before any student code runs (memory, CPU
  time, file size, processes, open files); when the grader runs as root, where the kernel
  exempts uid 0 from the process limit, a pids and a memory cgroup bound the whole sandbox as
  well. Killing the sandbox kills its PID namespace, so no child or ``setsid`` daemon survives it.
* ``Sandbox.request`` sends one JSON request and waits for its reply, reading the
  student's output at the same time; it enforces the deadline, the output cap and the
  reply size, and ``RemoteRef`` turns the worker's objects into proxies that the hidden
  tests call as if they were local (``predict``, ``update``, attributes, functions).
  Every reply is decoded with ``onlinelib.plain_data``: data, never objects.
"""

from __future__ import annotations

import json
import os
import select
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

from booktools.grading.isolation import STARTING, WORKER, WORKER_ENV, CgroupLimits, bwrap_command
from onlinelib import plain_data


class SandboxFailure(BaseException):
    """Ends the grading of one submission (timeout, output, crash, bad reply): status and reason.

    A BaseException, so that the hidden tests' ``except Exception`` around student calls
    never turns it into an ordinary failed check. ``infrastructure`` is True for a failure
    before any of the student's code ran (the worker died or hung while importing the
    libraries): the grader's fault, never the student's, so it is retried and then recorded
    as ``grader-error``.
    """

    def __init__(self, status: str, reason: str, infrastructure: bool = False):
        super().__init__(reason)
        self.status, self.reason, self.infrastructure = status, reason, infrastructure


class RemoteError(Exception):
    """An exception the student's code raised in the sandbox (its type name and message, as text)."""

    def __init__(self, type_name: str, message: str):
        super().__init__(message)
        self.remote_type = type_name


class RemoteNotImplementedError(RemoteError, NotImplementedError):
    """The student's code raised NotImplementedError (an untouched stub)."""


def _clean(text, limit: int = 300) -> str:
    """Untrusted text from the sandbox as one printable line of at most ``limit`` characters."""
    text = "".join(ch if ch.isprintable() else " " for ch in str(text))
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- one sandboxed worker ------------------------------------------------------------------------------


class Sandbox:
    """One running worker, sealed by bubblewrap (or, with ``bwrap=None``, only in its own session).

    Parameters
    ----------
    box : Path
        A folder holding ``submission.ipynb`` or ``submission.md`` (and the public data
        file, if any); bound read-only as the submission folder.
    library : Path
        The folder holding the assignment's ``onlinelib`` copy.
    limits : dict
        memory_mb, cpu_seconds, file_mb, processes, tmpfs_mb, output_bytes, reply_bytes.
    deadline : float
        ``time.monotonic()`` at which the submission's time is up.
    """

    def __init__(self, box: Path, library: Path, limits: dict, deadline: float, *, bwrap: str | None, name: str):
        self.limits, self.deadline = limits, deadline
        self.output = 0
        self.tail = b""
        self.phase = STARTING
        self.forbidden: list[str] = []
        self.ident = 0
        self.buffer = b""
        self.scanned = 0  # bytes of the buffer already searched for a newline
        self.pending = b""  # the part of the last request the worker has not read yet
        worker_limits = {k: limits[k] for k in ("memory_mb", "cpu_seconds", "file_mb", "processes", "reply_bytes")}
        self.cgroups = None
        self.sandboxed = bool(bwrap)
        env = WORKER_ENV
        if bwrap:
            command, info_read, info_write = bwrap_command(bwrap, box, library, limits, worker_limits)
            self.cgroups = CgroupLimits(
                name, limits["processes"] + 8, (limits["memory_mb"] + limits["tmpfs_mb"]) * 2**20
            )
            if self.cgroups.dirs:
                command, env = self._in_cgroups(command)
            self.cwd = "/"
        else:  # --unsafe-no-sandbox: the same worker and protocol, with the lecturer's rights
            command = [sys.executable, "-I", str(WORKER), str(library), json.dumps(worker_limits)]
            self.cwd = str(box)
            info_read = info_write = None
        self._start(command, env, info_read, info_write)

    def _in_cgroups(self, command: list[str]) -> tuple[list[str], dict]:
        """The command and environment that join the cgroups before bwrap starts, so nothing of the
        sandbox ever runs outside them."""
        command = [
            "/bin/sh",
            "-c",
            'for f in $GRADER_CGROUPS; do echo $$ > "$f" || exit 125; done; exec "$@"',
            "sh",
            command[0],
            "--unsetenv",
            "GRADER_CGROUPS",
            *command[1:],
        ]
        return command, dict(WORKER_ENV, GRADER_CGROUPS=" ".join(self.cgroups.procs_files))

    def _start(self, command: list[str], env: dict, info_read: int | None, info_write: int | None) -> None:
        """Start the worker and wait for its "ready" event (the libraries imported)."""
        self.init_pidfd = None
        try:
            self.proc = subprocess.Popen(
                command,
                cwd=self.cwd,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                pass_fds=() if info_write is None else (info_write,),
            )
        except BaseException:
            if info_read is not None:
                os.close(info_read)
            raise
        finally:
            if info_write is not None:
                os.close(info_write)
        if info_read is not None:
            self.init_pidfd = _open_sandbox_init(info_read)
        os.set_blocking(self.proc.stdin.fileno(), False)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.proc.stdout, selectors.EVENT_READ, "reply")
        self.selector.register(self.proc.stderr, selectors.EVENT_READ, "output")
        try:
            self.wait_for(None)  # the worker's "ready" event
        except BaseException:
            self.close()
            raise

    # -- talking to the worker ---------------------------------------------------------------------
    def _fail(self, status: str, reason: str):
        raise SandboxFailure(status, reason, infrastructure=not self.ready)

    @property
    def ready(self) -> bool:
        """True once the worker has said it is ready: before that, no code of the student's has run."""
        return self.phase != STARTING

    def _died(self):
        # the pipe closes a moment before the process is reaped: wait for it, so the reason names how it ended
        try:
            self.proc.wait(timeout=max(0.0, min(2.0, self.deadline - time.monotonic())))
        except subprocess.TimeoutExpired:
            pass
        if self.cgroups is not None and self.cgroups.memory_exceeded():
            self._fail("memory", f"ran out of memory (the limit is {self.limits['memory_mb']} MB) {self.phase}")
        code = self.proc.returncode
        if code is not None and code > 128 and self.sandboxed:
            code = 128 - code  # bwrap's init passes on "killed by signal N" as exit status 128 + N
        if code == -signal.SIGXCPU and self.ready:
            self._fail("timeout", f"used more than its {self.limits['cpu_seconds']:g} s of CPU time {self.phase}")
        if code is not None and code < 0:
            try:
                how = f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                how = f"was killed by signal {-code}"
            if -code == signal.SIGXFSZ:
                how += " (file size limit)"
        elif code is not None:
            how = f"exited with status {code}"
        else:
            how = "closed its connection to the grader"
        last = self.tail.decode("utf-8", "replace").strip().splitlines()
        detail = f"; last output: {_clean(last[-1], 200)}" if last else ""
        who = "the grader's worker" if not self.ready else "the submission"
        self._fail("crashed", f"{who} {how} {self.phase}{detail}")

    def wait_for(self, ident):
        """Send what is left of the request, and read events and output until the reply to request
        ``ident`` (None: the ready event) arrives, all before the deadline.

        The request is written without blocking, a piece at a time as the worker reads it: a
        worker that stops reading (or shrinks its pipe) cannot make the grader wait past the
        deadline. A reply is at most ``reply_bytes``; each byte is searched for the line's end once.
        """
        while True:
            newline = self.buffer.find(b"\n", self.scanned)
            if newline >= 0:
                line, self.buffer, self.scanned = self.buffer[:newline], self.buffer[newline + 1 :], 0
                message = self._parse(line)
                if "event" in message:
                    self._event(message)
                    if ident is None and message["event"] == "ready":
                        return message
                    continue
                if ident is not None and message.get("id") == ident and not self.pending:
                    return message
                self._fail("protocol", "the submission wrote a reply the grader did not ask for")
            self.scanned = len(self.buffer)
            if len(self.buffer) > self.limits["reply_bytes"]:
                self._fail("protocol", f"a reply was longer than {self.limits['reply_bytes'] // 1024} KB {self.phase}")
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                what = "waiting for the worker to start" if not self.ready else self.phase
                self._fail("timeout", f"timed out after {self.limits['timeout']:g} s {what}")
            self._watch_stdin()
            events = self.selector.select(timeout=min(remaining, 0.5))
            for key, _ in events:
                if key.data == "request":
                    self._send_some()
                    continue
                chunk = os.read(key.fileobj.fileno(), 65536)
                if key.data == "output":
                    if not chunk:
                        self.selector.unregister(key.fileobj)
                        continue
                    self.output += len(chunk)
                    self.tail = (self.tail + chunk)[-2000:]
                    if self.output > self.limits["output_bytes"]:
                        self._fail("output", f"printed more than {self.limits['output_bytes'] // 1024} KB {self.phase}")
                else:
                    if not chunk:
                        self._died()
                    self.buffer += chunk

    def _watch_stdin(self) -> None:
        """Watch the request pipe for room while a request is pending, and only then."""
        registered = self.proc.stdin in self.selector.get_map() if self.proc.stdin else False
        if self.pending and not registered:
            self.selector.register(self.proc.stdin, selectors.EVENT_WRITE, "request")
        elif not self.pending and registered:
            self.selector.unregister(self.proc.stdin)

    def _send_some(self) -> None:
        try:
            written = os.write(self.proc.stdin.fileno(), self.pending[:65536])
        except BlockingIOError:
            return
        except OSError:  # the worker closed its end: it died, or is about to
            self.pending = b""
            self._died()
        self.pending = self.pending[written:]

    def _parse(self, line: bytes) -> dict:
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            self._fail("protocol", f"the submission wrote something that is not a grader reply {self.phase}")
        if not isinstance(message, dict):
            self._fail("protocol", f"the submission wrote something that is not a grader reply {self.phase}")
        used = message.get("forbidden")
        if isinstance(used, list):
            for name in used[:10]:
                name = _clean(name, 100)
                if name not in self.forbidden:
                    self.forbidden.append(name)
        return message

    def _event(self, message: dict) -> None:
        if message["event"] == "ready":
            self.phase = "while reading the notebook"
        elif message["event"] == "cell" and isinstance(message.get("cell"), int):
            self.phase = f"in code cell {message['cell']}"
        elif message["event"] == "checks":
            self.phase = "during the hidden tests"

    def request(self, op: str, **fields) -> dict:
        self.ident += 1
        line = json.dumps({"id": self.ident, "op": op, **fields}, separators=(",", ":"), allow_nan=True) + "\n"
        self.pending = line.encode("utf-8")
        return self.wait_for(self.ident)

    def run_notebook(self, notebook: str, function: str, kind: str = "function", read_only: bool = False) -> dict:
        """Run the notebook; the outcome (status "ok" with a ref, or a status and a reason).

        ``kind`` "learner": what ``function`` returns (a learner) stays in the sandbox as a
        RemoteRef; "function": it must return plain data. ``read_only``: a call of the
        function that changes one of its arguments raises (the hidden tests' ``READ_ONLY_ARGUMENTS``)."""
        reply = self.request("run", notebook=notebook, function=function, kind=kind, read_only=read_only)
        self.phase = "during the hidden tests"
        outcome = reply.get("outcome")
        if not isinstance(outcome, dict) or not isinstance(outcome.get("status"), str):
            self._fail("protocol", "the submission's reply to running the notebook is malformed")
        return outcome

    def lookup(self, function: str, kind: str = "function", read_only: bool = False) -> dict:
        """After ``run_notebook``: look up another name of the notebook (an assignment of several parts)."""
        reply = self.request("lookup", function=function, kind=kind, read_only=read_only)
        outcome = reply.get("outcome")
        if not isinstance(outcome, dict) or not isinstance(outcome.get("status"), str):
            self._fail("protocol", "the submission's reply to a lookup is malformed")
        return outcome

    def value(self, reply: dict):
        """The value of a reply: decoded plain data, a RemoteRef, or the student's exception raised here."""
        if "error" in reply:
            error = reply["error"] if isinstance(reply["error"], dict) else {}
            type_name = _clean(error.get("type", "Exception"), 80) or "Exception"
            message = _clean(error.get("message", ""), 300)
            if type_name == "MemoryError":
                self._fail("memory", f"ran out of memory (the limit is {self.limits['memory_mb']} MB) {self.phase}")
            cls = RemoteNotImplementedError if type_name == "NotImplementedError" else RemoteError
            raise cls(type_name, message)
        if "ref" in reply:
            ref = reply["ref"]
            if not isinstance(ref, int) or isinstance(ref, bool):
                self._fail("protocol", "the submission's reply names a malformed object")
            return RemoteRef(self, ref, _clean(reply.get("type", "object"), 80), bool(reply.get("callable")))
        if "value" in reply:
            try:
                return plain_data.decode(reply["value"])
            except plain_data.PlainDataError as exc:
                raise RemoteError(
                    "TypeError", f"returned something that is not plain data: {_clean(exc, 200)}"
                ) from None
        self._fail("protocol", "the submission's reply is malformed")

    def close(self) -> None:
        """Kill the sandbox (its whole PID namespace), wait until nothing of it runs, release its pipes and cgroups.

        Killing the namespace's init makes the kernel kill and reap everything in it before the init
        is gone; bwrap exits after its init, so waiting for bwrap waits for the whole sandbox. Killing
        bwrap alone would return at once and leave the init to die a moment later (by
        ``--die-with-parent``), after the grader may have finished.
        """
        if self.init_pidfd is not None:
            try:
                signal.pidfd_send_signal(self.init_pidfd, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
            os.close(self.init_pidfd)
            self.init_pidfd = None
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        if self.cgroups is not None:
            self.cgroups.kill_all()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                stream.close()
            except OSError:
                pass
        self.selector.close()
        if self.cgroups is not None:
            self.cgroups.remove()


def _open_sandbox_init(info_read: int) -> int | None:
    """A pidfd of the sandbox's init, from the JSON bwrap writes to ``--info-fd`` (None if bwrap
    failed before writing it). A pidfd, not the pid: it cannot come to name another process."""
    text = b""
    try:
        # one JSON object, written as soon as the init is cloned; end of file if bwrap failed first
        while select.select([info_read], [], [], 30)[0]:
            chunk = os.read(info_read, 4096)
            if not chunk:
                return None
            text += chunk
            try:
                pid = int(json.loads(text)["child-pid"])
            except ValueError:
                continue  # not all of it yet
            return os.pidfd_open(pid)
        return None
    except (KeyError, TypeError, OSError):
        return None
    finally:
        os.close(info_read)


class RemoteRef:
    """An object that lives in the sandbox, used from the grader as if it were local.

    Calling it calls the object there; reading an attribute reads it there. Arguments
    are sent as plain data; results come back as plain data, or as another RemoteRef
    for objects that are not data (a learner, a bound method).
    """

    __slots__ = ("_sandbox", "_ref", "_type", "_callable")

    def __init__(self, sandbox: Sandbox, ref: int, type_name: str, is_callable: bool):
        object.__setattr__(self, "_sandbox", sandbox)
        object.__setattr__(self, "_ref", ref)
        object.__setattr__(self, "_type", type_name)
        object.__setattr__(self, "_callable", is_callable)

    def __call__(self, *args, **kwargs):
        if not self._callable:
            raise RemoteError("TypeError", f"'{self._type}' object is not callable")
        encoded_args = plain_data.encode(list(args))
        encoded_kwargs = plain_data.encode(dict(kwargs))
        return self._sandbox.value(
            self._sandbox.request("call", ref=self._ref, args=encoded_args, kwargs=encoded_kwargs)
        )

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return self._sandbox.value(self._sandbox.request("getattr", ref=self._ref, name=name))
        except RemoteError as exc:
            if exc.remote_type == "AttributeError":
                raise AttributeError(str(exc)) from None
            raise

    def __setattr__(self, name, value):
        raise AttributeError("objects in the sandbox are read through the grader, not written")

    def __repr__(self) -> str:
        return f"<{self._type} in the sandbox>"
