"""The hidden tests of an assignment, and the public checks recorded from them (NAME_public.json)."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ASSIGNMENTS = ROOT / "book" / "assignments"
HIDDEN_DIR = ASSIGNMENTS / "lecturer"

# -- the hidden tests ---------------------------------------------------------------------


def hidden_path(assignment: str, hidden_dir: Path) -> Path:
    if not re.fullmatch(r"[A-Za-z0-9_]+", assignment):
        raise SystemExit(f"--assignment must be a name like 'halving', got {assignment!r}")
    path = hidden_dir / f"{assignment}_hidden.py"
    if not path.is_file():
        known = sorted(p.name[: -len("_hidden.py")] for p in hidden_dir.glob("*_hidden.py"))
        raise SystemExit(
            f"no hidden tests for assignment {assignment!r} ({path} does not exist); known: {', '.join(known)}"
        )
    return path


def public_checks_path(assignment: str, assignments: Path = ASSIGNMENTS) -> Path:
    return assignments / f"{assignment}_public.json"


def public_checks_text(hidden) -> str:
    """The public-checks file of one assignment, recorded from its reference."""
    from booktools.grading.checks import record_public_checks

    if hasattr(hidden, "PARTS"):  # one section per part: load_public_checks(path, part=NAME)
        data = {
            "format": 1,
            "kind": "parts",
            "parts": {
                name: record_public_checks(hidden.REFERENCE[name], **kwargs)
                for name, kwargs in hidden.public_checks().items()
            },
        }
    else:
        data = record_public_checks(hidden.REFERENCE, **hidden.public_checks())
    return json.dumps(data, indent=None, separators=(",", ":"), allow_nan=True) + "\n"


def write_public_checks(
    check: bool, hidden_dir: Path = HIDDEN_DIR, assignments: Path = ASSIGNMENTS, only: str | None = None
) -> int:
    """Record (or with ``check`` only compare) every assignment's public checks into ``NAME_public.json``;
    with ``only``, that assignment's alone (issue 37: adding an assignment rewrites no other file).
    Returns 0, or 1 when ``check`` finds a stale file; an unknown ``only`` raises ValueError."""
    stale = []
    paths = sorted(hidden_dir.glob("*_hidden.py"))
    if only is not None:
        paths = [path for path in paths if path.name == f"{only}_hidden.py"]
        if not paths:
            raise ValueError(f"--assignment {only!r}: there is no {only}_hidden.py in {hidden_dir}")
    for path in paths:
        hidden = load_hidden(path)
        if not hasattr(hidden, "public_checks"):
            continue
        name = path.name[: -len("_hidden.py")]
        target = public_checks_path(name, assignments)
        text = public_checks_text(hidden)
        current = target.read_text(encoding="utf-8") if target.is_file() else None
        if current != text:
            stale.append(target)
            if not check:
                target.write_text(text, encoding="utf-8")
        print(
            f"{target.relative_to(ROOT) if target.is_relative_to(ROOT) else target}: "
            f"{'up to date' if current == text else ('STALE' if check else 'written')}",
            file=sys.stderr,
        )
    if check and stale:
        print("public checks are stale: run `python -m booktools grade --write-public-checks`", file=sys.stderr)
        return 1
    return 0


KINDS = ("learner", "function", "certificate")


def load_hidden(path: Path):
    """Import a hidden-tests file and check what it defines.

    Every file defines REFERENCE, FORBIDDEN and ``grade``, and either FUNCTION and KIND (one part:
    ``grade`` gets the student's function or class) or PARTS, ``{name: kind}`` (an assignment of
    several parts: ``grade`` gets ``{name: the student's function or class}``, with a
    ``checks.MissingPart`` for a name the notebook does not define). A kind is "learner" (what the
    class builds stays in the sandbox), "function" or "certificate" (it returns plain data, which
    the hidden tests compare or verify). QUESTIONS, optional, lists the written answers graded by
    hand (``booktools.grading.questions``, ``answers``, ``review``, ``rubric``).

    A hidden-tests file is the lecturer's, in any folder (``--hidden-dir``), not a module of a
    package: it is imported from its path, as pytest imports a test file. The tests load them
    through this function too.
    """
    spec = importlib.util.spec_from_file_location(f"_hidden_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    one_part = ("FUNCTION", "KIND") if not hasattr(module, "PARTS") else ()
    for name in (*one_part, "REFERENCE", "FORBIDDEN", "grade"):
        if not hasattr(module, name):
            raise SystemExit(f"{path} must define {name}" + (" (or PARTS)" if name in one_part else ""))
    parts = hidden_parts(module)
    if not parts or not all(isinstance(name, str) and name.isidentifier() for name in parts):
        raise SystemExit(f"{path}: PARTS must map the notebook's names to kinds, got {parts!r}")
    for name, kind in parts.items():
        if kind not in KINDS:
            raise SystemExit(f"{path}: the kind of {name} must be one of {KINDS}, got {kind!r}")
    return module


def hidden_parts(hidden) -> dict:
    """``{name: kind}`` of a hidden-tests file: its PARTS, or ``{FUNCTION: KIND}``."""
    parts = getattr(hidden, "PARTS", None)
    return dict(parts) if isinstance(parts, dict) else {hidden.FUNCTION: hidden.KIND} if parts is None else {}
