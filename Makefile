# Two commands for a fresh clone: `make run` (the main job) and `make test` (every test).
# Everything is installed into .venv from the package registries; nothing by hand.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.deps-installed

.PHONY: run test build venv bench clean lint fuzz validate validate-ns3 validate-linux scorecard tools

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt maturin \
		numpy pyarrow pydantic typer rich matplotlib \
		pytest pytest-timeout hypothesis ruff mypy pandas polars "dask[distributed]" \
		nbclient nbformat ipykernel
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
	$(BIN)/ruff check python tests validation
	$(BIN)/ruff format --check python tests validation
	$(BIN)/mypy

# Tools the tests use from Debian's packages: tshark reads the packet captures of `mpsim run --pcap`
# (tests/test_pcap.py); headless Chromium opens the HTML report of `mpsim reproduce` (tests/test_report.py).
# Installed once, with apt-get (as root); nothing happens when they are there.
TOOLS := tshark chromium

tools:
	@missing=$$(for t in $(TOOLS); do command -v $$t >/dev/null || echo $$t; done); \
	if [ -n "$$missing" ]; then apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; fi

test: lint tools
	cargo test -p mpsim-core
	$(BIN)/pytest -q

# The scorecard (docs/reproduction.md, "Claims as checks"): every experiment of the catalogue in full mode on each
# of SCORECARD_STACKS (the paper's stack, Linux 6.18 and ns-3.44: the `linux` and `ns3` profiles) into
# SCORECARD_OUT, its scorecard.json copied to docs/scorecard.json, and the generated tables of docs/reproduction.md
# rewritten from it. The catalogue takes about 6 minutes per stack with JOBS=2 on this 2-core machine, so about
# 18 minutes for the three (more on a busy machine); an interrupted run resumes from its stores. Not part of
# `make test`, which only checks that docs/scorecard.json names the current engine (tests/test_stamps.py).
SCORECARD_OUT ?= results/scorecard
SCORECARD_STACKS ?= paper linux ns3
scorecard: build
	$(BIN)/mpsim reproduce --all $(if $(JOBS),--jobs $(JOBS)) $(foreach s,$(SCORECARD_STACKS),--stack $(s)) \
		--out $(SCORECARD_OUT)
	cp $(SCORECARD_OUT)/scorecard.json docs/scorecard.json
	$(BIN)/mpsim scorecard --from docs/scorecard.json --docs docs/reproduction.md

# Both cross-validations (docs/validation.md); not part of `make test`, which only checks that the tables name
# the current engine (tests/test_stamps.py).
validate: validate-ns3 validate-linux

# The linux profile against the real kernel (docs/validation.md, validation/linux/README.md): the mpsim
# side against the committed kernel reference (24 seeds a cell, under a minute). LINUX_RERUN=1 first runs the kernel side
# again, as root, through ../shared/tools/linux-rig (about 1.5 hours for every cell; installs ethtool and ping).
# LINUX_ARGS passes more options, e.g. LINUX_ARGS="--only shared-mptcp".
validate-linux: build
ifneq ($(LINUX_RERUN),)
	@command -v ethtool >/dev/null && command -v ping >/dev/null || \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ethtool iputils-ping; }
	$(BIN)/python -m validation.linux --rerun-rig $(LINUX_ARGS)
else
	$(BIN)/python -m validation.linux $(LINUX_ARGS)
endif

# A longer fuzzing campaign than the one in `make test`: the properties of tests/test_fuzz.py over
# FUZZ_EXAMPLES generated scenarios each (docs/scenarios.md, Limits and robustness): mutated scenarios
# and core configurations, and scenarios with one slip (huge integers, nanosecond on/off periods, many
# copies of many subflows, unconnected endpoints, bare numbers).
FUZZ_EXAMPLES ?= 3000
fuzz: build
	MPSIM_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/pytest -q -p no:cacheprovider tests/test_fuzz.py --hypothesis-show-statistics

bench: build
	cargo bench -p mpsim-core --bench core

# Cross-validation against ns-3.44 (not part of `make test`): runs the grid in mpsim (seconds) and compares
# with the committed ns-3 reference, writing docs/validation.md. NS3_RERUN=1 runs ns-3 itself again
# (installed into validation/.venv-ns3 from PyPI; the first install takes a few minutes), NS3_TRACES=1
# with it writes ns-3's traces of every row to validation/traces/.
NS3_VENV  := validation/.venv-ns3
NS3_STAMP := $(NS3_VENV)/.ns3-installed

$(NS3_STAMP):
	$(PYTHON) -m venv $(NS3_VENV)
	$(NS3_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(NS3_VENV)/bin/python -m pip install --quiet ns3==3.44.post0
	touch $(NS3_STAMP)

validate-ns3: build $(if $(NS3_RERUN),$(NS3_STAMP))
	$(BIN)/python -m validation ns3 $(if $(NS3_RERUN),--rerun) $(if $(NS3_TRACES),--traces)

clean:
	rm -rf $(VENV) target
