#!/usr/bin/env bash
# Fuzzing. Under `make test` each Go native fuzz target replays its corpus
# (testdata/fuzz, also run by `go test ./...`) and then runs a fixed number
# of new inputs (FUZZ_INPUTS, default 2000): bounded by a count, never by
# time, so a slow machine runs the same amount. `make fuzz` is the long run:
# FUZZ_TIME (default 60s) per target. The fuzzing build instruments every
# dependency; it is made once before the run and cached. A crash is written
# to the package's testdata/fuzz/<target>/ and fails this script: commit
# that file, and it becomes a regular test case.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
start=$SECONDS
if [ -n "${FUZZ_TIME:-}" ]; then budget="$FUZZ_TIME"; else budget="${FUZZ_INPUTS:-2000}x"; fi
# package target
targets=(
  "./shared/strictjson FuzzDecode"
  "./shared/httpapi FuzzChatRequestDecoder"
  "./shared/httpapi FuzzUseChatBodyDecoder"
  "./shared/httpapi FuzzSSEEncoder"
  "./shared/httpapi FuzzUIStreamEncoder"
  "./shared/concept FuzzCaptureArgs"
  "./shared/concept FuzzIDPart"
  "./shared/chat FuzzRequestContextArgs"
  "./shared/graph/write FuzzGuardKeepsFlaggedTextOut"
  "./shared/sources FuzzSourceURL"
  "./shared/auth FuzzTenantUUID"
)
for t in "${targets[@]}"; do
  read -r pkg name <<<"$t"
  echo "fuzz $pkg $name"
  log="${TMPDIR:-/tmp}/fuzz-$name.log"
  go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "$budget" -parallel 2 >"$log" 2>&1 || {
    cat "$log"
    exit 1
  }
done
echo "fuzz: ${#targets[@]} targets, $budget each, in $((SECONDS - start))s"
