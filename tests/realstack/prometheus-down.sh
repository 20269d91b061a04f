#!/usr/bin/env bash
# (Adapted from the workplace realstack reference; the project carries its own copy.)
# prometheus-down.sh — stop the Prometheus that prometheus-up.sh started (by its recorded
# pid only). Idempotent. PROM_PURGE=1 also removes the state dir (TSDB included).
set -euo pipefail
HERE="$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
# shellcheck source=common.sh
. "$HERE/common.sh"
STATE_ROOT="${REALSTACK_STATE_DIR:-/tmp/realstack}"
P="${PROM_STATE_DIR:-$STATE_ROOT/prometheus}"
if [ -d "$P/run" ]; then
  rs_stop prometheus "$P/run/prometheus.rspid" /usr/bin/prometheus 30
else
  rs_log "no state in $P; nothing to stop"
fi
if [ "${PROM_PURGE:-0}" = 1 ]; then
  rs_log "removing state dir $P"
  rm -rf "$P"
fi
