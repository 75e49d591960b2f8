"""The book's local Sphinx extensions (one module each; ``_config.yml`` lists them).

The build loads them as top-level modules: jupyter-book puts this folder on ``sys.path`` for
``sphinx: local_extensions``. The tests and the course tools import them from the repository
root as this package instead (``from _ext import widget_js``), with no ``sys.path`` change.
"""
