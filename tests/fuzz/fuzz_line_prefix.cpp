// Log line prefixes and their times: every line of every log goes through these.
#include "core/scan/line_prefix.hpp"
#include "core/base/time.hpp"
#include "tests/fuzz/fuzz_common.hpp"

using namespace attribution;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view line = fuzz::text(data, size);
  LinePrefix p = parse_line_prefix(line);
  fuzz::check(p.message_offset <= line.size(), "message_offset inside the line");
  fuzz::check(p.host.empty() || (p.host.data() >= line.data() && p.host.data() + p.host.size() <= line.data() + line.size()),
              "host is a view into the line");

  // Year-less times go near an anchor; vary it with the input so both sides of New Year get hit.
  static const TimeZone paris = TimeZone::parse("Europe/Paris").ok() ? *TimeZone::parse("Europe/Paris") : TimeZone::utc();
  static const TimeZone plus8 = *TimeZone::parse("+08:00");
  TimeContext ctx;
  ctx.year_anchor = 1741600000LL * kMicrosPerSecond;
  (void)resolve_time(p, ctx);
  ctx.zone = plus8;
  ctx.boot = 1741500000LL * kMicrosPerSecond;
  (void)resolve_time(p, ctx);
  ctx.zone = paris;
  (void)resolve_time(p, ctx);

  size_t used = 0;
  if (parse_iso8601(line, &used)) fuzz::check(used <= line.size(), "parse_iso8601 consumed inside the text");
  if (auto t = parse_time_value(line, TimeZone::utc())) (void)format_rfc3339(*t);
  (void)parse_time_value(line, plus8);
  return 0;
}
