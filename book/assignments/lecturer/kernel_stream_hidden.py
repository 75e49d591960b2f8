"""Hidden tests of Assignment 12, exponentially many mistakes of the kernel Perceptron (chapter 6, Boolean kernels).

Lecturer edition only: the student-edition builder removes ``book/assignments/**/lecturer/``.
Run by ``python -m booktools grade SUBMISSIONS --assignment kernel_stream --out scores.csv``.

A certificate assignment: the student's ``kernel_perceptron_stream(n)`` returns ``(X, y)``, which
``onlinelib.certificates.verify_kernel_perceptron_stream`` checks (rows 0/1, labels those of the
target x1...xn) and replays exactly with the monotone-monomial kernel, counting the mistakes.
Full points at the mistakes of the book's construction (Theorem 4 with a greedy constant-weight
code, a = n/4 and b = n/8): ``target`` = 2 + t with t = floor((2^a - 1)/2^b) + 1, reached by
``REFERENCE`` on each instance and checked here.

Keyed instances: none. The sizes n are written out here and are the same under every course key, so whoever
reads this file knows them: keep it in a private folder (``--hidden-dir``) if that matters. The fixed seed in
``REFERENCE`` draws the lecturer's own construction, not an instance: any valid stream earns the points.
"""

import numpy as np

import onlinelib as ol
from booktools.grading import checks
from onlinelib.certificates import verify_certificate

FUNCTION = "kernel_perceptron_stream"
KIND = "certificate"  # FUNCTION returns an object, verified exactly
TITLE = "Assignment 12: exponentially many mistakes of the kernel Perceptron (chapter 6)"
# The library's construction of the stream in one line: the family of weight-a sets with small
# intersections (greedy or Lemma 6's random deletion) and the stream 0^n, 1^n, x^1, ..., x^t built
# from it. The chapter's theorem4_experiment calls the first, so it fails with it.
FORBIDDEN = [
    "onlinelib.constant_weight_family",
    "onlinelib.theorem4_stream",
]
MAX_ROUNDS = 2000  # the replay of 2000 rounds that are all mistakes stays well under a second at n <= 80


def target_size(n):
    """t = floor((2^a - 1)/2^b) + 1 for a = n/4, b = n/8: the largest family Theorem 4's condition allows."""
    a, b = n // 4, n // 8
    return (2**a - 1) // 2**b + 1


def REFERENCE(n):
    """The lecturer's construction: 0^n (-1), 1^n (+1), then a greedy family of t weight-n/4 sets that pairwise
    meet in at most n/8 elements (-1), drawn with a fixed seed; 2 + t mistakes by Theorem 4."""
    if n % 8 or n < 8:
        raise ValueError(f"n must be a positive multiple of 8, got {n}")
    a, b, t = n // 4, n // 8, target_size(n)
    family = ol.constant_weight_family(n, a, b, t, np.random.default_rng(20261212 + n))
    if family.size < t:
        raise AssertionError(f"the greedy family reached {family.size} of {t} sets at n = {n}")
    return ol.theorem4_stream(family)


def certificate(n, points=1.0):
    """One instance; full points at the construction's 2 + t mistakes, which the reference reaches."""
    best = 2 + target_size(n)
    params = {"n": n, "max_rounds": MAX_ROUNDS, "optimum": best}
    made = verify_certificate("kernel_perceptron_stream", REFERENCE(n), params)
    assert made.valid and made.quality == best, (n, made)
    return checks.Certificate(
        f"n = {n} (a = {n // 4}, b = {n // 8}: 2 + t = {best})",
        args=(n,),
        verifier="kernel_perceptron_stream",
        params=params,
        target=made.quality,
        points=points,
    )


def cases():
    """Six instances, other than the public ones, from n = 24 to n = 80 (1026 mistakes)."""
    return [certificate(n) for n in (24, 40, 48, 56, 64, 80)]


def public_checks():
    """The notebook's public checks, recorded from the reference by `python -m booktools grade --write-public-checks`."""
    return {"title": "Assignment 12, public checks", "certificates": [certificate(16), certificate(32)]}


def grade(student) -> checks.GradeReport:
    """Each instance's stream replayed exactly: points * min(1, mistakes / (2 + t)) for a valid stream."""
    return checks.verify_certificates(student, cases(), title=TITLE)
