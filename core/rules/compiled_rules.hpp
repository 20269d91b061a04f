#pragma once
// The built-in rulesets as the build compiled them (cli/compile_rules_main.cpp): each file's rules
// and metrics, parsed and sample-checked once, kept in a plain length-prefixed text a diagnosis
// reads back in a few milliseconds instead of parsing megabytes of TOML at every start.
#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.hpp"
#include "core/rules/rules.hpp"

namespace attribution {

struct CompiledRuleset {
  std::vector<Rule> rules;  // without samples; patterns compile on first use
  std::vector<MetricSpec> metrics;
};

// Every field of each rule and metric except the samples (the build checked them). Text without
// NUL bytes, so it can be embedded as a string literal.
std::string encode_ruleset(const std::vector<Rule>& rules, const std::vector<MetricSpec>& metrics);
// The rules and metrics encode_ruleset wrote; an error names the offset of what is malformed.
Result<CompiledRuleset> decode_ruleset(std::string_view text, const std::string& file);

}  // namespace attribution
