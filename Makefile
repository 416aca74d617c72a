# The two commands a fresh machine needs: `make report` (the main job) and `make test`.
# Both create .venv and install the package into it on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: report test validate clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

report: $(STAMP)
	$(BIN)/biathlon-sim validate

test: $(STAMP)
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV)
