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

// How many findings are errors (else warnings) whose message holds `text`, of `rule` when given.
long count(const std::vector<LintFinding>& findings, bool error, const std::string& text, const std::string& rule = "") {
  return std::count_if(findings.begin(), findings.end(), [&](const LintFinding& f) {
    return f.error == error && (rule.empty() || f.rule == rule) && f.message.find(text) != std::string::npos;
  });
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
  CHECK(count(findings, false, "literal 'boom' is shorter than 7 bytes", "t.cause") == 1);
  CHECK(count(findings, false, "literal 'KeyError'", "t.alt") == 0);
  CHECK(count(findings, true, "") == 4);
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
  CHECK(count(findings, true, "literal '         ' has no letter or digit", "t.rows") == 1);
  CHECK(count(findings, true, "", "t.zh") == 0);  // a literal of UTF-8 letters is fine
}

TEST_CASE("rule lint: a literal whose every window run holds four blanks is a warning") {
  auto rules = parse(R"(
[[rule]]
id = "t.col"
title = "col"
literals = ["             0 ", "          -998 ", "x   y   z"]
pattern = ' {13}0 | {10}-998 |x   y   z'
role = "symptom"
match = [{ line = "a             0 b" }, { line = "a          -998 b" }, { line = "x   y   z" }]
)",
                     "r.toml");
  auto findings = lint_rules(rules, rules, 1000);
  CHECK(count(findings, false, "literal '             0 ' holds four blanks", "t.col") == 1);
  // "-998" and its neighbours give a run of windows without a blank one; runs of three spaces never fill a window
  CHECK(count(findings, false, "holds four blanks", "t.col") == 1);
}

TEST_CASE("rule lint: an escape only RE2 accepts is an error (export-patterns feeds other engines)") {
  auto rules = parse(R"(
[[rule]]
id = "t.quote"
title = "quote"
literals = ["modules loaded"]
pattern = '''Are the \w+ modules loaded\?\'?'''
role = "symptom"
match = [{ line = "Are the lustre modules loaded?" }]

[[rule]]
id = "t.meta"
title = "meta"
literals = ["opCount"]
pattern = 'opCount \S+ \[nranks=\d+\] \(x\) a\-b \$\.'
role = "symptom"
match = [{ line = "opCount 1 [nranks=2] (x) a-b $." }]
)",
                     "e.toml");
  auto findings = lint_rules(rules, rules, 1000);
  CHECK(count(findings, true, "pattern escapes ''', which needs no escape", "t.quote") == 1);
  CHECK(count(findings, true, "", "t.meta") == 0);  // escape classes and metacharacters are fine
}

TEST_CASE("rule lint: literals that leave the prefilter's fast path are an error, said once") {
  std::string text;
  for (int i = 0; i < 17; ++i)
    text += fmt::format("[[rule]]\nid = \"t.s{0}\"\ntitle = \"s\"\nliterals = [\"ab{0:02}\"]\npattern = 'ab{0:02}'\n"
                        "role = \"symptom\"\nmatch = [{{ line = \"x ab{0:02} y\" }}]\n\n",
                        i);
  auto rules = parse(text.c_str(), "s.toml");
  const std::string slow = "the scan falls back to testing every position";
  CHECK(count(lint_rules(rules, rules, 1000), true, slow) == 1);
  rules.pop_back();  // 16: within the budget
  CHECK(count(lint_rules(rules, rules, 1000), true, "") == 0);
  // One literal of a single byte is enough to leave the fast path.
  rules.back().literals.push_back("b");
  CHECK(count(lint_rules(rules, rules, 1000), true, slow) == 1);
}
