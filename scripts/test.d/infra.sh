#!/usr/bin/env bash
# Infrastructure checks for `make test`: the infra module's Go tests (CDK
# assertions and cdk-nag), then `make lint-infra` (synth of a dev and a full
# prod variant through the pinned CDK CLI, nag failing the synth on any
# unsuppressed finding, cfn-lint and checkov on every template), then the
# deploy guide from a fresh copy (`make deploy-guide-check`). Offline: no AWS
# credentials are read. Synthesis uses placeholder bootstraps, one per
# function in the stack's table, because these checks are about the
# template; `make build` (and the functions' own tests) cover the binaries,
# and `make synth` uses the real ones.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
start=$SECONDS
export JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION=1

# cfn-lint and the SAM CLI come from PyPI, pinned in mk/infra.mk; installed
# into a virtualenv under .testenv/ when missing.
make --no-print-directory infra-tools
export INFRA_VENV="$ROOT/.testenv/infra-venv"

# Canary: the pinned cfn-lint must refuse an engine version that can no
# longer create clusters (W3690), with the arguments lint-infra uses.
canary="$(mktemp -d)"
cat >"$canary/old-engine.json" <<'JSON'
{"Resources": {"Db": {"Type": "AWS::RDS::DBCluster",
  "Properties": {"Engine": "aurora-postgresql", "EngineVersion": "16.6", "MasterUsername": "a", "ManageMasterUserPassword": true}}}}
JSON
args="$(make --no-print-directory -s cfn-lint-args)"
# shellcheck disable=SC2086
if out="$("$INFRA_VENV/bin/cfn-lint" $args -- "$canary/old-engine.json" 2>&1)" || ! grep -q W3690 <<<"$out"; then
  echo "infra: cfn-lint did not fail on Aurora PostgreSQL 16.6 with W3690:" >&2
  echo "$out" >&2
  exit 1
fi
rm -rf "$canary"

unformatted="$(cd infra && gofmt -l ./*.go)"
if [ -n "$unformatted" ]; then
  echo "infra: gofmt needed: $unformatted" >&2
  exit 1
fi
# The sam-local reproduction test (infra/samlocal_test.go) needs the SAM CLI
# and the test Postgres (.testenv/env).
(cd infra && go vet ./... && INFRA_VENV="$INFRA_VENV" go test -count=1 -timeout 15m ./...)

stub="$(mktemp -d)"
trap 'rm -rf "$stub"' EXIT
for fn in $(cd infra && go run . functions); do
  mkdir -p "$stub/$fn"
  printf '#!/bin/sh\necho "placeholder: run make build" >&2\nexit 1\n' >"$stub/$fn/bootstrap"
  chmod +x "$stub/$fn/bootstrap"
done
make --no-print-directory lint-infra INFRA_BUILD_DIR="$stub" CDK_OUT="$stub/cdk.out"

# The deploy guide, run from a fresh copy of HEAD without credentials: every
# deploy-day step runs; one that needs AWS must stop for the credentials only,
# after synthesizing the assembly it would deploy.
make --no-print-directory deploy-guide-check
echo "infra: tests, synth, cdk-nag, cfn-lint, checkov and the deploy guide passed in $((SECONDS - start))s"
