"""Accessibility repairs for the theme's and the widget manager's markup (issue 16).

Adds ``_ext/static/a11y.js`` and ``a11y.css`` to every page. Each repair names the axe-core
rule it satisfies; ``tests/test_browser.py`` runs axe-core on every page and fails on any
"serious" or "critical" violation.
"""
from pathlib import Path

STATIC = Path(__file__).resolve().parent / "static"


def _add_static_path(app, config):
    if str(STATIC) not in config.html_static_path:
        config.html_static_path.append(str(STATIC))


def setup(app):
    app.connect("config-inited", _add_static_path)
    app.add_js_file("a11y.js", loading_method="defer")
    app.add_css_file("a11y.css")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
