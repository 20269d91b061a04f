#!/usr/bin/env bash
# Every generator scenario at tier S (~100 MB each) is diagnosed as its truth.toml says.
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
  rm -rf "${WORK:?}/$s"
done
echo "generator scenarios: $passed passed, $failed failed"
[ "$failed" = 0 ]
