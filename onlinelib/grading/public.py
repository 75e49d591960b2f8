"""The public checks: the reference's outputs recorded as data, replayed in a student's notebook.

Each assignment notebook (chapters 1-8) loads ``<name>_public.json`` with ``load_public_checks``
and runs ``PublicChecks.run`` on the student's class or function. The file holds the public
streams or cases and the reference's recorded outputs (written by the lecturer's
``booktools`` from the live reference); ``_Replay`` plays a recorded learner back, so the same
``check_learner``, ``check_call`` and ``check_certificate`` decide as in the grader.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..validation import check_real
from .checks import check_call, check_certificate, check_learner
from .inputs import Case, Certificate, Stream, check_callable, checked_stream
from .results import GradeReport

PUBLIC_FORMAT = 1  # the version of the public-checks files (NAME_public.json)


class _Replay:
    """Plays back a recorded reference learner: its predictions and observed attributes, round by round.

    The reference of a learner assignment's public checks (halving, chapter 1; winnow1, chapter 2;
    kernel_perceptron, chapter 6), for ``check_learner``.
    """

    def __init__(self, predictions: list, observed: dict):
        self._predictions, self._observed, self._t = predictions, observed, 0

    def predict(self, x: Any) -> int:
        return self._predictions[self._t]

    def update(self, x: Any, y: int) -> None:
        self._t += 1

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name not in self._observed:
            raise AttributeError(name)
        return self._observed[name][self._t]


class PublicChecks:
    """The public checks of an assignment: streams or cases with the reference's recorded outputs.

    Load them with ``load_public_checks`` and call ``run`` on your learner class or
    function (every assignment notebook, chapters 1-8).

    Attributes
    ----------
    kind : {"learner", "function", "certificate"}
    title : str
    streams : list of Stream
        For a learner: the public streams (X, y, params), e.g. to measure a proof's
        inequalities with ``check_bounds``.
    cases : list of Case
        For a function: the public cases.
    certificates : list of Certificate
        For a certificate assignment: what to construct, and the verifier's parameters (nothing
        is recorded: the object is verified where it is made).
    """

    def __init__(self, data: Mapping):
        from .. import plain_data

        data = plain_data.decode(data)
        if (
            not isinstance(data, Mapping)
            or data.get("format") != PUBLIC_FORMAT
            or data.get("kind") not in ("learner", "function", "certificate")
        ):
            raise ValueError(
                "data must be public checks written by record_public_checks "
                "(format 1, kind learner, function or certificate)"
            )
        self.kind, self.title = data["kind"], str(data.get("title", ""))
        self.streams, self.cases, self._recorded = [], [], []
        if self.kind == "learner":
            self.observe = dict(data["observe"])
            for s in data["streams"]:
                self.streams.append(Stream(s["name"], s["X"], s["y"], params=s["params"], points=s["points"]))
                self._recorded.append((s["predictions"], s["observed"]))
        elif self.kind == "certificate":
            self.certificates = [
                Certificate(
                    c["name"], tuple(c["args"]), c["kwargs"], c["verifier"], c["params"], c["target"], c["points"]
                )
                for c in data["certificates"]
            ]
        else:
            self.rounds = bool(data["rounds"])
            for c in data["cases"]:
                self.cases.append(Case(c["name"], tuple(c["args"]), c["kwargs"], c["points"]))
                self._recorded.append(c["expected"])

    def run(self, candidate: Callable, *, rtol: float = 1e-9, atol: float = 1e-12) -> GradeReport:
        """Compare ``candidate`` (your class or function) with the recorded reference; one check per stream or case."""
        check_callable(candidate, "candidate")
        rtol = check_real(rtol, "rtol", 0.0, strict=False)
        atol = check_real(atol, "atol", 0.0, strict=False)
        report = GradeReport(title=self.title)
        if self.kind == "learner":
            observe = {
                label: (lambda learner, a=attribute: getattr(learner, a)) for label, attribute in self.observe.items()
            }
            for i, (item, (predictions, observed)) in enumerate(zip(self.streams, self._recorded, strict=True)):
                stream, X, y = checked_stream(item, i)
                report.checks.append(
                    check_learner(
                        candidate, _Replay(predictions, observed), stream, X, y, observe=observe, rtol=rtol, atol=atol
                    )
                )
        elif self.kind == "certificate":
            for certificate in self.certificates:
                report.checks.append(check_certificate(candidate, certificate))
        else:
            for case, expected in zip(self.cases, self._recorded, strict=True):
                report.checks.append(check_call(candidate, case, expected, rtol=rtol, atol=atol, rounds=self.rounds))
        return report


def load_public_checks(path: Any, part: str | None = None) -> PublicChecks:
    """Read an assignment's public checks (``<name>_public.json``, next to its notebook).

    An assignment of several parts (code, a certificate, ...) keeps one section per part:
    name it with ``part``, e.g. ``load_public_checks("winnow_proofs_public.json", part="Winnow1")``.

    Raises
    ------
    FileNotFoundError
        If the file is not there; the message says to keep it next to the notebook.
    ValueError
        If it is not a public-checks file.
    """
    import json
    from pathlib import Path

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} not found: the public checks read it from the folder the notebook runs in "
            "(download it with the assignment and keep it next to the notebook)"
        )
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if isinstance(data, dict) and data.get("kind") == "parts":
        parts = data.get("parts") if isinstance(data.get("parts"), dict) else {}
        if part not in parts:
            raise ValueError(f"part must be one of {sorted(parts)} (the parts of {path.name}), got {part!r}")
        return PublicChecks(parts[part])
    if part is not None:
        raise ValueError(f"part must be None: {path.name} holds the checks of one part, got {part!r}")
    return PublicChecks(data)
