#!/usr/bin/env bash
# The graph step of a deployed stage: invokes RegIntel-<stage>'s
# GraphSetupFunction (graph schema, then the shipped dataset; both
# idempotent) and fails when the function does. The deploy never runs it:
# run it once Memgraph is reachable from the stack's subnets (after the
# Memgraph side's routes to the peering exist) and after a deploy that
# changes the schema or the dataset. Needs AWS credentials and the aws CLI.
#   scripts/graph-setup.sh <stage> <region> <output-folder>
set -euo pipefail
stage="$1" region="$2" out="$3"
stack="RegIntel-$stage"
fn="$(aws cloudformation describe-stacks --region "$region" --stack-name "$stack" \
  --query "Stacks[0].Outputs[?OutputKey=='GraphSetupFunctionName'].OutputValue" --output text)"
if [ -z "$fn" ] || [ "$fn" = None ]; then
  echo "graph-setup: $stack has no graph step (it is deployed without memgraphUri)" >&2
  exit 2
fi
mkdir -p "$out"
# Synchronous, with the function's own timeout (10 min) as the read limit.
status="$(aws lambda invoke --region "$region" --function-name "$fn" --cli-read-timeout 660 \
  --cli-binary-format raw-in-base64-out --payload '{}' --query FunctionError --output text "$out/graph-setup.json")"
if [ "$status" != None ]; then
  echo "graph-setup: $fn failed ($status): $(cat "$out/graph-setup.json")" >&2
  echo "graph-setup: see its log group; Memgraph must be reachable from the app subnets" >&2
  exit 1
fi
echo "graph-setup: $fn applied the schema and the dataset"
