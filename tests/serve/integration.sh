#!/usr/bin/env bash
# attribution serve end to end, as a user runs it: the five examples diagnosed by separate
# processes with --store (and eight processes writing one store at once, as epilogs of failed jobs
# would), then the real server, and Debian's Chromium loading the dashboard and a report headless:
# the DOM must hold the expected rows and panels, and the screenshot must not be blank.
# Usage: integration.sh PATH/TO/attribution
set -euo pipefail
ATTR="$(readlink -f "$1")"
SRC="$(readlink -f "$(dirname "${BASH_SOURCE[0]}")/../..")"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null || fail "jq is missing (tests/setup-debian.sh installs it)"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || fail "chromium is missing (tests/setup-debian.sh installs it)"
WORK="$(mktemp -d)"
SERVER=""
trap '[ -z "$SERVER" ] || kill "$SERVER" 2>/dev/null || true; rm -rf "$WORK"' EXIT
cd "$SRC"

# 1. Concurrent writers: 8 diagnoses at once, 5 rounds, into one new store; nothing lost.
DB="$WORK/concurrent.db"
for round in 1 2 3 4 5; do
  pids=()
  for w in 1 2 3 4 5 6 7 8; do
    "$ATTR" diagnose --config examples/xid79-gpu-fallen-off-bus/attribution.toml --store "$DB" >/dev/null 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || fail "a concurrent diagnose --store failed (round $round)"; done
done
n=$("$ATTR" history --store "$DB" --limit 1000 --format json | jq '.reports | length')
[ "$n" = 40 ] || fail "40 concurrent diagnoses stored $n reports"
ids=$("$ATTR" history --store "$DB" --limit 1000 --format json | jq '[.reports[].id] | unique | length')
[ "$ids" = 40 ] || fail "report ids are not unique: $ids"
echo "ok: 40 diagnoses from 8 processes at once, 40 reports stored"

# 2. The five examples, each by the CLI, into the dashboard's store.
DB="$WORK/reports.db"
declare -A FAMILY
for dir in examples/*/; do
  ex=$(basename "$dir")
  [ -f "$dir/attribution.toml" ] || continue
  FAMILY[$ex]=$("$ATTR" diagnose --config "$dir/attribution.toml" --format json --store "$DB" | jq -r .outcome.family)
done
[ ${#FAMILY[@]} = 5 ] || fail "expected 5 examples, found ${#FAMILY[@]}"
"$ATTR" history --store "$DB" | grep -q "accelerator-fabric" || fail "history does not list the NVLink example"

# 3. The server, on a free port.
"$ATTR" serve --store "$DB" --listen 127.0.0.1:0 2>"$WORK/serve.log" &
SERVER=$!
for _ in $(seq 100); do grep -q "serving" "$WORK/serve.log" 2>/dev/null && break; sleep 0.1; done
PORT=$(sed -n 's/.*http:\/\/127.0.0.1:\([0-9]*\)\/.*/\1/p' "$WORK/serve.log")
[ -n "$PORT" ] || fail "serve did not start: $(cat "$WORK/serve.log")"
URL="http://127.0.0.1:$PORT"
curl -sf "$URL/healthz" >/dev/null || fail "/healthz"
for ex in "${!FAMILY[@]}"; do
  got=$(curl -sf "$URL/api/v1/reports?limit=100" | jq -r --arg f "${FAMILY[$ex]}" '[.reports[] | select(.family == $f)] | length')
  [ "$got" -ge 1 ] || fail "$ex: family ${FAMILY[$ex]} not in the API"
done

# 4. A real browser: the dashboard's DOM and a screenshot that is not blank; then a report page.
browse() {  # what (dump-dom|screenshot FILE) url
  local args=(--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run --hide-scrollbars
              --user-data-dir="$WORK/chromium" --window-size=1280,1000 --virtual-time-budget=3000)
  if [ "$1" = dump-dom ]; then
    timeout 120 "$CHROMIUM" "${args[@]}" --dump-dom "$2" 2>/dev/null
  else
    timeout 120 "$CHROMIUM" "${args[@]}" --screenshot="$2" "$3" >/dev/null 2>&1
  fi
}
DOM="$WORK/dashboard.html"
browse dump-dom "$URL/" > "$DOM"
rows=$(grep -o 'class="report-row"' "$DOM" | wc -l)
[ "$rows" = 5 ] || fail "the dashboard shows $rows diagnosis rows, not 5"
grep -q 'id="offenders-panel"' "$DOM" || fail "no repeat-offender panel"
grep -q '<svg id="outcome-mix"' "$DOM" || fail "no outcome-mix chart"
for ex in "${!FAMILY[@]}"; do
  grep -q "data-family=\"${FAMILY[$ex]}\"" "$DOM" || fail "$ex: no dashboard row of family ${FAMILY[$ex]}"
done
browse dump-dom "$URL/?family=accelerator-fabric" > "$WORK/filtered.html"
[ "$(grep -o 'class="report-row"' "$WORK/filtered.html" | wc -l)" = 1 ] || fail "the family filter does not filter"
id=$(grep -o 'id="report-[0-9]*" data-family="accelerator-fabric"' "$DOM" | sed 's/id="report-\([0-9]*\)".*/\1/')
browse dump-dom "$URL/reports/$id" > "$WORK/report.html"
grep -qi "nvlink" "$WORK/report.html" || fail "the report page does not name the NVLink root cause"
grep -q "<svg" "$WORK/report.html" || fail "the report page has no timeline picture"
browse screenshot "$WORK/dashboard.png" "$URL/"
browse screenshot "$WORK/report.png" "$URL/reports/$id"
for png in "$WORK/dashboard.png" "$WORK/report.png"; do
  python3 "$SRC/tests/serve/png_not_blank.py" "$png" || fail "$(basename "$png") is blank"
done
[ -z "${ATTRIBUTION_KEEP_SCREENSHOTS:-}" ] || cp "$WORK"/*.png "$ATTRIBUTION_KEEP_SCREENSHOTS"/
echo "ok: dashboard and report load in Chromium with 5 rows, the panels, and non-blank screenshots"
