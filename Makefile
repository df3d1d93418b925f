# make test: builds everything from a fresh clone and runs every test (what .ci/run does).
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := test

VENV := .venv
PY := $(VENV)/bin/python
PIP_PACKAGES := maturin polars rich typer matplotlib pytest hypothesis

.PHONY: venv build demo test clean

venv: $(VENV)/.stamp

$(VENV)/.stamp:
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check $(PIP_PACKAGES)
	touch $@

build: venv
	VIRTUAL_ENV=$(abspath $(VENV)) $(VENV)/bin/maturin develop --release --quiet

demo: build
	$(VENV)/bin/tailor run scenarios/quickstart.toml --seed 7 --out runs/quickstart

test: build
	cargo test -p tailor
	$(VENV)/bin/pytest -q tests/python

clean:
	rm -rf $(VENV) target runs
	find python tests -name __pycache__ -type d -prune -exec rm -rf {} +
	rm -f python/tailor/_core*.so

# Cross-checks against ns-3 (installs libns3-dev with apt when missing); minutes to an hour.
.PHONY: validate bench
validate: build
	st=0; $(PY) scripts/validate.py || st=$$?; $(PY) scripts/reproduce_swp.py; exit $$st

# Speed and memory against ns-3 timed in the same script.
bench: build
	cargo build --release -p tailor --bin tailor-sim
	$(PY) scripts/bench.py
