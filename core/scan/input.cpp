#include "core/scan/input.hpp"

#include <filesystem>
#include <re2/re2.h>

namespace attribution {

bool is_system_log_name(const std::string& path) {
  static const RE2 re(R"((?i)(^|[^a-z])(kern|kernel|dmesg|messages|syslog|journal)([^a-z]|$))");
  return RE2::PartialMatch(std::filesystem::path(path).filename().string(), re);
}

int rank_from_name(const std::string& path) {
  static const RE2 re(R"((?:^|[^a-z])rank[-_.]?([0-9]{1,6})(?:[^0-9]|$))");
  std::string name = std::filesystem::path(path).filename().string();
  int r = -1;
  return RE2::PartialMatch(name, re, &r) ? r : -1;
}

}  // namespace attribution
