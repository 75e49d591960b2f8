# The README's two commands. Each one sets up .venv on first use (or when
# requirements.txt changes), then does its job.
#   make book   build the book into _build/html
#   make test   run every test: the onlinelib unit tests and every chapter under nbval
#   make student  build the student edition (no solutions) into _build/student/_build/html
#   make pdf    print the built book into _build/html/online-learning.pdf (needs Chromium)
#   make checks build both editions and the PDF, then run the checks that need them
#   make requirements  recompile requirements.txt from requirements.in (pip-tools, own venv)
VENV ?= .venv
PYTHON ?= python3

.PHONY: book test student pdf checks clean requirements

$(VENV)/.installed: requirements.txt pyproject.toml
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -r requirements.txt
	touch $@

# Sphinx re-reads (and so re-executes) only the pages whose source changed, but every chapter's
# outputs also depend on the library: after a change in onlinelib/, _ext/ or the requirements
# (newer than the last successful build) the saved doctrees go, and every chapter runs again.
# Bytecode and numba caches (__pycache__/, written by any run, `make test` too) are no change.
LIBRARY_SOURCES = onlinelib _ext requirements.txt pyproject.toml
book: $(VENV)/.installed
	@if [ ! -f _build/.library-stamp ]; then rm -rf _build/.doctrees; \
	elif [ -n "$$(find $(LIBRARY_SOURCES) -newer _build/.library-stamp -not -path '*/__pycache__*' ! -name '*.pyc' -print -quit)" ]; then \
		echo "make book: onlinelib, _ext or the requirements changed since the last build: every chapter runs again"; \
		rm -rf _build/.doctrees; fi
	$(VENV)/bin/jupyter-book build .
	touch _build/.library-stamp

# Two workers (pytest-xdist), each test file, so each chapter's cells, kept on one of them.
test: $(VENV)/.installed
	$(VENV)/bin/pytest -n 2 --dist loadfile

student: $(VENV)/.installed
	$(VENV)/bin/python -m booktools student-edition

pdf: book
	$(VENV)/bin/python -m booktools pdf

# The tests of the built site that `make test` skips until the builds exist (CI runs them too).
checks: book student pdf
	BROWSER_CHECK_REQUIRED=1 $(VENV)/bin/pytest tests/test_build.py tests/test_browser.py tests/test_pdf.py \
		tests/test_student_edition.py

clean:
	rm -rf _build

# requirements.in lists the direct dependencies; pip-compile pins them and everything they need
# into requirements.txt, each pin with a "via" note. Pins already in requirements.txt are kept
# when they still fit (delete a line to upgrade that package). pip-tools runs in its own venv so
# it never lands in the book's environment (Binder's check wants exactly requirements.txt there).
PIP_TOOLS_VENV = _build/pip-tools
requirements: requirements.in
	test -x $(PIP_TOOLS_VENV)/bin/pip-compile || { $(PYTHON) -m venv $(PIP_TOOLS_VENV) && \
		$(PIP_TOOLS_VENV)/bin/pip install --quiet pip-tools==7.6.2; }
	CUSTOM_COMPILE_COMMAND="make requirements" $(PIP_TOOLS_VENV)/bin/pip-compile --quiet --strip-extras \
		--no-emit-index-url --no-emit-find-links --output-file requirements.txt requirements.in
