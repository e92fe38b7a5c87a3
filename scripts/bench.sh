#!/usr/bin/env bash
# Runs the benchmarks against freshly started test servers. Each benchmark
# reports its own baseline measured in the same run, and the ratio. Then
# scripts/coldstart.sh prints every function's size and cold start, whether
# or not a benchmark failed. A failed package's whole output is shown (the
# summary shows only benchmark lines), and the script then exits non-zero.
# COLDSTART_ONLY=1 skips the Go benchmarks.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
bash scripts/test-servers.sh start
trap 'bash scripts/test-servers.sh stop' EXIT
. .testenv/env
bench_status=0
if [ -z "${COLDSTART_ONLY:-}" ]; then
  out="$ROOT/.testenv/bench.txt"
  go test -run '^$' -bench . -benchtime "${BENCHTIME:-200x}" ./... >"$out" 2>&1 || bench_status=$?
  grep -E '^(Benchmark|ok|FAIL|pkg:)' "$out" || true
  if [ "$bench_status" -ne 0 ]; then
    echo "bench: a benchmark failed; the failing packages' output:" >&2
    # Print each failing package's lines: from its first line after the
    # previous package's result to its FAIL line.
    awk '/^(ok|FAIL|\?) /{ if ($1=="FAIL") printf "%s", buf; buf=""; next } { buf = buf $0 "\n" }' "$out" >&2
  fi
fi

bash scripts/coldstart.sh
exit "$bench_status"
