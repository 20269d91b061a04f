#pragma once
// What a rule's pattern yields beyond RE2: a name may be reused across alternatives (RE2 wants
// names unique, so later uses are numbered and merged back), and `when` conditions compare
// numeric captures ("seq < others_seq"), which no regular expression can (docs/rules.md).
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attribution {

// `pattern` with the second and later groups of one name renamed `name__2`, `name__3`, ...
std::string number_repeated_groups(std::string_view pattern);
// The author's name of a compiled group: "rank__2" -> "rank".
std::string_view capture_name(std::string_view group);

struct Condition {
  std::string left, op, right;  // left: a capture; right: a capture or an integer
};
// "seq < others_seq", "count >= 2"; nullopt with `why` set when it is not one.
std::optional<Condition> parse_condition(std::string_view text, std::string* why);
// Both sides are integers and the comparison holds; a side that did not take part is false.
bool holds(const Condition& c, const std::map<std::string, std::string>& captures);
std::string to_string(const Condition& c);

}  // namespace attribution
