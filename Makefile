# The two set-up commands of the README: `make demo` and `make test`.
# PYTHON is whatever `python3` is on PATH: inside an activated virtualenv, the venv's own.
PYTHON ?= python3

# The extras `make test` installs, so that no test is skipped for a missing package.
# An extra with tests of its own (vector, openspiel, distributed, web, ...) is added HERE,
# and the README's "Set-up" paragraph names the same list.
EXTRAS = train,dev,bench,render,web,video,distributed,openspiel,vector,torchrl
# What `make demo` needs and no more: training (torch, SB3) and the batched engine (numba).
DEMO_EXTRAS = train,vector

.PHONY: install demo test test-ray test-research bench lint check clean-kernels
install:
	$(PYTHON) -m pip install -q -e ".[$(EXTRAS)]"

# --force: a second `make demo` replaces the files the previous demo wrote (and nothing else).
demo:
	$(PYTHON) -m pip install -q -e ".[$(DEMO_EXTRAS)]"
	$(PYTHON) -m training.cli demo --force

test: install
	$(PYTHON) -m pytest -q -n 2

# The tests that start Ray instances (marked `ray`, deselected by `make test`): one at a time, a few minutes.
test-ray: install
	$(PYTHON) -m pytest -q -m ray

# The smoke tests of the research probes (research/, not installed; docs/findings.md).
test-research: install
	$(PYTHON) -m pytest -q -n 2 -m research research/tests

bench: install
	$(PYTHON) -m benchmarks

lint:
	$(PYTHON) -m ruff check .

# The engines' tests without installing anything: the readable and batched engines, the rules, the mirror
# (in two processes where pytest-xdist is installed; a test whose extra is missing is skipped).
XDIST = $(shell $(PYTHON) -c "import xdist" 2>/dev/null && echo "-n 2")
check:
	$(PYTHON) -m pytest -q $(XDIST) tests/engine tests/vector

# The compiled kernels' folders (commerce_env/vector/compiled.py): the next process compiles afresh.
clean-kernels:
	$(PYTHON) -m commerce_env.vector.compiled --clean
