#pragma once
// The Kubernetes and Kueue API objects the kueue resolver reads (formats.md §12): Kueue Workloads
// (kueue.x-k8s.io v1beta1 and v1beta2, single or list), core/v1 PodList, core/v1 EventList, and
// the metav1 Status an API server answers errors with. Times are RFC 3339 (MicroTime for events).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/result.hpp"
#include "core/base/time.hpp"

#include "sources/transport/kube_auth.hpp"

namespace attribution {

struct KubeOwnerRef {
  std::string kind, name, uid;
  bool controller = false;
};

struct KubeCondition {
  std::string type, status, reason, message;
  std::optional<Micros> time;  // lastTransitionTime
};

struct KueuePodSet {
  std::string name;
  int64_t count = 0;
};

struct KueueWorkload {
  std::string api_version, ns, name, uid, queue_name, cluster_queue;
  std::optional<Micros> created;
  std::vector<KubeOwnerRef> owners;
  std::vector<KueuePodSet> pod_sets;  // admission.podSetAssignments (spec.podSets when not admitted)
  std::vector<KubeCondition> conditions;
  std::vector<std::string> unhealthy_nodes;
  int64_t requeue_count = 0;
};

struct KubeTermination {
  std::string reason, message;
  int exit_code = 0;
  std::optional<int> signal;
  std::optional<Micros> started, finished;
};

struct KubeContainer {
  std::string name;
  int64_t restarts = 0;
  std::string waiting_reason;                       // state.waiting.reason (CrashLoopBackOff, ...)
  std::optional<Micros> running_since;              // state.running.startedAt
  std::optional<KubeTermination> terminated, last;  // state.terminated, lastState.terminated
};

struct KubePod {
  std::string ns, name, node, phase, reason, message;
  std::optional<Micros> start;  // status.startTime
  std::vector<std::pair<std::string, std::string>> labels;
  std::vector<KubeOwnerRef> owners;
  std::vector<std::string> containers;  // spec.containers names, in order
  std::vector<KubeContainer> statuses;  // containerStatuses (init containers are not read)
  std::vector<KubeCondition> conditions;
};

struct KubeEvent {
  std::string kind, ns, name;  // involvedObject
  std::string type, reason, message, source_host;
  int64_t count = 1;
  std::optional<Micros> first, last;  // firstTimestamp (else eventTime), lastTimestamp (else series/eventTime)
};

Result<KueueWorkload> parse_kueue_workload(std::string_view json, const std::string& from);
Result<std::vector<KueueWorkload>> parse_kueue_workload_list(std::string_view json, const std::string& from);
Result<std::vector<KubePod>> parse_pod_list(std::string_view json, const std::string& from);
Result<KubePod> parse_pod(std::string_view json, const std::string& from);
Result<std::vector<KubeEvent>> parse_event_list(std::string_view json, const std::string& from);

// "2024-03-19T20:49:17Z", "2024-03-19T20:49:17.123456Z" (MicroTime); nullopt for "" or null.
std::optional<Micros> parse_kube_time(std::string_view text);

}  // namespace attribution
