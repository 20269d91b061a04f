#include "core/scan/written_time.hpp"

#include <algorithm>
#include <cstring>

#include "core/rules/literal_search.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ATTRIBUTION_AVX2 1
#endif

namespace attribution {

// "[Sun Feb 23 16:24:18 2025]" (dmesg -T: month at 5, clock before year) or "[Jul 19 2025 18:34:57]"
// (Fabric Manager: month at 1, year before clock), the day maybe space-padded: the offset just past
// ']', or 0 when `r` does not start with one.
size_t bracketed_month_stamp(std::string_view r, size_t month_at, bool year_first, CivilTime& t) {
  if (r.size() < month_at + 22 || r[0] != '[' || r[4] != ' ') return 0;
  CivilTime c;
  c.month = month_from_abbrev(r.substr(month_at, 3));
  if (!c.month) return 0;
  size_t j = month_at + 4;
  if (r[j] == ' ') ++j;
  int64_t day, year;
  if (!read_number(r, j, &day, 2) || day < 1 || day > 31 || j >= r.size() || r[j] != ' ') return 0;
  ++j;
  auto year_then = [&](char after) { return read_number(r, j, &year, 4) && j < r.size() && r[j] == after; };
  auto clock_then = [&](char after) { return read_clock(r, j, c) && j < r.size() && r[j] == after; };
  if (!(year_first ? year_then(' ') && (++j, clock_then(']')) : clock_then(' ') && (++j, year_then(']')))) return 0;
  c.day = static_cast<int>(day);
  c.year = static_cast<int>(year);
  t = c;
  return j + 1;
}


// glog "E1218 20:27:21.426415540 " (after '[' or bare): level, month (not zero-padded in c10's
// C++ logger: "W509" is May 9), two-digit day, time.
bool glog_time(std::string_view s, size_t i, CivilTime& t) {
  if (i + 13 > s.size()) return false;
  char lv = s[i];
  if (lv != 'E' && lv != 'W' && lv != 'I' && lv != 'F') return false;
  size_t n = 0;
  while (i + 1 + n < s.size() && is_digit(s[i + 1 + n])) ++n;
  if ((n != 3 && n != 4) || i + 1 + n >= s.size() || s[i + 1 + n] != ' ') return false;
  t.month = n == 3 ? s[i + 1] - '0' : (s[i + 1] - '0') * 10 + (s[i + 2] - '0');
  if (!read_two_digits(s, i + 1 + n - 2, &t.day)) return false;
  size_t j = i + 2 + n;
  return read_clock(s, j, t) && t.month >= 1 && t.month <= 12 && t.day >= 1 && t.day <= 31;
}


// "2024/08/09 13:32:51[.frac]" (Go's log, Kubernetes components) or "05/01/2024 12:00:00" (Python
// logging's %m/%d/%Y, the Hugging Face default) at r[0..]: the offset past the clock, or 0.
size_t slash_date(std::string_view r, CivilTime& t) {
  if (r.size() < 19) return 0;
  CivilTime c;
  size_t j = 0;
  int64_t a, b, y;
  if (!read_number(r, j, &a, 4)) return 0;
  if (j == 4 && r[j] == '/') {  // YYYY/MM/DD
    ++j;
    if (!read_number(r, j, &b, 2) || j >= r.size() || r[j] != '/') return 0;
    ++j;
    int64_t d;
    if (!read_number(r, j, &d, 2)) return 0;
    c.year = static_cast<int>(a), c.month = static_cast<int>(b), c.day = static_cast<int>(d);
  } else if (j == 2 && r[j] == '/') {  // MM/DD/YYYY
    ++j;
    if (!read_number(r, j, &b, 2) || j >= r.size() || r[j] != '/') return 0;
    ++j;
    size_t before = j;
    if (!read_number(r, j, &y, 4) || j - before != 4) return 0;
    c.year = static_cast<int>(y), c.month = static_cast<int>(a), c.day = static_cast<int>(b);
  } else {
    return 0;
  }
  if (j >= r.size() || r[j] != ' ') return 0;
  ++j;
  if (!read_clock(r, j, c) || c.month < 1 || c.month > 12 || c.day < 1 || c.day > 31 || c.year < 1990) return 0;
  t = c;
  return j;
}

// `date`'s "Thu May  2 10:00:00 2024" (and "... UTC 2024") at r[0..], unbracketed: the offset past it.
size_t date_output(std::string_view r, CivilTime& t) {
  if (r.size() < 24 || r[3] != ' ' || !weekday_from_abbrev(r.substr(0, 3))) return 0;
  CivilTime c;
  c.month = month_from_abbrev(r.substr(4, 3));
  if (!c.month || r[7] != ' ') return 0;
  size_t j = 8;
  if (r[j] == ' ') ++j;
  int64_t day, year;
  if (!read_number(r, j, &day, 2) || j >= r.size() || r[j] != ' ') return 0;
  ++j;
  if (!read_clock(r, j, c) || j >= r.size() || r[j] != ' ') return 0;
  ++j;
  if (r.substr(j, 4) == "UTC ") j += 4;
  size_t y0 = j;
  if (!read_number(r, j, &year, 4) || j - y0 != 4) return 0;
  c.day = static_cast<int>(day);
  c.year = static_cast<int>(year);
  t = c;
  return j;
}


size_t syslog_date(std::string_view r, CivilTime& t) {
  if (r.size() <= 15 || r[3] != ' ') return 0;
  CivilTime c;
  c.month = month_from_abbrev(r.substr(0, 3));
  if (!c.month) return 0;
  size_t j = 4;
  if (r[j] == ' ') ++j;
  int64_t day;
  if (!read_number(r, j, &day, 2) || j >= r.size() || r[j] != ' ') return 0;
  ++j;
  c.day = static_cast<int>(day);
  if (!read_clock(r, j, c)) return 0;
  t = c;
  return j;
}

size_t month_day_clock(std::string_view r, CivilTime& t) {
  CivilTime c;
  size_t j = 6;
  if (r.size() < 14 || !is_digit(r[0]) || !is_digit(r[1]) || r[2] != '-' || !is_digit(r[3]) || !is_digit(r[4]) || r[5] != ' ' ||
      !read_clock(r, j, c))
    return 0;
  c.month = (r[0] - '0') * 10 + (r[1] - '0');
  c.day = (r[3] - '0') * 10 + (r[4] - '0');
  if (c.month < 1 || c.month > 12 || c.day < 1 || c.day > 31) return 0;
  t = c;
  return j;
}

namespace {
// At `c`, a ':' inside a clock `dd:dd:dd` as a stamp holds one: after the blank of a date ("Mar 14
// 09:41:07", "2025/03/14 ...", "E0314 ..."), or an ISO date's 'T' or '_' (every stamp reader reads it
// there). Not a progress bar's "[00:00:43<03:54:54": tqdm prints one on each step.
bool clock_at(const char* b, const char* e, const char* c) {
  return c - b >= 3 && e - c >= 6 && (c[-3] == ' ' || c[-3] == 'T' || c[-3] == '_') && is_digit(c[-2]) &&
         is_digit(c[-1]) && is_digit(c[1]) && is_digit(c[2]) && c[3] == ':' && is_digit(c[4]) && is_digit(c[5]);
}
// At `c`, a '[' opening dmesg's seconds since boot: `[ 12.345`.
bool mono_at(const char* e, const char* c) {
  const char* d = c + 1;
  while (d < e && *d == ' ') ++d;
  if (d == e || !is_digit(*d)) return false;
  while (d < e && is_digit(*d)) ++d;
  return d + 1 < e && *d == '.' && is_digit(d[1]);
}
// A journald JSON record's time is its "__REALTIME_TIMESTAMP" (microseconds, no clock); every other
// time a record's fields give is an ISO stamp with its clock. Not every '{': a Python dict's repr
// ("{'loss': 2.47, ...}", a Trainer's line per step) holds no time.
constexpr std::string_view kJournalTime = "__REALTIME_TIMESTAMP";
bool journal_time_at(const char* e, const char* c) {
  return static_cast<size_t>(e - c) >= kJournalTime.size() && std::memcmp(c, kJournalTime.data(), kJournalTime.size()) == 0;
}
bool marks_time(const char* b, const char* e, const char* c) {
  return (*c == ':' && clock_at(b, e, c)) || (*c == '[' && mono_at(e, c)) || (*c == '_' && journal_time_at(e, c));
}

// The offsets that may start a stamp's mark, sizeof(V) at a time, by the mark's first two bytes, and
// for a clock its second colon: ':' with ':' three bytes on (an NCCL "host:pid:tid" or a "key: value"
// has one colon), '[' before a blank or a digit, "__". Reads sizeof(V) + 3 bytes from c. One
// definition for both widths (GCC vector types); each width's caller turns the lanes into a mask.
typedef signed char Lanes16 __attribute__((vector_size(16)));
typedef signed char Lanes32 __attribute__((vector_size(32)));
template <class V>
[[gnu::always_inline]] inline void mark_lanes(const char* c, V* lanes) {
  V v, next, third;
  std::memcpy(&v, c, sizeof v);
  std::memcpy(&next, c + 1, sizeof v);
  std::memcpy(&third, c + 3, sizeof v);
  const V blank_or_digit = (next == ' ') | ((next >= '0') & (next <= '9'));
  *lanes = ((v == ':') & (third == ':')) | ((v == '[') & blank_or_digit) | ((v == '_') & (next == '_'));
}
template <class V>
constexpr ptrdiff_t kMarkRead = sizeof(V) + 3;

#if defined(__SSE2__)
unsigned mark_bytes(const char* c) {
  Lanes16 m;
  mark_lanes(c, &m);
  return static_cast<unsigned>(_mm_movemask_epi8(reinterpret_cast<__m128i>(m)));
}
#endif

#if defined(ATTRIBUTION_AVX2)
// 32 offsets at once, where the CPU has AVX2 (a look forward sweeps up to 5000 lines of a file whose
// stamps are far apart). The first mark in [c, end), or null; *c is left where the blocks stopped.
__attribute__((target("avx2"))) const char* next_mark32(const char* b, const char* e, const char** c, const char* end) {
  for (; end - *c >= 32 && e - *c >= kMarkRead<Lanes32>; *c += 32) {
    Lanes32 lanes;
    mark_lanes(*c, &lanes);
    for (auto m = static_cast<uint32_t>(_mm256_movemask_epi8(reinterpret_cast<__m256i>(lanes))); m; m &= m - 1)
      if (const char* at = *c + __builtin_ctz(m); marks_time(b, e, at)) return at;
  }
  return nullptr;
}
#endif
}  // namespace

// A line's own bounds and the whole buffer's answer alike (see next_time_mark).
bool may_carry_time(std::string_view s) { return next_time_mark(s, 0, s.size()) != std::string_view::npos; }

// A mark never spans a newline (its bytes are digits, ':', '.', '[', the journal's key and spaces before a digit),
// so testing it against the whole buffer's bounds answers as its line's bounds would.
size_t next_time_mark(std::string_view buf, size_t from, size_t to) {
  const char* b = buf.data();
  const char* e = b + buf.size();
  const char* c = b + from;
  const char* end = b + std::min(to, buf.size());
#if defined(ATTRIBUTION_AVX2)
  if (LiteralSearch::avx2_available())
    if (const char* at = next_mark32(b, e, &c, end)) return static_cast<size_t>(at - b);
#endif
#if defined(__SSE2__)
  for (; end - c >= 16 && e - c >= kMarkRead<Lanes16>; c += 16)
    for (unsigned m = mark_bytes(c); m; m &= m - 1)
      if (marks_time(b, e, c + __builtin_ctz(m))) return static_cast<size_t>(c + __builtin_ctz(m) - b);
#endif
  for (; c < end; ++c)
    if (marks_time(b, e, c)) return static_cast<size_t>(c - b);
  return std::string_view::npos;
}

size_t prev_time_mark(std::string_view buf, size_t from, size_t to) {
  const char* b = buf.data();
  const char* e = b + buf.size();
  const char* lo = b + from;
  const char* c = b + std::min(to, buf.size());  // candidates lie before c
#if defined(__SSE2__)
  while (c > lo && e - c < kMarkRead<Lanes16> - 16)  // the blocks below read this far past their end
    if (marks_time(b, e, --c)) return static_cast<size_t>(c - b);
  for (; c - lo >= 16; c -= 16)
    for (unsigned m = mark_bytes(c - 16); m; m &= ~(1u << (31 - __builtin_clz(m))))
      if (const char* at = c - 16 + (31 - __builtin_clz(m)); marks_time(b, e, at)) return static_cast<size_t>(at - b);
#endif
  while (c > lo)
    if (marks_time(b, e, --c)) return static_cast<size_t>(c - b);
  return std::string_view::npos;
}


}  // namespace attribution
