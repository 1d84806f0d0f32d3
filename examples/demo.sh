#!/usr/bin/env bash
# The demo behind `make demo`: agent-ls doing its main job on a copy of examples/hello — one chat
# turn lists the files, reads two of them, then applies a three-file plan (create, update,
# delete) as one checkpoint; `agent-ls undo` restores all three files.
#
# No model runs: the model's side is a recorded conversation (examples/demo-script.json)
# replayed by a local HTTP server on 127.0.0.1 that speaks the OpenAI streaming protocol
# (tests/fakellm). Everything on agent-ls's side is real: the provider's HTTP client, the
# reply parser, the tools, the plan, the checkpoint store and undo.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(cd "${VENV:-.venv}/bin" && pwd)
workspace="$(mktemp -d)/hello"
cp -r examples/hello "$workspace"
portfile=$(mktemp)
"$BIN/python" -m tests.fakellm --port 0 --script examples/demo-script.json --port-file "$portfile" >/dev/null &
llm_pid=$!
trap 'kill "$llm_pid" 2>/dev/null || true; rm -f "$portfile"' EXIT
for _ in $(seq 100); do [ -s "$portfile" ] && break; sleep 0.05; done
[ -s "$portfile" ] || { echo "agent-ls demo: the replay server did not start"; exit 1; }
port=$(cat "$portfile")
show() { (cd "$workspace" && for f in $(ls); do echo "--- $f"; cat "$f"; done); }
echo "== agent-ls demo: the model's replies are a RECORDED conversation (examples/demo-script.json)"
echo "   replayed by a local server speaking the OpenAI streaming protocol; no model runs."
echo "   Everything else is agent-ls itself: provider client, parser, tools, plan, checkpoints, undo."
echo
echo "== the workspace before ($workspace)"
show
echo
echo "== agent-ls chat \"Do what TODO.txt says.\" (replies stream on stdout; steps on stderr start with agent-ls:)"
AGENT_LS_PROVIDER=openai AGENT_LS_BASE_URL="http://127.0.0.1:$port/v1" AGENT_LS_MODEL=recorded-demo \
  "$BIN/agent-ls" chat --workspace "$workspace" "Do what TODO.txt says."
echo
echo "== the workspace after"
show
echo
echo "== agent-ls checkpoints (the three-file plan is one undo step)"
"$BIN/agent-ls" checkpoints --workspace "$workspace"
echo
echo "== agent-ls undo"
"$BIN/agent-ls" undo --workspace "$workspace"
echo
echo "== the workspace after undo (as before the chat)"
show
cat <<EOF

== next: agent-ls with your own model (in any folder: --workspace PATH, default the current one)
   Ollama running on this machine:   $BIN/agent-ls chat "What does this project do?"
   any OpenAI-compatible server:     AGENT_LS_BASE_URL=http://HOST:PORT/v1 AGENT_LS_MODEL=NAME AGENT_LS_API_KEY=... $BIN/agent-ls chat "..."
   Anthropic:                        AGENT_LS_PROVIDER=anthropic ANTHROPIC_API_KEY=... $BIN/agent-ls chat "..."
   which model answers, and why:     $BIN/agent-ls doctor
   offline, the embedded 135M model: make demo-local (proves the path; not a coding model)
== in your editor: VS Code (vscode-client/), Neovim (nvim-client/), Zed / JetBrains / Emacs
   through ACP ($BIN/agent-ls acp) — README.md, "Your editor".
EOF
