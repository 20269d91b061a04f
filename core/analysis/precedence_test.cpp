#include <catch2/catch.hpp>

#include <map>

#include "core/analysis/precedence.hpp"
#include "core/analysis/timeline.hpp"
#include "tests/finding_builder.hpp"

using namespace attribution;

using namespace attribution::test;

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
  CHECK(r.blame == Blame::application);
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

// A process exit with `code` (torchrun's summary), its time its own or borrowed (`inferred`).
static void add_exit(Builder& b, const char* host, Micros t, int rank, const char* code, bool inferred = false) {
  b.add("t.first-failure", host, t, rank, "", inferred).fields["exit_code"] = code;
}

// The first-failure localisation of b's findings (no cause among them).
static Localisation first_failure_of(Builder& b) {
  auto t = b.timeline();
  auto d = resolve_precedence(t, b.rules, b.w);
  REQUIRE(d.localisation);
  CHECK(d.localisation->kind == "first-failure");
  return *d.localisation;
}

TEST_CASE("no cause: the first failure from torchrun / exit code 1 blames the application") {
  Builder b;
  add_exit(b, "node2", kT0 + 2 * kMin, 9, "1");
  add_exit(b, "node1", kT0 + 5 * kMin, 0, "-6");
  const Localisation l = first_failure_of(b);
  CHECK(l.host == "node2");
  CHECK(l.blame == Blame::application);
}

TEST_CASE("no cause: in an excerpt with no times, the first exit it prints is the first failure") {
  Builder b;
  // Equal borrowed times, as in a paste: the timeline orders them by host, the logs printed node3's first.
  add_exit(b, "node3", kT0, 2, "1", true);
  add_exit(b, "node1", kT0, 0, "-6", true);
  SECTION("none timed: the first printed") {
    const Localisation l = first_failure_of(b);
    CHECK(l.host == "node3");
    CHECK(l.blame == Blame::application);
  }
  SECTION("a timed exit wins over untimed ones") {
    add_exit(b, "node2", kT0 + 9 * kMin, 5, "-9");
    const Localisation l = first_failure_of(b);
    CHECK(l.host == "node2");
    CHECK(l.blame == Blame::unknown);
  }
}

TEST_CASE("no cause and no symptom: the earliest Python traceback is the program's exception") {
  Builder b;
  b.add("t.traceback", "node1", kT0 + 3 * kMin, 0);
  b.add("t.traceback", "node2", kT0 + 2 * kMin, 1);
  auto t = b.timeline();
  auto d = resolve_precedence(t, b.rules, b.w);
  REQUIRE(d.localisation);
  CHECK(d.localisation->kind == "program-raised");
  CHECK(d.localisation->host == "node2");
  CHECK(d.localisation->rank == 1);
  CHECK(d.localisation->family == "application");
  CHECK(d.localisation->blame == Blame::application);
}

// A traceback on node2 and one other finding a minute later, on `host`.
Diagnosis beside_traceback(const char* rule, const char* host, void (*set)(Finding&) = nullptr) {
  Builder b;
  b.add("t.traceback", "node2", kT0 + 2 * kMin, 1);
  Finding& other = b.add(rule, host, kT0 + 3 * kMin, 0);
  if (set) set(other);
  auto t = b.timeline();
  return resolve_precedence(t, b.rules, b.w);
}

TEST_CASE("a traceback beside a symptom, an exit or a weak cause is not read as the program's exception") {
  SECTION("a symptom nothing localises: no suspect at all") {
    CHECK_FALSE(beside_traceback("t.nccl-peer", "node1").localisation);
  }
  SECTION("a process exit: the first failure") {
    auto d = beside_traceback("t.first-failure", "node1", [](Finding& f) { f.fields["exit_code"] = "-15"; });
    REQUIRE(d.localisation);
    CHECK(d.localisation->kind == "first-failure");
  }
  SECTION("a launcher's report that a child ended: the traceback is the launcher's") {
    CHECK_FALSE(beside_traceback("t.child-ended", "node2").localisation);
  }
  SECTION("a weak cause: it is the root cause") {
    auto d = beside_traceback("t.weak-link", "node1", [](Finding& f) { f.peer = "node4"; });
    CHECK(d.roots.size() == 1);
    CHECK_FALSE(d.localisation);
  }
}

TEST_CASE("Xid 45 that names its cause joins that Xid even when another fault came first") {
  Builder b;
  b.add("t.xid79", "node3", kT0, -1, "0000:b9:00.0").fields["xid"] = "79";
  b.add("t.cuda-illegal", "node3", kT0 + kMicrosPerSecond, 5, "0000:b9:00.0");  // an independent root on the same host
  auto& x45 = b.add("t.xid45", "node3", kT0 + 2 * kMicrosPerSecond, -1, "0000:b9:00.0");
  x45.fields["cause_xid"] = "79";
  auto t = b.timeline();
  auto d = resolve_precedence(t, b.rules, b.w);
  for (const auto& l : d.links)
    if (b.rule_of(t, l.finding).id == "t.xid45") {
      REQUIRE(l.root);
      CHECK(b.rule_of(t, d.roots[*l.root].finding).id == "t.xid79");
    }
}

TEST_CASE("Xid 13 from several processes on one GPU, and no other GPU, is read as a hardware suspect") {
  Builder b;
  auto xid13 = [&](const char* host, Micros t, const char* pci, int64_t pid) { b.add("t.xid13", host, t, -1, pci).pid = pid; };
  // Each root's `repeated` reading, in root order.
  auto readings = [&] {
    auto t = b.timeline();
    std::vector<std::string> out;
    for (const auto& r : resolve_precedence(t, b.rules, b.w).roots) out.push_back(r.repeated);
    return out;
  };
  SECTION("two processes (a restart) on one GPU") {
    xid13("node2", kT0, "0000:cb:00.0", 4100);
    xid13("node2", kT0 + 20 * kMin, "0000:cb:00.0", 5200);
    auto r = readings();
    REQUIRE(r.size() == 1);
    CHECK(r[0].find("2 processes (pid 4100, 5200)") != std::string::npos);
  }
  SECTION("one process, however many lines") {
    for (int i = 0; i < 5; ++i) xid13("node2", kT0 + i * 10 * kMin, "0000:cb:00.0", 4100);
    CHECK(readings() == std::vector<std::string>{""});
  }
  SECTION("another GPU shows it too: the application, wherever it runs") {
    xid13("node2", kT0, "0000:cb:00.0", 4100);
    xid13("node2", kT0 + 20 * kMin, "0000:cb:00.0", 5200);
    xid13("node3", kT0 + 21 * kMin, "0000:cb:00.0", 6300);
    auto r = readings();
    REQUIRE_FALSE(r.empty());
    for (const auto& reading : r) CHECK(reading.empty());
  }
}

TEST_CASE("a cause with no host takes the one host the other reports of its fault name") {
  Builder b;
  b.add("t.oom-count", "", kT0);
  b.add("t.task-oom", "node2", kT0 + kMicrosPerSecond);
  auto t = b.timeline();
  auto d = resolve_precedence(t, b.rules, b.w);
  REQUIRE(d.roots.size() == 1);
  CHECK(b.rule_of(t, d.roots[0].finding).id == "t.oom-count");
  CHECK(d.roots[0].host == "node2");

  // Two hosts named: no guess.
  Builder two;
  two.add("t.oom-count", "", kT0);
  two.add("t.task-oom", "node2", kT0 + kMicrosPerSecond);
  two.add("t.task-oom", "node3", kT0 + kMicrosPerSecond);
  auto t2 = two.timeline();
  auto d2 = resolve_precedence(t2, two.rules, two.w);
  REQUIRE(d2.roots.size() == 1);
  CHECK(d2.roots[0].host.empty());
}

namespace {

// Each linked finding's link, by its rule's id (the tests below link one finding per rule).
std::map<std::string, Link> links_by_rule(Builder& b, const Timeline& t, const Diagnosis& d) {
  std::map<std::string, Link> out;
  for (const auto& l : d.links) out.emplace(b.rule_of(t, l.finding).id, l);
  return out;
}

// The rule of the one root cause of `b`'s findings, or "" when there is not exactly one.
std::string sole_root(Builder& b) {
  auto t = b.timeline();
  auto d = resolve_precedence(t, b.rules, b.w);
  return d.roots.size() == 1 ? b.rule_of(t, d.roots[0].finding).id : "";
}

}  // namespace

TEST_CASE("a weak cause that a stronger cause outweighs reads as its symptom, and alone is the root cause") {
  Builder b;
  b.add("t.oom-count", "node2", kT0);
  b.add("t.weak-kill", "node2", kT0 + kMin);                    // host-oom too
  b.add("t.weak-link", "node1", kT0 + kMin, 0).peer = "node3";  // a link error a peer's death leaves
  auto t = b.timeline();
  auto d = resolve_precedence(t, b.rules, b.w);
  REQUIRE(d.roots.size() == 1);
  CHECK(b.rule_of(t, d.roots[0].finding).id == "t.oom-count");
  CHECK(d.roots[0].host == "node2");
  // The OOM count's blanket "role:symptom" claims both (weak network causes are claimed; weak GPU or
  // host hardware ones are not by an application root, see the next test).
  auto links = links_by_rule(b, t, d);
  REQUIRE(links.count("t.weak-kill"));
  CHECK(links.at("t.weak-kill").root == std::optional<size_t>(0));
  CHECK(links.at("t.weak-kill").why == "t.oom-count explains t.weak-kill (job scope, within 30m)");
  REQUIRE(links.count("t.weak-link"));
  CHECK(links.at("t.weak-link").root == std::optional<size_t>(0));

  Builder alone;
  alone.add("t.weak-link", "node1", kT0, 0).peer = "node3";
  CHECK(sole_root(alone) == "t.weak-link");
}

TEST_CASE("weak link causes from several machines naming one peer are one fault at that peer") {
  Builder b;
  b.add("t.weak-link", "node1", kT0, 0).peer = "node3";
  b.add("t.weak-link", "node2", kT0 + kMicrosPerSecond, 8).peer = "node3";
  auto t = b.timeline();
  auto d = resolve_precedence(t, b.rules, b.w);
  REQUIRE(d.roots.size() == 1);
  CHECK(d.roots[0].host == "node3");
  auto links = links_by_rule(b, t, d);
  REQUIRE(links.count("t.weak-link"));
  CHECK(links.at("t.weak-link").same_fault);

  Builder two_peers;  // different peers: two faults
  two_peers.add("t.weak-link", "node1", kT0, 0).peer = "node3";
  two_peers.add("t.weak-link", "node2", kT0 + kMicrosPerSecond, 8).peer = "node4";
  auto t2 = two_peers.timeline();
  CHECK(resolve_precedence(t2, two_peers.rules, two_peers.w).roots.size() == 2);
}

TEST_CASE("an application fault claims a weak link error as its symptom, never a weak GPU fault") {
  Builder b;
  b.add("t.app-exception", "node1", kT0 + 10 * kMin, 3);
  b.add("t.weak-remap", "node2", kT0 + 10 * kMin + kMicrosPerSecond, -1, "0000:5d:00.0");  // inside the window
  b.add("t.weak-link", "node2", kT0 + 11 * kMin, 9).peer = "node1";  // the peer it killed broke the link
  auto t = b.timeline();
  auto d = resolve_precedence(t, b.rules, b.w);
  REQUIRE(d.roots.size() == 1);
  CHECK(b.rule_of(t, d.roots[0].finding).id == "t.app-exception");
  auto links = links_by_rule(b, t, d);
  REQUIRE(links.count("t.weak-link"));
  CHECK(links.at("t.weak-link").root == std::optional<size_t>(0));
  REQUIRE(links.count("t.weak-remap"));
  CHECK_FALSE(links.at("t.weak-remap").root);

  Builder alone;
  alone.add("t.weak-remap", "node2", kT0, -1, "0000:5d:00.0");
  CHECK(sole_root(alone) == "t.weak-remap");
}

TEST_CASE("a weak cause that explains a stronger one only when it came first: a task killed before the cancel") {
  // A weak cause and a step cancel, the weak one's line first or not; timed (a minute apart) or with the
  // weak one's time inferred; in one file or two.
  auto root_of = [](const char* weak, bool weak_first, bool timed, bool one_file = true) {
    Builder b;
    auto add_weak = [&] { b.add(weak, "node2", kT0 + (timed && !weak_first ? kMin : 0), 3, "", !timed).file = 0; };
    auto add_cancel = [&] { b.add("t.cancel", "node1", kT0 + (timed && weak_first ? kMin : 0)).file = one_file ? 0 : 1; };
    if (weak_first) add_weak(), add_cancel();
    else add_cancel(), add_weak();
    return sole_root(b);
  };
  // The kill's line has no time of its own: the order in the file decides.
  CHECK(root_of("t.task-killed", true, false) == "t.task-killed");  // srun tore the step down because a task died
  CHECK(root_of("t.task-killed", false, false) == "t.cancel");      // the cancel's own teardown killed the task
  // Both timed: the times decide.
  CHECK(root_of("t.task-killed", true, true) == "t.task-killed");
  CHECK(root_of("t.task-killed", false, true) == "t.cancel");
  // Inferred time and two files: no order is known, so nothing is claimed.
  CHECK(root_of("t.task-killed", true, false, false) == "t.cancel");
  // An entry without first = true promotes nothing, even first in the file.
  CHECK(root_of("t.weak-alone", true, false) == "t.cancel");
}
