#pragma once
// Pass 4: stream every collected file through the prefilter and the rules; each hit becomes a
// Finding with its evidence (source, path:line, time, text). Files run in parallel; results are
// merged in collection order so the thread count never changes the output.
#include <atomic>
#include <vector>

#include "core/scan/input.hpp"
#include "core/base/limits.hpp"
#include "core/rules/matcher.hpp"
#include "core/base/model.hpp"

namespace attribution {

struct ScanResult {
  std::vector<Finding> findings;  // collection order, then line order
  std::optional<Micros> earliest, latest;  // span of real (not inferred) times seen in hits
  // Year-less stamps were read with nothing in the job to give their year (no window, no
  // full-year stamp in the logs): their year is the files' modification time's, at the latest.
  bool year_inferred = false;
  // With `record`: per collected file (null for inline text), the lines a replay needs: every
  // line in the window, and every line the scan read to make a finding (its block, its time
  // anchors) wherever it lies.
  std::vector<std::shared_ptr<const FileExtract>> extracts;
  // Pasted excerpts' lines that read like errors and that no rule read, in collection order, the
  // last kUnreadLines: what a report with no finding points to.
  std::vector<Evidence> unread;
};

constexpr size_t kUnreadLines = 12;

// Counters a caller may watch from another thread while the scan runs (progress on a terminal).
struct ScanProgress {
  std::atomic<int64_t> files_total{0}, files_done{0}, bytes_done{0};
  // What the prefilter let through: lines holding a rule's literal, and those a rule then matched.
  std::atomic<int64_t> candidate_lines{0}, matching_lines{0};
  // With `measure_verify`: the time (all threads, nanoseconds) spent checking candidate lines
  // against the rules' patterns. Off by default: two clock reads per candidate line.
  bool measure_verify = false;
  std::atomic<int64_t> verify_ns{0};
};

ScanResult scan(Collection& collection, const Matcher& matcher, const Workload& workload, int threads,
                bool record = false, ScanProgress* progress = nullptr);

}  // namespace attribution
