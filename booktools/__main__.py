"""``python -m booktools COMMAND [OPTIONS]``: one entry point for the course tooling."""

from __future__ import annotations

import importlib
import sys

COMMANDS = {
    "grade": ("booktools.grading.cli", "grade a folder of submitted notebooks into a CSV and feedback files"),
    "student-edition": ("booktools.student_edition", "build the student edition (no solutions)"),
    "handout": ("booktools.handout", "write an assignment's hand-out: notebook and public checks, no solutions"),
    "pdf": ("booktools.pdf_edition", "print the built book into one PDF"),
    "browser-check": ("booktools.browser_check", "check every built page in headless Chromium"),
    "binder-check": ("booktools.binder_check", "reproduce Binder: fresh environment, chapters run"),
    "similarity": ("booktools.similarity", "compare submissions with each other and with onlinelib's source"),
    "slides": ("booktools.slides", "build every chapter's reveal.js slides from its own statements and figures"),
    "release": ("booktools.release", "make a release's files: changelog, PDF, hand-outs, slides"),
    "lms": ("booktools.grading.lms", "export gradebooks for Canvas or Moodle"),
    "new-assignment": ("booktools.new_assignment", "scaffold a new assignment: notebook, hidden file, index row"),
    "tolerances": ("booktools.tolerances", "list every chapter assert with a tolerance and the reason for it"),
}


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = [f"  {name:<{width}}  {what}" for name, (_, what) in COMMANDS.items()]
    return (
        "usage: python -m booktools COMMAND [OPTIONS]\n\ncommands:\n"
        + "\n".join(lines)
        + ("\n\n`python -m booktools COMMAND --help` lists a command's options.")
    )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(usage())
        return 0
    name, *rest = argv
    if name not in COMMANDS:
        print(f"booktools: unknown command {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[name][0])
    sys.argv = [f"python -m booktools {name}", *rest]
    return module.main(rest)


if __name__ == "__main__":
    sys.exit(main())
