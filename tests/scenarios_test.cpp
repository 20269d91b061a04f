// Accuracy scenarios (tests/scenarios/<name>/): a few real-format log lines per host and an
// expect.toml; each runs through the real binary (`diagnose --logs`) and the JSON report is checked.
// A scenario marked `known_gap` must still fail, and in the way its [gap] table describes, so a
// fix is noticed (then drop the mark) and a gap cannot drift unnoticed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <simdjson.h>
#include "core/base/toml_fixed.hpp"

#include "tests/cli_support.hpp"
#include "tests/test_json.hpp"

namespace fs = std::filesystem;
using attribution::test::run_cli;

namespace {

std::string field(simdjson::dom::element obj, const char* key) {
  simdjson::dom::element v;
  if (obj[key].get(v) != simdjson::SUCCESS) return {};
  if (v.is_string()) return attribution::test::json_text(v);
  if (v.is_int64()) return std::to_string(int64_t(v));
  return {};  // null
}

struct Outcome {
  std::string family, category, blame, root_id, root_rule, root_host, root_pci, root_gpu, root_rank, root_title;
  std::vector<std::string> root_blames;
  std::map<std::string, std::string> symptoms;  // rule -> explained_by
};

Outcome read_report(simdjson::dom::element doc) {
  Outcome o;
  simdjson::dom::element outcome = doc["outcome"];
  o.family = field(outcome, "family");
  o.category = field(outcome, "category");
  o.blame = field(outcome, "blame");
  simdjson::dom::array roots = doc["root_causes"];
  bool first = true;
  for (auto r : roots) {
    o.root_blames.push_back(field(r, "blame"));
    if (!first) continue;
    first = false;
    o.root_id = field(r, "id");
    o.root_rule = field(r, "rule");
    o.root_host = field(r, "host");
    o.root_pci = field(r, "pci");
    o.root_gpu = field(r, "gpu");
    o.root_rank = field(r, "rank");
    o.root_title = field(r, "title");
  }
  simdjson::dom::array symptoms = doc["symptoms"];
  for (auto s : symptoms) o.symptoms[field(s, "rule")] = field(s, "explained_by");
  return o;
}

// The differences between what `want` states and what the report says.
std::vector<std::string> mismatches(const toml::table& want, const Outcome& got) {
  std::vector<std::string> out;
  auto check = [&](const char* key, const std::string& actual) {
    if (auto v = want[key].value<std::string>(); v && *v != actual)
      out.push_back(std::string(key) + ": want '" + *v + "', got '" + actual + "'");
  };
  check("family", got.family);
  check("category", got.category);
  check("blame", got.blame);
  check("root_rule", got.root_rule);
  check("root_host", got.root_host);
  check("root_pci", got.root_pci);
  if (auto g = want["root_gpu"].value<int64_t>(); g && std::to_string(*g) != got.root_gpu)
    out.push_back("root_gpu: want " + std::to_string(*g) + ", got '" + got.root_gpu + "'");
  if (auto g = want["root_rank"].value<int64_t>(); g && std::to_string(*g) != got.root_rank)
    out.push_back("root_rank: want " + std::to_string(*g) + ", got '" + got.root_rank + "'");
  // The one line that says why: the words a reader needs to see in the root cause's title.
  if (auto v = want["root_title"].value<std::string>(); v && got.root_title.find(*v) == std::string::npos)
    out.push_back("root_title: want it to contain '" + *v + "', got '" + got.root_title + "'");
  if (want["no_hardware_blame"].value_or(false)) {
    bool hw = got.blame == "infrastructure" ||
              std::find(got.root_blames.begin(), got.root_blames.end(), "infrastructure") != got.root_blames.end();
    if (hw) out.push_back("no_hardware_blame: a root cause blames infrastructure (outcome " + got.family + "/" +
                          got.category + ")");
  }
  if (auto arr = want["symptoms"].as_array())
    for (const auto& s : *arr) {
      std::string rule = s.value_or(std::string());
      auto it = got.symptoms.find(rule);
      if (it == got.symptoms.end()) out.push_back("symptom " + rule + ": not in the report's symptoms");
      else if (it->second != got.root_id)
        out.push_back("symptom " + rule + ": explained by '" + it->second + "', not the root cause '" + got.root_id +
                      "'");
    }
  return out;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += "\n  " + x;
  return s;
}

fs::path scenarios_root() { return fs::path(ATTRIBUTION_SOURCE_DIR) / "tests" / "scenarios"; }

std::vector<std::string> scenario_names() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(scenarios_root()))
    if (e.is_directory()) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// What is wrong with one scenario's diagnosis; empty when it is as expected (or, for a known gap,
// still fails exactly as its [gap] table says).
std::vector<std::string> scenario_problems(const std::string& name) {
  fs::path dir = scenarios_root() / name;
  auto parsed = toml::parse_file((dir / "expect.toml").string());
  if (!parsed) return {"expect.toml: " + std::string(parsed.error().description())};
  const toml::table& t = parsed.table();
  const toml::table* want = t["expect"].as_table();
  if (!want) return {"expect.toml has no [expect] table"};
  std::string args = "diagnose --logs 'tests/scenarios/" + name + "/logs' --format json";
  for (const char* k : {"nodes", "start", "end"})
    if (auto v = t[k].value<std::string>()) args += std::string(" --") + k + " '" + *v + "'";
  auto r = run_cli(args, false);
  if (r.exit_code != 0) return {"exit " + std::to_string(r.exit_code) + " for attribution " + args};
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (auto err = parser.parse(r.out).get(doc); err)
    return {std::string("report is not JSON: ") + simdjson::error_message(err)};
  Outcome got = read_report(doc);
  auto diff = mismatches(*want, got);
  auto gap = t["known_gap"].value<std::string>();
  if (!gap) return diff;
  // A known gap must still fail, and fail the way [gap] says (what the report says today).
  if (diff.empty()) return {"marked known_gap (\"" + *gap + "\") but now passes: remove known_gap and [gap] from expect.toml"};
  const toml::table* how = t["gap"].as_table();
  if (!how) return {"known_gap without a [gap] table saying how it fails today"};
  auto drift = mismatches(*how, got);
  if (!drift.empty())
    return {"known gap no longer fails as described in [gap]:" + join(drift) + "\n  (still failing the expectation:" +
            join(diff) + ")"};
  return {};
}

}  // namespace

// One scenario, named by ATTRIBUTION_SCENARIO: CMake registers one ctest test per scenario
// directory, so `ctest -j` spreads them and a failure names its scenario. Hidden from a plain run.
TEST_CASE("accuracy scenario", "[.][scenario]") {
  const char* name = std::getenv("ATTRIBUTION_SCENARIO");
  REQUIRE(name);
  auto problems = scenario_problems(name);
  INFO(name << ":" << join(problems));
  CHECK(problems.empty());
}

TEST_CASE("accuracy scenarios: at least 30, every outcome family covered twice") {
  auto names = scenario_names();
  CHECK(names.size() >= 30);
  std::map<std::string, int> families;
  for (const auto& name : names) {
    auto parsed = toml::parse_file((scenarios_root() / name / "expect.toml").string());
    REQUIRE(parsed);
    families[parsed.table()["expect"]["family"].value_or(std::string("(no family)"))]++;
  }
  // Every outcome family of docs/report.md (but unknown) is covered at least twice.
  for (const char* f : {"accelerator-gpu", "accelerator-memory", "accelerator-fabric", "network-fabric", "host",
                        "host-oom", "storage", "scheduler", "application", "configuration"}) {
    INFO("family " << f);
    CHECK(families[f] >= 2);
  }
}
