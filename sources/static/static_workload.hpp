#pragma once
// A workload declared in a TOML file (scheduler = "static"): id, name, user, nodes (a Slurm
// hostlist or a list), start, end, state, exit_code.
#include <string>

#include "core/base/model.hpp"
#include "core/base/result.hpp"
#include "sources/source.hpp"

namespace attribution {

struct StaticSettings : SchedulerSettings {
  std::string file;  // [workload] static = "job.toml", resolved against the config's directory
};

// scheduler = "static": the workload is described in a file beside the config.
class StaticScheduler : public Scheduler {
 public:
  std::string_view name() const override { return "static"; }
  std::vector<std::string> workload_keys() const override { return {"static"}; }
  bool needs_job() const override { return false; }
  Result<std::shared_ptr<const SchedulerSettings>> parse(const ParseContext& context, bool selected) const override;
  // The file is read through the transports' file lister, so a bundle keeps it and a replay
  // answers from it.
  Result<Workload> resolve(const SchedulerRequest& request, const SchedulerSettings& settings,
                           const Transports& transports) const override;
};

Result<Workload> parse_static_workload(std::string_view text, const std::string& file, const TimeZone& tz);

}  // namespace attribution
