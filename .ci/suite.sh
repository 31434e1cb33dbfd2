#!/usr/bin/env bash
# Runs the test suite (or the files given) on one runtime, writing a vitest JSON report:
#   bash .ci/suite.sh 20|22|24 REPORT [vitest filters…]
# The runtime is set up by .ci/runtime.sh. Exits with the suite's status; that status goes to REPORT.exit and what
# vitest printed to REPORT.log, so the summary counts a run that failed with every test passed (an unhandled error).
set -euo pipefail
cd "$(dirname "$0")/.."
runtime=$1
report=$2
shift 2
echo "== tests on Node $(bash .ci/runtime.sh "$runtime" node --version)"
bash .ci/record.sh "$report" bash .ci/runtime.sh "$runtime" npm test -- --reporter=default --reporter=json --outputFile.json="$report" "$@"
