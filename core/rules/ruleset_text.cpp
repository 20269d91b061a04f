#include "core/rules/ruleset_text.hpp"

namespace attribution {

namespace {
size_t count(std::string_view s, std::string_view what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string_view::npos; at = s.find(what, at + what.size())) ++n;
  return n;
}

bool opens_samples(std::string_view line) { return line.starts_with("match = [") || line.starts_with("no_match = ["); }
}  // namespace

std::optional<std::string> without_samples(std::string_view text) {
  std::string out;
  out.reserve(text.size() / 2);
  bool in_array = false;
  for (size_t pos = 0; pos < text.size();) {
    size_t eol = text.find('\n', pos);
    std::string_view line = text.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
    pos = eol == std::string_view::npos ? text.size() : eol + 1;
    if (count(line, "'''") % 2 || count(line, "\"\"\"") % 2) return std::nullopt;  // a multi-line string
    size_t first = line.find_first_not_of(" \t");
    bool blank = false;
    if (in_array) {
      if (line.starts_with("[[")) return std::nullopt;  // an array never closed
      in_array = line != "]";
      blank = true;
    } else if (first != std::string_view::npos && line[first] == '#') {
      blank = true;
    } else if (opens_samples(line)) {
      in_array = line.back() == '[';  // alone on its line: closed by a "]" line
      if (!in_array && line.back() != ']') return std::nullopt;  // opened mid-line, closed on another
      blank = true;
    }
    if (!blank) out.append(line);
    if (eol != std::string_view::npos) out.push_back('\n');
  }
  if (in_array) return std::nullopt;
  return out;
}

}  // namespace attribution
