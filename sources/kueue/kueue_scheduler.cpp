#include "sources/kueue/kueue_scheduler.hpp"

#include <fmt/format.h>

#include "sources/kueue/kueue_workload.hpp"

namespace attribution {

Result<std::shared_ptr<const SchedulerSettings>> KueueScheduler::parse(const ParseContext& context, bool) const {
  auto s = std::make_shared<KueueSettings>();
  const toml::table* t = context.document ? (*context.document)["kueue"].as_table() : nullptr;
  if (!t) return std::shared_ptr<const SchedulerSettings>(std::move(s));
  TomlReader r(*t, context.file, "kueue");
  if (auto st = r.only_keys({"namespace", "kubeconfig", "context", "in_cluster", "api", "timeout", "ca_file"}); !st)
    return st.error();
  if (auto st = parse_kube_keys(r, s->keys, context.base_dir); !st) return st.error();
  std::optional<std::string> api;
  ATTRIBUTION_TRY(api, r.str("api"));
  if (api) {
    if (*api != "v1beta2" && *api != "v1beta1" && *api != "auto")
      return r.error("api", fmt::format("api '{}' is not one of v1beta2, v1beta1, auto", *api));
    s->api = *api;
  }
  return std::shared_ptr<const SchedulerSettings>(std::move(s));
}

Result<Workload> KueueScheduler::resolve(const SchedulerRequest& req, const SchedulerSettings& settings,
                                         const Transports& transports) const {
  const auto& s = static_cast<const KueueSettings&>(settings);
  if (req.job.empty())
    return make_error(ErrorKind::usage, "scheduler kueue needs --job NAMESPACE/NAME", req.config_file, 0, {},
                      "name the Kueue Workload, or the Job / JobSet / PyTorchJob that owns it");
  LocalKubeAccessResolver local;
  KubeAccessResolver& resolver = transports.kube ? *transports.kube : local;
  auto access = resolver.resolve(s.keys.auth);
  if (!access) return access.error();
  return resolve_kueue_workload(req.job, transports.http, *access, KueueResolveOptions{s.keys.ns, s.api, req.now});
}

}  // namespace attribution
