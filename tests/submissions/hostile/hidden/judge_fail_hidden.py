"""A lecturer's hidden tests with a bug: on a submission they raise (tests/test_grade_robustness.py).

The row must be ``grader-error`` (tried twice), never the student's zero.
"""
from booktools.grading import checks

FUNCTION = "answer"
KIND = "function"
FORBIDDEN = []


def REFERENCE():
    return 42


def grade(student):
    report = checks.GradeReport(title="judge that fails")
    if student is not REFERENCE:
        raise ZeroDivisionError("a bug in the hidden tests")
    report.add("the answer", student() == 42)
    return report
