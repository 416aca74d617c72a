# The two commands a fresh machine needs: `make report` (the main job) and `make test`.
# Both create .venv and install the package into it on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
BROWSER := $(VENV)/.browser
# worker processes for the balance study (-1: every core)
JOBS ?= -1
# processes that compile kernels and run tests side by side: one per core
CORES ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: report pages page-balance page-mania page-skitour test validate clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

# Chromium for the pages' browser test (tests/test_pages.py): Debian's chromium, which playwright
# drives (its own download is not used). Where it is missing and apt is available it is installed;
# otherwise the test skips and says how to install it. The stamp is written only once it is there.
$(BROWSER): $(STAMP)
	@if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null 2>&1; then \
		apt-get install -y chromium || (apt-get update && apt-get install -y chromium) || \
		echo "could not install chromium (apt-get install -y chromium, as root): tests/test_pages.py will skip"; \
	fi
	@if [ -x /usr/bin/chromium ]; then touch $(BROWSER); fi

# Each game's balance study (resumes where it stopped), then the three reports:
# out/balance/report.html (Biathlon Blast), out/mania/report.html (Biathlon Mania),
# out/skitour/report.html (Ski Tour). A study uses every core; a report is one process, so the three
# are written side by side, one per core (make -j), each one's output kept together (-O).
report: $(STAMP)
	$(BIN)/biathlon-sim compile --no-lookahead --jobs $(CORES)   # side by side; seconds once cached
	$(BIN)/biathlon-sim study experiments/balance.toml --out runs/balance --jobs $(JOBS)
	$(BIN)/biathlon-sim study experiments/mania.toml --out runs/mania --jobs $(JOBS)
	$(BIN)/biathlon-sim study experiments/skitour.toml --out runs/skitour --jobs $(JOBS)
	$(MAKE) --no-print-directory -j $(CORES) -O pages

pages: page-balance page-mania page-skitour
page-balance page-mania page-skitour: page-%:
	$(BIN)/biathlon-sim report runs/$* --out out/$*

# The whole suite, once, with every kernel array index checked (NUMBA_BOUNDSCHECK=1: an index past
# an array raises instead of touching foreign memory; the kernels' cache keeps checked and unchecked
# kernels apart), built at LLVM optimisation level 1 (NUMBA_OPT=1: a sixth less compile time, the
# same races a little slower; also kept apart in the cache). Every kernel is compiled first, side
# by side, then the tests run on every core.
test: $(STAMP) $(BROWSER)
	NUMBA_BOUNDSCHECK=1 NUMBA_OPT=1 $(BIN)/biathlon-sim compile --jobs $(CORES)
	NUMBA_BOUNDSCHECK=1 NUMBA_OPT=1 $(BIN)/python -m pytest -n $(CORES) --dist loadfile --durations=15

clean:
	rm -rf $(VENV)
