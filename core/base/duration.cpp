#include "core/base/duration.hpp"

#include <fmt/format.h>

namespace attribution {

Result<Micros> parse_duration(std::string_view s) {
  auto bad = [&] {
    return make_error(ErrorKind::usage, fmt::format("'{}' is not a duration", s), {}, 0, {},
                      "write e.g. 90s, 15m, 2h, 1h30m or 500ms");
  };
  if (s.empty()) return bad();
  Micros total = 0;
  size_t i = 0;
  bool any = false;
  while (i < s.size()) {
    size_t start = i;
    int64_t n = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      n = n * 10 + (s[i] - '0');
      if (n > 10'000'000'000LL) return bad();
      ++i;
    }
    if (i == start) return bad();
    std::string_view unit;
    size_t u = i;
    while (i < s.size() && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z'))) ++i;
    unit = s.substr(u, i - u);
    Micros mult;
    if (unit.empty() || unit == "s") mult = kMicrosPerSecond;
    else if (unit == "ms") mult = 1000;
    else if (unit == "us") mult = 1;
    else if (unit == "m" || unit == "min") mult = 60 * kMicrosPerSecond;
    else if (unit == "h") mult = 3600 * kMicrosPerSecond;
    else if (unit == "d") mult = 86400 * kMicrosPerSecond;
    else return bad();
    if (unit.empty() && i != s.size()) return bad();
    Micros part = 0;
    if (__builtin_mul_overflow(n, mult, &part) || __builtin_add_overflow(total, part, &total)) return bad();
    any = true;
  }
  if (!any) return bad();
  return total;
}

}  // namespace attribution
