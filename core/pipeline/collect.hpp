#pragma once
// Pass 3: every configured source lists what it will read for this workload and window, and
// starts its coverage record; the scheduler's facts and the job's own output join them.
#include <string>
#include <vector>

#include "core/base/model.hpp"
#include "core/pipeline/config.hpp"
#include "core/rules/rules.hpp"
#include "core/scan/input.hpp"
#include "sources/source.hpp"

namespace attribution {

// Files are listed here and read by the scan; network sources (Prometheus, Loki, Kubernetes) are
// queried here and their lines handed on as inline text. Commands are not run here.
Collection collect(const Config& config, const Workload& workload, const std::vector<std::string>& adhoc_logs,
                   const std::vector<MetricSpec>& metrics, const Transports& transports);

}  // namespace attribution
