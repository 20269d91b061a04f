#define TOML_IMPLEMENTATION
#include "core/base/toml_util.hpp"
#include "core/base/duration.hpp"
#include "core/base/text.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

namespace attribution {

namespace {

bool bare_key_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }

// The end of the string starting at `i` (a quote), or npos.
size_t string_end(std::string_view t, size_t i) {
  char q = t[i];
  bool triple = t.substr(i, 3) == std::string_view(q == '"' ? "\"\"\"" : "'''");
  if (triple) {
    size_t e = t.find(q == '"' ? "\"\"\"" : "'''", i + 3);
    while (q == '"' && e != std::string_view::npos && t[e - 1] == '\\') e = t.find("\"\"\"", e + 1);
    return e == std::string_view::npos ? e : e + 2;
  }
  for (size_t j = i + 1; j < t.size() && t[j] != '\n'; ++j) {
    if (q == '"' && t[j] == '\\') ++j;
    else if (t[j] == q) return j;
  }
  return std::string_view::npos;
}

// A table header's keys are checked before toml++ sees them: toml++ 3.3 assumes the first key
// character is valid (in release builds, undefined behaviour on "[^x]"; found by fuzzing).
bool header_keys_ok(std::string_view t, size_t i) {
  ++i;
  if (i < t.size() && t[i] == '[') ++i;
  auto ws = [&] { while (i < t.size() && (t[i] == ' ' || t[i] == '\t')) ++i; };
  ws();
  if (i < t.size() && t[i] == ']') return true;  // toml++ reports blank keys itself
  while (i < t.size()) {
    if (t[i] == '"' || t[i] == '\'') {
      size_t e = string_end(t, i);
      if (e == std::string_view::npos) return true;  // toml++ reports unterminated strings
      i = e + 1;
    } else if (bare_key_char(t[i])) {
      while (i < t.size() && bare_key_char(t[i])) ++i;
    } else {
      return false;
    }
    ws();
    if (i < t.size() && t[i] == '.') {
      ++i;
      ws();
      continue;
    }
    return true;  // ']' or an error toml++ reports
  }
  return true;
}

// The line of the first table header toml++ 3.3 cannot parse safely, if any.
std::optional<long> unsafe_header_line(std::string_view t) {
  long line = 1;
  int depth = 0;  // inside a (multi-line) array value, '[' at a line start is not a header
  bool line_start = true;
  for (size_t i = 0; i < t.size(); ++i) {
    char c = t[i];
    if (c == '\n') {
      ++line;
      line_start = true;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') continue;
    bool at_start = line_start;
    line_start = false;
    if (c == '#') {
      while (i + 1 < t.size() && t[i + 1] != '\n') ++i;
    } else if (c == '"' || c == '\'') {
      size_t e = string_end(t, i);
      if (e == std::string_view::npos) return std::nullopt;  // toml++ reports it
      line += static_cast<long>(std::count(t.begin() + static_cast<long>(i), t.begin() + static_cast<long>(e), '\n'));
      i = e;
    } else if (c == '[' && at_start && depth == 0) {
      if (!header_keys_ok(t, i)) return line;
      while (i + 1 < t.size() && t[i + 1] != '\n') ++i;  // the rest of the header line
    } else if (c == '[') {
      ++depth;
    } else if (c == ']' && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

}  // namespace

Result<toml::table> parse_toml(std::string_view text, const std::string& file) {
  if (auto line = unsafe_header_line(text))
    return make_error(ErrorKind::config, "invalid table header: a key must start with a letter, digit, '_', '-' or a quote",
                      file, *line, {}, "fix the TOML syntax at that line");
  toml::parse_result r = toml::parse(text, file);
  if (!r) {
    const auto& e = r.error();
    return make_error(ErrorKind::config, std::string(e.description()), file,
                      static_cast<long>(e.source().begin.line), {}, "fix the TOML syntax at that line");
  }
  return std::move(r).table();
}

Result<toml::table> parse_toml_file(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return text.error();
  return parse_toml(*text, path);
}

Status TomlReader::positive_duration(std::string_view key, Micros& out) const {
  auto text = str(key);
  if (!text) return text.error();
  if (!*text) return Ok{};
  auto d = parse_duration(**text);
  if (!d || *d <= 0) return error(key, fmt::format("'{}' is not a positive duration", **text));
  out = *d;
  return Ok{};
}

long TomlReader::line_of(std::string_view key) const {
  const toml::node* n = t_.get(key);
  return n ? static_cast<long>(n->source().begin.line) : line();
}

Error TomlReader::error(std::string_view key, std::string message, std::string hint) const {
  std::string k = context_.empty() ? std::string(key) : context_ + (key.empty() ? "" : "." + std::string(key));
  return make_error(ErrorKind::config, std::move(message), file_, line_of(key), k, std::move(hint));
}

Result<std::optional<std::string>> TomlReader::str(std::string_view key, bool required) const {
  const toml::node* n = t_.get(key);
  if (!n) {
    if (required) return error(key, fmt::format("missing required key '{}'", key));
    return std::optional<std::string>{};
  }
  if (auto v = n->value<std::string>()) return std::optional<std::string>(*v);
  return error(key, fmt::format("'{}' must be a string", key));
}

Result<std::optional<int64_t>> TomlReader::integer(std::string_view key) const {
  const toml::node* n = t_.get(key);
  if (!n) return std::optional<int64_t>{};
  // Integers only: toml++'s value<int64_t>() also converts floats, out of range is undefined (1e34).
  if (const auto* v = n->as_integer()) return std::optional<int64_t>(v->get());
  return error(key, fmt::format("'{}' must be an integer", key));
}

Result<std::optional<bool>> TomlReader::boolean(std::string_view key) const {
  const toml::node* n = t_.get(key);
  if (!n) return std::optional<bool>{};
  if (const auto* v = n->as_boolean()) return std::optional<bool>(v->get());
  return error(key, fmt::format("{} is true or false", key));
}

Result<std::vector<std::string>> TomlReader::str_list(std::string_view key) const {
  std::vector<std::string> out;
  const toml::node* n = t_.get(key);
  if (!n) return out;
  if (auto s = n->value<std::string>()) return std::vector<std::string>{*s};
  const toml::array* a = n->as_array();
  if (!a) return error(key, fmt::format("'{}' must be a list of strings", key));
  for (const auto& el : *a) {
    auto v = el.value<std::string>();
    if (!v) return error(key, fmt::format("'{}' must be a list of strings", key));
    out.push_back(*v);
  }
  return out;
}

Status TomlReader::only_keys(const std::set<std::string>& known) const {
  for (const auto& [k, v] : t_) {
    if (!known.count(std::string(k.str()))) {
      std::string list;
      for (const auto& x : known) {
        if (!list.empty()) list += ", ";
        list += x;
      }
      return make_error(ErrorKind::config, fmt::format("unknown key '{}'", k.str()), file_,
                        static_cast<long>(v.source().begin.line),
                        context_.empty() ? std::string(k.str()) : context_ + "." + std::string(k.str()),
                        "known keys here: " + list);
    }
  }
  return Ok{};
}

}  // namespace attribution
