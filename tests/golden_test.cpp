// Golden tests over examples/: each example's report in all four formats must equal its
// expected/ files byte for byte, must be the same at any thread count, and must agree with the
// example's truth.toml (the ground truth the logs were written from).
// ATTRIBUTION_UPDATE_GOLDEN=1 rewrites expected/ files; review the diff.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <filesystem>
#include <simdjson.h>

#include "core/base/toml_util.hpp"
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

TEST_CASE("there are at least four examples", "[golden]") { CHECK(examples().size() >= 4); }

TEST_CASE("golden reports: every example / every format / byte for byte", "[golden]") {
  bool update = std::getenv("ATTRIBUTION_UPDATE_GOLDEN") != nullptr;
  for (const auto& ex : examples()) {
    for (auto [format, ext] : {std::pair{"text", "txt"}, std::pair{"json", "json"}, std::pair{"markdown", "md"},
                               std::pair{"html", "html"}}) {
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

TEST_CASE("reports are byte-identical at --threads 1 and 2", "[golden]") {
  for (const auto& ex : examples()) {
    INFO(ex);
    CHECK(diagnose(ex, "json", 1) == diagnose(ex, "json", 2));
  }
}

TEST_CASE("each example's diagnosis matches its ground truth", "[golden]") {
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

TEST_CASE("ad-hoc --logs mode finds the same root cause as the configured run", "[golden]") {
  auto r = test::run_cli("diagnose --logs examples/nvlink-signal-integrity/logs --format json", false);
  REQUIRE(r.exit_code == 0);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(parser.parse(r.out).get(doc) == simdjson::SUCCESS);
  CHECK(std::string_view(doc["outcome"]["family"]) == "accelerator-fabric");
  CHECK(std::string_view(doc["root_causes"].at(0)["host"]) == "node03");
  CHECK(std::string_view(doc["root_causes"].at(0)["pci"]) == "0000:b9:00.0");
}

// The README's ad-hoc form over every example, with the logs' modification times set years after
// the logs were written (a copy made long after, a restored backup): year-less stamps must still
// take the logs' own year, and the diagnosis must match the truth.
TEST_CASE("golden --logs reports: every example / files modified years later", "[golden]") {
  bool update = std::getenv("ATTRIBUTION_UPDATE_GOLDEN") != nullptr;
  const auto later = std::chrono::file_clock::from_sys(std::chrono::sys_seconds(std::chrono::sys_days(std::chrono::year(2031) / 6 / 1)));
  for (const auto& ex : examples()) {
    fs::path logs = fs::path(ATTRIBUTION_SOURCE_DIR) / "examples" / ex / "logs";
    for (const auto& de : fs::recursive_directory_iterator(logs))
      if (de.is_regular_file()) fs::last_write_time(de.path(), later);
    auto workload = parse_toml_file((logs.parent_path() / "workload.toml").string());
    REQUIRE(workload);
    std::string nodes = (*workload)["nodes"].value_or(std::string());
    auto r = test::run_cli("diagnose --logs examples/" + ex + "/logs --nodes '" + nodes + "' --format json", false);
    INFO(ex << "\n" << r.out);
    REQUIRE(r.exit_code == 0);
    fs::path want_path = logs.parent_path() / "expected" / "report-logs.json";
    if (update) std::ofstream(want_path, std::ios::binary) << r.out;
    REQUIRE(fs::exists(want_path));
    CHECK(r.out == test::read_file(want_path.string()));
    CHECK(r.out.find("\"2031-") == std::string::npos);
    auto truth = parse_toml_file((logs.parent_path() / "truth.toml").string());
    REQUIRE(truth);
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    REQUIRE(parser.parse(r.out).get(doc) == simdjson::SUCCESS);
    CHECK(std::string_view(doc["outcome"]["family"]) == (*truth)["family"].value_or(std::string()));
    CHECK(std::string_view(doc["root_causes"].at(0)["host"]) == (*truth)["root_host"].value_or(std::string()));
  }
}

TEST_CASE("record then replay: every example, every format, byte for byte, without the original files", "[golden]") {
  for (const auto& ex : examples()) {
    test::TempDir tmp;
    fs::copy(fs::path(ATTRIBUTION_SOURCE_DIR) / "examples" / ex, tmp.path() + "/example", fs::copy_options::recursive);
    for (const char* format : {"text", "json", "markdown"}) {
      std::string bundle = tmp.path() + "/bundle-" + format;
      auto rec = test::run_cli("diagnose --config " + tmp.path() + "/example/attribution.toml --format " + format +
                                   " --record " + bundle,
                               false);
      INFO(ex << " " << format << "\n" << rec.out);
      REQUIRE(rec.exit_code == 0);
      // A clean directory: the bundle moved, the example's logs and config gone.
      fs::rename(bundle, tmp.path() + "/moved");
      fs::remove_all(tmp.path() + "/example-gone");
      fs::rename(tmp.path() + "/example", tmp.path() + "/example-gone");
      auto rep = test::run_cli("diagnose --replay " + tmp.path() + "/moved --format " + format, false);
      fs::rename(tmp.path() + "/example-gone", tmp.path() + "/example");
      fs::remove_all(tmp.path() + "/moved");
      REQUIRE(rep.exit_code == 0);
      CHECK(rep.out == rec.out);
    }
  }
}

TEST_CASE("a committed bundle replays to its golden report", "[golden]") {
  // Recorded from examples/xid79-gpu-fallen-off-bus; it carries its own rules, so it keeps its
  // report when the built-in rules change. A change here means the engine or the format changed.
  fs::path dir = fs::path(ATTRIBUTION_SOURCE_DIR) / "tests/fixtures/bundles/xid79";
  auto r = test::run_cli("diagnose --replay tests/fixtures/bundles/xid79 --format json", false);
  REQUIRE(r.exit_code == 0);
  fs::path want = dir.parent_path() / "xid79.report.json";
  if (std::getenv("ATTRIBUTION_UPDATE_GOLDEN")) std::ofstream(want, std::ios::binary) << r.out;
  CHECK(r.out == test::read_file(want.string()));
  CHECK(r.out.find("\"name\": \"bundle\"") == std::string::npos);
}

TEST_CASE("a tampered bundle still replays and its sources say what is missing or altered", "[golden]") {
  test::TempDir tmp;
  std::string bundle = tmp.path() + "/b";
  auto rec = test::run_cli(
      "diagnose --config examples/host-oom-kill/attribution.toml --format json --record " + bundle, false);
  REQUIRE(rec.exit_code == 0);
  // Which extract holds the root-cause line: the node04 kernel log.
  std::string index = test::read_file(bundle + "/bundle.json");
  size_t at = index.find("node04/kern.log");
  REQUIRE(at != std::string::npos);
  size_t lines = index.find("\"lines\": \"", at);
  REQUIRE(lines != std::string::npos);
  std::string rel = index.substr(lines + 10, index.find('"', lines + 10) - lines - 10);
  fs::remove(bundle + "/" + rel);
  {
    std::ofstream(bundle + "/workload.json", std::ios::app) << "\n";  // altered after recording
  }
  auto rep = test::run_cli("diagnose --replay " + bundle + " --format json", false);
  INFO(rep.out);
  REQUIRE(rep.exit_code == 0);
  CHECK(rep.out != rec.out);
  CHECK(rep.out.find(rel + ": missing from the bundle") != std::string::npos);
  CHECK(rep.out.find("workload.json: does not match its digest in the manifest") != std::string::npos);
  CHECK(rep.out.find("its lines are missing from the bundle") != std::string::npos);
  // The rest of the evidence survives: the rank logs still give their symptoms.
  CHECK(rep.out.find("pytorch.watchdog-timeout") != std::string::npos);
}

TEST_CASE("replay refuses what is not a bundle, and a newer format, with a clear message", "[golden]") {
  test::TempDir tmp;
  auto none = test::run_cli("diagnose --replay " + tmp.path());
  CHECK(none.exit_code == 2);
  CHECK(none.out.find("not an evidence bundle") != std::string::npos);
  tmp.file("manifest.json", R"({"format": "attribution-bundle", "version": 99, "files": []})");
  auto newer = test::run_cli("diagnose --replay " + tmp.path());
  CHECK(newer.exit_code == 2);
  CHECK(newer.out.find("version 99 is not supported") != std::string::npos);
  auto mixed = test::run_cli("diagnose --replay " + tmp.path() + " --logs examples");
  CHECK(mixed.exit_code == 2);
  CHECK(mixed.out.find("--replay takes only the bundle") != std::string::npos);
  // --record is checked before the diagnosis: a used or unwritable directory is an output error (5).
  auto used = test::run_cli("diagnose --config examples/host-oom-kill/attribution.toml --record examples");
  CHECK(used.exit_code == 5);
  CHECK(used.out.find("not empty") != std::string::npos);
  auto file = test::run_cli("diagnose --config examples/host-oom-kill/attribution.toml --record README.md");
  CHECK(file.exit_code == 5);
  CHECK(file.out.find("not a directory") != std::string::npos);
  auto nowhere = test::run_cli("diagnose --config examples/host-oom-kill/attribution.toml --record /proc/self/x/bundle");
  CHECK(nowhere.exit_code == 5);
}
