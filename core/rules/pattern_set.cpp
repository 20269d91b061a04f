#include "core/rules/pattern_set.hpp"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>

#include "core/rules/pattern_options.hpp"

namespace attribution {

// RE2::Set is a class nested in RE2, which a header cannot declare ahead: this wrapper can be.
struct CompiledSet {
  explicit CompiledSet(const RE2::Options& options) : set(options, RE2::UNANCHORED) {}
  RE2::Set set;
};

PatternSet::PatternSet(std::vector<int> ids, std::vector<std::string> patterns)
    : ids_(std::move(ids)), patterns_(std::move(patterns)) {}
PatternSet::~PatternSet() = default;

bool PatternSet::try_match(std::string_view text, std::vector<int>* ids) const {
  std::call_once(once_, [this] {
    RE2::Options options = pattern_options();
    // The set's automaton holds every pattern at once: room for a catalog of them.
    options.set_max_mem(64 << 20);
    auto s = std::make_unique<CompiledSet>(options);
    for (const auto& p : patterns_)
      if (s->set.Add(p, nullptr) < 0) return;
    if (s->set.Compile()) set_ = std::move(s);
  });
  ids->clear();
  if (!set_ || failed_.load(std::memory_order_relaxed)) return false;
  RE2::Set::ErrorInfo error;
  if (!set_->set.Match(re2::StringPiece(text.data(), text.size()), ids, &error)) {
    ids->clear();
    if (error.kind == RE2::Set::kNoError) return true;  // no pattern matched: an answer too
    failed_.store(true, std::memory_order_relaxed);
    return false;
  }
  for (int& i : *ids) i = ids_[static_cast<size_t>(i)];
  std::sort(ids->begin(), ids->end());
  return true;
}

}  // namespace attribution
