#pragma once
// Consistency across hosts (docs/hangs.md): each rank's NCCL prints its own set-up at init (network
// plugin, network, CUDA driver, NCCL_* environment) as context rules capturing `setting` and
// `value`; nodes whose value differs from the majority's are a configuration suspect.
#include <optional>

#include "core/analysis/localisation.hpp"
#include "core/analysis/timeline.hpp"
#include "core/rules/rules.hpp"

namespace attribution {

// Hosts whose settings differ from the majority of at least three hosts (at most a third of them).
std::optional<Localisation> host_mismatch(const Timeline& t, const RuleSet& rules);

}  // namespace attribution
