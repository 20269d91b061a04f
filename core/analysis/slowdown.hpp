#pragma once
// Slowdowns (docs/hangs.md): a job that got slower without failing, or a rank slower than the rest.
// Reads the step-time series findings carry (Finding::series_head/tail) and straggler reports
// (NVIDIA Resiliency Extension scores, Megatron's straggler detector), from their latest lines.
#include <optional>

#include "core/analysis/localisation.hpp"
#include "core/analysis/timeline.hpp"
#include "core/rules/rules.hpp"

namespace attribution {

constexpr double kStragglerScore = 0.7;     // NVRx's default: a GPU performance score under it is a straggler
constexpr double kStragglerSpread = 1.25;   // Megatron: the slowest rank's time over the fastest's
constexpr double kDegradation = 1.5;        // recent step time over the start's
constexpr size_t kSustained = 8;            // step reports that must show it, at the start and at the end

// A rank a straggler report names as slow in its latest report.
std::optional<Localisation> straggler(const Timeline& t);

// Step times that grew by kDegradation and stayed so over the last kSustained reports.
std::optional<Localisation> throughput_drop(const Timeline& t);

}  // namespace attribution
