#pragma once
// The only place errors become text and exit codes.
#include <string>

#include "core/result.hpp"

namespace attribution::cli {

enum ExitCode : int {
  kDiagnosed = 0,      // a report was produced, whatever its outcome
  kFailed = 1,         // `rules test` / `rules lint` found problems
  kUsage = 2,          // bad command line
  kConfig = 3,         // config, workload file or rules are invalid
  kNoData = 4,         // no source produced any data: nothing to diagnose
  kOutput = 5,         // the report could not be written
};

// "error: FILE:LINE: key K: message\n  hint: ..." on stderr; returns the exit code for the error.
int report_error(const Error& e);
// "attribution: warning: message" on stderr.
void report_warning(const std::string& message);
int exit_code_for(const Error& e);
std::string format_error(const Error& e);

}  // namespace attribution::cli
