#pragma once
// `attribution rules catalogue`: the loaded rules as one Markdown document (docs/rules-catalogue.md).
#include <string>

#include "core/rules/rules.hpp"

namespace attribution {

// Per ruleset file (in name order, rules in definition order) a table of every rule, then the rule
// count per family. Deterministic: the same rules give the same bytes.
std::string render_rule_catalogue(const RuleSet& rules);

}  // namespace attribution
