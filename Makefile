# The two set-up commands of the README: `make demo` and `make test`.
PYTHON ?= python3

.PHONY: install demo test bench lint
install:
	$(PYTHON) -m pip install -q -e ".[train,dev]"

demo: install
	$(PYTHON) -m training.cli demo

test: install
	$(PYTHON) -m pytest -q -n 2

bench: install
	$(PYTHON) -m pip install -q -e ".[bench]"
	$(PYTHON) -m benchmarks

lint:
	$(PYTHON) -m ruff check .
