"""How the PDF edition prints code (issue 28, item 6), on a planted page in Chromium's print mode.

A wrapped code line continues right of its own indentation (a hanging indent), where plain
``pre-wrap`` starts it at the left edge; the split into lines keeps the code's text and the token
spans' classes, also of a token that crosses lines (a docstring).
"""

import subprocess
import sys
from pathlib import Path

import pytest

from booktools import pdf_edition
from examples import need_browser

ROOT = Path(__file__).resolve().parents[1]
LONG = "        result = some_function(first_argument, second_argument, third_argument, fourth_argument, fifth)"
# Pygments' markup: one <pre>, token spans, a docstring span across two lines, an empty line.
CODE = (
    '<div class="highlight"><pre><span></span><span class="k">def</span> <span class="nf">f</span>():\n'
    '    <span class="sd">"""One line,\n    two lines."""</span>\n'
    "\n"
    f"{LONG}\n"
    "</pre></div>"
)
PAGE = (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>planted</title>'
    "<style>pre { font: 14px monospace; }</style></head>"
    f'<body><div style="width: 420px">{CODE}</div></body></html>'
)
# The x of the first non-space character of the long line, and of the start of its second visual line.
POSITIONS_JS = r"""() => {
  const pre = document.querySelector('pre');
  const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
  let node;
  while ((node = walker.nextNode()) && !node.textContent.includes('result')) {}
  const start = node.textContent.indexOf('result');
  const at = (i) => { const r = document.createRange(); r.setStart(node, i); r.setEnd(node, i + 1); return r.getBoundingClientRect(); };
  const first = at(start);
  let i = start;
  while (i < node.textContent.length - 1 && at(i).top === first.top) i++;
  return {first: first.left, continued: at(i).left, wrapped: at(i).top > first.top};
}"""


@pytest.fixture(scope="module")
def page():
    executable = need_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield browser.new_page()
        browser.close()


def _printed(page, split_lines: bool) -> dict:
    page.set_content(PAGE)
    page.add_style_tag(content=pdf_edition.PRINT_CSS)
    if split_lines:
        page.evaluate(pdf_edition.LINES_JS, pdf_edition.HANG)
    page.emulate_media(media="print")
    return page.evaluate(POSITIONS_JS)


def test_a_wrapped_line_hangs_right_of_its_own_indentation(page):
    plain = _printed(page, split_lines=False)
    assert plain["wrapped"] and plain["continued"] < plain["first"]  # the control: back to the left edge
    hanging = _printed(page, split_lines=True)
    assert hanging["wrapped"]
    char = page.evaluate(
        "() => { const s = document.createElement('span'); s.textContent = 'x'.repeat(10);"
        " document.querySelector('pre').append(s); const w = s.getBoundingClientRect().width / 10;"
        " s.remove(); return w; }"
    )
    # The continuation starts HANG characters right of the line's first character (half a character of slack).
    assert abs(hanging["continued"] - hanging["first"] - pdf_edition.HANG * char) < char / 2, (hanging, char)


def test_splitting_into_lines_keeps_the_text_and_the_tokens(page):
    page.set_content(PAGE)
    before = page.evaluate("() => document.querySelector('pre').textContent")
    page.evaluate(pdf_edition.LINES_JS, pdf_edition.HANG)
    lines = page.evaluate("() => [...document.querySelectorAll('pre > .print-line')].map((l) => l.textContent)")
    assert lines == [line or "\u00a0" for line in before.rstrip("\n").split("\n")]
    docstring = page.evaluate("() => [...document.querySelectorAll('pre .sd')].map((s) => s.textContent)")
    assert docstring == ['"""One line,', '    two lines."""']  # one token across two lines: a clone on each
    indents = page.evaluate("() => [...document.querySelectorAll('pre > .print-line')].map((l) => l.style.paddingLeft)")
    assert indents == [f"{n + pdf_edition.HANG}ch" for n in (0, 4, 4, 0, 8)]


def _two_page_site(tmp_path):
    site, toc = tmp_path / "html", tmp_path / "_toc.yml"
    (site / "book").mkdir(parents=True)
    for name, words in (("a", "Alpha page words"), ("b", "Beta page words")):
        (site / "book" / f"{name}.html").write_text(
            f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{name.upper()} — Book</title></head>'
            f"<body><h1>{name.upper()}</h1><p>{words}</p>{CODE}</body></html>",
            encoding="utf-8",
        )
    toc.write_text("format: jb-book\nroot: book/a\nchapters:\n- file: book/b\n")
    return site, toc


def test_leave_out_refuses_a_page_the_toc_does_not_have(page, tmp_path, capsys):
    site, toc = _two_page_site(tmp_path)
    assert pdf_edition.main(["--site", str(site), "--toc", str(toc), "--leave-out", "book/api"]) == 2
    err = capsys.readouterr().err
    assert "--leave-out book/api: not a page of" in err and err.rstrip().endswith("its pages are book/a, book/b")


def test_a_left_out_page_is_not_printed(page, tmp_path):
    pytest.importorskip("pypdf")
    from pypdf import PdfReader

    site, toc = _two_page_site(tmp_path)
    out = tmp_path / "book.pdf"
    # In a process of its own: the module's sync Playwright (the fixture) holds this one's event loop.
    command = ["--site", site, "--toc", toc, "--leave-out", "book/b", "--out", out]
    done = subprocess.run(
        [sys.executable, "-m", "booktools", "pdf", *map(str, command)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    text = "\n".join(p.extract_text() for p in PdfReader(out).pages)
    assert "Alpha page words" in text and "Beta page words" not in text
    assert [item.title for item in PdfReader(out).outline if not isinstance(item, list)] == ["A"]
