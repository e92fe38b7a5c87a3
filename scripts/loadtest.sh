#!/usr/bin/env bash
# make loadtest: builds the chat server and cmd/loadtest, migrates a fresh
# database with the migrate function (run locally, as `make migrate` does),
# starts the server on loopback with the offline model (no delay) against
# it, drives it with C concurrent clients for DURATION seconds per phase
# (/healthz first, the floor, then chat turns), and does the same with the
# in-memory store.
# Postgres is the running test servers' (.testenv/env) when there is one,
# else a throwaway cluster of its own. PROFILE=1 builds with -tags pprof and
# prints the CPU profile top of the Postgres run's chat phase. Each phase
# also reports the CPU the server, Postgres and the load generator spent per
# request (they share this machine's cores).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
C="${C:-16}"
DURATION="${DURATION:-10}"
FOLLOWUPS="${FOLLOWUPS:-1}"
# One Lambda environment serves one request at a time (pool of 2); this
# server serves C at once, so its pool is sized for them.
POOL="${LOADTEST_DB_CONNS:-$C}"
OUT="$ROOT/.testenv/loadtest"
mkdir -p "$OUT"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

tags=()
[ -n "${PROFILE:-}" ] && tags=(-tags pprof)
go build "${tags[@]}" -o "$OUT/chat" ./functions/chat
go build -o "$OUT/loadtest" ./cmd/loadtest
go build -o "$OUT/migrate" ./functions/migrate

own_servers=""
if [ -f .testenv/env ] && grep -q TEST_DATABASE_URL .testenv/env; then
  . .testenv/env
else
  export TESTENV_DIR="$OUT/servers"
  TEST_SERVERS=postgres bash scripts/test-servers.sh start >/dev/null
  own_servers=1
  . "$TESTENV_DIR/env"
fi
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  if [ -n "$own_servers" ]; then bash scripts/test-servers.sh stop; fi
}
trap cleanup EXIT

admin_url="$TEST_DATABASE_URL"
PGOPTIONS="-c client_min_messages=warning" "$TEST_PG_BIN/psql" "$admin_url" -qc "DROP DATABASE IF EXISTS regintel_load" -c "CREATE DATABASE regintel_load" >/dev/null
load_url="${admin_url/\/regintel_test\?//regintel_load?}"
# The chat function does not migrate; the migrate function does.
env -u MEMGRAPH_URI -u DB_SECRET_ARN -u DB_APP_USER -u DB_SWEEP_USER -u AWS_LAMBDA_RUNTIME_API \
  DATABASE_URL="$load_url" LOG_FORMAT=text LOG_LEVEL=warn "$OUT/migrate" >/dev/null

# start_server [VAR=value...]: the chat server on a free loopback port.
start_server() {
  port="$(free_port)"
  env -u OPENAI_API_KEY -u OPENAI_SECRET_ARN -u MEMGRAPH_URI -u CONCEPTS_QUEUE_URL -u ENRICHMENT_QUEUE_URL \
    -u DATABASE_URL -u AWS_LAMBDA_RUNTIME_API \
    PORT="$port" LLM_PROVIDER=offline OFFLINE_WORD_DELAY=0 AUTH_MODE=dev DEMO_PAGE=false \
    LOG_FORMAT=text LOG_LEVEL=warn "$@" "$OUT/chat" >"$OUT/server.log" 2>&1 &
  server_pid=$!
  local i
  for i in $(seq 1 120); do
    curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && return 0
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.25
  done
  echo "chat server did not start; its log:" >&2; tail -20 "$OUT/server.log" >&2; exit 1
}

stop_server() { kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""; }

# load LABEL: one run against the started server; with PROFILE, a CPU
# profile of its chat phase and the allocations made in the same window.
load() {
  local label=$1 prof_pid=""
  if [ -n "${PROFILE:-}" ] && [ "$label" = postgres ]; then
    local pprof_url
    pprof_url="$(sed -n 's|^pprof: \(http://127\.0\.0\.1:[0-9]*/debug/pprof/\)$|\1|p' "$OUT/server.log" | head -1)"
    local window=$((DURATION > 4 ? DURATION - 2 : 2))
    (sleep $((DURATION + 1))
     curl -fsS -o "$OUT/allocs.pprof" "${pprof_url}allocs?seconds=$window" &
     curl -fsS -o "$OUT/cpu.pprof" "${pprof_url}profile?seconds=$window"
     wait) &
    prof_pid=$!
  fi
  local cpu="server=$server_pid"
  if [ "$label" = postgres ] && [ -r "${TEST_PG_DATA:-}/postmaster.pid" ]; then
    cpu="$cpu,postgres=$(head -1 "$TEST_PG_DATA/postmaster.pid")"
  fi
  "$OUT/loadtest" -url "http://127.0.0.1:$port" -c "$C" -d "${DURATION}s" -followups "$FOLLOWUPS" -label "$label" -cpu "$cpu"
  if [ -n "$prof_pid" ]; then
    wait "$prof_pid"
    echo "CPU profile of the chat phase ($OUT/cpu.pprof; allocations in $OUT/allocs.pprof):"
    go tool pprof -top -nodecount=30 "$OUT/chat" "$OUT/cpu.pprof" 2>/dev/null | sed -n '1,40p'
  fi
}

start_server DATABASE_URL="$load_url" DB_MAX_CONNS="$POOL"
load postgres
stop_server
start_server
load memory
stop_server
