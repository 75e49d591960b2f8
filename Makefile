# The README's two commands. Each one sets up .venv on first use (or when
# requirements.txt changes), then does its job.
#   make book   build the book into _build/html
#   make test   run every test: the onlinelib unit tests and every chapter under nbval
#   make student  build the student edition (no solutions) into _build/student/_build/html
#   make pdf    print the built book into _build/html/online-learning.pdf (needs Chromium)
VENV ?= .venv
PYTHON ?= python3

.PHONY: book test student pdf clean

$(VENV)/.installed: requirements.txt pyproject.toml
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -r requirements.txt
	touch $@

book: $(VENV)/.installed
	$(VENV)/bin/jupyter-book build .

test: $(VENV)/.installed
	$(VENV)/bin/pytest

student: $(VENV)/.installed
	$(VENV)/bin/python tools/student_edition.py

pdf: book
	$(VENV)/bin/python tools/pdf_edition.py

clean:
	rm -rf _build
