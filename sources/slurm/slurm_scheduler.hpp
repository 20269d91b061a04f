#pragma once
// scheduler = "slurm": [slurm] mode = "cli" runs sacct/scontrol/sinfo; mode = "rest" talks to
// slurmrestd with a JWT read from an environment variable or a file (never from the config text).
// With no config file, `--job` on a machine with sacct or scontrol means Slurm.
#include <string>

#include "sources/source.hpp"

namespace attribution {

struct SlurmSettings : SchedulerSettings {
  std::string mode = "cli";
  std::string url;         // rest: http(s)://host:6820
  std::string token_env;   // rest: variable holding the JWT (default SLURM_JWT)
  std::string token_file;  // rest: file holding the JWT
  std::string user;        // rest: X-SLURM-USER-NAME (default: $USER)
  std::string api;         // rest: "v0.0.38" .. ; empty: newest the server answers
  std::string ca_file;     // rest: CA bundle for https
  Micros timeout = 30 * kMicrosPerSecond;  // each command, each request
  long line = 0;
};

class SlurmScheduler : public Scheduler {
 public:
  std::string_view name() const override { return "slurm"; }
  std::string_view section() const override { return "slurm"; }
  Result<std::shared_ptr<const SchedulerSettings>> parse(const ParseContext& context, bool selected) const override;
  bool detect(CommandRunner& runner) const override;
  Micros command_timeout(const SchedulerSettings& settings) const override;
  Result<Workload> resolve(const SchedulerRequest& request, const SchedulerSettings& settings,
                           const Transports& transports) const override;
};

// The JWT for slurmrestd: from the variable or file the settings name.
Result<std::string> read_slurm_token(const SlurmSettings& settings);

}  // namespace attribution
