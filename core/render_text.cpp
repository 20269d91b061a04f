#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/render.hpp"

namespace attribution {

std::string short_time(Micros t, bool inferred) {
  if (t == kTimeUnknown) return "(time unknown)";
  std::string s = format_rfc3339(t);  // ....ss.ffffffZ -> keep milliseconds
  s = s.substr(0, 23) + "Z";
  return inferred ? "~" + s : s;
}

std::string join_ints(const std::vector<int>& v, size_t max) {
  std::string out;
  // Consecutive runs print as ranges: 0-7,16.
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += j > i ? fmt::format("{}-{}", v[i], v[j]) : std::to_string(v[i]);
    i = j + 1;
    if (out.size() > max * 4) {
      out += ",...";
      break;
    }
  }
  return out;
}

std::string join_strings(const std::vector<std::string>& v, size_t max) {
  std::string out;
  for (size_t i = 0; i < v.size() && i < max; ++i) out += (i ? ", " : "") + v[i];
  if (v.size() > max) out += fmt::format(" (+{} more)", v.size() - max);
  return out;
}

std::string render_text(const Report& r) {
  std::string o;
  auto line = [&](std::string s) { o += s + "\n"; };
  const Workload& w = r.workload;
  std::string head = fmt::format("attribution {} | workload {}", r.tool_version, w.id);
  if (!w.name.empty()) head += fmt::format(" ({})", w.name);
  if (!w.state.empty()) head += " " + w.state;
  if (w.exit_code) head += fmt::format(" exit {}", *w.exit_code);
  head += fmt::format(" | {} node(s)", w.nodes.size());
  if (w.start && w.end) head += fmt::format(" | {} .. {}", short_time(*w.start, false), short_time(*w.end, false));
  line(head);
  line("");
  const Outcome& out = r.outcome;
  line(fmt::format("OUTCOME     {} ({}); blame {}; confidence {}", out.category, out.family, out.blame, out.confidence));
  if (!out.caveats.empty()) line(fmt::format("CAVEATS     {}", fmt::join(out.caveats, "; ")));
  if (!r.root_causes.empty()) {
    const auto& top = r.root_causes.front();
    line(fmt::format("ROOT CAUSE  {}: {}", where(top.host, top.gpu, top.pci, top.rank), top.title));
    line(fmt::format("            first seen {}{}", short_time(top.first_seen, top.time_inferred),
                     top.count > 1 ? fmt::format(", {} lines until {}", top.count, short_time(top.last_seen, top.time_inferred)) : ""));
  }
  line(fmt::format("ACTION      {}", out.action));
  if (!out.exclude_nodes.empty()) line(fmt::format("EXCLUDE     {}", join_strings(out.exclude_nodes, 50)));
  line(fmt::format("SUMMARY     {}", out.summary));

  if (!r.root_causes.empty()) {
    line("");
    line("Root causes");
    for (const auto& rc : r.root_causes) {
      line(fmt::format("  {}  {}  {}  [{}/{}, blame {}, confidence {}]", rc.id, where(rc.host, rc.gpu, rc.pci, rc.rank),
                       rc.title, rc.family, rc.category, rc.blame, rc.confidence));
      line(fmt::format("      rule {}; {} line(s) {} .. {}; explains {}; evidence {}", rc.rule, rc.count,
                       short_time(rc.first_seen, rc.time_inferred), short_time(rc.last_seen, rc.time_inferred),
                       rc.explains, join_strings(rc.evidence, 6)));
      if (!rc.detail.empty()) line("      " + rc.detail);
    }
  }
  if (!r.symptoms.empty()) {
    line("");
    line("Symptoms (why the other errors are not the cause)");
    for (const auto& s : r.symptoms) {
      std::string who = s.hosts.empty() ? "" : fmt::format(" on {}", join_strings(s.hosts, 6));
      if (!s.ranks.empty()) who += fmt::format(" ranks {}", join_ints(s.ranks));
      line(fmt::format("  {:>6}x {}{} [{}]", s.count, s.title, who, s.rule));
      if (!s.explained_by.empty()) line(fmt::format("          explained by {}: {}", s.explained_by, s.why));
      else line("          not explained by any root cause");
    }
  }
  line("");
  line("Nodes");
  for (const auto& n : r.affected_nodes) {
    std::string extra;
    if (!n.gpus.empty()) extra += " gpus " + join_strings(n.gpus, 8);
    if (!n.ranks.empty()) extra += " ranks " + join_ints(n.ranks);
    line(fmt::format("  {:<16} {:<12}{}", n.host, n.role, extra));
  }
  if (!r.evidence.empty()) {
    line("");
    line("Evidence");
    for (const auto& e : r.evidence) {
      std::string text = e.text.size() > 200 ? e.text.substr(0, 200) + "..." : e.text;
      line(fmt::format("  {:<4} {} {} {}", e.id, short_time(e.time, e.time_inferred), e.location,
                       e.host.empty() ? "" : "[" + e.host + "]"));
      line("       " + text);
    }
  }
  line("");
  line("Sources");
  for (const auto& s : r.sources) {
    std::string hosts = s.hosts_expected ? fmt::format(", hosts {}/{}", s.hosts_covered.size(), s.hosts_expected) : "";
    line(fmt::format("  {:<14} {:<8} {:<8} {} file(s), {} bytes, {} record(s){}{}", s.name, s.kind, to_string(s.status),
                     s.files, s.bytes, s.records, hosts, s.reason.empty() ? "" : " - " + s.reason));
  }
  if (std::string hit = limits_hit(r.limits); !hit.empty()) {
    line("");
    line("Limits: " + hit);
  }
  line("");
  line(fmt::format("ruleset {} rules sha256:{} | inputs sha256:{}", r.rule_count, r.ruleset_digest.substr(0, 16),
                   r.inputs_digest.substr(0, 16)));
  return o;
}

}  // namespace attribution
