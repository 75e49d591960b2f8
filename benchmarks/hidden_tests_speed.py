"""How long the hidden tests take: the largest certificates and the references' grades (issue 34).

The tests count the work of these instead of timing it (a loaded machine once made them fail):
``tests/test_certificate_assignments.py`` bounds the Python function calls a verifier makes on the
largest object each hidden case accepts, ``tests/test_mutants.py`` those of each hidden grade of
the reference. This script times them, each beside a peer measured moments apart
(``timing.side_by_side``, 3 repetitions; ratios are median (min-max)):

1. **The largest certificate of every hidden case** (the six certificate and mixed assignments,
   objects built by ``tests/test_certificate_assignments.py``'s ``_largest_object``), verified with
   ``onlinelib.certificates.verify_certificate``. Peer: taking the same object out of a sandbox,
   ``plain_data.loads(plain_data.dumps(obj))``, which the grader pays for every object anyway and
   which is linear in its size. The old test's budget was 2 s a case; cases over it are marked.
2. **One hidden grade of the reference**, for the six code assignments (``tests/test_mutants.py``'s
   ``NAMES``), warm (the first call imports and compiles). Peer: a fresh interpreter that imports
   onlinelib (``python -c "import onlinelib"``), what the grader's sandbox pays at least for every
   submission. The old test's budget was 2 s.

Prints seconds and ratios; asserts nothing about time.

``--smoke`` (``timing.SMOKE``): one case of each verifier and two references, one repetition (a few
seconds).

Usage::

    python benchmarks/hidden_tests_speed.py [--smoke]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np

from timing import SMOKE, format_ratio, side_by_side

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the objects' builders and the hidden tests' loaders

import test_certificate_assignments as certificates  # noqa: E402
import test_mutants as mutants  # noqa: E402
from onlinelib import plain_data  # noqa: E402
from onlinelib.certificates import verify_certificate  # noqa: E402

OLD_BUDGET = 2.0  # seconds: what the tests asserted before issue 34
REPEAT = 3


def largest_certificates() -> None:
    print("1. the largest object of every hidden case: verify_certificate against taking it out of a sandbox")
    print(f"   {'assignment: case':62s} {'verify s':>9s} {'peer s':>8s}   verify / peer: median (min-max)")
    seen = set()
    for name in certificates.NAMES:
        rng = np.random.default_rng(0)
        for certificate in certificates.certificate_cases(name):
            obj = certificates._largest_object(certificate, rng)  # built in order: the rng as the test uses it
            if SMOKE and certificate.verifier in seen:
                continue
            seen.add(certificate.verifier)
            times = side_by_side(
                {
                    "verify": lambda obj=obj, c=certificate: verify_certificate(c.verifier, obj, c.params),
                    "peer": lambda obj=obj: plain_data.loads(plain_data.dumps(obj)),
                },
                repeat=REPEAT,
            )
            verify = statistics.median(times["verify"])
            mark = f"   OVER the old {OLD_BUDGET:g} s budget" if verify > OLD_BUDGET else ""
            label = f"{name}: {certificate.name}"[:62]
            print(
                f"   {label:62s} {verify:9.3f} {statistics.median(times['peer']):8.3f}   "
                f"{format_ratio(times['verify'], times['peer'])}{mark}"
            )
    print("   (peer: plain_data.loads(plain_data.dumps(obj)), what the grader pays to receive the object)")


def fresh_interpreter() -> None:
    subprocess.run([sys.executable, "-c", "import onlinelib"], check=True, cwd=ROOT)


def reference_grades() -> None:
    print("\n2. one hidden grade of the reference against a fresh `python -c 'import onlinelib'`")
    print(f"   {'assignment':20s} {'grade s':>9s} {'peer s':>8s}   grade / peer: median (min-max)")
    for name in mutants.NAMES[:2] if SMOKE else mutants.NAMES:
        lecturer = mutants.hidden(name)
        report = lecturer.grade(lecturer.REFERENCE)  # warm: the first call imports and compiles
        times = side_by_side(
            {"grade": lambda lecturer=lecturer: lecturer.grade(lecturer.REFERENCE), "peer": fresh_interpreter},
            repeat=REPEAT,
        )
        grade = statistics.median(times["grade"])
        mark = f"   OVER the old {OLD_BUDGET:g} s budget" if grade > OLD_BUDGET else ""
        full = "" if report.passed else "   (the reference did NOT get full marks)"
        print(
            f"   {name:20s} {grade:9.3f} {statistics.median(times['peer']):8.3f}   "
            f"{format_ratio(times['grade'], times['peer'])}{mark}{full}"
        )


def main() -> None:
    largest_certificates()
    reference_grades()


if __name__ == "__main__":
    main()
