#include <catch2/catch.hpp>

#include <random>

#include "tests/test_util.hpp"

#include "core/scan/line_prefix.hpp"

using namespace attribution;

namespace {
TimeContext ctx2025() { return TimeContext{TimeZone::utc(), test::utc("2025-03-14T00:00:00Z"), std::nullopt, std::nullopt, std::nullopt}; }
}  // namespace

TEST_CASE("NCCL WARN with the 2.26+ local-time stamp and host:pid:tid dev prefix") {
  auto p = parse_line_prefix(
      "[2025-11-09 07:39:30] h100-28:238:1313 [0] transport/net_ib.cc:2451 NCCL WARN NET/IB: Got completion");
  CHECK(p.host == "h100-28");
  CHECK(p.pid == 238);
  CHECK(p.gpu == 0);
  CHECK(*resolve_time(p, ctx2025()) == test::utc("2025-11-09T07:39:30Z"));
}

TEST_CASE("NCCL's host:pid:tid after a CI runner's or kubectl's ISO stamp is NCCL's, not a syslog tag") {
  auto p = parse_line_prefix("2024-05-01T12:00:01.1234567Z node23:12098:12141 [2] transport/nvls.cc:244 NCCL WARN Cuda failure 1");
  CHECK(p.host == "node23");
  CHECK(p.pid == 12098);
  CHECK(p.gpu == 2);
  // A tag with no host after the stamp still ends at its colon.
  CHECK(printed_part("2024-05-01T12:00:01Z kernel: NVRM: Xid 79", false) == "NVRM: Xid 79");
}

TEST_CASE("collector stamp with zone wins over NCCL's local stamp") {
  auto p = parse_line_prefix(
      "2025-11-09 15:39:31.043 +08:00 [2025-11-09 07:39:30] h100-28:238:1219 [0] transport/net_ib.cc:180 NCCL WARN x");
  CHECK(p.host == "h100-28");
  CHECK(*resolve_time(p, ctx2025()) == test::utc("2025-11-09T07:39:31.043Z"));
}

TEST_CASE("NCCL lines before 2.26 carry no time") {
  auto p = parse_line_prefix("kp-ddp-worker-0:3468:3905 [4] NCCL INFO transport/net.cc:1302 -> 6");
  CHECK(p.host == "kp-ddp-worker-0");
  CHECK(p.gpu == 4);
  CHECK_FALSE(resolve_time(p, ctx2025()));
}

TEST_CASE("PyTorch rank prefix and glog time without year") {
  auto p = parse_line_prefix(
      "[rank0]:[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] [Rank 0] Watchdog caught collective operation timeout");
  CHECK(p.rank == 0);
  TimeContext c{TimeZone::utc(), test::utc("2024-12-20T00:00:00Z"), std::nullopt, std::nullopt, std::nullopt};
  CHECK(*resolve_time(p, c) == test::utc("2024-12-18T20:27:21.426415Z"));
  auto no_time = parse_line_prefix("[rank1]:[E ProcessGroupNCCL.cpp:577] [Rank 1] Some NCCL operations have failed");
  CHECK(no_time.rank == 1);
  CHECK_FALSE(resolve_time(no_time, c));
}

TEST_CASE("c10 logger months are not zero-padded") {
  auto p = parse_line_prefix("[rank5]:[W509 02:29:39.508328002 ProcessGroupNCCL.cpp:1771] [PG ID 0 PG GUID 0 Rank 5] x");
  TimeContext c{TimeZone::utc(), test::utc("2025-05-01T00:00:00Z"), std::nullopt, std::nullopt, std::nullopt};
  CHECK(*resolve_time(p, c) == test::utc("2025-05-09T02:29:39.508328Z"));
  auto q = parse_line_prefix("[W522 11:47:46.952883182 TCPStore.cpp:106] [c10d] sendBytes failed");
  CHECK(*resolve_time(q, c) == test::utc("2025-05-22T11:47:46.952883Z"));
}

TEST_CASE("Ray and srun label prefixes") {
  auto p = parse_line_prefix("(WorkerDict pid=26110) [rank7]:[W1120 01:13:20.892421310 ProcessGroupNCCL.cpp:1662] x");
  CHECK(p.rank == 7);
  auto s = parse_line_prefix("12: node05:1234:1240 [3] NCCL INFO comm 0x1 rank 12");
  CHECK(s.task == 12);  // a task id, not a rank: the job's layout decides (scan)
  CHECK(s.rank == -1);
  CHECK(s.host == "node05");
  CHECK(s.gpu == 3);
  auto d = parse_line_prefix("[default3]:Traceback (most recent call last):");
  CHECK(d.local_rank == 3);
}

TEST_CASE("torchrun elastic agent glog line") {
  auto p = parse_line_prefix(
      "E0813 08:21:22.980000 1245483 torch/distributed/elastic/multiprocessing/api.py:984] failed (exitcode: -6)");
  TimeContext c{TimeZone::utc(), test::utc("2025-08-01T00:00:00Z"), std::nullopt, std::nullopt, std::nullopt};
  CHECK(*resolve_time(p, c) == test::utc("2025-08-13T08:21:22.98Z"));
}

TEST_CASE("syslog with and without hostname / with dmesg monotonic inside") {
  auto p = parse_line_prefix(
      "Dec  2 10:43:35 worker4 kernel: [240314.528856] NVRM: Xid (PCI:0000:07:00): 48, pid='<unknown>'");
  CHECK(p.host == "worker4");
  REQUIRE(p.mono);
  CHECK(*p.mono == 240314528856);
  TimeContext c{TimeZone::utc(), test::utc("2024-11-30T00:00:00Z"), std::nullopt, std::nullopt, std::nullopt};
  CHECK(*resolve_time(p, c) == test::utc("2024-12-02T10:43:35Z"));
  auto q = parse_line_prefix("May 18 19:02:39 kernel: NVRM: GPU at PCI:0000:2b:00: GPU-0b11d014");
  CHECK(q.host.empty());
  CHECK(q.civil);
  auto r = parse_line_prefix("Mar 14 09:41:07 node03 slurmd[2211]: error: something");
  CHECK(r.host == "node03");
}

TEST_CASE("journal short-iso names the host / log levels are not hosts") {
  auto p = parse_line_prefix("2026-09-14T20:30:27-0400 Farttop kernel: NVRM: Xid (PCI:0000:01:00): 79, pid=0");
  CHECK(p.host == "Farttop");
  CHECK(*resolve_time(p, ctx2025()) == test::utc("2026-09-15T00:30:27Z"));
  auto q = parse_line_prefix("2025-03-14 09:00:01 INFO trainer: step 10");
  CHECK(q.host.empty());
}

TEST_CASE("dmesg raw needs a boot time / dmesg -T has its own") {
  auto p = parse_line_prefix("[430954.509105] NVRM: Xid (PCI:0000:52:00): 48, pid='<unknown>'");
  REQUIRE(p.mono);
  CHECK_FALSE(resolve_time(p, ctx2025()));
  TimeContext c = ctx2025();
  c.boot = test::utc("2025-03-10T00:00:00Z");
  CHECK(*resolve_time(p, c) == c.boot.value() + 430954509105);
  auto t = parse_line_prefix("[Sun Feb 23 16:24:18 2025] NVRM: Xid (PCI:0000:9b:00): 119, pid=2024380");
  CHECK(*resolve_time(t, ctx2025()) == test::utc("2025-02-23T16:24:18Z"));
  CHECK(*resolve_time(parse_line_prefix("[Sun Feb  2 16:24:18 2025] x"), ctx2025()) == test::utc("2025-02-02T16:24:18Z"));
  CHECK_FALSE(parse_line_prefix("[Sun Feb 99 16:24:18 2025] x").civil);
  auto iso = parse_line_prefix("2024-01-15T03:00:00,000000+00:00 NVRM: Xid (PCI:0000:01:00): 79");
  CHECK(*resolve_time(iso, ctx2025()) == test::utc("2024-01-15T03:00:00Z"));
}

TEST_CASE("Fabric Manager stamps its lines [Mon D YYYY HH:MM:SS]") {
  // NVLink switch tray (NMX-C) fabricmanager.log, as in NVIDIA GB200 runbooks
  std::string_view line = "[Jul 19 2025 18:34:57] [WARNING] [tid 134] Trunk port failure detected for switch GUID 0xb0cf";
  auto p = parse_line_prefix(line);
  REQUIRE(p.civil);
  CHECK(*resolve_time(p, ctx2025()) == test::utc("2025-07-19T18:34:57Z"));
  CHECK(line.substr(p.message_offset).substr(0, 9) == "[WARNING]");
  CHECK(*resolve_time(parse_line_prefix("[Apr 1 2025 08:03:56] [INFO] [tid 259] x"), ctx2025()) == test::utc("2025-04-01T08:03:56Z"));
  CHECK_FALSE(parse_line_prefix("[Jul 19 2025 18:34] x").civil);
  CHECK_FALSE(parse_line_prefix("[Jul 19 20xx 18:34:57] x").civil);
  CHECK(*resolve_time(parse_line_prefix("[Jul  9 2025 18:34:57] [INFO] x"), ctx2025()) == test::utc("2025-07-09T18:34:57Z"));
  CHECK_FALSE(parse_line_prefix("[Jul 0 2025 18:34:57] x").civil);
  CHECK_FALSE(parse_line_prefix("[Jul 99 2025 18:34:57] x").civil);
}

TEST_CASE("journald JSON records give epoch micros and hostname") {
  auto p = parse_line_prefix(
      R"({"_HOSTNAME" : "pn", "_TRANSPORT" : "kernel", "MESSAGE" : "blk_update_request", "__REALTIME_TIMESTAMP" : "1601471260802301"})");
  CHECK(p.host == "pn");
  CHECK(*resolve_time(p, ctx2025()) == 1601471260802301);
}

TEST_CASE("local times use the source's zone") {
  auto p = parse_line_prefix("Mar 14 10:41:07 node03 kernel: x");
  TimeContext c{*TimeZone::parse("+01:00"), test::utc("2025-03-14T00:00:00Z"), std::nullopt, std::nullopt, std::nullopt};
  CHECK(*resolve_time(p, c) == test::utc("2025-03-14T09:41:07Z"));
}

TEST_CASE("garbage prefixes parse to nothing without crashing") {
  for (const char* s : {"", "[", "[rank", "[rank]:", "99999999999999999999: x", "Mar", "Mar 99 99:99:99 x",
                        "[12345.", "[E9999 99:99:99.1 x]", "host:1:", "{", "{\"__REALTIME_TIMESTAMP\" : \"x\"}"}) {
    auto p = parse_line_prefix(s);
    CHECK(p.message_offset <= std::string_view(s).size());
  }
}

TEST_CASE("a word longer than a DNS name is not a host") {
  // Found by the fault matrix: a 16 MiB line after a collector stamp made its first word the host,
  // so the finding was dropped as another node's.
  std::string huge = "2025-05-06T10:07:00Z " + std::string(300, 'x') + " RuntimeError: CUDA error";
  CHECK(parse_line_prefix(huge).host.empty());
  std::string nccl = std::string(300, 'h') + ":1:2 [0] NCCL WARN x";
  CHECK(parse_line_prefix(nccl).host.empty());
  CHECK(parse_line_prefix("2025-05-06T10:07:00Z gpu-node01 kernel: x").host == "gpu-node01");
}

TEST_CASE("launcher labels before an NCCL prefix: OpenMPI tags and bracketed names") {
  auto m = parse_line_prefix("[1,3]<stderr>:gpu-a-07:4411:4630 [3] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB");
  CHECK(m.rank == 3);
  CHECK(m.host == "gpu-a-07");
  CHECK(m.pid == 4411);
  auto b = parse_line_prefix("[worker-0]: node05:1234:1240 [3] NCCL WARN NET/IB : Got completion from peer");
  CHECK(b.host == "node05");
  auto piped = parse_line_prefix("[train|3]: node06:77:78 [1] NCCL WARN x");
  CHECK(piped.host == "node06");
  // torchrun's failure summary prints "[0]:" as content, not a label.
  auto summary = parse_line_prefix("[rank0]:[0]:");
  CHECK(summary.message_offset == 8);
}

TEST_CASE("a syslog header without its tag before the kernel's seconds since boot") {
  auto p = parse_line_prefix("Feb 28 04:25:23 n3 [230333.706980] rapidnj invoked oom-killer: gfp_mask=0x280da");
  CHECK(p.host == "n3");
  CHECK(p.mono.has_value());
  CHECK(std::string_view("Feb 28 04:25:23 n3 [230333.706980] rapidnj invoked").substr(p.message_offset) == "rapidnj invoked");
  // a level word or a bracket that is not a stamp: no host
  CHECK(parse_line_prefix("Feb 28 04:25:23 ERROR [main] x").host.empty());
  CHECK(parse_line_prefix("Feb 28 04:25:23 node3 [main] x").host.empty());
}

TEST_CASE("host labels (pdsh, DeepSpeed runner) and what is not one") {
  auto p = parse_line_prefix("slurm0-a3-ghpc-8: [rank17]:[E ProcessGroupNCCL.cpp:1182] [Rank 2] NCCL watchdog");
  CHECK(p.host == "slurm0-a3-ghpc-8");
  CHECK(p.rank == 17);
  auto k = parse_line_prefix("gpu-node-12: kernel: NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.");
  CHECK(k.host == "gpu-node-12");
  CHECK(parse_line_prefix("RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:825").host.empty());
  CHECK(parse_line_prefix("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ").host.empty());
  CHECK(parse_line_prefix("rank3: loss 1.2").host.empty());
  // "gpu" and a number: a GPU's index below 16 without leading zeros, else a machine's name.
  CHECK(parse_line_prefix("gpu0: temperature 71C").host.empty());
  CHECK(parse_line_prefix("gpu-3: 100% util").host.empty());
  CHECK(parse_line_prefix("gpu-049: [Tue Mar  3 10:00:01 2026] NVRM: Xid 79").host == "gpu-049");
  CHECK(parse_line_prefix("gpu17: kernel: err: [12345.678]: NVRM: Xid 79").host == "gpu17");
  CHECK(parse_line_prefix("gpu01: kernel: NVRM: Xid 79").host == "gpu01");
  // Upper case as gethostname gives it: with a digit and a hyphen, a machine; else a name of code.
  CHECK(parse_line_prefix("HGX-H100-13: kernel: NVRM: Xid 79").host == "HGX-H100-13");
  CHECK(parse_line_prefix("RuntimeError: NCCL error").host.empty());
  CHECK(parse_line_prefix("GPU-3: 100% util").host.empty());
  CHECK(parse_line_prefix("CUDA12: error").host.empty());
  CHECK(parse_line_prefix("12: node05:1234:1240 [3] NCCL INFO x").task == 12);
  CHECK(parse_line_prefix("slurmstepd-gpu20-15: error: Detected 1 oom-kill event(s) in StepId=9411285.0.").host ==
        "gpu20-15");
  // Behind a CI runner's stamp, the step daemon's node is read the same way.
  CHECK(parse_line_prefix("2024-05-01T12:00:01.1234567Z slurmstepd-gpu20-15: error: Detected 1 oom-kill event(s)").host ==
        "gpu20-15");
  // Flux prints the seconds since the job began; a number's first label names no machine.
  CHECK(parse_line_prefix("3600.412s: job.exception type=timeout severity=0 resource allocation expired").host.empty());
  CHECK(parse_line_prefix("12.5s: flux-shell[0]: stderr: x").host.empty());
  CHECK(parse_line_prefix("10.0.0.7: kernel: mlx5_core 0000:3b:00.0: link down").host == "10.0.0.7");
  // Scripts, files and programs with a digit or a hyphen in their names are not machines.
  CHECK(parse_line_prefix("general_train.py: error: unrecognized arguments: --local-rank=0").host.empty());
  CHECK(parse_line_prefix("run.sh: line 12: 4242 Killed python train.py").host.empty());
  CHECK(parse_line_prefix("python3: can't open file '/workspace/train.py'").host.empty());
  CHECK(parse_line_prefix("python3.10: error while loading shared libraries").host.empty());
  CHECK(parse_line_prefix("nvidia-smi: command not found").host.empty());
  CHECK(parse_line_prefix("mount.nfs: Connection timed out").host.empty());
  CHECK(parse_line_prefix("mount.nfs4: access denied by server while mounting 10.0.0.2:/home").host.empty());
  CHECK(parse_line_prefix("fsck.ext4: Bad magic number in super-block").host.empty());
  // An HCA driver's instance or an IB device before its message is not a machine, nor a program's name
  // before the dynamic loader's own message; a machine named like a device, or a label before a program
  // that reports the loader's error, still is.
  for (std::string_view l : {"hermon0: CQE transport retry counter exceeded", "mlx5_0: port 1 link down",
                             "mlx5: c101-011: got completion with error",
                             "bison-opt: relocation error: /opt/lib/libmpi.so.1: symbol rdma_get_src_port",
                             "train-1: error while loading shared libraries: libcudart.so.12: cannot open",
                             "gpu-node-3: symbol lookup error: ./all_reduce_perf: undefined symbol: ncclCommRegister"}) {
    INFO(l);
    CHECK(parse_line_prefix(l).host.empty());
  }
  for (auto [l, host] : {std::pair<std::string_view, std::string_view>{"mlx5-node1: kernel: mlx5_core 0000:3b:00.0: link down", "mlx5-node1"},
                         {"mlx5-01: kernel: NVRM: Xid (PCI:0000:3b:00): 79", "mlx5-01"},
                         {"gpu-node-3: all_reduce_perf: symbol lookup error: x", "gpu-node-3"}}) {
    INFO(l);
    CHECK(parse_line_prefix(l).host == host);
  }
  CHECK(parse_line_prefix("node1.cluster.local: kernel: NVRM: Xid 79").host == "node1.cluster.local");
  CHECK(parse_line_prefix("gpu-7.py-lab.org: kernel: NVRM: Xid 79").host == "gpu-7.py-lab.org");
  // kubectl logs --timestamps before a glog header: the level and date are not a host.
  auto g = parse_line_prefix("2024-08-09T13:32:51.873584285Z I0809 13:32:51.873541       1 health.go:185] Xid=94");
  CHECK(g.host.empty());
  CHECK(g.civil);
  CHECK(parse_line_prefix("2024-08-09T13:32:51Z node7 kernel: NVRM: Xid 79").host == "node7");
}

TEST_CASE("container runtime and structured records: CRI files, docker json-file, JSON log lines") {
  auto c = parse_line_prefix("2024-01-01T10:00:00.123456789Z stderr F gpu-node-91:1234:1290 [3] NCCL WARN x");
  CHECK(c.host == "gpu-node-91");
  CHECK(c.civil);
  CHECK(c.pid == 1234);
  CHECK(parse_line_prefix("2024-01-01T10:00:00.1Z stdout P [rank3]: RuntimeError: x").rank == 3);
  auto d = parse_line_prefix(R"({"log":"gpu-node-92:1234:1290 [3] NCCL WARN x\n","stream":"stderr","time":"2024-01-01T10:00:00.123456789Z"})");
  CHECK(d.host == "gpu-node-92");
  REQUIRE(d.civil);
  CHECK(d.civil->hour == 10);
  CHECK(d.gpu == 3);
  auto j = parse_line_prefix(R"({"timestamp": "2024-01-01T10:00:00Z", "level": "ERROR", "hostname": "gpu-node-93", "message": "Xid 79"})");
  CHECK(j.host == "gpu-node-93");
  CHECK(j.civil);
  // A field that is not a string, or not a machine's name, names nothing.
  CHECK(parse_line_prefix(R"({"host": 12, "message": "Xid 79"})").host.empty());
  CHECK(parse_line_prefix(R"({"host": "Some Thing", "message": "Xid 79"})").host.empty());
  // journald's own record keeps its fields.
  CHECK(parse_line_prefix(R"({"__REALTIME_TIMESTAMP":"1700000000000000","_HOSTNAME":"n1","MESSAGE":"x"})").host == "n1");
}

TEST_CASE("a paste's stand-in for a hidden machine names none") {
  for (const char* h : {"xxx", "XXXX", "xxx-xxx", "node-xx", "gpu-node-X", "hostname", "host"}) {
    auto p = parse_line_prefix(std::string(h) + ":1234:1290 [3] NCCL WARN NET/IB : Got async event : port error");
    CHECK(p.host.empty());
    CHECK(p.pid == 1234);
    CHECK(p.gpu == 3);
  }
  CHECK(parse_line_prefix("Mar  3 10:00:01 xxxx kernel: NVRM: Xid 79").host.empty());
  CHECK(parse_line_prefix("node-xx: kernel: NVRM: Xid 79").host.empty());
  CHECK(parse_line_prefix("node-xx: kernel: NVRM: Xid 79").message_offset == 9);
  // Real names with an x in them stay.
  CHECK(parse_line_prefix("xgpu-3:1:2 [0] NCCL WARN x").host == "xgpu-3");
  CHECK(parse_line_prefix("box12:1:2 [0] NCCL WARN x").host == "box12");
  CHECK(parse_line_prefix("nx-1:1:2 [0] NCCL WARN x").host == "nx-1");
  // A template's placeholder, as a capture names it ("Caught signal SIGUSR2 on SERVER_NAME").
  for (const char* h : {"SERVER_NAME", "NODE_NAME", "HOST_NAME", "HOSTNAME"}) CHECK(redacted_host(h));
  for (const char* h : {"HGX-H100-11", "DGX", "NODE12", "gpu-a-07"}) CHECK_FALSE(redacted_host(h));
}

TEST_CASE("a log viewer's column before the line: docker compose, a code view, kubectl logs --prefix") {
  auto c = parse_line_prefix("trainer-1  | gpu-node-61:1234:1290 [3] NCCL WARN NET/IB : Got completion from peer");
  CHECK(c.host == "gpu-node-61");
  CHECK(c.pid == 1234);
  CHECK(parse_line_prefix("worker-2  | [rank5]: RuntimeError: CUDA error").rank == 5);
  CHECK(parse_line_prefix("worker-2  | [rank5]: RuntimeError: CUDA error").host.empty());  // a container, not a machine
  CHECK(parse_line_prefix("  12 | gpu-node-66:1234:1290 [3] NCCL WARN x").host == "gpu-node-66");
  auto l = parse_line_prefix("  12 | 3: node05:1234:1240 [3] NCCL INFO x");
  CHECK(l.task == 3);
  CHECK(l.host == "node05");
  auto k = parse_line_prefix("[pod/trainer-worker-3/pytorch] [rank5]: RuntimeError: CUDA error");
  CHECK(k.host == "trainer-worker-3");
  CHECK(k.rank == 5);
  CHECK(parse_line_prefix("[pod/trainer-worker-3/pytorch] node7:1:2 [0] NCCL WARN x").host == "node7");
  // Not a viewer's column: a table's first cell, a word and a number.
  CHECK(parse_line_prefix("| gpu-node-65 | Xid 79 |").host.empty());
  CHECK(parse_line_prefix("epoch 3 | loss 0.5").message_offset == 0);
}

TEST_CASE("redacted, dotted and IP hosts in the NCCL prefix") {
  auto r = parse_line_prefix("::16674:17023 [0] graph/search.cc:703 NCCL WARN XML Import Channel : dev 1 not found.");
  CHECK(r.host.empty());
  CHECK(r.pid == 16674);
  CHECK(r.gpu == 0);
  CHECK(parse_line_prefix("node03.cluster.local:42:43 [1] NCCL INFO x").host == "node03.cluster.local");
  CHECK(parse_line_prefix("10.0.0.13:42:43 [1] NCCL WARN x").host == "10.0.0.13");
}

TEST_CASE("prefixes behind a wrapper: grep's file name, an alert text before a syslog header") {
  auto g = parse_line_prefix("messages:Jun 17 20:18:08 ip-172-31-27-211 kernel: INFO: task strat1_sim:78808 blocked");
  CHECK(g.host == "ip-172-31-27-211");
  REQUIRE(g.civil);
  CHECK(g.civil->month == 6);
  auto n = parse_line_prefix("node-7.log:[2025-09-17 15:16:23] node-7:311:405 [0] transport/net_ib.cc:199 NCCL WARN x");
  CHECK(n.host == "node-7");
  auto a = parse_line_prefix("[FIRING:1] GPU XID error: Mar 14 09:41:07 node03 kernel: NVRM: Xid (PCI:0000:b9:00): 74");
  CHECK(a.host == "node03");
  CHECK(std::string_view("[FIRING:1] GPU XID error: Mar 14 09:41:07 node03 kernel: NVRM: Xid").substr(a.message_offset) ==
        "NVRM: Xid");
  CHECK(parse_line_prefix("nothing here: at all").host.empty());
}

TEST_CASE("a syslog header behind a wrapper is found at every offset: in a 16-offset block, across a block's edge, in the tail") {
  // The wrapper's text before the header grows one byte at a time, with a decoy pair of blanks four apart
  // ("a  b   c") that is no header, so the block scan's candidates, its edges and the byte-by-byte tail
  // (the last offsets before the header's minimum length) all meet it.
  const std::string header = "Mar 14 09:41:07 gpu1 kernel: x";  // short: within the last 16 offsets, the tail
  for (size_t k = 0; k < 48; ++k) {
    std::string wrapper = std::string(k, 'w') + " a   b: ";
    std::string line = wrapper + header;
    LinePrefix p = parse_line_prefix(line);
    INFO(line);
    CHECK(p.host == "gpu1");
    CHECK(std::string_view(line).substr(p.message_offset) == "x");
  }
}

TEST_CASE("Ray prefixes name the node by its address") {
  auto w = parse_line_prefix("(RayWorkerWrapper pid=270291, ip=10.175.94.190) [rank3]:[E219 08:58:32.606693321 ProcessGroupNCCL.cpp:1834] x");
  CHECK(w.host == "10.175.94.190");
  CHECK(w.rank == 3);
  CHECK(parse_line_prefix("(raylet, ip=172.31.66.10) A worker died or was killed while executing a task").host == "172.31.66.10");
  CHECK(parse_line_prefix("(WorkerDict pid=26110) [rank7]:x").host.empty());
}

TEST_CASE("a wrapper with its own stamp and tag before a syslog header: the inner host counts") {
  auto p = parse_line_prefix(
      "2025-03-14T09:41:09Z alertmanager[12]: GPU Xid on node: Mar 14 09:41:07 node03 kernel: NVRM: Xid (PCI:0000:b9:00): 74");
  CHECK(p.host == "node03");
  REQUIRE(p.civil);
  CHECK(p.civil->year == 2025);  // the outer, full-year stamp stays
  auto h = parse_line_prefix("<hostname>:1234:5678 [0] NCCL WARN NET/IB : Got completion from peer");
  CHECK(h.host.empty());
  CHECK(h.pid == 1234);
}

TEST_CASE("more stamps real logs carry: Go's and Python's slash dates, date(1), quoted and indented pastes") {
  TimeContext c{TimeZone::utc(), test::utc("2024-05-01T00:00:00Z"), std::nullopt, std::nullopt, std::nullopt};
  auto go = parse_line_prefix("2024/08/09 13:32:51 XidCriticalError: Xid=79 on Device=GPU-3b6e");
  CHECK(*resolve_time(go, c) == test::utc("2024-08-09T13:32:51Z"));
  CHECK(std::string_view("2024/08/09 13:32:51 XidCriticalError: Xid=79").substr(go.message_offset) == "XidCriticalError: Xid=79");
  auto hf = parse_line_prefix("05/01/2024 12:00:00 - ERROR - __main__ - RuntimeError: CUDA error");
  CHECK(*resolve_time(hf, c) == test::utc("2024-05-01T12:00:00Z"));
  auto date = parse_line_prefix("Thu May  2 10:00:00 UTC 2024 training stopped");
  CHECK(*resolve_time(date, c) == test::utc("2024-05-02T10:00:00Z"));
  auto quoted = parse_line_prefix("> [rank3]: RuntimeError: CUDA error: an illegal memory access was encountered");
  CHECK(quoted.rank == 3);
  auto indented = parse_line_prefix("    [2024-05-01 12:00:00,123] [ERROR] RuntimeError: x");
  CHECK(*resolve_time(indented, c) == test::utc("2024-05-01T12:00:00.123Z"));
  CHECK_FALSE(resolve_time(parse_line_prefix("12/34/5678 99:99:99 not a date"), c));
}

TEST_CASE("a Ray-style label that never closes is not a label (and nothing is read past the line)") {
  // Found by the fuzzer: "(... ip=0A" without ')' read beyond the end.
  std::string line = "(erzd ip=0A";
  auto p = parse_line_prefix(std::string_view(line));
  CHECK(p.host.empty());
  CHECK(p.message_offset <= line.size());
  auto closed = parse_line_prefix("(raylet, ip=10.0.0.7) RuntimeError: x");
  CHECK(closed.host == "10.0.0.7");
}


TEST_CASE("may_carry_time is false only where the prefix parser finds no time") {
  // Every stamp shape the parser reads: each must pass the quick check.
  const char* timed[] = {
      "2025-03-14T08:05:41.101Z node01 kernel: NVRM: Xid",
      "[2025-03-14 08:05:41,101] [INFO] [timer.py:260:stop] epoch=0/micro_step=10",
      "Mar 14 08:05:41 node01 kernel: NVRM: Xid (PCI:0000:3b:00): 79",
      "[   12.345678] NVRM: Xid (PCI:0000:3b:00): 79",
      "[Sun Feb 23 16:24:18 2025] NVRM: Xid",
      "[Jul 19 2025 18:34:57] [ERROR] [tid 123] fabric manager",
      "E1218 20:27:21.426415540 socket_utils.cc:105] error",
      "[E1218 20:27:21.426415540 file.cc:1] x",
      "2024/08/09 13:32:51 kubelet says",
      "05/01/2024 12:00:00 - INFO - transformers",
      "Thu May  2 10:00:00 UTC 2024",
      "{\"__REALTIME_TIMESTAMP\":\"1741939541000000\",\"_HOSTNAME\":\"node01\",\"MESSAGE\":\"x\"}",
      "  3: [2025-03-14 08:05:41,101] [INFO] srun-labelled",
      "> Mar 14 08:05:41 node01 kernel: quoted",
      "grep.log:12:Mar 14 08:05:41 node01 kernel: behind a wrapper",
  };
  for (const char* l : timed) {
    INFO(l);
    CHECK(may_carry_time(l));
    CHECK((parse_line_prefix(l).civil || parse_line_prefix(l).epoch || parse_line_prefix(l).mono));
  }
  const char* untimed[] = {
      "node0003:100017:100017 [1] NCCL INFO Broadcast: opCount 29 sendbuff 0x7f3c00063000",
      "[rank17]: step 97 data loader: fetched 128 samples in 0.008 s",
      "{'loss': 2.4760, 'grad_norm': 0.7038}x",
      "  0%|          | 106/14200 [1.01s/it]",
      "",
  };
  for (const char* l : untimed) {
    INFO(l);
    auto p = parse_line_prefix(l);
    if (!may_carry_time(l)) CHECK(!(p.civil || p.epoch || p.mono));
  }
  CHECK_FALSE(may_carry_time("node0003:100017:100017 [1] NCCL INFO Broadcast: opCount 29"));
  CHECK_FALSE(may_carry_time("[rank17]: step 97 data loader: fetched 128 samples in 0.008 s"));
  CHECK_FALSE(may_carry_time("{'loss': 2.4760, 'grad_norm': 0.7038, 'learning_rate': 1.9e-05, 'epoch': 0.0}"));
  CHECK_FALSE(may_carry_time("  0%|          | 106/14200 [00:00:43<03:54:54,  1.01s/it]"));
  CHECK_FALSE(may_carry_time("12:34:56 a clock first"));
  CHECK(may_carry_time("time=2025-03-14T09:41:07Z level=info"));
  CHECK(may_carry_time("  time      : 2026-06-08_19:04:45"));
  CHECK_FALSE(may_carry_time(R"({"not": "a journal record", "step": 3})"));
  CHECK(may_carry_time(R"({ "__REALTIME_TIMESTAMP" : "1741939541000000" })"));

  // Random lines built from the stamps' parts: whenever the check says no, the parser agrees.
  std::mt19937 rng(20261202);
  const std::string parts[] = {"2025", "-03", "-14", "T", " ", "08", ":", "05", "41", ".", "101", "Z", "[", "]",
                               "   ", "12", "Mar", "Sun", "node01", "kernel:", "E1218", "/", "{", "}", "\"",
                               "__REALTIME_TIMESTAMP", "1741939541000000", ",", "rank3", "3: ", "> ", "UTC", "x",
                               "Dec 17 ", "Z ", "host-1 ", "prog ", "\"time\": \"", "\"MESSAGE\":\"", "_HOSTNAME",
                               "'loss': ", "\": \"", "<", "|", "(", "\t", "_", "T"};
  for (int n = 0; n < 200000; ++n) {
    std::string l;
    for (int k = std::uniform_int_distribution<int>(1, 14)(rng); k > 0; --k)
      l += parts[std::uniform_int_distribution<size_t>(0, std::size(parts) - 1)(rng)];
    if (may_carry_time(l)) continue;
    auto p = parse_line_prefix(l);
    INFO(l);
    REQUIRE(!(p.civil || p.epoch || p.mono));
  }
}

TEST_CASE("a log exporter's UTC syslog stamp: 'Dec 17 16:03:58Z host program message'") {
  auto p = parse_line_prefix(
      "Dec 17 16:03:58Z translations-1-b-linux-v100-gpu-4-1tb-vvppjagzspgzcf58mfvmzw-1 start-worker 2024/12/17 "
      "16:03:58 GCP Metadata Service says termination is imminent");
  CHECK(p.host == "translations-1-b-linux-v100-gpu-4-1tb-vvppjagzspgzcf58mfvmzw-1");
  REQUIRE(p.civil);
  CHECK(p.civil->utc_offset_s == 0);
  CHECK(p.civil->year == 2024);  // the program's own stamp of the same day gives the year
  CHECK(std::string_view("Dec 17 16:03:58Z translations-1 start-worker x").substr(parse_line_prefix("Dec 17 16:03:58Z translations-1 start-worker x").message_offset) == "x");
  // With a colon the usual syslog reading holds; a word that is no host name is not taken for one.
  CHECK(parse_line_prefix("Dec 17 16:04:09Z worker-7 systemd-logind: Power key pressed.").host == "worker-7");
  CHECK(parse_line_prefix("Dec 17 16:04:09Z Power key pressed.").host.empty());
  // No clock, no stamp (and may_carry_time agrees).
  CHECK_FALSE(parse_line_prefix("Dec 17 Z host-1 prog msg").civil);
  CHECK_FALSE(may_carry_time("Dec 17 Z host-1 prog msg"));
  // An inner stamp of another day gives no year.
  auto q = parse_line_prefix("Mar 14 09:41:07 node1 app[1]: [2024-03-15 00:00:01] late");
  REQUIRE(q.civil);
  CHECK(q.civil->year == 0);
  auto r = parse_line_prefix("Mar 14 09:41:07 node1 app[1]: [2024-03-14 09:41:07,101] same day");
  CHECK(r.civil->year == 2024);
}

TEST_CASE("raw syslog records: the priority before RFC 3164, and RFC 5424 whole") {
  auto p = parse_line_prefix("<13>Mar 14 09:41:07 gpu-node-27 kernel: NVRM: Xid 79");
  CHECK(p.host == "gpu-node-27");
  REQUIRE(p.civil);
  CHECK((p.civil->month == 3 && p.civil->day == 14 && p.civil->hour == 9));
  CHECK(std::string_view("<13>Mar 14 09:41:07 gpu-node-27 kernel: NVRM: Xid 79").substr(p.message_offset) == "NVRM: Xid 79");
  auto q = parse_line_prefix("<34>1 2025-03-14T09:41:07.123Z gpu-node-30 kernel - - - NVRM: Xid 79");
  CHECK(q.host == "gpu-node-30");
  REQUIRE(q.civil);
  CHECK((q.civil->year == 2025 && q.civil->micros == 123000));
  const std::string sd = "<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut=\"3\"] BOMAn application event";
  auto r = parse_line_prefix(sd);
  CHECK(r.host == "mymachine.example.com");
  CHECK(std::string_view(sd).substr(r.message_offset) == "BOMAn application event");
  auto nil = parse_line_prefix("<34>1 2025-03-14T09:41:07Z - app - - - text");
  CHECK(nil.host.empty());
  // Not a priority: markup, a number too large, a bare angle bracket.
  CHECK(parse_line_prefix("<html> 09:41:07").host.empty());
  CHECK_FALSE(parse_line_prefix("<999>Mar 14 09:41:07 gpu-node-27 kernel: x").civil);
}

TEST_CASE("a bracketed Unix time (UCX's log header) is an instant, not seconds since boot") {
  auto p = parse_line_prefix("[1710409267.123456] [node12:4567:0]   ib_mlx5_log.c:177  UCX  ERROR Transport retry count exceeded");
  REQUIRE(p.epoch);
  CHECK(*p.epoch == 1710409267123456);
  CHECK_FALSE(p.mono);
  CHECK(p.host == "node12");
  CHECK(std::string_view("[1710409267.123456] [node12:4567:0]   ib_mlx5_log.c:177  UCX  ERROR Transport retry count exceeded")
            .substr(p.message_offset) == "ib_mlx5_log.c:177  UCX  ERROR Transport retry count exceeded");
  // UCX pads the pid; its signal handler prints a second thread number; any host-name word is the host.
  CHECK(parse_line_prefix("[1581060992.288391] [daishan:9817 :0]         select.c:438  UCX  ERROR x").host == "daishan");
  CHECK(parse_line_prefix("[jedi063:22469:0:22472] Caught signal 11 (Segmentation fault)").host == "jedi063");
  CHECK(parse_line_prefix("[xxx:22469:0:22472] Caught signal 11 (Segmentation fault)").host.empty());  // redacted
  // Not UCX's: an MPI tag, a bracketed word, a host and a pid alone.
  CHECK(parse_line_prefix("[1,3]<stderr>: x").host.empty());
  CHECK(parse_line_prefix("[node12] x").host.empty());
  CHECK(parse_line_prefix("[node12:4567] x").host.empty());
  auto d = parse_line_prefix("[ 8123456.5] NVRM: Xid 79");  // 94 days of uptime: still dmesg's
  REQUIRE(d.mono);
  CHECK_FALSE(d.epoch);
}

TEST_CASE("serving and orchestration loggers' stamps: vLLM, SGLang, Ray, a level before the time") {
  // vLLM: "%(levelname)s %(asctime)s" with "%m-%d %H:%M:%S" (no year); the line stays whole.
  const std::string v = "ERROR 03-14 09:41:07 [core.py:123] RuntimeError: CUDA error";
  auto p = parse_line_prefix(v);
  REQUIRE(p.civil);
  CHECK((p.civil->year == 0 && p.civil->month == 3 && p.civil->day == 14 && p.civil->hour == 9 && p.civil->second == 7));
  CHECK(p.message_offset == 0);
  auto w = parse_line_prefix("(VllmWorker rank=1 pid=1234) WARNING 12-01 23:59:59 [x.py:1] y");
  REQUIRE(w.civil);
  CHECK((w.civil->month == 12 && w.civil->day == 1));
  CHECK_FALSE(parse_line_prefix("ERROR 13-14 09:41:07 [core.py:123] x").civil);  // no month 13
  CHECK_FALSE(parse_line_prefix("ERROR 03-14 is not a time").civil);
  // Python logging with the level first.
  auto py = parse_line_prefix("INFO 2025-03-14 09:41:07,123 train.py:12] x");
  REQUIRE(py.civil);
  CHECK((py.civil->year == 2025 && py.civil->micros == 123000));
  // SGLang's and Ray's bracketed stamps with the logger's tags.
  const std::string sg = "[2025-02-23 06:02:12 TP1] Scheduler hit an exception";
  auto g = parse_line_prefix(sg);
  REQUIRE(g.civil);
  CHECK((g.civil->year == 2025 && g.civil->hour == 6));
  CHECK(std::string_view(sg).substr(g.message_offset) == "Scheduler hit an exception");
  auto ray = parse_line_prefix("(raylet) [2023-10-10 12:00:00,000 E 1234 1234] node_manager.cc:3084: x");
  REQUIRE(ray.civil);
  CHECK((ray.civil->year == 2023 && ray.civil->month == 10));
  // A bracket that only starts with a date is no stamp.
  CHECK_FALSE(parse_line_prefix("[2025-02-23 is the day we [re]started]").civil);
}

TEST_CASE("a syslog record with its date cut off: the word before the kernel's or a daemon's tag") {
  LinePrefix p = parse_line_prefix("rig-6600 kernel: Out of memory: Killed process 13994 (python)");
  CHECK(p.host == "rig-6600");
  CHECK(std::string_view("rig-6600 kernel: Out of memory: Killed process 13994 (python)").substr(p.message_offset) ==
        "Out of memory: Killed process 13994 (python)");
  CHECK(parse_line_prefix("gpu-node-7 slurmd[812]: error: Node configuration differs from hardware").host == "gpu-node-7");
  CHECK(parse_line_prefix("HGX-H100-13 kernel: NVRM: Xid (PCI:0000:b9:00): 79").host == "HGX-H100-13");
  // Neither a program with words after it nor a sentence names a machine.
  CHECK(parse_line_prefix("python3 train.py: error: unrecognized arguments").host.empty());
  CHECK(parse_line_prefix("Linux kernel: 6.8.0-49-generic").host.empty());
  CHECK(parse_line_prefix("the kernel: it panicked").host.empty());
  CHECK(parse_line_prefix("node-xx kernel: Out of memory").host.empty());  // redacted
  CHECK(parse_line_prefix("gpu-node-7 slurmd[abc]: error: x").host.empty());  // a pid is digits
  CHECK(parse_line_prefix("gpu-node-7 sshd: Accepted publickey").host.empty());  // neither kernel nor name[pid]
  CHECK(parse_line_prefix("gpu-node-7 kernel:x").host.empty());  // the tag's ": " is the syslog layout
  CHECK(parse_line_prefix("torch.distributed worker[3]: started").host.empty());  // a module, not a machine
}

TEST_CASE("a zone's abbreviation after an ISO stamp is part of the stamp, not a host") {
  LinePrefix p = parse_line_prefix("2025-03-14 09:41:07 UTC NVRM: Xid (PCI:0000:b9:00): 79");
  CHECK(p.host.empty());
  REQUIRE(p.civil);
  CHECK(p.civil->utc_offset_s == std::optional<int>(0));
  CHECK(parse_line_prefix("2025-03-14 09:41:07 CEST gpu-7 kernel: x").host == "gpu-7");  // a syslog header after the zone
  // A level word in capitals stays the message's.
  CHECK(parse_line_prefix("2025-03-14 09:41:07 INFO starting").host.empty());
  CHECK(parse_line_prefix("2025-03-14T09:41:07Z gpu-node-8 kernel: x").host == "gpu-node-8");
}

TEST_CASE("a machine's name right after the stamp: before a colon or a level word") {
  LinePrefix p = parse_line_prefix("[2025-03-14 09:41:07] gpu-node-89: NVRM: Xid (PCI:0000:b9:00): 79");
  CHECK(p.host == "gpu-node-89");
  CHECK(std::string_view("[2025-03-14 09:41:07] gpu-node-89: NVRM: Xid (PCI:0000:b9:00): 79").substr(p.message_offset) ==
        "NVRM: Xid (PCI:0000:b9:00): 79");
  CHECK(parse_line_prefix("2025-03-14 09:41:07 gpu-node-90: NVRM: Xid 79").host == "gpu-node-90");
  CHECK(parse_line_prefix("2025-03-14 09:41:07,123 gpu-node-79 ERROR NVRM: Xid 79").host == "gpu-node-79");
  CHECK(parse_line_prefix("[2025-03-14T09:41:07Z] node12 WARNING link down").host == "node12");
  // Tags, logger names, programs, counters and GPU indices are not machines; nor a word before a non-level.
  CHECK(parse_line_prefix("2025-03-14 09:41:07 kernel: NVRM: Xid 79").host.empty());
  CHECK(parse_line_prefix("2025-03-14 09:41:07 systemd-logind: x").host.empty());
  CHECK(parse_line_prefix("[2025-03-14 09:41:07] trainer: step 3").host.empty());
  CHECK(parse_line_prefix("[2025-03-14 09:41:07] python3: can't open file").host.empty());
  CHECK(parse_line_prefix("[2025-03-14 09:41:07] rank3: loss 1.2").host.empty());
  CHECK(parse_line_prefix("[2025-03-14 09:41:07] gpu3: 71C").host.empty());
  CHECK(parse_line_prefix("[2025-03-14 09:41:07] node-xx: x").host.empty());
  CHECK(parse_line_prefix("2025-03-14 09:41:07,123 epoch3 loss 1.2").host.empty());
  CHECK(parse_line_prefix("[2025-03-14 09:41:07] v2.18: x").host.empty());
  // Level words: Slurm's numbered debug levels and Ray CLI's "ERR" look like names but are levels.
  CHECK(parse_line_prefix("[2021-08-25T09:09:02.858] [15.0] debug2: xcgroup_load: unable to get cgroup").host.empty());
  CHECK(parse_line_prefix("[2021-08-25T09:09:02.858] debug3: Trying to load plugin").host.empty());
  CHECK(parse_line_prefix("2025-04-24 18:57:03,337 ERR cli.py:71 -- Job failed").host.empty());
  CHECK(parse_line_prefix("[2025-03-14 09:41:07] debug9: x").host == "debug9");  // no such level: a name
  CHECK(parse_line_prefix("2025-03-14 09:41:07,123 trainer INFO: step 10").host.empty());  // a logger and its level
}

TEST_CASE("kubectl's older event rows name the node in their source column") {
  const std::string_view e = "  Warning  KernelOops  3m  kernel-monitor, gke-a3-pool-1-abcd  NVRM: Xid (PCI:0000:3b:00): 79";
  LinePrefix p = parse_line_prefix(e);
  CHECK(p.host == "gke-a3-pool-1-abcd");
  CHECK(e.substr(p.message_offset) == "NVRM: Xid (PCI:0000:3b:00): 79");
  CHECK(parse_line_prefix("  Warning  FailedMount             9s (x8 over 1m)  kubelet, ip-10-0-140-139.ec2.internal  MountVolume.SetUp failed")
            .host == "ip-10-0-140-139.ec2.internal");
  // Today's rows name only the component; a message with a comma is not a source column.
  CHECK(parse_line_prefix("  Warning  FailedMount  9s  kubelet  MountVolume.SetUp failed for volume \"a\", b").host.empty());
  CHECK(parse_line_prefix("  Warning  BackOff  5s  kubelet  Back-off restarting failed container, pod x-1").host.empty());
  CHECK(parse_line_prefix("Warning, node-7  x").host.empty());  // not indented: not a row
}

TEST_CASE("the printed part of a line: after its prefixes, with or without the indent") {
  CHECK(printed_part("3:    host name:  urmel", true) == "   host name:  urmel");
  CHECK(printed_part("3:    host name:  urmel", false) == "host name:  urmel");
  CHECK(printed_part("0: 2024-05-01T12:00:00.1234567Z     Fabric", true) == "    Fabric");
  CHECK(printed_part("> trainer-1  | State: Down", false) == "State: Down");
  CHECK(printed_part("    Killed   python train.py", false) == "Killed   python train.py");
  CHECK(printed_part("no prefix at all", true) == "no prefix at all");
  CHECK(printed_part("", false).empty());
}
