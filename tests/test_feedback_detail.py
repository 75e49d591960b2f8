"""How much of the hidden tests a student's feedback shows: the lecturer's choice (issue 37).

``grade --feedback-detail full`` (the default) shows each check and, for a failed one, what differed,
which names a hidden instance (its first differing round and the values). ``checks`` keeps the
checks' names and points without the message; ``score`` shows only the score and the status. The
rows of ``scores.csv`` keep every message whatever the choice: that file is the lecturer's.
"""

from __future__ import annotations

import pytest

from booktools.grading import cli
from booktools.grading.feedback import DETAIL, feedback_markdown
from onlinelib.grading import Check

INSTANCE = "round 17: x = [0 1 1 0 1], expected +1, got -1"
ROW = {
    "submission": "ada.ipynb",
    "score": 3.0,
    "status": "graded",
    "feedback": "",
    "checks": [
        Check("random stream, seed hidden", True, 3.0, 3.0, "ok"),
        Check("adversary", False, 0.0, 2.0, INSTANCE),
    ],
    "cell_errors": ["cell 4, line 2: NameError: name 'w' is not defined"],
}


def test_full_shows_what_differed():
    text = feedback_markdown(ROW, 5.0, "A1", detail="full")
    assert "round 17: x = " in text and "| adversary | 0/2 | **FAIL**: " in text and "NameError" in text


def test_checks_hides_every_hidden_instance_but_keeps_the_points():
    text = feedback_markdown(ROW, 5.0, "A1", detail="checks")
    assert "| adversary | 0/2 | **FAIL** |" in text and "| random stream, seed hidden | 3/3 | pass |" in text
    assert "round 17" not in text and "[0 1 1 0 1]" not in text
    assert "NameError" in text  # the student's own errors are theirs to see


def test_score_shows_only_the_header():
    text = feedback_markdown(ROW, 5.0, "A1", detail="score")
    assert "**Score:** 3/5" in text and "**Status:** graded" in text
    assert "adversary" not in text and "round 17" not in text and "NameError" not in text


def test_an_unknown_detail_is_refused_by_name():
    with pytest.raises(ValueError, match=r"detail: expected one of full, checks, score, got 'all'"):
        feedback_markdown(ROW, 5.0, "A1", detail="all")


def test_the_grader_offers_the_choice_and_defaults_to_full():
    parser = cli.build_parser()
    assert parser.parse_args(["s", "--assignment", "halving", "--out", "o.csv"]).feedback_detail == "full"
    args = parser.parse_args(["s", "--assignment", "halving", "--out", "o.csv", "--feedback-detail", "checks"])
    assert args.feedback_detail == "checks"
    with pytest.raises(SystemExit):
        parser.parse_args(["s", "--assignment", "halving", "--out", "o.csv", "--feedback-detail", "none"])
    assert set(DETAIL) == {"full", "checks", "score"}
