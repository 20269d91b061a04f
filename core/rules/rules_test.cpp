#include <catch2/catch.hpp>

#include "core/rules/matcher.hpp"
#include "core/rules/rule_sources.hpp"
#include "core/rules/rules.hpp"
#include "tests/test_util.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <thread>

using namespace attribution;

namespace {
const char* kGood = R"(
[[rule]]
id = "t.xid79"
title = "GPU fell off the bus"
literals = ["NVRM: Xid"]
pattern = 'NVRM: Xid \((?:PCI:)?(?P<pci>[0-9a-fA-F:]+)[^)]*\): (?P<xid>79),'
role = "cause"
category = "gpu_fallen_off_bus"
family = "accelerator-gpu"
blame = "infrastructure"
explains = ["role:symptom", { what = "t.xid45", scope = "gpu", within = "5m" }]
match = [{ line = "NVRM: Xid (PCI:0000:91:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.", captures = { pci = "0000:91:00", xid = "79" } }]
no_match = ["NVRM: Xid (PCI:0000:91:00): 48, pid='<unknown>'"]
)";
}  // namespace

TEST_CASE("a valid rule loads with its explains table") {
  auto rules = parse_rules(kGood, "good.toml");
  REQUIRE(rules);
  REQUIRE(rules->size() == 1);
  const Rule& r = rules->front();
  CHECK(r.role == Role::cause);
  REQUIRE(r.explains.size() == 2);
  CHECK(r.explains[0].scope == Scope::job);
  CHECK(r.explains[1].scope == Scope::gpu);
  CHECK(r.explains[1].within == 5 * 60 * kMicrosPerSecond);
  CHECK_FALSE(r.explains[1].first);
  CHECK(check_samples(r));
  CHECK(selector_matches("t.*", r));
  CHECK(selector_matches("family:accelerator-gpu", r));
  CHECK(selector_matches("role:cause", r));
  CHECK_FALSE(selector_matches("category:other", r));
}

TEST_CASE("a failing sample is an error naming file / line and rule") {
  std::string text = kGood;
  std::string from = "captures = { pci = \"0000:91:00\"";
  text.replace(text.find(from), from.size(), "captures = { pci = \"0000:92:00\"");
  auto rules = parse_rules(text, "bad.toml");
  REQUIRE(rules);
  auto st = check_samples(rules->front());
  REQUIRE_FALSE(st);
  CHECK(st.error().file == "bad.toml");
  CHECK(st.error().line == 12);
  CHECK(st.error().key == "t.xid79");
  CHECK(st.error().message.find("0000:92:00") != std::string::npos);
}

TEST_CASE("a no_match sample that matches fails") {
  std::string text = kGood;
  text.replace(text.find("): 48,"), 6, "): 79,");
  auto rules = parse_rules(text, "bad.toml");
  REQUIRE(rules);
  CHECK_FALSE(check_samples(rules->front()));
}

TEST_CASE("a sample without any literal fails: the prefilter would drop the line") {
  std::string text = kGood;
  text.replace(text.find("literals = [\"NVRM: Xid\"]"), 24, "literals = [\"nvrm\"]");
  auto rules = parse_rules(text, "bad.toml");
  REQUIRE(rules);
  auto st = check_samples(rules->front());
  REQUIRE_FALSE(st);
  CHECK(st.error().message.find("literals") != std::string::npos);
}

TEST_CASE("invalid rules are errors with the line") {
  auto bad = [](std::string text, std::string want) {
    auto r = parse_rules(text, "x.toml");
    REQUIRE_FALSE(r);
    INFO(r.error().message);
    CHECK(r.error().message.find(want) != std::string::npos);
    CHECK(r.error().file == "x.toml");
    CHECK(r.error().line > 0);
  };
  std::string base = kGood;
  bad(std::string(base).replace(base.find("role = \"cause\""), 14, "role = \"culprit\""), "role 'culprit'");
  bad(std::string(base).replace(base.find("pattern = '"), 11, "pattern = '(unclosed"), "does not compile");
  bad(std::string(base).replace(base.find("family = \"accelerator-gpu\""), 26, "family = \"gpu\""), "family 'gpu'");
  bad(std::string(base) + "\nwat = 1\n", "unknown key 'wat'");
  bad("[[rule]]\nid = \"x\"\ntitle = [1\n", "");  // TOML syntax error
  bad("[[rule]]\nid = \"x\"\ntitle = \"t\"\npattern = \"a\"\nliterals = [\"a\"]\nrole = \"symptom\"\n", "match sample");
  // An explains entry may require its explainer first; the flag is a boolean.
  std::string ordered = std::string(base).replace(base.find("within = \"5m\""), 0, "first = true, ");
  auto with_first = parse_rules(ordered, "x.toml");
  REQUIRE(with_first);
  CHECK(with_first->front().explains[1].first);
  bad(std::string(base).replace(base.find("within = \"5m\""), 0, "first = 1, "), "first is true or false");
  std::string with_repeated = std::string(base).replace(base.find("explains ="), 0, "repeated = { processes = 1 }\n");
  bad(with_repeated, "processes must be between 2 and 1000");
  bad(std::string(base).replace(base.find("explains ="), 0, "repeated = { blame = \"gpu\" }\n"), "blame 'gpu'");
  bad(std::string(base).replace(base.find("explains ="), 0, "repeated = { after = 2 }\n"), "unknown key 'after'");
  bad(std::string(base).replace(base.find("explains ="), 0, "repeated = 2\n"), "repeated is a table");
  bad(std::string(base).replace(base.find("explains ="), 0, "tail = 1\n"), "tail is true or false");
  bad(std::string(base).replace(base.find("explains ="), 0, "tail = true\nlines = 3\n"), "a tail rule reads one line");
  const std::string literals = "literals = [\"NVRM: Xid\"]";
  bad(std::string(base).replace(base.find(literals), literals.size(), "literals = [\"" + std::string(2000, 'x') + "\"]"),
      "a literal must be at most 1024 bytes");
}

TEST_CASE("a repeated reading keeps the rule's own labels where it does not set them") {
  std::string base = kGood;
  auto r = parse_rules(std::string(base).replace(base.find("explains ="), 0,
                                                 "repeated = { processes = 3, category = \"gpu_suspect\" }\n"),
                       "x.toml");
  REQUIRE(r);
  REQUIRE(r.value()[0].repeated);
  const Repeated& rep = *r.value()[0].repeated;
  CHECK(rep.processes == 3);
  CHECK(rep.category == "gpu_suspect");
  CHECK(rep.family == "accelerator-gpu");
  CHECK(rep.blame == Blame::infrastructure);
  CHECK(rep.confidence == Confidence::high);
}

TEST_CASE("built-in rulesets load and every sample passes") {
  auto set = load_rules({});
  REQUIRE(set);
  CHECK(set->rules.size() > 50);
  CHECK(set->digest.size() == 64);
  CHECK(std::is_sorted(set->rules.begin(), set->rules.end(), [](const Rule& a, const Rule& b) { return a.id < b.id; }));
  for (const auto& r : set->rules) {
    INFO(r.id);
    CHECK(check_samples(r));
  }
}

TEST_CASE("user rules add to and override built-ins by id") {
  test::TempDir dir;
  auto set0 = load_rules({});
  REQUIRE(set0);
  std::string path = dir.file("mine.toml", kGood);
  auto set = load_rules({path});
  REQUIRE(set);
  CHECK(set->rules.size() == set0->rules.size() + 1);
  CHECK(set->find("t.xid79"));
  CHECK(set->digest != set0->digest);
  // Overriding a built-in: same id, new title.
  std::string over = kGood;
  std::string first_id = set0->rules.front().id;
  over.replace(over.find("t.xid79"), 7, first_id);
  auto set2 = load_rules({dir.file("over.toml", over)});
  REQUIRE(set2);
  CHECK(set2->rules.size() == set0->rules.size());
  CHECK(set2->find(first_id)->title == "GPU fell off the bus");
  auto missing = load_rules({dir.path() + "/nope.toml"});
  REQUIRE_FALSE(missing);
  CHECK(missing.error().file.find("nope.toml") != std::string::npos);
}

TEST_CASE("the prefilter + RE2::Set path agrees with running every rule on every line") {
  auto set = load_rules({});
  REQUIRE(set);
  auto m = Matcher::build(*set);
  REQUIRE(m);
  // Every sample line of every rule, through both paths.
  std::vector<std::string> lines;
  for (const auto& r : set->rules) {
    for (const auto& s : r.match) lines.push_back(s.line.substr(0, s.line.find('\n')));
    for (const auto& s : r.no_match) lines.push_back(s.line);
  }
  std::vector<int> fast, slow;
  for (const auto& line : lines) {
    (*m)->match_line(line, Stream::applog, &fast);
    // match_line finds the pattern's hits; `when` conditions are checked with the captures, as the scan does.
    std::erase_if(fast, [&](int i) {
      std::map<std::string, std::string> caps;
      return !(*m)->captures(i, line, &caps);
    });
    slow.clear();
    for (size_t i = 0; i < set->rules.size(); ++i) {
      const Rule& r = set->rules[i];
      if (r.lines > 1 || r.tail || !r.reads_stream(Stream::applog)) continue;  // tail rules: scan_tail
      bool lit = false;
      for (const auto& l : r.literals) lit |= line.find(l) != std::string::npos;
      std::map<std::string, std::string> caps;
      if (lit && (*m)->captures(static_cast<int>(i), line, &caps)) slow.push_back(static_cast<int>(i));
    }
    INFO(line);
    CHECK(fast == slow);
    // And the buffer prefilter finds the line whenever a rule matches it.
    if (!slow.empty()) CHECK((*m)->next_candidate_line(line, 0) == 0);
  }
}

TEST_CASE("a checked ruleset's patterns compile on first use, once, from any thread") {
  auto rules = parse_rules(kGood, "t.toml", nullptr, true);
  REQUIRE(rules);
  const Rule& r = rules->front();
  std::vector<const re2::RE2*> seen(4);
  std::vector<std::thread> pool;
  for (size_t i = 0; i < seen.size(); ++i) pool.emplace_back([&, i] { seen[i] = &r.regex(); });
  for (auto& t : pool) t.join();
  for (const auto* p : seen) CHECK(p == seen.front());
  CHECK(seen.front()->ok());
  std::map<std::string, std::string> caps;
  CHECK(rule_captures(r, "NVRM: Xid (PCI:0000:91:00): 79, pid=1", &caps));
  CHECK(caps["xid"] == "79");
  Rule copy = r;  // copies share the compiled pattern
  CHECK(&copy.regex() == seen.front());
  // Unchecked, a pattern that does not compile is an error at load, as before.
  std::string bad = kGood;
  bad.replace(bad.find("(?P<pci>"), 8, "(?P<pci");
  CHECK_FALSE(parse_rules(bad, "t.toml"));
}

namespace {
// RE2's own unanchored match, every group: what RulePattern::search must agree with.
bool unanchored(const re2::RE2& re, std::string_view text, std::vector<re2::StringPiece>* g) {
  g->assign(re.NumberOfCapturingGroups() + 1, re2::StringPiece());
  return re.Match(re2::StringPiece(text.data(), text.size()), 0, text.size(), re2::RE2::UNANCHORED, g->data(),
                  static_cast<int>(g->size()));
}
}  // namespace

TEST_CASE("a pattern's lead is what every match starts with, and a search from it agrees with RE2's own") {
  auto lead_of = [](const char* pattern) {
    RulePattern p{std::string(pattern)};
    return std::string(p.lead());
  };
  CHECK(lead_of(R"(NCCL INFO cudaDriverVersion (?P<value>\d+))") == "NCCL INFO cudaDriverVersion ");
  CHECK(lead_of(R"(global_step=\d+, Running)") == "global_step=");
  CHECK(lead_of("abc|abd") == "ab");
  CHECK(lead_of("a|b").empty());
  CHECK(lead_of("(?i)xid").empty());
  CHECK(lead_of(R"(\d+ bytes)").empty());
  CHECK(lead_of("(?:Xid|XID) 79") == "X");

  // Every built-in rule on every sample line of every rule (its own and the others'), and on each
  // line with the lead repeated before it (a place where the pattern does not match first), with
  // its text cut short, and with a word boundary's neighbour changed: same yes/no, same groups.
  auto set = load_rules({});
  REQUIRE(set);
  std::vector<std::string> lines;
  for (const auto& r : set->rules) {
    for (const auto& s : r.match) lines.push_back(s.line);
    for (const auto& s : r.no_match) lines.push_back(s.line);
  }
  size_t led = 0, compared = 0;
  std::vector<re2::StringPiece> want, got;
  for (const auto& r : set->rules) {
    const re2::RE2& re = r.regex();
    std::string_view lead = r.re->lead();
    led += !lead.empty();
    std::vector<std::string> texts;
    for (const auto& s : r.match) {
      texts.push_back(s.line);
      texts.push_back(std::string(lead) + " x " + s.line);
      texts.push_back("x" + std::string(lead) + s.line.substr(std::min(s.line.size(), lead.size())));
      texts.push_back(s.line.substr(0, s.line.size() / 2));
      std::string many;  // the lead more often than the tries before RE2 searches from there
      for (int k = 0; k < 12; ++k) many += std::string(lead) + "#";
      texts.push_back(many + s.line);
    }
    for (const auto& l : lines)
      if (!lead.empty() && l.find(lead) != std::string::npos) texts.push_back(l);
    for (const auto& t : texts) {
      INFO(r.id << " on: " << t);
      bool a = unanchored(re, t, &want);
      got.assign(want.size(), re2::StringPiece());
      bool b = r.re->search(t, got.data(), static_cast<int>(got.size()));
      REQUIRE(a == b);
      CHECK(b == r.re->search(t, nullptr, 0));
      if (a)
        for (size_t i = 0; i < want.size(); ++i) CHECK((want[i].data() == got[i].data() && want[i].size() == got[i].size()));
      ++compared;
    }
  }
  // Most rules start with fixed text: the search from the lead is the common path, not an edge case.
  CHECK(led * 2 > set->rules.size());
  CHECK(compared > 5000);
}
