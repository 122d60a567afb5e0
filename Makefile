# irax developer entry points. Every target creates the virtual environment on demand.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BASE := $(VENV)/.installed-base
STAMP := $(VENV)/.installed

.PHONY: test demo lint pytest lit bench clean venv

venv: $(STAMP)

# irax and its runtime dependencies only: all the demo needs
$(BASE): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	touch $(BASE)

# plus the test toolchain and oracles (JAX, pytest, lit, ruff, ...)
$(STAMP): $(BASE)
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

test: $(STAMP) lint pytest lit

lint: $(STAMP)
	$(VENV)/bin/ruff check python tests benchmarks examples

pytest: $(STAMP)
	$(PY) -m pytest -n 2 tests

lit: $(STAMP)
	PATH=$(CURDIR)/$(VENV)/bin:$$PATH $(VENV)/bin/lit -sv tests/lit

demo: $(BASE)
	$(PY) examples/quickstart.py

bench: $(STAMP)
	$(PY) benchmarks/run.py $(BENCH_FLAGS)

clean:
	rm -rf $(VENV) build *.egg-info python/*.egg-info
