"""A lecturer's hidden tests with a bug: on a submission they never finish (tests/test_grade_robustness.py).

The grader must kill the judge at the submission's deadline and give the row ``timeout``.
"""
from booktools import checks

FUNCTION = "answer"
KIND = "function"
FORBIDDEN = []


def REFERENCE():
    return 42


def grade(student):
    report = checks.GradeReport(title="judge that hangs")
    if student is not REFERENCE:
        while True:  # pure Python, never yields to a deadline check
            pass
    report.add("the answer", student() == 42)
    return report
