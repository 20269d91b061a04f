#pragma once
// Slurm's views of a job, parsed into one model: sacct/squeue/scontrol --json and slurmrestd
// (data_parser v0.0.38 .. v0.0.4x: states as strings or arrays, numbers plain or as
// {set, infinite, number}, exit codes as wait status or structs), `scontrol show job -o` text and
// `sinfo -R` reasons (formats.md §11).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.hpp"
#include "core/base/time.hpp"

namespace attribution {

struct SlurmStep {
  std::string id;  // "1234.0", "1234.batch", "1234.extern"
  std::string name, state, nodes;
  std::optional<int> exit_code, signal;
  std::optional<Micros> start, end;
};

struct SlurmJob {
  std::string id;  // as the user names it: "1234", "1234_7", "1234+1"
  int64_t job_id = 0;
  std::optional<int64_t> array_job_id, array_task_id, het_job_id, het_offset;
  std::string name, user, state, reason, nodes, failed_node, batch_host, std_out, std_err, work_dir;
  std::optional<int> exit_code, signal, derived_exit_code;
  int64_t restarts = 0;
  std::optional<int64_t> num_tasks, num_nodes;  // scontrol's NumTasks / NumNodes: the task layout
  std::optional<Micros> submit, start, end;
  std::vector<SlurmStep> steps;
  std::string from;  // which output this came from
  std::vector<std::string> problems;  // read only in part (a schema version newer than known)
};

// Any of Slurm's JSON job documents; `from` names it in messages.
Result<std::vector<SlurmJob>> parse_slurm_json(std::string_view text, const std::string& from);
// `scontrol show job -o` (one job per line) or the multi-line default form.
Result<std::vector<SlurmJob>> parse_scontrol_text(std::string_view text, const TimeZone& tz);

struct NodeReason {
  std::string node, reason;
  std::optional<Micros> since;
};
// `sinfo -R -h -N -o '%n|%H|%E'`: node | time the reason was set | reason.
std::vector<NodeReason> parse_sinfo_reasons(std::string_view text, const TimeZone& tz);

// slurmrestd /slurm/v0.0.x/nodes: nodes with a reason, and when it was set.
std::vector<NodeReason> parse_slurm_nodes_json(std::string_view text);

// `sacctmgr -n -P show event ... Format=NodeName,TimeStart,State,Reason`: node state history from
// accounting, which outlives the node's return to service.
std::vector<NodeReason> parse_node_events(std::string_view text, const TimeZone& tz);

// StdOut/StdErr patterns: %j %J %A %a %u %x %N %n %t %s %% (sbatch(1) "filename pattern").
std::string expand_slurm_path(std::string_view pattern, const SlurmJob& job);

}  // namespace attribution
