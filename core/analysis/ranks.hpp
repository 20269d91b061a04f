#pragma once
// Cross-rank analyses (docs/hangs.md): when no line names a fault, compare what each rank and each
// host says about itself and name the odd one out. Each reads the timeline's per-rank facts (the
// captures seq, last_enqueued, last_completed, pg, op, numel_in, numel_out) or per-host facts (setting,
// value) and returns a suspect, or nothing when the evidence does not single one out.
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
  int rank = -1;     // -1: a process no line ties to a rank (an NCCL trace's host:pid), named by `who`
  std::string who;   // "rank 3", or "process 45012 on h03r3n06"
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

// Per process group ("0" when a line does not say which; "nccl:<nranks>" for NCCL's own per-call trace,
// whose opCount is not PyTorch's sequence number), each reporting rank's progress, rank order.
std::vector<std::pair<std::string, std::vector<RankProgress>>> rank_progress(const Timeline& t, const RuleSet& rules);

// Ranks at the same collective that disagree on its type or size: an application fault (one code
// path issued a different collective), naming the ranks in the minority.
std::optional<Localisation> collective_mismatch(const Timeline& t, const RuleSet& rules);

// Hosts whose NCCL, driver or network settings (as each rank's init lines print them) differ from
// the majority's: a configuration cause naming them.
std::optional<Localisation> host_mismatch(const Timeline& t, const RuleSet& rules);

// Ranks behind the collective the others wait in: they never issued it (stuck before it: the
// application's side), or issued it and never finished it while the others did (stuck inside it:
// GPU, link or fabric stay candidates). A rank whose log is there but that reported no timeout when
// every other rank did is named as silent, with less certainty.
std::optional<Localisation> progress_behind(const Timeline& t, const RuleSet& rules);

}  // namespace attribution
