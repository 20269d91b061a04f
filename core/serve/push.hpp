#pragma once
// POST /api/v1/diagnose: a platform pushes a failed workload's description and its log lines; they
// become the inputs of an ordinary --logs diagnosis (docs/serve.md). Parsing checks every limit
// before anything is diagnosed.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/pipeline/workload.hpp"
#include "sources/source.hpp"

namespace attribution {

struct PushLimits {
  size_t body_bytes = 256u << 20;  // the whole request
  size_t logs = 10000;             // log entries
  size_t lines = 4000000;          // lines over all logs
  size_t line_bytes = 64u << 10;   // one line
  size_t nodes = 10000;            // hosts the workload's node list expands to
};

struct PushedLog {
  std::string host, name;
  Stream stream = Stream::applog;
  std::shared_ptr<const std::string> text;  // the lines, each ended by '\n'
};

struct PushedWorkload {
  WorkloadRequest workload;
  std::vector<PushedLog> logs;
};

// What is wrong with a body: 400 (malformed) or 413 (over a limit), and a message naming the field.
struct PushError {
  int status = 400;
  std::string message;
};

// Parses and checks a body; `error` is set when it is refused.
PushedWorkload parse_push(std::string_view body, const PushLimits& limits, PushError* error);

// The directory a pushed log is shown under, as if the lines were files in it: "pushed/HOST/NAME".
// The same lines as files there, diagnosed with --logs pushed, give the same report.
constexpr const char* kPushedRoot = "pushed";

// The pushed logs as the ad-hoc --logs listing: one inline file per log, its host the pushed one.
class PushedFiles : public FileLister {
 public:
  explicit PushedFiles(const std::vector<PushedLog>& logs) : logs_(logs) {}
  std::vector<InputFile> list(const FileGlobs&, size_t, const Workload&, SourceCoverage&) override { return {}; }
  std::vector<InputFile> list_adhoc(const std::vector<std::string>& paths, size_t index, const Workload& workload,
                                    SourceCoverage& coverage) override;
  Result<std::string> read_text(const std::string& path) override;

 private:
  const std::vector<PushedLog>& logs_;
};

}  // namespace attribution
