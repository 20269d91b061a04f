#pragma once
// What a matching line leaves in the report: its text (cut and made valid UTF-8), where it is, its
// time and captures. The scan keeps a burst's last line pending and writes it once (scan.cpp).
#include <map>
#include <string>
#include <string_view>

#include "core/base/model.hpp"

namespace attribution {

struct PendingEvidence {
  std::string block;      // a multi-line rule's lines joined by '\n'; empty for a single line
  std::string line;       // the (first) line, copied: the file's pages behind the scan may be released
  int64_t line_no = 0;
  Micros time = 0;
  bool time_inferred = false;
  std::string host;
  int rank = -1;
  std::map<std::string, std::string> captures;  // all of them, unsanitized
};

// A line as evidence text: valid UTF-8, cut at kMaxEvidenceText on a character boundary with the
// number of bytes left out said.
std::string evidence_text(std::string_view line);

// The evidence of `p`, read by source `source` from `path` (its location is path:line).
Evidence make_evidence(const PendingEvidence& p, const std::string& source, const std::string& path);

}  // namespace attribution
