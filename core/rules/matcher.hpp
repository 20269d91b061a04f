#pragma once
// Which rules a line triggers: a required-literal prefilter over whole buffers (LiteralSearch: a
// line is a candidate iff it contains one of the rules' literals, case-sensitively), then the
// patterns of only the rules whose literals the line holds, then captures only for those hits.
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/rules/literal_search.hpp"
#include "core/rules/pattern_set.hpp"
#include "core/rules/rules.hpp"

namespace attribution {

class Matcher {
 public:
  static Result<std::shared_ptr<Matcher>> build(const RuleSet& rules);
  ~Matcher();

  // The prefilter with each literal's windows chosen on `sample` (some of the input): the same
  // candidates as the built-in one, found faster because fewer positions need verifying.
  std::unique_ptr<LiteralSearch> tuned_prefilter(std::string_view sample) const;
  // Offset of the start of the next line at or after `from` that contains any literal, or npos.
  // `search`: a tuned prefilter; null: the untuned one. `hit`: where the leftmost literal at or
  // after `from` starts (none starts between `from` and it).
  size_t next_candidate_line(std::string_view buf, size_t from, const LiteralSearch* search = nullptr,
                             size_t* hit = nullptr) const;
  // The longest literal's length: how far windows of a search must overlap.
  size_t longest_literal() const { return longest_literal_; }
  // Indices (into RuleSet::rules) of single-line rules reading `stream` that match `line`.
  void match_line(std::string_view line, Stream stream, std::vector<int>* hits) const;
  // What the scan reads a line as: its single-line rule hits and its block triggers, except that a
  // line a benign rule knows is noise whatever else it looks like (then `hits` is that rule alone
  // and `blocks` is empty), and that a `generic` rule's hit is dropped when a cause or symptom rule
  // that is not generic reads the line too. `rules match` shows the same.
  // `groups`, when given: each hit's named captures (rule_groups), in the order of `hits`: the scan
  // keeps them instead of matching the line a second time.
  // `message`, when given: the line's text after the prefixes a launcher, a viewer or a logger put
  // before it (called at most once, only when needed). A rule anchored at the line's start ('^') that
  // does not match the line is tried on it: "3: State: Down" is what ibstat printed under srun -l.
  // `first_literal`: no literal starts before this offset of `line` (where the prefilter found one).
  void line_rules(std::string_view line, Stream stream, std::vector<int>* hits, std::vector<int>* blocks,
                  std::vector<std::map<std::string, std::string>>* groups = nullptr,
                  const std::function<std::string_view()>* message = nullptr, size_t first_literal = 0) const;
  // Tail rules (per-call traces) reading `stream` that match `line`; the scan reads them from a
  // file's end (FileScanner::scan_tail), never in the forward pass.
  void tail_hits(std::string_view line, Stream stream, std::vector<int>* hits) const;
  const std::vector<int>& tail_rules() const { return tail_rules_; }
  // Named captures of rule `index` on `text`; false if it does not match.
  bool captures(int index, std::string_view text, std::map<std::string, std::string>* out) const;
  const RuleSet& rules() const { return rules_; }
  // How many PatternSets decide rules that share a literal (tests: the Xid rules have one).
  size_t pattern_sets() const { return sets_.size(); }

 private:
  explicit Matcher(const RuleSet& rules);
  bool has_literal(int index, std::string_view line) const;
  // One PatternSet for the single-line rules of each literal that kMinRulesForSet or more share.
  void build_sets();
  // Drops the generic rules' hits (and their captures) when another cause or symptom rule hit the line.
  void drop_generic(std::vector<int>* hits, std::vector<std::map<std::string, std::string>>* groups) const;
  // The forward-scan rules (single-line and block) with a literal in `line`, ascending; literals are
  // looked for from `first_literal` on.
  void rules_with_literal(std::string_view line, std::vector<int>* out, size_t first_literal = 0) const;
  // Of those reading `stream`: the single-line rules whose pattern matches, and the multi-line
  // rules (their pattern runs on the joined block), both ascending.
  void candidate_rules(std::string_view line, Stream stream, std::vector<int>* hits, std::vector<int>* blocks,
                       std::vector<std::map<std::string, std::string>>* groups = nullptr,
                       const std::function<std::string_view()>* message = nullptr, size_t first_literal = 0) const;
  // Rule `idx` on `text`: a hit is appended (with its groups when `groups` is given).
  bool matches(int idx, std::string_view text, std::vector<int>* hits, std::vector<std::map<std::string, std::string>>* groups) const;
  const RuleSet& rules_;
  std::vector<std::string> literals_;  // every rule's
  size_t longest_literal_ = 0;
  mutable std::once_flag prefilter_once_;
  mutable std::unique_ptr<LiteralSearch> prefilter_;  // the untuned one
  // Each literal of 4 bytes or more in a bucket by a hash of its first 4, with a filter on its first
  // 2: a line is walked once to find the literals it holds. Shorter ones (user rules may have them)
  // are searched for.
  struct BucketHead {
    uint64_t bytes;     // the literal's first (up to) 8 bytes
    uint64_t mask;      // which of them it has
    uint32_t literal;   // index into forward_literals_
  };
  std::vector<uint64_t> first_pair_;          // 65,536 bits (8 KiB: stays in L1 while a line is walked)
  std::vector<uint32_t> bucket_start_;        // 65,537 offsets into bucket_heads_
  std::vector<BucketHead> bucket_heads_;
  std::vector<std::string> forward_literals_;                // distinct
  std::vector<std::vector<int>> literal_rules_;              // per forward literal, its rules
  std::vector<uint32_t> short_literals_;                     // under 4 bytes
  std::vector<int> tail_rules_;
  std::vector<char> anchored_;  // per rule: its pattern holds a '^' (line_rules' `message`)
  // The single-line rules of each literal that many rules share, matched together (PatternSet);
  // per rule, the set that decides it, or -1.
  std::vector<std::unique_ptr<PatternSet>> sets_;
  std::vector<int> set_of_rule_;
  // False only when single-line rule `idx`'s set says it does not match `line` (each set walks a
  // line once, remembered in `memo`); true: match the rule itself.
  struct SetAnswers;
  bool may_match(int idx, std::string_view line, SetAnswers* memo) const;
};

// Whether a pattern holds '^' as an anchor (not escaped, not inside a character class).
bool pattern_anchored(std::string_view pattern);

}  // namespace attribution
