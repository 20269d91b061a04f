#pragma once
// The report model's sample job, shared by the report and renderer tests: an Xid 79 on node3,
// watchdog timeouts on node1 and node2 (ranks 0 and 8), a partial kernel source. The texts are
// the caller's, so each renderer's tests carry the characters it must escape.
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/precedence.hpp"
#include "core/analysis/timeline.hpp"
#include "core/report/report.hpp"
#include "tests/test_rules.hpp"

namespace attribution::test {

constexpr Micros kSampleT0 = 1741942800LL * kMicrosPerSecond;  // 2025-03-14T09:00:00Z

struct SampleTexts {
  std::string job_name, xid_line, rank0_line, problem;
  std::optional<int> exit_code;
};

// `facts`: what the scan learnt beyond its findings (unread lines, an inferred year).
inline Report sample_report(const SampleTexts& texts, const EvidenceFacts& facts = {}) {
  static RuleSet rules = test_rules();
  Workload w;
  w.id = "4242";
  w.scheduler = "static";
  w.name = texts.job_name;
  w.nodes = {"node1", "node2", "node3"};
  w.start = kSampleT0;
  w.end = kSampleT0 + 3600 * kMicrosPerSecond;
  w.window = Window{kSampleT0 - 900 * kMicrosPerSecond, kSampleT0 + 3900 * kMicrosPerSecond};
  w.window_known = true;
  w.exit_code = texts.exit_code;
  std::vector<Finding> raw;
  auto add = [&](const char* rule, const char* host, Micros t, int rank, const std::string& text) {
    Finding f;
    f.rule = static_cast<int>(rules.find(rule) - rules.rules.data());
    f.host = host;
    f.rank = rank;
    f.first_seen = f.last_seen = t;
    f.evidence.push_back(Evidence{t, false, "kernel", host, rank, std::string(host) + ".log:7", text, false, {}});
    raw.push_back(f);
  };
  add("t.xid79", "node3", kSampleT0 + 60 * kMicrosPerSecond, -1, texts.xid_line);
  add("t.watchdog", "node1", kSampleT0 + 700 * kMicrosPerSecond, 0, texts.rank0_line);
  add("t.watchdog", "node2", kSampleT0 + 701 * kMicrosPerSecond, 8, "[Rank 8] Watchdog caught ...");
  Timeline t = build_timeline(raw, rules, w);
  Diagnosis d = resolve_precedence(t, rules, w);
  SourceCoverage cov{"kernel", "files", SourceStatus::partial, "1 problem(s)", 3, 1000, 3, {"node1", "node3"}, 3,
                     {texts.problem}};
  return build_report(w, t, d, rules, {cov}, facts);
}

}  // namespace attribution::test
