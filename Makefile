# The two commands a fresh machine needs: `make report` (the main job) and `make test`.
# Both create .venv and install the package into it on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
BROWSER := $(VENV)/.browser
# worker processes for the balance study (-1: every core)
JOBS ?= -1

.PHONY: report test validate clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

# Chromium for the report's browser test; where it cannot be downloaded the test uses a chromium
# on PATH, or skips and says why.
$(BROWSER): $(STAMP)
	$(BIN)/playwright install chromium || echo "no Chromium from playwright: tests/test_report.py will look for one on PATH"
	touch $(BROWSER)

# Each game's balance study (resumes where it stopped), then its report: out/balance/report.html
# (Biathlon Blast) and out/mania/report.html (Biathlon Mania).
report: $(STAMP)
	$(BIN)/biathlon-sim study experiments/balance.toml --out runs/balance --jobs $(JOBS)
	$(BIN)/biathlon-sim report runs/balance --out out/balance
	$(BIN)/biathlon-sim study experiments/mania.toml --out runs/mania --jobs $(JOBS)
	$(BIN)/biathlon-sim report runs/mania --out out/mania

# The suite, then its boundscheck slice once more with every kernel array index checked (a cache
# folder of its own, fresh each time: numba's cache key does not include the boundscheck flag).
test: $(STAMP) $(BROWSER)
	$(BIN)/python -m pytest
	d=$$(mktemp -d) && NUMBA_BOUNDSCHECK=1 NUMBA_CACHE_DIR=$$d $(BIN)/python -m pytest -m boundscheck -q; s=$$?; rm -rf $$d; exit $$s

clean:
	rm -rf $(VENV)
