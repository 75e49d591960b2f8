"""Untrusted text made safe to show: in messages, the terminal, Markdown feedback and CSV cells."""

from __future__ import annotations

import dataclasses
import os
import re
import sys
import tempfile
from pathlib import Path


def show(value: object, limit: int = 60) -> str:
    """A short, printable repr of an untrusted value."""
    try:
        text = repr(value)
    except (RecursionError, ValueError):  # ValueError: an int too long to print
        text = f"<a {type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


# -- text that reaches the CSV, the terminal and the feedback files -----------------------------


def printable(text: str) -> str:
    """Control characters (and other unprintable ones) escaped, e.g. a newline as \\n."""
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in str(text))


def markdown_text(text: str) -> str:
    """Untrusted text as literal Markdown (no links, HTML or emphasis)."""
    return re.sub(r"([\\`*_\[\]<>|&])", r"\\\1", printable(text))


def fmt_score(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


ROOT = Path(__file__).resolve().parents[2]  # the repository


def host_paths() -> list[tuple[str, str]]:
    """Paths of this machine that feedback must not show, each with its neutral stand-in (longest first)."""
    places = {
        str(ROOT): "<repository>",
        os.path.realpath(ROOT): "<repository>",
        sys.prefix: "<python>",
        os.path.realpath(sys.prefix): "<python>",
        sys.base_prefix: "<python>",
        os.path.realpath(sys.base_prefix): "<python>",
        str(Path.home()): "<home>",
        tempfile.gettempdir(): "<tmp>",
        os.path.realpath(tempfile.gettempdir()): "<tmp>",
    }
    system = {"", "/", "/usr", "/usr/local", "/tmp"}
    return sorted(
        ((path, label) for path, label in places.items() if path.rstrip("/") not in system),
        key=lambda item: -len(item[0]),
    )


_HOST_PATHS = host_paths()
_TEMPORARY = re.compile(r"/(?:tmp|var/tmp)/grade-[A-Za-z0-9_]+")


def scrub(text: str) -> str:
    """``text`` with the paths of this machine (repository, Python, home, temporary folders) replaced.

    The sandbox shows the submission only neutral paths; this is the last line of defence for
    anything that reaches the feedback anyway.
    """
    text = _TEMPORARY.sub("<tmp>", str(text))
    for path, label in _HOST_PATHS:
        text = text.replace(path, label)
    return text


def scrubbed(row: dict) -> dict:
    """The row with its feedback and every check's message scrubbed of this machine's paths."""
    checks = [dataclasses.replace(c, name=scrub(c.name), message=scrub(c.message)) for c in row.get("checks", [])]
    return dict(row, feedback=scrub(row["feedback"]), checks=checks)
