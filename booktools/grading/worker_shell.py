"""The worker's IPython shell: the magics a graded notebook may use, and where a cell's error is.

Part of the sandboxed worker (``worker.py``, which loads this file by its path: the worker runs as a
script, in the sandbox, beside this file and nothing else of ``booktools``). It imports nothing of
``booktools`` either.

Each code cell runs through IPython's shell, as Jupyter runs it (``notebook_shell``): magics
that make sense offline (``%time``, ``%%capture``, ``%matplotlib``...), ``from __future__``
imports carried across cells, top-level ``await``, ``display`` and the value of a cell's last
expression (printed, like the student's output). Magics and ``!`` commands that reach outside
the notebook (a shell, files, other code, package installers) fail their cell with a reason that
names them: ``LINE_MAGICS`` and ``CELL_MAGICS`` list those allowed. ``cell_line`` finds the line
of the cell an error was at, and ``bound_names`` the names a cell's top-level code binds (what a
cell that raised may have left undefined).
"""

import ast
import re
import traceback

# The magics a graded notebook may use: each makes sense offline and runs only code the
# notebook shows. Everything else is refused with a reason (an allow-list, so that a magic
# IPython adds later is refused too). `obj?` and `obj??` are %pinfo and %pinfo2.
LINE_MAGICS = frozenset(
    {
        "time",
        "timeit",
        "matplotlib",
        "config",
        "precision",
        "pprint",
        "xmode",
        "colors",
        "autoawait",
        "who",
        "whos",
        "who_ls",
        "pinfo",
        "pinfo2",
        "pdoc",
        "pdef",
        "psource",
        "psearch",
        "env",
        "set_env",
        "pwd",
    }
)
CELL_MAGICS = frozenset(
    {
        "time",
        "timeit",
        "capture",
        "html",
        "HTML",
        "markdown",
        "latex",
        "svg",
        "SVG",
        "javascript",
        "js",
    }
)
# Common in notebook templates, harmless, and with nothing to do in a run from top to bottom:
# accepted and skipped, so that they cost nobody marks.
SKIPPED_LINE_MAGICS = frozenset({"load_ext autoreload", "reload_ext autoreload", "autoreload"})
# Why the common refused ones are refused; any other magic gets the general reason.
WHY_REFUSED = {
    **dict.fromkeys(
        (
            "!",
            "sx",
            "system",
            "bash",
            "sh",
            "script",
            "perl",
            "ruby",
            "python",
            "python2",
            "python3",
            "pypy",
            "alias",
            "unalias",
            "rehashx",
            "killbgscripts",
        ),
        "runs a shell command",
    ),
    **dict.fromkeys(("pip", "conda", "mamba", "micromamba", "uv"), "installs packages"),
    **dict.fromkeys(
        (
            "run",
            "load",
            "loadpy",
            "load_ext",
            "reload_ext",
            "unload_ext",
            "aimport",
            "edit",
            "ed",
            "macro",
            "rerun",
            "recall",
            "rep",
            "history",
            "hist",
            "code_wrap",
            "writefile",
            "file",
            "save",
            "store",
            "logstart",
            "logon",
            "logoff",
            "logstop",
            "logstate",
            "cd",
            "pushd",
            "popd",
            "dirs",
            "dhist",
            "bookmark",
            "pycat",
            "pfile",
            "notebook",
            "pastebin",
        ),
        "runs code or uses files from outside the notebook",
    ),
    **dict.fromkeys(("debug", "pdb"), "starts the interactive debugger"),
}
# Where %time and %%time compile the code they time.
TIMED_CODE = ("<timed exec>", "<timed eval>")


class RefusedMagic(Exception):
    """A magic or shell command that a graded notebook may not use; the message names it and says why."""


def refusal(shown: str, name: str) -> str:
    """Why ``shown`` (e.g. ``!ls`` or ``%run x.py``, whose magic is ``name``) is refused, for the student."""
    shown = " ".join(shown.split())
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    if name in WHY_REFUSED:
        return f"`{shown}` {WHY_REFUSED[name]}, which a graded notebook may not do; remove it"
    return (
        f"`{shown}` is not one of the magics the grader runs (those that make sense offline, such as "
        "%time, %timeit, %%capture and %matplotlib); remove it"
    )


class GradingShellMixin:
    """What the worker changes in IPython's ``InteractiveShell`` (``notebook_shell`` puts it first in the MRO).

    No IPython folder or profile, no virtualenv or GUI set-up, no traceback printed (the worker
    reports each error itself, in one line), ``exit()`` raises ``SystemExit``; magics, ``!``
    commands and the ``get_ipython()`` methods that run them pass through the allow-lists.
    """

    cell_name = cell_source = None  # the running cell's filename and source
    refused = None  # (message, line) of the running cell's first refused magic

    def init_ipython_dir(self, ipython_dir):
        pass  # no ~/.ipython: nothing here needs a profile

    def init_profile_dir(self, profile_dir):
        self.profile_dir = None

    def init_virtualenv(self):
        pass  # the grader has set sys.path

    def enable_gui(self, gui=None):
        pass  # %matplotlib runs as %matplotlib inline: there is no screen to draw on

    def ask_exit(self):
        raise SystemExit  # exit() and quit() stop the notebook, as a script's would

    def showtraceback(self, *args, **kwargs):
        pass  # the worker reports the error itself, in one line

    showsyntaxerror = showindentationerror = showtraceback

    def run_notebook_cell(self, name: str, source: str):
        """Run one cell as Jupyter would, its code named ``name`` in tracebacks; IPython's ExecutionResult."""
        self.cell_name = self.compile.next_name = name
        self.cell_source, self.refused = source, None
        return self.run_cell(source, store_history=True)

    def refuse(self, shown: str, name: str):
        message = refusal(shown, name)
        if self.refused is None:
            self.refused = (message, cell_line(traceback.extract_stack(), self.cell_name, self.cell_source))
        raise RefusedMagic(message)

    def system(self, cmd):
        self.refuse("!" + cmd, "!")

    system_piped = system_raw = system

    def getoutput(self, cmd, split=True, depth=0):
        self.refuse("!" + cmd, "!")

    def run_line_magic(self, magic_name, line, _stack_depth=1):
        if magic_name == "autoreload" or f"{magic_name} {line.strip()}" in SKIPPED_LINE_MAGICS:
            return None
        if magic_name == "matplotlib":
            line = "inline"
        elif magic_name not in LINE_MAGICS:
            self.refuse(f"%{magic_name} {line}", magic_name)
        # one frame deeper than IPython expects: %time runs its statement in the caller's scope
        return super().run_line_magic(magic_name, line, _stack_depth + 1)

    def run_cell_magic(self, magic_name, line, cell):
        if magic_name not in CELL_MAGICS:
            self.refuse(f"%%{magic_name} {line}", magic_name)
        return super().run_cell_magic(magic_name, line, cell)

    def find_magic(self, magic_name, magic_kind="line"):
        allowed = LINE_MAGICS if magic_kind == "line" else CELL_MAGICS
        return super().find_magic(magic_name, magic_kind) if magic_name in allowed else None

    def find_line_magic(self, magic_name):
        return self.find_magic(magic_name, "line")

    def find_cell_magic(self, magic_name):
        return self.find_magic(magic_name, "cell")


def notebook_shell():
    """IPython's shell, set up to run a notebook's cells in the sandbox as Jupyter runs them.

    IPython is imported here, after the worker is ready: 0.05 to 0.08 s of CPU. The shell
    keeps no history, creates no IPython folder or profile (nothing is written under $HOME),
    uses no colours and shows only the text form of outputs, which go to standard output
    (the grader's capped pipe). Its magics, ``!`` commands and ``get_ipython()`` methods that
    run them pass through the allow-lists above: a refusal is recorded in ``shell.refused``
    (the message and the line of the running cell) before it raises ``RefusedMagic``, so
    that the cell fails even if the student's code catches the exception.

    Returns
    -------
    InteractiveShell
        The process's IPython shell, whose ``user_ns`` is the notebook's namespace. Run a
        cell with ``shell.run_notebook_cell(name, source)``.
    """
    import warnings

    from IPython.core.compilerop import CachingCompiler
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets import Type
    from traitlets.config import Config

    class CellCompiler(CachingCompiler):
        """IPython's compiler (it carries ``from __future__`` imports across cells), naming a cell as asked."""

        next_name = None

        def get_code_name(self, raw_code, transformed_code, number):
            # only the notebook's own cell gets its name; a cell %%capture runs inside it keeps IPython's
            name, self.next_name = self.next_name, None
            return name or super().get_code_name(raw_code, transformed_code, number)

    class GradingShell(GradingShellMixin, InteractiveShell):
        compiler_class = Type(CellCompiler)

    config = Config()
    config.HistoryManager.enabled = False
    config.HistoryManager.hist_file = ":memory:"
    config.InteractiveShell.colors = "nocolor"
    config.DisplayFormatter.active_types = ["text/plain"]  # no PNG of every figure: nobody looks at it
    warnings.filterwarnings("ignore", "To exit: use 'exit', 'quit', or Ctrl-D", UserWarning)
    shell = GradingShell.instance(config=config)
    shell.set_hook(
        "show_in_pager",
        lambda _shell, data, start=0, screen_lines=0: print(
            data.get("text/plain", "") if isinstance(data, dict) else data
        ),
    )
    return shell


def leading_blank_lines(source: str) -> int:
    """How many blank lines start the cell: IPython drops them, so its line numbers are off by this many."""
    count = 0
    for line in source.splitlines():
        if line and not line.isspace():
            break
        count += 1
    return count


def cell_line(frames, cell_name: str, source: str):
    """The line of the cell (its own numbering) that a stack or a traceback was at; None if not in the cell.

    Parameters
    ----------
    frames : list of traceback.FrameSummary
        The frames, outermost first (``traceback.extract_tb`` or ``extract_stack``).
    cell_name, source : str
        The filename of the cell's code, and the cell's source.
    """
    line = base = None
    for frame in frames:
        if frame.filename == cell_name:
            line = base = frame.lineno
        elif frame.filename in TIMED_CODE and base is not None:
            # %%time's body starts on the line after the magic, %time's statement is on the magic's line
            line = base + frame.lineno - (0 if source.lstrip().startswith("%%") else 1)
    return None if line is None else line + leading_blank_lines(source)


# A top-level `def NAME`, `class NAME` or `NAME =` / `NAME: T =` at the start of a line: the names a
# cell that does not compile was meant to define.
_DEFINITION = re.compile(r"^(?:(?:async\s+)?def|class)\s+([A-Za-z_]\w*)|^([A-Za-z_]\w*)\s*(?::[^=\n]*)?=(?!=)", re.M)
# Scopes of their own: what they bind is not the notebook's.
_NESTED = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def bound_names(shell, source: str, limit: int = 50) -> list:
    """The names the top-level code of a cell binds (at most ``limit``), found without running it.

    ``def`` and ``class`` statements, assignments (``for`` targets, ``with ... as``, ``except ... as``
    included), imports, at the top level or inside top-level ``if``, ``for``, ``while``, ``with`` and
    ``try`` blocks; not what a function, class or comprehension binds in its own scope. The cell is
    read as IPython compiles it (magics turned into calls). A cell that does not compile binds
    nothing; the names it was meant to define are read from its lines that start with ``def NAME``,
    ``class NAME`` or ``NAME =``.
    """
    try:
        tree = ast.parse(shell.transform_cell(source))
    except Exception:  # noqa: BLE001 - a syntax error, or IPython's transformer failed on it
        names = [a or b for a, b in _DEFINITION.findall(source)]
        return list(dict.fromkeys(names))[:limit]
    names = []
    pending = list(ast.iter_child_nodes(tree))
    while pending and len(names) < 4 * limit:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
            continue
        if isinstance(node, _NESTED):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.append(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names += [alias.asname or alias.name.split(".")[0] for alias in node.names if alias.name != "*"]
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.append(node.name)
        pending += list(ast.iter_child_nodes(node))
    return list(dict.fromkeys(names))[:limit]
