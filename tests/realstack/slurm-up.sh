#!/usr/bin/env bash
# (Adapted from the workplace realstack reference; the project carries its own copy.)
# slurm-up.sh — bring up a REAL single-host Slurm 22.05 cluster without systemd:
#   munged -> mariadbd -> slurmdbd -> slurmctld -> N x slurmd (one per fake node)
# Each fake node (default gpu-node01..gpu-node04) is a separate slurmd process started
# with `slurmd -N <name>`, listening on its own port (NodeName ... Port=), all on 127.0.0.1.
# So `sbatch -N 2..4` really allocates several nodes and `srun` really launches one
# task per fake node.
#
# Idempotent: installs only missing packages, reuses existing state, and does nothing
# for daemons that are already running (checked via their pid files).
#
# Environment (all optional):
#   REALSTACK_STATE_DIR  root of all state            (default /tmp/realstack)
#   SLURM_STATE_DIR      Slurm state dir              (default $REALSTACK_STATE_DIR/slurm)
#   SLURM_FAKE_NODES     number of fake nodes         (default 4)
#   SLURM_NODE_PREFIX    node name prefix             (default gpu-node -> gpu-node01..)
#   SLURM_NODE_CPUS      CPUs advertised per node     (default 8)
#   SLURM_NODE_GPUS      GPUs per node as gres/gpu   (default 8; 0 disables GRES). The
#                        "devices" are symlinks to /dev/null: gres/gpu insists on File=
#                        being a char/block device, and Count= alone reports 0 GPUs.
#   SLURM_GPU_TYPE       GRES type                    (default h100 -> gres/gpu:h100)
#   SLURM_CLUSTER_NAME   ClusterName                  (default realstack)
#   SLURM_PORT_BASE      first port of the block used (default 16800; next free block
#                        of 100 is chosen automatically if something else holds a port)
#   SLURM_WITH_DBD       1 = mariadb + slurmdbd so sacct works (default 1)
#   SLURM_WITH_RESTD     1 = also start slurmrestd: unix socket (local auth) + TCP (JWT)
#                        (default 0)
#   SLURM_SKIP_INSTALL   1 = never call apt-get
#
# After it returns:  source "$SLURM_STATE_DIR/env.sh"   (sets SLURM_CONF etc.)
set -euo pipefail

HERE="$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
# shellcheck source=common.sh
. "$HERE/common.sh"

T0=$(rs_now_ms)
STATE_ROOT="${REALSTACK_STATE_DIR:-/tmp/realstack}"
S="${SLURM_STATE_DIR:-$STATE_ROOT/slurm}"
NODES="${SLURM_FAKE_NODES:-4}"
PREFIX="${SLURM_NODE_PREFIX:-gpu-node}"
NODE_CPUS="${SLURM_NODE_CPUS:-8}"
NODE_GPUS="${SLURM_NODE_GPUS:-8}"
GPU_TYPE="${SLURM_GPU_TYPE:-h100}"
CLUSTER="${SLURM_CLUSTER_NAME:-realstack}"
WITH_DBD="${SLURM_WITH_DBD:-1}"
WITH_RESTD="${SLURM_WITH_RESTD:-0}"
[ "$(id -u)" = 0 ] || rs_die "must run as root (apt-get, munged/slurmd as root)"
[[ "$NODES" =~ ^[0-9]+$ ]] && [ "$NODES" -ge 1 ] && [ "$NODES" -le 60 ] || rs_die "SLURM_FAKE_NODES must be 1..60"

# ---------------------------------------------------------------- install
TI0=$(rs_now_ms)
if [ "${SLURM_SKIP_INSTALL:-0}" != 1 ]; then
  # slurm-wlm-jwt-plugin: auth/jwt (Debian splits it out of the basic plugins); enables
  # `scontrol token` and token auth for slurmrestd over TCP.
  PKGS=(munge slurmctld slurmd slurm-client slurm-wlm-jwt-plugin)
  [ "$WITH_DBD" = 1 ] && PKGS+=(slurmdbd mariadb-server)
  [ "$WITH_RESTD" = 1 ] && PKGS+=(slurmrestd)
  rs_apt_install "${PKGS[@]}"
fi
TI1=$(rs_now_ms)

# ---------------------------------------------------------------- layout
mkdir -p "$S"/{etc,run,log,ctld,spool,munge,jobs}
# munged wants the socket dir traversable by everyone (non-root clients, slurmrestd)
chmod 755 "$S/munge"; chmod 700 "$S/etc"
chmod 1777 "$S/jobs"   # job output / per-rank logs go here
nodename() { printf '%s%02d' "$PREFIX" "$1"; }
NODE_LIST=()
for ((i = 1; i <= NODES; i++)); do NODE_LIST+=("$(nodename "$i")"); mkdir -p "$S/spool/$(nodename "$i")"; done
NODE_RANGE="${PREFIX}[$(printf '%02d' 1)-$(printf '%02d' "$NODES")]"
[ "$NODES" = 1 ] && NODE_RANGE="$(nodename 1)"

# *.rspid = pids recorded by these scripts (the only pids slurm-down.sh signals);
# the daemons' own pid files (*.pid) are separate.
PIDF_MUNGE="$S/run/munged.rspid"
PIDF_MYSQL="$S/run/mariadbd.rspid"
PIDF_DBD="$S/run/slurmdbd.rspid"
PIDF_CTLD="$S/run/slurmctld.rspid"
PIDF_RESTD="$S/run/slurmrestd.rspid"
pidf_slurmd() { echo "$S/run/slurmd-$1.rspid"; }

any_running() {
  rs_pid_alive "$PIDF_MUNGE" /usr/sbin/munged && return 0
  rs_pid_alive "$PIDF_MYSQL" /usr/sbin/mariadbd && return 0
  rs_pid_alive "$PIDF_DBD" /usr/sbin/slurmdbd && return 0
  rs_pid_alive "$PIDF_CTLD" /usr/sbin/slurmctld && return 0
  local n
  for n in "${NODE_LIST[@]}"; do rs_pid_alive "$(pidf_slurmd "$n")" /usr/sbin/slurmd && return 0; done
  return 1
}

# ---------------------------------------------------------------- ports
# A block of 100 ports: mysql +6, slurmctld +17, slurmdbd +19, slurmrestd +20, slurmd +21..
if any_running && [ -s "$S/ports.env" ]; then
  # shellcheck disable=SC1091
  . "$S/ports.env"
else
  BASE="${SLURM_PORT_BASE:-16800}"
  block_free() {
    local b="$1" p
    for p in $((b + 6)) $((b + 17)) $((b + 19)) $((b + 20)); do rs_port_free "$p" || return 1; done
    for ((p = b + 21; p < b + 21 + NODES; p++)); do rs_port_free "$p" || return 1; done
  }
  for ((try = 0; try < 50; try++)); do block_free "$BASE" && break; BASE=$((BASE + 100)); done
  block_free "$BASE" || rs_die "no free port block found from ${SLURM_PORT_BASE:-16800}"
  MYSQL_PORT=$((BASE + 6)); CTLD_PORT=$((BASE + 17)); DBD_PORT=$((BASE + 19))
  RESTD_PORT=$((BASE + 20)); SLURMD_PORT0=$((BASE + 21))
  cat > "$S/ports.env" <<EOF
MYSQL_PORT=$MYSQL_PORT
CTLD_PORT=$CTLD_PORT
DBD_PORT=$DBD_PORT
RESTD_PORT=$RESTD_PORT
SLURMD_PORT0=$SLURMD_PORT0
EOF
fi

# ---------------------------------------------------------------- secrets
MUNGE_KEY="$S/munge/munge.key"
if [ ! -s "$MUNGE_KEY" ]; then
  dd if=/dev/urandom of="$MUNGE_KEY" bs=1024 count=1 status=none
fi
chmod 400 "$MUNGE_KEY"
JWT_KEY="$S/etc/jwt_hs256.key"
if [ ! -s "$JWT_KEY" ]; then
  dd if=/dev/urandom of="$JWT_KEY" bs=32 count=1 status=none
fi
chmod 600 "$JWT_KEY"
MUNGE_SOCK="$S/munge/munge.socket.2"
[ "${#MUNGE_SOCK}" -lt 100 ] || rs_die "state dir path too long for a unix socket: $MUNGE_SOCK"

# ---------------------------------------------------------------- configs
CONF="$S/etc/slurm.conf"
ACCT_LINES="AccountingStorageType=accounting_storage/none"
if [ "$WITH_DBD" = 1 ]; then
  ACCT_LINES="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$DBD_PORT
# For slurmdbd connections the munge socket is taken from AccountingStoragePass, not AuthInfo.
AccountingStoragePass=$MUNGE_SOCK
AccountingStorageTRES=gres/gpu"
fi
GRES_LINE=""
[ "$NODE_GPUS" -gt 0 ] && GRES_LINE="Gres=gpu:$GPU_TYPE:$NODE_GPUS"
{
  cat <<EOF
# Generated by slurm-up.sh — single host, $NODES fake nodes, one slurmd each.
ClusterName=$CLUSTER
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT0
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCK
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$JWT_KEY
StateSaveLocation=$S/ctld
SlurmdSpoolDir=$S/spool/%n
SlurmctldPidFile=$S/run/slurmctld.pid
SlurmdPidFile=$S/run/slurmd-%n.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=30
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# Advertise more CPUs/GPUs than the host has: never mark nodes INVALID for it.
SlurmdParameters=config_overrides
# 1: nodes DOWN for being unresponsive come back by themselves; nodes an admin/test set
# DOWN or DRAIN stay so (ReturnToService=2 would undo `scontrol update state=down` at once).
ReturnToService=1
GresTypes=gpu
$ACCT_LINES
JobCompType=jobcomp/none
MailProg=/bin/true
# keep finished jobs visible to 'scontrol show job' for an hour
MinJobAge=3600
InactiveLimit=0
KillWait=5
Waittime=0
SlurmctldTimeout=30
SlurmdTimeout=300
MessageTimeout=10
EOF
  for ((i = 1; i <= NODES; i++)); do
    n="$(nodename "$i")"
    echo "NodeName=$n NodeHostname=$n NodeAddr=127.0.0.1 Port=$((SLURMD_PORT0 + i - 1)) CPUs=$NODE_CPUS Boards=1 SocketsPerBoard=1 CoresPerSocket=$NODE_CPUS ThreadsPerCore=1 RealMemory=16000 $GRES_LINE State=UNKNOWN"
  done
  echo "PartitionName=gpu Nodes=$NODE_RANGE Default=YES MaxTime=INFINITE State=UP"
  # Lines a test adds (EpilogSlurmctld: slurmctld's script runner reads it at start only).
  [ -z "${SLURM_EXTRA_CONF:-}" ] || printf '%s\n' "$SLURM_EXTRA_CONF"
} > "$CONF.new"
mv "$CONF.new" "$CONF"
if [ "$NODE_GPUS" -gt 0 ]; then
  mkdir -p "$S/fakedev"
  for ((g = 0; g < NODE_GPUS; g++)); do ln -sfn /dev/null "$S/fakedev/nvidia$g"; done
  printf 'AutoDetect=off\nNodeName=%s Name=gpu Type=%s File=%s/fakedev/nvidia[0-%s]\n' \
    "$NODE_RANGE" "$GPU_TYPE" "$S" "$((NODE_GPUS - 1))" > "$S/etc/gres.conf"
else
  : > "$S/etc/gres.conf"
fi

if [ "$WITH_DBD" = 1 ]; then
  DBD_CONF="$S/etc/slurmdbd.conf"
  cat > "$DBD_CONF" <<EOF
# Generated by slurm-up.sh
AuthType=auth/munge
AuthInfo=socket=$MUNGE_SOCK
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$JWT_KEY
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$DBD_PORT
SlurmUser=root
LogFile=$S/log/slurmdbd.log
PidFile=$S/run/slurmdbd.pid
DebugLevel=info
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$MYSQL_PORT
StorageUser=slurm
StoragePass=slurm-realstack
StorageLoc=slurm_acct_db
EOF
  chmod 600 "$DBD_CONF"
fi

cat > "$S/env.sh" <<EOF
# source me: points Slurm clients (sinfo, sbatch, scontrol, sacct, ...) at this cluster
export SLURM_CONF="$CONF"
export REALSTACK_SLURM_STATE_DIR="$S"
export REALSTACK_SLURM_JOBS_DIR="$S/jobs"
export REALSTACK_SLURM_CLUSTER="$CLUSTER"
export REALSTACK_SLURM_NODES="$(IFS=,; echo "${NODE_LIST[*]}")"
export REALSTACK_MUNGE_SOCKET="$MUNGE_SOCK"
EOF
[ "$WITH_RESTD" = 1 ] && echo "export REALSTACK_SLURMRESTD_URL=\"http://127.0.0.1:$RESTD_PORT\"" >> "$S/env.sh"
export SLURM_CONF="$CONF"

# ---------------------------------------------------------------- munged
TS0=$(rs_now_ms)
rs_start munged "$PIDF_MUNGE" "$S/log/munged.out" \
  munged --foreground --force --socket="$MUNGE_SOCK" --key-file="$MUNGE_KEY" \
  --pid-file="$S/munge/munged.pid" --log-file="$S/log/munged.log" --seed-file="$S/munge/munged.seed" \
  --num-threads=4
munge_ok() { munge -n -S "$MUNGE_SOCK" | unmunge -S "$MUNGE_SOCK"; }
rs_wait 20 "munged" munge_ok || { tail -n 20 "$S/log/munged.log" "$S/log/munged.out" >&2 || true; rs_die "munged did not come up"; }

# ---------------------------------------------------------------- mariadb + slurmdbd
if [ "$WITH_DBD" = 1 ]; then
  MYSQL_DIR="$S/mysql"
  MYSQL_SOCK="$MYSQL_DIR/mysqld.sock"
  mkdir -p "$MYSQL_DIR"
  if [ ! -d "$MYSQL_DIR/data/mysql" ]; then
    rs_log "initialising mariadb datadir"
    rm -rf "$MYSQL_DIR/data"
    mariadb-install-db --no-defaults --datadir="$MYSQL_DIR/data" --user=root \
      --auth-root-authentication-method=socket --skip-test-db >"$S/log/mariadb-install.log" 2>&1 \
      || { tail -n 30 "$S/log/mariadb-install.log" >&2; rs_die "mariadb-install-db failed"; }
  fi
  rs_start mariadbd "$PIDF_MYSQL" "$S/log/mariadbd.out" \
    mariadbd --no-defaults --user=root --datadir="$MYSQL_DIR/data" --tmpdir="$MYSQL_DIR" \
    --socket="$MYSQL_SOCK" --port="$MYSQL_PORT" --bind-address=127.0.0.1 \
    --pid-file="$MYSQL_DIR/mariadbd.pid" --log-error="$S/log/mariadbd.err" \
    --skip-name-resolve --skip-log-bin --innodb-buffer-pool-size=1024M \
    --innodb-log-file-size=64M --innodb-lock-wait-timeout=900 --innodb-flush-log-at-trx-commit=2
  rs_wait 60 "mariadbd" mariadb-admin --no-defaults -S "$MYSQL_SOCK" -uroot ping \
    || { tail -n 30 "$S/log/mariadbd.err" >&2 || true; rs_die "mariadbd did not come up"; }
  mariadb --no-defaults -S "$MYSQL_SOCK" -uroot <<'SQL'
CREATE DATABASE IF NOT EXISTS slurm_acct_db;
CREATE USER IF NOT EXISTS 'slurm'@'%' IDENTIFIED BY 'slurm-realstack';
CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY 'slurm-realstack';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'%';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';
FLUSH PRIVILEGES;
SQL
  rs_start slurmdbd "$PIDF_DBD" "$S/log/slurmdbd.out" slurmdbd -D
  dbd_ok() { sacctmgr -n -P list cluster format=Cluster; }
  rs_wait 60 "slurmdbd" dbd_ok || { tail -n 30 "$S/log/slurmdbd.log" "$S/log/slurmdbd.out" >&2 || true; rs_die "slurmdbd did not come up"; }
  # Register the cluster up front: slurmctld then finds it at first contact.
  if ! sacctmgr -n -P list cluster format=Cluster | grep -qx "$CLUSTER"; then
    sacctmgr -i add cluster "$CLUSTER" >/dev/null
  fi
fi

# ---------------------------------------------------------------- slurmctld
CTLD_WAS_RUNNING=0
rs_pid_alive "$PIDF_CTLD" /usr/sbin/slurmctld && CTLD_WAS_RUNNING=1
rs_start slurmctld "$PIDF_CTLD" "$S/log/slurmctld.out" slurmctld -D -i -f "$CONF"
rs_wait 60 "slurmctld" scontrol ping \
  || { tail -n 30 "$S/log/slurmctld.log" "$S/log/slurmctld.out" >&2 || true; rs_die "slurmctld did not come up"; }
# 'scontrol ping' can succeed before the controller answers RPCs reliably
rs_wait 30 "slurmctld RPCs" sinfo -h

# ---------------------------------------------------------------- slurmd x N
for n in "${NODE_LIST[@]}"; do
  rs_start "slurmd[$n]" "$(pidf_slurmd "$n")" "$S/log/slurmd-$n.out" slurmd -D -N "$n" -f "$CONF"
done

all_idle() {
  local out bad
  out="$(sinfo -h -N -p gpu -o '%N %T' 2>/dev/null)" || return 1
  [ "$(printf '%s\n' "$out" | grep -c .)" -ge "$NODES" ] || return 1
  # ready = idle, or busy running jobs (a re-run while jobs are active)
  bad="$(printf '%s\n' "$out" | awk '$2 !~ /^(idle|mixed|allocated|completing)$/')"
  [ -z "$bad" ]
}
# Fresh controller start: give tests a clean cluster — resume nodes that an earlier run
# left DOWN/DRAINED (state is kept in StateSaveLocation across down/up).
if [ "$CTLD_WAS_RUNNING" = 0 ]; then
  resume_admin_down() {
    local out bad
    out="$(sinfo -h -N -p gpu -o '%N %T')" || return 1
    # still registering (down*/unknown*) -> wait; admin states -> resume
    printf '%s\n' "$out" | awk '$2 ~ /\*$/ {f=1} END {exit f}' || return 1
    bad="$(printf '%s\n' "$out" | awk '$2 ~ /^(down|drained|draining|drain|fail|failing)$/ {print $1}' | paste -sd, -)"
    [ -z "$bad" ] || { rs_log "resuming nodes left down/drained: $bad"; scontrol update nodename="$bad" state=resume || true; }
    return 0
  }
  rs_wait 60 "slurmd registration" resume_admin_down || true
fi
if ! rs_wait 90 "all $NODES nodes idle" all_idle; then
  sinfo -N -l >&2 || true
  tail -n 20 "$S/log/slurmctld.log" >&2 || true
  rs_die "nodes did not become idle"
fi

# ---------------------------------------------------------------- slurmrestd (optional)
if [ "$WITH_RESTD" = 1 ]; then
  # slurmrestd refuses to run as root unless SLURMRESTD_SECURITY=disable_user_check.
  # In 22.05 one slurmrestd cannot serve both auth kinds (SLURM_JWT=daemon, needed for
  # JWT pass-through, breaks rest_auth/local requests with HTTP 500), so start two:
  #   TCP  127.0.0.1:$RESTD_PORT   rest_auth/jwt: headers X-SLURM-USER-NAME + X-SLURM-USER-TOKEN,
  #                                token from `scontrol token username=root lifespan=3600`
  #   unix $S/run/slurmrestd.sock  rest_auth/local: uid via SO_PEERCRED, no token
  #                                (curl --unix-socket SOCK http://localhost/slurm/v0.0.38/...)
  RESTD_SOCK="$S/run/slurmrestd.sock"
  RS_EXE=/usr/sbin/slurmrestd rs_start "slurmrestd(jwt)" "$PIDF_RESTD" "$S/log/slurmrestd-jwt.out" \
    env SLURMRESTD_SECURITY=disable_user_check SLURM_JWT=daemon SLURM_CONF="$CONF" \
    slurmrestd -a rest_auth/jwt -s openapi/v0.0.38,openapi/dbv0.0.38 "127.0.0.1:$RESTD_PORT"
  rs_pid_alive "$S/run/slurmrestd-local.rspid" /usr/sbin/slurmrestd || rm -f "$RESTD_SOCK"
  RS_EXE=/usr/sbin/slurmrestd rs_start "slurmrestd(local)" "$S/run/slurmrestd-local.rspid" "$S/log/slurmrestd-local.out" \
    env SLURMRESTD_SECURITY=disable_user_check SLURM_CONF="$CONF" \
    slurmrestd -a rest_auth/local -s openapi/v0.0.38,openapi/dbv0.0.38 "unix:$RESTD_SOCK"
  restd_jwt_ok() {
    local tok; tok="$(scontrol token username=root lifespan=60 | sed 's/^SLURM_JWT=//')"
    curl -sf -o /dev/null -H "X-SLURM-USER-NAME: root" -H "X-SLURM-USER-TOKEN: $tok" \
      "http://127.0.0.1:$RESTD_PORT/slurm/v0.0.38/ping"
  }
  restd_local_ok() { curl -sf -o /dev/null --unix-socket "$RESTD_SOCK" http://localhost/slurm/v0.0.38/ping; }
  rs_wait 30 "slurmrestd(jwt)" restd_jwt_ok || { tail -n 20 "$S/log/slurmrestd-jwt.out" >&2 || true; rs_die "slurmrestd(jwt) did not come up"; }
  rs_wait 30 "slurmrestd(local)" restd_local_ok || { tail -n 20 "$S/log/slurmrestd-local.out" >&2 || true; rs_die "slurmrestd(local) did not come up"; }
  echo "export REALSTACK_SLURMRESTD_SOCKET=\"$RESTD_SOCK\"" >> "$S/env.sh"
fi

T1=$(rs_now_ms)
rs_log "slurm cluster '$CLUSTER' up: nodes $(IFS=,; echo "${NODE_LIST[*]}")"
sinfo -N -o '%N %P %T %c %G' >&2
echo "SLURM_CONF=$CONF"
printf 'install_s=%s startup_s=%s total_s=%s\n' \
  "$(awk "BEGIN{printf \"%.1f\", ($TI1-$TI0)/1000}")" \
  "$(awk "BEGIN{printf \"%.1f\", ($T1-$TS0)/1000}")" \
  "$(awk "BEGIN{printf \"%.1f\", ($T1-$T0)/1000}")"
