#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cctype>
#include <random>

#include "core/rules/matcher.hpp"
#include "core/rules/pattern_set.hpp"
#include "core/rules/rule_sources.hpp"
#include "core/rules/rules.hpp"

#include <re2/re2.h>

using namespace attribution;

namespace {

// The definition the prefilter must keep: the first line at or after `from` that contains one of
// the rules' literals, compared case-sensitively.
size_t naive_candidate(const RuleSet& set, std::string_view buf, size_t from) {
  for (size_t start = from; start < buf.size();) {
    size_t eol = buf.find('\n', start);
    std::string_view line = buf.substr(start, eol == std::string_view::npos ? buf.npos : eol - start);
    for (const auto& r : set.rules)
      for (const auto& l : r.literals)  // tail rules are read from a file's end, not by the forward prefilter
        if (!r.tail && line.find(l) != std::string_view::npos) return start;
    if (eol == std::string_view::npos) break;
    start = eol + 1;
  }
  return std::string_view::npos;
}

}  // namespace

TEST_CASE("candidate lines with the built-in rules are the lines holding a literal, tuned or not") {
  auto set = load_rules({});
  REQUIRE(set);
  auto m = Matcher::build(*set);
  REQUIRE(m);
  // Log-like filler, every rule's sample lines, near misses (a literal cut short or in another
  // case), and a last line without a newline.
  std::vector<std::string> lines = {"node0001:100:107 [0] NCCL INFO Channel 00/32 : 0 1 2 3",
                                    "[2025-03-14 08:05:00] iteration 10/ 500 | lm loss: 2.8E+00 |", ""};
  for (const auto& r : set->rules) {
    for (const auto& s : r.match) lines.push_back(s.line.substr(0, s.line.find('\n')));
    for (const auto& l : r.literals) {
      lines.push_back("prefix " + l.substr(0, l.size() - 1));
      std::string swapped = l;  // letters in the other case
      for (auto& c : swapped) c = static_cast<char>(std::isalpha(static_cast<unsigned char>(c)) ? c ^ 0x20 : c);
      if (swapped != l) lines.push_back(swapped);
    }
  }
  std::mt19937 rng(11);
  std::string buf;
  std::uniform_int_distribution<size_t> pick(0, lines.size() - 1);
  for (int i = 0; i < 3000; ++i) {
    buf += lines[i % 5 ? 0 : pick(rng)];
    buf += '\n';
  }
  buf += lines[pick(rng)];
  auto tuned = (*m)->tuned_prefilter(std::string_view(buf).substr(0, 4096));
  size_t checked = 0;
  for (size_t from = 0; from <= buf.size(); ++checked) {  // from every line start
    size_t want = naive_candidate(*set, buf, from);
    REQUIRE((*m)->next_candidate_line(buf, from) == want);
    REQUIRE((*m)->next_candidate_line(buf, from, tuned.get()) == want);
    size_t eol = buf.find('\n', from);
    from = eol == std::string::npos ? buf.size() + 1 : eol + 1;
  }
  CHECK(checked > 3000);
}

namespace {

// The definition line_rules keeps: a single-line rule hits when the line holds one of its literals
// and its pattern matches; a block rule triggers on its literal alone.
void naive_rules(const RuleSet& set, std::string_view line, std::vector<int>* hits, std::vector<int>* blocks) {
  hits->clear();
  blocks->clear();
  for (size_t i = 0; i < set.rules.size(); ++i) {
    const Rule& r = set.rules[i];
    bool literal = false;
    for (const auto& l : r.literals) literal |= line.find(l) != std::string_view::npos;
    if (r.tail || !literal || !r.reads_stream(Stream::applog)) continue;
    if (r.lines > 1) blocks->push_back(static_cast<int>(i));
    else if (RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), r.regex())) hits->push_back(static_cast<int>(i));
  }
}

}  // namespace

TEST_CASE("the rules a line triggers are those with a literal on it whose pattern matches") {
  // A user rule may have literals under 4 bytes; two rules may share a literal.
  auto user = parse_rules(R"(
[[rule]]
id = "t.short"
title = "short literal"
literals = ["zq", "Xid"]
pattern = 'zq\d'
role = "symptom"
match = [{ line = "zq1" }]

[[rule]]
id = "t.shared"
title = "shares a literal"
literals = ["Xid"]
pattern = 'Xid 9'
role = "symptom"
match = [{ line = "Xid 9" }]
)",
                          "user.toml");
  INFO((user ? std::string() : user.error().message));
  REQUIRE(user);
  auto set = load_rules({});
  REQUIRE(set);
  set->rules.insert(set->rules.end(), user->begin(), user->end());
  auto m = Matcher::build(*set);
  REQUIRE(m);
  // The Xid catalog's rules share one literal and are decided by one PatternSet: near misses too.
  std::vector<std::string> lines = {"zq1 here", "zq here", "NVRM: Xid 9 and zq7", "no literal at all", "Xi", "zq",
                                    "NVRM: Xid (PCI:0000:b9:00): 790, pid=1", "NVRM: Xid (0000:3b:00.0): 48",
                                    "NVRM: Xid (PCI:0000:b9:00): 79", "NVRM: Xid (PCI:0000:b9:00): "};
  for (const auto& r : set->rules)
    for (const auto& s : r.match) lines.push_back(s.line.substr(0, s.line.find('\n')));
  size_t with_hits = 0;
  for (const auto& line : lines) {
    std::vector<int> got_hits, got_blocks, want_hits, want_blocks;
    (*m)->line_rules(line, Stream::applog, &got_hits, &got_blocks);
    naive_rules(*set, line, &want_hits, &want_blocks);
    // line_rules keeps a benign rule alone (the line is noise): the definition says the same then.
    for (int r : want_hits)
      if (set->rules[r].role == Role::benign) want_hits = {r}, want_blocks.clear();
    // ... and a generic rule yields to a cause or symptom rule that is not generic.
    auto closer = [&](int r) { const Rule& x = set->rules[r]; return !x.generic && (x.role == Role::cause || x.role == Role::symptom); };
    if (std::any_of(want_hits.begin(), want_hits.end(), closer))
      want_hits.erase(std::remove_if(want_hits.begin(), want_hits.end(), [&](int r) { return set->rules[r].generic; }), want_hits.end());
    INFO(line);
    CHECK(got_hits == want_hits);
    CHECK(got_blocks == want_blocks);
    with_hits += !got_hits.empty();
    // From where the prefilter found the first literal (as the scan asks), the same answer.
    size_t hit = 0;
    if ((*m)->next_candidate_line(line, 0, nullptr, &hit) != std::string_view::npos) {
      std::vector<int> from_hit, from_hit_blocks;
      (*m)->line_rules(line, Stream::applog, &from_hit, &from_hit_blocks, nullptr, nullptr, hit);
      CHECK(from_hit == got_hits);
      CHECK(from_hit_blocks == got_blocks);
    } else {
      CHECK(hit == std::string_view::npos);
      CHECK(got_hits.empty());
    }
  }
  CHECK(with_hits > 100);
}

namespace {

// A generic cause reading any RuntimeError line, for the tests of `generic` below.
constexpr const char* kGenericRule = R"(
[[rule]]
id = "t.any-error"
title = "any RuntimeError"
literals = ["RuntimeError: "]
pattern = 'RuntimeError: (?P<what>.*)'
role = "cause"
category = "python_exception"
family = "application"
blame = "application"
generic = true
match = [{ line = "RuntimeError: x" }]
)";

// The rules of `toml` (after kGenericRule) that line_rules keeps on each line, by id; with each
// kept hit's captures in `groups` when given.
class GenericLines {
 public:
  explicit GenericLines(const std::string& toml) {
    auto rules = parse_rules(kGenericRule + toml, "user.toml");
    INFO((rules ? std::string() : rules.error().message));
    REQUIRE(rules);
    set_.rules = *rules;
    auto m = Matcher::build(set_);
    REQUIRE(m);
    m_ = std::move(*m);
  }
  std::set<std::string> ids(std::string_view line, std::vector<std::map<std::string, std::string>>* groups = nullptr) {
    std::vector<int> hits, blocks;
    std::vector<std::map<std::string, std::string>> own;
    m_->line_rules(line, Stream::applog, &hits, &blocks, groups ? groups : &own);
    std::set<std::string> out;
    for (int r : hits) out.insert(set_.rules[r].id);
    return out;
  }

 private:
  RuleSet set_;
  std::shared_ptr<const Matcher> m_;
};

// parse_rules' error for a generic rule that may not be one.
std::string refused(const std::string& toml) {
  auto bad = parse_rules(toml, "user.toml");
  return bad ? std::string("accepted") : bad.error().message;
}

}  // namespace

TEST_CASE("a generic rule yields to a rule that reads the same line more closely, keeping the others' captures") {
  GenericLines g(R"(
[[rule]]
id = "t.shutdown"
title = "teardown"
literals = ["has been shut down"]
pattern = 'Horovod (?P<state>has been shut down)'
role = "symptom"
match = [{ line = "Horovod has been shut down" }]

[[rule]]
id = "t.rank-map"
title = "context"
literals = ["RuntimeError: "]
pattern = '\[\d+,(?P<rank>\d+)\]<stderr>:RuntimeError: '
role = "context"
match = [{ line = "[1,1]<stderr>:RuntimeError: " }]
)");
  std::vector<std::map<std::string, std::string>> groups;
  // The symptom reads the line: the generic cause goes, the context stays, captures follow their hits.
  CHECK(g.ids("[1,1]<stderr>:RuntimeError: Horovod has been shut down.", &groups) ==
        std::set<std::string>{"t.shutdown", "t.rank-map"});
  REQUIRE(groups.size() == 2);
  for (const auto& caps : groups) CHECK((caps.count("state") || caps.count("rank")));
  // A context rule alone does not make the generic yield.
  CHECK(g.ids("[1,1]<stderr>:RuntimeError: shapes differ") == std::set<std::string>{"t.any-error", "t.rank-map"});
}

TEST_CASE("a generic rule is a single-line cause or symptom") {
  const std::string rule = "[[rule]]\nid = \"t.x\"\ntitle = \"x\"\nliterals = [\"x\"]\npattern = 'x'\ngeneric = true\n"
                           "match = [{ line = \"x\" }]\n";
  CHECK(refused(rule + "role = \"context\"\n").find("only a cause or a symptom") != std::string::npos);
  CHECK(refused(rule + "role = \"symptom\"\nlines = 3\n").find("reads one line") != std::string::npos);
  CHECK(refused(rule + "role = \"symptom\"\n") == "accepted");
}

TEST_CASE("a generic rule stays when the closer rule's `when` does not hold on the line") {
  GenericLines g(R"(
[[rule]]
id = "t.big-exit"
title = "exit above 100"
literals = ["RuntimeError: exit "]
pattern = 'RuntimeError: exit (?P<code>\d+)'
role = "symptom"
when = "code > 100"
match = [{ line = "RuntimeError: exit 137" }]
no_match = ["RuntimeError: exit 3"]
)");
  CHECK(g.ids("RuntimeError: exit 137") == std::set<std::string>{"t.big-exit"});
  // The symptom's condition fails, so the scan would not emit it: the generic reading stays.
  CHECK(g.ids("RuntimeError: exit 3").count("t.any-error") == 1);
}

TEST_CASE("an anchored rule is tried on the line's message when the whole line misses") {
  CHECK(pattern_anchored("^\\s*State: Down"));
  CHECK(pattern_anchored("(?:^|\\]: )Killed"));
  CHECK_FALSE(pattern_anchored("[^\\s]+ Killed"));     // a negated class
  CHECK_FALSE(pattern_anchored("a\\^b"));              // escaped
  CHECK_FALSE(pattern_anchored("[]^] x"));             // ']' first in a class, then '^' in it
  CHECK(pattern_anchored("[]x]^y"));                   // the class closed, then an anchor
  auto set = load_rules({});
  REQUIRE(set);
  auto m = Matcher::build(*set);
  REQUIRE(m);
  const RuleSet& rs = *set;
  const std::string_view line = "3: |ERR!  ERR! ERR!     ERR! / ERR! |  N/A  N/A |";
  auto rule_ids = [&](std::string_view text, const std::function<std::string_view()>* message) {
    std::vector<int> hits, blocks;
    (*m)->line_rules(text, Stream::applog, &hits, &blocks, nullptr, message);
    std::vector<std::string> ids;
    for (int h : hits) ids.push_back(rs.rules[h].id);
    return ids;
  };
  CHECK(rule_ids(line, nullptr).empty());
  int asked = 0;
  const std::function<std::string_view()> message = [&] { ++asked; return line.substr(3); };
  auto ids = rule_ids(line, &message);
  CHECK(std::find(ids.begin(), ids.end(), "gpu.smi-gpu-fields-err") != ids.end());
  CHECK(asked == 1);  // asked once, however many anchored rules missed
}

TEST_CASE("rules that share a literal with many others answer as alone: groups, the message of anchored ones") {
  // Twenty rules on one literal are decided by one PatternSet; two are anchored at the line's start.
  std::string toml;
  for (int i = 0; i < 20; ++i)
    toml += fmt::format(R"(
[[rule]]
id = "t.code-{0}"
title = "code {0}"
literals = ["ZqCode ("]
pattern = '{1}ZqCode \((?P<dev>\w+)\): (?P<code>{0})\b'
role = "symptom"
match = [{{ line = "ZqCode (d1): {0}" }}]
)",
                        i, i < 2 ? "^" : "");
  auto rules = parse_rules(toml, "user.toml");
  INFO((rules ? std::string() : rules.error().message));
  REQUIRE(rules);
  RuleSet set;
  set.rules = *rules;
  auto m = Matcher::build(set);
  REQUIRE(m);
  REQUIRE((*m)->pattern_sets() == 1);
  auto hits_of = [&](std::string_view line, const std::function<std::string_view()>* message) {
    std::vector<int> hits, blocks;
    std::vector<std::map<std::string, std::string>> groups;
    (*m)->line_rules(line, Stream::applog, &hits, &blocks, &groups, message);
    std::vector<std::string> out;
    for (size_t i = 0; i < hits.size(); ++i) out.push_back(set.rules[hits[i]].id + " " + groups[i]["dev"]);
    return out;
  };
  CHECK(hits_of("ZqCode (gpu3): 7, more", nullptr) == std::vector<std::string>{"t.code-7 gpu3"});
  CHECK(hits_of("ZqCode (gpu3): 70", nullptr).empty());
  CHECK(hits_of("node1: ZqCode (gpu3): 1", nullptr).empty());  // anchored: not at the start
  const std::string_view line = "node1: ZqCode (gpu3): 1";
  const std::function<std::string_view()> message = [&] { return line.substr(7); };
  CHECK(hits_of(line, &message) == std::vector<std::string>{"t.code-1 gpu3"});
}

TEST_CASE("the built-in Xid rules are decided by one pattern set, which can answer for them") {
  auto set = load_rules({});
  REQUIRE(set);
  auto m = Matcher::build(*set);
  REQUIRE(m);
  CHECK((*m)->pattern_sets() >= 1);
  // The set RE2 builds from the rules that own "NVRM: Xid" holds every one of their patterns.
  std::vector<int> ids;
  std::vector<std::string> patterns;
  for (size_t i = 0; i < set->rules.size(); ++i) {
    const Rule& r = set->rules[i];
    if (r.lines == 1 && !r.tail && std::find(r.literals.begin(), r.literals.end(), "NVRM: Xid") != r.literals.end())
      ids.push_back(static_cast<int>(i)), patterns.push_back(r.pattern);
  }
  REQUIRE(ids.size() >= 16);
  PatternSet xid(ids, patterns);
  std::vector<int> got;
  REQUIRE(xid.try_match("kernel: NVRM: Xid (PCI:0000:b9:00): 79, pid='<unknown>', GPU has fallen off the bus.", &got));
  CHECK_FALSE(got.empty());
}

TEST_CASE("rules whose pattern set cannot be built still match, each alone") {
  // Twenty rules on one literal, compiled on first use; one pattern does not compile, so the set
  // cannot hold them all and says so: the others answer for themselves.
  std::vector<Rule> rules;
  for (int i = 0; i < 20; ++i) {
    Rule r;
    r.id = fmt::format("t.code-{}", i);
    r.role = Role::symptom;
    r.literals = {"ZqCode ("};
    r.pattern = i == 5 ? "ZqCode \\((" : fmt::format("ZqCode \\((?P<dev>\\w+)\\): {}\\b", i);
    r.re = std::make_shared<RulePattern>(r.pattern);
    rules.push_back(std::move(r));
  }
  RuleSet set;
  set.rules = std::move(rules);
  auto m = Matcher::build(set);
  REQUIRE(m);
  REQUIRE((*m)->pattern_sets() == 1);
  std::vector<int> hits, blocks;
  (*m)->line_rules("ZqCode (gpu3): 7", Stream::applog, &hits, &blocks);
  REQUIRE(hits.size() == 1);
  CHECK(set.rules[hits[0]].id == "t.code-7");
}
