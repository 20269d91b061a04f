#pragma once
// Syslog, glog and some dmesg stamps carry no year. They take it from the job: the window when a
// scheduler gives one, else the full-year times the job's own logs print (other lines, other
// files, a torchrun error summary's "time : 2025-06-03_08:42:07"). Build dates in kernel and
// driver banners ("Linux version ... UTC 2024") bound it from below. Only when nothing anchors it
// does a file's modification time decide, and the report then says the year is inferred.
#include <optional>
#include <string_view>
#include <vector>

#include "core/base/time.hpp"

namespace attribution {

struct YearClues {
  std::vector<Micros> stamps;    // full-year times the logs print
  std::optional<Micros> floor;   // the latest build date a banner prints: the logs come after it
};

// Adds the clues among the first `max_lines` lines of `text`; times without a zone are in `zone`.
void add_year_clues(std::string_view text, const TimeZone& zone, size_t max_lines, YearClues& out);

// The median of the stamps found (robust to a stray line from another year); unset when none.
std::optional<Micros> year_anchor_of(std::vector<Micros> stamps);

}  // namespace attribution
