# Two commands for a fresh clone: `make run` (the main job) and `make test` (every test).
# Everything is installed into .venv from the package registries; nothing by hand.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.deps-installed

.PHONY: run test build venv bench clean lint fuzz

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt maturin \
		numpy pyarrow pydantic typer rich matplotlib \
		pytest pytest-timeout hypothesis ruff mypy pandas polars "dask[distributed]"
	touch $(STAMP)

venv: $(STAMP)

# Builds the Rust core into the package (release mode) and installs it editable.
build: $(STAMP)
	@echo "building the Rust core (release) into .venv ..."
	@VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(BIN)):$$PATH $(BIN)/maturin develop --release \
		> $(VENV)/build.log 2>&1 || { cat $(VENV)/build.log; exit 1; }

# The main job: CSS paper Fig. 3 (completion time and retransmissions vs file size, every variant),
# quick mode, on all local cores; prints where the table and the figure are.
run: build
	$(BIN)/mpsim reproduce css-shared-filesize --quick --out results

lint: build
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(BIN)/ruff check python tests
	$(BIN)/ruff format --check python tests
	$(BIN)/mypy

test: lint
	cargo test -p mpsim-core
	$(BIN)/pytest -q

# A longer fuzzing campaign than the one in `make test`: the properties of tests/test_fuzz.py over
# FUZZ_EXAMPLES generated scenarios each (docs/scenarios.md, Limits and robustness).
FUZZ_EXAMPLES ?= 3000
fuzz: build
	MPSIM_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/pytest -q -p no:cacheprovider tests/test_fuzz.py --hypothesis-show-statistics

bench: build
	cargo bench -p mpsim-core --bench core

clean:
	rm -rf $(VENV) target
