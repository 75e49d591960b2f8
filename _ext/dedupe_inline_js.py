"""Write each inline <script> once per page.

Sphinx 7 writes an inline script that an extension adds once the HTML builder has
started (sphinx-thebe's ``const THEBE_JS_URL = ...``) twice on every page; the
second ``const`` is a SyntaxError in the browser. Fixed upstream in Sphinx 8.2
(sphinx-doc/sphinx#13402), which jupyter-book 1 (sphinx~=7.0) cannot use.
"""


def _dedupe_scripts(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not isinstance(scripts, list):
        return
    seen, unique = set(), []
    for js in scripts:
        key = (
            getattr(js, "filename", js) or "",
            tuple(sorted((k, str(v)) for k, v in getattr(js, "attributes", {}).items())),
        )
        if key not in seen:
            seen.add(key)
            unique.append(js)
    scripts[:] = unique


def setup(app):
    app.connect("html-page-context", _dedupe_scripts, priority=900)  # after the others add theirs
    return {"parallel_read_safe": True, "parallel_write_safe": True}
