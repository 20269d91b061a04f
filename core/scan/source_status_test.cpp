#include <catch2/catch.hpp>

#include "core/scan/source_status.hpp"

using namespace attribution;

namespace {

constexpr Micros kT0 = 1741942800LL * kMicrosPerSecond;  // 2025-03-14T09:00:00Z
constexpr Micros kMin = 60 * kMicrosPerSecond;

Workload two_nodes() {
  Workload w;
  w.nodes = {"node1", "node2"};
  w.start = kT0;
  w.end = kT0 + 60 * kMin;
  return w;
}

SourceCoverage files(int64_t n, int64_t hosts_expected = 0) {
  SourceCoverage c;
  c.name = "logs";
  c.kind = "files";
  c.files = n;
  c.hosts_expected = hosts_expected;
  return c;
}

SourceTally tally(int64_t failed, int64_t empty, std::set<std::string> covered = {}) {
  SourceTally t;
  t.failed = failed;
  t.empty = empty;
  t.covered = std::move(covered);
  return t;
}

}  // namespace

TEST_CASE("a source's status follows what its files gave") {
  const Workload w = two_nodes();
  // `c` as settle_source leaves it after the scan's tally `t`.
  auto settled = [&](SourceCoverage c, const SourceTally& t) {
    settle_source(c, t, w);
    return c;
  };
  SECTION("no files") {
    SourceCoverage c = settled(files(0), {});
    CHECK(c.status == SourceStatus::empty);
    CHECK(c.reason == "no files");
  }
  SECTION("every file empty") {
    SourceCoverage c = settled(files(3), tally(0, 3));
    CHECK(c.status == SourceStatus::empty);
    CHECK(c.reason == "3 file(s), all empty");
  }
  SECTION("every file failed: the first problem is the reason") {
    SourceCoverage f = files(2);
    f.problems = {"a.log: cannot open: Permission denied", "b.log: skipped, binary content"};
    SourceCoverage c = settled(f, tally(2, 0));
    CHECK(c.status == SourceStatus::error);
    CHECK(c.reason == "a.log: cannot open: Permission denied");
  }
  SECTION("some problems: partial") {
    SourceCoverage f = files(2);
    f.problems = {"b.log: partly read, unexpected end of file"};
    SourceCoverage c = settled(f, tally(0, 0, {"node1", "node2"}));
    CHECK(c.status == SourceStatus::partial);
    CHECK(c.reason.find("b.log") != std::string::npos);
  }
  SECTION("a workload host without data is named; hosts outside the workload are not covered") {
    SourceCoverage c = settled(files(2, 2), tally(0, 0, {"node1", "login1"}));
    CHECK(c.status == SourceStatus::ok);
    CHECK(c.hosts_covered == std::vector<std::string>{"node1"});
    CHECK(c.reason == "no data from 1 of 2 host(s): node2");
  }
  SECTION("a collector's verdict stands") {
    SourceCoverage f = files(0);
    f.status = SourceStatus::error;
    f.reason = "HTTP 401";
    SourceCoverage c = settled(f, {});
    CHECK(c.status == SourceStatus::error);
    CHECK(c.reason == "HTTP 401");
  }
}

TEST_CASE("a host whose every matching line lies just outside the window is a clock suspect") {
  Workload w = two_nodes();
  SourceCoverage c = files(2, 2);
  SourceTally t;
  t.covered = {"node1", "node2"};
  t.inside = {"node1"};
  // node2's lines: the nearest 61 minutes after the job's end (its clock an hour ahead).
  t.outside["node2"].add(4, 61 * kMin, *w.end + 61 * kMin);
  // node1's out-of-window lines do not count: it has lines inside.
  t.outside["node1"].add(1, -30 * kMin, kT0 - 30 * kMin);
  settle_source(c, t, w);
  REQUIRE(c.problems.size() == 1);
  CHECK(c.problems[0].find("node2: 4 matching line(s) lie outside the window (the nearest 61 min after it)") == 0);
  CHECK(c.problems[0].find("--after 62m takes it in") != std::string::npos);
  CHECK(c.status == SourceStatus::partial);
  SECTION("a day away is history, not a clock") {
    SourceCoverage d = files(2, 2);
    SourceTally far = t;
    far.outside.clear();
    far.outside["node2"].add(4, 24 * 60 * kMin, *w.end + 24 * 60 * kMin);
    settle_source(d, far, w);
    CHECK(d.problems.empty());
  }
}
