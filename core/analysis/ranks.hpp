#pragma once
// Cross-rank analyses (docs/hangs.md): when no line names a fault, compare how far each rank got
// and name the one that differs. They read the timeline's per-rank facts (the captures seq,
// last_enqueued, last_completed, pg, op, numel_in, numel_out; NCCL call traces) once, through
// rank_progress, and return a suspect, or nothing when the evidence does not single one out.
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/localisation.hpp"
#include "core/analysis/timeline.hpp"
#include "core/rules/rules.hpp"

namespace attribution {

// One rank's progress in one process group, as its watchdog, dump-signal and Flight Recorder lines
// report it. -1: not reported.
struct RankProgress {
  int rank = -1;     // negative below -1: a process no line ties to a rank (an NCCL trace's host:pid)
  std::string who;   // process_name(): "rank 3", or "process 45012 on h03r3n06"
  std::string host;
  long timed_out_at = -1;  // the collective its watchdog timed out in (SeqNum)
  long enqueued = -1;      // the last collective it issued (a timeout at N means at least N)
  long completed = -1;     // the last one it finished
  bool counted = false;    // a line printed its enqueued count (not only the collective it timed out in)
  std::string op, numel_in, numel_out;  // the timed-out collective: its type and sizes
  long traced_at = -1;                  // NCCL_DEBUG_SUBSYS=COLL: the last collective it issued (opCount)
  std::string traced_op, traced_numel;  // and its type and element count
  std::vector<size_t> findings;         // the lines that say so
};

// The ranks of one process group ("0" when a line does not say which; "nccl:<nranks>" for NCCL's own
// per-call trace, whose opCount is not PyTorch's sequence number), in id order.
struct GroupProgress {
  std::string pg;
  std::vector<RankProgress> ranks;
};

// Every group's progress, read from the timeline once for all the analyses below.
std::vector<GroupProgress> rank_progress(const Timeline& t, const RuleSet& rules);

// Ranks at the same collective that disagree on its type or size: an application fault (one code
// path issued a different collective), naming the ranks in the minority.
std::optional<Localisation> collective_mismatch(const std::vector<GroupProgress>& progress);

// Ranks behind the collective the others wait in: they never issued it (stuck before it: the
// application's side), or issued it and never finished it while the others did (stuck inside it:
// GPU, link or fabric stay candidates). With no counters, ranks that timed out in an earlier
// collective are a plain minority: unknown, or the application's when `only_timeouts` (every error
// of the job is a timeout, and no node shows a fault).
std::optional<Localisation> progress_behind(const std::vector<GroupProgress>& progress, bool only_timeouts);

}  // namespace attribution
