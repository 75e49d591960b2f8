"""Release metadata (issue 37, item 4): the DOI archive's description, the changelog and the version.

* ``.zenodo.json`` is what Zenodo archives a GitHub release under; it must say what ``CITATION.cff``
  says (title, authors, licence, keywords, abstract), or the DOI and the citation would describe two
  different works. Neither file carries a version: the version is the release's git tag, which Zenodo
  reads from the release and setuptools-scm gives the package.
* The changelog is kept one file per change in ``changes/`` (towncrier, configured in pyproject.toml);
  ``towncrier build --draft`` renders the next section with the package's own version.
"""

import importlib.metadata
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

import onlinelib

ROOT = Path(__file__).resolve().parents[1]
ZENODO = ROOT / ".zenodo.json"
CITATION = ROOT / "CITATION.cff"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
# Zenodo's legacy deposit metadata, which the GitHub integration reads from .zenodo.json.
UPLOAD_TYPES = {"publication", "poster", "presentation", "dataset", "image", "video", "software", "lesson", "other"}
FRAGMENT = re.compile(r"^(?:\d+|\+[\w-]+)\.(?P<type>[a-z]+)(?:\.\d+)?\.md$")


def _zenodo() -> dict:
    return json.loads(ZENODO.read_text(encoding="utf-8"))


def _citation() -> dict:
    return yaml.safe_load(CITATION.read_text(encoding="utf-8"))


def _words(text: str) -> str:
    return " ".join(str(text).split())


def _creator_name(author: dict) -> str:
    """A CFF author as Zenodo names a creator: an entity by its name, a person as "Family, Given"."""
    if "name" in author:
        return author["name"]
    return ", ".join(part for part in (author.get("family-names"), author.get("given-names")) if part)


def zenodo_problems(zenodo: dict, citation: dict) -> list[str]:
    """Where ``zenodo`` (.zenodo.json) lacks a field Zenodo needs or says otherwise than ``citation``."""
    problems = []
    for field, kind in (("title", str), ("upload_type", str), ("description", str), ("creators", list)):
        if not isinstance(zenodo.get(field), kind) or not zenodo.get(field):
            problems.append(f"{field} is missing or not a non-empty {kind.__name__}")
    if problems:
        return problems
    if zenodo["upload_type"] not in UPLOAD_TYPES:
        problems.append(f"upload_type {zenodo['upload_type']!r} is not one of Zenodo's {sorted(UPLOAD_TYPES)}")
    if zenodo.get("access_right", "open") != "open":
        problems.append(f"access_right is {zenodo['access_right']!r}: an open course book is open")
    if zenodo["title"] != citation.get("title"):
        problems.append(f"title {zenodo['title']!r} != CITATION.cff's {citation.get('title')!r}")
    creators = [creator.get("name") if isinstance(creator, dict) else creator for creator in zenodo["creators"]]
    authors = [_creator_name(author) for author in citation.get("authors") or []]
    if creators != authors:
        problems.append(f"creators {creators} != CITATION.cff's authors {authors}")
    if zenodo.get("license") != citation.get("license"):
        problems.append(f"license {zenodo.get('license')!r} != CITATION.cff's {citation.get('license')!r}")
    if zenodo.get("keywords") != citation.get("keywords"):
        problems.append(f"keywords {zenodo.get('keywords')} != CITATION.cff's {citation.get('keywords')}")
    if _words(zenodo["description"]) != _words(citation.get("abstract", "")):
        problems.append("description is not CITATION.cff's abstract")
    for name, data in ((".zenodo.json", zenodo), ("CITATION.cff", citation)):
        if "version" in data:
            problems.append(f"{name} has a version ({data['version']!r}): the version is the release's git tag")
    return problems


def test_zenodo_json_is_valid_and_agrees_with_citation_cff():
    assert zenodo_problems(_zenodo(), _citation()) == []


@pytest.mark.parametrize(
    "change",
    [
        lambda z: z.update(title="Online Learning"),
        lambda z: z.update(creators=[{"name": "Someone Else"}]),
        lambda z: z.update(creators=[]),
        lambda z: z.update(license="CC-BY-4.0"),
        lambda z: z["keywords"].append("bandits"),
        lambda z: z.update(description="Another book."),
        lambda z: z.update(upload_type="book"),
        lambda z: z.pop("title"),
        lambda z: z.update(version="9.9.9"),
    ],
    ids=["title", "creator", "no-creators", "license", "keyword", "description", "upload-type", "no-title", "version"],
)
def test_a_disagreeing_zenodo_json_is_reported(change):
    zenodo = _zenodo()
    change(zenodo)
    assert zenodo_problems(zenodo, _citation())


def test_a_person_author_is_named_as_zenodo_names_creators():
    citation = {**_citation(), "authors": [{"family-names": "Littlestone", "given-names": "Nick"}]}
    zenodo = {**_zenodo(), "creators": [{"name": "Littlestone, Nick"}]}
    assert zenodo_problems(zenodo, citation) == []


def test_the_version_is_the_packages():
    """One version: the installed metadata's (from the git tag), which onlinelib.__version__ gives."""
    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert "setuptools_scm" in PYPROJECT["tool"] and PYPROJECT["tool"]["setuptools_scm"].get("fallback_version")
    assert any(req.startswith("setuptools-scm") for req in PYPROJECT["build-system"]["requires"])
    assert onlinelib.__version__ == importlib.metadata.version("onlinelib-book")


def test_the_changelog_is_configured_for_towncrier():
    config = PYPROJECT["tool"]["towncrier"]
    assert (ROOT / config["directory"] / "README.md").is_file()
    assert config["filename"] == "CHANGELOG.md"
    assert config["start_string"].strip() in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    types = {kind["directory"] for kind in config["type"]}
    assert {"added", "changed", "fixed", "removed", "book"} <= types
    # Every fragment waiting in changes/ has a name towncrier reads as one of these types.
    for path in (ROOT / config["directory"]).iterdir():
        if path.name != "README.md":
            match = FRAGMENT.match(path.name)
            assert match and match["type"] in types, f"{path.name}: not ISSUE.TYPE.md with TYPE in {sorted(types)}"


def test_towncrier_draft_renders_the_next_section_with_the_packages_version():
    towncrier = Path(sys.executable).parent / "towncrier"
    command = [str(towncrier)] if towncrier.exists() else [sys.executable, "-m", "towncrier"]
    done = subprocess.run(
        [*command, "build", "--draft"], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"## {onlinelib.__version__} (" in done.stdout, done.stdout
    fragments = [path for path in (ROOT / "changes").iterdir() if path.name != "README.md"]
    for path in fragments:  # every waiting change is in the draft, by its first words
        first = _words(path.read_text(encoding="utf-8"))[:40]
        assert first in _words(done.stdout), f"{path.name} is not in the draft"


def test_without_an_installed_distribution_the_version_is_unknown(monkeypatch):
    """Not installed (the grader's copy of the library, an unpacked archive): "0+unknown", and no git
    command is run. The library imports nothing that its dependencies do not bring."""

    def not_installed(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", not_installed)
    assert onlinelib._version() == "0+unknown"
