"""Keep pytest out of this folder: the notebooks here are deliberately broken submissions
(one loops forever), graded only through booktools/grade.py by tests/test_grading.py."""
collect_ignore_glob = ["*"]
