"""The syllabus (issue 37, item 3): a term plan that cannot drift from the book.

``book/syllabus.md`` has two schedules, a 13-week term and its 8-week cut, one row per week:

    | Week | Chapter: sections | Papers | Assignments released (hours) | Lectures (h) | Reading (h) | Assignments (h) | Total (h) |

then a ``**Total**`` row, and a sentence stating the same totals. This test holds every quoted fact to
its source: the assignments' numbers, chapters and hours to their notebooks' headers, the sections
to the chapters' headings, the papers to ``book/references.bib``, the chapters to ``_toc.yml``,
the points of the assessment table to the assignments index, and every sum to its parts.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
ASSIGNMENTS = BOOK / "assignments"
SYLLABUS = BOOK / "syllabus.md"
WEEKS = {"13-week": 13, "8-week": 8}  # the schedules, in the order of the page

HEADER = re.compile(  # the notebook's header lines, as tests/test_assignments_index.py reads them
    r"^\*Part: [^.]+\. Chapter: \{ref\}`(?P<chapter>ch-[a-z0-9-]+)`\.\*\n\n"
    r"\*Difficulty: (?:introductory|intermediate|advanced)\. "
    r"Expected time: about (?P<hours>\d+) hours?\.\*$",
    re.M,
)
TITLE = re.compile(r"^\((?P<label>asg-[a-z0-9-]+)\)=\n# Assignment (?P<number>\d+):", re.M)
ASSIGNMENT = re.compile(r"\{ref\}`A(\d+) <(asg-[a-z0-9-]+)>` \((\d+) h\)")
CHAPTER_REF = re.compile(r"\{ref\}`(\d+) <(ch-[a-z0-9-]+)>`")
TOTALS = re.compile(r"asks? for \*\*(\d+) hours\*\*: (\d+) of lectures, (\d+) of reading and (\d+) of assignments")


@dataclass
class Week:
    """One row of a schedule."""

    week: int
    chapters: list[tuple[int, str, list[str]]]  # (number quoted, label, sections quoted)
    cites: list[str]
    assignments: list[tuple[int, str, int]]  # (A-number, label, hours)
    hours: tuple[int, int, int, int]  # lectures, reading, assignments, total
    problems: list[str] = field(default_factory=list)  # cells that do not parse


# --------------------------------------------------------------------------------------------
# The sources


@cache
def chapters() -> dict[str, dict]:
    """The numbered chapters of _toc.yml by label: number (1..8), file and section headings."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [c["file"] for part in toc["parts"] if part.get("numbered") for c in part["chapters"]]
    found = {}
    for number, entry in enumerate(files, start=1):
        text = (ROOT / f"{entry}.md").read_text(encoding="utf-8")
        label = re.search(r"^\((ch-[a-z0-9-]+)\)=$", text, re.M)
        assert label, f"{entry}.md has no (ch-...)= label"
        headings = set(re.findall(r"^#{2,3} (.+?)\s*$", text, re.M))
        found[label[1]] = {"number": number, "file": entry, "headings": headings}
    return found


@cache
def assignments() -> dict[str, dict]:
    """Every assignment notebook by label: its number, chapter and expected hours."""
    found = {}
    for path in sorted(ASSIGNMENTS.glob("*.md")):
        if path.name == "index.md":
            continue
        text = path.read_text(encoding="utf-8")
        title, header = TITLE.search(text), HEADER.search(text)
        assert title and header, f"{path.name}: no '(asg-...)=' title or no Chapter/Expected-time header"
        found[title["label"]] = {
            "number": int(title["number"]),
            "chapter": header["chapter"],
            "hours": int(header["hours"]),
        }
    return found


@cache
def index_points() -> dict[str, tuple[int, int, str]]:
    """The assignments index: (automatic, read, parts) by label ('—' counts 0)."""
    rows = {}
    for line in (ASSIGNMENTS / "index.md").read_text(encoding="utf-8").splitlines():
        match = re.match(r"^\| \{ref\}`A\d+ <(asg-[a-z0-9-]+)>` — [^|]+\|([^|]+)\|([^|]+)\|([^|]+)\|([^|]+)\|", line)
        if match:
            auto, read = (0 if c.strip() == "—" else int(c) for c in (match[4], match[5]))
            rows[match[1]] = (auto, read, match[3].strip())
    return rows


@cache
def labels_in_book() -> set[str]:
    return {m for p in BOOK.rglob("*.md") for m in re.findall(r"^\(([\w-]+)\)=$", p.read_text(encoding="utf-8"), re.M)}


@cache
def bib_keys() -> set[str]:
    return set(re.findall(r"^@\w+\{([^,\s]+),", (BOOK / "references.bib").read_text(encoding="utf-8"), re.M))


# --------------------------------------------------------------------------------------------
# The page


def tables(text: str) -> list[list[list[str]]]:
    """The Markdown tables of a page: lists of rows of stripped cells, separator rows left out."""
    found, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", cell) for cell in cells):
                current.append(cells)
        elif current:
            found.append(current)
            current = []
    return found


def _number(cell: str) -> int:
    return int(cell.strip("*"))


def parse_week(cells: list[str]) -> Week:
    """One row of a schedule (8 cells); what does not parse is listed in ``problems``."""
    problems = []
    if len(cells) != 8:
        return Week(0, [], [], [], (0, 0, 0, 0), [f"{len(cells)} cells, not 8: {cells}"])
    week, chapter_cell, papers, released, *hours = cells
    pieces = CHAPTER_REF.split(chapter_cell)
    if pieces[0].strip():
        problems.append(f"week {week}: text before the first chapter: {pieces[0]!r}")
    quoted = [
        (int(pieces[i]), pieces[i + 1], re.findall(r"\*([^*]+)\*", pieces[i + 2])) for i in range(1, len(pieces), 3)
    ]
    found = [(int(a), label, int(h)) for a, label, h in ASSIGNMENT.findall(released)]
    if ASSIGNMENT.sub("", released).replace(";", "").strip() not in ("", "—"):
        problems.append(f"week {week}: an assignment not written as {{ref}}`AN <asg-...>` (N h): {released!r}")
    cites = [key.strip() for group in re.findall(r"\{cite\}`([^`]+)`", papers) for key in group.split(",")]
    return Week(int(week), quoted, cites, found, tuple(_number(h) for h in hours), problems)


def schedules(text: str) -> dict[str, tuple[list[Week], tuple[int, ...]]]:
    """The two schedules by name: their weeks, and their **Total** row's four numbers."""
    found = [t for t in tables(text) if t[0][0] == "Week"]
    assert len(found) == len(WEEKS), f"{len(found)} schedule tables (a header starting '| Week |'), not {len(WEEKS)}"
    plans = {}
    for name, table in zip(WEEKS, found, strict=True):
        body, last = table[1:-1], table[-1]
        assert last[0] == "**Total**", f"the {name} schedule does not end in a **Total** row"
        plans[name] = ([parse_week(row) for row in body], tuple(_number(c) for c in last[4:]))
    return plans


@cache
def page() -> str:
    return SYLLABUS.read_text(encoding="utf-8")


def plan(name: str) -> list[Week]:
    return schedules(page())[name][0]


# --------------------------------------------------------------------------------------------
# The checks, as functions of the text, so that planted errors can be shown to fail them


def hour_problems(text: str) -> list[str]:
    """Each assignment quoted with its notebook's number and expected hours."""
    problems = []
    for name, (weeks, _) in schedules(text).items():
        for week in weeks:
            for number, label, hours in week.assignments:
                fact = assignments().get(label)
                if fact is None:
                    problems.append(f"{name}, week {week.week}: no assignment {label}")
                elif (number, hours) != (fact["number"], fact["hours"]):
                    problems.append(
                        f"{name}, week {week.week}: A{number} <{label}> ({hours} h), but its notebook says "
                        f"Assignment {fact['number']}, about {fact['hours']} hours"
                    )
    return problems


def sum_problems(text: str) -> list[str]:
    """Each week's hours add up, the **Total** row is the sum of the weeks, and so is the sentence."""
    problems = []
    stated = [tuple(int(n) for n in m) for m in TOTALS.findall(text)]
    if len(stated) != len(WEEKS):
        problems.append(f"{len(stated)} sentences '... asks for **N hours**: L of lectures, ...', not {len(WEEKS)}")
    for i, (name, (weeks, total)) in enumerate(schedules(text).items()):
        for week in weeks:
            lectures, reading, homework, week_total = week.hours
            quoted = sum(hours for _, _, hours in week.assignments)
            if homework != quoted:
                problems.append(
                    f"{name}, week {week.week}: {homework} assignment hours, but the assignments add to {quoted}"
                )
            if week_total != lectures + reading + homework:
                problems.append(f"{name}, week {week.week}: total {week_total} != {lectures} + {reading} + {homework}")
        columns = tuple(sum(w.hours[j] for w in weeks) for j in range(4))
        if total != columns:
            problems.append(f"{name}: the Total row says {total}, the weeks add to {columns}")
        if i < len(stated) and stated[i] != (columns[3], *columns[:3]):
            problems.append(f"{name}: the sentence states {stated[i]}, the weeks add to {(columns[3], *columns[:3])}")
    return problems


# --------------------------------------------------------------------------------------------
# The tests


def test_the_page_has_its_label_and_title():
    assert page().startswith("(syllabus)=\n# Syllabus: a term with this book\n")


@pytest.mark.parametrize("name", WEEKS)
def test_the_weeks_run_from_one_to_the_last(name):
    weeks = plan(name)
    assert [w.week for w in weeks] == list(range(1, WEEKS[name] + 1))
    assert not [p for w in weeks for p in w.problems], [p for w in weeks for p in w.problems]


def test_every_reference_resolves_to_a_label_of_the_book():
    targets = re.findall(r"\{ref\}`(?:[^`<]*<)?([^`>]+)>?`", page())
    assert targets, "no {ref} found: the pattern is wrong"
    missing = sorted(set(targets) - labels_in_book())
    assert not missing, f"{{ref}} targets with no '(label)=' in book/: {missing}"


def test_every_assignment_is_set_exactly_once_in_the_term():
    quoted = [label for week in plan("13-week") for _, label, _ in week.assignments]
    assert sorted(quoted) == sorted(assignments()), "each of the book's assignments once, and no other"
    short = [label for week in plan("8-week") for _, label, _ in week.assignments]
    assert len(short) == len(set(short)) and set(short) <= set(assignments())


def test_the_hours_and_numbers_are_the_notebooks():
    assert not hour_problems(page()), "\n".join(hour_problems(page()))


def test_the_weekly_hours_add_up_to_the_stated_totals():
    assert not sum_problems(page()), "\n".join(sum_problems(page()))


@pytest.mark.parametrize("name", WEEKS)
def test_an_assignment_follows_its_chapter_and_is_due_within_the_term(name):
    weeks = plan(name)
    first = {}
    for week in weeks:
        for _, label, _ in week.chapters:
            first.setdefault(label, week.week)
    for week in weeks:
        for number, label, _ in week.assignments:
            chapter = assignments()[label]["chapter"]
            assert chapter in first and first[chapter] <= week.week, f"A{number} is set before {chapter} is taught"
            assert week.week < WEEKS[name], f"A{number} is released in the last week: due after the term"


@pytest.mark.parametrize("name", WEEKS)
def test_the_chapters_are_the_tocs_in_its_order(name):
    quoted = [(n, label) for week in plan(name) for n, label, _ in week.chapters]
    for n, label in quoted:
        assert label in chapters() and chapters()[label]["number"] == n, f"{{ref}}`{n} <{label}>`: wrong number"
    numbers = [n for n, _ in quoted]
    assert numbers == sorted(numbers), f"{name}: chapters out of order: {numbers}"
    taught = set(numbers)
    if name == "13-week":
        assert taught == {c["number"] for c in chapters().values()}, "every numbered chapter of _toc.yml"
    else:  # chapters 2-4 are a sequence after 1; then at least one of 5-8
        assert {1, 2, 3, 4} <= taught and taught - {1, 2, 3, 4}, f"{name}: chapters {sorted(taught)}"


@pytest.mark.parametrize("name", WEEKS)
def test_the_sections_are_the_chapters_headings(name):
    for week in plan(name):
        for _, label, sections in week.chapters:
            assert sections, f"{name}, week {week.week}: no section of {label} quoted"
            unknown = [s for s in sections if s not in chapters()[label]["headings"]]
            assert not unknown, f"{name}, week {week.week}: not headings of {chapters()[label]['file']}: {unknown}"


def test_the_sections_quoted_in_the_prose_are_headings_too():
    cut = page().split("## Cutting it to 8 weeks", 1)[1]
    quoted = re.findall(r"^\* \*\*Sections:\*\*(.*?)(?=^\* )", cut, re.M | re.S)[0]
    headings = set().union(*(c["headings"] for c in chapters().values()))
    italic = re.findall(r"\*([^*]+)\*", quoted.replace("\n  ", " "))
    assert italic and not set(italic) - headings, set(italic) - headings


def test_every_cited_paper_is_in_the_bibliography():
    keys = [k.strip() for group in re.findall(r"\{cite\}`([^`]+)`", page()) for k in group.split(",")]
    assert keys and not set(keys) - bib_keys(), sorted(set(keys) - bib_keys())
    for name in WEEKS:
        assert all(week.cites for week in plan(name)), f"{name}: a week without a paper"


def test_the_assessment_points_are_the_index():
    points = index_points()
    assert sorted(points) == sorted(assignments())
    table = next(t for t in tables(page()) if t[0][0] == "Component")
    rows = {row[0]: row for row in table[1:]}
    auto = next(r for k, r in rows.items() if k.startswith("Automatic"))
    read = next(r for k, r in rows.items() if k.startswith("Read"))
    total = rows["**Total**"]
    assert int(auto[1]) == sum(a for a, _, _ in points.values())
    assert int(read[1]) == sum(r for _, r, _ in points.values())
    assert "seven assignments" in read[0] and sum(1 for _, r, _ in points.values() if r) == 7
    assert _number(total[1]) == int(auto[1]) + int(read[1])
    weights = [int(row[2]) for key, row in rows.items() if key != "**Total**"]
    assert sum(weights) == _number(total[2]) == 100


def test_the_short_term_keeps_code_and_a_certificate_or_proof_in_every_chapter():
    parts = {}
    for week in plan("8-week"):
        for _, label, _ in week.assignments:
            parts.setdefault(assignments()[label]["chapter"], set()).update(index_points()[label][2].split(", "))
    taught = {label for week in plan("8-week") for _, label, _ in week.chapters}
    assert set(parts) == taught, "every chapter of the short term has an assignment"
    weak = {c: p for c, p in parts.items() if "code" not in p or not p & {"certificate", "proof"}}
    assert not weak, weak


# Planted errors: the checks above must catch an edited hour, on either side.


def test_an_edited_hour_in_the_syllabus_fails():
    planted = page().replace("{ref}`A13 <asg-winnow2>` (6 h)", "{ref}`A13 <asg-winnow2>` (5 h)", 1)
    assert planted != page()
    assert any("A13 <asg-winnow2> (5 h)" in p for p in hour_problems(planted))
    assert any("assignment hours" in p for p in sum_problems(planted))


def test_an_edited_hour_in_a_notebook_fails(monkeypatch):
    edited = {label: dict(fact) for label, fact in assignments().items()}
    edited["asg-halving"]["hours"] += 1
    monkeypatch.setattr(sys.modules[__name__], "assignments", lambda: edited)
    assert any("about 3 hours" in p and "asg-halving" in p for p in hour_problems(page()))


def test_an_edited_total_fails():
    planted = page().replace("**141 hours**", "**140 hours**", 1).replace("| **39** |", "| **38** |", 1)
    problems = sum_problems(planted)
    assert any("sentence states (140" in p for p in problems) and any("Total row" in p for p in problems)


WORDS = dict(
    enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
        "seventeen eighteen nineteen twenty".split()
    )
)


def test_the_hours_quoted_in_the_prose_are_the_tables():
    text = " ".join(page().split())
    long_total = schedules(page())["13-week"][1][3]
    assert f"about {round(long_total / WEEKS['13-week'])} hours a week" in text
    kept = [hours for week in plan("8-week") for _, _, hours in week.assignments]
    total = WORDS[len(assignments())]
    assert f"(kept: {WORDS[len(kept)]} of {total}, {sum(kept)} hours)" in text
    assert text.count(f"all {total}") == 2 and not re.search(r"all (?!%s)\w+teen" % total, text), "all N assignments"
    swaps = re.findall(
        r"\{ref\}`A\d+ <(asg-[a-z0-9-]+)>` and \{ref\}`A\d+ <(asg-[a-z0-9-]+)>` for chapter (\d) \((\d+) hours", text
    )
    assert len(swaps) == 3, swaps  # one line for each of chapters 6, 7 and 8
    for first, second, chapter, hours in swaps:
        label = next(label for label, c in chapters().items() if c["number"] == int(chapter))
        assert assignments()[first]["chapter"] == assignments()[second]["chapter"] == label
        same_chapter = [a for a, fact in assignments().items() if fact["chapter"] == label]
        assert sorted(same_chapter) == sorted([first, second]), f"chapter {chapter}: all its assignments"
        assert int(hours) == assignments()[first]["hours"] + assignments()[second]["hours"], f"chapter {chapter}"


def test_the_graduate_sections_are_headings_of_their_chapters():
    """Issue 38: the paragraph on a graduate course names the chapters' new theory sections exactly."""
    paragraph = page().split("**A graduate course.**", 1)[1].split("\n\n", 1)[0]
    headings = set().union(*(c["headings"] for c in chapters().values()))
    italic = re.findall(r"\*([^*]+)\*", paragraph.replace("\n", " "))
    assert len(italic) >= 7 and not set(italic) - headings, set(italic) - headings
