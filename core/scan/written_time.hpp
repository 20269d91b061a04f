#pragma once
// Clock and date stamps as logs write them, read in place: each reader looks at one layout at a
// given offset and gives the civil time it says (no year or zone guessed here), or nothing.
// The line-prefix parser chains them; file_times looks for a stamp's mark before parsing a line.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/base/time.hpp"

namespace attribution {

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

// An unsigned integer of at most `max_digits` digits at s[i..]; advances i past it. Inline, as the
// clock below: every NCCL and syslog prefix reads a few.
inline bool read_number(std::string_view s, size_t& i, int64_t* out, size_t max_digits = 18) {
  size_t b = i;
  int64_t v = 0;
  while (i < s.size() && is_digit(s[i]) && i - b < max_digits) v = v * 10 + (s[i++] - '0');
  if (i == b) return false;
  *out = v;
  return true;
}

// Two digits at s[i..] (not advancing).
inline bool read_two_digits(std::string_view s, size_t i, int* out) {
  if (i + 2 > s.size() || !is_digit(s[i]) || !is_digit(s[i + 1])) return false;
  *out = (s[i] - '0') * 10 + (s[i + 1] - '0');
  return true;
}

// "HH:MM:SS[.frac]" (or ",frac") at s[i..]; advances i past it.
inline bool read_clock(std::string_view s, size_t& i, CivilTime& t) {
  if (!read_two_digits(s, i, &t.hour) || i + 8 > s.size() || s[i + 2] != ':' || !read_two_digits(s, i + 3, &t.minute) ||
      s[i + 5] != ':' || !read_two_digits(s, i + 6, &t.second) || t.hour > 23 || t.minute > 59 || t.second > 60)
    return false;
  i += 8;
  if (i + 1 < s.size() && (s[i] == '.' || s[i] == ',') && is_digit(s[i + 1])) {
    ++i;
    int64_t frac = 0;
    int n = 0;
    while (i < s.size() && is_digit(s[i])) {
      if (n < 6) frac = frac * 10 + (s[i] - '0');
      ++n, ++i;
    }
    for (; n < 6; ++n) frac *= 10;
    t.micros = frac;
  }
  return true;
}

// "[Sun Feb 23 16:24:18 2025]" (dmesg -T: month at 5, clock before year) or "[Jul 19 2025 18:34:57]"
// (Fabric Manager: month at 1, year before clock): the offset just past ']', or 0.
size_t bracketed_month_stamp(std::string_view r, size_t month_at, bool year_first, CivilTime& t);

// glog's "E1218 20:27:21.426415540 " at s[i..] (c10's C++ logger writes the month unpadded: "W509").
bool glog_time(std::string_view s, size_t i, CivilTime& t);

// "2024/08/09 13:32:51" (Go's log) or "05/01/2024 12:00:00" (Python's %m/%d/%Y) at r[0..]: the
// offset past the clock, or 0.
size_t slash_date(std::string_view r, CivilTime& t);

// date(1)'s "Thu May  2 10:00:00 2024" (or "... UTC 2024") at r[0..]: the offset past it, or 0.
size_t date_output(std::string_view r, CivilTime& t);

// RFC 3164 syslog's "Mar 14 09:41:07" (the day maybe space-padded) at r[0..], no year: the offset
// past the clock, or 0.
size_t syslog_date(std::string_view r, CivilTime& t);

// vLLM's "03-14 09:41:07" (month-day, no year) at r[0..]: the offset past the clock, or 0.
size_t month_day_clock(std::string_view r, CivilTime& t);

// False only when the line-prefix parser can give `line` no time: every stamp it reads holds a clock
// "dd:dd:dd" after a blank, 'T' or '_', dmesg's "[ d.d]" or a journald record's "__REALTIME_TIMESTAMP"
// (one of next_time_mark's offsets).
bool may_carry_time(std::string_view line);
// The first (next_) or last (prev_) offset in [from, to) of `buf` where a stamp's mark starts, or
// npos: a line may carry a time exactly when one of its bytes is such an offset. The look for the
// nearest timed line sweeps the bytes for marks instead of testing every line it passes.
size_t next_time_mark(std::string_view buf, size_t from, size_t to);
size_t prev_time_mark(std::string_view buf, size_t from, size_t to);

}  // namespace attribution
