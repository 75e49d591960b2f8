"""The assignments' public checks: compare your function or learner with the reference's recorded outputs.

Each assignment in ``book/assignments/`` asks for one function or one learner class. Its
notebook loads the public checks (``<name>_public.json``, the reference's outputs recorded
as plain data next to the notebook) with ``load_public_checks`` and runs them on the student's
code with ``PublicChecks.run``; no reference solution is part of the library. The hidden tests
that the lecturer's ``python -m booktools grade`` runs decide with the same checks and the same
comparison, played against the live reference outside the student's sandbox.

The modules, one concern each:

* ``results``: ``Check`` and ``GradeReport``, the verdicts (every assignment, chapters 1-8);
* ``inputs``: ``Case``, ``Certificate``, ``Stream`` and the checks of these arguments;
* ``compare``: ``first_difference`` and ``mismatch``, the one comparison the public checks and
  the grader share, in time and memory linear in the smaller of the two values;
* ``show``: the values in a check's message, bounded whatever their size;
* ``checks``: ``check_call`` (functions: ``rwma``, chapter 5; ``drift_chain``, chapter 7;
  ``normalized_step``, chapter 8), ``check_learner`` (learners played round by round against the
  reference: ``halving``, chapter 1; ``winnow1``, chapter 2; ``kernel_perceptron``, chapter 6)
  and ``check_certificate`` (the certificate assignments);
* ``inequalities``: ``check_bounds``, the inequalities of a proof measured after every round of
  the student's own learner (the lemma invariants of Winnow1, chapter 2);
* ``public``: ``PublicChecks`` and ``load_public_checks``, the recorded reference replayed;
* ``arguments``: ``unchanged_arguments``, which only the grader uses (chapter 8).

Every check earns its points or none, and its message says what went wrong: the first
differing round, the expected and the actual value, or the exception the student's code raised
(``NotImplementedError`` reads "not implemented yet"). Nothing the student's code raises or
returns escapes a check. Bad arguments to the functions themselves (a non-callable, an empty
list of streams, a stream whose lengths differ) raise ``TypeError`` or ``ValueError`` naming
the argument.
"""

from __future__ import annotations

# The names outside __all__ (imported with `as`, the explicit re-export) are the lecturer's grader's
# (booktools) and the tests': the checks the hidden tests share with the public checks, their argument
# checks, the public-checks file format and the grader's unchanged_arguments.
from .arguments import unchanged_arguments as unchanged_arguments
from .checks import check_call as check_call
from .checks import check_certificate
from .checks import check_learner as check_learner
from .compare import first_difference
from .compare import mismatch as mismatch
from .inequalities import check_bounds
from .inputs import Case, Certificate, Stream
from .inputs import check_callable as check_callable
from .inputs import check_items as check_items
from .inputs import checked_input as checked_input
from .inputs import checked_stream as checked_stream
from .public import PUBLIC_FORMAT as PUBLIC_FORMAT
from .public import PublicChecks, load_public_checks
from .results import Check, GradeReport

__all__ = [
    "Check",
    "GradeReport",
    "Case",
    "Certificate",
    "Stream",
    "check_bounds",
    "check_certificate",
    "first_difference",
    "PublicChecks",
    "load_public_checks",
]
