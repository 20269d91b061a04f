// Prometheus /api/v1/query_range answers.
#include "sources/prometheus/prometheus.hpp"
#include "tests/fuzz/fuzz_common.hpp"

using namespace attribution;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)parse_query_range(fuzz::text(data, size));
  return 0;
}
