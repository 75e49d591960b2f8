"""Every chapter ``assert`` that has a tolerance, with the reason for it (issue 38).

A check in a chapter compares two measured sides. When the comparison allows a margin (an
``abs(...)`` difference, a float literal, ``isclose``/``allclose``), the margin must say where it
comes from, in a fixed form, so that a new slack is visible in review and in this listing::

    assert abs(mean - theory) <= 4 * se   # tol: se: 4 SE of the mean of 400 runs

The comment ``# tol: KIND: why`` sits on a line of the ``assert`` or in the comment block right
above it. KIND is one of

``rounding``
    Both sides compute the same exact quantity in floats; every float literal in the assert is at
    most ``1e-6``.
``numeric``
    A deterministic approximation error (quadrature, an ODE step, a finite difference, an
    optimiser's tolerance, an asymptotic formula at finite size); the reason names it.
``se``
    A random measurement. The reason reads ``k SE`` with ``k <= 4``, the assert uses the standard
    error it computed (a name such as ``se``, ``sd``, ``*_se``), no constant multiplying it exceeds
    4, and any further float margin is a stated, derived bias: the reason then contains ``bias``.
``claim``
    The inequality is the statement being checked (a sign, an ordering, a theorem's bound), not
    a tolerance; the reason says which statement.

``python -m booktools tolerances`` prints the listing; ``tests/test_tolerances.py`` fails on an
assert without a reason in this form, or on one that breaks its kind's rule.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("rounding", "numeric", "se", "claim")
MAX_SE = 4.0
ROUNDING_LIMIT = 1e-6
MIN_REASON = 12  # characters: a reason, not a placeholder
TOL_COMMENT = re.compile(r"#\s*tol:\s*(?P<kind>[a-z]+)\s*:\s*(?P<why>.*)$")
SE_IN_REASON = re.compile(r"(?P<k>\d+(?:\.\d+)?)\s*SE\b")
SE_NAME = re.compile(r"(^|_)(se|ses|sd|sds|sem|stderr|sigma)(_|\d|$)", re.IGNORECASE)


@dataclass(frozen=True)
class ToleranceAssert:
    """One chapter assert with a tolerance: where it is, its kind, its reason, what is wrong with it."""

    path: str
    line: int
    source: str
    kind: str | None
    why: str
    problems: tuple[str, ...]


def chapter_pages(root: Path = ROOT) -> list[Path]:
    """The book's notebook pages outside ``book/assignments`` (the chapters and the status page)."""
    from booktools.binder_chapters import chapters

    return [root / p for p in chapters(root / "_toc.yml") if not p.startswith("book/assignments/")]


def code_cells(text: str) -> list[tuple[int, str]]:
    """``(first line in the file, source)`` of each code cell of a MyST notebook's text."""
    import io

    from booktools.notebooks import read_notebook

    notebook = read_notebook(io.StringIO(text))
    cells, offset = [], 0
    for cell in notebook.cells:
        if cell.cell_type != "code" or not cell.source.strip():
            continue
        at = text.find(cell.source, offset)
        if at < 0:
            raise ValueError(f"a code cell's source was not found verbatim in the page: {cell.source[:60]!r}")
        cells.append((text.count("\n", 0, at) + 1, cell.source))
        offset = at + len(cell.source)
    return cells


def _python(source: str) -> str:
    """The cell without IPython magics and shell lines (blanked, so line numbers stay)."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.split("\n"))


def _float_literals(node: ast.AST) -> list[float]:
    return [abs(n.value) for n in ast.walk(node) if isinstance(n, ast.Constant) and type(n.value) is float]


def _calls(node: ast.AST, names: set[str]) -> bool:
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            f = n.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
            if name in names:
                return True
    return False


def has_tolerance(node: ast.Assert) -> bool:
    """True if the assert allows a margin: an order comparison with ``abs`` or a float, or ``isclose``."""
    test = node.test
    ordered = any(
        isinstance(n, ast.Compare) and any(isinstance(op, (ast.Lt, ast.LtE, ast.Gt, ast.GtE)) for op in n.ops)
        for n in ast.walk(test)
    )
    margin = _calls(test, {"abs", "fabs"}) or bool(_float_literals(test))
    return (ordered and margin) or _calls(test, {"isclose", "allclose", "assert_allclose"})


def _names(node: ast.AST) -> list[str]:
    out = []
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            out.append(n.id)
        elif isinstance(n, ast.Attribute):
            out.append(n.attr)
    return out


def _se_multipliers(node: ast.AST) -> list[float]:
    """The constants that multiply a standard-error name in the assert (``4 * se`` gives 4)."""
    out = []
    for n in ast.walk(node):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult):
            for const, other in ((n.left, n.right), (n.right, n.left)):
                if (
                    isinstance(const, ast.Constant)
                    and isinstance(const.value, (int, float))
                    and any(SE_NAME.search(name) for name in _names(other))
                ):
                    out.append(float(const.value))
    return out


def problems_of(kind: str | None, why: str, node: ast.Assert) -> tuple[str, ...]:
    """What breaks the fixed form's rule for this kind (empty when the assert conforms)."""
    if kind is None:
        return ("no '# tol: KIND: why' comment on the assert or right above it",)
    if kind not in KINDS:
        return (f"kind {kind!r} is not one of {', '.join(KINDS)}",)
    problems = []
    if len(why.strip()) < MIN_REASON:
        problems.append(f"the reason {why.strip()!r} is too short to say where the margin comes from")
    floats = _float_literals(node.test)
    if kind == "rounding" and any(x > ROUNDING_LIMIT for x in floats):
        problems.append(f"a rounding tolerance above {ROUNDING_LIMIT:g}: {max(floats):g}")
    if kind == "se":
        stated = [float(m.group("k")) for m in SE_IN_REASON.finditer(why)]
        if not stated:
            problems.append("an 'se' reason must state the multiple of the standard error ('4 SE')")
        elif max(stated) > MAX_SE:
            problems.append(f"{max(stated):g} SE is above the {MAX_SE:g} SE the book allows")
        if not any(SE_NAME.search(name) for name in _names(node.test)):
            problems.append("the assert does not use a computed standard error (a name like se, sd, *_se)")
        big = [k for k in _se_multipliers(node.test) if k > MAX_SE]
        if big:
            problems.append(f"the assert multiplies the standard error by {max(big):g} > {MAX_SE:g}")
        if any(x > ROUNDING_LIMIT for x in floats) and "bias" not in why.lower():
            problems.append("a float margin beside the SE must be a stated, derived bias ('bias ...: why')")
    return tuple(problems)


def _reason(lines: list[str], first: int, last: int) -> tuple[str | None, str]:
    """The ``# tol:`` comment on lines ``first..last`` (1-based) or in the comment block above them."""
    candidates = list(range(first - 1, last))
    above = first - 2
    while above >= 0 and lines[above].lstrip().startswith("#"):
        candidates.append(above)
        above -= 1
    for i in candidates:
        match = TOL_COMMENT.search(lines[i])
        if match:
            return match.group("kind"), match.group("why").strip()
    return None, ""


def scan_text(text: str, path: str = "<page>") -> list[ToleranceAssert]:
    """Every assert with a tolerance in a MyST notebook's code cells, with its kind and problems."""
    found = []
    for start, source in code_cells(text):
        python = _python(source)
        lines = python.split("\n")
        try:
            tree = ast.parse(python)
        except SyntaxError as error:
            raise ValueError(
                f"{path}:{start + (error.lineno or 1) - 1}: a code cell does not parse: {error.msg}"
            ) from error
        for node in ast.walk(tree):
            if isinstance(node, ast.Assert) and has_tolerance(node):
                kind, why = _reason(lines, node.lineno, node.end_lineno or node.lineno)
                found.append(
                    ToleranceAssert(
                        path=path,
                        line=start + node.lineno - 1,
                        source=ast.get_source_segment(python, node) or "",
                        kind=kind,
                        why=why,
                        problems=problems_of(kind, why, node),
                    )
                )
    return sorted(found, key=lambda a: a.line)


def scan(pages: list[Path] | None = None, root: Path = ROOT) -> list[ToleranceAssert]:
    """The listing for the given pages (default: every chapter page of the book)."""
    out = []
    for page in pages if pages is not None else chapter_pages(root):
        try:
            rel = page.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            rel = str(page)
        out.extend(scan_text(page.read_text(encoding="utf-8"), rel))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m booktools tolerances",
        description="List every chapter assert that has a tolerance, with its stated reason.",
    )
    parser.add_argument("pages", nargs="*", type=Path, help="pages to scan (default: every chapter)")
    parser.add_argument("--problems", action="store_true", help="list only the asserts that break the form")
    args = parser.parse_args(argv)
    listing = scan([p.resolve() for p in args.pages] or None)
    bad = [a for a in listing if a.problems]
    for a in bad if args.problems else listing:
        print(f"{a.path}:{a.line}  [{a.kind or '-'}]  {a.why or '(no reason)'}")
        for problem in a.problems:
            print(f"    ! {problem}")
    counts = {kind: sum(a.kind == kind for a in listing) for kind in KINDS}
    summary = ", ".join(f"{n} {kind}" for kind, n in counts.items())
    print(f"{len(listing)} asserts with a tolerance ({summary}); {len(bad)} break the form", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
