#pragma once
// `when` conditions compare numeric captures ("ops < others_ops"), which no regular expression
// can (docs/rules.md).
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attribution {

struct Condition {
  std::string left, op, right;  // left: a capture; right: a capture or an integer
};
// "seq < others_seq", "count >= 2"; nullopt with `why` set when it is not one.
std::optional<Condition> parse_condition(std::string_view text, std::string* why);
// Both sides are integers and the comparison holds; a side that did not take part is false.
bool holds(const Condition& c, const std::map<std::string, std::string>& captures);
std::string to_string(const Condition& c);

}  // namespace attribution
