#include "core/rules/compiled_rules.hpp"

#include <catch2/catch.hpp>

#include "core/rules/rule_sources.hpp"

using namespace attribution;

namespace {
// One rule with every field away from its default, and a metric.
const char* kFull = R"(
[[metric]]
id = "xid_errors"
selector = "DCGM_FI_DEV_XID_ERRORS"
condition = "above"
threshold = 2.5

[[rule]]
id = "t.full"
title = "a title with \"quotes\", a colon: and 12: digits"
pattern = 'seq=(?P<seq>\d+) of (?P<others_seq>\d+)'
literals = ["seq=", "of "]
streams = ["applog", "syslog"]
role = "cause"
category = "gpu_fault"
family = "accelerator-gpu"
blame = "infrastructure"
confidence = "low"
priority = 93
burst = "5m"
fallback = true
action = """two
lines"""
when = ["seq < others_seq", "seq >= 2"]
explains = [{ what = "nccl.*", scope = "host", within = "2m", first = true }, { what = "family:x" }]
repeated = { processes = 3, category = "gpu_suspect", family = "accelerator-gpu", blame = "infrastructure", confidence = "high", action = "drain" }
match = [{ line = "seq=3 of 9" }]

[[rule]]
id = "t.symptom"
title = "a per-call trace"
pattern = 'NCCL INFO AllReduce: opCount (?P<op>[0-9a-f]+)'
literals = ["NCCL INFO AllReduce"]
role = "symptom"
category = "nccl_trace"
family = "network-fabric"
tail = true
signal = "timeout"
match = [{ line = "NCCL INFO AllReduce: opCount 1f" }]
)";
}  // namespace

TEST_CASE("a compiled ruleset reads back every field of its rules and metrics") {
  std::vector<MetricSpec> metrics;
  auto rules = parse_rules(kFull, "full.toml", &metrics);
  if (!rules) FAIL(rules.error().message << " (" << rules.error().key << ")");
  std::string text = encode_ruleset(*rules, metrics);
  CHECK(text.find('\0') == std::string::npos);
  auto back = decode_ruleset(text, "full.toml");
  REQUIRE(back);
  REQUIRE(back->rules.size() == 2);
  REQUIRE(back->metrics.size() == 1);
  const Rule& r = back->rules[0];
  const Rule& want = (*rules)[0];
  CHECK(r.id == "t.full");
  CHECK(r.title == want.title);
  CHECK(r.action == "two\nlines");
  CHECK(r.pattern == want.pattern);
  CHECK(r.literals == std::vector<std::string>{"seq=", "of "});
  CHECK(r.streams == std::vector<Stream>{Stream::applog, Stream::syslog});
  CHECK(r.role == Role::cause);
  CHECK(r.blame == Blame::infrastructure);
  CHECK(r.confidence == Confidence::low);
  CHECK(r.priority == 93);
  CHECK(r.burst == want.burst);
  CHECK(r.fallback);
  CHECK_FALSE(r.tail);
  CHECK(back->rules[1].tail);
  CHECK(back->rules[1].signal == Signal::timeout);
  CHECK(back->rules[1].role == Role::symptom);
  REQUIRE(r.when.size() == 2);
  CHECK(r.when[1].op == ">=");
  CHECK(r.when[1].right == "2");
  REQUIRE(r.explains.size() == 2);
  CHECK(r.explains[0].scope == Scope::host);
  CHECK(r.explains[0].within == want.explains[0].within);
  CHECK(r.explains[0].first);
  CHECK_FALSE(r.explains[1].first);
  REQUIRE(r.repeated);
  CHECK(r.repeated->processes == 3);
  CHECK(r.repeated->action == "drain");
  CHECK(r.file == "full.toml");
  CHECK(r.line == want.line);
  CHECK(r.match.empty());  // the build checked them; a diagnosis does not carry them
  // The pattern compiles on first use and matches as the parsed rule's does.
  std::map<std::string, std::string> caps;
  CHECK(rule_captures(r, "seq=3 of 9", &caps));
  CHECK(caps["others_seq"] == "9");
  std::map<std::string, std::string> fresh;
  CHECK_FALSE(rule_captures(r, "seq=9 of 3", &fresh));  // `when` read back
  const MetricSpec& m = back->metrics[0];
  CHECK(m.id == "xid_errors");
  CHECK(m.condition == "above");
  CHECK(m.threshold == 2.5);
  CHECK(encode_ruleset(back->rules, back->metrics) == text);
}

TEST_CASE("every built-in ruleset's compiled form is what its text parses to") {
  // The build wrote e.compiled with these functions: this holds the binary's compiled rules current
  // with its texts. That decoding gives the TOML's rules field for field is rule_sources_test's.
  size_t text_bytes = 0, compiled_bytes = 0;
  for (const auto& e : builtin_rulesets()) {
    INFO(e.name);
    std::vector<MetricSpec> metrics;
    auto parsed = parse_rules(e.text, e.name, &metrics, true, false);
    REQUIRE(parsed);
    CHECK(encode_ruleset(*parsed, metrics) == e.compiled);
    auto back = decode_ruleset(e.compiled, e.name);
    REQUIRE(back);
    CHECK(back->rules.size() == parsed->size());
    text_bytes += e.text.size();
    compiled_bytes += e.compiled.size();
  }
  CHECK(compiled_bytes < text_bytes / 2);  // the point: far less to read than the TOML
}

TEST_CASE("a malformed compiled ruleset is an error, never a crash") {
  std::vector<MetricSpec> metrics;
  auto rules = parse_rules(kFull, "full.toml", nullptr);
  REQUIRE_FALSE(rules);  // the metric table needs a place to go
  rules = parse_rules(kFull, "full.toml", &metrics);
  REQUIRE(rules);
  const std::string good = encode_ruleset(*rules, metrics);
  for (size_t cut : {size_t{0}, size_t{1}, good.size() / 3, good.size() / 2, good.size() - 1}) {
    INFO(cut);
    auto r = decode_ruleset(good.substr(0, cut), "x");
    REQUIRE_FALSE(r);
    CHECK(r.error().message.find("malformed") != std::string::npos);
  }
  CHECK_FALSE(decode_ruleset(good + "1;", "x"));              // trailing bytes
  CHECK_FALSE(decode_ruleset("99999999999;", "x"));          // a count beyond the text
  CHECK_FALSE(decode_ruleset("1;-5:abc", "x"));              // a negative length
  CHECK_FALSE(decode_ruleset("1;99999999999999999999:", "x"));  // a length that overflows
  CHECK(decode_ruleset("0;0;", "x"));
}
