#include "sources/source.hpp"

#include <fmt/format.h>


namespace attribution {

Status parse_stream(const TomlReader& r, Stream& stream, bool scheduler_allowed) {
  std::optional<std::string> s;
  ATTRIBUTION_TRY(s, r.str("stream"));
  if (!s) return Ok{};
  auto parsed = parse_stream_name(*s);
  // The metrics stream is the Prometheus source's own lines.
  if (!parsed || *parsed == Stream::metrics || (*parsed == Stream::scheduler && !scheduler_allowed))
    return r.error("stream", fmt::format("stream '{}' is not one of applog, syslog{}", *s,
                                         scheduler_allowed ? ", scheduler" : ""));
  stream = *parsed;
  return Ok{};
}

}  // namespace attribution
