#include "core/pipeline/collect.hpp"

#include <fmt/format.h>

#include "sources/registry.hpp"

namespace attribution {
namespace {

size_t add_source(Collection& c, std::string name, std::string kind, Stream stream, TimeZone zone,
                  std::optional<Micros> boot) {
  c.sources.push_back(SourceRuntime{name, kind, stream, zone, boot});
  SourceCoverage cov;
  cov.name = std::move(name);
  cov.kind = std::move(kind);
  c.coverage.push_back(std::move(cov));
  return c.sources.size() - 1;
}

void append(Collection& c, std::vector<InputFile> files) {
  c.files.insert(c.files.end(), std::make_move_iterator(files.begin()), std::make_move_iterator(files.end()));
}

// The scheduler's facts: one inline input in the "scheduler" stream; its problems make it partial.
void add_scheduler_facts(Collection& c, const Workload& workload) {
  if (workload.facts.empty() && workload.problems.empty()) return;
  size_t i = add_source(c, workload.scheduler, workload.scheduler, Stream::scheduler, TimeZone::utc(), std::nullopt);
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

}  // namespace

Collection collect(const Config& config, const Workload& workload, const std::vector<std::string>& adhoc_logs,
                   const std::vector<MetricSpec>& metrics, const Transports& transports) {
  FileLister& lister = transports.files ? *transports.files : local_files();
  Collection c;
  if (!adhoc_logs.empty()) {
    size_t i = add_source(c, "logs", "files", Stream::applog, config.timezone, std::nullopt);
    c.sources[i].syslog_by_file_name = true;
    append(c, lister.list_adhoc(adhoc_logs, i, workload, c.coverage[i]));
  }
  add_scheduler_facts(c, workload);
  if (adhoc_logs.empty() && !workload.log_paths.empty()) {
    // The job's own stdout/stderr: what a login-node user has without any configuration.
    size_t i = add_source(c, "job-output", "files", Stream::applog, config.timezone, std::nullopt);
    append(c, lister.list(FileGlobs{workload.log_paths, {}, config.base_dir}, i, workload, c.coverage[i]));
  }
  const CollectContext context{workload, metrics, transports};
  for (const SourceEntry& entry : config.sources) {
    if (!adhoc_logs.empty() && entry.kind->replaced_by_adhoc_logs()) continue;
    const SourceSettings& s = *entry.settings;
    size_t i = add_source(c, entry.name, std::string(entry.kind->name()), s.stream,
                          s.timezone.value_or(config.timezone), s.boot_time);
    append(c, entry.kind->collect(entry, i, context, c.coverage[i]));
  }
  return c;
}

}  // namespace attribution
