#pragma once
// The bounds that protect the user's terminal and memory from hostile or pathological input
// (docs/reliability.md). The report states them and how often a run hit them.
#include <algorithm>
#include <cstddef>

namespace attribution {

// The longest evidence text kept per line; a longer one is cut with "[... N more bytes]".
constexpr size_t kMaxEvidenceText = 2048;

// Distinct findings kept (a burst folds into one), in all, shared out over the files; each file
// keeps at least the floor. Past its share, a file's matching lines are only counted, and its
// source says so.
constexpr size_t kMaxFindings = 200'000;
constexpr size_t kMinFindingsPerFile = 1'000;
inline size_t findings_per_file(size_t files) {
  return std::max(kMinFindingsPerFile, kMaxFindings / std::max<size_t>(files, 1));
}

}  // namespace attribution
