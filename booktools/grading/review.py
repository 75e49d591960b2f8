"""The review pages: one HTML page per written question with every answer under an anonymous code (issue 27).

Issue 35: students' maths reaches the page only through the TeX allow-list of
:mod:`booktools.grading.review_math` (and MathJax is configured to match), and a student without an
answer is shown with the reason their answer could not be read, if there is one.
"""

from __future__ import annotations

import html
import importlib.metadata
import importlib.util
import os
import site
import sysconfig
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path

from booktools.grading.codes import answer_of, check_codes
from booktools.grading.csvfile import read_csv, write_text
from booktools.grading.questions import Question, check_questions, fmt_points
from booktools.grading.review_math import TEX_FILES, math_html, mathjax_config
from booktools.grading.rubric import rubric_digest, rubric_marks, write_rubric_template

# -- the review pages --------------------------------------------------------------------------

#: The pages' Content-Security-Policy: no inline script, no plugin, no frame, no image, no network.
#: Chromium opens a file:// page with it and matches ``'self'`` to the page's file: URL scheme, so
#: the two scripts in mathjax/ (the configuration and MathJax) run; styles may be inline (the page's
#: own <style> and MathJax's generated SVG styles), nothing a student writes can be HTML anyway.
CSP = "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

_CSS = """
:root { color-scheme: light; --ink: #1d1d1f; --muted: #5f6368; --line: #d5d5d8; --card: #fff; --bg: #f3f3f1; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 120rem; padding: 1.25rem 2rem 3rem; background: var(--bg); color: var(--ink);
       font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
a { color: #1a5fb4; }
h1 { font-size: 1.6rem; margin: 0.4rem 0 0.2rem; }
nav, .meta { color: var(--muted); font-size: 0.92rem; }
table { border-collapse: collapse; }
.rubric { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 0.6rem 1rem;
          margin: 0.8rem 0 1.4rem; max-width: 60rem; }
.rubric table, .overview { width: 100%; }
.rubric th, .rubric td, .overview th, .overview td { text-align: left; padding: 0.25rem 0.6rem 0.25rem 0;
          border-bottom: 1px solid #ececee; vertical-align: top; }
.rubric td.pts, .rubric th.pts, .overview .num { text-align: right; white-space: nowrap; }
.rubric tfoot td { border-bottom: 0; font-weight: 600; }
code.id { font-size: 0.85em; color: var(--muted); }
dl.levels { display: grid; grid-template-columns: auto 1fr; gap: 0.1rem 0.6rem; margin: 0.3rem 0; font-size: 0.92rem; }
dl.levels dt { font-weight: 600; text-align: right; }
dl.levels dd { margin: 0; }
p.errors-head { margin: 0.2rem 0 0; font-size: 0.92rem; color: #8a4b00; }
ul.errors { margin: 0.1rem 0 0.3rem; padding-left: 1.2rem; font-size: 0.92rem; }
details.model { margin-top: 0.6rem; }
details.model summary { cursor: pointer; font-weight: 600; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 34rem), 1fr)); gap: 1rem;
         align-items: start; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 0.2rem 1.1rem 0.8rem;
        min-width: 0; overflow-wrap: anywhere; }
.card h2 { display: flex; justify-content: space-between; align-items: baseline; gap: 1rem; margin: 0 -1.1rem 0.4rem;
           padding: 0.45rem 1.1rem; border-bottom: 1px solid var(--line); font-size: 1.05rem;
           font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
.card h2 small { font-weight: normal; color: var(--muted); font-size: 0.75rem; }
.answer { overflow-x: auto; }
.answer > :first-child { margin-top: 0.3rem; }
.answer > :last-child { margin-bottom: 0; }
.answer h1, .answer h2, .answer h3, .answer h4 { font-size: 1.05rem; margin: 0.9rem 0 0.3rem; border: 0; padding: 0; }
.answer pre { background: #f6f6f8; padding: 0.5rem 0.7rem; border-radius: 4px; overflow-x: auto; }
.answer code { font-size: 0.9em; }
.answer table { display: block; overflow-x: auto; }
.answer td, .answer th { border: 1px solid var(--line); padding: 0.2rem 0.5rem; }
.answer blockquote { margin-left: 0; padding-left: 0.8rem; border-left: 3px solid var(--line); color: var(--muted); }
div.math, span.math.display { display: block; overflow-x: auto; overflow-y: hidden; max-width: 100%; }
code.tex-refused { background: #fff4e5; white-space: pre-wrap; }
.tex-refused-why { color: #8a4b00; }
.tex-refused-block { margin: 0.6rem 0; }
.problems { color: #8a4b00; font-size: 0.9rem; margin: 0.3rem 0; padding-left: 1.2rem; }
.missing { margin-top: 2rem; }
.missing h2 { font-size: 1.1rem; }
.missing ul { display: flex; flex-wrap: wrap; gap: 0.4rem 1.4rem; padding: 0; list-style: none;
              font-family: ui-monospace, Menlo, Consolas, monospace; }
.missing li.why { flex-basis: 100%; }
.missing li.why .reason { font-family: system-ui, sans-serif; color: #8a4b00; }
"""


def _markdown():
    """The renderer of answers: CommonMark with tables, no raw HTML, no images, $ and $$ maths.

    Every maths span goes through :func:`~booktools.grading.review_math.math_html` (issue 35): the
    TeX allow-list decides whether MathJax sees it or the marker sees it as text with the reason.
    """
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    def inline(self, tokens, idx, options, env) -> str:
        return math_html(tokens[idx].content.strip(), display=False)

    def display_in_paragraph(self, tokens, idx, options, env) -> str:  # a <div> cannot be inside a <p>
        return math_html(tokens[idx].content.strip(), display=True)

    def block(self, tokens, idx, options, env) -> str:
        return math_html(tokens[idx].content.strip(), display=True, block=True)

    # No labels: "$$x$$ (name)" would give an element the id the student chose. double_inline: a
    # "$$...$$" line right under a line of text (no blank line between) is display maths, as in Jupyter.
    # No links (issue 35): [text](url), <https://...> and reference links stay text, so no <a> of the page
    # comes from a student and a marker never follows one.
    md = MarkdownIt("commonmark", {"html": False}).enable("table").disable(["image", "link", "autolink", "reference"])
    md.use(dollarmath_plugin, allow_labels=False, double_inline=True)
    md.add_render_rule("math_inline", inline)
    md.add_render_rule("math_inline_double", display_in_paragraph)
    md.add_render_rule("math_block", block)
    md.add_render_rule("math_block_label", block)  # never made (no labels); were it, without the id
    return md


def _render(md, text: str) -> str:
    try:
        return md.render(text)
    except (RecursionError, ValueError, IndexError):  # never seen; a broken answer must not stop the review
        return f"<pre>{html.escape(text)}</pre>"


def _mathjax_source() -> Path | None:
    """The MathJax folder of the installed ``sphinx-mathjax-offline`` (a name Python cannot import)."""
    roots = []
    try:
        spec = importlib.util.find_spec("sphinx-mathjax-offline")
        roots += list(spec.submodule_search_locations or []) if spec else []
    except (ImportError, ValueError):
        pass
    try:
        roots.append(importlib.metadata.distribution("sphinx-mathjax-offline").locate_file("sphinx-mathjax-offline"))
    except importlib.metadata.PackageNotFoundError:
        pass
    roots += [
        Path(p) / "sphinx-mathjax-offline"
        for p in (sysconfig.get_paths()["purelib"], *getattr(site, "getsitepackages", list)())
    ]
    for root in roots:
        folder = Path(root) / "static" / "mathjax"
        if (folder / "tex-svg.js").is_file():
            return folder
    return None


def _install_mathjax(target: Path) -> bool:
    """Copy MathJax (SVG output), its ui/safe filter and the TeX extensions the allow-list needs into
    ``target``, and write its configuration ``config.js``; returns False if MathJax is not installed.

    Issue 27 made it; issue 35 narrowed the extensions to :data:`~booktools.grading.review_math.TEX_FILES`
    (no autoload, html, unicode, bbox, action, require) and moved the configuration to
    :func:`~booktools.grading.review_math.mathjax_config`.
    """
    source = _mathjax_source()
    has_safe = source is not None and (source / "ui" / "safe.js").is_file()
    extensions: tuple[str, ...] = ()
    if source is not None:
        names = ["tex-svg.js", *(["ui/safe.js"] if has_safe else [])]
        names += [f"input/tex/extensions/{name}.js" for name in TEX_FILES]
        for name in names:
            src, dst = source / name, target / name
            if not src.is_file():
                continue
            data = src.read_bytes()
            if dst.is_file() and dst.stat().st_size == len(data) and dst.read_bytes() == data:
                continue
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_bytes(data)
        present = {name for name in TEX_FILES if (target / f"input/tex/extensions/{name}.js").is_file()}
        # cancel needs enclose's file too; an extension whose file is missing is not loaded at all
        extensions = tuple(
            name
            for name in TEX_FILES
            if name in present and name != "enclose" and (name != "cancel" or "enclose" in present)
        )
    target.mkdir(parents=True, exist_ok=True)
    text = mathjax_config(extensions, safe=has_safe)
    if not (target / "config.js").is_file() or (target / "config.js").read_text(encoding="utf-8") != text:
        write_text(target / "config.js", text)
    return source is not None


def _page(title: str, body: str) -> str:
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n<style>{_CSS}</style>\n"
        '<script src="mathjax/config.js" defer></script>\n'
        '<script src="mathjax/tex-svg.js" defer></script>\n'
        f"</head>\n<body>\n{body}</body>\n</html>\n"
    )


def _descriptors(item) -> str:
    """An item's 0 / ½ / 1 descriptors and common errors, for the marker (issue 36); '' without them."""
    if not item.has_descriptors:
        return ""
    zero, half, full = (fmt_points(level) for level in item.levels)
    errors = "".join(f"<li>{html.escape(error)}</li>" for error in item.errors)
    return (
        '<dl class="levels">'
        f"<dt>{full}</dt><dd>{html.escape(item.full)}</dd>"
        f"<dt>{half}</dt><dd>{html.escape(item.half)}</dd>"
        f"<dt>{zero}</dt><dd>{html.escape(item.zero)}</dd></dl>"
        f'<p class="errors-head">Common errors to catch:</p><ul class="errors">{errors}</ul>'
    )


def _rubric_table(question: Question, md) -> str:
    """The rubric at the top of a question page: items, their descriptors and common errors, the
    total, and the model answer folded (the markers' page only: never shown to students)."""
    rows = "".join(
        f'<tr><td>{html.escape(item.text)} <code class="id">{html.escape(item.id)}</code>{_descriptors(item)}</td>'
        f'<td class="pts">{fmt_points(item.points)}</td></tr>\n'
        for item in question.items
    )
    model = (
        '<details class="model"><summary>Model answer (for the markers)</summary>\n'
        f'<div class="answer">\n{_render(md, question.model)}</div></details>\n'
        if question.model
        else ""
    )
    return (
        '<section class="rubric" aria-label="rubric"><table>\n'
        '<thead><tr><th>Rubric item</th><th class="pts">Points</th></tr></thead>\n'
        f"<tbody>\n{rows}</tbody>\n"
        f'<tfoot><tr><td>Total</td><td class="pts">{fmt_points(question.points)}</td></tr></tfoot>\n'
        f"</table>\n{model}</section>\n"
    )


def problems_for(problems: Sequence[str], question: Question, questions: Sequence[Question]) -> list[str]:
    """The problems of one submission that bear on one question (issue 35).

    Those that name the question (``'promotion'``) or name no question at all (the file could not
    be read, an answer cell for an unknown question, ...); not those about another question only.
    """
    others = [repr(q.id) for q in questions if q.id != question.id]
    own = repr(question.id)
    return [p for p in problems if own in p or not any(other in p for other in others)]


def _checked_problems(problems: object) -> dict[str, list[str]]:
    """``{student: [reason, ...]}`` from the caller's mapping, every reason a str (issue 35)."""
    if problems is None:
        return {}
    if not isinstance(problems, Mapping):
        raise TypeError(f"problems must be a mapping {{student: [reasons]}}, got {type(problems).__name__}")
    checked = {}
    for student, reasons in problems.items():
        if isinstance(reasons, str) or not isinstance(reasons, Sequence):
            raise TypeError(f"problems[{student!r}] must be a sequence of reasons, got {type(reasons).__name__}")
        checked[student] = [str(reason) for reason in reasons if str(reason).strip()]
    return checked


def _card(label: str, code: str, text: str, md, reasons: Sequence[str]) -> str:
    """One answer's card: its label, its digest, its problems (issue 35) and the rendered answer."""
    notes = "".join(f"<li>{html.escape(reason)}</li>" for reason in reasons)
    return (
        f'<article class="card" id="a-{html.escape(code)}">\n'
        f"<h2><span>{html.escape(label)}</span>"
        f'<small title="answer_sha in rubric.csv">{rubric_digest(text)}</small></h2>\n'
        + (f'<ul class="problems" aria-label="problems reading this answer">{notes}</ul>\n' if notes else "")
        + f'<div class="answer">\n{_render(md, text)}</div>\n</article>\n'
    )


def _missing(label: str, reasons: Sequence[str]) -> str:
    """A student without an answer, with the reasons their answer could not be read (issue 35)."""
    if not reasons:
        return f"<li>{html.escape(label)}</li>"
    why = "; ".join(reasons)
    return f'<li class="why">{html.escape(label)} — <span class="reason">No answer: {html.escape(why)}</span></li>'


def _question_body(heading: str, number: int, questions: Sequence[Question], cards: list, missing: list, md) -> str:
    """A question page's body: navigation, title, rubric, the answers' cards, the students without one."""
    question = questions[number - 1]
    counts = f"{len(cards)} answers, {len(missing)} without an answer"
    nav = ['<a href="index.html">All questions</a>']
    if number > 1:
        nav.append(f'<a href="{questions[number - 2].id}.html">previous</a>')
    if number < len(questions):
        nav.append(f'<a href="{questions[number].id}.html">next</a>')
    body = (
        f"<header>\n<nav>{html.escape(heading)} · {' · '.join(nav)}</nav>\n"
        f"<h1>{html.escape(question.title)}</h1>\n"
        f'<p class="meta">Question {number} of {len(questions)}, <code>{html.escape(question.id)}</code> · '
        f"{fmt_points(question.points)} points · {counts}</p>\n"
        f"{_rubric_table(question, md)}</header>\n"
        f'<main class="cards">\n{"".join(cards)}</main>\n'
    )
    if missing:
        body += (
            f'<section class="missing"><h2>No answer ({len(missing)}): 0 points</h2>\n'
            f"<ul>\n{''.join(missing)}\n</ul></section>\n"
        )
    return body


def _index_body(heading: str, students: int, overview: list, has_mathjax: bool) -> str:
    """The index page's body: one row per ``(question, answers, without an answer)`` of ``overview``."""
    rows = "".join(
        f'<tr><td><a href="{question.id}.html">{html.escape(question.title)}</a> '
        f'<code class="id">{html.escape(question.id)}</code></td>'
        f'<td class="num">{fmt_points(question.points)}</td><td class="num">{answered}</td>'
        f'<td class="num">{without}</td></tr>\n'
        for question, answered, without in overview
    )
    note = (
        ""
        if has_mathjax
        else "<p><strong>MathJax was not found</strong> (sphinx-mathjax-offline): maths is shown as TeX.</p>\n"
    )
    return (
        f"<header>\n<h1>{html.escape(heading)}</h1>\n"
        f'<p class="meta">{students} submissions · answers are shown under anonymous codes, in the order of the codes</p>\n'
        f"</header>\n{note}<main>\n"
        '<table class="overview">\n<thead><tr><th>Question</th><th class="num">Points</th>'
        '<th class="num">Answers</th><th class="num">No answer</th></tr></thead>\n'
        f"<tbody>\n{rows}</tbody>\n</table>\n"
        '<p>To mark: copy <a href="rubric.csv">rubric.csv</a>, fill in its <code>points</code> column '
        "(and <code>comment</code> if you like) question by question, with the question's page open, "
        "and merge the copy. This folder's rubric.csv is written again at each run, with its marks kept.</p>\n</main>\n"
    )


def write_review(
    review_dir: Path,
    questions: Sequence[Question],
    answers: Mapping[str, Mapping[str, str]],
    codes: Mapping[str, str],
    *,
    show_names: bool = False,
    title: str = "",
    problems: Mapping[str, Sequence[str]] | None = None,
) -> list[Path]:
    """Write the review pages: one HTML page per question with every student's answer to it.

    Part of issue 27 (written answers, graded by question): the lecturer marks one question
    across all students at a time, the rubric at the top of the page, in a copy of ``rubric.csv``.
    Issue 35: maths only through the TeX allow-list, and the reasons an answer could not be read.

    Parameters
    ----------
    review_dir : Path
        Created if needed. Gets ``index.html`` (the questions, with the number of answers and of
        students without one), ``<question id>.html`` per question, ``rubric.csv`` (the blank
        template of :func:`write_rubric_template`, written again at each run; a ``rubric.csv`` that
        has marks in it is first kept as ``rubric-<UTC time>.csv``), and ``mathjax/`` (MathJax 3's
        ``tex-svg.js`` from the installed ``sphinx-mathjax-offline``, its ``ui/safe`` filter, the
        TeX extensions the allow-list needs, and ``config.js``).
    questions : sequence of Question
    answers : mapping
        ``{student: {question id: answer Markdown}}`` for every student with a submission.
    codes : mapping
        ``{student: code}``, as :func:`assign_codes` returns.
    show_names : bool
        Label answers ``name (code)`` instead of the code alone.
    title : str
        The assignment's title, shown on the pages.
    problems : mapping, optional
        ``{student: [reason, ...]}``, what :func:`extract_answers` could not read (issue 35): a
        student without an answer is listed as ``No answer: <reasons>``, an answer's card shows
        those that concern it (:func:`problems_for`). Reasons must not name the student.

    Returns
    -------
    list of Path
        The question pages, in the order of ``questions``.

    Notes
    -----
    Answers are ordered by code, never by name or by submission. Everything a student wrote is
    escaped: Markdown without HTML, links or images; ``$...$`` and ``$$...$$`` whose TeX passes the
    allow-list become ``<span class="math">\\(...\\)</span>`` and ``<div class="math">\\[...\\]</div>``
    with the TeX escaped, the only places MathJax typesets; the others are text with the reason.
    """
    review_dir = Path(review_dir)
    questions = check_questions(questions)
    check_codes(answers, codes)
    reasons = _checked_problems(problems)
    review_dir.mkdir(parents=True, exist_ok=True)
    has_mathjax = _install_mathjax(review_dir / "mathjax")
    md = _markdown()
    students = sorted(answers, key=lambda student: codes[student])
    heading = f"{title} — written answers" if title else "Written answers"

    def label(student: str) -> str:
        return f"{student} ({codes[student]})" if show_names else codes[student]

    pages, overview = [], []
    for number, question in enumerate(questions, 1):
        cards, missing = [], []
        for student in students:
            text = answer_of(answers, student, question.id)
            why = problems_for(reasons.get(student, []), question, questions)
            if text:
                cards.append(_card(label(student), codes[student], text, md, why))
            else:
                missing.append(_missing(label(student), why))
        pages.append(review_dir / f"{question.id}.html")
        body = _question_body(heading, number, questions, cards, missing, md)
        write_text(pages[-1], _page(f"{question.title} — {heading}", body))
        overview.append((question, len(cards), len(missing)))
    write_text(review_dir / "index.html", _page(heading, _index_body(heading, len(students), overview, has_mathjax)))
    _renew_rubric(review_dir / "rubric.csv", questions, answers, codes)
    return pages


def _renew_rubric(rubric: Path, questions, answers, codes) -> None:
    """Write the rubric again for this run's answers, with the marks it holds kept (issue 35).

    A mark stays on its row while the answer it was given for is unchanged (``rubric_marks``); the
    file as it was is first kept as ``rubric-<UTC time>.csv`` when it has marks, so nothing a
    lecturer typed is ever lost.
    """
    keep = rubric_marks(rubric)
    if rubric.is_file() and _has_marks(rubric):
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
        os.replace(rubric, rubric.with_name(f"rubric-{stamp}.csv"))
    write_rubric_template(rubric, questions, answers, codes, keep=keep)


def _has_marks(rubric: Path) -> bool:
    """True if a rubric file has points or comments of the lecturer's in it (or cannot be read)."""
    try:
        header, rows = read_csv(rubric)
    except (OSError, ValueError):
        return True
    columns = [header.index(name) for name in ("points", "comment") if name in header]
    return any(i < len(cells) and cells[i] and cells[i] != "no answer" for _, cells in rows for i in columns)
