#include "core/base/model.hpp"

#include <cstdio>

#include <algorithm>
#include <fmt/format.h>

namespace attribution {

std::string problems_summary(const std::vector<std::string>& problems) {
  if (problems.empty()) return {};
  return fmt::format("{} problem(s); first: {}", problems.size(), problems.front());
}

std::string_view to_string(SourceStatus s) {
  switch (s) {
    case SourceStatus::ok: return "ok";
    case SourceStatus::partial: return "partial";
    case SourceStatus::empty: return "empty";
    case SourceStatus::error: return "error";
    case SourceStatus::skipped: return "skipped";
  }
  return "?";
}

bool continues_burst(const Finding& prev, const Finding& next, Micros burst) {
  if (prev.time_inferred != next.time_inferred) return false;
  // Lines of one rule that report different settings ("NCCL_IB_HCA set to ...", "NCCL_SOCKET_IFNAME
  // set to ...") are different facts: folding would keep only the first.
  auto setting = [](const Finding& f) {
    auto it = f.fields.find("setting");
    return it == f.fields.end() ? std::string_view() : std::string_view(it->second);
  };
  if (setting(prev) != setting(next)) return false;
  return next.time_inferred || next.first_seen - prev.last_seen <= burst;
}

void add_to_series(Finding& f, float value) {
  if (f.series_head.size() < kSeriesHead) {
    f.series_head.push_back(value);
    return;
  }
  f.series_tail.push_back(value);
  if (f.series_tail.size() > kSeriesTail) f.series_tail.erase(f.series_tail.begin());
}

void fold_into(Finding& prev, Finding&& next) {
  for (float v : next.series_head) add_to_series(prev, v);
  for (float v : next.series_tail) add_to_series(prev, v);
  prev.count += next.count;
  prev.last_seen = std::max(prev.last_seen, next.last_seen);
  if (next.evidence.empty()) return;
  if (prev.evidence.size() < 2) prev.evidence.push_back(std::move(next.evidence.back()));
  else prev.evidence.back() = std::move(next.evidence.back());
}

bool parse_exit_status(std::string_view text, Workload& w) {
  std::string t(text);
  int code = 0, signal = 0;
  char extra = 0;
  int got = std::sscanf(t.c_str(), "%d:%d%c", &code, &signal, &extra);
  if (got == 2 && code >= 0 && code < 256 && signal >= 0 && signal < 256) {
    w.exit_code = code;
    w.exit_signal = signal;
    return true;
  }
  if (got == 1 && t.find(':') == std::string::npos && code >= 0 && code < 256) {
    w.exit_code = code;
    return true;
  }
  return false;
}

void add_covered_host(SourceCoverage& cov, const std::string& host) {
  if (!host.empty() && std::find(cov.hosts_covered.begin(), cov.hosts_covered.end(), host) == cov.hosts_covered.end())
    cov.hosts_covered.push_back(host);
}

}  // namespace attribution
