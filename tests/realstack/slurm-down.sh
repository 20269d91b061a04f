#!/usr/bin/env bash
# (Adapted from the workplace realstack reference; the project carries its own copy.)
# slurm-down.sh — stop the daemons that slurm-up.sh started, by their recorded pid files
# only (never by name). Idempotent. Keeps the state dir (accounting DB, job history) unless
# SLURM_PURGE=1 is set, in which case the whole state dir is removed afterwards.
# Environment: REALSTACK_STATE_DIR / SLURM_STATE_DIR as for slurm-up.sh.
set -euo pipefail
HERE="$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
# shellcheck source=common.sh
. "$HERE/common.sh"

STATE_ROOT="${REALSTACK_STATE_DIR:-/tmp/realstack}"
S="${SLURM_STATE_DIR:-$STATE_ROOT/slurm}"
if [ ! -d "$S/run" ]; then
  rs_log "no state in $S; nothing to stop"
  exit 0
fi

export SLURM_CONF="$S/etc/slurm.conf"

# Cancel jobs of THIS cluster first so slurmd's job steps (slurmstepd) end cleanly.
if rs_pid_alive "$S/run/slurmctld.rspid" /usr/sbin/slurmctld; then
  jobs="$(timeout 10 squeue -h -o %A 2>/dev/null || true)"
  if [ -n "$jobs" ]; then
    rs_log "cancelling jobs: $(echo $jobs)"
    # shellcheck disable=SC2086
    timeout 10 scancel $jobs 2>/dev/null || true
    for _ in $(seq 1 50); do
      [ -z "$(timeout 5 squeue -h -o %A 2>/dev/null || true)" ] && break
      sleep 0.2
    done
  fi
fi

rs_stop "slurmrestd(jwt)" "$S/run/slurmrestd.rspid" /usr/sbin/slurmrestd 10
rs_stop "slurmrestd(local)" "$S/run/slurmrestd-local.rspid" /usr/sbin/slurmrestd 10
for pf in "$S"/run/slurmd-*.rspid; do
  [ -e "$pf" ] || continue
  n="${pf##*/slurmd-}"; n="${n%.rspid}"
  rs_stop "slurmd[$n]" "$pf" /usr/sbin/slurmd 15
done
rs_stop slurmctld "$S/run/slurmctld.rspid" /usr/sbin/slurmctld 20
rs_stop slurmdbd "$S/run/slurmdbd.rspid" /usr/sbin/slurmdbd 20
rs_stop mariadbd "$S/run/mariadbd.rspid" /usr/sbin/mariadbd 60
rs_stop munged "$S/run/munged.rspid" /usr/sbin/munged 10

if [ "${SLURM_PURGE:-0}" = 1 ]; then
  rs_log "removing state dir $S"
  rm -rf "$S"
fi
rs_log "slurm stack stopped"
