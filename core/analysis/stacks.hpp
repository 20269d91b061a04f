#pragma once
// Stack dumps of a hung job (py-spy dump, Python faulthandler, gdb backtraces): where each process's main
// thread is.
// One rank outside collectives (a data-loader queue, file I/O, a checkpoint, a lock) while its peers
// wait in collectives is the rank holding the job (docs/hangs.md). Reads the `stack` capture.
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/localisation.hpp"
#include "core/analysis/timeline.hpp"
#include "core/rules/rules.hpp"

namespace attribution {

// What one main-thread stack says.
struct StackReading {
  bool in_collective = false;  // a frame is a collective, a barrier or a wait on the GPU
  std::string activity;        // outside collectives: "data loading", "file I/O", "checkpoint saving or
                               // loading", "tokenisation", "a lock or a wait", "its own code"
  bool network_fs = false;     // a frame's file is on a network or parallel file system
  std::string innermost;       // the innermost frame, "function (file:line)"
};

// Frames innermost first: py-spy's "    fn (file:line)", faulthandler's '  File "f", line n in fn' or
// gdb's "#n  0x.. in fn (args) at file:line".
StackReading read_stack(const std::string& stack);

// The process(es) outside collectives while at least as many others wait in them.
std::optional<Localisation> stack_outlier(const Timeline& t, const RuleSet& rules);

}  // namespace attribution
