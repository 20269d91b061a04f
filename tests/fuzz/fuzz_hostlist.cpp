// Slurm hostlist expressions, from the command line, workload files and scheduler answers.
#include "core/base/hostlist.hpp"
#include "tests/fuzz/fuzz_common.hpp"

using namespace attribution;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto hosts = expand_hostlist(fuzz::text(data, size));
  if (hosts)
    for (const auto& h : *hosts) fuzz::check(!h.empty(), "an expanded host name is not empty");
  return 0;
}
