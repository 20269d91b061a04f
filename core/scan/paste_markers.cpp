#include "core/scan/paste_markers.hpp"

#include <algorithm>
#include <cstring>

namespace attribution {
namespace {

bool log_file_name(std::string_view name) {
  for (std::string_view ext : {".log", ".txt", ".out", ".err"}) {
    size_t at = name.rfind(ext);
    if (at == std::string_view::npos || at == 0) continue;
    size_t k = at + ext.size();
    if (k < name.size() && name[k] == '.') ++k;  // a rotated log: train.log.1
    while (k < name.size() && name[k] >= '0' && name[k] <= '9') ++k;
    if (k == name.size()) return true;
  }
  return false;
}

// A viewer's or grep's line number: cat -n / nl ("    12\t"); grep -n ("12:" before anything but a blank and
// a clock's two digits: "12:34:56" is a clock, "3: " srun's task label, while "1:71885 Killed" and "27:\tState:
// Down" are grep's); grep over files ("train.log:12:", only a log's file name, so an NCCL prefix's
// "host.domain:pid:" or a compiler's "x.cpp:12:" is not one).
size_t line_number_marker(std::string_view s) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  size_t i = 0;
  while (i < s.size() && i < 6 && s[i] == ' ') ++i;
  size_t d = i;
  while (d < s.size() && d - i < 7 && digit(s[d])) ++d;
  if (d > i && d < s.size() && s[d] == '\t') return d + 1;
  if (i > 0 || s.empty()) return 0;
  if (d > 0) {
    if (d + 1 >= s.size() || s[d] != ':' || s[d + 1] == ' ') return 0;
    size_t k = d + 1;
    while (k < s.size() && digit(s[k])) ++k;
    return k - (d + 1) == 2 ? 0 : d + 1;  // "12:34" is a clock's
  }
  const void* c = std::memchr(s.data(), ':', std::min<size_t>(s.size(), 200));
  if (!c) return 0;
  const size_t colon = static_cast<size_t>(static_cast<const char*>(c) - s.data());
  const std::string_view name = s.substr(0, colon);
  if (name.find_first_of(" \t") != std::string_view::npos || !log_file_name(name)) return 0;
  size_t e = colon + 1;
  while (e < s.size() && e - colon <= 9 && digit(s[e])) ++e;
  return e > colon + 1 && e < s.size() && s[e] == ':' ? e + 1 : 0;
}

size_t quote_marks(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && i < 8 && (s[i] == ' ' || s[i] == '\t')) ++i;
  if (i >= s.size() || s[i] != '>') return 0;
  while (i < s.size() && s[i] == '>') {
    ++i;
    if (i < s.size() && s[i] == ' ') ++i;
  }
  return i;
}

}  // namespace

size_t paste_markers(std::string_view s) {
  const size_t n = line_number_marker(s);
  return n + quote_marks(s.substr(n));
}

}  // namespace attribution
