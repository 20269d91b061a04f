#include "core/base/progress.hpp"

#include <fmt/format.h>

namespace attribution {
namespace {

std::string bytes_text(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} B", b) : fmt::format("{:.1f} {}", b, units[u]);
}

}  // namespace

std::string format_progress(int64_t files_done, int64_t files_total, int64_t bytes_done, double seconds) {
  std::string rate = seconds > 0 ? bytes_text(static_cast<double>(bytes_done) / seconds) + "/s" : std::string("-");
  return fmt::format("scanning {}/{} files, {}, {}", files_done, files_total, bytes_text(static_cast<double>(bytes_done)),
                     rate);
}

}  // namespace attribution
