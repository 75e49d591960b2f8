"""The introduction's link to the PDF edition, shown only where the PDF exists.

``book/intro.md`` links ``../online-learning.pdf`` by ``<a class="pdf-edition-link" ...>``. The
PDF is printed from the built site by ``python -m booktools pdf`` (``make pdf``) after the build,
so until then the link is dead. At the end of every HTML build this extension turns each such
link into plain text that says how to make the PDF if ``<outdir>/online-learning.pdf`` does not
exist, and back into the link if it does (an incremental build may keep an older page).
``booktools.pdf_edition`` calls :func:`sync_pages` once it has written the PDF, so the link is
back on the site it publishes.

The link is found by its class, never by its text. The hidden link is kept whole in an HTML
comment in front of the text, so putting it back gives the page exactly as Sphinx wrote it.
"""

from __future__ import annotations

import re
from pathlib import Path

PDF_NAME = "online-learning.pdf"
MARKER = "pdf-edition-link"
LINK = re.compile(r'<a\b[^>]*\bclass="(?:[^"]*\s)?' + MARKER + r'(?:\s[^"]*)?"[^>]*>.*?</a>', re.DOTALL)
HIDDEN = re.compile(r"<!--" + MARKER + r" (.*?)-->.*?<!--/" + MARKER + "-->", re.DOTALL)
NOTE = (
    f'<span class="{MARKER}-missing">PDF edition (not made for this build: run <code>make pdf</code>, '
    "which needs Chromium)</span>"
)


def _hide(match: re.Match) -> str:
    link = match.group(0)
    if "--" in link:
        raise ValueError(f"link: the PDF link must not contain '--' (it is kept in an HTML comment), got {link!r}")
    return f"<!--{MARKER} {link}-->{NOTE}<!--/{MARKER}-->"


def hide_pdf_link(html: str) -> str:
    """``html`` with every PDF link replaced by the note that says how to make the PDF."""
    return LINK.sub(_hide, restore_pdf_link(html))  # a page hidden before keeps one note, not two


def restore_pdf_link(html: str) -> str:
    """``html`` with every note of :func:`hide_pdf_link` replaced by the link it hid."""
    return HIDDEN.sub(lambda match: match.group(1), html)


def sync_pages(site: Path, pages) -> list[Path]:
    """Hide or restore the PDF link in ``pages`` (files of the site), as ``site/online-learning.pdf``
    exists or not; returns the pages that changed."""
    site = Path(site)
    if not site.is_dir():
        raise ValueError(f"site: expected the folder of a built HTML site, got {str(site)!r}")
    change = restore_pdf_link if (site / PDF_NAME).exists() else hide_pdf_link
    changed = []
    for page in pages:
        path = site / page
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        new = change(text)
        if new != text:
            # whole or not at all: CI's browser check may be reading the page while the PDF is printed
            partial = path.with_name(path.name + ".partial")
            partial.write_text(new, encoding="utf-8")
            partial.replace(path)
            changed.append(path)
    return changed


def _build_finished(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    pages = [app.builder.get_outfilename(docname) for docname in sorted(app.env.found_docs)]
    sync_pages(Path(app.outdir), pages)


def setup(app):
    app.connect("build-finished", _build_finished)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
