#include <catch2/catch.hpp>

#include "core/rules/captures.hpp"
#include "core/rules/rules.hpp"

using namespace attribution;

TEST_CASE("conditions compare integer captures") {
  std::string why;
  auto c = parse_condition("seq < others_seq", &why);
  REQUIRE(c);
  CHECK(holds(*c, {{"seq", "639"}, {"others_seq", "640"}}));
  CHECK_FALSE(holds(*c, {{"seq", "641"}, {"others_seq", "640"}}));
  CHECK_FALSE(holds(*c, {{"seq", "640"}}));                         // a side that did not take part
  CHECK_FALSE(holds(*c, {{"seq", "x"}, {"others_seq", "640"}}));    // not an integer
  auto k = parse_condition("count >= 2", &why);
  REQUIRE(k);
  CHECK(holds(*k, {{"count", "2"}}));
  CHECK_FALSE(holds(*k, {{"count", "1"}}));
  CHECK(to_string(*k) == "count >= 2");
  for (const char* bad : {"seq <", "seq = 2", "1 < seq", "seq < 2x", "a < b < c"}) {
    INFO(bad);
    CHECK_FALSE(parse_condition(bad, &why));
    CHECK_FALSE(why.empty());
  }
}

namespace {
std::string rule_text(const std::string& pattern, const std::string& when, const std::string& samples) {
  return "[[rule]]\nid = \"t.behind\"\ntitle = \"t\"\nliterals = [\"op \"]\npattern = '" + pattern +
         "'\nrole = \"context\"\n" + when + "\n" + samples + "\n";
}
}  // namespace

TEST_CASE("a rule may use one name in several alternatives and compare captures") {
  std::string text = rule_text(R"(op (?:(?P<seq>\d+) of (?P<others>\d+)|(?P<others>\d+) over (?P<seq>\d+)))",
                               R"(when = "seq < others")",
                               R"(match = [{ line = "op 3 of 4", captures = { seq = "3", others = "4" } },)"
                               R"( { line = "op 9 over 5", captures = { seq = "5", others = "9" } }])" "\n"
                               R"(no_match = ["op 4 of 3", "op 5 over 9"])");
  auto rules = parse_rules(text, "t.toml");
  REQUIRE(rules);
  const Rule& r = rules->front();
  CHECK(check_samples(r));
  std::map<std::string, std::string> got;
  CHECK(rule_captures(r, "x op 9 over 5", &got));
  CHECK(got == std::map<std::string, std::string>{{"seq", "5"}, {"others", "9"}});
  got.clear();
  CHECK(rule_captures(r, "op 3 of 4 op 9 over 5", &got));  // the leftmost match
  CHECK(got == std::map<std::string, std::string>{{"seq", "3"}, {"others", "4"}});
  got.clear();
  CHECK_FALSE(rule_captures(r, "op 5 over 9", &got));

  SECTION("a match sample the condition rejects names the condition") {
    auto bad = parse_rules(rule_text(R"(op (?P<seq>\d+) of (?P<others>\d+))", R"(when = ["seq < others"])",
                                     R"(match = [{ line = "op 5 of 4" }])"), "t.toml");
    REQUIRE(bad);
    auto st = check_samples(bad->front());
    REQUIRE_FALSE(st);
    CHECK(st.error().message.find("`when` condition does not hold") != std::string::npos);
  }
  SECTION("a condition on a capture the pattern lacks is an error at load") {
    auto bad = parse_rules(rule_text(R"(op (?P<seq>\d+))", R"(when = "seq < other")", R"(match = [{ line = "op 5" }])"),
                           "t.toml");
    REQUIRE_FALSE(bad);
    CHECK(bad.error().message.find("no capture 'other'") != std::string::npos);
    CHECK(bad.error().key == "rule t.behind.when");
  }
}
