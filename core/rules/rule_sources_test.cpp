#include "core/rules/rule_sources.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

#include "core/rules/compiled_rules.hpp"

using namespace attribution;

TEST_CASE("the build's digest of the built-in rulesets is the one a load of their texts computes") {
  auto sources = read_rule_sources({});
  REQUIRE(sources);
  CHECK(rule_sources_digest(*sources) == builtin_rulesets_digest());
  auto set = load_rules({});
  REQUIRE(set);
  CHECK(set->digest == builtin_rulesets_digest());
  // Any other set of sources is hashed: one built-in left out gives another digest.
  sources->pop_back();
  auto fewer = load_rule_sources(*sources, false);
  REQUIRE(fewer);
  CHECK(fewer->digest != set->digest);
}

TEST_CASE("built-in rulesets load from their compiled form / changed texts are parsed and checked") {
  // The build checks the compiled-in samples and compiles the rules; a bundle replayed from
  // another version may carry different built-in texts under the same names, and those are checked.
  auto sources = read_rule_sources({});
  REQUIRE(sources);
  std::vector<RuleSource> builtins = *sources;
  auto with = load_rule_sources(builtins);                             // parsed from the TOML
  auto lean = load_rule_sources(builtins, /*with_samples=*/false);  // a diagnosis's load
  REQUIRE(with);
  REQUIRE(lean);
  CHECK(lean->digest == with->digest);  // the digest is over the texts as compiled in
  REQUIRE(lean->rules.size() == with->rules.size());
  CHECK(std::all_of(lean->rules.begin(), lean->rules.end(), [](const Rule& r) { return r.match.empty(); }));
  CHECK(std::all_of(with->rules.begin(), with->rules.end(), [](const Rule& r) { return !r.match.empty(); }));
  // Every field but the samples: the compiled form is what the text parses to.
  CHECK(encode_ruleset(lean->rules, lean->metrics) == encode_ruleset(with->rules, with->metrics));
  CHECK(lean->metrics.size() == with->metrics.size());
  for (auto& s : builtins) {
    std::string text(s.text);
    auto at = text.find("match = [\n  {");
    if (at == std::string::npos) continue;
    text.insert(at + std::string("match = [\n").size(), "  { line = \"zzz no literal of this rule zzz\" },\n");
    s = RuleSource::owning(s.name, text, false);
    for (bool samples : {true, false}) {  // a changed text is checked whatever the caller needs
      auto loaded = load_rule_sources(builtins, samples);
      REQUIRE_FALSE(loaded);
      CHECK(loaded.error().message.find("contains none of the literals") != std::string::npos);
      CHECK(loaded.error().file == s.name);
    }
    return;
  }
  FAIL("no built-in ruleset has a match sample table to alter");
}

TEST_CASE("a built-in's text is the binary's own / copies of a source share one text") {
  auto sources = read_rule_sources({});
  REQUIRE(sources);
  REQUIRE(sources->size() == builtin_rulesets().size());
  for (size_t i = 0; i < sources->size(); ++i) {
    CHECK((*sources)[i].name == builtin_rulesets()[i].name);
    CHECK((*sources)[i].text.data() == builtin_rulesets()[i].text.data());  // not copied at every start
  }
  RuleSource a = RuleSource::owning("mine.toml", "[[rule]]\n", true);
  RuleSource b = a;
  CHECK(b.text.data() == a.text.data());
  CHECK(b.text == "[[rule]]\n");
  RuleSource c = std::move(b);
  CHECK(c.text.data() == a.text.data());
  CHECK(c.user);
}
