#include "core/base/text.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace attribution {

std::string_view line_at(std::string_view buf, size_t start) {
  size_t eol = buf.find('\n', start);
  std::string_view l = buf.substr(start, eol == std::string_view::npos ? buf.npos : eol - start);
  if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  return l;
}

size_t line_start(std::string_view buf, size_t pos) {
  pos = std::min(pos, buf.size());
  const void* nl = pos ? memrchr(buf.data(), '\n', pos) : nullptr;
  return nl ? static_cast<size_t>(static_cast<const char*>(nl) - buf.data()) + 1 : 0;
}

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string markdown_cell(std::string_view s, bool authored) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else if (c == '`' && !authored) out += '\'';
    else out += c;
  }
  return out;
}

std::string capitalised(std::string s) {
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
  return s;
}

std::string lower_first(std::string s) {
  if (!s.empty() && s[0] >= 'A' && s[0] <= 'Z' && (s.size() < 2 || !(s[1] >= 'A' && s[1] <= 'Z'))) s[0] += 'a' - 'A';
  return s;
}

Result<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(ErrorKind::config, "cannot read file", path, 0, {}, "check the path and its permissions");
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return make_error(ErrorKind::config, "cannot read file", path, 0, {}, "check the path and its permissions");
  return ss.str();
}

Result<std::string> read_secret_file(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return text.error();
  return std::string(trim_right(*text));
}

std::optional<std::string> secret_from_env(const std::string& name) {
  const char* v = name.empty() ? nullptr : std::getenv(name.c_str());
  if (!v || !*v) return std::nullopt;
  return std::string(v);
}

}  // namespace attribution
