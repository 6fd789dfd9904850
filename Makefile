# The two commands in the README. Everything else is set up by them.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
# The exact versions that were tested: every install here takes them (see `make upgrade`).
CONSTRAINTS := constraints.txt
PIP := $(BIN)/python -m pip

.PHONY: run test test-live lint fmt clean browser upgrade check-install plugin

# The suite runs on every core (pytest-xdist; `make test TEST_WORKERS=4` on a bigger machine).
# --dist loadgroup: tests marked xdist_group("name") run on one worker (tests/conftest.py).
TEST_WORKERS ?= 2
PYTEST_PARALLEL = -n $(TEST_WORKERS) --dist loadgroup
.PHONY: test-busy

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(STAMP): pyproject.toml $(CONSTRAINTS) | $(BIN)/python
	$(PIP) install --quiet -c $(CONSTRAINTS) -e .
	$(PIP) check
	touch $@

$(TEST_STAMP): pyproject.toml $(CONSTRAINTS) | $(BIN)/python
	$(PIP) install --quiet -c $(CONSTRAINTS) -e '.[test]'
	$(PIP) check
	touch $@ $(STAMP)

run: $(STAMP)
	$(BIN)/commonplace run --sample-if-unset

# Debian packages the tests use: Chromium for the browser tests (never a browser downloaded by
# Playwright), espeak-ng to speak real words for the dictation audio test.
browser:
	@missing=""; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	command -v espeak-ng >/dev/null || missing="$$missing espeak-ng"; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "installing$$missing for the tests"; \
			apt-get update -qq >/dev/null && \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
		else \
			echo "not installed and cannot be installed here (needs root and apt-get):$$missing"; \
			echo "the tests that need them will be skipped"; \
		fi; \
	fi

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
	$(BIN)/python -m pytest $(PYTEST_PARALLEL)

# The same suite while another process keeps every core busy (tests/busy.py): no test may
# depend on how busy the machine is. See docs/explanation/tests.md.
test-busy: $(TEST_STAMP) browser
	$(BIN)/python tests/busy.py -- $(BIN)/python -m pytest $(PYTEST_PARALLEL)

# The suite against a real Ollama at OLLAMA_HOST (default http://127.0.0.1:11434) with the
# configured models; it skips with one line when no Ollama answers there.
test-live: $(TEST_STAMP)
	$(BIN)/python -m pytest tests/live -m live -q

# Refresh constraints.txt: the newest versions pyproject.toml allows, resolved in a clean
# virtualenv with nothing else in it. Then run `make test` and commit both files.
upgrade:
	rm -rf .venv-upgrade
	$(PYTHON) -m venv .venv-upgrade
	.venv-upgrade/bin/python -m pip install --quiet --upgrade pip
	.venv-upgrade/bin/python -m pip install --quiet '.[test]'
	.venv-upgrade/bin/python -m pip check
	{ echo "# The versions make test and CI install (pip -c). Regenerate with: make upgrade"; \
	  .venv-upgrade/bin/python -m pip freeze --exclude commonplace; } > $(CONSTRAINTS)
	rm -rf .venv-upgrade
	@echo "$(CONSTRAINTS) refreshed: run make test, then commit it"

# A clean install with only the declared (runtime) dependencies, from constraints.txt: pip check,
# then every module imported, so an import of an undeclared package fails here. CI runs it.
check-install:
	rm -rf .venv-install
	$(PYTHON) -m venv .venv-install
	.venv-install/bin/python -m pip install --quiet --upgrade pip
	.venv-install/bin/python -m pip install --quiet -c $(CONSTRAINTS) .
	.venv-install/bin/python -m pip check
	cd /tmp && $(CURDIR)/.venv-install/bin/python -m commonplace.importcheck
	rm -rf .venv-install

lint: $(TEST_STAMP)
	$(BIN)/ruff check daemon tests eval_suite
	$(BIN)/mypy

fmt: $(TEST_STAMP)
	$(BIN)/ruff format daemon tests eval_suite
	$(BIN)/ruff check --fix daemon tests eval_suite

clean:
	rm -rf $(VENV) .venv-upgrade .venv-install build dist .pytest_cache .mypy_cache .ruff_cache
	rm -rf obsidian-bridge/node_modules obsidian-bridge/main.js
