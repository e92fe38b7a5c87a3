# shellcheck shell=bash
# moto server is the SQS the queue tests talk to. Sourced by
# scripts/test-servers.sh, which provides ROOT, STATE, free_port, wait_ready
# and stop_server.

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
  # moto answers its own dashboard path once it serves requests.
  wait_ready "moto server" "$pid" "$dir" 60 moto_answers "$port" || return 1
  echo "export TEST_SQS_ENDPOINT=http://127.0.0.1:$port" >>"$STATE/env"
}

moto_answers() {
  python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$1/moto-api/', timeout=1)"
}

stop_moto() { stop_server moto 5; }

EXTRA_SERVERS+=(moto)
