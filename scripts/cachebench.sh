#!/usr/bin/env bash
# Prints how much of each model request the provider could serve from its
# prompt cache (cmd/cachebench), on both protocols. With BEFORE=<commit> it
# first measures that commit's request layout the same way: the commit is
# checked out in a temporary worktree with this tree's caching fake model
# and bench command copied in.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
bench() {
  for protocol in responses chat; do
    go run ./cmd/cachebench -protocol "$protocol" -label "$1"
  done
}
if [ -n "${BEFORE:-}" ]; then
  tree="$(mktemp -d)"
  trap 'git -C "$ROOT" worktree remove --force "$tree" >/dev/null 2>&1 || true; rm -rf "$tree"' EXIT
  git worktree add --detach --quiet "$tree" "$BEFORE"
  rm -rf "$tree/shared/llm/llmtest" "$tree/cmd/cachebench"
  cp -R shared/llm/llmtest "$tree/shared/llm/llmtest"
  cp -R cmd/cachebench "$tree/cmd/cachebench"
  (cd "$tree" && bench "before ($BEFORE)")
fi
bench "after ($(git rev-parse --short HEAD))"
