#!/usr/bin/env bash
# Starts (or stops) the real servers the tests talk to, once per test run:
# PostgreSQL 15 in a throwaway cluster, Neo4j 5 (Bolt stand-in for Memgraph)
# and moto (SQS). `start` writes .testenv/env with the TEST_* variables;
# `stop` stops each server by its own pid and removes the cluster.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
STATE="${TESTENV_DIR:-$ROOT/.testenv}"
mkdir -p "$STATE"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

pg_bin() {
  local d
  for d in /usr/lib/postgresql/15/bin /usr/local/bin /usr/bin; do
    if [ -x "$d/initdb" ]; then echo "$d"; return; fi
  done
  # A machine without PostgreSQL: install Debian's 15 once.
  if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    echo "installing PostgreSQL 15" >&2
    apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 >&2
    if [ -x /usr/lib/postgresql/15/bin/initdb ]; then echo /usr/lib/postgresql/15/bin; return; fi
  fi
  echo "initdb (PostgreSQL 15) not found" >&2; exit 1
}

start_postgres() {
  local bin port dir
  bin="$(pg_bin)"
  port="$(free_port)"
  dir="$(mktemp -d -t regintel-pg.XXXXXX)"
  chmod 755 "$dir"
  local as=()
  if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; as=(runuser -u postgres --); fi
  "${as[@]}" "$bin/initdb" -D "$dir/data" -U postgres -A trust --no-sync >"$STATE/pg-initdb.log" 2>&1
  "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" start >/dev/null
  "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -qc "CREATE DATABASE regintel_test" >/dev/null
  echo "$dir" >"$STATE/pg.dir"
  echo "export TEST_DATABASE_URL=postgres://postgres@127.0.0.1:$port/regintel_test?sslmode=disable" >>"$STATE/env"
  echo "export TEST_PG_DATA=$dir/data" >>"$STATE/env"
  echo "export TEST_PG_BIN=$bin" >>"$STATE/env"
}

stop_postgres() {
  [ -f "$STATE/pg.dir" ] || return 0
  local dir bin as=()
  dir="$(cat "$STATE/pg.dir")"; bin="$(pg_bin)"
  if [ "$(id -u)" = 0 ]; then as=(runuser -u postgres --); fi
  [ -d "$dir/data" ] && "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir" "$STATE/pg.dir"
}

# wait_ready NAME PID DIR SECONDS CHECK [ARGS...]: runs CHECK until it
# succeeds; fails with the server's log (DIR/server.log) if the server exits
# or SECONDS pass first.
wait_ready() {
  local name=$1 pid=$2 dir=$3 limit=$4
  shift 4
  local deadline=$((SECONDS + limit))
  until "$@" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "$name exited; its log:" >&2; tail -50 "$dir/server.log" >&2; return 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "$name not ready after ${limit}s; its log:" >&2; tail -50 "$dir/server.log" >&2; return 1
    fi
    sleep 0.5
  done
}

# stop_server NAME GRACE: stops the pid in $STATE/NAME.pid (TERM, then KILL
# after GRACE seconds) and removes the data dir recorded in $STATE/NAME.dir.
stop_server() {
  local name=$1 grace=$2 pid dir i
  [ -f "$STATE/$name.pid" ] || return 0
  pid="$(cat "$STATE/$name.pid")"
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 1 $((grace * 2))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
  fi
  if [ -f "$STATE/$name.dir" ]; then
    dir="$(cat "$STATE/$name.dir")"
    case "$dir" in */regintel-"$name".*) rm -rf "$dir" ;; esac
  fi
  rm -f "$STATE/$name.pid" "$STATE/$name.dir"
}

# Other servers register start_X/stop_X in scripts/test-servers.d/*.sh.
for f in "$ROOT"/scripts/test-servers.d/*.sh; do [ -e "$f" ] && . "$f"; done

SERVERS=(postgres ${EXTRA_SERVERS[@]+"${EXTRA_SERVERS[@]}"})
# TEST_SERVERS="postgres" starts only the servers named (scripts/loadtest.sh).
if [ -n "${TEST_SERVERS:-}" ]; then read -ra SERVERS <<<"$TEST_SERVERS"; fi

case "${1:-}" in
  start)
    : >"$STATE/env"
    for s in "${SERVERS[@]}"; do "start_$s"; done
    echo "test servers up: ${SERVERS[*]} (env in $STATE/env)"
    ;;
  stop)
    for s in "${SERVERS[@]}"; do "stop_$s" || true; done
    rm -f "$STATE/env"
    ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
