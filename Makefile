# The two commands in the README. Everything else is set up by them.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

.PHONY: run test lint fmt clean browser plugin

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(TEST_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(STAMP)

run: $(STAMP)
	$(BIN)/commonplace run --sample-if-unset

# The browser tests drive Debian's Chromium (never a browser downloaded by Playwright).
browser:
	@command -v chromium >/dev/null || { \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "installing chromium for the browser tests"; \
			apt-get update -qq >/dev/null && \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
		else \
			echo "chromium is not installed and cannot be installed here (needs root and apt-get):"; \
			echo "the browser tests will be skipped"; \
		fi; }

# The Obsidian plugin (obsidian-bridge/): needs only Node.js 20+ and npm; the packages are the
# ones package-lock.json names. Builds main.js, then runs its tests (one loads the built file).
plugin:
	@command -v node >/dev/null && command -v npm >/dev/null || { \
		echo "make test: obsidian-bridge/ needs Node.js 20 or later and npm, and they are not installed"; \
		echo "  install them (https://nodejs.org, or: apt-get install nodejs npm), then run make test again"; \
		exit 1; }
	@node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' || { \
		echo "make test: obsidian-bridge/ needs Node.js 20 or later; this is node $$(node --version)"; \
		exit 1; }
	cd obsidian-bridge && npm ci --no-audit --no-fund && npm run build && npm test

test: $(TEST_STAMP) browser plugin
	$(BIN)/ruff check daemon tests eval_suite
	$(BIN)/ruff format --check daemon tests eval_suite
	$(BIN)/mypy
	$(BIN)/python -m pytest

lint: $(TEST_STAMP)
	$(BIN)/ruff check daemon tests eval_suite
	$(BIN)/mypy

fmt: $(TEST_STAMP)
	$(BIN)/ruff format daemon tests eval_suite
	$(BIN)/ruff check --fix daemon tests eval_suite

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache
	rm -rf obsidian-bridge/node_modules obsidian-bridge/main.js
