#!/usr/bin/env bash
# Runs the benchmarks against freshly started test servers. Each benchmark
# reports its own baseline measured in the same run, and the ratio. Then
# scripts/coldstart.sh prints every function's size and cold start.
# COLDSTART_ONLY=1 skips the Go benchmarks.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
bash scripts/test-servers.sh start
trap 'bash scripts/test-servers.sh stop' EXIT
. .testenv/env
if [ -z "${COLDSTART_ONLY:-}" ]; then
  go test -run '^$' -bench . -benchtime "${BENCHTIME:-200x}" ./... 2>&1 | grep -E '^(Benchmark|ok|FAIL|pkg:)'
fi

bash scripts/coldstart.sh
