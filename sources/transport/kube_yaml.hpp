#pragma once
// A strict reader for the YAML subset kubeconfig files use (`kubectl config view --raw` output and
// hand-written files in that shape): block mappings, block sequences (of mappings or scalars,
// indented or not under their key), plain / single- / double-quoted scalars, one-line flow
// collections ({}, [a, b]) and comments. Anything else (anchors, aliases, tags, block scalars,
// multi-line values, several documents, tabs in indentation) is an error naming file:line.
// A document starting with '{' is JSON (valid YAML too) and is read with simdjson.
// Errors never quote a value: kubeconfig values include tokens and keys.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/result.hpp"

namespace attribution {

struct YamlNode {
  // Defined in the .cpp: clang 14 with libstdc++ 12 cannot check an implicit default constructor
  // while std::pair<std::string, YamlNode> is still incomplete.
  YamlNode();
  enum class Kind { null, scalar, map, seq };
  Kind kind = Kind::null;
  std::string scalar;  // plain scalars as written; quoted ones unescaped
  bool quoted = false;
  std::vector<std::pair<std::string, YamlNode>> map;  // in document order, keys unique
  std::vector<YamlNode> seq;
  long line = 0;

  const YamlNode* get(std::string_view key) const;  // nullptr when absent or not a map
  // The scalar at `key`, or "" (absent, null, or not a scalar).
  std::string str(std::string_view key) const;
};

Result<YamlNode> parse_kube_yaml(std::string_view text, const std::string& file);

}  // namespace attribution
