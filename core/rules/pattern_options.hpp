#pragma once
// The options every rule's pattern compiles with, alone (RulePattern) or in a PatternSet.
#include <re2/re2.h>

namespace attribution {

inline RE2::Options pattern_options() {
  RE2::Options opt;
  opt.set_log_errors(false);
  return opt;
}

}  // namespace attribution
