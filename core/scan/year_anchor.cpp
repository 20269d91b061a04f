#include "core/scan/year_anchor.hpp"

#include <algorithm>
#include <re2/re2.h>

#include "core/scan/line_prefix.hpp"

namespace attribution {
namespace {

bool plausible(const CivilTime& t) { return t.year >= 1990 && t.year < 2200; }

// "2025-06-03 08:42:07", "2025-06-03T08:42:07Z", "2025-06-03_08:42:07" inside a message.
void embedded_iso(std::string_view line, const TimeZone& zone, std::vector<Micros>& out) {
  for (size_t i = line.find('-'); i != std::string_view::npos && i + 15 <= line.size(); i = line.find('-', i + 1)) {
    if (i < 4 || (i > 4 && std::isdigit(static_cast<unsigned char>(line[i - 5])))) continue;
    std::string cand(line.substr(i - 4, 26));
    if (cand.size() > 10 && cand[10] == '_') cand[10] = 'T';
    if (auto t = parse_iso8601(cand); t && plausible(*t) && cand.size() > 10 && (cand[10] == 'T' || cand[10] == ' '))
      out.push_back(t->utc_offset_s ? civil_to_micros_utc(*t) - Micros(*t->utc_offset_s) * kMicrosPerSecond
                                    : zone.to_utc(*t));
  }
}

// `date`-style "Mon Dec  9 12:23:00 UTC 2024": a build date in a kernel or driver banner (a floor),
// else a time the logs print.
void date_style(std::string_view line, std::vector<Micros>& out, std::optional<Micros>& floor) {
  static const RE2 re(R"((Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +(\d{1,2}) (\d\d):(\d\d):(\d\d) UTC ((?:19|20)\d\d)\b)");
  std::string mon;
  CivilTime t;
  if (!RE2::PartialMatch(line, re, &mon, &t.day, &t.hour, &t.minute, &t.second, &t.year)) return;
  t.month = month_from_abbrev(mon);
  if (t.day < 1 || t.day > 31 || t.hour > 23 || t.minute > 59 || t.second > 60) return;
  Micros at = civil_to_micros_utc(t);
  bool banner = line.find("Linux version") != std::string_view::npos || line.find("Kernel Module") != std::string_view::npos ||
                line.find("Loading NVIDIA") != std::string_view::npos;
  if (banner) floor = std::max(floor.value_or(at), at);
  else out.push_back(at);
}

}  // namespace

void add_year_clues(std::string_view text, const TimeZone& zone, size_t max_lines, YearClues& out) {
  TimeContext ctx;
  ctx.zone = zone;
  size_t pos = 0;
  for (size_t n = 0; n < max_lines && pos < text.size(); ++n) {
    size_t eol = text.find('\n', pos);
    std::string_view line = text.substr(pos, eol == std::string_view::npos ? text.npos : eol - pos);
    LinePrefix p = parse_line_prefix(line);
    if ((p.civil && plausible(*p.civil)) || (p.epoch && !p.civil)) {
      if (auto t = resolve_time(p, ctx)) out.stamps.push_back(*t);
    } else {
      std::string_view message = line.substr(std::min(p.message_offset, line.size()));
      embedded_iso(message, zone, out.stamps);
      date_style(message, out.stamps, out.floor);
    }
    if (eol == std::string_view::npos) break;
    pos = eol + 1;
  }
}

std::optional<Micros> year_anchor_of(std::vector<Micros> stamps) {
  if (stamps.empty()) return std::nullopt;
  auto mid = stamps.begin() + static_cast<std::ptrdiff_t>(stamps.size() / 2);
  std::nth_element(stamps.begin(), mid, stamps.end());
  return *mid;
}

}  // namespace attribution
