#include "core/report/report.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <set>
#include <tuple>

#include "core/base/digest.hpp"
#include "core/base/limits.hpp"
#include "core/base/text.hpp"
#include "core/scan/line_prefix.hpp"
#include "core/report/render.hpp"

namespace attribution {
namespace {

ReportEvidence report_evidence(std::string id, const Evidence& e) {
  return ReportEvidence{std::move(id), e.time, e.time_inferred, e.source, e.host, e.rank, e.location, e.text, e.cut, e.captures};
}

constexpr size_t kEvidencePerSymptom = 3;

// Collects evidence referenced by the report, numbered later in time order.
class EvidencePool {
 public:
  // Returns a placeholder key; ids are assigned by finish().
  std::string add(const Evidence& e) {
    std::string key = e.location + "\x1f" + e.text;
    if (!items_.count(key)) items_.emplace(key, e);
    return key;
  }
  // Sorts by (time, location) and numbers E1..En; returns key -> id.
  std::map<std::string, std::string> finish(std::vector<ReportEvidence>* out) {
    std::vector<std::pair<std::string, Evidence>> v(items_.begin(), items_.end());
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
      return std::tie(a.second.time, a.second.location, a.first) < std::tie(b.second.time, b.second.location, b.first);
    });
    std::map<std::string, std::string> ids;
    for (size_t i = 0; i < v.size(); ++i) {
      const Evidence& e = v[i].second;
      std::string id = fmt::format("E{}", i + 1);
      ids[v[i].first] = id;
      out->push_back(report_evidence(id, e));
    }
    return ids;
  }

 private:
  std::map<std::string, Evidence> items_;
};

void rename(std::vector<std::string>& keys, const std::map<std::string, std::string>& ids) {
  for (auto& k : keys) k = ids.at(k);
  std::sort(keys.begin(), keys.end(), [](const std::string& a, const std::string& b) {
    return std::make_pair(a.size(), a) < std::make_pair(b.size(), b);
  });
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
}

// A line's message without its time, host and rank prefixes, at most 300 bytes.
std::string own_words(const std::string& text) {
  LinePrefix p = parse_line_prefix(text);
  std::string m = text.substr(std::min(p.message_offset, text.size()));
  while (!m.empty() && m.front() == ' ') m.erase(0, 1);
  if (m.size() > 300) {
    size_t cut = 300;
    while (cut > 0 && (static_cast<unsigned char>(m[cut]) & 0xC0) == 0x80) --cut;
    m = m.substr(0, cut) + "...";
  }
  return m;
}

}  // namespace

std::string where(const std::string& host, int gpu, const std::string& pci, int rank) {
  std::string s = host.empty() ? "an unidentified host" : host;
  if (gpu >= 0 && !pci.empty()) s += fmt::format(" GPU {} ({})", gpu, pci);
  else if (gpu >= 0) s += fmt::format(" GPU {}", gpu);
  else if (!pci.empty()) s += fmt::format(" GPU {}", pci);
  if (rank >= 0) s += fmt::format(" rank {}", rank);
  return s;
}

std::string where(const ReportRootCause& rc) {
  // A suspect the evidence does not tie to one machine (a job-wide slowdown, ranks on many nodes).
  if (rc.localised && rc.host.empty() && rc.rank < 0 && rc.gpu < 0 && rc.pci.empty()) return "no single node";
  std::string s = where(rc.host, rc.gpu, rc.pci, rc.rank);
  if (rc.pid >= 0) s += fmt::format(" pid {}", rc.pid);
  if (!rc.process.empty()) s += fmt::format(" ({})", rc.process);
  return s;
}

std::string limits_hit(const Limits& l) {
  std::string out;
  if (l.texts_cut > 0) out += fmt::format("{} text(s) cut at {} bytes", l.texts_cut, l.evidence_text_bytes);
  if (l.lines_not_kept > 0)
    out += fmt::format("{}{} matching line(s) counted but not kept (over {} distinct findings per file; see sources)",
                       out.empty() ? "" : "; ", l.lines_not_kept, l.findings_per_file);
  return out;
}

namespace {

// The texts cut are counted over every text the report shows: evidence and unread lines.
Limits limits_of(const Report& r, const std::vector<SourceCoverage>& sources) {
  Limits l;
  l.evidence_text_bytes = static_cast<int64_t>(kMaxEvidenceText);
  l.evidence_per_symptom = static_cast<int64_t>(kEvidencePerSymptom);
  l.findings = static_cast<int64_t>(kMaxFindings);
  int64_t files = 0;
  for (const auto& s : sources) files += s.files, l.lines_not_kept += s.lines_not_kept;
  l.findings_per_file = static_cast<int64_t>(findings_per_file(static_cast<size_t>(files)));
  for (const auto* texts : {&r.evidence, &r.unread})
    for (const auto& e : *texts) l.texts_cut += e.cut;
  return l;
}

// Repeated lines are not a failure of the source, but its entry says they were counted once.
void note_duplicates(const std::map<std::pair<std::string, std::string>, int64_t>& duplicates,
                     std::vector<SourceCoverage>& sources) {
  for (const auto& [names, lines] : duplicates)
    for (auto& s : sources) {
      if (s.name != names.first) continue;
      std::string note = names.first == names.second
                             ? fmt::format("{} matching line(s) repeat lines of another of its files "
                                           "(same host, time and text): counted once", lines)
                             : fmt::format("{} matching line(s) repeat lines of source '{}' (same host, time and "
                                           "text): counted once", lines, names.second);
      s.problems.push_back(note);
      if (s.status == SourceStatus::ok && s.reason.empty()) s.reason = note;
    }
}

// Each kind of gap in the evidence lowers the confidence one step and is said in one line.
void weigh_evidence(Report& r, const EvidenceFacts& facts) {
  Outcome& o = r.outcome;
  std::vector<std::string> weak;
  for (const auto& s : r.sources)
    if (s.status == SourceStatus::error || s.status == SourceStatus::empty || s.status == SourceStatus::partial)
      weak.push_back(fmt::format("{} ({})", s.name, to_string(s.status)));
  if (!weak.empty())
    o.caveats.push_back(fmt::format("{} source(s) gave less than asked: {}", weak.size(), fmt::join(weak, ", ")));
  std::vector<std::string> silent;
  for (const auto& n : r.affected_nodes)
    if (n.role == "no_data") silent.push_back(n.host);
  if (!silent.empty())
    o.caveats.push_back(fmt::format("{} of the job's {} node(s) have no data: {}{}", silent.size(), r.workload.nodes.size(),
                                    fmt::join(silent.begin(), silent.begin() + std::min<size_t>(silent.size(), 8), ", "),
                                    silent.size() > 8 ? ", ..." : ""));
  if (!facts.unmatched_hosts.empty())
    o.caveats.push_back(fmt::format("the job's node list ({}) names none of the hosts the logs name ({}{}): it was not "
                                    "used to filter; check --nodes for a typo, a domain suffix or another cluster's names",
                                    fmt::join(r.workload.nodes.begin(), r.workload.nodes.begin() +
                                                  std::min<size_t>(r.workload.nodes.size(), 6), ", "),
                                    fmt::join(facts.unmatched_hosts.begin(), facts.unmatched_hosts.begin() +
                                                  std::min<size_t>(facts.unmatched_hosts.size(), 6), ", "),
                                    facts.unmatched_hosts.size() > 6 ? ", ..." : ""));
  if (facts.year_inferred)
    o.caveats.push_back("the year of year-less timestamps is inferred: neither the window nor a full-year time in the "
                        "logs gives it (pass --start/--end)");
  // Each caveat lowers the confidence one step, down to low.
  int level = static_cast<int>(o.confidence) - static_cast<int>(o.caveats.size());
  o.confidence = static_cast<Confidence>(std::max(level, static_cast<int>(Confidence::low)));
}


// What every section adds evidence to: the pool that numbers it once, in first-use order.
struct ReportBuilder {
  const Timeline& t;
  const Diagnosis& d;
  const RuleSet& rules;
  Report& r;
  EvidencePool pool;
  std::set<std::string> root_hosts;

  void evidence_of(const Finding& f, std::vector<std::string>& keys) {
    for (const auto& e : f.evidence) keys.push_back(pool.add(e));
  }

  ReportRootCause root_cause(size_t i) {
    const Finding& f = t.findings[d.roots[i].finding];
    const Rule& rule = rules.rules[f.rule];
    const std::string& host = d.roots[i].host;
    ReportRootCause rc{fmt::format("R{}", i + 1), rule.id, rule.title, rule.category, rule.family,
                       rule.blame.value_or(Blame::unknown), rule.confidence, rule.action, host, f.pci, f.gpu, f.rank,
                       f.pid, {}, {}, f.first_seen, f.last_seen, f.time_inferred, f.count,
                       static_cast<int64_t>(d.roots[i].explained.size()), false, {}, {}};
    if (auto it = f.fields.find("comm"); it != f.fields.end()) rc.process = it->second;
    rc.message = own_words(f.evidence.front().text);
    if (rule.fallback) {
      rc.confidence = Confidence::low;
      const std::vector<size_t>& ex = d.roots[i].explained;
      auto strong = std::find_if(ex.begin(), ex.end(), [&](size_t k) {
        const Rule& r = rules.rules[t.findings[k].rule];
        return r.role == Role::cause && !r.fallback;
      });
      rc.detail = strong == ex.end()
                      ? "a weak cause: it is the root cause only because nothing stronger was found"
                      : fmt::format("a weak cause: it is the root cause because its line came before {}, which it explains",
                                    rules.rules[t.findings[*strong].rule].id);
    }
    if (host != f.host) rc.detail += std::string(rc.detail.empty() ? "" : "; ") + "its host is the peer its symptoms name";
    // The peer's, not the reporter's: the reporting process's GPU, rank and pid are not the peer's.
    if (host != f.host && !f.host.empty()) rc.pci.clear(), rc.gpu = -1, rc.rank = -1, rc.pid = -1;
    if (f.unlisted)
      rc.detail += std::string(rc.detail.empty() ? "" : "; ") + "its host is not one of the job's nodes (kept: the node "
                                                                 "list may be incomplete)";
    if (!d.roots[i].repeated.empty()) {
      const Repeated& rep = *rule.repeated;
      std::tie(rc.category, rc.family, rc.blame, rc.confidence, rc.action) =
          std::tie(rep.category, rep.family, rep.blame, rep.confidence, rep.action);
      rc.detail = d.roots[i].repeated;
    }
    evidence_of(f, rc.evidence);
    return rc;
  }

  ReportRootCause localised(const Localisation& l) {
    const auto& F = t.findings;
    ReportRootCause rc;
    rc.id = "R1";
    rc.rule = "localisation." + l.kind;
    rc.title = l.title;
    rc.category = l.category;
    rc.family = l.family;
    rc.blame = l.blame;
    rc.confidence = l.confidence;
    rc.host = l.host;
    rc.rank = l.rank;
    rc.localised = true;
    rc.detail = l.detail;
    rc.action = !l.action.empty() ? l.action
                                  : "Inspect " + (l.host.empty() ? std::string("the named process") : l.host) +
                                        "'s logs around the first seen time; no fault signature was found, so this "
                                        "is a suspect, not a verdict.";
    // Its span: the lines that have a time (a stack dump has none of its own), else the first line's.
    bool timed = std::any_of(l.findings.begin(), l.findings.end(), [&](size_t fi) { return F[fi].first_seen != kTimeUnknown; });
    bool first = true;
    for (size_t fi : l.findings) {
      rc.count += F[fi].count;
      evidence_of(F[fi], rc.evidence);
      if (timed && F[fi].first_seen == kTimeUnknown) continue;
      rc.first_seen = first ? F[fi].first_seen : std::min(rc.first_seen, F[fi].first_seen);
      rc.last_seen = first ? F[fi].last_seen : std::max(rc.last_seen, F[fi].last_seen);
      if (first) rc.time_inferred = F[fi].time_inferred;
      first = false;
    }
    return rc;
  }

  // Root causes, in the resolver's order; a root's fault seen again by another rule or source (a
  // metric and a log line) adds its evidence.
  void add_root_causes() {
    for (size_t i = 0; i < d.roots.size(); ++i) {
      r.root_causes.push_back(root_cause(i));
      if (!d.roots[i].host.empty()) root_hosts.insert(d.roots[i].host);
    }
    if (d.localisation) {
      r.root_causes.push_back(localised(*d.localisation));
      if (!d.localisation->host.empty()) root_hosts.insert(d.localisation->host);
    }
    for (const Link& link : d.links)
      if (link.same_fault && link.root) evidence_of(t.findings[link.finding], r.root_causes[*link.root].evidence);
  }

  // Symptoms grouped by rule and root: explained first (by root), then unexplained; within, most
  // lines first, then rule id.
  void add_symptoms() {
    std::map<std::pair<std::string, std::string>, ReportSymptom> groups;
    for (const Link& link : d.links) {
      const Finding& f = t.findings[link.finding];
      const Rule& rule = rules.rules[f.rule];
      std::string root = link.root ? r.root_causes[*link.root].id : "";
      auto [it, fresh] = groups.try_emplace({rule.id, root});
      ReportSymptom& s = it->second;
      if (fresh) {
        s.rule = rule.id;
        s.title = rule.title;
        s.role = std::string(to_string(rule.role));
        s.first_seen = f.first_seen;
        s.time_inferred = f.time_inferred;
        s.explained_by = root;
        s.why = link.why;
      }
      if (!f.time_inferred && (s.time_inferred || f.first_seen < s.first_seen)) s.first_seen = f.first_seen, s.time_inferred = false;
      s.count += f.count;
      if (!f.host.empty()) s.hosts.push_back(f.host);
      if (f.rank >= 0) s.ranks.push_back(f.rank);
      if (s.evidence.size() < kEvidencePerSymptom) evidence_of(f, s.evidence);
    }
    for (auto& [k, s] : groups) {
      std::sort(s.hosts.begin(), s.hosts.end());
      s.hosts.erase(std::unique(s.hosts.begin(), s.hosts.end()), s.hosts.end());
      std::sort(s.ranks.begin(), s.ranks.end());
      s.ranks.erase(std::unique(s.ranks.begin(), s.ranks.end()), s.ranks.end());
      if (s.evidence.size() > kEvidencePerSymptom) s.evidence.resize(kEvidencePerSymptom);
      r.symptoms.push_back(std::move(s));
    }
    std::sort(r.symptoms.begin(), r.symptoms.end(), [](const ReportSymptom& a, const ReportSymptom& b) {
      return std::make_tuple(a.explained_by.empty(), a.explained_by.size(), a.explained_by, -a.count, a.rule) <
             std::make_tuple(b.explained_by.empty(), b.explained_by.size(), b.explained_by, -b.count, b.rule);
    });
  }

  // Evidence ids in first-use order, written into every reference.
  void number_evidence() {
    auto ids = pool.finish(&r.evidence);
    for (auto& rc : r.root_causes) rename(rc.evidence, ids);
    for (auto& s : r.symptoms) rename(s.evidence, ids);
  }

  // Affected nodes: every workload node (or every host seen, without a node list).
  void add_affected_nodes(const std::vector<SourceCoverage>& sources, const EvidenceFacts& facts) {
    const Workload& w = r.workload;
    std::map<std::string, AffectedNode> nodes;
    for (const auto& h : w.nodes) nodes[h].host = h;
    std::set<std::string> covered;
    for (const auto& s : sources)
      for (const auto& h : s.hosts_covered) covered.insert(h);
    for (const auto& f : t.findings) {
      if (f.host.empty()) continue;
      if (!w.nodes.empty() && !nodes.count(f.host) && !f.unlisted && facts.unmatched_hosts.empty()) continue;
      AffectedNode& n = nodes[f.host];
      n.host = f.host;
      n.findings += f.count;
      if (f.rank >= 0) n.ranks.push_back(f.rank);
    }
    std::set<size_t> root_findings;
    for (const auto& rc : d.roots) root_findings.insert(rc.finding);
    for (size_t i : root_findings) {
      const Finding& f = t.findings[i];
      if (nodes.count(f.host) && (f.gpu >= 0 || !f.pci.empty()))
        nodes[f.host].gpus.push_back(!f.pci.empty() ? f.pci : std::to_string(f.gpu));
    }
    for (auto& [h, n] : nodes) {
      std::sort(n.ranks.begin(), n.ranks.end());
      n.ranks.erase(std::unique(n.ranks.begin(), n.ranks.end()), n.ranks.end());
      std::sort(n.gpus.begin(), n.gpus.end());
      n.gpus.erase(std::unique(n.gpus.begin(), n.gpus.end()), n.gpus.end());
      if (root_hosts.count(h)) n.role = "root_cause";
      else if (n.findings > 0) n.role = "symptomatic";
      else if (covered.count(h)) n.role = "clean";
      else n.role = "no_data";
      r.affected_nodes.push_back(n);
    }
  }
};

// The summary's pointer to the unread error lines, when the report lists some.
std::string unread_note(const Report& r) {
  return r.unread.empty() ? std::string()
                          : fmt::format(" {} line(s) that read like errors are listed as unread: no rule knows them.", r.unread.size());
}

// The outcome from the top root cause, or none found.
Outcome outcome_of(const Report& r) {
  Outcome o;
  if (r.root_causes.empty()) {
    o.category = "no_failure_signature";
    o.family = "unknown";
    o.blame = Blame::unknown;
    o.confidence = Confidence::low;
    int64_t n = 0;
    for (const auto& s : r.symptoms) n += s.count;
    o.summary = n ? fmt::format("{} error line(s) were found but none is a known cause, and they do not localise a suspect.", n)
                  : "No failure signature was found in the collected logs.";
    o.action = "Check the sources section for missing data; add sources or rules for this failure.";
    if (!r.unread.empty()) {
      o.summary += unread_note(r);
      o.action = "Start from the unread error lines (no rule reads them; the last is often where the job died); check "
                 "the sources section for missing data; add a rule for this failure.";
    }
    return o;
  }
  const ReportRootCause& top = r.root_causes.front();
  o.category = top.category;
  o.family = top.family;
  o.blame = top.blame;
  o.confidence = top.confidence;
  o.action = top.action;
  int64_t explained = 0;
  std::set<std::string> symptom_hosts;
  for (const auto& s : r.symptoms)
    if (s.explained_by == top.id) {
      explained += s.count;
      symptom_hosts.insert(s.hosts.begin(), s.hosts.end());
    }
  if (top.localised) {
    o.summary = fmt::format("No fault signature found; {}.", lower_first(top.title)) + unread_note(r);
  } else {
    o.summary = fmt::format("{} on {} is the root cause", top.title, where(top));
    if (explained > 0)
      o.summary += fmt::format("; {} later error line(s) on {} node(s) are its symptoms", explained, symptom_hosts.size());
    o.summary += ".";
  }
  if (r.root_causes.size() > 1 && !top.localised)
    o.summary += fmt::format(" {} other independent cause(s) are listed.", r.root_causes.size() - 1);
  for (const auto& rc : r.root_causes)
    if (rc.blame == Blame::infrastructure && !rc.host.empty() && !rc.localised) o.exclude_nodes.push_back(rc.host);
  std::sort(o.exclude_nodes.begin(), o.exclude_nodes.end());
  o.exclude_nodes.erase(std::unique(o.exclude_nodes.begin(), o.exclude_nodes.end()), o.exclude_nodes.end());
  return o;
}

// The unread error lines a report lists when it names no fault (no root cause, or only a localisation
// guessed from where the errors start), numbered U1..Un in the logs' order.
std::vector<ReportEvidence> unread_lines(const std::vector<ReportRootCause>& causes, const std::vector<Evidence>& lines) {
  std::vector<ReportEvidence> out;
  if (!std::all_of(causes.begin(), causes.end(), [](const ReportRootCause& rc) { return rc.localised; })) return out;
  for (const Evidence& e : lines) out.push_back(report_evidence(fmt::format("U{}", out.size() + 1), e));
  return out;
}

// Each source's coverage and every kept line, so equal inputs give equal digests.
std::string inputs_digest(const std::vector<SourceCoverage>& sources, const std::vector<Finding>& findings) {
  Sha256 dig;
  for (const auto& s : sources) dig.update(fmt::format("{}|{}|{}|{}|{}\n", s.name, s.kind, s.files, s.bytes, s.records));
  for (const auto& f : findings)
    for (const auto& e : f.evidence) dig.update(e.location).update("\x1f").update(e.text).update("\n");
  return dig.hex();
}

}  // namespace

Report build_report(const Workload& w, const Timeline& t, const Diagnosis& d, const RuleSet& rules,
                    std::vector<SourceCoverage> sources, const EvidenceFacts& facts) {
  Report r;
  r.tool_version = ATTRIBUTION_VERSION;
  r.workload = w;
  r.rule_count = rules.rules.size();
  r.ruleset_digest = rules.digest;
  r.benign_lines = t.benign;
  r.other_host_lines = t.other_hosts;
  note_duplicates(t.duplicates, sources);
  ReportBuilder b{t, d, rules, r, {}, {}};
  b.add_root_causes();
  b.add_symptoms();
  b.number_evidence();
  b.add_affected_nodes(sources, facts);
  r.unread = unread_lines(r.root_causes, facts.unread);
  r.outcome = outcome_of(r);
  r.inputs_digest = inputs_digest(sources, t.findings);
  int64_t bytes = 0;
  for (const auto& s : sources) bytes += s.bytes;
  r.usable_data = bytes > 0 || !t.findings.empty();
  r.limits = limits_of(r, sources);
  r.sources = std::move(sources);
  weigh_evidence(r, facts);
  return r;
}

}  // namespace attribution
