#pragma once
// The `kubernetes` source: the pod logs of the workload's pods (Workload::pods, filled by the Kueue
// resolver) through GET /api/v1/namespaces/NS/pods/POD/log?timestamps=true&sinceTime=..&container=C,
// and &previous=true for containers that restarted. Each log is one inline file whose host hint is
// the pod's node; every line starts with the API server's RFC 3339 time, which the line-prefix
// parser keeps. A log that is gone (404, or 400 "previous terminated container ... not found") is a
// coverage problem naming the pod, never an error.
#include <string>
#include <vector>

#include "core/base/model.hpp"
#include "sources/source.hpp"
#include "sources/transport/kube_auth.hpp"

namespace attribution {

class HttpClient;

struct KubeLogsSettings : SourceSettings {
  std::string ns;  // only pods in this namespace; empty: any
  KubeAuthOptions auth;  // the source's own keys, else [kueue]'s
  std::vector<std::string> containers;  // empty: every container of each pod
};

class KubeLogsKind : public SourceKind {
 public:
  std::string_view name() const override { return "kubernetes"; }
  Result<std::shared_ptr<const SourceSettings>> parse(const TomlReader& table, const ParseContext& context) const override;
  // Fills `coverage` (status, reason, bytes, problems, hosts_expected); the scan adds records and
  // hosts covered.
  std::vector<InputFile> collect(const SourceEntry& entry, size_t index, const CollectContext& context,
                                 SourceCoverage& coverage) const override;
};

// The same with the access already resolved (tests).
std::vector<InputFile> collect_kube_logs(const KubeLogsSettings& source, const KubeAccess& access,
                                         const Workload& workload, size_t source_index, HttpClient& http,
                                         SourceCoverage& coverage);

// The log request path for one container instance.
std::string pod_log_path(const Workload::Pod& pod, const std::string& container, std::optional<Micros> since,
                         bool previous);

}  // namespace attribution
