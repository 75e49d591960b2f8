# The README's two commands. Each one sets up .venv on first use (or when
# requirements.txt changes), then does its job.
#   make book   build the book into _build/html
#   make test   run every test: the onlinelib unit tests and every chapter under nbval
#   make student  build the student edition (no solutions) into _build/student/_build/html
#   make student-repo  write the student repository (no solutions; git) into STUDENT_REPO (../<this folder>-student)
#   make handouts  write every assignment's hand-out (no solutions) into _build/handouts
#   make slides  build every chapter's reveal.js deck into _build/slides (figures from `make book`)
#   make pdf    print the built book into _build/html/online-learning.pdf (needs Chromium)
#   make student-pdf  print the student edition into _build/student/_build/html/online-learning.pdf
#               (either one without the API reference: make pdf LEAVE_OUT=book/api)
#   make checks build both editions and the PDF, then run the checks that need them
#   make release VERSION=X.Y.Z  at the tag vX.Y.Z: the changelog's section, the student PDF, the
#               hand-outs and slides zips and SHA256SUMS into _build/release (DRY_RUN=1: rehearse anywhere)
#   make requirements  recompile requirements.txt and binder/requirements.txt (pip-tools, own venv)
# PYTHON is the interpreter that makes the venvs (3.11 or newer): `make book PYTHON=python3.11`.
VENV ?= .venv
PYTHON ?= python3
PIP_VERSION = 26.3

.PHONY: book test student student-repo handouts slides pdf student-pdf checks clean requirements FORCE

# bash with pipefail: a command piped through a filter (`make book`) still fails when it fails.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c

# The pins need Python 3.11 or newer. CHECK_PYTHON stops with one line that says what to do.
GOAL = $(firstword $(MAKECMDGOALS) book)
CHECK_PYTHON = $(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || { \
	found=$$($(PYTHON) -c 'import sys; print(sys.version.split()[0] + " at " + sys.executable)' 2>/dev/null) || \
		found="no $(PYTHON) command"; \
	echo "this book needs Python >= 3.11; found $$found; run e.g. \`make $(GOAL) PYTHON=python3.11\`" >&2; exit 1; }

# major.minor of PYTHON and of the venv's python (empty if it is missing or no longer runs). A venv
# made by another Python, such as the 3.10 one of an earlier attempt, is made again, not kept.
MINOR = -c 'import sys; print("%d.%d" % sys.version_info[:2])'
PYTHON_MINOR := $(shell $(PYTHON) $(MINOR) 2>/dev/null)
VENV_MINOR := $(shell $(VENV)/bin/python $(MINOR) 2>/dev/null)
ifneq ($(PYTHON_MINOR),$(VENV_MINOR))
$(VENV)/.installed: FORCE
endif

$(VENV)/.installed: requirements.txt pyproject.toml
	@$(CHECK_PYTHON)
	@if [ -e $(VENV) ] && [ "$(VENV_MINOR)" != "$(PYTHON_MINOR)" ]; then \
		test -f $(VENV)/pyvenv.cfg || { echo "$(VENV) is not a virtual environment: remove it, or pass VENV=..." >&2; exit 1; }; \
		echo "$(VENV) has $(if $(VENV_MINOR),Python $(VENV_MINOR),a Python that no longer runs), not $(PYTHON_MINOR) ($(PYTHON)): making it again"; \
		rm -rf $(VENV); fi
	@test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	@$(VENV)/bin/pip install --quiet --disable-pip-version-check pip==$(PIP_VERSION)
	@echo "installing $$(grep -c '^[^#[:space:]]' requirements.txt) packages into $(VENV) (about 2 minutes the first time)"
	@# one numbered line per pin pip takes up (from PyPI: Collecting; a local wheel: Processing; the
	@# repository itself: Obtaining), so a first install shows its progress
	@$(VENV)/bin/pip install --disable-pip-version-check --progress-bar off -r requirements.txt | \
		awk -v total=$$(grep -c '^[^#[:space:]]' requirements.txt) '/^(Collecting|Processing|Obtaining) /{ \
			name = ($$1 == "Obtaining") ? "onlinelib-book (this repository, editable)" : $$2; sub(/.*\//, "", name); \
			printf "  [%d/%d] %s\n", ++n, total, name; fflush() }'
	@touch $@

FORCE:

# Sphinx re-reads (and so re-executes) only the pages whose source changed, but every chapter's
# outputs also depend on the library: after a change in onlinelib/, _ext/ or the requirements
# (newer than the last successful build) the saved doctrees go, and every chapter runs again.
# A chapter's own module, onlinelib/chapters/<name>.py, is the exception: _ext/chapter_modules.py
# makes it a Sphinx dependency of the pages that use it, so only they run again.
# Bytecode and numba caches (__pycache__/, written by any run, `make test` too) are no change.
LIBRARY_SOURCES = onlinelib _ext requirements.txt pyproject.toml
NOT_LIBRARY_WIDE = -not -path '*/__pycache__*' ! -name '*.pyc' \
	! \( -path 'onlinelib/chapters/*.py' ! -name '__init__.py' \)
# Sphinx's status lines show the progress, but two of them are the whole parser configurations of
# myst and myst-nb (about 1,500 characters each): dropped. Warnings and errors (stderr) pass as they are.
NO_CONFIG_DUMPS = grep --line-buffered -v -E '^([[:cntrl:]]\[[0-9;]*m)?myst(-nb)? v[0-9.]+:'
book: $(VENV)/.installed
	@if [ ! -f _build/.library-stamp ]; then rm -rf _build/.doctrees; \
	elif [ -n "$$(find $(LIBRARY_SOURCES) -newer _build/.library-stamp $(NOT_LIBRARY_WIDE) -print -quit)" ]; then \
		echo "make book: onlinelib, _ext or the requirements changed since the last build: every chapter runs again"; \
		rm -rf _build/.doctrees; fi
	@$(VENV)/bin/jupyter-book build . | $(NO_CONFIG_DUMPS)
	@touch _build/.library-stamp

# Two workers (pytest-xdist), each test file, so each chapter's cells, kept on one of them.
# console_output_style=count ends each line of dots with "[done/total]": the progress of a long run.
test: $(VENV)/.installed
	$(VENV)/bin/pytest -n 2 --dist loadfile -o console_output_style=count

student: $(VENV)/.installed
	$(VENV)/bin/python -m booktools student-edition

# The student repository (what students clone and Binder runs): make student-repo STUDENT_REPO=../course-student
STUDENT_REPO ?= ../$(notdir $(CURDIR))-student
student-repo: $(VENV)/.installed
	$(VENV)/bin/python -m booktools student-edition --no-build --repo $(STUDENT_REPO)

handouts: $(VENV)/.installed
	$(VENV)/bin/python -m booktools handout --all --zip

# One deck per chapter, from the chapter's own statements and the figures of the last `make book`
# (without them: python -m booktools slides --no-figures). --check opens every deck in Chromium.
slides: $(VENV)/.installed
	$(VENV)/bin/python -m booktools slides

# LEAVE_OUT: pages the PDF leaves out, as _toc.yml names them (e.g. book/api, the API reference).
LEAVE_OUT ?=
PDF_OPTIONS = $(foreach page,$(LEAVE_OUT),--leave-out $(page))
pdf: book
	$(VENV)/bin/python -m booktools pdf $(PDF_OPTIONS)

student-pdf: student
	$(VENV)/bin/python -m booktools pdf --student $(PDF_OPTIONS)

# The book first (the student edition reuses its outputs); then booktools release builds the hand-outs,
# the slides, the student edition and its PDF, and collects them (booktools/release.py).
.PHONY: release
ifneq ($(filter release,$(MAKECMDGOALS)),)
ifndef VERSION
$(error make release needs the version: make release VERSION=X.Y.Z (DRY_RUN=1 rehearses on any commit))
endif
endif
release: book
	$(VENV)/bin/python -m booktools release --version $(VERSION) $(if $(DRY_RUN),--dry-run)

# The tests of the built site that `make test` skips until the builds exist (CI runs them too).
checks: book student pdf
	BROWSER_CHECK_REQUIRED=1 $(VENV)/bin/pytest tests/test_build.py tests/test_browser.py tests/test_pdf.py \
		tests/test_student_edition.py

clean:
	rm -rf _build

# requirements.in lists the direct dependencies; pip-compile pins them and everything they need
# into requirements.txt, each pin with a "via" note. Pins already in requirements.txt are kept
# when they still fit (delete a line to upgrade that package). pip-tools runs in its own venv so
# it never lands in the book's environment.
# Binder's environment is what a reader needs (binder/requirements.in), pinned by a second
# pip-compile constrained by requirements.txt, so both files have the same pins. pip refuses the
# `-e .` line as a constraint, so the constraints are requirements.txt without it; the "via" notes
# that name them are dropped (every pin comes from them).
PIP_TOOLS_VENV = _build/pip-tools
PIP_COMPILE = CUSTOM_COMPILE_COMMAND="make requirements" $(PIP_TOOLS_VENV)/bin/pip-compile --quiet --strip-extras \
	--no-emit-index-url --no-emit-find-links
requirements: requirements.in binder/requirements.in
	@$(CHECK_PYTHON)
	test -x $(PIP_TOOLS_VENV)/bin/pip-compile || { $(PYTHON) -m venv $(PIP_TOOLS_VENV) && \
		$(PIP_TOOLS_VENV)/bin/pip install --quiet pip-tools==7.6.2; }
	$(PIP_COMPILE) --output-file requirements.txt requirements.in
	grep -v '^-e ' requirements.txt > $(PIP_TOOLS_VENV)/pins.txt
	$(PIP_COMPILE) --constraint $(PIP_TOOLS_VENV)/pins.txt --output-file binder/requirements.txt binder/requirements.in
	grep -v -F -e '-c $(PIP_TOOLS_VENV)/pins.txt' binder/requirements.txt > $(PIP_TOOLS_VENV)/binder.txt
	mv $(PIP_TOOLS_VENV)/binder.txt binder/requirements.txt
