#include "core/rules/rule_sources.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <set>
#include <thread>

#include "core/base/digest.hpp"
#include "core/base/parallel.hpp"
#include "core/base/text.hpp"
#include "core/rules/compiled_rules.hpp"

namespace attribution {
namespace fs = std::filesystem;

RuleSource RuleSource::owning(std::string name, std::string text, bool user) {
  auto owned = std::make_shared<const std::string>(std::move(text));
  return RuleSource{std::move(name), *owned, user, owned};
}

RuleSource RuleSource::builtin(const EmbeddedRuleset& e) { return RuleSource{e.name, e.text, false, nullptr}; }

std::vector<std::string> list_rule_files(const std::string& path) {
  std::vector<std::string> files;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return {path};
  for (const auto& de : fs::directory_iterator(path, ec))
    if (de.path().extension() == ".toml") files.push_back(de.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

Result<std::vector<RuleSource>> read_rule_sources(const std::vector<std::string>& user_paths, bool with_builtins,
                                                  std::vector<Error>* unreadable) {
  std::vector<RuleSource> out;
  if (with_builtins)
    for (const auto& e : builtin_rulesets()) out.push_back(RuleSource::builtin(e));
  for (const auto& p : user_paths) {
    for (const auto& f : list_rule_files(p)) {
      auto text = read_text_file(f);
      if (!text && !unreadable) return as_rules_error(text.error());
      if (!text) unreadable->push_back(as_rules_error(text.error()));
      else out.push_back(RuleSource::owning(f, std::move(*text), true));
    }
  }
  return out;
}

Result<RuleSet> load_rules(const std::vector<std::string>& user_paths, bool with_builtins) {
  auto sources = read_rule_sources(user_paths, with_builtins);
  if (!sources) return sources.error();
  return load_rule_sources(*sources, true);
}

namespace {
// A built-in ruleset exactly as compiled in, or null: the build ran its samples and compiled its
// rules (cli/compile_rules_main.cpp), so a diagnosis need not pay for either again. A replayed
// bundle's older built-ins differ in text and are parsed and checked.
const EmbeddedRuleset* compiled_in(const RuleSource& s) {
  if (s.user) return nullptr;
  for (const auto& e : builtin_rulesets())
    if (s.name == e.name) return s.text.data() == e.text.data() || s.text == e.text ? &e : nullptr;
  return nullptr;
}
}  // namespace

std::string rule_sources_digest(const std::vector<RuleSource>& sources) {
  Sha256 d;
  for (const auto& src : sources) d.update(src.name).update("\n").update(src.text).update("\n");
  return d.hex();
}

namespace {
struct ParsedSource {
  Result<std::vector<Rule>> rules = std::vector<Rule>{};
  std::vector<MetricSpec> metrics;
  const EmbeddedRuleset* compiled = nullptr;  // a built-in as compiled in: its samples were checked
};

// One source's rules: a compiled-in built-in from its compiled form when samples are not wanted
// (a diagnosis), anything else parsed from its text.
void parse_source(const RuleSource& src, bool with_samples, ParsedSource& p) {
  if (p.compiled && !with_samples) {
    auto c = decode_ruleset(p.compiled->compiled, src.name);
    if (!c) {
      p.rules = c.error();
      return;
    }
    p.rules = std::move(c->rules);
    p.metrics = std::move(c->metrics);
    return;
  }
  p.rules = parse_rules(src.text, src.name, &p.metrics, p.compiled != nullptr);
}

// Every source parsed, on up to as many threads as there are cores. Results stay in source order;
// the largest files start first so the threads end together, and the digest of all sources (one
// pass over every byte, in order; the build's own when they are exactly the built-ins) is one more
// task beside them.
std::vector<ParsedSource> parse_sources(const std::vector<RuleSource>& sources, bool with_samples, std::string* digest) {
  std::vector<ParsedSource> parsed(sources.size());
  std::vector<size_t> order(sources.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return sources[a].text.size() > sources[b].text.size(); });
  for (size_t i = 0; i < sources.size(); ++i) parsed[i].compiled = compiled_in(sources[i]);
  const auto& builtins = builtin_rulesets();
  bool only_builtins = sources.size() == builtins.size();
  for (size_t i = 0; only_builtins && i < sources.size(); ++i) only_builtins = parsed[i].compiled == &builtins[i];
  parallel_for(sources.size() + 1, std::thread::hardware_concurrency(), [&](size_t task, size_t) {
    if (task == 0) {
      *digest = only_builtins ? builtin_rulesets_digest() : rule_sources_digest(sources);
      return;
    }
    const size_t i = order[task - 1];
    parse_source(sources[i], with_samples, parsed[i]);
  });
  return parsed;
}
}  // namespace

Result<RuleSet> load_rule_sources(const std::vector<RuleSource>& sources, bool with_samples) {
  std::map<std::string, Rule> by_id;
  std::map<std::string, MetricSpec> metrics;
  std::string digest;
  std::vector<ParsedSource> parsed = parse_sources(sources, with_samples, &digest);
  auto add = [&](ParsedSource& p, const std::string& name, bool user) -> Status {
    if (!p.rules) return p.rules.error();
    std::set<std::string> seen;
    for (auto& r : *p.rules) {
      if (!seen.insert(r.id).second)
        return make_error(ErrorKind::rules, fmt::format("rule id '{}' defined twice", r.id), name, r.line, r.id);
      if (!user && by_id.count(r.id))
        return make_error(ErrorKind::rules, fmt::format("built-in rule id '{}' defined twice", r.id), name, r.line, r.id);
      if (!p.compiled)
        if (auto st = check_samples(r); !st) return st.error();
      by_id[r.id] = std::move(r);
    }
    for (auto& m : p.metrics) {
      if (!user && metrics.count(m.id))
        return make_error(ErrorKind::rules, fmt::format("metric id '{}' defined twice", m.id), name, m.line, m.id);
      metrics[m.id] = std::move(m);
    }
    return Ok{};
  };
  for (size_t i = 0; i < sources.size(); ++i)
    if (auto st = add(parsed[i], sources[i].name, sources[i].user); !st) return st.error();
  RuleSet set;
  for (auto& [id, r] : by_id) set.rules.push_back(std::move(r));
  for (auto& [id, m] : metrics) set.metrics.push_back(std::move(m));
  set.digest = std::move(digest);
  return set;
}

}  // namespace attribution
