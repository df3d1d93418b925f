# make test: builds everything from a fresh clone and runs every test (what .ci/run does).
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := test

VENV := .venv
PY := $(VENV)/bin/python
# ruff pinned: its formatter's output may change between versions, and `make lint` must
# not fail on a clean tree because a newer ruff formats differently.
RUFF := ruff==0.17.6
PIP_PACKAGES := maturin polars numpy matplotlib rich typer jinja2 pytest pytest-timeout hypothesis "ray>=2.9" $(RUFF)

.PHONY: venv build demo test lint clean chromium

venv: $(VENV)/.stamp

$(VENV)/.stamp:
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check $(PIP_PACKAGES)
	touch $@

build: venv
	VIRTUAL_ENV=$(abspath $(VENV)) $(VENV)/bin/maturin develop --release --quiet

demo: build
	$(VENV)/bin/tailor run scenarios/quickstart.toml --seed 7 --out runs/quickstart --quiet
	$(VENV)/bin/tailor report runs/quickstart --scenario scenarios/quickstart.toml
	$(VENV)/bin/tailor sweep scenarios/quickstart.toml --set load=0.3,0.5,0.7 --set seed=1..3 --out sweeps/quickstart --quiet
	$(VENV)/bin/tailor report sweeps/quickstart

# The report tests open HTML in headless Chromium: Debian's package, installed with apt-get
# when missing and we are root (otherwise those tests are skipped, saying why).
chromium:
	@command -v chromium >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	  echo "installing chromium with apt-get ..." >&2 && \
	  DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
	  echo "chromium is not installed: the browser tests will be skipped" >&2

test: build chromium
	cargo test -p tailor
	$(VENV)/bin/pytest -q tests/python

# The house rules (docs/style.md): rustfmt and clippy as configured in rustfmt.toml and
# the code's allows (each with its reason), ruff's checks and formatter as pyproject.toml
# chooses them. .ci/run runs this before the tests.
lint: venv
	$(PY) -m pip install --quiet --disable-pip-version-check $(RUFF)
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets --quiet -- -D warnings
	$(VENV)/bin/ruff check python tests scripts
	$(VENV)/bin/ruff format --check python tests scripts

clean:
	rm -rf $(VENV) target runs sweeps
	find python tests -name __pycache__ -type d -prune -exec rm -rf {} +
	rm -f python/tailor/_core*.so

# Cross-checks against ns-3 (installs libns3-dev with apt when missing), then the SWP, Homa,
# HULL and PL2 reproductions at full length (HULL's about 15 minutes); hours. Every script
# runs even if one before it fails, and validate fails if any of them did (a reproduction
# whose numbers differ from the paper's prints that difference; only a crash fails it).
.PHONY: validate bench
validate: build
	st=0; \
	$(PY) scripts/validate.py || st=1; \
	$(PY) scripts/reproduce_swp.py || st=1; \
	$(PY) scripts/advice_holds.py --confirm-seeds 9 19 --fresh 2 || st=1; \
	$(PY) scripts/reproduce_homa.py || st=1; \
	$(PY) scripts/reproduce_hull.py || st=1; \
	$(PY) scripts/reproduce_pl2.py || st=1; \
	cargo build --release --quiet -p tailor --bin tailor-sim && mkdir -p runs && \
	$(PY) scripts/decomposed_accuracy.py --until 10ms --csv runs/decomposed_accuracy.csv || st=1; \
	exit $$st

# Speed and memory against ns-3 timed in the same script (and against the engine built at
# git revision BENCH_BASELINE, if given); the engine's speed by fabric size (16 to 4,096
# hosts); set-up time by hosts; the CLI's peak memory against the simulation's by run length;
# the packet engine's memory per port, packet and message in flight, and where it runs out.
bench: build
	cargo build --release -p tailor --bin tailor-sim
	$(PY) scripts/bench.py $(if $(BENCH_BASELINE),--baseline $(BENCH_BASELINE))
	$(PY) scripts/bench_scale.py $(if $(BENCH_BASELINE),--baseline $(BENCH_BASELINE))
	$(PY) scripts/bench_sweep.py
	$(PY) scripts/bench_store.py
	$(PY) scripts/bench_setup.py
	$(PY) scripts/bench_memory.py
	$(PY) scripts/bench_capacity.py
