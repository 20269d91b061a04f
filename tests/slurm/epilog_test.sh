#!/usr/bin/env bash
# contrib/slurm/attribution-epilog.sh on its own, with stand-ins for scontrol, sacct and the
# attribution binary (the real Slurm run is in tests/slurm/integration.sh): a burst of 28 job ends
# returns to the controller at once, diagnoses the 21 that ended badly and skips the others, never
# runs more than MAX_PARALLEL at a time, waits out an accounting lag, drops past MAX_WAITING, and
# gives up (logged) when its spool is not a writable directory or goes away while jobs wait.
# Usage: epilog_test.sh
set -euo pipefail
SRC="$(readlink -f "$(dirname "${BASH_SOURCE[0]}")/../..")"
HOOK="$SRC/contrib/slurm/attribution-epilog.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
WORK="$(mktemp -d)"
# The hook's workers of this test (their command line names a file under $WORK), read from /proc:
# a minimal Debian has no pgrep. They run in sessions of their own: the EXIT trap stops any still
# waiting, then removes their spool.
workers() {
  # One grep over every command line (a fork per process took seconds on a loaded CI machine, long
  # enough for the waiting workers to finish before the test could act on them). A worker's last
  # argument is its "$SPOOL/.detached.JOB.PID" file, one NUL-separated word of its command line.
  local f
  for f in $(grep -lsz -- "^$WORK/.*/\.detached\." /proc/[0-9]*/cmdline 2>/dev/null); do
    f=${f#/proc/}
    echo "${f%/cmdline}"
  done
  return 0
}
trap 'for p in $(workers); do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"' EXIT
FAKE="$WORK/bin"
mkdir -p "$FAKE" "$WORK/running" "$WORK/jobs"

# Each job's end: "STATE CODE:SIGNAL" in jobs/ID. Job 7's accounting lags: sacct says RUNNING twice.
for j in $(seq 1 20); do echo "FAILED 1:0" > "$WORK/jobs/$j"; done
for j in 21 22 23 24 25; do echo "COMPLETED 0:0" > "$WORK/jobs/$j"; done
echo "CANCELLED 0:15" > "$WORK/jobs/26"
echo "TIMEOUT 0:1" > "$WORK/jobs/27"
echo "CANCELLED 0:15" > "$WORK/jobs/28"
# Job 27 is still COMPLETING the first two times the controller is asked, as during a real epilog.
cat > "$FAKE/scontrol" <<SH
#!/bin/bash
read -r state code < "$WORK/jobs/\$4"
if [ "\$4" = 27 ] && [ "\$(cat "$WORK/completing" 2>/dev/null || echo 0)" -lt 2 ]; then
  echo \$((\$(cat "$WORK/completing" 2>/dev/null || echo 0) + 1)) > "$WORK/completing"; state=COMPLETING
fi
echo "JobId=\$4 JobName=x UserId=u(1) JobState=\$state Reason=None Dependency=(null) Restarts=0 ExitCode=\$code DerivedExitCode=0:0"
SH
cat > "$FAKE/sacct" <<SH
#!/bin/bash
job=\$(sed -n 's/.*-j \([0-9]*\).*/\1/p' <<<"\$*")
if [ "\$job" = 7 ] && [ "\$(cat "$WORK/lag" 2>/dev/null || echo 0)" -lt 2 ]; then
  echo \$((\$(cat "$WORK/lag" 2>/dev/null || echo 0) + 1)) > "$WORK/lag"; echo RUNNING; exit 0
fi
cut -d' ' -f1 "$WORK/jobs/\$job"
SH
# The diagnosis: counts how many run at once, takes a second, writes its report.
cat > "$FAKE/attribution" <<SH
#!/bin/bash
while [ \$# -gt 0 ]; do case "\$1" in --job) job=\$2; shift;; -o) out=\$2; shift;; esac; shift; done
mkdir "$WORK/running/\$job"
n=\$(ls "$WORK/running" | wc -l)
( flock 9; max=\$(cat "$WORK/max" 2>/dev/null || echo 0); [ "\$n" -gt "\$max" ] && echo "\$n" > "$WORK/max" ) 9>"$WORK/max.lock"
[ "\$job" = 7 ] && [ "\$(cat "$WORK/lag")" -lt 2 ] && echo "diagnosed before accounting settled" > "$WORK/lag-error"
sleep "\$(cat "$WORK/diagnosis-seconds" 2>/dev/null || echo 1)"
echo "{\"job\": \"\$job\"}" > "\$out"
rmdir "$WORK/running/\$job"
SH
chmod +x "$FAKE"/*
cat > "$WORK/epilog.conf" <<CONF
PATH="$FAKE:\$PATH"
ATTRIBUTION=attribution
STORE=$WORK/reports.db
MAX_PARALLEL=3
SPOOL=$WORK/spool
LOG=$WORK/epilog.log
ACCOUNTING_WAIT=30
CONF
export ATTRIBUTION_EPILOG_CONF="$WORK/epilog.conf"

# Each call must return before its own diagnosis has finished (one takes 1 s): the controller
# never waits for a diagnosis, however loaded the machine is.
slowest=0
for j in $(seq 1 28); do
  start=$(date +%s%N)
  # As slurmctld runs it: in a process group of its own, killed whole when the script exits.
  rc=0
  SLURM_JOB_ID=$j setsid -w bash -c '"$0" || exit 3; kill -KILL -- -$$' "$HOOK" || rc=$?
  [ "$rc" = 137 ] || fail "the hook for job $j exited non-zero ($rc)"
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  [ "$ms" -le "$slowest" ] || slowest=$ms
  [ ! -e "$WORK/spool/reports/$j.json" ] || fail "the hook for job $j returned only after its diagnosis"
done
echo "ok: 28 job ends, each returned to the controller before its diagnosis ran (slowest ${slowest} ms)"
for _ in $(seq 1 240); do
  [ "$(grep -c 'diagnosed in\|not diagnosed' "$WORK/epilog.log" 2>/dev/null)" -ge 28 ] && break
  sleep 0.5
done
diagnosed=$(grep -c 'diagnosed in' "$WORK/epilog.log" || true)
skipped=$(grep -c 'not diagnosed' "$WORK/epilog.log" || true)
[ "$diagnosed" = 21 ] || { cat "$WORK/epilog.log" >&2; fail "$diagnosed diagnosed, not 21 (20 FAILED, 1 TIMEOUT)"; }
[ "$skipped" = 7 ] || fail "$skipped skipped, not 7 (5 COMPLETED, 2 CANCELLED)"
for j in 21 26; do grep -q "job $j: ended .*not diagnosed" "$WORK/epilog.log" || fail "job $j not skipped"; done
[ "$(ls "$WORK/spool/reports" | grep -c '\.json$')" = 21 ] || fail "not one report per diagnosed job"
max=$(cat "$WORK/max")
[ "$max" -le 3 ] || fail "$max diagnoses ran at once with MAX_PARALLEL=3"
[ ! -e "$WORK/lag-error" ] || fail "$(cat "$WORK/lag-error")"
grep -q "job 27: ended TIMEOUT" "$WORK/epilog.log" || fail "job 27 was judged while still COMPLETING"
echo "ok: 21 diagnosed, 7 skipped, at most $max at once, job 7 waited for accounting, job 27 for its final state"

# A queue bound: with 2 allowed to wait, a burst of 10 failures drops some, each logged.
rm -rf "$WORK/spool" "$WORK/epilog.log" "$WORK/max"
printf 'MAX_PARALLEL=1\nMAX_WAITING=2\n' >> "$WORK/epilog.conf"
for j in $(seq 1 10); do SLURM_JOB_ID=$j setsid -w bash -c '"$0"; kill -KILL -- -$$' "$HOOK" || true; done
for _ in $(seq 1 60); do
  [ "$(grep -c 'diagnosed in\|DROPPED' "$WORK/epilog.log" 2>/dev/null)" -ge 10 ] && break
  sleep 0.5
done
dropped=$(grep -c DROPPED "$WORK/epilog.log" || true)
[ "$dropped" -ge 1 ] || { cat "$WORK/epilog.log" >&2; fail "nothing dropped past MAX_WAITING"; }
echo "ok: past MAX_WAITING, $dropped of 10 dropped and logged"

# A spool that is not a directory: the job is logged as not diagnosed and its worker ends.
: > "$WORK/not-a-dir"
sed -i "s|^SPOOL=.*|SPOOL=$WORK/not-a-dir/spool|" "$WORK/epilog.conf"
: > "$WORK/epilog.log"
SLURM_JOB_ID=3 setsid -w bash -c '"$0"; kill -KILL -- -$$' "$HOOK" || true
for _ in $(seq 1 40); do [ -z "$(workers)" ] && break; sleep 0.25; done
[ -z "$(workers)" ] || fail "a worker is still running with an unusable spool"
grep -q "job 3: .*not diagnosed, the spool $WORK/not-a-dir/spool is not a writable directory" "$WORK/epilog.log" ||
  { cat "$WORK/epilog.log" >&2; fail "an unusable spool was not logged"; }
echo "ok: a spool that is not a directory is logged and the worker ends"

# The spool removed while jobs wait for the one slot: each waiting worker logs it and ends. The
# diagnosis holding the slot takes 6 s, so the others are surely still waiting when it goes.
sed -i "s|^SPOOL=.*|SPOOL=$WORK/spool|" "$WORK/epilog.conf"
echo 6 > "$WORK/diagnosis-seconds"
rm -rf "$WORK/spool" "$WORK/running"; mkdir -p "$WORK/running"
: > "$WORK/epilog.log"
for j in 1 2 3; do SLURM_JOB_ID=$j setsid -w bash -c '"$0"; kill -KILL -- -$$' "$HOOK" || true; done
for _ in $(seq 1 40); do [ "$(grep -c queued "$WORK/epilog.log")" -ge 3 ] && break; sleep 0.25; done
[ -n "$(workers)" ] || fail "no worker found waiting (the test's own process lookup is broken)"
rm -rf "$WORK/spool"
for _ in $(seq 1 60); do [ -z "$(workers)" ] && break; sleep 0.25; done
[ -z "$(workers)" ] || { cat "$WORK/epilog.log" >&2; fail "workers still wait for a slot in a removed spool"; }
gave_up=$(grep -c "not diagnosed: cannot create the slot lock" "$WORK/epilog.log" || true)
[ "$gave_up" -ge 1 ] || { cat "$WORK/epilog.log" >&2; fail "no waiting worker said why it gave up"; }
echo "ok: the spool removed under $gave_up waiting worker(s): each logged it and ended"
