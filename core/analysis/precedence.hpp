#pragma once
// Pass 6: root cause and symptom (docs/architecture.md, precedence). A cause that another cause explains is secondary;
// each symptom joins the earliest root cause that explains it; with no cause, residual
// localisation (hang minority, converging peer, first failure) names a suspect with low confidence.
#include <optional>
#include <string>
#include <vector>

#include "core/base/model.hpp"
#include "core/rules/rules.hpp"
#include "core/analysis/localisation.hpp"
#include "core/analysis/timeline.hpp"

namespace attribution {

constexpr Micros kClockSkew = 5 * kMicrosPerSecond;  // hosts' clocks may disagree this much

struct RootCause {
  size_t finding = 0;             // index into the timeline
  std::vector<size_t> explained;  // symptoms and secondary causes it accounts for
  std::string repeated;           // why the rule's `repeated` reading applies; empty when it does not
  std::string host;               // its host: the finding's, else the one peer its symptoms name
};

struct Link {
  size_t finding = 0;
  std::optional<size_t> root;  // index into Diagnosis::roots
  std::string why;             // "rule xid.79 explains xid.45 (scope gpu, within 5m)"
  bool same_fault = false;     // the root's own fault, seen by another rule or source
};

struct Diagnosis {
  std::vector<RootCause> roots;  // top first: priority desc, first seen, host, GPU, rule id
  std::vector<Link> links;       // every symptom and secondary cause, timeline order
  std::optional<Localisation> localisation;  // only when there is no root cause
};

Diagnosis resolve_precedence(const Timeline& timeline, const RuleSet& rules, const Workload& workload);

// Whether cause `c` explains finding `f`; fills `why` when it does.
// `weak_as_symptom`: `f` is a weak (fallback) cause that stronger causes outweigh, so it reads as a
// symptom and "role:symptom" entries select it too. `ordered_only`: only entries with `first = true`
// count (the order of the lines is evidence a weak cause may outrank a strong one by).
bool explains(const Finding& c, const Finding& f, const RuleSet& rules, std::string* why, bool weak_as_symptom = false,
              bool ordered_only = false);

}  // namespace attribution
