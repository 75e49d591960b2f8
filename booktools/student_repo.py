"""The student repository: what students clone, download from and launch on Binder (issue 37).

``python -m booktools student-edition --repo DIR`` writes the student edition's sources (every
solution, hidden test, rubric and lecturer page removed, as :mod:`booktools.student_edition` strips
them) into ``DIR`` together with what a student needs to run the chapters: the library
(``onlinelib/``), Binder's set-up (``binder/``), ``pyproject.toml`` and the licences, and a README
written for students. ``DIR`` becomes a git repository with one commit per refresh, ready to push
to the repository that ``student.repository.url`` in ``_config.yml`` names. The student site's
Binder, Live Code, download and clone links all name that repository, never the full one.

Nothing of the full repository's history goes along: ``DIR`` is its own repository, and a refresh
replaces every file but ``.git``. The leak test of the student edition (``tests/test_student_edition.py``)
scans ``DIR`` as it scans the student site.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

# What a student needs beside the book's sources, from the full repository's root.
EXTRA = ["onlinelib", "binder", "pyproject.toml", "LICENSE", "LICENSE-TEXT.md", "CITATION.cff", ".gitignore"]
SKIP = {"__pycache__", ".ipynb_checkpoints", ".pytest_cache"}
COMMIT_AUTHOR = ["-c", "user.name=booktools", "-c", "user.email=booktools@localhost"]

README = """# {title}: student edition

The course book's chapters as notebooks, its assignments as hand-outs, and `onlinelib`, the library
every chapter uses. This repository holds no solutions: it is made from the book by its course tools.

## Run the chapters

* **On Binder:** the rocket button at the top of each chapter of the course site opens it here, in
  JupyterLab, with everything installed (`binder/requirements.txt`).
* **On your machine** (Python 3.11 or newer):

  ```bash
  python3 -m venv .venv
  .venv/bin/pip install -r binder/requirements.txt
  .venv/bin/jupyter lab
  ```

  Then right-click a chapter in `book/` and choose *Open With → Jupytext Notebook*.

The library's distribution is `onlinelib-book` (`pip install onlinelib` fetches an unrelated
project). The assignments are in `book/assignments/`; hand in what your lecturer asks for.

## Licences

Text, figures and exercises (`book/`): CC BY 4.0 (`LICENSE-TEXT.md`). Code: MIT (`LICENSE`).
"""


def _copy_tree(src: Path, dest: Path) -> None:
    if src.is_file():
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest)
    elif src.is_dir():
        shutil.copytree(src, dest, ignore=shutil.ignore_patterns(*SKIP), dirs_exist_ok=True)


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *COMMIT_AUTHOR, *args], cwd=repo, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise SystemExit(f"git {' '.join(args)} in {repo} failed: {done.stderr.strip()[-500:]}")
    return done.stdout


def full_revision(root: Path) -> str:
    """The full repository's commit, for the student repository's commit message ("" outside git)."""
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else ""


def write_student_repo(root: Path, src_out: Path, repo: Path, title: str) -> dict:
    """Fill ``repo`` with the student sources ``src_out`` and the files of :data:`EXTRA`; commit.

    Parameters
    ----------
    root : Path
        The full repository (where ``onlinelib/``, ``binder/`` ... are taken from).
    src_out : Path
        The stripped sources :func:`booktools.student_edition.make_student_sources` wrote.
    repo : Path
        The student repository; created, or refreshed in place (its ``.git`` is kept).
    title : str
        The book's title, for the README.

    Returns
    -------
    dict
        ``{"files": number of files, "commit": the new commit or "" if nothing changed}``.
    """
    root, src_out, repo = root.resolve(), src_out.resolve(), repo.resolve()
    if repo == root or root in repo.parents or repo in root.parents:
        raise SystemExit(f"--repo: the student repository must lie outside the full repository, got {repo}")
    repo.mkdir(parents=True, exist_ok=True)
    if any(repo.iterdir()) and not (repo / ".git").is_dir():
        raise SystemExit(f"--repo: {repo} is a non-empty folder that is not a git repository")
    for child in repo.iterdir():
        if child.name != ".git":
            shutil.rmtree(child) if child.is_dir() and not child.is_symlink() else child.unlink()
    for child in src_out.iterdir():
        _copy_tree(child, repo / child.name)
    for name in EXTRA:
        _copy_tree(root / name, repo / name)
    (repo / "README.md").write_text(README.format(title=title), encoding="utf-8")
    if not (repo / ".git").is_dir():
        _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    commit = ""
    if _git(repo, "status", "--porcelain").strip():
        revision = full_revision(root)
        message = "Student edition" + (f" of {revision}" if revision else "")
        _git(repo, "commit", "-q", "-m", message)
        commit = _git(repo, "rev-parse", "--short", "HEAD").strip()
    files = sum(1 for p in repo.rglob("*") if p.is_file() and ".git" not in p.relative_to(repo).parts)
    return {"files": files, "commit": commit}
