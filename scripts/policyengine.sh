#!/usr/bin/env bash
# `make policyengine`: computes PolicyEngine UK's side of the uk_income_tax /
# uk_ni differential again with the pinned policyengine-uk
# (shared/calc/testdata/policyengine/requirements.txt, installed into
# .testenv/policyengine) and checks it equals the committed grid
# (testdata/policyengine/grid.json), which `go test ./shared/calc/` compares
# our calculators with. UPDATE=1 writes the new grid instead. PolicyEngine
# is a test oracle only: nothing of it ships. The computation takes minutes
# (a simulation per grid point), which is why `make test` reads the
# committed grid rather than computing it.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
STATE="$ROOT/.testenv/policyengine"
CONF="$ROOT/shared/calc/testdata/policyengine"
start=$SECONDS

if ! cmp -s "$CONF/requirements.txt" "$STATE/requirements.txt" || [ ! -x "$STATE/bin/python" ]; then
  echo "policyengine: installing $(cat "$CONF/requirements.txt")" >&2
  python3 -m venv "$STATE"
  "$STATE/bin/pip" install --quiet --disable-pip-version-check -r "$CONF/requirements.txt"
  cp "$CONF/requirements.txt" "$STATE/requirements.txt"
fi
echo "policyengine: computing the grid" >&2
"$STATE/bin/python" "$CONF/grid.py" "$STATE/grid.json"
if [ -n "${UPDATE:-}" ]; then
  cp "$STATE/grid.json" "$CONF/grid.json"
  echo "policyengine: wrote $CONF/grid.json"
elif ! python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' "$STATE/grid.json" "$CONF/grid.json"; then
  echo "policyengine: the computed grid differs from the committed one (UPDATE=1 to replace it)" >&2
  exit 1
fi
POLICYENGINE_GRID="$STATE/grid.json" go test -count=1 -run TestPolicyEngineDifferential ./shared/calc/
echo "policyengine: $((SECONDS - start))s"
