#!/usr/bin/env bash
# For every function: its linux/arm64 stripped bootstrap size and its cold
# start under the Lambda runtime emulator: the first invoke's round trip,
# in which the emulator starts the process, the function initialises and
# answers (this emulator reports an Init Duration of ~0 ms, as it starts
# the process inside the invoke, so the round trip is what is timed), next
# to the baseline of this run: the local chat server's process start to its
# first /healthz 200 with in-memory defaults. RUNS (default 3) starts each
# one that many times and prints the median. The functions that need a
# database get TEST_DATABASE_URL (scripts/bench.sh starts the servers); a
# cold start connects to nothing, so any reachable URL will do.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
: "${TEST_DATABASE_URL:=postgres://bench@127.0.0.1:9/bench}"
RUNS="${RUNS:-3}"
OUT="$ROOT/.testenv/bench"
mkdir -p "$OUT/arm64" "$OUT/host"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
median() { sort -n | awk '{v[NR]=$1} END{if (NR) print v[int((NR+1)/2)]; else print "n/a"}'; }
FUNCTIONS=$(ls functions)
flags=(-tags lambda.norpc -trimpath -buildvcs=false -ldflags="-s -w -buildid=")
for fn in $FUNCTIONS; do
  CGO_ENABLED=0 GOOS=linux GOARCH=arm64 go build "${flags[@]}" -o "$OUT/arm64/$fn" "./functions/$fn"
  CGO_ENABLED=0 go build "${flags[@]}" -o "$OUT/host/$fn" "./functions/$fn"
done
go build -o "$OUT/chat-local" ./functions/chat
go build -C tools/rie -o "$OUT/aws-lambda-rie" github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie

# Baseline: the chat server, in-memory defaults, to its first /healthz 200.
local_start_ms() {
  local port pid t0 ms=""
  port="$(free_port)"
  t0="$(now_ms)"
  env -i PATH="$PATH" HOME="$OUT" PORT="$port" LOG_LEVEL=warn DEMO_PAGE=false "$OUT/chat-local" >"$OUT/local.log" 2>&1 &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    if curl -fso /dev/null "http://127.0.0.1:$port/healthz" 2>/dev/null; then ms=$(($(now_ms) - t0)); break; fi
  done
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  echo "${ms:-failed}"
}

# One cold start of function $1 under the emulator: process start to first
# answer, ms. Every function gets the settings it needs to start; the
# invoke's outcome does not matter, only how soon it comes.
emulator_first_invoke_ms() {
  local fn="$1" port pid secs=""
  port="$(free_port)"
  env -i PATH="$PATH" HOME="$OUT" AWS_LAMBDA_FUNCTION_TIMEOUT=30 AWS_REGION=eu-west-1 \
    AUTH_MODE=jwt JWT_HS256_SECRET=bench-secret-not-for-production-use JWT_ISSUER=regintel-local JWT_AUDIENCE=regintel-local \
    LLM_PROVIDER=openai OPENAI_API_KEY=bench-key OPENAI_BASE_URL="http://127.0.0.1:9/v1" LLM_MODEL=gpt-4o \
    DATABASE_URL="$TEST_DATABASE_URL" LOG_LEVEL=warn \
    "$OUT/aws-lambda-rie" --runtime-interface-emulator-address "127.0.0.1:$port" "$OUT/host/$fn" >"$OUT/rie-$fn.log" 2>&1 &
  pid=$!
  local i
  for i in $(seq 1 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.02
  done
  secs=$(curl -so /dev/null -m 20 -w '%{time_total}' -d '{}' "http://127.0.0.1:$port/2015-03-31/functions/function/invocations" || true)
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  awk -v s="$secs" 'BEGIN{ if (s+0 > 0) printf "%.0f\n", s*1000; else print "failed" }'
}

base=$(for _ in $(seq "$RUNS"); do local_start_ms; done | median)
echo
echo "cold start, median of $RUNS; baseline: local chat server, process start to first /healthz 200 = ${base} ms"
printf '%-18s %14s %22s %8s\n' function "arm64 size MB" "emulator 1st answer ms" "÷ base"
for fn in $FUNCTIONS; do
  size=$(stat -c %s "$OUT/arm64/$fn" | awk '{printf "%.1f", $1/1e6}')
  init=$(for _ in $(seq "$RUNS"); do emulator_first_invoke_ms "$fn"; done | median)
  ratio=$(awk -v a="$init" -v b="$base" 'BEGIN{ if (b+0 > 0 && a+0 > 0) printf "%.2f", a/b; else print "n/a" }')
  printf '%-18s %14s %22s %8s\n' "$fn" "$size" "$init" "$ratio"
done
