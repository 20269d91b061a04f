#include "core/base/time.hpp"

#include <chrono>

#include <cstdlib>
#include <ctime>
#include <fmt/format.h>
#include <mutex>

namespace attribution {
namespace {

bool digits(std::string_view s, size_t pos, size_t n, int* out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[pos + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

bool valid(const CivilTime& t) {
  return t.month >= 1 && t.month <= 12 && t.day >= 1 && t.day <= 31 && t.hour <= 23 &&
         t.minute <= 59 && t.second <= 60;
}

}  // namespace

int64_t days_from_civil(int y, int m, int d) {
  // Howard Hinnant's algorithm: exact for the proleptic Gregorian calendar.
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

Micros civil_to_micros_utc(const CivilTime& t) {
  int64_t days = days_from_civil(t.year, t.month, t.day);
  int64_t secs = days * 86400 + t.hour * 3600 + t.minute * 60 + t.second;
  return secs * kMicrosPerSecond + t.micros;
}

CivilTime micros_to_civil_utc(Micros t) {
  int64_t secs = t >= 0 ? t / kMicrosPerSecond : (t - kMicrosPerSecond + 1) / kMicrosPerSecond;
  int64_t us = t - secs * kMicrosPerSecond;
  int64_t days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400;
  int64_t rem = secs - days * 86400;
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  CivilTime c;
  c.day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  c.month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  c.year = static_cast<int>(yoe + era * 400 + (c.month <= 2));
  c.hour = static_cast<int>(rem / 3600);
  c.minute = static_cast<int>(rem % 3600 / 60);
  c.second = static_cast<int>(rem % 60);
  c.micros = us;
  return c;
}

std::string format_rfc3339(Micros t) {
  CivilTime c = micros_to_civil_utc(t);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z", c.year, c.month, c.day, c.hour,
                     c.minute, c.second, c.micros);
}

std::optional<CivilTime> parse_iso8601(std::string_view s, size_t* used) {
  CivilTime t;
  if (!digits(s, 0, 4, &t.year) || s.size() < 19 || s[4] != '-' || !digits(s, 5, 2, &t.month) ||
      s[7] != '-' || !digits(s, 8, 2, &t.day) || (s[10] != 'T' && s[10] != ' ' && s[10] != '_') ||
      !digits(s, 11, 2, &t.hour) || s[13] != ':' || !digits(s, 14, 2, &t.minute) || s[16] != ':' ||
      !digits(s, 17, 2, &t.second))
    return std::nullopt;
  size_t p = 19;
  if (p < s.size() && (s[p] == '.' || s[p] == ',') && p + 1 < s.size() && s[p + 1] >= '0' &&
      s[p + 1] <= '9') {
    ++p;
    int64_t frac = 0;
    int n = 0;
    while (p < s.size() && s[p] >= '0' && s[p] <= '9') {
      if (n < 6) frac = frac * 10 + (s[p] - '0');
      ++n, ++p;
    }
    for (; n < 6; ++n) frac *= 10;
    t.micros = frac;
  }
  // Zone: "Z", "+08:00", "+0800", optionally after one space ("... 15:39:31.043 +08:00").
  size_t q = p;
  if (q < s.size() && s[q] == ' ' && q + 1 < s.size() && (s[q + 1] == '+' || s[q + 1] == '-')) ++q;
  if (q < s.size() && (s[q] == 'Z' || s[q] == 'z')) {
    t.utc_offset_s = 0;
    p = q + 1;
  } else if (q < s.size() && (s[q] == '+' || s[q] == '-')) {
    int hh, mm;
    if (digits(s, q + 1, 2, &hh)) {
      size_t r = q + 3;
      if (r < s.size() && s[r] == ':') ++r;
      if (digits(s, r, 2, &mm) && hh <= 23 && mm <= 59) {
        int off = hh * 3600 + mm * 60;
        t.utc_offset_s = s[q] == '-' ? -off : off;
        p = r + 2;
      }
    }
  }
  if (!valid(t)) return std::nullopt;
  if (used) *used = p;
  return t;
}

namespace {
// 1 + the index of the three-letter name `w` in `names` (three letters each), 0 if absent. The prefix
// parser asks this at every space of a line it looks behind: byte compares, not string compares.
int abbrev_index(std::string_view w, std::string_view names) {
  if (w.size() != 3) return 0;
  for (size_t i = 0; i + 3 <= names.size(); i += 3)
    if (w[0] == names[i] && w[1] == names[i + 1] && w[2] == names[i + 2]) return static_cast<int>(i / 3) + 1;
  return 0;
}
}  // namespace

int month_from_abbrev(std::string_view m) { return abbrev_index(m, "JanFebMarAprMayJunJulAugSepOctNovDec"); }

int weekday_from_abbrev(std::string_view d) { return abbrev_index(d, "MonTueWedThuFriSatSun"); }

CivilTime with_year_near(CivilTime t, Micros anchor, std::optional<Micros> cap, std::optional<Micros> floor) {
  int y = micros_to_civil_utc(anchor).year;
  std::optional<Micros> best_dist;
  int best = y - 1;  // all candidates after the cap: the earliest
  for (int cand : {y - 1, y, y + 1}) {
    t.year = cand;
    Micros at = civil_to_micros_utc(t);
    if ((cap && at > *cap) || (floor && at < *floor)) continue;
    Micros d = at > anchor ? at - anchor : anchor - at;
    if (!best_dist || d < *best_dist) best_dist = d, best = cand;
  }
  t.year = best;
  return t;
}

Result<TimeZone> TimeZone::parse(std::string_view spec) {
  TimeZone tz;
  if (spec.empty() || spec == "UTC" || spec == "utc" || spec == "Z") return tz;
  auto bad = [&] {
    return make_error(ErrorKind::config, fmt::format("unknown time zone '{}'", spec), {}, 0,
                      "timezone", "use UTC, a fixed offset like +08:00, or an IANA name like Europe/Paris");
  };
  if (spec[0] == '+' || spec[0] == '-') {
    int hh = 0, mm = 0;
    size_t r = 3;
    if (!digits(spec, 1, 2, &hh) || hh > 23) return bad();
    if (r < spec.size() && spec[r] == ':') ++r;
    if (r < spec.size() && (!digits(spec, r, 2, &mm) || r + 2 != spec.size())) return bad();
    tz.offset_s_ = (spec[0] == '-' ? -1 : 1) * (hh * 3600 + mm * 60);
    tz.name_ = std::string(spec);
    return tz;
  }
  if (spec.find("..") != std::string_view::npos) return bad();
  std::string path = "/usr/share/zoneinfo/" + std::string(spec);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return bad();
  std::fclose(f);
  tz.iana_ = true;
  tz.name_ = std::string(spec);
  return tz;
}

Micros TimeZone::to_utc(const CivilTime& local) const {
  if (!iana_) return civil_to_micros_utc(local) - static_cast<Micros>(offset_s_) * kMicrosPerSecond;
  // The C library is the only tz database reader we have; TZ is process-global, so serialise.
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  std::string saved = std::getenv("TZ") ? std::getenv("TZ") : "";
  bool had = std::getenv("TZ") != nullptr;
  setenv("TZ", name_.c_str(), 1);
  tzset();
  std::tm tm{};
  tm.tm_year = local.year - 1900;
  tm.tm_mon = local.month - 1;
  tm.tm_mday = local.day;
  tm.tm_hour = local.hour;
  tm.tm_min = local.minute;
  tm.tm_sec = local.second;
  tm.tm_isdst = -1;
  time_t secs = mktime(&tm);
  if (had) setenv("TZ", saved.c_str(), 1); else unsetenv("TZ");
  tzset();
  return static_cast<Micros>(secs) * kMicrosPerSecond + local.micros;
}

Result<Micros> parse_time_value(std::string_view text, const TimeZone& tz) {
  size_t used = 0;
  if (auto t = parse_iso8601(text, &used); t && used == text.size()) {
    if (t->utc_offset_s) return civil_to_micros_utc(*t) - Micros(*t->utc_offset_s) * kMicrosPerSecond;
    return tz.to_utc(*t);
  }
  if (!text.empty() && text.size() <= 12 && text.find_first_not_of("0123456789") == std::string_view::npos)
    return Micros(std::strtoll(std::string(text).c_str(), nullptr, 10)) * kMicrosPerSecond;
  return make_error(ErrorKind::usage, fmt::format("'{}' is not a time", text), {}, 0, {},
                    "write RFC 3339, e.g. 2025-03-14T09:00:00Z, or epoch seconds");
}

Micros wall_clock_now() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace attribution
