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

// NCCL printed its set-up (rules of category `nccl_setup`: interfaces, plugin, environment) and no
// communicator reached "Init COMPLETE" (category `nccl_init_complete`), while no rank timed out in a
// collective or reported a step: the job stopped or hung inside NCCL's init, which is most often
// the environment it runs in. Configuration, low confidence.
std::optional<Localisation> init_incomplete(const Timeline& t, const RuleSet& rules);

}  // namespace attribution
