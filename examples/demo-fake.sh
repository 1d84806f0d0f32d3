#!/usr/bin/env bash
# The demo behind `make demo-fake`: the whole agent path against the bundled fake LLM (a real
# HTTP server on 127.0.0.1 speaking the OpenAI streaming protocol, replies scripted in
# examples/demo-script.json). On a copy of examples/hello, one chat turn lists the files,
# reads two of them, then applies a three-file plan (create, update, delete) as one
# checkpoint; `agent-ls undo` then restores all three files.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${VENV:-.venv}/bin
workspace="$(mktemp -d)/hello"
cp -r examples/hello "$workspace"
portfile=$(mktemp)
"$BIN/python" -m tests.fakellm --port 0 --script examples/demo-script.json --port-file "$portfile" >/dev/null &
llm_pid=$!
trap 'kill "$llm_pid" 2>/dev/null || true; rm -f "$portfile"' EXIT
for _ in $(seq 100); do [ -s "$portfile" ] && break; sleep 0.05; done
port=$(cat "$portfile")
show() { (cd "$workspace" && for f in $(ls); do echo "--- $f"; cat "$f"; done); }
echo "== the workspace before ($workspace)"
show
echo
echo "== agent-ls chat (the fake LLM's replies stream; steps on stderr start with agent-ls:)"
AGENT_LS_BASE_URL="http://127.0.0.1:$port/v1" AGENT_LS_MODEL=fake-demo \
  "$BIN/agent-ls" chat --workspace "$workspace" "Do what TODO.txt says."
echo
echo "== the workspace after"
show
echo
echo "== agent-ls checkpoints (the plan is one undo step)"
"$BIN/agent-ls" checkpoints --workspace "$workspace"
echo
echo "== agent-ls undo"
"$BIN/agent-ls" undo --workspace "$workspace"
echo
echo "== the workspace after undo (as before the chat)"
show
