#pragma once
// How a file source reads once the scan is done (docs/reliability.md): its status and reason from
// what its files gave, the workload hosts it covered, and hosts whose every matching line lies
// outside the window (a clock or time zone off, not another day's history).
#include <cstdlib>
#include <map>
#include <set>
#include <string>

#include "core/base/model.hpp"

namespace attribution {

// Matching lines of one host whose own time lies outside the window.
struct OutsideWindow {
  int64_t count = 0;
  Micros nearest = 0;       // signed distance to the window of the closest one: < 0 before, > 0 after
  Micros nearest_time = 0;  // its time
  void add(int64_t lines, Micros distance, Micros time) {
    if (count == 0 || std::abs(distance) < std::abs(nearest)) nearest = distance, nearest_time = time;
    count += lines;
  }
};

// One source's files, as the scan found them.
struct SourceTally {
  int64_t failed = 0, empty = 0;                // files that could not be read / held no bytes
  std::map<std::string, OutsideWindow> outside;  // by host
  std::set<std::string> inside;                  // hosts with a matching line in the window
  std::set<std::string> covered;                 // hosts with a matching line
};

// Adds the covered workload hosts and clock-suspect problems to `cov`, then sets its status and
// reason, unless a collector already did.
void settle_source(SourceCoverage& cov, const SourceTally& tally, const Workload& w);

}  // namespace attribution
