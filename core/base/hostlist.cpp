#include "core/base/hostlist.hpp"

#include <fmt/format.h>

namespace attribution {
namespace {

constexpr size_t kMaxHosts = 1'000'000;

Error bad(std::string_view expr, std::string_view why) {
  return make_error(ErrorKind::usage, fmt::format("bad hostlist '{}': {}", expr, why), {}, 0, {},
                    "write e.g. node[001-004,007],gpu-a05");
}

// One bracket group "001-004,007" -> {"001","002","003","004","007"}.
Result<std::vector<std::string>> expand_ranges(std::string_view all, std::string_view body) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= body.size()) {
    size_t comma = body.find(',', pos);
    std::string_view item = body.substr(pos, comma == std::string_view::npos ? body.npos : comma - pos);
    if (item.empty()) return bad(all, "empty range");
    size_t dash = item.find('-');
    std::string_view lo = item.substr(0, dash);
    std::string_view hi = dash == std::string_view::npos ? lo : item.substr(dash + 1);
    auto numeric = [](std::string_view v) {
      return !v.empty() && v.size() <= 18 && v.find_first_not_of("0123456789") == std::string_view::npos;
    };
    if (!numeric(lo) || !numeric(hi)) return bad(all, fmt::format("'{}' is not a number range", item));
    long long a = std::stoll(std::string(lo)), b = std::stoll(std::string(hi));
    if (b < a) return bad(all, fmt::format("range '{}' runs backwards", item));
    // The cap is on the whole group: "[0-999999,0-999999,...]" must not multiply it.
    if (static_cast<size_t>(b - a) >= kMaxHosts - out.size()) return bad(all, "too many hosts");
    size_t width = lo.size();
    for (long long v = a; v <= b; ++v) out.push_back(fmt::format("{:0{}}", v, width));
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return out;
}

}  // namespace

Result<std::vector<std::string>> expand_hostlist(std::string_view expr) {
  std::vector<std::string> hosts;
  size_t i = 0;
  while (i < expr.size()) {
    // One host expression runs to the next comma outside brackets.
    std::vector<std::string> partial{""};
    while (i < expr.size() && expr[i] != ',') {
      if (expr[i] == ' ' || expr[i] == '\n' || expr[i] == '\t') return bad(expr, "unexpected space");
      if (expr[i] == ']') return bad(expr, "']' without '['");
      if (expr[i] != '[') {
        for (auto& p : partial) p += expr[i];
        ++i;
        continue;
      }
      size_t close = expr.find(']', i);
      if (close == std::string_view::npos) return bad(expr, "'[' without ']'");
      auto items = expand_ranges(expr, expr.substr(i + 1, close - i - 1));
      if (!items) return items.error();
      if (partial.size() * items->size() > kMaxHosts) return bad(expr, "too many hosts");
      std::vector<std::string> next;
      next.reserve(partial.size() * items->size());
      for (const auto& p : partial)
        for (const auto& s : *items) next.push_back(p + s);
      partial = std::move(next);
      i = close + 1;
    }
    if (partial.size() == 1 && partial[0].empty()) return bad(expr, "empty host name");
    if (partial.size() > kMaxHosts - hosts.size()) return bad(expr, "too many hosts");  // over all expressions
    for (auto& p : partial) hosts.push_back(std::move(p));
    ++i;  // skip ','
  }
  if (hosts.empty()) return bad(expr, "no hosts");
  return hosts;
}

}  // namespace attribution
