#include "sources/source.hpp"

#include <fmt/format.h>


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

}  // namespace attribution
