// Every input the fuzzers found a bug with (tests/fuzz/regressions/<target>/), and every seed
// (tests/fuzz/corpus/<target>/), through the very code of its libFuzzer target, in the normal
// and the ASan/UBSan builds. A target aborts on a broken invariant; a sanitizer reports the rest.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "core/base/toml_util.hpp"
#include "tests/test_util.hpp"

// Each target's entry point under its own name, so they all live in this one binary.
#define LLVMFuzzerTestOneInput fuzz_line_prefix_one
#include "tests/fuzz/fuzz_line_prefix.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_rules_one
#include "tests/fuzz/fuzz_rules.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_config_one
#include "tests/fuzz/fuzz_config.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_static_workload_one
#include "tests/fuzz/fuzz_static_workload.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_hostlist_one
#include "tests/fuzz/fuzz_hostlist.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_slurm_one
#include "tests/fuzz/fuzz_slurm.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_prometheus_one
#include "tests/fuzz/fuzz_prometheus.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_loki_one
#include "tests/fuzz/fuzz_loki.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_kueue_one
#include "tests/fuzz/fuzz_kueue.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_kube_yaml_one
#include "tests/fuzz/fuzz_kube_yaml.cpp"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_bundle_one
#include "tests/fuzz/fuzz_bundle.cpp"
#undef LLVMFuzzerTestOneInput

namespace {

using Entry = int (*)(const uint8_t*, size_t);

const std::map<std::string, Entry>& targets() {
  static const std::map<std::string, Entry> t = {
      {"line_prefix", fuzz_line_prefix_one}, {"rules", fuzz_rules_one},         {"config", fuzz_config_one},
      {"static_workload", fuzz_static_workload_one}, {"hostlist", fuzz_hostlist_one}, {"slurm", fuzz_slurm_one},
      {"prometheus", fuzz_prometheus_one}, {"loki", fuzz_loki_one},             {"kueue", fuzz_kueue_one},
      {"kube_yaml", fuzz_kube_yaml_one},   {"bundle", fuzz_bundle_one},
  };
  return t;
}

// <dir>/<target>/<input> in name order, for a stable test log.
std::vector<std::pair<std::string, fs::path>> inputs(const char* dir) {
  std::vector<std::pair<std::string, fs::path>> out;
  fs::path root = fs::path(ATTRIBUTION_SOURCE_DIR) / "tests/fuzz" / dir;
  if (!fs::exists(root)) return out;
  for (const auto& t : fs::directory_iterator(root))
    for (const auto& f : fs::directory_iterator(t.path()))
      if (f.is_regular_file()) out.emplace_back(t.path().filename().string(), f.path());
  std::sort(out.begin(), out.end());
  return out;
}

void run_all(const char* dir) {
  auto all = inputs(dir);
  for (const auto& [target, path] : all) {
    INFO(path.string());
    auto it = targets().find(target);
    REQUIRE(it != targets().end());  // a directory named after no target is a typo
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(it->second(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()) == 0);
  }
}

}  // namespace

TEST_CASE("fuzz regressions: every kept crash input runs clean", "[fuzz]") {
  REQUIRE(!inputs("regressions").empty());
  run_all("regressions");
}

TEST_CASE("fuzz seeds: every corpus input runs clean", "[fuzz]") {
  REQUIRE(inputs("corpus").size() >= targets().size());
  run_all("corpus");
}

TEST_CASE("fuzz regressions: the fixed inputs give errors, not values", "[fuzz]") {
  auto read = [](const char* rel) {
    std::ifstream in(fs::path(ATTRIBUTION_SOURCE_DIR) / "tests/fuzz/regressions" / rel, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  CHECK_FALSE(expand_hostlist(read("hostlist/group-over-cap")).ok());
  CHECK_FALSE(expand_hostlist(read("hostlist/list-over-cap")).ok());
  CHECK_FALSE(parse_line_prefix(read("line_prefix/dmesg-seconds-overflow")).mono.has_value());
  // A '§' after a line-ending backslash is valid TOML: toml++ 3.3.0 alone hits UB on it.
  CHECK(parse_toml(read("static_workload/toml-nonascii-after-line-ending-backslash"), "t.toml").ok());
  // "[^" / "[\0": toml++ 3.3 assumes a header key starts well (UB in release builds); checked first.
  auto header = parse_toml(read("rules/table-header-caret"), "r.toml");
  REQUIRE_FALSE(header.ok());
  CHECK(header.error().message.find("invalid table header") != std::string::npos);
  CHECK(header.error().line == 2);
  CHECK_FALSE(parse_toml(read("static_workload/table-header-bad-key"), "w.toml").ok());
  CHECK(parse_toml("a = [\n  [\"x\", \"y\"],\n]\n[ok.'q' . \"r\"]\nk = 1\n", "t.toml").ok());  // arrays are not headers
  // A float where an integer belongs is an error, not an out-of-range conversion (UB).
  auto big = parse_toml("exit_code = 1e34\n", "w.toml");
  REQUIRE(big.ok());
  CHECK_FALSE(TomlReader(*big, "w.toml").integer("exit_code").ok());
  // A number past int64 in scontrol text is unknown, not an exception.
  std::string sc = read("slurm/scontrol-int-overflow");
  (void)parse_scontrol_text(std::string_view(sc).substr(1), TimeZone::utc());
  auto page = parse_loki_streams(read("loki/ns-past-int64"));
  if (page)
    for (const auto& e : page->entries) CHECK(e.ns >= 0);

  // Payload paths in bundle.json stay inside the bundle: no /dev/zero, no ../ (read forever or anything).
  attribution::test::TempDir d;
  std::string index = read("bundle/payload-outside-bundle");
  d.file("bundle.json", index);
  d.file("manifest.json", "{\"format\":\"attribution-bundle\",\"version\":1,\"files\":[{\"path\":\"bundle.json\",\"sha256\":\"" +
                              sha256_hex(index) + "\"}]}");
  auto b = read_bundle(d.path());
  REQUIRE(b.ok());
  CHECK(b->contents.rules.empty());
  CHECK(std::count_if(b->problems.begin(), b->problems.end(),
                      [](const std::string& p) { return p.find("not a path inside the bundle") != std::string::npos; }) == 2);
}
