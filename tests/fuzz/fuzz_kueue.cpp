// Kubernetes API answers: Kueue workloads, pods, events, Status errors, times.
// The first byte picks the parser so one corpus covers them all.
#include "sources/kueue/kueue_parse.hpp"
#include "tests/fuzz/fuzz_common.hpp"

using namespace attribution;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  std::string_view body = fuzz::text(data + 1, size - 1);
  switch (data[0] % 7) {
    case 0: (void)parse_kueue_workload(body, "fuzz"); break;
    case 1: (void)parse_kueue_workload_list(body, "fuzz"); break;
    case 2: (void)parse_pod_list(body, "fuzz"); break;
    case 3: (void)parse_pod(body, "fuzz"); break;
    case 4: (void)parse_event_list(body, "fuzz"); break;
    case 5: (void)parse_kube_status(body); break;
    case 6: (void)parse_kube_time(body); break;
  }
  return 0;
}
