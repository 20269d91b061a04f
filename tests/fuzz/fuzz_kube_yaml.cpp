// kubeconfig files: the small YAML subset kube_yaml reads.
#include <algorithm>

#include "sources/transport/kube_yaml.hpp"
#include "tests/fuzz/fuzz_common.hpp"

using namespace attribution;

static size_t depth(const YamlNode& n) {
  size_t d = 0;
  for (const auto& [k, v] : n.map) d = std::max(d, depth(v));
  for (const auto& v : n.seq) d = std::max(d, depth(v));
  return d + 1;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 65536) return 0;
  auto doc = parse_kube_yaml(fuzz::text(data, size), "/fuzz/kubeconfig");
  if (doc) {
    (void)depth(*doc);
    (void)doc->str("current-context");
    (void)doc->get("clusters");
  }
  return 0;
}
