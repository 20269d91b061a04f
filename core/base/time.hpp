#pragma once
// Time is UTC microseconds since the Unix epoch everywhere inside the tool.
#include <cstdint>
#include <climits>
#include <optional>
#include <string>
#include <string_view>

#include "core/base/result.hpp"

namespace attribution {

using Micros = int64_t;
constexpr Micros kMicrosPerSecond = 1'000'000;
// The time of a line that has none of its own in a file that has none either, when the job gives
// no window: unknown, never the moment the file was copied. Renderers print it as unknown (null).
constexpr Micros kTimeUnknown = INT64_MIN / 4;

// A wall-clock reading as printed by a log line; fields a format omits stay unset.
struct CivilTime {
  int year = 0;  // 0: the format has no year (syslog, glog)
  int month = 1, day = 1, hour = 0, minute = 0, second = 0;
  int64_t micros = 0;
  std::optional<int> utc_offset_s;  // set when the line states its zone
};

// UTC, a fixed offset ("+08:00"), or an IANA name ("Europe/Paris") for local times.
class TimeZone {
 public:
  static Result<TimeZone> parse(std::string_view spec);
  static TimeZone utc() { return TimeZone(); }
  // The UTC instant of a local wall-clock time in this zone.
  Micros to_utc(const CivilTime& local) const;
  const std::string& name() const { return name_; }

 private:
  std::string name_ = "UTC";
  bool iana_ = false;
  int offset_s_ = 0;
};

int64_t days_from_civil(int y, int m, int d);
Micros civil_to_micros_utc(const CivilTime& t);  // ignores utc_offset_s
CivilTime micros_to_civil_utc(Micros t);

// Now, by the wall clock: what a run is stamped with (never part of a report).
Micros wall_clock_now();

// "2025-03-14T09:41:07.123456Z": always six fractional digits, always Z.
std::string format_rfc3339(Micros t);

// RFC 3339 / ISO 8601: "2025-03-14T09:41:07Z", "2025-03-14 09:41:07.12+08:00", "...,000000+00:00",
// "2026-09-14T20:30:27-0400", or without zone. Consumes a prefix of `text`; `used` gets its length.
std::optional<CivilTime> parse_iso8601(std::string_view text, size_t* used = nullptr);

// A whole value that must be a time: RFC 3339 with or without zone (zone then taken from `tz`),
// or epoch seconds. Used for --start/--end and workload files.
Result<Micros> parse_time_value(std::string_view text, const TimeZone& tz);

// Months "Jan".."Dec" -> 1..12, 0 if not a month.
int month_from_abbrev(std::string_view m);
// Weekdays "Mon".."Sun" -> 1..7, 0 if not a weekday.
int weekday_from_abbrev(std::string_view d);

// Places a year-less civil time in the year that puts it nearest to `anchor`, never after `cap`
// (a file's modification time, the window's end: a log cannot hold a line from its future) and
// never before `floor` (the build date of the kernel or driver that printed it). When no year fits
// both, the earliest candidate.
CivilTime with_year_near(CivilTime t, Micros anchor, std::optional<Micros> cap = std::nullopt,
                         std::optional<Micros> floor = std::nullopt);

}  // namespace attribution
