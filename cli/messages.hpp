#pragma once
// The only place errors become text and exit codes.
#include <string>

#include "core/base/result.hpp"

namespace attribution::cli {

enum ExitCode : int {
  kDiagnosed = 0,      // a report was produced, whatever its outcome
  kFailed = 1,         // `rules test` / `rules lint` found problems
  kUsage = 2,          // bad command line
  kConfig = 3,         // config, workload file or rules are invalid
  kNoData = 4,         // no source produced any data: nothing to diagnose
  kOutput = 5,         // the report could not be written
};

// The exit statuses, as --help prints them (README.md and docs/reliability.md say the same; a test
// checks it).
constexpr const char* kExitStatusHelp =
    "Exit status:\n"
    "  0  a report was produced, whatever its outcome (a single source's fault is in its sources[] entry)\n"
    "  1  rules test / rules lint found a problem; sources check: a source is not ok\n"
    "  2  usage error: a bad command line, or a bundle that cannot be replayed\n"
    "  3  invalid config, workload file or rules (file, line and key named), or credentials refused\n"
    "  4  no usable data: the scheduler does not know the job or did not answer, or no source produced any\n"
    "  5  the report, the evidence bundle or the store entry could not be written\n";

// "error: FILE:LINE: key K: message\n  hint: ..." on stderr; returns the exit code for the error.
int report_error(const Error& e);
// "attribution: warning: message" on stderr.
void report_warning(const std::string& message);
int exit_code_for(const Error& e);
std::string format_error(const Error& e);

}  // namespace attribution::cli
