#include "core/pipeline/diagnose.hpp"

#include <chrono>
#include <fmt/format.h>
#include <map>

#include "core/pipeline/bundle.hpp"
#include "core/pipeline/collect.hpp"
#include "core/pipeline/config.hpp"
#include "core/base/duration.hpp"
#include "core/rules/matcher.hpp"
#include "core/analysis/precedence.hpp"
#include "core/rules/rules.hpp"
#include "core/scan/scan.hpp"
#include "core/analysis/timeline.hpp"
#include "core/base/toml_util.hpp"
#include "sources/transport/command.hpp"
#include "sources/transport/http.hpp"
#include "sources/registry.hpp"
#include "sources/transport/recording.hpp"

namespace attribution {
namespace {

// What one diagnosis reads, whether live or from a bundle.
struct Inputs {
  Config config;
  std::vector<RuleSource> rule_sources;
  WorkloadRequest workload;
  std::vector<std::string> bundle_problems;  // replay: missing or altered bundle files
};

Status apply_margins(Config& config, const std::optional<std::string>& before, const std::optional<std::string>& after) {
  for (auto [text, out] : {std::pair{&before, &config.before}, std::pair{&after, &config.after}}) {
    if (!*text) continue;
    auto d = parse_duration(**text);
    if (!d) return d.error();
    *out = *d;
  }
  return Ok{};
}

Result<Inputs> live_inputs(const DiagnoseRequest& req) {
  Inputs in;
  ATTRIBUTION_TRY(in.config, load_config(req.config_path));
  if (auto st = apply_margins(in.config, req.before, req.after); !st) return st.error();
  in.workload = req.workload;
  if (req.rules) return in;  // compiled once by the caller
  std::vector<std::string> rule_paths = in.config.rule_paths;
  rule_paths.insert(rule_paths.end(), req.rule_paths.begin(), req.rule_paths.end());
  ATTRIBUTION_TRY(in.rule_sources, read_rule_sources(rule_paths));
  return in;
}

Result<Inputs> bundle_inputs(const LoadedBundle& bundle) {
  const BundleContents& b = bundle.contents;
  Inputs in;
  if (b.config_file.empty()) in.config = default_config();
  else ATTRIBUTION_TRY(in.config, parse_config(b.config_text, b.config_file));
  if (auto st = apply_margins(in.config, b.request.before, b.request.after); !st) return st.error();
  in.rule_sources = b.rules;
  in.workload.job = b.request.job;
  in.workload.logs = b.request.logs;
  in.workload.nodes = b.request.nodes;
  in.workload.start = b.request.start;
  in.workload.end = b.request.end;
  in.workload.now = b.request.now;
  in.workload.offline = true;
  in.bundle_problems = bundle.problems;
  return in;
}

// The bundle's own coverage entry: present only when something in it is missing or altered, so an
// intact bundle replays to the very report it was recorded with.
void add_bundle_coverage(std::vector<SourceCoverage>& coverage, const std::vector<std::string>& problems) {
  if (problems.empty()) return;
  SourceCoverage c;
  c.name = "bundle";
  c.kind = "bundle";
  c.status = SourceStatus::partial;
  c.reason = fmt::format("{} problem(s) in the bundle; first: {}", problems.size(), problems.front());
  c.problems = problems;
  coverage.push_back(std::move(c));
}

// Everything the bundle keeps, from what the passes read; file lines from the scan's extracts.
Result<BundleContents> bundle_contents(const DiagnoseRequest& req, const Inputs& in, const Workload& workload,
                                       const RecordingRunner& runner, const RecordingHttpClient& http,
                                       const RecordingKubeAccessResolver& kube, const RecordingFileLister& lister,
                                       const Collection& collection,
                                       const ScanResult& scanned) {
  BundleContents b;
  b.request = BundleRequest{in.workload.job, in.workload.nodes, in.workload.start, in.workload.end,
                            req.before, req.after, in.workload.logs, in.workload.now};
  b.config_file = in.config.file;
  if (!b.config_file.empty()) ATTRIBUTION_TRY(b.config_text, redact_config(in.config.text, b.config_file));
  b.static_workload = lister.read;
  b.rules = in.rule_sources;
  b.probes = runner.probes();
  b.commands = runner.commands();
  b.exchanges = http.exchanges();
  b.kube_access = kube.resolved();
  std::map<std::pair<size_t, std::string>, std::shared_ptr<const FileExtract>> extracts;
  for (size_t i = 0; i < collection.files.size(); ++i)
    extracts[{collection.files[i].source, collection.files[i].path}] = scanned.extracts[i];
  b.listings = lister.listed;
  for (auto& l : b.listings)
    for (auto& f : l.files) f.extract = extracts[{l.index, f.path}];
  b.workload_json = workload_json(workload);
  return b;
}

// --logs gives no window, or only one end of it (--start or --end): the missing ends are the logs'
// own span, so the report never shows an unbounded end.
void settle_window(Workload& w, const ScanResult& scanned) {
  if (!w.start && !w.end) {
    if (!scanned.earliest) return;
    w.window = Window{*scanned.earliest, *scanned.latest};
    w.window_known = true;
    return;
  }
  if (!w.end) w.window.end = std::max(w.window.start, scanned.latest.value_or(w.window.start));
  if (!w.start) w.window.start = std::min(w.window.end, scanned.earliest.value_or(w.window.end));
}

Result<std::shared_ptr<const PreparedRules>> compile_rules(std::vector<RuleSource> sources) {
  auto p = std::make_shared<PreparedRules>();
  p->sources = std::move(sources);
  ATTRIBUTION_TRY(p->set, load_rule_sources(p->sources, /*with_samples=*/false));
  ATTRIBUTION_TRY(p->matcher, Matcher::build(p->set));
  return std::shared_ptr<const PreparedRules>(std::move(p));
}

}  // namespace

Result<std::shared_ptr<const PreparedRules>> prepare_rules(const std::vector<std::string>& user_paths) {
  std::vector<RuleSource> sources;
  ATTRIBUTION_TRY(sources, read_rule_sources(user_paths));
  return compile_rules(std::move(sources));
}

Result<Report> diagnose(const DiagnoseRequest& req) {
  auto last = std::chrono::steady_clock::now();
  auto lap = [&](const char* pass) {
    auto now = std::chrono::steady_clock::now();
    if (req.timings) req.timings->emplace_back(pass, std::chrono::duration<double>(now - last).count());
    last = now;
  };
  if (req.record_dir)  // before anything is read: a bundle that cannot be written fails now, not at the end
    if (auto st = check_bundle_dir(*req.record_dir); !st) return st.error();
  std::optional<LoadedBundle> bundle;
  if (req.replay_dir) ATTRIBUTION_TRY(bundle, read_bundle(*req.replay_dir));
  Inputs in;
  ATTRIBUTION_TRY(in, bundle ? bundle_inputs(*bundle) : live_inputs(req));
  std::shared_ptr<const PreparedRules> prepared = req.rules;
  if (!prepared) ATTRIBUTION_TRY(prepared, compile_rules(in.rule_sources));  // a copy: a bundle keeps them
  else in.rule_sources = prepared->sources;
  const RuleSet* rules = &prepared->set;
  const std::shared_ptr<Matcher>* matcher = &prepared->matcher;
  lap("load config and rules");

  // The transports: real, replayed from the bundle, or recorded on their way through.
  ProcessRunner real_runner(command_timeout(in.config));
  CurlHttpClient real_http;
  ReplayRunner replay_runner;
  ReplayHttpClient replay_http;
  LocalKubeAccessResolver local_kube;
  ReplayFileLister replay_files(bundle ? bundle->contents.listings : std::vector<ListedSource>{},
                                bundle ? bundle->contents.static_workload : std::nullopt);
  ReplayKubeAccessResolver replay_kube;
  if (bundle) load_replay_transports(bundle->contents, replay_runner, replay_http, replay_kube);
  CommandRunner& base_runner = bundle ? replay_runner : req.runner ? *req.runner : real_runner;
  HttpClient& base_http = bundle ? static_cast<HttpClient&>(replay_http) : req.http ? *req.http : real_http;
  FileLister& base_files = bundle ? static_cast<FileLister&>(replay_files) : req.files ? *req.files : local_files();
  KubeAccessResolver& base_kube = bundle ? static_cast<KubeAccessResolver&>(replay_kube) : local_kube;
  RecordingRunner recording_runner(base_runner);
  RecordingHttpClient recording_http(base_http);
  RecordingFileLister recording_files(base_files);
  RecordingKubeAccessResolver recording_kube(base_kube);
  const bool record = req.record_dir.has_value();
  Transports transports{record ? recording_runner : base_runner, record ? recording_http : base_http,
                        record ? &recording_kube : &base_kube, record ? &recording_files : &base_files};

  auto workload = resolve_workload(in.config, in.workload, transports);
  if (!workload) return workload.error();
  lap("resolve workload");

  Collection collection =
      collect(in.config, *workload, in.workload.logs, rules->metrics, transports);
  lap("collect");
  ScanResult scanned = scan(collection, **matcher, *workload, req.threads, record, req.progress);
  lap("scan and match");
  add_bundle_coverage(collection.coverage, in.bundle_problems);
  // A bundle keeps the workload as the scan saw it: a window the logs' own span settles here is
  // settled again on replay, never mistaken there for one the scheduler gave.
  std::optional<BundleContents> recorded;
  if (record)
    ATTRIBUTION_TRY(recorded, bundle_contents(req, in, *workload, recording_runner, recording_http, recording_kube,
                                              recording_files, collection, scanned));
  settle_window(*workload, scanned);
  Timeline timeline = build_timeline(std::move(scanned.findings), *rules, *workload);
  lap("timeline");
  Diagnosis diagnosis = resolve_precedence(timeline, *rules, *workload);
  lap("precedence");
  Report report = build_report(*workload, timeline, diagnosis, *rules, std::move(collection.coverage),
                               EvidenceFacts{scanned.year_inferred, timeline.unmatched_hosts, std::move(scanned.unread)});
  lap("report");
  if (recorded) {
    if (auto st = write_bundle(*req.record_dir, *recorded); !st) return st.error();
    lap("record bundle");
  }
  return report;
}

}  // namespace attribution
