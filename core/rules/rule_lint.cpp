#include "core/rules/rule_lint.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <map>
#include <re2/re2.h>

#include "core/rules/literal_search.hpp"

namespace attribution {

namespace {
// The first escaped character of `pattern` that is neither a letter or digit (an escape class) nor
// a regex metacharacter, or 0. RE2 reads `\'` as a quote; ripgrep's engine rejects the whole pattern,
// so `rules export-patterns` would hand baselines a file they refuse.
char superfluous_escape(const std::string& pattern) {
  static constexpr std::string_view kMeta = "\\.+*?()|[]{}^$#&-~";
  for (size_t i = 0; i + 1 < pattern.size(); ++i) {
    if (pattern[i] != '\\') continue;
    char c = pattern[++i];
    if (!std::isalnum(static_cast<unsigned char>(c)) && static_cast<unsigned char>(c) < 0x80 &&
        kMeta.find(c) == std::string_view::npos)
      return c;
  }
  return 0;
}

}  // namespace

std::vector<LintFinding> lint_rules(const std::vector<Rule>& rules, const std::vector<Rule>& universe,
                                    int program_budget) {
  std::vector<LintFinding> out;
  std::map<std::string, const Rule*> first;  // id -> first definition among `rules`
  // The prefilter scans for every loaded rule's literals at once: whether they keep it on its fast path is
  // a property of them all, said once, on the first linted rule with a short literal.
  std::vector<std::string> all_literals;
  for (const auto& u : universe) all_literals.insert(all_literals.end(), u.literals.begin(), u.literals.end());
  bool slow_unsaid = !LiteralSearch::strided_for(all_literals);
  // Bytes of a UTF-8 character count as letters: 显存不足 is as selective as any word.
  auto wordlike = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80; };
  for (const auto& r : rules) {
    auto add = [&](bool error, std::string msg) { out.push_back({r.file, r.line, r.id, error, std::move(msg)}); };

    if (auto [it, fresh] = first.emplace(r.id, &r); !fresh)
      add(true, fmt::format("id also defined at {}:{}; one silently replaces the other", it->second->file,
                            it->second->line));

    // The prefilter lets a line through on any one literal. A literal is shown reachable by a match
    // sample that contains it, or by a sample in which swapping another literal for it still
    // matches (alternatives such as KeyError/TypeError); else the pattern may never match a line
    // this literal lets through (a typo, or a pattern branch that cannot follow it).
    for (const auto& lit : r.literals) {
      bool reachable = std::any_of(r.match.begin(), r.match.end(),
                                   [&](const Sample& s) { return s.line.find(lit) != std::string::npos; });
      for (size_t i = 0; !reachable && r.re && i < r.match.size(); ++i)
        for (const auto& other : r.literals) {
          size_t at = r.match[i].line.find(other);
          if (other == lit || at == std::string::npos) continue;
          std::string swapped = r.match[i].line;
          swapped.replace(at, other.size(), lit);
          if (RE2::PartialMatch(swapped, r.regex())) {
            reachable = true;
            break;
          }
        }
      if (!reachable)
        add(true, fmt::format("literal '{}' is in no match sample, and no sample matches with it in place of "
                              "another literal: the pattern may never match a line it lets through",
                              lit));
    }

    for (const auto& lit : r.literals) {
      if (std::none_of(lit.begin(), lit.end(), wordlike))
        add(true, fmt::format("literal '{}' has no letter or digit: spaces and punctuation are on most lines, so "
                              "the prefilter would let nearly every line through to the regex",
                              lit));
      if (LiteralSearch::blank_in_every_window_run(lit))
        add(false, fmt::format("literal '{}' holds four blanks in every run of windows the prefilter could register "
                               "for it: each aligned run of spaces in the input is checked against it; shorten the "
                               "blanks or use other text the pattern requires",
                               lit));
      if (lit.size() >= LiteralSearch::kMinWindowed) continue;
      add(false, fmt::format("literal '{}' is shorter than {} bytes: the prefilter looks for short literals byte "
                             "pair by byte pair on every byte of the input; use a longer text the pattern requires",
                             lit, LiteralSearch::kMinWindowed));
      if (slow_unsaid) {
        add(true, fmt::format("the loaded rules hold more than {} distinct literals shorter than {} bytes, or one "
                              "of a single byte: the scan falls back to testing every position, several times "
                              "slower; lengthen some",
                              LiteralSearch::kMaxShortLiterals, LiteralSearch::kMinWindowed));
        slow_unsaid = false;
      }
    }

    for (const auto& e : r.explains) {
      bool selects = std::any_of(universe.begin(), universe.end(),
                                 [&](const Rule& u) { return u.id != r.id && selector_matches(e.what, u); });
      if (!selects) add(true, fmt::format("explains '{}' selects no rule", e.what));
    }

    if (char c = superfluous_escape(r.pattern))
      add(true, fmt::format("pattern escapes '{}', which needs no escape: RE2 reads it, but ripgrep and other "
                            "engines given `rules export-patterns` reject the whole pattern; write it plain",
                            c));

    if (r.re) {
      int size = r.regex().ProgramSize();
      if (size > program_budget)
        add(true, fmt::format("RE2 program size {} is above the budget of {}: simplify the pattern (split the "
                              "rule, bound repetitions)",
                              size, program_budget));
    }
  }
  return out;
}

}  // namespace attribution
