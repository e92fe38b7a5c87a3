#!/usr/bin/env bash
# Typed clients from the document, for `make test`: openapi-typescript (with
# openapi-fetch) and hey-api generate a client from the served OpenAPI 3.1
# rendition (/openapi-3.1.json); each program (contract/clients/*.ts) must
# type-check and then run against `make dev`'s server (offline model), and
# the same program with `message` misspelt `mesage` must fail to compile on
# that field. Installs the pinned npm packages under .testenv/clients.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
STATE="$ROOT/.testenv/clients"
SRC="$ROOT/contract/clients"
mkdir -p "$STATE"
start=$SECONDS

if [ ! -d "$STATE/node_modules" ] || ! cmp -s "$SRC/package-lock.json" "$STATE/package-lock.json"; then
  cp "$SRC/package.json" "$SRC/package-lock.json" "$STATE/"
  (cd "$STATE" && npm ci --no-audit --no-fund --loglevel=error)
fi
rm -rf "$STATE/generated" "$STATE/out" "$STATE"/*.ts
# hey-api reads tsconfig.json to choose its import style (nodenext: explicit
# .js extensions), so the programs' settings are there before it generates.
cp "$SRC"/*.ts "$SRC/tsconfig.json" "$STATE/"
go build -o "$STATE/dev" ./cmd/dev

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null || true; }
trap cleanup EXIT
port="$(free_port)"
api="http://127.0.0.1:$port"
PORT="$port" DATABASE_URL= MEMGRAPH_URI= OPENAI_API_KEY= LLM_PROVIDER= OFFLINE_WORD_DELAY=0 \
  CONCEPTS_QUEUE_URL= ENRICHMENT_QUEUE_URL= LOG_LEVEL=warn "$STATE/dev" >"$STATE/dev.log" 2>&1 &
server=$!
for _ in $(seq 600); do curl -fsS "$api/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
curl -fsS "$api/openapi-3.1.json" -o "$STATE/openapi-3.1.json"

cd "$STATE"
mkdir -p generated
npx openapi-typescript openapi-3.1.json -o generated/openapi-typescript.d.ts >generate.log 2>&1
npx openapi-ts -i openapi-3.1.json -o generated/hey-api -c @hey-api/client-fetch -s >>generate.log 2>&1

passed=0 failed=0
for program in openapi-fetch hey-api; do
  # The program as written type-checks and runs.
  if npx tsc --target es2022 --module nodenext --moduleResolution nodenext --strict --skipLibCheck --types node \
    --outDir out "$program.ts" >"$program.tsc.log" 2>&1; then
    if API_URL="$api" node "out/$program.js"; then passed=$((passed + 1)); else echo "clients: $program failed against the server" >&2; failed=$((failed + 1)); fi
  else
    echo "clients: $program does not compile:" >&2; cat "$program.tsc.log" >&2; failed=$((failed + 1))
  fi
  # A misspelt field is a compile error on that field.
  sed 's/body: { message:/body: { mesage:/' "$program.ts" >"$program.misspelt.ts"
  if npx tsc --target es2022 --module nodenext --moduleResolution nodenext --strict --skipLibCheck --types node --noEmit \
    "$program.misspelt.ts" >"$program.misspelt.log" 2>&1; then
    echo "clients: $program compiles with a misspelt field" >&2; failed=$((failed + 1))
  elif grep -q "'mesage' does not exist" "$program.misspelt.log"; then
    passed=$((passed + 1))
  else
    echo "clients: $program with a misspelt field fails, but not on that field:" >&2; cat "$program.misspelt.log" >&2; failed=$((failed + 1))
  fi
done
echo "clients: $((SECONDS - start))s"
echo "clients: $passed passed, $failed failed"
[ "$failed" = 0 ]
