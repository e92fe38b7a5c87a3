#!/usr/bin/env bash
# `make test`: start the real test servers once, run lint and all tests, stop
# the servers by their pids whatever the outcome.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

bash scripts/test-servers.sh start
trap 'bash scripts/test-servers.sh stop' EXIT
# shellcheck disable=SC1091
. .testenv/env
export REQUIRE_TEST_SERVERS=1

make --no-print-directory lint
go test -count=1 -p 2 -timeout 20m ./...
# The OpenAPI contract checker is a module of its own (api/contract).
go -C api/contract test -count=1 ./...
for t in scripts/test.d/*.sh; do [ -e "$t" ] && bash "$t"; done
echo "all tests passed"
