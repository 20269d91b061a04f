#pragma once
// The diagnose pipeline as a list of named passes (docs/architecture.md). Nothing here prints.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/report/report.hpp"
#include "core/rules/rule_sources.hpp"
#include "core/rules/rules.hpp"
#include "core/scan/scan.hpp"
#include "core/pipeline/workload.hpp"

namespace attribution {

class CommandRunner;
class HttpClient;
class FileLister;

class Matcher;

// Rules read, checked and compiled once, for a caller that diagnoses many workloads (serve).
struct PreparedRules {
  std::vector<RuleSource> sources;
  RuleSet set;
  std::shared_ptr<Matcher> matcher;
};
Result<std::shared_ptr<const PreparedRules>> prepare_rules(const std::vector<std::string>& user_paths);

struct DiagnoseRequest {
  std::optional<std::string> config_path;
  WorkloadRequest workload;
  std::vector<std::string> rule_paths;
  std::shared_ptr<const PreparedRules> rules;  // set: used instead of the config's and rule_paths
  std::optional<std::string> before, after;  // override the config's window margins
  int threads = 1;
  CommandRunner* runner = nullptr;  // scheduler commands; null: run the real programs
  HttpClient* http = nullptr;       // null: real HTTP
  FileLister* files = nullptr;      // null: the file system (a server passes the pushed lines)
  std::optional<std::string> record_dir;  // also write an evidence bundle of everything read
  std::optional<std::string> replay_dir;  // diagnose a bundle instead: no scheduler, network or files
  ScanProgress* progress = nullptr;       // updated during the scan, for a caller's progress display
  // When set, each pass's wall time in seconds, in pass order. Never part of the report: times
  // differ between runs and the report must not.
  std::vector<std::pair<std::string, double>>* timings = nullptr;
};

Result<Report> diagnose(const DiagnoseRequest& request);

}  // namespace attribution
