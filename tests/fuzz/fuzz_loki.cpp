// Loki /loki/api/v1/query_range answers.
#include "sources/loki/loki.hpp"
#include "tests/fuzz/fuzz_common.hpp"

using namespace attribution;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto page = parse_loki_streams(fuzz::text(data, size));
  if (page)
    for (const auto& e : page->entries) fuzz::check(e.stream < page->streams.size(), "entry points at a stream");
  return 0;
}
