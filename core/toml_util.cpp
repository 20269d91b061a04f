#define TOML_IMPLEMENTATION
#include "core/toml_util.hpp"

#include <fmt/format.h>
#include <fstream>
#include <sstream>

namespace attribution {

Result<toml::table> parse_toml(std::string_view text, const std::string& file) {
  toml::parse_result r = toml::parse(text, file);
  if (!r) {
    const auto& e = r.error();
    return make_error(ErrorKind::config, std::string(e.description()), file,
                      static_cast<long>(e.source().begin.line), {}, "fix the TOML syntax at that line");
  }
  return std::move(r).table();
}

Result<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(ErrorKind::config, "cannot read file", path, 0, {}, "check the path and its permissions");
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return make_error(ErrorKind::config, "cannot read file", path, 0, {}, "check the path and its permissions");
  return ss.str();
}

Result<toml::table> parse_toml_file(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return text.error();
  return parse_toml(*text, path);
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
  if (auto v = n->value<int64_t>()) return std::optional<int64_t>(*v);
  return error(key, fmt::format("'{}' must be an integer", key));
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
