#!/usr/bin/env bash
# Deterministic generator of realistic job directories for scale tests and benchmarks.
#   generate.sh --scenario NAME --tier S|M|L [--seed N] [--lines N] --out DIR
# Tiers: S = 8 nodes x 8 ranks (~100 MB), M = 128 x 8 (~2 GB), L = 1000 x 8 (~16 GB).
# --lines sets the lines per rank log (the tier's own by default): more bytes, the same findings.
# Scenarios: xid79, ib-flap, ecc, app-exception, host-oom, hang, noise.
# Writes DIR/workload.toml, DIR/attribution.toml, DIR/truth.toml and DIR/logs/<node>/{rank-R.log,kern.log},
# in the real line formats of NCCL 2.21 (no WARN timestamps), PyTorch c10d, torchrun and the kernel.
set -euo pipefail
SCENARIO=""; TIER=S; SEED=1; OUT=""; LINES_ARG=""
while [ $# -gt 0 ]; do
  case "$1" in
    --scenario) SCENARIO="$2"; shift 2;;
    --tier) TIER="$2"; shift 2;;
    --seed) SEED="$2"; shift 2;;
    --out) OUT="$2"; shift 2;;
    --lines) LINES_ARG="$2"; shift 2;;
    -h|--help) sed -n '2,8p' "$0"; exit 0;;
    *) echo "unknown option $1" >&2; exit 2;;
  esac
done
[ -n "$SCENARIO" ] && [ -n "$OUT" ] || { echo "usage: generate.sh --scenario NAME --tier S|M|L --out DIR" >&2; exit 2; }
case "$TIER" in
  S) NODES=8; LINES=16000;;
  M) NODES=128; LINES=20000;;
  L) NODES=1000; LINES=20000;;
  *) echo "tier is S, M or L" >&2; exit 2;;
esac
if [ -n "$LINES_ARG" ]; then
  [[ "$LINES_ARG" =~ ^[0-9]+$ ]] && [ "$LINES_ARG" -ge 1000 ] || { echo "--lines is a whole number, at least 1000" >&2; exit 2; }
  LINES=$LINES_ARG
fi
case "$SCENARIO" in xid79|ib-flap|ecc|app-exception|host-oom|hang|noise) ;; *) echo "unknown scenario $SCENARIO" >&2; exit 2;; esac
rm -rf "$OUT"; mkdir -p "$OUT/logs"
# The faulty node and rank follow from the seed, so a run is reproducible and not always node 1.
BAD=$(( (SEED * 7919) % NODES + 1 )); BADGPU=$(( (SEED * 31) % 8 ))
printf 'id = "%s"\nname = "gen-%s-%s"\nnodes = "node[0001-%04d]"\nstart = "2025-03-14T08:00:00Z"\nend = "2025-03-14T10:20:00Z"\nstate = "FAILED"\nexit_code = 1\n' \
  "$((9000 + SEED))" "$SCENARIO" "$TIER" "$NODES" > "$OUT/workload.toml"
cat > "$OUT/attribution.toml" <<'TOML'
[workload]
scheduler = "static"
static = "workload.toml"

[[source]]
name = "rank-logs"
kind = "files"
paths = ["logs/{host}/rank-*.log"]
stream = "applog"

[[source]]
name = "kernel"
kind = "files"
paths = ["logs/{host}/kern.log"]
stream = "syslog"
TOML
BUS=(18 2a 3a 5d 9a b9 ba db)
host=$(printf 'node%04d' "$BAD")
case "$SCENARIO" in
  xid79) printf 'family = "accelerator-gpu"\nblame = "infrastructure"\nroot_host = "%s"\nroot_gpu_pci = "0000:%s:00.0"\n' "$host" "${BUS[$BADGPU]}";;
  ib-flap) printf 'family = "network-fabric"\nblame = "infrastructure"\nroot_host = "%s"\n' "$host";;
  ecc) printf 'family = "accelerator-memory"\nblame = "infrastructure"\nroot_host = "%s"\nroot_gpu_pci = "0000:%s:00.0"\n' "$host" "${BUS[$BADGPU]}";;
  app-exception) printf 'family = "application"\nblame = "application"\nroot_host = "%s"\n' "$host";;
  host-oom) printf 'family = "host-oom"\nblame = "application"\nroot_host = "%s"\n' "$host";;
  # One rank behind in sequence numbers, nothing but timeouts anywhere: read as the application's, as
  # "waited without fault" reads such a job (docs/hangs.md, hang minority).
  hang) printf 'family = "application"\nblame = "application"\nroot_host = "%s"\n' "$host";;
  noise) printf 'family = "application"\nblame = "application"\nroot_host = "%s"\n' "$host";;
esac > "$OUT/truth.toml"

for n in $(seq 1 "$NODES"); do
  mkdir -p "$OUT/logs/$(printf 'node%04d' "$n")"
done
awk -v nodes="$NODES" -v lines="$LINES" -v seed="$SEED" -v scen="$SCENARIO" -v bad="$BAD" -v badgpu="$BADGPU" -v out="$OUT/logs" '
function hms(t,   h, m, s) { h = int(t / 3600); m = int((t % 3600) / 60); s = t % 60; return sprintf("%02d:%02d:%02d", h, m, s) }
function node(n) { return sprintf("node%04d", n) }
BEGIN {
  srand(seed)
  split("18 2a 3a 5d 9a b9 ba db", bus, " ")
  t0 = 8 * 3600 + 5 * 60          # 08:05:00 training starts
  tf = 9 * 3600 + 41 * 60 + 7     # 09:41:07 the fault
  nranks = nodes * 8
  for (n = 1; n <= nodes; n++) {
    h = node(n); ip = sprintf("10.%d.%d.%d", int(n / 65536) % 256 + 1, int(n / 256) % 256, n % 256)
    badip = sprintf("10.%d.%d.%d", int(bad / 65536) % 256 + 1, int(bad / 256) % 256, bad % 256)
    kern = out "/" h "/kern.log"
    printf "Mar 14 07:58:00 %s kernel: [    0.000000] Linux version 5.15.0-119-generic (buildd@lcy02-amd64-051)\n", h > kern
    printf "Mar 14 07:58:11 %s kernel: [   11.701177] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15\n", h > kern
    for (m = 0; m < 20; m++) printf "Mar 14 %s %s systemd[1]: sysstat-collect.service: Deactivated successfully.\n", hms(t0 + m * 300), h > kern
    if (n == bad) {
      mono = tf - 7 * 3600
      p = bus[badgpu + 1]
      if (scen == "xid79") {
        printf "Mar 14 %s %s kernel: [%d.418204] NVRM: Xid (PCI:0000:%s:00): 79, pid=<unknown>, name=<unknown>, GPU has fallen off the bus.\n", hms(tf), h, mono, p > kern
        printf "Mar 14 %s %s kernel: [%d.418245] NVRM: GPU 0000:%s:00.0: GPU has fallen off the bus.\n", hms(tf), h, mono, p > kern
        for (k = 0; k < 5; k++) printf "Mar 14 %s %s kernel: [%d.5%05d] NVRM: Xid (PCI:0000:%s:00): 45, pid=41%03d, name=python3, Ch %08x caused by previous Xid 79\n", hms(tf + 1), h, mono + 1, k, p, k, k > kern
      } else if (scen == "ecc") {
        printf "Mar 14 %s %s kernel: [%d.509105] NVRM: Xid (PCI:0000:%s:00): 48, pid=<unknown>, name=<unknown>, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at physAddr 0x18f31d80 partition 16, subpartition 3.\n", hms(tf), h, mono, p > kern
        printf "Mar 14 %s %s kernel: [%d.532443] NVRM: Xid (PCI:0000:%s:00): 63, pid=<unknown>, name=<unknown>, Row Remapper: New row (0x0000000018f31d80) marked for remapping, reset gpu to activate.\n", hms(tf), h, mono, p > kern
        printf "Mar 14 %s %s kernel: [%d.533994] NVRM: Xid (PCI:0000:%s:00): 94, pid=<unknown>, name=<unknown>, Contained: SM (0x1). RST: No, D-RST: No\n", hms(tf), h, mono, p > kern
      } else if (scen == "ib-flap") {
        printf "Mar 14 %s %s kernel: [%d.100000] mlx5_core 0000:41:00.0 ib0: Link down\n", hms(tf), h, mono > kern
        printf "Mar 14 %s %s kernel: [%d.900000] mlx5_core 0000:41:00.0 ib0: Link up\n", hms(tf + 40), h, mono + 40 > kern
      } else if (scen == "host-oom") {
        printf "Mar 14 %s %s kernel: [%d.314404] python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0\n", hms(tf), h, mono > kern
        printf "Mar 14 %s %s kernel: [%d.314408] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/slurm/uid_1000/job_9001,task=python3,pid=23793,uid=1000\n", hms(tf), h, mono > kern
        printf "Mar 14 %s %s kernel: [%d.314412] Out of memory: Killed process 23793 (python3) total-vm:612345612kB, anon-rss:520123456kB, file-rss:1268kB, shmem-rss:0kB, UID:1000 pgtables:1020304kB oom_score_adj:0\n", hms(tf), h, mono > kern
      }
    }
    if (scen == "noise" && n == (bad % nodes) + 1)
      printf "Mar 14 %s %s kernel: [%d.532443] NVRM: Xid (PCI:0000:5d:00): 63, pid=<unknown>, name=<unknown>, Row Remapper: New row (0x0000000018f31d80) marked for remapping, reset gpu to activate.\n", hms(tf - 1800), h, tf - 1800 - 7 * 3600 > kern
    close(kern)
    for (g = 0; g < 8; g++) {
      r = (n - 1) * 8 + g; pid = 100000 + r; f = out "/" h "/rank-" r ".log"
      printf "%s:%d:%d [%d] NCCL INFO Bootstrap : Using ib0:%s<0>\n", h, pid, pid, g, ip > f
      printf "%s:%d:%d [%d] NCCL INFO NET/IB : Using [0]mlx5_%d:1/IB ; OOB ib0:%s<0>\n", h, pid, pid + 7, g, g, ip > f
      printf "%s:%d:%d [%d] NCCL INFO comm 0x55d0%04x rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId 0x9f3e1c2b - Init COMPLETE\n", h, pid, pid + 7, g, r % 65536, r, nranks, g, g, bus[g + 1] > f
      dead = (scen == "app-exception" || scen == "noise" || scen == "host-oom") && n == bad && g == badgpu
      for (i = 0; i < lines; i++) {
        t = t0 + int(i * (tf - t0) / lines)
        if (i % 50 == 0) printf "[2025-03-14 %s] iteration %6d/ 500000 | consumed samples: %10d | elapsed time per iteration (ms): %.1f | learning rate: 1.499E-04 | global batch size:  1024 | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f |\n", hms(t), i, i * 1024, 1800 + rand() * 50, 2 + rand(), 0.5 + rand() > f
        else if (i % 7 == 0) printf "%s:%d:%d [%d] NCCL INFO Channel %02d/32 : %d[%d] -> %d[%d] via P2P/IPC/read\n", h, pid, pid + 7, g, i % 32, r, g, (r + 1) % nranks, (g + 1) % 8 > f
        else printf "[rank%d]: step %d data loader: fetched %d samples in %.3f s, tokens/s %.1f, mem %.2f GiB\n", r, i, 128, rand() * 0.01, 38000 + rand() * 900, 60 + rand() * 2 > f
      }
      if (scen == "noise") printf "\n%s:%d:%d [%d] transport/net_ib.cc:127 NCCL WARN NET/IB : mlx5_%d:1 Got async event : SM change\n", h, pid, pid + 9, g, g > f
      if (dead && scen == "host-oom") { close(f); continue }
      if (dead) {
        printf "[rank%d]: Traceback (most recent call last):\n[rank%d]:   File \"/workspace/train.py\", line 412, in <module>\n[rank%d]:     loss = model(batch)\n", r, r, r > f
        printf "[rank%d]: ValueError: Expected input batch_size (256) to match target batch_size (255).\n", r > f
        close(f); continue
      }
      if (scen == "xid79" && n == bad && g == badgpu) {
        printf "[rank%d]: RuntimeError: CUDA error: unknown error\n", r > f
        close(f); continue
      }
      if (scen == "ecc" && n == bad && g == badgpu) {
        printf "[rank%d]: RuntimeError: CUDA error: uncorrectable ECC error encountered\n", r > f
        close(f); continue
      }
      if (scen == "xid79" || scen == "ib-flap" || scen == "host-oom")
        printf "\n%s:%d:%d [%d] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv)\n", h, pid, pid + 9, g, badip, 40000 + r % 20000 > f
      seq = 1104385; if (scen == "hang" && n == bad && g == badgpu) seq = 1104384
      tw = tf + 600
      printf "[rank%d]:[E314 %s.%09d ProcessGroupNCCL.cpp:629] [Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=ALLREDUCE, NumelIn=262144, NumelOut=262144, Timeout(ms)=600000) ran for 600081 milliseconds before timing out.\n", r, hms(tw), r, r, seq > f
      printf "[rank%d]:[E314 %s.%09d ProcessGroupNCCL.cpp:681] [Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.\n", r, hms(tw), r + 1, r > f
      close(f)
    }
  }
}'
echo "generated $SCENARIO tier $TIER seed $SEED in $OUT ($(du -sh "$OUT" | cut -f1))" >&2
