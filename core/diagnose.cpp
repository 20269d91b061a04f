#include "core/diagnose.hpp"

#include "core/collect.hpp"
#include "core/config.hpp"
#include "core/duration.hpp"
#include "core/matcher.hpp"
#include "core/precedence.hpp"
#include "core/rules.hpp"
#include "core/scan.hpp"
#include "core/timeline.hpp"
#include "sources/command.hpp"
#include "sources/http.hpp"

namespace attribution {
namespace {

// --logs without --start/--end: the window is what the logs themselves span.
void derive_window(Workload& w, const ScanResult& scan) {
  if (w.window_known || !scan.earliest) return;
  w.window = Window{*scan.earliest, *scan.latest};
  w.window_known = true;
}

}  // namespace

Result<Report> diagnose(const DiagnoseRequest& req) {
  auto config = load_config(req.config_path);
  if (!config) return config.error();
  for (auto [text, out] : {std::pair{&req.before, &config->before}, std::pair{&req.after, &config->after}}) {
    if (!*text) continue;
    auto d = parse_duration(**text);
    if (!d) return d.error();
    *out = *d;
  }

  std::vector<std::string> rule_paths = config->rule_paths;
  rule_paths.insert(rule_paths.end(), req.rule_paths.begin(), req.rule_paths.end());
  auto rules = load_rules(rule_paths);
  if (!rules) return rules.error();
  auto matcher = Matcher::build(*rules);
  if (!matcher) return matcher.error();

  ProcessRunner real_runner;
  CurlHttpClient real_http(HttpOptions{10 * kMicrosPerSecond, 60 * kMicrosPerSecond, config->slurm.ca_file});
  Transports transports{req.runner ? *req.runner : real_runner, req.http ? *req.http : real_http};
  auto workload = resolve_workload(*config, req.workload, transports);
  if (!workload) return workload.error();

  Collection collection = collect(*config, *workload, req.workload.logs, rules->metrics, transports.http);
  ScanResult scanned = scan(collection, **matcher, *workload, req.threads);
  derive_window(*workload, scanned);
  Timeline timeline = build_timeline(std::move(scanned.findings), *rules, *workload);
  Diagnosis diagnosis = resolve_precedence(timeline, *rules, *workload);
  return build_report(*workload, timeline, diagnosis, *rules, std::move(collection.coverage));
}

}  // namespace attribution
