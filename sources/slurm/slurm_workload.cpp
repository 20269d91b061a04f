#include "sources/slurm/slurm_workload.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <re2/re2.h>

#include "core/base/hostlist.hpp"
#include "sources/transport/http.hpp"

namespace attribution {
namespace {

const char* signal_name(int s) {
  switch (s) {
    case 1: return "HUP";
    case 2: return "INT";
    case 6: return "ABRT";
    case 7: return "BUS";
    case 9: return "KILL";
    case 11: return "SEGV";
    case 15: return "TERM";
    default: return "SIG";
  }
}

std::string exit_text(std::optional<int> code, std::optional<int> signal) {
  std::string s = fmt::format("exit_code {}", code ? std::to_string(*code) : std::string("unknown"));
  if (signal) s += fmt::format(" signal {} ({})", *signal, signal_name(*signal));
  return s;
}

// Picks the job the user named: the array task or het component, else the latest run (requeues).
const SlurmJob* pick(const std::vector<SlurmJob>& jobs, const SlurmJobSpec& spec) {
  const SlurmJob* best = nullptr;
  for (const auto& j : jobs) {
    bool named = j.id == spec.job || std::to_string(j.job_id) == spec.job;
    if (!named) continue;
    if (!best || j.start.value_or(0) > best->start.value_or(0)) best = &j;
  }
  if (!best && jobs.size() == 1) best = &jobs.front();
  return best;
}

// scontrol knows recent jobs better (output paths, real exit codes); sacct knows every job.
void refine(SlurmJob& base, const SlurmJob& more) {
  auto take = [](std::string& a, const std::string& b) {
    if (!b.empty()) a = b;
  };
  take(base.std_out, more.std_out);
  take(base.std_err, more.std_err);
  take(base.work_dir, more.work_dir);
  take(base.batch_host, more.batch_host);
  take(base.failed_node, more.failed_node);
  if (base.reason.empty() || base.reason == "None") take(base.reason, more.reason);
  if (more.exit_code) base.exit_code = more.exit_code;  // sacct 22.05 reports every exit as 0
  if (more.signal) base.signal = more.signal;
  if (more.derived_exit_code) base.derived_exit_code = more.derived_exit_code;
  if (base.nodes.empty()) base.nodes = more.nodes;
  if (base.state.empty()) base.state = more.state;
  if (!base.start) base.start = more.start;
  if (!base.end) base.end = more.end;
}

}  // namespace

Result<SlurmJobSpec> parse_job_spec(std::string_view text) {
  static const RE2 re(R"(([0-9]+(?:_[0-9]+|\+[0-9]+)?)(?:\.([0-9]+|batch|extern))?)");
  std::string job, step;
  if (!RE2::FullMatch(re2::StringPiece(text.data(), text.size()), re, &job, &step))
    return make_error(ErrorKind::usage, fmt::format("'{}' is not a Slurm job id", text), {}, 0, {},
                      "write 12345, 12345_7 (array task), 12345+1 (het component), or 12345.0 (step)");
  return SlurmJobSpec{job, step};
}

Workload workload_from_slurm(const SlurmJobSpec& spec, const SlurmJob& job, const std::vector<NodeReason>& reasons,
                             const std::string& origin, Micros now) {
  Workload w;
  w.id = spec.step.empty() ? spec.job : spec.job + "." + spec.step;
  w.scheduler = "slurm";
  w.name = job.name;
  w.user = job.user;
  w.state = job.state;
  w.exit_code = job.exit_code;
  std::string nodes = job.nodes;
  w.start = job.start;
  w.end = job.end;
  if (!spec.step.empty()) {  // a step: its own nodes and window
    std::string want = std::to_string(job.job_id) + "." + spec.step;
    for (const auto& s : job.steps)
      if (s.id == want || s.id == spec.step) {
        if (!s.nodes.empty()) nodes = s.nodes;
        if (s.start) w.start = s.start;
        if (s.end) w.end = s.end;
        w.exit_code = s.exit_code;
      }
  }
  bool running = job.state == "RUNNING" || job.state == "PENDING" || job.state == "SUSPENDED";
  if (running || (w.end && w.start && *w.end < *w.start)) w.end.reset();
  if (auto hosts = expand_hostlist(nodes); hosts) w.nodes = *hosts;
  w.exit_signal = job.signal;
  // srun --label prints task ids; with an even layout, task t runs on node t / (tasks per node).
  if (job.num_tasks && job.num_nodes && *job.num_nodes > 0 && *job.num_tasks % *job.num_nodes == 0 &&
      spec.step.empty() && static_cast<int64_t>(w.nodes.size()) == *job.num_nodes)
    w.tasks_per_node = static_cast<int>(*job.num_tasks / *job.num_nodes);
  w.workdir = job.work_dir;
  w.problems = job.problems;
  if (w.nodes.empty()) w.problems.push_back(fmt::format("{}: no node list for job {}", origin, w.id));
  for (const auto& p : {job.std_out, job.std_err})
    if (!p.empty() && p != "/dev/null" && std::find(w.log_paths.begin(), w.log_paths.end(), expand_slurm_path(p, job)) == w.log_paths.end())
      w.log_paths.push_back(expand_slurm_path(p, job));

  // The fate, as lines the scheduler rules read.
  Micros fate_time = w.end.value_or(now);
  std::string failed = job.failed_node;
  std::vector<const NodeReason*> down;
  for (const auto& r : reasons) {
    if (std::find(w.nodes.begin(), w.nodes.end(), r.node) == w.nodes.end()) continue;
    // A reason set while the job ran (or within a minute after) is about this job's trouble; one set
    // before it started is not (the node would not have been allocated while out of service).
    if (r.since && w.start && *r.since >= *w.start && *r.since <= fate_time + 60 * kMicrosPerSecond)
      down.push_back(&r);
  }
  if (failed.empty() && job.state == "NODE_FAIL" && down.size() == 1) failed = down.front()->node;
  std::string line = fmt::format("{} slurm job {} state {} reason {} {}", format_rfc3339(fate_time), w.id,
                                 job.state.empty() ? "UNKNOWN" : job.state, job.reason.empty() ? "None" : job.reason,
                                 exit_text(job.exit_code, job.signal));
  if (job.derived_exit_code) line += fmt::format(" derived_exit_code {}", *job.derived_exit_code);
  if (job.restarts > 0) line += fmt::format(" restarts {}", job.restarts);
  if (!failed.empty()) line += " failed_node " + failed;
  line += " nodes " + (nodes.empty() ? std::string("none") : nodes);
  w.facts.push_back(SchedulerFact{fate_time, line, origin});
  for (const auto& s : job.steps) {
    Micros t = s.end.value_or(fate_time);
    w.facts.push_back(SchedulerFact{
        t, fmt::format("{} slurm step {} state {} {} nodes {}", format_rfc3339(t), s.id, s.state.empty() ? "UNKNOWN" : s.state,
                       exit_text(s.exit_code, s.signal), s.nodes.empty() ? "none" : s.nodes),
        origin});
  }
  for (const NodeReason* r : down)
    w.facts.push_back(SchedulerFact{*r->since,
                                    fmt::format("{} slurm node {} down reason \"{}\"", format_rfc3339(*r->since), r->node, r->reason),
                                    "sinfo -R"});
  std::stable_sort(w.facts.begin(), w.facts.end(), [](const auto& a, const auto& b) { return a.time < b.time; });
  return w;
}

Result<Workload> resolve_slurm_workload(const std::string& job_text, CommandRunner& runner, const SlurmResolveOptions& opt) {
  auto spec = parse_job_spec(job_text);
  if (!spec) return spec.error();
  std::vector<std::string> tried;
  std::optional<SlurmJob> job;
  std::string origin;
  if (runner.available("sacct")) {
    std::vector<std::string> argv = {"sacct", "-j", spec->job, "--json"};
    auto out = runner.run(argv);
    if (out && out->exit_code == 0) {
      auto jobs = parse_slurm_json(out->out, join_argv(argv));
      if (jobs)
        if (const SlurmJob* j = pick(*jobs, *spec)) job = *j, origin = join_argv(argv);
      if (!jobs) tried.push_back(fmt::format("{}: {}", join_argv(argv), jobs.error().message));
    } else {
      tried.push_back(fmt::format("{}: {}", join_argv(argv), out ? out->err.substr(0, 200) : out.error().message));
    }
  }
  if (runner.available("scontrol")) {
    std::vector<std::string> argv = {"scontrol", "show", "job", "-o", spec->job};
    auto out = runner.run(argv);
    if (out && out->exit_code == 0) {
      auto jobs = parse_scontrol_text(out->out, opt.zone);
      const SlurmJob* j = jobs ? pick(*jobs, *spec) : nullptr;
      if (j && job) refine(*job, *j);
      else if (j) job = *j, origin = join_argv(argv);
    } else if (!job) {
      tried.push_back(fmt::format("{}: {}", join_argv(argv), out ? out->err.substr(0, 200) : out.error().message));
    }
  }
  if (tried.empty() && !job && !runner.available("sacct") && !runner.available("scontrol"))
    return make_error(ErrorKind::config, "scheduler slurm: neither sacct nor scontrol is on PATH", {}, 0,
                      "workload.scheduler", "run on a Slurm login node, or use --logs / a static workload");
  if (!job) {
    std::string why;
    for (const auto& t : tried) why += "\n  " + t;
    // The commands could not reach slurmctld or slurmdbd: that is what to say, not that the job is unknown.
    auto unreachable = [](const std::string& t) {
      for (const char* w : {"Unable to contact slurm controller", "Problem talking to the database", "Connection refused",
                            "connect failure", "Socket timed out", "Zero Bytes were transmitted or received",
                            "Unable to establish connection", "Couldn't find the specified plugin"})
        if (t.find(w) != std::string::npos) return true;
      return false;
    };
    if (!tried.empty() && std::all_of(tried.begin(), tried.end(), unreachable))
      return make_error(ErrorKind::no_data,
                        fmt::format("the Slurm commands on this machine cannot reach the controller or the accounting "
                                    "database, so job {} cannot be looked up{}", job_text, why),
                        {}, 0, {},
                        "run on a login node of the cluster (check SLURM_CONF and `scontrol ping`), or diagnose the job's "
                        "logs with --logs and --nodes/--start/--end");
    return make_error(ErrorKind::no_data, fmt::format("Slurm does not know job {}{}", job_text, why), {}, 0, {},
                      "check the id with `sacct -j ID`; jobs older than the accounting retention are gone");
  }
  // Why nodes went down: accounting's node events (history), else sinfo -R (nodes still out).
  std::vector<NodeReason> reasons;
  if (runner.available("sacctmgr") && job->start) {
    auto day = [](Micros t) { return format_rfc3339(t).substr(0, 10); };
    Micros end = job->end.value_or(opt.now);
    auto out = runner.run({"sacctmgr", "-n", "-P", "show", "event", "Start=" + day(*job->start - 86400 * kMicrosPerSecond),
                           "End=" + day(end + 2 * 86400 * kMicrosPerSecond), "Format=NodeName,TimeStart,State,Reason"});
    if (out && out->exit_code == 0) reasons = parse_node_events(out->out, opt.zone);
  }
  if (reasons.empty() && runner.available("sinfo")) {
    auto out = runner.run({"sinfo", "-R", "-h", "-N", "-o", "%N|%H|%E"});
    if (out && out->exit_code == 0) reasons = parse_sinfo_reasons(out->out, opt.zone);
  }
  return workload_from_slurm(*spec, *job, reasons, origin, opt.now);
}

Result<Workload> resolve_slurm_workload_rest(const std::string& job_text, HttpClient& http, const SlurmRestOptions& rest,
                                             const SlurmResolveOptions& opt) {
  auto spec = parse_job_spec(job_text);
  if (!spec) return spec.error();
  std::vector<std::string> headers = {"Accept: application/json", "X-SLURM-USER-NAME: " + rest.user,
                                      "X-SLURM-USER-TOKEN: " + rest.token};
  HttpOptions options;
  options.ca_file = rest.ca_file;
  options.timeout = rest.timeout;
  options.connect_timeout = std::min(options.connect_timeout, rest.timeout);
  std::string base = rest.url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  std::vector<std::string> apis = rest.api.empty() ? std::vector<std::string>{"v0.0.41", "v0.0.40", "v0.0.39", "v0.0.38"}
                                                   : std::vector<std::string>{rest.api};
  std::vector<std::string> tried;
  std::optional<SlurmJob> job;
  std::string origin, api;
  for (const auto& v : apis) {
    for (const char* plugin : {"slurmdb", "slurm"}) {
      std::string url = fmt::format("{}/{}/{}/job/{}", base, plugin, v, spec->job);
      auto r = http.get(HttpRequest{url, headers, options});
      if (!r) {
        tried.push_back(fmt::format("{}: {}", url, r.error().message));
        continue;
      }
      if (r->status == 401 || r->status == 403)
        return make_error(ErrorKind::config, fmt::format("slurmrestd refused the token (HTTP {})", r->status), url, 0,
                          "slurm.token_env", "check the JWT (scontrol token) and the user name it was issued for");
      auto jobs = parse_slurm_json(r->body, url);
      // 22.05 answers a bad token with HTTP 200/500 and an error entry, not 401.
      if (!jobs && jobs.error().message.find("authentication") != std::string::npos)
        return make_error(ErrorKind::config, "slurmrestd refused the token (" + jobs.error().message + ")", url, 0,
                          "slurm.token_env", "check the JWT (scontrol token) and the user name it was issued for");
      if (r->status != 200) {
        tried.push_back(fmt::format("{}: HTTP {}", url, r->status));
        continue;
      }
      const SlurmJob* j = jobs ? pick(*jobs, *spec) : nullptr;
      if (!jobs) tried.push_back(fmt::format("{}: {}", url, jobs.error().message));
      if (j && job) refine(*job, *j);
      else if (j) job = *j, origin = "GET " + url_without_userinfo(url);
      if (j) api = v;
    }
    if (job) break;
  }
  if (!job) {
    std::string why;
    for (const auto& t : tried) why += "\n  " + t;
    return make_error(ErrorKind::no_data, fmt::format("slurmrestd does not know job {}{}", job_text, why), {}, 0, {},
                      "check slurm.url and slurm.api, and the job id");
  }
  std::vector<NodeReason> reasons;
  if (auto r = http.get(HttpRequest{fmt::format("{}/slurm/{}/nodes", base, api), headers, options}); r && r->status == 200)
    reasons = parse_slurm_nodes_json(r->body);
  return workload_from_slurm(*spec, *job, reasons, origin, opt.now);
}

}  // namespace attribution
