// The static workload file (id, nodes as a hostlist, start/end times).
#include "sources/static/static_workload.hpp"
#include "tests/fuzz/fuzz_common.hpp"

using namespace attribution;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65536) return 0;
  static const TimeZone plus8 = *TimeZone::parse("+08:00");
  (void)parse_static_workload(fuzz::text(data, size), "/fuzz/workload.toml", TimeZone::utc());
  (void)parse_static_workload(fuzz::text(data, size), "/fuzz/workload.toml", plus8);
  return 0;
}
