#include "core/store/store_render.hpp"

#include <fmt/format.h>

#include "core/base/json_writer.hpp"

namespace attribution {
namespace {

std::string joined(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string families_text(const std::map<std::string, int64_t>& families) {
  std::string out;
  for (const auto& [family, n] : families) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", n, family);
  return out;
}

}  // namespace

std::string render_reports_json(const std::vector<StoredReport>& reports) {
  JsonWriter j;
  j.begin_object().key("reports").begin_array();
  for (const auto& r : reports) {
    j.begin_object().key("id").value(r.id).field("workload_id", r.workload_id).field("scheduler", r.scheduler);
    j.field("diagnosed_at", format_rfc3339(r.diagnosed_at)).field("family", r.family).field("category", r.category);
    j.field("blame", r.blame).field("confidence", r.confidence).key("root_hosts").begin_array();
    for (const auto& h : r.root_hosts) j.value(h);
    j.end_array().field("summary", r.summary).end_object();
  }
  j.end_array().end_object();
  return j.take() + "\n";
}

std::string render_nodes_json(const std::vector<NodeRecord>& nodes) {
  JsonWriter j;
  j.begin_object().key("nodes").begin_array();
  for (const auto& n : nodes) {
    j.begin_object().field("host", n.host).key("root_cause_count").value(n.root_cause_count);
    j.key("families").begin_object();
    for (const auto& [family, count] : n.families) j.key(family).value(count);
    j.end_object().field("last_seen", format_rfc3339(n.last_seen)).key("report_ids").begin_array();
    for (int64_t id : n.report_ids) j.value(id);
    j.end_array().end_object();
  }
  j.end_array().end_object();
  return j.take() + "\n";
}

std::string render_reports_text(const std::vector<StoredReport>& reports) {
  if (reports.empty()) return "no stored diagnosis matches\n";
  std::string out = fmt::format("{:>6}  {:<20}  {:<14}  {:<24}  {:<22}  {}\n", "ID", "DIAGNOSED (UTC)", "WORKLOAD",
                                "FAMILY", "ROOT NODES", "SUMMARY");
  for (const auto& r : reports) {
    std::string when = format_rfc3339(r.diagnosed_at).substr(0, 19);
    std::string hosts = r.root_hosts.empty() ? "-" : joined(r.root_hosts, ",");
    std::string summary = r.summary.size() > 80 ? r.summary.substr(0, 77) + "..." : r.summary;
    out += fmt::format("{:>6}  {:<20}  {:<14}  {:<24}  {:<22}  {}\n", r.id, when, r.workload_id, r.family, hosts,
                       summary);
  }
  return out;
}

std::string render_nodes_text(const std::vector<NodeRecord>& nodes) {
  if (nodes.empty()) return "no node is at the root of enough diagnoses\n";
  std::string out = fmt::format("{:<20}  {:>6}  {:<20}  {:<36}  {}\n", "NODE", "ROOT", "LAST SEEN (UTC)", "FAMILIES",
                                "REPORTS");
  for (const auto& n : nodes) {
    std::string ids;
    for (size_t i = 0; i < n.report_ids.size() && i < 8; ++i) {
      if (i) ids += ',';  // not `(i ? "," : "") + std::to_string(...)`: GCC 12 warns falsely on it (-Wrestrict)
      ids += std::to_string(n.report_ids[i]);
    }
    if (n.report_ids.size() > 8) ids += ",...";
    out += fmt::format("{:<20}  {:>6}  {:<20}  {:<36}  {}\n", n.host, n.root_cause_count,
                       format_rfc3339(n.last_seen).substr(0, 19), families_text(n.families), ids);
  }
  return out;
}

}  // namespace attribution
