#!/usr/bin/env bash
# Runs a command, printing what it prints, and keeps its exit status in REPORT.exit and its output in REPORT.log:
#   bash .ci/record.sh REPORT command…
# Exits with the command's status.
set -uo pipefail
report=$1
shift
"$@" 2>&1 | tee "$report.log"
status=${PIPESTATUS[0]}
echo "$status" > "$report.exit"
exit "$status"
