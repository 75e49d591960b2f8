"""The student edition reuses the full build's outputs where they are still right (issue 28).

:func:`reuse_executed_outputs` puts into a jupyter-cache the executed notebook of every student page
whose code is the full page's (the stripping removed only code after it) and whose full build is
newer than its sources; :func:`use_cache` makes the student build read that cache (myst-nb's cache
mode), so it executes only the pages that changed or lost code. ``booktools/student_edition.py``
calls both.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml

from _ext.chapter_modules import library_files, output_sources

ROOT = Path(__file__).resolve().parents[1]

DEFAULT_EXECUTED = Path("_build/jupyter_execute")  # where `make book` leaves the executed notebooks
CACHE_NAME = ".jupyter_cache"  # the student build's jupyter-cache, under --out
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _code_cells(nb) -> list[tuple[str, dict]]:
    return [(c.source, dict(c.metadata)) for c in nb.cells if c.cell_type == "code"]


def _read_notebook(text: str, config: dict):
    """A MyST notebook's cells as myst-nb reads them in the build (with the book's MyST extensions)."""
    from myst_nb.core.read import read_myst_markdown_notebook
    from myst_parser.config.main import MdParserConfig

    extensions = ((config.get("parse") or {}).get("myst_enable_extensions")) or []
    return read_myst_markdown_notebook(text, config=MdParserConfig(enable_extensions=list(extensions)))


def reuse_executed_outputs(root: Path, src_out: Path, cache: Path, executed: Path | None = None) -> dict[str, str]:
    """Put into the jupyter-cache ``cache`` the full build's outputs of every student page that can reuse them.

    A page of the stripped sources ``src_out`` reuses the executed notebook of the full build
    (``executed``, default ``ROOT/_build/jupyter_execute``) when all of these hold:

    * its code cells, source and metadata, are the first code cells of the full page, in order:
      any code the stripping removed (solutions, lecturer-only cells) came after every cell it
      kept. The kernel runs cells in order, so the kept cells ran in the full build exactly as
      they run in the student edition, before any removed code, and their outputs are the same
      (the chapters seed every random draw);
    * the executed notebook ran exactly the full page's code, and no removed cell drew a widget
      (the page's saved widget state would hold it);
    * it records which cell glued each value (``_ext/glue_cells.py``): myst-nb keeps the values
      glued with ``display=False`` apart, and only those of kept cells go back into the page;
    * the executed notebook is newer than every file its outputs depend on
      (``_ext/chapter_modules.output_sources``: the page, the library, the chapter's module).

    The student build then runs in myst-nb's ``cache`` mode: jupyter-cache matches a page by its
    code cells and merges the stored outputs in, and executes (and checks) every page it has
    not got. Returns ``{page: "reused" or why it runs}``, for every page with code cells.
    """
    import nbformat
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    from booktools.student_edition import SKIP_NAMES  # here: student_edition imports this module

    root, src_out = root.resolve(), src_out.resolve()
    executed = (executed or root / DEFAULT_EXECUTED).resolve()
    config = yaml.safe_load((src_out / "_config.yml").read_text(encoding="utf-8")) or {}
    if cache.exists():
        shutil.rmtree(cache)
    store = get_cache(str(cache))
    library = library_files(root)  # the same for every page: listed once
    verdicts = {}
    for page in sorted(src_out.rglob("*.md")):
        rel = page.relative_to(src_out)
        text = page.read_text(encoding="utf-8")
        if "{code-cell}" not in text or any(part in SKIP_NAMES for part in rel.parts):
            continue
        student = _read_notebook(text, config)
        if not _code_cells(student):
            continue
        full_page, done = root / rel, executed / rel.with_suffix(".ipynb")
        if not done.is_file():
            verdicts[str(rel)] = "runs: the full build has not executed it"
            continue
        kept, full = _code_cells(student), _code_cells(_read_notebook(full_page.read_text(encoding="utf-8"), config))
        if full[: len(kept)] != kept:
            verdicts[str(rel)] = "runs: it keeps code that comes after code the student edition removed"
            continue
        newer = [f for f in output_sources(root, full_page, library) if f.stat().st_mtime_ns >= done.stat().st_mtime_ns]
        if newer:
            verdicts[str(rel)] = f"runs: {newer[0].relative_to(root)} changed after the full build executed it"
            continue
        ran = json.loads(done.read_text(encoding="utf-8"))
        ran_cells = [c for c in ran["cells"] if c["cell_type"] == "code"]
        if ["".join(c["source"]) for c in ran_cells] != [source for source, _ in full]:
            verdicts[str(rel)] = "runs: the full build executed other code"
            continue
        if any(WIDGET_VIEW in output.get("data", {}) for c in ran_cells[len(kept) :] for output in c["outputs"]):
            verdicts[str(rel)] = "runs: code the student edition removed drew a widget (its state is the page's)"
            continue
        glued = _glued_outputs(ran, done.with_suffix(".glue.json"), len(kept))
        if glued is None:
            verdicts[str(rel)] = "runs: the full build did not record which cells glued its values (_ext/glue_cells.py)"
            continue
        code = [cell for cell in student.cells if cell.cell_type == "code"]
        for cell, ran_cell in zip(code, ran_cells, strict=False):  # the kept cells: removed ones are never read
            cell.outputs, cell.execution_count = ran_cell["outputs"], ran_cell["execution_count"]
        for (number, index), output in sorted(glued.items()):  # in order, so each lands where it was
            code[number].outputs.insert(index, output)
        for key in ("language_info", "widgets"):
            if key in ran.get("metadata", {}):
                student.metadata[key] = ran["metadata"][key]
        store.cache_notebook_bundle(
            CacheBundleIn(nbformat.from_dict(student), str(page), data={"reused_from": str(done)}),
            check_validity=False,
            overwrite=True,
        )
        verdicts[str(rel)] = "reused"
    return verdicts


def _glued_outputs(ran: dict, glue_file: Path, kept: int) -> dict[tuple[int, int], dict] | None:
    """The glue outputs myst-nb took out of the kept cells (the first ``kept`` code cells) of an executed notebook.

    ``{(code cell number, output index): output}``, each output as the kernel wrote it (its mime
    prefix put back), for the values the kept cells glued with ``display=False``; displayed ones
    are still in their cells. None if the notebook does not record where its glue outputs were
    (built without ``_ext/glue_cells.py``), or the record does not match ``glue_file``.
    """
    from _ext.glue_cells import METADATA_KEY

    positions = ran.get("metadata", {}).get(METADATA_KEY)
    data = json.loads(glue_file.read_text(encoding="utf-8")) if glue_file.is_file() else {}
    if positions is None or set(positions) != set(data):
        return None
    glued = {}
    for name, (number, index) in positions.items():
        output = data[name]
        prefix = output.get("metadata", {}).get("scrapbook", {}).get("mime_prefix", "")
        if number < kept and prefix:
            glued[(number, index)] = {**output, "data": {prefix + mime: v for mime, v in output["data"].items()}}
    return glued


def use_cache(config_path: Path, cache: Path) -> None:
    """Make a copy's build take outputs from the jupyter-cache ``cache`` (myst-nb's cache mode)."""
    config = yaml.safe_load(config_path.read_text(encoding="utf-8")) or {}
    execute = config.setdefault("execute", {})
    execute["execute_notebooks"] = "cache"
    execute["cache"] = str(cache)
    config_path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
