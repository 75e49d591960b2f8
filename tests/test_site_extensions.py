"""The book's local Sphinx extensions (``_ext/``): the widget manager and the launch settings.

``test_build.py`` checks what they produce in the full build; these tests check their
logic, their errors, and one small book built with ``repository.url`` set.
"""
import io
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import nbformat
import pytest
import yaml
from examples import MYST_HEADER
from sphinx.errors import ExtensionError

from _ext import notebook_links, widget_js

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


FAKE = _tarball({
    "package/dist/embed.js": b"/* manager */",
    "package/dist/embed.js.LICENSE.txt": b"licences",
    "package/dist/abc123.woff2": b"font",
    "package/dist/embed-amd.js": b"amd",
    "package/dist/embed.js.map": b"map",
    "package/lib/index.js": b"lib",
    "package/package.json": b"{}",
})


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
        "abc123.woff2", "embed.js", "embed.js.LICENSE.txt", "mathjax3-typeset.js"]
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


@pytest.mark.parametrize("url", ["github.com/a/b", "https://example.org/a/b", "https://github.com/a",
                                 "https://github.com/a/b/tree/main"])
def test_a_malformed_repository_url_names_the_setting(url):
    with pytest.raises(ExtensionError, match=r"repository\.url in _config\.yml .*got"):
        notebook_links.repository_url({"repository_url": url})


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
    (book / "book" / "page.md").write_text(
        MYST_HEADER + "\n# A notebook page\n\n```{code-cell} ipython3\nprint(6 * 7)\n```\n")
    # first with a stale notebook copy beside the chapter (jupytext --to ipynb): refused
    stray = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1000 + 1)")])
    nbformat.write(stray, book / "book" / "page.ipynb")
    assert notebook_links.notebook_copies(book) == ["book/page.ipynb"]
    refused = subprocess.run([str(Path(sys.executable).with_name("jupyter-book")), "build", str(book)],
                             capture_output=True, text=True, timeout=300)
    assert refused.returncode != 0
    assert "book/page.ipynb: a notebook copy of the .md chapter beside it" in refused.stdout + refused.stderr
    (book / "book" / "page.ipynb").unlink()
    done = subprocess.run([str(Path(sys.executable).with_name("jupyter-book")), "build", str(book)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    html = (book / "_build" / "html" / "book" / "page.html").read_text(encoding="utf-8")
    assert ("https://mybinder.org/v2/gh/someone/online-learning/main"
            "?urlpath=lab/tree/book/page.md") in html
    assert "initThebeSBT()" in html, "no Live Code (Thebe) button"
    assert 'href="https://github.com/someone/online-learning"' in html, "no repository button"
    assert 'href="../_sources/book/page.ipynb"' in html
    assert (book / "_build" / "html" / "_sources" / "book" / "page.ipynb").is_file()
    intro = (book / "_build" / "html" / "book" / "intro.html").read_text(encoding="utf-8")
    assert "mybinder.org" not in intro, "a plain page is not a notebook: no launch button"
