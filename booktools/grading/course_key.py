"""The course key: a secret kept outside the repository, from which the hidden test instances are drawn.

The hidden-tests files (``book/assignments/lecturer/NAME_hidden.py``) draw their random instances
from ``course_rng("NAME/purpose")``, a generator seeded by HMAC-SHA256(course key, label). Reading
a hidden-tests file then tells a student how the instances are made, never which ones they are:
without the key they cannot be rebuilt, and from the instances the key cannot be recovered.

Where the key comes from, the first that is set:

1. ``BOOKTOOLS_COURSE_KEY``: the key itself, hex (``secrets.token_hex(32)``) or text;
2. ``BOOKTOOLS_COURSE_KEY_FILE``: the path of a file holding it;
3. ``~/.config/onlinelib-book/course-key``, if that file exists;
4. otherwise ``PUBLIC_TEST_KEY``, printed below and in the repository for everyone: the tests and
   CI grade with it, so that their recorded scores are reproducible. The grader then says once, on
   standard error, that anyone with the repository can rebuild the instances.

A lecturer makes a key once per term::

    mkdir -p ~/.config/onlinelib-book
    python -c "import secrets; print(secrets.token_hex(32))" > ~/.config/onlinelib-book/course-key
    chmod 600 ~/.config/onlinelib-book/course-key

The key never reaches a student's code: the sandboxed worker gets an environment of its own
(``isolation.WORKER_ENV``, no ``BOOKTOOLS_*`` variable), no home folder and no ``/proc``, and the
grader refuses to start a sandbox that would see the key file (``isolation.check_key_not_mounted``).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import stat
import sys
from pathlib import Path

import numpy as np

ENV_KEY = "BOOKTOOLS_COURSE_KEY"
ENV_KEY_FILE = "BOOKTOOLS_COURSE_KEY_FILE"
# The warnings printed so far, so that the judges forked afterwards do not print them again.
_WARNED_ENV = "BOOKTOOLS_KEY_WARNINGS"
# Public on purpose: anyone can rebuild the instances it gives. The tests and CI use it; a course must not.
PUBLIC_TEST_KEY = b"onlinelib-book public test key: NOT a secret, for the tests and CI only"
MIN_KEY_BYTES = 16
PUBLIC_KEY_WARNING = (
    "grading with the public test key: anyone with the repository can rebuild the hidden instances; "
    f"set {ENV_KEY} (see the lecturer guide)"
)
MAKE_KEY = 'python -c "import secrets; print(secrets.token_hex(32))" > ~/.config/onlinelib-book/course-key'


def default_key_file() -> Path:
    """``~/.config/onlinelib-book/course-key`` of the user running the grader."""
    return Path.home() / ".config" / "onlinelib-book" / "course-key"


def parse_key(text: str, where: str) -> bytes:
    """The key's bytes from its text: hex digits (an even number of them) as bytes, anything else as UTF-8.

    Surrounding white space (a file's final newline) is ignored. ``where`` names the variable or
    file in the error: an empty key or one of fewer than ``MIN_KEY_BYTES`` bytes is a ValueError.
    """
    if not isinstance(text, str):
        raise TypeError(f"{where}: the course key must be text, got {type(text).__name__}")
    text = text.strip()
    if not text:
        raise ValueError(f"{where} is empty: it must hold the course key (make one with: {MAKE_KEY})")
    key = bytes.fromhex(text) if re.fullmatch(r"(?:[0-9a-fA-F]{2})+", text) else text.encode("utf-8")
    if len(key) < MIN_KEY_BYTES:
        raise ValueError(
            f"{where} holds a course key of {len(key)} bytes; it needs at least {MIN_KEY_BYTES} "
            f"(32 hex digits; make one with: {MAKE_KEY})"
        )
    return key


def _read_key_file(path: Path, where: str) -> bytes:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ValueError(f"{where}: the course key file {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{where}: cannot read the course key file {path}: {exc}") from None
    try:
        mode = path.stat().st_mode
    except OSError:
        mode = 0
    if mode & (stat.S_IRGRP | stat.S_IROTH):
        _warn_once(f"warning: the course key file {path} is readable by other users: chmod 600 {path}")
    return parse_key(text, where)


def _warn_once(text: str) -> None:
    """Print ``text`` on standard error once per grading run: the environment remembers it, so the
    judges forked after the first warning stay quiet."""
    said = os.environ.get(_WARNED_ENV, "").split("\n")
    if text not in said:
        print(text, file=sys.stderr)
        os.environ[_WARNED_ENV] = "\n".join([*filter(None, said), text])


def key_source(environ=None) -> tuple[str, Path | None]:
    """Where the key comes from: (a description, the key file or None), without reading the key."""
    environ = os.environ if environ is None else environ
    if environ.get(ENV_KEY) is not None:
        return f"the environment variable {ENV_KEY}", None
    if environ.get(ENV_KEY_FILE) is not None:
        path = Path(environ[ENV_KEY_FILE]).expanduser()
        return f"the file {path} ({ENV_KEY_FILE})", path
    path = default_key_file()
    if path.exists():
        return f"the file {path}", path
    return "the public test key", None


def load_course_key(environ=None) -> tuple[bytes, bool]:
    """The course key and whether it is the public test key, from ``environ`` (default ``os.environ``).

    Raises ValueError naming the variable or file when a key is set but empty, too short or unreadable.
    """
    environ = os.environ if environ is None else environ
    if environ.get(ENV_KEY) is not None:
        return parse_key(environ[ENV_KEY], f"the environment variable {ENV_KEY}"), False
    if environ.get(ENV_KEY_FILE) is not None:
        if not environ[ENV_KEY_FILE].strip():
            raise ValueError(f"the environment variable {ENV_KEY_FILE} is empty: it must name the course key file")
        path = Path(environ[ENV_KEY_FILE]).expanduser()
        return _read_key_file(path, f"{ENV_KEY_FILE}={path}"), False
    path = default_key_file()
    if path.exists():
        return _read_key_file(path, str(path)), False
    return PUBLIC_TEST_KEY, True


def label_seed(key: bytes, label: str) -> np.random.SeedSequence:
    """The seed of ``label`` under ``key``: HMAC-SHA256(key, label), read as eight 32-bit words."""
    if not isinstance(label, str) or not label:
        raise ValueError(f"label must be a non-empty string like 'halving/hidden', got {label!r}")
    digest = hmac.new(key, label.encode("utf-8"), hashlib.sha256).digest()
    return np.random.SeedSequence([int(word) for word in np.frombuffer(digest, dtype="<u4")])


def current_key() -> bytes:
    """The course key as ``load_course_key`` finds it; the public test key is announced on standard error
    once (per grading run: the judges forked after the announcement stay quiet)."""
    key, public = load_course_key()
    if public:
        _warn_once(PUBLIC_KEY_WARNING)
    return key


def key_id(key: bytes | None = None) -> str:
    """A fingerprint of the course key: 16 hex digits of HMAC-SHA256(key, "key id").

    Shard records carry it, so that ``--merge-shards`` refuses shards graded with different keys
    (different hidden instances); the key cannot be recovered from it. With ``key`` None, ``current_key()``.
    """
    key = current_key() if key is None else key
    return hmac.new(key, b"key id", hashlib.sha256).hexdigest()[:16]


def course_rng(label: str, key: bytes | None = None) -> np.random.Generator:
    """A generator for the hidden instances named ``label`` ("ASSIGNMENT/purpose"), seeded from the course key.

    The same key and label give the same numbers on every machine; another key gives others. With
    ``key`` None the key is ``current_key()``.
    """
    if key is None:
        key = current_key()
    elif not isinstance(key, bytes) or not key:
        raise ValueError(f"key must be non-empty bytes, got {type(key).__name__}")
    return np.random.default_rng(label_seed(key, label))


def draw_until(rng: np.random.Generator, draw, condition, what: str, tries: int = 1000):
    """``draw(rng)`` again and again until ``condition`` holds of the result; that result.

    How a keyed instance keeps the property its check needs (a tie, a score of 0, a mistake) under
    every course key: the draws are the key's, so the instance stays one the key alone rebuilds.
    Raises RuntimeError naming ``what`` if ``tries`` draws all miss it.
    """
    for _ in range(tries):
        candidate = draw(rng)
        if condition(candidate):
            return candidate
    raise RuntimeError(f"no draw of {tries} gave {what}: change the instance's parameters")
