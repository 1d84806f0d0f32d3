#!/usr/bin/env bash
# The demo behind `make demo-local`: agent-ls with no configuration at all. Nothing configured and
# no local model server running, so it picks the embedded SmolLM2-135M (llama.cpp, in
# process, offline); `agent-ls doctor` says so. The chat runs the task of
# examples/demo-task.txt on a copy of examples/hello; its grammar makes the first reply a
# list_files call, so the answer is written after seeing the files (a 135M model's answer is
# still often poor: it proves the offline path, not quality). Progress shows on stderr while the
# model loads and writes.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${VENV:-.venv}/bin
workspace="$(mktemp -d)/hello"
cp -r examples/hello "$workspace"
task=$(cat examples/demo-task.txt)
echo "== agent-ls doctor (which model answers, and why)"
"$BIN/agent-ls" doctor --workspace "$workspace" --no-check
echo
echo "== agent-ls chat --workspace $workspace \"$task\""
echo "   (a 135M model on the CPU: each reply takes seconds to a minute; the whole plan path"
echo "    with list, read, create, update, delete and undo is shown by: make demo)"
"$BIN/agent-ls" chat --workspace "$workspace" "$task"
echo
echo "== undo history of the workspace (a plan, if the model made one, is one undo step)"
"$BIN/agent-ls" checkpoints --workspace "$workspace"
