#include "sources/source.hpp"

#include <fmt/format.h>

#include "core/base/duration.hpp"

namespace attribution {

Status parse_stream(const TomlReader& r, std::string& stream, bool scheduler_allowed) {
  std::optional<std::string> s;
  ATTRIBUTION_TRY(s, r.str("stream"));
  if (!s) return Ok{};
  if (*s != "applog" && *s != "syslog" && (!scheduler_allowed || *s != "scheduler"))
    return r.error("stream", fmt::format("stream '{}' is not one of applog, syslog{}", *s,
                                         scheduler_allowed ? ", scheduler" : ""));
  stream = *s;
  return Ok{};
}

Status parse_timeout(const TomlReader& r, const char* key, Micros& out) {
  std::optional<std::string> t;
  ATTRIBUTION_TRY(t, r.str(key));
  if (!t) return Ok{};
  auto d = parse_duration(*t);
  if (!d || *d <= 0) return r.error(key, fmt::format("'{}' is not a positive duration", *t));
  out = *d;
  return Ok{};
}

}  // namespace attribution
