"""booktools: the course's own tooling, apart from the library ``onlinelib``.

Run as ``python -m booktools COMMAND`` from any folder of the repository, with the book's
environment (its editable install puts the repository root on ``sys.path``; the wheel holds
onlinelib only); ``python -m booktools --help`` lists the commands. Each module also has a
``main(argv)`` that tests call directly.

- ``grade``: grades a folder of submitted notebooks (the package ``grading``: its command line,
  sandbox, worker, judge, outputs, written answers and ``checks``, the hidden tests' engine);
- ``student-edition``: strips solutions and lecturer-only material, builds the student edition;
- ``pdf``: prints the built book into one PDF;
- ``browser-check``: opens every built page in headless Chromium (offline, axe, screenshots);
- ``binder-check``: does what Binder does, in a fresh environment.

Shared by the commands, the root ``conftest.py`` and the tests:

- ``toc``: the pages of ``_toc.yml`` in reading order, read by ``sphinx_external_toc``'s parser;
- ``notebooks``: which files are MyST notebooks (myst-nb's rule) and the notebook jupytext reads.
"""
