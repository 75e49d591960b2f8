"""A release's files: the changelog, the student PDF, the hand-outs and the slides (issue 37, item 4).

Usage::

    python -m booktools release --version X.Y.Z [--out DIR] [--skip-build] [--dry-run]

A release is the git tag ``vX.Y.Z`` (setuptools-scm makes ``X.Y.Z`` the package's version there).
The command checks that the repository's HEAD is that tag and that no tracked file has uncommitted
changes, then

1. writes the release's section of the changelog: if ``CHANGELOG.md`` already has a section ``## X.Y.Z``
   (written by ``towncrier build --version X.Y.Z`` and committed before tagging) it is taken as it is;
   otherwise ``towncrier build --version X.Y.Z --yes`` gathers the files in ``changes/`` into
   ``CHANGELOG.md`` and deletes them (commit that afterwards). The section is also written to
   ``OUT/CHANGELOG-X.Y.Z.md``, the release's notes;
2. builds, each by its own command (skipped with ``--skip-build``, which only collects files built
   before): the hand-outs (``python -m booktools handout --all --zip``), the slides
   (``python -m booktools slides``), the student edition and its PDF (``python -m booktools
   student-edition``, then ``python -m booktools pdf --student``, as ``make student-pdf`` does; the
   student edition reuses the full build's outputs, so build the book first);
3. collects into OUT (default ``_build/release``): ``online-learning-student-X.Y.Z.pdf``,
   ``handouts-X.Y.Z.zip`` (every assignment's hand-out folder, ``NAME/<file>``),
   ``slides-X.Y.Z.zip`` (``_build/slides`` as ``slides/<file>``) and ``SHA256SUMS``
   (``sha256sum -c SHA256SUMS`` checks them). The zips hold fixed timestamps, so the same files give
   the same bytes.

``--dry-run`` rehearses a release on any commit: the version is taken as given, towncrier only
renders a draft (``towncrier build --draft``) into ``OUT/CHANGELOG-X.Y.Z.md``, and the repository's
files are not touched. The workflow (.github/workflows/book.yml) runs this command on a pushed tag
and attaches OUT's files to the GitHub release.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = Path("_build/release")
#: Where the tools write what a release collects, relative to the repository.
STUDENT_PDF = Path("_build/student/_build/html/online-learning.pdf")
HANDOUTS = Path("_build/handouts")
SLIDES = Path("_build/slides")
#: The build commands, in order: what each makes, and its arguments after ``python -m booktools``.
BUILD_STEPS = [
    ("the hand-outs", ["handout", "--all", "--zip"]),
    ("the slides", ["slides"]),
    ("the student edition", ["student-edition"]),
    ("the student PDF", ["pdf", "--student"]),
]
#: A release version: X.Y.Z, optionally a pre-release (X.Y.ZrcN, aN, bN), as PEP 440 writes it.
VERSION = re.compile(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)((a|b|rc)(0|[1-9]\d*))?")
# Fixed zip timestamps: the same files give the same bytes.
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)


class ReleaseError(Exception):
    """A release cannot be made; the message says why and what to do."""


def _git(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=60, check=False)


def check_tag(root: Path, version: str) -> None:
    """Raise :class:`ReleaseError` unless ``root``'s HEAD is the tag ``v<version>`` with no tracked file changed."""
    tag = f"v{version}"
    tags = _git(root, "tag", "--points-at", "HEAD")
    if tags.returncode != 0:
        raise ReleaseError(f"{root} is not a git repository with a commit: {tags.stderr.strip()}")
    if tag not in tags.stdout.split():
        found = ", ".join(tags.stdout.split()) or "no tag"
        raise ReleaseError(
            f"HEAD is not at the tag {tag} (it has {found}): `git tag {tag}` the release's commit and check it out, "
            "or rehearse with --dry-run"
        )
    changed = _git(root, "status", "--porcelain", "--untracked-files=no")
    if changed.stdout.strip():
        raise ReleaseError(
            f"tracked files have uncommitted changes, so the files would not be {tag}'s:\n{changed.stdout}"
        )


def _towncrier(root: Path, *args: str) -> subprocess.CompletedProcess:
    beside = Path(sys.executable).parent / "towncrier"
    command = [str(beside)] if beside.exists() else [sys.executable, "-m", "towncrier"]
    done = subprocess.run(
        [*command, "build", "--dir", str(root), *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if done.returncode != 0:
        raise ReleaseError(
            f"towncrier build {' '.join(args)} failed (exit {done.returncode}):\n{done.stdout}{done.stderr}"
        )
    return done


def changelog_section(text: str, version: str) -> str | None:
    """The section ``## <version> ...`` of a changelog's text, up to the next ``## `` heading; None if absent."""
    match = re.search(rf"^## {re.escape(version)}(?:\s.*)?$", text, re.MULTILINE)
    if match is None:
        return None
    end = re.search(r"^## ", text[match.end() :], re.MULTILINE)
    return text[match.start() : match.end() + end.start() if end else len(text)].strip() + "\n"


def write_changelog(root: Path, version: str, out: Path, dry_run: bool) -> Path:
    """Write the release's section of the changelog to ``out/CHANGELOG-<version>.md`` (see the module's text)."""
    target = out / f"CHANGELOG-{version}.md"
    changelog = root / "CHANGELOG.md"
    if dry_run:
        draft = _towncrier(root, "--draft", "--version", version).stdout
        section = changelog_section(draft, version)
        if section is None:
            raise ReleaseError(f"towncrier's draft has no section ## {version}:\n{draft}")
    else:
        section = changelog_section(changelog.read_text(encoding="utf-8"), version) if changelog.exists() else None
        if section is None:
            _towncrier(root, "--version", version, "--yes")
            section = changelog_section(changelog.read_text(encoding="utf-8"), version)
            if section is None:
                raise ReleaseError(f"towncrier wrote no section ## {version} into {changelog}")
    target.write_text(section, encoding="utf-8")
    return target


def build(root: Path) -> None:
    """Run :data:`BUILD_STEPS` in ``root``; raise :class:`ReleaseError` naming the first that fails."""
    for what, args in BUILD_STEPS:
        command = [sys.executable, "-m", "booktools", *args]
        print(f"release: building {what}: python -m booktools {' '.join(args)}", flush=True)
        done = subprocess.run(command, cwd=root, check=False)
        if done.returncode != 0:
            raise ReleaseError(
                f"building {what} failed: `python -m booktools {' '.join(args)}` exited with {done.returncode} "
                "(its output is above); fix it, or build the files yourself and pass --skip-build"
            )


def _zip_folder(folder: Path, target: Path, prefix: str | None, keep=lambda path: True) -> int:
    """Zip every file under ``folder`` (as ``prefix/<relative path>``, or the relative path) into ``target``."""
    files = sorted(path for path in folder.rglob("*") if path.is_file() and keep(path.relative_to(folder)))
    partial = target.with_name(target.name + ".part")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in files:
            name = path.relative_to(folder).as_posix()
            info = zipfile.ZipInfo(f"{prefix}/{name}" if prefix else name, date_time=_ZIP_DATE)
            info.external_attr = 0o644 << 16
            archive.writestr(info, path.read_bytes(), compress_type=zipfile.ZIP_DEFLATED)
    partial.replace(target)
    return len(files)


#: What a release collects: the file or folder, and the command that makes it.
SOURCES = {
    STUDENT_PDF: "make student-pdf (or python -m booktools student-edition, then python -m booktools pdf --student)",
    HANDOUTS: "make handouts (python -m booktools handout --all --zip)",
    SLIDES: "python -m booktools slides",
}


def check_inputs(root: Path) -> None:
    """Raise :class:`ReleaseError` naming the first of :data:`SOURCES` that is missing or empty."""
    for relative, command in SOURCES.items():
        path = root / relative
        if not (path.is_file() if relative.suffix else path.is_dir() and any(path.iterdir())):
            raise ReleaseError(f"{path} is missing or empty: build it with {command}, or leave out --skip-build")


def collect(root: Path, version: str, out: Path) -> list[Path]:
    """Copy the student PDF and zip the hand-outs and the slides into ``out``; return the files written."""
    check_inputs(root)
    pdf = out / f"online-learning-student-{version}.pdf"
    shutil.copyfile(root / STUDENT_PDF, pdf)
    handouts = out / f"handouts-{version}.zip"
    # the hand-outs' folders, NAME/<file>; not the per-assignment zips beside them
    if not _zip_folder(root / HANDOUTS, handouts, None, keep=lambda rel: len(rel.parts) > 1):
        raise ReleaseError(f"{root / HANDOUTS} holds no hand-out folder: build it with make handouts")
    slides = out / f"slides-{version}.zip"
    _zip_folder(root / SLIDES, slides, "slides")
    return [pdf, handouts, slides]


def write_checksums(out: Path, files: list[Path]) -> Path:
    """``out/SHA256SUMS`` in the format of ``sha256sum``, one line per file, which ``sha256sum -c`` checks."""
    lines = [f"{hashlib.sha256(path.read_bytes()).hexdigest()}  {path.name}\n" for path in sorted(files)]
    target = out / "SHA256SUMS"
    target.write_text("".join(lines), encoding="utf-8")
    return target


def release(root: Path, version: str, out: Path, *, dry_run: bool = False, skip_build: bool = False) -> list[Path]:
    """Make the release ``version`` of the repository ``root`` into ``out``; return the files written.

    Raises
    ------
    ReleaseError
        HEAD is not the tag (without ``dry_run``), towncrier or a build command failed, or a file
        to collect is missing.
    """
    if not dry_run:
        check_tag(root, version)
    if not skip_build:
        build(root)
    check_inputs(root)  # before the changelog, which a release writes into the repository
    out.mkdir(parents=True, exist_ok=True)
    changelog = write_changelog(root, version, out, dry_run)
    files = [changelog, *collect(root, version, out)]
    return [*files, write_checksums(out, files)]


def _version(text: str) -> str:
    if not VERSION.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a release version X.Y.Z (e.g. 0.2.0, no leading v)")
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Make a release's files from the tag vX.Y.Z: the changelog's section, the student PDF, "
        "the hand-outs zip, the slides zip and SHA256SUMS."
    )
    parser.add_argument("--version", required=True, type=_version, help="the release, X.Y.Z; HEAD must be tag vX.Y.Z")
    parser.add_argument("--out", type=Path, metavar="DIR", help=f"where the files go (default: ROOT/{DEFAULT_OUT})")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="rehearse on any commit: a draft changelog, the repository's files untouched",
    )
    parser.add_argument("--skip-build", action="store_true", help="only collect files built before; build nothing")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: the one holding booktools)")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    if not (root / "pyproject.toml").is_file():
        parser.error(f"--root {args.root}: no pyproject.toml there, not the book's repository")
    out = (args.out or root / DEFAULT_OUT).resolve()
    if out.exists() and not out.is_dir():
        parser.error(f"--out {args.out}: a file, not a folder")
    try:
        files = release(root, args.version, out, dry_run=args.dry_run, skip_build=args.skip_build)
    except ReleaseError as error:
        print(f"release {args.version}: {error}", file=sys.stderr)
        return 1
    what = "dry run" if args.dry_run else "release"
    print(f"{what} {args.version}: {len(files)} files in {out}")
    for path in files:
        print(f"  {path.name} ({path.stat().st_size:,} bytes)")
    return 0
