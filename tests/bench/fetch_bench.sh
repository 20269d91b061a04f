#!/usr/bin/env bash
# Fetch benchmark (run by hand, not by CI): a 1,000-node job's Prometheus and Loki sources against
# tests/http/serve.py on 127.0.0.1, which answers every request after a fixed delay (a remote
# server's latency). Times the whole diagnosis at each `parallel`, counts the requests the server
# saw, and compares the wall time with (requests / parallel) x latency. Prints peak RSS too. Fails
# when the reports or the request counts differ between `parallel` values (ctest fetch_parallel
# runs it small: 200 nodes, 10 ms).
# Usage: fetch_bench.sh [--attribution PATH] [--nodes N] [--latency SECONDS] [--parallel "1 4 16"]
set -euo pipefail
HERE="$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
SRC="$(readlink -f "$HERE/../..")"
ATTR="$SRC/build/attribution"; NODES=1000; LATENCY=0.05; PARALLEL="1 4 16"
while [ $# -gt 0 ]; do
  case "$1" in
    --attribution) ATTR="$(readlink -f "$2")"; shift 2;; --nodes) NODES="$2"; shift 2;;
    --latency) LATENCY="$2"; shift 2;; --parallel) PARALLEL="$2"; shift 2;;
    *) echo "unknown option $1" >&2; exit 2;;
  esac
done
[ -x /usr/bin/time ] || { echo "/usr/bin/time is needed: apt-get install time" >&2; exit 1; }
# shellcheck source=../http/common.sh
. "$SRC/tests/http/common.sh"
printf 'id = "77"\nname = "fetch-bench"\nnodes = "node[0001-%04d]"\nstart = "2025-03-14T08:00:00Z"\nend = "2025-03-14T10:00:00Z"\nstate = "FAILED"\nexit_code = 1\n' \
  "$NODES" > "$WORK/job.toml"
cat > "$WORK/routes.json" <<JSON
[
 {"path": "/api/v1/query_range", "delay_s": $LATENCY,
  "body": "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[]}}"},
 {"path": "/loki/api/v1/query_range", "delay_s": $LATENCY, "body_file": "$SRC/tests/fixtures/loki/empty.json"}
]
JSON
serve "$WORK/routes.json" "$WORK/port" "$WORK/requests.log"
PORT=$(cat "$WORK/port")
echo "job of $NODES nodes; every request answered after $LATENCY s; $(nproc) cores"
printf '| %8s | %8s | %8s | %22s | %7s | %11s |\n' parallel requests "wall s" "(requests/parallel) x latency" "ratio" "peak RSS MB"
printf '|%s|%s|%s|%s|%s|%s|\n' ---------- ---------- ---------- ------------------------ --------- -------------
for p in $PARALLEL; do
  cat > "$WORK/attribution.toml" <<TOML
[workload]
scheduler = "static"
static = "job.toml"

[[source]]
name = "dcgm"
kind = "prometheus"
url = "http://127.0.0.1:$PORT"
parallel = $p

[[source]]
name = "logs"
kind = "loki"
url = "http://127.0.0.1:$PORT"
parallel = $p
TOML
  : > "$WORK/requests.log"
  /usr/bin/time -f "%e %M" -o "$WORK/time.txt" "$ATTR" diagnose --config "$WORK/attribution.toml" --format json > "$WORK/report-$p.json" 2> "$WORK/stderr-$p.txt" || true
  read -r wall kb < "$WORK/time.txt"
  n=$(wc -l < "$WORK/requests.log")
  [ -z "${want_n:-}" ] && want_n=$n
  [ "$n" = "$want_n" ] || { echo "FAIL: $n requests at parallel $p, $want_n at the first" >&2; exit 1; }
  ideal=$(awk "BEGIN{print $n / $p * $LATENCY}")
  printf '| %8s | %8s | %8.2f | %22.2f | %7.2f | %11.1f |\n' "$p" "$n" "$wall" "$ideal" "$(awk "BEGIN{print $wall / $ideal}")" "$(awk "BEGIN{print $kb/1024}")"
done
first=$(echo "$PARALLEL" | awk '{print $1}')
status=0
for p in $PARALLEL; do
  cmp -s "$WORK/report-$first.json" "$WORK/report-$p.json" || { echo "FAIL: reports differ between parallel $first and $p"; status=1; }
done
# Both sources must have asked the server (their coverage says "empty", not "error"), at every parallel.
[ "$(jq -r '[.sources[] | .status] | join(" ")' "$WORK/report-$first.json")" = "empty empty" ] ||
  { echo "FAIL: sources: $(jq -c '[.sources[] | {name, status, reason}]' "$WORK/report-$first.json")"; status=1; }
[ "$status" = 0 ] && echo "reports identical at every parallel: $(jq -r '[.sources[] | "\(.name) \(.status)"] | join(", ")' "$WORK/report-$first.json")"
exit "$status"
