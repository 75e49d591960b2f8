"""The executed notebook records which cell glued each value (issue 28: the student edition's reuse).

myst-nb takes every ``glue(name, value, display=False)`` output out of its cell, into
``jupyter_execute/<page>.glue.json``, before it writes the executed notebook: the notebook no longer
says which cell glued what. The student edition reuses the outputs of a chapter's first cells (the
code it keeps) and must put back exactly their glued values, never one glued by a removed solution.
So this extension wraps myst-nb's glue extraction: just before it, the positions of the glue outputs
are stored in the notebook's metadata, as ``glue_outputs: {name: [code cell number, output index]}``,
and written with it (``booktools.student_edition.reuse_executed_outputs`` reads them).

It patches ``myst_nb.core.execute.base.extract_glue_data``, the one function myst-nb calls there
(myst-nb is pinned); if that name is gone the build stops here, rather than the reuse going wrong.
"""

from __future__ import annotations

from myst_nb.core.execute import base as execute_base

METADATA_KEY = "glue_outputs"


def glue_positions(notebook) -> dict[str, list[int]]:
    """``{name: [code cell number, output index]}`` of every glue output of an executed notebook."""
    found = {}
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    for number, cell in enumerate(code):
        for index, output in enumerate(cell.get("outputs", [])):
            scrapbook = output.get("metadata", {}).get("scrapbook")
            if scrapbook:
                found[scrapbook["name"]] = [number, index]  # as myst-nb, the last of a name counts
    return found


def _recording(extract):
    def extract_glue_data(notebook, source_map, logger):
        notebook.metadata[METADATA_KEY] = glue_positions(notebook)
        return extract(notebook, source_map, logger)

    extract_glue_data.recording = True
    return extract_glue_data


def setup(app):
    extract = getattr(execute_base, "extract_glue_data", None)
    if extract is None:
        raise RuntimeError("myst_nb.core.execute.base.extract_glue_data is gone: _ext/glue_cells.py needs updating")
    if not getattr(extract, "recording", False):  # once, however often the extension is loaded
        execute_base.extract_glue_data = _recording(extract)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
