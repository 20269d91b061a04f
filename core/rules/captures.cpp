#include "core/rules/captures.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fmt/format.h>

namespace attribution {

namespace {

bool is_name(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

std::optional<long long> integer(std::string_view s) {
  long long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    size_t j = s.find(' ', i);
    if (j == std::string_view::npos) j = s.size();
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

}  // namespace

std::optional<Condition> parse_condition(std::string_view text, std::string* why) {
  auto w = words(text);
  static const std::vector<std::string_view> kOps = {"<", "<=", ">", ">=", "==", "!="};
  if (w.size() != 3) {
    *why = "a condition is three words: a capture, one of < <= > >= == !=, and a capture or an integer";
    return std::nullopt;
  }
  if (!is_name(w[0])) {
    *why = fmt::format("'{}' is not a capture name", w[0]);
    return std::nullopt;
  }
  if (std::find(kOps.begin(), kOps.end(), w[1]) == kOps.end()) {
    *why = fmt::format("'{}' is not one of < <= > >= == !=", w[1]);
    return std::nullopt;
  }
  if (!is_name(w[2]) && !integer(w[2])) {
    *why = fmt::format("'{}' is neither a capture name nor an integer", w[2]);
    return std::nullopt;
  }
  return Condition{std::string(w[0]), std::string(w[1]), std::string(w[2])};
}

bool holds(const Condition& c, const std::map<std::string, std::string>& captures) {
  auto value = [&](const std::string& side) -> std::optional<long long> {
    if (auto n = integer(side)) return n;
    auto it = captures.find(side);
    return it == captures.end() ? std::nullopt : integer(it->second);
  };
  auto a = value(c.left), b = value(c.right);
  if (!a || !b) return false;
  if (c.op == "<") return *a < *b;
  if (c.op == "<=") return *a <= *b;
  if (c.op == ">") return *a > *b;
  if (c.op == ">=") return *a >= *b;
  if (c.op == "==") return *a == *b;
  return *a != *b;
}

std::string to_string(const Condition& c) { return fmt::format("{} {} {}", c.left, c.op, c.right); }

}  // namespace attribution
