#!/usr/bin/env bash
# Copies the demo page's pinned browser libraries (package-lock.json here)
# into shared/httpapi/web/vendor/, which is committed so that the Go server
# embeds them and the page needs no build step at run time. Run it after
# changing a version: `make web-vendor`. The source-map comment is dropped:
# the maps are not served.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
OUT="$HERE/../../shared/httpapi/web/vendor"
cd "$HERE"
npm ci --no-audit --no-fund --loglevel=error
mkdir -p "$OUT"
copy() { sed '/^\/\/# sourceMappingURL=/d' "$1" >"$OUT/$2"; }
copy node_modules/marked/lib/marked.umd.js marked.umd.js
copy node_modules/dompurify/dist/purify.min.js purify.min.js
cp node_modules/marked/LICENSE "$OUT/marked.LICENSE"
cp node_modules/dompurify/LICENSE "$OUT/dompurify.LICENSE"
version() { node -p "JSON.parse(require('fs').readFileSync('node_modules/$1/package.json')).version"; }
echo "web-vendor: marked $(version marked), dompurify $(version dompurify) in shared/httpapi/web/vendor"
