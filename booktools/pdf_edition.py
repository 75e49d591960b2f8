"""The PDF edition: every page of the built book, printed by headless Chromium, in one file.

Usage (after ``jupyter-book build .``, or ``make student`` for the student edition)::

    python -m booktools pdf                       # writes _build/html/online-learning.pdf
    python -m booktools pdf --student             # the student edition: no solutions, no lecturer pages,
                                                  # no API reference (--with-api keeps it)
    python -m booktools pdf --leave-out book/api  # without the API reference (a quarter of the pages)

``make pdf`` and ``make student-pdf`` run the first two (``LEAVE_OUT=book/api`` passes the third's option).

Why this route: the HTML build has already executed every chapter, and Chromium prints
exactly what a reader sees, with MathJax's typesetting, the figures, the widgets' static
figures and the numbered theorems, in about a minute for the whole book. The LaTeX route
would execute every chapter again and needs a TeX installation of several hundred MB, and
several of the book's pieces (MathJax macros, widget figures, sphinx-proof and
sphinx-exercise boxes) would need LaTeX versions of their own.

Each page of ``_toc.yml`` is opened with no network in the system's Chromium through
Playwright (``browser_check.launch``), waits for MathJax, images, widgets and fonts
(``browser_check.open_and_settle``), and is printed to A4 with Chromium's heading outline
(``page.pdf``). The parts are joined after a cover page with a table of contents, and
the bookmarks are rebuilt as one tree: a bookmark per page, its headings below it. Folded
code stays folded, as on the site; code blocks wrap instead of running off the page.

The build leaves the introduction's link to this PDF as a note that says how to make it
(``_ext/pdf_link.py``); once the PDF is written, the link is put back into the site. The
printed introduction leaves that note out, link or not: a PDF need not offer itself.
"""

from __future__ import annotations

import argparse
import asyncio
import html
import io
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, async_playwright
from pypdf import PdfReader, PdfWriter

from _ext.pdf_link import PDF_NAME, sync_pages
from booktools import student_edition
from booktools.browser_check import VIEWPORT, find_browser, launch, open_and_settle, toc_pages

ROOT = Path(__file__).resolve().parents[1]
BOOK_TITLE = "Online Learning: Mistake Bounds, Proofs and Code"
A4 = {"width": "8.27in", "height": "11.69in"}  # (Playwright's format="A4" is 11.7 in high)
MARGIN = "0.6in"
FOOTER = '<div style="font-size:7px;width:100%;text-align:center;color:#555"><span class="title"></span></div>'
# The cover says what the site's footer says (html.extra_footer in _config.yml), which print hides.
LICENSE_NOTE = (
    "© 2026 The onlinelib authors. Text, figures and exercises: CC BY 4.0 "
    "(https://creativecommons.org/licenses/by/4.0/, LICENSE-TEXT.md). "
    "Code: MIT license (LICENSE)."
)
# Printed copies wrap long code lines (the site scrolls them), each source line a block of its own
# with a hanging indent (LINES_JS), so a wrapped line's continuation sits right of the line's own
# indentation; a code cell, its source and its outputs each stay on one page when they fit (instead
# of an empty grey box at the foot of a page and the code overleaf). The folded cells' "Show ..."
# toggles, which do nothing on paper, and the intro's note that offers this PDF are dropped.
# The student PDF leaves out the API reference (about 150 of its pages), unless --with-api.
STUDENT_LEAVES_OUT = "book/api"
PRINT_CSS = """
@media print {
  pre { white-space: pre-wrap !important; overflow-wrap: anywhere; }
  pre > .print-line { display: block; }
  div.cell, div.cell_input, div.cell_output, div.highlight { break-inside: avoid; }
  details.hide > summary { display: none !important; }
  .pdf-edition { display: none !important; }
}
"""
# Hanging indents need each line of a code block as an element: Pygments writes one <pre> whose
# token <span>s run across lines (a docstring is one span). Each line of each <pre> becomes a
# <span class="print-line"> holding clones of the token spans it crosses; a line indented by k
# characters wraps at k + HANG. The text is kept, but for the trailing newline (each line is a block)
# and a no-break space on each empty line (which would otherwise have no height).
HANG = 4
LINES_JS = r"""(hang) => {
  for (const pre of document.querySelectorAll('div.highlight pre')) {
    const lines = [[]];
    const walk = (node, wrap) => {
      for (const child of [...node.childNodes]) {
        if (child.nodeType === Node.TEXT_NODE) {
          child.textContent.split('\n').forEach((part, i) => {
            if (i > 0) lines.push([]);
            if (part) lines[lines.length - 1].push(wrap(document.createTextNode(part)));
          });
        } else if (child.nodeType === Node.ELEMENT_NODE) {
          walk(child, (inner) => { const c = child.cloneNode(false); c.appendChild(inner); return wrap(c); });
        }
      }
    };
    walk(pre, (n) => n);
    if (lines.length > 1 && lines[lines.length - 1].length === 0) lines.pop();
    pre.replaceChildren(...lines.map((nodes) => {
      const line = document.createElement('span');
      line.className = 'print-line';
      const text = nodes.map((n) => n.textContent).join('');
      const hanging = text.length - text.trimStart().length + hang;
      line.style.paddingLeft = hanging + 'ch';
      line.style.textIndent = -hanging + 'ch';
      if (nodes.length) line.append(...nodes); else line.append('\u00a0');  // an empty line keeps its height
      return line;
    }));
  }
}"""
# The headings a printed page shows, in document order, as plain text: maths as the Unicode
# text of MathJax's assistive MathML, without the pilcrow links. Chromium's own outline titles
# come from the rendered glyphs and lose the maths, so the bookmarks take these instead.
HEADINGS_JS = r"""() => [...document.querySelectorAll('h1,h2,h3,h4,h5,h6')]
  .filter((h) => getComputedStyle(h).display !== 'none' && h.offsetParent !== null)
  .map((h) => {
    const c = h.cloneNode(true);
    c.querySelectorAll('a.headerlink').forEach((a) => a.remove());
    c.querySelectorAll('mjx-container').forEach((m) => {
      const mml = m.querySelector('mjx-assistive-mml');
      m.replaceWith(document.createTextNode(mml ? mml.textContent : ''));
    });
    return c.textContent.replace(/\s+/g, ' ').trim();
  })"""


async def print_page(page: Page, url: str, timeout: float) -> tuple[bytes, str, list[str]]:
    """The page at ``url``, opened in ``page``, as PDF bytes, its title (the part before " — ") and
    its printed headings.

    One ``page`` prints every page of the book in turn: a fresh one per page started a new renderer
    process each time, about a core-second a page. Each page is opened on screen media (the last
    one left print media on) and gets its print styles afresh.

    Raises
    ------
    RuntimeError
        If the page does not load, or MathJax does not finish its typeset, within ``timeout`` seconds.
    """
    await page.emulate_media(media="screen")
    try:
        mathjax = await open_and_settle(page, url, timeout)
    except PlaywrightError as e:
        raise RuntimeError(f"{url} did not load: {e.message.splitlines()[0]}") from None
    if mathjax not in ("typeset", "absent"):
        raise RuntimeError(f"{url}: MathJax did not finish ({mathjax})")
    await page.add_style_tag(content=PRINT_CSS)
    await page.evaluate(LINES_JS, HANG)
    title = await page.title()
    await page.emulate_media(media="print")
    headings = await page.evaluate(HEADINGS_JS)
    pdf = await asyncio.wait_for(
        page.pdf(
            **A4,
            margin={"top": MARGIN, "bottom": MARGIN, "left": MARGIN, "right": MARGIN},
            print_background=True,
            outline=True,
            tagged=True,
            display_header_footer=True,
            header_template="<span></span>",
            footer_template=FOOTER,
        ),
        timeout * 2,
    )
    return pdf, title.split(" — ")[0].strip(), headings


def cover_html(parts: list[tuple[str, int]], revision: str, edition: str = "PDF edition") -> str:
    rows = "\n".join(f"<tr><td>{html.escape(title)}</td><td>{page}</td></tr>" for title, page in parts)
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>{BOOK_TITLE}</title>
<style>body {{ font-family: sans-serif; margin: 3em 2em; }} h1 {{ font-size: 2.2em; margin-top: 4em; }}
table {{ width: 100%; border-collapse: collapse; margin-top: 2em; }}
td {{ padding: .35em 0; border-bottom: 1px dotted #bbb; }} td:last-child {{ text-align: right; }}
.meta {{ color: #555; }}</style></head><body>
<h1>{BOOK_TITLE}</h1>
<p class="meta">{html.escape(edition)}, printed from the HTML book ({html.escape(revision)}).</p>
<p class="meta">{html.escape(LICENSE_NOTE)}</p>
<div style="page-break-before: always"></div>
<h2>Contents</h2><table>{rows}</table></body></html>"""


def flatten(items) -> list:
    """The bookmarks of a PDF outline in document order (depth first)."""
    return [leaf for item in items for leaf in (flatten(item) if isinstance(item, list) else [item])]


def copy_outline(writer: PdfWriter, reader: PdfReader, items, titles: dict, offset: int, parent) -> None:
    """Re-create ``reader``'s bookmarks under ``parent``, titled from ``titles`` (id of item -> text),
    with page numbers shifted by ``offset``; the in-page "Contents" box gets none."""
    last = parent
    for item in items:
        if isinstance(item, list):
            copy_outline(writer, reader, item, titles, offset, last)
        elif titles[id(item)] != "Contents":
            last = writer.add_outline_item(
                title=titles[id(item)], page_number=reader.get_destination_page_number(item) + offset, parent=parent
            )


def revision() -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        return f"revision {out}"
    except (OSError, subprocess.CalledProcessError):
        return "no git revision"


async def print_book(executable: str, site: Path, pages: list[str], timeout: float, edition: str = "PDF edition"):
    """Print every page of ``pages`` (relative to ``site``), then the cover; in one browser.

    Returns
    -------
    printed : list of tuple
        Per page: its path, its title, a PdfReader of its PDF, that reader's outline and the
        bookmarks' titles (id of outline item -> printed heading).
    cover : PdfReader
        The cover and contents pages.
    parts : list of tuple
        Per page: its title and the page of the book's PDF it starts on (from 1).

    Raises
    ------
    RuntimeError
        If a page cannot be printed, or its PDF's bookmarks do not match its headings.
    """
    printed = []
    async with async_playwright() as playwright:
        browser = await launch(playwright, executable)
        try:
            tab = await browser.new_page(viewport=VIEWPORT)
            for page in pages:
                data, title, headings = await print_page(tab, (site / page).as_uri(), timeout)
                reader = PdfReader(io.BytesIO(data))
                outline = reader.outline  # a new list on every access: keep this one
                marks = flatten(outline)
                if len(marks) != len(headings):
                    raise RuntimeError(f"{page}: {len(marks)} bookmarks for {len(headings)} printed headings")
                printed.append((page, title, reader, outline, {id(m): h for m, h in zip(marks, headings, strict=True)}))
                print(f"printed {page}: {len(reader.pages)} pages", flush=True)
            # The cover's contents need the parts' first pages, and those depend on the cover's
            # length: two pages (title, contents) as long as the contents fit on one page.
            cover_pages = 2
            rev = revision()
            for _ in range(3):
                first, parts = cover_pages, []
                for _, title, reader, _, _ in printed:
                    parts.append((title, first + 1))
                    first += len(reader.pages)
                with tempfile.TemporaryDirectory() as tmp:
                    cover = Path(tmp) / "cover.html"
                    cover.write_text(cover_html(parts, rev, edition), encoding="utf-8")
                    cover_reader = PdfReader(io.BytesIO((await print_page(tab, cover.as_uri(), timeout))[0]))
                if len(cover_reader.pages) == cover_pages:
                    break
                cover_pages = len(cover_reader.pages)
        finally:
            await browser.close()
    return printed, cover_reader, parts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--site",
        type=Path,
        default=ROOT / "_build" / "html",
        help="the built HTML to print (default: the full edition)",
    )
    parser.add_argument(
        "--toc", type=Path, default=ROOT / "_toc.yml", help="the _toc.yml that lists its pages, in order"
    )
    parser.add_argument(
        "--student",
        action="store_true",
        help="print the student edition: --site _build/student/_build/html --toc _build/student_src/_toc.yml "
        "(build it first: make student), with 'Student edition' on the cover, without the API reference "
        f"({STUDENT_LEAVES_OUT}; --with-api keeps it)",
    )
    parser.add_argument("--with-api", action="store_true", help="with --student: keep the API reference")
    parser.add_argument(
        "--leave-out",
        action="append",
        default=[],
        metavar="PAGE",
        help="a page to leave out, as _toc.yml names it (repeatable): e.g. book/api, the API reference",
    )
    parser.add_argument("--out", type=Path, default=None, help=f"default: <site>/{PDF_NAME}")
    parser.add_argument("--timeout", type=float, default=90.0)
    parser.add_argument("--browser", default=None)
    args = parser.parse_args(argv)
    edition = "PDF edition"
    if args.student:
        args.site = ROOT / student_edition.DEFAULT_OUT / "_build" / "html"
        args.toc = ROOT / student_edition.DEFAULT_SRC_OUT / "_toc.yml"
        edition = "Student edition (no solutions), PDF"
        if not args.with_api and STUDENT_LEAVES_OUT not in args.leave_out:
            args.leave_out.append(STUDENT_LEAVES_OUT)  # a student reads the API on the site, not in print
    out = args.out or args.site / PDF_NAME
    executable = find_browser(args.browser)
    if executable is None:
        print("no Chromium found: install it (apt-get install chromium) or set $CHROMIUM", file=sys.stderr)
        return 2
    every_page = [p for p in toc_pages(args.toc) if p != "index.html"]
    unknown = [name for name in args.leave_out if f"{name}.html" not in every_page]
    if unknown:
        print(
            f"--leave-out {unknown[0]}: not a page of {args.toc}; its pages are "
            + ", ".join(p.removesuffix(".html") for p in every_page),
            file=sys.stderr,
        )
        return 2
    pages = [p for p in every_page if p.removesuffix(".html") not in args.leave_out]
    missing = [args.site / page for page in pages if not (args.site / page).exists()]
    if missing:
        build = "make student" if args.student else "build the book first"
        print(f"missing page {missing[0]}: {build}", file=sys.stderr)
        return 2
    start = time.monotonic()
    printed, cover_reader, parts = asyncio.run(print_book(executable, args.site, pages, args.timeout, edition))
    writer = PdfWriter()
    writer.append(cover_reader, import_outline=False)
    for (_page, title, reader, top, titles), (_, first) in zip(printed, parts, strict=True):
        writer.append(reader, import_outline=False)
        mark = writer.add_outline_item(title=title, page_number=first - 1)
        # Chromium's outline has the page's h1 as its one top item; its children are the sections.
        children = top[1] if len(top) == 2 and isinstance(top[1], list) else top
        copy_outline(writer, reader, children, titles, first - 1, mark)
    writer.add_metadata({"/Title": BOOK_TITLE})
    writer.page_mode = "/UseOutlines"
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "wb") as f:
        writer.write(f)
    print(f"{out}: {len(writer.pages)} pages from {len(printed)} pages of the site in {time.monotonic() - start:.0f} s")
    # The build left the intro's link to the PDF as a note saying how to make it (_ext/pdf_link.py).
    for page in sync_pages(args.site, pages):
        print(f"{page}: the link to the PDF edition is back")
    return 0


if __name__ == "__main__":
    sys.exit(main())
