#include <catch2/catch.hpp>

#include "core/analysis/timeline.hpp"
#include "tests/finding_builder.hpp"

using namespace attribution;

using namespace attribution::test;

TEST_CASE("timeline: rank -> host and GPU from NCCL init lines / IP -> host / bursts fold") {
  Builder b;
  auto& init = b.add("t.init", "node3", kT0, 21);
  init.gpu = 5;
  init.pci = "0000:b9:00.0";
  b.add("t.oob", "node3", kT0, 21).fields["ip"] = "10.0.0.13";
  b.add("t.cuda-illegal", "", kT0 + kMin, 21);  // a rank's line with no host of its own
  b.add("t.nccl-peer", "node1", kT0 + kMin, 0).peer = "10.0.0.13";
  for (int i = 0; i < 5; ++i) b.add("t.xid45", "node3", kT0 + 2 * kMin + i * kMicrosPerSecond, -1, "0000:b9:00.0");
  b.add("t.xid45", "node3", kT0 + 9 * kMin, -1, "0000:b9:00.0");  // after the 10 s burst gap
  b.add("t.noise", "node3", kT0, -1);
  b.add("t.cuda-illegal", "node9", kT0, 1);  // a fault on a node outside the workload: kept, flagged
  b.add("t.nccl-peer", "node9", kT0, 1);     // a symptom there: not evidence about this job
  auto t = b.timeline();
  CHECK(t.benign == 1);
  CHECK(t.other_hosts == 1);
  int xid45 = 0, unlisted = 0;
  for (const auto& f : t.findings) {
    const Rule& r = b.rules.rules[f.rule];
    if (f.unlisted) {
      ++unlisted;
      CHECK(f.host == "node9");
      continue;
    }
    if (r.id == "t.cuda-illegal") {
      CHECK(f.host == "node3");
      CHECK(f.gpu == 5);
      CHECK(f.pci == "0000:b9:00.0");
    }
    if (r.id == "t.nccl-peer") CHECK(f.peer == "node3");
    if (r.id == "t.xid45") {
      ++xid45;
      if (f.count == 5) {
        CHECK(f.last_seen - f.first_seen == 4 * kMicrosPerSecond);
        CHECK(f.evidence.size() == 2);
      }
    }
  }
  CHECK(xid45 == 2);
  CHECK(unlisted == 1);
  CHECK(std::is_sorted(t.findings.begin(), t.findings.end(),
                       [](const Finding& a, const Finding& b) { return a.first_seen < b.first_seen; }));
}

TEST_CASE("timeline: a node list that names none of the lines' hosts is not used to filter") {
  Builder b;
  b.add("t.cuda-illegal", "gpu-a-01", kT0, 1);
  b.add("t.nccl-peer", "gpu-a-02", kT0, 2);
  auto t = b.timeline();  // the builder's workload is node[1-4]
  CHECK(t.other_hosts == 0);
  CHECK(t.findings.size() == 2);
  CHECK(t.unmatched_hosts == std::vector<std::string>{"gpu-a-01", "gpu-a-02"});
  for (const auto& f : t.findings) CHECK_FALSE(f.unlisted);
}

TEST_CASE("timeline: a line that names its node by IP counts for the host owning that address") {
  Builder b;
  b.add("t.oob", "node3", kT0, 21).fields["ip"] = "10.0.0.13";
  auto& ras = b.add("t.cuda-illegal", "10.0.0.13", kT0 + kMin, 22);  // NCCL RAS: "... on node 10.0.0.13"
  ras.gpu = 2;
  ras.host_named = true;
  b.add("t.init", "", kT0 + 2 * kMin, 22);                  // rank 22's own line, without a host
  b.add("t.cuda-illegal", "10.9.9.9", kT0 + 3 * kMin, 40).host_named = true;  // an address no line ties to a host
  b.add("t.cuda-illegal", "10.9.9.8", kT0 + 3 * kMin, 41);  // a syslog line forwarded under another machine's IP
  auto& mapped_v6 = b.add("t.cuda-illegal", "::ffff:10.0.0.13", kT0 + 4 * kMin, 23);
  mapped_v6.host_named = true;
  auto t = b.timeline();
  // The unknown address a line names as a node may be one of the job's: kept. The forwarded line's
  // fault is kept too, flagged as outside the node list (ranked after the job's own).
  CHECK(t.other_hosts == 0);
  int mapped = 0, unmapped = 0;
  for (const auto& f : t.findings) {
    const Rule& r = b.rules.rules[f.rule];
    if (r.id == "t.cuda-illegal" && (f.rank == 22 || f.rank == 23)) {
      ++mapped;
      CHECK(f.host == "node3");
      CHECK(f.evidence.front().host == "node3");
    }
    if (r.id == "t.cuda-illegal" && f.rank == 40) {
      ++unmapped;
      CHECK(f.host == "10.9.9.9");
    }
    if (r.id == "t.init") CHECK(f.host == "node3");  // rank 22 -> node3 learnt from the mapped line
    if (f.rank == 41) CHECK(f.unlisted);
    else CHECK_FALSE(f.unlisted);
  }
  CHECK(mapped == 2);
  CHECK(unmapped == 1);
}

TEST_CASE("timeline: a pod named by kubectl's wide output is its node's other name") {
  Builder b;
  b.add("t.oob", "gpu-node-3", kT0, -1).fields["alias"] = "job-worker-3";  // the kubectl row
  b.add("t.cuda-illegal", "job-worker-3", kT0 + kMin, 5);                  // NCCL's prefix names the pod
  b.add("t.nccl-peer", "gpu-node-1", kT0 + kMin, 1).peer = "job-worker-3";
  auto t = b.timeline();
  int seen = 0;
  for (const auto& f : t.findings) {
    const Rule& r = b.rules.rules[f.rule];
    if (r.id == "t.cuda-illegal") {
      CHECK(f.host == "gpu-node-3");
      ++seen;
    }
    if (r.id == "t.nccl-peer") {
      CHECK(f.peer == "gpu-node-3");
      ++seen;
    }
  }
  CHECK(seen == 2);

}

TEST_CASE("timeline: srun --label's task ties a hostless line to the host another line of the task names") {
  Builder b;
  auto& named = b.add("t.init", "node2", kT0, -1);  // task 7's MPI or NCCL line: names node2
  named.task = 7;
  named.file = 0;
  auto& bare = b.add("t.cuda-illegal", "", kT0 + kMin, -1);  // task 7's traceback: no host
  bare.task = 7;
  bare.file = 0;
  auto& other_file = b.add("t.cuda-illegal", "", kT0 + kMin, -1);  // task 7 of another step's output
  other_file.task = 7;
  other_file.file = 1;
  auto t = b.timeline();
  int seen = 0;
  for (const auto& f : t.findings)
    if (b.rules.rules[f.rule].id == "t.cuda-illegal") {
      ++seen;
      CHECK(f.host == (f.file == 0 ? "node2" : ""));
    }
  CHECK(seen == 2);

  // Two steps in one output: task 7 ran on node2, then on node4. The label no longer says where.
  auto& later = b.add("t.init", "node4", kT0 + 2 * kMin, -1);
  later.task = 7;
  later.file = 0;
  auto t2 = b.timeline();
  for (const auto& f : t2.findings)
    if (b.rules.rules[f.rule].id == "t.cuda-illegal") CHECK(f.host.empty());
}
