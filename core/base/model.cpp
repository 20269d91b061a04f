#include "core/base/model.hpp"

#include <fmt/format.h>

namespace attribution {

std::string problems_summary(const std::vector<std::string>& problems) {
  if (problems.empty()) return {};
  return fmt::format("{} problem(s); first: {}", problems.size(), problems.front());
}

std::string_view to_string(SourceStatus s) {
  switch (s) {
    case SourceStatus::ok: return "ok";
    case SourceStatus::partial: return "partial";
    case SourceStatus::empty: return "empty";
    case SourceStatus::error: return "error";
    case SourceStatus::skipped: return "skipped";
  }
  return "?";
}

}  // namespace attribution
