"""The introduction's box about the PDF edition, shown only where the PDF exists.

``book/intro.md`` has an admonition of class ``pdf-edition`` that links ``../online-learning.pdf``.
The PDF is printed from the built site by ``python -m booktools pdf`` (``make pdf``, ``make
student-pdf``) after the build, so until then the link is dead. At the end of every HTML build this
extension hides the whole box (a reader sees no build note and no dead link) if
``<outdir>/online-learning.pdf`` does not exist, and shows it again if it does (an incremental
build may keep an older page). ``booktools.pdf_edition`` calls :func:`sync_pages` once it has
written the PDF, so the box is back on the site it publishes: the student edition's links its own
PDF, which has no solutions.

The box is found by its class, never by its text. The hidden box is kept whole in an HTML comment,
so showing it again gives the page exactly as Sphinx wrote it.
"""

from __future__ import annotations

import re
from pathlib import Path

PDF_NAME = "online-learning.pdf"
MARKER = "pdf-edition"
# the box: a <div> of class pdf-edition, up to its own </div> (an admonition holds no inner <div>)
BLOCK = re.compile(
    r'<div\b[^>]*\bclass="(?:[^"]*\s)?' + MARKER + r'(?:\s[^"]*)?"[^>]*>(?:(?!<div\b).)*?</div>', re.DOTALL
)
HIDDEN = re.compile(r"<!--" + MARKER + r" (.*?)-->", re.DOTALL)


def _hide(match: re.Match) -> str:
    block = match.group(0)
    if "--" in block:
        raise ValueError(f"block: the PDF box must not contain '--' (it is kept in an HTML comment), got {block!r}")
    return f"<!--{MARKER} {block}-->"


def hide_pdf_link(html: str) -> str:
    """``html`` with every PDF box hidden in an HTML comment (nothing shows in its place)."""
    return BLOCK.sub(_hide, restore_pdf_link(html))  # a page hidden before is hidden once, not twice


def restore_pdf_link(html: str) -> str:
    """``html`` with every box :func:`hide_pdf_link` hid shown again."""
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
