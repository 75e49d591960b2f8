"""Accessibility repairs for the theme's and the widget manager's markup (issue 16).

Adds ``_ext/static/a11y.js`` and ``a11y.css`` to every page (``a11y.css`` also keeps a page no
wider than a phone's screen), and ``reading.css`` and ``reading.js`` (issue 28: text outputs wrap,
figures scale to the column, display maths that scrolls shows it, and the explorers' widgets,
which have no kernel on the site, look inactive and say where they work), and writes the build-status table's emoji as words. Each axe
repair names the axe-core rule it satisfies; ``tests/test_browser.py`` runs axe-core on every
page and fails on any "serious" or "critical" violation.
"""

from pathlib import Path

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

STATIC = Path(__file__).resolve().parent / "static"
# myst-nb's execution table marks each notebook with an emoji, which shows as an empty box where
# no emoji font is installed (and is read out as "white heavy check mark"): words instead.
STATUS_WORDS = {"✅": "passed", "❌": "failed"}


class StatusInWords(SphinxPostTransform):
    """The ``nb-exec-table`` Status column in words (after myst-nb fills the table, priority 8)."""

    default_priority = 9

    def run(self, **kwargs):
        for table in self.document.findall(nodes.table):
            for text in list(table.findall(nodes.Text)):
                if str(text) in STATUS_WORDS:
                    text.parent.replace(text, nodes.Text(STATUS_WORDS[str(text)]))


def _add_static_path(app, config):
    if str(STATIC) not in config.html_static_path:
        config.html_static_path.append(str(STATIC))


def setup(app):
    app.connect("config-inited", _add_static_path)
    app.add_post_transform(StatusInWords)
    app.add_js_file("a11y.js", loading_method="defer")
    app.add_css_file("a11y.css")
    app.add_js_file("reading.js", loading_method="defer")
    app.add_css_file("reading.css")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
