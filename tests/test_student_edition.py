"""The student edition leaks no solution (issue 8).

``booktools/student_edition.py`` strips every solution and lecturer-only item from the sources
and builds the result. This file

* extracts every solution from the full-edition sources (``book/**/*.md``) with the tool's own
  parser, so the check cannot pass vacuously, and cuts each one into distinctive fragments:
  every line (or stretch of a line between roles such as ``{ref}`...```) that is at least
  ``MIN_CHARS`` characters long once reduced to lower-case words, and that does not also
  occur outside the solutions (such fragments are reported and skipped);
* searches EVERY file of the student build for them: the HTML pages, ``_sources``,
  ``searchindex.js`` (also word by word: no word found only in solutions may be a search
  term), the executed notebooks, the doctrees and any download. A fragment is matched on
  words only, so markup (HTML tags, Pygments spans, JSON escapes, ``$`` versus ``\\(``) cannot
  hide it;
* checks that every exercise is still there and that lecturer-only cells and files are gone.

The checks of the build are skipped until it exists; build it with
``python -m booktools student-edition`` (CI does, after the normal build). ``STUDENT_BUILD``
names another build (the directory given to ``--path-output``; default
``_build/student``), and ``STUDENT_SRC`` its stripped sources (default: ``student_src`` next
to it), which are searched too if present.
"""

from __future__ import annotations

import contextlib
import html
import importlib
import json
import os
import pickle
import re
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest
import yaml

from booktools import binder_chapters, student_repo
from booktools import student_edition as se
from booktools.solution_fences import fences
from booktools.toc import toc_entries

ROOT = Path(__file__).resolve().parents[1]

STUDENT_BUILD = Path(os.environ.get("STUDENT_BUILD", ROOT / "_build" / "student")).resolve()
STUDENT_SRC = Path(os.environ.get("STUDENT_SRC", STUDENT_BUILD.parent / "student_src")).resolve()
HTML = STUDENT_BUILD / "_build" / "html"
MIN_CHARS = 25
BINARY = {
    ".png",
    ".jpg",
    ".jpeg",
    ".gif",
    ".ico",
    ".webp",
    ".woff",
    ".woff2",
    ".ttf",
    ".eot",
    ".otf",
    ".pdf",
    ".zip",
    ".gz",
    ".bz2",
    ".xz",
    ".mo",
    ".db",
    ".sqlite",
}

built = pytest.mark.skipif(
    not (HTML / "index.html").exists(),
    reason=f"the student edition has not been built ({HTML} is missing): run "
    "`python -m booktools student-edition`, or set STUDENT_BUILD to its --path-output",
)


# --------------------------------------------------------------------------------------------
# Normalisation and fragments


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def norm(text: str) -> str:
    """Lower-case words separated by single spaces: markup, punctuation and layout vanish."""
    return " ".join(words(text))


_ROLE = re.compile(r"\{[\w:.-]+\}`[^`]*`")  # {ref}`x`, {cite}`x`, {prf:ref}`x`: rendered otherwise
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")  # [text](target) shows only the text
_SKIP_LINE = re.compile(r"^\s*(`{3,}|~{3,}|:{3,}|\+\+\+|---\s*$|:[\w-]+:)")


def fragments(body: str) -> list[str]:
    """The distinctive pieces of a block of MyST text, normalised, at least MIN_CHARS long."""
    found = []
    for line in body.splitlines():
        if _SKIP_LINE.match(line):
            continue
        for piece in _ROLE.split(_LINK.sub(r"\1", line)):
            n = norm(piece)
            if len(n) >= MIN_CHARS and n not in found:
                found.append(n)
    return found


def _contains(haystack: str, needle: str) -> bool:
    return f" {needle} " in f" {haystack} "


# --------------------------------------------------------------------------------------------
# The full edition's sources


def _source_files() -> list[Path]:
    return sorted(
        p for p in (ROOT / "book").rglob("*.md") if not any(part in se.SKIP_NAMES for part in p.relative_to(ROOT).parts)
    )


def _lecturer_files() -> list[Path]:
    """Files of the full edition meant for lecturers only (e.g. hidden tests), of any kind."""
    return sorted(
        p
        for p in (ROOT / "book").rglob("*")
        if p.is_file()
        and p.suffix.lower() not in BINARY
        and se.is_lecturer_path(p.relative_to(ROOT))
        and not any(part in se.SKIP_NAMES for part in p.relative_to(ROOT).parts)
    )


def rubric_secrets() -> list[tuple[str, str, str, str]]:
    """(label, file, "rubric", body) of every rubric descriptor, common error and model answer of
    the assignments' written questions (issue 36): lecturer-only, so never in a student's hands.

    The hidden file holds them inside Python strings, where its lines (as a lecturer file) give
    fragments with the quotes and keys around them; here each is its own text."""
    from booktools.grading.hidden import load_hidden
    from booktools.grading.questions import questions_from_hidden

    out = []
    for path in sorted((ROOT / "book" / "assignments" / "lecturer").glob("*_hidden.py")):
        rel = str(path.relative_to(ROOT))
        for question in questions_from_hidden(getattr(load_hidden(path), "QUESTIONS", [])):
            if question.model:
                out.append((f"model answer {question.id}", rel, "rubric", question.model))
            for item in question.items:
                for level in ("full", "half", "zero") if item.has_descriptors else ():
                    out.append((f"{level} descriptor {question.id}/{item.id}", rel, "rubric", getattr(item, level)))
                out += [(f"common error {question.id}/{item.id}", rel, "rubric", error) for error in item.errors]
    return out


@cache
def secrets() -> tuple:
    """(label, file, kind, body) of every solution, lecturer-only block, lecturer file and rubric text."""
    out = rubric_secrets()
    for path in _lecturer_files():
        rel = path.relative_to(ROOT)
        out.append(
            ("lecturer-only file", str(rel), "lecturer-file", path.read_text(encoding="utf-8", errors="replace"))
        )
    for path in _source_files():
        rel = path.relative_to(ROOT)
        text = path.read_text(encoding="utf-8")
        for r in se.find_removals(text):
            out.append((r.label or f"line {r.start}", str(rel), r.kind, r.body))
    return tuple(out)


@cache
def public_text() -> str:
    """Normalised text of everything in the full edition that is not a solution."""
    parts = []
    for path in _source_files():
        if not se.is_lecturer_path(path.relative_to(ROOT)):
            parts.append(se.strip_solutions(path.read_text(encoding="utf-8"))[0])
    # The library (its source and the full names of its parts, as the API page shows them) and
    # the public-check data are in every student's hands by design: a lecturer file that
    # names a library function or a check title reveals nothing.
    public_data = [p for p in (ROOT / "book").rglob("*.json") if not se.is_lecturer_path(p.relative_to(ROOT))]
    for extra in [
        *(ROOT / "book").rglob("*.bib"),
        ROOT / "_config.yml",
        ROOT / "_toc.yml",
        *sorted((ROOT / "onlinelib").rglob("*.py")),
        *sorted(public_data),
    ]:
        parts.append(extra.read_text(encoding="utf-8"))
    parts.append(" ".join(_library_names()))
    # a space on both sides of every part, so that a fragment ending one part is still found
    return " \n ".join(norm(p) for p in parts)


def _library_names() -> list[str]:
    import pkgutil

    import onlinelib

    names = []
    # every module, those of the subpackages too (a FORBIDDEN line names onlinelib.chapters.directed_drift.X)
    for info in pkgutil.walk_packages(onlinelib.__path__, "onlinelib."):
        module = importlib.import_module(info.name)
        names += [f"{info.name}.{name}" for name in vars(module)] + ["\n"]
    return names


@cache
def fragment_table() -> tuple[dict, list]:
    """{fragment: [(label, file)]} of distinctive fragments, and the skipped (fragment, label)."""
    table, skipped = {}, []
    public = public_text()
    for label, file, _kind, body in secrets():
        for frag in fragments(body):
            if _contains(public, frag):
                skipped.append((frag, label))
            else:
                table.setdefault(frag, []).append((label, file))
    return table, skipped


# --------------------------------------------------------------------------------------------
# Reading any file of the build as text


def _json_strings(value, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            out.append(str(k))
            _json_strings(v, out)
    elif isinstance(value, list):
        for v in value:
            _json_strings(v, out)


def _untag(text: str) -> str:
    return html.unescape(re.sub(r"<[^>]*>", " ", text))


def views(path: Path) -> list[str]:
    """Normalised readings of a file: as is, without HTML tags, its JSON strings, its doctree text."""
    raw = path.read_bytes().decode("utf-8", errors="replace")
    texts = [raw, _untag(raw)]
    body = raw
    if path.name.startswith("searchindex") and path.suffix == ".js":
        body = raw[raw.find("(") + 1 : raw.rfind(")")]
    if path.suffix in (".ipynb", ".json") or path.name.startswith("searchindex"):
        try:
            strings: list[str] = []
            _json_strings(json.loads(body), strings)
            joined = "\n".join(strings)
            texts += [joined, _untag(joined)]
        except ValueError:
            pass
    if path.suffix == ".doctree":
        with contextlib.suppress(Exception):  # a doctree we cannot load is still read as bytes
            texts.append(pickle.loads(path.read_bytes()).astext())
    return [norm(t) for t in texts]


def artifact_files() -> list[Path]:
    roots = [STUDENT_BUILD] + ([STUDENT_SRC] if STUDENT_SRC.exists() else [])
    return sorted(p for r in roots for p in r.rglob("*") if p.is_file() and p.suffix.lower() not in BINARY)


def find_leaks(files: list[Path], table: dict) -> list[str]:
    """One message per (file, fragment) found, naming the solution it comes from."""
    frags = [(frag, frozenset(frag.split())) for frag in table]
    leaks = []
    for path in files:
        hits = set()
        for view in dict.fromkeys(views(path)):  # distinct readings, in order
            vocabulary = set(view.split())
            padded = f" {view} "
            hits |= {frag for frag, need in frags if frag not in hits and need <= vocabulary and f" {frag} " in padded}
        for frag in sorted(hits):
            owners = ", ".join(f"{label} ({file})" for label, file in table[frag])
            leaks.append(f"{path}: '{frag}' from {owners}")
    return leaks


# --------------------------------------------------------------------------------------------
# Unit tests of the stripper (no build needed)

SYNTHETIC = """\
# A chapter

```{exercise} First
:label: ex-one

Show that $1 + 1 = 2$.
```

````{solution-start} ex-one
:class: dropdown
````

SECRET ONE: count on your fingers.

```{code-cell} ipython3
# SECRET TWO: a code cell inside the solution
print("```")
```

````{solution-end}
````

Text between the exercises stays.

```{code-cell} ipython3
:tags: [lecturer-only]
SECRET THREE = "grading script"
```

```{code-cell} ipython3
:tags: [hide-input]
visible = "a cell with another tag stays"
```

`````{exercise} Second
:label: ex-two

An exercise with a code sample inside:

````python
```{solution-start} not-a-directive
````
`````

```{solution} ex-two
:class: dropdown
SECRET FOUR: a plain solution.
```

````{solution-start} ex-two
:class: dropdown
````
SECRET FIVE, the last solution, at the end of the file.
```python
```{solution-end}
```
````{solution-end}
````
"""


def test_strip_solutions_on_a_synthetic_chapter():
    stripped, bodies = se.strip_solutions(SYNTHETIC)
    assert "SECRET" not in stripped, stripped
    assert len(bodies) == 4
    assert "SECRET ONE" in bodies[0] and "SECRET TWO" in bodies[0] and 'print("```")' in bodies[0]
    assert "SECRET THREE" in bodies[1]
    assert "SECRET FOUR" in bodies[2]
    assert "SECRET FIVE" in bodies[3] and "```{solution-end}\n```" in bodies[3]
    for kept in (
        "# A chapter",
        "Show that $1 + 1 = 2$.",
        "Text between the exercises stays.",
        "a cell with another tag stays",
        "An exercise with a code sample inside:",
        "```{solution-start} not-a-directive",
    ):
        assert kept in stripped, kept
    assert stripped.count("{exercise}") == 2
    assert not stripped.endswith("\n\n\n")
    kinds = [r.kind for r in se.find_removals(SYNTHETIC)]
    assert kinds == ["gated-solution", "lecturer-only", "solution", "gated-solution"]


def test_lecturer_only_markdown_cells_directives_and_files():
    text = (
        '+++ {"tags": ["lecturer-only"]}\n\nSECRET marking notes\n\n'
        "```{code-cell} ipython3\nx = 1\n```\n\n+++\n\n"
        ":::{note}\n:class: lecturer-only\nSECRET aside\n:::\n\nkept\n"
    )
    stripped, bodies = se.strip_solutions(text)
    assert "SECRET" not in stripped and "x = 1" in stripped and "kept" in stripped
    assert len(bodies) == 2
    assert se.is_lecturer_path(Path("book/assignments/a1/lecturer/key.md"))
    assert se.is_lecturer_path(Path("book/assignments/a1_lecturer.md"))
    assert not se.is_lecturer_path(Path("book/assignments/a1/student.md"))


def test_unmatched_solution_markers_are_errors():
    with pytest.raises(se.SolutionSyntaxError):
        se.strip_solutions("````{solution-start} x\n````\nno end\n")
    with pytest.raises(se.SolutionSyntaxError):
        se.strip_solutions("````{solution-end}\n````\n")


def test_strip_notebook_drops_solution_cells():
    nb = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": "exercise text"},
            {"cell_type": "markdown", "metadata": {}, "source": "````{solution-start} e\n````\nSECRET a"},
            {"cell_type": "code", "metadata": {}, "source": "SECRET = 1", "outputs": []},
            {"cell_type": "markdown", "metadata": {}, "source": "SECRET b\n````{solution-end}\n````\nafter"},
            {"cell_type": "code", "metadata": {"tags": ["lecturer-only"]}, "source": "SECRET c"},
        ]
    }
    out, _ = se.strip_notebook(nb)
    assert [c["source"] for c in out["cells"]] == ["exercise text", "after"]


def test_stripping_the_real_chapters_keeps_every_exercise():
    n_solutions = 0
    for path in _source_files():
        text = path.read_text(encoding="utf-8")
        stripped, bodies = se.strip_solutions(text)
        n_solutions += len(bodies)
        assert "solution-start" not in stripped and "solution-end" not in stripped, path
        assert not re.search(r"^\s*(`{3,}|:{3,})\{solution\}", stripped, flags=re.MULTILINE), path
        for directive in ("{exercise}", "{exercise-start}", "{exercise-end}"):
            assert stripped.count(directive) == text.count(directive), (path, directive)
    assert n_solutions > 0


def test_every_solution_is_found_in_the_sources():
    gated = [s for s in secrets() if s[2] == "gated-solution"]
    starts = sum(
        len(re.findall(r"^\s*(`{3,}|:{3,})\{solution-start\}", p.read_text(encoding="utf-8"), flags=re.MULTILINE))
        for p in _source_files()
    )
    assert len(gated) > 0, "no solution found: the leak test would pass vacuously"
    assert len(gated) == starts
    table, skipped = fragment_table()
    labels_with_fragments = {label for owners in table.values() for label, _ in owners}
    missing = sorted({s[0] for s in secrets() if "solution" in s[2]} - labels_with_fragments)
    assert not missing, (
        f"solutions the leak test cannot see: {missing}. Each needs a line of "
        f"{MIN_CHARS}+ characters (in lower-case words) found nowhere else in the book"
    )
    n_solutions = sum("solution" in s[2] for s in secrets())
    print(
        f"{n_solutions} solutions and {len(secrets()) - n_solutions} lecturer-only items, "
        f"{len(table)} distinctive fragments, {len(skipped)} shared "
        f"with the public text and skipped: {skipped}"
    )


def test_every_model_answer_and_rubric_descriptor_is_seen_by_the_leak_test():
    """Issue 36: a model answer, a 0 / ½ / 1 descriptor or a common error that left no distinctive
    fragment would pass the leak scan unseen; each must leave one (a line of 25+ characters in
    lower-case words found nowhere in the public text)."""
    rubric = rubric_secrets()
    assert sum(kind == "rubric" and label.startswith("model") for label, _, kind, _ in rubric) >= 2, rubric[:3]
    table, _ = fragment_table()
    seen = {(label, file) for owners in table.values() for label, file in owners}
    unseen = sorted(f"{file}: {label}" for label, file, _, _ in rubric if (label, file) not in seen)
    assert not unseen, "rubric texts the leak test cannot see (make each specific): " + "; ".join(unseen)


def test_the_leak_scanner_sees_a_planted_solution(tmp_path):
    """A solution line hidden in HTML markup and in notebook JSON is still found."""
    table, _ = fragment_table()
    label, _file, _kind, body = next(s for s in secrets() if fragments(s[3]))
    line = next(x for x in body.splitlines() if norm(x) in table)
    page = tmp_path / "page.html"
    page.write_text(
        "<p>"
        + "".join(f'<span class="n">{html.escape(ch)}</span>' if ch == " " else html.escape(ch) for ch in line)
        + "</p>",
        encoding="utf-8",
    )
    nb = tmp_path / "page.ipynb"
    nb.write_text(json.dumps({"cells": [{"source": [line + "\n"]}]}), encoding="utf-8")
    clean = tmp_path / "clean.html"
    clean.write_text("<p>nothing to see</p>", encoding="utf-8")
    leaks = find_leaks([page, nb, clean], table)
    assert len(leaks) == 2 and all(label in leak for leak in leaks), leaks


# --------------------------------------------------------------------------------------------
# The student build


@built
def test_no_solution_text_in_any_file_of_the_student_build():
    table, _ = fragment_table()
    files = artifact_files()
    assert any(p.suffix == ".ipynb" for p in files), "no executed notebook found in the build"
    assert any(p.name == "searchindex.js" for p in files)
    leaks = find_leaks(files, table)
    assert not leaks, f"{len(leaks)} fragments of solutions or lecturer material leaked:\n" + "\n".join(leaks[:100])


@built
@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext (poppler-utils) is not installed")
def test_no_solution_text_in_the_student_pdf(tmp_path):
    """Issue 37: the student PDF (``make student-pdf``) is published beside the site; its text is
    scanned as the site's files are. Skipped until it is printed."""
    pdf = HTML / "online-learning.pdf"
    if not pdf.exists():
        pytest.skip(f"the student PDF has not been printed ({pdf}): run `python -m booktools pdf --student`")
    text = tmp_path / "student-pdf.txt"
    subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), str(text)], check=True, timeout=300)
    assert "Student edition" in text.read_text(encoding="utf-8")[:3000]
    table, _ = fragment_table()
    leaks = find_leaks([text], table)
    assert not leaks, "\n".join(leaks[:50])


@built
def test_no_solution_only_word_is_a_search_term():
    from sphinx.search.en import SearchEnglish

    lang = SearchEnglish({})
    stem = cache(lang.stem)

    def terms(text: str, distinctive: bool = False) -> set[str]:
        found = set()
        for word in lang.split(text):
            if not distinctive or (len(word) > 3 and not any(c.isdigit() for c in word)):
                found |= {word.lower(), stem(word).lower()}
        return found

    public = set()
    for path in _source_files():
        if not se.is_lecturer_path(path.relative_to(ROOT)):
            public |= terms(se.strip_solutions(path.read_text(encoding="utf-8"))[0])
    for extra in (ROOT / "book").rglob("*.bib"):
        public |= terms(extra.read_text(encoding="utf-8"))
    # The API reference (book/api.md) renders onlinelib's docstrings: the package is public too.
    for module in (ROOT / "onlinelib").rglob("*.py"):  # subpackages too (learning_curves/, chapters/)
        public |= terms(module.read_text(encoding="utf-8"))
    # Text the student build itself prints (outputs of the cells it keeps) is public too.
    for nb in (STUDENT_BUILD / "_build" / "jupyter_execute").rglob("*.ipynb"):
        for cell in json.loads(nb.read_text(encoding="utf-8")).get("cells", []):
            strings: list[str] = []
            _json_strings(cell.get("outputs", []), strings)
            public |= terms("\n".join(strings))
    raw = (HTML / "searchindex.js").read_text(encoding="utf-8")
    index = json.loads(raw[raw.find("(") + 1 : raw.rfind(")")])
    # The names of the edition's pages are public (the build-status page lists them, e.g.
    # book/assignments/perceptron_margin), whatever else uses the same words.
    for docname in index.get("docnames", []):
        public |= terms(docname.replace("/", " "))
    secret = {}
    for label, _file, _kind, body in secrets():
        for term in terms(body, distinctive=True) - public:
            secret.setdefault(term, []).append(label)
    indexed = set(index.get("terms", {})) | set(index.get("titleterms", {}))
    leaked = sorted(t for t in secret if t in indexed)
    assert secret, "no word is found only in solutions: this check would pass vacuously"
    assert not leaked, "search terms found only in solutions: " + ", ".join(
        f"{t} ({', '.join(sorted(set(secret[t])))})" for t in leaked
    )


@built
def test_every_exercise_is_in_the_student_edition():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    in_toc = {se._no_suffix(f) for f in toc_entries(toc)}
    checked, problems = 0, []
    for path in _source_files():
        rel = path.relative_to(ROOT)
        if se.is_lecturer_path(rel) or se._no_suffix(str(rel)) not in in_toc:
            continue
        labels, count = [], 0
        for f in fences(path.read_text(encoding="utf-8")):
            if f.name in ("exercise", "exercise-start"):
                count += 1
                if f.options.get("label"):
                    labels.append(str(f.options["label"]))
        if not count:
            continue
        page = HTML / rel.with_suffix(".html")
        if not page.exists():
            problems.append(f"{page} is missing")
            continue
        text = page.read_text(encoding="utf-8")
        rendered = len(re.findall(r'class="exercise[^"]*admonition', text))
        if rendered != count:
            problems.append(f"{page}: {rendered} exercises rendered, {count} in {rel}")
        problems += [f"{page}: exercise {label} is missing" for label in labels if f'id="{label}"' not in text]
        if 'class="solution' in text:
            problems.append(f"{page}: a solution admonition is rendered")
        checked += count
    assert checked > 0
    assert not problems, "\n".join(problems)


def _texts_of(path: Path) -> list[str]:
    """A text file as is, or a notebook's cell sources."""
    if path.suffix != ".ipynb":
        return [path.read_text(encoding="utf-8", errors="replace")]
    cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
    return ["".join(c.get("source", "")) for c in cells]


@built
def test_no_lecturer_only_cell_or_file_in_the_student_edition():
    problems = []
    for path in artifact_files():
        rel = path.relative_to(STUDENT_BUILD if STUDENT_BUILD in path.parents else STUDENT_SRC)
        if se.is_lecturer_path(rel):
            problems.append(f"{path}: a lecturer file")
        if path.suffix == ".html" and "tag_lecturer-only" in path.read_text(encoding="utf-8"):
            problems.append(f"{path}: a cell tagged lecturer-only")
        if path.suffix == ".ipynb":
            for cell in json.loads(path.read_text(encoding="utf-8")).get("cells", []):
                if se.LECTURER_TAG in (cell.get("metadata", {}).get("tags") or []):
                    problems.append(f"{path}: a cell tagged lecturer-only")
        if path.suffix in (".md", ".txt", ".ipynb") and any(se._DIRECTIVE_LINE.search(v) for v in _texts_of(path)):
            problems.append(f"{path}: a solution directive")
    assert not problems, "\n".join(problems)


@built
def test_every_student_chapter_offers_a_downloadable_notebook():
    """The download menu's ``.ipynb`` exists for every chapter, so the leak scan above covers it.

    binder_chapters.chapters(): the TOC's notebooks, by the rule nbval uses."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    left_out = set(se.student_settings(config)["leave_out"])  # pages only lecturers need (student.leave_out)
    assert "book/status" in left_out
    pages = [
        se._no_suffix(f)
        for f in binder_chapters.chapters()
        if not se.is_lecturer_path(Path(f)) and se._no_suffix(f) not in left_out
    ]
    assert len(pages) >= 14, pages
    missing = []
    for page in pages:
        ipynb = HTML / "_sources" / f"{page}.ipynb"
        html = (HTML / f"{page}.html").read_text(encoding="utf-8")
        if not ipynb.is_file() or f"_sources/{page}.ipynb" not in html:
            missing.append(page)
        elif "{solution-start}" in ipynb.read_text(encoding="utf-8"):
            missing.append(f"{page} (its notebook has a gated solution)")
    assert not missing, f"no student download for: {missing}"


def test_the_student_edition_can_launch_its_own_repository(tmp_path):
    """``--repository-url`` points the copy's launch buttons elsewhere; the book's own config is untouched."""
    before = (ROOT / "_config.yml").read_text(encoding="utf-8")
    assert (
        se.main(
            [
                "--no-build",
                "--src-out",
                str(tmp_path / "src"),
                "--repository-url",
                "https://github.com/course/online-learning-student",
            ]
        )
        == 0
    )
    config = yaml.safe_load((tmp_path / "src" / "_config.yml").read_text(encoding="utf-8"))
    assert config["repository"]["url"] == "https://github.com/course/online-learning-student"
    assert config["launch_buttons"]["binderhub_url"] == "https://mybinder.org"
    assert (ROOT / "_config.yml").read_text(encoding="utf-8") == before


FULL_URL = "https://github.com/course/online-learning"  # the lecturer's repository: solutions, hidden tests
STUDENT_URL = "https://github.com/course/online-learning-student"


def _book_copy(tmp_path: Path, student_url: str) -> Path:
    """The book's sources in ``tmp_path/root`` with the full repository's URL set, as a lecturer's is."""
    root = tmp_path / "root"
    for name in ("book", "_ext"):
        shutil.copytree(ROOT / name, root / name, ignore=shutil.ignore_patterns("__pycache__", "*.ipynb"))
    shutil.copy2(ROOT / "_toc.yml", root / "_toc.yml")
    for name in student_repo.EXTRA:
        if (ROOT / name).is_file():
            shutil.copy2(ROOT / name, root / name)
        elif (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, root / name, ignore=shutil.ignore_patterns("__pycache__"))
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    config["repository"]["url"] = FULL_URL
    config["student"]["repository"]["url"] = student_url
    (root / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return root


def _text_files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and ".git" not in p.relative_to(folder).parts]


def test_the_student_repository_holds_no_solution_and_no_lecturer_file(tmp_path):
    """Issue 37: ``--repo DIR`` writes the repository students clone and Binder runs. The leak scan
    of the student site runs on it; no hidden test, rubric or lecturer page is in it."""
    src, repo = tmp_path / "src", tmp_path / "student-repo"
    assert se.main(["--no-build", "--src-out", str(src), "--repo", str(repo)]) == 0
    files = _text_files(repo)
    rel = [p.relative_to(repo) for p in files]
    assert {Path("README.md"), Path("pyproject.toml"), Path("binder/requirements.txt")} <= set(rel)
    assert any(p.parts[0] == "onlinelib" for p in rel) and any(p.parts[:2] == ("book", "assignments") for p in rel)
    assert not [p for p in rel if se.is_lecturer_path(p) or p.name.endswith("_hidden.py")]
    assert not [p for p in rel if p.parts[0] in ("tests", "booktools", "docs", ".github")]
    table, _ = fragment_table()
    leaks = find_leaks([p for p in files if p.suffix.lower() not in BINARY], table)
    assert not leaks, "\n".join(leaks[:50])
    log = subprocess.run(["git", "log", "--oneline"], cwd=repo, capture_output=True, text=True, check=True)
    assert len(log.stdout.splitlines()) == 1
    assert se.main(["--no-build", "--src-out", str(src), "--repo", str(repo)]) == 0  # a refresh, nothing new
    log = subprocess.run(["git", "log", "--oneline"], cwd=repo, capture_output=True, text=True, check=True)
    assert len(log.stdout.splitlines()) == 1


def test_no_student_link_reaches_the_full_repository(tmp_path):
    """Issue 37: with the full repository's URL set, nothing the student edition is made from names it.

    Every Binder, Live Code, download and clone link of the site comes from ``repository.url``
    (``_ext/notebook_links.py``), which the student copy takes from ``student.repository.url`` alone."""
    root = _book_copy(tmp_path, STUDENT_URL)
    src, repo = tmp_path / "src", tmp_path / "repo"
    assert se.main(["--root", str(root), "--no-build", "--src-out", str(src), "--repo", str(repo)]) == 0
    for folder in (src, repo):
        config = yaml.safe_load((folder / "_config.yml").read_text(encoding="utf-8"))
        assert config["repository"]["url"] == STUDENT_URL
        naming = [
            p for p in _text_files(folder) if FULL_URL.encode() in p.read_bytes().replace(STUDENT_URL.encode(), b"")
        ]
        assert not naming, f"files of the student edition naming the full repository: {naming}"


def test_the_student_edition_never_falls_back_to_the_full_repository(tmp_path, capsys):
    root = _book_copy(tmp_path, "")
    assert se.main(["--root", str(root), "--no-build", "--src-out", str(tmp_path / "src")]) == 0
    config = yaml.safe_load((tmp_path / "src" / "_config.yml").read_text(encoding="utf-8"))
    assert config["repository"]["url"] == ""  # no launch links at all, not the full repository's
    assert "no Binder, Live Code or clone links" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="full repository's"):
        se.main(["--root", str(root), "--no-build", "--src-out", str(tmp_path / "s2"), "--repository-url", FULL_URL])
    inside = root / "book" / "repo"
    with pytest.raises(SystemExit, match="outside the full repository"):
        se.main(["--root", str(root), "--no-build", "--src-out", str(tmp_path / "s3"), "--repo", str(inside)])


@built
def test_no_link_of_the_built_student_site_names_the_full_repository():
    """Every link to GitHub, GitLab or Binder in the student site names the student repository
    (``repository.url`` of its stripped sources), never the full repository's ``repository.url``."""
    full = str((yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8")).get("repository") or {}).get("url"))
    student = ""
    if (STUDENT_SRC / "_config.yml").exists():
        student = yaml.safe_load((STUDENT_SRC / "_config.yml").read_text(encoding="utf-8"))["repository"]["url"] or ""
    bad = []
    for page in HTML.rglob("*.html"):
        for href in re.findall(r'href="([^"]+)"', page.read_text(encoding="utf-8")):
            if full and full.rstrip("/") in href:
                bad.append((page.name, href))
            elif re.search(r"//(github\.com|gitlab\.com|mybinder\.org)/", href) and not (
                student and student.rstrip("/").split("//", 1)[1] in href
            ):
                bad.append((page.name, href))
    assert not bad, bad[:20]


@pytest.mark.parametrize(
    "reference",
    ["see the {ref}`guide-top`", "see [the guide](guide_for_lecturers.md)", "see {doc}`guide_for_lecturers`"],
)
def test_a_reference_to_a_left_out_lecturer_page_is_an_error(tmp_path, reference):
    """A student page that points into a left-out file would be a broken link (or a -W failure)."""
    root = tmp_path / "book_root"
    (root / "book").mkdir(parents=True)
    (root / "_config.yml").write_text("title: t\n")
    (root / "_toc.yml").write_text("format: jb-book\nroot: book/intro\nchapters:\n  - file: book/guide_for_lecturers\n")
    (root / "book" / "intro.md").write_text(f"# Intro\n\nLecturers: {reference}.\n")
    (root / "book" / "guide_for_lecturers.md").write_text("(guide-top)=\n# Guide\n")
    with pytest.raises(SystemExit, match="guide"):
        se.make_student_sources(root, tmp_path / "out", [])
    (root / "book" / "intro.md").write_text("# Intro\n\nNo reference.\n")
    summary = se.make_student_sources(root, tmp_path / "out2", [])
    assert summary["left out"] == ["book/guide_for_lecturers.md"]


@built
def test_the_student_intro_links_only_its_own_pdf():
    """Issue 37: the intro's PDF box is in the student edition too and links the PDF beside it, the
    student edition's (``make student-pdf``, no solutions); without that PDF the box is hidden, and
    a reader sees no build note."""
    html = (HTML / "book" / "intro.html").read_text(encoding="utf-8")
    visible = re.sub(r"<!--.*?-->", "", html, flags=re.DOTALL)
    assert "make pdf" not in visible and "not made for this build" not in visible
    if (HTML / "online-learning.pdf").exists():
        assert 'href="../online-learning.pdf"' in visible
    else:
        assert "online-learning.pdf" not in visible and "<!--pdf-edition <div" in html


@built
def test_reused_chapters_show_exactly_the_full_builds_outputs():
    """Issue 28: the student build takes its chapters' outputs from the full build (``make book``).

    Every chapter keeps its code up to its solutions, so every chapter is reused after a fresh full
    build, as in CI; a reused page shows the same cell outputs as the full page, in order, up to
    the end of the code it keeps (a prefix: the solutions' outputs come after), e.g. no stream
    printed twice and no figure lost in the reuse.
    """
    from bs4 import BeautifulSoup
    from jupyter_cache import get_cache

    full_html = ROOT / "_build" / "html"
    cache = STUDENT_BUILD / se.CACHE_NAME
    if not cache.is_dir() or not (full_html / "index.html").exists():
        pytest.skip("needs the full build and a student build that reused it (not --execute-all)")
    reused = sorted(
        se._no_suffix(str(Path(record.uri).relative_to(STUDENT_SRC)))
        for record in get_cache(str(cache)).list_cache_records()
        if "reused_from" in (record.data or {})
    )
    chapters = [se._no_suffix(f) for f in binder_chapters.chapters() if f.startswith("book/") and "/" not in f[5:]]
    assert set(chapters) - {"book/status"} <= set(reused), f"chapters not reused: {set(chapters) - set(reused)}"

    def outputs(page: Path) -> list[str]:
        soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        return [" ".join(div.get_text().split()) for div in soup.select("div.cell_output")]

    for page in reused:
        student, full = outputs(HTML / f"{page}.html"), outputs(full_html / f"{page}.html")
        assert student == full[: len(student)], f"{page}: the student page's outputs are not the full page's"
