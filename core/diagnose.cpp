#include "core/diagnose.hpp"

#include <chrono>

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
  auto last = std::chrono::steady_clock::now();
  auto lap = [&](const char* pass) {
    auto now = std::chrono::steady_clock::now();
    if (req.timings) req.timings->emplace_back(pass, std::chrono::duration<double>(now - last).count());
    last = now;
  };
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
  lap("load config and rules");

  ProcessRunner real_runner;
  CurlHttpClient real_http;
  Transports transports{req.runner ? *req.runner : real_runner, req.http ? *req.http : real_http};
  auto workload = resolve_workload(*config, req.workload, transports);
  if (!workload) return workload.error();
  lap("resolve workload");

  Collection collection = collect(*config, *workload, req.workload.logs, rules->metrics, transports.http);
  lap("collect");
  ScanResult scanned = scan(collection, **matcher, *workload, req.threads);
  lap("scan and match");
  derive_window(*workload, scanned);
  Timeline timeline = build_timeline(std::move(scanned.findings), *rules, *workload);
  lap("timeline");
  Diagnosis diagnosis = resolve_precedence(timeline, *rules, *workload);
  lap("precedence");
  Report report = build_report(*workload, timeline, diagnosis, *rules, std::move(collection.coverage));
  lap("report");
  return report;
}

}  // namespace attribution
