#include "core/serve/metrics.hpp"

#include <fmt/format.h>

namespace attribution {
namespace {

// Label values are route patterns and family names; escape what the format reserves anyway.
std::string label(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '"') out.push_back('\\');
    if (c == '\n') out += "\\n";
    else out.push_back(c);
  }
  return out;
}

}  // namespace

void ServeMetrics::request(const std::string& route, int status, double seconds) {
  std::lock_guard lock(mu_);
  ++requests_[{route, status}];
  auto& l = latency_[route];
  ++l.count;
  l.sum += seconds;
}

void ServeMetrics::diagnosis(const std::string& family, double seconds) {
  std::lock_guard lock(mu_);
  ++diagnoses_[family];
  ++diagnosis_seconds_.count;
  diagnosis_seconds_.sum += seconds;
}

std::string ServeMetrics::render(const StoreStats& store) const {
  std::lock_guard lock(mu_);
  std::string out;
  out += "# HELP attribution_http_requests_total HTTP requests answered, by route and status.\n";
  out += "# TYPE attribution_http_requests_total counter\n";
  for (const auto& [key, n] : requests_)
    out += fmt::format("attribution_http_requests_total{{route=\"{}\",code=\"{}\"}} {}\n", label(key.first),
                       key.second, n);
  out += "# HELP attribution_http_request_seconds Time spent answering, by route.\n";
  out += "# TYPE attribution_http_request_seconds summary\n";
  for (const auto& [route, l] : latency_) {
    out += fmt::format("attribution_http_request_seconds_sum{{route=\"{}\"}} {:.6f}\n", label(route), l.sum);
    out += fmt::format("attribution_http_request_seconds_count{{route=\"{}\"}} {}\n", label(route), l.count);
  }
  out += "# HELP attribution_diagnoses_total Diagnoses made by this server (POST), by outcome family.\n";
  out += "# TYPE attribution_diagnoses_total counter\n";
  for (const auto& [family, n] : diagnoses_)
    out += fmt::format("attribution_diagnoses_total{{family=\"{}\"}} {}\n", label(family), n);
  out += "# HELP attribution_diagnosis_seconds Time a POSTed diagnosis took, queueing excluded.\n";
  out += "# TYPE attribution_diagnosis_seconds summary\n";
  out += fmt::format("attribution_diagnosis_seconds_sum {:.6f}\n", diagnosis_seconds_.sum);
  out += fmt::format("attribution_diagnosis_seconds_count {}\n", diagnosis_seconds_.count);
  out += "# HELP attribution_store_reports Reports in the store, by outcome family.\n";
  out += "# TYPE attribution_store_reports gauge\n";
  for (const auto& [family, n] : store.by_family)
    out += fmt::format("attribution_store_reports{{family=\"{}\"}} {}\n", label(family), n);
  out += "# HELP attribution_store_bytes The store's size on disk.\n";
  out += "# TYPE attribution_store_bytes gauge\n";
  out += fmt::format("attribution_store_bytes {}\n", store.bytes);
  return out;
}

}  // namespace attribution
