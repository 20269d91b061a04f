#!/usr/bin/env bash
# The fault matrix: for each source kind and each fault, the real binary diagnoses a job next to
# sources that work, and the matrix checks the exit status, the faulty source's sources[] entry
# (status and what its reason says), and that the working sources' evidence is all still there.
# HTTP answers come from tests/http/serve.py on 127.0.0.1 in the real APIs' shapes (no real Loki,
# Kubernetes API server or slurmrestd can run here; real Slurm and Prometheus are tested by their
# own integration scripts). docs/reliability.md holds the table this script prints.
# Usage: matrix.sh PATH/TO/attribution [--update-doc | --files-only]
# (--files-only: the local-file cases alone, for the sanitizer build: hostile bytes, no waiting)
set -euo pipefail
ATTR="$(readlink -f "$1")"
MODE="${2:-}"
HERE="$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
SRC="$(readlink -f "$HERE/../..")"
DOC="$SRC/docs/reliability.md"
# shellcheck source=../http/common.sh
. "$SRC/tests/http/common.sh"
chmod 755 "$WORK"  # the permission cases run as nobody
TABLE="$WORK/table.md"
FAILED=0

# ---------------------------------------------------------------------------------------------
# The job: 4242 on gpu[01-03]. Working evidence: an Xid 79 on gpu01 (the root cause) and a
# watchdog timeout on gpu02 (its symptom). gpu03 has no logs at all.
J="$WORK/job"
mkdir -p "$J/logs/gpu01" "$J/logs/gpu02" "$J/bad"
cat > "$J/workload.toml" <<'EOF'
id = "4242"
name = "fault-matrix"
user = "sre"
nodes = "gpu[01-03]"
start = "2025-03-04T10:00:00Z"
end   = "2025-03-04T10:20:00Z"
state = "FAILED"
exit_code = 1
EOF
XID='Mar  4 10:10:00 gpu01 kernel: NVRM: Xid (PCI:0000:52:00): 79, pid=4121, GPU has fallen off the bus.'
echo "$XID" > "$J/logs/gpu01/kern.log"
cat > "$J/logs/gpu02/rank-8.log" <<'EOF'
[rank8]:[E304 10:10:40.123456 ProcessGroupNCCL.cpp:616] [Rank 8] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2201, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600030 milliseconds before timing out.
EOF
base_config() {  # the working sources; the case appends its own
  printf '[workload]\nscheduler = "static"\nstatic = "%s/workload.toml"\ntimezone = "UTC"\n\n' "$J"
  printf '[[source]]\nname = "kernel"\nkind = "files"\npaths = ["%s/logs/{host}/kern.log"]\nstream = "syslog"\n\n' "$J"
  printf '[[source]]\nname = "ranks"\nkind = "files"\npaths = ["%s/logs/{host}/rank-*.log"]\n\n' "$J"
}
BASE=base_config
GOOD_FILES='(.root_causes[0] | .rule == "xid.79" and .host == "gpu01" and .count == 1) and ([.symptoms[].rule] | index("pytorch.watchdog-timeout") != null)'
GOOD="$GOOD_FILES"

# ---------------------------------------------------------------------------------------------
# HTTP: one server; a path prefix per fault, so a source's url picks its fault.
FIX="$SRC/tests/fixtures"
python3 - "$WORK/routes.json" "$FIX" "$J" <<'PYEOF'
import json, sys
out, fix, job = sys.argv[1:]
status = lambda code, msg: json.dumps({"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": msg, "reason": msg, "code": code})
routes = [
  {"path": "/f401/", "prefix": True, "status": 401, "body": status(401, "Unauthorized")},
  {"path": "/f403/", "prefix": True, "status": 403, "body": status(403, "forbidden")},
  {"path": "/f404/", "prefix": True, "status": 404, "body": status(404, "not found")},
  {"path": "/f429/", "prefix": True, "status": 429, "body": "too many outstanding requests\n", "content_type": "text/plain"},
  {"path": "/f500/", "prefix": True, "status": 500, "body": "internal server error\n", "content_type": "text/plain"},
  {"path": "/stall/", "prefix": True, "delay_s": 4, "body": "{}"},
  {"path": "/trunc/", "prefix": True, "truncate": 40, "body_file": f"{fix}/loki/kernel-page1.json"},
  {"path": "/html/", "prefix": True, "body": "<html><body>502 Bad Gateway</body></html>", "content_type": "text/html"},
]
# Loki: the kernel line gpu01's file also holds (a duplicate), a 16 MiB line, NUL bytes.
def loki(entries):
  return json.dumps({"status": "success", "data": {"resultType": "streams", "result": [
    {"stream": {"host": h, "job": "syslog"}, "values": [[ns, line] for ns, line in v]} for h, v in entries],
    "stats": {}}})
T = "1741083000000000000"  # 2025-03-04T10:10:00Z
xid = "Mar  4 10:10:00 gpu01 kernel: NVRM: Xid (PCI:0000:52:00): 79, pid=4121, GPU has fallen off the bus."
routes += [
  {"path": "/loki-dup/loki/api/v1/query_range", "body": loki([("gpu01", [(T, xid)])])},
  {"path": "/loki-huge/loki/api/v1/query_range", "body": loki([("gpu03", [(T, "x" * (16 << 20) + " NVRM: Xid (PCI:0000:53:00): 79, pid=1, GPU has fallen off the bus.")])])},
  {"path": "/loki-nul/loki/api/v1/query_range", "body": loki([("gpu03", [(T, "\u0000\u0000 NVRM: Xid (PCI:0000:53:00): 79, pid=1, GPU has fallen off the bus.\u0000")])])},
  {"path": "/loki-matrix/loki/api/v1/query_range", "body_file": f"{fix}/loki/matrix.json"},
  {"path": "/loki-empty/loki/api/v1/query_range", "body_file": f"{fix}/loki/empty.json"},
  # Prometheus: an answer of another shape (an instant vector), and an empty one.
  {"path": "/prom-vector/api/v1/query_range", "body": json.dumps({"status": "success", "data": {"resultType": "vector", "result": [{"metric": {"Hostname": "gpu01"}, "value": [1741083000, "1"]}]}})},
  {"path": "/prom-empty/api/v1/query_range", "body": json.dumps({"status": "success", "data": {"resultType": "matrix", "result": []}})},
]
# slurmrestd: a v0.0.38 job (the recorded 22.05 answer) and a newer data parser than known.
sj = json.load(open(f"{fix}/slurm/slurmrestd-slurmdb-v0.0.38-job.json"))
sj.setdefault("meta", {}).setdefault("plugin", {})["data_parser"] = "data_parser/v0.0.99"
routes += [{"path": "/rest-newer/slurmdb/v0.0.38/job/1", "body": json.dumps(sj)}]
# Kueue and the Kubernetes API: the recorded PyTorchJob whose worker-0 was OOMKilled, under /kok.
kf = f"{fix}/kueue"
WL = "/kok/apis/kueue.x-k8s.io/v1beta2/namespaces/training/workloads"
routes += [
  {"path": f"{WL}/pytorchjob-llm-pretrain-7c4d1", "body_file": f"{kf}/workload-v1beta2.json"},
  {"path": "/kok/api/v1/namespaces/training/pods", "body_file": f"{kf}/pods-llm-pretrain.json"},
  {"path": "/kok/api/v1/namespaces/training/events", "query": {"fieldSelector": "involvedObject.name=llm-pretrain-worker-0"}, "body_file": f"{kf}/events-worker-0.json"},
  {"path": "/kok/api/v1/namespaces/training/events", "body_file": f"{kf}/events-empty.json"},
  {"path": "/kok/api/v1/namespaces/default/events", "body_file": f"{kf}/events-nodes.json"},
]
wl = json.load(open(f"{kf}/workload-v1beta2.json"))
wl["apiVersion"] = "kueue.x-k8s.io/v1beta9"
routes += [{"path": "/knewer/apis/kueue.x-k8s.io/v1beta2/namespaces/training/workloads/pytorchjob-llm-pretrain-7c4d1", "body": json.dumps(wl)}]
# Pod logs of another shape: one with a 16 MiB line, one with NUL and invalid UTF-8 bytes, one
# whose node's clock is an hour ahead, and lines repeated.
logs = "/api/v1/namespaces/training/pods/"
for name, body in [
    ("huge", b"2025-05-06T10:07:00.000000000Z " + b"x" * (16 << 20) + b" RuntimeError: CUDA error: an illegal memory access was encountered\n"),
    ("binary", b"2025-05-06T10:07:00.000000000Z \x00\x00\xff\xfe RuntimeError: CUDA error: an illegal memory access was encountered\n"),
    ("ahead", b"2025-05-06T11:30:00.000000000Z RuntimeError: CUDA error: an illegal memory access was encountered\n"),
    ("repeat", b"2025-05-06T10:07:00.000000000Z RuntimeError: CUDA error: an illegal memory access was encountered\n" * 2)]:
  open(f"{job}/podlog-{name}.txt", "wb").write(body)
  routes += [{"path": f"/plog-{name}{logs}", "prefix": True, "body_file": f"{job}/podlog-{name}.txt", "content_type": "text/plain"}]
json.dump(routes, open(out, "w"))
PYEOF
serve "$WORK/routes.json" "$WORK/port" "$WORK/requests.log"
URL="http://127.0.0.1:$(cat "$WORK/port")"
CLOSED_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
REFUSED="http://127.0.0.1:$CLOSED_PORT"

# ---------------------------------------------------------------------------------------------
# expect KIND FAULT EXIT SOURCE STATUS REASON_RE EXTRA_JQ BEHAVIOUR -- runs $CFG (or CMD)
# SOURCE: the sources[] entry's name ("-": none, the run stops before a report; REASON_RE then
# applies to stderr). EXTRA_JQ: what else must hold ("good": the working evidence is intact).
# Root reads any file: the permission cases run as nobody, with a copy of the binary it can reach.
RUN_AS=(env)
if [ "$(id -u)" = 0 ]; then RUN_AS=(setpriv --reuid=65534 --regid=65534 --clear-groups); fi
cp "$ATTR" "$WORK/attribution"; chmod 755 "$WORK/attribution"
expect() {
  local kind="$1" fault="$2" want_exit="$3" source="$4" want_status="$5" reason_re="$6" extra="$7" behaviour="$8"
  local rc out err
  set +e
  if [ -n "${CMD:-}" ]; then out=$(timeout 60 bash -c "$CMD" 2>"$WORK/stderr"); rc=$?
  elif [ ${#AS[@]} -gt 0 ]; then out=$(timeout 60 "${AS[@]}" "$WORK/attribution" diagnose --config "$CFG" --format json 2>"$WORK/stderr"); rc=$?
  else out=$(timeout 60 "$ATTR" diagnose --config "$CFG" --format json 2>"$WORK/stderr"); rc=$?; fi
  set -e
  err=$(cat "$WORK/stderr")
  printf '%s\n%s\n' "$out" "$err" >> "$WORK/all-output"
  local ok=1 why=""
  [ "$rc" = "$want_exit" ] || { ok=0; why="exit $rc, want $want_exit"; }
  if [ "$ok" = 1 ] && [ "$source" = "-" ]; then
    grep -Eq -- "$reason_re" <<<"$err" || { ok=0; why="stderr does not match /$reason_re/"; }
  elif [ "$ok" = 1 ]; then
    local entry
    entry=$(jq -c --arg n "$source" '.sources[] | select(.name == $n)' <<<"$out" 2>/dev/null || true)
    if [ -z "$entry" ]; then ok=0; why="no sources[] entry named $source"
    else
      [ "$(jq -r .status <<<"$entry")" = "$want_status" ] || { ok=0; why="status $(jq -r .status <<<"$entry"), want $want_status"; }
      [ "$ok" = 0 ] || jq -r '(.reason // "") + "\n" + (.problems | join("\n"))' <<<"$entry" | grep -Eq -- "$reason_re" ||
        { ok=0; why="reason does not match /$reason_re/: $(jq -c '{reason, problems}' <<<"$entry")"; }
    fi
    if [ "$ok" = 1 ] && [ -n "$extra" ]; then
      local expr="$extra"
      [ "$extra" = good ] && expr="$GOOD"
      [[ "$extra" == good+* ]] && expr="$GOOD and ${extra#good+}"
      jq -e "$expr" <<<"$out" >/dev/null 2>&1 || { ok=0; why="does not hold: $expr"; }
    fi
  fi
  if [ "$ok" = 1 ]; then echo "ok   $kind / $fault" >&2
  else
    echo "FAIL $kind / $fault: $why" >&2
    echo "     stderr: $(head -c 400 <<<"$err")" >&2
    jq -c '{sources: [.sources[] | {name, status, reason}], root_causes: [.root_causes[] | {rule, host, count}],
            affected: .affected_nodes, evidence: [.evidence[] | {host, location, text: .text[0:100]}]}' <<<"$out" 2>/dev/null |
      head -c 1500 >&2 || true
    echo >&2
    FAILED=$((FAILED + 1))
  fi
  local status_cell="$want_status"
  [ "$source" = "-" ] && status_cell="(no report)"
  printf '| %s | %s | %s | %s | %s |\n' "$kind" "$fault" "$want_exit" "$status_cell" "$behaviour" >> "$TABLE"
}
case_config() {  # name, the faulty source's TOML (appended to the working ones)
  CFG="$WORK/$1.toml"
  { $BASE; printf '%s\n' "$2"; } > "$CFG"
  CMD=""; AS=()
}

# ---------------------------------------------------------------------------------------------
# files (local logs; kernel logs, rank logs, journal exports alike)
B="$J/bad"
files_case() { case_config "$1" "$(printf '[[source]]\nname = "extra"\nkind = "files"\npaths = ["%s"]\nstream = "%s"\n' "$2" "${3:-applog}")"; }
files_case missing "$B/nothing-*.log"
expect files "missing path" 0 extra empty "no file matches" good "\`empty\`, names the pattern that matched nothing"
echo "$XID" > "$B/locked.log"; chmod 000 "$B/locked.log"
files_case noperm "$B/locked.log"; AS=("${RUN_AS[@]}")
expect files "permission denied (file)" 0 extra error "Permission denied" good "\`error\`, names the file and the system's reason"
mkdir -p "$B/locked-dir"; cp "$B/locked.log" "$B/locked-dir/a.log"; chmod 000 "$B/locked-dir"
files_case nopermdir "$B/locked-dir/*.log"; AS=("${RUN_AS[@]}")
expect files "permission denied (directory)" 0 extra empty "locked-dir: Permission denied.*not read" good "names the directory it could not read (not \"no file matches\")"
: > "$B/empty.log"
files_case empty "$B/empty.log"
expect files "empty file" 0 extra empty "all empty" good "\`empty\`: \"1 file(s), all empty\""
head -c 65536 /dev/urandom > "$B/core.bin"
files_case binary "$B/core.bin"
expect files "binary content" 0 extra error "skipped, binary content" good "\`error\`: the file is skipped as binary, by name"
printf 'boot\0\0\0 noise\n%s\n' "${XID//gpu01/gpu03}" | sed 's/52:00/53:00/' > "$B/nul.log"
files_case nul "$B/nul.log" syslog
expect files "NUL bytes in a text file" 0 extra ok "" 'good+([.root_causes[] | select(.host == "gpu03")] | length == 1)' "read as text: the Xid after the NULs is found"
printf '\xff\xfe\xc3\x28 %s \xe2\x82\n' "${XID//gpu01/gpu03}" | sed 's/52:00/53:00/' > "$B/utf8.log"
files_case utf8 "$B/utf8.log" syslog
expect files "invalid UTF-8" 0 extra ok "" 'good+([.evidence[] | select(.location | test("utf8.log")) | .text | test("\ufffd\\( Mar")] | length == 1)' "found; invalid bytes become U+FFFD in the report (valid JSON)"
{ head -c $((16 << 20)) /dev/zero | tr '\0' 'x'; echo " ${XID//gpu01/gpu03}" | sed 's/52:00/53:00/'; } > "$B/huge.log"
case_config huge "$(printf '[[source]]\nname = "extra"\nkind = "files"\npaths = ["%s"]\nstream = "syslog"\nhost = "gpu03"\n' "$B/huge.log")"
expect files "a 16 MiB line" 0 extra ok "" 'good+([.evidence[] | select(.host == "gpu03") | .text | test("more bytes\\]$") and (length < 3000)] | length == 1) and .limits.texts_cut == 1' "matched whole; its evidence text is cut at 2,048 bytes with \`[... N more bytes]\`"
printf 'Mar  4 10:11:00 gpu03 kernel: hello\n' | gzip | head -c 30 > "$B/cut.log.gz"
files_case truncgz "$B/cut.log.gz"
expect files "truncated gzip" 0 extra partial "cut.log.gz: partly read.*unexpected end of file" good "\`partial\`: the readable prefix is scanned, the damage named"
cp "$J/logs/gpu01/kern.log" "$B/kern-copy.log"
case_config duplicate "$(printf '[[source]]\nname = "extra"\nkind = "files"\npaths = ["%s"]\nstream = "syslog"\n' "$B/kern-copy.log")"
expect files "duplicated lines (two inputs hold the same lines)" 0 extra ok "repeat lines of source 'kernel'.*counted once" good "counted once (root cause count 1), the repeating source says so"
mkdir -p "$B/skew/gpu03"
echo "${XID//gpu01/gpu03}" | sed 's/10:10:00/11:31:00/; s/52:00/53:00/' > "$B/skew/gpu03/kern.log"
files_case clockahead "$B/skew/{host}/kern.log" syslog
expect files "host clock 1 h ahead" 0 extra partial "gpu03: 2 matching line\\(s\\) lie outside the window \\(the nearest 66 min after it\\).*--after 72m" good "\`partial\`: names the host, how far off, and the \`--after\` that takes its lines in"
mkdir -p "$B/skew2/gpu03"
echo "${XID//gpu01/gpu03}" | sed 's/10:10:00/08:40:00/; s/52:00/53:00/' > "$B/skew2/gpu03/kern.log"
files_case clockbehind "$B/skew2/{host}/kern.log" syslog
expect files "host clock 1 h behind" 0 extra partial "gpu03: 2 matching line\\(s\\) lie outside the window \\(the nearest 65 min before it\\).*--before 81m" good "the same, before the window, with \`--before\`"
# 70,000 distinct findings (one per rank) in one file; with 3 files, each keeps 66,666.
awk 'BEGIN { for (r = 0; r < 70000; r++) printf "[rank%d]:[E304 10:11:00.000000 ProcessGroupNCCL.cpp:616] [Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2201, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600030 milliseconds before timing out.\n", r, r }' > "$B/many.log"
files_case many "$B/many.log"
expect files "70,000 distinct findings in one file" 0 extra partial "many.log: limit reached: 66666 distinct findings kept, 3334 more matching lines not kept" 'good+(.limits.lines_not_kept == 3334 and .limits.findings_per_file == 66666)' "\`partial\`: the file keeps its share of the 200,000-finding bound; the rest are counted, and \`limits\` says so"
case_config nodata ""
expect files "a node with no data" 0 kernel ok "no data from 2 of 3 host\\(s\\): gpu02, gpu03" 'good+(.affected_nodes[] | select(.host == "gpu03") | .role == "no_data")' "names the hosts without data; the node's role is \`no_data\`"

if [ "$MODE" = --files-only ]; then
  echo "fault matrix, files only: $(wc -l < "$TABLE") cases, $FAILED failed" >&2
  [ "$FAILED" = 0 ]
  exit
fi

# ---------------------------------------------------------------------------------------------
# HTTP sources that add lines or metrics: prometheus, loki, kubernetes pod logs.
http_faults() {  # kind, function writing the source for a url
  local kind="$1" writer="$2"
  case_config "$kind-401" "$($writer "$URL/f401")"
  expect "$kind" "HTTP 401" 0 faulty error "401" good "\`error\`, the status and the server's message"
  case_config "$kind-403" "$($writer "$URL/f403")"
  expect "$kind" "HTTP 403" 0 faulty error "403" good "\`error\`, the same"
  case_config "$kind-404" "$($writer "$URL/f404")"
  expect "$kind" "HTTP 404" 0 faulty "$3" "404" good "$4"
  case_config "$kind-429" "$($writer "$URL/f429")"
  expect "$kind" "HTTP 429" 0 faulty "$5" "429" good "\`$5\`, the status"
  case_config "$kind-500" "$($writer "$URL/f500")"
  expect "$kind" "HTTP 500" 0 faulty "$5" "500" good "\`$5\`, the status"
  case_config "$kind-refused" "$($writer "$REFUSED")"
  expect "$kind" "connection refused" 0 faulty error "[Cc]ould ?n.t connect|[Cc]onnection refused" good "\`error\`, curl's reason"
  case_config "$kind-stall" "$($writer "$URL/stall")"
  expect "$kind" "server stalls past the timeout" 0 faulty error "[Tt]imeout|timed out" good "\`error\` after the source's \`timeout\` (1 s here)"
  case_config "$kind-trunc" "$($writer "$URL/trunc")"
  expect "$kind" "answer cut short" 0 faulty "$6" "$7" good "\`$6\`, the transfer or JSON error"
  case_config "$kind-html" "$($writer "$URL/html")"
  expect "$kind" "not JSON (an HTML error page)" 0 faulty "$8" "$9" good "\`$8\`, names what it got"
}
prom_source() { printf '[[source]]\nname = "faulty"\nkind = "prometheus"\nurl = "%s"\ntimeout = "1s"\n' "$1"; }
http_faults prometheus prom_source error "\`error\`, the status" error error "not JSON|partial" error "not JSON"
case_config prom-vector "$(prom_source "$URL/prom-vector")"
expect prometheus "an answer of another shape (vector)" 0 faulty error "vector|matrix" good "\`error\`: expects a range matrix, names what came"
case_config prom-empty "$(prom_source "$URL/prom-empty")"
expect prometheus "no series" 0 faulty empty "" good "\`empty\`"

loki_source() { printf '[[source]]\nname = "faulty"\nkind = "loki"\nurl = "%s"\nstream = "syslog"\nhost_label = "host"\nquery = '"'"'{job="syslog"}'"'"'\ntimeout = "1s"\n' "$1"; }
http_faults loki loki_source error "\`error\`, the status" error error "malformed JSON|partial" error "malformed JSON"
case_config loki-matrix "$(loki_source "$URL/loki-matrix")"
expect loki "an answer of another shape (matrix)" 0 faulty error "matrix|streams" good "\`error\`: expects streams, names what came"
case_config loki-empty "$(loki_source "$URL/loki-empty")"
expect loki "no lines" 0 faulty empty "" good "\`empty\`"
case_config loki-dup "$(loki_source "$URL/loki-dup")"
expect loki "duplicated lines (a local file holds them too)" 0 faulty ok "repeat lines of source 'kernel'.*counted once" good "counted once, the Loki source says so"
case_config loki-huge "$(loki_source "$URL/loki-huge")"
expect loki "a 16 MiB line" 0 faulty ok "" 'good+([.evidence[] | select(.host == "gpu03") | .text | test("more bytes\\]$")] | length == 1)' "matched; evidence text cut at 2,048 bytes with a marker"
case_config loki-nul "$(loki_source "$URL/loki-nul")"
expect loki "NUL characters in a line" 0 faulty ok "" 'good+([.root_causes[] | select(.host == "gpu03")] | length == 1)' "read as text: the Xid is found"

# ---------------------------------------------------------------------------------------------
# kubernetes pod logs: the Kueue workload resolves from /kok; the pod-log source's own kubeconfig
# points at the fault.
kubeconfig() {  # file, server
  printf 'apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n    server: %s\n  name: c\ncontexts:\n- context:\n    cluster: c\n    namespace: training\n    user: u\n  name: c\ncurrent-context: c\nusers:\n- name: u\n  user:\n    token: matrix-token\n' "$2" > "$1"
}
kubeconfig "$WORK/kube-ok.yaml" "$URL/kok"
kueue_base() { printf '[workload]\nscheduler = "kueue"\n\n[kueue]\nkubeconfig = "%s"\ntimeout = "1s"\n\n' "$WORK/kube-ok.yaml"; }
KGOOD='.root_causes[0].rule == "scheduler.kueue-oom-killed" and .root_causes[0].host == "gpu-node02"'
BASE=kueue_base; GOOD="$KGOOD"
pods_source() {  # server
  local kc="$WORK/kube-$RANDOM$RANDOM.yaml"
  kubeconfig "$kc" "$1"
  printf '[[source]]\nname = "faulty"\nkind = "kubernetes"\nkubeconfig = "%s"\ntimeout = "1s"\n' "$kc"
}
kube_case() { case_config "$1" "$(pods_source "$2")"; CMD="\"$ATTR\" diagnose --job training/pytorchjob-llm-pretrain-7c4d1 --config $CFG --format json"; }
kube_faults() {
  kube_case k401 "$URL/f401"; expect kubernetes "HTTP 401" 0 faulty error "401" good "\`error\`: every pod's log refused, the status named"
  kube_case k403 "$URL/f403"; expect kubernetes "HTTP 403" 0 faulty error "403" good "\`error\`, the same"
  kube_case k404 "$URL/f404"; expect kubernetes "HTTP 404 (logs gone)" 0 faulty empty "404" good "\`empty\`, each pod's missing log named"
  kube_case k429 "$URL/f429"; expect kubernetes "HTTP 429" 0 faulty "$1" "429" good "each pod's log named with the status"
  kube_case k500 "$URL/f500"; expect kubernetes "HTTP 500" 0 faulty "$1" "500" good "the same"
  kube_case krefused "$REFUSED"; expect kubernetes "connection refused" 0 faulty error "[Cc]ould ?n.t connect|refused" good "\`error\`, curl's reason"
  kube_case kstall "$URL/stall"; expect kubernetes "server stalls past the timeout" 0 faulty error "[Tt]imeout|timed out" good "\`error\` after \`timeout\`"
  kube_case ktrunc "$URL/trunc"; expect kubernetes "answer cut short" 0 faulty error "partial|cut short" good "\`error\`: a cut-short log is named, not read as complete"
}
kube_faults error
kube_case khuge "$URL/plog-huge"
expect kubernetes "a 16 MiB line" 0 faulty ok "" 'good+([.evidence[] | select(.source == "faulty") | .text | test("more bytes\\]$")] | length >= 1)' "matched; evidence text cut with a marker"
kube_case kbinary "$URL/plog-binary"
expect kubernetes "NUL and invalid UTF-8 bytes" 0 faulty ok "" 'good+([.evidence[] | select(.source == "faulty") | .text | test("illegal memory access")] | length >= 1)' "read as text; the error after them is found"
kube_case kahead "$URL/plog-ahead"
expect kubernetes "node clock 1 h ahead" 0 faulty partial "outside the window.*clock" good "\`partial\`: names the host whose lines all lie outside the window"
kube_case krepeat "$URL/plog-repeat"
expect kubernetes "duplicated lines in one log" 0 faulty ok "" 'good+([.symptoms[], .root_causes[] | select(.rule | test("cuda")) | .count] | max >= 2)' "kept as repeats of one finding (a log's repeats are real events)"

# ---------------------------------------------------------------------------------------------
# kueue (the scheduler): no workload, no report; the error names what the API server said.
kueue_case() {  # server
  kubeconfig "$WORK/kube-fault.yaml" "$1"
  CFG="$WORK/kueue-fault.toml"
  printf '[workload]\nscheduler = "kueue"\n\n[kueue]\nkubeconfig = "%s"\ntimeout = "1s"\n' "$WORK/kube-fault.yaml" > "$CFG"
  CMD="\"$ATTR\" diagnose --job training/pytorchjob-llm-pretrain-7c4d1 --config $CFG --format json"
}
# The schedulers' HTTP faults: refused credentials exit 3, anything else that leaves no workload 4.
scheduler_http_faults() {  # kind, case function, who refused, 404 label, 404 regex, 404 behaviour, timeout key
  local kind="$1" case_fn="$2"
  $case_fn "$URL/f401"; expect "$kind" "HTTP 401" 3 - - "401" "" "exit 3 ($3"
  $case_fn "$URL/f403"; expect "$kind" "HTTP 403" 3 - - "403" "" "exit 3, the same"
  $case_fn "$URL/f404"; expect "$kind" "$4" 4 - - "$5" "" "$6"
  $case_fn "$URL/f429"; expect "$kind" "HTTP 429" 4 - - "429" "" "exit 4, the status"
  $case_fn "$URL/f500"; expect "$kind" "HTTP 500" 4 - - "500" "" "exit 4, the status"
  $case_fn "$REFUSED"; expect "$kind" "connection refused" 4 - - "[Cc]ould ?n.t connect|refused" "" "exit 4, curl's reason"
  $case_fn "$URL/stall"; expect "$kind" "server stalls past the timeout" 4 - - "[Tt]imeout|timed out" "" "exit 4 after \`$7\`"
  $case_fn "$URL/trunc"; expect "$kind" "answer cut short" 4 - - "partial|JSON" "" "exit 4, the transfer error"
  $case_fn "$URL/html"; expect "$kind" "not JSON (an HTML error page)" 4 - - "JSON" "" "exit 4, names what it got"
}
scheduler_http_faults kueue kueue_case "credentials), the server's message" "HTTP 404 (no such workload)" \
  "pytorchjob-llm-pretrain-7c4d1" "exit 4, names the workload looked for" timeout
kueue_case "$URL/knewer"; expect kueue "unknown schema version (v1beta9)" 0 kueue partial "v1beta9" "" "read where fields are found; \`partial\`, names the version"

# ---------------------------------------------------------------------------------------------
# slurm, mode = "rest" (slurmrestd): without the job, no report; the error names each URL tried.
export MATRIX_JWT="matrix-jwt-$RANDOM$RANDOM"
rest_case() {  # url
  CFG="$WORK/rest.toml"
  printf '[workload]\nscheduler = "slurm"\n\n[slurm]\nmode = "rest"\nurl = "%s"\ntoken_env = "MATRIX_JWT"\napi = "v0.0.38"\ntimeout = "1s"\n' "$1" > "$CFG"
  CMD="\"$ATTR\" diagnose --job 1 --config $CFG --format json"
}
scheduler_http_faults slurmrestd rest_case "the token), names the URL" "HTTP 404" "404" \
  "exit 4: Slurm does not know the job, each URL tried named" "[slurm] timeout"
rest_case "$URL/rest-newer"; expect slurmrestd "unknown schema version (data_parser v0.0.99)" 0 slurm partial "v0.0.99 is newer" "" "read where fields are found; \`partial\`, names the version"
grep -q "$MATRIX_JWT" "$WORK/requests.log" && { echo "FAIL the JWT reached the request log" >&2; FAILED=$((FAILED + 1)); }

# ---------------------------------------------------------------------------------------------
# slurm, mode = "cli": sacct and scontrol as the login node has them (a fake PATH holds the
# faulty program; real Slurm runs in tests/slurm).
SB="$WORK/slurm-bin"
mkdir -p "$SB"
cp "$FIX/slurm/sacct-j-json.json" "$WORK/sacct-good.json"
jq '.meta.plugin.data_parser = "data_parser/v0.0.99"' "$WORK/sacct-good.json" > "$WORK/sacct-newer.json"
fake() {  # program, shell body
  printf '#!/bin/sh\n%s\n' "$2" > "$SB/$1"; chmod +x "$SB/$1"
}
cli_case() {  # sacct body, scontrol body ("" = absent)
  rm -f "$SB"/*
  [ -n "$1" ] && fake sacct "$1"
  [ -n "$2" ] && fake scontrol "$2"
  for p in sh cat head sleep; do ln -sf "$(command -v $p)" "$SB/$p"; done
  CFG="$WORK/cli.toml"
  printf '[workload]\nscheduler = "slurm"\n\n[slurm]\ntimeout = "1s"\n' > "$CFG"
  CMD="env PATH=$SB \"$ATTR\" diagnose --job 1 --config $CFG --format json"
}
NOJOB='echo "slurm_load_jobs error: Invalid job id specified" >&2; exit 1'
cli_case "" ""; expect slurm-cli "sacct and scontrol not on PATH" 3 - - "neither sacct nor scontrol" "" "exit 3, says to run on a login node or use --logs"
cli_case 'echo "sacct: error: slurm_persist_conn_open_without_init: failed to open persistent connection to host:localhost:6819: Connection refused" >&2; exit 1' "$NOJOB"
expect slurm-cli "slurmdbd down (sacct fails)" 4 - - "Connection refused" "" "exit 4, each command's own error"
cli_case "head -c 300 $WORK/sacct-good.json" "$NOJOB"; expect slurm-cli "answer cut short" 4 - - "not JSON" "" "exit 4, names the command and the JSON error"
cli_case 'echo "<html>"' "$NOJOB"; expect slurm-cli "not JSON" 4 - - "not JSON" "" "exit 4, the same"
cli_case "sleep 5" "$NOJOB"; expect slurm-cli "command stalls past the timeout" 4 - - "killed after 1 s" "" "exit 4: killed after \`[slurm] timeout\`"
cli_case "cat $WORK/sacct-newer.json" "$NOJOB"; expect slurm-cli "unknown schema version (data_parser v0.0.99)" 0 slurm partial "v0.0.99 is newer" "" "read where fields are found; \`partial\`, names the version"

# ---------------------------------------------------------------------------------------------
# The static workload file and the config: errors name the file and line; exit 3.
static_case() {  # workload file
  CFG="$WORK/static.toml"
  printf '[workload]\nscheduler = "static"\nstatic = "%s"\n' "$1" > "$CFG"
  CMD="\"$ATTR\" diagnose --config $CFG --format json"
}
static_case "$WORK/no-such.toml"; expect static "missing file" 3 - - "no-such.toml" "" "exit 3, names the file"
printf 'id = "1"\nnodes = "n[1-2"\nstart = \n' > "$WORK/bad.toml"
static_case "$WORK/bad.toml"; expect static "malformed TOML" 3 - - "bad.toml.*(line|:3)" "" "exit 3, file and line"
head -c 4096 /dev/urandom > "$WORK/random.toml"
static_case "$WORK/random.toml"; expect static "binary content" 3 - - "random.toml" "" "exit 3, names the file"
: > "$WORK/empty.toml"
static_case "$WORK/empty.toml"; expect static "empty file" 3 - - "empty.toml" "" "exit 3, names the missing key"

# ---------------------------------------------------------------------------------------------
# Bundles (--replay): a damaged payload is named and the rest replays; a damaged index stops.
BASE=base_config; GOOD="$GOOD_FILES"
case_config bundle ""
"$ATTR" diagnose --config "$CFG" --format json --record "$WORK/bundle" > "$WORK/recorded.json"
bundle_case() {  # what to do to the copy
  rm -rf "$WORK/b"; cp -r "$WORK/bundle" "$WORK/b"
  (cd "$WORK/b" && eval "$1")
  CMD="\"$ATTR\" diagnose --replay $WORK/b --format json"
}
bundle_case 'rm manifest.json'; expect bundle "missing manifest" 2 - - "manifest" "" "exit 2: not a bundle"
bundle_case 'jq ".version = 99" manifest.json > m && mv m manifest.json'; expect bundle "newer format version" 2 - - "version|altered|manifest" "" "exit 2, names the version"
bundle_case 'head -c 100 bundle.json > x && mv x bundle.json'; expect bundle "truncated index" 2 - - "bundle.json" "" "exit 2, names the file"
bundle_case 'f=$(ls files/ | head -1); echo "tampered" >> files/$f'; expect bundle "altered payload" 0 bundle partial "altered|digest|sha" "" "\`partial\`: the altered file named; the rest replays"
bundle_case 'f=$(ls files/ | tail -1); rm files/$f'; expect bundle "missing payload" 0 bundle partial "missing" '.root_causes[0].rule == "xid.79"' "\`partial\`: the missing file named; the rest replays"

# Credentials never reach a report or a message, whatever failed.
for secret in matrix-token "$MATRIX_JWT"; do
  if grep -qF -- "$secret" "$WORK/all-output"; then echo "FAIL a credential ($secret) is in a report or message" >&2; FAILED=$((FAILED + 1)); fi
done

# ---------------------------------------------------------------------------------------------
# The table in docs/reliability.md is this matrix's: between its markers, row for row.
{ echo '| source kind | fault | exit | sources[] status | behaviour |'; echo '|---|---|---|---|---|'; cat "$TABLE"; } > "$WORK/doc-table.md"
BEGIN='<!-- fault-matrix: begin (tests/faults/matrix.sh writes this table) -->'
END='<!-- fault-matrix: end -->'
doc_table() { awk -v b="$BEGIN" -v e="$END" '$0 == e {on = 0} on && NF {print} $0 == b {on = 1}' "$DOC"; }
if [ "$MODE" = --update-doc ]; then
  python3 -c '
import sys
doc, table, begin, end = sys.argv[1:]
text = open(doc).read()
a, b = text.index(begin) + len(begin), text.index(end)
open(doc, "w").write(text[:a] + chr(10) + open(table).read() + text[b:])' "$DOC" "$WORK/doc-table.md" "$BEGIN" "$END"
  echo "updated the table in $DOC" >&2
elif ! diff <(doc_table) "$WORK/doc-table.md" >&2; then
  echo "FAIL docs/reliability.md's fault table is not this matrix's: run tests/faults/matrix.sh build/attribution --update-doc" >&2
  FAILED=$((FAILED + 1))
fi
echo "fault matrix: $(wc -l < "$TABLE") cases, $FAILED failed" >&2
[ "$FAILED" = 0 ]
