#!/usr/bin/env bash
# Integration test against a real Prometheus (Debian's prometheus 2.42) started on 127.0.0.1 by
# tests/realstack/prometheus-up.sh, backfilled with promtool from an OpenMetrics fixture written
# here, and stopped on exit. Runs diagnoses with metric sources and checks them with jq.
# Usage: integration.sh PATH/TO/attribution
set -euo pipefail
ATTR="$(readlink -f "$1")"
HERE="$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
SRC="$(readlink -f "$HERE/../..")"
export REALSTACK_STATE_DIR="${ATTRIBUTION_PROM_STATE:-/tmp/attr-prom}"
fail() { echo "FAIL: $*" >&2; exit 1; }
stop() { bash "$HERE/../realstack/prometheus-down.sh" >/dev/null 2>&1 || true; }
trap stop EXIT
command -v jq >/dev/null || fail "jq is missing (tests/setup-debian.sh installs it)"
WORK="$(mktemp -d)"

# The fixture: dcgm-exporter series for the NVLink worked example's nodes (node01..04, 8 GPUs, bus ids
# as its NCCL logs print them), an NVLink CRC counter climbing on node03 GPU 5 from 09:40:00 (before
# the first NCCL error at 09:41:43), a node outside the job with the same fault (it must never be
# asked for), and for a second job on 2025-03-20: ECC DBE then a row-remap failure on node02 GPU 3.
awk -v a0="$(date -u -d 2025-03-14T08:40:00Z +%s)" -v a1="$(date -u -d 2025-03-14T10:20:00Z +%s)" \
    -v afault="$(date -u -d 2025-03-14T09:40:00Z +%s)" \
    -v b0="$(date -u -d 2025-03-20T11:45:00Z +%s)" -v b1="$(date -u -d 2025-03-20T13:10:00Z +%s)" \
    -v becc="$(date -u -d 2025-03-20T12:30:00Z +%s)" -v bremap="$(date -u -d 2025-03-20T12:31:00Z +%s)" '
function labels(host, g) {
  return sprintf("gpu=\"%d\",UUID=\"GPU-%s-%d\",pci_bus_id=\"00000000:%s:00.0\",device=\"nvidia%d\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"%s\",instance=\"%s:9400\",job=\"dcgm-exporter\"", g, host, g, bus[g], g, host, host)
}
BEGIN {
  split("18 2A 3A 5D 9A B9 BA DB", b, " "); for (g = 0; g < 8; g++) bus[g] = b[g + 1]
  n = split("node01 node02 node03 node04 node99", hosts, " ")
  print "# TYPE DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL counter"
  for (i = 1; i <= n; i++) for (g = 0; g < 8; g++) {
    l = labels(hosts[i], g)
    for (t = a0; t <= a1; t += 15) {
      v = 0
      if ((hosts[i] == "node03" || hosts[i] == "node99") && g == 5 && t >= afault) v = 40 * ((t - afault) / 15 + 1)
      printf "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL{%s} %d %d\n", l, v, t
    }
  }
  print "# TYPE DCGM_FI_DEV_XID_ERRORS gauge"
  for (i = 1; i <= n; i++) for (g = 0; g < 8; g++) {
    l = labels(hosts[i], g)
    for (t = a0; t <= a1; t += 15) printf "DCGM_FI_DEV_XID_ERRORS{%s} 0 %d\n", l, t
    for (t = b0; t <= b1; t += 15) printf "DCGM_FI_DEV_XID_ERRORS{%s} 0 %d\n", l, t
  }
  print "# TYPE DCGM_FI_DEV_ECC_DBE_VOL_TOTAL counter"
  for (i = 1; i <= 2; i++) for (g = 0; g < 8; g++) {
    l = labels(hosts[i], g)
    for (t = b0; t <= b1; t += 15) printf "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL{%s} %d %d\n", l, (hosts[i] == "node02" && g == 3 && t >= becc) ? 2 : 0, t
  }
  print "# TYPE DCGM_FI_DEV_ROW_REMAP_FAILURE gauge"
  for (i = 1; i <= 2; i++) for (g = 0; g < 8; g++) {
    l = labels(hosts[i], g)
    for (t = b0; t <= b1; t += 15) printf "DCGM_FI_DEV_ROW_REMAP_FAILURE{%s} %d %d\n", l, (hosts[i] == "node02" && g == 3 && t >= bremap) ? 1 : 0, t
  }
  print "# TYPE DCGM_FI_DEV_MEMORY_TEMP gauge"
  for (g = 0; g < 8; g++) {
    l = labels("node02", g)
    for (t = b0; t <= b1; t += 15) printf "DCGM_FI_DEV_MEMORY_TEMP{%s} 9223372036854775794 %d\n", l, t
  }
  print "# EOF"
}' > "$WORK/dcgm.om"

PORT=$(bash "$HERE/../realstack/prometheus-up.sh" "$WORK/dcgm.om")
URL="http://127.0.0.1:$PORT"
echo "prometheus on $URL" >&2

EX="$SRC/examples/nvlink-signal-integrity"
diagnose() { "$ATTR" diagnose --format json --config "$@"; }
check() {  # json, jq expression that must be true, description
  jq -e "$2" <<<"$1" >/dev/null || { jq . <<<"$1" | head -100 >&2 || true; fail "$3: $2"; }
  echo "ok: $3" >&2
}
write_config() {  # file, workload file, prometheus url, with example logs (yes/no)
  { printf '[workload]\nscheduler = "static"\nstatic = "%s"\n\n' "$2"
    printf '[[source]]\nname = "dcgm"\nkind = "prometheus"\nurl = "%s"\nstep = "15s"\ntimeout = "10s"\n\n' "$3"
    if [ "$4" = yes ]; then
      printf '[[source]]\nname = "rank-logs"\nkind = "files"\npaths = ["%s/logs/{host}/rank-*.log", "%s/logs/{host}/torchrun.log"]\n\n' "$EX" "$EX"
      printf '[[source]]\nname = "kernel"\nkind = "files"\npaths = ["%s/logs/{host}/kern.log"]\nstream = "syslog"\n' "$EX"
    fi; } > "$1"
}

# 1. Metrics only: the NVLink worked example's job, no log collected.
write_config "$WORK/metrics-only.toml" "$EX/workload.toml" "$URL" no
out=$(diagnose "$WORK/metrics-only.toml")
check "$out" '.outcome.category == "nvlink_signal_integrity" and .outcome.family == "accelerator-fabric"' "metrics only: NVLink signal integrity"
check "$out" '.root_causes[0].host == "node03" and .root_causes[0].gpu == 5 and .root_causes[0].pci == "0000:b9:00.0"' "metrics only: node03 GPU 5 (0000:b9:00.0)"
check "$out" '.root_causes[0].first_seen == "2025-03-14T09:40:00.000000Z"' "the first sample where the counter grew"
check "$out" '[.evidence[] | select(.text | test("DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL increase [0-9]+ host node03 gpu 5")) | select(.location | test("query_range"))] | length == 1' "evidence cites the series, its value and the query"
check "$out" '[.. | strings | select(test("node99"))] | length == 0' "no series of a host outside the job"
check "$out" '.sources[0].status == "ok" and .sources[0].hosts_covered == ["node01","node02","node03","node04"]' "coverage of the job's hosts"

# 2. Logs and metrics: the kernel's Xid 74 and DCGM's CRC counter are one root cause with both evidence items.
write_config "$WORK/both.toml" "$EX/workload.toml" "$URL" yes
out=$(diagnose "$WORK/both.toml")
check "$out" '[.root_causes[] | select(.family == "accelerator-fabric")] | length == 1' "one NVLink root cause from logs and metrics"
check "$out" '.root_causes[0].host == "node03" and .root_causes[0].pci == "0000:b9:00.0"' "on node03 GPU 0000:b9:00.0"
check "$out" '. as $r | [.root_causes[0].evidence[] as $id | $r.evidence[] | select(.id == $id) | .source] | (index("dcgm") != null and index("kernel") != null)' "its evidence holds both the metric and the kernel line"

# 3. ECC DBE then a row-remap failure on node02 GPU 3 (another job, metrics only).
cat > "$WORK/ecc-job.toml" <<'TOML'
id = "5150"
name = "ecc-job"
nodes = "node[01-02]"
start = "2025-03-20T12:00:00Z"
end = "2025-03-20T12:55:00Z"
state = "FAILED"
exit_code = 1
TOML
write_config "$WORK/ecc.toml" "$WORK/ecc-job.toml" "$URL" no
out=$(diagnose "$WORK/ecc.toml")
check "$out" '.outcome.family == "accelerator-memory" and .root_causes[0].host == "node02" and .root_causes[0].pci == "0000:5d:00.0"' "ECC + row remap failure: node02 GPU 0000:5d:00.0"
check "$out" '[.root_causes[] | select(.family == "accelerator-memory")] | length == 1' "one memory root cause, the other metric explained by it"
check "$out" '.outcome.exclude_nodes == ["node02"]' "node02 excluded for the requeue"

# 4. An unreachable Prometheus: the report says so and the logs still give the diagnosis.
write_config "$WORK/down.toml" "$EX/workload.toml" "http://127.0.0.1:1" yes
out=$(diagnose "$WORK/down.toml")
check "$out" '.sources[0].name == "dcgm" and .sources[0].status == "error" and (.sources[0].reason | test("connect|Connection"; "i"))' "unreachable Prometheus is a sources[] error"
check "$out" '.outcome.category == "nvlink_signal_integrity" and .root_causes[0].host == "node03"' "the logs still diagnose the job"

# 5. A bad query answer (error envelope) through a selector Prometheus rejects.
cat > "$WORK/bad-rule.toml" <<'TOML'
[[metric]]
id = "bad.selector"
selector = "up[5x]"
TOML
out=$("$ATTR" diagnose --format json --config "$WORK/metrics-only.toml" --rules "$WORK/bad-rule.toml")
check "$out" '.sources[0].status == "partial" and ([.sources[0].problems[] | select(test("bad.selector: HTTP 400: Prometheus error bad_data"))] | length == 1)' "Prometheus's error envelope is named in coverage"
# 6. Record and replay: each diagnosis recorded against the running Prometheus replays byte for
#    byte once Prometheus is stopped and the logs are gone; a token in the environment and
#    user:password in the URL appear in no bundle.
cp -r "$EX" "$WORK/ex"
EX="$WORK/ex"
export ATTR_TEST_PROM_TOKEN="prom-token-$RANDOM-$RANDOM-secret"
write_config "$WORK/rec-both.toml" "$EX/workload.toml" "$URL" yes
sed -i 's|^timeout = "10s"|timeout = "10s"\ntoken_env = "ATTR_TEST_PROM_TOKEN"|' "$WORK/rec-both.toml"
grep -q ATTR_TEST_PROM_TOKEN "$WORK/rec-both.toml" || fail "test setup: token_env not in the config"
write_config "$WORK/rec-ecc.toml" "$WORK/ecc-job.toml" "http://alice:pw-$RANDOM-secret@127.0.0.1:$PORT" no
write_config "$WORK/rec-down.toml" "$EX/workload.toml" "http://127.0.0.1:1" yes
B="$WORK/bundles"
mkdir -p "$B"
"$ATTR" diagnose --format json --config "$WORK/rec-both.toml" --record "$B/both" > "$B/both.live.json"
"$ATTR" diagnose --format json --config "$WORK/rec-ecc.toml" --record "$B/ecc" > "$B/ecc.live.json"
"$ATTR" diagnose --format json --config "$WORK/rec-down.toml" --record "$B/down" > "$B/down.live.json"
"$ATTR" diagnose --format json --config "$WORK/rec-ecc.toml" --rules "$WORK/bad-rule.toml" --record "$B/bad-rule" > "$B/bad-rule.live.json"
check "$(cat "$B/both.live.json")" '.root_causes[0].host == "node03"' "recording run: same diagnosis"
! grep -rqF "$ATTR_TEST_PROM_TOKEN" "$B" || fail "the Prometheus token appears in a bundle"
! grep -rq "ATTR_TEST_PROM_TOKEN" "$B" || fail "the token variable's name appears in a bundle"
PW=$(sed -n 's|^url = "http://alice:\(pw-[0-9]*-secret\)@.*|\1|p' "$WORK/rec-ecc.toml")
[ -n "$PW" ] || fail "test setup: no password in the ecc config's URL"
! grep -rqF "$PW" "$B" || fail "the URL's password appears in a bundle"
! grep -qF "$PW" "$B/ecc.live.json" || fail "the URL's password appears in the report"
check "$(cat "$B/ecc.live.json")" '.outcome.family == "accelerator-memory"' "user:password@ in the URL: Prometheus still answered"
echo "ok: no token in any bundle" >&2
stop
rm -rf "$WORK/ex" "$WORK/ecc-job.toml"
CLEAN="$(mktemp -d)"
for name in both ecc down bad-rule; do
  cp -r "$B/$name" "$CLEAN/$name"
  (cd "$CLEAN" && "$ATTR" diagnose --format json --replay "$CLEAN/$name") > "$CLEAN/$name.json" || fail "replay of $name failed"
  cmp -s "$B/$name.live.json" "$CLEAN/$name.json" || { diff "$B/$name.live.json" "$CLEAN/$name.json" | head -20 >&2 || true; fail "replay of $name differs from the recorded run"; }
  echo "ok: $name replays byte for byte with Prometheus stopped ($(du -sk "$CLEAN/$name" | cut -f1) KiB bundle)" >&2
done
rm -rf "$CLEAN"
echo "prometheus integration: 1 passed, 0 failed"
