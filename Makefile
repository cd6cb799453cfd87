# Two commands do everything on a fresh machine with Python 3.11:
#   make demo   simulate a small fleet, run the pipeline into demo/warehouse.duckdb, print the figures
#   make test   run the test suite (what CI runs)
PYTHON ?= python3.11
export UV_PYTHON_DOWNLOADS := never
export UV_LINK_MODE := copy

.PHONY: setup demo test browser proxy lint dagster gpu-check clean bigquery-emulator demo-bigquery

.tools/bin/uv:
	$(PYTHON) -m venv .tools
	.tools/bin/pip install --quiet --disable-pip-version-check uv==0.13.8

.venv/.synced: .tools/bin/uv uv.lock pyproject.toml
	.tools/bin/uv sync --frozen --compile-bytecode --python "$$(command -v $(PYTHON))"
	touch $@

# bqemulator (a local BigQuery for the BigQuery source's tests) pins duckdb 1.5.x, so it lives
# in its own environment; scripts/run_bqemulator.py starts it (the tests do so themselves).
BQEMULATOR_PINS := bqemulator==1.4.0 duckdb==1.5.5 duckdb-extension-spatial==1.5.5 numpy==2.4.6
.tools/bqemulator/.installed: .tools/bin/uv
	.tools/bin/uv venv --quiet --allow-existing --python "$$(command -v $(PYTHON))" .tools/bqemulator
	.tools/bin/uv pip install --quiet --python .tools/bqemulator/bin/python $(BQEMULATOR_PINS)
	echo "$(BQEMULATOR_PINS)" > $@

# focus-validator (the FinOps Foundation's FOCUS conformance checker, for the export's test)
# needs Python 3.12 and a NumPy 1 pyarrow; without a Python 3.12 its test is skipped.
FOCUS_VALIDATOR_PINS := focus-validator==2.2.1 pyarrow==17.0.0 numpy==1.26.4
PYTHON312 ?= $(shell for p in $$HOME/.pyenv/versions/3.12*/bin/python3.12 python3.12; do \
	$$p -c '' 2>/dev/null && command -v $$p && break; done)

.tools/focus-validator/.installed: .tools/bin/uv
	@if [ -z "$(PYTHON312)" ]; then echo "no Python 3.12: focus-validator not installed"; exit 0; fi; \
	.tools/bin/uv venv --quiet --allow-existing --python "$(PYTHON312)" .tools/focus-validator && \
	.tools/bin/uv pip install --quiet --python .tools/focus-validator/bin/python $(FOCUS_VALIDATOR_PINS) && \
	echo "$(FOCUS_VALIDATOR_PINS)" > $@

setup: .venv/.synced .tools/bqemulator/.installed .tools/focus-validator/.installed

# A local BigQuery on 127.0.0.1:9050 for `flopledger simulate --bigquery http://127.0.0.1:9050`
# and a BigQuery warehouse (--exact-bignumeric: money's NUMERIC/BIGNUMERIC kept exact).
bigquery-emulator: setup
	.tools/bqemulator/bin/python scripts/run_bqemulator.py --exact-bignumeric start \
		--rest-port 9050 --grpc-port 9060

demo: setup
	.venv/bin/flopledger demo

# The demo with its warehouse in BigQuery (docs/bigquery.md): an emulator on 127.0.0.1:9050 for
# the run (its log in .tools/demo-bigquery-emulator.log), stopped after; `make demo` stays on DuckDB.
demo-bigquery: setup
	.tools/bqemulator/bin/python scripts/run_bqemulator.py --exact-bignumeric start \
		--rest-host 127.0.0.1 --rest-port 9050 --grpc-port 9060 >.tools/demo-bigquery-emulator.log 2>&1 & \
	pid=$$!; trap 'kill $$pid' EXIT; \
	.venv/bin/flopledger demo --out demo-bigquery --warehouse bigquery --endpoint http://127.0.0.1:9050

# The browser test needs Debian's Chromium; installed here when we are root (CI is).
browser:
	@command -v chromium >/dev/null 2>&1 || [ "$$(id -u)" != 0 ] || \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null)

# The reverse proxy's test (tests/deploy/test_proxy.py) runs Debian's nginx; installed the same way.
proxy:
	@command -v nginx >/dev/null 2>&1 || [ "$$(id -u)" != 0 ] || \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null)

# The house (lint, format, types: a minute of mypy on a clean clone; dead code: vulture) runs beside the tests, and
# its output is printed after theirs; either failing fails the command. tests/scheduling.py
# hands the slowest tests out first and keeps a module's module-scoped fixture on one worker.
# The tests' folders go to /dev/shm when it has room: Dagster's SQLite run history and DuckDB
# commit with fsync, 13 ms a commit on a VM's disk and 0.1 ms in memory, and a pipeline run
# commits thousands of times (a test of two runs: 116 s on disk, 36 s in memory). Only failed
# tests' folders are kept, so the memory is given back.
LINT := .venv/bin/ruff check . && .venv/bin/ruff format --check . && .venv/bin/python -m mypy && .venv/bin/vulture
TEST_TMP = $$(avail=$$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 {print $$4}'); \
	[ "$${avail:-0}" -gt 4000000 ] && echo /dev/shm || echo "$${TMPDIR:-/tmp}")
test: setup browser proxy
	@log=$$(mktemp); (set -x; $(LINT)) >"$$log" 2>&1 & lint=$$!; \
	TMPDIR=$(TEST_TMP) .venv/bin/python -m pytest -n 3 -p tests.scheduling \
		-o tmp_path_retention_policy=failed; tests=$$?; \
	wait $$lint; linted=$$?; echo "--- lint, beside the tests ---"; cat "$$log"; rm -f "$$log"; \
	[ $$linted -eq 0 ] || echo "make test: lint failed"; [ $$tests -eq 0 ] && [ $$linted -eq 0 ]

lint: setup
	$(LINT)

# The Dagster UI and daemon on a config's instance (the demo's by default): its runs, checks, schedules.
dagster: setup
	.venv/bin/flopledger ui --config $(or $(FLOPLEDGER_CONFIG),demo/flopledger.yaml)

gpu-check: setup
	bash scripts/gpu_check.sh

clean:
	rm -rf .venv .tools demo warehouse*.duckdb
