#!/usr/bin/env bash
# Deterministic generator of realistic job directories for scale tests and benchmarks.
#   generate.sh --scenario NAME --tier S|M|L|R [--mix plain|real] [--seed N] [--lines N] --out DIR
# Tiers: S = 8 nodes x 8 ranks (~100 MB), M = 128 x 8 (~2 GB), L = 1000 x 8 (~16 GB),
# R = 64 x 8 (~1 GB) in the real mix.
# --mix real fills the logs with the benign lines real jobs print, many of them near twins of fault
# lines: Megatron/NeMo iteration lines ("number of nan iterations: 0"), NCCL INFO INIT/NET/COLL
# lines, DeepSpeed loss-scale and step lines, HF Trainer and Lightning progress, nvidia-smi -q
# sections (ECC counters, remapped rows) and DCGM dmon rows; the fault lines stay rare, as in life.
# --lines sets the lines per rank log (the tier's own by default): more bytes, the same findings.
# Scenarios: xid79, ib-flap, ecc, app-exception, host-oom, hang, noise.
# Writes DIR/workload.toml, DIR/attribution.toml, DIR/truth.toml and DIR/logs/<node>/{rank-R.log,kern.log},
# in the real line formats of NCCL 2.21 (no WARN timestamps), PyTorch c10d, torchrun and the kernel.
set -euo pipefail
SCENARIO=""; TIER=S; SEED=1; OUT=""; LINES_ARG=""; MIX=""
while [ $# -gt 0 ]; do
  case "$1" in
    --scenario) SCENARIO="$2"; shift 2;;
    --tier) TIER="$2"; shift 2;;
    --seed) SEED="$2"; shift 2;;
    --out) OUT="$2"; shift 2;;
    --lines) LINES_ARG="$2"; shift 2;;
    --mix) MIX="$2"; shift 2;;
    -h|--help) sed -n '2,14p' "$0"; exit 0;;
    *) echo "unknown option $1" >&2; exit 2;;
  esac
done
[ -n "$SCENARIO" ] && [ -n "$OUT" ] || { echo "usage: generate.sh --scenario NAME --tier S|M|L --out DIR" >&2; exit 2; }
case "$TIER" in
  S) NODES=8; LINES=16000;;
  M) NODES=128; LINES=20000;;
  L) NODES=1000; LINES=20000;;
  R) NODES=64; LINES=14200; MIX=${MIX:-real};;
  *) echo "tier is S, M, L or R" >&2; exit 2;;
esac
MIX=${MIX:-plain}
case "$MIX" in plain|real) ;; *) echo "--mix is plain or real" >&2; exit 2;; esac
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
awk -v nodes="$NODES" -v lines="$LINES" -v seed="$SEED" -v scen="$SCENARIO" -v bad="$BAD" -v badgpu="$BADGPU" -v mix="$MIX" -v out="$OUT/logs" '
function hms(t,   h, m, s) { h = int(t / 3600); m = int((t % 3600) / 60); s = t % 60; return sprintf("%02d:%02d:%02d", h, m, s) }
function bar(p,   k, s) { s = ""; for (k = 0; k < 10; k++) s = s (k < int(p / 10) ? "\342\226\210" : " "); return s }
# One benign line of the real mix, as the frameworks and NCCL print them (node n uses framework n % 4).
# The kind of line follows from its index alone, so every rank issues the same collectives in step
# (opCount counts them); a hung rank stops issuing them a little before the others.
function real_line(f, h, pid, g, r, i, t, n, stuck,   p, fw, op, ops) {
  p = (i * 0.6180339887) % 1; fw = n % 4
  if (p < 0.40) {
    if (stuck) return
    split("AllReduce AllGather ReduceScatter Broadcast", ops, " "); op = ops[1 + i % 4]; opcount++
    printf "%s:%d:%d [%d] NCCL INFO %s: opCount %x sendbuff 0x7f3c%08x recvbuff 0x7f3c%08x count %d datatype 7 op 0 root 0 comm 0x55d0a1b2c3d0 [nranks=%d] stream 0x55d0a1b2c000\n", h, pid, pid, g, op, opcount, i * 4096, i * 4096 + 65536, 262144, nodes * 8 > f
  } else if (p < 0.52) {
    if (fw == 0 && i % 2) printf " [%s] iteration %8d/  500000 | consumed samples: %12d | elapsed time per iteration (ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: 1.499E-04 | global batch size:  1024 | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |\n", "2025-03-14 " hms(t), i, i * 1024, 1800 + rand() * 50, 400 + rand() * 9, 2 + rand(), 0.5 + rand() > f
    else if (fw == 0) printf "Epoch 0: :  %2d%%|%s| %d/500000 [%s<120:00:00, reduced_train_loss=%.3f, global_step=%d.0, consumed_samples=%d.0, train_step_timing in s=%.2f]\n", i % 100, bar(i % 100), i, hms(t - 29100), 2 + rand(), i, i * 1024, 1 + rand() * 0.1 > f
    else if (fw == 1 && i < lines / 100) printf "[2025-03-14 %s,%03d] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank %d Skipping step. Attempted loss scale: %d, reducing to %d\n", hms(t), i % 1000, r, 2 ^ (32 - i % 16), 2 ^ (31 - i % 16) > f
    else if (fw == 1 && i % 2) printf "[2025-03-14 %s,%03d] [INFO] [logging.py:96:log_dist] [Rank %d] step=%d, skipped=%d, lr=[0.000149], mom=[(0.9, 0.95)]\n", hms(t), i % 1000, r, i, 7 > f
    else if (fw == 1) printf "[2025-03-14 %s,%03d] [INFO] [timer.py:260:stop] epoch=0/micro_step=%d/global_step=%d, RunningAvgSamplesPerSec=%.2f, CurrSamplesPerSec=%.2f, MemAllocated=10.2GB, MaxMemAllocated=20.13GB\n", hms(t), i % 1000, 2 * i, i, 45 + rand(), 45 + rand() > f
    else if (fw == 2 && i % 2) printf "{\047loss\047: %.4f, \047grad_norm\047: %.4f, \047learning_rate\047: 1.9e-05, \047epoch\047: %.2f}\n", 2 + rand(), 0.5 + rand(), i / lines > f
    else if (fw == 2) printf " %2d%%|%s| %d/%d [%s<%s,  1.01s/it]\n", int(100 * i / lines), bar(int(100 * i / lines)), i, lines, hms(t - 29100), hms(lines - i) > f
    else printf "Epoch %d:  %2d%%|%s| %d/1000 [05:12<06:21,  1.44it/s, v_num=0, train_loss=%.3f]\n", int(i / 1000), int(i % 1000 / 10), bar(int(i % 1000 / 10)), i % 1000, 2 + rand() > f
  } else if (p < 0.60) {
    op = int(rand() * 8)
    if (op == 0) printf "%s:%d:%d [%d] NCCL INFO Channel %02d/32 :    0   1   2   3   4   5   6   7\n", h, pid, pid, g, i % 32 > f
    else if (op == 1) printf "%s:%d:%d [%d] NCCL INFO Trees [0] %d/-1/-1->%d->%d [1] %d/-1/-1->%d->%d\n", h, pid, pid, g, r + 1, r, r - 1, r + 1, r, r - 1 > f
    else if (op == 2) printf "%s:%d:%d [%d] NCCL INFO Channel %02d/0 : %d[%d] -> %d[%d] [send] via NET/IB/%d/GDRDMA\n", h, pid, pid + 7, g, i % 32, r, g, r + 8, g, g > f
    else if (op == 3) printf "%s:%d:%d [%d] NCCL INFO Connected all rings\n", h, pid, pid, g > f
    else if (op == 4) printf "%s:%d:%d [%d] NCCL INFO Using network IB\n", h, pid, pid, g > f
    else if (op == 5) printf "%s:%d:%d [%d] NCCL INFO comm 0x55d0%04x rank %d nRanks %d nNodes %d localRanks 8 localRank %d MNNVL 0\n", h, pid, pid, g, i % 65536, r, nodes * 8, nodes, g > f
    else if (op == 6) printf "%s:%d:%d [%d] NCCL INFO ncclCommInitRank comm 0x55d0%04x rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId 0x9f3e%04x - Init START\n", h, pid, pid, g, i % 65536, r, nodes * 8, g, g, bus[g + 1], i % 65536 > f
    else printf "%s:%d:%d [%d] NCCL INFO cudaDriverVersion 12040\n", h, pid, pid, g > f
  } else {
    printf "[rank%d]: step %d data loader: fetched %d samples in %.3f s, tokens/s %.1f, mem %.2f GiB\n", r, i, 128, rand() * 0.01, 38000 + rand() * 900, 60 + rand() * 2 > f
  }
  # Local rank 0 of each node prints what the job script asked for: a DCGM dmon row every 50 lines and
  # an nvidia-smi -q section every 2000.
  if (g == 0 && i % 50 == 25) printf "GPU %d     %.3f  %.3f  %.3f  %.3f  %d  %d\n", int(rand() * 8), 0.9 + rand() / 20, 0.4 + rand() / 20, 0.5, 0.3, 620, 1410 > f
  if (g == 0 && i % 2000 == 1000) {
    printf "==============NVSMI LOG==============\n\nTimestamp                                 : Fri Mar 14 %s 2025\nDriver Version                            : 550.54.15\nCUDA Version                              : 12.4\n\nAttached GPUs                             : 8\nGPU 00000000:%s:00.0\n", hms(t), bus[1 + int(rand() * 8)] > f
    printf "    ECC Mode\n        Current                           : Enabled\n        Pending                           : Enabled\n    ECC Errors\n        Volatile\n            SRAM Correctable              : 0\n            SRAM Uncorrectable Parity     : 0\n            SRAM Uncorrectable SEC-DED    : 0\n            DRAM Correctable              : 0\n            DRAM Uncorrectable            : 0\n        Aggregate\n            SRAM Correctable              : 0\n            SRAM Uncorrectable Parity     : 0\n            DRAM Correctable              : 0\n            DRAM Uncorrectable            : 0\n" > f
    printf "    Retired Pages\n        Single Bit ECC                    : N/A\n        Double Bit ECC                    : N/A\n        Pending Page Blacklist            : N/A\n    Remapped Rows\n        Correctable Error                 : 0\n        Uncorrectable Error               : 0\n        Pending                           : No\n        Remapping Failure Occurred        : No\n        Bank Remap Availability Histogram\n            Max                           : 640 bank(s)\n            High                          : 0 bank(s)\n            Partial                       : 0 bank(s)\n            Low                           : 0 bank(s)\n            None                          : 0 bank(s)\n" > f
  }
}
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
      opcount = 0
      for (i = 0; i < lines; i++) {
        t = t0 + int(i * (tf - t0) / lines)
        if (mix == "real") real_line(f, h, pid, g, r, i, t, n, scen == "hang" && n == bad && g == badgpu && i > lines * 0.99)
        else if (i % 50 == 0) printf "[2025-03-14 %s] iteration %6d/ 500000 | consumed samples: %10d | elapsed time per iteration (ms): %.1f | learning rate: 1.499E-04 | global batch size:  1024 | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f |\n", hms(t), i, i * 1024, 1800 + rand() * 50, 2 + rand(), 0.5 + rand() > f
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
echo "generated $SCENARIO tier $TIER ($MIX mix) seed $SEED in $OUT ($(du -sh "$OUT" | cut -f1))" >&2
