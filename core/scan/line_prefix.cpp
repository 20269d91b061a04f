#include "core/scan/line_prefix.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/scan/prefix_readers.hpp"
#include "core/scan/written_time.hpp"

namespace attribution {
namespace {

// A syslog record with its date cut off: "rig-6600 kernel: Out of memory: ...", "gpu-7 slurmd[812]: ...".
// The syslog reader's host and tag, where the tag is the kernel's or a daemon's "name[pid]": without the
// date nothing else says the line is a syslog record. The offset after the tag's ": ", or 0.
size_t dateless_syslog_host(std::string_view s, LinePrefix& p) {
  LinePrefix q;
  size_t end = syslog_host_tag(s, 0, q);
  if (end == 0 || q.host.empty() || !could_name_machine(q.host) || end >= s.size() || s[end] != ' ') return 0;
  std::string_view tag = s.substr(q.host.size() + 1, end - q.host.size() - 2);
  size_t open = tag.find('[');
  const bool daemon = open != std::string_view::npos && open > 0 && tag.back() == ']' && tag.size() > open + 2 &&
                      std::all_of(tag.begin() + open + 1, tag.end() - 1, is_digit);
  if (tag != "kernel" && !daemon) return 0;
  p.host = q.host;
  return end + 1;
}

bool says_something(const LinePrefix& p) { return p.civil || p.epoch || p.mono || !p.host.empty() || p.pid >= 0; }

// A prefix behind a wrapper: grep's "file:" or "file:123:" before the line, or an alerting or
// forwarding text before a syslog header ("<alert>: Mar 14 09:41:07 node03 kernel: ...").
std::optional<LinePrefix> behind_wrapper(std::string_view s) {
  size_t colon = s.find(':');
  if (colon != std::string_view::npos && colon > 0 && colon < 200 && s.substr(0, colon).find(' ') == std::string_view::npos) {
    size_t k = colon + 1;
    int64_t line_no;
    size_t d = k;
    if (read_number(s, d, &line_no, 9) && d < s.size() && s[d] == ':') k = d + 1;
    LinePrefix q = parse_prefix_at(s.substr(k));
    if (q.civil || q.epoch || q.mono || (!q.host.empty() && q.pid >= 0)) {
      q.message_offset += k;
      return q;
    }
  }
  // A syslog header further in: "Mon dd hh:mm:ss host tag:" after a space.
  const size_t end = s.size() < 17 ? 0 : std::min<size_t>(s.size() - 16, 300);  // room for the header
  auto header_at = [&](size_t at) -> std::optional<LinePrefix> {
    std::string_view r = s.substr(at + 1);
    if (!month_from_abbrev(r.substr(0, 3))) return std::nullopt;
    LinePrefix q = parse_prefix_at(r);
    if (!q.civil || q.host.empty()) return std::nullopt;
    q.message_offset += at + 1;
    return q;
  };
  size_t at = 0;
#if defined(__SSE2__)
  // Every line without a machine comes here: 16 offsets at a time, only where a space stands both at
  // the offset and four bytes on (the blank after "Mon"). A progress bar's line holds dozens of spaces.
  const __m128i blank = _mm_set1_epi8(' ');
  for (; at + 16 <= end && at + 20 <= s.size(); at += 16) {
    __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + at));
    __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + at + 4));
    auto both = static_cast<unsigned>(_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, blank), _mm_cmpeq_epi8(b, blank))));
    for (; both; both &= both - 1)
      if (auto q = header_at(at + static_cast<size_t>(__builtin_ctz(both)))) return q;
  }
#endif
  for (; at < end; ++at)
    if (s[at] == ' ' && s[at + 4] == ' ')
      if (auto q = header_at(at)) return q;
  return std::nullopt;
}

}  // namespace

LinePrefix parse_line_prefix(std::string_view s) {
  if (size_t k = paste_markers(s); k > 0) {
    LinePrefix q = parse_line_prefix(s.substr(k));
    q.message_offset += k;
    q.paste_markers = k;
    return q;
  }
  LinePrefix p = parse_prefix_at(s);
  if (!says_something(p) && p.rank < 0 && p.task < 0 && !s.empty() && (s[0] == ' ' || s[0] == '\t')) {
    // A paste indented ("    [rank0]: ...", "    rig-6600 kernel: ..."): the prefix after the indent counts.
    size_t k = 0;
    while (k < s.size() && (s[k] == ' ' || s[k] == '\t')) ++k;
    LinePrefix q = k < s.size() ? parse_line_prefix(s.substr(k)) : LinePrefix{};
    if (says_something(q) || q.rank >= 0) {
      q.message_offset += k;
      return q;
    }
  }
  if (!p.host.empty()) return p;
  if (!says_something(p) && p.rank < 0 && p.task < 0)
    if (size_t e = dateless_syslog_host(s, p)) {
      p.message_offset = e;
      return p;
    }
  // No machine named yet: a syslog header may sit behind a wrapper (a grep file name, an alert or a
  // forwarder's own stamp and tag). Its host counts; the outer time, when there is one, stays.
  if (auto q = behind_wrapper(s)) {
    if (!says_something(p) && p.rank < 0 && p.local_rank < 0 && p.task < 0) return *q;
    p.host = q->host;
    if (!p.civil && !p.epoch && !p.mono) p.civil = q->civil;
    p.message_offset = q->message_offset;
  }
  return p;
}

std::optional<Micros> resolve_time(const LinePrefix& p, const TimeContext& ctx) {
  if (p.epoch) return p.epoch;
  if (p.civil) {
    CivilTime t = *p.civil;
    if (t.year == 0) t = with_year_near(t, ctx.year_anchor, ctx.year_cap, ctx.year_floor);
    if (t.utc_offset_s) return civil_to_micros_utc(t) - Micros(*t.utc_offset_s) * kMicrosPerSecond;
    return ctx.zone.to_utc(t);
  }
  if (p.mono && ctx.boot) return *ctx.boot + *p.mono;
  return std::nullopt;
}

std::string_view printed_part(std::string_view line, bool keep_indent) {
  size_t cut = std::min(line.size(), parse_line_prefix(line).message_offset);
  while (keep_indent && cut >= 2 && line[cut - 1] == ' ' && line[cut - 2] == ' ') --cut;
  std::string_view m = line.substr(cut);
  return keep_indent ? m : m.substr(std::min(m.size(), m.find_first_not_of(" \t")));
}

}  // namespace attribution
