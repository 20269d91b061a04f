#include <fmt/format.h>

#include "core/report/render.hpp"
#include "core/base/text.hpp"

namespace attribution {
namespace {

// Table cells: no pipes or newlines from log text may break the table.
std::string cell(std::string_view s) { return markdown_cell(s); }

// An evidence line as a list item, its text fenced.
std::string evidence_item(const ReportEvidence& e) {
  std::string text = e.text.size() > 400 ? e.text.substr(0, 400) + "..." : e.text;
  // A log line must not close the fence and write Markdown of its own.
  for (size_t k; (k = text.find("```")) != std::string::npos;) text.replace(k, 3, "'''");
  return fmt::format("- **{}** {} `{}`{}\n  ```\n  {}\n  ```\n", e.id, short_time(e.time, e.time_inferred),
                     cell(e.location), e.host.empty() ? "" : " on " + e.host, text);
}

}  // namespace

std::string render_markdown(const Report& r) {
  std::string o;
  auto line = [&](std::string s) { o += s + "\n"; };
  const Workload& w = r.workload;
  line(fmt::format("# Diagnosis of workload {}{}", w.id, w.name.empty() ? "" : " (" + cell(w.name) + ")"));
  line("");
  std::string facts = fmt::format("Scheduler {}", w.scheduler);
  if (!w.state.empty()) facts += fmt::format(", state {}", w.state);
  if (w.exit_code) facts += fmt::format(", exit code {}", *w.exit_code);
  if (w.exit_signal && *w.exit_signal) facts += fmt::format(", signal {}", *w.exit_signal);
  facts += fmt::format(", {} node(s)", w.nodes.size());
  if (w.start && w.end) facts += fmt::format(", {} to {}", short_time(*w.start, false), short_time(*w.end, false));
  line(facts + ".");
  line("");
  const Outcome& out = r.outcome;
  line("## Outcome");
  line("");
  line(fmt::format("- **Category:** `{}` (family `{}`)", out.category, out.family));
  line(fmt::format("- **Blame:** {}; **confidence:** {}", to_string(out.blame), to_string(out.confidence)));
  for (const auto& c : out.caveats) line(fmt::format("- **Caveat:** {}", cell(c)));
  line(fmt::format("- **Summary:** {}", cell(out.summary)));
  line(fmt::format("- **Action:** {}", cell(out.action)));
  if (!out.exclude_nodes.empty()) line(fmt::format("- **Exclude nodes:** {}", join_strings(out.exclude_nodes, 50)));
  line("");
  line("## Root causes");
  line("");
  if (r.root_causes.empty()) line("None found.");
  else {
    line("| id | where | what | family / category | blame | first seen | lines | explains | evidence |");
    line("|---|---|---|---|---|---|---|---|---|");
    for (const auto& rc : r.root_causes)
      line(fmt::format("| {} | {} | {} (`{}`) | {} / {} | {} | {} | {} | {} | {} |", rc.id,
                       cell(where(rc)), cell(rc.title), rc.rule, rc.family, rc.category,
                       to_string(rc.blame), short_time(rc.first_seen, rc.time_inferred), rc.count, rc.explains,
                       join_strings(rc.evidence, 6)));
  }
  if (!r.unread.empty()) {
    line("");
    line("## Unread error lines");
    line("");
    line("No rule reads these lines: start here (the last is often where the job died).");
    line("");
    for (const auto& e : r.unread) o += evidence_item(e);
  }
  line("");
  line("## Symptoms");
  line("");
  if (r.symptoms.empty()) line("None found.");
  else {
    line("| lines | what | hosts | ranks | explained by | why |");
    line("|---|---|---|---|---|---|");
    for (const auto& s : r.symptoms)
      line(fmt::format("| {} | {} (`{}`) | {} | {} | {} | {} |", s.count, cell(s.title), s.rule,
                       join_strings(s.hosts, 8), join_ints(s.ranks), s.explained_by.empty() ? "-" : s.explained_by,
                       cell(s.why)));
  }
  line("");
  line("## Nodes");
  line("");
  line("| host | role | GPUs | ranks |");
  line("|---|---|---|---|");
  for (const auto& n : r.affected_nodes)
    line(fmt::format("| {} | {} | {} | {} |", n.host, n.role, join_strings(n.gpus, 8), join_ints(n.ranks)));
  line("");
  line("## Evidence");
  line("");
  if (r.evidence.empty()) line("None.");
  for (const auto& e : r.evidence) o += evidence_item(e);
  line("");
  line("## Sources");
  line("");
  line("| source | kind | status | files | bytes | records | hosts | reason |");
  line("|---|---|---|---|---|---|---|---|");
  for (const auto& s : r.sources)
    line(fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |", cell(s.name), s.kind, to_string(s.status), s.files,
                     s.bytes, s.records,
                     s.hosts_expected ? fmt::format("{}/{}", s.hosts_covered.size(), s.hosts_expected)
                                      : std::to_string(s.hosts_covered.size()),
                     cell(s.reason)));
  if (std::string hit = limits_hit(r.limits); !hit.empty()) {
    line("");
    line("Limits: " + hit);
  }
  line("");
  line(fmt::format("Ruleset: {} rules, sha256 `{}`. Inputs sha256 `{}`.", r.rule_count, r.ruleset_digest, r.inputs_digest));
  return o;
}

}  // namespace attribution
