#!/usr/bin/env bash
# Every generator scenario at tier S (~100 MB each) is diagnosed as its truth.toml says, and again
# in the real mix of benign lines (near twins of fault lines; smaller: 3,000 lines per rank), at
# --threads 1 and 2 with byte-identical reports.
# Usage: scenarios_test.sh PATH/TO/attribution
set -euo pipefail
ATTR="$(readlink -f "$1")"
HERE="$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
command -v jq >/dev/null || { echo "FAIL: jq is missing" >&2; exit 1; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
passed=0; failed=0
for s in xid79 ib-flap ecc app-exception host-oom hang noise; do
  bash "$HERE/generate.sh" --scenario "$s" --tier S --seed 3 --out "$WORK/$s" 2>/dev/null
  json=$("$ATTR" diagnose --config "$WORK/$s/attribution.toml" --format json)
  want() { sed -n "s/^$1 = \"\\(.*\\)\"/\\1/p" "$WORK/$s/truth.toml"; }
  got=$(jq -r '[.outcome.family, .outcome.blame, (.root_causes[0].host // "")] | join(" ")' <<<"$json")
  expect="$(want family) $(want blame) $(want root_host)"
  pci_ok=1
  if [ -n "$(want root_gpu_pci)" ] && [ "$(jq -r '.root_causes[0].pci // ""' <<<"$json")" != "$(want root_gpu_pci)" ]; then pci_ok=0; fi
  if [ "$got" = "$expect" ] && [ "$pci_ok" = 1 ]; then
    echo "ok: $s: $got" >&2; passed=$((passed + 1))
  else
    echo "FAIL: $s: got '$got', want '$expect' $(want root_gpu_pci)" >&2; failed=$((failed + 1))
  fi
  # The same diagnosis recorded, then replayed from the bundle alone, byte for byte (three
  # scenarios: a hardware cause, an application traceback, a hang localised by sequence numbers).
  case "$s" in xid79|app-exception|hang) ;; *) rm -rf "${WORK:?}/$s"; continue ;; esac
  "$ATTR" diagnose --config "$WORK/$s/attribution.toml" --format json --record "$WORK/bundle-$s" > "$WORK/live.json" 2>"$WORK/stderr"
  if grep -q "scanning" "$WORK/stderr"; then echo "FAIL: $s: progress printed while stderr is not a terminal" >&2; failed=$((failed + 1)); fi
  mv "$WORK/$s" "$WORK/gone-$s"
  if "$ATTR" diagnose --replay "$WORK/bundle-$s" --format json | cmp -s - "$WORK/live.json"; then
    echo "ok: $s: replays byte for byte ($(du -sm "$WORK/bundle-$s" | cut -f1) MiB bundle of $(du -sm "$WORK/gone-$s/logs" | cut -f1) MiB of logs)" >&2
  else
    echo "FAIL: $s: the replay differs from the recorded run" >&2; failed=$((failed + 1))
  fi
  mv "$WORK/gone-$s" "$WORK/$s"
  if [ "$s" = xid79 ]; then
    # On a terminal (script(1) gives one), a run longer than a second draws a progress line.
    script -qec "'$ATTR' diagnose --config '$WORK/$s/attribution.toml' --threads 1 --record '$WORK/bundle-tty' --format json > /dev/null" /dev/null > "$WORK/tty.out" || true
    if grep -q "scanning [0-9]*/[0-9]* files, .*/s" "$WORK/tty.out"; then
      echo "ok: progress line on a terminal" >&2
    else
      echo "FAIL: no progress line on a terminal: $(head -c 300 "$WORK/tty.out")" >&2; failed=$((failed + 1))
    fi
    rm -rf "$WORK/bundle-tty"
  fi
  rm -rf "${WORK:?}/$s" "${WORK:?}/bundle-$s"
done
for s in xid79 ib-flap ecc app-exception host-oom hang noise; do
  bash "$HERE/generate.sh" --scenario "$s" --tier S --mix real --lines 3000 --seed 5 --out "$WORK/$s" 2>/dev/null
  "$ATTR" diagnose --config "$WORK/$s/attribution.toml" --format json --threads 2 > "$WORK/real.json"
  "$ATTR" diagnose --config "$WORK/$s/attribution.toml" --format json --threads 1 > "$WORK/real-1.json"
  want() { sed -n "s/^$1 = \"\\(.*\\)\"/\\1/p" "$WORK/$s/truth.toml"; }
  got=$(jq -r '[.outcome.family, .outcome.blame, (.root_causes[0].host // ""), (.root_causes[0].pci // "")] | join(" ")' "$WORK/real.json")
  expect="$(want family) $(want blame) $(want root_host) $(want root_gpu_pci)"
  [ -n "$(want root_gpu_pci)" ] || got="${got% *} "
  if [ "$got" = "$expect" ] && cmp -s "$WORK/real.json" "$WORK/real-1.json"; then
    echo "ok: $s in the real mix: $got" >&2; passed=$((passed + 1))
  else
    echo "FAIL: $s in the real mix: got '$got', want '$expect' (or the reports differ by thread count)" >&2; failed=$((failed + 1))
  fi
  rm -rf "${WORK:?}/$s"
done
echo "generator scenarios: $passed passed, $failed failed"
[ "$failed" = 0 ]
