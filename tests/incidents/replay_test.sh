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
# One incident: its slug when the three reports differ. Incidents run as many at once as there are
# cores, each in its own directory.
check_one() {
  local dir="$1" slug w
  slug="$(basename "$(dirname "$dir")")"
  w="$(mktemp -d -p "$WORK")"
  "$BIN" diagnose --logs "$dir" --format json > "$w/plain.json" 2>/dev/null || true
  "$BIN" diagnose --logs "$dir" --format json --record "$w/rec" > "$w/recorded.json" 2>/dev/null || true
  "$BIN" diagnose --replay "$w/rec" --format json > "$w/replayed.json" 2>/dev/null || true
  if ! cmp -s "$w/plain.json" "$w/recorded.json" || ! cmp -s "$w/plain.json" "$w/replayed.json"; then
    echo "$slug"
  fi
  rm -rf "$w"
}
export -f check_one
export BIN WORK
n="$(printf '%s\n' "$HERE"/*/logs | wc -l)"
printf '%s\n' "$HERE"/*/logs | xargs -P "$(nproc)" -I{} bash -c 'check_one "$1"' _ {} > "$WORK/bad.txt"
mapfile -t bad < <(sort "$WORK/bad.txt")
[ "$n" -ge 100 ] || { echo "FAIL: only $n incidents found under $HERE" >&2; exit 1; }
if [ ${#bad[@]} -gt 0 ]; then
  echo "FAIL: ${#bad[@]} of $n incidents differ between plain, recorded and replayed runs: ${bad[*]}" >&2
  exit 1
fi
echo "ok: $n incidents give the same report plain, while recording, and replayed"
