#pragma once
// A small ruleset for pipeline tests, independent of the built-in catalogue.
#include <algorithm>

#include "core/rules/rules.hpp"

namespace attribution::test {

inline const char* kTestRules = R"__(
[[rule]]
id = "t.xid79"
title = "GPU fell off the bus"
literals = ["NVRM: Xid"]
pattern = 'NVRM: Xid \((?:PCI:)?(?P<pci>[0-9a-fA-F:]+)[^)]*\): (?P<xid>79),'
role = "cause"
category = "gpu_fallen_off_bus"
family = "accelerator-gpu"
blame = "infrastructure"
priority = 90
explains = ["role:symptom", { what = "t.xid45", scope = "gpu", within = "5m" }, { what = "t.cuda-*", scope = "host" }]
match = [{ line = "NVRM: Xid (PCI:0000:91:00): 79, pid='<unknown>', GPU has fallen off the bus." }]

[[rule]]
id = "t.xid45"
title = "Preemptive cleanup"
literals = ["NVRM: Xid"]
pattern = 'NVRM: Xid \((?:PCI:)?(?P<pci>[0-9a-fA-F:]+)[^)]*\): 45,'
role = "symptom"
burst = "10s"
match = [{ line = "NVRM: Xid (PCI:0000:91:00): 45, pid=1, name=python3, Ch 00000001" }]

[[rule]]
id = "t.xid13"
title = "Graphics engine exception"
literals = ["NVRM: Xid"]
pattern = 'NVRM: Xid \((?:PCI:)?(?P<pci>[0-9a-fA-F:]+)[^)]*\): (?P<xid>13), pid=(?P<pid>\d+)'
role = "cause"
category = "gpu_graphics_exception"
family = "application"
blame = "application"
priority = 60
explains = ["role:symptom"]
repeated = { processes = 2, category = "gpu_graphics_exception_repeated", family = "accelerator-gpu", blame = "infrastructure", confidence = "low" }
match = [{ line = "NVRM: Xid (PCI:0000:cb:00): 13, pid=1797828, name=pt_main_thread, Graphics Exception" }]

[[rule]]
id = "t.cuda-illegal"
title = "Illegal memory access"
literals = ["illegal memory access"]
pattern = 'CUDA error: an illegal memory access was encountered'
role = "cause"
category = "illegal_memory_access"
family = "application"
blame = "application"
priority = 60
explains = ["role:symptom"]
match = [{ line = "RuntimeError: CUDA error: an illegal memory access was encountered" }]

[[rule]]
id = "t.nccl-peer"
title = "Connection closed by peer"
literals = ["Connection closed by remote peer"]
pattern = 'Connection closed by remote peer (?P<peer>\S+)'
role = "symptom"
match = [{ line = "socketProgress: Connection closed by remote peer node4<45074>" }]

[[rule]]
id = "t.watchdog"
title = "Watchdog timeout"
literals = ["Watchdog caught collective operation timeout"]
pattern = 'Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=(?P<seq>\d+)'
role = "symptom"
match = [{ line = "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=BROADCAST)" }]

[[rule]]
id = "t.init"
title = "NCCL init"
literals = ["Init COMPLETE"]
pattern = 'comm 0x[0-9a-f]+ rank (?P<rank>\d+) nranks \d+ cudaDev (?P<gpu>\d+) (?:nvmlDev \d+ )?busId (?P<busid>[0-9a-f]+)'
role = "context"
category = "nccl_init_complete"
match = [{ line = "h:1:2 [3] NCCL INFO comm 0x5 rank 11 nranks 16 cudaDev 3 nvmlDev 3 busId 5d000 commId 0x1 - Init COMPLETE" }]

[[rule]]
id = "t.oob"
title = "NCCL OOB address"
literals = ["OOB "]
pattern = 'OOB [a-z0-9]+:(?P<ip>[0-9.]+)<'
role = "context"
match = [{ line = "NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.13<0>" }]

[[rule]]
id = "t.first-failure"
title = "torchrun first failure"
literals = ["Root Cause (first observed failure)"]
lines = 6
pattern = 'Root Cause \(first observed failure\):\n\[\d+\]:\n\s+time\s+: (?P<time>\S+)\n\s+host\s+: (?P<host>\S+)\n\s+rank\s+: (?P<rank>\d+).*\n\s+exitcode\s+: (?P<exit_code>-?\d+)'
role = "context"
category = "first_failure"
match = [{ line = "Root Cause (first observed failure):\n[0]:\n  time      : 2026-06-08_19:04:45\n  host      : c561-007.x.edu\n  rank      : 0 (local_rank: 0)\n  exitcode  : 1 (pid: 102930)" }]

[[rule]]
id = "t.traceback"
title = "A Python traceback begins"
literals = ["Traceback (most recent call last):"]
pattern = 'Traceback \(most recent call last\):'
role = "context"
category = "python_traceback"
match = [{ line = "[rank1]: Traceback (most recent call last):" }]

[[rule]]
id = "t.child-ended"
title = "A launcher reported that a child ended"
literals = ["ChildFailedError"]
pattern = 'errors\.ChildFailedError:'
role = "context"
category = "child_ended"
match = [{ line = "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:" }]

[[rule]]
id = "t.check-failed"
title = "A glog fatal check and the stack trace header after it (the stamp is part of the pattern)"
literals = ["] Check failed: "]
lines = 2
pattern = 'F\d{4} \d\d:\d\d:[\d.]+\s+\d+ (?P<src>\S+\.cc):\d+\] Check failed: (?P<check>[^\n]*?)\s*\n\*\*\* Check failure stack trace: \*\*\*'
role = "context"
match = [{ line = "F0105 23:50:34.026692   34204 thunk.cc:175] Check failed: kind.has_value()\n*** Check failure stack trace: ***", captures = { src = "thunk.cc" } }]

[[rule]]
id = "t.progress"
title = "A rank's progress counters (a dump signal, a Flight Recorder status)"
literals = ["Last enqueued work"]
pattern = 'Last enqueued work: (?P<last_enqueued>-?\d+), last completed work: (?P<last_completed>-?\d+)'
role = "context"
match = [{ line = "Last enqueued work: 40, last completed work: 40" }]

[[rule]]
id = "t.setting"
title = "NCCL setting"
literals = [" set to "]
pattern = '(?P<setting>NCCL_[A-Z_]+) set to (?P<value>\S+)'
role = "context"
category = "nccl_setup"
match = [{ line = "NCCL_SOCKET_IFNAME set to eth0" }]

[[rule]]
id = "t.stack"
title = "A main thread's stack"
literals = ["MainThread"]
pattern = 'MainThread\n(?P<stack>(?:\s+\S[^\n]*\n?)+)'
role = "context"
lines = 4
match = [{ line = "MainThread\n    wait (threading.py:324)" }]

[[rule]]
id = "t.trace"
title = "A per-call trace"
literals = [": opCount "]
pattern = '(?P<op>[A-Z][A-Za-z]+): opCount (?P<op_count>[0-9a-f]+)'
role = "context"
tail = true
match = [{ line = "h:1:2 [0] NCCL INFO AllReduce: opCount 1e7" }]

[[rule]]
id = "t.step"
title = "Step time"
literals = ["per iteration (ms): "]
pattern = 'per iteration \(ms\): (?P<step_ms>[\d.]+)'
role = "context"
burst = "2h"
match = [{ line = "elapsed time per iteration (ms): 812.4" }]

[[rule]]
id = "t.oom-count"
title = "OOM kills counted for the step"
literals = ["oom_kill event"]
pattern = 'Detected (?P<count>\d+) oom_kill event'
role = "cause"
category = "host_oom"
family = "host-oom"
blame = "application"
priority = 65
explains = ["role:symptom", "t.task-oom"]
match = [{ line = "slurmstepd: error: Detected 1 oom_kill event in StepId=4242.0." }]

[[rule]]
id = "t.task-oom"
title = "A task out of memory"
literals = [": Out Of Memory"]
pattern = 'srun: error: (?P<host>[^:\s]+): task \d+: Out Of Memory'
role = "cause"
category = "host_oom"
family = "host-oom"
blame = "application"
priority = 60
explains = ["role:symptom"]
match = [{ line = "srun: error: node2: task 7: Out Of Memory" }]

[[rule]]
id = "t.weak-link"
title = "One RDMA completion error"
literals = ["Got completion from peer"]
pattern = 'Got completion from peer (?P<peer>\S+) with error 12'
role = "cause"
fallback = true
category = "ib_link_error"
family = "network-fabric"
blame = "infrastructure"
priority = 38
explains = ["role:symptom"]
match = [{ line = "NET/IB : Got completion from peer 10.0.0.2<4242> with error 12" }]

[[rule]]
id = "t.weak-kill"
title = "A process ended by SIGKILL"
literals = ["Signal 9 (SIGKILL)"]
pattern = 'Signal 9 \(SIGKILL\)'
role = "cause"
fallback = true
category = "process_killed"
family = "host-oom"
blame = "application"
priority = 34
explains = ["role:symptom"]
match = [{ line = "traceback : Signal 9 (SIGKILL) received by PID 4242" }]

[[rule]]
id = "t.app-exception"
title = "Python exception"
literals = ["ValueError: "]
pattern = 'ValueError: '
role = "cause"
category = "python_exception"
family = "application"
blame = "application"
priority = 50
explains = ["role:symptom"]
match = [{ line = "ValueError: Expected input batch_size (256) to match target batch_size (255)." }]

[[rule]]
id = "t.weak-remap"
title = "A GPU memory row marked for remapping"
literals = ["Row Remapper: New row"]
pattern = 'Row Remapper: New row'
role = "cause"
fallback = true
category = "gpu_row_remap_pending"
family = "accelerator-memory"
blame = "infrastructure"
priority = 40
explains = ["role:symptom"]
match = [{ line = "NVRM: Xid (PCI:0000:5d:00): 63, Row Remapper: New row marked for remapping" }]

[[rule]]
id = "t.noise"
title = "Known noise"
literals = ["ACCESS_REG(0x805)"]
pattern = 'ACCESS_REG\(0x805\)'
role = "benign"
match = [{ line = "mlx5_cmd_out_err:838:(pid 1441871): ACCESS_REG(0x805) op_mod(0x1) failed" }]

[[rule]]
id = "t.cancel"
title = "Step cancelled"
literals = ["CANCELLED AT"]
pattern = 'CANCELLED AT'
role = "cause"
category = "user_cancelled"
family = "scheduler"
blame = "unknown"
priority = 40
explains = ["role:symptom"]
match = [{ line = "*** STEP 4242.0 ON node1 CANCELLED AT 2025-03-14T09:00:00 ***" }]

[[rule]]
id = "t.task-killed"
title = "srun: a task was killed"
literals = [": Killed"]
pattern = 'task \d+: Killed'
role = "cause"
fallback = true
category = "process_killed"
family = "host-oom"
blame = "application"
priority = 34
explains = ["role:symptom", { what = "t.cancel", scope = "job", first = true }]
match = [{ line = "srun: error: node2: task 3: Killed" }]

[[rule]]
id = "t.weak-alone"
title = "A weak cause whose explains say what it accounts for alone"
literals = ["MPID_nem_ib_init"]
pattern = 'MPID_nem_ib_init'
role = "cause"
fallback = true
category = "mpi_init"
family = "network-fabric"
blame = "infrastructure"
priority = 30
explains = ["role:symptom", "t.cancel"]
match = [{ line = "MPID_nem_ib_init: cannot create cq" }]
)__";

inline RuleSet test_rules() {
  auto parsed = parse_rules(kTestRules, "test_rules.toml");
  RuleSet set;
  set.rules = std::move(parsed.value());
  std::sort(set.rules.begin(), set.rules.end(), [](const Rule& a, const Rule& b) { return a.id < b.id; });
  set.digest = "test";
  return set;
}

}  // namespace attribution::test
