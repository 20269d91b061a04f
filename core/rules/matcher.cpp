#include "core/rules/matcher.hpp"

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "core/base/text.hpp"

namespace attribution {

Matcher::Matcher(const RuleSet& rules) : rules_(rules) {}
Matcher::~Matcher() = default;

namespace {
uint32_t head4(const char* p) {
  uint32_t w;
  std::memcpy(&w, p, 4);
  return w;
}
uint16_t head2(const char* p) {
  uint16_t w;
  std::memcpy(&w, p, 2);
  return w;
}
uint64_t head8(const char* p, size_t n) {  // the first min(n, 8) bytes, the rest zero
  uint64_t w = 0;
  std::memcpy(&w, p, std::min<size_t>(n, 8));
  return w;
}
uint32_t head_bucket(uint32_t head) { return (head * 2654435761u) >> 16; }  // Fibonacci hashing
// From this many single-line rules sharing a literal, one pass of their set costs less than their
// regexes one by one on a line that holds it. Today only the Xid rules' literal has more than three.
constexpr size_t kMinRulesForSet = 16;
}  // namespace

struct Matcher::SetAnswers {
  std::vector<int8_t> state;  // per set: 0 not asked yet, 1 answered, -1 cannot say
  std::vector<std::vector<int>> ids;
};

Result<std::shared_ptr<Matcher>> Matcher::build(const RuleSet& rules) {
  std::shared_ptr<Matcher> m(new Matcher(rules));
  // Tail rules stay out of the forward prefilter: their lines are many and only the last ones count.
  std::map<std::string, std::vector<int>> owners;
  m->anchored_.resize(rules.rules.size());
  for (size_t i = 0; i < rules.rules.size(); ++i) {
    const Rule& r = rules.rules[i];
    m->anchored_[i] = pattern_anchored(r.pattern);
    if (r.tail) {
      m->tail_rules_.push_back(static_cast<int>(i));
      continue;
    }
    m->literals_.insert(m->literals_.end(), r.literals.begin(), r.literals.end());
    for (const auto& l : r.literals) {
      auto& v = owners[l];
      if (v.empty() || v.back() != static_cast<int>(i)) v.push_back(static_cast<int>(i));
    }
  }
  for (const auto& l : m->literals_) m->longest_literal_ = std::max(m->longest_literal_, l.size());
  m->first_pair_.assign((size_t{1} << 16) / 64, 0);
  // Buckets laid out by counting: one pass counts each bucket's literals, one places them (no
  // vector per bucket to allocate at every start).
  std::vector<uint32_t> start((size_t{1} << 16) + 1, 0);
  for (auto& [lit, rule_ids] : owners) {
    uint32_t k = static_cast<uint32_t>(m->forward_literals_.size());
    if (lit.size() < 4) {
      m->short_literals_.push_back(k);
    } else {
      m->first_pair_[head2(lit.data()) >> 6] |= uint64_t{1} << (head2(lit.data()) & 63);
      ++start[head_bucket(head4(lit.data())) + 1];
    }
    m->forward_literals_.push_back(lit);
    m->literal_rules_.push_back(std::move(rule_ids));
  }
  for (size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
  m->bucket_start_ = start;
  m->bucket_heads_.resize(start.back());
  for (uint32_t k = 0; k < m->forward_literals_.size(); ++k) {
    const std::string& l = m->forward_literals_[k];
    if (l.size() < 4) continue;
    uint64_t mask = l.size() >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * l.size())) - 1;
    m->bucket_heads_[start[head_bucket(head4(l.data()))]++] = {head8(l.data(), l.size()), mask, k};
  }
  m->build_sets();
  return m;
}

void Matcher::build_sets() {
  set_of_rule_.assign(rules_.rules.size(), -1);
  for (const auto& rule_ids : literal_rules_) {
    std::vector<int> ids;
    std::vector<std::string> patterns;
    for (int i : rule_ids)
      if (rules_.rules[i].lines == 1 && set_of_rule_[i] < 0) ids.push_back(i), patterns.push_back(rules_.rules[i].pattern);
    if (ids.size() < kMinRulesForSet) continue;
    for (int i : ids) set_of_rule_[i] = static_cast<int>(sets_.size());
    sets_.push_back(std::make_unique<PatternSet>(std::move(ids), std::move(patterns)));
  }
}

bool Matcher::may_match(int idx, std::string_view line, SetAnswers* memo) const {
  const int s = set_of_rule_[idx];
  if (s < 0) return true;
  if (memo->state[s] == 0) memo->state[s] = sets_[s]->try_match(line, &memo->ids[s]) ? 1 : -1;
  return memo->state[s] < 0 || std::binary_search(memo->ids[s].begin(), memo->ids[s].end(), idx);
}

void Matcher::rules_with_literal(std::string_view line, std::vector<int>* out, size_t first_literal) const {
  out->clear();
  const char* p = line.data();
  const size_t n = line.size();
  for (size_t i = first_literal; i + 4 <= n; ++i) {
    if (const uint16_t h = head2(p + i); !(first_pair_[h >> 6] >> (h & 63) & 1)) continue;
    uint32_t b = head_bucket(head4(p + i));
    for (uint32_t j = bucket_start_[b]; j < bucket_start_[b + 1]; ++j) {
      const BucketHead& h = bucket_heads_[j];
      // Eight bytes compared at once reject nearly every near miss before memcmp runs.
      if ((head8(p + i, n - i) & h.mask) != h.bytes) continue;
      const std::string& l = forward_literals_[h.literal];
      if (l.size() <= n - i && (l.size() <= 8 || std::memcmp(p + i + 8, l.data() + 8, l.size() - 8) == 0))
        out->insert(out->end(), literal_rules_[h.literal].begin(), literal_rules_[h.literal].end());
    }
  }
  for (uint32_t k : short_literals_)
    if (line.find(forward_literals_[k], first_literal) != std::string_view::npos)
      out->insert(out->end(), literal_rules_[k].begin(), literal_rules_[k].end());
  std::sort(out->begin(), out->end());
  out->erase(std::unique(out->begin(), out->end()), out->end());
}

std::unique_ptr<LiteralSearch> Matcher::tuned_prefilter(std::string_view sample) const {
  return std::make_unique<LiteralSearch>(literals_, sample);
}

size_t Matcher::next_candidate_line(std::string_view buf, size_t from, const LiteralSearch* search, size_t* hit) const {
  if (from >= buf.size()) return std::string_view::npos;
  if (!search) {  // built on first use: the scan brings its own, tuned to its input
    std::call_once(prefilter_once_, [this] { prefilter_ = std::make_unique<LiteralSearch>(literals_); });
    search = prefilter_.get();
  }
  size_t pos = search->find(buf, from);
  if (hit) *hit = pos;
  if (pos == std::string_view::npos) return pos;
  size_t start = line_start(buf, pos);
  return start < from ? from : start;
}

bool Matcher::has_literal(int index, std::string_view line) const {
  for (const auto& l : rules_.rules[index].literals)
    if (line.find(l) != std::string_view::npos) return true;
  return false;
}

bool pattern_anchored(std::string_view pattern) {
  bool in_class = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\') {
      ++i;
    } else if (in_class) {
      in_class = c != ']' || pattern[i - 1] == '[' || (pattern[i - 1] == '^' && pattern[i - 2] == '[');
    } else if (c == '[') {
      in_class = true;
    } else if (c == '^') {
      return true;
    }
  }
  return false;
}

void Matcher::candidate_rules(std::string_view line, Stream stream, std::vector<int>* hits, std::vector<int>* blocks,
                              std::vector<std::map<std::string, std::string>>* groups,
                              const std::function<std::string_view()>* message, size_t first_literal) const {
  // Reused, no allocation per candidate line; so `message` must not call back into a Matcher.
  thread_local std::vector<int> owners;
  thread_local SetAnswers sets;
  rules_with_literal(line, &owners, first_literal);
  sets.state.assign(sets_.size(), 0);
  if (sets.ids.size() < sets_.size()) sets.ids.resize(sets_.size());
  hits->clear();
  blocks->clear();
  if (groups) groups->clear();
  std::string_view text;  // the message, once asked for
  bool asked = false;
  for (int idx : owners) {
    const Rule& r = rules_.rules[idx];
    if (!r.reads_stream(stream)) continue;
    if (r.lines > 1) {
      blocks->push_back(idx);
      continue;
    }
    if (may_match(idx, line, &sets) && matches(idx, line, hits, groups)) continue;
    if (!message || !anchored_[idx]) continue;
    if (!asked) text = (*message)(), asked = true;
    if (!text.empty() && text.size() < line.size()) matches(idx, text, hits, groups);
  }
}

bool Matcher::matches(int idx, std::string_view text, std::vector<int>* hits,
                      std::vector<std::map<std::string, std::string>>* groups) const {
  const Rule& r = rules_.rules[idx];
  if (groups) {
    // Nearly every candidate line matches: one match with its groups costs less than a yes/no match
    // now and the groups later.
    std::map<std::string, std::string> g;
    if (!rule_groups(r, text, &g)) return false;
    hits->push_back(idx), groups->push_back(std::move(g));
    return true;
  }
  if (!r.re->search(text, nullptr, 0)) return false;
  hits->push_back(idx);
  return true;
}

void Matcher::match_line(std::string_view line, Stream stream, std::vector<int>* hits) const {
  thread_local std::vector<int> blocks;
  candidate_rules(line, stream, hits, &blocks);
}

void Matcher::tail_hits(std::string_view line, Stream stream, std::vector<int>* hits) const {
  hits->clear();
  for (int idx : tail_rules_) {
    std::map<std::string, std::string> caps;
    if (rules_.rules[idx].reads_stream(stream) && has_literal(idx, line) && captures(idx, line, &caps)) hits->push_back(idx);
  }
}

void Matcher::line_rules(std::string_view line, Stream stream, std::vector<int>* hits, std::vector<int>* blocks,
                         std::vector<std::map<std::string, std::string>>* groups,
                         const std::function<std::string_view()>* message, size_t first_literal) const {
  candidate_rules(line, stream, hits, blocks, groups, message, first_literal);
  for (size_t i = 0; i < hits->size(); ++i)
    if (int r = (*hits)[i]; rules_.rules[r].role == Role::benign) {
      if (groups) *groups = {std::move((*groups)[i])};
      *hits = {r};
      blocks->clear();
      return;
    }
  drop_generic(hits, groups);
}

void Matcher::drop_generic(std::vector<int>* hits, std::vector<std::map<std::string, std::string>>* groups) const {
  if (hits->size() < 2) return;
  // A closer reading is one the scan will emit: its `when` holds on the captures (unknown without them).
  auto closer = [&](size_t i) {
    const Rule& rule = rules_.rules[(*hits)[i]];
    if (rule.generic || (rule.role != Role::cause && rule.role != Role::symptom)) return false;
    return rule.when.empty() || (groups && when_holds(rule, (*groups)[i]));
  };
  auto generic = [&](int r) { return rules_.rules[r].generic; };
  bool any_closer = false;
  for (size_t i = 0; i < hits->size() && !any_closer; ++i) any_closer = closer(i);
  if (!any_closer || std::none_of(hits->begin(), hits->end(), generic)) return;
  size_t kept = 0;
  for (size_t i = 0; i < hits->size(); ++i) {
    if (generic((*hits)[i])) continue;
    if (kept != i) {
      (*hits)[kept] = (*hits)[i];
      if (groups) (*groups)[kept] = std::move((*groups)[i]);
    }
    ++kept;
  }
  hits->resize(kept);
  if (groups) groups->resize(kept);
}

bool Matcher::captures(int index, std::string_view text, std::map<std::string, std::string>* out) const {
  return rule_captures(rules_.rules[index], text, out);
}

}  // namespace attribution
