#pragma once
// Builds findings by hand for timeline and precedence tests.
#include <string>
#include <vector>

#include "core/analysis/timeline.hpp"
#include "tests/test_rules.hpp"

namespace attribution::test {

constexpr Micros kT0 = 1741942800LL * kMicrosPerSecond;  // 2025-03-14T09:00:00Z
constexpr Micros kMin = 60 * kMicrosPerSecond;

struct Builder {
  RuleSet rules = test::test_rules();
  Workload w;
  std::vector<Finding> raw;
  int line = 0;
  // add() returns a reference into raw: reserve so that it stays valid across later adds.
  Builder() {
    w.nodes = {"node1", "node2", "node3", "node4"};
    raw.reserve(4096);
  }
  Finding& add(const char* rule, const char* host, Micros t, int rank = -1, const char* pci = "", bool inferred = false) {
    Finding f;
    f.rule = static_cast<int>(rules.find(rule) - rules.rules.data());
    f.host = host;
    f.rank = rank;
    f.pci = pci;
    f.first_seen = f.last_seen = t;
    f.time_inferred = inferred;
    f.evidence.push_back(Evidence{t, inferred, "s", host, rank, "f.log:" + std::to_string(++line), rule, false, {}});
    raw.push_back(f);
    return raw.back();
  }
  Timeline timeline() { return build_timeline(raw, rules, w); }
  const Rule& rule_of(const Timeline& t, size_t i) { return rules.rules[t.findings[i].rule]; }
};

}  // namespace attribution::test
