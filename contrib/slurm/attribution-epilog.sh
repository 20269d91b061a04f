#!/bin/bash
# attribution-epilog.sh: EpilogSlurmctld hook that diagnoses every job that ended badly and keeps
# the report in a store (docs/fleet.md).
#
#   slurm.conf:  EpilogSlurmctld=/usr/share/attribution/contrib/slurm/attribution-epilog.sh
#   settings:    /etc/attribution/slurm-epilog.conf (shell assignments; see below), or a file named
#                like this script with .conf instead of .sh, beside it.
#
# slurmctld waits for EpilogSlurmctld, so this returns at once: it starts a detached worker and
# exits 0 whatever happens (a failing epilog must never hold a job or drain a node). The worker
# decides whether the job needs a diagnosis, waits for a free slot (at most MAX_PARALLEL
# diagnoses at once on this host, at most MAX_WAITING waiting: a mass failure of 500 jobs does
# not start 500 diagnoses), waits until accounting has the job's final record (sacct lags the
# job's end by a few seconds), runs `attribution diagnose --job ID --store STORE`, and logs one
# line per step to LOG.
set -u
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin  # slurmctld sets no search path

# Settings and their defaults.
ATTRIBUTION=attribution                  # the binary
STORE=/var/lib/attribution/reports.db    # SQLite file or postgresql://... URL
CONFIG=""                                # an attribution.toml for diagnose (sources, rules); "" for none
STATES="FAILED NODE_FAIL TIMEOUT OUT_OF_MEMORY PREEMPTED BOOT_FAIL DEADLINE"  # diagnosed whatever the exit code
NONZERO_EXIT=yes                         # also any other end with a non-zero exit code (not a signal alone)
MAX_PARALLEL=4                           # diagnoses at once on this host
MAX_WAITING=500                          # workers waiting for a slot; beyond it a job is logged and dropped
ACCOUNTING_WAIT=60                       # seconds to wait for sacct's final record
DIAGNOSE_TIMEOUT=900                     # seconds one diagnosis may take
SPOOL=/var/spool/attribution             # slot locks, and the last report of each job (reports/ID.json)
LOG=/var/log/attribution/epilog.log
EXTRA_ARGS=""                            # more diagnose arguments, e.g. "--threads 2"

here=$(cd "$(dirname "$0")" && pwd)
for conf in "${ATTRIBUTION_EPILOG_CONF:-}" "$here/$(basename "$0" .sh).conf" /etc/attribution/slurm-epilog.conf; do
  if [ -n "$conf" ] && [ -r "$conf" ]; then
    # shellcheck disable=SC1090
    . "$conf"
    break
  fi
done

log() { printf '%s job %s: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$JOB" "$*" >> "$LOG"; }

# The job's end as the controller sees it: "STATE CODE:SIGNAL". While this epilog runs the job is
# still COMPLETING, its final state not yet shown: wait for it (at most ACCOUNTING_WAIT seconds).
job_end() {
  local end deadline=$((SECONDS + ACCOUNTING_WAIT))
  while :; do
    end=$(job_end_now)
    case "$end" in
      COMPLETING* | CONFIGURING* | RUNNING*) [ $SECONDS -lt $deadline ] || break; sleep 1 ;;
      *) break ;;
    esac
  done
  echo "$end"
}

job_end_now() {
  local line state exit_code
  line=$(scontrol show job -o "$JOB" 2>/dev/null) || line=""
  state=$(sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' <<<"$line")
  exit_code=$(sed -n 's/.* ExitCode=\([0-9]*:[0-9]*\).*/\1/p' <<<"$line")
  echo "${state:-${SLURM_JOB_STATE:-UNKNOWN}} ${exit_code:-${SLURM_JOB_EXIT_CODE2:-0:0}}"
}

wants_diagnosis() {  # state, code:signal
  local s
  for s in $STATES; do [ "$1" = "$s" ] && return 0; done
  [ "$NONZERO_EXIT" = yes ] && [ "${2%%:*}" != 0 ] && [ "$1" != CANCELLED ] && return 0
  return 1
}

# Holds one of MAX_PARALLEL slot locks on fd 9 until the worker exits. Fails (logged) when the
# spool cannot hold the locks, e.g. removed while the worker waited: it must not wait forever.
take_slot() {
  local i
  while :; do
    for ((i = 1; i <= MAX_PARALLEL; i++)); do
      if ! { exec 9>"$SPOOL/slot.$i"; } 2>/dev/null; then
        log "not diagnosed: cannot create the slot lock $SPOOL/slot.$i (is SPOOL a writable directory?)"
        return 1
      fi
      flock -n 9 && return 0
      exec 9>&-
    done
    sleep $((1 + RANDOM % 3))
  done
}

# sacct's final record: a state that is no longer PENDING, RUNNING or COMPLETING.
wait_for_accounting() {
  local deadline=$((SECONDS + ACCOUNTING_WAIT)) state
  while [ $SECONDS -lt $deadline ]; do
    state=$(sacct -n -X -P -j "$JOB" -o State 2>/dev/null | head -n 1 | cut -d' ' -f1)
    case "$state" in
      "" | PENDING | RUNNING | COMPLETING | REQUEUED | RESIZING | SUSPENDED) sleep 2 ;;
      *) return 0 ;;
    esac
  done
  log "accounting has no final record after ${ACCOUNTING_WAIT}s; diagnosing with what the controller knows"
}

worker() {
  local end state code waiting rc started
  read -r state code <<<"$(job_end)"
  if ! wants_diagnosis "$state" "$code"; then
    log "ended $state (exit $code): not diagnosed"
    return 0
  fi
  if ! mkdir -p "$SPOOL/waiting" "$SPOOL/reports" 2>/dev/null || [ ! -w "$SPOOL/waiting" ]; then
    log "ended $state (exit $code): not diagnosed, the spool $SPOOL is not a writable directory"
    return 0
  fi
  waiting=$(find "$SPOOL/waiting" -type f 2>/dev/null | wc -l)
  if [ "$waiting" -ge "$MAX_WAITING" ]; then
    log "ended $state (exit $code): DROPPED, $waiting diagnoses already wait (MAX_WAITING=$MAX_WAITING)"
    return 0
  fi
  : > "$SPOOL/waiting/$JOB"
  log "ended $state (exit $code): queued"
  take_slot || { rm -f "$SPOOL/waiting/$JOB"; return 0; }
  rm -f "$SPOOL/waiting/$JOB"
  wait_for_accounting
  started=$SECONDS
  local args=(diagnose --job "$JOB" --store "$STORE" --format json -o "$SPOOL/reports/$JOB.json" --no-progress)
  [ -n "$CONFIG" ] && args+=(--config "$CONFIG")
  # shellcheck disable=SC2206
  [ -n "$EXTRA_ARGS" ] && args+=($EXTRA_ARGS)
  for attempt in 1 2; do
    timeout "$DIAGNOSE_TIMEOUT" "$ATTRIBUTION" "${args[@]}" 2>>"$SPOOL/reports/$JOB.err"
    rc=$?
    [ $rc = 4 ] && [ $attempt = 1 ] && { sleep 10; continue; }  # the scheduler did not know it yet
    break
  done
  if [ $rc = 0 ]; then
    log "diagnosed in $((SECONDS - started))s, stored in $STORE"
    rm -f "$SPOOL/reports/$JOB.err"
  else
    log "diagnosis failed (exit $rc, $((SECONDS - started))s): $(tail -n 2 "$SPOOL/reports/$JOB.err" | tr '\n' ' ')"
  fi
}

if [ "${1:-}" = --worker ]; then
  JOB=$2
  : > "$3"  # in a session of its own now: tell the parent it may exit
  worker
  exit 0
fi
JOB=${SLURM_JOB_ID:-${SLURM_JOBID:-}}
[ -n "$JOB" ] || exit 0
mkdir -p "$(dirname "$LOG")" "$SPOOL" 2>/dev/null
# Detached: the controller does not wait for it, and it outlives this script. slurmctld kills the
# script's whole process group when the script exits, so wait (at most 5 s) until the worker is in
# a session of its own.
ready="$SPOOL/.detached.$JOB.$$"
setsid "$0" --worker "$JOB" "$ready" </dev/null >>"$LOG" 2>&1 &
for _ in $(seq 1 100); do
  [ -e "$ready" ] && break
  sleep 0.05
done
rm -f "$ready"
exit 0
