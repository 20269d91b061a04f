#include "core/rules/ruleset_text.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

#include "core/rules/rules.hpp"

using namespace attribution;

namespace {
std::string summary(const Rule& r) {
  std::string s = r.id + "|" + r.title + "|" + r.pattern + "|" + r.category + "|" + r.family + "|" + r.action + "|" +
                  std::to_string(r.priority) + "|" + std::to_string(r.line) + "|" + std::to_string(r.lines) + "|" +
                  std::to_string(r.explains.size()) + "|" + std::to_string(r.when.size()) + "|" +
                  std::to_string(r.fallback) + std::to_string(r.tail);
  for (const auto& l : r.literals) s += "|" + l;
  return s;
}
}  // namespace

TEST_CASE("every built-in ruleset parses to the same rules without its samples and comments") {
  for (const auto& e : builtin_rulesets()) {
    INFO(e.name);
    const std::string text = e.text;
    auto lean = without_samples(text);
    REQUIRE(lean);
    CHECK(std::count(lean->begin(), lean->end(), '\n') == std::count(text.begin(), text.end(), '\n'));
    CHECK(lean->size() < text.size() * 3 / 4);  // the point: far less for the parser to read
    std::vector<MetricSpec> full_metrics, lean_metrics;
    auto full = parse_rules(text, e.name, &full_metrics, true);
    auto without = parse_rules(*lean, e.name, &lean_metrics, true, false);
    REQUIRE(full);
    REQUIRE(without);
    REQUIRE(full->size() == without->size());
    CHECK(full_metrics.size() == lean_metrics.size());
    for (size_t i = 0; i < full->size(); ++i) {
      CHECK(summary((*full)[i]) == summary((*without)[i]));
      CHECK((*without)[i].match.empty());
    }
  }
}

TEST_CASE("a text not laid out as the built-ins are is left whole") {
  CHECK_FALSE(without_samples("[[rule]]\nid = \"a\"\nmatch = [\n  { line = \"x\" },\n"));  // never closed
  CHECK_FALSE(without_samples("[[rule]]\nmatch = [\n[[rule]]\n]\n"));
  CHECK_FALSE(without_samples("[[rule]]\nmatch = [ { line = \"x\" },\n  { line = \"y\" } ]\n"));  // opened mid-line
  CHECK_FALSE(without_samples("[[rule]]\naction = '''two\n# lines'''\n"));                       // a multi-line string
  auto kept = without_samples("# why\n[[rule]]\nid = \"a\"  # trailing\nno_match = [\"b\"]\nmatch = [\n  x\n]\nrole = \"cause\"\n");
  REQUIRE(kept);
  CHECK(*kept == "\n[[rule]]\nid = \"a\"  # trailing\n\n\n\n\nrole = \"cause\"\n");
}
