"""Bubblewrap, the cgroups that bound a sandbox when the grader runs as root, and the Python the sandbox sees."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

BWRAP_PACKAGE = "bubblewrap"


# -- finding bubblewrap and the cgroups --------------------------------------------------------------


def find_bwrap() -> str | None:
    return shutil.which("bwrap")


def missing_bwrap_message() -> str:
    return (
        "the grader runs each submission in a bubblewrap sandbox, and `bwrap` was not found. "
        f"Install it (Debian/Ubuntu: `sudo apt-get install {BWRAP_PACKAGE}`; Fedora: `sudo dnf install "
        f"{BWRAP_PACKAGE}`), or pass --unsafe-no-sandbox to run students' code with your own rights "
        "(only for code you trust)."
    )


def check_bwrap(bwrap: str) -> None:
    """Fail with a clear message if bubblewrap cannot create its namespaces on this machine."""
    probe = subprocess.run(
        [bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--", "/bin/true"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    if probe.returncode != 0:
        raise SystemExit(
            f"bubblewrap is installed but cannot create a sandbox here: {probe.stderr.strip()} "
            "(unprivileged user namespaces may be disabled: sysctl kernel.unprivileged_userns_clone=1, "
            "or on Ubuntu 24.04 an AppArmor profile for bwrap)"
        )


class CgroupLimits:
    """A pids and a memory cgroup for one sandbox, where the grader may make them (root, cgroup v1 or v2).

    Named ``onlinelib-grade-<grader pid>-<n>``; ``remove_stale`` clears those of graders that died.
    """

    PREFIX = "onlinelib-grade-"

    @classmethod
    def remove_stale(cls) -> None:
        """Kill what is left in, and remove, the cgroups of graders that are no longer running (e.g. killed)."""
        for path in Path("/sys/fs/cgroup").glob(f"**/{cls.PREFIX}*"):
            pid = path.name[len(cls.PREFIX) :].split("-")[0]
            if not pid.isdigit() or Path(f"/proc/{pid}").exists():
                continue
            stale = cls.__new__(cls)
            stale.dirs = [path]
            stale.kill_all()
            stale.remove()

    @classmethod
    def remove_named(cls, name: str) -> None:
        """Kill what is left in, and remove, the cgroups called ``name`` (a judge killed mid-way leaves them)."""
        root = Path("/sys/fs/cgroup")
        stale = cls.__new__(cls)
        stale.dirs = [path for path in (root / name, root / "pids" / name, root / "memory" / name) if path.is_dir()]
        stale.kill_all()
        stale.remove()

    def __init__(self, name: str, processes: int, memory_bytes: int):
        self.dirs: list[Path] = []
        root = Path("/sys/fs/cgroup")
        if os.geteuid() != 0:
            return
        if (root / "cgroup.controllers").exists():  # cgroup v2
            controllers = (root / "cgroup.subtree_control").read_text().split()
            if "pids" in controllers and "memory" in controllers:
                self._make(root / name, {"pids.max": processes, "memory.max": memory_bytes, "memory.swap.max": 0})
            return
        for controller, settings in (
            ("pids", {"pids.max": processes}),
            ("memory", {"memory.limit_in_bytes": memory_bytes}),
        ):
            if (root / controller / "cgroup.procs").exists():
                self._make(root / controller / name, settings)

    def _make(self, path: Path, settings: dict) -> None:
        try:
            path.mkdir()
        except OSError:
            return
        self.dirs.append(path)
        for key, value in settings.items():
            try:
                (path / key).write_text(str(value))
            except OSError:
                pass

    @property
    def procs_files(self) -> list[str]:
        return [str(d / "cgroup.procs") for d in self.dirs]

    def memory_exceeded(self) -> bool:
        for d in self.dirs:
            for name in ("memory.events", "memory.oom_control"):
                try:
                    text = (d / name).read_text()
                except OSError:
                    continue
                for line in text.splitlines():
                    key, _, value = line.partition(" ")
                    if key in ("oom_kill", "oom") and value.strip() not in ("", "0"):
                        return True
            try:
                if int((d / "memory.failcnt").read_text()) > 0:
                    return True
            except (OSError, ValueError):
                pass
        return False

    def kill_all(self) -> None:
        """SIGKILL whatever is still in the cgroups (the PID namespace's end should leave nothing)."""
        for d in self.dirs:
            try:
                pids = (d / "cgroup.procs").read_text().split()
            except OSError:
                continue
            for pid in pids:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except (OSError, ValueError):
                    pass

    def remove(self) -> None:
        for d in self.dirs:
            for _ in range(50):
                try:
                    d.rmdir()
                    break
                except OSError:
                    time.sleep(0.02)


SANDBOX_PYTHON = "/grader/python"
STARTING = "while starting (importing the libraries)"


def python_mounts() -> tuple[list[tuple[str, str]], str, list[str]]:
    """How the sandbox sees this Python: (bind mounts host -> sandbox, interpreter, site folders).

    The interpreter's installation is bound at ``/grader/python`` and each site-packages
    folder (a venv's included) at ``/grader/site-packages-N``, unless it lives under ``/usr``,
    which the sandbox has at its own path. So no path of the lecturer's machine (a home
    folder, the repository's ``.venv``) is a mount point or a module's ``__file__`` in the
    sandbox. The worker runs with ``-I -S`` and adds the site folders itself.
    """
    import site

    mounts: list[tuple[str, str]] = []

    def place(host: str, neutral: str) -> str:
        host = os.path.realpath(host)
        if host == "/usr" or host.startswith("/usr/"):
            return host
        for source, target in mounts:
            if host == source or host.startswith(source + "/"):
                return target + host[len(source) :]
        mounts.append((host, neutral))
        return neutral

    base = os.path.realpath(sys.base_prefix)
    executable = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
    place(base, SANDBOX_PYTHON)
    interpreter = place(executable, "/grader/python-bin/" + os.path.basename(executable))
    sites = [
        place(path, f"/grader/site-packages-{i}")
        for i, path in enumerate(site.getsitepackages())
        if os.path.isdir(path)
    ]
    return mounts, interpreter, sites


# -- the command line of one sandboxed worker --------------------------------------------------

WORKER = Path(__file__).resolve().with_name("worker.py")
# The worker's files and where the sandbox sees them: the worker, and the module it loads from beside
# itself. Nothing else of booktools is in the sandbox.
WORKER_FILES = {WORKER: "/grader/grade_worker.py", WORKER.with_name("worker_shell.py"): "/grader/worker_shell.py"}


WORKER_ENV = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/tmp",
    "TMPDIR": "/tmp",
    "LANG": "C.UTF-8",
    "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONUNBUFFERED": "1",
    "MPLBACKEND": "Agg",
    "MPLCONFIGDIR": "/tmp/matplotlib",
    "NUMBA_CACHE_DIR": "/tmp/numba",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMBA_NUM_THREADS": "1",
}


def check_key_not_mounted(command: list[str]) -> None:
    """Refuse a sandbox that would see the course key file: no ``--ro-bind`` source of ``command`` may hold it.

    The key itself never enters the sandbox's environment (``WORKER_ENV`` is all of it); this guards
    the file, should a lecturer keep it beside the Python, the library or the submissions.
    """
    from booktools.grading.course_key import key_source

    _, path = key_source()
    if path is None:
        return
    key = os.path.realpath(path)
    for flag, source in zip(command, command[1:], strict=False):
        if flag != "--ro-bind":
            continue
        source = os.path.realpath(source)
        if key == source or key.startswith(source.rstrip("/") + "/"):
            raise SystemExit(
                f"the course key file {path} is inside {source}, which the sandbox mounts for the students' "
                "code: move the key out of it (the default place is ~/.config/onlinelib-book/course-key)"
            )


def bwrap_command(
    bwrap: str, box: Path, library: Path, limits: dict, worker_limits: dict
) -> tuple[list[str], int, int]:
    """The bubblewrap command line of one worker, and the pipe (read end, write end) of bwrap's
    ``--info-fd``; sets ``worker_limits["site_dirs"]`` to the site folders as the sandbox sees them."""
    command = [
        bwrap,
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--uid",
        "65534",
        "--gid",
        "65534",
        "--cap-drop",
        "ALL",
        "--hostname",
        "sandbox",
        "--ro-bind",
        "/usr",
        "/usr",
    ]
    for link in ("bin", "lib", "lib32", "lib64", "sbin"):
        target = Path("/") / link
        if target.is_symlink():
            command += ["--symlink", os.readlink(target), f"/{link}"]
        elif target.is_dir():
            command += ["--ro-bind", str(target), f"/{link}"]
    for path in ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime"):
        if os.path.exists(path):
            command += ["--ro-bind", path, path]
    # /dev read-only: its shm folder would be a second, unlimited writable place. No /proc:
    # its mountinfo would name the host folders behind every bind mount (the repository,
    # the venv, the temporary folders), and nothing the worker needs reads it.
    command += [
        "--dev",
        "/dev",
        "--remount-ro",
        "/dev",
        "--size",
        str(limits["tmpfs_mb"] * 2**20),
        "--perms",
        "1777",
        "--tmpfs",
        "/tmp",
    ]
    mounts, interpreter, worker_limits["site_dirs"] = python_mounts()
    for host, inside in mounts:
        command += ["--ro-bind", host, inside]
    command += [
        "--ro-bind",
        str(library),
        "/grader/lib",
        *(arg for host, inside in WORKER_FILES.items() for arg in ("--ro-bind", str(host), inside)),
        "--ro-bind",
        str(box),
        "/submission",
        "--dir",
        "/tmp/work",
        "--chdir",
        "/tmp/work",
    ]
    for extra in sorted(box.iterdir()):
        if not extra.name.startswith("submission."):
            command += ["--ro-bind", str(extra), f"/tmp/work/{extra.name}"]
    # bwrap's own root is a tmpfs too: read-only, so /tmp stays the only writable place
    command += ["--remount-ro", "/"]
    check_key_not_mounted(command)
    # bwrap writes the host pid of the sandbox's init here: killing that init ends the whole
    # PID namespace, and bwrap exits only once it has, so close() can wait for the end
    info_read, info_write = os.pipe()
    command += ["--info-fd", str(info_write)]
    command += [
        "--",
        interpreter,
        "-I",
        "-S",
        WORKER_FILES[WORKER],
        "/grader/lib",
        json.dumps(worker_limits),
    ]
    return command, info_read, info_write
