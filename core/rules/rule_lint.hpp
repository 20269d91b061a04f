#pragma once
// Checks of `attribution rules lint` that look across rules or beyond one rule's samples.
#include <string>
#include <vector>

#include "core/rules/rules.hpp"

namespace attribution {

struct LintFinding {
  std::string file;
  long line = 0;
  std::string rule;
  bool error = false;  // errors make lint fail; warnings are style
  std::string message;
};

// Above this RE2 program size a pattern is costly on every candidate line. The largest built-in is
// cuda.other-error (about 2300: a generated "none of these errors" complement, as RE2 has no look-ahead).
constexpr int kProgramSizeBudget = 2500;

// `rules`: the rules under lint, each already loaded and sample-checked, in file order.
// `universe`: every rule an `explains` selector may name (the rules themselves, plus the built-ins
// when linting user files). Findings come in the order of `rules`.
std::vector<LintFinding> lint_rules(const std::vector<Rule>& rules, const std::vector<Rule>& universe,
                                    int program_budget = kProgramSizeBudget);

}  // namespace attribution
