#include "core/scan/input.hpp"

#include <filesystem>
#include <re2/re2.h>

namespace attribution {

bool is_system_log_name(const std::string& path) {
  static const RE2 re(R"((?i)(^|[^a-z])(kern|kernel|dmesg|messages|syslog|journal)([^a-z]|$))");
  return RE2::PartialMatch(std::filesystem::path(path).filename().string(), re);
}

}  // namespace attribution
