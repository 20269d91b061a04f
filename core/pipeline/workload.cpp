#include "core/pipeline/workload.hpp"

#include <fmt/format.h>
#include <limits>

#include "core/base/hostlist.hpp"
#include "core/base/identity.hpp"
#include "core/base/toml_util.hpp"
#include "sources/transport/kube_auth.hpp"
#include "sources/kueue/kueue_workload.hpp"
#include "sources/slurm/slurm_workload.hpp"
#include "sources/static/static_workload.hpp"

namespace attribution {
namespace {

void set_window(Workload& w, const Config& c) {
  constexpr Micros lo = std::numeric_limits<Micros>::min() / 2, hi = std::numeric_limits<Micros>::max() / 2;
  w.window.start = w.start ? *w.start - c.before : lo;
  w.window.end = w.end ? *w.end + c.after : hi;
  w.window_known = w.start.has_value() || w.end.has_value();
}

}  // namespace

namespace {

// The JWT for slurmrestd: from the variable or file the config names, never from the config text.
Result<std::string> read_token(const SlurmConfig& s) {
  if (!s.token_file.empty()) {
    auto text = read_text_file(s.token_file);
    if (!text) return make_error(ErrorKind::config, "cannot read the slurmrestd token file", s.token_file, 0, "slurm.token_file");
    std::string t = *text;
    if (t.rfind("SLURM_JWT=", 0) == 0) t = t.substr(10);  // `scontrol token` output as is
    while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
    return t;
  }
  std::string var = s.token_env.empty() ? "SLURM_JWT" : s.token_env;
  const char* v = std::getenv(var.c_str());
  if (!v || !*v)
    return make_error(ErrorKind::config, fmt::format("the slurmrestd token variable {} is not set", var), {}, s.line,
                      "slurm.token_env", "export it (e.g. `export $(scontrol token)`), or set slurm.token_file");
  return std::string(v);
}

}  // namespace

Result<Workload> resolve_workload(const Config& config, const WorkloadRequest& req, Transports transports) {
  CommandRunner& runner = transports.commands;
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
    auto sw = config.static_text ? parse_static_workload(*config.static_text, config.static_file, config.timezone)
                                 : read_static_workload(config.static_file, config.timezone);
    if (!sw) return sw.error();
    w = *sw;
    if (req.job && *req.job != w.id)
      return make_error(ErrorKind::usage,
                        fmt::format("--job {} does not match the static workload's id {}", *req.job, w.id),
                        config.static_file, 0, "id", "omit --job, or pass the id the workload file declares");
  } else if (slurm) {
    if (!req.job)
      return make_error(ErrorKind::usage, "scheduler slurm needs --job ID", config.file, 0, {}, "pass --job 12345");
    SlurmResolveOptions opt{config.timezone, req.now};
    Result<Workload> sw = Error{};
    if (config.slurm.mode == "rest") {
      auto token = config.offline ? Result<std::string>(std::string()) : read_token(config.slurm);
      if (!token) return token.error();
      const char* user = std::getenv("USER");
      SlurmRestOptions rest{config.slurm.url, config.slurm.user.empty() ? (user ? user : "root") : config.slurm.user,
                            *token, config.slurm.api, config.slurm.ca_file, config.slurm.timeout};
      sw = resolve_slurm_workload_rest(*req.job, transports.http, rest, opt);
    } else {
      sw = resolve_slurm_workload(*req.job, runner, opt);
    }
    if (!sw) return sw.error();
    w = std::move(sw.value());
  } else if (config.scheduler == "kueue") {
    if (!req.job)
      return make_error(ErrorKind::usage, "scheduler kueue needs --job NAMESPACE/NAME", config.file, 0, {},
                        "name the Kueue Workload, or the Job / JobSet / PyTorchJob that owns it");
    const KueueConfig& k = config.kueue;
    KubeAuthOptions auth;
    auth.kubeconfig = k.kubeconfig;
    auth.context = k.context;
    auth.in_cluster = k.in_cluster;
    auth.ca_file = k.ca_file;
    auth.timeout = k.timeout;
    LocalKubeAccessResolver local;
    auto access = (transports.kube ? *transports.kube : static_cast<KubeAccessResolver&>(local)).resolve(auth);
    if (!access) return access.error();
    auto kw = resolve_kueue_workload(*req.job, transports.http, *access, KueueResolveOptions{k.ns, k.api, req.now});
    if (!kw) return kw.error();
    w = std::move(kw.value());
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
