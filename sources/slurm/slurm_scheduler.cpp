#include "sources/slurm/slurm_scheduler.hpp"

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>

#include "core/base/text.hpp"
#include "sources/slurm/slurm_workload.hpp"
#include "sources/transport/command.hpp"

namespace attribution {

Result<std::shared_ptr<const SchedulerSettings>> SlurmScheduler::parse(const ParseContext& context, bool) const {
  auto s = std::make_shared<SlurmSettings>();
  const toml::table* t = context.document ? (*context.document)["slurm"].as_table() : nullptr;
  if (!t) return std::shared_ptr<const SchedulerSettings>(std::move(s));
  TomlReader r(*t, context.file, "slurm");
  if (auto st = r.only_keys({"mode", "url", "token_env", "token_file", "user", "api", "ca_file", "timeout"}); !st)
    return st.error();
  s->line = r.line();
  for (auto [key, out] : {std::pair{"mode", &s->mode}, std::pair{"url", &s->url}, std::pair{"token_env", &s->token_env},
                          std::pair{"token_file", &s->token_file}, std::pair{"user", &s->user}, std::pair{"api", &s->api},
                          std::pair{"ca_file", &s->ca_file}}) {
    std::optional<std::string> v;
    ATTRIBUTION_TRY(v, r.str(key));
    if (v) *out = *v;
  }
  if (auto st = r.positive_duration("timeout", s->timeout); !st) return st.error();
  if (s->mode != "cli" && s->mode != "rest")
    return r.error("mode", fmt::format("mode '{}' is not one of cli, rest", s->mode));
  if (s->mode == "rest" && s->url.empty()) return r.error("url", "mode = \"rest\" needs url = \"http://slurmrestd:6820\"");
  if (!s->api.empty() && s->api.rfind("v0.0.", 0) != 0) return r.error("api", "api is a data parser version like v0.0.40");
  if (!s->token_file.empty() && std::filesystem::path(s->token_file).is_relative())
    s->token_file = (std::filesystem::path(context.base_dir) / s->token_file).string();
  return std::shared_ptr<const SchedulerSettings>(std::move(s));
}

bool SlurmScheduler::detect(CommandRunner& runner) const {
  return runner.available("sacct") || runner.available("scontrol");
}

Micros SlurmScheduler::command_timeout(const SchedulerSettings& settings) const {
  return static_cast<const SlurmSettings&>(settings).timeout;
}

Result<std::string> read_slurm_token(const SlurmSettings& s) {
  if (!s.token_file.empty()) {
    auto t = read_secret_file(s.token_file);
    if (!t) return make_error(ErrorKind::config, "cannot read the slurmrestd token file", s.token_file, 0, "slurm.token_file");
    if (t->rfind("SLURM_JWT=", 0) == 0) t->erase(0, 10);  // `scontrol token` output as is
    return *t;
  }
  std::string var = s.token_env.empty() ? "SLURM_JWT" : s.token_env;
  auto v = secret_from_env(var);
  if (!v)
    return make_error(ErrorKind::config, fmt::format("the slurmrestd token variable {} is not set", var), {}, s.line,
                      "slurm.token_env", "export it (e.g. `export $(scontrol token)`), or set slurm.token_file");
  return *v;
}

Result<Workload> SlurmScheduler::resolve(const SchedulerRequest& req, const SchedulerSettings& settings,
                                         const Transports& transports) const {
  const auto& s = static_cast<const SlurmSettings&>(settings);
  if (req.job.empty())
    return make_error(ErrorKind::usage, "scheduler slurm needs --job ID", req.config_file, 0, {}, "pass --job 12345");
  SlurmResolveOptions opt{req.zone, req.now};
  if (s.mode != "rest") return resolve_slurm_workload(req.job, transports.commands, opt);
  // A replay reads no credential: the recorded answers need none.
  auto token = req.offline ? Result<std::string>(std::string()) : read_slurm_token(s);
  if (!token) return token.error();
  const char* user = std::getenv("USER");
  SlurmRestOptions rest{s.url, s.user.empty() ? (user ? user : "root") : s.user, *token, s.api, s.ca_file, s.timeout};
  return resolve_slurm_workload_rest(req.job, transports.http, rest, opt);
}

}  // namespace attribution
