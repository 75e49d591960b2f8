"""A folded cell's summary says what it holds: "Show the check", "Show the plot code" (issue 28).

myst-nb folds a ``hide-input`` cell under one prompt for every cell, "Show code cell source".
The chapters tag each folded cell with what it is, beside ``hide-input``:

* ``check``: the cell asserts a step of a proof (it has ``assert`` lines);
* ``plot``: the cell draws a figure (it carries ``mystnb: image``/``figure`` alt text);
* ``setup``: the chapter's imports; ``helper``: functions later cells use;
  ``experiment``: a computation that a later check or figure reads.

This post-transform sets myst-nb's per-cell prompts from those tags before myst-nb's own
``HideInputCells`` (priority 199) turns the cell into a ``<details>``, e.g. ``check`` and ``plot``
together give "Show the check and the plot code". A folded cell without a kind tag keeps
myst-nb's prompt; ``tests/test_reader_first.py`` requires the tags, tells them to match the
cell's code, and keeps JupyterLab's own fold, ``jupyter.source_hidden``, in step with
``hide-input``.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

# Each kind tag, in the order they are named, and what the summary calls it.
KINDS = {
    "check": "the check",
    "plot": "the plot code",
    "setup": "the imports",
    "helper": "the helper code",
    "experiment": "the experiment code",
}


def fold_prompts(tags) -> tuple[str, str] | None:
    """The (show, hide) prompts of a folded cell with these tags, or None if it has no kind tag."""
    named = [KINDS[kind] for kind in KINDS if kind in (tags or ())]
    if not named:
        return None
    what = " and ".join(named)
    return f"Show {what}", f"Hide {what}"


class FoldLabels(SphinxPostTransform):
    """Set the prompts of folded code cells from their kind tags."""

    default_priority = 150  # before myst_nb.sphinx_.HideInputCells (199), which reads them
    formats = ("html",)

    def run(self, **kwargs) -> None:
        for node in self.document.findall(nodes.container):
            if node.get("nb_element") != "cell_code" or not node.get("hide_mode"):
                continue
            prompts = fold_prompts((node.get("cell_metadata") or {}).get("tags"))
            if prompts is not None:
                node["prompt_show"], node["prompt_hide"] = prompts


def setup(app):
    app.add_post_transform(FoldLabels)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
