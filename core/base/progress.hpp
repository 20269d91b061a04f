#pragma once
// The one-line progress display of a long scan, for a terminal: what was scanned, and how fast.
#include <cstdint>
#include <string>

namespace attribution {

// "scanning 12/340 files, 1.2 GiB, 812 MiB/s"
std::string format_progress(int64_t files_done, int64_t files_total, int64_t bytes_done, double seconds);

}  // namespace attribution
