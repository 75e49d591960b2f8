"""Every chapter assert with a tolerance states where the tolerance comes from (issue 38).

The fixed form and its rules are in ``booktools/tolerances.py``. The first test is the listing
over the book: it fails on any assert whose margin has no reason in that form, or whose reason
breaks its kind's rule (more than 4 SE, a float slack beside the SE that is not a derived bias, a
"rounding" margin above 1e-6). The others plant such asserts and check that each is caught.
"""

from __future__ import annotations

import pytest

from booktools import tolerances
from tests.examples import MYST_HEADER

PAGES = tolerances.chapter_pages()


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_every_chapter_tolerance_has_a_reason_in_the_fixed_form(page):
    listing = tolerances.scan([page])
    bad = [a for a in listing if a.problems]
    report = "\n".join(f"{a.path}:{a.line}: {a.source.splitlines()[0]}  -> {'; '.join(a.problems)}" for a in bad)
    assert not bad, f"{len(bad)} of {len(listing)} asserts with a tolerance break the form:\n{report}"


def test_the_listing_covers_the_chapters():
    listing = tolerances.scan()
    pages = {a.path for a in listing}
    # Every numbered chapter measures something; a scanner that finds nothing is broken.
    assert len(pages) >= 8, pages
    assert {a.kind for a in listing} <= set(tolerances.KINDS), {a.kind for a in listing}


def page(code: str) -> str:
    return MYST_HEADER + "\n# A page\n\n```{code-cell} ipython3\n" + code.strip("\n") + "\n```\n"


def problems(code: str) -> list[tuple[str, ...]]:
    return [a.problems for a in tolerances.scan_text(page(code))]


GOOD = {
    "se on the line": "assert abs(mean - theory) <= 4 * se, (mean, theory)   # tol: se: 4 SE of the mean of 400 runs",
    "se above": "# the mean of 400 runs\n# tol: se: 4 SE (se from the runs' spread)\nassert abs(m - t) <= 4 * m_se",
    "se with bias": "assert abs(m - t) <= 4 * se + 0.004  # tol: se: 4 SE + bias 0.004: the O(1/N) term, derived above",
    "rounding": "assert abs(a - b) < 1e-9   # tol: rounding: closed form against its sum",
    "numeric": "assert abs(q - exact) < 1e-3  # tol: numeric: Simpson's rule with 200 nodes, error O(h^4)",
    "claim": "assert slope < 0.5, slope   # tol: claim: the regret grows slower than sqrt(T)",
    "multi-line": "assert np.all(\n    np.abs(x - y) <= 3 * sd   # tol: se: 3 SE per entry\n)",
    "no tolerance": "assert count == 3\nassert x < y",
}

BAD = {
    "no reason": ("assert abs(mean - theory) <= 4 * se", "no '# tol"),
    "unknown kind": ("assert abs(m - t) < 0.1  # tol: slack: it was needed", "not one of"),
    "five SE in the reason": ("assert abs(m - t) <= 5 * se  # tol: se: 5 SE of the mean", "above the 4 SE"),
    "five SE in the code": ("assert abs(m - t) <= 5 * se  # tol: se: 4 SE of the mean", "multiplies"),
    "unexplained slack": ("assert abs(m - t) <= 4 * se + 0.01  # tol: se: 4 SE of the mean", "derived bias"),
    "no SE computed": ("assert abs(m - t) < 0.02  # tol: se: 4 SE of the mean, about 0.005", "computed standard"),
    "no multiple stated": ("assert abs(m - t) < 4 * se  # tol: se: the spread of the runs", "multiple"),
    "rounding too wide": ("assert abs(a - b) < 1e-3  # tol: rounding: floats differ a bit", "rounding tolerance"),
    "empty reason": ("assert abs(a - b) < 1e-3  # tol: numeric: ok", "too short"),
    "isclose": ("assert np.isclose(a, b)", "no '# tol"),
    "comment not adjacent": ("# tol: se: 4 SE of the mean\nx = 1\nassert abs(m - t) < 4 * se", "no '# tol"),
}


@pytest.mark.parametrize("code", GOOD.values(), ids=GOOD.keys())
def test_conforming_asserts_pass(code):
    assert all(not p for p in problems(code)), problems(code)


@pytest.mark.parametrize(("code", "message"), BAD.values(), ids=BAD.keys())
def test_planted_slack_is_caught(code, message):
    found = problems(code)
    assert len(found) == 1, found
    assert any(message in p for p in found[0]), found[0]


def test_line_numbers_point_into_the_page():
    text = page("x = 1\n\nassert abs(a - b) < 0.5")
    (entry,) = tolerances.scan_text(text)
    assert text.split("\n")[entry.line - 1] == "assert abs(a - b) < 0.5"


def test_the_command_lists_and_fails_on_problems(tmp_path, capsys):
    bad = tmp_path / "bad.md"
    bad.write_text(page(BAD["unexplained slack"][0]))
    good = tmp_path / "good.md"
    good.write_text(page(GOOD["se with bias"]))
    assert tolerances.main([str(good)]) == 0
    assert "[se]" in capsys.readouterr().out
    assert tolerances.main([str(bad)]) == 1
    out = capsys.readouterr()
    assert "derived bias" in out.out and "1 break the form" in out.err
