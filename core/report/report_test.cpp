#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <simdjson.h>

#include "core/base/json_writer.hpp"
#include "core/report/render.hpp"
#include "core/report/report.hpp"
#include "tests/sample_report.hpp"
#include "tests/test_rules.hpp"

using namespace attribution;

namespace {

Report model_sample() {
  return test::sample_report({"llama \"70b\" | run", "NVRM: Xid (PCI:0000:b9:00): 79, \xff bad",
                             "[Rank 0] Watchdog caught ... \"quoted\" | piped", "x: binary", 134});
}

}  // namespace

TEST_CASE("report model: outcome from the top root cause / nodes by role / evidence numbered in time order") {
  Report r = model_sample();
  CHECK(r.outcome.category == "gpu_fallen_off_bus");
  CHECK(r.outcome.family == "accelerator-gpu");
  CHECK(r.outcome.blame == Blame::infrastructure);
  CHECK(r.outcome.exclude_nodes == std::vector<std::string>{"node3"});
  CHECK(r.outcome.summary.find("node3") != std::string::npos);
  REQUIRE(r.root_causes.size() == 1);
  CHECK(r.root_causes[0].evidence == std::vector<std::string>{"E1"});
  REQUIRE(r.symptoms.size() == 1);
  CHECK(r.symptoms[0].count == 2);
  CHECK(r.symptoms[0].explained_by == "R1");
  CHECK(r.symptoms[0].hosts == std::vector<std::string>{"node1", "node2"});
  REQUIRE(r.affected_nodes.size() == 3);
  CHECK(r.affected_nodes[0].role == "symptomatic");
  CHECK(r.affected_nodes[2].role == "root_cause");
  REQUIRE(r.evidence.size() == 3);
  CHECK(r.evidence[0].id == "E1");
  CHECK(r.evidence[0].time < r.evidence[1].time);
}

TEST_CASE("JSON report is valid / complete per schema attribution.report/1 / and escapes log text") {
  Report r = model_sample();
  std::string json = render_json(r);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(parser.parse(json).get(doc) == simdjson::SUCCESS);
  CHECK(std::string_view(doc["schema_version"]) == "attribution.report/1");
  for (const char* key : {"tool", "workload", "outcome", "root_causes", "symptoms", "affected_nodes", "evidence", "sources",
                          "ruleset", "inputs_digest"})
    CHECK(doc[key].error() == simdjson::SUCCESS);
  for (const char* key : {"category", "family", "blame", "summary", "confidence", "action", "exclude_nodes"})
    CHECK(doc["outcome"][key].error() == simdjson::SUCCESS);
  CHECK(std::string_view(doc["workload"]["window"]["start"]) == "2025-03-14T08:45:00.000000Z");
  CHECK(std::string_view(doc["workload"]["name"]) == "llama \"70b\" | run");
  CHECK(int64_t(doc["workload"]["exit_code"]) == 134);
  CHECK(std::string_view(doc["root_causes"].at(0)["host"]) == "node3");
  CHECK(std::string_view(doc["symptoms"].at(0)["explained_by"]) == "R1");
  std::string_view text = doc["evidence"].at(0)["text"];
  CHECK(text.find("\xEF\xBF\xBD") != std::string_view::npos);
  CHECK(std::string_view(doc["sources"].at(0)["status"]) == "partial");
  CHECK(render_json(r) == json);  // deterministic
}

TEST_CASE("text and Markdown render the same facts") {
  Report r = model_sample();
  std::string text = render_text(r);
  CHECK(text.find("OUTCOME     gpu_fallen_off_bus (accelerator-gpu)") != std::string::npos);
  CHECK(text.find("ROOT CAUSE  node3") != std::string::npos);
  CHECK(text.find("EXCLUDE     node3") != std::string::npos);
  CHECK(text.find("explained by R1") != std::string::npos);
  CHECK(text.find("node3.log:7") != std::string::npos);
  std::string md = render_markdown(r);
  CHECK(md.find("`gpu_fallen_off_bus`") != std::string::npos);
  CHECK(md.find("| R1 | node3") != std::string::npos);
  CHECK(md.find("llama \"70b\" \\| run") != std::string::npos);  // pipes escaped in tables
}

TEST_CASE("text fits an 80-column terminal: prose wraps, evidence is cut, a legend explains the marks") {
  Report r = model_sample();
  r.outcome.action = std::string(300, 'x') + " and then a long list of words that must wrap onto following lines";
  r.evidence.front().text = std::string(500, 'e');
  std::string text = render_text(r, 80);
  size_t longest = 0;
  for (size_t a = 0, b; a < text.size(); a = b + 1) {
    b = text.find('\n', a);
    longest = std::max(longest, b - a);
  }
  CHECK(longest <= 80);
  CHECK(text.find("ACTION      xxxx") != std::string::npos);
  CHECK(text.find("\n            and then a long list") != std::string::npos);  // hanging indent
  CHECK(text.find("eee...") != std::string::npos);
  CHECK(text.find("~ before a time") != std::string::npos);
  CHECK(text.find("\"explains N\"") != std::string::npos);
  // The header counts the nodes the Nodes section lists.
  CHECK(text.find(fmt::format("| {} node(s)", r.affected_nodes.size())) != std::string::npos);
  // Unwrapped (0) keeps every line whole; JSON keeps the full evidence text.
  CHECK(render_text(r, 0).find(std::string(500, 'e')) != std::string::npos);
}

TEST_CASE("untrusted log text cannot drive a terminal or forge Markdown") {
  CHECK(sanitize_utf8("a\x1b[31mred\x1b[0m") == "a?[31mred?[0m");
  CHECK(sanitize_utf8("csi \xc2\x9b" "31m") == "csi ?31m");
  CHECK(sanitize_utf8("caf\xc3\xa9 \xc2\xa0ok") == "caf\xc3\xa9 \xc2\xa0ok");  // real text stays
  Report r = model_sample();
  r.evidence[0].text = "x```\n## Root causes\n| forged | table |";
  std::string md = render_markdown(r);
  CHECK(md.find("x'''") != std::string::npos);
  CHECK(md.find("x```") == std::string::npos);
}

TEST_CASE("a report with no root cause lists the lines no rule read that read like errors / one with a cause does not") {
  static RuleSet rules = test::test_rules();
  Workload w;
  w.id = "1";
  Timeline t;
  Diagnosis d;
  EvidenceFacts facts;
  facts.unread.push_back(Evidence{0, true, "logs", "", -1, "paste.log:4", "Failed to acquire lock on the cache", false, {}});
  facts.unread.push_back(Evidence{0, true, "logs", "gpu7", -1, "paste.log:9", "Timeout (300s) when waiting for lock", true, {}});
  Report r = build_report(w, t, d, rules, {}, facts);
  REQUIRE(r.unread.size() == 2);
  CHECK(r.limits.texts_cut == 1);  // an unread line's text cut counts like an evidence text's
  CHECK(r.unread[0].id == "U1");
  CHECK(r.unread[1].id == "U2");
  CHECK(r.unread[1].host == "gpu7");
  CHECK(r.outcome.summary.find("2 line(s) that read like errors") != std::string::npos);
  CHECK(render_text(r).find("Unread error lines") != std::string::npos);
  CHECK(render_text(r).find("paste.log:9") != std::string::npos);
  CHECK(render_markdown(r).find("## Unread error lines") != std::string::npos);
  CHECK(render_html(r).find("id=\"unread\"") != std::string::npos);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  std::string json = render_json(r);
  REQUIRE(parser.parse(json).get(doc) == simdjson::SUCCESS);
  CHECK(std::string_view(doc["unread"].at(1)["location"]) == "paste.log:9");

  // A root cause: the report names it, and the same unread lines do not stand beside it.
  Report with_cause = test::sample_report({"job", "NVRM: Xid (PCI:0000:b9:00): 79", "[Rank 0] Watchdog caught", "x", 1}, facts);
  REQUIRE_FALSE(with_cause.root_causes.empty());
  CHECK(with_cause.unread.empty());
  CHECK(with_cause.outcome.summary.find("unread") == std::string::npos);
  std::string cause_json = render_json(with_cause);
  REQUIRE(parser.parse(cause_json).get(doc) == simdjson::SUCCESS);
  CHECK(simdjson::dom::array(doc["unread"]).size() == 0);
}

TEST_CASE("a report whose only root cause is a localisation lists the unread lines too") {
  EvidenceFacts facts;
  facts.unread.push_back(Evidence{0, true, "logs", "", -1, "paste.log:7", "Exception: gradient norm exploded", false, {}});
  static RuleSet rules = test::test_rules();
  Timeline t;
  Diagnosis d;
  d.localisation = localisation("first-failure", "first_failure", "application", Blame::application);
  d.localisation->title = "the first rank to fail";
  Report guessed = build_report(Workload{}, t, d, rules, {}, facts);
  REQUIRE(guessed.root_causes.size() == 1);
  CHECK(guessed.root_causes[0].localised);
  REQUIRE(guessed.unread.size() == 1);
  CHECK(guessed.outcome.summary.find("listed as unread") != std::string::npos);
}
