"""Serve the ipywidgets HTML manager from the site, so widgets' saved state renders offline.

Each executed chapter stores the state of its widgets, and myst-nb writes that state into
the page. The HTML manager (npm package ``@jupyter-widgets/html-manager``) draws the
controls from it. myst-nb's default loads require.js and the manager from two CDNs, so
with no network a page shows nothing where its widgets should be.

This extension fetches the manager's pinned release from the npm registry at build time
(cached, and checked against the registry's sha512 ``integrity`` on every build) and
serves its self-contained ``dist/embed.js``, with its fonts and its licence notices
(``embed.js.LICENSE.txt``; the package itself is BSD-3-Clause), from ``_static/widgets/``. No third-party JavaScript is committed to the repository.

Set ``WIDGET_JS_CACHE`` to choose the cache folder (default ``~/.cache/onlinelib-book``).
To build with no network, put the tarball named in the error message into that folder.
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import tarfile
import tempfile
import urllib.request
from pathlib import Path

from sphinx.errors import ExtensionError

PACKAGE = "@jupyter-widgets/html-manager"
# The manager of the ipywidgets 8.1 series (widget model versions: base 2.0.0,
# controls 2.0.0, output 1.0.0), matching ipywidgets in requirements.txt.
VERSION = "1.0.15"
INTEGRITY = "sha512-5thBIV6ymNgmPVOHvzx+gGy8ZSKmSazhtGw4/c4xJDVzRhG9PTeQsRjF3FUTopvFi//SABeNz1yp47bCrJ3CQA=="
TARBALL_NAME = f"html-manager-{VERSION}.tgz"
TARBALL_URL = f"https://registry.npmjs.org/{PACKAGE}/-/{TARBALL_NAME}"
SCRIPT = "widgets/embed.js"  # relative to _static; the page's <script src>
# Our own few lines, loaded before the manager: ipywidgets typesets labels through MathJax 2's
# ``MathJax.Hub.Queue``, which MathJax 3 (the book's) lacks, so every label threw a TypeError.
TYPESET_SHIM = "widgets/mathjax3-typeset.js"
TYPESET_SHIM_JS = """\
// ipywidgets calls MathJax.Hub.Queue(["Typeset", MathJax.Hub, element]) (MathJax 2).
// The book loads MathJax 3: give it that one call, as MathJax 3's typesetPromise.
// Added on the load event, before the widget manager (also on load) draws anything.
window.addEventListener("load", () => {
  const mathjax = window.MathJax;
  if (mathjax && !mathjax.Hub && mathjax.typesetPromise) {
    mathjax.Hub = {
      Queue: (job) => mathjax.startup.promise
        .then(() => mathjax.typesetPromise([job[2]]))
        .catch((error) => console.warn("widget label typesetting failed", error)),
    };
  }
});
"""
# Served from dist/: the standalone bundle, its licence notice and the font files its CSS
# names (webpack resolves them next to the script). The AMD bundles and source maps are not.
_SERVED_SUFFIXES = (".woff2", ".woff", ".ttf", ".eot", ".svg")
_SERVED_NAMES = ("embed.js", "embed.js.LICENSE.txt")


def _sri(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def _cache_dir() -> Path:
    return Path(os.environ.get("WIDGET_JS_CACHE") or Path.home() / ".cache" / "onlinelib-book")


def fetch_tarball(cache: Path | None = None) -> Path:
    """The pinned html-manager tarball: from the cache if its hash is right, else from npm.

    Raises
    ------
    sphinx.errors.ExtensionError
        If the registry cannot be reached, or what it sends does not match ``INTEGRITY``.
    """
    return fetch_npm_tarball(TARBALL_URL, INTEGRITY, cache, "widget_js", "The pages' widgets need the HTML manager")


def fetch_npm_tarball(url: str, integrity: str, cache: Path | None, who: str, why: str) -> Path:
    """A pinned npm tarball (``url`` with the registry's sha512 ``integrity``), cached.

    Shared by the widget manager (this extension) and axe-core (booktools/browser_check.py).
    ``who`` and ``why`` begin the error messages.

    Raises
    ------
    sphinx.errors.ExtensionError
        If the registry cannot be reached, or what it sends does not match ``integrity``.
    """
    cache = _cache_dir() if cache is None else cache
    path = cache / url.rsplit("/", 1)[-1]
    if path.is_file() and _sri(path.read_bytes()) == integrity:
        return path
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            data = response.read()
    except OSError as error:
        raise ExtensionError(
            f"{who}: could not download {url} ({error}). {why} "
            f"from the npm registry; to work offline, put that file at {path}."
        ) from error
    if _sri(data) != integrity:
        raise ExtensionError(f"{who}: {url} has integrity {_sri(data)}, expected {integrity}")
    cache.mkdir(parents=True, exist_ok=True)
    # A private temporary name, then an atomic rename: two builds at once (CI builds both
    # editions together) never see a half-written file.
    with tempfile.NamedTemporaryFile(dir=cache, suffix=".part", delete=False) as partial:
        partial.write(data)
    os.replace(partial.name, path)
    return path


def unpack(tarball: Path, static_root: Path) -> Path:
    """Write the served files of ``tarball`` to ``static_root/widgets/`` and return that folder."""
    target = static_root / Path(SCRIPT).parent
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    with tarfile.open(tarball, "r:gz") as archive:
        for member in archive.getmembers():
            parts = Path(member.name).parts
            name = parts[-1]
            served = (
                parts[:2] == ("package", "dist")
                and len(parts) == 3
                and (name in _SERVED_NAMES or name.endswith(_SERVED_SUFFIXES))
            )
            if member.isfile() and served:
                (target / name).write_bytes(archive.extractfile(member).read())
    if not (target / Path(SCRIPT).name).is_file():
        raise ExtensionError(f"widget_js: {tarball} has no package/dist/{Path(SCRIPT).name}")
    (static_root / TYPESET_SHIM).write_text(TYPESET_SHIM_JS, encoding="utf-8")
    return target


def _use_local_manager(app, config):
    # Pages with widget state load these scripts, in this order (myst-nb adds them to those
    # pages alone).
    config.nb_ipywidgets_js = {TYPESET_SHIM: {}, SCRIPT: {}}


def _stage_static_files(app):
    if app.builder.format != "html":
        return
    static_root = Path(app.outdir).parent / ".widget-js-static"
    unpack(fetch_tarball(), static_root)
    app.config.html_static_path.append(str(static_root))


def setup(app):
    app.connect("config-inited", _use_local_manager)
    app.connect("builder-inited", _stage_static_files)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
