#pragma once
// A suspect named when no fault signature was found: the analyses over the timeline's per-rank
// and per-host facts (core/analysis/ranks.hpp) and the residual ones in precedence.
#include <string>
#include <vector>

#include "core/base/enums.hpp"

namespace attribution {

struct Localisation {
  // collective-mismatch | host-mismatch | never-enqueued | stuck-in-collective | hang-minority |
  // converging-peer | waited-without-fault | library-error-without-fault | first-failure
  std::string kind;
  std::string category;  // outcome category
  std::string family;
  Blame blame = Blame::unknown;
  Confidence confidence = Confidence::low;  // a suspect, not a verdict, unless the evidence is direct
  std::string title, detail;
  std::string action;  // empty: inspect the suspect's logs
  std::string host;
  int rank = -1;
  std::vector<size_t> findings;  // supporting evidence
};

}  // namespace attribution
