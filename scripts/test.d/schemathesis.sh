#!/usr/bin/env bash
# Schemathesis, for `make test`: every check (but ignored_auth, which dev
# auth makes meaningless) against `make dev`'s server, from the document
# alone (no hooks: the dev headers are the only authentication), with the
# offline model, on the memory store and on Postgres (TEST_DATABASE_URL).
# Each run is deterministic and bounded by a count, never by time: Schemathesis's
# deterministic generation, a fixed number of examples per operation and one
# worker, so every machine sends the same requests and gets one verdict. It
# must reach a 2xx on POST /chat. Installs every pinned package
# (api/schemathesis/requirements.txt, hypothesis included, --no-deps) into
# .testenv/schemathesis once; later runs need no network.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
STATE="$ROOT/.testenv/schemathesis"
CONF="$ROOT/api/schemathesis"
MAX_EXAMPLES="${SCHEMATHESIS_MAX_EXAMPLES:-8}"
start=$SECONDS

if ! cmp -s "$CONF/requirements.txt" "$STATE/requirements.txt" || [ ! -x "$STATE/bin/schemathesis" ]; then
  echo "schemathesis: installing $(cat "$CONF/requirements.txt")" >&2
  python3 -m venv "$STATE"
  "$STATE/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$CONF/requirements.txt"
  cp "$CONF/requirements.txt" "$STATE/requirements.txt"
fi
go build -o "$STATE/dev" ./cmd/dev

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null || true; }
trap cleanup EXIT

# run_against LABEL DATABASE_URL: one bounded run; fails on any failure or
# when no POST /chat got a 2xx.
run_against() {
  local label="$1" database_url="$2" port api har
  port="$(free_port)"
  api="http://127.0.0.1:$port"
  PORT="$port" DATABASE_URL="$database_url" MEMGRAPH_URI= OPENAI_API_KEY= LLM_PROVIDER= OFFLINE_WORD_DELAY=0 \
    CONCEPTS_QUEUE_URL= ENRICHMENT_QUEUE_URL= LOG_LEVEL=warn "$STATE/dev" >"$STATE/dev-$label.log" 2>&1 &
  server=$!
  for _ in $(seq 600); do curl -fsS "$api/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
  if ! curl -fsS "$api/healthz" >/dev/null 2>&1; then echo "schemathesis: the server did not start; its log:" >&2; cat "$STATE/dev-$label.log" >&2; return 1; fi
  har="$STATE/$label.har"
  rm -f "$har"
  # Run from the state directory, where Schemathesis keeps its cache.
  (cd "$STATE" && PYTHONDONTWRITEBYTECODE=1 \
    "$STATE/bin/schemathesis" --config-file "$CONF/schemathesis.toml" run "$api/openapi.json" \
    --exclude-checks ignored_auth --max-examples "$MAX_EXAMPLES" --generation-deterministic --workers 1 \
    --request-timeout 30 -H "X-Tenant-Id: schemathesis" -H "X-User-Id: schemathesis-$label" \
    --report har --report-har-path "$har" --no-color) >"$STATE/$label.txt" 2>&1 || {
    tail -n 200 "$STATE/$label.txt" >&2
    echo "schemathesis ($label): failures; the whole report is .testenv/schemathesis/$label.txt" >&2
    return 1
  }
  kill "$server" 2>/dev/null || true
  wait "$server" 2>/dev/null || true
  server=""
  python3 - "$har" <<'PY'
import json, sys, urllib.parse
entries = json.load(open(sys.argv[1]))["log"]["entries"]
ok = [e for e in entries if e["request"]["method"] == "POST"
      and urllib.parse.urlparse(e["request"]["url"]).path == "/chat" and 200 <= e["response"]["status"] < 300]
print(f"schemathesis: {len(entries)} requests, {len(ok)} answered POST /chat with a 2xx")
sys.exit(0 if ok else 1)
PY
  tail -n 3 "$STATE/$label.txt" | grep -v '^$' || true
}

run_against memory ""
if [ -n "${TEST_DATABASE_URL:-}" ]; then
  run_against postgres "$TEST_DATABASE_URL"
elif [ -n "${REQUIRE_TEST_SERVERS:-}" ]; then
  echo "schemathesis: TEST_DATABASE_URL is not set" >&2
  exit 1
fi
echo "schemathesis: passed in $((SECONDS - start))s"
