#pragma once
// Where rules come from: the built-in rulesets compiled into the binary and the user's files, and
// how a set of them loads into one RuleSet (docs/rules.md).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.hpp"
#include "core/rules/rules.hpp"

namespace attribution {

// A built-in ruleset as the build compiled it (cli/compile_rules_main.cpp): the file's text, and its
// rules without samples in the form of core/rules/compiled_rules.hpp.
struct EmbeddedRuleset {
  const char* name;
  std::string_view text;
  std::string_view compiled;
};
const std::vector<EmbeddedRuleset>& builtin_rulesets();
// rule_sources_digest of exactly builtin_rulesets(), computed by the build.
const char* builtin_rulesets_digest();

// A rule file, or the *.toml files of a directory in name order.
std::vector<std::string> list_rule_files(const std::string& path);
// One ruleset file's name and text, as loaded: what a bundle keeps so a replay uses the same rules.
// Copies share the text; a built-in's text is the binary's own.
struct RuleSource {
  std::string name;
  std::string_view text;  // in `owned`, or in the binary
  bool user = false;      // a user file may replace a built-in rule by id
  std::shared_ptr<const std::string> owned;

  static RuleSource owning(std::string name, std::string text, bool user);
  static RuleSource builtin(const EmbeddedRuleset& e);
};
// Built-ins, then each user file or directory of *.toml, read in order. A file that cannot be read
// is the error, or, given `unreadable`, is added there and the rest are read.
Result<std::vector<RuleSource>> read_rule_sources(const std::vector<std::string>& user_paths, bool with_builtins = true,
                                                  std::vector<Error>* unreadable = nullptr);
// The ruleset digest a report carries: every source's name and text, in order.
std::string rule_sources_digest(const std::vector<RuleSource>& sources);
// Parses and checks every sample, except those of built-in rulesets as compiled in (checked when
// the binary was built); a later user rule replaces an earlier one with the same id. Without
// `with_samples` (a diagnosis), those built-ins load from their compiled form and carry no samples.
Result<RuleSet> load_rule_sources(const std::vector<RuleSource>& sources, bool with_samples = true);
// read_rule_sources then load_rule_sources.
Result<RuleSet> load_rules(const std::vector<std::string>& user_paths, bool with_builtins = true);

}  // namespace attribution
