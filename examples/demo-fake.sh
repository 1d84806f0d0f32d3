#!/usr/bin/env bash
# The demo behind `make demo`: start the bundled fake LLM on loopback, ask agent-ls one
# question in the terminal (the reply streams), then stop the fake LLM by its PID.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${VENV:-.venv}/bin
portfile=$(mktemp)
"$BIN/python" -m tests.fakellm --port 0 --script examples/demo-script.json --port-file "$portfile" >/dev/null &
llm_pid=$!
trap 'kill "$llm_pid" 2>/dev/null || true; rm -f "$portfile"' EXIT
for _ in $(seq 100); do [ -s "$portfile" ] && break; sleep 0.05; done
port=$(cat "$portfile")
AGENT_LS_BASE_URL="http://127.0.0.1:$port/v1" AGENT_LS_MODEL=fake \
  "$BIN/agent-ls" chat --workspace examples/hello "Say hello and tell me what you are."
