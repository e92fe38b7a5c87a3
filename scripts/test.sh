#!/usr/bin/env bash
# `make test`: start the real test servers once, run lint and all tests, stop
# the servers by their pids whatever the outcome. Each stage's time is
# printed at the end (and on failure, up to the failing stage).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

timings=()
stage() {
  local name="$1" begin=$SECONDS
  shift
  "$@"
  timings+=("$(printf '%-22s %5ss' "$name" "$((SECONDS - begin))")")
}
report() { printf 'stage times:\n'; printf '  %s\n' "${timings[@]}"; }
trap 'report; bash scripts/test-servers.sh stop' EXIT

stage servers bash scripts/test-servers.sh start
# shellcheck disable=SC1091
. .testenv/env
export REQUIRE_TEST_SERVERS=1

stage lint make --no-print-directory lint
stage "go test" go test -count=1 -p 2 -timeout 30m ./...
# The OpenAPI contract checker is a module of its own (api/contract).
stage "go test api/contract" go -C api/contract test -count=1 ./...
for t in scripts/test.d/*.sh; do
  [ -e "$t" ] && stage "$(basename "$t" .sh)" bash "$t"
done
echo "all tests passed"
