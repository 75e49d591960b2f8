"""A lecturer's hidden tests with a bug: on a submission they never finish (tests/test_grade_robustness.py).

The grader must kill the judge at the submission's deadline and give the row ``timeout``.
"""
import time

from booktools.grading import checks

FUNCTION = "answer"
KIND = "function"
FORBIDDEN = []


def REFERENCE():
    return 42


def grade(student):
    report = checks.GradeReport(title="judge that hangs")
    if student is not REFERENCE:
        while True:  # no deadline check inside the judge could end this: only killing it does
            try:
                time.sleep(1)  # a hang at no CPU cost (a spinning loop cost the tests 15 core-seconds a row)
            except BaseException:
                pass
    report.add("the answer", student() == 42)
    return report
