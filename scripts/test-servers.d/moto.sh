# shellcheck shell=bash
# moto server is the SQS the queue tests talk to. Sourced by
# scripts/test-servers.sh, which provides ROOT, STATE and free_port.

start_moto() {
  if ! command -v moto_server >/dev/null; then
    echo "installing moto server" >&2
    pip install -q 'moto[server]' >&2
  fi
  local port dir pid
  port="$(free_port)"
  dir="$(mktemp -d -t regintel-moto.XXXXXX)"
  moto_server -H 127.0.0.1 -p "$port" >"$dir/server.log" 2>&1 &
  pid=$!
  echo "$pid" >"$STATE/moto.pid"
  echo "$dir" >"$STATE/moto.dir"
  local deadline=$((SECONDS + 60))
  # moto answers its own dashboard path once it serves requests.
  until python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/moto-api/', timeout=1)" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "moto server exited; its log:" >&2; tail -30 "$dir/server.log" >&2; return 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "moto server not ready after 60s; its log:" >&2; tail -30 "$dir/server.log" >&2; return 1
    fi
    sleep 0.5
  done
  echo "export TEST_SQS_ENDPOINT=http://127.0.0.1:$port" >>"$STATE/env"
}

stop_moto() {
  [ -f "$STATE/moto.pid" ] || return 0
  local pid dir i
  pid="$(cat "$STATE/moto.pid")"
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
  fi
  if [ -f "$STATE/moto.dir" ]; then
    dir="$(cat "$STATE/moto.dir")"
    case "$dir" in */regintel-moto.*) rm -rf "$dir" ;; esac
  fi
  rm -f "$STATE/moto.pid" "$STATE/moto.dir"
}

EXTRA_SERVERS+=(moto)
