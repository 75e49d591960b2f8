"""The HTML page of ``python -m booktools similarity`` (issue 37): one self-contained file.

copydetect's own report (``copydetect/data/report.html``) loads Bootstrap's CSS and JavaScript from
a CDN, and draws its plots with matplotlib; this page has its style inline, no script, no image and
no URL, so it opens offline and makes no request. The matched regions are marked with copydetect's
``highlight_overlap`` (which escapes the code with markupsafe); every other text that comes from a
submission (names, student ids, reasons) is escaped here with :func:`html.escape`.
"""

from __future__ import annotations

import html
import warnings
from pathlib import Path

from copydetect.utils import highlight_overlap

from booktools.grading.csvfile import write_csv, write_text

MAX_SIDE_BY_SIDE = 50  # pairs shown with their code; the table lists more, the CSV every pair
CONTEXT_LINES = 6  # lines kept around each matched region (the rest is shown as "...")

_STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #bbb; padding: 0.2em 0.6em; text-align: left; }
tr.flagged td { background: #fde2e2; }
.pair { border-top: 2px solid #888; margin-top: 2em; }
.sides { display: flex; gap: 1em; }
.side { flex: 1; min-width: 0; }
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; font-size: 0.85em; white-space: pre; }
.hl-a { background: #f8b4b4; }
.hl-b { background: #b4e0b4; }
.note { color: #555; }
"""


def _e(value) -> str:
    return html.escape(str(value), quote=True)


def _label(document) -> str:
    if document.student is None:
        return f"<code>{_e(document.name)}</code> (onlinelib)"
    return f"<code>{_e(document.name)}</code> (student {_e(document.student)})"


def _marked(code: str, slices, css: str) -> str:
    """``code`` escaped, the matched regions in ``<span class=css>``, far-off lines left out."""
    if len(slices) == 0 or slices.shape[-1] == 0:
        return _e(code)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        marked, _ = highlight_overlap(
            code, slices, f"<span class='{css}'>", "</span>", truncate=CONTEXT_LINES, escape_html=True
        )
    return marked


def _table(pairs, limit: int) -> list[str]:
    lines = [
        "<table><tr><th>#</th><th>a</th><th>b</th><th>similarity a</th><th>similarity b</th>"
        "<th>matched</th><th>flagged</th></tr>"
    ]
    for number, pair in enumerate(pairs[:limit], 1):
        shown = number <= MAX_SIDE_BY_SIDE and pair.matched > 0
        anchor = f"<a href='#pair-{number}'>{number}</a>" if shown else str(number)
        lines.append(
            f"<tr class='{'flagged' if pair.flagged else ''}'><td>{anchor}</td><td>{_label(pair.a)}</td>"
            f"<td>{_label(pair.b)}</td><td>{pair.similarity_a:.2f}</td><td>{pair.similarity_b:.2f}</td>"
            f"<td>{pair.matched}</td><td>{'yes' if pair.flagged else ''}</td></tr>"
        )
    lines.append("</table>")
    if len(pairs) > limit:
        lines.append(f"<p class='note'>{len(pairs) - limit} more pairs, below these, are in similarity.csv.</p>")
    return lines


def _side_by_side(number: int, pair) -> list[str]:
    slices_a, slices_b = pair.slices
    return [
        f"<section class='pair' id='pair-{number}'><h3>{number}. {_label(pair.a)} and {_label(pair.b)}</h3>",
        f"<p>similarity {pair.similarity_a:.2f} and {pair.similarity_b:.2f}; {pair.matched} characters of "
        f"filtered code match{'; flagged' if pair.flagged else ''}.</p><div class='sides'>",
        f"<div class='side'><pre>{_marked(pair.a.code, slices_a, 'hl-a')}</pre></div>",
        f"<div class='side'><pre>{_marked(pair.b.code, slices_b, 'hl-b')}</pre></div>",
        "</div></section>",
    ]


def write_outputs(
    out: Path, assignment: str, threshold: float, min_matched: int, submissions, library, pairs
) -> tuple[Path, Path]:
    """Write ``similarity.csv`` (every pair, cells neutralised as the grader's) and ``similarity.html``
    into ``out`` (made if needed); return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    table = out / "similarity.csv"
    header = ["a", "student_a", "b", "student_b", "similarity_a", "similarity_b", "matched", "flagged"]
    rows = [
        [p.a.name, p.a.student, p.b.name, p.b.student or "", f"{p.similarity_a:.3f}", f"{p.similarity_b:.3f}"]
        + [p.matched, "yes" if p.flagged else "no"]
        for p in pairs
    ]
    write_csv(table, header, rows)
    page = out / "similarity.html"
    write_text(page, html_report(assignment, threshold, min_matched, submissions, library, pairs))
    return table, page


def html_report(assignment: str, threshold: float, min_matched: int, submissions, library, pairs, limit=200) -> str:
    """The report page: the summary, the pairs by similarity, the most similar ones' code side by side."""
    compared = [s for s in submissions if s.problem is None]
    flagged = [p for p in pairs if p.flagged]
    body = [
        f"<h1>Similarity of the submissions of {_e(assignment)}</h1>",
        f"<p>{len(compared)} submissions compared with each other and with {len(library)} files of onlinelib: "
        f"{len(pairs)} pairs, <strong>{len(flagged)} flagged</strong> (one side's similarity at least "
        f"{threshold:g} and at least {min_matched} characters of filtered code in common).</p>",
        "<p class='note'>The similarity of a side is the share of its code (identifiers, comments, strings and "
        "layout ignored; the hand-out's code left out) also found in the other. A flag is a reason to look at "
        "the two notebooks, not proof of copying.</p>",
    ]
    problems = [s for s in submissions if s.problem or s.note]
    if problems:
        body.append("<h2>Read with a problem</h2><ul>")
        body += [f"<li><code>{_e(s.name)}</code>: {_e(s.problem or s.note)}</li>" for s in problems]
        body.append("</ul>")
    body.append("<h2>Pairs, most similar first</h2>")
    body += _table(pairs, limit)
    if any(p.matched > 0 for p in pairs[:MAX_SIDE_BY_SIDE]):
        body.append("<h2>Matched regions side by side</h2>")
        for number, pair in enumerate(pairs[:MAX_SIDE_BY_SIDE], 1):
            if pair.matched > 0:
                body += _side_by_side(number, pair)
    library_list = ", ".join(f"<code>{_e(d.name)}</code>" for d in library)
    body.append(f"<p class='note'>onlinelib files compared: {library_list}.</p>")
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>Similarity: {_e(assignment)}</title><style>{_STYLE}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )
