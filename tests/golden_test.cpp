// Golden tests over examples/: each example's report in all three formats must equal its
// expected/ files byte for byte, must be the same at any thread count, and must agree with the
// example's truth.toml (the ground truth the logs were written from).
// ATTRIBUTION_UPDATE_GOLDEN=1 rewrites expected/ files; review the diff.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <simdjson.h>

#include "core/toml_util.hpp"
#include "tests/cli_support.hpp"
#include "tests/test_util.hpp"

using namespace attribution;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> examples() {
  std::vector<std::string> out;
  for (const auto& de : fs::directory_iterator(fs::path(ATTRIBUTION_SOURCE_DIR) / "examples"))
    if (fs::exists(de.path() / "attribution.toml")) out.push_back(de.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string diagnose(const std::string& example, const std::string& format, int threads) {
  auto r = test::run_cli("diagnose --config examples/" + example + "/attribution.toml --format " + format +
                             " --threads " + std::to_string(threads),
                         false);
  INFO(r.out);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

}  // namespace

TEST_CASE("there are at least four examples") { CHECK(examples().size() >= 4); }

TEST_CASE("golden reports: every example / every format / byte for byte") {
  bool update = std::getenv("ATTRIBUTION_UPDATE_GOLDEN") != nullptr;
  for (const auto& ex : examples()) {
    for (auto [format, ext] : {std::pair{"text", "txt"}, std::pair{"json", "json"}, std::pair{"markdown", "md"}}) {
      std::string got = diagnose(ex, format, 2);
      fs::path want_path = fs::path(ATTRIBUTION_SOURCE_DIR) / "examples" / ex / "expected" / (std::string("report.") + ext);
      if (update) {
        fs::create_directories(want_path.parent_path());
        std::ofstream(want_path, std::ios::binary) << got;
      }
      INFO(ex << " " << format << ": run with ATTRIBUTION_UPDATE_GOLDEN=1 to refresh, then review the diff");
      REQUIRE(fs::exists(want_path));
      CHECK(got == test::read_file(want_path.string()));
    }
  }
}

TEST_CASE("reports are byte-identical at --threads 1 and 2") {
  for (const auto& ex : examples()) {
    INFO(ex);
    CHECK(diagnose(ex, "json", 1) == diagnose(ex, "json", 2));
  }
}

TEST_CASE("each example's diagnosis matches its ground truth") {
  for (const auto& ex : examples()) {
    INFO(ex);
    auto truth = parse_toml_file((fs::path(ATTRIBUTION_SOURCE_DIR) / "examples" / ex / "truth.toml").string());
    REQUIRE(truth);
    std::string json = diagnose(ex, "json", 2);
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    REQUIRE(parser.parse(json).get(doc) == simdjson::SUCCESS);
    auto outcome = doc["outcome"];
    auto want = [&](const char* key) { return std::string((*truth)[key].value_or(std::string())); };
    CHECK(std::string(std::string_view(outcome["family"])) == want("family"));
    CHECK(std::string(std::string_view(outcome["blame"])) == want("blame"));
    auto root = doc["root_causes"].at(0);
    REQUIRE(root.error() == simdjson::SUCCESS);
    std::string_view host;
    CHECK(root["host"].get(host) == simdjson::SUCCESS);
    CHECK(std::string(host) == want("root_host"));
    if (!want("root_gpu_pci").empty()) {
      std::string_view pci;
      CHECK(root["pci"].get(pci) == simdjson::SUCCESS);
      CHECK(std::string(pci) == want("root_gpu_pci"));
    }
    // No hardware is blamed where the truth says the application is at fault.
    if (want("blame") == "application") CHECK(doc["outcome"]["exclude_nodes"].get_array().size() == 0);
  }
}

TEST_CASE("ad-hoc --logs mode finds the same root cause as the configured run") {
  auto r = test::run_cli("diagnose --logs examples/nvlink-signal-integrity/logs --format json", false);
  REQUIRE(r.exit_code == 0);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(parser.parse(r.out).get(doc) == simdjson::SUCCESS);
  CHECK(std::string_view(doc["outcome"]["family"]) == "accelerator-fabric");
  CHECK(std::string_view(doc["root_causes"].at(0)["host"]) == "node03");
  CHECK(std::string_view(doc["root_causes"].at(0)["pci"]) == "0000:b9:00.0");
}
