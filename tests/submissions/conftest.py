"""Keep pytest out of this folder: the notebooks here are deliberately broken submissions
(one loops forever), graded only through `python -m booktools grade` by tests/test_grading.py
and tests/test_grade_attacks.py."""
collect_ignore_glob = ["*"]
