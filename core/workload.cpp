#include "core/workload.hpp"

#include <fmt/format.h>
#include <limits>

#include "core/hostlist.hpp"
#include "sources/slurm_workload.hpp"
#include "sources/static_workload.hpp"

namespace attribution {
namespace {

void set_window(Workload& w, const Config& c) {
  constexpr Micros lo = std::numeric_limits<Micros>::min() / 2, hi = std::numeric_limits<Micros>::max() / 2;
  w.window.start = w.start ? *w.start - c.before : lo;
  w.window.end = w.end ? *w.end + c.after : hi;
  w.window_known = w.start.has_value() || w.end.has_value();
}

}  // namespace

Result<Workload> resolve_workload(const Config& config, const WorkloadRequest& req, CommandRunner& runner) {
  Workload w;
  bool slurm = config.scheduler == "slurm" ||
               (config.scheduler == "none" && config.file.empty() && req.job && req.logs.empty() &&
                (runner.available("sacct") || runner.available("scontrol")));
  if (!req.logs.empty()) {
    w.scheduler = "none";
    w.id = req.job.value_or("adhoc");
    if (req.nodes) {
      auto hosts = expand_hostlist(*req.nodes);
      if (!hosts) return hosts.error();
      w.nodes = *hosts;
    }
  } else if (config.scheduler == "static") {
    auto sw = read_static_workload(config.static_file, config.timezone);
    if (!sw) return sw.error();
    w = *sw;
    if (req.job && *req.job != w.id)
      return make_error(ErrorKind::usage,
                        fmt::format("--job {} does not match the static workload's id {}", *req.job, w.id),
                        config.static_file, 0, "id", "omit --job, or pass the id the workload file declares");
  } else if (slurm) {
    if (!req.job)
      return make_error(ErrorKind::usage, "scheduler slurm needs --job ID", config.file, 0, {}, "pass --job 12345");
    auto sw = resolve_slurm_workload(*req.job, runner, SlurmResolveOptions{config.timezone, req.now});
    if (!sw) return sw.error();
    w = std::move(sw.value());
  } else if (config.scheduler == "kueue") {
    return make_error(ErrorKind::config,
                      fmt::format("scheduler '{}' is not available in this version", config.scheduler), config.file,
                      0, "workload.scheduler",
                      "use scheduler = \"static\" with a workload file, or diagnose files with --logs PATH");
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
  set_window(w, config);
  return w;
}

}  // namespace attribution
