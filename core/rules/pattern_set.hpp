#pragma once
// Which of many patterns match a text, in one pass: a line that holds a literal many rules share
// (the 107 Xid rules' "NVRM: Xid", one rule per code) would otherwise run each rule's regex in turn,
// about 34 us a line, half a minute for a storm of a million. RE2::Set walks the line once with one
// automaton for all of them; only the patterns it names are then matched for their captures.
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace attribution {

struct CompiledSet;

class PatternSet {
 public:
  // `patterns[i]` answers for `ids[i]`. Compiled on first use, as a rule's own pattern is
  // (RulePattern): most sets meet no line in a job.
  PatternSet(std::vector<int> ids, std::vector<std::string> patterns);
  ~PatternSet();
  // The ids whose pattern matches `text` somewhere (as RE2's unanchored search would say), ascending,
  // in `ids`. False when the set cannot say (a pattern it cannot hold, or its automaton out of
  // memory once: it is not asked again): then the caller matches each pattern itself. Thread-safe.
  bool try_match(std::string_view text, std::vector<int>* ids) const;

 private:
  std::vector<int> ids_;
  std::vector<std::string> patterns_;
  mutable std::once_flag once_;
  mutable std::unique_ptr<CompiledSet> set_;  // null: could not be built
  mutable std::atomic<bool> failed_{false};   // the automaton ran out of memory
};

}  // namespace attribution
