# Set-up is self-contained: every target builds .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench lint clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,cluster,rl]'
	touch $(STAMP)

# The demo plays only the bundled bots: where bots cannot be sandboxed (macOS, say) it
# runs them unsandboxed rather than refuse, and says so.
run: $(STAMP)
	@if $(BIN)/goatarena doctor >/dev/null 2>&1; then \
		$(BIN)/goatarena run tournaments/demo.toml; \
	else \
		echo "no sandbox on this machine (see goatarena doctor): the bundled bots run unsandboxed"; \
		$(BIN)/goatarena run tournaments/demo.toml --sandbox none; \
	fi

lint: $(STAMP)
	$(BIN)/ruff check goatarena tests bots benchmarks examples
	$(BIN)/ruff format --check goatarena tests bots benchmarks examples
	$(BIN)/mypy goatarena

test: lint
	$(BIN)/python -m pytest -q tests

bench: $(STAMP)
	$(BIN)/goatarena bench
	$(BIN)/python benchmarks/report_scale.py
	$(BIN)/python benchmarks/scale.py
	$(BIN)/goatarena bench --swiss
	$(BIN)/goatarena bench --ladder
	$(BIN)/python benchmarks/calibration.py
	$(BIN)/python benchmarks/competition.py
	$(BIN)/python benchmarks/competition_flood.py
	$(BIN)/python -m pip install --quiet -e '.[rl-bench]'
	$(BIN)/python benchmarks/envs.py
	$(BIN)/python benchmarks/web.py
	$(BIN)/python benchmarks/web_index.py

clean:
	rm -rf $(VENV) results .pytest_cache .mypy_cache .ruff_cache
