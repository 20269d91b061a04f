#include "core/rules/pattern_set.hpp"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>

#include "core/rules/pattern_options.hpp"

namespace attribution {

struct CompiledSet {
  explicit CompiledSet(const RE2::Options& options) : set(options, RE2::UNANCHORED) {}
  RE2::Set set;
};

PatternSet::PatternSet(std::vector<int> ids, std::vector<std::string> patterns)
    : ids_(std::move(ids)), patterns_(std::move(patterns)) {}
PatternSet::~PatternSet() = default;

bool PatternSet::matching(std::string_view text, std::vector<int>* ids) const {
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
  if (!set_) return false;
  thread_local std::vector<int> found;
  RE2::Set::ErrorInfo error;
  if (!set_->set.Match(re2::StringPiece(text.data(), text.size()), &found, &error))
    return error.kind == RE2::Set::kNoError;  // no pattern matched: an answer too
  for (int i : found) ids->push_back(ids_[static_cast<size_t>(i)]);
  std::sort(ids->begin(), ids->end());
  return true;
}

}  // namespace attribution
