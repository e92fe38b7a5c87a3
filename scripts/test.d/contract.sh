#!/usr/bin/env bash
# Contract tests with the real clients, for `make test`: the Vercel AI SDK
# (contract/sdk.mjs), headless Chromium loading the demo page from another
# origin (contract/browser.mjs), and the AI SDK in Chromium reloading
# mid-answer (contract/resume.mjs), the README's recipes extracted and run
# in Chromium (contract/recipes.mjs), the demo page in prod mode through a
# CloudFront + origin access control stand-in (contract/oac-browser.mjs),
# all against the built chat binary with the scripted fake model
# (contract/fakellm). Installs what is missing:
# Debian's chromium, and the pinned npm packages under .testenv/contract.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
STATE="$ROOT/.testenv/contract"
mkdir -p "$STATE"
start=$SECONDS

if ! command -v chromium >/dev/null 2>&1; then
  echo "contract: installing chromium" >&2
  apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >&2
fi
if [ ! -d "$STATE/node_modules" ] || ! cmp -s contract/package-lock.json "$STATE/package-lock.json" || ! cmp -s contract/.npmrc "$STATE/.npmrc"; then
  cp contract/package.json contract/package-lock.json contract/.npmrc "$STATE/"
  (cd "$STATE" && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
fi
cp contract/*.mjs "$STATE/"

go build -o "$STATE/chat" ./functions/chat
go build -o "$STATE/fakellm" ./contract/fakellm

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

"$STATE/fakellm" >"$STATE/fakellm.out" 2>"$STATE/fakellm.log" &
pids+=($!)
# Waits are generous: on a loaded machine the first start of a binary is slow.
for _ in $(seq 600); do [ -s "$STATE/fakellm.out" ] && break; sleep 0.1; done
llm_url="$(head -1 "$STATE/fakellm.out")"
if [ -z "$llm_url" ]; then echo "contract: the fake model did not start; its log:" >&2; cat "$STATE/fakellm.log" >&2; exit 1; fi

api_port="$(free_port)"
page_port="$(free_port)"
PORT="$api_port" LLM_PROVIDER=openai OPENAI_API_KEY=contract-test OPENAI_BASE_URL="$llm_url" LLM_MODEL=gpt-test \
  CORS_ORIGINS="http://127.0.0.1:$page_port" DEMO_PAGE=true AUTH_MODE=dev DATABASE_URL= MEMGRAPH_URI= \
  CONCEPTS_QUEUE_URL= ENRICHMENT_QUEUE_URL= LOG_LEVEL=warn \
  "$STATE/chat" >"$STATE/chat.log" 2>&1 &
pids+=($!)
api="http://127.0.0.1:$api_port"
for _ in $(seq 600); do curl -fsS "$api/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
if ! curl -fsS "$api/healthz" >/dev/null 2>&1; then echo "contract: the chat server did not start; its log:" >&2; cat "$STATE/chat.log" >&2; exit 1; fi

results="$STATE/results"
: >"$results"
export CONTRACT_RESULTS="$results"
node "$STATE/sdk.mjs" "$api" || true
CHROMIUM="$(command -v chromium)" SCREENSHOT_DIR="$STATE" \
  node "$STATE/browser.mjs" "$api" "$page_port" || true
CHROMIUM="$(command -v chromium)" node "$STATE/resume.mjs" "$api" "$page_port" || true
CHROMIUM="$(command -v chromium)" node "$STATE/recipes.mjs" "$api" "$page_port" "$ROOT/README.md" || true

# The demo page's request code through a CloudFront + origin access control
# stand-in (SigV4, the origin request policy's headers, the body hash), no
# browser or packages needed; and the stand-in's SigV4 against AWS's test suite.
if node --test contract/oac.test.mjs contract/sigv4.test.mjs >"$STATE/oac.log" 2>&1; then
  awk '/^# pass /{p=$3} END {print p+0, 0}' "$STATE/oac.log" >>"$results"
else
  cat "$STATE/oac.log" >&2
  echo "0 1" >>"$results"
fi

# The same hop in Chromium, prod mode: the page served through the stand-in
# by a chat server that reads the user's token from X-User-Authorization.
oac_port="$(free_port)"
export JWT_HS256_SECRET="contract-oac-secret-0123456789abcdef" JWT_ISSUER="https://issuer.contract.test" JWT_AUDIENCE="regintel-contract"
PORT="$oac_port" LLM_PROVIDER=openai OPENAI_API_KEY=contract-test OPENAI_BASE_URL="$llm_url" LLM_MODEL=gpt-test \
  DEMO_PAGE=true AUTH_MODE=jwt JWT_HEADER=X-User-Authorization DATABASE_URL= MEMGRAPH_URI= \
  CONCEPTS_QUEUE_URL= ENRICHMENT_QUEUE_URL= LOG_LEVEL=warn \
  "$STATE/chat" >"$STATE/chat-oac.log" 2>&1 &
pids+=($!)
for _ in $(seq 600); do curl -fsS "http://127.0.0.1:$oac_port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
CHROMIUM="$(command -v chromium)" EDGE_GO="$ROOT/infra/edge.go" node "$STATE/oac-browser.mjs" "http://127.0.0.1:$oac_port" || true

read -r passed failed < <(awk '{p+=$1; f+=$2} END {print p+0, f+0}' "$results")
[ -s "$results" ] || failed=1
echo "contract: screenshots at 390 and 1280 px, light and dark, in .testenv/contract/demo-page-*.png, $((SECONDS - start))s"
echo "contract: $passed passed, $failed failed"
[ "$failed" = 0 ]
