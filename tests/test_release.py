"""``python -m booktools release`` (issue 37, item 4): a tagged release's changelog, PDF, hand-outs and slides.

Each test works in a temporary clone of this repository (the working tree's changelog configuration,
CHANGELOG.md and changes/ laid over it and committed), tagged v99.0.0, with stub files where the tools
write the student PDF, the hand-outs and the slides, so that ``--skip-build`` collects them without a
build of the book. The clone's ``_build/`` is ignored by git, as the real one is.
"""

import hashlib
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from booktools import release

ROOT = Path(__file__).resolve().parents[1]
VERSION = "99.0.0"  # a version no real release of the book will have: its changelog section is the test's
GIT_USER = ["-c", "user.name=test", "-c", "user.email=test@localhost"]
STUBS = {
    "_build/student/_build/html/online-learning.pdf": b"%PDF-1.7\n% a stub of the student edition\n",
    "_build/handouts/halving/halving.ipynb": b'{"cells": []}\n',
    "_build/handouts/halving/halving.md": b"# Halving\n",
    "_build/handouts/halving/halving_public.json": b"{}\n",
    "_build/handouts/winnow1/winnow1.md": b"# Winnow1\n",
    "_build/handouts/halving.zip": b"not collected: the per-assignment zip\n",
    "_build/slides/index.html": b"<html>decks</html>\n",
    "_build/slides/mistake_bounds/index.html": b"<html>chapter 1</html>\n",
}
FRAGMENT = "A planted change for the release test.\n"


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *GIT_USER, *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def clone(tmp_path) -> Path:
    """A clone of this repository at the tag v99.0.0, a planted change waiting in changes/, stubs in _build/."""
    if not (ROOT / ".git").exists():
        pytest.skip("the repository is not a git checkout")
    repo = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(repo)], check=True, timeout=120)
    for name in ("pyproject.toml", "CHANGELOG.md"):
        shutil.copyfile(ROOT / name, repo / name)
    shutil.copytree(ROOT / "changes", repo / "changes", dirs_exist_ok=True)
    (repo / "changes" / "+release-test.added.md").write_text(FRAGMENT, encoding="utf-8")
    _git(repo, "add", "-A", "pyproject.toml", "CHANGELOG.md", "changes")
    _git(repo, "commit", "-q", "--allow-empty", "-m", "the release's changelog configuration")
    _git(repo, "tag", f"v{VERSION}")
    for name, data in STUBS.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_bytes(data)
    return repo


def _release(repo: Path, out: Path, *options: str) -> int:
    return release.main(["--version", VERSION, "--root", str(repo), "--out", str(out), *options])


def _tree(repo: Path) -> dict[str, bytes]:
    return {
        path.relative_to(repo).as_posix(): path.read_bytes()
        for path in sorted(repo.rglob("*"))
        if path.is_file() and ".git" not in path.relative_to(repo).parts
    }


def test_a_dry_run_at_the_tag_collects_changelog_pdf_handouts_slides_and_checksums(clone, tmp_path):
    before = _tree(clone)
    out = tmp_path / "out"
    assert _release(clone, out, "--dry-run", "--skip-build") == 0
    names = sorted(path.name for path in out.iterdir())
    assert names == [
        f"CHANGELOG-{VERSION}.md",
        "SHA256SUMS",
        f"handouts-{VERSION}.zip",
        f"online-learning-student-{VERSION}.pdf",
        f"slides-{VERSION}.zip",
    ]
    changelog = (out / f"CHANGELOG-{VERSION}.md").read_text(encoding="utf-8")
    assert changelog.startswith(f"## {VERSION} (") and FRAGMENT.strip() in changelog, changelog
    assert "Draft only" not in changelog and "## 0.1.0" not in changelog, changelog
    assert (out / f"online-learning-student-{VERSION}.pdf").read_bytes() == STUBS[release.STUDENT_PDF.as_posix()]
    with zipfile.ZipFile(out / f"handouts-{VERSION}.zip") as archive:
        assert archive.namelist() == [
            "halving/halving.ipynb",
            "halving/halving.md",
            "halving/halving_public.json",
            "winnow1/winnow1.md",
        ]
        assert archive.read("halving/halving.md") == STUBS["_build/handouts/halving/halving.md"]
    with zipfile.ZipFile(out / f"slides-{VERSION}.zip") as archive:
        assert archive.namelist() == ["slides/index.html", "slides/mistake_bounds/index.html"]
    sums = (out / "SHA256SUMS").read_text(encoding="utf-8").splitlines()
    expected = {
        f"{hashlib.sha256(path.read_bytes()).hexdigest()}  {path.name}"
        for path in out.iterdir()
        if path.name != "SHA256SUMS"
    }
    assert set(sums) == expected and len(sums) == 4
    if shutil.which("sha256sum"):
        assert subprocess.run(["sha256sum", "--quiet", "-c", "SHA256SUMS"], cwd=out, timeout=60).returncode == 0
    # a dry run touches no file of the repository: the changelog and the waiting changes stay
    assert _tree(clone) == before
    assert _git(clone, "status", "--porcelain") == ""


def test_the_same_files_give_the_same_release_bytes(clone, tmp_path):
    for out in (tmp_path / "a", tmp_path / "b"):
        assert _release(clone, out, "--dry-run", "--skip-build") == 0
    assert (tmp_path / "a" / "SHA256SUMS").read_bytes() == (tmp_path / "b" / "SHA256SUMS").read_bytes()


def test_a_dry_run_needs_no_tag(clone, tmp_path):
    _git(clone, "commit", "-q", "--allow-empty", "-m", "after the tag")
    assert _release(clone, tmp_path / "out", "--dry-run", "--skip-build") == 0
    assert (tmp_path / "out" / f"CHANGELOG-{VERSION}.md").exists()


def test_a_release_at_the_tag_writes_the_changelog_and_uses_up_the_changes(clone, tmp_path):
    out = tmp_path / "out"
    assert _release(clone, out, "--skip-build") == 0
    changelog = (clone / "CHANGELOG.md").read_text(encoding="utf-8")
    section = release.changelog_section(changelog, VERSION)
    assert section is not None and FRAGMENT.strip() in section
    assert changelog.index(f"## {VERSION}") < changelog.index("## 0.1.0")
    assert (out / f"CHANGELOG-{VERSION}.md").read_text(encoding="utf-8") == section
    assert not (clone / "changes" / "+release-test.added.md").exists()
    assert (clone / "changes" / "README.md").exists()
    # run again (the workflow at a tag whose changelog is committed): the section is taken as it is
    _git(clone, "commit", "-q", "-am", "changelog for 99.0.0")
    _git(clone, "tag", "-f", f"v{VERSION}")
    assert _release(clone, tmp_path / "again", "--skip-build") == 0
    assert (tmp_path / "again" / f"CHANGELOG-{VERSION}.md").read_text(encoding="utf-8") == section


def test_a_release_away_from_its_tag_is_refused(clone, tmp_path, capsys):
    _git(clone, "commit", "-q", "--allow-empty", "-m", "after the tag")
    assert _release(clone, tmp_path / "out", "--skip-build") == 1
    err = capsys.readouterr().err
    assert f"HEAD is not at the tag v{VERSION}" in err and "--dry-run" in err, err
    assert not (tmp_path / "out").exists()


def test_a_release_with_uncommitted_changes_is_refused(clone, tmp_path, capsys):
    (clone / "README.md").write_text("changed after the tag\n", encoding="utf-8")
    assert _release(clone, tmp_path / "out", "--skip-build") == 1
    assert "uncommitted changes" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("missing", "command"),
    [
        ("_build/slides", "python -m booktools slides"),
        ("_build/handouts", "make handouts"),
        ("_build/student/_build/html/online-learning.pdf", "make student-pdf"),
    ],
)
def test_a_missing_build_is_named_with_its_command(clone, tmp_path, capsys, missing, command):
    path = clone / missing
    shutil.rmtree(path) if path.is_dir() else path.unlink()
    assert _release(clone, tmp_path / "out", "--dry-run", "--skip-build") == 1
    err = capsys.readouterr().err
    assert str(path) in err and command in err, err
    assert not (tmp_path / "out").exists()  # nothing is written before every file is there


def test_a_failing_build_command_is_named(clone, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(release, "BUILD_STEPS", [("the slides", ["no-such-command"])])
    assert _release(clone, tmp_path / "out", "--dry-run") == 1
    err = capsys.readouterr().err
    assert "building the slides failed: `python -m booktools no-such-command` exited with 2" in err, err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "--version"),
        (["--version", "v0.2.0"], "--version: 'v0.2.0' is not a release version"),
        (["--version", "1.2"], "--version: '1.2' is not a release version"),
        (["--version", "01.2.3"], "--version: '01.2.3' is not a release version"),
        (["--version", "0.2.0", "--root", "/nonexistent/repository"], "--root /nonexistent/repository"),
        (["--version", "0.2.0", "--out", __file__], "--out"),
    ],
)
def test_argument_errors_name_the_argument(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        release.main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_the_command_line_entry(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "booktools", "release", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and done.stdout.startswith("usage: python -m booktools release "), done.stdout
    assert release.VERSION.fullmatch("1.0.0rc1") and not release.VERSION.fullmatch("1.0")
