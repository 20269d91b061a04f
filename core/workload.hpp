#pragma once
// Pass 2: resolve the workload (id, nodes, fate, window) from the scheduler or the command line.
#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/model.hpp"

namespace attribution {

struct WorkloadRequest {
  std::optional<std::string> job;
  std::vector<std::string> logs;  // --logs mode: no scheduler
  std::optional<std::string> nodes, start, end;
};

Result<Workload> resolve_workload(const Config& config, const WorkloadRequest& request);

}  // namespace attribution
