// The timeline picture of a report (render.hpp): one row per node, time across the workload
// window, the root cause in dark red, symptoms shaded by rule. Presentation attributes only, no
// stylesheet, so the <svg> looks the same in the HTML report and in a page that embeds it alone.
// No xmlns URL either: an <svg> inside HTML gets its namespace from the parser, and the page
// must name nothing it could fetch.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <set>

#include "core/report/render.hpp"

namespace attribution {
namespace {

constexpr double kWidth = 960, kPlotLeft = 230, kPlotRight = 940, kTop = 30, kRowHeight = 18;
constexpr size_t kMaxNodeRows = 64;   // above this many nodes, nodes are grouped by their symptoms
constexpr size_t kMaxRootRows = 16;   // root-cause nodes that keep a row of their own when grouping
constexpr size_t kMaxGroupRows = 40;  // the smallest groups past this fold into one "other" row
constexpr size_t kLabelChars = 38;    // what fits the label column at 11px
constexpr size_t kLegendRules = 27;   // nine lines of the key; the rest are named by their tooltips
constexpr const char* kRootColour = "#8b1a1a";
constexpr const char* kOtherColour = "#6e7781";  // a line in the evidence no root cause or symptom lists
constexpr const char* kFont = "system-ui, -apple-system, 'Segoe UI', Roboto, Arial, sans-serif";
// Muted hues (Tableau 10 without its red: red means root cause here). Past ten rules the shape
// changes too, so two rules never look the same.
constexpr const char* kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2",
                                    "#edc948", "#9c755f", "#a0cbe8", "#bab0ac", "#86bcb6"};
constexpr size_t kPaletteSize = std::size(kPalette);
enum Shape { circle, square, triangle, diamond };

bool known(Micros t) { return t != kTimeUnknown && t > 0; }

// A label cut to `n` characters (UTF-8 aware) with an ellipsis.
std::string clip(const std::string& s, size_t n) {
  size_t chars = 0, i = 0;
  for (; i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && chars++ == n - 1) break;
  return i >= s.size() ? s : s.substr(0, i) + "\xE2\x80\xA6";
}

struct Row {
  std::string label, tooltip;
  bool root = false;
  std::vector<std::string> hosts;
};

// What the report says about each host, and the hosts in row order: workload nodes first (the
// report's order), then hosts only evidence, a root cause or a symptom names, then lines with no host.
struct Hosts {
  std::vector<std::string> order;
  std::map<std::string, std::set<std::string>> rules;
  std::map<std::string, std::string> role;
  std::set<std::string> roots;
};

Hosts hosts_of(const Report& r) {
  Hosts h;
  std::set<std::string> extra;
  for (const auto& n : r.affected_nodes) {
    if (!h.role.count(n.host)) h.order.push_back(n.host);
    h.role[n.host] = n.role;
    if (n.role == "root_cause") h.roots.insert(n.host);
  }
  for (const auto& e : r.evidence) extra.insert(e.host);
  for (const auto& rc : r.root_causes) extra.insert(rc.host), h.roots.insert(rc.host);
  for (const auto& s : r.symptoms)
    for (const auto& host : s.hosts) h.rules[host].insert(s.rule), extra.insert(host);
  for (const auto& host : extra)
    if (!host.empty() && !h.role.count(host)) h.order.push_back(host);
  if (extra.count("")) h.order.push_back("");
  return h;
}

std::string host_label(const std::string& host) { return host.empty() ? "(no host)" : host; }

std::string role_words(std::string role) {
  std::replace(role.begin(), role.end(), '_', ' ');
  return role;
}

Row node_row(const Hosts& h, const std::string& host) {
  Row row{host_label(host), host_label(host), h.roots.count(host) > 0, {host}};
  if (auto it = h.role.find(host); it != h.role.end()) row.tooltip += fmt::format(" ({})", role_words(it->second));
  if (auto it = h.rules.find(host); it != h.rules.end())
    row.tooltip.append("\n").append(join_strings({it->second.begin(), it->second.end()}, 20));
  return row;
}

// Many nodes: root-cause nodes keep their rows; the others share one row per set of symptom rules
// ("37 nodes: a, b"), so a thousand-node job still draws a picture of a few dozen rows.
std::vector<Row> grouped_rows(const Hosts& h) {
  std::vector<Row> rows;
  std::map<std::vector<std::string>, std::vector<std::string>> groups;
  for (const auto& host : h.order) {
    if (h.roots.count(host) && rows.size() < kMaxRootRows) {
      rows.push_back(node_row(h, host));
      continue;
    }
    auto it = h.rules.find(host);
    std::vector<std::string> key;
    if (it != h.rules.end()) key.assign(it->second.begin(), it->second.end());
    if (h.roots.count(host)) key.insert(key.begin(), "root cause");
    if (key.empty()) key.push_back(h.role.count(host) ? role_words(h.role.at(host)) : "no findings");
    groups[key].push_back(host);
  }
  std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> sorted(groups.begin(), groups.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  bool fold = sorted.size() > kMaxGroupRows;
  for (size_t i = 0; i < sorted.size(); ++i) {
    const auto& key = sorted[i].first;
    const auto& hosts = sorted[i].second;
    if (fold && i + 1 >= kMaxGroupRows) {  // the smallest groups share one last row
      if (i + 1 == kMaxGroupRows) rows.push_back(Row{});
      Row& other = rows.back();
      other.hosts.insert(other.hosts.end(), hosts.begin(), hosts.end());
      other.label = fmt::format("{} other nodes", other.hosts.size());
      other.tooltip = other.label + ": " + join_strings(other.hosts, 12);
      continue;
    }
    if (hosts.size() == 1) {
      rows.push_back(node_row(h, hosts.front()));
      continue;
    }
    Row row{fmt::format("{} nodes: {}", hosts.size(), join_strings(key, 50)), "", false, hosts};
    if (row.label.size() > kLabelChars && key.size() > 1)
      row.label = fmt::format("{} nodes: {} +{}", hosts.size(), key.front(), key.size() - 1);
    row.tooltip = fmt::format("{} nodes: {}\n{}", hosts.size(), join_strings(hosts, 12), join_strings(key, 50));
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<Row> rows_of(const Hosts& h) {
  if (h.order.size() > kMaxNodeRows) return grouped_rows(h);
  std::vector<Row> rows;
  for (const auto& host : h.order) rows.push_back(node_row(h, host));
  return rows;
}

// Time across the plot: the workload window when known, widened to every time the report gives.
class Scale {
 public:
  static std::optional<Scale> of(const Report& r) {
    Micros lo = INT64_MAX, hi = INT64_MIN;
    auto take = [&](Micros t) {
      if (known(t)) lo = std::min(lo, t), hi = std::max(hi, t);
    };
    for (const auto& e : r.evidence) take(e.time);
    for (const auto& rc : r.root_causes) take(rc.first_seen), take(rc.last_seen);
    for (const auto& s : r.symptoms) take(s.first_seen);
    const Workload& w = r.workload;
    bool window = w.window_known && w.window.end > w.window.start;
    if (window) take(w.window.start), take(w.window.end);
    if (lo > hi) return std::nullopt;
    // Evidence alone: a margin, so the first and last marks sit inside the frame.
    Micros pad = window ? 0 : std::max<Micros>((hi - lo) / 30, 5 * kMicrosPerSecond);
    return Scale(lo - pad, hi + pad);
  }
  double x(Micros t) const {
    return kPlotLeft + (kPlotRight - kPlotLeft) * static_cast<double>(t - lo_) / static_cast<double>(hi_ - lo_);
  }
  Micros lo() const { return lo_; }
  Micros hi() const { return hi_; }

 private:
  Scale(Micros lo, Micros hi) : lo_(lo), hi_(hi) {}
  Micros lo_, hi_;
};

// Symptom rules in sorted order give each its colour and shape: the same report draws the same.
struct Style {
  const char* colour;
  Shape shape;
};

std::map<std::string, Style> rule_styles(const Report& r) {
  std::set<std::string> rules;
  for (const auto& s : r.symptoms) rules.insert(s.rule);
  std::map<std::string, Style> out;
  size_t i = 0;
  for (const auto& rule : rules) {
    out[rule] = Style{kPalette[i % kPaletteSize], static_cast<Shape>((i / kPaletteSize) % 3)};
    ++i;
  }
  return out;
}

// One mark with its tooltip; hollow (stroke only) when its time was inferred.
void mark(std::string& o, Shape shape, double x, double y, const char* colour, bool hollow, const std::string& tip,
          double size = 4) {
  std::string paint = hollow ? fmt::format(R"(fill="none" stroke="{}" stroke-width="1.5")", colour)
                             : fmt::format(R"(fill="{}" stroke="#ffffff" stroke-width="0.6")", colour);
  std::string d;
  switch (shape) {
    case circle: o += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="{:.1f}" {}>)", x, y, size, paint); break;
    case square:
      d = fmt::format("M{:.1f} {:.1f}h{:.1f}v{:.1f}h{:.1f}z", x - size, y - size, 2 * size, 2 * size, -2 * size);
      break;
    case triangle:
      d = fmt::format("M{:.1f} {:.1f}L{:.1f} {:.1f}L{:.1f} {:.1f}z", x, y - size - 1, x + size + 1, y + size, x - size - 1, y + size);
      break;
    case diamond:
      d = fmt::format("M{:.1f} {:.1f}L{:.1f} {:.1f}L{:.1f} {:.1f}L{:.1f} {:.1f}z", x, y - size, x + size, y, x, y + size, x - size, y);
      break;
  }
  if (!d.empty()) o += fmt::format(R"(<path d="{}" {}>)", d, paint);
  if (!tip.empty()) o += "<title>" + html_escape(tip) + "</title>";
  o += shape == circle ? "</circle>\n" : "</path>\n";
}

double row_y(size_t i) { return kTop + kRowHeight * (static_cast<double>(i) + 0.5); }

void draw_rows(std::string& o, const std::vector<Row>& rows) {
  for (size_t i = 0; i < rows.size(); ++i) {
    double top = kTop + kRowHeight * static_cast<double>(i);
    if (i % 2 == 0) o += fmt::format(R"(<rect x="0" y="{:.1f}" width="{}" height="{}" fill="#f6f7f9"/>)", top, kWidth, kRowHeight) + "\n";
    o += fmt::format(R"(<text x="8" y="{:.1f}" fill="{}"{}>{}<title>{}</title></text>)", row_y(i) + 4,
                     rows[i].root ? kRootColour : "#33383d", rows[i].root ? R"( font-weight="bold")" : "",
                     html_escape(clip(rows[i].label, kLabelChars)), html_escape(rows[i].tooltip)) + "\n";
  }
}

// The margins of the window outside the job's own start..end, shaded: before it started, after it ended.
void draw_job_bounds(std::string& o, const Scale& s, const Workload& w, double bottom) {
  auto shade = [&](Micros a, Micros b) {
    double x0 = s.x(std::max(a, s.lo())), x1 = s.x(std::min(b, s.hi()));
    if (x1 - x0 >= 0.5)
      o += fmt::format(R"(<rect x="{:.1f}" y="{}" width="{:.1f}" height="{:.1f}" fill="#e9ebee" opacity="0.7"><title>outside the job's run (window margin)</title></rect>)",
                       x0, kTop, x1 - x0, bottom - kTop) + "\n";
  };
  if (w.start && known(*w.start)) shade(s.lo(), *w.start);
  if (w.end && known(*w.end)) shade(*w.end, s.hi());
}

// A few UTC ticks at round steps, grid lines through the rows, labels under the axis.
void draw_axis(std::string& o, const Scale& s, double bottom) {
  static constexpr Micros kSteps[] = {1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800,
                                      21600, 43200, 86400, 172800, 604800, 2592000};
  Micros step = kSteps[std::size(kSteps) - 1] * kMicrosPerSecond;
  for (Micros st : kSteps)
    if ((s.hi() - s.lo()) / (st * kMicrosPerSecond) <= 7) {
      step = st * kMicrosPerSecond;
      break;
    }
  std::string first = format_rfc3339(s.lo()), last = format_rfc3339(s.hi());
  bool days = first.substr(0, 10) != last.substr(0, 10);
  o += fmt::format(R"(<line x1="{}" y1="{:.1f}" x2="{}" y2="{:.1f}" stroke="#8c959f"/>)", kPlotLeft, bottom, kPlotRight, bottom) + "\n";
  for (Micros t = (s.lo() / step + (s.lo() % step > 0)) * step; t <= s.hi(); t += step) {
    double x = s.x(t);
    std::string at = format_rfc3339(t);
    std::string label = days ? at.substr(5, 5) + " " + at.substr(11, 5) : at.substr(11, step < 60 * kMicrosPerSecond ? 8 : 5);
    o += fmt::format(R"(<line x1="{:.1f}" y1="{}" x2="{:.1f}" y2="{:.1f}" stroke="#d0d7de" stroke-dasharray="2 3"/>)", x, kTop, x, bottom) + "\n";
    o += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="middle" fill="#57606a">{}</text>)", x, bottom + 14, label) + "\n";
  }
  o += fmt::format(R"(<text x="8" y="{:.1f}" fill="#57606a">UTC, {}{}</text>)", bottom + 14, first.substr(0, 10),
                   days ? " to " + last.substr(0, 10) : "") + "\n";
}

// Root causes: a line at first seen across the rows (solid for the top one, dashed for the second),
// a diamond on the node's row, and a bar to last seen when the burst lasted.
void draw_roots(std::string& o, const Report& r, const Scale& s, const std::map<std::string, size_t>& row_of, double bottom) {
  for (size_t i = 0; i < r.root_causes.size(); ++i) {
    const auto& rc = r.root_causes[i];
    if (!known(rc.first_seen)) continue;
    double x = s.x(rc.first_seen);
    if (i < 2) {  // the top two; more lines would hide the rows
      o += fmt::format(R"(<line x1="{:.1f}" y1="{}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="{}"{}/>)", x, kTop - 4, x,
                       bottom, kRootColour, i == 0 ? 1.5 : 1, i == 0 ? "" : R"( stroke-dasharray="4 3" opacity="0.7")") + "\n";
      bool right = x > kPlotRight - 120;
      o += fmt::format(R"(<text x="{:.1f}" y="{}" fill="{}" font-weight="bold" text-anchor="{}">{} {}{}</text>)", right ? x - 4 : x + 4,
                       kTop - 8 - 11 * static_cast<double>(i), kRootColour, right ? "end" : "start", html_escape(rc.id),
                       rc.time_inferred ? "~" : "", format_rfc3339(rc.first_seen).substr(11, 8)) + "\n";
    }
    auto row = row_of.find(rc.host);
    if (row == row_of.end()) continue;
    double y = row_y(row->second);
    if (known(rc.last_seen) && rc.last_seen > rc.first_seen)
      o += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="3" opacity="0.5"/>)", x, y,
                       s.x(rc.last_seen), y, kRootColour) + "\n";
    mark(o, diamond, x, y, kRootColour, rc.time_inferred,
         fmt::format("{} root cause: {}\n{}\n{}\nfirst seen {}", rc.id, rc.rule, rc.title, where(rc),
                     short_time(rc.first_seen, rc.time_inferred)), 6);
  }
}

// Which rule (or root cause) cites each evidence line; a root cause's claim wins.
struct Owner {
  const ReportRootCause* root = nullptr;
  std::string rule;
};

std::map<std::string, Owner> owners(const Report& r) {
  std::map<std::string, Owner> out;
  for (const auto& rc : r.root_causes)
    for (const auto& id : rc.evidence) out.emplace(id, Owner{&rc, rc.rule});
  for (const auto& s : r.symptoms)
    for (const auto& id : s.evidence) out.emplace(id, Owner{nullptr, s.rule});
  return out;
}

// Evidence lines as marks; returns the (row, rule) pairs drawn, so ticks fill in only the rest.
std::set<std::pair<size_t, std::string>> draw_evidence(std::string& o, const Report& r, const Scale& s,
                                                       const std::map<std::string, size_t>& row_of,
                                                       const std::map<std::string, Style>& styles, bool* other) {
  std::set<std::pair<size_t, std::string>> drawn;
  auto own = owners(r);
  for (const auto& e : r.evidence) {
    auto row = row_of.find(e.host);
    if (!known(e.time) || row == row_of.end()) continue;
    auto it = own.find(e.id);
    Owner owner = it == own.end() ? Owner{} : it->second;
    std::string tip = fmt::format("{} {}\n{}{}\n{}", e.id, owner.rule.empty() ? "other evidence line" : owner.rule, host_label(e.host),
                                  e.rank >= 0 ? fmt::format(" rank {}", e.rank) : "", short_time(e.time, e.time_inferred));
    double x = s.x(e.time), y = row_y(row->second);
    if (owner.root) {
      // The first line of the cause is its diamond already.
      if (e.host == owner.root->host && e.time == owner.root->first_seen) continue;
      mark(o, circle, x, y, kRootColour, e.time_inferred, owner.root->id + " " + tip, 3);
      continue;
    }
    auto style = styles.find(owner.rule);
    if (style == styles.end()) {
      mark(o, circle, x, y, kOtherColour, e.time_inferred, tip, 3);
      *other = true;
      continue;
    }
    mark(o, style->second.shape, x, y, style->second.colour, e.time_inferred, tip);
    drawn.emplace(row->second, owner.rule);
  }
  return drawn;
}

// A row's symptom rule with no line of its own cited: a faint tick where the rule was first seen
// (over all its nodes: the report keeps no per-node time), so every symptomatic row shows what it had.
bool draw_ticks(std::string& o, const Report& r, const Scale& s, const std::vector<Row>& rows,
                const std::map<std::string, size_t>& row_of, const std::set<std::pair<size_t, std::string>>& drawn,
                const std::map<std::string, Style>& styles) {
  // (row, rule) -> the rule's earliest first_seen over the symptoms seen on that row: one pass
  // over the symptoms' hosts, however many nodes share a row.
  std::map<std::pair<size_t, std::string>, std::pair<Micros, bool>> first;
  for (const auto& sym : r.symptoms) {
    if (!known(sym.first_seen)) continue;
    for (const auto& host : sym.hosts) {
      auto row = row_of.find(host);
      if (row == row_of.end() || drawn.count({row->second, sym.rule})) continue;
      auto [it, added] = first.try_emplace({row->second, sym.rule}, sym.first_seen, sym.time_inferred);
      if (!added && sym.first_seen < it->second.first) it->second = {sym.first_seen, sym.time_inferred};
    }
  }
  for (const auto& [at, when] : first) {
    double x = s.x(when.first), y = row_y(at.first);
    o += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="2" opacity="0.6"{}>)", x,
                     y - 6, x, y + 6, styles.at(at.second).colour, when.second ? R"( stroke-dasharray="2 2")" : "");
    o += "<title>" + html_escape(fmt::format("{} on {}\nfirst seen {} over all its nodes (no line from this row cited)",
                                             at.second, rows[at.first].label, short_time(when.first, when.second))) +
         "</title></line>\n";
  }
  return !first.empty();
}

// The key: root cause, each symptom rule's mark, and the marks' conventions, in three columns.
double draw_legend(std::string& o, const Report& r, const std::map<std::string, Style>& styles, bool ticks, bool other,
                   double top) {
  struct Item {
    std::function<void(double, double)> draw;
    std::string text;
  };
  std::vector<Item> items;
  auto ink = [&](Shape sh, const char* colour, bool hollow, double size = 4) {
    return [&o, sh, colour, hollow, size](double x, double y) { mark(o, sh, x, y, colour, hollow, "", size); };
  };
  items.push_back({ink(diamond, kRootColour, false, 6), "root cause, first seen"});
  size_t shown = 0;
  for (const auto& [rule, style] : styles)
    if (shown++ < kLegendRules) items.push_back({ink(style.shape, style.colour, false), rule});
  if (styles.size() > kLegendRules)
    items.push_back({[](double, double) {}, fmt::format("... and {} more rules (hover a mark)", styles.size() - kLegendRules)});
  if (other) items.push_back({ink(circle, kOtherColour, false, 3), "other evidence line"});
  bool inferred = std::any_of(r.evidence.begin(), r.evidence.end(), [](const ReportEvidence& e) { return e.time_inferred; });
  if (inferred) items.push_back({ink(circle, "#57606a", true), "time inferred from a neighbour (hollow)"});
  if (ticks)
    items.push_back({[&o](double x, double y) {
                       o += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="#57606a" stroke-width="2" opacity="0.6"/>)",
                                        x, y - 6, x, y + 6) + "\n";
                     },
                     "rule first seen (no line cited on this row)"});
  constexpr double kColumn = (kWidth - 16) / 3;
  for (size_t i = 0; i < items.size(); ++i) {
    double x = 8 + kColumn * static_cast<double>(i % 3), y = top + 16 * static_cast<double>(i / 3);
    items[i].draw(x + 6, y);
    o += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" fill="#33383d">{}</text>)", x + 16, y + 4, html_escape(clip(items[i].text, 48))) + "\n";
  }
  return top + 16 * static_cast<double>((items.size() + 2) / 3);
}

}  // namespace

std::string render_timeline_svg(const Report& r) {
  auto scale = Scale::of(r);
  if (!scale)
    return fmt::format(R"(<svg width="{0}" height="40" viewBox="0 0 {0} 40" role="img" font-family="{1}" font-size="12">)"
                       R"(<text x="8" y="24" fill="#57606a">No time is known for any line: nothing to place on a timeline.</text></svg>)",
                       kWidth, kFont) + "\n";
  Hosts hosts = hosts_of(r);
  std::vector<Row> rows = rows_of(hosts);
  std::map<std::string, size_t> row_of;
  for (size_t i = 0; i < rows.size(); ++i)
    for (const auto& h : rows[i].hosts) row_of.emplace(h, i);
  auto styles = rule_styles(r);
  double bottom = kTop + kRowHeight * static_cast<double>(rows.size());

  std::string body;
  draw_rows(body, rows);
  draw_job_bounds(body, *scale, r.workload, bottom);
  draw_axis(body, *scale, bottom);
  std::string marks;  // drawn first to learn which rows need ticks, placed above the ticks
  bool other = false;
  auto drawn = draw_evidence(marks, r, *scale, row_of, styles, &other);
  bool ticks = draw_ticks(body, r, *scale, rows, row_of, drawn, styles);
  body += marks;
  draw_roots(body, r, *scale, row_of, bottom);
  double height = draw_legend(body, r, styles, ticks, other, bottom + 36) + 4;

  std::string o = fmt::format(R"(<svg class="timeline" width="{0}" height="{1:.0f}" viewBox="0 0 {0} {1:.0f}" role="img" )"
                              R"(font-family="{2}" font-size="11">)",
                              kWidth, height, kFont) + "\n";
  o += fmt::format("<title>Timeline of workload {}: {} row(s), {} to {}</title>\n", html_escape(r.workload.id), rows.size(),
                   short_time(scale->lo(), false), short_time(scale->hi(), false));
  return o + body + "</svg>\n";
}

}  // namespace attribution
