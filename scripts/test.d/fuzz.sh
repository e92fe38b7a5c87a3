#!/usr/bin/env bash
# Fuzzing for `make test`: each Go native fuzz target runs for a bounded
# number of inputs (FUZZ_INPUTS, default 10000) or FUZZ_TIME (default 15s),
# whichever ends first. The fuzzing build instruments every dependency;
# it is made before the clock starts and is cached, so only the first run
# on a machine pays for it. The seed corpora (testdata/fuzz) already run as
# plain tests in `go test ./...`. A crash is written to the package's
# testdata/fuzz/<target>/ and fails this script: commit that file, and it
# becomes a regular test case.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
start=$SECONDS
inputs="${FUZZ_INPUTS:-10000}"
limit="${FUZZ_TIME:-15s}"

# package target
targets=(
  "./shared/strictjson FuzzDecode"
  "./shared/httpapi FuzzChatRequestDecoder"
  "./shared/httpapi FuzzUseChatBodyDecoder"
  "./shared/httpapi FuzzSSEEncoder"
  "./shared/httpapi FuzzUIStreamEncoder"
  "./shared/concept FuzzCaptureArgs"
  "./shared/chat FuzzRequestContextArgs"
  "./shared/graph/write FuzzGuardKeepsFlaggedTextOut"
  "./shared/sources FuzzSourceURL"
  "./shared/auth FuzzTenantUUID"
)
for t in "${targets[@]}"; do
  read -r pkg name <<<"$t"
  echo "fuzz $pkg $name"
  go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime 1x >/dev/null 2>&1 || true
  # -fuzztime counts inputs; timeout stops a slow target at the time limit.
  timeout --signal=INT "$limit" go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "${inputs}x" -parallel 2 \
    >"${TMPDIR:-/tmp}/fuzz-$name.log" 2>&1 || {
    rc=$?
    if [ "$rc" -eq 124 ] && ! grep -q -- '--- FAIL' "${TMPDIR:-/tmp}/fuzz-$name.log"; then
      echo "  stopped at $limit"
      continue
    fi
    cat "${TMPDIR:-/tmp}/fuzz-$name.log"
    exit 1
  }
done
echo "fuzz: ${#targets[@]} targets in $((SECONDS - start))s"
