#pragma once
// Whether a log line reads like an error to a person: the lines a report with no finding lists as
// "unread", so an SRE sees where to look when no rule knows the failure.
#include <string_view>

namespace attribution {

// A line holding an error word as a word of its own ("error", "Failed", "FATAL", "timed out",
// "cannot", "Killed", ...) or as an exception's class ("RuntimeError:", "IOException"), and not only
// a count of none ("0 errors", "no error"), a traceback's frame or marker, or an identifier that
// contains the word ("error_rate", "NCCL_ERROR_FILE").
bool looks_like_error(std::string_view line);

}  // namespace attribution
