#!/usr/bin/env bash
# The PolicyEngine UK differential, for `make test`: installs the pinned
# policyengine-uk (shared/calc/testdata/policyengine/requirements.txt) into
# .testenv/policyengine once, computes its side of the grid into
# .testenv/policyengine/grid.json (again only when the script or the pin
# changed), then runs the Go test that compares uk_income_tax and uk_ni
# with it. Nothing of PolicyEngine ships.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT"
STATE="$ROOT/.testenv/policyengine"
CONF="$ROOT/shared/calc/testdata/policyengine"
start=$SECONDS

if ! cmp -s "$CONF/requirements.txt" "$STATE/requirements.txt" || [ ! -x "$STATE/bin/python" ]; then
  echo "policyengine: installing $(cat "$CONF/requirements.txt")" >&2
  python3 -m venv "$STATE"
  "$STATE/bin/pip" install --quiet --disable-pip-version-check -r "$CONF/requirements.txt"
  cp "$CONF/requirements.txt" "$STATE/requirements.txt"
  rm -f "$STATE/grid.json"
fi
stamp="$(cat "$CONF/requirements.txt" "$CONF/grid.py" | sha256sum | cut -d' ' -f1)"
if [ ! -s "$STATE/grid.json" ] || [ "$(cat "$STATE/grid.stamp" 2>/dev/null)" != "$stamp" ]; then
  echo "policyengine: computing the grid (a few minutes)" >&2
  "$STATE/bin/python" "$CONF/grid.py" "$STATE/grid.json.tmp"
  mv "$STATE/grid.json.tmp" "$STATE/grid.json"
  echo "$stamp" >"$STATE/grid.stamp"
fi
POLICYENGINE_GRID="$STATE/grid.json" go test -count=1 -v -run TestPolicyEngineDifferential ./shared/calc/ | grep -E '^(=== RUN|--- |\s+policyengine_test.go|ok|FAIL|PASS)'
echo "policyengine: passed in $((SECONDS - start))s"
