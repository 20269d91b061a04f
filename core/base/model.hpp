#pragma once
// The facts passed between passes: workload, coverage, evidence and findings.
#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/time.hpp"

namespace attribution {

struct Window {
  Micros start = 0, end = 0;
  bool contains(Micros t) const { return t >= start && t <= end; }
};

// A fact the scheduler states about the workload, as a line the rules read (stream "scheduler").
struct SchedulerFact {
  Micros time = 0;
  std::string text;    // e.g. "slurm job 12 state NODE_FAIL reason NodeDown exit_code 0 ..."
  std::string origin;  // the command or URL it came from
};

struct Workload {
  std::string id, scheduler, name, user, state;
  std::optional<int> exit_code;
  std::optional<int> exit_signal;     // Slurm's "code:signal" second part, when given
  std::optional<int> tasks_per_node;  // the launch layout: srun task t runs on nodes[t / tasks_per_node]
  std::vector<std::string> nodes;  // expanded, in the scheduler's order
  std::optional<Micros> start, end;
  Window window;                    // [start - before, end + after]
  std::vector<SchedulerFact> facts;  // the scheduler's account of the job's fate
  std::vector<std::string> log_paths;  // the job's own output files (Slurm StdOut/StdErr)
  // Kueue: the workload's pods, for the `kubernetes` pod-log source (node short name; containers
  // whose restart count is above zero also have a previous instance's log).
  struct Pod {
    std::string ns, name, node;
    std::vector<std::string> containers, restarted;
  };
  std::vector<Pod> pods;
  std::string workdir;
  // What the scheduler answered only in part (an unknown schema version, a missing node list):
  // the scheduler's sources[] entry is then partial and says so.
  std::vector<std::string> problems;
  bool window_known = false;        // false: --logs without --start/--end until the scan derives it
};

// An exit status as text: "1", or Slurm's "code:signal" as sacct prints it ("1:0", "0:9"), both
// parts kept. False when it is neither (w is then unchanged).
bool parse_exit_status(std::string_view text, Workload& w);

enum class SourceStatus { ok, partial, empty, error, skipped };
std::string_view to_string(SourceStatus s);
// "3 problem(s); first: ..." for a partial source's reason.
std::string problems_summary(const std::vector<std::string>& problems);

// What every configured source reports about itself, whatever happens.
struct SourceCoverage {
  std::string name, kind;
  SourceStatus status = SourceStatus::ok;
  std::string reason;
  int64_t records = 0;  // matched log lines kept
  int64_t bytes = 0;
  int64_t files = 0;
  std::vector<std::string> hosts_covered;
  int64_t hosts_expected = 0;
  std::vector<std::string> problems;  // per-file reasons (unreadable, binary, ...)
  int64_t lines_not_kept = 0;  // matching lines past the findings bound (counted, not kept)
};
// Adds a host to the hosts a source covered, once.
void add_covered_host(SourceCoverage& cov, const std::string& host);


struct Evidence {
  Micros time = 0;
  bool time_inferred = false;
  std::string source;    // source name
  std::string host;
  int rank = -1;
  std::string location;  // path:line
  std::string text;      // the line (sanitised, truncated)
  bool cut = false;      // the line was longer than the report keeps (kMaxEvidenceText)
  std::map<std::string, std::string> captures;  // the rule's named groups on this line (sanitised)
};

// One rule hit, or a burst of them folded together.
struct Finding {
  int rule = -1;  // index into RuleSet::rules
  std::string host, pci, peer;
  int gpu = -1, rank = -1;  // gpu: the NVML index (nvidia-smi, DCGM), not a process's CUDA ordinal
  int64_t pid = -1;         // the process that printed the line (NCCL host:pid:tid), a join key
  int task = -1;            // srun --label's task id on the line: within one step's output, one host
  Micros first_seen = 0, last_seen = 0;
  bool time_inferred = false;
  bool host_named = false;  // the host comes from the line's words (a `host` capture), not its prefix or path
  int64_t count = 1;
  std::map<std::string, std::string> fields;  // the named captures later passes read (kept_capture)
  std::vector<Evidence> evidence;             // first, and last when folded
  size_t input_order = 0;  // position in the scan's output (source order): equal lines keep the first
  // The collected file the lines come from: findings of one file share a host for scope and
  // de-duplication even when no line names it (one fault must not split into several).
  int64_t file = -1;
  bool unlisted = false;  // a cause on a host outside the job's node list: kept, ranked after the job's own
  // A measure the lines carry, in milliseconds (a step time, capture `step_ms` or `step_s`; or the time per
  // sample, from `samples_per_sec`): the first kSeriesHead values of the burst and the latest kSeriesTail,
  // for the slowdown analysis.
  std::vector<float> series_head, series_tail;
};

constexpr size_t kSeriesHead = 32, kSeriesTail = 32;
// A kept capture's value on a finding (kept_capture), or "" when its line had none. A walk of the few
// captures: a map lookup would build a key string for each name asked (the scan asks a dozen per line).
inline std::string field_of(const Finding& f, std::string_view key) {
  for (const auto& [k, value] : f.fields)
    if (k == key) return value;
  return {};
}
// Adds one value of a finding's measure, in order.
void add_to_series(Finding& f, float value);

// Whether `next` continues the burst `prev` holds (the caller has checked they are the same rule,
// host, GPU, rank, peer and process): both timed the same way, and `next` starts no later than
// `burst` after `prev` ends. Times inferred from a file's date cannot be told apart: they always fold.
// The scan folds with it as lines arrive, the timeline again across files: one rule for both.
bool continues_burst(const Finding& prev, const Finding& next, Micros burst);
// Folds `next` into `prev`: counts add up, the span grows, and the last evidence is `next`'s.
void fold_into(Finding& prev, Finding&& next);

// The captures read after the scan: ip and alias (timeline: another name of the finding's host), comm
// (the process a line names, for the report), exit_code, xid and cause_xid (precedence); seq, pg, op,
// numel_in, numel_out, last_enqueued and last_completed (a rank's progress, core/analysis/ranks);
// setting and value (a host's set-up, core/analysis/hosts); stack (a process's main thread,
// core/analysis/stacks). What a report says in its latest line (a straggler's score, an NCCL trace's
// opCount) is read from the last evidence's captures instead. The scan keeps only these; the others
// have done their work there (host, rank, gpu, pci, busid, peer, time) or are checked by samples
// only, and a 1,000-node job holds tens of thousands of findings.
inline bool kept_capture(std::string_view name) {
  static constexpr std::string_view kKept[] = {"ip",       "alias",         "comm",           "exit_code", "xid",
                                               "cause_xid", "seq",          "pg",             "op",        "numel_in",
                                               "numel_out", "last_enqueued", "last_completed", "setting",  "value", "stack"};
  return std::find(std::begin(kKept), std::end(kKept), name) != std::end(kKept);
}

}  // namespace attribution
