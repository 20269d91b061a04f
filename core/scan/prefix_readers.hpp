#pragma once
// The readers of a line's prefixes, one kind each (a launcher's label, a viewer's column, a stamp, a
// syslog header, NCCL's host:pid:tid, ...), and the loop that applies them from the line's start.
// parse_line_prefix (line_prefix.hpp) adds what needs the whole line: quote markers, an indent, a
// header behind a wrapper.
#include <cstddef>
#include <string_view>

#include "core/scan/line_prefix.hpp"

namespace attribution {

// The prefixes at the start of `s`, read in turn until none applies.
LinePrefix parse_prefix_at(std::string_view s);

// After a syslog/journal time at s[i]: "[host ]tag[pid]: ". Sets p.host when present; the offset just past
// the tag's colon, or i when there is none.
size_t syslog_host_tag(std::string_view s, size_t i, LinePrefix& p);

}  // namespace attribution
