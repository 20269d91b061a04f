#include "core/rules/rules.hpp"

#include "core/base/text.hpp"
#include "core/base/json_writer.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fnmatch.h>
#include <re2/re2.h>

#include "core/base/duration.hpp"
#include "core/rules/pattern_options.hpp"
#include "core/base/toml_util.hpp"

namespace attribution {

std::string_view to_string(Role r) {
  switch (r) {
    case Role::cause: return "cause";
    case Role::symptom: return "symptom";
    case Role::context: return "context";
    case Role::benign: return "benign";
  }
  return "?";
}

std::string_view to_string(Scope s) {
  switch (s) {
    case Scope::gpu: return "gpu";
    case Scope::host: return "host";
    case Scope::job: return "job";
    case Scope::peer: return "peer";
  }
  return "?";
}

bool Rule::reads_stream(Stream stream) const {
  return streams.empty() || std::find(streams.begin(), streams.end(), stream) != streams.end();
}

const Rule* RuleSet::find(std::string_view id) const {
  auto it = std::lower_bound(rules.begin(), rules.end(), id, [](const Rule& r, std::string_view v) { return r.id < v; });
  return it != rules.end() && it->id == id ? &*it : nullptr;
}

bool selector_matches(std::string_view sel, const Rule& r) {
  if (sel.substr(0, 9) == "category:") return r.category == sel.substr(9);
  if (sel.substr(0, 7) == "family:") return r.family == sel.substr(7);
  if (sel.substr(0, 5) == "role:") return to_string(r.role) == sel.substr(5);
  return fnmatch(std::string(sel).c_str(), r.id.c_str(), 0) == 0;
}

namespace {

constexpr size_t kMaxLiteral = 1024;  // the scan's windows overlap by the longest literal

const std::set<std::string> kRuleKeys = {"id", "title", "pattern", "literals", "lines", "streams", "role",
                                         "category", "family", "blame", "confidence", "action", "priority",
                                         "burst", "scope", "within", "explains", "repeated", "when", "match", "no_match",
                                         "fallback", "generic", "signal", "tail"};
const std::set<std::string> kFamilies = {"accelerator-gpu", "accelerator-memory", "accelerator-fabric",
                                         "network-fabric", "host", "host-oom", "storage", "scheduler",
                                         "application", "configuration", "unknown"};

Result<Scope> parse_scope(const TomlReader& r, std::string_view key, std::string_view v) {
  if (v == "gpu") return Scope::gpu;
  if (v == "host") return Scope::host;
  if (v == "job") return Scope::job;
  if (v == "peer") return Scope::peer;
  return r.error(key, fmt::format("scope '{}' is not one of gpu, host, job, peer", v));
}

Result<Micros> duration_field(const TomlReader& r, std::string_view key, Micros dflt) {
  auto s = r.str(key);
  if (!s) return s.error();
  if (!s.value()) return dflt;
  auto d = parse_duration(**s);
  if (!d) return r.error(key, d.error().message, d.error().hint);
  return *d;
}

Status check_family(const TomlReader& r, const std::string& family) {
  if (!family.empty() && !kFamilies.count(family))
    return r.error("family", fmt::format("family '{}' is not a known family", family), "see docs/rules.md for the list");
  return Ok{};
}

// `blame` and `confidence`, parsed into their enums here and nowhere else; absent keys leave `out`.
template <typename E>
Status read_enum(const TomlReader& r, const char* key, std::optional<E> (*parse)(std::string_view),
                 std::optional<E>& out, const char* expected) {
  auto v = r.str(key);
  if (!v) return v.error();
  if (!v.value()) return Ok{};
  out = parse(**v);
  if (!out) return r.error(key, fmt::format("{} '{}' is not one of {}", key, **v, expected));
  return Ok{};
}

Status read_blame(const TomlReader& r, std::optional<Blame>& out) {
  return read_enum(r, "blame", parse_blame, out, "infrastructure, application, scheduler, unknown");
}

Status read_confidence(const TomlReader& r, std::optional<Confidence>& out) {
  return read_enum(r, "confidence", parse_confidence, out, "high, medium, low");
}

// `repeated = { processes = 2, category = ..., blame = ... }`: unset labels keep the rule's own.
Result<Repeated> parse_repeated(const TomlReader& rr, const toml::node& node, const Rule& rule) {
  const toml::table* t = node.as_table();
  if (!t) return rr.error("repeated", "repeated is a table {processes, category, family, blame, confidence, action}");
  if (rule.role != Role::cause) return rr.error("repeated", "only a cause is read differently when it repeats");
  TomlReader r(*t, rr.file(), "rule " + rule.id + ".repeated");
  if (auto st = r.only_keys({"processes", "category", "family", "blame", "confidence", "action"}); !st) return st.error();
  Repeated rep{2, rule.category, rule.family, rule.blame.value_or(Blame::unknown), rule.confidence, rule.action};
  for (auto [key, out] : std::initializer_list<std::pair<const char*, std::string*>>{
           {"category", &rep.category}, {"family", &rep.family}, {"action", &rep.action}}) {
    auto v = r.str(key);
    if (!v) return v.error();
    if (v.value()) *out = **v;
  }
  if (auto st = check_family(r, rep.family); !st) return st.error();
  std::optional<Blame> blame;
  std::optional<Confidence> confidence;
  if (auto st = read_blame(r, blame); !st) return st.error();
  if (auto st = read_confidence(r, confidence); !st) return st.error();
  rep.blame = blame.value_or(rep.blame);
  rep.confidence = confidence.value_or(rep.confidence);
  auto n = r.integer("processes");
  if (!n) return n.error();
  if (n.value()) {
    if (**n < 2 || **n > 1000) return r.error("processes", "processes must be between 2 and 1000");
    rep.processes = static_cast<int>(**n);
  }
  return rep;
}

// A string key into `out`, left as it is when absent.
Status read_str(const TomlReader& r, std::string_view key, std::string& out, bool required) {
  auto v = r.str(key, required);
  if (!v) return v.error();
  if (v.value()) out = **v;
  return Ok{};
}

// The labels and prefilter: title, pattern, category, family, action, literals, streams, role,
// blame and confidence.
Status parse_rule_labels(const TomlReader& rr, Rule& rule) {
  for (auto [key, out, req] : std::initializer_list<std::tuple<const char*, std::string*, bool>>{
           {"title", &rule.title, true}, {"pattern", &rule.pattern, true}, {"category", &rule.category, false},
           {"family", &rule.family, false}, {"action", &rule.action, false}})
    if (auto st = read_str(rr, key, *out, req); !st) return st;
  ATTRIBUTION_TRY(rule.literals, rr.str_list("literals"));
  if (rule.literals.empty()) return rr.error("literals", "a rule needs at least one literal for the prefilter");
  for (const auto& l : rule.literals) {
    if (l.empty()) return rr.error("literals", "a literal must not be empty");
    if (l.size() > kMaxLiteral)
      return rr.error("literals", fmt::format("a literal must be at most {} bytes (this one has {})", kMaxLiteral, l.size()),
                      "a literal is a short substring every matching line holds");
  }
  std::vector<std::string> streams;
  ATTRIBUTION_TRY(streams, rr.str_list("streams"));
  for (const auto& name : streams) {
    auto st = parse_stream_name(name);
    if (!st) return rr.error("streams", fmt::format("stream '{}' is not one of applog, syslog, scheduler, metrics", name));
    rule.streams.push_back(*st);
  }
  std::string role;
  if (auto st = read_str(rr, "role", role, true); !st) return st;
  if (role == "cause") rule.role = Role::cause;
  else if (role == "symptom") rule.role = Role::symptom;
  else if (role == "context") rule.role = Role::context;
  else if (role == "benign") rule.role = Role::benign;
  else return rr.error("role", fmt::format("role '{}' is not one of cause, symptom, context, benign", role));
  if (auto st = read_blame(rr, rule.blame); !st) return st;
  std::optional<Confidence> confidence;
  if (auto st = read_confidence(rr, confidence); !st) return st;
  if (rule.role == Role::cause && (rule.category.empty() || rule.family.empty() || !rule.blame))
    return rr.error("", "a cause needs category, family and blame");
  rule.confidence = confidence.value_or(rule.role == Role::cause ? Confidence::high : Confidence::medium);
  return check_family(rr, rule.family);
}

// How findings fold and what they explain: priority, lines, burst, scope, within, explains.
Status parse_rule_precedence(const toml::table& t, const TomlReader& rr, Rule& rule) {
  std::optional<int64_t> n;
  ATTRIBUTION_TRY(n, rr.integer("priority"));
  if (n) rule.priority = static_cast<int>(*n);
  ATTRIBUTION_TRY(n, rr.integer("lines"));
  if (n) {
    if (*n < 1 || *n > 64) return rr.error("lines", "lines must be between 1 and 64");
    rule.lines = static_cast<int>(*n);
  }
  ATTRIBUTION_TRY(rule.burst, duration_field(rr, "burst", 60 * kMicrosPerSecond));
  Micros within;
  ATTRIBUTION_TRY(within, duration_field(rr, "within", 30 * 60 * kMicrosPerSecond));
  std::string scope_text = "job";
  if (auto st = read_str(rr, "scope", scope_text, false); !st) return st;
  Scope scope;
  ATTRIBUTION_TRY(scope, parse_scope(rr, "scope", scope_text));
  if (const toml::array* ex = t["explains"].as_array()) {
    for (const auto& el : *ex) {
      Explain e{"", scope, within};
      if (auto v = el.value<std::string>()) {
        e.what = *v;
      } else if (const toml::table* et = el.as_table()) {
        TomlReader er(*et, rr.file(), "rule " + rule.id + ".explains");
        if (auto st = er.only_keys({"what", "scope", "within", "first"}); !st) return st;
        std::optional<std::string> s;
        ATTRIBUTION_TRY(s, er.str("what", true));
        e.what = *s;
        ATTRIBUTION_TRY(s, er.str("scope"));
        if (s) ATTRIBUTION_TRY(e.scope, parse_scope(er, "scope", *s));
        ATTRIBUTION_TRY(e.within, duration_field(er, "within", within));
        std::optional<bool> first;
        ATTRIBUTION_TRY(first, er.boolean("first"));
        e.first = first.value_or(false);
      } else {
        return rr.error("explains", "each explains entry is a string or a table {what, scope, within, first}");
      }
      rule.explains.push_back(std::move(e));
    }
  } else if (t.contains("explains")) {
    return rr.error("explains", "explains must be a list");
  }
  if (rule.role != Role::cause && !rule.explains.empty())
    return rr.error("explains", "only a cause explains other findings");
  return Ok{};
}

// How the rule reads in special cases: repeated, fallback, generic, signal, tail.
Status parse_rule_variants(const toml::table& t, const TomlReader& rr, Rule& rule) {
  if (const toml::node* rp = t.get("repeated")) {
    ATTRIBUTION_TRY(rule.repeated, parse_repeated(rr, *rp, rule));
  }
  std::optional<bool> flag;
  ATTRIBUTION_TRY(flag, rr.boolean("fallback"));
  if (flag.value_or(false) && rule.role != Role::cause) return rr.error("fallback", "only a cause can be a fallback cause");
  rule.fallback = flag.value_or(false);
  ATTRIBUTION_TRY(flag, rr.boolean("tail"));
  rule.tail = flag.value_or(false);
  ATTRIBUTION_TRY(flag, rr.boolean("generic"));
  if (flag.value_or(false) && rule.role != Role::cause && rule.role != Role::symptom)
    return rr.error("generic", "only a cause or a symptom can yield to another rule");
  if (flag.value_or(false) && (rule.lines > 1 || rule.tail))
    return rr.error("generic", "a generic rule reads one line in the forward scan: drop `lines` or `tail`");
  rule.generic = flag.value_or(false);
  std::string signal;
  if (auto st = read_str(rr, "signal", signal, false); !st) return st;
  if (signal == "timeout") rule.signal = Signal::timeout;
  else if (signal == "teardown") rule.signal = Signal::teardown;
  else if (signal == "library") rule.signal = Signal::library;
  else if (!signal.empty())
    return rr.error("signal", fmt::format("signal '{}' is not one of timeout, teardown, library", signal));
  if (!signal.empty() && rule.role != Role::symptom) return rr.error("signal", "only a symptom has a signal");
  return Ok{};
}

// The samples: at least one line it must match (with the captures it must give), and lines it
// must not match.
Status parse_rule_samples(const toml::table& t, const TomlReader& rr, Rule& rule) {
  if (const toml::array* m = t["match"].as_array()) {
    for (const auto& el : *m) {
      const toml::table* mt = el.as_table();
      if (!mt) return rr.error("match", "each match sample is a table {line, captures}");
      TomlReader mr(*mt, rr.file(), "rule " + rule.id + ".match");
      if (auto st = mr.only_keys({"line", "captures"}); !st) return st;
      Sample sample;
      sample.source_line = mr.line();
      std::optional<std::string> s;
      ATTRIBUTION_TRY(s, mr.str("line", true));
      sample.line = *s;
      if (const toml::node* c = mt->get("captures")) {
        const toml::table* ct = c->as_table();
        if (!ct) return mr.error("captures", "captures must be a table of strings");
        for (const auto& [k, v] : *ct) {
          auto vs = v.value<std::string>();
          if (!vs) return mr.error("captures", "capture values must be strings");
          sample.captures[std::string(k.str())] = *vs;
        }
      }
      rule.match.push_back(std::move(sample));
    }
  }
  if (rule.match.empty()) return rr.error("match", "a rule needs at least one match sample");
  if (const toml::array* m = t["no_match"].as_array()) {
    for (const auto& el : *m) {
      auto v = el.value<std::string>();
      if (!v) return rr.error("no_match", "no_match samples are strings");
      rule.no_match.push_back(Sample{*v, {}, static_cast<long>(el.source().begin.line)});
    }
  }
  return Ok{};
}

// The pattern compiled (or, `checked`, deferred to first use), and the `when` conditions over its
// captures.
Status compile_rule(const toml::table& t, const TomlReader& rr, Rule& rule, bool checked) {
  std::set<std::string, std::less<>> names;
  if (checked) {
    rule.re = std::make_shared<RulePattern>(rule.pattern);
  } else {
    auto re = std::make_shared<RE2>(rule.pattern, pattern_options());
    if (!re->ok()) return rr.error("pattern", "pattern does not compile: " + re->error());
    for (const auto& [i, name] : re->CapturingGroupNames()) names.insert(name);
    rule.re = std::make_shared<RulePattern>(std::move(re));
  }
  std::vector<std::string> when;
  if (const toml::node* w = t.get("when"); w && w->is_string()) when.push_back(*w->value<std::string>());
  else ATTRIBUTION_TRY(when, rr.str_list("when"));
  for (const auto& text : when) {
    std::string why;
    auto c = parse_condition(text, &why);
    if (!c) return rr.error("when", fmt::format("'{}': {}", text, why));
    for (const std::string* side : {&c->left, &c->right})
      if (std::isalpha(static_cast<unsigned char>(side->front())) || side->front() == '_')
        if (!checked && !names.count(*side)) return rr.error("when", fmt::format("'{}': the pattern has no capture '{}'", text, *side));
    rule.when.push_back(std::move(*c));
  }
  return Ok{};
}

Result<Rule> parse_rule(const toml::table& t, const std::string& file, size_t index, bool checked, bool samples) {
  TomlReader r(t, file, fmt::format("rule[{}]", index));
  Rule rule;
  rule.file = file;
  rule.line = r.line();
  std::optional<std::string> id;
  ATTRIBUTION_TRY(id, r.str("id", true));
  rule.id = *id;
  TomlReader rr(t, file, "rule " + rule.id);
  if (auto st = rr.only_keys(kRuleKeys); !st) return st.error();
  if (auto st = parse_rule_labels(rr, rule); !st) return st.error();
  if (auto st = parse_rule_precedence(t, rr, rule); !st) return st.error();
  if (auto st = parse_rule_variants(t, rr, rule); !st) return st.error();
  if (samples)
    if (auto st = parse_rule_samples(t, rr, rule); !st) return st.error();
  if (auto st = compile_rule(t, rr, rule, checked); !st) return st.error();
  if (rule.tail && rule.lines > 1) return rr.error("tail", "a tail rule reads one line: drop `lines`");
  return rule;
}

Result<MetricSpec> parse_metric(const toml::table& t, const std::string& file, size_t index) {
  TomlReader r(t, file, fmt::format("metric[{}]", index));
  if (auto st = r.only_keys({"id", "selector", "condition", "threshold"}); !st) return st.error();
  MetricSpec m;
  m.file = file;
  m.line = r.line();
  std::optional<std::string> s;
  ATTRIBUTION_TRY(s, r.str("id", true));
  m.id = *s;
  ATTRIBUTION_TRY(s, r.str("selector", true));
  m.selector = *s;
  ATTRIBUTION_TRY(s, r.str("condition"));
  if (s) m.condition = *s;
  if (m.condition != "increase" && m.condition != "changed" && m.condition != "above")
    return r.error("condition", fmt::format("condition '{}' is not one of increase, changed, above", m.condition));
  if (const toml::node* n = t.get("threshold")) {
    if (auto d = n->value<double>()) m.threshold = *d;
    else return r.error("threshold", "threshold must be a number");
  }
  if (m.selector.find_first_of("{}\"'") != std::string::npos)
    return r.error("selector", "selector is a metric name; the source adds the host filter");
  return m;
}

}  // namespace

Result<std::vector<Rule>> parse_rules(std::string_view text, const std::string& file, std::vector<MetricSpec>* metrics,
                                      bool checked, bool samples) {
  auto doc = parse_toml(text, file);
  if (!doc) return doc.error();
  std::vector<Rule> out;
  if (const toml::array* ms = (*doc)["metric"].as_array(); ms && metrics) {
    size_t i = 0;
    for (const auto& el : *ms) {
      const toml::table* t = el.as_table();
      if (!t) return make_error(ErrorKind::rules, "each metric must be a [[metric]] table", file, 0);
      auto m = parse_metric(*t, file, i++);
      if (!m) return as_rules_error(m.error());
      metrics->push_back(std::move(m.value()));
    }
  }
  for (const auto& [k, v] : *doc)
    if (k.str() != "rule" && (k.str() != "metric" || !metrics))
      return make_error(ErrorKind::rules, fmt::format("unknown top-level key '{}'", k.str()), file,
                        static_cast<long>(v.source().begin.line), std::string(k.str()), "rules are [[rule]] tables");
  const toml::array* arr = (*doc)["rule"].as_array();
  if (!arr) return out;
  size_t i = 0;
  for (const auto& el : *arr) {
    const toml::table* t = el.as_table();
    if (!t) return make_error(ErrorKind::rules, "each rule must be a [[rule]] table", file, 0);
    auto rule = parse_rule(*t, file, i++, checked, samples);
    if (!rule) return as_rules_error(rule.error());
    out.push_back(std::move(rule.value()));
  }
  return out;
}

Error as_rules_error(Error e) {
  e.kind = ErrorKind::rules;
  return e;
}

bool rule_groups(const Rule& rule, std::string_view text, std::map<std::string, std::string>* out) {
  const RE2& re = rule.regex();
  int n = re.NumberOfCapturingGroups();
  thread_local std::vector<re2::StringPiece> groups;  // reused: one per candidate line otherwise
  groups.assign(n + 1, re2::StringPiece());
  if (!rule.re->search(text, groups.data(), n + 1)) return false;
  // One name may stand in several alternatives (RE2 allows it): the leftmost group that took part gives the value.
  for (const auto& [i, name] : re.CapturingGroupNames())
    if (groups[i].data()) out->try_emplace(name, groups[i].data(), groups[i].size());
  return true;
}

bool when_holds(const Rule& rule, const std::map<std::string, std::string>& captures) {
  for (const auto& c : rule.when)
    if (!holds(c, captures)) return false;
  return true;
}

bool rule_captures(const Rule& rule, std::string_view text, std::map<std::string, std::string>* out) {
  return rule_groups(rule, text, out) && when_holds(rule, *out);
}

Status check_samples(const Rule& rule) {
  // The message shows the sample and the pattern: what a rule author needs to see side by side.
  auto fail = [&](const Sample& s, std::string msg) {
    return make_error(ErrorKind::rules,
                      fmt::format("rule {}: {}\n  sample:   {}\n  pattern:  {}\n  literals: {}", rule.id, msg,
                                  sanitize_utf8(s.line), rule.pattern, fmt::join(rule.literals, " | ")),
                      rule.file, s.source_line, rule.id, "fix the pattern, the literals or the sample");
  };
  auto literal_hit = [&](std::string_view line) {
    // A multi-line rule's literal must be on the first line: that line triggers the block.
    std::string_view first = line.substr(0, line.find('\n'));
    for (const auto& l : rule.literals)
      if (first.find(l) != std::string_view::npos) return true;
    return false;
  };
  std::set<std::string, std::less<>> names;
  for (const auto& [i, name] : rule.regex().CapturingGroupNames()) names.insert(name);
  for (size_t i = 0; i < rule.match.size(); ++i) {
    const Sample& s = rule.match[i];
    if (!literal_hit(s.line)) return fail(s, fmt::format("match sample {} contains none of the literals", i + 1));
    std::map<std::string, std::string> got;
    if (!rule_captures(rule, s.line, &got)) {
      if (rule.when.empty() || !RE2::PartialMatch(s.line, rule.regex()))
        return fail(s, fmt::format("match sample {} does not match the pattern", i + 1));
      return fail(s, fmt::format("match sample {} matches the pattern, but a `when` condition does not hold", i + 1));
    }
    for (const auto& [name, want] : s.captures) {
      if (!names.count(name)) return fail(s, fmt::format("sample {} expects capture '{}', which the pattern lacks", i + 1, name));
      auto it = got.find(name);
      std::string value = it == got.end() ? "" : it->second;
      if (value != want)
        return fail(s, fmt::format("sample {}: capture '{}' is '{}', expected '{}'", i + 1, name, value, want));
    }
  }
  for (size_t i = 0; i < rule.no_match.size(); ++i) {
    const Sample& s = rule.no_match[i];
    std::map<std::string, std::string> got;
    if (literal_hit(s.line) && rule_captures(rule, s.line, &got))
      return fail(s, fmt::format("no_match sample {} matches", i + 1));
  }
  return Ok{};
}

RulePattern::RulePattern(std::shared_ptr<const RE2> compiled) : re_(std::move(compiled)) {}
RulePattern::RulePattern(std::string deferred) : pattern_(std::move(deferred)) {}
RulePattern::~RulePattern() = default;

const RE2& RulePattern::get() const {
  // A pattern given compiled sets re_ before the object is shared; call_once orders the rest.
  std::call_once(once_, [this] {
    if (!re_) re_ = std::make_shared<RE2>(pattern_, pattern_options());
    // Every anchored match s has min <= s <= max, so every match starts with their common prefix.
    constexpr int kLeadMax = 64;
    std::string min, max;
    if (re_->ok() && re_->PossibleMatchRange(&min, &max, kLeadMax)) {
      size_t n = 0;
      while (n < min.size() && n < max.size() && min[n] == max[n]) ++n;
      lead_ = min.substr(0, n);
    }
  });
  return *re_;
}

std::string_view RulePattern::lead() const {
  get();
  return lead_;
}

bool RulePattern::search(std::string_view text, re2::StringPiece* groups, int n) const {
  const RE2& re = get();
  const re2::StringPiece t(text.data(), text.size());
  if (lead_.empty()) return re.Match(t, 0, t.size(), RE2::UNANCHORED, groups, n);
  // The unanchored match starts at the leftmost place where the pattern matches, which is one of
  // the lead's places; anchored there, RE2 gives it the same submatches. A line that holds the lead
  // many times is searched by RE2 from the place reached: tries that each read the rest of a long
  // line would cost its length squared.
  constexpr int kTries = 8;
  int tries = 0;
  for (size_t at = text.find(lead_); at != std::string_view::npos; at = text.find(lead_, at + 1)) {
    if (++tries > kTries) return re.Match(t, at, t.size(), RE2::UNANCHORED, groups, n);
    if (re.Match(t, at, t.size(), RE2::ANCHOR_START, groups, n)) return true;
  }
  return false;
}

const RE2& Rule::regex() const { return re->get(); }

}  // namespace attribution
