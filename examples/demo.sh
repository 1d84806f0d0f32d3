#!/usr/bin/env bash
# The demo behind `make demo`: agent-ls with no configuration at all. Nothing configured and
# no local model server running, so it picks the embedded SmolLM2-135M (llama.cpp, in
# process, offline); `agent-ls doctor` says so. The chat runs on a copy of examples/hello
# and applies a real (tiny) edit as one undoable plan.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${VENV:-.venv}/bin
workspace="$(mktemp -d)/hello"
cp -r examples/hello "$workspace"
echo "== agent-ls doctor (which model answers, and why)"
"$BIN/agent-ls" doctor --workspace "$workspace" --no-check
echo
echo "== agent-ls chat --workspace $workspace"
"$BIN/agent-ls" chat --workspace "$workspace" "start_multi_file: create notes.txt containing buy milk"
echo
echo "== the plan, as the undo history shows it (agent-ls undo --workspace $workspace reverts it)"
"$BIN/agent-ls" checkpoints --workspace "$workspace"
