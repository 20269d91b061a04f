#pragma once
#include <string_view>

#include "core/base/result.hpp"
#include "core/base/time.hpp"

namespace attribution {
// "90s", "15m", "2h", "1d", "500ms", "1h30m"; a bare number is seconds.
Result<Micros> parse_duration(std::string_view text);
}  // namespace attribution
