"""The copy of ``onlinelib`` a submission sees: what the assignment asks the student to write is stubbed out."""

from __future__ import annotations

import ast
import compileall
import shutil
from pathlib import Path

import onlinelib

# -- the library a submission sees ---------------------------------------------------------------

_FORBIDDEN_MODULE = '''"""Written by booktools/grading/library.py: what a graded submission may not use."""
USED = []


class ForbiddenInAssignment(RuntimeError):
    """Raised by a part of onlinelib that the assignment asks the student to write."""


def forbidden(name, assignment):
    USED.append(name)
    raise ForbiddenInAssignment(
        f"{name} is part of what assignment {assignment!r} asks you to write, so it is not "
        "available when your notebook is graded: write it yourself"
    )


class ForbiddenClass(type):
    def __getattr__(cls, attribute):
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        forbidden(cls._forbidden_name, cls._forbidden_assignment)
'''


def resolve_forbidden(names) -> dict[str, set[str] | None]:
    """Map each module of onlinelib to the qualified names to remove from it (None: the whole module).

    ``names`` are public spellings, e.g. ``"onlinelib.Halving"``,
    ``"onlinelib.version_space"`` or ``"onlinelib.DirectedDriftChain.expected_mistakes"``.
    """
    import importlib

    out: dict[str, set[str] | None] = {}
    for name in names:
        if not isinstance(name, str) or not (name == "onlinelib" or name.startswith("onlinelib.")):
            raise ValueError(f"FORBIDDEN entries must name a part of onlinelib, e.g. 'onlinelib.Halving', got {name!r}")
        try:
            module = importlib.import_module(name)
            if module.__name__ == "onlinelib":
                raise ValueError("FORBIDDEN cannot remove all of onlinelib")
            out[module.__name__] = None
            continue
        except ImportError:
            pass
        parts = name.split(".")
        obj = onlinelib
        for part in parts[1:]:
            if not hasattr(obj, part):
                raise ValueError(f"FORBIDDEN entry {name!r}: onlinelib has no {part!r} there")
            obj = getattr(obj, part)
        obj = getattr(obj, "fget", obj)  # a property: its getter
        module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
        if not (module and qualname and module.startswith("onlinelib")) or "<locals>" in qualname:
            raise ValueError(f"FORBIDDEN entry {name!r} is not a class, function or method defined in onlinelib")
        if out.get(module, set()) is not None:
            out.setdefault(module, set()).add(qualname)
    return out


def _stub_function(node, label: str, assignment: str):
    keep = [
        d
        for d in node.decorator_list
        if isinstance(d, ast.Name) and d.id in ("property", "staticmethod", "classmethod")
    ]
    source = f"def {node.name}(*args, **kwargs):\n    _forbidden_.forbidden({label!r}, {assignment!r})\n"
    stub = ast.parse(source).body[0]
    stub.decorator_list = keep
    return stub


def _stub_class(node, label: str, assignment: str):
    source = (
        f"class {node.name}(metaclass=_forbidden_.ForbiddenClass):\n"
        f"    {('Removed for grading: ' + label)!r}\n"
        f"    _forbidden_name = {label!r}\n"
        f"    _forbidden_assignment = {assignment!r}\n"
        f"    def __new__(cls, *args, **kwargs):\n"
        f"        _forbidden_.forbidden({label!r}, {assignment!r})\n"
    )
    return ast.parse(source).body[0]


def _strip_module(tree, qualnames, module_label: str, assignment: str) -> int:
    """Replace the named definitions (all top-level ones if qualnames is None); return how many."""
    count = 0

    def visit(body, prefix):
        nonlocal count
        for i, node in enumerate(body):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            qualname = prefix + node.name
            label = f"{module_label}.{qualname}"
            if qualnames is None or qualname in qualnames:
                stub = _stub_class if isinstance(node, ast.ClassDef) else _stub_function
                body[i] = stub(node, label, assignment)
                count += 1
            elif isinstance(node, ast.ClassDef) and any(q.startswith(qualname + ".") for q in qualnames):
                visit(node.body, qualname + ".")

    visit(tree.body, "")
    # the stubs' one import, after any `from __future__` line and the docstring
    at = 0
    while at < len(tree.body) and (
        isinstance(tree.body[at], ast.ImportFrom)
        and tree.body[at].module == "__future__"
        or at == 0
        and isinstance(tree.body[0], ast.Expr)
        and isinstance(tree.body[0].value, ast.Constant)
    ):
        at += 1
    tree.body.insert(at, ast.parse("from onlinelib import _forbidden as _forbidden_").body[0])
    return count


def assignment_library(forbidden, assignment: str, dest: Path) -> dict[str, int]:
    """Write ``dest/onlinelib``: onlinelib with the ``forbidden`` parts replaced by stubs.

    Returns the number of definitions removed per module. The copy holds no bytecode of
    the originals (its own is compiled afresh), and ``onlinelib/_forbidden.py`` records
    every use of a stub in ``USED``.
    """
    targets = resolve_forbidden(forbidden)
    source_dir = Path(onlinelib.__file__).resolve().parent
    package = dest / "onlinelib"
    package.mkdir(parents=True)
    for path in sorted(source_dir.rglob("*.py")):  # subpackages (learning_curves/) too
        (package / path.relative_to(source_dir)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, package / path.relative_to(source_dir))
    (package / "_forbidden.py").write_text(_FORBIDDEN_MODULE, encoding="utf-8")
    removed = {}
    for module, qualnames in targets.items():
        path = package.joinpath(*module.split(".")[1:])
        path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        removed[module] = _strip_module(tree, qualnames, module, assignment)
        path.write_text(ast.unparse(tree) + "\n", encoding="utf-8")
    compileall.compile_dir(str(package), quiet=1, workers=1)
    for path in dest.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    dest.chmod(0o755)
    return removed
