#include "core/rules/ruleset_text.hpp"

namespace attribution {

namespace {
bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

size_t count(std::string_view s, std::string_view what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string_view::npos; at = s.find(what, at + what.size())) ++n;
  return n;
}

bool sample_array_opens(std::string_view line) { return line == "match = [" || line == "no_match = ["; }

bool sample_array_on_one_line(std::string_view line) {
  return (starts_with(line, "match = [") || starts_with(line, "no_match = [")) && !line.empty() && line.back() == ']';
}
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
      if (starts_with(line, "[[")) return std::nullopt;  // an array never closed
      in_array = line != "]";
      blank = true;
    } else if (first != std::string_view::npos && line[first] == '#') {
      blank = true;
    } else if (sample_array_opens(line)) {
      in_array = blank = true;
    } else if (starts_with(line, "match = [") || starts_with(line, "no_match = [")) {
      if (!sample_array_on_one_line(line)) return std::nullopt;
      blank = true;
    }
    if (!blank) out.append(line);
    if (eol != std::string_view::npos) out.push_back('\n');
  }
  if (in_array) return std::nullopt;
  return out;
}

}  // namespace attribution
