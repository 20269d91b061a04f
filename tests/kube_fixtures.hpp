#pragma once
// The recorded Kubernetes API's test server and credentials (tests/fixtures/kueue/), shared by the
// Kueue and pod-log tests.
#include <string>

#include "sources/kueue/kueue_parse.hpp"
#include "sources/transport/kube_auth.hpp"

namespace attribution::test {

inline const std::string kKubeServer = "https://k8s.test:6443";

// What a kubeconfig's test context gives: the server, a bearer token, the namespace `ns` (none: "").
inline KubeAccess recorded_kube_access(const std::string& ns) {
  KubeAccess a;
  a.server = kKubeServer;
  a.headers = {"Accept: application/json, */*", "Authorization: Bearer tok-123"};
  a.ns = ns;
  a.origin = "kubeconfig test context t";
  return a;
}

// A Kubernetes timestamp ("2025-05-06T10:00:04Z") known to parse.
inline Micros kube_time(const char* t) { return *parse_kube_time(t); }

}  // namespace attribution::test
