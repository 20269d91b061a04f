#include <catch2/catch.hpp>

#include "core/precedence.hpp"
#include "core/timeline.hpp"
#include "tests/test_rules.hpp"

using namespace attribution;

namespace {

constexpr Micros kT0 = 1741942800LL * kMicrosPerSecond;  // 2025-03-14T09:00:00Z
constexpr Micros kMin = 60 * kMicrosPerSecond;

struct Builder {
  RuleSet rules = test::test_rules();
  Workload w;
  std::vector<Finding> raw;
  int line = 0;
  Builder() { w.nodes = {"node1", "node2", "node3", "node4"}; }
  Finding& add(const char* rule, const char* host, Micros t, int rank = -1, const char* pci = "", bool inferred = false) {
    Finding f;
    f.rule = static_cast<int>(rules.find(rule) - rules.rules.data());
    f.host = host;
    f.rank = rank;
    f.pci = pci;
    f.first_seen = f.last_seen = t;
    f.time_inferred = inferred;
    f.evidence.push_back(Evidence{t, inferred, "s", host, rank, "f.log:" + std::to_string(++line), rule});
    raw.push_back(f);
    return raw.back();
  }
  Timeline timeline() { return build_timeline(raw, rules, w); }
  const Rule& rule_of(const Timeline& t, size_t i) { return rules.rules[t.findings[i].rule]; }
};

}  // namespace

TEST_CASE("hardware fault on one node: peers' NCCL errors and timeouts are its symptoms") {
  Builder b;
  b.add("t.xid79", "node3", kT0 + 10 * kMin, -1, "0000:b9:00.0");
  b.add("t.xid45", "node3", kT0 + 10 * kMin + kMicrosPerSecond, -1, "0000:b9:00.0");
  for (int r = 0; r < 4; ++r) {
    std::string host = "node" + std::to_string(r + 1);
    b.add("t.nccl-peer", host.c_str(), kT0 + 11 * kMin, r * 8);
    b.add("t.watchdog", host.c_str(), kT0 + 20 * kMin, r * 8).fields["seq"] = "42";
  }
  auto t = b.timeline();
  auto d = resolve_precedence(t, b.rules, b.w);
  REQUIRE(d.roots.size() == 1);
  CHECK(b.rule_of(t, d.roots[0].finding).id == "t.xid79");
  CHECK(t.findings[d.roots[0].finding].host == "node3");
  CHECK(d.roots[0].explained.size() == 9);
  for (const auto& l : d.links) {
    CHECK(l.root == std::optional<size_t>(0));
    CHECK_FALSE(l.why.empty());
  }
  CHECK_FALSE(d.localisation);
}

TEST_CASE("a symptom before the fault (beyond clock skew) is not explained by it") {
  Builder b;
  b.add("t.nccl-peer", "node1", kT0, 0);
  b.add("t.xid79", "node3", kT0 + 10 * kMin, -1, "0000:b9:00.0");
  auto t = b.timeline();
  auto d = resolve_precedence(t, b.rules, b.w);
  REQUIRE(d.links.size() == 1);
  CHECK_FALSE(d.links[0].root);
}

TEST_CASE("Xid 45 on another GPU is not explained at gpu scope") {
  Builder b;
  b.add("t.xid79", "node3", kT0, -1, "0000:b9:00.0");
  b.add("t.xid45", "node3", kT0 + kMicrosPerSecond, -1, "0000:18:00.0");
  auto t = b.timeline();
  // xid45 is a symptom: the job-scope role:symptom entry still explains it.
  auto d = resolve_precedence(t, b.rules, b.w);
  REQUIRE(d.links.size() == 1);
  CHECK(d.links[0].why.find("job scope") != std::string::npos);
}

TEST_CASE("a cause explained by another cause is not a root cause") {
  Builder b;
  b.add("t.xid79", "node2", kT0, -1, "0000:18:00.0");
  b.add("t.cuda-illegal", "node2", kT0 + kMin, 9, "", true);  // the dying rank's CUDA error, no own time
  b.add("t.watchdog", "node1", kT0 + 10 * kMin, 0);
  auto t = b.timeline();
  auto d = resolve_precedence(t, b.rules, b.w);
  REQUIRE(d.roots.size() == 1);
  CHECK(b.rule_of(t, d.roots[0].finding).id == "t.xid79");
  bool secondary = false;
  for (const auto& l : d.links)
    if (b.rule_of(t, l.finding).id == "t.cuda-illegal") {
      secondary = true;
      CHECK(l.root == std::optional<size_t>(0));
      CHECK(l.why.find("roles decide") != std::string::npos);
    }
  CHECK(secondary);
}

TEST_CASE("an application fault on one rank is blamed on the application / not the fabric") {
  Builder b;
  b.add("t.cuda-illegal", "node2", kT0, 13, "", true);
  for (int r = 0; r < 32; ++r)
    if (r != 13) b.add("t.watchdog", ("node" + std::to_string(r / 8 + 1)).c_str(), kT0 + 10 * kMin, r);
  auto t = b.timeline();
  auto d = resolve_precedence(t, b.rules, b.w);
  REQUIRE(d.roots.size() == 1);
  const Rule& r = b.rule_of(t, d.roots[0].finding);
  CHECK(r.blame == "application");
  CHECK(d.roots[0].explained.size() == 31);
}

TEST_CASE("independent causes are all reported / higher priority first") {
  Builder b;
  b.add("t.cuda-illegal", "node1", kT0, 0);
  b.add("t.xid79", "node4", kT0 + 5 * kMin, -1, "0000:b9:00.0");
  auto t = b.timeline();
  auto d = resolve_precedence(t, b.rules, b.w);
  REQUIRE(d.roots.size() == 2);
  CHECK(b.rule_of(t, d.roots[0].finding).id == "t.xid79");
}

TEST_CASE("no cause: the minority rank in a hang is localised") {
  Builder b;
  for (int r = 0; r < 16; ++r)
    b.add("t.watchdog", ("node" + std::to_string(r / 8 + 1)).c_str(), kT0, r).fields["seq"] = r == 11 ? "41" : "42";
  auto t = b.timeline();
  auto d = resolve_precedence(t, b.rules, b.w);
  CHECK(d.roots.empty());
  REQUIRE(d.localisation);
  CHECK(d.localisation->kind == "hang-minority");
  CHECK(d.localisation->rank == 11);
  CHECK(d.localisation->host == "node2");
}

TEST_CASE("no cause: the peer most named by connection errors is localised") {
  Builder b;
  for (int i = 0; i < 6; ++i) b.add("t.nccl-peer", "node1", kT0 + i * kMicrosPerSecond, i).peer = "node4";
  b.add("t.nccl-peer", "node4", kT0, 30).peer = "node1";
  auto t = b.timeline();
  auto d = resolve_precedence(t, b.rules, b.w);
  REQUIRE(d.localisation);
  CHECK(d.localisation->kind == "converging-peer");
  CHECK(d.localisation->host == "node4");
}

TEST_CASE("no cause: the first failure from torchrun / exit code 1 blames the application") {
  Builder b;
  auto& f1 = b.add("t.first-failure", "node2", kT0 + 2 * kMin, 9);
  f1.fields["exit_code"] = "1";
  auto& f2 = b.add("t.first-failure", "node1", kT0 + 5 * kMin, 0);
  f2.fields["exit_code"] = "-6";
  auto t = b.timeline();
  auto d = resolve_precedence(t, b.rules, b.w);
  REQUIRE(d.localisation);
  CHECK(d.localisation->kind == "first-failure");
  CHECK(d.localisation->host == "node2");
  CHECK(d.localisation->blame == "application");
}

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
  b.add("t.cuda-illegal", "node9", kT0, 1);  // a node outside the workload
  auto t = b.timeline();
  CHECK(t.benign == 1);
  CHECK(t.other_hosts == 1);
  int xid45 = 0;
  for (const auto& f : t.findings) {
    const Rule& r = b.rules.rules[f.rule];
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
  CHECK(std::is_sorted(t.findings.begin(), t.findings.end(),
                       [](const Finding& a, const Finding& b) { return a.first_seen < b.first_seen; }));
}
