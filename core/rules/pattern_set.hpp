#pragma once
// Which of many patterns match a text, in one pass: a line that holds a literal many rules share
// (the Xid catalog's "NVRM: Xid", one rule per code) would otherwise run each rule's regex in turn,
// and an Xid storm of a million lines would take minutes. RE2::Set walks the line once with one
// automaton for all of them; only the patterns it names are then matched for their captures.
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace attribution {

struct CompiledSet;

class PatternSet {
 public:
  // `patterns[i]` answers for `ids[i]`. Compiled on first use: most sets meet no line in a job.
  PatternSet(std::vector<int> ids, std::vector<std::string> patterns);
  ~PatternSet();
  // The ids whose pattern matches `text` somewhere (as RE2's unanchored search would say), ascending.
  // False when the set cannot say (a pattern it cannot hold, or its automaton out of memory on this
  // text): then the caller matches each pattern itself. Thread-safe.
  bool matching(std::string_view text, std::vector<int>* ids) const;

 private:
  std::vector<int> ids_;
  std::vector<std::string> patterns_;
  mutable std::once_flag once_;
  mutable std::unique_ptr<CompiledSet> set_;  // null: could not be built
};

}  // namespace attribution
