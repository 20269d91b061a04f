#!/usr/bin/env bash
# Integration test of the loki source over real sockets: tests/http/serve.py serves recorded
# answers in Loki's documented API shapes (tests/fixtures/loki) on 127.0.0.1, over HTTP and over
# HTTPS with a throwaway CA; the real binary diagnoses a static workload from them and jq checks
# the report. Not a real Loki: none is installable here (docs/loki.md says so).
# Usage: integration.sh PATH/TO/attribution
set -euo pipefail
ATTR="$(readlink -f "$1")"
HERE="$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
SRC="$(readlink -f "$HERE/../..")"
FIX="$SRC/tests/fixtures/loki"
# shellcheck source=../http/common.sh
. "$SRC/tests/http/common.sh"

# The fixtures' job: 4242 on node[01-04]; the window [09:00 - 15m, 09:51:12 + 5m] gives these
# nanosecond starts: the window's, then page 1's and page 2's last entries.
START=1741941900000000000; T3=1741945303123456789; T4=1741945304000000000
TOKEN="tok-$RANDOM$RANDOM-loki"
export LOKI_TEST_TOKEN="$TOKEN"
cat > "$WORK/job.toml" <<'TOML'
id = "4242"
name = "llama-70b-pretrain"
user = "alice"
nodes = "node[01-04]"
start = "2025-03-14T09:00:00Z"
end   = "2025-03-14T09:51:12Z"
state = "FAILED"
exit_code = 134
TOML

# Each scenario has its own path prefix, so one server serves them all.
Q=/loki/api/v1/query_range
AUTH='{"X-Scope-OrgID": "team-a", "Authorization": "Bearer '"$TOKEN"'"}'
cat > "$WORK/routes.json" <<JSON
[
 {"path": "/paging$Q", "query": {"start": "$START", "direction": "forward", "limit": "3"}, "header": $AUTH, "body_file": "$FIX/kernel-page1.json"},
 {"path": "/paging$Q", "query": {"start": "$T3"}, "header": $AUTH, "body_file": "$FIX/kernel-page2.json"},
 {"path": "/paging$Q", "query": {"start": "$T4"}, "header": $AUTH, "body_file": "$FIX/kernel-page3.json"},
 {"path": "/apps$Q", "query": {"start": "$START"}, "header": {"X-Scope-OrgID": "team-a"}, "body_file": "$FIX/apps.json"},
 {"path": "/f401$Q", "status": 401, "body_file": "$FIX/error-401.txt", "content_type": "text/plain"},
 {"path": "/f403$Q", "status": 403, "body": "access denied\n", "content_type": "text/plain"},
 {"path": "/f429$Q", "status": 429, "body_file": "$FIX/error-429.txt", "content_type": "text/plain"},
 {"path": "/f500$Q", "status": 500, "body_file": "$FIX/error-500.txt", "content_type": "text/plain"},
 {"path": "/stall$Q", "delay_s": 5, "body_file": "$FIX/kernel-page1.json"},
 {"path": "/trunc$Q", "truncate": 300, "body_file": "$FIX/kernel-page1.json"},
 {"path": "/malformed$Q", "body_file": "$FIX/malformed.html", "content_type": "text/html"},
 {"path": "/lokierr$Q", "status": 400, "body_file": "$FIX/error-400.txt", "content_type": "text/plain"},
 {"path": "/empty$Q", "body_file": "$FIX/empty.json"},
 {"path": "/later$Q", "query": {"start": "$START"}, "body_file": "$FIX/kernel-page1.json"},
 {"path": "/later$Q", "query": {"start": "$T3"}, "status": 500, "body_file": "$FIX/error-500.txt", "content_type": "text/plain"}
]
JSON

bash "$SRC/tests/http/make-cert.sh" "$WORK/certs"
serve "$WORK/routes.json" "$WORK/http.port" "$WORK/http.log"
serve "$WORK/routes.json" "$WORK/https.port" "$WORK/https.log" --tls-cert "$WORK/certs/server.pem" --tls-key "$WORK/certs/server-key.pem"
HTTP="http://127.0.0.1:$(cat "$WORK/http.port")"
HTTPS="https://127.0.0.1:$(cat "$WORK/https.port")"
echo "serving on $HTTP and $HTTPS" >&2

check() {  # json, jq expression that must be true, description
  jq -e "$2" <<<"$1" >/dev/null || { jq '{sources, root_causes, evidence: [.evidence[] | {source, host, time, location}]}' <<<"$1" | head -80 >&2 || true; fail "$3: $2"; }
  echo "ok: $3" >&2
}
source_toml() {  # name, url, stream, extra lines
  printf '[[source]]\nname = "%s"\nkind = "loki"\nurl = "%s"\nstream = "%s"\n' "$1" "$2" "$3"
  printf 'query = '"'"'{job="node-syslog", host=~"{hosts_regex}"}'"'"'\ntimeout = "2s"\n%s\n\n' "${4:-}"
}
diagnose() {  # config file; sets OUT and RC
  set +e
  OUT=$("$ATTR" diagnose --format json --config "$1" 2>"$WORK/stderr")
  RC=$?
  set -e
}

# 1. Paging over HTTPS with org id and bearer token, and an applog stream over HTTP.
{ printf '[workload]\nscheduler = "static"\nstatic = "%s"\n\n' "$WORK/job.toml"
  source_toml kernel "$HTTPS/paging" syslog \
    "$(printf 'org_id = "team-a"\ntoken_env = "LOKI_TEST_TOKEN"\nca_file = "%s"\nlimit = 3' "$WORK/certs/ca.pem")"
  printf '[[source]]\nname = "apps"\nkind = "loki"\nurl = "%s/apps"\nstream = "applog"\norg_id = "team-a"\n' "$HTTP"
  printf 'query = '"'"'{job="slurm-jobs", slurm_job_id="{job}"}'"'"'\n'; } > "$WORK/main.toml"
diagnose "$WORK/main.toml"
[ "$RC" = 0 ] || { cat "$WORK/stderr" >&2; fail "diagnose exited $RC"; }
check "$OUT" '.sources[0].name == "kernel" and .sources[0].status == "ok"' "paged source is ok"
[ "$(grep -c "^GET /paging$Q" "$WORK/https.log")" = 3 ] || { cat "$WORK/https.log" >&2; fail "three pages requested over HTTPS"; }
echo "ok: three pages requested over HTTPS" >&2
grep "^GET /paging$Q" "$WORK/https.log" | sed -n 2p | grep -q "start=$T3" || fail "page 2 starts at page 1's last time"
grep "^GET /paging$Q" "$WORK/https.log" | sed -n 3p | grep -q "start=$T4" || fail "page 3 starts at page 2's last time"
echo "ok: each page starts at the previous page's last time" >&2
grep "^GET /paging$Q" "$WORK/https.log" | grep -q 'X-Scope-Orgid\|X-Scope-OrgID' || fail "X-Scope-OrgID sent"
grep "^GET /paging$Q" "$WORK/https.log" | grep -q 'Authorization' || fail "Authorization sent"
echo "ok: X-Scope-OrgID and Authorization sent (the routes also require their values)" >&2
check "$OUT" '.outcome.category == "gpu_fallen_off_bus" and .root_causes[0].host == "node03" and .root_causes[0].pci == "0000:b9:00.0"' "Xid 79 from Loki is the root cause on node03"
check "$OUT" '.root_causes[0].count == 1' "the Xid 79 line repeated at the page boundary counts once"
check "$OUT" '.root_causes[0].first_seen == "2025-03-14T09:41:43.123456Z"' "Loki's time, to the microsecond"
check "$OUT" '[.evidence[] | select(.source == "kernel" and (.text | test("\\): 79,")))] | length == 1' "one evidence line for Xid 79"
check "$OUT" '[.evidence[] | select(.source == "kernel") | .location | test("^https://127.0.0.1:[0-9]+/paging/loki/api/v1/query_range[?]query=.*#node03:[0-9]+$")] | all' "evidence names the Loki URL, host and line"
check "$OUT" '[.. | strings | select(test("node99"))] | length == 0' "no line of a host outside the job"
check "$OUT" '.sources[0].hosts_covered == ["node01","node02","node03"] and .sources[0].hosts_expected == 4' "coverage of the job's hosts"
check "$OUT" '[.evidence[] | select(.source == "apps" and .host == "node01" and (.text | test("NCCL WARN NET/IB")))] | length >= 1' "NCCL WARN from Loki on node01"
check "$OUT" '.sources[1].name == "apps" and .sources[1].status == "ok"' "applog source over HTTP is ok"
if grep -qF "$TOKEN" <<<"$OUT" || grep -qF "$TOKEN" "$WORK/https.log" "$WORK/http.log" "$WORK/stderr"; then fail "the token appears in the report or logs"; fi
echo "ok: the token is in neither the report nor the server log" >&2

# 2. Each fault alone: a report whose sources[] entry names the fault.
# A source that answered nothing usable is "no data" (exit 4, cli/messages.hpp kNoData), and the
# report is still written; one that answered (empty, or pages before a failure) diagnoses (exit 0).
fault() {  # name, url, expected status, reason regex, extra lines
  { printf '[workload]\nscheduler = "static"\nstatic = "%s"\n\n' "$WORK/job.toml"
    source_toml "$1" "$2" syslog "${5:-}"; } > "$WORK/$1.toml"
  diagnose "$WORK/$1.toml"
  want=0; [ "$3" = error ] && want=4
  [ "$RC" = "$want" ] || { cat "$WORK/stderr" >&2; fail "$1: diagnose exited $RC, not $want"; }
  check "$OUT" ".sources[0].name == \"$1\" and .sources[0].status == \"$3\" and (.sources[0].reason | test(\"$4\"))" "$1: $3, reason names the fault"
}
fault f401 "$HTTP/f401" error '^HTTP 401 Unauthorized.*no org id'
fault f403 "$HTTP/f403" error '^HTTP 403 Forbidden'
fault f429 "$HTTP/f429" error '^HTTP 429 Too Many Requests'
fault f500 "$HTTP/f500" error '^HTTP 500 Internal Server Error'
fault refused "http://127.0.0.1:1" error '^connection refused'
SECONDS=0
fault stalled "$HTTP/stall" error '^timed out after 2s'
[ "$SECONDS" -lt 5 ] || fail "stalled: the 2 s timeout was not applied (took ${SECONDS}s)"
fault truncated "$HTTP/trunc" error '^truncated response'
fault malformed "$HTTP/malformed" error '^malformed JSON'
fault lokierr "$HTTP/lokierr" error '^HTTP 400 Bad Request: parse error at line 1'
fault empty "$HTTP/empty" empty 'no lines'
fault later "$HTTP/later" partial '^page 2 failed: HTTP 500.*kept 2 line' 'limit = 3'
check "$OUT" '.root_causes[0].host == "node03" and .root_causes[0].rule == "xid.79"' "later: page 1's lines still diagnose"
# The right route without the CA (TLS must verify), and without the token (the route demands it).
# TLS faults are named as such (which CA bundle, which server), never as a timeout or no answer:
# the system store does not know the test CA; another CA is not the server's; a CA file that is not
# there; HTTPS spoken to a plain-HTTP port.
fault noca "$HTTPS/paging" error '^TLS: the certificate of https://127.0.0.1:[0-9]+ is not trusted' $'org_id = "team-a"\nlimit = 3'
bash "$SRC/tests/http/make-cert.sh" "$WORK/other-ca"
fault wrongca "$HTTPS/paging" error "^TLS: the certificate of .* not trusted.*set ca_file.*other-ca/ca.pem" "ca_file = \"$WORK/other-ca/ca.pem\""
fault missingca "$HTTPS/paging" error "^TLS: cannot read the CA bundle $WORK/missing-ca.pem" "ca_file = \"$WORK/missing-ca.pem\""
fault handshake "${HTTP/http:/https:}/paging" error '^TLS: the handshake with https://127.0.0.1:[0-9]+ failed'
fault unauthorized "$HTTP/paging" error '^HTTP 401 Unauthorized.*Authorization' $'org_id = "team-a"\nlimit = 3'
# 3. Record and replay: recorded while the servers answer, replayed byte for byte once they are
#    gone; the bearer token is in no bundle.
B="$WORK/bundles"
mkdir -p "$B"
for name in main later f429; do
  set +e
  "$ATTR" diagnose --format json --config "$WORK/$name.toml" --record "$B/$name" > "$B/$name.live.json" 2>/dev/null
  echo $? > "$B/$name.rc"
  set -e
done
! grep -rqF "$TOKEN" "$B" || fail "the token appears in a bundle"
echo "ok: the token is in no bundle" >&2
stop_servers
for name in main later f429; do
  set +e
  "$ATTR" diagnose --format json --replay "$B/$name" > "$B/$name.replay.json" 2>/dev/null
  rc=$?
  set -e
  [ "$rc" = "$(cat "$B/$name.rc")" ] || fail "replay of $name exited $rc, the recording $(cat "$B/$name.rc")"
  cmp -s "$B/$name.live.json" "$B/$name.replay.json" || { diff "$B/$name.live.json" "$B/$name.replay.json" | head -20 >&2 || true; fail "replay of $name differs"; }
  echo "ok: $name replays byte for byte with the servers gone" >&2
done
echo "loki integration: all checks passed"
