#pragma once
// Pass 2: resolve the workload (id, nodes, fate, window) from the scheduler or the command line.
#include <optional>
#include <string>
#include <vector>

#include "core/base/model.hpp"
#include "core/pipeline/config.hpp"
#include "sources/source.hpp"

namespace attribution {

struct WorkloadRequest {
  std::optional<std::string> job;
  Micros now = 0;  // wall clock: the end of a running job's window
  std::vector<std::string> logs;  // --logs mode: no scheduler
  std::optional<std::string> nodes, start, end;
  // --logs mode's workload, as a platform pushing evidence describes it (POST /api/v1/diagnose).
  std::optional<std::string> name, state, exit_code;
  bool offline = false;  // a replay: schedulers read no credential
};

// The scheduler that resolves this request: the configured one, else (no config file, --job, no
// --logs) the first whose tools this machine has; null: none.
const Scheduler* scheduler_for(const Config& config, const WorkloadRequest& request, CommandRunner& commands);

Result<Workload> resolve_workload(const Config& config, const WorkloadRequest& request, const Transports& transports);

}  // namespace attribution
