#!/usr/bin/env bash
# Integration test against a real Slurm (Debian's slurmctld, slurmd x4, slurmdbd + MariaDB, munge),
# started on a private state directory by tests/realstack/slurm-up.sh and stopped on exit.
# Submits jobs that fail in different ways, then runs `attribution diagnose --job ID --format json`
# with no config file and checks outcome, nodes, window and evidence with jq.
# Usage: integration.sh PATH/TO/attribution
set -euo pipefail
ATTR="$(readlink -f "$1")"
HERE="$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
export REALSTACK_STATE_DIR="${ATTRIBUTION_SLURM_STATE:-/tmp/attr-slurm}"
export SLURM_CLUSTER_NAME=attribution
export SLURM_FAKE_NODES=4
export SLURM_WITH_RESTD=1   # slurmrestd with JWT auth, for the rest mode

fail() { echo "FAIL: $*" >&2; exit 1; }
stop() { bash "$HERE/../realstack/slurm-down.sh" >/dev/null 2>&1 || true; }
trap stop EXIT
command -v jq >/dev/null || fail "jq is missing (tests/setup-debian.sh installs it)"
# The EpilogSlurmctld hook (contrib/slurm/attribution-epilog.sh) is in slurm.conf from the start
# (slurmctld reads it once): every job of this test ends through it; checked at the end.
HOOKDIR="$REALSTACK_STATE_DIR/epilog-hook"
rm -rf "$HOOKDIR"
mkdir -p "$HOOKDIR"
cp "$HERE/../../contrib/slurm/attribution-epilog.sh" "$HOOKDIR/"
export SLURM_EXTRA_CONF="EpilogSlurmctld=$HOOKDIR/attribution-epilog.sh"
bash "$HERE/../realstack/slurm-up.sh" >&2
# shellcheck disable=SC1091
. "$REALSTACK_STATE_DIR/slurm/env.sh"
grep -q "^EpilogSlurmctld=$HOOKDIR/" "$SLURM_CONF" || fail "a Slurm from an earlier run is up without the hook: stop it (tests/realstack/slurm-down.sh)"
cat > "$HOOKDIR/attribution-epilog.conf" <<CONF
export SLURM_CONF="$SLURM_CONF"
ATTRIBUTION="$ATTR"
STORE="$HOOKDIR/reports.db"
SPOOL="$HOOKDIR/spool"
LOG="$HOOKDIR/epilog.log"
MAX_PARALLEL=2
CONF

RUN="$REALSTACK_SLURM_JOBS_DIR/attr-$(date +%s)-$$"
mkdir -p "$RUN"
EMPTY="$(mktemp -d)"   # no ./attribution.toml here: zero configuration

# 1. A 4-node training job: the rank on gpu-node03 hits an NVLink error (the kernel logs Xid 74
#    to a per-node file under the job's working directory), its peers then fail with NCCL IB
#    errors naming it; every rank exits 1.
cat > "$RUN/train.sbatch" <<'SBATCH'
#!/bin/bash
#SBATCH --job-name=llama-pretrain
#SBATCH --ntasks-per-node=1
srun --kill-on-bad-exit=0 --label bash -c '
  rank=$SLURM_PROCID; node=$SLURMD_NODENAME; pid=$((4000 + rank))
  ts() { date -u "+%Y-%m-%d %H:%M:%S"; }
  mkdir -p "logs/$node"
  echo "$node:$pid:$pid [0] NCCL INFO Bootstrap : Using ib0:10.0.0.$((11 + rank))<0>"
  echo "$node:$pid:$((pid + 7)) [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.$((11 + rank))<0>"
  echo "$node:$pid:$((pid + 7)) [0] NCCL INFO comm 0x55d0 rank $rank nranks 4 cudaDev 0 nvmlDev 5 busId b9000 commId 0x9f3e - Init COMPLETE"
  echo "step 100 loss 2.3141"
  if [ "$node" = gpu-node03 ]; then
    sleep 2
    echo "$(date -u "+%b %e %H:%M:%S") $node kernel: [86412.418316] NVRM: Xid (PCI:0000:b9:00): 74, pid=<unknown>, name=<unknown>, NVLink: fatal error detected on link 6(0x10000, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0)" >> "logs/$node/kern.log"
    sleep 1
    printf "\n[%s] %s:%s:%s [0] proxy.cc:1571 NCCL WARN Cuda failure %s\n" "$(ts)" "$node" "$pid" "$((pid + 9))" "'"'"'uncorrectable NVLink error detected during the execution'"'"'" >&2
    exit 1
  fi
  sleep 5
  printf "\n[%s] %s:%s:%s [0] transport/net_ib.cc:2451 NCCL WARN NET/IB: Got completion from peer 10.0.0.13<35912> with status=12 opcode=0 len=0 vendor err 129 (Send) hca mlx5_0\n" "$(ts)" "$node" "$pid" "$((pid + 9))" >&2
  exit 1
'
SBATCH
J_FAIL=$(cd "$RUN" && sbatch --parsable --mem=64 --no-requeue -N 4 -o "$RUN/slurm-%j.out" -e "$RUN/slurm-%j.err" train.sbatch)
# 2. A job killed by its time limit (1 minute; KillWait is 5 s).
J_TIME=$(sbatch --parsable --mem=64 --no-requeue -N 2 -w 'gpu-node[01-02]' -t 1 -J time-limit -o "$RUN/slurm-%j.out" --wrap 'srun sleep 600')
# 3. A job cancelled by its user.
J_CANCEL=$(sbatch --parsable --mem=64 --no-requeue -N 1 -w gpu-node01 -J cancelled -o "$RUN/slurm-%j.out" --wrap 'srun sleep 600')
echo "jobs: fail=$J_FAIL time=$J_TIME cancel=$J_CANCEL (run dir $RUN)" >&2

state() { scontrol show job -o "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2; }
wait_state() {  # job, wanted state(s) regex, seconds
  for _ in $(seq 1 $(($3 * 5))); do
    [[ "$(state "$1")" =~ ^($2)$ ]] && return 0
    sleep 0.2
  done
  fail "job $1 is $(state "$1") ($(scontrol show job -o "$1" | grep -o "Reason=[^ ]*")), expected $2 within $3 s"
}
# Accounting lags by a second or two: wait until sacct has the job's final record, a state matching the
# pattern $2 (one state, or several as a|b).
wait_sacct() {
  for _ in $(seq 1 100); do
    [[ "$(sacct -n -X -P -j "$1" -o State | head -1 | cut -d' ' -f1)" =~ ^($2)$ ]] && return 0
    sleep 0.2
  done
  fail "sacct never showed job $1 as $2"
}
ENDED="COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|PREEMPTED|BOOT_FAIL|DEADLINE"  # any final state
diagnose() { (cd "$EMPTY" && "$ATTR" diagnose --job "$1" --format json "${@:2}"); }
check() {  # json, jq expression that must be true, description
  jq -e "$2" <<<"$1" >/dev/null || { jq . <<<"$1" | head -80 >&2 || true; fail "$3: $2"; }
  echo "ok: $3" >&2
}

wait_state "$J_CANCEL" RUNNING 30
scancel "$J_CANCEL"
wait_state "$J_FAIL" FAILED 60
# 4. A node set DOWN under a running 4-node job: NODE_FAIL (after job 1, which also uses the node).
J_NODE=$(sbatch --parsable --mem=64 --no-requeue -N 4 -J node-fail -o "$RUN/slurm-%j.out" --wrap 'srun sleep 600')
echo "jobs: node=$J_NODE" >&2
wait_state "$J_NODE" RUNNING 30
sleep 2  # let the start record reach slurmdbd
scontrol update nodename=gpu-node03 state=down reason="GPU Xid 79 on GPU 5 (health check)"
wait_state "$J_NODE" NODE_FAIL 30
scontrol update nodename=gpu-node03 state=resume

wait_sacct "$J_FAIL" FAILED
out=$(diagnose "$J_FAIL")
check "$out" '.workload.scheduler == "slurm"' "job $J_FAIL: resolved from Slurm with no config"
check "$out" '.workload.nodes == ["gpu-node01","gpu-node02","gpu-node03","gpu-node04"]' "nodes expanded"
check "$out" '.workload.state == "FAILED" and .workload.exit_code == 1' "state and exit code as Slurm reports them"
check "$out" '.workload.start != null and .workload.end != null and .workload.window.start < .workload.start and .workload.window.end > .workload.end' "window around the job"
check "$out" '.outcome.family == "accelerator-fabric" and .root_causes[0].host == "gpu-node03"' "root cause on gpu-node03 from the job output alone"
check "$out" '[.sources[] | select(.name == "job-output" and .status == "ok")] | length == 1' "job stdout/stderr read as the default source"
check "$out" '[.symptoms[] | select(.rule == "nccl.ib-completion-error" and .explained_by == "R1")] | length == 1' "peers' IB errors explained by the root cause"
check "$out" '[.evidence[] | select(.location | test("slurm-[0-9]+\\.err:"))] | length > 0' "evidence points into the job's stderr"

cat > "$EMPTY/kernel.toml" <<'TOML'
[workload]
scheduler = "slurm"

[[source]]
name = "kernel"
kind = "files"
paths = ["{workdir}/logs/{host}/kern.log"]
stream = "syslog"
TOML
out=$(diagnose "$J_FAIL" --config "$EMPTY/kernel.toml")
check "$out" '.root_causes[0].rule == "nvlink.xid-74" and .root_causes[0].host == "gpu-node03" and .root_causes[0].pci == "0000:b9:00.0"' "with a {workdir} kernel source: Xid 74 on gpu-node03 GPU 0000:b9:00.0"
check "$out" '.outcome.category == "nvlink_signal_integrity" and .outcome.exclude_nodes == ["gpu-node03"]' "outcome and requeue exclusion"

wait_sacct "$J_NODE" NODE_FAIL
out=$(diagnose "$J_NODE")
check "$out" '.workload.state == "NODE_FAIL"' "job $J_NODE: NODE_FAIL"
check "$out" '.outcome.category == "node_failure" and .root_causes[0].host == "gpu-node03"' "the node set down is the root cause"
check "$out" '[.evidence[] | select(.text | test("GPU Xid 79 on GPU 5"))] | length == 1' "the node's down reason is evidence"

# The same jobs through slurmrestd (JWT from a file named in the config), as on a host without the CLI.
scontrol token username=root lifespan=900 > "$EMPTY/jwt"
cat > "$EMPTY/rest.toml" <<TOML
[workload]
scheduler = "slurm"

[slurm]
mode = "rest"
url = "$REALSTACK_SLURMRESTD_URL"
user = "root"
token_file = "jwt"
TOML
out=$(diagnose "$J_NODE" --config "$EMPTY/rest.toml")
check "$out" '.workload.state == "NODE_FAIL" and .outcome.category == "node_failure"' "slurmrestd: job $J_NODE is NODE_FAIL"
check "$out" '.workload.nodes | length == 4' "slurmrestd: nodes expanded"
out=$(diagnose "$J_FAIL" --config "$EMPTY/rest.toml")
check "$out" '.workload.exit_code == 1 and .outcome.family == "accelerator-fabric" and .root_causes[0].host == "gpu-node03"' "slurmrestd: job $J_FAIL diagnosed the same as with the CLI"
! grep -q "$(sed 's/^SLURM_JWT=//' "$EMPTY/jwt")" <<<"$out" || fail "the JWT appears in the report"
echo "ok: the JWT is not in the report" >&2
echo 'x' > "$EMPTY/bad-jwt"
sed 's/^token_file = .*/token_file = "bad-jwt"/' "$EMPTY/rest.toml" > "$EMPTY/bad.toml"
if (cd "$EMPTY" && "$ATTR" diagnose --job "$J_FAIL" --config "$EMPTY/bad.toml" > "$EMPTY/bad.out" 2>&1); then fail "a bad token must fail"; fi
grep -q "refused the token" "$EMPTY/bad.out" || { cat "$EMPTY/bad.out" >&2; fail "bad token message"; }
echo "ok: slurmrestd refuses a bad token, and the message says so" >&2

wait_sacct "$J_CANCEL" CANCELLED
out=$(diagnose "$J_CANCEL")
check "$out" '.outcome.category == "user_cancelled" and .outcome.exclude_nodes == []' "job $J_CANCEL: cancelled, no node blamed"

wait_state "$J_TIME" TIMEOUT 150
wait_sacct "$J_TIME" TIMEOUT
out=$(diagnose "$J_TIME")
check "$out" '.outcome.category == "scheduler_time_limit" and .outcome.blame == "scheduler"' "job $J_TIME: time limit"
check "$out" '.workload.nodes | length == 2' "time-limit job's two nodes"

out=$( (cd "$EMPTY" && "$ATTR" diagnose --job 999999 --format json) 2>&1) && fail "an unknown job must not produce a report"
grep -q "does not know job 999999" <<<"$out" || fail "unknown job message: $out"
echo "ok: unknown job is a clear error" >&2
# The epilog hook: two more jobs that fail and two that succeed, then one stored report per job
# that ended badly (FAILED, NODE_FAIL, TIMEOUT), none for the cancelled one or those that succeeded.
J_GOOD=$(sbatch --parsable --mem=64 --no-requeue -N 1 -J good -o "$RUN/slurm-%j.out" --wrap 'srun true')
J_BAD=$(sbatch --parsable --mem=64 --no-requeue -N 2 -J bad-exit -o "$RUN/slurm-%j.out" \
  --wrap 'srun bash -c "echo RuntimeError: CUDA error: an illegal memory access was encountered >&2; exit 3"')
J_GOOD2=$(sbatch --parsable --mem=64 --no-requeue -N 2 -J good2 -o "$RUN/slurm-%j.out" --wrap 'srun hostname')
J_KILLED=$(sbatch --parsable --mem=64 --no-requeue -N 1 -J killed -o "$RUN/slurm-%j.out" --wrap 'srun bash -c "kill -9 \$\$"')
echo "jobs: good=$J_GOOD bad=$J_BAD good2=$J_GOOD2 killed=$J_KILLED (epilog hook)" >&2
done_jobs() { grep -c "diagnosed in\|not diagnosed\|diagnosis failed" "$HOOKDIR/epilog.log" 2>/dev/null || true; }
for _ in $(seq 1 360); do
  [ "$(done_jobs)" -ge 8 ] && break
  sleep 0.5
done
cat "$HOOKDIR/epilog.log" >&2 || fail "the epilog hook logged nothing (slurmctld log: $REALSTACK_SLURM_STATE_DIR/log/slurmctld.log)"
stored=$("$ATTR" history --store "$HOOKDIR/reports.db" --format json)
want="\"$J_FAIL\", \"$J_TIME\", \"$J_NODE\", \"$J_BAD\", \"$J_KILLED\""
skipped="$J_CANCEL"
# A job meant to succeed can still end badly on a loaded machine (srun's RPC to a slurmd timing out, exit
# 141): what Slurm's accounting says decides whether the hook owes it a report, not what the job meant to do.
for j in $J_GOOD $J_GOOD2; do
  wait_sacct "$j" "$ENDED"
  ended=$(sacct -n -X -P -j "$j" -o State,ExitCode | head -1)
  if [ "$ended" = "COMPLETED|0:0" ]; then
    skipped="$skipped $j"
  else
    echo "note: job $j, meant to succeed, ended $ended in Slurm's accounting: the hook owes it a report" >&2
    want="$want, \"$j\""
  fi
done
check "$stored" "([.reports[].workload_id] | sort) == ([$want] | sort)" "epilog hook: one stored report per job that ended badly, none for $skipped"
for j in $skipped; do
  grep -q "job $j: ended [A-Z]* (exit [0-9:]*): not diagnosed" "$HOOKDIR/epilog.log" || fail "the hook's log does not say why $j was skipped"
done
check "$stored" "[.reports[] | select(.workload_id == \"$J_FAIL\")][0].family == \"accelerator-fabric\"" "epilog hook: job $J_FAIL diagnosed as on the command line"
check "$stored" "[.reports[] | select(.workload_id == \"$J_BAD\")][0].scheduler == \"slurm\"" "epilog hook: jobs resolved from Slurm"

# Record and replay: diagnoses recorded while Slurm runs replay byte for byte after Slurm is
# stopped and the jobs' files are moved away; the JWT appears in no bundle.
B="$EMPTY/bundles"
mkdir -p "$B"
record() {  # name, then diagnose's arguments after --job
  local name=$1
  shift
  (cd "$EMPTY" && "$ATTR" diagnose --format json --record "$B/$name" --job "$@") > "$B/$name.live.json"
}
record cli "$J_FAIL"
record kernel "$J_FAIL" --config "$EMPTY/kernel.toml"
record node "$J_NODE"
record rest "$J_FAIL" --config "$EMPTY/rest.toml"
record cancel "$J_CANCEL"
record time "$J_TIME"
check "$(cat "$B/kernel.live.json")" '.root_causes[0].rule == "nvlink.xid-74"' "recording run: same diagnosis"
! grep -rqF "$(sed 's/^SLURM_JWT=//' "$EMPTY/jwt")" "$B" || fail "the JWT appears in a bundle"
echo "ok: the JWT is in no bundle" >&2
stop
mv "$RUN" "$RUN.gone"
CLEAN="$(mktemp -d)"
for name in cli kernel node rest cancel time; do
  cp -r "$B/$name" "$CLEAN/$name"
  (cd "$CLEAN" && "$ATTR" diagnose --format json --replay "$CLEAN/$name") > "$CLEAN/$name.json" || { mv "$RUN.gone" "$RUN"; fail "replay of $name failed"; }
  cmp -s "$B/$name.live.json" "$CLEAN/$name.json" || { diff "$B/$name.live.json" "$CLEAN/$name.json" | head -20 >&2 || true; mv "$RUN.gone" "$RUN"; fail "replay of $name differs from the recorded run"; }
  echo "ok: $name replays byte for byte with Slurm stopped ($(du -sk "$CLEAN/$name" | cut -f1) KiB bundle)" >&2
done
mv "$RUN.gone" "$RUN"
rm -rf "$CLEAN"
echo "slurm integration: 1 passed, 0 failed"
