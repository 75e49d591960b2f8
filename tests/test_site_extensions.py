"""The book's local Sphinx extensions (``_ext/``): the widget manager, the launch settings and downloads.

``test_build.py`` checks what they produce in the full build; these tests check their
logic, their errors, and one small book built with ``repository.url`` set.
"""

import copy
import io
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import nbformat
import pytest
import yaml
from myst_nb.core import render as myst_nb_render
from myst_nb.core.utils import coalesce_streams
from packaging.requirements import Requirement
from sphinx.errors import ExtensionError

from _ext import notebook_links, widget_js
from examples import MYST_HEADER

ROOT = Path(__file__).resolve().parents[1]


# --- widget_js -------------------------------------------------------------------------------


def _tarball(files: dict) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


FAKE = _tarball(
    {
        "package/dist/embed.js": b"/* manager */",
        "package/dist/embed.js.LICENSE.txt": b"licences",
        "package/dist/abc123.woff2": b"font",
        "package/dist/embed-amd.js": b"amd",
        "package/dist/embed.js.map": b"map",
        "package/lib/index.js": b"lib",
        "package/package.json": b"{}",
    }
)


class _Response(io.BytesIO):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def test_the_tarball_is_downloaded_once_and_checked(tmp_path, monkeypatch):
    calls = []

    def urlopen(url, timeout):
        calls.append(url)
        return _Response(FAKE)

    monkeypatch.setattr(widget_js.urllib.request, "urlopen", urlopen)
    monkeypatch.setattr(widget_js, "INTEGRITY", widget_js._sri(FAKE))
    path = widget_js.fetch_tarball(tmp_path)
    assert path.read_bytes() == FAKE and calls == [widget_js.TARBALL_URL]
    assert widget_js.fetch_tarball(tmp_path) == path and len(calls) == 1  # from the cache
    path.write_bytes(b"tampered")  # a cached file with the wrong hash is fetched again
    assert widget_js.fetch_tarball(tmp_path).read_bytes() == FAKE and len(calls) == 2


def test_a_tarball_with_the_wrong_hash_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(widget_js.urllib.request, "urlopen", lambda url, timeout: _Response(FAKE))
    with pytest.raises(ExtensionError, match="integrity"):
        widget_js.fetch_tarball(tmp_path)
    assert not list(tmp_path.iterdir()), "a refused download must not be cached"


def test_no_registry_gives_an_error_that_says_how_to_build_offline(tmp_path, monkeypatch):
    def urlopen(url, timeout):
        raise OSError("Name or service not known")

    monkeypatch.setattr(widget_js.urllib.request, "urlopen", urlopen)
    with pytest.raises(ExtensionError, match=r"could not download .*put that file at .*html-manager"):
        widget_js.fetch_tarball(tmp_path)


def test_only_the_bundle_its_licences_and_fonts_are_served(tmp_path):
    tarball = tmp_path / "t.tgz"
    tarball.write_bytes(FAKE)
    folder = widget_js.unpack(tarball, tmp_path / "static")
    assert sorted(p.name for p in folder.iterdir()) == [
        "abc123.woff2",
        "embed.js",
        "embed.js.LICENSE.txt",
        "mathjax3-typeset.js",
    ]
    assert (tmp_path / "static" / widget_js.SCRIPT).read_bytes() == b"/* manager */"
    assert "typesetPromise" in (tmp_path / "static" / widget_js.TYPESET_SHIM).read_text()


def test_a_tarball_without_the_bundle_is_an_error(tmp_path):
    tarball = tmp_path / "t.tgz"
    tarball.write_bytes(_tarball({"package/dist/embed-amd.js": b"amd"}))
    with pytest.raises(ExtensionError, match="no package/dist/embed.js"):
        widget_js.unpack(tarball, tmp_path / "static")


def test_the_pinned_manager_matches_the_pinned_ipywidgets():
    # html-manager 1.0.x renders the ipywidgets 8 models (base 2.0.0, controls 2.0.0).
    import ipywidgets

    assert widget_js.VERSION.startswith("1.0.")
    assert ipywidgets.__version__.startswith("8.")
    assert ipywidgets._version.__jupyter_widgets_controls_version__ == "2.0.0"
    assert ipywidgets._version.__jupyter_widgets_base_version__ == "2.0.0"


# --- notebook_links --------------------------------------------------------------------------


@pytest.mark.parametrize("url", ["", "  ", None, notebook_links.JUPYTER_BOOK_DEFAULT_URL])
def test_an_unset_repository_turns_the_launch_buttons_off(url):
    options = {"repository_url": url, "launch_buttons": {"binderhub_url": "https://mybinder.org", "thebe": True}}
    assert notebook_links.repository_url(options) == ""
    notebook_links._configure_buttons(None, type("Config", (), {"html_theme_options": options})())
    assert options["launch_buttons"] == {} and options["use_repository_button"] is False
    assert "repository_url" not in options


def test_a_repository_turns_them_on():
    launch = {"binderhub_url": "https://mybinder.org", "thebe": True}
    options = {"repository_url": "https://github.com/someone/online-learning", "launch_buttons": dict(launch)}
    notebook_links._configure_buttons(None, type("Config", (), {"html_theme_options": options})())
    assert options["launch_buttons"] == launch and options["use_repository_button"] is True


@pytest.mark.parametrize(
    "url", ["github.com/a/b", "https://example.org/a/b", "https://github.com/a", "https://github.com/a/b/tree/main"]
)
def test_a_malformed_repository_url_names_the_setting(url):
    with pytest.raises(ExtensionError, match=r"repository\.url in _config\.yml .*got"):
        notebook_links.repository_url({"repository_url": url})


PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
CLONE_INSTALL = 'pip install "./[notebooks]"'


def _installs(note: str) -> set[str]:
    return {span for span in re.findall(r"`([^`]+)`", note) if span.startswith("pip install")}


def test_the_download_note_names_the_repository_and_both_installs():
    url = "https://github.com/someone/online-learning"
    note = notebook_links.download_note(url + "/")
    direct = f'pip install "onlinelib-book[notebooks] @ git+{url}"'
    assert _installs(note) == {direct, CLONE_INSTALL, "pip install onlinelib"}
    assert "(Not `pip install onlinelib`: that is an unrelated package" in note
    assert f"The repository is {url}." in note and f"`git clone {url}`" in note and "`jupyter lab`" in note
    # pip's direct reference: this distribution, its notebooks extra, from the repository by git
    requirement = Requirement(shlex.split(direct)[2])
    assert requirement.name == PROJECT["name"] and requirement.url == f"git+{url}"
    assert requirement.extras == {"notebooks"}
    assert "notebooks" in PROJECT["optional-dependencies"]
    assert PROJECT["requires-python"] == ">=3.11" and "Python 3.11 or later" in note
    assert "JupyterLab" in note and "jupyterlab-myst" in note
    assert len(note.split("\n\n")) == 3, "three short paragraphs"


def test_the_download_note_without_a_repository_says_how_to_get_a_copy():
    note = notebook_links.download_note("")
    assert _installs(note) == {CLONE_INSTALL, "pip install onlinelib"}
    assert "a copy of the book's repository (a `git clone` of it, or its source archive" in note
    assert "from the root of that copy" in note and "`jupyter lab`" in note
    assert "git+" not in note and "https://" not in note


@pytest.mark.parametrize(
    ("url", "error"),
    [
        (None, TypeError),
        (b"https://github.com/a/b", TypeError),
        ("github.com/a/b", ValueError),
        ("https://example.org/a/b", ValueError),
    ],
)
def test_a_bad_url_for_the_download_note_is_named(url, error):
    with pytest.raises(error, match=r"url must be .*got"):
        notebook_links.download_note(url)


def _streams(*texts, name="stdout"):
    return [nbformat.v4.new_output("stream", name=name, text=text) for text in texts]


def test_myst_nb_merges_a_cells_streams_in_place():
    """The cause of the repeated lines: myst-nb 1.4 merges a cell's stream outputs for the page by
    growing the first output in place, and then saves the notebook that holds these outputs.
    (If this fails, myst-nb merges copies itself, and merge_streams_on_copies can go.)"""
    outputs = _streams("every_round 2.9\n", "on_elimination 2.8\n")
    assert [o.text for o in coalesce_streams(outputs)] == ["every_round 2.9\non_elimination 2.8\n"]
    assert [o.text for o in outputs] == ["every_round 2.9\non_elimination 2.8\n", "on_elimination 2.8\n"]


def test_merging_copies_leaves_the_outputs_as_printed():
    outputs = (
        _streams("a\n")
        + [nbformat.v4.new_output("display_data", data={"text/plain": "fig"})]
        + _streams("b\n")
        + _streams("warned\n", name="stderr")
    )
    printed = copy.deepcopy(outputs)
    merged = notebook_links.merge_streams_on_copies(outputs)
    assert outputs == printed
    assert merged == coalesce_streams(copy.deepcopy(printed))  # the page is unchanged
    assert [(o.output_type, o.get("text")) for o in merged] == [
        ("stream", "a\nb\n"),
        ("display_data", None),
        ("stream", "warned\n"),
    ]


class _App:
    def connect(self, event, handler, priority=500):
        pass


def test_setup_makes_myst_nb_merge_copies(monkeypatch):
    monkeypatch.setattr(myst_nb_render, "coalesce_streams", coalesce_streams)
    for _ in range(2):  # a second build in the same process keeps the one wrapper
        notebook_links.setup(_App())
        assert myst_nb_render.coalesce_streams is notebook_links.merge_streams_on_copies


def test_a_myst_nb_that_merges_elsewhere_stops_the_build(monkeypatch):
    monkeypatch.setattr(myst_nb_render, "coalesce_streams", lambda outputs: outputs)
    with pytest.raises(ExtensionError, match=r"no longer calls myst_nb\.core\.utils\.coalesce_streams"):
        notebook_links.setup(_App())


def test_a_book_built_with_the_setting_has_binder_thebe_and_download_buttons(tmp_path):
    """The one setting, end to end: a two-page book built with ``repository.url`` set."""
    book = tmp_path / "book"
    (book / "book").mkdir(parents=True)
    shutil.copytree(ROOT / "_ext", book / "_ext", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "book" / "references.bib", book / "book" / "references.bib")
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    config["repository"]["url"] = "https://github.com/someone/online-learning"
    config["title"] = "Launch test"
    (book / "_config.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    (book / "_toc.yml").write_text("format: jb-book\nroot: book/intro\nchapters:\n  - file: book/page\n")
    (book / "book" / "intro.md").write_text("# Intro\n\nA plain page.\n")
    # the second cell prints two blocks (flushed apart): the page shows them in one box, the notebook once each
    (book / "book" / "page.md").write_text(
        MYST_HEADER + "\n# A notebook page\n\n```{code-cell} ipython3\nprint(6 * 7)\n```\n\n"
        "```{code-cell} ipython3\nimport sys, time\nprint('first block')\nsys.stdout.flush()\ntime.sleep(0.5)\n"
        "print('second block')\n```\n"
    )
    # first with a stale notebook copy beside the chapter (jupytext --to ipynb): refused
    stray = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1000 + 1)")])
    nbformat.write(stray, book / "book" / "page.ipynb")
    assert notebook_links.notebook_copies(book) == ["book/page.ipynb"]
    refused = subprocess.run(
        [str(Path(sys.executable).with_name("jupyter-book")), "build", str(book)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert refused.returncode != 0
    assert "book/page.ipynb: a notebook copy of the .md chapter beside it" in refused.stdout + refused.stderr
    (book / "book" / "page.ipynb").unlink()
    done = subprocess.run(
        [str(Path(sys.executable).with_name("jupyter-book")), "build", str(book)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    html = (book / "_build" / "html" / "book" / "page.html").read_text(encoding="utf-8")
    assert ("https://mybinder.org/v2/gh/someone/online-learning/main?urlpath=lab/tree/book/page.md") in html
    assert "initThebeSBT()" in html, "no Live Code (Thebe) button"
    assert 'href="https://github.com/someone/online-learning"' in html, "no repository button"
    assert 'href="../_sources/book/page.ipynb"' in html
    download = nbformat.read(book / "_build" / "html" / "_sources" / "book" / "page.ipynb", as_version=4)
    assert download.cells[0].source == notebook_links.download_note("https://github.com/someone/online-learning")
    for nb in (download, nbformat.read(book / "_build" / "jupyter_execute" / "book" / "page.ipynb", as_version=4)):
        blocks = [o.text for o in nb.cells[-1].outputs if o.output_type == "stream"]
        assert blocks == ["first block\n", "second block\n"], blocks
    shown = re.findall(
        r'<div class="output stream[^"]*"><div class="highlight"><pre><span></span>(.*?)</pre>', html, re.S
    )
    assert shown == ["42\n", "first block\nsecond block\n"], shown  # the page: one box per cell, each line once
    intro = (book / "_build" / "html" / "book" / "intro.html").read_text(encoding="utf-8")
    assert "mybinder.org" not in intro, "a plain page is not a notebook: no launch button"
