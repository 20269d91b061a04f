#pragma once
// The Kueue workload resolver: `--job ns/name` names a Kueue Workload, or the Job / JobSet /
// PyTorchJob (any kind) that owns one. Reads the Workload (kueue.x-k8s.io v1beta2, else v1beta1),
// its pods and their events, and node events, through the Kubernetes API; states the fate as
// scheduler facts the rules in rulesets/scheduler.toml read (wording below and docs/kubernetes.md).
//
// Facts (one line each, stream "scheduler"; <T> is RFC 3339 UTC with microseconds; node names are
// cut at the first dot; messages are quoted with '"' turned into '\'' and cut at 300 bytes):
//   <T> kueue workload <ns>/<wl> state <State> reason <Reason|None> exit_code <N|unknown>
//       cluster_queue <cq|none> requeues <N> nodes <n1,n2,...|none>
//   <T> kueue workload <ns>/<wl> condition <Type> status <True|False|Unknown> reason <Reason|None> message "<m>"
//   <T> kueue workload <ns>/<wl> unhealthy_node <node>
//   <T> kueue pod <ns>/<pod> node <node|none> container <c> terminated reason <Reason|None> exit_code <N>
//       [signal <N>] restarts <N> instance <current|previous>
//   <T> kueue pod <ns>/<pod> node <node|none> condition DisruptionTarget status <S> reason <R> message "<m>"
//   <T> kueue pod <ns>/<pod> node <node|none> phase <Phase> reason <R> message "<m>"   (when the pod states a reason)
//   <T> kueue event <Kind> <ns>/<name> node <node|none> type <Normal|Warning> reason <R> count <N> message "<m>"
//       (cluster-scoped objects, Node: the name alone)
// State: Succeeded / Failed / Finished (Finished condition), else Evicted, else Running (Admitted),
// else QuotaReserved, else Pending.
#include <string>
#include <vector>

#include "core/base/model.hpp"
#include "core/base/result.hpp"
#include "sources/transport/kube_auth.hpp"
#include "sources/kueue/kueue_parse.hpp"

namespace attribution {

class HttpClient;

struct KueueJobSpec {
  std::string ns, name;  // ns empty: the configured / context namespace
};
// "name" or "ns/name" (DNS-1123 names).
Result<KueueJobSpec> parse_kueue_job(std::string_view text);

struct KueueResolveOptions {
  std::string ns;            // for a bare name; else the kubeconfig context's, else "default"
  std::string api = "auto";  // v1beta2 | v1beta1 | auto
  Micros now = 0;            // the end of a running workload's window
};

Result<Workload> resolve_kueue_workload(const std::string& job, HttpClient& http, const KubeAccess& access,
                                        const KueueResolveOptions& options);

// The model and facts from what the API returned. `origin` names the request the facts came from.
Workload workload_from_kueue(const KueueWorkload& wl, const std::vector<KubePod>& pods,
                             const std::vector<KubeEvent>& events, const std::string& origin, Micros now);

// The label selectors that find a job kind's pods (most specific first); empty for unknown kinds.
std::vector<std::string> pod_selectors(const std::string& owner_kind, const std::string& owner_name);

}  // namespace attribution
