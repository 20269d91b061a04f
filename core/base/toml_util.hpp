#pragma once
// Typed access to TOML tables with errors that name file, line and key.
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/base/result.hpp"
#include "core/base/time.hpp"
#include "core/base/toml_fixed.hpp"

namespace attribution {

Result<toml::table> parse_toml(std::string_view text, const std::string& file);
Result<toml::table> parse_toml_file(const std::string& path);

class TomlReader {
 public:
  TomlReader(const toml::table& t, std::string file, std::string context = {})
      : t_(t), file_(std::move(file)), context_(std::move(context)) {}
  long line() const { return static_cast<long>(t_.source().begin.line); }
  long line_of(std::string_view key) const;
  // Each getter returns an Error when the key is present with the wrong type, or absent and required.
  Result<std::optional<std::string>> str(std::string_view key, bool required = false) const;
  Result<std::optional<int64_t>> integer(std::string_view key) const;
  // A TOML boolean only (toml++ would read 1 as true): "<key> is true or false" otherwise.
  Result<std::optional<bool>> boolean(std::string_view key) const;
  Result<std::vector<std::string>> str_list(std::string_view key) const;
  // A positive duration ("30s", "2m") into `out`, left as it is when the key is absent.
  Status positive_duration(std::string_view key, Micros& out) const;
  // Rejects keys not in `known`: a typo in a config must not be silently ignored.
  Status only_keys(const std::set<std::string>& known) const;
  Error error(std::string_view key, std::string message, std::string hint = {}) const;
  const toml::table& table() const { return t_; }
  const std::string& file() const { return file_; }

 private:
  const toml::table& t_;
  std::string file_;
  std::string context_;
};

}  // namespace attribution
