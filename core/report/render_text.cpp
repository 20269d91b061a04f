#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/report/render.hpp"

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

namespace {

// Lines that fit `width` columns: words wrapped, continuation lines indented by `indent` (a word
// longer than a line is cut). UTF-8 continuation bytes take no column.
class Wrapped {
 public:
  explicit Wrapped(size_t width) : width_(width) {}
  void line(std::string_view text, size_t indent = 0) {
    if (width_ == 0 || columns(text) <= width_) {
      out_.append(text) += '\n';
      return;
    }
    // Words with the spaces before them kept as written, except where a line breaks.
    std::string cur;
    size_t col = 0;
    for (size_t i = 0; i < text.size();) {
      size_t word_at = text.find_first_not_of(' ', i);
      if (word_at == std::string_view::npos) break;
      size_t end = text.find(' ', word_at);
      if (end == std::string_view::npos) end = text.size();
      std::string_view gap = text.substr(i, word_at - i), word = text.substr(word_at, end - word_at);
      size_t w = columns(word);
      if (col > indent && col + gap.size() + w > width_) {
        out_ += cur + '\n';
        cur.assign(indent, ' ');
        col = indent;
        gap = {};
      }
      if (w > width_ - std::min(width_, col + gap.size())) {
        word = cut(word, width_ > col + gap.size() ? width_ - col - gap.size() : 1);
        w = columns(word);
      }
      cur.append(gap).append(word);
      col += gap.size() + w;
      i = end;
    }
    out_ += cur + '\n';
  }
  // One line cut to the width, "..." marking the cut: evidence text (JSON and Markdown keep it whole).
  void cut_line(std::string_view text) {
    if (width_ == 0 || columns(text) <= width_) out_.append(text) += '\n';
    else (out_.append(cut(text, width_ - 3)) += "...") += '\n';
  }
  std::string take() { return std::move(out_); }

 private:
  static size_t columns(std::string_view s) {
    size_t n = 0;
    for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return n;
  }
  static std::string_view cut(std::string_view s, size_t cols) {
    size_t n = 0, i = 0;
    for (; i < s.size(); ++i) {
      if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && n++ == cols) break;
    }
    return s.substr(0, i);
  }
  size_t width_;
  std::string out_;
};

// A titled list of evidence lines (id, time, file:line, host, then the line cut to the width); none: nothing.
void evidence_section(Wrapped& o, std::string_view title, const std::vector<ReportEvidence>& lines) {
  if (lines.empty()) return;
  o.line("");
  o.line(std::string(title));
  for (const auto& e : lines) {
    o.line(fmt::format("  {:<4} {} {} {}", e.id, short_time(e.time, e.time_inferred), e.location,
                       e.host.empty() ? "" : "[" + e.host + "]"), 7);
    o.cut_line("       " + e.text);
  }
}

}  // namespace

std::string render_text(const Report& r, size_t width) {
  Wrapped o(width);
  auto line = [&](std::string s) { o.line(s); };
  auto field = [&](const char* name, const std::string& value) { o.line(fmt::format("{:<12}{}", name, value), 12); };
  const Workload& w = r.workload;
  std::string head = fmt::format("attribution {} | workload {}", r.tool_version, w.id);
  if (!w.name.empty()) head += fmt::format(" ({})", w.name);
  if (!w.state.empty()) head += " " + w.state;
  if (w.exit_code) head += fmt::format(" exit {}", *w.exit_code);
  if (w.exit_signal && *w.exit_signal) head += fmt::format(" signal {}", *w.exit_signal);
  head += fmt::format(" | {} node(s)", r.affected_nodes.size());
  if (w.start && w.end) head += fmt::format(" | {} .. {}", short_time(*w.start, false), short_time(*w.end, false));
  o.line(head, 2);
  line("");
  const Outcome& out = r.outcome;
  field("OUTCOME", fmt::format("{} ({}); blame {}; confidence {}", out.category, out.family, to_string(out.blame), to_string(out.confidence)));
  if (!out.caveats.empty()) field("CAVEATS", fmt::format("{}", fmt::join(out.caveats, "; ")));
  if (!r.root_causes.empty()) {
    const auto& top = r.root_causes.front();
    field("ROOT CAUSE", fmt::format("{}: {}", where(top), top.title));
    if (!top.message.empty() && !top.localised) field("", "says: " + top.message);
    field("", fmt::format("first seen {}{}", short_time(top.first_seen, top.time_inferred),
                          top.count > 1 ? fmt::format(", {} lines until {}", top.count, short_time(top.last_seen, top.time_inferred)) : ""));
  }
  field("ACTION", out.action);
  if (!out.exclude_nodes.empty()) field("EXCLUDE", join_strings(out.exclude_nodes, 50));
  field("SUMMARY", out.summary);

  if (!r.root_causes.empty()) {
    line("");
    line("Root causes");
    for (const auto& rc : r.root_causes) {
      o.line(fmt::format("  {}  {}  {}  [{}/{}, blame {}, confidence {}]", rc.id, where(rc),
                         rc.title, rc.family, rc.category, to_string(rc.blame), to_string(rc.confidence)), 6);
      o.line(fmt::format("      rule {}; {} line(s) {} .. {}; explains {}; evidence {}", rc.rule, rc.count,
                         short_time(rc.first_seen, rc.time_inferred), short_time(rc.last_seen, rc.time_inferred),
                         rc.explains, join_strings(rc.evidence, 6)), 6);
      if (!rc.detail.empty()) o.line("      " + rc.detail, 6);
    }
  }
  evidence_section(o, "Unread error lines (no rule reads them: start here)", r.unread);
  if (!r.symptoms.empty()) {
    line("");
    line("Symptoms (why the other errors are not the cause)");
    for (const auto& s : r.symptoms) {
      std::string who = s.hosts.empty() ? "" : fmt::format(" on {}", join_strings(s.hosts, 6));
      if (!s.ranks.empty()) who += fmt::format(" ranks {}", join_ints(s.ranks));
      o.line(fmt::format("  {:>6}x {}{} [{}]", s.count, s.title, who, s.rule), 10);
      if (!s.explained_by.empty()) o.line(fmt::format("          explained by {}: {}", s.explained_by, s.why), 10);
      else line("          not explained by any root cause");
    }
  }
  line("");
  line("Nodes");
  for (const auto& n : r.affected_nodes) {
    std::string extra;
    if (!n.gpus.empty()) extra += " gpus " + join_strings(n.gpus, 8);
    if (!n.ranks.empty()) extra += " ranks " + join_ints(n.ranks);
    o.line(fmt::format("  {:<16} {:<12}{}", n.host, n.role, extra), 31);
  }
  evidence_section(o, "Evidence", r.evidence);
  line("");
  line("Sources");
  for (const auto& s : r.sources) {
    std::string hosts = s.hosts_expected ? fmt::format(", hosts {}/{}", s.hosts_covered.size(), s.hosts_expected) : "";
    o.line(fmt::format("  {:<14} {:<8} {:<8} {} file(s), {} bytes, {} record(s){}{}", s.name, s.kind, to_string(s.status),
                       s.files, s.bytes, s.records, hosts, s.reason.empty() ? "" : " - " + s.reason), 4);
  }
  if (std::string hit = limits_hit(r.limits); !hit.empty()) {
    line("");
    o.line("Limits: " + hit, 4);
  }
  line("");
  o.line("~ before a time: the line has no time of its own and takes its neighbour's. \"explains N\": the later errors "
         "(symptoms and secondary causes) a root cause accounts for. Full texts: --format json or markdown.", 2);
  o.line(fmt::format("ruleset {} rules sha256:{} | inputs sha256:{}", r.rule_count, r.ruleset_digest.substr(0, 16),
                     r.inputs_digest.substr(0, 16)), 2);
  return o.take();
}

}  // namespace attribution
