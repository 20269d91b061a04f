#include "core/pipeline/workload.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <limits>

#include "core/base/hostlist.hpp"
#include "core/base/identity.hpp"
#include "core/base/toml_util.hpp"
#include "sources/registry.hpp"

namespace attribution {
namespace {

void set_window(Workload& w, const Config& c) {
  constexpr Micros lo = std::numeric_limits<Micros>::min() / 2, hi = std::numeric_limits<Micros>::max() / 2;
  w.window.start = w.start ? *w.start - c.before : lo;
  w.window.end = w.end ? *w.end + c.after : hi;
  w.window_known = w.start.has_value() || w.end.has_value();
}

}  // namespace

const Scheduler* scheduler_for(const Config& config, const WorkloadRequest& req, CommandRunner& commands) {
  if (config.scheduler || !config.file.empty() || !req.job || !req.logs.empty()) return config.scheduler;
  for (const Scheduler* s : schedulers())
    if (s->detect(commands)) return s;
  return nullptr;
}

namespace {

Result<Workload> adhoc_workload(const WorkloadRequest& req) {
  Workload w;
  w.scheduler = "none";
  w.id = req.job.value_or("adhoc");
  w.name = req.name.value_or("");
  w.state = req.state.value_or("");
  if (req.exit_code && !parse_exit_status(*req.exit_code, w))
    return make_error(ErrorKind::usage, fmt::format("exit_code '{}' is not an integer or Slurm's \"code:signal\"",
                                                    *req.exit_code),
                      {}, 0, "exit_code", "give 1, or \"1:0\" as sacct prints it");
  if (req.nodes) {
    auto hosts = expand_hostlist(*req.nodes);
    if (!hosts) return hosts.error();
    w.nodes = *hosts;
  }
  return w;
}

Result<Workload> scheduler_workload(const Scheduler& scheduler, const Config& config, const WorkloadRequest& req,
                                    const Transports& transports) {
  auto settings = config.scheduler_settings.find(scheduler.name());
  if (settings == config.scheduler_settings.end())  // a Config built by hand: the defaults
    return make_error(ErrorKind::config, fmt::format("no settings for scheduler {}", scheduler.name()));
  SchedulerRequest sr{req.job.value_or(""), req.now, config.timezone, req.offline, config.file};
  return scheduler.resolve(sr, *settings->second, transports);
}

}  // namespace

Result<Workload> resolve_workload(const Config& config, const WorkloadRequest& req, const Transports& transports) {
  Workload w;
  const Scheduler* scheduler = req.logs.empty() ? scheduler_for(config, req, transports.commands) : nullptr;
  if (!req.logs.empty()) {
    ATTRIBUTION_TRY(w, adhoc_workload(req));
  } else if (scheduler) {
    ATTRIBUTION_TRY(w, scheduler_workload(*scheduler, config, req, transports));
  } else {
    return make_error(ErrorKind::usage, "no workload to diagnose", config.file, 0, {},
                      "pass --logs PATH (a directory of job logs), or a --config whose [workload] has "
                      "scheduler = \"static\"");
  }
  // Command-line times refine any scheduler's (useful to narrow a long job).
  for (auto [text, out] : {std::pair{&req.start, &w.start}, std::pair{&req.end, &w.end}}) {
    if (!*text) continue;
    auto t = parse_time_value(**text, config.timezone);
    if (!t) return t.error();
    *out = *t;
  }
  if (w.start && w.end && *w.end < *w.start)
    return make_error(ErrorKind::usage, "the end of the workload is before its start", {}, 0, {},
                      "check --start and --end");
  // Short and fully qualified names of one machine are one node everywhere (lines name it short).
  for (auto& n : w.nodes) n = short_host(n);
  w.nodes.erase(std::unique(w.nodes.begin(), w.nodes.end()), w.nodes.end());
  set_window(w, config);
  return w;
}

}  // namespace attribution
