"""The package's layout (issue 18): explorers apart, every ``__all__`` honest, a light ``import onlinelib``.

* Only ``onlinelib/explorers.py`` imports ipywidgets, and only inside its functions, so the
  library, the chapters' experiments and the tests run without it.
* Every ``__all__`` of every module (subpackages included) names things that exist, and every
  name the package re-exports is in the ``__all__`` of the module that defines it.
* ``import onlinelib`` loads neither ipywidgets, matplotlib, numba nor scipy's slow parts.
* CONTRIBUTING.md's Layout has one line per module of onlinelib and booktools, and onlinelib never
  imports booktools (the lecturer's tools, which students do not install).
"""

import ast
import importlib
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import onlinelib

PACKAGE = Path(onlinelib.__file__).parent
EXPLORERS = PACKAGE / "explorers.py"


def _imported_modules(tree: ast.AST) -> list[tuple[str, int]]:
    """(module, line) for every ``import m`` and ``from m import ...`` anywhere in the tree."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, node.lineno))
    return found


def _is_ipywidgets(module: str) -> bool:
    return module == "ipywidgets" or module.startswith("ipywidgets.")


def test_only_explorers_imports_ipywidgets():
    sources = sorted(PACKAGE.rglob("*.py"))
    assert EXPLORERS in sources and PACKAGE / "chapters" / "winnow.py" in sources
    offenders = []
    for path in sources:
        for module, line in _imported_modules(ast.parse(path.read_text(encoding="utf-8"))):
            if _is_ipywidgets(module) and path != EXPLORERS:
                offenders.append(f"{path.relative_to(PACKAGE.parent)}:{line}")
    assert not offenders, f"only onlinelib/explorers.py may import ipywidgets: {offenders}"


def test_explorers_import_ipywidgets_inside_their_functions_only():
    tree = ast.parse(EXPLORERS.read_text(encoding="utf-8"))
    outside = [node for node in tree.body if not isinstance(node, (ast.FunctionDef, ast.ClassDef))]
    top_level = [module for node in outside for module, _ in _imported_modules(node)]
    assert not any(_is_ipywidgets(module) for module in top_level), top_level
    inside = [module for module, _ in _imported_modules(tree)]
    assert inside.count("ipywidgets") >= 9, "draw_on_demand and the eight explorers build ipywidgets"


def _all_modules() -> list:
    names = ["onlinelib"] + [info.name for info in pkgutil.walk_packages(onlinelib.__path__, "onlinelib.")]
    return [importlib.import_module(name) for name in names]


def test_every_all_is_consistent_with_the_package():
    """Every ``__all__`` names something that exists, in every module and subpackage; what the
    package re-exports is in the ``__all__`` of the module that defines it."""
    modules = _all_modules()
    names = {module.__name__ for module in modules}
    assert {
        "onlinelib.adversaries",
        "onlinelib.observers",
        "onlinelib.explorers",
        "onlinelib.chapters.mistake_bounds",
        "onlinelib.chapters.learning_curves",
    } <= names
    dangling = [
        f"{module.__name__}.{name}"
        for module in modules
        for name in getattr(module, "__all__", ())
        if not hasattr(module, name)
    ]
    missing = []
    for name in onlinelib.__all__:
        home = getattr(getattr(onlinelib, name), "__module__", None)
        if home and home.startswith("onlinelib.") and name not in getattr(sys.modules[home], "__all__", ()):
            missing.append(f"{home}.{name}")
    assert not dangling and not missing, (dangling, missing)


def test_the_package_exports_no_name_twice_and_lists_every_public_name():
    assert len(onlinelib.__all__) == len(set(onlinelib.__all__))
    public = {name for name in vars(onlinelib) if not name.startswith("_")}
    modules = {info.name for info in pkgutil.iter_modules(onlinelib.__path__)}
    assert public - modules - set(onlinelib.__all__) == set()


def test_import_onlinelib_stays_light():
    """Measured before issue 18's layout change: none of these was loaded by ``import onlinelib``;
    the chapter-8 names it re-exports load scipy.integrate and scipy.optimize on first use."""
    heavy = ["ipywidgets", "matplotlib", "numba", "scipy.stats", "scipy.integrate", "scipy.optimize"]
    script = (
        "import sys, onlinelib as ol\n"
        f"print([m for m in {heavy!r} if m in sys.modules])\n"
        "ol.power_schedule\n"
        "print('onlinelib.learning_curves' in sys.modules)\n"
    )
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert ran.stdout.split("\n")[:2] == ["[]", "True"], ran.stdout


BOOK = PACKAGE.parent / "book"


def test_every_chapter_imports_onlinelib_one_way():
    """A chapter reaches the library as ``ol.X``, its own experiments as ``chapter.X`` and its
    panel from ``onlinelib.explorers``; no other onlinelib import (issue 18: chapters mixed
    ``ol.X``, ``hd.X``, ``lc.X`` and ``from onlinelib.widgets_* import``)."""
    from booktools.notebooks import read_notebook

    # A chapter module is named after its page; a module without a page is a part of one (re-exported by it).
    chapters = sorted(
        info.name
        for info in pkgutil.iter_modules(importlib.import_module("onlinelib.chapters").__path__)
        if (BOOK / f"{info.name}.md").is_file()
    )
    assert len(chapters) == 8, chapters
    offenders = []
    for name in chapters:
        allowed = {"onlinelib": "ol", f"onlinelib.chapters.{name}": "chapter"}
        with open(BOOK / f"{name}.md", encoding="utf-8") as fp:
            notebook = read_notebook(fp)
        for cell in notebook.cells:
            if cell.cell_type != "code":
                continue
            source = "\n".join(line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!")))
            for node in ast.walk(ast.parse(source)):
                if isinstance(node, ast.Import):
                    offenders += [
                        f"{name}.md: import {a.name} as {a.asname}"
                        for a in node.names
                        if a.name.startswith("onlinelib") and allowed.get(a.name) != a.asname
                    ]
                elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("onlinelib"):
                    for a in node.names:
                        full = f"{node.module}.{a.name}"
                        if node.module == "onlinelib.explorers" and a.name.endswith("_explorer"):
                            continue
                        if allowed.get(full) != (a.asname or a.name):
                            offenders.append(f"{name}.md: from {node.module} import {a.name}")
    assert not offenders, offenders


ROOT = PACKAGE.parent


def _layout_files() -> set[str]:
    """The files CONTRIBUTING.md's Layout section lists under onlinelib/ and booktools/ (paths from the root).

    The section is one code block: a package starts a line at column 0 (``booktools/``), its
    modules and subfolders follow indented by two (``  checks.py``, ``  learning_curves/``), a
    subfolder's modules by four; continuation lines are indented further and name no file."""
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = text[text.index("\n## Layout") :]
    block = section[section.index("```") + 3 :]
    block = block[: block.index("```")]
    listed, package, folder = set(), None, None
    for line in block.splitlines():
        match = re.match(r"( *)(\S+)", line)
        if not match:
            continue
        indent, name = len(match.group(1)), match.group(2)
        if indent == 0:
            package, folder = (name if name in ("onlinelib/", "booktools/") else None), None
        elif package and indent == 2 and name.endswith("/"):
            folder = package + name
        elif package and indent == 2 and name.endswith(".py"):
            listed.add(package + name)
            folder = None
        elif package and folder and indent == 4 and name.endswith(".py"):
            listed.add(folder + name)
    return listed


def test_the_readme_layout_lists_every_module_of_the_library_and_the_tools():
    """One line per module (DESIGN.md): every module of onlinelib and booktools, and of
    onlinelib/learning_curves/ and onlinelib/grading/, is in CONTRIBUTING.md's Layout, and every
    file listed there exists. ``booktools/__init__.py`` and ``__main__.py`` are named on the
    ``booktools/`` line itself; the chapter modules on the ``chapters/`` line."""
    listed = _layout_files()
    modules = {
        path.relative_to(ROOT).as_posix()
        for folder in ("onlinelib", "booktools", "onlinelib/learning_curves", "onlinelib/grading", "booktools/grading")
        for path in (ROOT / folder).glob("*.py")
    }
    modules -= {
        "booktools/__init__.py",
        "booktools/__main__.py",
        "onlinelib/learning_curves/__init__.py",
        "onlinelib/grading/__init__.py",
        "booktools/grading/__init__.py",
    }
    assert {
        "onlinelib/grading/compare.py",
        "booktools/grading/checks.py",
        "onlinelib/learning_curves/theory.py",
    } <= listed
    assert not modules - listed, f"modules without their line in CONTRIBUTING.md's Layout: {sorted(modules - listed)}"
    assert not listed - modules, f"CONTRIBUTING.md's Layout lists files that do not exist: {sorted(listed - modules)}"


def test_the_library_never_imports_the_course_tools():
    """Students install onlinelib without booktools (issue 23): the grading engine that only the
    lecturer runs lives in booktools and imports onlinelib.grading, never the other way round."""
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for module, line in _imported_modules(ast.parse(path.read_text(encoding="utf-8"))):
            if module == "booktools" or module.startswith("booktools."):
                offenders.append(f"{path.relative_to(ROOT)}:{line}")
    assert not offenders, offenders
