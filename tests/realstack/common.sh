# shellcheck shell=bash
# (Adapted from the workplace realstack reference; the project carries its own copy.)
# common.sh — helpers shared by the realstack up/down scripts. Source it; do not run it.
# Every process we start is recorded in a pid file; we only ever signal pids from
# those files, and only after checking /proc/<pid>/exe still points at the binary
# we started (guards against pid reuse).

rs_log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
rs_die() { rs_log "ERROR: $*"; exit 1; }

# rs_now_ms: monotonic-ish wall clock in milliseconds
rs_now_ms() { date +%s%3N; }

# rs_apt_install PKG...: idempotent, non-interactive install that never starts services.
rs_apt_install() {
  local missing=() p
  for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
      missing+=("$p")
    fi
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    rs_log "packages already installed: $*"
    return 0
  fi
  rs_log "apt-get install ${missing[*]}"
  # Make sure maintainer scripts never try to start services (no systemd here).
  local made_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
    made_policy=1
  fi
  local rc=0 log="${RS_APT_LOG:-/tmp/realstack-apt.log}"
  # Another installer may hold dpkg's lock (tests run in parallel on a fresh machine): wait for it.
  local wait_lock=(-o DPkg::Lock::Timeout=900)
  rs_log "  (apt output -> $log)"
  # 'apt-get update' only when the package lists are missing/empty (fresh machine).
  if ! compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null || \
     ! apt-cache show "${missing[0]}" >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get "${wait_lock[@]}" update -q >>"$log" 2>&1 || rc=$?
  fi
  local try
  for try in 1 2; do
    rc=0
    DEBIAN_FRONTEND=noninteractive apt-get "${wait_lock[@]}" install -y -q --no-install-recommends \
      -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
      "${missing[@]}" >>"$log" 2>&1 || rc=$?
    [ "$rc" = 0 ] && break
    # stale package lists (404 on a superseded version) -> refresh once and retry
    [ "$try" = 1 ] && { rs_log "apt-get install failed (rc=$rc); running apt-get update and retrying"; DEBIAN_FRONTEND=noninteractive apt-get "${wait_lock[@]}" update -q >>"$log" 2>&1 || true; }
  done
  if [ "$made_policy" = 1 ]; then rm -f /usr/sbin/policy-rc.d; fi
  [ "$rc" = 0 ] || { tail -n 30 "$log" >&2; rs_die "apt-get install failed (rc=$rc)"; }
}

# rs_proc_start PID: the process start time (clock ticks since boot, /proc/PID/stat field 22)
rs_proc_start() {
  local stat
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 1
  # strip "pid (comm) " — comm may contain spaces — then field 20 of the rest is starttime
  stat="${stat##*) }"
  echo "$stat" | awk '{print $20}'
}

# rs_record PIDFILE PID: write "PID STARTTIME" so a recycled pid is never mistaken for ours
rs_record() {
  echo "$2 $(rs_proc_start "$2" || echo 0)" > "$1"
}

# rs_pid_of PIDFILE: print the recorded pid
rs_pid_of() { awk '{print $1; exit}' "$1" 2>/dev/null; }

# rs_pid_alive PIDFILE EXE: true if PIDFILE names a live process that is still the very
# process we started: same start time, and /proc/<pid>/exe is EXE.
rs_pid_alive() {
  local pidfile="$1" exe="$2" pid st real
  [ -s "$pidfile" ] || return 1
  read -r pid st < "$pidfile" || true
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [ -d "/proc/$pid" ] || return 1
  if [ -n "${st:-}" ] && [ "$st" != 0 ]; then
    [ "$(rs_proc_start "$pid" || true)" = "$st" ] || return 1
  fi
  real="$(readlink -f "/proc/$pid/exe" 2>/dev/null || true)"
  # deleted binaries (after an upgrade) show as '/path (deleted)'
  real="${real% (deleted)}"
  [ "$real" = "$(readlink -f "$exe")" ]
}

# rs_start NAME PIDFILE LOGFILE CMD...: start CMD (which must stay in the foreground)
# detached from the caller, stdin from /dev/null, output to LOGFILE, and record its pid.
rs_start() {
  local name="$1" pidfile="$2" logfile="$3"; shift 3
  # RS_EXE overrides the binary checked in /proc/<pid>/exe (when CMD is a wrapper
  # that execs, e.g. env/setpriv).
  local exe="${RS_EXE:-}"
  [ -n "$exe" ] || exe="$(command -v "$1")" || rs_die "$1 not found"
  if rs_pid_alive "$pidfile" "$exe"; then
    rs_log "$name already running (pid $(rs_pid_of "$pidfile"))"
    return 0
  fi
  rm -f "$pidfile"
  # setsid execs in place (we are not a process-group leader inside a script), so $!
  # is the daemon's own pid. nohup-like: new session, no controlling terminal.
  setsid "$@" </dev/null >>"$logfile" 2>&1 &
  local pid=$!
  rs_record "$pidfile" "$pid"
  # If setsid had to fork (caller uses job control), find the real daemon pid.
  sleep 0.05
  if ! rs_pid_alive "$pidfile" "$exe"; then
    local child=""
    child="$(awk '{print $1}' "/proc/$pid/task/$pid/children" 2>/dev/null || true)"
    if [ -n "$child" ]; then rs_record "$pidfile" "$child"; fi
  fi
  if ! rs_pid_alive "$pidfile" "$exe" && ! [ -d "/proc/$pid" ]; then
    rs_log "$name exited immediately; last lines of $logfile:"
    tail -n 20 "$logfile" >&2 || true
    rm -f "$pidfile"
    return 1
  fi
  rs_log "started $name (pid $(rs_pid_of "$pidfile")) log=$logfile"
}

# rs_stop NAME PIDFILE EXE [TIMEOUT_S]: SIGTERM the recorded pid, wait, then SIGKILL.
rs_stop() {
  local name="$1" pidfile="$2" exe="$3" timeout="${4:-20}" pid i
  if ! rs_pid_alive "$pidfile" "$exe"; then
    [ -e "$pidfile" ] && rs_log "$name not running (stale pid file removed)"
    rm -f "$pidfile"
    return 0
  fi
  pid="$(rs_pid_of "$pidfile")"
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < timeout * 10; i++)); do
    [ -d "/proc/$pid" ] || break
    # a zombie child of ours counts as gone
    if grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null; then break; fi
    sleep 0.1
  done
  if [ -d "/proc/$pid" ] && ! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null; then
    rs_log "$name (pid $pid) ignored SIGTERM for ${timeout}s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    sleep 0.2
  fi
  rm -f "$pidfile"
  rs_log "stopped $name (pid $pid)"
}

# rs_port_free PORT: true if nothing listens on 127.0.0.1:PORT / *:PORT
rs_port_free() {
  ! ss -Hltn "sport = :$1" 2>/dev/null | grep -q .
}

# rs_free_port START: first free TCP port >= START
rs_free_port() {
  local p="$1"
  while ! rs_port_free "$p"; do p=$((p + 1)); done
  echo "$p"
}

# rs_wait SECONDS DESCRIPTION CMD...: poll CMD every 0.2s until it succeeds
rs_wait() {
  local secs="$1" what="$2"; shift 2
  local deadline=$(( $(date +%s) + secs ))
  until "$@" >/dev/null 2>&1; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      rs_log "timed out after ${secs}s waiting for $what"
      return 1
    fi
    sleep 0.2
  done
}
