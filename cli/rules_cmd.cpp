#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <map>
#include <memory>
#include <re2/re2.h>
#include <set>

#include "cli/commands.hpp"
#include "core/base/text.hpp"
#include "cli/messages.hpp"
#include "core/base/json_writer.hpp"
#include "core/scan/block_lines.hpp"
#include "core/scan/line_prefix.hpp"
#include "core/rules/matcher.hpp"
#include "core/rules/rule_catalogue.hpp"
#include "core/rules/rule_lint.hpp"
#include "core/rules/rule_sources.hpp"
#include "core/rules/rules.hpp"
#include "core/pipeline/config.hpp"
#include "core/base/toml_util.hpp"
#include "core/scan/file_bytes.hpp"

namespace attribution::cli {
namespace {

// What the rules subcommands load: the built-in rulesets (unless only `path` is checked), the
// config's [rules] paths (--config, else ./attribution.toml, else /etc/attribution/attribution.toml),
// then each --rules file or directory.
struct RulesOptions {
  std::vector<std::string> extra;
  std::string config;
};

Result<std::vector<std::string>> user_rule_paths(const RulesOptions& o) {
  auto config = load_config(o.config.empty() ? std::nullopt : std::optional<std::string>(o.config));
  if (!config) return config.error();
  std::vector<std::string> paths = config->rule_paths;
  paths.insert(paths.end(), o.extra.begin(), o.extra.end());
  return paths;
}

Result<RuleSet> load_user_rules(const RulesOptions& o) {
  auto paths = user_rule_paths(o);
  if (!paths) return paths.error();
  return load_rules(*paths);
}

// `rules test` and `rules lint`: every rule checked on its own, one line each; lint then checks
// across rules (core/rule_lint.hpp). Errors fail; lint's style warnings are printed, not fatal.
int check_rules(const std::string& path, const RulesOptions& o, bool lint) {
  std::vector<std::string> paths{path};
  if (path.empty()) {
    auto user = user_rule_paths(o);
    if (!user) return report_error(user.error());
    paths = *user;
  }
  std::vector<Error> unreadable;  // each a problem of its own, named; the other files are still checked
  auto sources = read_rule_sources(paths, path.empty(), &unreadable);
  if (!sources) return report_error(sources.error());
  int failures = 0, warnings = 0, count = 0;
  int bad_files = static_cast<int>(unreadable.size());
  for (const auto& u : unreadable) std::printf("FAIL %s", format_error(u).c_str());
  std::map<std::string, std::string> ids;  // id -> where first defined
  RuleSet all;
  std::set<std::string> metric_ids;
  for (const auto& src : *sources) {
    std::vector<MetricSpec> metrics;
    auto rules = parse_rules(src.text, src.name, &metrics);
    if (!rules) {  // the whole file is unusable: said as such, not counted as a rule
      std::printf("FAIL %s: the rule file does not load\n  %s", src.name.c_str(), format_error(rules.error()).c_str());
      ++bad_files;
      continue;
    }
    for (const auto& m : metrics) {
      ++count;
      if (!metric_ids.insert(m.id).second) {
        ++failures;
        std::printf("FAIL %s\n  metric id defined twice\n", m.id.c_str());
      } else {
        std::printf("ok   %-40s metric %s (%s)\n", m.id.c_str(), m.selector.c_str(), m.condition.c_str());
      }
    }
    for (auto& r : *rules) {
      ++count;
      std::string problem;
      if (auto [it, fresh] = ids.emplace(r.id, fmt::format("{}:{}", r.file, r.line)); !fresh)
        problem = fmt::format("{}:{}: id defined twice (first at {})", r.file, r.line, it->second);
      else if (auto st = check_samples(r); !st) problem = format_error(st.error());
      if (!problem.empty()) {
        ++failures;
        std::printf("FAIL %s\n  %s", r.id.c_str(), problem.c_str());
        if (problem.back() != '\n') std::printf("\n");
        continue;
      }
      std::vector<std::string> notes;
      if (lint) {
        if (r.role == Role::cause && r.action.empty()) notes.push_back("a cause without an action");
        if (r.no_match.empty()) notes.push_back("no no_match sample");
        if (r.match.size() < 2) notes.push_back("only one match sample");
      }
      warnings += static_cast<int>(notes.size());
      std::printf("ok   %-40s %zu match, %zu no_match%s\n", r.id.c_str(), r.match.size(), r.no_match.size(),
                  notes.empty() ? "" : "");
      for (const auto& n : notes) std::printf("  warning: %s:%ld: %s\n", r.file.c_str(), r.line, n.c_str());
      all.rules.push_back(std::move(r));
    }
  }
  int errors = 0;
  if (lint) {
    // User rule files may name built-in rules in `explains`: the built-ins are in the universe.
    std::vector<Rule> universe = all.rules;
    if (!path.empty() || !paths.empty())
      if (auto builtin = load_rules({}); builtin)
        universe.insert(universe.end(), builtin->rules.begin(), builtin->rules.end());
    for (const auto& f : lint_rules(all.rules, universe)) {
      (f.error ? errors : warnings)++;
      std::printf("%s: %s:%ld: rule %s: %s\n", f.error ? "error" : "warning", f.file.c_str(), f.line, f.rule.c_str(),
                  f.message.c_str());
    }
  }
  std::sort(all.rules.begin(), all.rules.end(), [](const Rule& a, const Rule& b) { return a.id < b.id; });
  if (auto m = Matcher::build(all); !m) {
    std::fputs(format_error(m.error()).c_str(), stdout);
    ++failures;
  }
  std::printf("%d passed, %d failed%s%s\n", count - failures, failures,
              lint ? fmt::format(", {} lint error(s), {} warning(s)", errors, warnings).c_str() : "",
              bad_files ? fmt::format("; {} rule file(s) could not be loaded", bad_files).c_str() : "");
  return failures > 0 || errors > 0 || bad_files > 0 ? kFailed : kDiagnosed;
}

// The loaded rules as Markdown (docs/rules-catalogue.md is this command's output for the built-ins).
int catalogue(const RulesOptions& o) {
  auto rules = load_user_rules(o);
  if (!rules) return report_error(rules.error());
  std::fputs(render_rule_catalogue(*rules).c_str(), stdout);
  return kDiagnosed;
}

int list_rules(const RulesOptions& o) {
  auto rules = load_user_rules(o);
  if (!rules) return report_error(rules.error());
  for (const auto& r : rules->rules)
    std::printf("%-40s %-8s %-20s %s\n", r.id.c_str(), std::string(to_string(r.role)).c_str(),
                r.family.empty() ? "-" : r.family.c_str(), r.title.c_str());
  std::printf("%zu rules, sha256:%s\n", rules->rules.size(), rules->digest.c_str());
  return kDiagnosed;
}

int show_rule(const std::string& id, const RulesOptions& o) {
  auto rules = load_user_rules(o);
  if (!rules) return report_error(rules.error());
  const Rule* r = rules->find(id);
  if (!r)
    return report_error(make_error(ErrorKind::usage, fmt::format("no rule with id '{}'", id), {}, 0, {},
                                   "`attribution rules list` prints every id"));
  std::printf("id:         %s\ntitle:      %s\ndefined at: %s:%ld\nrole:       %s\n", r->id.c_str(), r->title.c_str(),
              r->file.c_str(), r->line, std::string(to_string(r->role)).c_str());
  if (!r->category.empty())
    std::printf("outcome:    %s / %s, blame %s, confidence %s, priority %d\n", r->family.c_str(), r->category.c_str(),
                std::string(to_string(r->blame.value_or(Blame::unknown))).c_str(),
                std::string(to_string(r->confidence)).c_str(), r->priority);
  if (!r->action.empty()) std::printf("action:     %s\n", r->action.c_str());
  std::string streams;
  for (Stream s : r->streams) streams += (streams.empty() ? "" : ", ") + std::string(to_string(s));
  std::printf("streams:    %s\n", r->streams.empty() ? "all" : streams.c_str());
  std::printf("literals:   %s\n", fmt::format("{}", fmt::join(r->literals, " | ")).c_str());
  std::printf("pattern:    %s\n", r->pattern.c_str());
  if (r->lines > 1) std::printf("lines:      %d\n", r->lines);
  for (const auto& c : r->when) std::printf("when:       %s\n", to_string(c).c_str());
  std::printf("burst:      %llds\n", static_cast<long long>(r->burst / kMicrosPerSecond));
  for (const auto& e : r->explains)
    std::printf("explains:   %s (scope %s, within %llds)\n", e.what.c_str(), std::string(to_string(e.scope)).c_str(),
                static_cast<long long>(e.within / kMicrosPerSecond));
  if (const auto& rep = r->repeated)
    std::printf("repeated:   from %d processes on one GPU and no other: %s / %s, blame %s, confidence %s; %s\n",
                rep->processes, rep->family.c_str(), rep->category.c_str(), std::string(to_string(rep->blame)).c_str(), std::string(to_string(rep->confidence)).c_str(),
                rep->action.c_str());
  for (const auto& s : r->match) std::printf("match:      %s\n", s.line.c_str());
  for (const auto& s : r->no_match) std::printf("no_match:   %s\n", s.line.c_str());
  return kDiagnosed;
}

// For baselines (`rg -f`, `grep -E -f`): every log rule's pattern, or the prefilter's literals
// (distinct, sorted), one per line. Metric-stream rules read the tool's own lines: left out.
int export_patterns(bool literals, const RulesOptions& o) {
  auto rules = load_user_rules(o);
  if (!rules) return report_error(rules.error());
  std::set<std::string> lits;
  for (const auto& r : rules->rules) {
    bool log_rule = r.streams.empty() || std::any_of(r.streams.begin(), r.streams.end(), [](Stream s) {
                      return s == Stream::applog || s == Stream::syslog;
                    });
    if (!log_rule || r.lines > 1) continue;
    if (literals) {
      lits.insert(r.literals.begin(), r.literals.end());
      continue;
    }
    // rg and grep join the lines into one regex: the same group name twice is an error there.
    std::string plain = r.pattern;
    static const RE2 named(R"(\(\?P<\w+>)");
    RE2::GlobalReplace(&plain, named, "(");
    std::printf("%s\n", plain.c_str());
  }
  for (const auto& l : lits) std::printf("%s\n", l.c_str());
  return kDiagnosed;
}

// `rules match [FILE]`: which rules match each line of FILE (or standard input), with their
// captures, as the scan would see them; --unmatched prints the lines no rule matches instead (a
// block rule matches at its first line). For writing a rule, and for finding what a new log says
// that the rules do not know. The log's text is printed sanitised, as in reports.
int match_lines(const std::string& file, bool unmatched, const RulesOptions& o) {
  auto rules = load_user_rules(o);
  if (!rules) return report_error(rules.error());
  auto matcher = Matcher::build(*rules);
  if (!matcher) return report_error(matcher.error());
  const Matcher& m = **matcher;
  // The whole input, as the scan reads a file (a .gz inflated); standard input read to its end.
  std::string input;
  std::optional<FileBytes> bytes;
  if (!file.empty() && file != "-") {
    std::error_code ec;
    if (std::filesystem::is_directory(file, ec))
      return report_error(make_error(ErrorKind::usage, "is a directory", file, 0, {}, "give one log file"));
    auto opened = FileBytes::open(file);
    if (!opened)
      return report_error(make_error(ErrorKind::input, opened.error().message, file, 0, {},
                                     "give a log file (plain or .gz), or - (or nothing) for standard input"));
    bytes.emplace(std::move(opened.value()));
  } else {
    input.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  }
  std::string_view all = bytes ? bytes->view() : std::string_view(input);
  int lookahead = 1;
  for (const auto& r : rules->rules) lookahead = std::max(lookahead, r.lines);
  // A window of the next `lookahead` lines, so a block rule sees the lines after its first.
  std::deque<std::string_view> window;
  size_t next = 0;
  long line_no = 0;
  auto fill = [&] {
    while (next < all.size() && static_cast<int>(window.size()) < lookahead) {
      size_t eol = all.find('\n', next);
      if (eol == std::string_view::npos) eol = all.size();
      window.push_back(all.substr(next, eol - next));
      next = eol + 1;
    }
  };
  std::vector<int> hits, found;
  for (fill(); !window.empty(); window.pop_front(), fill()) {
    ++line_no;
    std::string_view text = window.front();
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    text.remove_prefix(paste_markers(text));  // as the scan reads a paste (quote markers, line numbers)
    const std::string_view message_text = printed_part(text, false);
    const std::function<std::string_view()> message = [&] { return message_text; };
    // Every stream's reading of the line (a file's stream is not known here), by the scan's own rule.
    std::set<int> rule_set, blocks;
    for (Stream s : kAllStreams) {
      m.line_rules(text, s, &hits, &found, nullptr, &message);
      rule_set.insert(hits.begin(), hits.end());
      blocks.insert(found.begin(), found.end());
      m.tail_hits(text, s, &hits);  // a trace line: the scan reads only the last ones, but it is a match
      rule_set.insert(hits.begin(), hits.end());
    }
    std::vector<std::pair<int, std::map<std::string, std::string>>> matched;
    for (int r : rule_set) {
      std::map<std::string, std::string> caps;
      if (m.captures(r, text, &caps) || m.captures(r, message_text, &caps)) matched.emplace_back(r, std::move(caps));
    }
    std::string block_text;
    if (!blocks.empty())
      for (const auto& w : window) (block_text += w) += '\n';
    for (int r : blocks) {
      std::map<std::string, std::string> caps;
      const int n = rules->rules[r].lines;
      if (m.captures(r, join_block_lines(block_text, 0, n), &caps) || m.captures(r, join_block_lines(block_text, 0, n, nullptr, true), &caps))
        matched.emplace_back(r, std::move(caps));
    }
    if (unmatched) {
      if (matched.empty()) std::printf("%ld: %s\n", line_no, sanitize_utf8(text).c_str());
      continue;
    }
    for (const auto& [r, caps] : matched) {
      const Rule& rule = rules->rules[r];
      std::string fields;
      for (const auto& [k, v] : caps) fields += fmt::format(" {}={}", k, sanitize_utf8(v));
      std::printf("%ld: %s (%s%s)%s\n", line_no, rule.id.c_str(), std::string(to_string(rule.role)).c_str(),
                  rule.lines > 1 ? fmt::format(", {} lines", rule.lines).c_str() : "", fields.c_str());
    }
  }
  return kDiagnosed;
}

}  // namespace

void add_rules_command(CLI::App& app, int* exit_code) {
  CLI::App* rules = app.add_subcommand("rules", "List, show, test, lint and try rules on a log (built-in, plus --rules files)");
  rules->require_subcommand(1);
  auto o = std::make_shared<RulesOptions>();
  auto path = std::make_shared<std::string>();
  auto id = std::make_shared<std::string>();
  // --rules and --config may stand before or after the subcommand: each subcommand passes the
  // options it does not know to this one.
  rules->add_option("--rules", o->extra, "Extra rule file or directory, as for diagnose (repeatable)")
      ->type_name("PATH")
      ->allow_extra_args(false);  // one path per --rules, so a FILE after it stays the subcommand's
  rules->add_option("--config", o->config, "Config whose [rules] paths add rules (default: ./attribution.toml, "
                                           "then /etc/attribution/attribution.toml)")->type_name("FILE");
  auto sub = [&](const char* name, const char* help) { return rules->add_subcommand(name, help)->fallthrough(); };
  sub("list", "One line per loaded rule")->callback([=] { *exit_code = list_rules(*o); });
  auto show = sub("show", "Everything about one rule");
  show->add_option("id", *id, "Rule id")->required()->type_name("ID");
  show->callback([=] { *exit_code = show_rule(*id, *o); });
  auto test = sub("test", "Check every rule's samples: the built-ins with the config's and --rules files, or only the rules at PATH");
  test->add_option("path", *path, "A rule file or directory to check alone")->type_name("PATH");
  test->callback([=] { *exit_code = check_rules(*path, *o, false); });
  auto literals = std::make_shared<bool>(false);
  auto exp = sub("export-patterns", "Print every log rule's RE2 pattern, one per line (for rg -f / grep -E -f baselines)");
  exp->add_flag("--literals", *literals, "Print the prefilter's required literals instead (for rg -F -f)");
  exp->callback([=] { *exit_code = export_patterns(*literals, *o); });
  sub("catalogue", "Print every loaded rule as a Markdown catalogue (docs/rules-catalogue.md)")
      ->callback([=] { *exit_code = catalogue(*o); });
  auto file = std::make_shared<std::string>();
  auto unmatched = std::make_shared<bool>(false);
  auto match = sub("match", "Print the rules that match each line of FILE (plain or .gz; default: standard input), with their captures");
  match->add_option("file", *file, "A log file (plain or .gz); default or -: standard input")->type_name("FILE");
  match->add_flag("--unmatched", *unmatched, "Print the lines no rule matches instead");
  match->callback([=] { *exit_code = match_lines(*file, *unmatched, *o); });
  auto lint = sub("lint", "Like test, plus cross-rule checks (duplicate ids, dead literals, explains selecting nothing, "
                          "RE2 program size); also warns about weak rules");
  lint->add_option("path", *path, "A rule file or directory to check alone")->type_name("PATH");
  lint->callback([=] { *exit_code = check_rules(*path, *o, true); });
}

}  // namespace attribution::cli
