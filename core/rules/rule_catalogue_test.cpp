// The rule catalogue (Markdown) and the cross-rule lint checks.
#include <catch2/catch.hpp>

#include "core/rules/rule_catalogue.hpp"
#include "core/rules/rule_lint.hpp"

#include <algorithm>
#include <fmt/format.h>

using namespace attribution;

namespace {
const char* kA = R"(
[[rule]]
id = "t.cause"
title = "A cause | with a pipe"
literals = ["boom"]
pattern = 'boom (?P<n>\d+)'
role = "cause"
category = "boom"
family = "host"
blame = "infrastructure"
priority = 77
action = "Drain it."
explains = ["role:symptom", "t.nothing-*"]
match = [{ line = "boom 7" }]

[[rule]]
id = "t.alt"
title = "Alternatives"
literals = ["KeyError", "TypeError"]
pattern = '(?:Key|Type)Error: '
role = "symptom"
match = [{ line = "KeyError: 'x'" }]

[[rule]]
id = "t.sym"
title = "A symptom"
literals = ["bang", "bong"]
pattern = 'bang'
role = "symptom"
streams = ["applog"]
match = [{ line = "bang" }]
)";
const char* kB = R"(
[[rule]]
id = "t.sym"
title = "Again"
literals = ["bang"]
pattern = '(?:a|b|c|d|e){1,200}bang'
role = "symptom"
match = [{ line = "abang" }]
)";

std::vector<Rule> parse(const char* text, const char* file) {
  auto r = parse_rules(text, file);
  REQUIRE(r);
  return *r;
}
}  // namespace

TEST_CASE("rule catalogue: a table per file and a count per family") {
  RuleSet set;
  set.rules = parse(kA, "a.toml");
  std::string md = render_rule_catalogue(set);
  CHECK(md.find("## a.toml\n\n3 rules.") != std::string::npos);
  CHECK(md.find("| `t.cause` | A cause \\| with a pipe | host / boom | cause | infrastructure | all | 77 | high | "
                "Drain it. |") != std::string::npos);
  CHECK(md.find("| `t.sym` | A symptom | - | symptom | - | applog | - | - | - |") != std::string::npos);
  CHECK(md.find("| host | 1 | 0 | 0 | 0 | 1 |") != std::string::npos);
  CHECK(md.find("| (none) | 0 | 2 | 0 | 0 | 2 |") != std::string::npos);
  CHECK(render_rule_catalogue(set) == md);  // deterministic
}

TEST_CASE("rule lint: duplicate ids / dead literals / explains that select nothing / program size") {
  auto rules = parse(kA, "a.toml");
  auto b = parse(kB, "b.toml");
  rules.insert(rules.end(), b.begin(), b.end());
  auto findings = lint_rules(rules, rules, 100);
  auto has = [&](const std::string& rule, const std::string& file, const std::string& text) {
    return std::any_of(findings.begin(), findings.end(), [&](const LintFinding& f) {
      return f.error && f.rule == rule && f.file == file && f.line > 0 && f.message.find(text) != std::string::npos;
    });
  };
  CHECK(has("t.sym", "b.toml", "also defined at a.toml:"));
  CHECK(has("t.sym", "a.toml", "literal 'bong' is in no match sample"));
  CHECK_FALSE(has("t.alt", "a.toml", "literal"));  // TypeError: the KeyError sample matches with it swapped in

  CHECK(has("t.cause", "a.toml", "explains 't.nothing-*' selects no rule"));
  CHECK(has("t.sym", "b.toml", "RE2 program size"));
  CHECK_FALSE(has("t.cause", "a.toml", "role:symptom"));
  // Short literals ("boom", "bang", ...) are warnings: they cost the prefilter, they are not wrong.
  auto warns = [&](const std::string& rule, const std::string& text) {
    return std::any_of(findings.begin(), findings.end(), [&](const LintFinding& f) {
      return !f.error && f.rule == rule && f.message.find(text) != std::string::npos;
    });
  };
  CHECK(warns("t.cause", "literal 'boom' is shorter than 7 bytes"));
  CHECK_FALSE(warns("t.alt", "literal 'KeyError'"));
  CHECK(std::count_if(findings.begin(), findings.end(), [](const LintFinding& f) { return f.error; }) == 4);
}

TEST_CASE("rule lint: a literal of only spaces or punctuation is an error") {
  auto rules = parse(R"(
[[rule]]
id = "t.rows"
title = "rows"
literals = ["         ", "total_vm"]
pattern = 'total_vm|\d {9}\d'
role = "symptom"
match = [{ line = "1         2" }, { line = "pid total_vm" }]

[[rule]]
id = "t.zh"
title = "zh"
literals = ["显存不足"]
pattern = '显存不足'
role = "symptom"
match = [{ line = "错误: 显存不足" }]
)",
                     "r.toml");
  auto findings = lint_rules(rules, rules, 1000);
  auto errors = std::count_if(findings.begin(), findings.end(), [](const LintFinding& f) {
    return f.error && f.message.find("has no letter or digit") != std::string::npos;
  });
  CHECK(errors == 1);  // the spaces; a literal of UTF-8 letters is fine
  CHECK(std::none_of(findings.begin(), findings.end(), [](const LintFinding& f) { return f.rule == "t.zh" && f.error; }));
}

TEST_CASE("rule lint: more short literals than the prefilter takes is an error, said once") {
  std::string text;
  for (int i = 0; i < 17; ++i)
    text += fmt::format("[[rule]]\nid = \"t.s{0}\"\ntitle = \"s\"\nliterals = [\"ab{0:02}\"]\npattern = 'ab{0:02}'\n"
                        "role = \"symptom\"\nmatch = [{{ line = \"x ab{0:02} y\" }}]\n\n",
                        i);
  auto rules = parse(text.c_str(), "s.toml");
  auto findings = lint_rules(rules, rules, 1000);
  auto errors = std::count_if(findings.begin(), findings.end(), [](const LintFinding& f) {
    return f.error && f.message.find("17 distinct literals shorter than 7 bytes") != std::string::npos;
  });
  CHECK(errors == 1);
  rules.pop_back();  // 16: within the budget
  findings = lint_rules(rules, rules, 1000);
  CHECK(std::none_of(findings.begin(), findings.end(), [](const LintFinding& f) { return f.error; }));
}
