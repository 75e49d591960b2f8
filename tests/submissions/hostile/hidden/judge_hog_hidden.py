"""A lecturer's hidden tests with a bug: on a submission they allocate 3 GB (tests/test_grade_robustness.py).

The judge's memory budget must stop it, and the row must be ``memory``, not a dead run.
"""
from booktools.grading import checks

FUNCTION = "answer"
KIND = "function"
FORBIDDEN = []


def REFERENCE():
    return 42


def grade(student):
    report = checks.GradeReport(title="judge that allocates 3 GB")
    if student is not REFERENCE:
        hog = bytearray(3 * 2**30)
        hog[::4096] = b"x" * len(hog[::4096])
    report.add("the answer", student() == 42)
    return report
