#pragma once
// The Slurm workload resolver: `--job ID` on a login node with no configuration. Reads sacct
// (accounting, post-mortem), scontrol (recent jobs: output paths, real exit codes) and sinfo -R
// (why nodes went down), and states the job's fate as scheduler facts the rules read.
#include <string>

#include "core/base/model.hpp"
#include "core/base/result.hpp"
#include "sources/transport/command.hpp"
#include "sources/slurm/slurm_parse.hpp"

namespace attribution {

// "12345", "12345_7" (array task), "12345+1" (het component), optionally ".0"/".batch"/".extern".
struct SlurmJobSpec {
  std::string job;   // without the step
  std::string step;  // "", "0", "batch", "extern"
};
Result<SlurmJobSpec> parse_job_spec(std::string_view text);

struct SlurmResolveOptions {
  TimeZone zone;           // of scontrol/sinfo text times (the cluster's local time)
  Micros now = 0;          // the end of a running job's window
};

Result<Workload> resolve_slurm_workload(const std::string& job, CommandRunner& runner, const SlurmResolveOptions& opt);

class HttpClient;
struct SlurmRestOptions {
  std::string url, user, token, api;  // token: the JWT itself, read by the caller
  std::string ca_file;
  Micros timeout = 30 * kMicrosPerSecond;  // each request
};
// slurmrestd: /slurmdb/<api>/job/<id> (accounting), /slurm/<api>/job/<id> (recent jobs),
// /slurm/<api>/nodes (node reasons). Without `api`, tries the newest versions first.
Result<Workload> resolve_slurm_workload_rest(const std::string& job, HttpClient& http, const SlurmRestOptions& rest,
                                             const SlurmResolveOptions& opt);

// Merges the views (sacct first, scontrol refines) into the workload and its facts.
Workload workload_from_slurm(const SlurmJobSpec& spec, const SlurmJob& job, const std::vector<NodeReason>& reasons,
                             const std::string& origin, Micros now);

}  // namespace attribution
