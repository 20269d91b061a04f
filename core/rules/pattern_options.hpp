#pragma once
// The options every rule's pattern compiles with, alone or in a PatternSet (defined in rules.cpp).
#include <re2/re2.h>

namespace attribution {

RE2::Options pattern_options();

}  // namespace attribution
