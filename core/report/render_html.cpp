// The HTML report: one page that opens offline from a ticket attachment. Inline CSS and inline
// SVG only, no script, nothing fetched (a Content-Security-Policy says so to the browser too), and
// no clock or random id: the same Report gives the same bytes. Every string from the logs, the
// scheduler or the config goes through html_escape; log lines may hold markup.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/report/render.hpp"

namespace attribution {

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

constexpr const char* kStyle = R"css(
:root { --ink: #1f2328; --muted: #59636e; --line: #d1d9e0; --soft: #f6f8fa; --root: #8b1a1a; --bad: #b42318; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff;
  font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1000px; margin: 0 auto; padding: 28px 20px 40px; }
h1 { font-size: 22px; margin: 0 0 2px; }
h2 { font-size: 16px; margin: 32px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 0 0 8px; }
p { margin: 6px 0; }
a { color: #0b5cad; text-decoration: none; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace; font-size: 12.5px; }
code { background: var(--soft); padding: 0 4px; border-radius: 3px; }
pre { background: var(--soft); border: 1px solid #e6eaef; border-radius: 4px; padding: 6px 10px; margin: 4px 0 0;
  white-space: pre-wrap; overflow-wrap: anywhere; }
.meta, .muted { color: var(--muted); }
.meta { margin-bottom: 18px; }
.card { border: 1px solid var(--line); border-left: 5px solid #8c959f; border-radius: 6px; padding: 12px 16px; margin: 12px 0; }
.outcome.blame-infrastructure, .cause { border-left-color: var(--root); }
.outcome.blame-infrastructure { background: #fdf4f4; }
.outcome.blame-application { border-left-color: #9a6700; background: #fff8e5; }
.outcome.blame-scheduler { border-left-color: #6639ba; background: #f6f1ff; }
.outcome .summary { font-size: 16px; font-weight: 600; margin: 0 0 8px; }
.label { font-size: 11px; font-weight: 700; letter-spacing: .06em; text-transform: uppercase; color: var(--muted); }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 3px 16px; margin: 6px 0 0; }
dt { color: var(--muted); }
dd { margin: 0; min-width: 0; }
.badge { display: inline-block; padding: 0 8px; border-radius: 10px; border: 1px solid var(--line); background: #fff;
  font-size: 12px; font-weight: 600; }
.conf-high { border-color: #4ac26b; color: #1a7f37; }
.conf-medium { border-color: #d4a72c; color: #9a6700; }
.conf-low { border-color: #d1242f; color: var(--bad); }
.rid { color: var(--root); margin-right: 6px; }
.caveats { margin: 8px 0 0; padding-left: 20px; color: #9a6700; }
.action { border-left-color: #0b5cad; }
.exclude code { color: var(--root); font-weight: 600; }
.figure { border: 1px solid var(--line); border-radius: 6px; padding: 6px 0; }
.figure svg { display: block; width: 100%; height: auto; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; vertical-align: top; padding: 5px 8px; border-bottom: 1px solid #e6eaef; }
th { background: var(--soft); font-weight: 600; }
th.num, td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.where { min-width: 10em; }
td.ids { white-space: nowrap; }
.bad { color: var(--bad); font-weight: 600; }
.problems { margin: 2px 0 0; padding-left: 18px; color: var(--bad); }
.ev { padding: 6px 0; border-bottom: 1px solid #eef1f4; }
.ev-head { font-size: 13px; }
.ev-head b { display: inline-block; min-width: 3em; }
.ev.root { border-left: 3px solid var(--root); padding-left: 8px; }
.ev.root b { color: var(--root); }
.bounds { margin-top: 12px; }
footer { margin-top: 36px; padding-top: 10px; border-top: 1px solid var(--line); color: var(--muted); font-size: 12px; }
footer code { overflow-wrap: anywhere; }
@media print {
  main { max-width: none; padding: 0; }
  body { font-size: 10.5pt; }
  h2 { break-after: avoid; }
  .card, .ev, tr, .figure { break-inside: avoid; }
  .figure { overflow: visible; border: none; }
  a { color: inherit; }
}
)css";

std::string esc(std::string_view s) { return html_escape(s); }

// "E1, E2" as links to the evidence entries below.
std::string evidence_links(const std::vector<std::string>& ids) {
  std::string out;
  for (size_t i = 0; i < ids.size(); ++i)
    out += fmt::format("{}<a href=\"#{}\">{}</a>", i ? ", " : "", esc(ids[i]), esc(ids[i]));
  return out.empty() ? "none" : out;
}

void row(std::string& o, std::string_view name, const std::string& html) {
  if (!html.empty()) o += fmt::format("<dt>{}</dt><dd>{}</dd>\n", name, html);
}

void head(std::string& o, const Report& r) {
  const Workload& w = r.workload;
  std::string title = "Workload " + w.id + (w.name.empty() ? "" : " (" + w.name + ")");
  o += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  // Belt and braces: even a markup slip could load or run nothing.
  o += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n";
  o += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  o += fmt::format("<meta name=\"generator\" content=\"attribution {}\">\n", esc(r.tool_version));
  o += fmt::format("<title>{}: {}</title>\n", esc(title), esc(r.outcome.category));
  o += fmt::format("<style>{}</style>\n</head>\n<body>\n<main>\n", kStyle);
  o += fmt::format("<h1>Diagnosis of workload {}{}</h1>\n", esc(w.id), w.name.empty() ? "" : " <span class=\"muted\">(" + esc(w.name) + ")</span>");
  std::string facts = "scheduler " + esc(w.scheduler);
  if (!w.user.empty()) facts += ", user " + esc(w.user);
  if (!w.state.empty()) facts += ", state <b>" + esc(w.state) + "</b>";
  if (w.exit_code) facts += fmt::format(", exit code {}", *w.exit_code);
  if (w.exit_signal && *w.exit_signal) facts += fmt::format(", signal {}", *w.exit_signal);
  facts += fmt::format(", {} node(s)", r.affected_nodes.size());
  if (w.start && w.end) facts += fmt::format(", {} to {}", short_time(*w.start, false), short_time(*w.end, false));
  o += "<p class=\"meta\">" + facts + "</p>\n";
}

void outcome(std::string& o, const Report& r) {
  const Outcome& out = r.outcome;
  o += fmt::format("<section class=\"card outcome blame-{}\" id=\"outcome\">\n<div class=\"label\">Outcome</div>\n", to_string(out.blame));
  o += "<p class=\"summary\">" + esc(out.summary) + "</p>\n<dl>\n";
  row(o, "Family", "<code>" + esc(out.family) + "</code>");
  row(o, "Category", "<code>" + esc(out.category) + "</code>");
  row(o, "Blame", fmt::format("<span class=\"badge\">{}</span>", to_string(out.blame)));
  row(o, "Confidence", fmt::format("<span class=\"badge conf-{0}\">{0}</span>", to_string(out.confidence)));
  o += "</dl>\n";
  if (!out.caveats.empty()) {
    o += "<ul class=\"caveats\">\n";
    for (const auto& c : out.caveats) o += "<li>" + esc(c) + "</li>\n";
    o += "</ul>\n";
  }
  o += "</section>\n";
}

void root_cause(std::string& o, const ReportRootCause& rc, const Report& r) {
  o += fmt::format("<article class=\"card cause\" id=\"{}\">\n<h3><span class=\"rid\">{}</span>{}</h3>\n<dl>\n", esc(rc.id),
                   esc(rc.id), esc(rc.title));
  row(o, "Where", "<b>" + esc(where(rc)) + "</b>");
  std::string seen = esc(short_time(rc.first_seen, rc.time_inferred));
  if (rc.count > 1) seen += fmt::format(", {} lines until {}", rc.count, esc(short_time(rc.last_seen, rc.time_inferred)));
  row(o, "First seen", seen);
  row(o, "Rule", fmt::format("<code>{}</code> ({} / {}{})", esc(rc.rule), esc(rc.family), esc(rc.category),
                             rc.localised ? ", a localisation" : ""));
  row(o, "Blame", fmt::format("{0}; confidence <span class=\"badge conf-{1}\">{1}</span>", to_string(rc.blame),
                              to_string(rc.confidence)));
  row(o, "Explains", fmt::format("{} later error(s)", rc.explains));
  if (!rc.message.empty() && !rc.localised) row(o, "Says", "<pre>" + esc(rc.message) + "</pre>");
  if (!rc.detail.empty()) row(o, "Detail", esc(rc.detail));
  if (!rc.action.empty() && rc.action != r.outcome.action) row(o, "Action", esc(rc.action));
  row(o, "Evidence", evidence_links(rc.evidence));
  o += "</dl>\n</article>\n";
}

void root_causes(std::string& o, const Report& r) {
  o += fmt::format("<h2 id=\"root-causes\">Root cause{}</h2>\n", r.root_causes.size() > 1 ? "s" : "");
  if (r.root_causes.empty()) o += "<p class=\"muted\">None found.</p>\n";
  for (const auto& rc : r.root_causes) root_cause(o, rc, r);
}

void action(std::string& o, const Report& r) {
  const Outcome& out = r.outcome;
  o += "<section class=\"card action\" id=\"action\">\n<div class=\"label\">Action</div>\n<p>" + esc(out.action) + "</p>\n";
  o += "<p class=\"exclude\"><b>Exclude on requeue:</b> ";
  if (out.exclude_nodes.empty()) o += "<span class=\"muted\">no node (no infrastructure root cause)</span>";
  for (size_t i = 0; i < out.exclude_nodes.size(); ++i)
    o.append(i ? " <code>" : "<code>").append(esc(out.exclude_nodes[i])).append("</code>");
  o += "</p>\n</section>\n";
}

// Node roles in one line under the picture; nodes without data named, since no row can show them.
std::string node_summary(const Report& r) {
  std::map<std::string, int> roles;
  std::vector<std::string> no_data;
  for (const auto& n : r.affected_nodes) {
    ++roles[n.role];
    if (n.role == "no_data") no_data.push_back(n.host);
  }
  std::string s = fmt::format("{} node(s)", r.affected_nodes.size());
  const char* order[][2] = {{"root_cause", "root cause"}, {"symptomatic", "symptomatic"}, {"clean", "clean"}, {"no_data", "no data"}};
  for (const auto& pair : order)
    if (roles.count(pair[0])) s += fmt::format(", {} {}", roles[pair[0]], pair[1]);
  if (!no_data.empty()) s += ". No data from " + esc(join_strings(no_data, 20));
  return s + ".";
}

void timeline(std::string& o, const Report& r) {
  o += "<h2 id=\"timeline\">Timeline</h2>\n<div class=\"figure\">\n" + render_timeline_svg(r) + "</div>\n";
  o += "<p class=\"muted\">" + node_summary(r) +
       " Hover a mark for its rule, host and time. Rows are nodes; above 64 nodes, nodes with the same symptoms share "
       "a row.</p>\n";
}

void symptoms(std::string& o, const Report& r) {
  o += "<h2 id=\"symptoms\">Symptoms and what explains them</h2>\n";
  if (r.symptoms.empty()) {
    o += "<p class=\"muted\">None found.</p>\n";
    return;
  }
  std::map<std::string, std::string> titles;
  for (const auto& rc : r.root_causes) titles[rc.id] = rc.title;
  o += "<table>\n<tr><th class=\"num\">lines</th><th>what</th><th>where</th><th>explained by</th><th>evidence</th></tr>\n";
  for (const auto& s : r.symptoms) {
    std::string who = esc(join_strings(s.hosts, 8));
    if (!s.ranks.empty()) who += "<br><span class=\"muted\">ranks " + join_ints(s.ranks) + "</span>";
    std::string why = "<span class=\"bad\">not explained by any root cause</span>";
    if (!s.explained_by.empty()) {
      auto t = titles.find(s.explained_by);
      why = fmt::format("<a href=\"#{0}\">{0}</a> {1}<br><span class=\"muted\">{2}</span>", esc(s.explained_by),
                        t == titles.end() ? "" : esc(t->second), esc(s.why));
    }
    o += fmt::format("<tr><td class=\"num\">{}</td><td>{}{}<br><code>{}</code></td><td class=\"where\">{}</td><td>{}</td><td class=\"ids\">{}</td></tr>\n",
                     s.count, esc(s.title), s.role == "cause" ? " <span class=\"badge\">secondary cause</span>" : "",
                     esc(s.rule), who, why, evidence_links(s.evidence));
  }
  o += "</table>\n";
}

// Which root causes and symptom rules cite each line: "R1", "pytorch.watchdog-timeout".
std::map<std::string, std::vector<std::string>> citations(const Report& r) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& rc : r.root_causes)
    for (const auto& id : rc.evidence) out[id].push_back(fmt::format("<a href=\"#{0}\">{0}</a>", esc(rc.id)));
  for (const auto& s : r.symptoms)
    for (const auto& id : s.evidence) {
      auto& v = out[id];
      std::string rule = esc(s.rule);
      if (std::find(v.begin(), v.end(), rule) == v.end()) v.push_back(rule);
    }
  return out;
}

// One evidence line: its id, time, file:line, host and rank, a note (source, citing causes), the text.
void evidence_entry(std::string& o, const ReportEvidence& e, bool root, const std::string& note) {
  std::string who = e.host.empty() ? "" : " on " + esc(e.host);
  if (e.rank >= 0) who += fmt::format(" rank {}", e.rank);
  o += fmt::format("<div class=\"ev{}\" id=\"{}\"><div class=\"ev-head\"><b>{}</b> {} <code>{}</code>{}{}</div>\n<pre>{}</pre></div>\n",
                   root ? " root" : "", esc(e.id), esc(e.id), esc(short_time(e.time, e.time_inferred)), esc(e.location), who,
                   note.empty() ? "" : " <span class=\"muted\">(" + note + ")</span>", esc(e.text));
}

void evidence(std::string& o, const Report& r) {
  o += "<h2 id=\"evidence\">Evidence</h2>\n";
  if (r.evidence.empty()) o += "<p class=\"muted\">None.</p>\n";
  auto cited = citations(r);
  for (const auto& e : r.evidence) {
    const auto& by = cited[e.id];
    std::string note = e.source.empty() ? "" : esc(e.source);
    for (const auto& c : by) note += (note.empty() ? "" : ", ") + c;
    evidence_entry(o, e, !by.empty() && by.front().rfind("<a ", 0) == 0, note);
  }
}

// With no root cause: the lines that read like errors and that no rule read, where to start.
void unread(std::string& o, const Report& r) {
  if (r.unread.empty()) return;
  o += "<h2 id=\"unread\">Unread error lines</h2>\n<p class=\"muted\">No rule reads these lines: start here (the last is "
       "often where the job died).</p>\n";
  for (const auto& e : r.unread) evidence_entry(o, e, false, "");
}

void sources(std::string& o, const Report& r) {
  o += "<h2 id=\"sources\">Source coverage</h2>\n<table>\n<tr><th>source</th><th>kind</th><th>status</th><th class=\"num\">files</th>"
       "<th class=\"num\">bytes</th><th class=\"num\">records</th><th class=\"num\">hosts</th><th>reason</th></tr>\n";
  for (const auto& s : r.sources) {
    bool bad = s.status == SourceStatus::error || s.status == SourceStatus::empty || s.status == SourceStatus::partial;
    std::string hosts = s.hosts_expected ? fmt::format("{}/{}", s.hosts_covered.size(), s.hosts_expected)
                                         : std::to_string(s.hosts_covered.size());
    std::string reason = esc(s.reason);
    if (!s.problems.empty()) {
      reason += "<ul class=\"problems\">";
      for (const auto& p : s.problems) reason += "<li>" + esc(p) + "</li>";
      reason += "</ul>";
    }
    o += fmt::format("<tr><td>{}</td><td>{}</td><td{}>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                     "<td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n",
                     esc(s.name), esc(s.kind), bad ? " class=\"bad\"" : "", to_string(s.status), s.files, s.bytes,
                     s.records, hosts, reason);
  }
  o += "</table>\n";
}

void limits_and_footer(std::string& o, const Report& r) {
  const Limits& l = r.limits;
  o += fmt::format("<p class=\"muted bounds\">Bounds: evidence texts kept up to {} bytes; {} lines per finding, {} per symptom; "
                   "{} distinct findings in all ({} per file).</p>\n",
                   l.evidence_text_bytes, l.evidence_per_finding, l.evidence_per_symptom, l.findings, l.findings_per_file);
  if (std::string hit = limits_hit(l); !hit.empty()) o += "<p class=\"bad\">Limits hit: " + esc(hit) + "</p>\n";
  o += "<footer>\n<p>~ before a time: the line has no time of its own and takes its neighbour's. "
       "&ldquo;Explains N&rdquo;: the later errors (symptoms and secondary causes) a root cause accounts for.</p>\n";
  o += fmt::format("<p>attribution {} &middot; report {} &middot; ruleset {} rules, sha256 <code>{}</code> &middot; "
                   "inputs sha256 <code>{}</code></p>\n</footer>\n",
                   esc(r.tool_version), kSchemaVersion, r.rule_count, esc(r.ruleset_digest), esc(r.inputs_digest));
}

}  // namespace

std::string render_html(const Report& r) {
  std::string o;
  head(o, r);
  outcome(o, r);
  root_causes(o, r);
  action(o, r);
  unread(o, r);
  timeline(o, r);
  symptoms(o, r);
  evidence(o, r);
  sources(o, r);
  limits_and_footer(o, r);
  o += "</main>\n</body>\n</html>\n";
  return o;
}

}  // namespace attribution
