#include "core/pipeline/collect.hpp"

#include <fmt/format.h>

#include "core/pipeline/workload.hpp"
#include "sources/transport/http.hpp"
#include "sources/transport/kube_auth.hpp"
#include "sources/kubernetes/kube_logs.hpp"
#include "sources/loki/loki.hpp"
#include "sources/prometheus/prometheus.hpp"

namespace attribution {

std::string problems_summary(const std::vector<std::string>& problems) {
  if (problems.empty()) return {};
  return fmt::format("{} problem(s); first: {}", problems.size(), problems.front());
}

std::string_view to_string(SourceStatus s) {
  switch (s) {
    case SourceStatus::ok: return "ok";
    case SourceStatus::partial: return "partial";
    case SourceStatus::empty: return "empty";
    case SourceStatus::error: return "error";
    case SourceStatus::skipped: return "skipped";
  }
  return "?";
}

Collection collect(const Config& config, const Workload& workload, const std::vector<std::string>& adhoc_logs,
                   const std::vector<MetricSpec>& metrics, const Transports& transports) {
  HttpClient& http = transports.http;
  LocalKubeAccessResolver local_kube;
  KubeAccessResolver& kube = transports.kube ? *transports.kube : local_kube;
  DiskFileLister disk;
  FileLister& lister = transports.files ? *transports.files : disk;
  Collection c;
  auto add_source = [&](std::string name, std::string kind, std::string stream, TimeZone zone,
                        std::optional<Micros> boot) -> size_t {
    c.sources.push_back(SourceRuntime{name, kind, std::move(stream), zone, boot});
    SourceCoverage cov;
    cov.name = std::move(name);
    cov.kind = std::move(kind);
    c.coverage.push_back(std::move(cov));
    return c.sources.size() - 1;
  };
  if (!adhoc_logs.empty()) {
    size_t i = add_source("logs", "files", "applog", config.timezone, std::nullopt);
    c.sources[i].syslog_by_file_name = true;
    auto files = lister.list_adhoc(adhoc_logs, i, workload, c.coverage[i]);
    c.files.insert(c.files.end(), files.begin(), files.end());
  }
  if (!workload.facts.empty() || !workload.problems.empty()) {
    size_t i = add_source(workload.scheduler, workload.scheduler, "scheduler", TimeZone::utc(), std::nullopt);
    SourceCoverage& cov = c.coverage[i];
    std::string text;
    for (const auto& f : workload.facts) text += f.text + "\n";
    cov.bytes = static_cast<int64_t>(text.size());
    if (!workload.problems.empty()) {
      cov.problems = workload.problems;
      cov.status = SourceStatus::partial;
      cov.reason = workload.problems.size() == 1 ? workload.problems.front() : problems_summary(workload.problems);
    }
    if (!workload.facts.empty())
      c.files.push_back(InputFile{workload.facts.front().origin, i, "", -1,
                                  std::make_shared<const std::string>(std::move(text))});
  }
  if (adhoc_logs.empty() && !workload.log_paths.empty()) {
    // The job's own stdout/stderr: what a login-node user has without any configuration.
    SourceConfig sc;
    sc.name = "job-output";
    sc.kind = "files";
    sc.paths = workload.log_paths;
    size_t i = add_source(sc.name, sc.kind, "applog", config.timezone, std::nullopt);
    auto files = lister.list(sc, i, config.base_dir, workload, c.coverage[i]);
    c.files.insert(c.files.end(), files.begin(), files.end());
  }
  for (const auto& sc : config.sources) {
    if (!adhoc_logs.empty() && sc.kind == "files") continue;  // --logs replaces the configured files
    if (sc.kind == "prometheus") {
      size_t i = add_source(sc.name, sc.kind, "metrics", TimeZone::utc(), std::nullopt);
      std::string text = collect_prometheus(sc, metrics, workload, http, c.coverage[i]);
      if (c.coverage[i].status == SourceStatus::ok)
        c.files.push_back(InputFile{url_without_userinfo(sc.url) + " (query_range)", i, "", -1, std::make_shared<const std::string>(std::move(text))});
      continue;
    }
    size_t i = add_source(sc.name, sc.kind, sc.stream, sc.timezone.value_or(config.timezone), sc.boot_time);
    if (sc.kind == "loki") {  // lines of a failed later page are kept: the source is then partial
      auto files = collect_loki(sc, i, workload, http, c.coverage[i]);
      c.files.insert(c.files.end(), files.begin(), files.end());
      continue;
    }
    if (sc.kind == "kubernetes") {  // pod logs of the Kueue workload's pods
      auto files = collect_kube_logs(config, sc, workload, i, http, kube, c.coverage[i]);
      c.files.insert(c.files.end(), files.begin(), files.end());
      continue;
    }
    if (sc.kind != "files") {
      c.coverage[i].status = SourceStatus::skipped;
      c.coverage[i].reason = fmt::format("source kind '{}' is not available in this version", sc.kind);
      continue;
    }
    auto files = lister.list(sc, i, config.base_dir, workload, c.coverage[i]);
    c.files.insert(c.files.end(), files.begin(), files.end());
  }
  return c;
}

}  // namespace attribution
