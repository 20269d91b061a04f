// Rule files: TOML, then every pattern compiled with RE2.
#include "core/rules/rules.hpp"
#include "tests/fuzz/fuzz_common.hpp"

using namespace attribution;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Compiling RE2 patterns dominates; a real rule file is a few KB, so bigger inputs only slow the search.
  if (size > 8192) return 0;
  std::vector<MetricSpec> metrics;
  auto rules = parse_rules(fuzz::text(data, size), "fuzz.toml", &metrics);
  if (rules)
    for (const Rule& r : *rules) fuzz::check(!r.id.empty(), "a parsed rule has an id");
  (void)parse_rules(fuzz::text(data, size), "fuzz.toml", nullptr);
  return 0;
}
