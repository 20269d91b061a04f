#include "core/serve/dashboard.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <map>

#include "core/report/render.hpp"

namespace attribution {
namespace {

constexpr Micros kDay = 86400LL * 1000000;

// A colour per family: by its place among the store's families (sorted), so the badges, the
// chart and its legend agree and the first ten families never share one.
std::string family_colour(const DashboardView& v, const std::string& family) {
  static const char* palette[] = {"#b2182b", "#2166ac", "#1b7837", "#e08214", "#762a83",
                                  "#35978f", "#8c510a", "#4d4d4d", "#c51b7d", "#5aae61"};
  constexpr size_t n = sizeof palette / sizeof *palette;
  size_t at = std::find(v.families.begin(), v.families.end(), family) - v.families.begin();
  if (at == v.families.size()) {
    uint32_t h = 2166136261u;
    for (unsigned char c : family) h = (h ^ c) * 16777619u;
    at = h;
  }
  return palette[at % n];
}

constexpr const char* kStyle = R"css(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d2327;background:#f4f5f7}
header{background:#1d2327;color:#fff;padding:12px 24px}header h1{font-size:18px;margin:0}
header p{margin:2px 0 0;color:#b7bcc2;font-size:12px}
main{padding:16px 24px;display:grid;grid-template-columns:minmax(0,2fr) minmax(280px,1fr);gap:16px}
section{background:#fff;border:1px solid #dcdfe3;border-radius:6px;padding:12px 16px}
section.wide{grid-column:1/-1}h2{font-size:15px;margin:0 0 8px}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:5px 8px;border-bottom:1px solid #eceef0;vertical-align:top}
th{font-size:12px;color:#5f6b76;font-weight:600}tr.report-row:hover{background:#f0f6ff}
a{color:#1858a8;text-decoration:none}a:hover{text-decoration:underline}
.when{white-space:nowrap}.fam{display:inline-block;padding:1px 7px;border-radius:9px;color:#fff;font-size:12px;white-space:nowrap}
.muted{color:#6b7680}.num{text-align:right;font-variant-numeric:tabular-nums}
form{display:flex;gap:8px;flex-wrap:wrap;align-items:end}label{font-size:12px;color:#5f6b76;display:flex;flex-direction:column}
input,select,button{font:inherit;padding:4px 6px;border:1px solid #c4c9ce;border-radius:4px;background:#fff}
button{background:#1858a8;color:#fff;border-color:#1858a8;cursor:pointer}
.legend span{margin-right:12px;font-size:12px}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px}
)css";

// "2026-12-02 00:41": the day and minute, which is what a list of diagnoses is read by.
std::string when(Micros t) {
  std::string s = format_rfc3339(t).substr(0, 16);
  s[10] = ' ';
  return s;
}

std::string filter_form(const DashboardView& v) {
  std::string out = "<form method=\"get\" action=\"/\" id=\"filters\">";
  out += "<label>Family<select name=\"family\"><option value=\"\">any</option>";
  for (const auto& f : v.families)
    out += fmt::format("<option{}>{}</option>", f == v.family ? " selected" : "", html_escape(f));
  out += "</select></label>";
  out += fmt::format("<label>Node<input name=\"host\" value=\"{}\" placeholder=\"any\"></label>", html_escape(v.host));
  out += "<label>Since<select name=\"since\">";
  for (const char* s : {"", "1d", "7d", "30d", "90d"})
    out += fmt::format("<option value=\"{}\"{}>{}</option>", s, v.since == s ? " selected" : "",
                       *s ? fmt::format("last {}", s) : std::string("all time"));
  out += "</select></label><button type=\"submit\">Filter</button>";
  if (!v.family.empty() || !v.host.empty() || !v.since.empty()) out += " <a href=\"/\">clear</a>";
  return out + "</form>";
}

// Stacked bars, one per day of the last chart_days, a colour per family.
std::string outcome_mix(const DashboardView& v) {
  const int days = v.chart_days;
  Micros first_day = (v.now / kDay - (days - 1)) * kDay;
  std::map<std::string, std::vector<int>> counts;
  int peak = 0;
  std::vector<int> totals(days, 0);
  for (const auto& r : v.mix) {
    if (r.diagnosed_at < first_day) continue;
    int d = static_cast<int>((r.diagnosed_at - first_day) / kDay);
    if (d >= days) continue;
    auto& c = counts[r.family];
    c.resize(days, 0);
    ++c[d];
    peak = std::max(peak, ++totals[d]);
  }
  const int w = 560, h = 140, left = 30, bottom = 20, bar = (w - left) / days;
  std::string svg = fmt::format(
      "<svg id=\"outcome-mix\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "role=\"img\" aria-label=\"Diagnoses per day by family\">",
      w, h + 8, w, h + 8);
  int top = std::max(peak, 1);
  svg += fmt::format("<text x=\"0\" y=\"12\" font-size=\"10\" fill=\"#6b7680\">{}</text>", top);
  svg += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#c4c9ce\"/>", left, h - bottom, w, h - bottom);
  for (int d = 0; d < days; ++d) {
    double y = h - bottom;
    for (const auto& [family, c] : counts) {
      if (c[d] == 0) continue;
      double bh = (h - bottom - 14.0) * c[d] / top;
      y -= bh;
      svg += fmt::format(
          "<rect x=\"{}\" y=\"{:.1f}\" width=\"{}\" height=\"{:.1f}\" fill=\"{}\"><title>{}: {} {}</title></rect>",
          left + d * bar + 2, y, bar - 4, bh, family_colour(v, family), format_rfc3339(first_day + d * kDay).substr(0, 10),
          c[d], html_escape(family));
    }
    if (d % 2 == 0 || days <= 7)
      svg += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"10\" fill=\"#6b7680\">{}</text>", left + d * bar + 2,
                         h - 4, format_rfc3339(first_day + d * kDay).substr(5, 5));
  }
  svg += "</svg><div class=\"legend\">";
  for (const auto& [family, c] : counts)
    svg += fmt::format("<span><i style=\"background:{}\"></i>{}</span>", family_colour(v, family), html_escape(family));
  if (counts.empty()) svg += "<span class=\"muted\">no diagnosis in these days</span>";
  return svg + "</div>";
}

std::string family_badge(const DashboardView& v, const std::string& family) {
  return fmt::format("<span class=\"fam\" style=\"background:{}\">{}</span>", family_colour(v, family),
                     html_escape(family));
}

std::string reports_table(const DashboardView& v) {
  if (v.reports.empty()) return "<p class=\"muted\" id=\"no-reports\">No stored diagnosis matches.</p>";
  std::string out =
      "<table id=\"reports\"><thead><tr><th>#</th><th>Diagnosed (UTC)</th><th>Workload</th><th>Family</th>"
      "<th>Blame</th><th>Root nodes</th><th>Summary</th></tr></thead><tbody>";
  for (const auto& r : v.reports) {
    std::string hosts;
    for (const auto& h : r.root_hosts)
      hosts += fmt::format("{}<a href=\"/?host={}\">{}</a>", hosts.empty() ? "" : ", ", html_escape(h), html_escape(h));
    out += fmt::format(
        "<tr class=\"report-row\" id=\"report-{0}\" data-family=\"{1}\"><td><a href=\"/reports/{0}\">{0}</a></td>"
        "<td class=\"muted when\">{2}</td><td><a href=\"/reports/{0}\">{3}</a></td><td>{4}</td><td>{5} <span "
        "class=\"muted\">({6})</span></td><td>{7}</td><td>{8}</td></tr>",
        r.id, html_escape(r.family), when(r.diagnosed_at), html_escape(r.workload_id),
        family_badge(v, r.family), html_escape(r.blame), html_escape(r.confidence), hosts.empty() ? "-" : hosts,
        html_escape(r.summary));
  }
  return out + "</tbody></table>";
}

std::string offenders_table(const DashboardView& v) {
  if (v.offenders.empty()) return "<p class=\"muted\" id=\"no-offenders\">No node is at the root of two diagnoses.</p>";
  std::string out =
      "<table id=\"offenders\"><thead><tr><th>Node</th><th class=\"num\">Root of</th><th>Families</th>"
      "<th>Last</th></tr></thead><tbody>";
  for (const auto& n : v.offenders) {
    std::string families;
    for (const auto& [f, c] : n.families) families += fmt::format("{} &times;{} ", family_badge(v, f), c);
    out += fmt::format(
        "<tr class=\"offender-row\" data-host=\"{0}\"><td><a href=\"/?host={0}\">{0}</a></td><td class=\"num\">{1}</td>"
        "<td>{2}</td><td><a href=\"/reports/{3}\">#{3}</a> <span class=\"muted\">{4}</span></td></tr>",
        html_escape(n.host), n.root_cause_count, families, n.report_ids.empty() ? 0 : n.report_ids.front(),
        format_rfc3339(n.last_seen).substr(0, 10));
  }
  return out + "</tbody></table>";
}

}  // namespace

std::string render_dashboard(const DashboardView& v) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">";
  out += "<title>attribution: diagnoses</title><style>";
  out += kStyle;
  out += "</style></head><body><header><h1>attribution: failed-job diagnoses</h1>";
  out += fmt::format("<p>store {} &middot; {} shown &middot; API at /api/v1/reports</p></header><main>",
                     html_escape(v.store), v.reports.size());
  out += "<section class=\"wide\"><h2>Filter</h2>" + filter_form(v) + "</section>";
  out += fmt::format("<section><h2>Outcome mix, last {} days</h2>", v.chart_days) + outcome_mix(v) + "</section>";
  out += "<section id=\"offenders-panel\"><h2>Repeat offenders</h2>" + offenders_table(v) + "</section>";
  out += "<section class=\"wide\"><h2>Recent diagnoses</h2>" + reports_table(v) + "</section>";
  return out + "</main></body></html>\n";
}

}  // namespace attribution
