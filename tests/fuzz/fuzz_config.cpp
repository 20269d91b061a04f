// attribution.toml: the config file, then the same text as a bundle's redacted config.
#include "core/pipeline/bundle.hpp"
#include "core/pipeline/config.hpp"
#include "tests/fuzz/fuzz_common.hpp"

using namespace attribution;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65536) return 0;
  (void)parse_config(fuzz::text(data, size), "/fuzz/attribution.toml");
  (void)redact_config(fuzz::text(data, size), "/fuzz/attribution.toml");
  return 0;
}
