#!/usr/bin/env bash
# Integration test of the kueue scheduler and the kubernetes pod-log source over real HTTPS:
# tests/http/serve.py serves recorded answers in the Kubernetes / Kueue API shapes
# (tests/fixtures/kueue) on 127.0.0.1 with a throwaway CA; the real binary reads a kubeconfig whose
# certificate-authority is that CA and whose user has a bearer token, diagnoses a Kueue-admitted
# 4-pod PyTorchJob, and jq checks the report. Not a real API server: none is installable here
# (docs/kubernetes.md says so). Usage: integration.sh PATH/TO/attribution
set -euo pipefail
ATTR="$(readlink -f "$1")"
HERE="$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
SRC="$(readlink -f "$HERE/../..")"
FIX="$SRC/tests/fixtures/kueue"
# shellcheck source=../http/common.sh
. "$SRC/tests/http/common.sh"

bash "$SRC/tests/http/make-cert.sh" "$WORK/tls"
TOKEN="kube-$RANDOM$RANDOM-token"
AUTH='{"Authorization": "Bearer '"$TOKEN"'"}'
WL=/apis/kueue.x-k8s.io/v1beta2/namespaces
PODLOG=/api/v1/namespaces/training/pods
SINCE=2025-05-06T09:45:04Z   # the workload's admission (10:00:04) minus the default 15m
log_route() {  # pod, fixture file or "", extra query json
  local q='"container": "pytorch", "timestamps": "true", "sinceTime": "'$SINCE'"'
  printf ' {"path": "%s/llm-pretrain-%s/log", "query": {%s%s}, "header": %s, ' "$PODLOG" "$1" "$q" "$3" "$AUTH"
  if [ -n "$2" ]; then printf '"body_file": "%s", "content_type": "text/plain"},\n' "$2"
  else printf '"status": 400, "body_file": "%s/status-400-previous.json"},\n' "$FIX"; fi
}
# Pod-log faults, one per token: a source whose kubeconfig carries token fault-X gets fault X
# from every pod's log path.
fault_routes() {
  local p f
  for p in master-0 worker-0 worker-1 worker-2; do
    for f in 429 500 truncated empty stalled; do
      printf ' {"path": "%s/llm-pretrain-%s/log", "if_header": {"Authorization": "Bearer fault-%s"}, ' "$PODLOG" "$p" "$f"
      case $f in
        429|500) printf '"status": %s, "body": "{\\"kind\\": \\"Status\\", \\"message\\": \\"fault %s\\"}"},\n' "$f" "$f" ;;
        truncated) printf '"truncate": 40, "body_file": "%s/logs/%s.log", "content_type": "text/plain"},\n' "$FIX" "$p" ;;
        empty) printf '"body": "", "content_type": "text/plain"},\n' ;;
        stalled) printf '"delay_s": 6, "body_file": "%s/logs/%s.log", "content_type": "text/plain"},\n' "$FIX" "$p" ;;
      esac
    done
  done
}
{
  echo '['
  fault_routes
  # The resolver's faults, one namespace each: 500, truncated and malformed JSON, no workloads.
  echo ' {"path": "'$WL'/err500/workloads/llm-pretrain", "status": 500, "body_file": "'$FIX'/status-403.json"},'
  echo ' {"path": "'$WL'/trunc/workloads/llm-pretrain", "truncate": 60, "body_file": "'$FIX'/workload-v1beta2.json"},'
  echo ' {"path": "'$WL'/malformed/workloads/llm-pretrain", "body": "<html>gateway</html>", "content_type": "text/html"},'
  echo ' {"path": "'$WL'/nothing/workloads/llm-pretrain", "status": 404, "body_file": "'$FIX'/status-404-workload.json"},'
  echo ' {"path": "'$WL'/nothing/workloads", "body": "{\"apiVersion\": \"kueue.x-k8s.io/v1beta2\", \"kind\": \"WorkloadList\", \"items\": []}"},'
  # The PyTorchJob's name is not a Workload's: 404, then the list finds the one it owns.
  echo ' {"path": "'$WL'/training/workloads/llm-pretrain", "header": '"$AUTH"', "status": 404, "body_file": "'$FIX'/status-404-workload.json"},'
  echo ' {"path": "'$WL'/training/workloads", "header": '"$AUTH"', "body_file": "'$FIX'/workload-list-v1beta2.json"},'
  echo ' {"path": "/api/v1/namespaces/training/pods", "query": {"labelSelector": "training.kubeflow.org/job-name=llm-pretrain"}, "header": '"$AUTH"', "body_file": "'$FIX'/pods-llm-pretrain.json"},'
  echo ' {"path": "/api/v1/namespaces/training/events", "query": {"fieldSelector": "involvedObject.name=llm-pretrain-worker-0"}, "header": '"$AUTH"', "body_file": "'$FIX'/events-worker-0.json"},'
  echo ' {"path": "/api/v1/namespaces/training/events", "header": '"$AUTH"', "body_file": "'$FIX'/events-empty.json"},'
  echo ' {"path": "/api/v1/namespaces/default/events", "query": {"fieldSelector": "involvedObject.kind=Node"}, "header": '"$AUTH"', "body_file": "'$FIX'/events-nodes.json"},'
  # worker-0 restarted after its OOM kill: its previous instance's log is gone (400).
  log_route worker-0 "" ', "previous": "true"'
  for p in master-0 worker-0 worker-1 worker-2; do log_route "$p" "$FIX/logs/$p.log" ""; done
  echo ' {"path": "'$WL'/forbidden/workloads/llm-pretrain", "status": 403, "body_file": "'$FIX'/status-403.json"},'
  echo ' {"path": "'$WL'/stalled/workloads/llm-pretrain", "delay_s": 6, "body_file": "'$FIX'/workload-v1beta2.json"},'
  # Loki holding the same pod logs, as Promtail/Alloy ship them (scenario 7).
  echo ' {"path": "/loki/loki/api/v1/query_range", "body_file": "'$WORK/loki-body.json'"},'
  echo ' {"path": "'$WL'/training/workloads/pytorchjob-llm-pretrain-7c4d1", "header": '"$AUTH"', "body_file": "'$FIX'/workload-v1beta2.json"},'
  echo ' {"path": "/never-used", "body": ""}'
  echo ']'
} > "$WORK/routes.json"
python3 "$HERE/loki_body.py" "$FIX/pods-llm-pretrain.json" "$FIX/logs" > "$WORK/loki-body.json"
jq -e 'length > 10' "$WORK/routes.json" >/dev/null || fail "routes.json is not valid JSON"

serve "$WORK/routes.json" "$WORK/port" "$WORK/requests.log" \
  --tls-cert "$WORK/tls/server.pem" --tls-key "$WORK/tls/server-key.pem"
URL="https://127.0.0.1:$(cat "$WORK/port")"

kubeconfig() {  # file, token, with CA (yes/no)
  { echo "apiVersion: v1"; echo "kind: Config"; echo "clusters:"; echo "- cluster:"
    [ "$3" = yes ] && echo "    certificate-authority: $WORK/tls/ca.pem"
    echo "    server: $URL"; echo "  name: test"
    echo "contexts:"; echo "- context:"; echo "    cluster: test"; echo "    namespace: training"; echo "    user: diagnoser"
    echo "  name: test"; echo "current-context: test"; echo "preferences: {}"
    echo "users:"; echo "- name: diagnoser"; echo "  user:"; echo "    token: $2"; } > "$1"
}
config() {  # file, kubeconfig, timeout
  printf '[workload]\nscheduler = "kueue"\n\n[kueue]\nkubeconfig = "%s"\ntimeout = "%s"\n\n' "$2" "$3" > "$1"
  printf '[[source]]\nname = "pods"\nkind = "kubernetes"\ntimeout = "%s"\n' "$3" >> "$1"
}
check() {  # json, jq expression that must be true, description
  jq -e "$2" <<<"$1" >/dev/null || { jq . <<<"$1" | head -120 >&2 || true; fail "$3: $2"; }
  echo "ok: $3" >&2
}
expect_error() {  # exit code wanted, stderr pattern, description, command...
  local want="$1" pat="$2" what="$3"; shift 3
  set +e; "$@" >"$WORK/out" 2>"$WORK/err"; local rc=$?; set -e
  [ "$rc" = "$want" ] || { cat "$WORK/err" >&2; fail "$what: exit $rc, want $want"; }
  grep -q -- "$pat" "$WORK/err" || { cat "$WORK/err" >&2; fail "$what: stderr lacks '$pat'"; }
  if grep -q -- "$TOKEN" "$WORK/err" "$WORK/out"; then fail "$what: the token was printed"; fi
  echo "ok: $what" >&2
}

# 1. The scenario: worker-0 OOMKilled on gpu-node02; the other pods' NCCL watchdogs time out.
kubeconfig "$WORK/kubeconfig" "$TOKEN" yes
config "$WORK/a.toml" "$WORK/kubeconfig" 5s
J=$("$ATTR" diagnose --job training/llm-pretrain --config "$WORK/a.toml" --format json)
check "$J" '.workload.scheduler == "kueue" and .workload.id == "training/pytorchjob-llm-pretrain-7c4d1"' "the PyTorchJob's newest Workload"
check "$J" '.workload.nodes == ["gpu-node01","gpu-node02","gpu-node03","gpu-node04"] and .workload.state == "Failed"' "nodes and state from the pods and conditions"
check "$J" '.root_causes[0].rule == "scheduler.kueue-oom-killed" and .root_causes[0].host == "gpu-node02"' "the OOMKilled container is the root cause, on its node"
check "$J" '.outcome.family == "host-oom" and .outcome.category == "host_oom" and .outcome.blame == "application"' "outcome is host-oom"
check "$J" '.root_causes[0].id as $r | [.symptoms[] | select(.rule == "pytorch.watchdog-timeout")] | length == 1 and .[0].explained_by == $r and .[0].hosts == ["gpu-node01","gpu-node03","gpu-node04"]' "NCCL watchdog timeouts on the other nodes are its symptoms"
check "$J" '[.evidence[] | select(.source == "pods" and (.text | contains("Watchdog caught collective operation timeout")))] | length >= 1 and all(.time_inferred == false)' "pod log lines keep the API server's timestamps"
check "$J" '.sources[] | select(.name == "pods") | .status == "partial" and (.reason | contains("llm-pretrain-worker-0")) and .hosts_expected == 4' "the missing previous log is a coverage problem naming the pod"
check "$J" '[.affected_nodes[] | select(.host == "gpu-node02")][0].role == "root_cause"' "gpu-node02 is the root-cause node"
grep -q 'previous=true' "$WORK/requests.log" || fail "no previous=true request for the restarted container"
[ "$(grep -c 'previous=true' "$WORK/requests.log")" = 1 ] || fail "previous=true asked for containers that did not restart"
grep -q 'headers=.*Authorization' "$WORK/requests.log" || fail "no Authorization header was sent"
echo "ok: previous instance asked only for the restarted container, with a bearer token" >&2
T=$("$ATTR" diagnose --job training/llm-pretrain --config "$WORK/a.toml")
grep -q 'gpu-node02' <<<"$T" || fail "the text report does not name gpu-node02"
echo "ok: text report" >&2

# 2. A wrong token: the API server answers 401; a config error naming it, no token printed.
kubeconfig "$WORK/kubeconfig-bad" "wrong-$TOKEN" yes
config "$WORK/b.toml" "$WORK/kubeconfig-bad" 5s
expect_error 3 'HTTP 401' "401 from the API server is a config error" \
  "$ATTR" diagnose --job training/llm-pretrain --config "$WORK/b.toml" --format json

# 3. RBAC: 403 with the API server's reason.
expect_error 3 'cannot get resource "workloads"' "403 from the API server is a config error naming the permission" \
  "$ATTR" diagnose --job forbidden/llm-pretrain --config "$WORK/a.toml" --format json

# 4. A stalled API server past the timeout.
config "$WORK/c.toml" "$WORK/kubeconfig" 2s
start=$(date +%s)
expect_error 4 'Timeout was reached' "a stalled API server ends at the timeout, naming it" \
  "$ATTR" diagnose --job stalled/llm-pretrain --config "$WORK/c.toml" --format json
[ $(( $(date +%s) - start )) -lt 6 ] || fail "the stalled request was not cut at the 2s timeout"

# 5. TLS is verified: without the test CA the server's certificate is refused.
kubeconfig "$WORK/kubeconfig-noca" "$TOKEN" no
config "$WORK/d.toml" "$WORK/kubeconfig-noca" 5s
expect_error 4 'TLS: the certificate of https://127.0.0.1:[0-9]* is not trusted' "an unknown CA is refused, named as such" \
  "$ATTR" diagnose --job training/llm-pretrain --config "$WORK/d.toml" --format json

# 6. The pod-log source with a refused token, the workload read with a good one: still a report,
#    the source in error naming the 401.
config "$WORK/e.toml" "$WORK/kubeconfig" 5s
printf '\n[[source]]\nname = "pods-badcred"\nkind = "kubernetes"\nkubeconfig = "%s"\n' "$WORK/kubeconfig-bad" >> "$WORK/e.toml"
J=$("$ATTR" diagnose --job training/llm-pretrain --config "$WORK/e.toml" --format json)
check "$J" '.sources[] | select(.name == "pods-badcred") | .status == "error" and (.reason | contains("HTTP 401"))' "a refused pod-log source is an error entry in the report"
check "$J" '.root_causes[0].rule == "scheduler.kueue-oom-killed"' "and the diagnosis stands"
if grep -q -- "$TOKEN" <<<"$J"; then fail "the token is in the report"; fi

# 7. The Kueue workload through the kubeconfig, its pods' logs from Loki instead of the API server.
{ printf '[workload]\nscheduler = "kueue"\n\n[kueue]\nkubeconfig = "%s"\ntimeout = "5s"\n\n' "$WORK/kubeconfig"
  printf '[[source]]\nname = "loki"\nkind = "loki"\nurl = "%s/loki"\nca_file = "%s"\nhost_label = "node"\n' "$URL" "$WORK/tls/ca.pem"
  printf 'query = '"'"'{namespace="{namespace}", pod=~"llm-pretrain-.+"}'"'"'\n'; } > "$WORK/f.toml"
J=$("$ATTR" diagnose --job training/llm-pretrain --config "$WORK/f.toml" --format json)
check "$J" '.root_causes[0].rule == "scheduler.kueue-oom-killed" and .root_causes[0].host == "gpu-node02"' "kubeconfig + Loki: the OOMKilled container is the root cause"
check "$J" '.root_causes[0].id as $r | [.symptoms[] | select(.rule == "pytorch.watchdog-timeout")] | length == 1 and .[0].explained_by == $r and .[0].hosts == ["gpu-node01","gpu-node03","gpu-node04"]' "kubeconfig + Loki: the watchdog timeouts from Loki are its symptoms"
check "$J" '.sources[] | select(.name == "loki") | .status == "ok" and .hosts_covered == ["gpu-node01","gpu-node02","gpu-node03","gpu-node04"]' "kubeconfig + Loki: Loki covers the four nodes"
grep -q 'GET /loki/loki/api/v1/query_range?query=%7Bnamespace%3D%22training%22' "$WORK/requests.log" || fail "the LogQL {namespace} is the workload's namespace"
J=$("$ATTR" diagnose --job training/pytorchjob-llm-pretrain-7c4d1 --config "$WORK/f.toml" --format json)
check "$J" '.workload.id == "training/pytorchjob-llm-pretrain-7c4d1" and .root_causes[0].rule == "scheduler.kueue-oom-killed" and .root_causes[0].host == "gpu-node02"' "--job NS/WORKLOAD-NAME with a kubeconfig and Loki: the same root cause"
echo "ok: {namespace} expanded to the Kueue workload's namespace" >&2

# 9. Each pod-log fault (its own token): a report whose sources[] entry names it; the workload
#    and its OOM root cause stand. The resolver's faults: a clear error naming each.
config "$WORK/g.toml" "$WORK/kubeconfig" 2s
for f in 429 500 truncated empty stalled; do
  kubeconfig "$WORK/kubeconfig-$f" "fault-$f" yes
  printf '\n[[source]]\nname = "pods-%s"\nkind = "kubernetes"\ntimeout = "2s"\nkubeconfig = "%s"\n' "$f" "$WORK/kubeconfig-$f" >> "$WORK/g.toml"
done
start=$(date +%s)
J=$("$ATTR" diagnose --job training/llm-pretrain --config "$WORK/g.toml" --format json)
[ $(( $(date +%s) - start )) -lt 12 ] || fail "the stalled pod-log source was not cut at its 2s timeout"
check "$J" '.root_causes[0].rule == "scheduler.kueue-oom-killed" and .root_causes[0].host == "gpu-node02"' "pod-log faults: the diagnosis stands"
check "$J" '.sources[] | select(.name == "pods-429") | .status == "error" and (.reason | test("HTTP 429")) and ([.problems[] | select(test("HTTP 429"))] | length == 5)' "pod logs HTTP 429: an error naming it, for each log"
check "$J" '.sources[] | select(.name == "pods-500") | .status == "error" and (.reason | test("HTTP 500")) and ([.problems[] | select(test("HTTP 500"))] | length == 5)' "pod logs HTTP 500: an error naming it, for each log"
check "$J" '.sources[] | select(.name == "pods-truncated") | (.status == "error" or .status == "partial") and (.reason | test("partial file|truncated"; "i"))' "pod logs cut short: named"
check "$J" '.sources[] | select(.name == "pods-empty") | .records == 0 and .bytes == 0 and .status == "empty" and (.reason | test("empty log"))' "empty pod logs: an empty source, named"
check "$J" '.sources[] | select(.name == "pods-stalled") | .status == "error" and (.reason | test("Timeout"))' "a stalled pod-log request ends at the timeout, named"
config "$WORK/h.toml" "$WORK/kubeconfig" 5s
expect_error 4 'HTTP 500' "the API server's 500 for the workload is named" \
  "$ATTR" diagnose --job err500/llm-pretrain --config "$WORK/h.toml" --format json
expect_error 4 'partial file\|truncated' "a workload answer cut short is named" \
  "$ATTR" diagnose --job trunc/llm-pretrain --config "$WORK/h.toml" --format json
expect_error 4 'JSON\|json' "a workload answer that is not JSON is named" \
  "$ATTR" diagnose --job malformed/llm-pretrain --config "$WORK/h.toml" --format json
expect_error 4 'Kueue knows no workload nothing/llm-pretrain' "no such workload is named" \
  "$ATTR" diagnose --job nothing/llm-pretrain --config "$WORK/h.toml" --format json

# 8. Record and replay: recorded while the API server answers, replayed byte for byte once it
#    and the kubeconfig are gone; the token is in no bundle.
B="$WORK/bundles"
mkdir -p "$B"
for name in a e f; do
  "$ATTR" diagnose --job training/llm-pretrain --config "$WORK/$name.toml" --format json --record "$B/$name" > "$B/$name.live.json"
done
if grep -rqF -- "$TOKEN" "$B"; then fail "the token is in a bundle"; fi
echo "ok: the token is in no bundle" >&2
stop_servers
mkdir "$WORK/gone"
mv "$WORK"/kubeconfig* "$WORK/tls" "$WORK/gone/"
for name in a e f; do
  "$ATTR" diagnose --format json --replay "$B/$name" > "$B/$name.replay.json" || fail "replay of $name failed"
  cmp -s "$B/$name.live.json" "$B/$name.replay.json" || { diff "$B/$name.live.json" "$B/$name.replay.json" | head -20 >&2 || true; fail "replay of $name differs"; }
  echo "ok: $name replays byte for byte with the API server and kubeconfig gone" >&2
done
echo "PASS" >&2
