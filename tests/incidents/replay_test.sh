#!/usr/bin/env bash
# Every real incident gives one report three ways: diagnosed plainly, diagnosed while recording an
# evidence bundle, and replayed from that bundle. Recording must not change what it records, and a
# bundle must give the report back byte for byte (docs/bundles.md).
# Usage: replay_test.sh ATTRIBUTION_BINARY
set -euo pipefail
BIN="$(readlink -f "$1")"
HERE="$(readlink -f "$(dirname "${BASH_SOURCE[0]}")")"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
n=0; bad=()
for dir in "$HERE"/*/logs; do
  slug="$(basename "$(dirname "$dir")")"
  rm -rf "$WORK/rec"
  "$BIN" diagnose --logs "$dir" --format json > "$WORK/plain.json" 2>/dev/null || true
  "$BIN" diagnose --logs "$dir" --format json --record "$WORK/rec" > "$WORK/recorded.json" 2>/dev/null || true
  "$BIN" diagnose --replay "$WORK/rec" --format json > "$WORK/replayed.json" 2>/dev/null || true
  n=$((n + 1))
  if ! cmp -s "$WORK/plain.json" "$WORK/recorded.json" || ! cmp -s "$WORK/plain.json" "$WORK/replayed.json"; then
    bad+=("$slug")
  fi
done
[ "$n" -ge 100 ] || { echo "FAIL: only $n incidents found under $HERE" >&2; exit 1; }
if [ ${#bad[@]} -gt 0 ]; then
  echo "FAIL: ${#bad[@]} of $n incidents differ between plain, recorded and replayed runs: ${bad[*]}" >&2
  exit 1
fi
echo "ok: $n incidents give the same report plain, while recording, and replayed"
