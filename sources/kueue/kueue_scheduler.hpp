#pragma once
// scheduler = "kueue": [kueue] says how to reach the Kubernetes API server holding the Kueue
// Workload (docs/kubernetes.md); `--job ns/name` names it.
#include <string>

#include "sources/source.hpp"
#include "sources/transport/kube_auth.hpp"

namespace attribution {

struct KueueSettings : SchedulerSettings {
  KubeKeys keys;             // ns: namespace of `--job name` (else the context's / service account's)
  std::string api = "auto";  // v1beta2 | v1beta1 | auto (v1beta2, then v1beta1)
};

class KueueScheduler : public Scheduler {
 public:
  std::string_view name() const override { return "kueue"; }
  std::string_view section() const override { return "kueue"; }
  Result<std::shared_ptr<const SchedulerSettings>> parse(const ParseContext& context, bool selected) const override;
  Result<Workload> resolve(const SchedulerRequest& request, const SchedulerSettings& settings,
                           const Transports& transports) const override;
};

}  // namespace attribution
