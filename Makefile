# irax developer entry points. Every target creates the virtual environment on demand.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BASE := $(VENV)/.installed-base
STAMP := $(VENV)/.installed
EXAMPLES := $(VENV)/.installed-examples
DEMO_FLAGS ?= --out build/demo

.PHONY: test demo lint pytest lit bench clean venv

venv: $(STAMP)

# irax and its runtime dependencies only: all the demo needs
$(BASE): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	touch $(BASE)

# plus what the examples need (scikit-learn, tqdm, matplotlib): still no test toolchain
$(EXAMPLES): $(BASE)
	$(PY) -m pip install --quiet -e '.[examples]'
	touch $(EXAMPLES)

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

# train an MLP on scikit-learn's digits, plot its curves, export and reload it
demo: $(EXAMPLES)
	$(PY) examples/digits.py $(DEMO_FLAGS)

bench: $(STAMP)
	$(PY) benchmarks/run.py $(BENCH_FLAGS)

clean:
	rm -rf $(VENV) build *.egg-info python/*.egg-info
