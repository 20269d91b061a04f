#include "core/scan/source_status.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace attribution {
namespace {

// Within this distance of the window, a host's out-of-window lines look like a clock offset rather
// than another day's history.
constexpr Micros kClockSuspectSpan = 3 * 3600 * kMicrosPerSecond;

std::string clock_suspect(const std::string& host, const OutsideWindow& o, const Workload& w) {
  constexpr Micros kMinute = 60 * kMicrosPerSecond;
  const bool before = o.nearest < 0;
  std::string out = fmt::format("{}: {} matching line(s) lie outside the window (the nearest {} min {} it), none "
                                "inside: is its clock or this source's time zone off?",
                                host.empty() ? "(no host)" : host, o.count, (std::abs(o.nearest) + kMinute - 1) / kMinute,
                                before ? "before" : "after");
  // The margin that would take the nearest one in, counted from the job's start or end as the flags are.
  const std::optional<Micros>& edge = before ? w.start : w.end;
  if (edge) {
    Micros margin = before ? *edge - o.nearest_time : o.nearest_time - *edge;
    out += fmt::format(" {} {}m takes it in", before ? "--before" : "--after", margin / kMinute + 1);
  }
  return out;
}

std::string hosts_without_data(const std::vector<std::string>& nodes, const SourceCoverage& cov) {
  std::vector<std::string> missing;
  for (const auto& n : nodes)
    if (!std::binary_search(cov.hosts_covered.begin(), cov.hosts_covered.end(), n)) missing.push_back(n);
  std::string names;
  for (size_t i = 0; i < missing.size() && i < 5; ++i) names += (i ? ", " : "") + missing[i];
  if (missing.size() > 5) names += fmt::format(" and {} more", missing.size() - 5);
  return fmt::format("no data from {} of {} host(s): {}", missing.size(), nodes.size(), names);
}

}  // namespace

void settle_source(SourceCoverage& cov, const SourceTally& tally, const Workload& w) {
  for (const auto& h : tally.covered)
    if ((w.nodes.empty() || std::find(w.nodes.begin(), w.nodes.end(), h) != w.nodes.end()) &&
        std::find(cov.hosts_covered.begin(), cov.hosts_covered.end(), h) == cov.hosts_covered.end())
      cov.hosts_covered.push_back(h);
  std::sort(cov.hosts_covered.begin(), cov.hosts_covered.end());
  for (const auto& [host, o] : tally.outside)
    if (!tally.inside.count(host) && std::abs(o.nearest) <= kClockSuspectSpan)
      cov.problems.push_back(clock_suspect(host, o, w));
  if (cov.status != SourceStatus::ok) return;  // a collector already said what went wrong
  if (cov.files == 0) {
    cov.status = SourceStatus::empty;
    cov.reason = cov.problems.empty() ? "no files" : cov.problems.front();
  } else if (tally.empty == cov.files) {
    cov.status = SourceStatus::empty;
    cov.reason = fmt::format("{} file(s), all empty", cov.files);
  } else if (tally.failed == cov.files) {
    cov.status = SourceStatus::error;
    cov.reason = cov.problems.front();
  } else if (!cov.problems.empty()) {
    cov.status = SourceStatus::partial;
    cov.reason = problems_summary(cov.problems);
  } else if (cov.hosts_expected > 0 && static_cast<int64_t>(cov.hosts_covered.size()) < cov.hosts_expected) {
    cov.status = SourceStatus::ok;
    cov.reason = hosts_without_data(w.nodes, cov);
  }
}

}  // namespace attribution
