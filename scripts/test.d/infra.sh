#!/usr/bin/env bash
# Infrastructure checks for `make test`: the infra module's Go tests (CDK
# assertions and cdk-nag), then `make lint-infra` (synth of a dev and a full
# prod variant through the pinned CDK CLI, nag failing the synth on any
# unsuppressed finding, cfn-lint on every template). Offline: no AWS
# credentials are read. Synthesis uses placeholder bootstraps, one per
# function in the stack's table, because these checks are about the
# template; `make build` (and the functions' own tests) cover the binaries,
# and `make synth` uses the real ones.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
start=$SECONDS
export JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION=1

# cfn-lint comes from PyPI; install the tested release when a machine lacks it.
if ! command -v cfn-lint >/dev/null 2>&1; then
  python3 -m pip install --quiet 'cfn-lint==1.51.0'
fi

unformatted="$(cd infra && gofmt -l ./*.go)"
if [ -n "$unformatted" ]; then
  echo "infra: gofmt needed: $unformatted" >&2
  exit 1
fi
(cd infra && go vet ./... && go test -count=1 -timeout 15m ./...)

stub="$(mktemp -d)"
trap 'rm -rf "$stub"' EXIT
for fn in $(cd infra && go run . functions); do
  mkdir -p "$stub/$fn"
  printf '#!/bin/sh\necho "placeholder: run make build" >&2\nexit 1\n' >"$stub/$fn/bootstrap"
  chmod +x "$stub/$fn/bootstrap"
done
make --no-print-directory lint-infra INFRA_BUILD_DIR="$stub" CDK_OUT="$stub/cdk.out"
echo "infra: tests, synth, cdk-nag and cfn-lint passed in $((SECONDS - start))s"
